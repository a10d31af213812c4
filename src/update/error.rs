//! What can go wrong between vanilla partition proofs and a sector
//! update's proof.

use std::path::PathBuf;

use crate::porep::PorepError;
use crate::{ParamsFileError, ProverError};

/// A sector update proof that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// A registered proof this crate does not prove.
    #[error("{proof} is not supported: {why}")]
    UnsupportedProof {
        /// The registered proof.
        proof: String,
        /// Why.
        why: &'static str,
    },
    /// A sector size with no tree shape.
    #[error("no sector update is registered for sectors of {0} bytes")]
    UnsupportedSectorSize(u64),
    /// The request's other fields do not fit its registered proof (the
    /// number of partition proofs, a commitment that is no field element).
    #[error("invalid sector update request: {0}")]
    InvalidRequest(String),
    /// A partition's vanilla proof that does not decode
    /// (storage-proofs-update's `PartitionProof`, bincode).
    #[error("vanilla proof of partition {partition}: {why}")]
    InvalidVanillaProof {
        /// The partition.
        partition: usize,
        /// Why.
        why: String,
    },
    /// A partition's vanilla proof that does not prove its challenges for
    /// the request's commitments (storage-proofs-update's own check,
    /// before any proving).
    #[error("the vanilla proof of partition {partition} does not prove its challenges: {why}")]
    VanillaRejected {
        /// The partition.
        partition: usize,
        /// Why.
        why: String,
    },
    /// The parameter file cannot be used.
    #[error("parameter file {}: {source}", path.display())]
    Params {
        /// The file.
        path: PathBuf,
        /// Why (a missing file is an I/O error).
        source: ParamsFileError,
    },
    /// filecoin-proofs' verifying key (the `.vk` beside the parameter file)
    /// cannot be read, so proofs could not be checked before return.
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
    /// The Groth16 prover could not be built, or failed outside any one
    /// partition.
    #[error(transparent)]
    Prover(#[from] ProverError),
    /// One partition's proof failed; the update has no proof.
    #[error("partition {partition}: {source}")]
    Partition {
        /// The partition.
        partition: usize,
        /// Why.
        source: ProverError,
    },
    /// storage-proofs or filecoin-proofs refused something.
    #[error("filecoin-proofs: {0}")]
    FilecoinProofs(String),
    /// A partition's proof does not verify against filecoin-proofs'
    /// verifying key and storage-proofs-update's public inputs.
    #[error("the proof of partition {partition} does not verify")]
    Rejected {
        /// The partition.
        partition: usize,
    },
}

impl UpdateError {
    pub(crate) fn proofs(e: impl std::fmt::Display) -> Self {
        UpdateError::FilecoinProofs(format!("{e:#}"))
    }
}
