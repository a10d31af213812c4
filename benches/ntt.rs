//! Criterion benches of the H step and the NTT (issue 4). Always: the CPU
//! path, `cuzk::cpu::h::h_coefficients` (bellperson's `EvaluationDomain` on
//! every core), at `CUZK_BENCH_CPU_LOGS` (default `14,18`). With the `cuda`
//! feature on a GPU: forward and inverse transforms and the fused H step on
//! device-resident data at `CUZK_BENCH_GPU_LOGS` (default `20,24,27`),
//! timed with CUDA events around each batch of iterations (`iter_custom`),
//! so host work stays out of the numbers; each size on tables built for its
//! own domain, as a prover of that size has them. Without a GPU the GPU
//! group prints why it is skipped. Throughput is in domain elements.
//!
//! `cargo bench --bench ntt` (add `--features cuda` for the GPU group;
//! criterion's filter picks cases, e.g. `-- gpu/forward`). `bench-gpu_ntt`
//! is the harness for comparing kernel variants in one process.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[path = "common/fr_words.rs"]
mod fr_words;
use fr_words::random_words;
#[cfg(feature = "cuda")]
#[path = "common/device_upload.rs"]
mod device_upload;

fn logs(var: &str, default: &[u32]) -> Vec<u32> {
    match std::env::var(var) {
        Ok(v) => v.split(',').map(|s| s.trim().parse().unwrap_or_else(|_| panic!("{var}: comma-separated log2 sizes"))).collect(),
        Err(_) => default.to_vec(),
    }
}

fn scalars(n: usize, seed: u64) -> Vec<blstrs::Scalar> {
    random_words(n, seed)
        .chunks(4)
        .map(|l| {
            let limbs: [u64; 4] = l.try_into().unwrap();
            // SAFETY: Montgomery limbs below the modulus are a valid blstrs
            // Scalar (same layout, checked in kernels/tests/layout.rs).
            unsafe { std::mem::transmute::<[u64; 4], blstrs::Scalar>(limbs) }
        })
        .collect()
}

fn h_step_cpu(c: &mut Criterion) {
    let mut group = c.benchmark_group("ntt/cpu");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    for log_n in logs("CUZK_BENCH_CPU_LOGS", &[14, 18]) {
        let n = 1usize << log_n;
        let (a, b, cc) = (scalars(n, 2), scalars(n, 3), scalars(n, 4));
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("h_step", format!("2^{log_n}")), &log_n, |bn, _| {
            bn.iter(|| cuzk::cpu::h::h_coefficients(a.clone(), b.clone(), cc.clone()).unwrap())
        });
    }
    group.finish();
}

#[cfg(feature = "cuda")]
fn gpu(c: &mut Criterion) {
    use cust::event::{Event, EventFlags};
    use cust::memory::DeviceBuffer;
    use cust::stream::{Stream, StreamFlags};
    use cuzk::gpu::ntt::{Direction, GpuNtt, Order, ScalarForm};
    use device_upload::upload;

    let gpu = match cuzk::gpu::discover(&[0]) {
        Ok(mut g) => g.remove(0),
        Err(e) => {
            println!("ntt/gpu: skipped, {e}");
            return;
        }
    };
    let sizes = logs("CUZK_BENCH_GPU_LOGS", &[20, 24, 27]);
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    // Device time of `iters` runs of `work`, from CUDA events.
    let timed = |iters: u64, work: &mut dyn FnMut()| {
        let (start, stop) = (Event::new(EventFlags::DEFAULT).unwrap(), Event::new(EventFlags::DEFAULT).unwrap());
        start.record(&stream).unwrap();
        for _ in 0..iters {
            work();
        }
        stop.record(&stream).unwrap();
        stop.synchronize().unwrap();
        Duration::from_secs_f64(stop.elapsed_time_f32(&start).unwrap() as f64 / 1e3)
    };

    let mut group = c.benchmark_group("ntt/gpu");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    for log_n in sizes {
        // GpuNtt::new binds the device's context, which stays current.
        let ntt = GpuNtt::new(&gpu, log_n).expect("NTT tables");
        let n = 1usize << log_n;
        group.throughput(Throughput::Elements(n as u64));
        let id = |op: &str| BenchmarkId::new(op.to_string(), format!("2^{log_n}"));
        // Later iterations transform earlier results: field elements like any others.
        let mut data = upload(&random_words(n, 1));
        for (op, dir, order) in [("forward", Direction::Forward, Order::NaturalToBitrev), ("inverse", Direction::Inverse, Order::BitrevToNatural)] {
            group.bench_function(id(op), |bn| {
                // SAFETY: `timed` waits for the stream; `data` outlives the loop.
                bn.iter_custom(|iters| timed(iters, &mut || unsafe { ntt.ntt(&gpu, &stream, &mut data, dir, order, false) }.unwrap()))
            });
        }
        drop(data);
        let (mut a, mut b, mut cc) = (upload(&random_words(n, 2)), upload(&random_words(n, 3)), upload(&random_words(n, 4)));
        // SAFETY: u64 has no invalid bit patterns; the H step writes it.
        let mut out = unsafe { DeviceBuffer::<u64>::uninitialized((n - 1) * 4) }.unwrap();
        group.bench_function(id("h_step"), |bn| {
            // SAFETY: `timed` waits for the stream; the buffers outlive the loop.
            bn.iter_custom(|iters| timed(iters, &mut || unsafe { ntt.h_step(&gpu, &stream, &mut a, &mut b, &mut cc, n, &mut out, ScalarForm::Canonical) }.unwrap()))
        });
    }
    group.finish();
}

#[cfg(not(feature = "cuda"))]
fn gpu(_: &mut Criterion) {
    println!("ntt/gpu: skipped, built without the `cuda` feature");
}

criterion_group!(benches, h_step_cpu, gpu);
criterion_main!(benches);
