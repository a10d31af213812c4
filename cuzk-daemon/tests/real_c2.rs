//! Real 2 KiB sectors, sealed by filecoin-proofs-api, proved through the
//! daemon over gRPC on the CPU backend, with parameters from cuzk's own
//! local setup: filecoin-proofs' `verify_seal` accepts the proof bytes.
//! Also preload/evict of a real prover, and the cancel of a running proof.
//! Its own binary: filecoin-proofs reads its parameter cache variable once
//! per process, and the setup (about 2 minutes on 2 cores; the library
//! test's is reused when it is there) is made once for all its tests.
//! Every test here is marked ignore: the setup and the 2 KiB C2s take
//! minutes on CI's 2 cores, so they run on the GPU machine's 16
//! (`scripts/gpu-measure.sh real-sealing`). The 8 MiB C2 goes over a unix
//! socket.

mod common;
#[path = "../../tests/porep/sealing.rs"]
mod sealing;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{connect, Client};
use cuzk::porep::{local_setup, default_params_file, C1Output, RegisteredSealProof, SectorIds};
use cuzk_daemon::proto::await_proof_response::Status as AwaitStatus;
use cuzk_daemon::proto::{self as pb, Priority, ProofKind};
use cuzk_daemon::Daemon;
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use rand::SeedableRng;

const KIB2: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;

struct Setup {
    root: PathBuf,
    sectors: Vec<(SealCommitPhase1Output, SectorIds)>,
}

/// The parameters (made once; an earlier run's are reused, a file and its
/// verifying key being made together) and two sealed sectors.
fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let root = sealing::test_tmpdir().join("cuzk-daemon-c2");
        let params_dir = root.join("parameters");
        std::fs::create_dir_all(&params_dir).unwrap();
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &params_dir);
        assert_eq!(sealing::filecoin_caches(), params_dir, "the parameter cache is this test's own");
        let params = default_params_file(KIB2).unwrap();
        if !(params.exists() && params.with_extension("vk").exists()) {
            common::reuse_library_setup("filecoin-local-setup", &params, &root.join("circuits"));
        }
        if !(params.exists() && params.with_extension("vk").exists()) {
            let t = Instant::now();
            local_setup(KIB2, Some(&root.join("circuits")), &mut rand_chacha::ChaCha8Rng::seed_from_u64(rand::random())).expect("local setup");
            println!("{KIB2:?}: local setup in {:.2?}", t.elapsed());
        }
        let t = Instant::now();
        let sectors = (31..33).map(|seed| sealing::seal_sector(KIB2, seed)).collect();
        println!("two 2 KiB sectors sealed in {:.2?}", t.elapsed());
        Setup { root, sectors }
    })
}

async fn start_daemon(listen: Option<String>) -> (Daemon, Client) {
    let setup = setup();
    let mut config = common::config(&setup.root, false);
    if let Some(listen) = listen {
        config.daemon.listen = listen;
    }
    let daemon = Daemon::start(&config).await.expect("daemon");
    let client = connect(&daemon).await;
    (daemon, client)
}

/// Curio's request for a sector: its wrapper, its sector size, Go's number
/// of its registered proof (5: 2 KiB V1_1), its miner and sector numbers.
fn curio_request(request_id: &str, c1: &SealCommitPhase1Output, ids: &SectorIds, curio_wrapper: bool) -> pb::SubmitProofRequest {
    curio_request_of(KIB2, request_id, c1, ids, curio_wrapper)
}

/// [`curio_request`] of another registered proof.
fn curio_request_of(proof: RegisteredSealProof, request_id: &str, c1: &SealCommitPhase1Output, ids: &SectorIds, curio_wrapper: bool) -> pb::SubmitProofRequest {
    let json = serde_json::to_vec(c1).unwrap();
    let vanilla_proof = if curio_wrapper { C1Output::parse(&json, proof).unwrap().to_curio_wrapper(ids.sector_id) } else { json };
    let abi = (0..20).find(|&n| cuzk_daemon::registered::seal_proof_from_abi(n) == Some(proof)).expect("a Go ABI number");
    pb::SubmitProofRequest {
        request_id: request_id.into(),
        proof_kind: ProofKind::PorepSealCommit as i32,
        sector_size: u64::from(proof.sector_size()),
        registered_proof: abi,
        priority: Priority::Normal as i32,
        vanilla_proof,
        sector_number: ids.sector_id,
        miner_id: ids.sector_id + 1000,
        ..Default::default()
    }
}

