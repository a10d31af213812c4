//! Parameter files loaded straight to the GPU (raw points uploaded, then
//! decoded and checked there): proofs bit-identical to bellperson's, the
//! same typed error as the CPU path for every kind of damage, and no VRAM
//! left reserved after one (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use common::params_files::{damaged_files, file_bytes, read_by_bellperson, Expect, TempFile};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, ParamsFile, Prover, ProverConfig, ProverError, QueryLengths};

fn gpu() -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, devices: vec![0], workers_per_device: 2, ..Default::default() }
}

#[test]
fn gpu_proofs_from_a_parameter_file_match_bellperson() {
    if common::gpu_or_skip("gpu_proofs_from_a_parameter_file_match_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    // Over one staging chunk of H points (32 MiB / 96 B ≈ 350k): several
    // pieces, decoded while the next is copied.
    let constraints = 600_000;
    let params = common::params_for(SyntheticPorep::shape(constraints, 3), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    // Against proofs from bellperson's own reading of the same file.
    let read = read_by_bellperson(&file);
    for subgroup in [false, true] {
        let opened = ParamsFile::open(&file.0).unwrap().with_subgroup_check(subgroup);
        let prover = Prover::new(opened, gpu()).expect("GPU prover from a parameter file");
        assert!(prover.params().is_none(), "the GPU prover keeps no host copy of the bases");
        common::assert_batch_matches_bellperson(&prover, &read, constraints, 3, 3, &mut rng);
    }
}

#[test]
fn gpu_refuses_every_kind_of_damage_as_the_cpu_does_and_frees_its_vram() {
    let Some(device) = common::gpu_or_skip("gpu_refuses_every_kind_of_damage_as_the_cpu_does_and_frees_its_vram") else {
        return;
    };
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(3000, 2), &mut rng);
    let good = file_bytes(&params);
    let lengths = QueryLengths::of(&params);
    // A first prover loads the module and sets up the context.
    drop(Prover::new(ParamsFile::open(TempFile::new(&good).0.as_path()).unwrap(), gpu()).unwrap());
    device.bind().unwrap();
    let free = || cust::memory::mem_get_info().unwrap().0;
    let before = free();
    for (name, bytes, expect) in damaged_files(&good, &lengths) {
        let file = TempFile::new(&bytes);
        for subgroup in [false, true] {
            let opened = match ParamsFile::open(&file.0) {
                Ok(f) => f.with_subgroup_check(subgroup),
                Err(e) => {
                    assert!(!expect.found_at_load() && expect.matches(&e), "{name}: {e}");
                    continue;
                }
            };
            let subgroup_only = matches!(expect, Expect::OnlyWithSubgroupCheck(..));
            match Prover::new(opened, gpu()) {
                Ok(_) => assert!(subgroup_only && !subgroup, "{name} (subgroup check {subgroup}): loaded"),
                Err(ProverError::ParamsFile(e)) => assert!(expect.matches(&e) && !(subgroup_only && !subgroup), "{name} (subgroup check {subgroup}): {e}"),
                Err(e) => panic!("{name}: {e}"),
            }
            device.bind().unwrap();
            let leaked = before.saturating_sub(free());
            assert!(leaked < 4 << 20, "{name}: {leaked} bytes of VRAM still reserved after the error");
        }
    }
}

#[test]
fn too_little_vram_is_a_typed_error_and_auto_falls_back_to_the_cpu() {
    if common::gpu_or_skip("too_little_vram_is_a_typed_error_and_auto_falls_back_to_the_cpu").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(3000, 2), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    // As if the GPU had 1 MiB free.
    let faults = cuzk::FaultPlan { vram_free: Some(1 << 20), ..Default::default() };
    let small = |backend| ProverConfig { backend, devices: vec![0], faults, ..Default::default() };
    for source in [cuzk::ParamsSource::from(params.clone()), ParamsFile::open(&file.0).unwrap().into()] {
        match Prover::new(source.clone(), small(Backend::Gpu)) {
            Err(ProverError::NotEnoughVram { free, needed, detail, .. }) => {
                assert_eq!(free, 1 << 20);
                assert!(needed > free && detail.contains("need"), "{needed} {detail}");
            }
            other => panic!("{:?}", other.map(|_| "a GPU prover")),
        }
        // Auto proves on the CPU instead (the reason is in the log), the
        // file's bases decoded on the host.
        let auto = Prover::new(source, small(Backend::Auto)).expect("CPU fallback");
        assert_eq!(auto.backend(), Backend::Cpu);
        assert!(auto.gpu_fallback().is_some_and(|why| why.contains("VRAM")), "{:?}", auto.gpu_fallback());
        common::assert_batch_matches_bellperson(&auto, &params, 3000, 2, 2, &mut rng);
    }
}

#[test]
fn a_file_truncated_after_it_was_opened_is_an_error_on_the_gpu_and_auto_does_not_retry_on_the_cpu() {
    if common::gpu_or_skip("a_file_truncated_after_it_was_opened_is_an_error_on_the_gpu_and_auto_does_not_retry_on_the_cpu").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(600_000, 3), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    for backend in [Backend::Gpu, Backend::Auto] {
        let opened = ParamsFile::open(&file.0).unwrap();
        let full = opened.len() as u64;
        std::fs::OpenOptions::new().write(true).open(&file.0).unwrap().set_len(full / 3).unwrap();
        match Prover::new(opened, ProverConfig { backend, ..gpu() }) {
            Err(ProverError::ParamsFile(cuzk::ParamsFileError::Truncated { .. })) => {}
            other => panic!("{backend:?}: {:?}", other.map(|p| p.backend())),
        }
        std::fs::write(&file.0, file_bytes(&params)).unwrap();
    }
}

#[test]
fn auto_returns_input_errors_as_they_are() {
    if common::gpu_or_skip("auto_returns_input_errors_as_they_are").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(3000, 2), &mut rng);
    // A mistyped device ordinal is the caller's error, not a reason to
    // prove on the CPU.
    let auto = ProverConfig { backend: Backend::Auto, devices: vec![4096], ..Default::default() };
    match Prover::new(params.clone(), auto) {
        Err(ProverError::Config(m)) => assert!(m.contains("4096"), "{m}"),
        other => panic!("{:?}", other.map(|p| p.backend())),
    }
    // A damaged base: the GPU's error, without a second decoding on the host.
    let lengths = QueryLengths::of(&params);
    let (name, bytes, _) = damaged_files(&file_bytes(&params), &lengths).into_iter().find(|(_, _, e)| matches!(e, Expect::Point(q, ..) if *q != cuzk::Query::VerifyingKey)).expect("a damaged base");
    let file = TempFile::new(&bytes);
    match Prover::new(ParamsFile::open(&file.0).unwrap(), ProverConfig { backend: Backend::Auto, ..gpu() }) {
        Err(ProverError::ParamsFile(_)) => {}
        other => panic!("{name}: {:?}", other.map(|p| p.backend())),
    }
}
