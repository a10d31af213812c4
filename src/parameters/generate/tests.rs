//! Against bellperson's `generate_parameters` with the same toxic waste.

use bellperson::groth16::{self, Parameters};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::{Bls12, Scalar};
use ff::{Field, PrimeField};
use rand::SeedableRng;

use super::{generate_parameters, write_parameters, GenerateError, ToxicWaste};
use crate::compiled::CompiledCircuit;
use crate::synthetic::SyntheticPorep;

/// Small circuits with the edges the generator must get right.
#[derive(Clone, Copy)]
enum Edge {
    /// No B entry at all: empty B queries.
    NoB,
    /// An input no constraint uses (only its own input row).
    UnusedInput,
    /// An aux variable no constraint uses.
    UnconstrainedAux,
    /// Exactly 2^k constraints, the input rows included.
    PowerOfTwo,
}

impl Circuit<Scalar> for Edge {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(Scalar::from(3)))?;
        let y = cs.alloc_input(|| "y", || Ok(Scalar::from(9)))?;
        match self {
            Edge::NoB => {
                // Rows of A and C only.
                let c = cs.alloc(|| "c", || Ok(Scalar::from(21)))?;
                cs.enforce(|| "a only", |lc| lc + x + (Scalar::from(2), y) - c, |lc| lc, |lc| lc);
                cs.enforce(|| "c only", |lc| lc, |lc| lc, |lc| lc + c - x - (Scalar::from(2), y));
            }
            Edge::UnusedInput => {
                cs.alloc_input(|| "unused", || Ok(Scalar::from(5)))?;
                cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
            }
            Edge::UnconstrainedAux => {
                cs.alloc(|| "free", || Ok(Scalar::from(7)))?;
                cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
            }
            Edge::PowerOfTwo => {
                // 6 constraints + 2 input rows = 8.
                for i in 0..6u64 {
                    let z = cs.alloc(|| "z", || Ok(Scalar::from(3 * (i + 1))))?;
                    cs.enforce(|| "x*(i+1)=z", |lc| lc + x, |lc| lc + (Scalar::from(i + 1), CS::one()), |lc| lc + z);
                }
                cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
            }
        }
        Ok(())
    }
}

fn theirs<C: Circuit<Scalar>>(circuit: C, w: &ToxicWaste) -> Result<Parameters<Bls12>, SynthesisError> {
    groth16::generate_parameters::<Bls12, _>(circuit, w.g1, w.g2, w.alpha, w.beta, w.gamma, w.delta, w.tau)
}

fn bytes(params: &Parameters<Bls12>) -> Vec<u8> {
    let mut out = Vec::new();
    params.write(&mut out).unwrap();
    out
}

fn assert_same<C: Circuit<Scalar> + Clone>(name: &str, circuit: C, w: &ToxicWaste) {
    let compiled = CompiledCircuit::record(circuit.clone()).unwrap();
    let ours = generate_parameters(&compiled, w).unwrap_or_else(|e| panic!("{name}: {e}"));
    let theirs = theirs(circuit, w).unwrap();
    assert!(ours == theirs, "{name}: parameters differ from bellperson's");
    assert_eq!(bytes(&ours), bytes(&theirs), "{name}: files differ");
}

fn waste(seed: u64) -> ToxicWaste {
    ToxicWaste::random(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed))
}

#[test]
fn the_same_parameters_as_bellperson_for_the_same_toxic_waste() {
    let seed = rand::random::<u64>();
    eprintln!("seed {seed}");
    let w = waste(seed);
    assert_same("synthetic, 3 inputs", SyntheticPorep::shape(1000, 3), &w);
    assert_same("synthetic, ONE alone", SyntheticPorep::shape(300, 0), &w);
    assert_same("no B", Edge::NoB, &w);
    assert_same("an unused input", Edge::UnusedInput, &w);
    assert_same("a power of two", Edge::PowerOfTwo, &w);
}

#[test]
fn random_toxic_waste_is_drawn_as_bellperson_draws_it() {
    let circuit = SyntheticPorep::shape(200, 2);
    let ours = generate_parameters(&CompiledCircuit::record(circuit.clone()).unwrap(), &waste(7)).unwrap();
    let theirs = groth16::generate_random_parameters::<Bls12, _, _>(circuit, &mut rand_chacha::ChaCha8Rng::seed_from_u64(7)).unwrap();
    assert!(ours == theirs);
}

#[test]
fn tau_on_the_domain_gives_bellpersons_answer() {
    // τ a root of unity of the domain: the Lagrange basis is a unit vector
    // there and Z(τ) = 0 (every H point the identity).
    let circuit = SyntheticPorep::shape(100, 1);
    let compiled = CompiledCircuit::record(circuit.clone()).unwrap();
    let size = compiled.constraints().next_power_of_two();
    let mut omega = Scalar::ROOT_OF_UNITY;
    for _ in size.trailing_zeros()..Scalar::S {
        omega = omega.square();
    }
    let mut w = waste(3);
    w.tau = omega.pow_vartime([5]);
    // bellperson refuses it only where L gets the identity; compare
    // whatever each says.
    let ours = generate_parameters(&compiled, &w);
    let theirs = theirs(circuit, &w);
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert!(ours == theirs),
        (Err(GenerateError::UnconstrainedVariable { .. }), Err(SynthesisError::UnconstrainedVariable)) => {}
        (ours, theirs) => panic!("ours {:?}, bellperson's {:?}", ours.err(), theirs.err()),
    }
}

