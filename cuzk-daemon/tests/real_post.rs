//! WinningPoSt and WindowPoSt partitions of real sealed 2 KiB sectors
//! (filecoin-proofs-api's sealing and vanilla proofs, as Curio sends them
//! in `vanilla_proofs`), proved through the daemon over gRPC on the CPU
//! backend with parameters from cuzk's own setup: filecoin-proofs'
//! `verify_winning_post` and `verify_window_post` accept the proof bytes.
//! Its own binary, for a parameter cache of its own.

mod common;
#[path = "../../tests/porep/sealing.rs"]
mod sealing;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use common::{connect, Client};
use cuzk::parameters::generate::Generator;
use cuzk::post::{local_setup, RegisteredPoStProof};
use cuzk_daemon::proto::await_proof_response::Status as AwaitStatus;
use cuzk_daemon::proto::{self as pb, Priority, ProofKind};
use cuzk_daemon::Daemon;
use filecoin_proofs_api::post::{generate_fallback_sector_challenges, generate_single_vanilla_proof, verify_window_post, verify_winning_post};
use filecoin_proofs_api::{PrivateReplicaInfo, PublicReplicaInfo, RegisteredSealProof, SectorId};
use rand::SeedableRng;

const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
/// Go's `abi.RegisteredPoStProof` numbers of the two.
const WINNING_ABI: u64 = 0;
const WINDOW_ABI: u64 = 10;

struct Sector {
    id: SectorId,
    comm_r: [u8; 32],
    dir: PathBuf,
}

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

fn prover_id(miner: u64) -> [u8; 32] {
    cuzk::porep::prover_id_from_miner(miner)
}

fn vanilla_proofs(proof: RegisteredPoStProof, sectors: &[&Sector], randomness: &[u8; 32], miner: u64) -> Vec<Vec<u8>> {
    let ids: Vec<SectorId> = sectors.iter().map(|s| s.id).collect();
    let challenges = generate_fallback_sector_challenges(proof, randomness, &ids, prover_id(miner)).expect("challenges");
    sectors
        .iter()
        .map(|s| {
            let replica = PrivateReplicaInfo::new(proof, s.comm_r, s.dir.join("cache"), s.dir.join("sealed"));
            generate_single_vanilla_proof(proof, s.id, &replica, &challenges[&s.id]).expect("vanilla proof")
        })
        .collect()
}

fn replicas(proof: RegisteredPoStProof, sectors: &[&Sector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (s.id, PublicReplicaInfo::new(proof, s.comm_r))).collect()
}

/// Curio's request: the kind, Go's registered proof number, the sector
/// size, the miner, the randomness, one vanilla proof per sector.
fn curio_request(id: &str, kind: ProofKind, registered_proof: u64, randomness: [u8; 32], vanilla_proofs: Vec<Vec<u8>>, miner: u64) -> pb::SubmitProofRequest {
    pb::SubmitProofRequest {
        request_id: id.into(),
        proof_kind: kind as i32,
        sector_size: 2048,
        registered_proof,
        priority: Priority::Unspecified as i32,
        vanilla_proofs,
        miner_id: miner,
        randomness: randomness.to_vec(),
        partition_index: 0,
        ..Default::default()
    }
}

async fn start_daemon() -> (Daemon, Client) {
    let config = common::config(&setup().root, false);
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
    let mut randomness: [u8; 32] = rand::random();
    randomness[31] &= 0x3f;
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
}
