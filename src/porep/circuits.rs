//! A C1 output's partitions as circuits: what filecoin-proofs'
//! `seal_commit_phase2` builds before it proves (storage-proofs'
//! `StackedCompound::circuit` and `generate_public_inputs` per partition).

use std::time::Instant;

use blstrs::Scalar;
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_hashers::Domain;
use filecoin_proofs::{as_safe_commitment, DefaultPieceDomain, PoRepConfig, VanillaSealProof};
use filecoin_proofs_api::seal::SealCommitPhase1Output as ApiC1;
use log::debug;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::drgraph::Graph;
use storage_proofs_core::merkle::MerkleProofTrait;
use typenum::Unsigned;
use storage_proofs_porep::stacked::{generate_replica_id, PublicInputs, PublicParams, StackedCompound, Tau};

use super::c1::vanilla_sector_bytes;
use super::shape::{sector_bytes, with_tree, PorepCircuit, ShapeTree};
use super::witness::{NativePartition, NativeWitness};
use super::PorepError;

/// A sector's partition circuits and each one's public inputs.
pub struct SectorCircuits {
    /// One per partition, in order.
    pub circuits: Vec<PorepCircuit>,
    /// The public inputs of each partition's proof (what a verifier checks
    /// it against).
    pub public_inputs: Vec<Vec<Scalar>>,
}

/// The prover and sector ids a C2 is for: `verify_seal` needs them, and the
/// C1 output's replica id must be theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectorIds {
    /// The storage provider's id ([`prover_id_from_miner`] for an actor id).
    pub prover_id: [u8; 32],
    /// The sector number.
    pub sector_id: u64,
}

/// A miner actor id as filecoin-ffi's prover id: the id address's payload
/// (the id as unsigned LEB128), left-aligned in 32 bytes.
pub fn prover_id_from_miner(miner_id: u64) -> [u8; 32] {
    let mut id = [0u8; 32];
    let mut value = miner_id;
    for byte in id.iter_mut() {
        *byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            break;
        }
        *byte |= 0x80;
    }
    id
}

/// The partition circuits of `c1` for `config` (filecoin-proofs' checks
/// first: nonzero commitments and seed, the registered number of
/// partitions and challenges).
pub fn sector_circuits(c1: &ApiC1, config: &PoRepConfig) -> Result<SectorCircuits, PorepError> {
    sector_circuits_with(c1, config, NativeWitness::Off)
}

/// [`sector_circuits`], each circuit with its native witness unless
/// `native` is [`NativeWitness::Off`] (compared with witness-only
/// synthesis when it is [`NativeWitness::Checked`]).
pub fn sector_circuits_with(c1: &ApiC1, config: &PoRepConfig, native: NativeWitness) -> Result<SectorCircuits, PorepError> {
    let bytes = sector_bytes(c1.registered_proof);
    if vanilla_sector_bytes(&c1.vanilla_proofs) != bytes {
        return Err(PorepError::InvalidC1(format!("{:?} with the vanilla proofs of another sector size", c1.registered_proof)));
    }
    with_tree!(bytes, circuits_of(c1, config, native))
}

/// The public parameters filecoin-proofs uses for `config`.
pub(crate) fn public_params<Tree: ShapeTree>(config: &PoRepConfig) -> Result<PublicParams<Tree>, PorepError> {
    filecoin_proofs::parameters::public_params::<Tree>(config).map_err(PorepError::proofs)
}

/// The stacked public inputs of a C1 output, as filecoin-proofs makes them.
fn stacked_inputs(
    c1: &ApiC1,
) -> Result<PublicInputs<<filecoin_hashers::poseidon::PoseidonHasher as filecoin_hashers::Hasher>::Domain, DefaultPieceDomain>, PorepError> {
    if c1.comm_d == [0; 32] || c1.comm_r == [0; 32] {
        return Err(PorepError::InvalidC1("a commitment (comm_d or comm_r) is all zeros".into()));
    }
    if c1.seed == [0; 32] {
        return Err(PorepError::InvalidC1("the challenge seed is all zeros".into()));
    }
    let comm_r = as_safe_commitment(&c1.comm_r, "comm_r").map_err(|e| PorepError::InvalidC1(format!("{e:#}")))?;
    let comm_d = DefaultPieceDomain::try_from_bytes(&c1.comm_d).map_err(|e| PorepError::InvalidC1(format!("comm_d: {e:#}")))?;
    Ok(PublicInputs { replica_id: c1.replica_id, tau: Some(Tau { comm_d, comm_r }), k: None, seed: Some(c1.seed) })
}