#[test]
fn bad_secrets_and_unconstrained_variables_are_typed_errors() {
    let compiled = CompiledCircuit::record(Edge::UnconstrainedAux).unwrap();
    let err = generate_parameters(&compiled, &waste(1)).err().expect("an unconstrained aux variable is refused");
    assert!(matches!(err, GenerateError::UnconstrainedVariable { index: 1 }), "{err}");
    assert!(matches!(theirs(Edge::UnconstrainedAux, &waste(1)), Err(SynthesisError::UnconstrainedVariable)));
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(50, 1)).unwrap();
    for (which, w) in [("gamma", ToxicWaste { gamma: Scalar::ZERO, ..waste(2) }), ("delta", ToxicWaste { delta: Scalar::ZERO, ..waste(2) })] {
        assert!(matches!(generate_parameters(&compiled, &w), Err(GenerateError::ZeroSecret(s)) if s == which));
    }
}

#[test]
fn written_files_are_bellpersons_bytes_and_prove() {
    let circuit = SyntheticPorep::shape(500, 2);
    let w = waste(11);
    let params = generate_parameters(&CompiledCircuit::record(circuit).unwrap(), &w).unwrap();
    let path = std::env::temp_dir().join(format!("cuzk-generated-{}.params", std::process::id()));
    write_parameters(&params, &path).unwrap();
    let written = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(written, bytes(&theirs(SyntheticPorep::shape(500, 2), &w).unwrap()));
    // A proof from them verifies.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
    let proving = SyntheticPorep::with_witness(500, 2, 4);
    let proof = groth16::create_random_proof(proving.clone(), &params, &mut rng).unwrap();
    let pvk = groth16::prepare_verifying_key(&params.vk);
    assert!(groth16::verify_proof(&pvk, &proof, &proving.public_values()).unwrap());
}

#[test]
fn streamed_files_through_the_gpu_kernels_host_bodies_are_bellpersons_bytes() {
    let seed = rand::random::<u64>();
    eprintln!("seed {seed}");
    let w = waste(seed);
    let dir = std::env::temp_dir();
    for (name, compiled, theirs_params) in [
        ("synthetic, 3 inputs", CompiledCircuit::record(SyntheticPorep::shape(700, 3)).unwrap(), theirs(SyntheticPorep::shape(700, 3), &w).unwrap()),
        ("no B", CompiledCircuit::record(Edge::NoB).unwrap(), theirs(Edge::NoB, &w).unwrap()),
        ("an unused input", CompiledCircuit::record(Edge::UnusedInput).unwrap(), theirs(Edge::UnusedInput, &w).unwrap()),
        ("a power of two", CompiledCircuit::record(Edge::PowerOfTwo).unwrap(), theirs(Edge::PowerOfTwo, &w).unwrap()),
    ] {
        let path = dir.join(format!("cuzk-streamed-{}-{}.params", std::process::id(), name.replace(' ', "-")));
        let last = std::sync::Mutex::new((0u64, 0u64));
        let progress = |done: u64, total: u64| {
            let mut last = last.lock().unwrap();
            assert!(done > last.0 && done <= total, "{name}: progress goes forward within its total");
            *last = (done, total);
        };
        let vk = super::generate_parameters_file_with(&compiled, &w, &path, super::Generator::Cpu, &progress).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (done, total) = *last.lock().unwrap();
        assert!(total > 0 && done == total, "{name}: progress ends at its total ({done} of {total})");
        let written = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(vk == theirs_params.vk, "{name}: verifying key");
        assert_eq!(written, bytes(&theirs_params), "{name}: file");
        assert_eq!(written.len() as u64, super::stream::expected_bytes(&compiled, &w), "{name}: the size checked against the free disk");
    }
}

#[test]
fn a_streamed_file_of_an_unconstrained_variable_is_an_error_and_no_file() {
    let path = std::env::temp_dir().join(format!("cuzk-streamed-unconstrained-{}.params", std::process::id()));
    let compiled = CompiledCircuit::record(Edge::UnconstrainedAux).unwrap();
    let err = super::generate_parameters_file(&compiled, &waste(5), &path).err().expect("refused");
    assert!(matches!(err, GenerateError::UnconstrainedVariable { index: 1 }), "{err}");
    assert!(!path.exists() && !path.with_extension("generating").exists(), "nothing is left behind");
}

#[test]
fn a_domain_above_2_to_the_31_is_a_typed_error() {
    let (size, omega) = super::qap::domain((1 << 31) - 5).expect("2^31 is the largest domain");
    assert_eq!(size, 1 << 31);
    assert_eq!(omega.pow_vartime([1u64 << 31]), Scalar::ONE);
    assert_ne!(omega.pow_vartime([1u64 << 30]), Scalar::ONE, "a primitive root");
    assert!(matches!(super::qap::domain((1 << 31) + 1), Err(GenerateError::DomainTooLarge { constraints }) if constraints == (1 << 31) + 1));
}
