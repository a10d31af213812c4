//! What can go wrong between vanilla proofs and a PoSt proof.

use std::path::PathBuf;

use crate::porep::PorepError;
use crate::{ParamsFileError, ProverError};

/// A PoSt proof that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// A registered proof this crate does not prove.
    #[error("{proof} is not supported: {why}")]
    UnsupportedProof {
        /// The registered proof.
        proof: String,
        /// Why.
        why: &'static str,
    },
    /// A sector size with no tree shape.
    #[error("no PoSt is registered for sectors of {0} bytes")]
    UnsupportedSectorSize(u64),
    /// A vanilla proof that does not decode (filecoin-proofs'
    /// `FallbackPoStSectorProof`, bincode) or is not a proof of its
    /// sector's challenges.
    #[error("vanilla proof {index}: {why}")]
    InvalidVanillaProof {
        /// Which one, in the request's order.
        index: usize,
        /// Why.
        why: String,
    },
    /// The request's other fields do not fit its registered proof (the
    /// number of vanilla proofs, the randomness, the partition index).
    #[error("invalid PoSt request: {0}")]
    InvalidRequest(String),
    /// The vanilla proofs together do not prove the partition's challenges
    /// (storage-proofs' own check, before any proving).
    #[error("the vanilla proofs do not prove the partition's challenges: {0}")]
    VanillaRejected(String),
    /// The parameter file cannot be used.
    #[error("parameter file {}: {source}", path.display())]
    Params {
        /// The file.
        path: PathBuf,
        /// Why (a missing file is an I/O error).
        source: ParamsFileError,
    },
    /// filecoin-proofs' verifying key (the `.vk` beside the parameter file)
    /// cannot be read, so the proof could not be checked before return.
    #[error("verifying key {}: {why}", path.display())]
    VerifyingKey {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The compiled circuit's cache, or a local setup's parameters
    /// (machinery shared with PoRep).
    #[error(transparent)]
    Shared(#[from] PorepError),
    /// The Groth16 prover failed (or could not be built).
    #[error(transparent)]
    Prover(#[from] ProverError),
    /// storage-proofs or filecoin-proofs refused something (their errors
    /// are `anyhow` messages).
    #[error("filecoin-proofs: {0}")]
    FilecoinProofs(String),
    /// The proof made does not verify against filecoin-proofs' verifying
    /// key and storage-proofs' public inputs.
    #[error("the {proof} proof made does not verify")]
    Rejected {
        /// The registered proof.
        proof: String,
    },
}

impl PostError {
    pub(crate) fn proofs(e: impl std::fmt::Display) -> Self {
        PostError::FilecoinProofs(format!("{e:#}"))
    }
}
