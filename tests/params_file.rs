//! Parameter files (bellperson's format) read straight from the file by
//! the CPU path: the same parameters as bellperson's own reader, proofs
//! bit-identical to bellperson's, and a typed error for every kind of
//! damage.

mod common;

use common::params_files::{damaged_files, file_bytes, read_by_bellperson, TempFile};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, ParamsFile, ParamsFileError, Prover, ProverConfig, ProverError, QueryLengths};

fn cpu() -> ProverConfig {
    ProverConfig { backend: Backend::Cpu, ..Default::default() }
}

#[test]
fn a_file_bellperson_wrote_reads_back_the_same_and_proves_the_same() {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(400, 3), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    let opened = ParamsFile::open(&file.0).expect("open");
    assert_eq!(opened.lengths(), QueryLengths::of(&params));
    assert_eq!(opened.verifying_key(), &params.vk);
    for subgroup in [false, true] {
        let read = ParamsFile::open(&file.0).unwrap().with_subgroup_check(subgroup).read_parameters().expect("read");
        assert!(read == params, "decoded parameters differ from bellperson's (subgroup check {subgroup})");
    }
    let prover = Prover::new(opened, cpu()).expect("CPU prover from a parameter file");
    assert!(prover.params().is_some(), "the CPU backend holds the decoded bases");
    assert_eq!(prover.verifying_key(), &params.vk);
    // Against proofs from bellperson's own reading of the same file.
    let read = read_by_bellperson(&file);
    common::assert_batch_matches_bellperson(&prover, &read, 400, 3, 3, &mut rng);
}

#[test]
fn every_kind_of_damage_is_its_typed_error_on_the_cpu() {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(300, 2), &mut rng);
    let good = file_bytes(&params);
    let lengths = QueryLengths::of(&params);
    for (name, bytes, expect) in damaged_files(&good, &lengths) {
        let file = TempFile::new(&bytes);
        for subgroup in [false, true] {
            let outcome = ParamsFile::open(&file.0).and_then(|f| f.with_subgroup_check(subgroup).read_parameters().map(|_| ()));
            let subgroup_only = matches!(expect, common::params_files::Expect::OnlyWithSubgroupCheck(..));
            match outcome {
                Ok(()) => assert!(subgroup_only && !subgroup, "{name} (subgroup check {subgroup}): loaded"),
                Err(e) => assert!(expect.matches(&e) && !(subgroup_only && !subgroup), "{name} (subgroup check {subgroup}): {e}, expected {expect:?}"),
            }
        }
        // The same through the prover: its typed error, no panic.
        let through_prover = ParamsFile::open(&file.0).map_err(ProverError::from).and_then(|f| Prover::new(f.with_subgroup_check(true), cpu()));
        match through_prover {
            Err(ProverError::ParamsFile(e)) => assert!(expect.matches(&e), "{name}: {e}"),
            other => panic!("{name}: {:?}", other.map(|_| "a prover")),
        }
    }
}

#[test]
fn parameters_of_another_circuit_are_refused_when_proving() {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(300, 2), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    let prover = Prover::new(ParamsFile::open(&file.0).unwrap(), cpu()).unwrap();
    let other = SyntheticPorep::with_witness(500, 2, 1);
    let err = prover.prove(other, &mut rng).unwrap_err();
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");
    let compiled = cuzk::CompiledCircuit::record(SyntheticPorep::shape(500, 2)).unwrap();
    let err = Prover::with_compiled(ParamsFile::open(&file.0).unwrap(), compiled, cpu()).err().expect("refused");
    assert!(matches!(err, ProverError::ParamsMismatch { .. }), "{err}");
}

#[test]
fn digests_missing_files_and_bad_expectations() {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(100, 1), &mut rng);
    let bytes = file_bytes(&params);
    let file = TempFile::new(&bytes);
    let opened = ParamsFile::open(&file.0).unwrap();
    let digest = blake2b_simd::blake2b(&bytes).to_hex().to_string();
    opened.check_digest(&digest[..32]).expect("Filecoin's 32-digit prefix");
    opened.check_digest(&digest.to_uppercase()).expect("all 128 digits, any case");
    let mut wrong = digest[..32].to_string().into_bytes();
    wrong[0] = if wrong[0] == b'0' { b'1' } else { b'0' };
    let err = opened.check_digest(std::str::from_utf8(&wrong).unwrap()).unwrap_err();
    assert!(matches!(err, ParamsFileError::DigestMismatch { .. }), "{err}");
    for bad in ["", "xyz", &"0".repeat(129)] {
        assert!(matches!(opened.check_digest(bad), Err(ParamsFileError::BadExpectedDigest(_))), "{bad:?}");
    }
    let missing = file.0.with_extension("missing");
    assert!(matches!(ParamsFile::open(&missing), Err(ParamsFileError::Io { .. })));
    assert!(matches!(ParamsFile::open(std::env::temp_dir()), Err(ParamsFileError::Io { .. }) | Err(ParamsFileError::Truncated { .. })));
}

#[test]
fn the_random_file_writer_writes_what_the_reader_reads() {
    let mut rng = common::rng();
    let lengths = QueryLengths { ic: 3, h: 2047, l: 1500, a: 1400, b_g1: 1100, b_g2: 1100 };
    let file = TempFile::new(&[]);
    cuzk::params_file::write_random_params_file(&file.0, &lengths, &mut rng).unwrap();
    let opened = ParamsFile::open(&file.0).unwrap().with_subgroup_check(true);
    assert_eq!(opened.lengths(), lengths);
    let read = opened.read_parameters().expect("valid points");
    // The pool repeats after 1024 points.
    assert_eq!(read.h[5], read.h[5 + 1024]);
    assert_ne!(read.h[5], read.h[6]);
    let by_bellperson = bellperson::groth16::Parameters::<blstrs::Bls12>::read(std::fs::File::open(&file.0).unwrap(), true).expect("bellperson reads it");
    assert!(by_bellperson == read);
}

#[test]
fn a_file_truncated_after_it_was_opened_is_an_error_not_a_crash() {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(300, 2), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    let opened = ParamsFile::open(&file.0).unwrap();
    let full = opened.len() as u64;
    // Cut in the middle of the bases, as a fetch rewriting the file would.
    std::fs::OpenOptions::new().write(true).open(&file.0).unwrap().set_len(full / 2).unwrap();
    match opened.read_parameters() {
        Err(ParamsFileError::Truncated { needed, found, .. }) => assert!(found == full / 2 && needed > found, "{needed} {found}"),
        other => panic!("{:?}", other.map(|_| "parameters")),
    }
    match Prover::new(opened, cpu()) {
        Err(ProverError::ParamsFile(ParamsFileError::Truncated { .. })) => {}
        other => panic!("{:?}", other.map(|_| "a prover")),
    }
}
