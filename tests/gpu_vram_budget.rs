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

const CONSTRAINTS: usize = 20_000;
const INPUTS: usize = 3;

fn config(workers: usize, sharing: ComputeSharing, limit: Option<u64>) -> ProverConfig {
    ProverConfig { backend: Backend::Gpu, devices: vec![0], workers_per_device: workers, compute_sharing: sharing, vram_limit: limit, ..Default::default() }
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

/// A budget for which the plan keeps `workers` workers and streams at least
/// `streamed` queries in chunks (full assignments, computes as `serial`).
fn budget_streaming(lengths: QueryLengths, workers: usize, serial: bool, streamed: usize) -> (u64, VramPlan) {
    let needs = VramNeeds::new(lengths, 0, workers, true, serial);
    let all = VramPlan::choose(&needs, u64::MAX).expect("unlimited").total();
    (1..=400)
        .map(|k| all - all * k / 400)
        .find_map(|b| VramPlan::choose(&needs, b).ok().filter(|p| p.workers == workers && p.streamed.len() >= streamed && p.msm_chunk.is_some()).map(|p| (b, p)))
        .expect("a budget that streams")
}

#[test]
fn streamed_and_chunked_proofs_match_bellperson() {
    if common::gpu_or_skip("streamed_and_chunked_proofs_match_bellperson").is_none() {
        return;
    }
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(CONSTRAINTS, INPUTS), &mut rng);
    let file = TempFile::new(&file_bytes(&params));
    let lengths = QueryLengths::of(&params);
    for source in [ParamsSource::from(params.clone()), ParamsFile::open(&file.0).unwrap().into()] {
        let least = least(&source, None);
        // The smallest plan: one worker, every query streamed, the smallest chunks.
        let prover = Prover::new(source.clone(), config(2, ComputeSharing::Auto, Some(least))).expect("prover at the least budget");
        let plan = prover.vram_plan().expect("a GPU plan").clone();
        eprintln!("least {least}: {plan}");
        assert_eq!((plan.workers, plan.streamed.len(), plan.msm_chunk), (1, 5, Some(cuzk::vram::plan::MIN_CHUNK)), "{plan}");
        // The H step's output over its input (no H buffer) and the scalars
        // copied in during the compute (full assignments).
        assert!(plan.h_in_slot && plan.scalars_late, "{plan}");
        assert_eq!(prover.workers(), 1);
        common::assert_batch_matches_bellperson(&prover, &params, CONSTRAINTS, INPUTS, 3, &mut rng);
        drop(prover);
        // Two workers streaming some queries, their computes one at a time
        // (one scratch set and copy ring shared) and interleaved.
        for (sharing, serial) in [(ComputeSharing::Serial, true), (ComputeSharing::Interleaved, false)] {
            let (budget, want) = budget_streaming(lengths, 2, serial, 2);
            let prover = Prover::new(source.clone(), config(2, sharing, Some(budget))).expect("prover");
            let plan = prover.vram_plan().expect("a GPU plan");
            eprintln!("{sharing:?} {budget}: {plan}");
            assert_eq!(plan, &want, "the engine's plan is the chooser's");
            assert_eq!(prover.workers(), 2);
            common::assert_batch_matches_bellperson(&prover, &params, CONSTRAINTS, INPUTS, 4, &mut rng);
        }
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
