//! Circuits and helpers shared by the integration tests.
#![allow(dead_code)]

use bellperson::groth16::{self, Parameters, Proof};
use bellperson::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use blstrs::{Bls12, Scalar};
use ff::Field;
use rand::SeedableRng;

/// Fresh randomness each run; the seed is printed so a failure reproduces.
pub fn rng() -> rand_chacha::ChaCha8Rng {
    let seed = std::env::var("CUZK_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    eprintln!("test rng seed: {seed} (set CUZK_TEST_SEED to repeat)");
    rand_chacha::ChaCha8Rng::seed_from_u64(seed)
}

/// Small circuits with known shapes; `None` values synthesize for parameters.
#[derive(Clone, Debug)]
pub enum TestCircuit {
    /// x·x = y, y public.
    Square(Option<Scalar>),
    /// x·y = z with no public input besides ONE.
    NoInputs(Option<(Scalar, Scalar)>),
    /// Claims y = x² but is given a wrong y: unsatisfied.
    WrongSquare(Scalar),
    /// Fails to produce a value.
    MissingValue,
    /// Enforces on an aux variable that was never allocated.
    UnknownAux,
    /// Panics while synthesizing.
    Panics,
}

impl Circuit<Scalar> for TestCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let missing = || SynthesisError::AssignmentMissing;
        match self {
            TestCircuit::Square(x) => {
                let xv = cs.alloc(|| "x", || x.ok_or_else(missing))?;
                let y = cs.alloc_input(|| "y", || x.map(|x| x.square()).ok_or_else(missing))?;
                cs.enforce(|| "x*x=y", |lc| lc + xv, |lc| lc + xv, |lc| lc + y);
            }
            TestCircuit::NoInputs(v) => {
                let x = cs.alloc(|| "x", || v.map(|v| v.0).ok_or_else(missing))?;
                let y = cs.alloc(|| "y", || v.map(|v| v.1).ok_or_else(missing))?;
                let z = cs.alloc(|| "z", || v.map(|v| v.0 * v.1).ok_or_else(missing))?;
                cs.enforce(|| "x*y=z", |lc| lc + x, |lc| lc + y, |lc| lc + z);
            }
            TestCircuit::WrongSquare(x) => {
                let xv = cs.alloc(|| "x", || Ok(x))?;
                let y = cs.alloc_input(|| "y", || Ok(x.square() + Scalar::ONE))?;
                cs.enforce(|| "x*x=y", |lc| lc + xv, |lc| lc + xv, |lc| lc + y);
            }
            TestCircuit::MissingValue => {
                cs.alloc(|| "x", || Err(SynthesisError::AssignmentMissing))?;
            }
            TestCircuit::UnknownAux => {
                let ghost = Variable::new_unchecked(Index::Aux(999));
                cs.enforce(|| "ghost", |lc| lc + ghost, |lc| lc + CS::one(), |lc| lc);
            }
            TestCircuit::Panics => panic!("deliberate panic inside a circuit"),
        }
        Ok(())
    }
}

pub fn params_for<C: Circuit<Scalar>>(shape: C, rng: &mut rand_chacha::ChaCha8Rng) -> Parameters<Bls12> {
    groth16::generate_random_parameters::<Bls12, _, _>(shape, rng).expect("parameter generation")
}

pub fn verifies(params: &Parameters<Bls12>, proof: &Proof<Bls12>, inputs: &[Scalar]) -> bool {
    let pvk = groth16::prepare_verifying_key(&params.vk);
    groth16::verify_proof(&pvk, proof, inputs).expect("verify_proof")
}

/// Reports a skipped test on the real stderr (libtest captures `eprintln!`
/// of passing tests, and a skip must be seen).
pub fn report_skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// The first GPU, or `None` after reporting why the test is skipped.
#[cfg(feature = "cuda")]
pub fn gpu_or_skip(test: &str) -> Option<cuzk::gpu::GpuDevice> {
    match cuzk::gpu::discover(&[0]) {
        Ok(mut gpus) => gpus.pop(),
        Err(cuzk::ProverError::NoGpu(why)) => {
            report_skip(test, &format!("no GPU ({why})"));
            None
        }
        Err(e) => panic!("GPU present but unusable: {e}"),
    }
}

/// Proves `count` synthetic circuits with `prover` and with bellperson for
/// the same fresh r, s, and checks every proof: bit-identical and verifying.
pub fn assert_batch_matches_bellperson(
    prover: &cuzk::Prover,
    params: &Parameters<Bls12>,
    constraints: usize,
    inputs: usize,
    count: u64,
    rng: &mut rand_chacha::ChaCha8Rng,
) {
    use cuzk::synthetic::SyntheticPorep;
    let circuits: Vec<_> = (0..count).map(|i| SyntheticPorep::with_witness(constraints, inputs, 100 + i)).collect();
    let rs: Vec<(Scalar, Scalar)> = circuits.iter().map(|_| (Scalar::random(&mut *rng), Scalar::random(&mut *rng))).collect();
    let expected = groth16::create_proof_batch(
        circuits.clone(),
        params,
        rs.iter().map(|p| p.0).collect(),
        rs.iter().map(|p| p.1).collect(),
    )
    .expect("bellperson batch");
    for (i, ours) in prover.prove_batch_with(circuits.clone(), rs).into_iter().enumerate() {
        let ours = ours.unwrap_or_else(|e| panic!("proof {i}: {e}"));
        assert_eq!(ours, expected[i], "proof {i} differs from bellperson's");
        assert!(verifies(params, &ours, &circuits[i].public_values()), "proof {i} does not verify");
    }
}
