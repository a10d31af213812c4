use bellperson::gadgets::boolean::{AllocatedBit, Boolean};
use bellperson::ConstraintSystem;
use blstrs::Scalar;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng as XorShiftRng;

use super::sha256::sha256;
use super::uint32::Word;
use super::{first_difference, NativeWitness};
use crate::compiled::{synthesize_witness, WitnessOnlyCs};
use crate::porep::synthetic::synthetic_c1;
use crate::porep::{sector_circuits_with, PorepCircuit, RegisteredSealProof};

/// bellperson's SHA-256 gadget and the native one on the same message:
/// the same aux values after the message's own, and the same digest. Each
/// message bit is a constant (`p_const`) or allocated, and allocated bits
/// are sometimes negated, so every case of Ch, Maj and XOR is met.
fn same_as_the_gadget(words: usize, p_const: f64, rng: &mut XorShiftRng) {
    let mut cs = WitnessOnlyCs::scratch();
    let mut bits = Vec::with_capacity(words * 32);
    let mut message = Vec::with_capacity(words);
    for w in 0..words {
        let (mut value, mut constant, mut negated) = (0u32, 0u32, 0u32);
        for i in (0..32).rev() {
            let b: bool = rng.gen();
            value |= (b as u32) << i;
            if rng.gen_bool(p_const) {
                constant |= 1 << i;
                bits.push(Boolean::Constant(b));
            } else if rng.gen_bool(0.2) {
                negated |= 1 << i;
                bits.push(Boolean::Not(AllocatedBit::alloc(cs.namespace(|| format!("{w} {i}")), Some(!b)).unwrap()));
            } else {
                bits.push(Boolean::Is(AllocatedBit::alloc(cs.namespace(|| format!("{w} {i}")), Some(b)).unwrap()));
            }
        }
        message.push(Word::from_masks(value, constant, negated));
    }
    let before = cs.aux.len();
    let digest = bellperson::gadgets::sha256::sha256(cs.namespace(|| "sha256"), &bits).unwrap();
    let mut native = Vec::new();
    let state = sha256(&message, &mut native);
    let gadget = &cs.aux[before..];
    assert_eq!(native.len(), gadget.len(), "{words} words, constants {p_const}: aux lengths");
    assert_eq!(native.iter().zip(gadget).position(|(a, b)| a != b), None, "{words} words, constants {p_const}: first differing aux value");
    let digest: Vec<bool> = digest.iter().map(|b| b.get_value().unwrap()).collect();
    let native_digest: Vec<bool> = state.iter().flat_map(|w| (0..32).rev().map(move |i| w.value >> i & 1 == 1)).collect();
    assert_eq!(native_digest, digest);
}

#[test]
fn native_sha256_allocates_what_the_gadget_does() {
    let mut rng = XorShiftRng::seed_from_u64(7);
    for words in [1, 8, 15, 16, 17, 32, 78] {
        for p_const in [0.0, 0.05, 0.5, 0.95, 1.0] {
            same_as_the_gadget(words, p_const, &mut rng);
        }
    }
}

/// Every partition of a synthetic C1 output of `proof`: the native
/// witness (inputs and aux) equals witness-only synthesis of the circuit.
fn native_equals_general(proof: RegisteredSealProof, seed: u64) {
    let c1 = synthetic_c1(proof, seed).expect("synthetic C1");
    let config = proof.as_v1_config();
    let general = sector_circuits_with(&c1.phase1, &config, NativeWitness::Off).unwrap().circuits;
    let native = sector_circuits_with(&c1.phase1, &config, NativeWitness::Auto).unwrap().circuits;
    for (k, (g, n)) in general.into_iter().zip(native).enumerate() {
        assert!(matches!(n, PorepCircuit::Native(_)));
        let (gi, ga) = synthesize_witness(g).unwrap();
        let (ni, na) = synthesize_witness(n).unwrap();
        assert_eq!(first_difference((&ni, &na), (&gi, &ga)), None, "{proof:?}, seed {seed}, partition {k}");
        assert!(na.len() > 10_000, "{}", na.len());
    }
}

#[test]
fn native_witness_of_2kib_sectors_equals_witness_only_synthesis() {
    for seed in 1..=6 {
        native_equals_general(RegisteredSealProof::StackedDrg2KiBV1_1, seed);
    }
    native_equals_general(RegisteredSealProof::StackedDrg2KiBV1, 7);
}

#[test]
fn native_witness_of_8mib_and_512mib_sectors_equals_witness_only_synthesis() {
    native_equals_general(RegisteredSealProof::StackedDrg8MiBV1_1, 3);
    native_equals_general(RegisteredSealProof::StackedDrg512MiBV1_1, 1);
    native_equals_general(RegisteredSealProof::StackedDrg512MiBV1_1, 2);
}

