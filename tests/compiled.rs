//! Compiled circuits on the CPU backend: recording, witness-only synthesis,
//! the file, and proofs bit-identical to bellperson's.

mod common;

use bellperson::groth16;
use blstrs::Scalar;
use common::gadgets::{Family, Gadget};
use common::{params_for, rng, verifies, MostlyBits, NoBQuery, TestCircuit};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, CompiledCircuit, CompiledFileError, ProofJob, Prover, ProverConfig, ProverError};
use ff::Field;

fn cpu() -> ProverConfig {
    ProverConfig { backend: Backend::Cpu, workers_per_device: 2, ..Default::default() }
}

/// Records `shape`, proves each witness through the compiled prover (one
/// batch, and one through the explicit phases) and compares every proof
/// with bellperson's for the same r, s.
fn assert_compiled_matches_bellperson<C>(shape: C, witnesses: Vec<C>, public: &[Vec<Scalar>])
where
    C: bellperson::Circuit<Scalar> + Clone + Send,
{
    let mut rng = rng();
    let params = params_for(shape.clone(), &mut rng);
    let compiled = CompiledCircuit::record(shape).expect("record");
    // The recording from the blank circuit and from an instance agree.
    assert_eq!(CompiledCircuit::record(witnesses[0].clone()).expect("record instance"), compiled);
    // a, b, c from the matrices are the full synthesis's, densities too.
    let (input, aux) = cuzk::synthesize_witness(witnesses[0].clone()).expect("witness");
    let full = cuzk::synthesize(witnesses[0].clone()).expect("full synthesis");
    assert_eq!((&input, &aux), (&full.input, &full.aux), "witness-only synthesis gives the full synthesis's values, in order");
    assert_eq!(compiled.evaluate(input, aux).expect("evaluate"), full);

    let prover = Prover::with_compiled(params.clone(), compiled, cpu()).expect("prover");
    common::assert_proofs_match_bellperson(&prover, &params, witnesses.clone(), public, &mut rng);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let (input, aux) = cuzk::synthesize_witness(witnesses[0].clone()).unwrap();
    let ours = prover.compute(prover.prestage(ProofJob::from_witness(input, aux, r, s)).unwrap()).unwrap();
    assert_eq!(ours, groth16::create_proof(witnesses[0].clone(), &params, r, s).unwrap());
    assert!(verifies(&params, &ours, &public[0]));
}

#[test]
fn test_circuits_match_bellperson() {
    let x = Scalar::from(7u64);
    assert_compiled_matches_bellperson(TestCircuit::Square(None), vec![TestCircuit::Square(Some(x))], &[vec![x.square()]]);
    let v = (Scalar::from(3u64), -Scalar::ONE);
    assert_compiled_matches_bellperson(TestCircuit::NoInputs(None), vec![TestCircuit::NoInputs(Some(v))], &[vec![]]);
    // 37 + 1 + 3 inputs + ONE: 42 constraints in a 64-point domain.
    let cs: Vec<_> = (0..3).map(|i| SyntheticPorep::with_witness(37, 3, 11 + i)).collect();
    let public: Vec<_> = cs.iter().map(|c| c.public_values()).collect();
    assert_compiled_matches_bellperson(SyntheticPorep::shape(37, 3), cs, &public);
    let cs: Vec<_> = (0..2).map(|i| MostlyBits { bits: 800, seed: Some(i) }).collect();
    let public: Vec<_> = cs.iter().map(|c| c.public_values()).collect();
    assert_compiled_matches_bellperson(MostlyBits { bits: 800, seed: None }, cs, &public);
    let c = NoBQuery { vars: 20, seed: Some(5) };
    assert_compiled_matches_bellperson(NoBQuery { vars: 20, seed: None }, vec![c.clone()], &[c.public_values()]);
}

