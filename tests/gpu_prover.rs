//! The GPU backend: slots, witness upload, proofs with the H step and the
//! MSMs on the GPU, and over several GPUs (skips without a GPU, or with one
//! for the several-GPU test).
#![cfg(feature = "cuda")]

mod common;

use blstrs::Scalar;
use common::{MostlyBits, NoBQuery, TestCircuit};
use cuzk::gpu::elementwise::scalar_limbs;
use cuzk::gpu::GpuEngine;
use cuzk::synthetic::SyntheticPorep;
use cuzk::{synthesize, Backend, ComputeSharing, MsmAccumulation, PhaseTimings, ProofJob, ProofShape, Prover, ProverConfig, ProverError};
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
    let engine = GpuEngine::new(&params.clone().into(), None, &gpu_config(2)).expect("engine");
    let lay = engine.layout();
    let asg = synthesize(SyntheticPorep::with_witness(1000, 5, rand::random())).unwrap();
    let shape = ProofShape::of(&asg).unwrap();
    // Fill slot 1 with junk from another witness first: padding must be zeroed.
    let other = synthesize(SyntheticPorep::with_witness(1000, 5, 1)).unwrap();
    let _ = engine.prestage(1, &shape, ProofJob::with_randomness(other, Scalar::ONE, Scalar::ONE), false).unwrap();
    let _st = engine.prestage(1, &shape, ProofJob::with_randomness(asg.clone(), Scalar::ONE, Scalar::ONE), false).unwrap();
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
    // Debug logging on, so the per-MSM timing path runs too.
    let _ = env_logger::builder().is_test(true).filter_module("cuzk", log::LevelFilter::Debug).try_init();
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(3000, 6), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    assert_eq!(prover.backend(), Backend::Gpu);
    common::assert_batch_matches_bellperson(&prover, &params, 3000, 6, 4, &mut rng);
}

