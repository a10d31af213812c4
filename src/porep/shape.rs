//! The registered PoRep proofs this crate proves, and their Merkle tree
//! types: every sector size's circuit is one `StackedCircuit` over one of
//! three tree shapes.

use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_proofs::{SectorShapeBase, SectorShapeSub8, SectorShapeTop2};
use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_proofs_api::RegisteredSealProof;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_porep::stacked::StackedCircuit;

use super::witness::{first_difference, NativePartition};
use super::PorepError;
#[cfg(doc)]
use super::witness::NativeWitness;

/// Calls `$f::<Tree>(args)` with the Merkle tree type of a sector size
/// (in bytes): 2 KiB, 8 MiB and 512 MiB sectors have one base tree of
/// arity 8, 32 GiB ones eight of them under an arity-8 level, 64 GiB ones
/// two of those under an arity-2 top.
macro_rules! with_tree {
    ($sector_bytes:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        $crate::porep::with_tree!($sector_bytes, $f($($arg),*), $crate::porep::PorepError::UnsupportedSectorSize)
    };
    // Another error for a size with no tree shape (other proof kinds).
    ($sector_bytes:expr, $f:ident ( $($arg:expr),* $(,)? ), $unsupported:path) => {
        match $sector_bytes {
            filecoin_proofs::SECTOR_SIZE_2_KIB | filecoin_proofs::SECTOR_SIZE_8_MIB | filecoin_proofs::SECTOR_SIZE_512_MIB => {
                $f::<filecoin_proofs::SectorShapeBase>($($arg),*)
            }
            filecoin_proofs::SECTOR_SIZE_32_GIB => $f::<filecoin_proofs::SectorShapeSub8>($($arg),*),
            filecoin_proofs::SECTOR_SIZE_64_GIB => $f::<filecoin_proofs::SectorShapeTop2>($($arg),*),
            other => Err($unsupported(other)),
        }
    };
}
pub(crate) use with_tree;

/// The sector sizes with a registered PoRep, smallest first.
pub const SECTOR_SIZES: [u64; 5] = [
    filecoin_proofs::SECTOR_SIZE_2_KIB,
    filecoin_proofs::SECTOR_SIZE_8_MIB,
    filecoin_proofs::SECTOR_SIZE_512_MIB,
    filecoin_proofs::SECTOR_SIZE_32_GIB,
    filecoin_proofs::SECTOR_SIZE_64_GIB,
];

/// The registered proof of the current network version (API 1.1) for a
/// sector size, as Curio and lotus seal today.
pub fn registered_proof_for(sector_bytes: u64) -> Result<RegisteredSealProof, PorepError> {
    use RegisteredSealProof::*;
    Ok(match sector_bytes {
        filecoin_proofs::SECTOR_SIZE_2_KIB => StackedDrg2KiBV1_1,
        filecoin_proofs::SECTOR_SIZE_8_MIB => StackedDrg8MiBV1_1,
        filecoin_proofs::SECTOR_SIZE_512_MIB => StackedDrg512MiBV1_1,
        filecoin_proofs::SECTOR_SIZE_32_GIB => StackedDrg32GiBV1_1,
        filecoin_proofs::SECTOR_SIZE_64_GIB => StackedDrg64GiBV1_1,
        other => return Err(PorepError::UnsupportedSectorSize(other)),
    })
}

/// Parses a sector size as people write it: `2KiB`, `8MiB`, `512MiB`,
/// `32GiB`, `64GiB`, or a number of bytes.
pub fn parse_sector_size(text: &str) -> Result<u64, PorepError> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "kib" | "k" => 10,
        "mib" | "m" => 20,
        "gib" | "g" => 30,
        _ => return Err(PorepError::InvalidC1(format!("not a sector size: {text:?}"))),
    };
    let n: u64 = digits.parse().map_err(|_| PorepError::InvalidC1(format!("not a sector size: {text:?}")))?;
    let bytes = n.checked_shl(shift).filter(|b| b >> shift == n).ok_or_else(|| PorepError::InvalidC1(format!("not a sector size: {text:?}")))?;
    registered_proof_for(bytes).map(|_| bytes)
}

/// A sector size in bytes as people write it (`32GiB`).
pub fn sector_size_name(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{}GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}

/// The sector size of a registered proof, in bytes.
pub fn sector_bytes(proof: RegisteredSealProof) -> u64 {
    u64::from(proof.sector_size())
}

/// Refuses the registered proofs whose C2 is not a set of partition proofs
/// (non-interactive PoRep aggregates them) or not of major version 1.
pub fn check_supported(proof: RegisteredSealProof) -> Result<(), PorepError> {
    if proof.major_version() != 1 {
        return Err(PorepError::UnsupportedProof { proof: format!("{proof:?}"), why: "only version 1 seal proofs exist" });
    }
    if proof.feature_enabled(filecoin_proofs_api::ApiFeature::NonInteractivePoRep) {
        return Err(PorepError::UnsupportedProof {
            proof: format!("{proof:?}"),
            why: "non-interactive PoRep's C2 is an aggregate of the partition proofs, which cuzk does not make yet",
        });
    }
    Ok(())
}

/// One partition's PoRep circuit, whichever tree shape its sector has: the
/// type `Prover::prove_batch` takes for the partitions of any sector.
#[derive(Clone)]
pub enum PorepCircuit {
    /// 2 KiB, 8 MiB and 512 MiB sectors.
    Base(StackedCircuit<SectorShapeBase, Sha256Hasher>),
    /// 32 GiB sectors.
    Sub8(StackedCircuit<SectorShapeSub8, Sha256Hasher>),
    /// 64 GiB sectors.
    Top2(StackedCircuit<SectorShapeTop2, Sha256Hasher>),
    /// A partition whose witness is made natively ([`crate::porep::witness`]).
    Native(Box<NativeCircuit>),
}