#[test]
fn gadget_circuits_match_bellperson() {
    for family in Family::ALL {
        eprintln!("{family:?}");
        let cs: Vec<_> = (1..3).map(|seed| Gadget { family, seed: Some(seed) }).collect();
        let public: Vec<_> = cs.iter().map(Gadget::public_values).collect();
        assert_compiled_matches_bellperson(Gadget { family, seed: None }, cs, &public);
    }
}

#[test]
fn coefficients_are_tabled_once_and_the_size_is_as_documented() {
    let compiled = CompiledCircuit::record(Gadget { family: Family::Sha256, seed: None }).unwrap();
    let table = compiled.coefficients();
    assert_eq!(&table[..2], &[Scalar::ONE, -Scalar::ONE]);
    let mut sorted: Vec<_> = table.iter().map(|c| ff::PrimeField::to_repr(c)).collect();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), table.len(), "each coefficient once");
    let m = compiled.matrices();
    let expected = m.iter().map(|m| 8 * m.nonzeros() + 4 * (m.rows() + 1)).sum::<usize>() + 32 * table.len();
    assert_eq!(compiled.bytes(), expected);
    eprintln!(
        "SHA-256 block: {} rows, {} nonzeros, {} coefficients, {} bytes ({:.2} per nonzero)",
        compiled.constraints(),
        compiled.nonzeros(),
        table.len(),
        compiled.bytes(),
        compiled.bytes() as f64 / compiled.nonzeros() as f64
    );
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("cuzk-{name}-{}-{:x}.r1cs", std::process::id(), rand::random::<u32>()))
}

#[test]
fn file_round_trips_and_refuses_damage() {
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(500, 4)).unwrap();
    let path = temp_path("roundtrip");
    compiled.save(&path).unwrap();
    let loaded = CompiledCircuit::load(&path).unwrap();
    assert_eq!(loaded, compiled);
    assert_eq!(loaded.digest(), compiled.digest());
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();

    let read = |b: &[u8]| CompiledCircuit::read_from(b, b.len() as u64);
    let with = |at: usize, f: &dyn Fn(&mut u8)| {
        let mut b = bytes.clone();
        f(&mut b[at]);
        b
    };
    // Each byte of the body, flipped, is caught by the digest.
    for at in [120, 200, bytes.len() / 2, bytes.len() - 1] {
        assert!(matches!(read(&with(at, &|b| *b ^= 1)), Err(CompiledFileError::DigestMismatch)), "byte {at}");
    }
    assert!(matches!(read(&with(0, &|b| *b ^= 1)), Err(CompiledFileError::NotCompiled)));
    assert!(matches!(read(&with(8, &|b| *b = 9)), Err(CompiledFileError::UnsupportedVersion { found: 9, .. })));
    // A shape field changed: the digest (it covers the shape) or the size
    // no longer matches.
    assert!(matches!(read(&with(16, &|b| *b ^= 1)), Err(CompiledFileError::DigestMismatch)), "inputs");
    assert!(matches!(read(&with(32, &|b| *b ^= 4)), Err(CompiledFileError::WrongSize { .. })), "rows");
    // A huge count is refused before anything is allocated.
    assert!(matches!(read(&with(16 + 8 * 4 + 7, &|b| *b = 0x7f)), Err(CompiledFileError::WrongSize { .. })));
    assert!(matches!(read(&bytes[..bytes.len() - 8]), Err(CompiledFileError::WrongSize { .. })));
    assert!(matches!(read(&bytes[..10]), Err(CompiledFileError::WrongSize { .. })));
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 8]);
    assert!(matches!(read(&longer), Err(CompiledFileError::WrongSize { .. })));
    assert!(matches!(CompiledCircuit::load(temp_path("missing")), Err(CompiledFileError::Io(_))));
}

