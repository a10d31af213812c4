//! What can go wrong between a C1 output and its C2 proof.

use std::path::PathBuf;

use crate::{CompiledFileError, ParamsFileError, ProverError};

/// A C2 that could not be made; nothing is proved for a sector that fails
/// before its partitions reach the prover.
#[derive(Debug, thiserror::Error)]
pub enum PorepError {
    /// The bytes are none of the C1 forms `C1Output::parse` reads.
    #[error("not a C1 output ({form}): {why}")]
    C1Format {
        /// The form the bytes were read as.
        form: &'static str,
        /// The decoder's message.
        why: String,
    },
    /// The C1 output is of another registered proof than the prover's.
    #[error("the C1 output is a {found} proof, this prover makes {expected}")]
    WrongProof {
        /// The prover's registered proof.
        expected: String,
        /// The C1 output's.
        found: String,
    },
    /// A sector size with no registered PoRep.
    #[error("no PoRep is registered for sectors of {0} bytes")]
    UnsupportedSectorSize(u64),
    /// A registered proof whose C2 this crate does not make.
    #[error("{proof} is not supported: {why}")]
    UnsupportedProof {
        /// The registered proof.
        proof: String,
        /// Why.
        why: &'static str,
    },
    /// The C1 output's fields do not fit its registered proof (zero
    /// commitments, the wrong number of partitions or challenges, …).
    #[error("invalid C1 output: {0}")]
    InvalidC1(String),
    /// The C1 output's replica id is not the one the prover id, sector id,
    /// ticket and comm_d give: another miner's or sector's C1, whose proof
    /// `verify_seal` would reject.
    #[error("the C1 output's replica id does not match prover id {prover_id} and sector {sector_id}")]
    ReplicaIdMismatch {
        /// The prover id, in hex.
        prover_id: String,
        /// The sector number.
        sector_id: u64,
    },
    /// The parameter file cannot be used.
    #[error("parameter file {}: {source}", path.display())]
    Params {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (a missing file is an I/O error).
        source: ParamsFileError,
    },
    /// The compiled circuit's cache file could not be written.
    #[error("compiled circuit cache {}: {source}", path.display())]
    CircuitCache {
        /// The file.
        path: PathBuf,
        /// Why.
        source: CompiledFileError,
    },
    /// One partition's proof failed (an unsatisfied circuit for a tampered
    /// C1, a GPU error, …); the sector has no proof.
    #[error("partition {partition}: {source}")]
    Partition {
        /// The partition's index.
        partition: usize,
        /// Why.
        source: ProverError,
    },
    /// A partition's native witness differed from witness-only synthesis
    /// ([`crate::porep::witness::NativeWitness::Checked`]); the sector has
    /// no proof.
    #[error("partition {partition}: {mismatch}")]
    WitnessMismatch {
        /// The partition's index.
        partition: usize,
        /// Where.
        mismatch: crate::porep::witness::WitnessMismatch,
    },
    /// The prover could not be built, or failed outside any one partition.
    #[error(transparent)]
    Prover(#[from] ProverError),
    /// A local setup's parameters could not be made or written.
    #[error("parameter setup: {0}")]
    Setup(#[from] crate::parameters::generate::GenerateError),
    /// filecoin-proofs or storage-proofs refused something (their errors
    /// are `anyhow` messages).
    #[error("filecoin-proofs: {0}")]
    FilecoinProofs(String),
    /// filecoin-proofs' `verify_seal` did not accept the proof made.
    #[error("verify_seal rejected the proof of sector {sector_id}")]
    SealRejected {
        /// The sector number.
        sector_id: u64,
    },
}

impl PorepError {
    /// A partition's failure: a witness mismatch (carried through the
    /// circuit's synthesis error) as itself, else as it came.
    pub(crate) fn partition(partition: usize, source: ProverError) -> Self {
        if let ProverError::Synthesis(bellperson::SynthesisError::IoError(io)) = &source {
            if let Some(mismatch) = io.get_ref().and_then(|e| e.downcast_ref::<crate::porep::witness::WitnessMismatch>()) {
                return PorepError::WitnessMismatch { partition, mismatch: mismatch.clone() };
            }
        }
        PorepError::Partition { partition, source }
    }

    pub(crate) fn proofs(e: impl std::fmt::Display) -> Self {
        PorepError::FilecoinProofs(format!("{e:#}"))
    }
}