/// The MSMs' batch-affine first level in a whole prover: the same proofs.
#[test]
fn batch_affine_msms_prove_like_bellperson() {
    if common::gpu_or_skip("batch_affine_msms_prove_like_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 6), &mut rng);
    for streams in [0, 3] {
        let config = ProverConfig { msm_accumulation: MsmAccumulation::BatchAffine { streams }, ..gpu_config(2) };
        let prover = Prover::new(params.clone(), config).expect("GPU prover");
        common::assert_batch_matches_bellperson(&prover, &params, 20_000, 6, 3, &mut rng);
    }
}

/// The H step writing Montgomery forms for the H MSM and writing
/// integers (the default): the same proofs, bit for bit bellperson's.
#[test]
fn h_in_either_form_proves_like_bellperson() {
    if common::gpu_or_skip("h_in_either_form_proves_like_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 6), &mut rng);
    for h_canonical in [false, true] {
        let config = ProverConfig { h_canonical, ..gpu_config(2) };
        let prover = Prover::new(params.clone(), config).expect("GPU prover");
        common::assert_batch_matches_bellperson(&prover, &params, 20_000, 6, 2, &mut rng);
    }
}

/// A partition's count of public inputs, some of them in B: the input
/// MSMs over their bases' tables (the default) and without, the same
/// proofs, bit for bit bellperson's.
#[test]
fn input_msms_over_tables_prove_like_bellperson() {
    // B selects some of the inputs, not all: its tables hold bases of
    // aux values too, past the ones its density selects.
    let b_inputs = synthesize(SyntheticPorep::with_witness(20_000, 328, 1)).unwrap().b_input_density.count_ones();
    assert!(b_inputs > 1 && b_inputs < 329, "B selects {b_inputs} of 329 inputs");
    if common::gpu_or_skip("input_msms_over_tables_prove_like_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 328), &mut rng);
    for input_msm_tables in [true, false] {
        let config = ProverConfig { input_msm_tables, ..gpu_config(2) };
        let prover = Prover::new(params.clone(), config).expect("GPU prover");
        common::assert_batch_matches_bellperson(&prover, &params, 20_000, 328, 2, &mut rng);
    }
}

#[test]
fn circuits_without_public_inputs_besides_one() {
    if common::gpu_or_skip("circuits_without_public_inputs_besides_one").is_none() {
        return;
    }
    let mut rng = common::rng();
    // Synthetic: the A-input and B-input MSMs see ONE alone.
    let params = common::params_for(SyntheticPorep::shape(2000, 0), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    common::assert_batch_matches_bellperson(&prover, &params, 2000, 0, 3, &mut rng);
    // One constraint (a domain of 2, one H coefficient).
    let params = common::params_for(TestCircuit::NoInputs(None), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(1)).expect("GPU prover");
    let circuits: Vec<_> = (0..2u64).map(|i| TestCircuit::NoInputs(Some((Scalar::from(3 + i), Scalar::random(&mut rng))))).collect();
    common::assert_proofs_match_bellperson(&prover, &params, circuits, &[vec![], vec![]], &mut rng);
}

#[test]
fn non_power_of_two_constraint_counts() {
    if common::gpu_or_skip("non_power_of_two_constraint_counts").is_none() {
        return;
    }
    let mut rng = common::rng();
    // 1021 + 1 + (1 + 3) inputs = 1026 constraints: a domain of 2048, half
    // padding. Then an odd count well inside its domain.
    for (constraints, inputs) in [(1021, 3), (3001, 5)] {
        let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
        let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
        common::assert_batch_matches_bellperson(&prover, &params, constraints, inputs, 2, &mut rng);
    }
}

#[test]
fn mostly_zero_one_witness() {
    if common::gpu_or_skip("mostly_zero_one_witness").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(MostlyBits { bits: 4000, seed: None }, &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    let circuits: Vec<_> = (0..3).map(|i| MostlyBits { bits: 4000, seed: Some(i) }).collect();
    let public: Vec<_> = circuits.iter().map(|c| c.public_values()).collect();
    common::assert_proofs_match_bellperson(&prover, &params, circuits, &public, &mut rng);
}

#[test]
fn empty_b_densities_skip_the_b_msms() {
    if common::gpu_or_skip("empty_b_densities_skip_the_b_msms").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(NoBQuery { vars: 500, seed: None }, &mut rng);
    assert!(params.b_g1.is_empty() && params.b_g2.is_empty());
    let engine = GpuEngine::new(&params.clone().into(), None, &gpu_config(1)).expect("engine");
    let circuit = NoBQuery { vars: 500, seed: Some(5) };
    let rs = common::random_r_s(1, &mut rng);
    let want = common::bellperson_proofs(&params, vec![circuit.clone()], &rs);
    let asg = synthesize(circuit.clone()).unwrap();
    let shape = ProofShape::of(&asg).unwrap();
    let msms = engine.msms_run();
    let st = engine.prestage(0, &shape, ProofJob::with_randomness(asg, rs[0].0, rs[0].1), false).unwrap();
    let proof = engine.compute(&params.vk, st, &mut PhaseTimings::default()).expect("proof");
    // H, L, A inputs, A aux; both B MSMs in G1 and G2 are the identity.
    assert_eq!(engine.msms_run() - msms, 4);
    assert_eq!(proof, want[0]);
    assert!(common::verifies(&params, &proof, &circuit.public_values()));
}

#[test]
fn two_workers_pipeline_many_proofs() {
    if common::gpu_or_skip("two_workers_pipeline_many_proofs").is_none() {
        return;
    }
    let mut rng = common::rng();
    let (constraints, inputs) = (2500, 4);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    assert_eq!(prover.workers(), 2);
    common::assert_batch_matches_bellperson(&prover, &params, constraints, inputs, 6, &mut rng);

    // The explicit phases, interleaved: both slots staged, then each slot
    // reused while the other one holds a staged proof.
    let circuits: Vec<_> = (0..5).map(|i| SyntheticPorep::with_witness(constraints, inputs, 500 + i)).collect();
    let rs = common::random_r_s(circuits.len(), &mut rng);
    let want = common::bellperson_proofs(&params, circuits.clone(), &rs);
    let stage = |i: usize| prover.prestage(ProofJob::with_randomness(synthesize(circuits[i].clone()).unwrap(), rs[i].0, rs[i].1)).unwrap();
    let mut staged = std::collections::VecDeque::from([stage(0), stage(1)]);
    for (i, want) in want.iter().enumerate() {
        let proof = prover.compute(staged.pop_front().unwrap()).unwrap_or_else(|e| panic!("proof {i}: {e}"));
        assert_eq!(&proof, want, "proof {i} differs from bellperson's");
        if i + 2 < circuits.len() {
            staged.push_back(stage(i + 2));
        }
    }
}

#[test]
fn engine_compute_runs_on_the_gpu_and_slots_survive_failures() {
    if common::gpu_or_skip("engine_compute_runs_on_the_gpu_and_slots_survive_failures").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(2000, 3), &mut rng);
    let engine = GpuEngine::new(&params.clone().into(), None, &gpu_config(2)).expect("engine");
    let cpu = Prover::new(params.clone(), ProverConfig { backend: Backend::Cpu, ..Default::default() }).unwrap();
    let rs = common::random_r_s(1, &mut rng);
    let (r, s) = rs[0];
    let asg = synthesize(SyntheticPorep::with_witness(2000, 3, 9)).unwrap();
    let shape = ProofShape::of(&asg).unwrap();

    // A refused witness (another domain) and an abandoned one leave slot 0 usable.
    let wrong = synthesize(SyntheticPorep::with_witness(1000, 3, 9)).unwrap();
    let wrong_shape = ProofShape::of(&wrong).unwrap();
    let refused = engine.prestage(0, &wrong_shape, ProofJob::with_randomness(wrong, r, s), false);
    assert!(matches!(refused, Err(ProverError::ParamsMismatch { .. })), "{:?}", refused.err());
    let other = synthesize(SyntheticPorep::with_witness(2000, 3, 10)).unwrap();
    engine.prestage(0, &shape, ProofJob::with_randomness(other, r, s), false).unwrap();

    let (h_steps, msms) = (engine.h_steps_run(), engine.msms_run());
    let st = engine.prestage(0, &shape, ProofJob::with_randomness(asg.clone(), r, s), false).unwrap();
    let mut timings = PhaseTimings::default();
    let proof = engine.compute(&params.vk, st, &mut timings).expect("GPU proof");
    assert_eq!(engine.h_steps_run() - h_steps, 1, "H step not run on the GPU");
    assert_eq!(engine.msms_run() - msms, 8, "MSMs not run on the GPU");
    // Measured with CUDA events around the device work.
    assert!(timings.ntt > std::time::Duration::ZERO && timings.msm > std::time::Duration::ZERO, "{timings}");

    let want = cpu.compute(cpu.prestage(ProofJob::with_randomness(asg.clone(), r, s)).unwrap()).unwrap();
    assert_eq!(proof, want, "GPU proof differs from the CPU backend's");
    // The same slot again, and the other slot.
    for slot in [0, 1] {
        let st = engine.prestage(slot, &shape, ProofJob::with_randomness(asg.clone(), r, s), false).unwrap();
        assert_eq!(engine.compute(&params.vk, st, &mut PhaseTimings::default()).unwrap(), want, "slot {slot}");
    }
}

#[test]
fn pinned_witness_buffers_prove_like_bellperson() {
    if common::gpu_or_skip("pinned_witness_buffers_prove_like_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let (constraints, inputs) = (3000, 4);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    let circuits: Vec<_> = (0..4).map(|i| SyntheticPorep::with_witness(constraints, inputs, 700 + i)).collect();
    // Two buffers (one per worker): synthesized into, copied into, then a
    // third job while both are lent gets a plain allocation.
    let jobs = [
        prover.job(circuits[0].clone(), &mut rng).unwrap(),
        prover.job_from_assignment(&synthesize(circuits[1].clone()).unwrap(), &mut rng),
        prover.job(circuits[2].clone(), &mut rng).unwrap(),
    ];
    assert_eq!(jobs.iter().map(ProofJob::is_pooled).collect::<Vec<_>>(), [true, true, false]);
    assert_eq!(prover.witness_buffers(), (2, 0));
    let rs: Vec<_> = jobs.iter().map(|j| (j.r, j.s)).collect();
    let want = common::bellperson_proofs(&params, circuits[..3].to_vec(), &rs);
    let [j0, j1, j2] = jobs;
    let (s0, s1) = (prover.prestage(j0).unwrap(), prover.prestage(j1).unwrap());
    assert_eq!(prover.witness_buffers(), (2, 2), "a staged job's buffer is free again");
    for (i, staged) in [s0, s1].into_iter().enumerate() {
        let (proof, timings) = prover.compute_timed(staged).unwrap();
        assert!(timings.pinned_bytes > 0, "proof {i}: the witness was not read from pinned memory ({timings})");
        assert_eq!(proof, want[i], "proof {i} (pinned) differs from bellperson's");
    }
    let (proof, timings) = prover.compute_timed(prover.prestage(j2).unwrap()).unwrap();
    assert_eq!(timings.pinned_bytes, 0, "a plain job uploads through staging");
    assert_eq!(proof, want[2], "proof 2 (staged) differs from bellperson's");
    // A reused buffer: the old contents are cleared before synthesis.
    let job = prover.job(circuits[3].clone(), &mut rng).unwrap();
    assert!(job.is_pooled());
    let want = common::bellperson_proofs(&params, vec![circuits[3].clone()], &[(job.r, job.s)]);
    assert_eq!(prover.compute(prover.prestage(job).unwrap()).unwrap(), want[0], "proof from a reused buffer");
    assert_eq!(prover.witness_buffers(), (2, 2));
}

#[test]
fn serial_and_interleaved_computes_match_bellperson() {
    if common::gpu_or_skip("serial_and_interleaved_computes_match_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let (constraints, inputs) = (2500, 3);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    for sharing in [ComputeSharing::Serial, ComputeSharing::Interleaved] {
        // More workers than proofs, then more proofs than workers.
        let config = ProverConfig { compute_sharing: sharing, ..gpu_config(3) };
        let prover = Prover::new(params.clone(), config).expect("GPU prover");
        common::assert_batch_matches_bellperson(&prover, &params, constraints, inputs, 2, &mut rng);
        common::assert_batch_matches_bellperson(&prover, &params, constraints, inputs, 9, &mut rng);
    }
}

#[test]
fn serial_computes_go_on_after_drops_and_errors() {
    if common::gpu_or_skip("serial_computes_go_on_after_drops_and_errors").is_none() {
        return;
    }
    let mut rng = common::rng();
    let (constraints, inputs) = (2500, 3);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    let prover = Prover::new(params.clone(), ProverConfig { compute_sharing: ComputeSharing::Serial, ..gpu_config(3) }).expect("GPU prover");
    let circuits: Vec<_> = (0..3).map(|i| SyntheticPorep::with_witness(constraints, inputs, 900 + i)).collect();
    let rs = common::random_r_s(3, &mut rng);
    let want = common::bellperson_proofs(&params, circuits.clone(), &rs);
    let stage = |i: usize| prover.prestage(ProofJob::with_randomness(synthesize(circuits[i].clone()).unwrap(), rs[i].0, rs[i].1)).unwrap();
    // Three staged; the middle one dropped; the others computed from two
    // threads at once, the later-staged one first.
    let (s0, s1, s2) = (stage(0), stage(1), stage(2));
    drop(s1);
    std::thread::scope(|scope| {
        let late = scope.spawn(|| prover.compute(s2));
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(prover.compute(s0).unwrap(), want[0]);
        assert_eq!(late.join().unwrap().unwrap(), want[2]);
    });
    // A batch with failing jobs among good ones (another circuit's size,
    // an unsatisfied witness): each costs only its own proof.
    let mut batch: Vec<_> = (0..6).map(|i| SyntheticPorep::with_witness(constraints, inputs, 950 + i)).collect();
    batch[1] = SyntheticPorep::with_witness(constraints + 700, inputs, 1);
    let rs = common::random_r_s(batch.len(), &mut rng);
    let mut results = prover.prove_batch_with(batch.clone(), rs.clone());
    let mut unsatisfied = synthesize(batch[4].clone()).unwrap();
    unsatisfied.c[7] += Scalar::ONE;
    results[4] = prover.prestage(ProofJob::with_randomness(unsatisfied, rs[4].0, rs[4].1)).and_then(|s| prover.compute(s));
    assert!(matches!(results[1], Err(ProverError::ParamsMismatch { .. })), "{:?}", results[1]);
    assert!(matches!(results[4], Err(ProverError::Unsatisfied { constraint: 7 })), "{:?}", results[4]);
    let good: Vec<usize> = vec![0, 2, 3, 5];
    let want = common::bellperson_proofs(&params, good.iter().map(|&i| batch[i].clone()).collect(), &good.iter().map(|&i| rs[i]).collect::<Vec<_>>());
    for (k, &i) in good.iter().enumerate() {
        assert_eq!(results[i].as_ref().unwrap(), &want[k], "proof {i}");
    }
}

#[test]
fn gpu_proofs_are_checked_before_return_and_tied_to_their_prover() {
    if common::gpu_or_skip("gpu_proofs_are_checked_before_return_and_tied_to_their_prover").is_none() {
        return;
    }
    let mut rng = common::rng();
    let (constraints, inputs) = (2000, 2);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    let (a, b) = (Prover::new(params.clone(), gpu_config(1)).unwrap(), Prover::new(params.clone(), gpu_config(1)).unwrap());
    let circuit = SyntheticPorep::with_witness(constraints, inputs, 31);
    // Slot 0 of b would hold another witness (or none): refused, not proved.
    let staged = a.prestage(a.job(circuit.clone(), &mut rng).unwrap()).unwrap();
    assert!(matches!(b.compute(staged), Err(ProverError::ForeignStaged)));
    // A caller-built assignment with the right counts and a moved A-aux
    // density bit: every shape check passes, the proof is wrong, and the
    // check before return (on by default on the GPU) discards it.
    let mut asg = synthesize(circuit.clone()).unwrap();
    common::move_one_a_aux_density_bit(&mut asg);
    let err = a.compute(a.prestage(ProofJob::new(asg, &mut rng)).unwrap()).unwrap_err();
    assert!(matches!(err, ProverError::InvalidProof { .. }), "{err}");
    assert_eq!(a.proofs_rejected(), 1);
    // Both provers, and a's slot, go on.
    for p in [&a, &b] {
        let proof = p.prove(circuit.clone(), &mut rng).unwrap();
        assert!(common::verifies(&params, &proof, &circuit.public_values()));
    }
    assert_eq!((a.proofs_rejected(), b.proofs_rejected()), (1, 0));
}

#[test]
fn injected_faults_cost_only_their_own_proofs() {
    if common::gpu_or_skip("injected_faults_cost_only_their_own_proofs").is_none() {
        return;
    }
    let mut rng = common::rng();
    let (constraints, inputs) = (2500, 3);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    for sharing in [ComputeSharing::Serial, ComputeSharing::Interleaved] {
        // Of 8 proofs: the 2nd upload, the 4th compute (after its H step was
        // enqueued) and the 6th result download fail; nothing else does.
        let faults = cuzk::FaultPlan { upload: Some(2), launch: Some(4), download: Some(6), ..Default::default() };
        let prover = Prover::new(params.clone(), ProverConfig { compute_sharing: sharing, faults, ..gpu_config(2) }).expect("GPU prover");
        let circuits: Vec<_> = (0..8).map(|i| SyntheticPorep::with_witness(constraints, inputs, 300 + i)).collect();
        let rs = common::random_r_s(circuits.len(), &mut rng);
        let want = common::bellperson_proofs(&params, circuits.clone(), &rs);
        let results = prover.prove_batch_with(circuits, rs);
        let failed: Vec<String> = results.iter().filter_map(|r| r.as_ref().err()).map(|e| e.to_string()).collect();
        assert_eq!(failed.len(), 3, "{sharing:?}: {failed:?}");
        for kind in ["Upload #2", "Launch #4", "Download #6"] {
            assert!(failed.iter().any(|e| e.contains(kind)), "{sharing:?}: no {kind} in {failed:?}");
        }
        for (i, r) in results.iter().enumerate() {
            if let Ok(proof) = r {
                assert_eq!(proof, &want[i], "{sharing:?}: proof {i}");
            }
        }
        // Every worker slot is usable afterwards.
        common::assert_batch_matches_bellperson(&prover, &params, constraints, inputs, 4, &mut rng);
    }
}

#[test]
fn an_empty_circuit_proves_like_bellperson() {
    if common::gpu_or_skip("an_empty_circuit_proves_like_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    // One constraint (ONE's own), a domain of 1: no H coefficient at all.
    let params = common::params_for(common::Empty, &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(1)).expect("GPU prover");
    common::assert_proofs_match_bellperson(&prover, &params, vec![common::Empty; 2], &[vec![], vec![]], &mut rng);
}

#[test]
fn a_slot_takes_one_staged_witness_and_stays_with_its_engine() {
    if common::gpu_or_skip("a_slot_takes_one_staged_witness_and_stays_with_its_engine").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(1500, 2), &mut rng);
    let (a, b) = (GpuEngine::new(&params.clone().into(), None, &gpu_config(1)).unwrap(), GpuEngine::new(&params.clone().into(), None, &gpu_config(1)).unwrap());
    let asg = synthesize(SyntheticPorep::with_witness(1500, 2, 8)).unwrap();
    let shape = ProofShape::of(&asg).unwrap();
    let job = || ProofJob::with_randomness(asg.clone(), Scalar::ONE, Scalar::ONE);
    let held = a.prestage(0, &shape, job(), false).unwrap();
    // A second witness would overwrite the first (or land mid-compute).
    assert!(matches!(a.prestage(0, &shape, job(), false), Err(ProverError::SlotBusy { slot: 0 })));
    // b's slot 0 holds nothing of this proof.
    assert!(matches!(b.compute(&params.vk, held, &mut PhaseTimings::default()), Err(ProverError::ForeignStaged)));
    // The refused compute dropped the staged proof: the slot is free again.
    let st = a.prestage(0, &shape, job(), false).unwrap();
    let proof = a.compute(&params.vk, st, &mut PhaseTimings::default()).unwrap();
    let want = common::bellperson_proofs(&params, vec![SyntheticPorep::with_witness(1500, 2, 8)], &[(Scalar::ONE, Scalar::ONE)]);
    assert_eq!(proof, want[0]);
}

#[test]
fn a_batch_given_up_half_way_frees_every_slot_and_witness_buffer() {
    if common::gpu_or_skip("a_batch_given_up_half_way_frees_every_slot_and_witness_buffer").is_none() {
        return;
    }
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(3000, 4), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(3)).expect("GPU prover");
    let circuits: Vec<_> = (0..100).map(|i| SyntheticPorep::with_witness(3000, 4, i)).collect();
    let (stop, made) = (AtomicBool::new(false), AtomicUsize::new(0));
    let results = prover.prove_batch_until(circuits.clone(), common::random_r_s(100, &mut rng), &stop, |_, r| {
        if r.is_ok() && made.fetch_add(1, Ordering::SeqCst) + 1 == 10 {
            stop.store(true, Ordering::Release);
        }
    });
    let proved: Vec<usize> = (0..100).filter(|&i| results[i].is_ok()).collect();
    let cancelled = results.iter().filter(|r| matches!(r, Err(ProverError::Cancelled))).count();
    assert!((10..=13).contains(&proved.len()), "{} made", proved.len());
    assert_eq!(proved.len() + cancelled, 100);
    for &i in &proved {
        assert!(common::verifies(&params, results[i].as_ref().unwrap(), &circuits[i].public_values()));
    }
    let (buffers, free) = prover.witness_buffers();
    assert_eq!(buffers, free, "every witness buffer is back in its pool");
    let staged: Vec<_> = (0..3).map(|i| prover.try_prestage(prover.job(circuits[i].clone(), &mut rng).unwrap()).expect("a free slot")).collect();
    for st in staged {
        prover.compute(st).unwrap();
    }
}

#[test]
fn calls_from_rayon_tasks_complete_even_with_every_global_thread_waiting() {
    if common::gpu_or_skip("calls_from_rayon_tasks_complete_even_with_every_global_thread_waiting").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(2000, 4), &mut rng);
    let prover = Prover::new(params.clone(), gpu_config(2)).expect("GPU prover");
    let circuits: Vec<_> = (0..24).map(|i| SyntheticPorep::with_witness(2000, 4, i)).collect();
    common::assert_calls_from_rayon_threads_complete(&prover, &params, &circuits[..3], &circuits);
}

/// A prover over every GPU (several-GPU tests).
fn all_gpus(workers: usize) -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, workers_per_device: workers, devices: vec![], ..Default::default() }
}

/// One prover over several devices (2 workers each): each proof's
/// pre-stage and compute stay on one device, proofs spread over all of
/// them, and every proof is bit-identical to bellperson's.
fn proofs_spread_over_devices(config: ProverConfig, devices: usize) {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 2), &mut rng);
    let prover = Prover::new(params.clone(), ProverConfig { workers_per_device: 2, ..config }).expect("prover over several devices");
    assert_eq!(prover.workers(), 2 * devices);
    // As many staged at once as there are devices: one on each.
    let staged: Vec<_> = (0..devices as u64)
        .map(|i| prover.prestage(prover.job(SyntheticPorep::with_witness(20_000, 2, i), &mut rng).unwrap()).unwrap())
        .collect();
    let used: std::collections::BTreeSet<usize> = staged.into_iter().map(|st| prover.compute_timed(st).unwrap().1.worker.expect("a worker") / 2).collect();
    assert_eq!(used.len(), devices, "one proof per device before a second on any: {used:?}");
    common::assert_batch_matches_bellperson(&prover, &params, 20_000, 2, 12, &mut rng);
}

