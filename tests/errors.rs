//! Bad input gives its typed error, never a panic or a wrong proof.

mod common;

use blstrs::{G1Affine, Scalar};
use common::{params_for, rng, Empty, TestCircuit};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{synthesize, Backend, ProofJob, Prover, ProverConfig, ProverError};
use ff::Field;
use group::prime::PrimeCurveAffine;

fn square_prover() -> (Prover, rand_chacha::ChaCha8Rng) {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    let config = ProverConfig { backend: Backend::Cpu, ..Default::default() };
    (Prover::new(params, config).unwrap(), rng)
}

#[test]
fn params_of_another_circuit_are_refused() {
    let (prover, mut rng) = square_prover();
    let err = prover.prove(SyntheticPorep::with_witness(20, 2, 1), &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");
}

#[test]
fn unsatisfied_circuit_is_reported_with_its_constraint() {
    let (prover, mut rng) = square_prover();
    let err = prover.prove(TestCircuit::WrongSquare(Scalar::from(5u64)), &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::Unsatisfied { constraint: 0 }), "{err}");
}

#[test]
fn synthesis_errors_pass_through() {
    let (prover, mut rng) = square_prover();
    let err = prover.prove(TestCircuit::MissingValue, &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::Synthesis(bellperson::SynthesisError::AssignmentMissing)), "{err}");
}

#[test]
fn unknown_variable_is_an_error_not_a_panic() {
    let err = synthesize(TestCircuit::UnknownAux).unwrap_err();
    assert!(matches!(err, ProverError::UnknownVariable { kind: "aux", index: 999, allocated: 0 }), "{err}");
}

#[test]
fn circuit_panic_is_caught() {
    let err = synthesize(TestCircuit::Panics).unwrap_err();
    assert!(matches!(err, ProverError::CircuitPanicked(ref m) if m.contains("deliberate")), "{err}");
}

#[test]
fn wrong_lengths_in_a_caller_built_assignment_are_refused() {
    let (prover, _) = square_prover();
    let good = synthesize(TestCircuit::Square(Some(Scalar::from(2u64)))).unwrap();

    let mut short_b = good.clone();
    short_b.b.pop();
    let err = prover.prestage(ProofJob::with_randomness(short_b, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::WrongLength { what: "b evaluations", .. }), "{err}");

    let mut short_density = good.clone();
    short_density.a_aux_density = cuzk::density::Density::default();
    let err = prover.prestage(ProofJob::with_randomness(short_density, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::WrongLength { what: "A-aux density", .. }), "{err}");

    let mut no_one = good;
    no_one.input[0] = Scalar::from(2u64);
    let err = prover.prestage(ProofJob::with_randomness(no_one, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::MissingOneInput), "{err}");
}

#[test]
fn identity_delta_is_refused() {
    let mut rng = rng();
    let mut params = params_for(TestCircuit::Square(None), &mut rng);
    params.vk.delta_g1 = G1Affine::identity();
    let prover = Prover::new(params, ProverConfig { backend: Backend::Cpu, ..Default::default() }).unwrap();
    let err = prover.prove(TestCircuit::Square(Some(Scalar::ONE)), &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::IdentityDelta), "{err}");
}

#[test]
fn worker_counts_out_of_range_are_config_errors() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    // usize::MAX once tried to reserve that many slots (an abort, not an error).
    for workers in [0, cuzk::MAX_WORKERS_PER_DEVICE + 1, usize::MAX] {
        let config = ProverConfig { backend: Backend::Cpu, workers_per_device: workers, ..Default::default() };
        assert!(matches!(Prover::new(params.clone(), config), Err(ProverError::Config(_))), "{workers} workers");
    }
}

#[test]
fn a_device_listed_twice_is_a_config_error() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    for backend in [Backend::Gpu, Backend::Auto] {
        let config = ProverConfig { backend, devices: vec![0, 0], ..Default::default() };
        let err = Prover::new(params.clone(), config).err().expect("refused");
        assert!(matches!(err, ProverError::Config(ref m) if m.contains("twice")), "{err}");
    }
}

#[test]
fn zero_contexts_per_gpu_is_a_config_error_not_a_prover_without_devices() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    for backend in [Backend::Gpu, Backend::Auto, Backend::Cpu] {
        let faults = cuzk::FaultPlan { contexts_per_gpu: Some(0), ..Default::default() };
        let err = Prover::new(params.clone(), ProverConfig { backend, faults, ..Default::default() }).err().expect("refused");
        assert!(matches!(err, ProverError::Config(ref m) if m.contains("contexts_per_gpu")), "{err}");
    }
}

#[test]
fn a_staged_proof_of_another_prover_is_refused() {
    let (a, mut rng) = square_prover();
    let (b, _) = square_prover();
    let staged = a.prestage(a.job(TestCircuit::Square(Some(Scalar::from(3u64))), &mut rng).unwrap()).unwrap();
    // Computed with b's parameters it would be a wrong proof.
    assert!(matches!(b.compute(staged), Err(ProverError::ForeignStaged)));
    // b's slot was not taken, a's came back: both still prove.
    for p in [&a, &b] {
        let x = Scalar::random(&mut rng);
        let proof = p.prove(TestCircuit::Square(Some(x)), &mut rng).unwrap();
        assert!(common::verifies(p.params().unwrap(), &proof, &[x.square()]));
    }
}

