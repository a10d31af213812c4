//! PoRep C2 (feature `porep`): C1 outputs in every form users hold them,
//! synthetic C1 outputs of every sector size, the C2 pipeline and its
//! errors. The tests marked `ignore` run a real parameter setup (minutes
//! on many cores) and belong on the GPU machine:
//! `cargo test --release --features cuda,porep --test porep -- --ignored`.

#[path = "porep/sealing.rs"]
mod sealing;

use bellperson::groth16;
use blstrs::Scalar;
use cuzk::porep::{
    check_replica_id, compiled_circuit, sector_circuits, sector_circuits_with, synthetic::synthetic_c1, C1Form, C1Output, PorepCircuit, PorepError, RegisteredSealProof, SealProver,
    SealProverConfig, SealRequest, SectorIds,
};
use cuzk::porep::witness::{first_difference, NativeWitness};
use cuzk::{Backend, ProverConfig, ProverError, QueryLengths};
use filecoin_proofs::{SectorShape2KiB, VanillaSealProof};
use filecoin_proofs_api::seal::{SealCommitPhase1Output as ApiC1, VanillaSealProof as ApiProofs};
use rand::SeedableRng;

const KIB2: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const MIB8: RegisteredSealProof = RegisteredSealProof::StackedDrg8MiBV1_1;

/// Every partition of `c1`: its native witness (inputs and aux) is the one
/// witness-only synthesis of storage-proofs' circuit makes, value by value.
fn assert_native_witness_is_synthesis(c1: &ApiC1) {
    let config = c1.registered_proof.as_v1_config();
    let general = sector_circuits_with(c1, &config, NativeWitness::Off).expect("circuits").circuits;
    let native = sector_circuits_with(c1, &config, NativeWitness::Auto).expect("circuits").circuits;
    for (k, (g, n)) in general.into_iter().zip(native).enumerate() {
        let (gi, ga) = cuzk::synthesize_witness(g).expect("witness-only synthesis");
        let (ni, na) = cuzk::synthesize_witness(n).expect("native witness");
        assert_eq!(first_difference((&ni, &na), (&gi, &ga)), None, "{:?}, partition {k}", c1.registered_proof);
    }
}

/// Every partition circuit of `c1` is satisfied, and its public inputs are
/// the ones storage-proofs computes for a verifier.
fn assert_satisfied(c1: &ApiC1) {
    let circuits = sector_circuits(c1, &c1.registered_proof.as_v1_config()).expect("circuits");
    for (k, (circuit, inputs)) in circuits.circuits.into_iter().zip(&circuits.public_inputs).enumerate() {
        let asg = cuzk::synthesize(circuit).expect("synthesis");
        assert_eq!(asg.first_unsatisfied(), None, "partition {k}: unsatisfied");
        assert_eq!(&asg.input[1..], &inputs[..], "partition {k}: public inputs");
    }
}

