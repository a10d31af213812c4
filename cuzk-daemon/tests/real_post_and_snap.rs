//! WinningPoSt and WindowPoSt partitions of real sealed 2 KiB sectors, and
//! a SnapDeals update of one (filecoin-proofs-api's sealing, encoding and
//! vanilla proofs, as Curio sends them in `vanilla_proofs`), proved through
//! the daemon over gRPC on the CPU backend with parameters from cuzk's own
//! setup: filecoin-proofs' `verify_winning_post`, `verify_window_post` and
//! `verify_empty_sector_update_proof` accept the proof bytes. Its own
//! binary, for a parameter cache of its own. CI runs the first test (about
//! a minute on 2 cores); the fifty PoSts and the update (its setup alone
//! takes minutes there) are marked ignore and run on the GPU machine's 16
//! cores (`scripts/gpu-measure.sh real-sealing`).

mod common;
#[path = "../../tests/porep/sealing.rs"]
mod sealing;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use common::post::{curio_request, prover_id, randomness, replicas, vanilla_proofs, Sector};
use common::{connect, Client};
use cuzk::parameters::generate::Generator;
use cuzk::post::{local_setup, RegisteredPoStProof};
use cuzk::update::RegisteredUpdateProof;
use cuzk_daemon::proto::await_proof_response::Status as AwaitStatus;
use cuzk_daemon::proto::{self as pb, ProofKind};
use cuzk_daemon::Daemon;
use filecoin_proofs_api::post::{verify_window_post, verify_winning_post};
use filecoin_proofs_api::{RegisteredSealProof, SectorId};
use rand::SeedableRng;

const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
/// Go's `abi.RegisteredPoStProof` numbers of the two.
const WINNING_ABI: u64 = 0;
const WINDOW_ABI: u64 = 10;
const UPDATE: RegisteredUpdateProof = RegisteredUpdateProof::StackedDrg2KiBV1;
/// Go's `abi.RegisteredUpdateProof` number of UPDATE.
const UPDATE_ABI: u64 = 0;

struct Setup {
    root: PathBuf,
    sectors: Vec<Sector>,
    miner: u64,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let root = sealing::own_parameter_cache("cuzk-daemon-post");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
        for proof in [WINNING, WINDOW] {
            let t = Instant::now();
            local_setup(proof, Some(&root.join("circuits")), Generator::Cpu, &|_, _| {}, &mut rng).expect("local setup");
            println!("{proof:?}: local setup in {:.2?}", t.elapsed());
        }
        let sectors = (41..43u64)
            .map(|seed| {
                let dir = root.join(format!("sector-{seed}"));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                let (c1, ids) = sealing::seal_sector_in(SEAL, seed, &dir);
                Sector { id: SectorId::from(ids.sector_id), comm_r: c1.comm_r, dir }
            })
            .collect();
        // The sealing helper's miner of seed 41; a PoSt's prover id is not
        // bound to the replicas, so it proves both sectors.
        Setup { root, sectors, miner: 1041 }
    })
}

/// The SnapDeals part of the setup, made only where a test asks for it:
/// the update's parameters (over a minute on 2 cores; the library's
/// tests/update.rs ones are reused when they are there) and an updated
/// sector.
fn snap_setup() -> &'static sealing::UpdatedSector {
    static SNAP: OnceLock<sealing::UpdatedSector> = OnceLock::new();
    SNAP.get_or_init(|| {
        let root = &setup().root;
        let update_params = cuzk::update::update_params_file(UPDATE).unwrap();
        if !common::reuse_library_setup("filecoin-update", &update_params, &root.join("circuits")) {
            let t = Instant::now();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
            cuzk::update::local_setup(UPDATE, Some(&root.join("circuits")), Generator::Cpu, &|_, _| {}, &mut rng).expect("local setup");
            println!("{UPDATE:?}: local setup in {:.2?}", t.elapsed());
        }
        let snap_dir = root.join("snap");
        let _ = std::fs::remove_dir_all(&snap_dir);
        std::fs::create_dir_all(&snap_dir).unwrap();
        sealing::update_sector_in(SEAL, UPDATE, 43, &snap_dir)
    })
}

async fn start_daemon() -> (Daemon, Client) {
    start_daemon_on(None).await
}

/// A daemon listening on `listen` (`None`: loopback TCP).
async fn start_daemon_on(listen: Option<String>) -> (Daemon, Client) {
    let mut config = common::config(&setup().root, false);
    if let Some(listen) = listen {
        config.daemon.listen = listen;
    }
    let daemon = Daemon::start(&config).await.expect("daemon");
    let client = connect(&daemon).await;
    (daemon, client)
}

