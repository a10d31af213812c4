//! Real 2 KiB and 8 MiB sectors' C2 on one GPU, two ways, each accepted by
//! filecoin-proofs' `verify_seal`: filecoin-proofs' own
//! `seal_commit_phase2` in this build (feature `supraseal`: its
//! `cuda-supraseal`, bellperson's synthesis, then SupraSeal's prover with
//! its SRS read from the parameter file; feature `bellperson-cuda`:
//! bellperson's own CUDA prover, or its CPU prover with BELLMAN_NO_GPU=1)
//! and cuzk's `SealProver`. The sectors are sealed
//! with filecoin-proofs-api's own API; the parameters are cuzk's local
//! setup, made on the GPU. Each C2 runs twice (the first call loads its
//! parameters). A program, not a test harness (`harness = false`): it
//! skips without a GPU.

#[path = "../../tests/porep/sealing.rs"]
mod sealing;

use std::time::{Duration, Instant};

use cuzk::parameters::generate::Generator;
use cuzk::porep::{compiled_circuit, local_setup_of, C1Output, RegisteredSealProof, SealProver, SealProverConfig, SealRequest};
use cuzk::{Backend, ProverConfig};
use filecoin_proofs_api::seal::{seal_commit_phase2, verify_seal};
use filecoin_proofs_api::SectorId;
use rand::SeedableRng;

fn main() {
    let device = match cuzk::gpu::discover(&[0]) {
        Ok(mut gpus) => gpus.pop().expect("one GPU"),
        Err(e) => {
            println!("SKIPPED peer c2: no GPU ({e})");
            return;
        }
    };
    let root = sealing::own_parameter_cache("peer-c2");
    let circuits = root.join("circuits");
    let mut failed = false;
    for (k, proof) in [RegisteredSealProof::StackedDrg2KiBV1_1, RegisteredSealProof::StackedDrg8MiBV1_1].into_iter().enumerate() {
        let t = Instant::now();
        let (compiled, _) = compiled_circuit(proof, Some(&circuits)).expect("compiled circuit");
        let generator = Generator::Gpu { device: &device, timeout: Some(Duration::from_secs(120)), piece_points: None };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(50 + k as u64);
        local_setup_of(proof, &compiled, generator, &|_, _| {}, &mut rng).expect("local setup on the GPU");
        drop(compiled);
        println!("{proof:?}: circuit and parameters in {:.2?}", t.elapsed());
        let t = Instant::now();
        let (c1, ids) = sealing::seal_sector(proof, 60 + k as u64);
        println!("{proof:?}: sector sealed in {:.2?}", t.elapsed());
        let accepts = |bytes: &[u8]| verify_seal(proof, c1.comm_r, c1.comm_d, ids.prover_id, SectorId::from(ids.sector_id), c1.ticket, c1.seed, bytes).unwrap_or(false);

        for run in 0..2 {
            let t = Instant::now();
            let out = seal_commit_phase2(c1.clone(), ids.prover_id, SectorId::from(ids.sector_id)).expect("seal_commit_phase2");
            let took = t.elapsed();
            let ok = accepts(&out.proof);
            failed |= !ok;
            println!("{proof:?}: filecoin-proofs seal_commit_phase2 with {}, call {run}: {took:.3?}; verify_seal {}", filecoin_prover(), if ok { "accepts" } else { "REFUSES" });
        }

        let t = Instant::now();
        let config = SealProverConfig {
            prover: ProverConfig { backend: Backend::Gpu, devices: vec![0], ..Default::default() },
            circuit_cache: Some(circuits.clone()),
            ..Default::default()
        };
        let prover = SealProver::new(proof, config).expect("cuzk's prover");
        println!("{proof:?}: cuzk prover ready in {:.2?}", t.elapsed());
        let request = SealRequest { c1: C1Output::parse(&serde_json::to_vec(&c1).unwrap(), proof).expect("C1"), ids };
        for run in 0..2 {
            let t = Instant::now();
            let sealed = prover.prove(&request, &mut rng).expect("cuzk's C2");
            let took = t.elapsed();
            let ok = accepts(&sealed.proof);
            failed |= !ok;
            println!("{proof:?}: cuzk C2, call {run}: {took:.3?} (its own verify_seal included); verify_seal {}", if ok { "accepts" } else { "REFUSES" });
        }
    }
    assert!(!failed, "a C2 that verify_seal refuses");
}

/// Which prover filecoin-proofs' C2 runs in this build.
fn filecoin_prover() -> &'static str {
    if cfg!(feature = "supraseal") {
        "SupraSeal"
    } else if std::env::var_os("BELLMAN_NO_GPU").is_some() {
        "bellperson on the CPU"
    } else {
        "bellperson's CUDA prover"
    }
}
