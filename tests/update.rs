//! SnapDeals sector updates of real 2 KiB sectors (filecoin-proofs-api's
//! sealing, its empty-sector-update encoding and vanilla partition proofs,
//! as Curio makes them), proved by `cuzk::update` on the CPU backend.
//!
//! - With parameters from cuzk's own setup, filecoin-proofs'
//!   `verify_empty_sector_update_proof` accepts the proof and each
//!   partition's proof is bellperson's for the same r and s. Minutes on 2
//!   cores (most of it the setup), so that test is marked ignore and runs
//!   on the GPU machine's 16 cores (`scripts/gpu-measure.sh real-sealing`).
//! - Bad requests are typed errors, checked against both that prover and
//!   one with random parameters of the circuit's shape (no setup: seconds,
//!   in CI).
//!
//! Its own binary, for a parameter cache of its own.
#![cfg(feature = "update")]

#[path = "porep/sealing.rs"]
mod sealing;

use std::path::PathBuf;

use blstrs::Scalar;
use cuzk::parameters::generate::Generator;
use cuzk::update::{local_setup, update_compiled_circuit, RegisteredUpdateProof, UpdateError, UpdateProver, UpdateProverConfig, UpdateRequest};
use cuzk::{Backend, ProverConfig, QueryLengths};
use ff::Field;
use filecoin_proofs_api::update::verify_empty_sector_update_proof;
use filecoin_proofs_api::RegisteredSealProof;
use rand::SeedableRng;

const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const UPDATE: RegisteredUpdateProof = RegisteredUpdateProof::StackedDrg2KiBV1;

#[test]
#[ignore = "real sealing and a parameter setup: minutes on 2 cores, so it runs on the GPU machine (scripts/gpu-measure.sh real-sealing)"]
fn a_sector_update_is_accepted_by_filecoin_proofs_and_is_bellpersons_proof() {
    let root = sealing::own_parameter_cache("filecoin-update");
    let circuits = root.join("circuits");
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let t = std::time::Instant::now();
    let setup = local_setup(UPDATE, Some(&circuits), Generator::Cpu, &|_, _| {}, &mut rng).expect("local setup");
    println!("{UPDATE:?}: local setup in {:.2?}: {}", t.elapsed(), setup.params.display());
    let dir = root.join("sector");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let t = std::time::Instant::now();
    let sector = sealing::update_sector_in(SEAL, UPDATE, seed % 1000, &dir);
    println!("sealed and updated in {:.2?}: {} partition proof(s)", t.elapsed(), sector.vanilla_proofs.len());
    let request = UpdateRequest { comm_r_old: sector.comm_r_old, comm_r_new: sector.comm_r_new, comm_d_new: sector.comm_d_new, vanilla_proofs: sector.vanilla_proofs.clone() };

    let config = UpdateProverConfig { prover: ProverConfig { backend: Backend::Cpu, ..Default::default() }, circuit_cache: Some(circuits), ..Default::default() };
    let prover = UpdateProver::new(UPDATE, config).expect("update prover");
    let randomness: Vec<(Scalar, Scalar)> = request.vanilla_proofs.iter().map(|_| (Scalar::random(&mut rng), Scalar::random(&mut rng))).collect();
    let t = std::time::Instant::now();
    let proof = prover.prove_until(&request, randomness.clone(), &Default::default()).expect("update proof");
    println!("{UPDATE:?}: proved in {:.2?} (circuits {:.2?}, checked in {:?})", t.elapsed(), proof.circuits, proof.verify);
    assert_eq!(proof.proof.len(), 192 * request.vanilla_proofs.len());
    assert!(proof.verify.is_some(), "checked before return");
    let accepts = |comm_d_new: [u8; 32]| verify_empty_sector_update_proof(UPDATE, &proof.proof, sector.comm_r_old, sector.comm_r_new, comm_d_new).unwrap_or(false);
    assert!(accepts(sector.comm_d_new), "verify_empty_sector_update_proof accepts it");
    let mut other = sector.comm_d_new;
    other[0] ^= 1;
    assert!(!accepts(other), "and refuses it for other data");

    // bellperson's proofs of the same circuits with the same r and s.
    let params = bellperson::groth16::Parameters::<blstrs::Bls12>::read(std::io::BufReader::new(std::fs::File::open(prover.params_file()).unwrap()), false).unwrap();
    for (k, (circuit, (r, s))) in prover.circuits(&request).unwrap().into_iter().zip(randomness).enumerate() {
        let reference = bellperson::groth16::create_proof(circuit, &params, r, s).unwrap();
        assert!(reference == proof.partition_proofs[k], "partition {k}: bellperson's proof");
    }

    bad_requests_are_typed_errors(&prover, &request, &mut rng);
}

