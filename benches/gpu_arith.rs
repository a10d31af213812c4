//! Throughput of the GPU field and curve arithmetic, timed with CUDA events
//! (warm-up, then the median of repeated runs). Prints operations per second.
//!
//! Each `bench_*` kernel makes every thread apply its operation `iters` times
//! in a dependent chain (`x = x op y`), so memory traffic is negligible and
//! the time is the arithmetic. Without a GPU it prints why and exits 0.

use std::ffi::c_void;

use cust::event::{Event, EventFlags};
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::stream::{Stream, StreamFlags};
use cuzk::gpu::launch::launch_elementwise;

/// (kernel, words of the running state per thread, words of the operand, iterations)
const CASES: &[(&str, usize, usize, u32)] = &[
    ("bench_fr_mul", 4, 4, 1024),
    ("bench_fp_mul", 6, 6, 512),
    ("bench_fp_sqr", 6, 6, 512),
    ("bench_fp2_mul", 12, 12, 128),
    ("bench_g1_add_mixed", 24, 12, 32),
    ("bench_g2_add_mixed", 48, 24, 16),
];

fn main() {
    let gpu = match cuzk::gpu::discover(&[0]) {
        Ok(mut g) => g.remove(0),
        Err(e) => {
            println!("gpu_arith: skipped, {e}");
            return;
        }
    };
    // `--module FILE` (repeatable) measures other builds of the kernels
    // (PTX or cubin); other non-flag arguments filter kernels by name.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    let mut filter = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--module" => files.push(std::path::PathBuf::from(it.next().expect("--module FILE"))),
            "--bench" => {}
            other if other.starts_with("--") => {}
            other => filter.push(other.to_string()),
        }
    }
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    // Enough threads to fill every SM several times over.
    let n: u32 = 1 << 20;
    println!("device: {}; {} threads per launch", gpu.name, n);
    let mut modules = vec![("embedded".to_string(), None)];
    for f in files {
        let t = std::time::Instant::now();
        let m = gpu.load_module_file(&f).unwrap();
        println!("loaded {} in {:.1?}", f.display(), t.elapsed());
        modules.push((f.display().to_string(), Some(m)));
    }
    for (label, module) in &modules {
        let module = module.as_ref().unwrap_or(&gpu.module);
        println!("== module: {label}");
        println!("{:<22} {:>12} {:>14}", "kernel", "median ms", "G ops/s");
        run_cases(module, &stream, n, &filter);
    }
}

fn run_cases(module: &cust::module::Module, stream: &Stream, n: u32, filter: &[String]) {
    for &(kernel, state_words, operand_words, iters) in CASES {
        if !filter.is_empty() && !filter.iter().any(|f| kernel.contains(f.as_str())) {
            continue;
        }
        if module.get_function(kernel).is_err() {
            println!("{kernel:<22} (not in this PTX)");
            continue;
        }
        // Random-looking but valid inputs come from the kernels' own
        // seeding: the state starts as small field elements derived from
        // the thread index, see kernels/src/gpu/bench.rs.
        let seed: Vec<u64> = (0..n as usize * state_words).map(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 4).collect();
        let operand: Vec<u64> = (0..n as usize * operand_words).map(|i| (i as u64 + 7).wrapping_mul(0xD1B5_4A32_D192_ED03) >> 4).collect();
        let state = DeviceBuffer::from_slice(&seed).unwrap();
        let op = DeviceBuffer::from_slice(&operand).unwrap();
        let (start, stop) = (Event::new(EventFlags::DEFAULT).unwrap(), Event::new(EventFlags::DEFAULT).unwrap());
        let mut times = Vec::new();
        for rep in 0..14 {
            let (mut ps, mut po, mut pn, mut pi) = (state.as_device_ptr(), op.as_device_ptr(), n, iters);
            let args = [
                &mut ps as *mut _ as *mut c_void,
                &mut po as *mut _ as *mut c_void,
                &mut pn as *mut _ as *mut c_void,
                &mut pi as *mut _ as *mut c_void,
            ];
            start.record(stream).unwrap();
            // SAFETY: bench kernels take (state: *mut u64, operand: *const u64, n: u32, iters: u32).
            unsafe { launch_elementwise(module, stream, kernel, n, &args).unwrap() };
            stop.record(stream).unwrap();
            stop.synchronize().unwrap();
            if rep >= 3 {
                times.push(stop.elapsed_time_f32(&start).unwrap() as f64);
            }
        }
        // Read back so the work cannot be skipped, and check it ran.
        let mut out = vec![0u64; seed.len()];
        state.copy_to(&mut out[..]).unwrap();
        assert_ne!(out, seed, "{kernel} did not change its state");
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = times[times.len() / 2];
        let ops = n as f64 * iters as f64;
        println!("{kernel:<22} {median:>12.3} {:>14.2}", ops / (median * 1e-3) / 1e9);
    }
}
