//! Provers within a VRAM budget (`ProverConfig::vram_limit`): fewer
//! workers, MSMs in chunks, the H step's output over its input, the
//! scalars copied in during the compute, parameter queries streamed from
//! pinned host memory; every proof bit-identical to bellperson's and verifying, from
//! host parameters and from a parameter file, full assignments and a
//! compiled circuit, one and two workers, computes one at a time and
//! interleaved. Needs a GPU (skips, saying why, without one).

mod common;

use common::params_files::{file_bytes, TempFile};
use cuzk::synthetic::SyntheticPorep;
use cuzk::vram::{VramNeeds, VramPlan};
use cuzk::{Backend, CompiledCircuit, ComputeSharing, ParamsFile, ParamsSource, Prover, ProverConfig, ProverError, QueryLengths};

/// Large enough that every layout a budget can give shows up (the host
/// test `vram::tests::the_gpu_budget_tests_shape_has_the_layouts_they_exercise`
/// checks that it does).
const CONSTRAINTS: usize = 100_000;
const INPUTS: usize = 3;

fn config(workers: usize, sharing: ComputeSharing, limit: Option<u64>) -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, devices: vec![0], workers_per_device: workers, compute_sharing: sharing, vram_limit: limit, ..Default::default() }
}

/// The MSM settings tried on every layout: as configured by default (the
/// first level fitted to the device's waves, streamed bases copied ahead
/// into the H MSM's freed VRAM), or with both off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tuning {
    Default,
    Untuned,
}

/// The smallest budget a prover of `source` accepts: what a 1-byte limit's
/// error says is needed.
fn least(source: &ParamsSource, compiled: Option<&CompiledCircuit>) -> u64 {
    let built = match compiled {
        Some(c) => Prover::with_compiled(source.clone(), c.clone(), config(2, ComputeSharing::Auto, Some(1))),
        None => Prover::new(source.clone(), config(2, ComputeSharing::Auto, Some(1))),
    };
    match built {
        Err(ProverError::NotEnoughVram { needed, free, detail, .. }) => {
            assert_eq!(free, 1);
            assert!(detail.contains("smallest plan"), "{detail}");
            needed
        }
        other => panic!("a 1-byte budget: {:?}", other.map(|_| "a prover")),
    }
}

/// Every layout a budget can give this shape (`VramPlan::layouts`: from
/// the least budget, every query streamed in the smallest chunks, up to
/// all resident), for host parameters or a parameter file, computes one
/// at a time and interleaved: the engine's plan is the chooser's, and the
/// proofs are bellperson's for the same r, s. One source per test: each
/// takes minutes on an H200 (46 layouts, both sharing rules, three proofs
/// each).
fn every_layout_proves_what_bellperson_proves(gpu: &cuzk::gpu::GpuDevice, from_file: bool, tuning: Tuning) {
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(CONSTRAINTS, INPUTS), &mut rng);
    let lengths = QueryLengths::of(&params);
    let circuits: Vec<_> = (0..3).map(|i| SyntheticPorep::with_witness(CONSTRAINTS, INPUTS, 100 + i)).collect();
    let public: Vec<_> = circuits.iter().map(|c| c.public_values()).collect();
    let rs = common::random_r_s(circuits.len(), &mut rng);
    let expected = common::bellperson_proofs(&params, circuits.clone(), &rs);
    for (i, p) in expected.iter().enumerate() {
        assert!(common::verifies(&params, p, &public[i]));
    }
    // The file lives until the provers reading it are gone.
    let file = from_file.then(|| TempFile::new(&file_bytes(&params)));
    let (what, source) = match &file {
        None => ("host parameters", ParamsSource::from(params.clone())),
        Some(file) => ("a parameter file", ParamsFile::open(&file.0).unwrap().into()),
    };
    let defaults = ProverConfig::default();
    // The two settings as the provers below get them.
    let (fill_waves, ahead) = match tuning {
        Tuning::Default => (defaults.msm_fill_waves, defaults.streamed_bases_ahead),
        Tuning::Untuned => (false, false),
    };
    let needs = |serial: bool, waves: bool| {
        let mut needs = VramNeeds::new(lengths, 0, 2, true, serial);
        if waves {
            needs.msm.level0_waves = cuzk::gpu::msm::level0_waves(gpu).expect("the device's waves");
        }
        needs
    };
    // The smallest budget of a prover as configured by default.
    assert_eq!(least(&source, None), VramPlan::choose(&needs(false, defaults.msm_fill_waves), 0).unwrap_err(), "{what}");
    for (sharing, serial) in [(ComputeSharing::Serial, true), (ComputeSharing::Interleaved, false)] {
        let layouts = VramPlan::layouts(&needs(serial, fill_waves));
        eprintln!("{what}, {sharing:?}, {tuning:?}: {} layouts", layouts.len());
        for want in layouts {
            let config = ProverConfig { msm_fill_waves: fill_waves, streamed_bases_ahead: ahead, ..config(2, sharing, Some(want.budget)) };
            let prover = Prover::new(source.clone(), config).unwrap_or_else(|e| panic!("{what}, {want}: {e}"));
            assert_eq!(prover.vram_plan(), Some(&want), "{what}: the engine's plan is the chooser's");
            assert_eq!(prover.workers(), want.workers);
            for (i, ours) in prover.prove_batch_with(circuits.clone(), rs.clone()).into_iter().enumerate() {
                let ours = ours.unwrap_or_else(|e| panic!("{what}, {want}: proof {i}: {e}"));
                assert_eq!(ours, expected[i], "{what}, {want}: proof {i} differs from bellperson's");
            }
        }
    }
}

