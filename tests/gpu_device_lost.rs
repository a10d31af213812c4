//! A fatal GPU error (one that poisons the device's context, as an illegal
//! memory access or an uncorrectable ECC error does) marks the device lost:
//! the proof that met it and every later one fail at once with
//! `DeviceLost`, nothing hangs, and the prover drops cleanly. Its own test
//! binary, since a poisoned context stays poisoned for the whole process
//! (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, ComputeSharing, Prover, ProverConfig, ProverError};

#[test]
fn a_poisoned_device_fails_its_proofs_at_once_and_nothing_hangs() {
    if common::gpu_or_skip("a_poisoned_device_fails_its_proofs_at_once_and_nothing_hangs").is_none() {
        return;
    }
    // A hang must fail the test, not stall the run.
    let done = common::watchdog(120, "a poisoned device hung the prover");
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(2000, 4), &mut rng);
    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 1,
        devices: vec![0],
        compute_sharing: ComputeSharing::Serial,
        faults: cuzk::FaultPlan { poison: Some(2), ..Default::default() },
        ..Default::default()
    };
    let prover = Prover::new(params.clone(), config).expect("GPU prover");
    let circuits: Vec<_> = (0..5).map(|i| SyntheticPorep::with_witness(2000, 4, i)).collect();
    let results = prover.prove_batch(circuits.clone(), &mut rng);
    let failed = common::one_made_the_rest_lost(&params, &circuits, &results);
    eprintln!("{failed}");
    // Later calls too, without touching the device.
    let err = prover.prove(circuits[0].clone(), &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::DeviceLost { .. }), "{err}");
    drop(prover);
    done.send(()).unwrap();
}
