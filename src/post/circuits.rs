//! A PoSt request's circuit, built as filecoin-proofs builds it: the
//! vanilla proofs decoded, the partition's vanilla proof assembled and
//! checked by storage-proofs (`single_partition_vanilla_proofs`), then
//! storage-proofs-post's `FallbackPoStCircuit` and its public inputs.

use std::panic::{catch_unwind, AssertUnwindSafe};

use blstrs::Scalar;
use filecoin_hashers::poseidon::PoseidonDomain;
use filecoin_proofs::parameters::{window_post_setup_params, winning_post_setup_params};
use filecoin_proofs::{as_safe_commitment, single_partition_vanilla_proofs, FallbackPoStSectorProof, PoStConfig};
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector};

use super::shape::{PostCircuit, PostKind, PostTree};
use super::PostError;
use crate::porep::with_tree;
use crate::witness::assignment::panic_message;

/// One PoSt to prove, as Curio's `SubmitProofRequest` carries it.
#[derive(Clone, Debug)]
pub struct PostRequest {
    /// The challenge seed (32 bytes, a field element).
    pub randomness: [u8; 32],
    /// The prover id (filecoin-proofs' 32 bytes: the miner's actor id).
    pub prover_id: [u8; 32],
    /// One vanilla proof per sector: filecoin-proofs'
    /// `FallbackPoStSectorProof`, bincode (what `generate_single_vanilla_proof`
    /// returns). A WinningPoSt has one; a WindowPoSt partition up to its
    /// proof's sector count.
    pub vanilla_proofs: Vec<Vec<u8>>,
    /// The WindowPoSt partition these sectors are (0 for a WinningPoSt).
    pub partition_index: usize,
}

/// A request's circuit and the public inputs its proof is verified with.
pub(crate) struct BuiltCircuit {
    pub circuit: PostCircuit,
    pub public_inputs: Vec<Scalar>,
}

/// The circuit of `request`, a `proof` PoSt.
pub(crate) fn build(proof: RegisteredPoStProof, request: &PostRequest) -> Result<BuiltCircuit, PostError> {
    with_tree!(u64::from(proof.sector_size()), build_of(proof, request), PostError::UnsupportedSectorSize)
}

/// The blank circuit of `proof` (for recording its compiled circuit).
pub(crate) fn blank(proof: RegisteredPoStProof) -> Result<PostCircuit, PostError> {
    with_tree!(u64::from(proof.sector_size()), blank_of(proof), PostError::UnsupportedSectorSize)
}

/// filecoin-proofs' parameter identifier of `proof` (its files are
/// `v28-<identifier>.params` and `.vk`).
pub(crate) fn identifier(proof: RegisteredPoStProof) -> Result<String, PostError> {
    with_tree!(u64::from(proof.sector_size()), identifier_of(proof), PostError::UnsupportedSectorSize)
}

fn identifier_of<Tree: PostTree>(proof: RegisteredPoStProof) -> Result<String, PostError> {
    proof.as_v1_config().get_cache_identifier::<Tree>().map_err(PostError::proofs)
}

/// storage-proofs' public parameters of one partition (a WinningPoSt's
/// sectors are its challenges, one each, as filecoin-proofs sets it up).
fn public_params<Tree: PostTree>(config: &PoStConfig, kind: PostKind) -> Result<compound_proof::PublicParams<'static, FallbackPoSt<'static, Tree>>, PostError> {
    let vanilla_params = match kind {
        PostKind::Winning => winning_post_setup_params(config).map_err(PostError::proofs)?,
        PostKind::Window => window_post_setup_params(config),
    };
    let setup = compound_proof::SetupParams { vanilla_params, partitions: None, priority: config.priority };
    <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'static, Tree>, FallbackPoStCircuit<Tree>>>::setup(&setup).map_err(PostError::proofs)
}

