//! Our CPU prover against bellperson's, bit for bit, and its errors.

mod common;

use bellperson::groth16;
use blstrs::Scalar;
use common::{params_for, rng, verifies, TestCircuit};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, Prover, ProverConfig, ProverError};
use ff::Field;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn cpu_prover(params: &groth16::Parameters<blstrs::Bls12>, workers: usize) -> Prover {
    let config = ProverConfig { backend: Backend::Cpu, workers_per_device: workers, ..Default::default() };
    Prover::new(params.clone(), config).expect("prover")
}

/// Proves with fixed r, s through both phases and compares with bellperson.
fn assert_same_as_bellperson<C>(shape: C, witness: C, public: &[Scalar])
where
    C: bellperson::Circuit<Scalar> + Clone + Send,
{
    let mut rng = rng();
    let params = params_for(shape, &mut rng);
    let prover = cpu_prover(&params, 1);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let expected = groth16::create_proof(witness.clone(), &params, r, s).expect("bellperson proof");
    let job = cuzk::ProofJob::with_randomness(cuzk::synthesize(witness).expect("synthesis"), r, s);
    let ours = prover.compute(prover.prestage(job).expect("prestage")).expect("compute");
    assert_eq!(ours, expected, "proof differs from bellperson's");
    assert!(verifies(&params, &ours, public));
    if let Some((first, rest)) = public.split_first() {
        let mut tampered = vec![*first + Scalar::ONE];
        tampered.extend_from_slice(rest);
        assert!(!verifies(&params, &ours, &tampered), "a tampered input must not verify");
    }
}

#[test]
fn tiny_circuit_matches_bellperson() {
    let x = Scalar::from(7u64);
    assert_same_as_bellperson(TestCircuit::Square(None), TestCircuit::Square(Some(x)), &[x.square()]);
}

#[test]
fn circuit_without_public_inputs_matches_bellperson() {
    let v = (Scalar::from(3u64), -Scalar::ONE);
    assert_same_as_bellperson(TestCircuit::NoInputs(None), TestCircuit::NoInputs(Some(v)), &[]);
}

#[test]
fn non_power_of_two_circuit_matches_bellperson() {
    // 37 + 1 + 3 inputs + ONE: 42 constraints in a 64-point domain.
    let c = SyntheticPorep::with_witness(37, 3, 11);
    assert_same_as_bellperson(SyntheticPorep::shape(37, 3), c.clone(), &c.public_values());
}

#[test]
fn zero_one_heavy_witness_matches_bellperson() {
    let c = SyntheticPorep::with_witness(2000, 8, rand::random());
    let asg = cuzk::synthesize(c.clone()).unwrap();
    let zero_one = asg.aux.iter().filter(|v| **v == Scalar::ZERO || **v == Scalar::ONE).count();
    assert!(zero_one * 10 > asg.aux.len() * 8, "witness should be mostly 0/1: {zero_one} of {}", asg.aux.len());
    assert!(asg.b_aux_density.count_ones() * 2 < asg.aux.len(), "B-aux must be sparse");
    assert_same_as_bellperson(SyntheticPorep::shape(2000, 8), c.clone(), &c.public_values());
}

#[test]
fn batch_matches_bellperson_and_pipelines_over_workers() {
    let mut rng = rng();
    let params = params_for(SyntheticPorep::shape(300, 4), &mut rng);
    common::assert_batch_matches_bellperson(&cpu_prover(&params, 3), &params, 300, 4, 5, &mut rng);
}

#[test]
fn random_proofs_verify_and_differ() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    let prover = cpu_prover(&params, 2);
    let x = Scalar::random(&mut rng);
    let p1 = prover.prove(TestCircuit::Square(Some(x)), &mut rng).unwrap();
    let p2 = prover.prove(TestCircuit::Square(Some(x)), &mut rng).unwrap();
    assert!(verifies(&params, &p1, &[x.square()]) && verifies(&params, &p2, &[x.square()]));
    assert_ne!(p1, p2, "fresh r, s must give a fresh proof");
}

