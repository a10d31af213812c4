//! The protocol over loopback TCP and a unix socket, with a real client
//! generated from the same proto, on requests that need no parameter
//! setup: status, metrics, the priority queue, await with a timeout,
//! cancel of queued jobs, preload/evict refusals, every kind of bad
//! request (each FAILED with a message, the daemon serving on), shutdown
//! with pending awaits, and 50 requests from 10 concurrent clients.

mod common;

use std::time::{Duration, Instant};

use common::{connect, parse_prometheus, sample, Client};
use cuzk::porep::synthetic::synthetic_c1;
use cuzk::porep::RegisteredSealProof;
use cuzk_daemon::proto::await_proof_response::Status as AwaitStatus;
use cuzk_daemon::proto::{self as pb, Priority, ProofKind};
use cuzk_daemon::{Daemon, ListenAddr};

const KIB2: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
/// Go's abi.RegisteredSealProof number of KIB2.
const KIB2_ABI: u64 = 5;

/// Curio's wrapper of a synthetic 2 KiB C1 output for sector 1: parses,
/// but its prover needs parameters these tests do not have.
fn synthetic_wrapper(seed: u64) -> Vec<u8> {
    synthetic_c1(KIB2, seed).expect("synthetic C1").to_curio_wrapper(1)
}

fn porep(request_id: &str, vanilla_proof: Vec<u8>, priority: Priority) -> pb::SubmitProofRequest {
    pb::SubmitProofRequest {
        request_id: request_id.into(),
        proof_kind: ProofKind::PorepSealCommit as i32,
        sector_size: 2048,
        registered_proof: KIB2_ABI,
        priority: priority as i32,
        vanilla_proof,
        sector_number: 1,
        miner_id: 1000,
        ..Default::default()
    }
}

async fn start(dir: &std::path::Path) -> (Daemon, Client) {
    let daemon = Daemon::start(&common::config(dir, true)).await.expect("daemon");
    let client = connect(&daemon).await;
    (daemon, client)
}

async fn prove(client: &mut Client, submit: pb::SubmitProofRequest) -> pb::AwaitProofResponse {
    client.prove(pb::ProveRequest { submit: Some(submit) }).await.expect("Prove answers").into_inner().result.expect("a result")
}

async fn await_job(client: &mut Client, job_id: &str, timeout_ms: u64) -> pb::AwaitProofResponse {
    client.await_proof(pb::AwaitProofRequest { job_id: job_id.into(), timeout_ms }).await.expect("AwaitProof answers").into_inner()
}