fn blank_of<Tree: PostTree>(proof: RegisteredPoStProof) -> Result<PostCircuit, PostError> {
    let pp = public_params::<Tree>(&proof.as_v1_config(), PostKind::of(proof))?;
    Ok(Tree::wrap(<FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'static, Tree>, FallbackPoStCircuit<Tree>>>::blank_circuit(&pp.vanilla_params)))
}

fn build_of<Tree: PostTree>(proof: RegisteredPoStProof, request: &PostRequest) -> Result<BuiltCircuit, PostError> {
    let config = proof.as_v1_config();
    let kind = PostKind::of(proof);
    let count = request.vanilla_proofs.len();
    match kind {
        PostKind::Winning if count != config.sector_count => {
            return Err(PostError::InvalidRequest(format!("a {proof:?} proves {} sector(s), the request has {count} vanilla proof(s)", config.sector_count)));
        }
        PostKind::Winning if request.partition_index != 0 => {
            return Err(PostError::InvalidRequest(format!("a WinningPoSt has one partition, the request names partition {}", request.partition_index)));
        }
        PostKind::Window if count == 0 || count > config.sector_count => {
            return Err(PostError::InvalidRequest(format!("a {proof:?} partition proves 1 to {} sectors, the request has {count} vanilla proof(s)", config.sector_count)));
        }
        _ => {}
    }
    let vanilla: Vec<FallbackPoStSectorProof<Tree>> = request
        .vanilla_proofs
        .iter()
        .enumerate()
        .map(|(index, bytes)| bincode::deserialize(bytes).map_err(|e| PostError::InvalidVanillaProof { index, why: format!("not a FallbackPoStSectorProof of {proof:?} ({} bytes): {e}", bytes.len()) }))
        .collect::<Result<_, _>>()?;
    for (index, p) in vanilla.iter().enumerate() {
        let sectors = p.vanilla_proof.sectors.len();
        if (kind == PostKind::Winning && sectors != 1) || sectors == 0 {
            return Err(PostError::InvalidVanillaProof { index, why: format!("it holds {sectors} sector proofs") });
        }
    }
    let commitment = |bytes: &[u8; 32], name: &str| as_safe_commitment::<PoseidonDomain, _>(bytes, name).map_err(|e| PostError::InvalidRequest(format!("{e:#}")));
    let pub_params = public_params::<Tree>(&config, kind)?;
    let pub_inputs = fallback::PublicInputs {
        randomness: commitment(&request.randomness, "randomness")?,
        prover_id: commitment(&request.prover_id, "prover_id")?,
        sectors: vanilla.iter().map(|p| PublicSector { id: p.sector_id, comm_r: p.comm_r }).collect(),
        k: Some(request.partition_index),
    };
    // storage-proofs checks the vanilla proofs here (and panics on some
    // malformed ones): a bad request, never a process lost.
    let partition = catch_unwind(AssertUnwindSafe(|| single_partition_vanilla_proofs(&config, &pub_params.vanilla_params, &pub_inputs, &vanilla)))
        .map_err(|panic| PostError::VanillaRejected(format!("storage-proofs panicked: {}", panic_message(&*panic))))?
        .map_err(|e| PostError::VanillaRejected(format!("{e:#}")))?;
    // The inputs a verifier derives: filecoin-proofs' verify_winning_post
    // lists the one sector once per challenge (the circuit's sectors).
    let mut verified = pub_inputs.clone();
    if kind == PostKind::Winning {
        verified.sectors = std::iter::repeat_n(verified.sectors[0].clone(), pub_params.vanilla_params.sector_count).collect();
        verified.k = Some(0);
        // storage-proofs' check above opens the first challenge only for a
        // WinningPoSt: every unrolled one is checked here, before proving.
        let opened = catch_unwind(AssertUnwindSafe(|| <FallbackPoSt<'static, Tree> as ProofScheme<'static>>::verify(&pub_params.vanilla_params, &verified, &partition)))
            .map_err(|panic| PostError::VanillaRejected(format!("storage-proofs panicked: {}", panic_message(&*panic))))?
            .map_err(|e| PostError::VanillaRejected(format!("{e:#}")))?;
        if !opened {
            return Err(PostError::VanillaRejected("the inclusion proofs do not open the WinningPoSt's challenged leaves".into()));
        }
    }
    type Compound<Tree> = FallbackPoStCompound<Tree>;
    // One partition per call: filecoin-proofs proves it as partition 0.
    let circuit = <Compound<Tree> as CompoundProof<FallbackPoSt<'static, Tree>, FallbackPoStCircuit<Tree>>>::circuit(&pub_inputs, Default::default(), &partition, &pub_params.vanilla_params, Some(0))
        .map_err(PostError::proofs)?;
    let public_inputs = <Compound<Tree> as CompoundProof<FallbackPoSt<'static, Tree>, FallbackPoStCircuit<Tree>>>::generate_public_inputs(&verified, &pub_params.vanilla_params, Some(0))
        .map_err(PostError::proofs)?;
    Ok(BuiltCircuit { circuit: Tree::wrap(circuit), public_inputs })
}