#[test]
fn every_layout_of_host_parameters_proves_what_bellperson_proves() {
    if let Some(gpu) = common::gpu_or_skip("every_layout_of_host_parameters_proves_what_bellperson_proves") {
        every_layout_proves_what_bellperson_proves(&gpu, false, Tuning::Default);
    }
}

#[test]
fn every_layout_of_a_parameter_file_proves_what_bellperson_proves() {
    if let Some(gpu) = common::gpu_or_skip("every_layout_of_a_parameter_file_proves_what_bellperson_proves") {
        every_layout_proves_what_bellperson_proves(&gpu, true, Tuning::Default);
    }
}

/// Neither the first level fitted to the device's waves (other chunks,
/// smaller arenas in the plans) nor streamed bases copied ahead into the H
/// MSM's freed VRAM (two staging buffers), on every layout.
#[test]
fn every_layout_untuned_proves_what_bellperson_proves() {
    if let Some(gpu) = common::gpu_or_skip("every_layout_untuned_proves_what_bellperson_proves") {
        every_layout_proves_what_bellperson_proves(&gpu, false, Tuning::Untuned);
    }
}

#[test]
fn a_compiled_circuit_within_a_small_budget_matches_bellperson() {
    if common::gpu_or_skip("a_compiled_circuit_within_a_small_budget_matches_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(CONSTRAINTS, INPUTS), &mut rng);
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(CONSTRAINTS, INPUTS)).expect("record");
    let source = ParamsSource::from(params.clone());
    let least = least(&source, Some(&compiled));
    for (limit, workers) in [(least, 1), (least + (64 << 20), 2)] {
        let prover = Prover::with_compiled(source.clone(), compiled.clone(), config(workers, ComputeSharing::Serial, Some(limit))).expect("compiled prover");
        let plan = prover.vram_plan().expect("a GPU plan");
        eprintln!("compiled, {limit}: {plan}");
        assert!(!plan.streamed.is_empty() && plan.msm_chunk.is_some(), "{plan}");
        let circuits: Vec<_> = (0..3).map(|i| SyntheticPorep::with_witness(CONSTRAINTS, INPUTS, 7 + i)).collect();
        let public: Vec<_> = circuits.iter().map(|c| c.public_values()).collect();
        common::assert_proofs_match_bellperson(&prover, &params, circuits, &public, &mut rng);
    }
}

#[test]
fn a_budget_below_the_smallest_plan_is_not_enough_vram() {
    if common::gpu_or_skip("a_budget_below_the_smallest_plan_is_not_enough_vram").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(CONSTRAINTS, INPUTS), &mut rng);
    let source = ParamsSource::from(params);
    let least = least(&source, None);
    match Prover::new(source.clone(), config(1, ComputeSharing::Auto, Some(least - 1))) {
        Err(ProverError::NotEnoughVram { needed, free, .. }) => assert_eq!((needed, free), (least, least - 1)),
        other => panic!("{:?}", other.map(|_| "a prover")),
    }
    // Backend::Auto proves on the CPU instead.
    let auto = Prover::new(source, ProverConfig { backend: Backend::Auto, vram_limit: Some(least - 1), ..Default::default() }).expect("CPU fallback");
    assert_eq!(auto.backend(), Backend::Cpu);
}