impl Circuit<Scalar> for PorepCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self {
            PorepCircuit::Base(c) => c.synthesize(cs),
            PorepCircuit::Sub8(c) => c.synthesize(cs),
            PorepCircuit::Top2(c) => c.synthesize(cs),
            PorepCircuit::Native(c) => c.synthesize(cs),
        }
    }
}

/// A partition circuit with its native witness: witness-only synthesis
/// from the start of a witness takes the native path; anything else (a
/// full synthesis, recording) runs the general circuit.
#[derive(Clone)]
pub struct NativeCircuit {
    general: PorepCircuit,
    native: NativeShape,
    /// Compare with witness-only synthesis ([`NativeWitness::Checked`]).
    checked: bool,
}

/// A [`NativePartition`] of one of the three tree shapes.
#[derive(Clone)]
pub enum NativeShape {
    #[allow(missing_docs)]
    Base(NativePartition<SectorShapeBase>),
    #[allow(missing_docs)]
    Sub8(NativePartition<SectorShapeSub8>),
    #[allow(missing_docs)]
    Top2(NativePartition<SectorShapeTop2>),
}

impl NativeCircuit {
    /// The partition's general circuit.
    pub fn general(&self) -> &PorepCircuit {
        &self.general
    }

    /// This native witness with another general circuit (tests of the
    /// comparison).
    #[cfg(test)]
    pub(crate) fn with_general(self, general: PorepCircuit) -> Self {
        NativeCircuit { general, ..self }
    }

    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        if !(cs.is_witness_generator() && cs.inputs_slice().len() == 1 && cs.aux_slice().is_empty()) {
            return self.general.synthesize(cs);
        }
        match &self.native {
            NativeShape::Base(n) => n.synthesize(cs)?,
            NativeShape::Sub8(n) => n.synthesize(cs)?,
            NativeShape::Top2(n) => n.synthesize(cs)?,
        }
        if self.checked {
            let (input, aux) = crate::compiled::synthesize_witness(self.general).map_err(|e| SynthesisError::IoError(std::io::Error::other(e.to_string())))?;
            if let Some(mismatch) = first_difference((cs.inputs_slice(), cs.aux_slice()), (&input, &aux)) {
                return Err(SynthesisError::IoError(std::io::Error::other(mismatch)));
            }
        }
        Ok(())
    }
}

/// A tree type of a registered PoRep, and how its circuits become a
/// [`PorepCircuit`].
pub trait ShapeTree: MerkleTreeTrait<Hasher = PoseidonHasher> + Sized + 'static {
    /// Wraps a partition circuit of this tree shape.
    fn wrap(circuit: StackedCircuit<Self, Sha256Hasher>) -> PorepCircuit;

    /// Wraps a partition circuit with its native witness.
    fn wrap_native(circuit: StackedCircuit<Self, Sha256Hasher>, native: NativePartition<Self>, checked: bool) -> PorepCircuit {
        PorepCircuit::Native(Box::new(NativeCircuit { general: Self::wrap(circuit), native: Self::native_shape(native), checked }))
    }

    /// Its native partition as a [`NativeShape`].
    fn native_shape(native: NativePartition<Self>) -> NativeShape;
}

impl ShapeTree for SectorShapeBase {
    fn wrap(circuit: StackedCircuit<Self, Sha256Hasher>) -> PorepCircuit {
        PorepCircuit::Base(circuit)
    }

    fn native_shape(native: NativePartition<Self>) -> NativeShape {
        NativeShape::Base(native)
    }
}

impl ShapeTree for SectorShapeSub8 {
    fn wrap(circuit: StackedCircuit<Self, Sha256Hasher>) -> PorepCircuit {
        PorepCircuit::Sub8(circuit)
    }

    fn native_shape(native: NativePartition<Self>) -> NativeShape {
        NativeShape::Sub8(native)
    }
}

impl ShapeTree for SectorShapeTop2 {
    fn wrap(circuit: StackedCircuit<Self, Sha256Hasher>) -> PorepCircuit {
        PorepCircuit::Top2(circuit)
    }

    fn native_shape(native: NativePartition<Self>) -> NativeShape {
        NativeShape::Top2(native)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sector_sizes_read_as_written_and_others_are_refused() {
        assert_eq!(parse_sector_size("2KiB").unwrap(), 2048);
        assert_eq!(parse_sector_size("32GiB").unwrap(), 32 << 30);
        assert_eq!(parse_sector_size("8388608").unwrap(), 8 << 20);
        for bad in ["4KiB", "32 GB", "", "GiB", "99999999999999999999GiB", "1"] {
            assert!(parse_sector_size(bad).is_err(), "{bad}");
        }
        for size in SECTOR_SIZES {
            assert_eq!(parse_sector_size(&sector_size_name(size)).unwrap(), size);
            assert_eq!(sector_bytes(registered_proof_for(size).unwrap()), size);
        }
    }

    #[test]
    fn non_interactive_porep_is_refused_with_why() {
        let err = check_supported(RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep).unwrap_err();
        assert!(matches!(err, PorepError::UnsupportedProof { .. }), "{err}");
        check_supported(RegisteredSealProof::StackedDrg32GiBV1_1).unwrap();
        check_supported(RegisteredSealProof::StackedDrg32GiBV1_1_Feat_SyntheticPoRep).unwrap();
    }
}