fn circuits_of<Tree: ShapeTree>(c1: &ApiC1, config: &PoRepConfig, native: NativeWitness) -> Result<SectorCircuits, PorepError> {
    let start = Instant::now();
    let inputs = stacked_inputs(c1)?;
    let proofs: Vec<Vec<VanillaSealProof<Tree>>> = c1.vanilla_proofs.clone().try_into().map_err(PorepError::proofs)?;
    let pp = public_params::<Tree>(config)?;
    let partitions = usize::from(config.partitions);
    let per_partition = pp.challenges.num_challenges_per_partition();
    if proofs.len() != partitions {
        return Err(PorepError::InvalidC1(format!("{} partitions of vanilla proofs, {:?} has {partitions}", proofs.len(), c1.registered_proof)));
    }
    if let Some((k, p)) = proofs.iter().enumerate().find(|(_, p)| p.len() != per_partition) {
        return Err(PorepError::InvalidC1(format!("partition {k} has {} challenges' proofs, {:?} has {per_partition}", p.len(), c1.registered_proof)));
    }
    for (k, partition) in proofs.iter().enumerate() {
        for (i, proof) in partition.iter().enumerate() {
            check_shape(proof, &pp).map_err(|why| PorepError::InvalidC1(format!("partition {k}, challenge {i}: {why}")))?;
        }
    }
    let mut circuits = Vec::with_capacity(partitions);
    let mut public_inputs = Vec::with_capacity(partitions);
    for (k, proof) in proofs.iter().enumerate() {
        let circuit = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<_, _>>::circuit(&inputs, (), proof, &pp, Some(k))
            .map_err(|e| PorepError::InvalidC1(format!("partition {k}: {e:#}")))?;
        circuits.push(match native {
            NativeWitness::Off => Tree::wrap(circuit),
            mode => Tree::wrap_native(circuit, NativePartition::new(&inputs, proof)?, mode == NativeWitness::Checked),
        });
        public_inputs.push(<StackedCompound<Tree, Sha256Hasher> as CompoundProof<_, _>>::generate_public_inputs(&inputs, &pp, Some(k)).map_err(PorepError::proofs)?);
    }
    debug!("{partitions} partition circuit(s) of {:?} built in {:.3?}", c1.registered_proof, start.elapsed());
    Ok(SectorCircuits { circuits, public_inputs })
}

/// Checks what can be seen of a challenge's vanilla proof against the
/// registered circuit: its Merkle paths' lengths and arities, its parent
/// columns and labels (serde reads a proof of another sector size into
/// any tree type, whatever its paths' lengths; the circuit of such a
/// proof would differ from the compiled one).
fn check_shape<Tree: ShapeTree>(proof: &VanillaSealProof<Tree>, pp: &PublicParams<Tree>) -> Result<(), String> {
    let nodes = pp.graph.size();
    let shape = |levels: Vec<super::synthetic::Level>| levels.iter().map(|l| l.arity - 1).collect::<Vec<_>>();
    let tree_r = shape(super::synthetic::levels(nodes, Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize()));
    if path_lengths(&proof.comm_d_proofs.path()) != shape(super::synthetic::levels(nodes, 2, 0, 0)) {
        return Err("its tree_d path is not of this sector size".into());
    }
    if path_lengths(&proof.comm_r_last_proof.path()) != tree_r {
        return Err("its tree_r_last path is not of this sector size".into());
    }
    let columns = &proof.replica_column_proofs;
    if (columns.drg_parents.len(), columns.exp_parents.len()) != (pp.graph.base_graph().degree(), pp.graph.expansion_degree()) {
        return Err(format!("{} + {} parent columns", columns.drg_parents.len(), columns.exp_parents.len()));
    }
    if proof.labeling_proofs.len() != pp.num_layers {
        return Err(format!("{} labels, the sector has {} layers", proof.labeling_proofs.len(), pp.num_layers));
    }
    Ok(())
}

fn path_lengths<D>(path: &[(Vec<D>, usize)]) -> Vec<usize> {
    path.iter().map(|(siblings, _)| siblings.len()).collect()
}

/// Checks that `c1`'s replica id is the one `ids`, its ticket and comm_d
/// give for `config` (as `verify_seal` derives it).
pub fn check_replica_id(c1: &ApiC1, config: &PoRepConfig, ids: &SectorIds) -> Result<(), PorepError> {
    let derived = generate_replica_id::<filecoin_hashers::poseidon::PoseidonHasher, _>(&ids.prover_id, ids.sector_id, &c1.ticket, c1.comm_d, &config.porep_id);
    if derived == c1.replica_id {
        Ok(())
    } else {
        Err(PorepError::ReplicaIdMismatch { prover_id: hex(&ids.prover_id), sector_id: ids.sector_id })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miner_ids_become_filecoin_ffi_prover_ids() {
        // f01000: 1000 = 0b111_1101000 -> e8 07.
        assert_eq!(&prover_id_from_miner(1000)[..3], &[0xe8, 0x07, 0]);
        assert_eq!(&prover_id_from_miner(0)[..2], &[0, 0]);
        assert_eq!(&prover_id_from_miner(127)[..2], &[127, 0]);
        assert_eq!(&prover_id_from_miner(128)[..3], &[0x80, 0x01, 0]);
        let max = prover_id_from_miner(u64::MAX);
        assert_eq!(&max[..10], &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert!(max[10..].iter().all(|&b| b == 0));
    }
}
