//! A sector update's circuit, over one of the three tree shapes (the
//! sealed sector's tree_r).

use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use filecoin_proofs::{SectorShapeBase, SectorShapeSub8, SectorShapeTop2};
use storage_proofs_update::constants::TreeRHasher;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::circuit::EmptySectorUpdateCircuit;

/// An empty-sector-update partition circuit of one of the tree shapes.
pub enum UpdateCircuit {
    /// 2 KiB, 8 MiB and 512 MiB sectors.
    Base(EmptySectorUpdateCircuit<SectorShapeBase>),
    /// 32 GiB sectors.
    Sub8(EmptySectorUpdateCircuit<SectorShapeSub8>),
    /// 64 GiB sectors.
    Top2(EmptySectorUpdateCircuit<SectorShapeTop2>),
}

impl Circuit<Scalar> for UpdateCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            UpdateCircuit::Base(c) => c.synthesize(cs),
            UpdateCircuit::Sub8(c) => c.synthesize(cs),
            UpdateCircuit::Top2(c) => c.synthesize(cs),
        }
    }
}

/// A tree shape whose update circuit [`UpdateCircuit`] holds.
pub(crate) trait UpdateTree: MerkleTreeTrait<Hasher = TreeRHasher> + Sized + 'static {
    fn wrap(circuit: EmptySectorUpdateCircuit<Self>) -> UpdateCircuit;
}

impl UpdateTree for SectorShapeBase {
    fn wrap(circuit: EmptySectorUpdateCircuit<Self>) -> UpdateCircuit {
        UpdateCircuit::Base(circuit)
    }
}

impl UpdateTree for SectorShapeSub8 {
    fn wrap(circuit: EmptySectorUpdateCircuit<Self>) -> UpdateCircuit {
        UpdateCircuit::Sub8(circuit)
    }
}

impl UpdateTree for SectorShapeTop2 {
    fn wrap(circuit: EmptySectorUpdateCircuit<Self>) -> UpdateCircuit {
        UpdateCircuit::Top2(circuit)
    }
}