/// Over every GPU (skips with fewer than two).
#[test]
fn proofs_spread_over_every_gpu_and_match_bellperson() {
    let Some(gpus) = common::several_gpus_or_skip("proofs_spread_over_every_gpu_and_match_bellperson") else {
        return;
    };
    proofs_spread_over_devices(all_gpus(2), gpus.len());
}

/// Over one GPU opened as three contexts of their own, standing in for
/// three GPUs (`FaultPlan::contexts_per_gpu`).
#[test]
fn proofs_spread_over_contexts_standing_in_for_gpus_and_match_bellperson() {
    if common::gpu_or_skip("proofs_spread_over_contexts_standing_in_for_gpus_and_match_bellperson").is_none() {
        return;
    }
    let config = ProverConfig { devices: vec![0], faults: cuzk::FaultPlan { contexts_per_gpu: Some(3), ..Default::default() }, ..all_gpus(2) };
    proofs_spread_over_devices(config, 3);
}

#[test]
fn a_failed_wait_for_a_compute_drains_the_slot_before_it_is_freed() {
    if common::gpu_or_skip("a_failed_wait_for_a_compute_drains_the_slot_before_it_is_freed").is_none() {
        return;
    }
    let mut rng = common::rng();
    // Large enough that the H step and MSMs still run when the wait fails.
    let (constraints, inputs) = ((1 << 20) - 100, 3);
    let params = common::params_for(SyntheticPorep::shape(constraints, inputs), &mut rng);
    let config = ProverConfig { faults: cuzk::FaultPlan { completion_wait: Some(1), ..Default::default() }, ..gpu_config(1) };
    let engine = GpuEngine::new(&params.clone().into(), None, &config).expect("engine");
    let asg = synthesize(SyntheticPorep::with_witness(constraints, inputs, 3)).unwrap();
    let shape = ProofShape::of(&asg).unwrap();
    let (r, s) = common::random_r_s(1, &mut rng)[0];
    let st = engine.prestage(0, &shape, ProofJob::with_randomness(asg.clone(), r, s), false).unwrap();
    let failed = engine.compute(&params.vk, st, &mut PhaseTimings::default());
    assert!(matches!(failed, Err(ProverError::Gpu(ref m)) if m.contains("CompletionWait")), "{failed:?}");
    // Freed with the error, and idle: nothing of the failed proof still runs.
    assert!(engine.slot_idle(0).unwrap(), "the slot was freed while its stream still computed");
    assert!(engine.lost_devices().is_empty(), "an error of one wait is not a lost device");
    let st = engine.prestage(0, &shape, ProofJob::with_randomness(asg, r, s), false).unwrap();
    let proof = engine.compute(&params.vk, st, &mut PhaseTimings::default()).unwrap();
    let want = bellperson::groth16::create_proof(SyntheticPorep::with_witness(constraints, inputs, 3), &params, r, s).unwrap();
    assert_eq!(proof, want);
}
