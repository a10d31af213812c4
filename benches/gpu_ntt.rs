//! GPU NTT and H-step times, with CUDA events around the device work only
//! (data already in VRAM): 3 warm-up runs, then the median (and minimum)
//! of 11. Without a GPU it prints why and exits 0.
//!
//! Usage: `bench-gpu_ntt [--max-bits N] [--composed-twiddles] [--radix2]
//! [--unfused] [--composed-inter-pass] [--reduced-stores] [--shared-tables]
//! [--compact-tables]
//! [--module FILE] [LOG_SIZE...]` (default sizes 20, 24, 26, 27). Each size
//! gets tables built for its own domain, as a prover of that size has them;
//! `--shared-tables` builds one set for the largest size and times every
//! size on it (a smaller domain then multiplies in its inter-pass
//! twiddles: the row twiddles only fit the largest). `--max-bits` caps the
//! radix-2 stages per pass, default 10;
//! `--composed-twiddles` composes the stages' twiddles from the power tables
//! instead of the dense stage table; `--radix2` runs every stage as its own
//! phase instead of pairing stages as radix-4 phases; `--unfused` runs the H
//! step without fused passes across transforms; `--composed-inter-pass` composes
//! every inter-pass twiddle instead of reading the direct and row tables;
//! `--reduced-stores` makes passes inside a transform store reduced values;
//! `--compact-tables` leaves out the row twiddles (the prover's
//! `ntt_row_twiddles = false`: inter-pass twiddles multiplied in);
//! `--module` replaces the embedded kernels by a PTX or cubin holding at
//! least the NTT kernels, e.g. a register-cap variant).

use cust::event::{Event, EventFlags};
use cust::memory::DeviceBuffer;
use cust::stream::{Stream, StreamFlags};
use cuzk::gpu::ntt::{Direction, GpuNtt, Order, ScalarForm};

#[path = "common/fr_words.rs"]
mod fr_words;
use fr_words::random_words;
#[path = "common/device_upload.rs"]
mod device_upload;
use device_upload::upload;

const WARMUP: usize = 3;
const RUNS: usize = 11;

/// (log size, operation) → target in ms on an H200 (issue 4), and sppark's time.
fn target(log_n: u32, op: &str) -> (Option<f64>, Option<f64>) {
    match (log_n, op) {
        (24, "forward") => (Some(3.8), Some(4.43)),
        (27, "forward") => (Some(36.0), Some(42.3)),
        (27, "H step") => (Some(260.0), None),
        _ => (None, None),
    }
}

fn main() {
    let mut gpu = match cuzk::gpu::discover(&[0]) {
        Ok(mut g) => g.remove(0),
        Err(e) => {
            println!("gpu_ntt: skipped, {e}");
            return;
        }
    };
    let mut sizes = Vec::new();
    let mut max_bits = None;
    let mut composed = false;
    let mut radix2 = false;
    let mut unfused = false;
    let mut composed_inter_pass = false;
    let mut reduced_stores = false;
    let mut shared_tables = false;
    let mut compact_tables = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--max-bits" => max_bits = Some(args.next().and_then(|b| b.parse().ok()).expect("--max-bits N")),
            "--composed-twiddles" => composed = true,
            "--radix2" => radix2 = true,
            "--unfused" => unfused = true,
            "--composed-inter-pass" => composed_inter_pass = true,
            "--reduced-stores" => reduced_stores = true,
            "--shared-tables" => shared_tables = true,
            "--compact-tables" => compact_tables = true,
            "--module" => {
                let path = std::path::PathBuf::from(args.next().expect("--module FILE"));
                gpu.module = gpu.load_module_file(&path).unwrap();
                println!("module: {}", path.display());
            }
            other if other.starts_with("--") => {} // e.g. cargo's --bench
            other => sizes.push(other.parse::<u32>().expect("log2 sizes")),
        }
    }
    if sizes.is_empty() {
        sizes = vec![20, 24, 26, 27];
    }
    let settings = Settings { max_bits, composed, radix2, unfused, composed_inter_pass, reduced_stores, compact_tables };
    settings.describe();
    let max_log = *sizes.iter().max().unwrap();
    let shared = shared_tables.then(|| settings.tables(&gpu, max_log));
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    println!("{:>6} {:<22} {:>11} {:>11} {:>11} {:>11}", "size", "operation", "median ms", "min ms", "target ms", "sppark ms");
    for &log_n in &sizes {
        // The size's own tables unless shared (dropped after the size).
        let own;
        let ntt = match &shared {
            Some(t) => t,
            None => {
                own = settings.tables(&gpu, log_n);
                &own
            }
        };
        let n = 1usize << log_n;
        let mut data = upload(&random_words(n, 1));
        let ops: [(&str, Direction, Order, bool); 3] = [
            ("forward", Direction::Forward, Order::NaturalToBitrev, false),
            ("inverse", Direction::Inverse, Order::BitrevToNatural, false),
            ("coset forward", Direction::Forward, Order::NaturalToBitrev, true),
        ];
        for (name, dir, order, coset) in ops {
            // SAFETY: `time` waits for each run; `data` outlives the loop.
            let (median, min) = time(&stream, || unsafe { ntt.ntt(&gpu, &stream, &mut data, dir, order, coset) }.unwrap());
            report(log_n, name, median, min);
        }
        drop(data);
        let (mut a, mut b, mut c) = (upload(&random_words(n, 2)), upload(&random_words(n, 3)), upload(&random_words(n, 4)));
        // SAFETY: u64 has no invalid bit patterns; the H step writes it.
        let mut out = unsafe { DeviceBuffer::<u64>::uninitialized((n - 1) * 4) }.unwrap();
        // a, b, c are scratch: later runs transform the previous run's
        // results, which are field elements like any others.
        // SAFETY: `time` waits for each run; the buffers outlive it.
        let (median, min) = time(&stream, || unsafe { ntt.h_step(&gpu, &stream, &mut a, &mut b, &mut c, n, &mut out, ScalarForm::Canonical) }.unwrap());
        report(log_n, "H step", median, min);
    }
}

