//! Proving phases at the size of a real 32 GiB PoRep partition on the GPU:
//! 130,278,869 constraints (domain 2^27), 328 public inputs, 130,169,893 aux
//! variables with the real witness's statistics (51% zeros, 47% ones; A-aux
//! density 99.7%, B-aux 25.4%), random bases. No circuit is synthesized
//! (minutes at this size) and no setup run (hours): the assignment and the
//! parameters are random (`cuzk::synthetic`), so the proofs do not verify,
//! but the prover does exactly the work of a real partition.
//!
//! Usage: `bench-gpu_partition [--constraints N] [--aux N] [--inputs N]
//! [--proofs N] [--workers N]`. Prints the prover's per-phase timings of
//! one proof on its own, then, with `--proofs` > 1, the time of that many
//! proofs pipelined over the workers (each job holds its own copy of the
//! assignment: about 17 GB of host memory per proof at full size).
//! `RUST_LOG=cuzk=debug` also logs each of the eight MSMs' device time.
//! Without a GPU it prints why and exits 0.

use std::time::Instant;

use cuzk::synthetic::{random_assignment, random_parameters, WitnessStats};
use cuzk::{Backend, ProofJob, ProofShape, Prover, ProverConfig};

fn main() {
    // RUST_LOG=cuzk=debug adds each MSM's time per proof.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    if let Err(e) = cuzk::gpu::discover(&[0]) {
        println!("gpu_partition: skipped, {e}");
        return;
    }
    let (mut constraints, mut aux, mut inputs, mut proofs, mut workers) = (130_278_869usize, 130_169_893usize, 328usize, 1usize, 1usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = || args.next().and_then(|v| v.replace('_', "").parse::<usize>().ok()).unwrap_or_else(|| panic!("{a} N"));
        match a.as_str() {
            "--constraints" => constraints = number(),
            "--aux" => aux = number(),
            "--inputs" => inputs = number(),
            "--proofs" => proofs = number().max(1),
            "--workers" => workers = number().max(1),
            _ => {} // e.g. cargo's --bench
        }
    }
    let t = Instant::now();
    let assignment = random_assignment(constraints, inputs, aux, WitnessStats::POREP_32G, 1);
    let shape = ProofShape::of(&assignment).expect("shape");
    println!("assignment: {shape:?}, made in {:.1?}", t.elapsed());
    let t = Instant::now();
    let params = random_parameters(&shape, 2);
    println!("random parameters made in {:.1?}", t.elapsed());
    let t = Instant::now();
    let config = ProverConfig { backend: Backend::Gpu, workers_per_device: workers, devices: vec![0], check_satisfied: false, synthesis_threads: 0, ntt_row_twiddles: true };
    let prover = Prover::new(params, config).expect("prover");
    println!("prover ready in {:.1?} (bases uploaded, {} worker slot(s))", t.elapsed(), prover.workers());
    let mut rng = rand::thread_rng();
    // One proof alone: the phases without interference.
    let job = ProofJob::new(assignment.clone(), &mut rng);
    let t = Instant::now();
    let staged = prover.prestage(job).expect("prestage");
    let (_proof, timings) = prover.compute_timed(staged).expect("compute");
    println!("one proof: {timings} (wall {:.3?})", t.elapsed());
    if proofs > 1 {
        // The copies are made before the clock starts (a 16 GiB clone is a
        // host memcpy, not prover work); the last job takes the original.
        let mut jobs: Vec<ProofJob> = (1..proofs).map(|_| ProofJob::new(assignment.clone(), &mut rng)).collect();
        jobs.push(ProofJob::new(assignment, &mut rng));
        let queue = std::sync::Mutex::new(jobs);
        let t = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..prover.workers() {
                s.spawn(|| loop {
                    let Some(job) = queue.lock().unwrap().pop() else { break };
                    let staged = prover.prestage(job).expect("prestage");
                    prover.compute(staged).expect("compute");
                });
            }
        });
        let wall = t.elapsed();
        println!("pipelined: {proofs} proofs over {} worker(s) in {wall:.3?} ({:.3?} per proof)", prover.workers(), wall / proofs as u32);
    }
}