fn status_of(r: &pb::AwaitProofResponse) -> AwaitStatus {
    AwaitStatus::try_from(r.status).expect("a defined status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_reports_the_cpu_backend_queues_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.gpus.len(), 1);
    assert!(status.gpus[0].name.contains("cpu backend"), "{}", status.gpus[0].name);
    let kinds: Vec<&str> = status.queues.iter().map(|q| q.proof_kind.as_str()).collect();
    assert_eq!(kinds, ["porep-c2", "snap-update", "window-post", "winning-post"]);
    assert!(status.queues.iter().all(|q| q.pending == 0 && q.in_progress == 0));
    assert!(status.loaded_srs.is_empty());
    assert!(status.pinned_memory_bytes > 0, "resident memory");
    assert!(status.pinned_memory_limit_bytes > 0, "the memory budget");
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_prometheus_text() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    let failed = prove(&mut client, pb::SubmitProofRequest { proof_kind: ProofKind::WinningPost as i32, ..Default::default() }).await;
    assert_eq!(status_of(&failed), AwaitStatus::Failed);
    let text = client.get_metrics(pb::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    let samples = parse_prometheus(&text);
    assert_eq!(sample(&samples, "cuzk_proofs_failed_total{proof_kind=\"winning_post\"}"), 1.0);
    assert_eq!(sample(&samples, "cuzk_proofs_completed_total{proof_kind=\"porep_c2\"}"), 0.0);
    assert_eq!(sample(&samples, "cuzk_queue_depth{priority=\"critical\"}"), 0.0);
    assert!(sample(&samples, "cuzk_resident_memory_bytes") > 0.0);
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_and_unknown_kinds_fail_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    let post = |kind: ProofKind, registered_proof: u64, randomness: usize| pb::SubmitProofRequest {
        proof_kind: kind as i32,
        registered_proof,
        randomness: vec![0; randomness],
        vanilla_proofs: vec![vec![1, 2, 3]],
        ..Default::default()
    };
    for (request, says) in [
        (post(ProofKind::WinningPost, 0, 32), "cannot tell the registered proof"),
        (post(ProofKind::WindowPostPartition, 13, 31), "randomness must be 32 bytes"),
        (post(ProofKind::WindowPostPartition, 3, 32), "not a WindowPoSt proof"),
        (pb::SubmitProofRequest { proof_kind: ProofKind::WindowPostPartition as i32, registered_proof: 13, ..Default::default() }, "vanilla_proofs is empty"),
        (post(ProofKind::SnapDealsUpdate, 0, 0), "cannot tell the registered proof"),
        (pb::SubmitProofRequest { proof_kind: ProofKind::SnapDealsUpdate as i32, registered_proof: 3, vanilla_proofs: vec![vec![1]], comm_r_old: vec![0; 31], ..Default::default() }, "comm_r_old must be 32 bytes"),
        (post(ProofKind::Unspecified, 0, 0), "unknown proof kind 0"),
        (pb::SubmitProofRequest { proof_kind: 42, ..Default::default() }, "unknown proof kind 42"),
    ] {
        let kind = request.proof_kind;
        let answer = prove(&mut client, request.clone()).await;
        assert_eq!(status_of(&answer), AwaitStatus::Failed, "kind {kind}");
        assert!(answer.error_message.contains(says), "kind {kind}: {}", answer.error_message);
        // The same through SubmitProof and AwaitProof, twice: final states stay.
        let job = client.submit_proof(request).await.unwrap().into_inner().job_id;
        for _ in 0..2 {
            let answer = await_job(&mut client, &job, 0).await;
            assert_eq!((status_of(&answer), answer.job_id.as_str()), (AwaitStatus::Failed, job.as_str()));
        }
    }
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.total_proofs_failed, 16);
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_porep_requests_fail_and_the_daemon_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    let wrapper = synthetic_wrapper(7);
    let api_json = synthetic_c1(KIB2, 7).unwrap().to_api_json();
    let mut wrong_size = porep("", wrapper.clone(), Priority::Normal);
    wrong_size.sector_size = 32 << 30;
    let mut wrong_proof = porep("", wrapper.clone(), Priority::Normal);
    wrong_proof.registered_proof = 8;
    let mut unknown_proof = porep("", api_json.clone(), Priority::Normal);
    unknown_proof.registered_proof = 1000;
    let mut other_sector = porep("", wrapper.clone(), Priority::Normal);
    other_sector.sector_number = 8;
    let mut truncated = wrapper.clone();
    truncated.truncate(wrapper.len() / 2);
    let cases = [
        ("empty vanilla_proof", porep("", Vec::new(), Priority::Normal), "vanilla_proof is empty"),
        ("garbage", porep("", b"\x00\x01garbage bytes".to_vec(), Priority::Normal), "not a C1 output"),
        ("garbage JSON", porep("", b"{\"hello\": 1}".to_vec(), Priority::Normal), "not a C1 output"),
        ("truncated wrapper", porep("", truncated, Priority::Normal), "not a C1 output"),
        ("wrong sector size", wrong_size, "wrong sector size"),
        ("another registered proof", wrong_proof, "registered_proof 8"),
        ("unknown registered proof", unknown_proof, "registered_proof 1000 is not"),
        ("another sector number", other_sector, "SectorNum is 1"),
        // A C1 output that parses, but no parameter file in the cache.
        ("missing parameter file", porep("", wrapper, Priority::Normal), "parameter file"),
    ];
    for (what, request, says) in cases {
        let answer = prove(&mut client, request).await;
        assert_eq!(status_of(&answer), AwaitStatus::Failed, "{what}: {answer:?}");
        assert!(answer.error_message.contains(says), "{what}: {}", answer.error_message);
        assert!(answer.proof.is_empty());
    }
    // Still serving, and every failure counted.
    let text = client.get_metrics(pb::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    assert_eq!(sample(&parse_prometheus(&text), "cuzk_proofs_failed_total{proof_kind=\"porep_c2\"}"), 9.0);
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert!(status.loaded_srs.is_empty(), "a prover that failed to load is not kept");
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn await_times_out_with_the_current_state_and_queued_jobs_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    daemon.engine().pause();
    let submitted = client.submit_proof(porep("sector-1", synthetic_wrapper(1), Priority::Normal)).await.unwrap().into_inner();
    assert_eq!((submitted.job_id.as_str(), submitted.queue_position), ("sector-1", 0));

    let start = Instant::now();
    let answer = await_job(&mut client, "sector-1", 300).await;
    let waited = start.elapsed();
    assert_eq!(status_of(&answer), AwaitStatus::Timeout, "{answer:?}");
    assert!(answer.error_message.contains("still queued"), "{}", answer.error_message);
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(5), "{waited:?}");

    // The same request id again: the same job (idempotent).
    let again = client.submit_proof(porep("sector-1", synthetic_wrapper(1), Priority::Normal)).await.unwrap().into_inner();
    assert_eq!(again.job_id, "sector-1");
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!((status.queues[0].pending, status.queues[0].in_progress), (1, 0));

    // An await without a limit, answered by the cancel.
    let mut waiter = client.clone();
    let pending = tokio::spawn(async move { await_job(&mut waiter, "sector-1", 0).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel = client.cancel_proof(pb::CancelProofRequest { job_id: "sector-1".into() }).await.unwrap().into_inner();
    assert!(!cancel.was_running);
    let answer = tokio::time::timeout(Duration::from_secs(5), pending).await.expect("answered at once").unwrap();
    assert_eq!(status_of(&answer), AwaitStatus::Cancelled);
    assert!(answer.error_message.contains("CancelProof"), "{}", answer.error_message);
    for _ in 0..2 {
        assert_eq!(status_of(&await_job(&mut client, "sector-1", 10).await), AwaitStatus::Cancelled);
    }
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.queues[0].pending, 0);

    // A cancelled id submitted again is a new job.
    let renewed = client.submit_proof(porep("sector-1", synthetic_wrapper(1), Priority::Normal)).await.unwrap().into_inner();
    assert_eq!(status_of(&await_job(&mut client, &renewed.job_id, 50).await), AwaitStatus::Timeout);

    let unknown = client.await_proof(pb::AwaitProofRequest { job_id: "no-such-job".into(), timeout_ms: 10 }).await.unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    let unknown = client.cancel_proof(pb::CancelProofRequest { job_id: "no-such-job".into() }).await.unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_runs_higher_priorities_first() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    daemon.engine().pause();
    let wrapper = synthetic_wrapper(1);
    let position = |id: &'static str, priority| {
        let mut client = client.clone();
        let request = porep(id, wrapper.clone(), priority);
        async move { client.submit_proof(request).await.unwrap().into_inner().queue_position }
    };
    assert_eq!(position("low", Priority::Low).await, 0);
    assert_eq!(position("normal", Priority::Normal).await, 0, "ahead of low");
    assert_eq!(position("critical", Priority::Critical).await, 0, "ahead of all");
    assert_eq!(position("normal-2", Priority::Normal).await, 2, "behind critical and the first normal");
    assert_eq!(position("unspecified", Priority::Unspecified).await, 3, "unspecified is normal for a PoRep");
    let text = client.get_metrics(pb::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    let samples = parse_prometheus(&text);
    assert_eq!(sample(&samples, "cuzk_queue_depth{priority=\"normal\"}"), 3.0);
    assert_eq!(sample(&samples, "cuzk_queue_depth{priority=\"low\"}"), 1.0);
    // Shutdown cancels every queued job.
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preload_and_evict_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    let unknown = client.preload_srs(pb::PreloadSrsRequest { circuit_id: "wpost-3g".into() }).await.unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    // No parameter file: refused at once, before any circuit is recorded
    // (a 32 GiB one takes minutes).
    for id in ["porep-2k", "wpost-32g", "winning-32g", "snap-32g", "porep-32g"] {
        let t = std::time::Instant::now();
        let missing = client.preload_srs(pb::PreloadSrsRequest { circuit_id: id.into() }).await.unwrap_err();
        assert_eq!(missing.code(), tonic::Code::FailedPrecondition, "{id}");
        assert!(missing.message().contains("parameter file"), "{id}: {}", missing.message());
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "{id}: refused in {:.2?}", t.elapsed());
    }
    let evicted = client.evict_srs(pb::EvictSrsRequest { circuit_id: "porep-32g".into() }).await.unwrap().into_inner();
    assert!(!evicted.was_loaded);
    let unknown = client.evict_srs(pb::EvictSrsRequest { circuit_id: "porep-3g".into() }).await.unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_socket_serves_and_is_removed_at_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("cuzk.sock");
    let mut config = common::config(dir.path(), true);
    config.daemon.listen = format!("unix://{}", socket.display());
    // A stale socket file from a daemon that died is replaced.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let daemon = Daemon::start(&config).await.expect("daemon on a unix socket");
    assert_eq!(daemon.address(), &ListenAddr::Unix(socket.clone()));
    let mut client = connect(&daemon).await;
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.queues.len(), 4);
    let answer = prove(&mut client, porep("", Vec::new(), Priority::Normal)).await;
    assert_eq!(status_of(&answer), AwaitStatus::Failed);
    drop(client);
    daemon.shutdown().await.unwrap();
    assert!(!socket.exists(), "the socket file is removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_answers_pending_awaits_and_refuses_new_work() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut client) = start(dir.path()).await;
    daemon.engine().pause();
    let job = client.submit_proof(porep("", synthetic_wrapper(2), Priority::Normal)).await.unwrap().into_inner().job_id;
    let mut waiter = client.clone();
    let pending = tokio::spawn(async move { waiter.prove(pb::ProveRequest { submit: Some(porep("", synthetic_wrapper(3), Priority::High)) }).await });
    let mut waiter = client.clone();
    let awaited = tokio::spawn(async move { await_job(&mut waiter, &job, 0).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let engine = daemon.engine().clone();
    tokio::time::timeout(Duration::from_secs(20), daemon.shutdown()).await.expect("shutdown does not hang").unwrap();
    let answer = awaited.await.unwrap();
    assert_eq!(status_of(&answer), AwaitStatus::Cancelled);
    assert!(answer.error_message.contains("shutting down"), "{}", answer.error_message);
    let proved = pending.await.unwrap().expect("Prove answered").into_inner().result.unwrap();
    assert_eq!(status_of(&proved), AwaitStatus::Cancelled);
    let refused = engine.submit(cuzk_daemon::JobRequest { request_id: String::new(), kind: cuzk_daemon::proof_kind::ProofKind::WinningPost, priority: 0, porep: Default::default(), post: Default::default(), update: Default::default() }).await;
    assert!(matches!(refused, Err(cuzk_daemon::EngineError::ShuttingDown)));
}

/// 50 requests from 10 concurrent clients (each its own connection), every
/// one answered. Cheap requests (unsupported kinds, bad C1 outputs, status):
/// real 2 KiB C2s take seconds each on the CPU and are in tests/real_c2.rs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_requests_from_ten_clients_are_all_answered() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, _) = start(dir.path()).await;
    let start = Instant::now();
    let mut clients = Vec::new();
    for c in 0..10u64 {
        let mut client = connect(&daemon).await;
        clients.push(tokio::spawn(async move {
            let mut failed = 0;
            for r in 0..5u64 {
                match r {
                    0 => {
                        client.get_status(pb::GetStatusRequest {}).await.expect("status");
                    }
                    1 | 2 => {
                        let answer = prove(&mut client, porep(&format!("bad-{c}-{r}"), format!("not a C1 {c} {r}").into_bytes(), Priority::Normal)).await;
                        assert_eq!(status_of(&answer), AwaitStatus::Failed);
                        failed += 1;
                    }
                    _ => {
                        let request = pb::SubmitProofRequest { request_id: format!("post-{c}-{r}"), proof_kind: ProofKind::WindowPostPartition as i32, ..Default::default() };
                        let job = client.submit_proof(request).await.unwrap().into_inner().job_id;
                        assert_eq!(job, format!("post-{c}-{r}"));
                        assert_eq!(status_of(&await_job(&mut client, &job, 1000).await), AwaitStatus::Failed);
                        failed += 1;
                    }
                }
            }
            failed
        }));
    }
    let mut failed = 0;
    for client in clients {
        failed += client.await.expect("client finished");
    }
    println!("50 requests from 10 clients in {:.2?}", start.elapsed());
    let mut client = connect(&daemon).await;
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!((failed, status.total_proofs_failed), (40, 40));
    daemon.shutdown().await.unwrap();
}