/// The `GpuNtt` switches chosen on the command line.
struct Settings {
    max_bits: Option<u32>,
    composed: bool,
    radix2: bool,
    unfused: bool,
    composed_inter_pass: bool,
    reduced_stores: bool,
    compact_tables: bool,
}

impl Settings {
    fn describe(&self) {
        let notes = [
            (self.composed, "stage twiddles composed from the power tables"),
            (self.radix2, "radix-2 phases only"),
            (self.unfused, "H step without fused passes"),
            (self.reduced_stores, "every pass stores reduced values"),
            (self.composed_inter_pass, "inter-pass twiddles composed"),
            (self.compact_tables, "tables without row twiddles"),
        ];
        for (on, what) in notes {
            if on {
                println!("{what}");
            }
        }
        if let Some(bits) = self.max_bits {
            println!("at most {bits} bits per pass");
        }
    }

    /// Tables for domains up to 2^`max_log`, with these settings.
    fn tables(&self, gpu: &cuzk::gpu::GpuDevice, max_log: u32) -> GpuNtt {
        let t = std::time::Instant::now();
        let layout = GpuNtt::layout(max_log, !self.compact_tables);
        let mut ntt = GpuNtt::with_layout(gpu, layout.expect("NTT layout")).expect("NTT tables");
        println!("device: {}; tables for 2^{max_log} built in {:.1?}", gpu.name, t.elapsed());
        ntt.set_stage_table(!self.composed);
        ntt.set_radix2_stages(self.radix2);
        ntt.set_fused_passes(!self.unfused);
        ntt.set_lazy_stores(!self.reduced_stores);
        ntt.set_direct_twiddles(!self.composed_inter_pass);
        if let Some(bits) = self.max_bits {
            ntt.set_max_pass_bits(bits);
        }
        ntt
    }
}

fn report(log_n: u32, op: &str, median: f64, min: f64) {
    let (target, sppark) = target(log_n, op);
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    println!("{:>6} {op:<22} {median:>11.3} {min:>11.3} {:>11} {:>11}", format!("2^{log_n}"), opt(target), opt(sppark));
}

/// Median and minimum in ms of `RUNS` timed runs of `work` on `stream`.
fn time(stream: &Stream, mut work: impl FnMut()) -> (f64, f64) {
    let (start, stop) = (Event::new(EventFlags::DEFAULT).unwrap(), Event::new(EventFlags::DEFAULT).unwrap());
    let mut times = Vec::new();
    for run in 0..WARMUP + RUNS {
        start.record(stream).unwrap();
        work();
        stop.record(stream).unwrap();
        stop.synchronize().unwrap();
        if run >= WARMUP {
            times.push(stop.elapsed_time_f32(&start).unwrap() as f64);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times[times.len() / 2], times[0])
}
