//! A sector update request's partition circuits, built as filecoin-proofs
//! builds them: the vanilla partition proofs decoded and checked by
//! storage-proofs-update, then each partition's `EmptySectorUpdateCircuit`
//! and its public inputs.

use std::panic::{catch_unwind, AssertUnwindSafe};

use blstrs::Scalar;
use filecoin_proofs::as_safe_commitment;
use filecoin_proofs_api::RegisteredUpdateProof;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::parameter_cache::CacheableParameters;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_update::constants::{h_default, TreeDDomain, TreeRDomain};
use storage_proofs_update::{EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs, PublicParams};

use super::shape::{UpdateCircuit, UpdateTree};
use super::UpdateError;
use crate::porep::with_tree;
use crate::witness::assignment::panic_message;

/// One sector update to prove, as Curio's `SubmitProofRequest` carries it.
#[derive(Clone, Debug)]
pub struct UpdateRequest {
    /// The sector's commitment before the update (its sealed comm_r).
    pub comm_r_old: [u8; 32],
    /// The updated replica's comm_r.
    pub comm_r_new: [u8; 32],
    /// The new data's comm_d.
    pub comm_d_new: [u8; 32],
    /// One vanilla proof per partition, in order: storage-proofs-update's
    /// `PartitionProof`, bincode (what filecoin-proofs-api's
    /// `generate_partition_proofs` returns).
    pub vanilla_proofs: Vec<Vec<u8>>,
}

/// A partition's circuit and the public inputs its proof is verified with.
pub(crate) struct BuiltPartition {
    pub circuit: UpdateCircuit,
    pub public_inputs: Vec<Scalar>,
}

/// The partition circuits of `request`, a `proof` update.
pub(crate) fn build(proof: RegisteredUpdateProof, request: &UpdateRequest) -> Result<Vec<BuiltPartition>, UpdateError> {
    with_tree!(u64::from(proof.sector_size()), build_of(proof, request), UpdateError::UnsupportedSectorSize)
}

/// The blank partition circuit of `proof` (for recording its compiled circuit).
pub(crate) fn blank(proof: RegisteredUpdateProof) -> Result<UpdateCircuit, UpdateError> {
    with_tree!(u64::from(proof.sector_size()), blank_of(proof), UpdateError::UnsupportedSectorSize)
}

/// filecoin-proofs' parameter identifier of `proof`.
pub(crate) fn identifier(proof: RegisteredUpdateProof) -> Result<String, UpdateError> {
    with_tree!(u64::from(proof.sector_size()), identifier_of(proof), UpdateError::UnsupportedSectorSize)
}

type Compound<Tree> = EmptySectorUpdateCompound<Tree>;

fn public_params(proof: RegisteredUpdateProof) -> PublicParams {
    PublicParams::from_sector_size(u64::from(proof.sector_size()))
}

fn identifier_of<Tree: UpdateTree>(proof: RegisteredUpdateProof) -> Result<String, UpdateError> {
    Ok(<Compound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, PublicParams>>::cache_identifier(&public_params(proof)))
}

fn blank_of<Tree: UpdateTree>(proof: RegisteredUpdateProof) -> Result<UpdateCircuit, UpdateError> {
    Ok(Tree::wrap(<Compound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::blank_circuit(&public_params(proof))))
}

fn build_of<Tree: UpdateTree>(proof: RegisteredUpdateProof, request: &UpdateRequest) -> Result<Vec<BuiltPartition>, UpdateError> {
    let pub_params = public_params(proof);
    let partitions = pub_params.partition_count;
    if request.vanilla_proofs.len() != partitions {
        return Err(UpdateError::InvalidRequest(format!("a {proof:?} has {partitions} partition(s), the request has {} vanilla proof(s)", request.vanilla_proofs.len())));
    }
    // Canonical field elements only (filecoin-proofs' own check of
    // commitments it is handed).
    let commitment_r = |bytes: &[u8; 32], name: &str| as_safe_commitment::<TreeRDomain, _>(bytes, name).map_err(|e| UpdateError::InvalidRequest(format!("{e:#}")));
    let comm_d_new = as_safe_commitment::<TreeDDomain, _>(&request.comm_d_new, "comm_d_new").map_err(|e| UpdateError::InvalidRequest(format!("{e:#}")))?;
    let mut pub_inputs = PublicInputs {
        k: 0,
        comm_r_old: commitment_r(&request.comm_r_old, "comm_r_old")?,
        comm_d_new,
        comm_r_new: commitment_r(&request.comm_r_new, "comm_r_new")?,
        h: h_default(pub_params.sector_nodes),
    };
    let mut built = Vec::with_capacity(partitions);
    for (k, bytes) in request.vanilla_proofs.iter().enumerate() {
        let vanilla: PartitionProof<Tree> = bincode::deserialize(bytes).map_err(|e| UpdateError::InvalidVanillaProof { partition: k, why: format!("not a PartitionProof of {proof:?} ({} bytes): {e}", bytes.len()) })?;
        if vanilla.challenge_proofs.len() != pub_params.challenge_count || vanilla.apex_leafs.len() != pub_params.apex_leaf_count {
            return Err(UpdateError::InvalidVanillaProof {
                partition: k,
                why: format!("{} challenge proofs and {} apex leaves, a partition has {} and {}", vanilla.challenge_proofs.len(), vanilla.apex_leafs.len(), pub_params.challenge_count, pub_params.apex_leaf_count),
            });
        }
        pub_inputs.k = k;
        // storage-proofs-update checks the partition here (and may panic
        // on a malformed proof): a bad request, never a process lost.
        let opened = catch_unwind(AssertUnwindSafe(|| <EmptySectorUpdate<Tree> as ProofScheme<'_>>::verify(&pub_params, &pub_inputs, &vanilla)))
            .map_err(|panic| UpdateError::VanillaRejected { partition: k, why: format!("storage-proofs-update panicked: {}", panic_message(&*panic)) })?
            .map_err(|e| UpdateError::VanillaRejected { partition: k, why: format!("{e:#}") })?;
        if !opened {
            return Err(UpdateError::VanillaRejected { partition: k, why: "its openings do not match the commitments".into() });
        }
        let circuit = <Compound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::circuit(&pub_inputs, Default::default(), &vanilla, &pub_params, Some(k))
            .map_err(UpdateError::proofs)?;
        let public_inputs = <Compound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::generate_public_inputs(&pub_inputs, &pub_params, Some(k))
            .map_err(UpdateError::proofs)?;
        built.push(BuiltPartition { circuit: Tree::wrap(circuit), public_inputs });
    }
    Ok(built)
}
