//! PoSt requests of real sealed sectors, as Curio sends them: the sectors'
//! vanilla proofs from filecoin-proofs-api, and what its verifiers need.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cuzk::post::RegisteredPoStProof;
use cuzk_daemon::proto::{self as pb, Priority, ProofKind};
use filecoin_proofs_api::post::{generate_fallback_sector_challenges, generate_single_vanilla_proof};
use filecoin_proofs_api::{PrivateReplicaInfo, PublicReplicaInfo, SectorId};

/// A sealed sector: its id, comm_r and files (`sealed`, `cache`).
pub struct Sector {
    pub id: SectorId,
    pub comm_r: [u8; 32],
    pub dir: PathBuf,
}

/// The prover id of a miner actor.
pub fn prover_id(miner: u64) -> [u8; 32] {
    cuzk::porep::prover_id_from_miner(miner)
}

/// The sectors' vanilla proofs for `randomness`, one per sector.
pub fn vanilla_proofs(proof: RegisteredPoStProof, sectors: &[&Sector], randomness: &[u8; 32], miner: u64) -> Vec<Vec<u8>> {
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

/// The public replicas a PoSt verifier checks against.
pub fn replicas(proof: RegisteredPoStProof, sectors: &[&Sector]) -> BTreeMap<SectorId, PublicReplicaInfo> {
    sectors.iter().map(|s| (s.id, PublicReplicaInfo::new(proof, s.comm_r))).collect()
}

/// Curio's request: the kind, Go's registered proof number, the sector
/// size, the miner, the randomness, one vanilla proof per sector.
pub fn curio_request(id: &str, kind: ProofKind, registered_proof: u64, randomness: [u8; 32], vanilla_proofs: Vec<Vec<u8>>, miner: u64) -> pb::SubmitProofRequest {
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

/// Randomness as the chain gives it: a field element's bytes.
pub fn randomness() -> [u8; 32] {
    let mut randomness: [u8; 32] = rand::random();
    randomness[31] &= 0x3f;
    randomness
}
