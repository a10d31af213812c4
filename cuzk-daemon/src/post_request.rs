//! A PoSt request's fields (WINNING_POST, WINDOW_POST_PARTITION) turned
//! into the library's `PostRequest`: which registered proof, the vanilla
//! proofs, the randomness and the prover id. Every inconsistency is an
//! error message for a FAILED answer, never a panic.

use cuzk::porep::prover_id_from_miner;
use cuzk::post::{PostKind, PostRequest, RegisteredPoStProof};

use crate::registered::{current_post_proof, post_proof_from_abi};

/// The PoSt fields of a `SubmitProofRequest`.
#[derive(Clone, Debug, Default)]
pub struct PostInput {
    /// One vanilla proof per sector (filecoin-proofs'
    /// `FallbackPoStSectorProof`, bincode).
    pub vanilla_proofs: Vec<Vec<u8>>,
    /// The sector size in bytes; 0: unset.
    pub sector_size: u64,
    /// Go's `abi.RegisteredPoStProof` number (0 is also "unset" unless the
    /// sector size says 2 KiB).
    pub registered_proof: u64,
    /// The miner's actor id.
    pub miner_id: u64,
    /// The 32-byte challenge seed.
    pub randomness: Vec<u8>,
    /// The WindowPoSt partition.
    pub partition_index: u32,
}

/// Why a PoSt request cannot be proved.
#[derive(Debug, thiserror::Error)]
pub enum PostRequestError {
    /// No vanilla proofs.
    #[error("vanilla_proofs is empty: a PoSt needs one vanilla proof per sector")]
    Empty,
    /// A `registered_proof` number Go's ABI does not define.
    #[error("registered_proof {0} is not a registered PoSt proof")]
    UnknownRegisteredProof(u64),
    /// Nothing says which proof it is.
    #[error("cannot tell the registered proof: neither registered_proof nor sector_size is set")]
    NoProof,
    /// The fields disagree, or one is malformed.
    #[error("{0}")]
    Inconsistent(String),
}

/// A request ready for the prover.
#[derive(Clone, Debug)]
pub struct ResolvedPost {
    /// Its registered proof.
    pub proof: RegisteredPoStProof,
    /// What to prove.
    pub request: PostRequest,
}

impl PostInput {
    /// Checks the request's fields against each other and against `kind`
    /// (the request's proof kind). The vanilla proofs themselves are
    /// decoded and checked by the prover.
    pub fn resolve(&self, kind: PostKind) -> Result<ResolvedPost, PostRequestError> {
        if self.vanilla_proofs.is_empty() {
            return Err(PostRequestError::Empty);
        }
        let winning = kind == PostKind::Winning;
        // 0 is proto3's "unset" as well as Go's WinningPoSt 2 KiB: only
        // believed for a 2 KiB WinningPoSt.
        let proof = match self.registered_proof {
            0 if !(winning && self.sector_size == 2048) => match self.sector_size {
                0 => return Err(PostRequestError::NoProof),
                bytes => current_post_proof(winning, bytes).ok_or_else(|| PostRequestError::Inconsistent(format!("no {kind:?}PoSt is registered for sectors of {bytes} bytes")))?,
            },
            n => post_proof_from_abi(n).ok_or(PostRequestError::UnknownRegisteredProof(n))?,
        };
        if PostKind::of(proof) != kind {
            return Err(PostRequestError::Inconsistent(format!("registered_proof {} is {proof:?}, not a {kind:?}PoSt proof", self.registered_proof)));
        }
        let bytes = u64::from(proof.sector_size());
        if self.sector_size != 0 && self.sector_size != bytes {
            return Err(PostRequestError::Inconsistent(format!("wrong sector size: the request says {} bytes but {proof:?} proves sectors of {bytes} bytes", self.sector_size)));
        }
        let randomness: [u8; 32] = self
            .randomness
            .as_slice()
            .try_into()
            .map_err(|_| PostRequestError::Inconsistent(format!("randomness must be 32 bytes, the request has {}", self.randomness.len())))?;
        let request = PostRequest {
            randomness,
            prover_id: prover_id_from_miner(self.miner_id),
            vanilla_proofs: self.vanilla_proofs.clone(),
            partition_index: self.partition_index as usize,
        };
        Ok(ResolvedPost { proof, request })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(sector_size: u64, registered_proof: u64, randomness: usize) -> PostInput {
        PostInput { vanilla_proofs: vec![vec![1, 2, 3]], sector_size, registered_proof, randomness: vec![0; randomness], ..Default::default() }
    }

    #[test]
    fn fields_are_checked_against_each_other() {
        use RegisteredPoStProof::*;
        assert!(matches!(PostInput::default().resolve(PostKind::Winning), Err(PostRequestError::Empty)));
        assert!(matches!(input(0, 0, 32).resolve(PostKind::Window), Err(PostRequestError::NoProof)));
        assert!(matches!(input(0, 99, 32).resolve(PostKind::Window), Err(PostRequestError::UnknownRegisteredProof(99))));
        assert!(matches!(input(0, 3, 32).resolve(PostKind::Window), Err(PostRequestError::Inconsistent(_))), "a winning number for a window request");
        assert!(matches!(input(2048, 13, 32).resolve(PostKind::Window), Err(PostRequestError::Inconsistent(_))), "a 32 GiB proof for 2 KiB sectors");
        assert!(matches!(input(0, 13, 31).resolve(PostKind::Window), Err(PostRequestError::Inconsistent(_))), "31 bytes of randomness");
        assert!(matches!(input(3000, 0, 32).resolve(PostKind::Window), Err(PostRequestError::Inconsistent(_))));
        assert_eq!(input(0, 13, 32).resolve(PostKind::Window).unwrap().proof, StackedDrgWindow32GiBV1_2);
        assert_eq!(input(2048, 0, 32).resolve(PostKind::Winning).unwrap().proof, StackedDrgWinning2KiBV1);
        assert_eq!(input(2048, 0, 32).resolve(PostKind::Window).unwrap().proof, StackedDrgWindow2KiBV1_2, "unset: the current proof of the size");
        assert_eq!(input(34359738368, 0, 32).resolve(PostKind::Winning).unwrap().proof, StackedDrgWinning32GiBV1);
    }
}
