//! Compiled circuits on the GPU backend: a, b, c evaluated on the GPU equal
//! the CPU's, proofs equal bellperson's, the check a·b = c runs there
//! (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use blstrs::Scalar;
use common::gadgets::{Family, Gadget};
use common::{MostlyBits, NoBQuery, TestCircuit};
use cuzk::gpu::elementwise::scalar_limbs;
use cuzk::gpu::GpuEngine;
use cuzk::synthetic::{random_compiled, random_parameters, random_witness, SyntheticPorep, WitnessStats};
use cuzk::{Backend, CompiledCircuit, ProofJob, Prover, ProverConfig, ProverError};
use ff::Field;

fn gpu_config(workers: usize) -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, workers_per_device: workers, devices: vec![0], ..Default::default() }
}

/// a, b, c from the GPU kernels (read back from the slot) against the
/// CPU's sparse products, on a random circuit of realistic row weights
/// whose table holds coefficients besides ±1 and powers of two.
#[test]
fn gpu_abc_equals_cpu_on_a_random_circuit_of_2_20_rows() {
    if common::gpu_or_skip("gpu_abc_equals_cpu_on_a_random_circuit_of_2_20_rows").is_none() {
        return;
    }
    let seed = rand::random();
    eprintln!("seed {seed}");
    // 2^20 rows, not all of the domain: the padding must come back zero.
    let (rows, inputs, aux) = ((1 << 20) - 77, 9, 1_000_003);
    let compiled = random_compiled(rows, inputs, aux, seed);
    let nonzeros = compiled.matrices().each_ref().map(|m| m.nonzeros() as f64 / rows as f64);
    eprintln!("nonzeros per row A/B/C: {nonzeros:.2?}, table {}", compiled.coefficients().len());
    assert!(compiled.coefficients().len() > 1000);
    let shape = compiled.shape().unwrap();
    let params = random_parameters(&shape, seed);
    let engine = GpuEngine::new(&params.clone().into(), Some(&compiled), &gpu_config(1)).expect("engine");
    let lay = engine.layout();
    let (input, aux_values) = random_witness(inputs, aux, WitnessStats::POREP_32G, seed);
    let want = compiled.evaluate(input.clone(), aux_values.clone()).unwrap();

    // Slot 0 first holds another witness: nothing of it may survive. Each
    // witness goes up as it is, then as classes expanded on the GPU.
    let (other_in, other_aux) = random_witness(inputs, aux, WitnessStats::POREP_32G, seed + 1);
    for classes in [false, true] {
        let other = ProofJob::from_witness(other_in.clone(), other_aux.clone(), Scalar::ONE, Scalar::ONE);
        drop(engine.prestage(0, &shape, if classes { other.with_witness_classes() } else { other }, false).unwrap());
        let job = ProofJob::from_witness(input.clone(), aux_values.clone(), Scalar::ONE, Scalar::ONE);
        let job = if classes { job.with_witness_classes() } else { job };
        assert_eq!(job.has_witness_classes(), classes);
        let _st = engine.prestage(0, &shape, job, false).unwrap();
        let slot = engine.read_slot(0).unwrap();
        assert_slot_holds(&slot, &lay, &want, classes);
    }
}

fn assert_slot_holds(slot: &[u64], lay: &cuzk::gpu::SlotLayout, want: &cuzk::Assignment, classes: bool) {
    let mut scalars = want.input.clone();
    scalars.extend_from_slice(&want.aux);
    assert!(slot[lay.scalars_at()..lay.a_aux_density_at()] == *scalar_limbs(&scalars), "witness in the slot (classes: {classes})");
    for (which, values) in [&want.a, &want.b, &want.c].into_iter().enumerate() {
        let region = &slot[lay.abc(which)..lay.abc(which + 1)];
        let (data, pad) = region.split_at(values.len() * 4);
        if data != scalar_limbs(values) {
            let first = data.chunks(4).zip(scalar_limbs(values).chunks(4)).position(|(g, w)| g != w).unwrap();
            panic!("evaluations {which} differ first at row {first} (classes: {classes})");
        }
        assert!(pad.iter().all(|&w| w == 0), "padding of evaluations {which} not zeroed");
    }
    assert_eq!(&slot[lay.a_aux_density_at()..lay.b_aux_density_at()], want.a_aux_density.words());
    assert_eq!(&slot[lay.b_aux_density_at()..lay.b_input_density_at()], want.b_aux_density.words());
    assert_eq!(&slot[lay.b_input_density_at()..], want.b_input_density.words());
}

