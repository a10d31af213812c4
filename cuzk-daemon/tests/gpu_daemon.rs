//! On a GPU: the daemon against the library on the same full-size work,
//! and a WinningPoSt's latency while a 32 GiB C2 is being proved, with and
//! without the urgent lane. The real 32 GiB PoRep circuit is recorded and
//! its parameters made on the GPU (a verifying key of their own: every
//! partition is checked against it before return); the sectors are
//! synthetic C1 outputs (random replica ids, so `verify_seal` is off and
//! the replica-id check with it); the WinningPoSt is of a real sealed
//! 2 KiB sector, checked with filecoin-proofs' `verify_winning_post`.
//!
//! Minutes, 47 GB of parameters and 7 GB of circuit on disk
//! (`CUZK_BENCH_DIR`, default the target's temporary directory): on the
//! GPU machine only; skips without a GPU. Its own binary, for a parameter
//! cache of its own.
#![cfg(feature = "cuda")]

mod common;
#[path = "../../tests/porep/sealing.rs"]
mod sealing;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::post::{curio_request, prover_id, randomness, replicas, vanilla_proofs, Sector};
use common::{connect, Client};
use cuzk::parameters::generate::Generator;
use cuzk::porep::synthetic::synthetic_c1;
use cuzk::porep::{compiled_circuit, local_setup_of, prover_id_from_miner, C1Output, RegisteredSealProof, SealProver, SealProverConfig, SealRequest, SectorIds};
use cuzk::post::RegisteredPoStProof;
use cuzk::{Backend, ProverConfig};
use cuzk_daemon::config::BackendChoice;
use cuzk_daemon::proto::await_proof_response::Status as AwaitStatus;
use cuzk_daemon::proto::{self as pb, Priority, ProofKind};
use cuzk_daemon::{Config, Daemon};
use filecoin_proofs_api::post::verify_winning_post;
use filecoin_proofs_api::SectorId;
use rand::SeedableRng;

const C2: RegisteredSealProof = RegisteredSealProof::StackedDrg32GiBV1_1;
/// Go's `abi.RegisteredSealProof` number of C2.
const C2_ABI: u64 = 8;
const SEAL_2K: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINNING_ABI: u64 = 0;
const MINER: u64 = 1000;
/// Sectors proved by the library and by the daemon (one batch each).
const SECTORS: u64 = 3;

fn status_of(r: &pb::AwaitProofResponse) -> AwaitStatus {
    AwaitStatus::try_from(r.status).expect("a defined status")
}

fn c2_request(id: &str, wrapper: &[u8], sector: u64) -> pb::SubmitProofRequest {
    pb::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: ProofKind::PorepSealCommit as i32,
        sector_size: 32 << 30,
        registered_proof: C2_ABI,
        priority: Priority::Normal as i32,
        vanilla_proof: wrapper.to_vec(),
        sector_number: sector,
        miner_id: MINER,
        ..Default::default()
    }
}

fn daemon_config(root: &std::path::Path, urgent_lane: bool) -> Config {
    let mut config = common::config(root, false);
    config.prover.backend = BackendChoice::Gpu;
    config.gpus.devices = vec![0];
    config.srs.param_cache = Some(root.join("parameters"));
    // Synthetic sectors: their replica ids are random.
    config.prover.verify_seal = false;
    config.scheduler.max_batch_size = SECTORS as usize;
    config.scheduler.urgent_lane = urgent_lane;
    config
}

/// Waits until `job` is being proved.
async fn until_running(client: &mut Client, job: &str) {
    loop {
        let state = client.await_proof(pb::AwaitProofRequest { job_id: job.into(), timeout_ms: 20 }).await.unwrap().into_inner();
        assert_eq!(status_of(&state), AwaitStatus::Timeout, "{}", state.error_message);
        if state.error_message.starts_with("still running") {
            return;
        }
    }
}