fn verify(c1: &SealCommitPhase1Output, ids: &SectorIds, proof: &[u8]) -> bool {
    filecoin_proofs_api::seal::verify_seal(KIB2, c1.comm_r, c1.comm_d, ids.prover_id, ids.sector_id.into(), c1.ticket, c1.seed, proof).unwrap_or(false)
}

fn status_of(r: &pb::AwaitProofResponse) -> AwaitStatus {
    AwaitStatus::try_from(r.status).expect("a defined status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "real sealing and a parameter setup: minutes on 2 cores, so it runs on the GPU machine (scripts/gpu-measure.sh real-sealing)"]
async fn c2_over_tcp_is_accepted_by_verify_seal() {
    let setup = setup();
    let (c1, ids) = &setup.sectors[0];

    let (daemon, mut client) = start_daemon(None).await;
    let t = Instant::now();
    let answer = client.prove(pb::ProveRequest { submit: Some(curio_request("tcp", c1, ids, true)) }).await.unwrap().into_inner().result.unwrap();
    println!("C2 over TCP in {:.2?}: {} ms total, {} ms prover load, {} ms synthesis, {} ms proving", t.elapsed(), answer.total_ms, answer.srs_load_ms, answer.synthesis_ms, answer.gpu_compute_ms);
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
    assert!(verify(c1, ids, &answer.proof), "verify_seal accepts the daemon's proof");
    assert!(answer.total_ms > 0);
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.total_proofs_completed, 1);
    assert_eq!(status.loaded_srs.iter().map(|s| s.circuit_id.as_str()).collect::<Vec<_>>(), ["porep-2k"]);
    let text = client.get_metrics(pb::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    let samples = common::parse_prometheus(&text);
    assert_eq!(common::sample(&samples, "cuzk_proofs_completed_total{proof_kind=\"porep_c2\"}"), 1.0);
    assert_eq!(common::sample(&samples, "cuzk_proof_duration_seconds_count{proof_kind=\"porep_c2\"}"), 1.0);
    daemon.shutdown().await.unwrap();

    // filecoin-proofs-api's own JSON form, through SubmitProof and
    // AwaitProof; a proof for another miner's id is refused before
    // proving. (A real proof over a unix socket: real_post_and_snap.rs,
    // whose proofs take a second, not half a minute, on 2 cores.)
    let (daemon, mut client) = start_daemon(None).await;
    let mut other_miner = curio_request("other-miner", c1, ids, false);
    other_miner.miner_id += 1;
    let job = client.submit_proof(other_miner).await.unwrap().into_inner().job_id;
    let answer = client.await_proof(pb::AwaitProofRequest { job_id: job, timeout_ms: 0 }).await.unwrap().into_inner();
    assert_eq!(status_of(&answer), AwaitStatus::Failed);
    assert!(answer.error_message.contains("replica id"), "{}", answer.error_message);
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "real sealing and a parameter setup: minutes on 2 cores, so it runs on the GPU machine (scripts/gpu-measure.sh real-sealing)"]
async fn preload_evict_and_the_cancel_of_a_running_proof() {
    let setup = setup();
    let (c1, ids) = &setup.sectors[1];
    let (daemon, mut client) = start_daemon(None).await;
    let preload = |client: &mut Client| {
        let mut client = client.clone();
        async move { client.preload_srs(pb::PreloadSrsRequest { circuit_id: "porep-2k".into() }).await.unwrap().into_inner() }
    };
    let first = preload(&mut client).await;
    assert!(!first.already_loaded);
    println!("PreloadSRS porep-2k in {} ms", first.load_time_ms);
    assert!(preload(&mut client).await.already_loaded);
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.loaded_srs.len(), 1);
    assert!(status.loaded_srs[0].size_bytes > 0);

    // Cancel while running: answered at once, the proof's result discarded.
    let mut cancelled_running = false;
    for attempt in 0..3 {
        let job = client.submit_proof(curio_request(&format!("cancel-{attempt}"), c1, ids, true)).await.unwrap().into_inner().job_id;
        let deadline = Instant::now() + Duration::from_secs(30);
        while client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner().queues[0].in_progress == 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let evict = client.evict_srs(pb::EvictSrsRequest { circuit_id: "porep-2k".into() }).await;
        let cancel = client.cancel_proof(pb::CancelProofRequest { job_id: job.clone() }).await.unwrap().into_inner();
        let t = Instant::now();
        let answer = client.await_proof(pb::AwaitProofRequest { job_id: job, timeout_ms: 0 }).await.unwrap().into_inner();
        if !cancel.was_running {
            // The proof finished between the poll and the cancel: again.
            assert_eq!(status_of(&answer), AwaitStatus::Completed);
            continue;
        }
        assert_eq!(evict.unwrap_err().code(), tonic::Code::FailedPrecondition, "no eviction while a proof runs");
        assert_eq!(status_of(&answer), AwaitStatus::Cancelled);
        assert!(t.elapsed() < Duration::from_secs(1), "answered at once");
        cancelled_running = true;
        break;
    }
    assert!(cancelled_running, "a running proof was cancelled");
    // The cancelled proof stops after the partitions it had started (a
    // 2 KiB sector has one) finish in the background; then eviction works.
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner().queues[0].in_progress > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let evicted = client.evict_srs(pb::EvictSrsRequest { circuit_id: "porep-2k".into() }).await.unwrap().into_inner();
    assert!(evicted.was_loaded && evicted.freed_bytes > 0);
    assert!(client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner().loaded_srs.is_empty());
    // Loaded again after the eviction (a proof after an eviction:
    // real_post_and_snap.rs).
    assert!(!preload(&mut client).await.already_loaded);
    daemon.shutdown().await.unwrap();
}

/// A real 8 MiB sector's C2 over gRPC on a unix socket (the 2 KiB C2s
/// above go over TCP), accepted by `verify_seal`. Minutes
/// on 2 cores (cuzk's setup of the 8 MiB circuit, an 8 MiB sealing, ten
/// partitions on the CPU): run by hand or on the GPU machine
/// (`cargo test -p cuzk-daemon --test real_c2 -- --ignored`). Its own
/// parameter cache would be needed for a separate run; it shares this
/// binary's (filecoin-proofs reads the variable once per process).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes: cuzk's setup of the 8 MiB circuit and an 8 MiB sealing"]
async fn an_8_mib_c2_over_a_unix_socket_is_accepted_by_verify_seal() {
    const MIB8: RegisteredSealProof = RegisteredSealProof::StackedDrg8MiBV1_1;
    let setup = setup();
    let params = default_params_file(MIB8).unwrap();
    if !(params.exists() && params.with_extension("vk").exists()) {
        let t = Instant::now();
        local_setup(MIB8, Some(&setup.root.join("circuits")), &mut rand_chacha::ChaCha8Rng::seed_from_u64(rand::random())).expect("local setup");
        println!("{MIB8:?}: local setup in {:.2?}", t.elapsed());
    }
    let t = Instant::now();
    let (c1, ids) = sealing::seal_sector(MIB8, 88);
    println!("an 8 MiB sector sealed in {:.2?}", t.elapsed());
    let socket = setup.root.join(format!("cuzk-8m-{}.sock", std::process::id()));
    let (daemon, mut client) = start_daemon(Some(format!("unix://{}", socket.display()))).await;
    let t = Instant::now();
    let answer = client.prove(pb::ProveRequest { submit: Some(curio_request_of(MIB8, "mib8", &c1, &ids, true)) }).await.unwrap().into_inner().result.unwrap();
    println!("8 MiB C2 over gRPC (unix socket) in {:.2?}: {} ms total, {} ms prover load, {} ms proving", t.elapsed(), answer.total_ms, answer.srs_load_ms, answer.gpu_compute_ms);
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
    let accepted = filecoin_proofs_api::seal::verify_seal(MIB8, c1.comm_r, c1.comm_d, ids.prover_id, ids.sector_id.into(), c1.ticket, c1.seed, &answer.proof).unwrap();
    assert!(accepted, "verify_seal accepts the daemon's 8 MiB proof");
    daemon.shutdown().await.unwrap();
}
