//! Proofs of spacetime of real sealed 2 KiB sectors (filecoin-proofs-api's
//! own sealing and vanilla proofs, as Curio makes them), proved by
//! `cuzk::post` on the CPU backend with parameters from cuzk's own setup:
//! filecoin-proofs' `verify_winning_post` and `verify_window_post` accept
//! them, and they are bellperson's proofs bit for bit for the same r and s.
//! Its own binary, for a parameter cache of its own.
#![cfg(feature = "post")]

#[path = "porep/sealing.rs"]
mod sealing;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use blstrs::Scalar;
use cuzk::parameters::generate::Generator;
use cuzk::post::{local_setup, PostError, PostKind, PostProver, PostProverConfig, PostRequest, RegisteredPoStProof};
use cuzk::{Backend, ProverConfig};
use ff::Field;
use filecoin_proofs_api::post::{generate_fallback_sector_challenges, generate_single_vanilla_proof, generate_winning_post_sector_challenge, verify_window_post, verify_winning_post};
use filecoin_proofs_api::{PrivateReplicaInfo, PublicReplicaInfo, RegisteredSealProof, SectorId};
use rand::{Rng, SeedableRng};

const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;

/// A sealed sector, its files kept.
struct Sector {
    id: SectorId,
    comm_r: [u8; 32],
    cache: PathBuf,
    replica: PathBuf,
}

struct Setup {
    sectors: Vec<Sector>,
    prover_id: [u8; 32],
    winning: PostProver,
    window: PostProver,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let root = sealing::own_parameter_cache("filecoin-post");
        let circuits = root.join("circuits");
        let seed = rand::random::<u64>();
        println!("seed {seed}");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for proof in [WINNING, WINDOW] {
            let t = std::time::Instant::now();
            let setup = local_setup(proof, Some(&circuits), Generator::Cpu, &|_, _| {}, &mut rng).expect("local setup");
            println!("{proof:?}: local setup in {:.2?}: {}", t.elapsed(), setup.params.display());
        }
        // Two sectors (a WindowPoSt partition of 2 KiB sectors holds two).
        // The sealing helper gives each its own miner; a PoSt's prover id
        // is not bound to the replicas, so the first's proves both.
        let mut prover_id = None;
        let sectors: Vec<Sector> = (0..2u64)
            .map(|k| {
                let dir = root.join(format!("sector-{k}"));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                let (c1, ids) = sealing::seal_sector_in(SEAL, 100 + (seed % 1000) * 2 + k, &dir);
                prover_id.get_or_insert(ids.prover_id);
                Sector { id: SectorId::from(ids.sector_id), comm_r: c1.comm_r, cache: dir.join("cache"), replica: dir.join("sealed") }
            })
            .collect();
        let prover_id = prover_id.expect("two sectors sealed");
        let config = || PostProverConfig { prover: ProverConfig { backend: Backend::Cpu, ..Default::default() }, circuit_cache: Some(circuits.clone()), ..Default::default() };
        let winning = PostProver::new(WINNING, config()).expect("WinningPoSt prover");
        let window = PostProver::new(WINDOW, config()).expect("WindowPoSt prover");
        Setup { sectors, prover_id, winning, window }
    })
}

/// filecoin-proofs-api's vanilla proofs of `sectors` for `proof` and `randomness`.
fn vanilla_proofs(proof: RegisteredPoStProof, sectors: &[&Sector], randomness: &[u8; 32], prover_id: [u8; 32]) -> Vec<Vec<u8>> {
    let ids: Vec<SectorId> = sectors.iter().map(|s| s.id).collect();
    let challenges = generate_fallback_sector_challenges(proof, randomness, &ids, prover_id).expect("challenges");
    sectors
        .iter()
        .map(|s| {
            let replica = PrivateReplicaInfo::new(proof, s.comm_r, s.cache.clone(), s.replica.clone());
            generate_single_vanilla_proof(proof, s.id, &replica, &challenges[&s.id]).expect("vanilla proof")
        })
        .collect()
}

