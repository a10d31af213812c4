//! Real 2 KiB and 8 MiB sectors' C2 on the GPU with parameters the GPU
//! made (`cuzk::porep::local_setup_of` with `Generator::Gpu`: the
//! `.params` and `.vk` files in filecoin-proofs' parameter cache):
//! filecoin-proofs' `verify_seal` accepts each and refuses it for another
//! sector. Sealing and recording take a minute or two: on the GPU machine
//! only (skips without a GPU). Its own binary, for a parameter cache of
//! its own (filecoin-proofs reads the variable once per process).
#![cfg(all(feature = "porep", feature = "cuda"))]

mod common;
#[path = "porep/sealing.rs"]
mod sealing;

use std::time::{Duration, Instant};

use cuzk::parameters::generate::Generator;
use cuzk::porep::{compiled_circuit, local_setup_of, C1Output, RegisteredSealProof, SealProver, SealProverConfig, SealRequest};
use cuzk::{Backend, ProverConfig};
use rand::SeedableRng;

#[test]
fn real_sectors_proved_on_the_gpu_with_gpu_made_parameters_pass_verify_seal() {
    let Some(device) = common::gpu_or_skip("real_sectors_proved_on_the_gpu_with_gpu_made_parameters_pass_verify_seal") else {
        return;
    };
    let root = sealing::own_parameter_cache("filecoin-gpu-local-setup");
    let circuits = root.join("circuits");
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    for (k, proof) in [RegisteredSealProof::StackedDrg2KiBV1_1, RegisteredSealProof::StackedDrg8MiBV1_1].into_iter().enumerate() {
        let t = Instant::now();
        let (compiled, _) = compiled_circuit(proof, Some(&circuits)).expect("compiled circuit");
        let generator = Generator::Gpu { device: &device, timeout: Some(Duration::from_secs(120)), piece_points: None };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed + k as u64);
        let t_setup = Instant::now();
        let setup = local_setup_of(proof, &compiled, generator, &|_, _| {}, &mut rng).expect("local setup on the GPU");
        println!("{proof:?}: circuit in {:.2?}, parameters on the GPU in {:.2?}", t_setup - t, t_setup.elapsed());
        drop(compiled);

        let (c1, ids) = sealing::seal_sector(proof, 40 + k as u64);
        let request = SealRequest { c1: C1Output::parse(&serde_json::to_vec(&c1).unwrap(), proof).unwrap(), ids };
        let config = SealProverConfig {
            prover: ProverConfig { backend: Backend::Gpu, devices: vec![0], ..Default::default() },
            circuit_cache: Some(circuits.clone()),
            ..Default::default()
        };
        let prover = SealProver::new(proof, config).expect("a GPU prover of the local setup's parameters");
        let t = Instant::now();
        let sealed = prover.prove(&request, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed + 10)).expect("C2");
        println!("{proof:?}: C2 on the GPU in {:.2?}, verify_seal {:?}", t.elapsed(), sealed.verify_seal);
        assert!(sealed.verify_seal.is_some(), "verify_seal ran before return");
        let accepts = |sector: u64| filecoin_proofs_api::seal::verify_seal(proof, c1.comm_r, c1.comm_d, ids.prover_id, sector.into(), c1.ticket, c1.seed, &sealed.proof).unwrap_or(false);
        assert!(accepts(ids.sector_id), "{proof:?}: verify_seal accepts the C2");
        assert!(!accepts(ids.sector_id + 1), "{proof:?}: and refuses it for another sector");
        drop(prover);
        let _ = std::fs::remove_file(&setup.params);
    }
}
