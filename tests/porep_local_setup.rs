//! A real 2 KiB sector's C2 with parameters from cuzk's own setup
//! (`cuzk::porep::local_setup`: the compiled circuit, cuzk's generator,
//! the `.params` and `.vk` files in filecoin-proofs' parameter cache), on
//! the CPU backend: filecoin-proofs' `verify_seal` accepts it. Three
//! minutes on 2 cores (the setup 135 s, the C2 38 s), so it is marked
//! ignore and runs on the GPU machine's 16 cores
//! (`scripts/gpu-measure.sh real-sealing`). Its own binary, for a
//! parameter cache of its own (filecoin-proofs reads the variable once per
//! process).
#![cfg(feature = "porep")]

#[path = "porep/sealing.rs"]
mod sealing;


use bellperson::groth16;
use cuzk::porep::{local_setup, C1Output, RegisteredSealProof, SealProver, SealProverConfig, SealRequest};
use cuzk::{Backend, ProverConfig};
use rand::SeedableRng;

const KIB2: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;

#[test]
#[ignore = "real sealing and a parameter setup: minutes on 2 cores, so it runs on the GPU machine (scripts/gpu-measure.sh real-sealing)"]
fn a_real_sector_proved_with_a_local_setup_is_accepted_by_verify_seal() {
    let root = sealing::own_parameter_cache("filecoin-local-setup");
    let circuits = root.join("circuits");

    let seed = rand::random::<u64>();
    println!("seed {seed}");
    let t = std::time::Instant::now();
    let setup = local_setup(KIB2, Some(&circuits), &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed)).expect("local setup");
    println!("{KIB2:?}: local setup in {:.2?}: {}", t.elapsed(), setup.params.display());
    // The .vk file is the parameter file's verifying key.
    let vk = groth16::VerifyingKey::<blstrs::Bls12>::read(std::fs::File::open(&setup.verifying_key).unwrap()).unwrap();
    let file = cuzk::ParamsFile::open(&setup.params).unwrap();
    assert!(&vk == file.verifying_key(), "the .vk file and the parameter file agree");

    let (c1, ids) = sealing::seal_sector(KIB2, 23);
    let request = SealRequest { c1: C1Output::parse(&serde_json::to_vec(&c1).unwrap(), KIB2).unwrap(), ids };
    let config = SealProverConfig { prover: ProverConfig { backend: Backend::Cpu, ..Default::default() }, circuit_cache: Some(circuits), ..Default::default() };
    let prover = SealProver::new(KIB2, config).expect("a prover of the local setup's parameters");
    let t = std::time::Instant::now();
    let sealed = prover.prove(&request, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed + 1)).expect("C2");
    println!("{KIB2:?}: C2 on the CPU in {:.2?}, verify_seal {:?}", t.elapsed(), sealed.verify_seal);
    assert!(sealed.verify_seal.is_some(), "verify_seal ran before return");
    let accepts = |sector: u64| filecoin_proofs_api::seal::verify_seal(KIB2, c1.comm_r, c1.comm_d, ids.prover_id, sector.into(), c1.ticket, c1.seed, &sealed.proof).unwrap_or(false);
    assert!(accepts(ids.sector_id), "verify_seal accepts the C2");
    assert!(!accepts(ids.sector_id + 1), "and refuses it for another sector");
}