fn replicas(proof: RegisteredPoStProof, sectors: &[&Sector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (s.id, PublicReplicaInfo::new(proof, s.comm_r))).collect()
}

/// bellperson's proof of the same circuit with the same r and s, from the
/// same parameter file.
fn bellperson_proof(prover: &PostProver, request: &PostRequest, r: Scalar, s: Scalar) -> Vec<u8> {
    let params = bellperson::groth16::Parameters::<blstrs::Bls12>::read(std::io::BufReader::new(std::fs::File::open(prover.params_file()).unwrap()), false).unwrap();
    let proof = bellperson::groth16::create_proof(prover.circuit(request).unwrap(), &params, r, s).unwrap();
    let mut bytes = Vec::new();
    proof.write(&mut bytes).unwrap();
    bytes
}

#[test]
fn a_winning_post_is_accepted_by_verify_winning_post_and_is_bellpersons_proof() {
    let setup = setup();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
    let mut randomness: [u8; 32] = rng.gen();
    randomness[31] &= 0x3f; // a field element, as the chain's randomness is made one
    // The sector the chain challenges among the miner's (here: one of one).
    let challenged = generate_winning_post_sector_challenge(WINNING, &randomness, 1, setup.prover_id).expect("sector challenge");
    assert_eq!(challenged, vec![0]);
    let sector = &setup.sectors[0];
    let request = PostRequest { randomness, prover_id: setup.prover_id, vanilla_proofs: vanilla_proofs(WINNING, &[sector], &randomness, setup.prover_id), partition_index: 0 };
    assert_eq!(setup.winning.kind(), PostKind::Winning);
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let t = std::time::Instant::now();
    let proof = setup.winning.prove_until(&request, r, s, &Default::default()).expect("WinningPoSt");
    println!("{WINNING:?}: proved in {:.2?} (circuit {:.2?}, synthesis {:.2?}, checked in {:?})", t.elapsed(), proof.circuit, proof.timings.synthesis, proof.verify);
    assert_eq!(proof.proof.len(), 192);
    assert!(proof.verify.is_some(), "checked before return");
    let replicas = replicas(WINNING, &[sector]);
    assert!(verify_winning_post(&randomness, &proof.proof, &replicas, setup.prover_id).unwrap(), "verify_winning_post accepts it");
    let mut other = randomness;
    other[0] ^= 1;
    assert!(!verify_winning_post(&other, &proof.proof, &replicas, setup.prover_id).unwrap_or(false), "and refuses it for other randomness");
    assert_eq!(proof.proof, bellperson_proof(&setup.winning, &request, r, s), "bellperson's proof for the same r and s");
}

#[test]
fn window_post_partitions_are_accepted_by_verify_window_post_and_are_bellpersons_proofs() {
    let setup = setup();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
    let mut randomness: [u8; 32] = rng.gen();
    randomness[31] &= 0x3f;
    let both: Vec<&Sector> = setup.sectors.iter().collect();
    // A full partition (two sectors), and one sector padded as filecoin-proofs pads it.
    for sectors in [&both[..], &both[..1]] {
        let request = PostRequest { randomness, prover_id: setup.prover_id, vanilla_proofs: vanilla_proofs(WINDOW, sectors, &randomness, setup.prover_id), partition_index: 0 };
        let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let t = std::time::Instant::now();
        let proof = setup.window.prove_until(&request, r, s, &Default::default()).expect("WindowPoSt partition");
        println!("{WINDOW:?}, {} sector(s): proved in {:.2?}", sectors.len(), t.elapsed());
        let replicas = replicas(WINDOW, sectors);
        assert!(verify_window_post(&randomness, &[(WINDOW, &proof.proof)], &replicas, setup.prover_id).unwrap(), "verify_window_post accepts it");
        let mut other = randomness;
        other[1] ^= 1;
        assert!(!verify_window_post(&other, &[(WINDOW, &proof.proof)], &replicas, setup.prover_id).unwrap_or(false), "and refuses it for other randomness");
        assert_eq!(proof.proof, bellperson_proof(&setup.window, &request, r, s), "bellperson's proof for the same r and s");
    }
}