/// Bad requests against a prover with random parameters of the update
/// circuit's shape (no setup, so it runs in CI): each is refused with a
/// typed error before any partition is proved. (Bellperson's proofs of the
/// same circuits, bit for bit, cost about a minute of CI's 2 cores with
/// random parameters; the test above compares them on the GPU machine.)
#[test]
fn bad_update_requests_are_typed_errors_without_a_setup() {
    let dir = tempfile::tempdir().unwrap();
    let circuits = dir.path().join("circuits");
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (compiled, _) = update_compiled_circuit(UPDATE, Some(&circuits)).expect("compiled circuit");
    let params = dir.path().join("random.params");
    cuzk::params_file::write_random_params_file(&params, &QueryLengths::for_shape(&compiled.shape().unwrap()), &mut rng).unwrap();
    let sector_dir = dir.path().join("sector");
    std::fs::create_dir_all(&sector_dir).unwrap();
    let sector = sealing::update_sector_in(SEAL, UPDATE, seed % 1000, &sector_dir);
    let request = UpdateRequest { comm_r_old: sector.comm_r_old, comm_r_new: sector.comm_r_new, comm_d_new: sector.comm_d_new, vanilla_proofs: sector.vanilla_proofs };
    let config = UpdateProverConfig {
        prover: ProverConfig { backend: Backend::Cpu, verify_proofs: Some(false), ..Default::default() },
        params_file: Some(params),
        circuit_cache: Some(circuits),
        verify: false,
    };
    let prover = UpdateProver::new(UPDATE, config).expect("update prover");
    // The good request's circuits build (its vanilla proofs pass the checks).
    assert_eq!(prover.circuits(&request).expect("the good request's circuits").len(), request.vanilla_proofs.len());
    bad_requests_are_typed_errors(&prover, &request, &mut rng);
}

/// Bad requests: typed errors, nothing proved (the request is checked
/// before any partition is).
fn bad_requests_are_typed_errors(prover: &UpdateProver, request: &UpdateRequest, rng: &mut impl rand::RngCore) {
    let mut bad = request.clone();
    bad.vanilla_proofs.push(bad.vanilla_proofs[0].clone());
    assert!(matches!(prover.prove(&bad, rng), Err(UpdateError::InvalidRequest(_))), "one vanilla proof too many");
    let mut bad = request.clone();
    bad.vanilla_proofs[0] = b"not a partition proof".to_vec();
    assert!(matches!(prover.prove(&bad, rng), Err(UpdateError::InvalidVanillaProof { partition: 0, .. })), "garbage");
    let mut bad = request.clone();
    bad.comm_d_new[0] ^= 1;
    let e = prover.prove(&bad, rng).unwrap_err();
    assert!(matches!(e, UpdateError::VanillaRejected { partition: 0, .. } | UpdateError::InvalidRequest(_)), "another comm_d_new: {e}");
    let mut bad = request.clone();
    bad.comm_r_new = [0xff; 32];
    assert!(matches!(prover.prove(&bad, rng), Err(UpdateError::InvalidRequest(_))), "a comm_r_new that is no field element");

    let missing = UpdateProverConfig { params_file: Some(PathBuf::from("/nonexistent/update.params")), prover: ProverConfig { backend: Backend::Cpu, ..Default::default() }, ..Default::default() };
    assert!(matches!(UpdateProver::new(UPDATE, missing), Err(UpdateError::Params { .. })));
}