/// Records `shape`, proves `witnesses` with a compiled GPU prover in one
/// batch and compares each proof with bellperson's for the same r, s.
fn assert_gpu_compiled_matches_bellperson<C>(shape: C, witnesses: Vec<C>, public: &[Vec<Scalar>])
where
    C: bellperson::Circuit<Scalar> + Clone + Send,
{
    let mut rng = common::rng();
    let params = common::params_for(shape.clone(), &mut rng);
    let compiled = CompiledCircuit::record(shape).expect("record");
    let prover = Prover::with_compiled(params.clone(), compiled, gpu_config(2)).expect("GPU prover");
    assert_eq!(prover.backend(), Backend::Gpu);
    common::assert_proofs_match_bellperson(&prover, &params, witnesses, public, &mut rng);
    assert_eq!(prover.proofs_rejected(), 0);
}

#[test]
fn gpu_compiled_proofs_match_bellperson() {
    if common::gpu_or_skip("gpu_compiled_proofs_match_bellperson").is_none() {
        return;
    }
    let x = Scalar::from(7u64);
    assert_gpu_compiled_matches_bellperson(TestCircuit::Square(None), vec![TestCircuit::Square(Some(x))], &[vec![x.square()]]);
    assert_gpu_compiled_matches_bellperson(common::Empty, vec![common::Empty], &[vec![]]);
    let c = NoBQuery { vars: 300, seed: Some(9) };
    assert_gpu_compiled_matches_bellperson(NoBQuery { vars: 300, seed: None }, vec![c.clone()], &[c.public_values()]);
    let v = (Scalar::from(3u64), -Scalar::ONE);
    assert_gpu_compiled_matches_bellperson(TestCircuit::NoInputs(None), vec![TestCircuit::NoInputs(Some(v))], &[vec![]]);
    let cs: Vec<_> = (0..4).map(|i| SyntheticPorep::with_witness(3000, 6, 40 + i)).collect();
    let public: Vec<_> = cs.iter().map(|c| c.public_values()).collect();
    assert_gpu_compiled_matches_bellperson(SyntheticPorep::shape(3000, 6), cs, &public);
    let cs: Vec<_> = (0..3).map(|i| MostlyBits { bits: 4000, seed: Some(i) }).collect();
    let public: Vec<_> = cs.iter().map(|c| c.public_values()).collect();
    assert_gpu_compiled_matches_bellperson(MostlyBits { bits: 4000, seed: None }, cs, &public);
    for family in Family::ALL {
        eprintln!("{family:?}");
        let cs: Vec<_> = (1..4).map(|seed| Gadget { family, seed: Some(seed) }).collect();
        let public: Vec<_> = cs.iter().map(Gadget::public_values).collect();
        assert_gpu_compiled_matches_bellperson(Gadget { family, seed: None }, cs, &public);
    }
}