#[test]
fn bad_post_requests_are_typed_errors_and_prove_nothing() {
    let setup = setup();
    let randomness = [7u8; 32];
    let good = vanilla_proofs(WINDOW, &[&setup.sectors[0]], &randomness, setup.prover_id);
    let request = |vanilla_proofs: Vec<Vec<u8>>| PostRequest { randomness, prover_id: setup.prover_id, vanilla_proofs, partition_index: 0 };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);

    let e = setup.window.prove(&request(vec![]), &mut rng).unwrap_err();
    assert!(matches!(e, PostError::InvalidRequest(_)), "no vanilla proofs: {e}");
    let e = setup.window.prove(&request(vec![good[0].clone(); 3]), &mut rng).unwrap_err();
    assert!(matches!(e, PostError::InvalidRequest(_)), "three sectors in a partition of two: {e}");
    let e = setup.window.prove(&request(vec![b"not a vanilla proof".to_vec()]), &mut rng).unwrap_err();
    assert!(matches!(e, PostError::InvalidVanillaProof { index: 0, .. }), "garbage: {e}");
    let mut truncated = good[0].clone();
    truncated.truncate(truncated.len() / 2);
    let e = setup.window.prove(&request(vec![good[0].clone(), truncated]), &mut rng).unwrap_err();
    assert!(matches!(e, PostError::InvalidVanillaProof { index: 1, .. }), "a truncated second proof: {e}");
    // The vanilla proof of other randomness opens other leaves.
    let mut other = request(good.clone());
    other.randomness = [9u8; 32];
    let e = setup.window.prove(&other, &mut rng).unwrap_err();
    assert!(matches!(e, PostError::VanillaRejected(_)), "another challenge's vanilla proof: {e}");
    let mut not_field = request(good.clone());
    not_field.randomness = [0xff; 32];
    let e = setup.window.prove(&not_field, &mut rng).unwrap_err();
    assert!(matches!(e, PostError::InvalidRequest(_)), "randomness that is no field element: {e}");
    // A window partition's vanilla proofs are not a WinningPoSt's.
    let e = setup.winning.prove(&request(good.clone()), &mut rng).unwrap_err();
    assert!(matches!(e, PostError::VanillaRejected(_)), "a WindowPoSt vanilla proof to the WinningPoSt prover, refused before proving: {e}");
    let mut partition_1 = request(vanilla_proofs(WINNING, &[&setup.sectors[0]], &randomness, setup.prover_id));
    partition_1.partition_index = 1;
    let e = setup.winning.prove(&partition_1, &mut rng).unwrap_err();
    assert!(matches!(e, PostError::InvalidRequest(_)), "a WinningPoSt has no partition 1: {e}");
    // And the prover still proves.
    assert!(setup.window.prove(&request(good), &mut rng).is_ok());
}

#[test]
fn a_missing_parameter_file_or_verifying_key_is_a_typed_error() {
    let setup = setup();
    let cpu = || ProverConfig { backend: Backend::Cpu, ..Default::default() };
    let config = PostProverConfig { params_file: Some(PathBuf::from("/nonexistent/cuzk-post.params")), prover: cpu(), ..Default::default() };
    let e = PostProver::new(WINDOW, config).err().expect("no parameter file");
    assert!(matches!(e, PostError::Params { .. }), "{e}");
    // The parameter file without its .vk beside it: refused when proofs
    // are checked, accepted when they are not.
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("window.params");
    std::fs::copy(setup.window.params_file(), &params).unwrap();
    let config = PostProverConfig { params_file: Some(params.clone()), prover: cpu(), ..Default::default() };
    let e = PostProver::new(WINDOW, config).err().expect("no verifying key");
    assert!(matches!(e, PostError::VerifyingKey { .. }), "{e}");
    let config = PostProverConfig { params_file: Some(params), prover: cpu(), verify: false, circuit_cache: Some(dir.path().to_path_buf()) };
    assert!(PostProver::new(WINDOW, config).is_ok());
}
