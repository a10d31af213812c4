//! The registered PoSt proofs this crate proves and their circuits: every
//! sector size's is one `FallbackPoStCircuit` over one of three tree
//! shapes (the PoRep's: a PoSt opens the sealed sector's tree_r_last).

use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_proofs::{PoStType, SectorShapeBase, SectorShapeSub8, SectorShapeTop2};
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::FallbackPoStCircuit;

use super::PostError;

/// The two proofs of spacetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostKind {
    /// WinningPoSt: one sector, its challenges unrolled into the circuit's
    /// sectors; a block's election proof.
    Winning,
    /// One partition of a WindowPoSt: up to the proof's sector count of
    /// sectors, each with its challenges.
    Window,
}

impl PostKind {
    /// The kind of a registered proof.
    pub fn of(proof: RegisteredPoStProof) -> Self {
        match proof.typ() {
            PoStType::Winning => PostKind::Winning,
            PoStType::Window => PostKind::Window,
        }
    }
}

/// Whether this crate proves `proof` (every registered PoSt proof of
/// filecoin-proofs 19 is version 1).
pub fn check_supported(proof: RegisteredPoStProof) -> Result<(), PostError> {
    if proof.major_version() != 1 {
        return Err(PostError::UnsupportedProof { proof: format!("{proof:?}"), why: "only version 1 PoSt proofs exist" });
    }
    Ok(())
}

/// A PoSt circuit of one of the tree shapes.
#[derive(Clone)]
pub enum PostCircuit {
    /// 2 KiB, 8 MiB and 512 MiB sectors.
    Base(FallbackPoStCircuit<SectorShapeBase>),
    /// 32 GiB sectors.
    Sub8(FallbackPoStCircuit<SectorShapeSub8>),
    /// 64 GiB sectors.
    Top2(FallbackPoStCircuit<SectorShapeTop2>),
}

impl Circuit<Scalar> for PostCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            PostCircuit::Base(c) => c.synthesize(cs),
            PostCircuit::Sub8(c) => c.synthesize(cs),
            PostCircuit::Top2(c) => c.synthesize(cs),
        }
    }
}

/// A tree shape whose PoSt circuit [`PostCircuit`] holds.
pub(crate) trait PostTree: MerkleTreeTrait<Hasher = PoseidonHasher> + Sized + 'static {
    fn wrap(circuit: FallbackPoStCircuit<Self>) -> PostCircuit;
}

impl PostTree for SectorShapeBase {
    fn wrap(circuit: FallbackPoStCircuit<Self>) -> PostCircuit {
        PostCircuit::Base(circuit)
    }
}

impl PostTree for SectorShapeSub8 {
    fn wrap(circuit: FallbackPoStCircuit<Self>) -> PostCircuit {
        PostCircuit::Sub8(circuit)
    }
}

impl PostTree for SectorShapeTop2 {
    fn wrap(circuit: FallbackPoStCircuit<Self>) -> PostCircuit {
        PostCircuit::Top2(circuit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_registered_proof() {
        assert_eq!(PostKind::of(RegisteredPoStProof::StackedDrgWinning32GiBV1), PostKind::Winning);
        assert_eq!(PostKind::of(RegisteredPoStProof::StackedDrgWindow2KiBV1_2), PostKind::Window);
        assert!(check_supported(RegisteredPoStProof::StackedDrgWindow64GiBV1).is_ok());
    }
}
