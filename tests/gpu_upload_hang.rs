//! A copy engine that stops while a witness goes up through the staging
//! chunks: the wait for a chunk has the GPU deadline
//! (`ProverConfig::gpu_timeout`), so the pre-stage fails with `DeviceLost`
//! within it, the device's upload turn is free again, and every later
//! proof on the device fails at once. Its own test binary, since the stuck
//! stream stays stuck for the process (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use std::time::{Duration, Instant};

use cuzk::synthetic::SyntheticPorep;
use cuzk::{synthesize, Backend, ProofJob, Prover, ProverConfig, ProverError};

#[test]
fn a_stuck_upload_becomes_an_error_within_the_timeout() {
    if common::gpu_or_skip("a_stuck_upload_becomes_an_error_within_the_timeout").is_none() {
        return;
    }
    let done = common::watchdog(120, "a stuck upload stalled the prover");
    let mut rng = common::rng();
    // A full assignment of 2^20 constraints: a, b, c alone are 96 MiB, three
    // staging chunks and more, so the upload must wait for a chunk.
    let (constraints, inputs) = ((1 << 20) - 100, 3);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    let timeout = Duration::from_secs(3);
    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 2,
        devices: vec![0],
        pinned_witnesses: Some(0),
        gpu_timeout: Some(timeout),
        faults: cuzk::FaultPlan { upload_hang: Some(1), ..Default::default() },
        ..Default::default()
    };
    let prover = Prover::new(params, config).expect("GPU prover");
    let asg = synthesize(SyntheticPorep::with_witness(constraints, inputs, 1)).unwrap();
    let start = Instant::now();
    let stuck = prover.prestage(ProofJob::new(asg.clone(), &mut rng));
    let took = start.elapsed();
    assert!(matches!(stuck, Err(ProverError::DeviceLost { ref cause, .. }) if cause.contains("presumed hung")), "{:?}", stuck.err());
    assert!(took >= timeout && took < timeout + Duration::from_secs(20), "the pre-stage took {took:?}");
    // The upload turn and the slot are free; the device is retired.
    let start = Instant::now();
    let next = prover.prestage(ProofJob::new(asg, &mut rng));
    assert!(matches!(next, Err(ProverError::DeviceLost { .. })), "{:?}", next.err());
    assert!(start.elapsed() < Duration::from_secs(2), "a retired device's proof waited {:?}", start.elapsed());
    drop(prover);
    done.send(()).unwrap();
}