async fn prove(client: &mut Client, submit: pb::SubmitProofRequest) -> pb::AwaitProofResponse {
    client.prove(pb::ProveRequest { submit: Some(submit) }).await.unwrap().into_inner().result.unwrap()
}

fn status_of(r: &pb::AwaitProofResponse) -> AwaitStatus {
    AwaitStatus::try_from(r.status).expect("a defined status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn winning_and_window_posts_over_grpc_are_accepted_by_filecoin_proofs() {
    let setup = setup();
    let (daemon, mut client) = start_daemon().await;
    let randomness = randomness();
    let sectors: Vec<&Sector> = setup.sectors.iter().collect();

    let vanilla = vanilla_proofs(WINNING, &sectors[..1], &randomness, setup.miner);
    let t = Instant::now();
    let answer = prove(&mut client, curio_request("winning", ProofKind::WinningPost, WINNING_ABI, randomness, vanilla, setup.miner)).await;
    println!("WinningPoSt over gRPC in {:.2?}: {} ms total, {} ms prover load", t.elapsed(), answer.total_ms, answer.srs_load_ms);
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
    assert!(verify_winning_post(&randomness, &answer.proof, &replicas(WINNING, &sectors[..1]), prover_id(setup.miner)).unwrap(), "verify_winning_post accepts it");
    let mut other = randomness;
    other[0] ^= 1;
    assert!(!verify_winning_post(&other, &answer.proof, &replicas(WINNING, &sectors[..1]), prover_id(setup.miner)).unwrap_or(false), "and refuses it for other randomness");

    let vanilla = vanilla_proofs(WINDOW, &sectors, &randomness, setup.miner);
    let t = Instant::now();
    let answer = prove(&mut client, curio_request("window", ProofKind::WindowPostPartition, WINDOW_ABI, randomness, vanilla.clone(), setup.miner)).await;
    println!("WindowPoSt partition over gRPC in {:.2?}: {} ms total", t.elapsed(), answer.total_ms);
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
    assert!(verify_window_post(&randomness, &[(WINDOW, &answer.proof)], &replicas(WINDOW, &sectors), prover_id(setup.miner)).unwrap(), "verify_window_post accepts it");

    // A damaged vanilla proof fails with a message; the daemon goes on.
    let mut damaged = vanilla.clone();
    let last = damaged[1].len() - 40;
    damaged[1][last] ^= 0x01;
    let answer = prove(&mut client, curio_request("damaged", ProofKind::WindowPostPartition, WINDOW_ABI, randomness, damaged, setup.miner)).await;
    assert_eq!(status_of(&answer), AwaitStatus::Failed);
    assert!(answer.error_message.contains("vanilla proof"), "{}", answer.error_message);
    let answer = prove(&mut client, curio_request("window-again", ProofKind::WindowPostPartition, WINDOW_ABI, randomness, vanilla, setup.miner)).await;
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);

    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!((status.total_proofs_completed, status.total_proofs_failed), (3, 1));
    let mut loaded: Vec<String> = status.loaded_srs.iter().map(|s| s.circuit_id.clone()).collect();
    loaded.sort();
    assert_eq!(loaded, ["winning-2k", "wpost-2k"]);
    let samples = common::parse_prometheus(&client.get_metrics(pb::GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text);
    assert_eq!(common::sample(&samples, "cuzk_proofs_completed_total{proof_kind=\"winning_post\"}"), 1.0);
    assert_eq!(common::sample(&samples, "cuzk_proofs_completed_total{proof_kind=\"window_post\"}"), 2.0);

    // EvictSRS, then PreloadSRS, of a PoSt prover by its circuit id.
    let evicted = client.evict_srs(pb::EvictSrsRequest { circuit_id: "wpost-2k".into() }).await.unwrap().into_inner();
    assert!(evicted.freed_bytes > 0, "{evicted:?}");
    let preloaded = client.preload_srs(pb::PreloadSrsRequest { circuit_id: "WPOST-2K".into() }).await.unwrap().into_inner();
    assert!(!preloaded.already_loaded, "{preloaded:?}");
    daemon.shutdown().await.unwrap();

    // Over a unix socket, after an eviction: the prover rebuilt on demand.
    let socket = setup.root.join(format!("cuzk-{}.sock", std::process::id()));
    let (daemon, mut client) = start_daemon_on(Some(format!("unix://{}", socket.display()))).await;
    client.evict_srs(pb::EvictSrsRequest { circuit_id: "wpost-2k".into() }).await.unwrap();
    let answer = prove(&mut client, curio_request("unix", ProofKind::WindowPostPartition, WINDOW_ABI, randomness, vanilla_proofs(WINDOW, &sectors, &randomness, setup.miner), setup.miner)).await;
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
    assert!(verify_window_post(&randomness, &[(WINDOW, &answer.proof)], &replicas(WINDOW, &sectors), prover_id(setup.miner)).unwrap(), "a proof over a unix socket verifies");
    daemon.shutdown().await.unwrap();
    assert!(!socket.exists(), "the socket is removed at shutdown");
}

/// Load: 50 WindowPoSt partitions (real proofs, each checked with
/// filecoin-proofs' `verify_window_post`) from 10 clients at once, each on
/// its own connection; one more client submits through `Prove` and
/// disconnects mid-wait. None is lost: the disconnected client's job is
/// proved too and fetched by its id from another connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "real sealing and a parameter setup: minutes on 2 cores, so it runs on the GPU machine (scripts/gpu-measure.sh real-sealing)"]
async fn fifty_real_posts_from_ten_clients_and_a_disconnect_lose_nothing() {
    let setup = setup();
    let (daemon, _) = start_daemon().await;
    let sectors: Vec<&Sector> = setup.sectors.iter().collect();
    // Five challenge seeds, their vanilla proofs made once.
    let seeds: Vec<([u8; 32], Vec<Vec<u8>>)> = (0..5u8)
        .map(|k| {
            let mut randomness = [k + 1; 32];
            randomness[31] = 0;
            (randomness, vanilla_proofs(WINDOW, &sectors, &randomness, setup.miner))
        })
        .collect();
    let replicas = replicas(WINDOW, &sectors);

    // The client that leaves: Prove, then the connection dropped while its
    // proof waits in the queue or runs.
    let leaving = {
        let mut client = connect(&daemon).await;
        let (randomness, vanilla) = seeds[0].clone();
        let request = curio_request("leaves", ProofKind::WindowPostPartition, WINDOW_ABI, randomness, vanilla, setup.miner);
        tokio::spawn(async move { client.prove(pb::ProveRequest { submit: Some(request) }).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    leaving.abort();

    let start = Instant::now();
    let mut clients = Vec::new();
    for c in 0..10usize {
        let mut client = connect(&daemon).await;
        let seeds = seeds.clone();
        let replicas = replicas.clone();
        let miner = setup.miner;
        clients.push(tokio::spawn(async move {
            let mut verified = 0;
            for r in 0..5usize {
                let (randomness, vanilla) = &seeds[(c + r) % seeds.len()];
                let answer = prove(&mut client, curio_request(&format!("load-{c}-{r}"), ProofKind::WindowPostPartition, WINDOW_ABI, *randomness, vanilla.clone(), miner)).await;
                assert_eq!(status_of(&answer), AwaitStatus::Completed, "load-{c}-{r}: {}", answer.error_message);
                assert!(verify_window_post(randomness, &[(WINDOW, &answer.proof)], &replicas, prover_id(miner)).unwrap(), "load-{c}-{r} verifies");
                verified += 1;
            }
            verified
        }));
    }
    let mut verified = 0;
    for client in clients {
        verified += client.await.expect("client finished");
    }
    println!("50 WindowPoSt partitions from 10 clients proved and verified in {:.2?}", start.elapsed());
    assert_eq!(verified, 50);

    let mut client = connect(&daemon).await;
    let answer = client.await_proof(pb::AwaitProofRequest { job_id: "leaves".into(), timeout_ms: 0 }).await.unwrap().into_inner();
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "the disconnected client's job: {}", answer.error_message);
    assert!(verify_window_post(&seeds[0].0, &[(WINDOW, &answer.proof)], &replicas, prover_id(setup.miner)).unwrap());
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!((status.total_proofs_completed, status.total_proofs_failed), (51, 0));
    daemon.shutdown().await.unwrap();
}

/// Curio's SnapDeals request: Go's update proof number, the sector size,
/// the three commitments, one vanilla proof per partition.
fn snap_request(id: &str, snap: &sealing::UpdatedSector) -> pb::SubmitProofRequest {
    pb::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: ProofKind::SnapDealsUpdate as i32,
        sector_size: 2048,
        registered_proof: UPDATE_ABI,
        vanilla_proofs: snap.vanilla_proofs.clone(),
        comm_r_old: snap.comm_r_old.to_vec(),
        comm_r_new: snap.comm_r_new.to_vec(),
        comm_d_new: snap.comm_d_new.to_vec(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "real sealing and a parameter setup: minutes on 2 cores, so it runs on the GPU machine (scripts/gpu-measure.sh real-sealing)"]
async fn a_snap_deals_update_over_grpc_is_accepted_and_a_winning_post_overtakes_it() {
    let setup = setup();
    let snap = snap_setup();
    let (daemon, mut client) = start_daemon().await;
    let t = Instant::now();
    // Both provers loaded first. The update is a NORMAL job; a WinningPoSt
    // (CRITICAL) submitted while it runs takes the urgent lane.
    for circuit_id in ["snap-2k", "winning-2k"] {
        client.preload_srs(pb::PreloadSrsRequest { circuit_id: circuit_id.into() }).await.unwrap();
    }
    let job = client.submit_proof(snap_request("snap", snap)).await.unwrap().into_inner().job_id;
    loop {
        let state = client.await_proof(pb::AwaitProofRequest { job_id: job.clone(), timeout_ms: 50 }).await.unwrap().into_inner();
        assert_eq!(status_of(&state), AwaitStatus::Timeout, "{}", state.error_message);
        if state.error_message.starts_with("still running") {
            break;
        }
    }
    let randomness = randomness();
    let sectors: Vec<&Sector> = setup.sectors.iter().take(1).collect();
    let request = curio_request("winning-during-snap", ProofKind::WinningPost, WINNING_ABI, randomness, vanilla_proofs(WINNING, &sectors, &randomness, setup.miner), setup.miner);
    let winning_job = client.submit_proof(request).await.unwrap().into_inner().job_id;
    // The WinningPoSt starts while the update is still being proved (on
    // one prover thread it stays queued until the update is done). Not a
    // race of the two proofs' speeds: its start takes milliseconds, the
    // update seconds.
    loop {
        let state = client.await_proof(pb::AwaitProofRequest { job_id: winning_job.clone(), timeout_ms: 20 }).await.unwrap().into_inner();
        if status_of(&state) == AwaitStatus::Completed || state.error_message.starts_with("still running") {
            break;
        }
        assert!(state.error_message.starts_with("still queued"), "{}", state.error_message);
    }
    let state = client.await_proof(pb::AwaitProofRequest { job_id: job.clone(), timeout_ms: 1 }).await.unwrap().into_inner();
    assert!(state.error_message.starts_with("still running"), "the update is still being proved when the WinningPoSt starts: {}", state.error_message);
    let winning = client.await_proof(pb::AwaitProofRequest { job_id: winning_job, timeout_ms: 0 }).await.unwrap().into_inner();
    println!("WinningPoSt while the update runs: {} ms total, {} ms in the queue", winning.total_ms, winning.queue_wait_ms);
    assert_eq!(status_of(&winning), AwaitStatus::Completed, "{}", winning.error_message);
    assert!(verify_winning_post(&randomness, &winning.proof, &replicas(WINNING, &sectors), prover_id(setup.miner)).unwrap(), "verify_winning_post accepts it");
    let answer = client.await_proof(pb::AwaitProofRequest { job_id: job, timeout_ms: 0 }).await.unwrap().into_inner();
    println!("SnapDeals update over gRPC in {:.2?}: {} ms total, {} ms prover load", t.elapsed(), answer.total_ms, answer.srs_load_ms);
    assert_eq!(status_of(&answer), AwaitStatus::Completed, "{}", answer.error_message);
    let verify = |comm_d_new: [u8; 32]| filecoin_proofs_api::update::verify_empty_sector_update_proof(UPDATE, &answer.proof, snap.comm_r_old, snap.comm_r_new, comm_d_new).unwrap_or(false);
    assert!(verify(snap.comm_d_new), "verify_empty_sector_update_proof accepts it");
    let mut other = snap.comm_d_new;
    other[0] ^= 1;
    assert!(!verify(other), "and refuses it for other data");
    // Another sector's comm_r_old: refused before proving.
    let mut wrong = snap_request("snap-wrong", snap);
    wrong.comm_r_old = setup.sectors[0].comm_r.to_vec();
    let answer = prove(&mut client, wrong).await;
    assert_eq!(status_of(&answer), AwaitStatus::Failed);
    assert!(answer.error_message.contains("does not prove its challenges"), "{}", answer.error_message);
    let status = client.get_status(pb::GetStatusRequest {}).await.unwrap().into_inner();
    assert!(status.loaded_srs.iter().any(|s| s.circuit_id == "snap-2k"), "{:?}", status.loaded_srs);
    daemon.shutdown().await.unwrap();
}
