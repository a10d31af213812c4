//! CPU proving time at two sizes (criterion). GPU benches arrive with the GPU
//! kernels; the CPU numbers are the reference they are measured against.

use std::time::Duration;

use blstrs::Bls12;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{synthesize, Backend, ProofJob, Prover, ProverConfig};

fn prove_cpu(c: &mut Criterion) {
    let mut group = c.benchmark_group("prove_cpu");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    let mut rng = rand::thread_rng();
    // Constraints + 33 inputs fill a 2^12 and a 2^15 domain.
    for constraints in [4_000usize, 32_000] {
        let params = bellperson::groth16::generate_random_parameters::<Bls12, _, _>(SyntheticPorep::shape(constraints, 32), &mut rng)
            .expect("params");
        let prover = Prover::new(params, ProverConfig { backend: Backend::Cpu, workers_per_device: 1, ..Default::default() }).unwrap();
        let assignment = synthesize(SyntheticPorep::with_witness(constraints, 32, 1)).unwrap();
        group.throughput(Throughput::Elements(constraints as u64));
        group.bench_with_input(BenchmarkId::new("prestage_compute", constraints), &assignment, |b, asg| {
            b.iter(|| {
                let staged = prover.prestage(ProofJob::new(asg.clone(), &mut rng)).unwrap();
                prover.compute(staged).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, prove_cpu);
criterion_main!(benches);