#[test]
fn an_invalid_proof_is_caught_before_return() {
    let mut rng = rng();
    let params = params_for(SyntheticPorep::shape(200, 2), &mut rng);
    let circuit = SyntheticPorep::with_witness(200, 2, 4);
    // A caller-built assignment with the right counts but another A-aux
    // density pattern passes every shape check, and proves wrongly.
    let mut asg = synthesize(circuit.clone()).unwrap();
    common::move_one_a_aux_density_bit(&mut asg);
    let unchecked = Prover::new(params.clone(), ProverConfig { backend: Backend::Cpu, verify_proofs: Some(false), ..Default::default() }).unwrap();
    let wrong = unchecked.compute(unchecked.prestage(ProofJob::new(asg.clone(), &mut rng)).unwrap()).unwrap();
    assert!(!common::verifies(&params, &wrong, &circuit.public_values()), "the moved density must give a wrong proof");
    let checked = Prover::new(params.clone(), ProverConfig { backend: Backend::Cpu, verify_proofs: Some(true), ..Default::default() }).unwrap();
    let err = checked.compute(checked.prestage(ProofJob::new(asg, &mut rng)).unwrap()).unwrap_err();
    assert!(matches!(err, ProverError::InvalidProof { batch_index: None, .. }), "{err}");
    assert_eq!(checked.proofs_rejected(), 1);
    // A good proof passes the check and is not counted.
    let proof = checked.prove(circuit.clone(), &mut rng).unwrap();
    assert!(common::verifies(&params, &proof, &circuit.public_values()));
    assert_eq!(checked.proofs_rejected(), 1);
}

#[test]
fn gpu_backend_without_a_usable_gpu_is_an_error_and_auto_falls_back() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    match Prover::new(params.clone(), ProverConfig { backend: Backend::Gpu, ..Default::default() }) {
        Err(ProverError::NoGpu(why)) => eprintln!("Backend::Gpu refused as expected: {why}"),
        Ok(p) => {
            assert_eq!(p.backend(), Backend::Gpu);
            eprintln!("a GPU is present; Backend::Gpu accepted");
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
    let auto = Prover::new(params, ProverConfig::default()).unwrap();
    assert_ne!(auto.backend(), Backend::Auto);
    // A CPU prover made by Auto says why; a GPU one has nothing to say.
    assert_eq!(auto.gpu_fallback().is_some(), auto.backend() == Backend::Cpu, "{:?}", auto.gpu_fallback());
    let x = Scalar::random(&mut rng);
    let proof = auto.prove(TestCircuit::Square(Some(x)), &mut rng).unwrap();
    assert!(common::verifies(auto.params().unwrap(), &proof, &[x.square()]));
}

#[test]
fn an_empty_circuit_proves_like_bellperson() {
    let mut rng = rng();
    let params = params_for(Empty, &mut rng);
    let prover = Prover::new(params.clone(), ProverConfig { backend: Backend::Cpu, verify_proofs: Some(true), ..Default::default() }).unwrap();
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let ours = prover.compute(prover.prestage(ProofJob::with_randomness(synthesize(Empty).unwrap(), r, s)).unwrap()).unwrap();
    let theirs = bellperson::groth16::create_proof(Empty, &params, r, s).unwrap();
    assert_eq!(ours, theirs);
    assert!(common::verifies(&params, &ours, &[]));
}

#[test]
fn mismatched_randomness_counts_are_an_error_per_circuit() {
    let (prover, mut rng) = square_prover();
    let circuits = vec![TestCircuit::Square(Some(Scalar::ONE)); 3];
    let results = prover.prove_batch_with(circuits, vec![(Scalar::random(&mut rng), Scalar::ONE)]);
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| matches!(r, Err(ProverError::WrongLength { expected: 3, got: 1, .. }))));
}

#[test]
fn try_prestage_gives_the_job_back_when_every_slot_is_held() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    let prover = Prover::new(params, ProverConfig { backend: Backend::Cpu, workers_per_device: 1, ..Default::default() }).unwrap();
    let x = Scalar::from(5u64);
    let held = prover.prestage(prover.job(TestCircuit::Square(Some(x)), &mut rng).unwrap()).unwrap();
    // prestage would wait here forever (this thread holds the only slot).
    let job = match prover.try_prestage(prover.job(TestCircuit::Square(Some(x)), &mut rng).unwrap()) {
        Err(cuzk::TryPrestageError::Busy(job)) => job,
        other => panic!("expected Busy, got {other:?}"),
    };
    let (r, s) = (job.r, job.s);
    // A bad job is refused as prestage refuses it, slot or not.
    let bad = prover.try_prestage(prover.job(TestCircuit::WrongSquare(x), &mut rng).unwrap());
    assert!(matches!(bad, Err(cuzk::TryPrestageError::Failed(ProverError::Unsatisfied { .. }))), "{bad:?}");
    let first = prover.compute(held).unwrap();
    let second = prover.compute(prover.try_prestage(job).expect("a slot is free now")).unwrap();
    assert!(common::verifies(prover.params().unwrap(), &first, &[x.square()]));
    assert!(common::verifies(prover.params().unwrap(), &second, &[x.square()]));
    let same = bellperson::groth16::create_proof(TestCircuit::Square(Some(x)), prover.params().unwrap(), r, s).unwrap();
    assert_eq!(second, same, "the returned job kept its witness and randomness");
}

