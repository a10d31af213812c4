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
        let batch_kernels: [(&str, AffineBatchHost); 2] = [
            ("bench_g1_affine_batch", cuzk_kernels::gpu::bench::bench_g1_affine_batch),
            ("bench_g1_affine_batch_lean", cuzk_kernels::gpu::bench::bench_g1_affine_batch_lean),
        ];
        for (kernel, host) in batch_kernels {
            if filter.is_empty() || filter.iter().any(|f| kernel.contains(f.as_str())) {
                run_affine_batch(module, &stream, kernel, host);
            }
        }
    }
}

/// A batch-affine kernel's host build: (a, b, idx, prefix, n, k, iters).
type AffineBatchHost = unsafe fn(*mut u64, *const u64, *const u32, *mut u64, u32, u32, u32);

/// `kernel`, `bench_g1_affine_batch` or its `_lean` twin (`host`: its
/// host build): batch-affine additions as a streaming pass
/// makes them (one inversion per thread's `k` additions, coalesced
/// accumulators and prefixes), over 2^26 additions a launch, the bases read
/// in order or gathered through a random index as the MSM's first level
/// reads them. First checks the kernel against its host build on a small
/// case.
fn run_affine_batch(module: &cust::module::Module, stream: &Stream, kernel: &str, host: AffineBatchHost) {
    use rand::seq::SliceRandom;
    if module.get_function(kernel).is_err() {
        println!("{kernel:<22} (not in this PTX)");
        return;
    }
    // Field elements below p (the top limb masked), not points: the
    // formulas' cost does not depend on it, and x_a = x_b never comes up.
    let values = |count: usize, salt: u64| -> Vec<u64> {
        (0..count)
            .map(|i| {
                let v = (i as u64 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17).wrapping_mul(0xD1B5_4A32_D192_ED03);
                if i % 6 == 5 { v & 0x0fff_ffff_ffff_ffff } else { v }
            })
            .collect()
    };
    let launch = |a: &DeviceBuffer<u64>, b: &DeviceBuffer<u64>, idx: &DeviceBuffer<u32>, prefix: &DeviceBuffer<u64>, n: u32, k: u32| {
        let (mut pa, mut pb, mut pi, mut pp, mut pn, mut pk, mut it) = (a.as_device_ptr(), b.as_device_ptr(), idx.as_device_ptr(), prefix.as_device_ptr(), n, k, 1u32);
        let args = [
            &mut pa as *mut _ as *mut c_void,
            &mut pb as *mut _ as *mut c_void,
            &mut pi as *mut _ as *mut c_void,
            &mut pp as *mut _ as *mut c_void,
            &mut pn as *mut _ as *mut c_void,
            &mut pk as *mut _ as *mut c_void,
            &mut it as *mut _ as *mut c_void,
        ];
        // SAFETY: the kernel's buffers: a 12·n·k, b 12·n·k, idx n·k (< n·k), prefix 6·n·k words.
        unsafe { launch_elementwise(module, stream, kernel, n, &args).unwrap() };
    };
    // The GPU against the kernel's host build, bit for bit.
    {
        let (n, k) = (200u32, 9u32);
        let total = (n * k) as usize;
        let (mut a, b) = (values(12 * total, 1), values(12 * total, 2));
        let mut idx: Vec<u32> = (0..total as u32).collect();
        idx.shuffle(&mut rand::thread_rng());
        let (da, db, di, dp) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap(), DeviceBuffer::from_slice(&idx).unwrap(), DeviceBuffer::from_slice(&vec![0u64; 6 * total]).unwrap());
        launch(&da, &db, &di, &dp, n, k);
        stream.synchronize().unwrap();
        let mut got = vec![0u64; a.len()];
        da.copy_to(&mut got[..]).unwrap();
        let mut prefix = vec![0u64; 6 * total];
        // SAFETY: host buffers of the same sizes.
        unsafe { host(a.as_mut_ptr(), b.as_ptr(), idx.as_ptr(), prefix.as_mut_ptr(), n, k, 1) };
        assert_eq!(got, a, "{kernel}: the GPU and the host build differ");
        println!("{kernel}: the GPU equals the host build ({total} additions)");
    }
    let total: usize = 1 << 26;
    let (a0, b) = (values(12 * total, 3), values(12 * total, 4));
    let da = DeviceBuffer::from_slice(&a0).unwrap();
    let db = DeviceBuffer::from_slice(&b).unwrap();
    let dp = DeviceBuffer::from_slice(&vec![0u64; 6 * total]).unwrap();
    let mut order: Vec<u32> = (0..total as u32).collect();
    let in_order = DeviceBuffer::from_slice(&order).unwrap();
    order.shuffle(&mut rand::thread_rng());
    let gathered = DeviceBuffer::from_slice(&order).unwrap();
    println!("{:<34} {:>10} {:>16}", format!("{kernel}, 2^26 additions"), "median ms", "G additions/s");
    for (label, idx) in [("bases in order", &in_order), ("bases gathered", &gathered)] {
        for k in [16u32, 32, 64, 128, 256, 512, 1024] {
            let n = (total / k as usize) as u32;
            let median = median_ms(stream, 5, || launch(&da, &db, idx, &dp, n, k));
            println!("{:<34} {median:>10.3} {:>16.2}", format!("{label}, k = {k}"), total as f64 / (median * 1e-3) / 1e9);
        }
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
        let median = median_ms(stream, 11, || {
            let (mut ps, mut po, mut pn, mut pi) = (state.as_device_ptr(), op.as_device_ptr(), n, iters);
            let args = [
                &mut ps as *mut _ as *mut c_void,
                &mut po as *mut _ as *mut c_void,
                &mut pn as *mut _ as *mut c_void,
                &mut pi as *mut _ as *mut c_void,
            ];
            // SAFETY: bench kernels take (state: *mut u64, operand: *const u64, n: u32, iters: u32).
            unsafe { launch_elementwise(module, stream, kernel, n, &args).unwrap() };
        });
        // Read back so the work cannot be skipped, and check it ran.
        let mut out = vec![0u64; seed.len()];
        state.copy_to(&mut out[..]).unwrap();
        assert_ne!(out, seed, "{kernel} did not change its state");
        let ops = n as f64 * iters as f64;
        println!("{kernel:<22} {median:>12.3} {:>14.2}", ops / (median * 1e-3) / 1e9);
    }
}

/// The median of `runs` timings (CUDA events around `launch` on `stream`),
/// after three untimed warm-up launches.
fn median_ms(stream: &Stream, runs: usize, mut launch: impl FnMut()) -> f64 {
    let (start, stop) = (Event::new(EventFlags::DEFAULT).unwrap(), Event::new(EventFlags::DEFAULT).unwrap());
    let mut times = Vec::new();
    for rep in 0..3 + runs {
        start.record(stream).unwrap();
        launch();
        stop.record(stream).unwrap();
        stop.synchronize().unwrap();
        if rep >= 3 {
            times.push(stop.elapsed_time_f32(&start).unwrap() as f64);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[times.len() / 2]
}
