//! One prover over several GPUs: each proof's pre-stage and compute stay on
//! one device, proofs spread over all of them, and every proof is
//! bit-identical to bellperson's (skips with fewer than two GPUs).
#![cfg(feature = "cuda")]

mod common;

use std::collections::BTreeSet;

use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, Prover, ProverConfig};

fn all_gpus(workers: usize) -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, workers_per_device: workers, devices: vec![], ..Default::default() }
}

#[test]
fn proofs_spread_over_every_gpu_and_match_bellperson() {
    let Some(gpus) = common::several_gpus_or_skip("proofs_spread_over_every_gpu_and_match_bellperson") else {
        return;
    };
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 2), &mut rng);
    let prover = Prover::new(params.clone(), all_gpus(2)).expect("prover over every GPU");
    assert_eq!(prover.workers(), 2 * gpus.len());
    // As many staged at once as there are GPUs: one on each.
    let staged: Vec<_> = (0..gpus.len() as u64)
        .map(|i| prover.prestage(prover.job(SyntheticPorep::with_witness(20_000, 2, i), &mut rng).unwrap()).unwrap())
        .collect();
    let devices: BTreeSet<u32> = staged.into_iter().map(|st| prover.compute_timed(st).unwrap().1.device.expect("a GPU proof")).collect();
    assert_eq!(devices.len(), gpus.len(), "one proof per GPU before a second on any: {devices:?}");
    common::assert_batch_matches_bellperson(&prover, &params, 20_000, 2, 12, &mut rng);
}
