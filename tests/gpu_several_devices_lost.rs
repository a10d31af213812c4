//! One of several GPUs lost (an injected kernel fault poisons its
//! context): its proofs fail with `DeviceLost`, it takes no more, and the
//! other GPUs make the rest of the batch (skips with fewer than two GPUs;
//! its own binary, since a poisoned context stays poisoned).
#![cfg(feature = "cuda")]

mod common;

use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, FaultPlan, Prover, ProverConfig, ProverError};

#[test]
fn a_lost_gpu_takes_no_more_proofs_and_the_others_go_on() {
    let Some(gpus) = common::several_gpus_or_skip("a_lost_gpu_takes_no_more_proofs_and_the_others_go_on") else {
        return;
    };
    let done = common::watchdog(300, "a batch with a lost GPU did not return");
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 2), &mut rng);
    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 1,
        devices: vec![],
        faults: FaultPlan { poison: Some(2), ..Default::default() },
        ..Default::default()
    };
    let prover = Prover::new(params.clone(), config).expect("prover over every GPU");
    let circuits: Vec<_> = (0..16).map(|i| SyntheticPorep::with_witness(20_000, 2, 50 + i)).collect();
    let results = prover.prove_batch(circuits.clone(), &mut rng);
    let lost: Vec<_> = results.iter().filter(|r| matches!(r, Err(ProverError::DeviceLost { .. }))).collect();
    // The poisoned proof, and at most one staged on that GPU per worker
    // meanwhile; every other proof is made by the other GPUs.
    assert!(!lost.is_empty() && lost.len() <= 2, "{} lost: {results:?}", lost.len());
    for (i, r) in results.iter().enumerate() {
        match r {
            Ok(proof) => assert!(common::verifies(&params, proof, &circuits[i].public_values()), "proof {i}"),
            Err(ProverError::DeviceLost { .. }) => {}
            Err(e) => panic!("proof {i}: {e}"),
        }
    }
    assert_eq!(prover.proofs_rejected(), 0);
    // Later proofs go to the GPUs still usable.
    for i in 0..2 * gpus.len() as u64 {
        let c = SyntheticPorep::with_witness(20_000, 2, 90 + i);
        let proof = prover.prove(c.clone(), &mut rng).expect("made on a usable GPU");
        assert!(common::verifies(&params, &proof, &c.public_values()));
    }
    drop(done);
}