#[test]
fn one_bad_circuit_does_not_cost_the_rest_of_the_batch() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    let xs: Vec<Scalar> = (0..4).map(|_| Scalar::random(&mut rng)).collect();
    let circuits = vec![
        TestCircuit::Square(Some(xs[0])),
        TestCircuit::Panics,
        TestCircuit::Square(Some(xs[1])),
        TestCircuit::WrongSquare(xs[2]),
        TestCircuit::Square(Some(xs[3])),
    ];
    let results = cpu_prover(&params, 2).prove_batch(circuits, &mut rng);
    assert!(matches!(results[1], Err(ProverError::CircuitPanicked(_))), "{:?}", results[1]);
    assert!(matches!(results[3], Err(ProverError::Unsatisfied { .. })), "{:?}", results[3]);
    for (i, x) in [(0, xs[0]), (2, xs[1]), (4, xs[3])] {
        let proof = results[i].as_ref().unwrap_or_else(|e| panic!("proof {i}: {e}"));
        assert!(verifies(&params, proof, &[x.square()]), "proof {i}");
    }
}

/// A circuit that records how many syntheses run at once.
#[derive(Clone)]
struct Counted {
    inner: TestCircuit,
    live: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl bellperson::Circuit<Scalar> for Counted {
    fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), bellperson::SynthesisError> {
        let now = self.live.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        // Long enough that syntheses on parallel threads overlap.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let result = self.inner.synthesize(cs);
        self.live.fetch_sub(1, Ordering::SeqCst);
        result
    }
}

#[test]
fn synthesis_threads_bounds_the_syntheses_running_at_once() {
    let mut rng = rng();
    let params = params_for(TestCircuit::Square(None), &mut rng);
    for (threads, check) in [(1, "exactly one"), (3, "more than one")] {
        let (live, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let xs: Vec<Scalar> = (0..6).map(|_| Scalar::random(&mut rng)).collect();
        let circuits = xs.iter().map(|&x| Counted { inner: TestCircuit::Square(Some(x)), live: live.clone(), most: most.clone() }).collect();
        let config = ProverConfig { backend: Backend::Cpu, workers_per_device: 2, synthesis_threads: threads, ..Default::default() };
        let results = Prover::new(params.clone(), config).unwrap().prove_batch(circuits, &mut rng);
        for (x, result) in xs.iter().zip(&results) {
            assert!(verifies(&params, result.as_ref().unwrap(), &[x.square()]));
        }
        let most = most.load(Ordering::SeqCst);
        // With one thread the bound must hold; with three the counter must
        // see overlap, or it would not detect a broken bound either.
        let ok = if threads == 1 { most == 1 } else { most > 1 };
        assert!(ok, "synthesis_threads {threads}: at most {most} at once, expected {check}");
    }
}

#[test]
fn a_batch_given_up_half_way_stops_and_frees_every_slot() {
    let mut rng = rng();
    let params = params_for(SyntheticPorep::shape(300, 4), &mut rng);
    let workers = 2;
    let prover = cpu_prover(&params, workers);
    let circuits: Vec<_> = (0..40).map(|i| SyntheticPorep::with_witness(300, 4, i)).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let made = AtomicUsize::new(0);
    let results = prover.prove_batch_until(circuits.clone(), common::random_r_s(40, &mut rng), &stop, |_, r| {
        if r.is_ok() && made.fetch_add(1, Ordering::SeqCst) + 1 == 3 {
            stop.store(true, Ordering::Release);
        }
    });
    let proved: Vec<usize> = (0..40).filter(|&i| results[i].is_ok()).collect();
    let cancelled = results.iter().filter(|r| matches!(r, Err(ProverError::Cancelled))).count();
    // Only the proofs already staged when the stop came are finished.
    assert!((3..=3 + workers).contains(&proved.len()), "{} made", proved.len());
    assert_eq!(proved.len() + cancelled, 40, "every other circuit is Cancelled");
    for &i in &proved {
        assert!(verifies(&params, results[i].as_ref().unwrap(), &circuits[i].public_values()));
    }
    // Every worker slot is free again: as many stage without waiting.
    let staged: Vec<_> = (0..workers).map(|i| prover.try_prestage(prover.job(circuits[i].clone(), &mut rng).unwrap()).expect("a free slot")).collect();
    for st in staged {
        prover.compute(st).unwrap();
    }
}

#[test]
fn calls_from_rayon_tasks_complete_even_with_every_global_thread_waiting() {
    let mut rng = rng();
    let params = params_for(SyntheticPorep::shape(300, 4), &mut rng);
    let prover = cpu_prover(&params, 1);
    let circuits: Vec<_> = (0..64).map(|i| SyntheticPorep::with_witness(300, 4, i)).collect();
    common::assert_calls_from_rayon_threads_complete(&prover, &params, &circuits[..4], &circuits);
}
