//! A GPU that stops making progress: the host's waits have a deadline
//! (`ProverConfig::gpu_timeout`), after which the proof and every later one
//! on that device fail at once with `DeviceLost`, and the prover drops
//! without waiting on the stuck stream. Its own test binary, since the
//! stuck stream stays stuck for the process (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use std::time::{Duration, Instant};

use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, Prover, ProverConfig};

#[test]
fn a_hung_gpu_becomes_an_error_within_the_timeout() {
    if common::gpu_or_skip("a_hung_gpu_becomes_an_error_within_the_timeout").is_none() {
        return;
    }
    // A hang must fail the test, not stall the run.
    let done = common::watchdog(120, "a hung GPU stalled the prover");
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(2000, 4), &mut rng);
    let timeout = Duration::from_secs(3);
    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 1,
        devices: vec![0],
        gpu_timeout: Some(timeout),
        faults: cuzk::FaultPlan { hang: Some(2), ..Default::default() },
        ..Default::default()
    };
    let prover = Prover::new(params.clone(), config).expect("GPU prover");
    let circuits: Vec<_> = (0..4).map(|i| SyntheticPorep::with_witness(2000, 4, i)).collect();
    let start = Instant::now();
    let results = prover.prove_batch(circuits.clone(), &mut rng);
    let took = start.elapsed();
    let failed = common::one_made_the_rest_lost(&params, &circuits, &results);
    let cause = failed.to_string();
    assert!(cause.contains("presumed hung"), "{cause}");
    eprintln!("{cause} (batch returned after {took:.2?})");
    assert!(took >= timeout && took < timeout + Duration::from_secs(20), "the batch took {took:?}");
    drop(prover);
    done.send(()).unwrap();
}