#[test]
fn the_cpu_backend_checks_its_proofs_by_default() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    // Defaults but for the backend, and no satisfaction check: an
    // unsatisfied circuit is proved, and the check before return catches it.
    let config = ProverConfig { backend: Backend::Cpu, check_satisfied: false, ..Default::default() };
    let prover = Prover::new(params.clone(), config).unwrap();
    let err = prover.prove(TestCircuit::WrongSquare(Scalar::from(5u64)), &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::InvalidProof { .. }), "{err}");
    assert_eq!(prover.proofs_rejected(), 1);
    // A density moved in a hand-built assignment, on the default config.
    let params = params_for(SyntheticPorep::shape(200, 2), &mut rng);
    let circuit = SyntheticPorep::with_witness(200, 2, 4);
    let mut asg = synthesize(circuit).unwrap();
    common::move_one_a_aux_density_bit(&mut asg);
    let prover = Prover::new(params, ProverConfig { backend: Backend::Cpu, ..Default::default() }).unwrap();
    let err = prover.compute(prover.prestage(ProofJob::new(asg, &mut rng)).unwrap()).unwrap_err();
    assert!(matches!(err, ProverError::InvalidProof { .. }), "{err}");
}

#[test]
fn an_invalid_proof_in_a_batch_names_its_place() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    let config = ProverConfig { backend: Backend::Cpu, check_satisfied: false, ..Default::default() };
    let prover = Prover::new(params.clone(), config).unwrap();
    let x = Scalar::from(3u64);
    let circuits = vec![TestCircuit::Square(Some(x)), TestCircuit::Square(Some(x)), TestCircuit::WrongSquare(x), TestCircuit::Square(Some(x))];
    let results = prover.prove_batch(circuits, &mut rng);
    for (i, result) in results.iter().enumerate() {
        match (i, result) {
            (2, Err(e @ ProverError::InvalidProof { batch_index: Some(2), .. })) => assert!(e.to_string().contains("proof 2 of the batch"), "{e}"),
            (2, other) => panic!("proof 2: {other:?}"),
            (_, Ok(proof)) => assert!(common::verifies(&params, proof, &[x.square()])),
            (_, Err(e)) => panic!("proof {i}: {e}"),
        }
    }
}

#[test]
fn a_panicking_progress_callback_costs_no_proof_and_no_hang() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    // One worker and one synthesis thread: the channel fills at once, so a
    // worker ended by the panic would leave the synthesis thread waiting.
    let config = ProverConfig { backend: Backend::Cpu, workers_per_device: 1, synthesis_threads: 1, ..Default::default() };
    let prover = Prover::new(params.clone(), config).unwrap();
    let xs: Vec<Scalar> = (2..8u64).map(Scalar::from).collect();
    let circuits: Vec<_> = xs.iter().map(|&x| TestCircuit::Square(Some(x))).collect();
    let randomness = common::random_r_s(circuits.len(), &mut rng);
    let done = common::watchdog(120, "a batch whose progress callback panicked did not return");
    let called = std::sync::atomic::AtomicUsize::new(0);
    let results = prover.prove_batch_with_progress(circuits, randomness, |i, _| {
        called.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if i == 1 || i == 4 {
            panic!("callback bug on {i}");
        }
    });
    drop(done);
    assert_eq!(called.into_inner(), xs.len(), "the callback is called for every proof, also after a panic");
    for (i, (result, x)) in results.into_iter().zip(&xs).enumerate() {
        let proof = match result {
            Ok(proof) => {
                assert!(i != 1 && i != 4, "proof {i} should carry the callback's panic");
                proof
            }
            Err(ProverError::CallbackPanicked { index, message, proof }) => {
                assert!(i == 1 || i == 4, "proof {i}: {message}");
                assert_eq!(index, i);
                assert!(message.contains(&format!("callback bug on {i}")), "{message}");
                *proof.expect("the proof made is kept")
            }
            Err(e) => panic!("proof {i}: {e}"),
        };
        assert!(common::verifies(&params, &proof, &[x.square()]), "proof {i}");
    }
    // The prover is whole afterwards.
    let proof = prover.prove(TestCircuit::Square(Some(xs[0])), &mut rng).unwrap();
    assert!(common::verifies(&params, &proof, &[xs[0].square()]));
}
