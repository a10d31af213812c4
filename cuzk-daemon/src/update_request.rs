//! A SnapDeals request's fields (SNAP_DEALS_UPDATE) turned into the
//! library's `UpdateRequest`: which registered proof, the three
//! commitments, the vanilla partition proofs. Every inconsistency is an
//! error message for a FAILED answer, never a panic.

use cuzk::update::{RegisteredUpdateProof, UpdateRequest};

use crate::registered::{update_proof_for, update_proof_from_abi};

/// The SnapDeals fields of a `SubmitProofRequest`.
#[derive(Clone, Debug, Default)]
pub struct UpdateInput {
    /// One vanilla proof per partition (storage-proofs-update's
    /// `PartitionProof`, bincode).
    pub vanilla_proofs: Vec<Vec<u8>>,
    /// The sector size in bytes; 0: unset.
    pub sector_size: u64,
    /// Go's `abi.RegisteredUpdateProof` number (0 is also "unset" unless
    /// the sector size says 2 KiB).
    pub registered_proof: u64,
    /// The sector's comm_r before the update (32 bytes).
    pub comm_r_old: Vec<u8>,
    /// The updated replica's comm_r.
    pub comm_r_new: Vec<u8>,
    /// The new data's comm_d.
    pub comm_d_new: Vec<u8>,
}

/// Why a SnapDeals request cannot be proved.
#[derive(Debug, thiserror::Error)]
pub enum UpdateRequestError {
    /// No vanilla proofs.
    #[error("vanilla_proofs is empty: a sector update needs one vanilla proof per partition")]
    Empty,
    /// A `registered_proof` number Go's ABI does not define.
    #[error("registered_proof {0} is not a registered update proof")]
    UnknownRegisteredProof(u64),
    /// The fields disagree, or one is malformed.
    #[error("{0}")]
    Inconsistent(String),
}

/// A request ready for the prover.
#[derive(Clone, Debug)]
pub struct ResolvedUpdate {
    /// Its registered proof.
    pub proof: RegisteredUpdateProof,
    /// What to prove.
    pub request: UpdateRequest,
}

impl UpdateInput {
    /// Checks the request's fields against each other. The vanilla proofs
    /// themselves are decoded and checked by the prover.
    pub fn resolve(&self) -> Result<ResolvedUpdate, UpdateRequestError> {
        if self.vanilla_proofs.is_empty() {
            return Err(UpdateRequestError::Empty);
        }
        let proof = match (self.registered_proof, self.sector_size) {
            (0, 0) => return Err(UpdateRequestError::Inconsistent("cannot tell the registered proof: neither registered_proof nor sector_size is set".into())),
            (0, bytes) => update_proof_for(bytes).ok_or_else(|| UpdateRequestError::Inconsistent(format!("no sector update is registered for sectors of {bytes} bytes")))?,
            (n, _) => update_proof_from_abi(n).ok_or(UpdateRequestError::UnknownRegisteredProof(n))?,
        };
        let bytes = u64::from(proof.sector_size());
        if self.sector_size != 0 && self.sector_size != bytes {
            return Err(UpdateRequestError::Inconsistent(format!("wrong sector size: the request says {} bytes but {proof:?} updates sectors of {bytes} bytes", self.sector_size)));
        }
        let commitment = |field: &[u8], name: &str| -> Result<[u8; 32], UpdateRequestError> {
            field.try_into().map_err(|_| UpdateRequestError::Inconsistent(format!("{name} must be 32 bytes, the request has {}", field.len())))
        };
        let request = UpdateRequest {
            comm_r_old: commitment(&self.comm_r_old, "comm_r_old")?,
            comm_r_new: commitment(&self.comm_r_new, "comm_r_new")?,
            comm_d_new: commitment(&self.comm_d_new, "comm_d_new")?,
            vanilla_proofs: self.vanilla_proofs.clone(),
        };
        Ok(ResolvedUpdate { proof, request })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(sector_size: u64, registered_proof: u64, commitments: usize) -> UpdateInput {
        UpdateInput {
            vanilla_proofs: vec![vec![1]],
            sector_size,
            registered_proof,
            comm_r_old: vec![1; commitments],
            comm_r_new: vec![2; 32],
            comm_d_new: vec![3; 32],
        }
    }

    #[test]
    fn fields_are_checked_against_each_other() {
        assert!(matches!(UpdateInput::default().resolve(), Err(UpdateRequestError::Empty)));
        assert!(matches!(input(0, 0, 32).resolve(), Err(UpdateRequestError::Inconsistent(_))));
        assert!(matches!(input(0, 9, 32).resolve(), Err(UpdateRequestError::UnknownRegisteredProof(9))));
        assert!(matches!(input(2048, 3, 32).resolve(), Err(UpdateRequestError::Inconsistent(_))), "a 32 GiB proof for 2 KiB sectors");
        assert!(matches!(input(0, 3, 31).resolve(), Err(UpdateRequestError::Inconsistent(_))), "a 31-byte comm_r_old");
        assert_eq!(input(0, 3, 32).resolve().unwrap().proof, RegisteredUpdateProof::StackedDrg32GiBV1);
        assert_eq!(input(2048, 0, 32).resolve().unwrap().proof, RegisteredUpdateProof::StackedDrg2KiBV1);
    }
}