#[test]
fn synthetic_c1_outputs_of_small_sectors_satisfy_the_real_circuit() {
    for (proof, seed) in [(KIB2, 1), (KIB2, 2), (MIB8, 3)] {
        let c1 = synthetic_c1(proof, seed).expect("synthetic C1");
        assert_eq!(c1.registered_proof(), proof);
        assert_satisfied(&c1.phase1);
        // Through Curio's wrapper and back.
        let again = C1Output::parse(&c1.to_curio_wrapper(seed), proof).expect("parse");
        assert_eq!((again.form, again.sector_num), (C1Form::CurioWrapper, Some(seed)));
        assert_eq!(again.to_api_json(), c1.to_api_json());
    }
    // A 2 KiB sector has 64 nodes: its challenges' parents overlap, and a
    // challenged node is often another's parent. The vanilla verifier
    // (inside the generator) accepts every seed.
    for seed in 100..160 {
        synthetic_c1(KIB2, seed).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
    // The seed is the randomness: two seeds, two sectors; one seed, one.
    let (a, b) = (synthetic_c1(KIB2, 1).unwrap(), synthetic_c1(KIB2, 2).unwrap());
    assert_ne!(a.phase1.comm_r, b.phase1.comm_r);
    assert_eq!(a.to_api_json(), synthetic_c1(KIB2, 1).unwrap().to_api_json());
}

/// The generator's own check is storage-proofs' vanilla verifier, the one
/// filecoin-proofs' commit phase 1 runs: full-size shapes pass it (their
/// circuits are checked on the GPU machine, by the GPU's a·b = c check).
#[test]
fn synthetic_c1_outputs_of_large_sectors_pass_the_vanilla_verifier() {
    for proof in [RegisteredSealProof::StackedDrg512MiBV1_1, RegisteredSealProof::StackedDrg32GiBV1_1, RegisteredSealProof::StackedDrg64GiBV1_1] {
        let c1 = synthetic_c1(proof, 5).expect("synthetic C1");
        let config = proof.as_v1_config();
        let circuits = sector_circuits(&c1.phase1, &config).expect("circuits");
        assert_eq!(circuits.circuits.len(), usize::from(config.partitions));
    }
}

#[test]
fn synthetic_porep_and_non_interactive_proofs_are_refused_with_why() {
    for proof in [RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep, RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep] {
        assert!(matches!(synthetic_c1(proof, 1), Err(PorepError::UnsupportedProof { .. })), "{proof:?}");
    }
}

fn proofs_form(c1: &ApiC1) -> filecoin_proofs::SealCommitPhase1Output<SectorShape2KiB> {
    let vanilla_proofs: Vec<Vec<VanillaSealProof<SectorShape2KiB>>> = c1.vanilla_proofs.clone().try_into().expect("2 KiB proofs");
    filecoin_proofs::SealCommitPhase1Output { vanilla_proofs, comm_r: c1.comm_r, comm_d: c1.comm_d, replica_id: c1.replica_id, seed: c1.seed, ticket: c1.ticket }
}

#[test]
fn a_real_c1_output_reads_in_every_form_and_its_circuit_is_satisfied() {
    let (c1, ids) = sealing::seal_sector(KIB2, 11);
    let api_json = serde_json::to_vec(&c1).unwrap();
    let wrapped = C1Output { phase1: c1.clone(), sector_num: None, form: C1Form::ApiJson }.to_curio_wrapper(ids.sector_id);
    let proofs = proofs_form(&c1);
    let forms = [
        (wrapped.clone(), C1Form::CurioWrapper),
        (api_json.clone(), C1Form::ApiJson),
        (serde_json::to_vec(&proofs).unwrap(), C1Form::ProofsJson),
        (bincode::serialize(&proofs).unwrap(), C1Form::ProofsBincode),
    ];
    for (bytes, form) in &forms {
        let parsed = C1Output::parse(bytes, KIB2).unwrap_or_else(|e| panic!("{form:?}: {e}"));
        assert_eq!(parsed.form, *form);
        assert_eq!(serde_json::to_vec(&parsed.phase1).unwrap(), api_json, "{form:?}");
        assert_eq!(C1Output::registered_proof_of(bytes), matches!(form, C1Form::CurioWrapper | C1Form::ApiJson).then_some(KIB2));
    }
    assert_eq!(C1Output::parse(&wrapped, KIB2).unwrap().sector_num, Some(ids.sector_id));
    assert_satisfied(&c1);
    assert_native_witness_is_synthesis(&c1);
    let config = KIB2.as_v1_config();
    check_replica_id(&c1, &config, &ids).expect("the sealing ids");
    let other = SectorIds { sector_id: ids.sector_id + 1, ..ids };
    assert!(matches!(check_replica_id(&c1, &config, &other), Err(PorepError::ReplicaIdMismatch { .. })));
}

#[test]
fn bad_c1_inputs_are_typed_errors() {
    let c1 = synthetic_c1(KIB2, 4).unwrap();
    let json = c1.to_api_json();
    let format = |r: Result<C1Output, PorepError>| matches!(r, Err(PorepError::C1Format { .. }));
    assert!(format(C1Output::parse(&json[..json.len() / 2], KIB2)), "truncated JSON");
    assert!(format(C1Output::parse(b"not a C1 output at all", KIB2)), "garbage");
    assert!(format(C1Output::parse(b"", KIB2)), "empty");
    assert!(format(C1Output::parse(br#"{"SectorNum": 1, "Phase1Out": "!!!", "SectorSize": 2048}"#, KIB2)), "bad base64");
    // Another sector size than the prover's.
    assert!(matches!(C1Output::parse(&json, MIB8), Err(PorepError::WrongProof { .. })));
    let wrapped = String::from_utf8(c1.to_curio_wrapper(9)).unwrap().replace("\"SectorSize\":2048", "\"SectorSize\":8388608");
    assert!(matches!(C1Output::parse(wrapped.as_bytes(), KIB2), Err(PorepError::InvalidC1(_))), "wrapper of the wrong size");
    let bincode_2k = bincode::serialize(&proofs_form(&c1.phase1)).unwrap();
    let gib32 = RegisteredSealProof::StackedDrg32GiBV1_1;
    let as_32gib = C1Output::parse(&bincode_2k, gib32).and_then(|c| sector_circuits(&c.phase1, &gib32.as_v1_config()));
    assert!(matches!(as_32gib, Err(PorepError::InvalidC1(_)) | Err(PorepError::C1Format { .. })), "2 KiB bincode read as 32 GiB");
    // A 2 KiB proof labelled 8 MiB: the same tree type, other path lengths.
    let mut relabelled = c1.phase1.clone();
    relabelled.registered_proof = MIB8;
    let ApiProofs::StackedDrg2KiBV1(p) = relabelled.vanilla_proofs else { unreachable!() };
    relabelled.vanilla_proofs = ApiProofs::StackedDrg8MiBV1(p);
    assert!(matches!(sector_circuits(&relabelled, &MIB8.as_v1_config()), Err(PorepError::InvalidC1(_))), "2 KiB proofs as 8 MiB ones");
    // Zero commitments, a missing partition.
    let mut zero = c1.phase1.clone();
    zero.comm_d = [0; 32];
    assert!(matches!(sector_circuits(&zero, &KIB2.as_v1_config()), Err(PorepError::InvalidC1(_))));
    let mut none = c1.phase1.clone();
    none.vanilla_proofs = ApiProofs::StackedDrg2KiBV1(vec![]);
    assert!(matches!(sector_circuits(&none, &KIB2.as_v1_config()), Err(PorepError::InvalidC1(_))));
}

/// A C1 output whose first challenge opens another node's column: parsed,
/// its circuit built, but unsatisfied.
fn tampered(c1: &C1Output) -> C1Output {
    let mut bad = c1.clone();
    let ApiProofs::StackedDrg2KiBV1(proofs) = &mut bad.phase1.vanilla_proofs else { panic!("2 KiB proofs") };
    let columns = &mut proofs[0][0].replica_column_proofs;
    columns.c_x = columns.drg_parents[0].clone();
    bad
}

#[test]
fn a_bad_sector_in_a_stream_costs_only_its_own_proof() {
    let dir = tempfile::tempdir().unwrap();
    let (compiled, origin) = compiled_circuit(KIB2, Some(dir.path())).expect("recorded");
    // Random parameters of the circuit's shape: timings only, so verify_seal and the check are off.
    let params = dir.path().join("random.params");
    cuzk::params_file::write_random_params_file(&params, &QueryLengths::for_shape(&compiled.shape().unwrap()), &mut rand::thread_rng()).unwrap();
    let config = SealProverConfig {
        prover: ProverConfig { backend: Backend::Cpu, verify_proofs: Some(false), ..Default::default() },
        params_file: Some(params),
        verify_seal: false,
        circuit_cache: Some(dir.path().into()),
        ..Default::default()
    };
    assert!(cuzk::porep::witness::recognizes(&compiled.digest()).is_some(), "the native witness knows the 2 KiB circuit");
    let prover = SealProver::with_circuit(KIB2, compiled.clone(), origin.clone(), config.clone()).expect("prover");
    assert_eq!(prover.native_witness(), NativeWitness::Auto, "natively");
    let general = SealProver::with_circuit(KIB2, compiled, origin, SealProverConfig { native_witness: NativeWitness::Off, ..config.clone() }).expect("prover");
    assert_eq!(general.native_witness(), NativeWitness::Off);
    let ids = SectorIds { prover_id: [1; 32], sector_id: 1 };
    let good = synthetic_c1(KIB2, 6).unwrap();
    let requests = [SealRequest { c1: tampered(&good), ids }, SealRequest { c1: good.clone(), ids }];
    let results = prover.prove_sectors(&requests, &mut rand_chacha::ChaCha8Rng::seed_from_u64(9), |_, _, _| {});
    assert!(matches!(&results[0], Err(PorepError::Partition { partition: 0, source: ProverError::Unsatisfied { .. } })), "{:?}", results[0].as_ref().err());
    let sealed = results[1].as_ref().expect("the good sector");
    assert_eq!((sealed.proof.len(), sealed.partitions.len()), (192, 1));
    // The same r, s by witness-only synthesis: the same error, the same proof.
    let by_synthesis = general.prove_sectors(&requests, &mut rand_chacha::ChaCha8Rng::seed_from_u64(9), |_, _, _| {});
    assert!(matches!(&by_synthesis[0], Err(PorepError::Partition { partition: 0, source: ProverError::Unsatisfied { .. } })));
    assert_eq!(by_synthesis[1].as_ref().expect("the good sector").proof, sealed.proof);
    assert!(sealed.partitions[0].synthesis > std::time::Duration::ZERO);
    // A stop flag set before the call: no partition is proved, every
    // sector's result says it was cancelled.
    let stop = std::sync::atomic::AtomicBool::new(true);
    let stopped = prover.prove_sectors_until(&requests[1..], &mut rand_chacha::ChaCha8Rng::seed_from_u64(9), &stop, |_, _, _| {});
    assert!(matches!(&stopped[0], Err(PorepError::Partition { partition: 0, source: ProverError::Cancelled })), "{:?}", stopped[0].as_ref().err());
    // The cache file is loaded, not recorded again.
    let again = SealProver::new(KIB2, config).expect("prover from the cache");
    assert!(matches!(again.circuit_origin(), cuzk::porep::CircuitOrigin::Loaded(_)), "{:?}", again.circuit_origin());
}

#[test]
fn a_parameter_file_of_another_circuit_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let (compiled, origin) = compiled_circuit(KIB2, Some(dir.path())).expect("recorded");
    let params = dir.path().join("small.params");
    let lengths = QueryLengths { ic: 3, h: 7, l: 5, a: 6, b_g1: 4, b_g2: 4 };
    cuzk::params_file::write_random_params_file(&params, &lengths, &mut rand::thread_rng()).unwrap();
    let config = SealProverConfig { prover: ProverConfig { backend: Backend::Cpu, ..Default::default() }, params_file: Some(params), ..Default::default() };
    match SealProver::with_circuit(KIB2, compiled, origin, config) {
        Err(PorepError::Prover(ProverError::ParamsMismatch { what, .. })) => assert_eq!(what, "public inputs (vk.ic)"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a prover with parameters of another circuit"),
    }
}

#[test]
fn a_missing_parameter_file_is_a_typed_error() {
    let config = SealProverConfig {
        prover: ProverConfig { backend: Backend::Cpu, ..Default::default() },
        params_file: Some("/nonexistent/v28-none.params".into()),
        circuit_cache: Some(tempfile::tempdir().unwrap().path().into()),
        ..Default::default()
    };
    match SealProver::new(KIB2, config) {
        Err(PorepError::Params { path, .. }) => assert_eq!(path, std::path::Path::new("/nonexistent/v28-none.params")),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a prover without parameters"),
    }
}

/// A real setup into filecoin-proofs' parameter cache (as its paramcache
/// tool makes one), then: filecoin-proofs' sealing API, cuzk's C2 on every
/// backend there is (GPU and CPU agree byte for byte), each partition's
/// proof equal to bellperson's for the same r, s, and `verify_seal`
/// accepting the C2.
fn real_c2(proof: RegisteredSealProof) {
    let cache = sealing::filecoin_caches();
    let setup = std::time::Instant::now();
    let params = cuzk::porep::default_params_file(proof).unwrap();
    if !params.exists() {
        generate_parameters(proof);
    }
    println!("{proof:?}: parameters in {} ({:.1?})", cache.display(), setup.elapsed());
    let (c1, ids) = sealing::seal_sector(proof, 21);
    assert_native_witness_is_synthesis(&c1);
    let request = SealRequest { c1: C1Output::parse(&serde_json::to_vec(&c1).unwrap(), proof).unwrap(), ids };
    let mut bytes = Vec::new();
    let backends: &[Backend] = if cfg!(feature = "cuda") { &[Backend::Gpu, Backend::Cpu] } else { &[Backend::Cpu] };
    for &backend in backends {
        let config = SealProverConfig { prover: ProverConfig { backend, ..Default::default() }, ..Default::default() };
        let prover = match SealProver::new(proof, config) {
            Ok(p) => p,
            Err(PorepError::Prover(ProverError::NoGpu(why))) => {
                println!("SKIPPED the GPU backend: no GPU ({why})");
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let t = std::time::Instant::now();
        let sealed = prover.prove(&request, &mut rand_chacha::ChaCha8Rng::seed_from_u64(5)).expect("C2");
        println!("{proof:?} on {backend:?}: C2 in {:.2?}, verify_seal {:?}", t.elapsed(), sealed.verify_seal);
        assert!(sealed.verify_seal.is_some(), "verify_seal ran");
        let ok = filecoin_proofs_api::seal::verify_seal(proof, c1.comm_r, c1.comm_d, ids.prover_id, ids.sector_id.into(), c1.ticket, c1.seed, &sealed.proof).unwrap();
        assert!(ok, "verify_seal accepts cuzk's C2");
        // A C2 of another sector's ids is not accepted.
        assert!(!filecoin_proofs_api::seal::verify_seal(proof, c1.comm_r, c1.comm_d, ids.prover_id, (ids.sector_id + 1).into(), c1.ticket, c1.seed, &sealed.proof).unwrap_or(false));
        if bytes.is_empty() {
            // Bit-identical to bellperson for the same r, s (drawn in partition order).
            let host = groth16::Parameters::<blstrs::Bls12>::read(std::io::BufReader::new(std::fs::File::open(prover.params_file()).unwrap()), false).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            let circuits = prover.circuits(&request.c1).unwrap();
            for (k, circuit) in circuits.circuits.into_iter().enumerate() {
                let (r, s): (Scalar, Scalar) = cuzk::random_r_s(&mut rng);
                let theirs = groth16::create_proof::<blstrs::Bls12, PorepCircuit, _>(circuit, &host, r, s).unwrap();
                assert!(theirs == sealed.partition_proofs[k], "partition {k}: bellperson's proof differs");
            }
            bytes = sealed.proof.clone();
        } else {
            assert_eq!(bytes, sealed.proof, "the backends' C2 bytes differ");
        }
    }
    // A synthetic C1 of the same shape proves with the real parameters and
    // each partition verifies (verify_seal cannot: its replica id is random).
    let prover = SealProver::new(proof, SealProverConfig { verify_seal: false, ..Default::default() }).expect("prover");
    let synthetic = synthetic_c1(proof, 31).unwrap();
    let sealed = prover.prove(&SealRequest { c1: synthetic.clone(), ids }, &mut rand::thread_rng()).expect("synthetic C2");
    let pvk = groth16::prepare_verifying_key(prover.prover().verifying_key());
    for (k, (p, inputs)) in sealed.partition_proofs.iter().zip(&prover.circuits(&synthetic).unwrap().public_inputs).enumerate() {
        assert!(groth16::verify_proof(&pvk, p, inputs).unwrap(), "synthetic partition {k} verifies");
    }
    println!("{proof:?}: a synthetic C1 proved on {:?} and verified", prover.prover().backend());
    // The anchor: filecoin-proofs' own C2 (bellperson on the CPU) of the same C1.
    let t = std::time::Instant::now();
    let theirs = filecoin_proofs_api::seal::seal_commit_phase2(c1.clone(), ids.prover_id, ids.sector_id.into()).expect("filecoin-proofs' C2");
    println!("{proof:?}: filecoin-proofs' seal_commit_phase2 in {:.2?} ({} bytes)", t.elapsed(), theirs.proof.len());
    assert_eq!(theirs.proof.len(), bytes.len());
}

/// filecoin-proofs' paramcache: a random setup written into the cache.
fn generate_parameters(proof: RegisteredSealProof) {
    use storage_proofs_core::compound_proof::CompoundProof;
    use storage_proofs_porep::stacked::StackedCompound;
    type Compound = StackedCompound<SectorShape2KiB, filecoin_hashers::sha256::Sha256Hasher>;
    let pp = filecoin_proofs::parameters::public_params::<SectorShape2KiB>(&proof.as_v1_config()).unwrap();
    let mut rng = rand::rngs::OsRng;
    <Compound as CompoundProof<_, _>>::groth_params(Some(&mut rng), &pp).expect("parameters");
    <Compound as CompoundProof<_, _>>::verifying_key(Some(&mut rng), &pp).expect("verifying key");
}

#[test]
#[ignore = "a real parameter setup: minutes on many cores (the GPU machine)"]
fn c2_of_a_real_2kib_sector_is_accepted_by_verify_seal() {
    real_c2(KIB2);
}

#[test]
#[ignore = "a real parameter setup: minutes on many cores (the GPU machine)"]
fn c2_of_a_real_8mib_sector_is_accepted_by_verify_seal() {
    real_c2(MIB8);
}