#[test]
fn gpu_checks_the_compiled_witness_and_mismatches_cost_one_proof() {
    if common::gpu_or_skip("gpu_checks_the_compiled_witness_and_mismatches_cost_one_proof").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(2000, 4), &mut rng);
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(2000, 4)).unwrap();
    let prover = Prover::with_compiled(params.clone(), compiled, gpu_config(2)).unwrap();
    let good = SyntheticPorep::with_witness(2000, 4, 3);
    let (input, aux) = cuzk::synthesize_witness(good.clone()).unwrap();

    // Unsatisfied: found on the GPU, naming the row the CPU names.
    let mut bad_aux = aux.clone();
    bad_aux[1234] += Scalar::ONE;
    let want_row = CompiledCircuit::record(SyntheticPorep::shape(2000, 4)).unwrap().evaluate(input.clone(), bad_aux.clone()).unwrap().first_unsatisfied().unwrap();
    let err = prover.prestage(ProofJob::from_witness(input.clone(), bad_aux, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::Unsatisfied { constraint } if constraint == want_row), "{err} (CPU: row {want_row})");
    // The slot is usable again right away.
    let proof = prover.compute(prover.prestage(ProofJob::from_witness(input.clone(), aux.clone(), Scalar::ONE, Scalar::ONE)).unwrap()).unwrap();
    assert!(common::verifies(&params, &proof, &good.public_values()));

    // Unsatisfied and panicking instances in a batch of Square circuits.
    let square = common::params_for(TestCircuit::Square(None), &mut rng);
    let p = Prover::with_compiled(square.clone(), CompiledCircuit::record(TestCircuit::Square(None)).unwrap(), gpu_config(2)).unwrap();
    let x = Scalar::from(5u64);
    let results = p.prove_batch(vec![TestCircuit::Square(Some(x)), TestCircuit::WrongSquare(x), TestCircuit::Panics, TestCircuit::Square(Some(x + Scalar::ONE))], &mut rng);
    assert!(matches!(results[1], Err(ProverError::Unsatisfied { constraint: 0 })), "{:?}", results[1]);
    assert!(matches!(results[2], Err(ProverError::CircuitPanicked(_))), "{:?}", results[2]);
    assert!(common::verifies(&square, results[0].as_ref().unwrap(), &[x.square()]));
    assert!(common::verifies(&square, results[3].as_ref().unwrap(), &[(x + Scalar::ONE).square()]));

    // A batch with another shape among good ones.
    let circuits = vec![good.clone(), SyntheticPorep::with_witness(1999, 4, 1), good.clone()];
    let results = prover.prove_batch(circuits, &mut rng);
    assert!(matches!(results[1], Err(ProverError::CompiledMismatch { .. })), "{:?}", results[1]);
    for i in [0, 2] {
        assert!(common::verifies(&params, results[i].as_ref().unwrap(), &good.public_values()));
    }
    let mut no_one = input.clone();
    no_one[0] = Scalar::ZERO;
    let err = prover.prestage(ProofJob::from_witness(no_one, aux, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::MissingOneInput), "{err}");
    // Full assignments still prove on a compiled prover.
    let full = cuzk::synthesize(good.clone()).unwrap();
    let proof = prover.compute(prover.prestage(ProofJob::new(full, &mut rng)).unwrap()).unwrap();
    assert!(common::verifies(&params, &proof, &good.public_values()));
    // Witness-only jobs come from pinned buffers sized for the witness alone.
    let job = prover.job(good.clone(), &mut rng).unwrap();
    assert!(job.is_witness_only() && job.is_pooled() && job.has_witness_classes());
    assert!(common::verifies(&params, &prover.compute(prover.prestage(job).unwrap()).unwrap(), &good.public_values()));
}

/// A pooled witness-only job's classes are packed into its pinned buffer
/// when the job is made and go up in one direct copy (the buffer reused
/// for the second job); the proofs are bellperson's for the same r, s.
#[test]
fn gpu_compiled_classes_go_up_from_pinned_memory() {
    if common::gpu_or_skip("gpu_compiled_classes_go_up_from_pinned_memory").is_none() {
        return;
    }
    let mut rng = common::rng();
    // Enough aux values for the classes' area to be pinned (64 KiB).
    let shape = SyntheticPorep::shape(40_000, 4);
    let params = common::params_for(shape.clone(), &mut rng);
    let prover = Prover::with_compiled(params.clone(), CompiledCircuit::record(shape).unwrap(), gpu_config(1)).unwrap();
    for seed in [5, 6] {
        let circuit = SyntheticPorep::with_witness(40_000, 4, seed);
        let job = prover.job(circuit.clone(), &mut rng).unwrap();
        assert!(job.is_pooled() && job.has_witness_classes());
        let (r, s) = (job.r, job.s);
        let (proof, timings) = prover.compute_timed(prover.prestage(job).unwrap()).unwrap();
        assert!(timings.pinned_bytes > 0, "seed {seed}: the classes went up through staging ({timings})");
        assert_eq!(proof, common::bellperson_proofs(&params, vec![circuit], &[(r, s)])[0], "seed {seed}");
    }
}
