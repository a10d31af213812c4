//! A PoRep C2 request's fields turned into the library's `SealRequest`:
//! which registered proof, its C1 output, its sector's ids. Every
//! inconsistency is an error message for a FAILED answer, never a panic.

use cuzk::porep::{prover_id_from_miner, registered_proof_for, sector_bytes, C1Output, RegisteredSealProof, SealRequest, SectorIds};

use crate::registered::seal_proof_from_abi;

/// The PoRep fields of a `SubmitProofRequest`.
#[derive(Clone, Debug, Default)]
pub struct PorepInput {
    /// The C1 output, as Curio wraps it (or filecoin-proofs' own forms).
    pub vanilla_proof: Vec<u8>,
    /// The sector size in bytes; 0: unset.
    pub sector_size: u64,
    /// Go's `abi.RegisteredSealProof` number (0 is also "unset" unless the
    /// sector size says 2 KiB).
    pub registered_proof: u64,
    /// The sector number.
    pub sector_number: u64,
    /// The miner's actor id.
    pub miner_id: u64,
}

/// Why a PoRep request cannot be proved.
#[derive(Debug, thiserror::Error)]
pub enum PorepRequestError {
    /// No C1 output.
    #[error("vanilla_proof is empty: a PoRep C2 needs the sector's C1 output")]
    Empty,
    /// A `registered_proof` number Go's ABI does not define.
    #[error("registered_proof {0} is not a registered seal proof")]
    UnknownRegisteredProof(u64),
    /// Nothing says which proof it is.
    #[error("cannot tell the registered proof: the C1 output does not name it and neither registered_proof nor sector_size do")]
    NoProof,
    /// The fields disagree.
    #[error("{0}")]
    Inconsistent(String),
    /// The library refused the C1 output or the sector size.
    #[error(transparent)]
    Porep(#[from] cuzk::porep::PorepError),
}

/// A request ready for the prover.
#[derive(Clone, Debug)]
pub struct ResolvedPorep {
    /// Its registered proof.
    pub proof: RegisteredSealProof,
    /// Its C1 output and ids.
    pub request: SealRequest,
}

impl PorepInput {
    /// Reads the C1 output and checks it against the request's fields.
    /// CPU work (a 32 GiB C1 output is about 50 MB of JSON): called off the
    /// async runtime.
    pub fn resolve(&self) -> Result<ResolvedPorep, PorepRequestError> {
        if self.vanilla_proof.iter().all(u8::is_ascii_whitespace) {
            return Err(PorepRequestError::Empty);
        }
        // 0 is proto3's "unset" as well as Go's 2 KiB V1: only believed
        // when the sector size agrees.
        let numbered = match self.registered_proof {
            0 if self.sector_size != sector_bytes(RegisteredSealProof::StackedDrg2KiBV1) => None,
            n => Some(seal_proof_from_abi(n).ok_or(PorepRequestError::UnknownRegisteredProof(n))?),
        };
        let named = C1Output::registered_proof_of(&self.vanilla_proof);
        let proof = match (named, numbered) {
            (Some(named), Some(numbered)) if named != numbered && self.registered_proof != 0 => {
                return Err(PorepRequestError::Inconsistent(format!(
                    "registered_proof {} is {numbered:?} but the C1 output is a {named:?} proof",
                    self.registered_proof
                )))
            }
            (Some(named), _) => named,
            (None, Some(numbered)) => numbered,
            (None, None) if self.sector_size != 0 => registered_proof_for(self.sector_size)?,
            (None, None) => return Err(PorepRequestError::NoProof),
        };
        if self.sector_size != 0 && self.sector_size != sector_bytes(proof) {
            return Err(PorepRequestError::Inconsistent(format!(
                "wrong sector size: the request says {} bytes but {proof:?} seals sectors of {} bytes",
                self.sector_size,
                sector_bytes(proof)
            )));
        }
        let c1 = C1Output::parse(&self.vanilla_proof, proof)?;
        let sector_id = match c1.sector_num {
            Some(wrapped) if self.sector_number != 0 && wrapped != self.sector_number => {
                return Err(PorepRequestError::Inconsistent(format!(
                    "sector_number {} but the C1 wrapper's SectorNum is {wrapped}",
                    self.sector_number
                )))
            }
            Some(wrapped) => wrapped,
            None => self.sector_number,
        };
        let ids = SectorIds { prover_id: prover_id_from_miner(self.miner_id), sector_id };
        Ok(ResolvedPorep { proof, request: SealRequest { c1, ids } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(bytes: &[u8], sector_size: u64, registered_proof: u64) -> PorepInput {
        PorepInput { vanilla_proof: bytes.to_vec(), sector_size, registered_proof, ..Default::default() }
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(matches!(input(b"", 2048, 5).resolve(), Err(PorepRequestError::Empty)));
        assert!(matches!(input(b" \n", 2048, 5).resolve(), Err(PorepRequestError::Empty)));
        assert!(matches!(input(b"{}", 2048, 99).resolve(), Err(PorepRequestError::UnknownRegisteredProof(99))));
        assert!(matches!(input(b"{}", 0, 0).resolve(), Err(PorepRequestError::NoProof)));
        assert!(matches!(input(b"{}", 2048, 8).resolve(), Err(PorepRequestError::Inconsistent(_))));
        assert!(matches!(input(b"garbage", 2048, 5).resolve(), Err(PorepRequestError::Porep(_))));
        assert!(matches!(input(b"{\"x\":1}", 3000, 0).resolve(), Err(PorepRequestError::Porep(_))));
        assert!(matches!(input(&[0xff; 64], 0, 8).resolve(), Err(PorepRequestError::Porep(_))));
    }
}