/// A WinningPoSt submitted while a C2 runs: its latency from submission,
/// and whether the C2 was still running when it was answered.
async fn winning_during_a_c2(client: &mut Client, wrapper: &[u8], sector: &Sector, label: &str) -> (pb::AwaitProofResponse, Duration, bool) {
    let c2 = client.submit_proof(c2_request(&format!("c2-{label}"), wrapper, 1)).await.unwrap().into_inner().job_id;
    until_running(client, &c2).await;
    // Its first partitions on the GPU.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let randomness = randomness();
    let request = curio_request(&format!("winning-{label}"), ProofKind::WinningPost, WINNING_ABI, randomness, vanilla_proofs(WINNING, &[sector], &randomness, MINER), MINER);
    let t = Instant::now();
    let winning = client.prove(pb::ProveRequest { submit: Some(request) }).await.unwrap().into_inner().result.unwrap();
    let latency = t.elapsed();
    assert_eq!(status_of(&winning), AwaitStatus::Completed, "{}", winning.error_message);
    assert!(verify_winning_post(&randomness, &winning.proof, &replicas(WINNING, &[sector]), prover_id(MINER)).unwrap(), "verify_winning_post accepts it");
    let state = client.await_proof(pb::AwaitProofRequest { job_id: c2.clone(), timeout_ms: 1 }).await.unwrap().into_inner();
    let overtook = state.error_message.starts_with("still running");
    let c2 = client.await_proof(pb::AwaitProofRequest { job_id: c2, timeout_ms: 0 }).await.unwrap().into_inner();
    assert_eq!(status_of(&c2), AwaitStatus::Completed, "{}", c2.error_message);
    (winning, latency, overtook)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_daemon_against_the_library_and_a_winning_post_during_a_32_gib_c2() {
    let device = match cuzk::gpu::discover(&[0]) {
        Ok(mut gpus) => gpus.pop().expect("one GPU"),
        Err(cuzk::ProverError::NoGpu(why)) => {
            println!("SKIPPED the_daemon_against_the_library_and_a_winning_post_during_a_32_gib_c2: no GPU ({why})");
            return;
        }
        Err(e) => panic!("GPU present but unusable: {e}"),
    };
    let root = match std::env::var_os("CUZK_BENCH_DIR") {
        Some(dir) => {
            let root = PathBuf::from(dir);
            std::fs::create_dir_all(root.join("parameters")).unwrap();
            std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", root.join("parameters"));
            root
        }
        None => sealing::own_parameter_cache("cuzk-daemon-gpu"),
    };
    let circuits = root.join("circuits");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
    let gpu = || Generator::Gpu { device: &device, timeout: Some(Duration::from_secs(300)), piece_points: None };

    // The 32 GiB circuit and its parameters; the WinningPoSt's; a sealed
    // 2 KiB sector to prove it of.
    let t = Instant::now();
    let (compiled, origin) = compiled_circuit(C2, Some(&circuits)).expect("the 32 GiB circuit");
    println!("{C2:?}: circuit {origin:?} in {:.2?}", t.elapsed());
    let t = Instant::now();
    local_setup_of(C2, &compiled, gpu(), &|_, _| {}, &mut rng).expect("32 GiB parameters on the GPU");
    println!("{C2:?}: parameters on the GPU in {:.2?}", t.elapsed());
    drop(compiled);
    cuzk::post::local_setup(WINNING, Some(&circuits), gpu(), &|_, _| {}, &mut rng).expect("WinningPoSt parameters");
    let dir = root.join("sector-41");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (c1, ids) = sealing::seal_sector_in(SEAL_2K, 41, &dir);
    let sector = Sector { id: SectorId::from(ids.sector_id), comm_r: c1.comm_r, dir };
    let wrappers: Vec<Vec<u8>> = (1..=SECTORS).map(|seed| synthetic_c1(C2, seed).expect("synthetic C1").to_curio_wrapper(seed)).collect();

    // The library: the C1 outputs parsed and proved in one pipelined call.
    let config = SealProverConfig {
        prover: ProverConfig { backend: Backend::Gpu, devices: vec![0], ..Default::default() },
        circuit_cache: Some(circuits.clone()),
        verify_seal: false,
        ..Default::default()
    };
    let t = Instant::now();
    let prover = SealProver::new(C2, config).expect("the library's prover");
    println!("library: prover ready in {:.2?}", t.elapsed());
    // From the bytes, as the daemon gets them: parsing is part of the work.
    let t = Instant::now();
    let requests: Vec<SealRequest> = wrappers
        .iter()
        .zip(1..)
        .map(|(w, sector)| SealRequest { c1: C1Output::parse(w, C2).expect("C1"), ids: SectorIds { prover_id: prover_id_from_miner(MINER), sector_id: sector } })
        .collect();
    let parsed = t.elapsed();
    let sealed = prover.prove_sectors(&requests, &mut rng, |_, _, _| {});
    let library = t.elapsed();
    for s in &sealed {
        assert!(s.as_ref().is_ok_and(|s| s.proof.len() == 1920), "{:?}", s.as_ref().err());
    }
    let partitions: Vec<_> = sealed.iter().flatten().flat_map(|s| s.partitions.iter()).collect();
    let mean = |f: &dyn Fn(&cuzk::PhaseTimings) -> Duration| partitions.iter().map(|t| f(t)).sum::<Duration>() / partitions.len() as u32;
    println!(
        "library: per partition (mean of {}): a·b·c {:.1?}, pre-stage {:.1?}, H step {:.1?}, MSMs {:.1?}, compute {:.3?}",
        partitions.len(),
        mean(&|t| t.abc),
        mean(&|t| t.prestage),
        mean(&|t| t.ntt),
        mean(&|t| t.msm),
        mean(&|t| t.device_compute())
    );
    println!("library: {SECTORS} sectors in {library:.2?} (parsed in {parsed:.2?}, proved in {:.2?}), {:.2?} per sector", library - parsed, library / SECTORS as u32);
    drop(sealed);
    drop(prover);

    // The daemon: the same wrappers over gRPC, one batch, from the first
    // submission to the last answer.
    let daemon = Daemon::start(&daemon_config(&root, true)).await.expect("daemon");
    let mut client = connect(&daemon).await;
    let t = Instant::now();
    client.preload_srs(pb::PreloadSrsRequest { circuit_id: "porep-32g".into() }).await.unwrap();
    client.preload_srs(pb::PreloadSrsRequest { circuit_id: "winning-2k".into() }).await.unwrap();
    println!("daemon: provers ready in {:.2?}", t.elapsed());
    // Submitted at once from one client each (each C1 output parsed by
    // the daemon as it arrives), held until all are queued so that they
    // make one batch as the library's call did.
    daemon.engine().pause();
    let t = Instant::now();
    let submits = wrappers.iter().zip(1..).map(|(wrapper, sector)| {
        let (mut client, request) = (client.clone(), c2_request(&format!("sector-{sector}"), wrapper, sector));
        tokio::spawn(async move { client.submit_proof(request).await.unwrap().into_inner().job_id })
    });
    let mut jobs = Vec::new();
    for submit in submits.collect::<Vec<_>>() {
        jobs.push(submit.await.unwrap());
    }
    let submitted = t.elapsed();
    daemon.engine().resume();
    for job in &jobs {
        let answer = client.await_proof(pb::AwaitProofRequest { job_id: job.clone(), timeout_ms: 0 }).await.unwrap().into_inner();
        assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
        assert_eq!(answer.proof.len(), 1920);
    }
    let served = t.elapsed();
    println!(
        "daemon: {SECTORS} sectors in {served:.2?} (all submitted and parsed in {submitted:.2?}, proved in {:.2?}), {:.2?} per sector; daemon / library = {:.4}",
        served - submitted,
        served / SECTORS as u32,
        served.as_secs_f64() / library.as_secs_f64()
    );

    // A WinningPoSt while a C2 runs, on the urgent lane.
    let (winning, latency, overtook) = winning_during_a_c2(&mut client, &wrappers[0], &sector, "lane").await;
    println!("urgent lane: WinningPoSt answered in {latency:.2?} ({} ms in the queue), the C2 still running: {overtook}", winning.queue_wait_ms);
    assert!(overtook, "the WinningPoSt did not wait for the C2");
    daemon.shutdown().await.unwrap();

    // The same on one prover thread: it waits for the C2.
    let daemon = Daemon::start(&daemon_config(&root, false)).await.expect("daemon");
    let mut client = connect(&daemon).await;
    client.preload_srs(pb::PreloadSrsRequest { circuit_id: "porep-32g".into() }).await.unwrap();
    client.preload_srs(pb::PreloadSrsRequest { circuit_id: "winning-2k".into() }).await.unwrap();
    let (winning, latency, overtook) = winning_during_a_c2(&mut client, &wrappers[0], &sector, "one-thread").await;
    println!("one prover thread: WinningPoSt answered in {latency:.2?} ({} ms in the queue), the C2 still running: {overtook}", winning.queue_wait_ms);
    assert!(!overtook, "on one thread the WinningPoSt waits for the C2");
    daemon.shutdown().await.unwrap();
}