#[test]
fn mismatches_are_typed_errors_and_cost_only_their_proof() {
    let mut rng = rng();
    let params = params_for(SyntheticPorep::shape(300, 4), &mut rng);
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(300, 4)).unwrap();
    // Parameters of another circuit.
    let other = CompiledCircuit::record(SyntheticPorep::shape(301, 4)).unwrap();
    let Err(err) = Prover::with_compiled(params.clone(), other, cpu()) else { panic!("parameters of another circuit accepted") };
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");

    let prover = Prover::with_compiled(params.clone(), compiled, cpu()).unwrap();
    // A circuit of another shape, an unsatisfied witness, a good one.
    let good = SyntheticPorep::with_witness(300, 4, 1);
    let results = prover.prove_batch(vec![SyntheticPorep::with_witness(299, 4, 2), good.clone()], &mut rng);
    assert!(matches!(results[0], Err(ProverError::CompiledMismatch { what: "aux variables", .. })), "{:?}", results[0]);
    assert!(verifies(&params, results[1].as_ref().unwrap(), &good.public_values()));

    let (input, mut aux) = cuzk::synthesize_witness(good.clone()).unwrap();
    aux[7] += Scalar::ONE;
    let err = prover.prestage(ProofJob::from_witness(input.clone(), aux, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::Unsatisfied { .. }), "{err}");
    let (_, aux) = cuzk::synthesize_witness(good.clone()).unwrap();
    let mut no_one = input.clone();
    no_one[0] = Scalar::ZERO;
    let err = prover.prestage(ProofJob::from_witness(no_one, aux.clone(), Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::MissingOneInput), "{err}");
    // A witness-only job on a prover without a compiled circuit.
    let plain = Prover::new(params, cpu()).unwrap();
    let err = plain.prestage(ProofJob::from_witness(input, aux, Scalar::ONE, Scalar::ONE)).unwrap_err();
    assert!(matches!(err, ProverError::Config(_)), "{err}");
}

/// A batch of one compiled circuit's instances with an unsatisfied one and
/// a panicking one among them: each of those costs only its own proof.
fn assert_bad_instances_cost_one_proof_each(prover: &Prover, params: &groth16::Parameters<blstrs::Bls12>) {
    let mut rng = rng();
    let x = Scalar::from(5u64);
    let circuits = vec![TestCircuit::Square(Some(x)), TestCircuit::WrongSquare(x), TestCircuit::Panics, TestCircuit::Square(Some(x + Scalar::ONE))];
    let results = prover.prove_batch(circuits, &mut rng);
    assert!(matches!(results[1], Err(ProverError::Unsatisfied { constraint: 0 })), "{:?}", results[1]);
    assert!(matches!(results[2], Err(ProverError::CircuitPanicked(_))), "{:?}", results[2]);
    assert!(verifies(params, results[0].as_ref().unwrap(), &[x.square()]));
    assert!(verifies(params, results[3].as_ref().unwrap(), &[(x + Scalar::ONE).square()]));
}

#[test]
fn bad_instances_in_a_compiled_batch_cost_one_proof_each() {
    let params = params_for(TestCircuit::Square(None), &mut rng());
    let prover = Prover::with_compiled(params.clone(), CompiledCircuit::record(TestCircuit::Square(None)).unwrap(), cpu()).unwrap();
    assert_bad_instances_cost_one_proof_each(&prover, &params);
}

#[test]
fn the_empty_circuit_matches_bellperson() {
    assert_compiled_matches_bellperson(common::Empty, vec![common::Empty], &[vec![]]);
}

#[test]
fn recording_refuses_bad_circuits() {
    let err = CompiledCircuit::record(TestCircuit::UnknownAux).unwrap_err();
    assert!(matches!(err, ProverError::UnknownVariable { kind: "aux", .. }), "{err}");
    let err = CompiledCircuit::record(TestCircuit::Panics).unwrap_err();
    assert!(matches!(err, ProverError::CircuitPanicked(_)), "{err}");
    let empty = CompiledCircuit::record(common::Empty).unwrap();
    assert_eq!((empty.constraints(), empty.inputs(), empty.aux()), (1, 1, 0), "only ONE's input row");
}