#[test]
fn a_native_witness_that_differs_is_a_typed_error_naming_the_first_difference() {
    let proof = RegisteredSealProof::StackedDrg2KiBV1_1;
    let config = proof.as_v1_config();
    let c1 = synthetic_c1(proof, 11).unwrap();
    // The native side reads another C1 (one label of one parent column
    // changed); the general circuit is the right one.
    let mut other = c1.clone();
    let filecoin_proofs_api::seal::VanillaSealProof::StackedDrg2KiBV1(proofs) = &mut other.phase1.vanilla_proofs else { panic!("2 KiB proofs") };
    let columns = &mut proofs[0][1].replica_column_proofs;
    columns.exp_parents[2] = columns.exp_parents[5].clone();
    let general = sector_circuits_with(&c1.phase1, &config, NativeWitness::Off).unwrap().circuits.remove(0);
    let PorepCircuit::Native(tampered) = sector_circuits_with(&other.phase1, &config, NativeWitness::Checked).unwrap().circuits.remove(0) else { panic!("native") };
    let mixed = PorepCircuit::Native(Box::new(tampered.with_general(general.clone())));
    let err = synthesize_witness(mixed).expect_err("a mismatch");
    let crate::ProverError::Synthesis(bellperson::SynthesisError::IoError(io)) = &err else { panic!("{err}") };
    let mismatch = io.get_ref().and_then(|e| e.downcast_ref::<super::WitnessMismatch>()).expect("a WitnessMismatch");
    // The first value that differs is where witness-only synthesis of the
    // tampered C1 first differs from the right one.
    let (ti, ta) = synthesize_witness(sector_circuits_with(&other.phase1, &config, NativeWitness::Off).unwrap().circuits.remove(0)).unwrap();
    let (gi, ga) = synthesize_witness(general).unwrap();
    assert_eq!(Some(mismatch.clone()), first_difference((&ti, &ta), (&gi, &ga)));
    let c1_err = crate::porep::PorepError::partition(0, err);
    assert!(matches!(c1_err, crate::porep::PorepError::WitnessMismatch { partition: 0, .. }), "{c1_err}");
    // Checked and right: no error.
    let checked = sector_circuits_with(&c1.phase1, &config, NativeWitness::Checked).unwrap().circuits.remove(0);
    synthesize_witness(checked).expect("the same witness");
}

#[test]
fn a_native_circuit_outside_witness_only_synthesis_runs_the_general_one() {
    let proof = RegisteredSealProof::StackedDrg2KiBV1_1;
    let c1 = synthetic_c1(proof, 12).unwrap();
    let native = sector_circuits_with(&c1.phase1, &proof.as_v1_config(), NativeWitness::Auto).unwrap().circuits.remove(0);
    let general = sector_circuits_with(&c1.phase1, &proof.as_v1_config(), NativeWitness::Off).unwrap().circuits.remove(0);
    // Full synthesis (a, b, c) is the general circuit's.
    let (n, g) = (crate::synthesize(native).unwrap(), crate::synthesize(general).unwrap());
    assert_eq!((n.input, n.aux, n.a), (g.input, g.aux, g.a));
}

#[test]
fn first_difference_names_the_vector_and_index() {
    let v = |xs: &[u64]| xs.iter().map(|&x| Scalar::from(x)).collect::<Vec<_>>();
    assert_eq!(first_difference((&v(&[1, 2]), &v(&[3, 4])), (&v(&[1, 2]), &v(&[3, 4]))), None);
    let m = first_difference((&v(&[1, 2]), &v(&[3, 4, 5])), (&v(&[1, 2]), &v(&[3, 9, 5]))).unwrap();
    assert_eq!((m.what, m.index, m.lengths_differ), ("aux", 1, false));
    let m = first_difference((&v(&[1]), &v(&[3])), (&v(&[1, 2]), &v(&[3]))).unwrap();
    assert_eq!((m.what, m.index, m.lengths_differ), ("input", 1, true));
}

#[test]
fn only_the_listed_compiled_circuits_are_recognized() {
    for (i, (name, digest)) in super::KNOWN_CIRCUITS.iter().enumerate() {
        assert_eq!(super::recognizes(digest), Some(*name));
        assert!(super::KNOWN_CIRCUITS[i + 1..].iter().all(|(_, d)| d != digest), "{name} listed twice");
    }
    let mut other = super::KNOWN_CIRCUITS[0].1;
    other[31] ^= 1;
    assert_eq!(super::recognizes(&other), None);
}

#[test]
fn parent_columns_without_labels_or_of_differing_heights_are_typed_errors() {
    let proof = RegisteredSealProof::StackedDrg2KiBV1_1;
    let config = proof.as_v1_config();
    let c1 = synthetic_c1(proof, 13).unwrap();
    let mut bad = c1.clone();
    let filecoin_proofs_api::seal::VanillaSealProof::StackedDrg2KiBV1(proofs) = &mut bad.phase1.vanilla_proofs else { panic!("2 KiB proofs") };
    // A column read back with one row fewer (through its serde form).
    let column = &mut proofs[0][1].replica_column_proofs.drg_parents[2];
    let mut json: serde_json::Value = serde_json::to_value(&*column).unwrap();
    json["column"]["rows"].as_array_mut().unwrap().pop();
    *column = serde_json::from_value(json).unwrap();
    let err = sector_circuits_with(&bad.phase1, &config, NativeWitness::Auto).err().expect("refused");
    assert!(matches!(err, crate::porep::PorepError::InvalidC1(_)), "{err}");
}
