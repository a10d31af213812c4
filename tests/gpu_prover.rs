//! The GPU backend: slots, witness upload, proofs (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use blstrs::Scalar;
use cuzk::gpu::GpuEngine;
use cuzk::gpu::elementwise::scalar_limbs;
use cuzk::synthetic::SyntheticPorep;
use cuzk::{synthesize, Backend, ProofJob, ProofShape, Prover, ProverConfig};
use ff::Field;

fn gpu_config(workers: usize) -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, workers_per_device: workers, devices: vec![0], ..Default::default() }
}

#[test]
fn prestage_puts_the_witness_in_its_slot() {
    if common::gpu_or_skip("prestage_puts_the_witness_in_its_slot").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(1000, 5), &mut rng);
    let engine = GpuEngine::new(&params, &gpu_config(2)).expect("engine");
    let lay = engine.layout();
    let asg = synthesize(SyntheticPorep::with_witness(1000, 5, rand::random())).unwrap();
    let shape = ProofShape::of(&asg).unwrap();
    // Fill slot 1 with junk from another witness first: padding must be zeroed.
    let other = synthesize(SyntheticPorep::with_witness(1000, 5, 1)).unwrap();
    let _ = engine.prestage(1, &shape, ProofJob::with_randomness(other, Scalar::ONE, Scalar::ONE)).unwrap();
    let _st = engine.prestage(1, &shape, ProofJob::with_randomness(asg.clone(), Scalar::ONE, Scalar::ONE)).unwrap();
    let slot = engine.read_slot(1).unwrap();

    for (which, values) in [&asg.a, &asg.b, &asg.c].into_iter().enumerate() {
        let region = &slot[lay.abc(which)..lay.abc(which + 1)];
        let (data, pad) = region.split_at(values.len() * 4);
        assert_eq!(data, scalar_limbs(values), "evaluations {which}");
        assert!(pad.iter().all(|&w| w == 0), "padding of evaluations {which} not zeroed");
    }
    let mut scalars = asg.input.clone();
    scalars.extend_from_slice(&asg.aux);
    assert_eq!(&slot[lay.scalars_at()..lay.a_aux_density_at()], scalar_limbs(&scalars));
    assert_eq!(&slot[lay.a_aux_density_at()..lay.b_aux_density_at()], asg.a_aux_density.words());
    assert_eq!(&slot[lay.b_aux_density_at()..lay.b_input_density_at()], asg.b_aux_density.words());
    assert_eq!(&slot[lay.b_input_density_at()..], asg.b_input_density.words());
}

#[test]
fn gpu_backend_proofs_match_bellperson() {
    if common::gpu_or_skip("gpu_backend_proofs_match_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(3000, 6), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    assert_eq!(prover.backend(), Backend::Gpu);
    common::assert_batch_matches_bellperson(&prover, &params, 3000, 6, 4, &mut rng);
}
