//! Registered seal proofs as the protocol names them: Go's
//! `abi.RegisteredSealProof` numbers (what Curio puts in
//! `registered_proof`) and SRS circuit ids such as `porep-32g`.

use cuzk::porep::{registered_proof_for, sector_bytes, RegisteredSealProof};

use RegisteredSealProof::*;

/// Go's `abi.RegisteredSealProof` numbering: index = number.
const ABI_ORDER: [RegisteredSealProof; 20] = [
    StackedDrg2KiBV1,
    StackedDrg8MiBV1,
    StackedDrg512MiBV1,
    StackedDrg32GiBV1,
    StackedDrg64GiBV1,
    StackedDrg2KiBV1_1,
    StackedDrg8MiBV1_1,
    StackedDrg512MiBV1_1,
    StackedDrg32GiBV1_1,
    StackedDrg64GiBV1_1,
    StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
    StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
    StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
    StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
    StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
    StackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
];

/// The registered proof of Go's `abi.RegisteredSealProof` number.
pub fn seal_proof_from_abi(number: u64) -> Option<RegisteredSealProof> {
    usize::try_from(number).ok().and_then(|i| ABI_ORDER.get(i).copied())
}

/// A sector size as circuit ids write it: `2k`, `8m`, `512m`, `32g`, `64g`.
fn size_tag(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{}g", b >> 30),
        b if b >= 1 << 20 => format!("{}m", b >> 20),
        b => format!("{}k", b >> 10),
    }
}

/// The circuit id of a registered proof: `porep-32g` for the current
/// network version's (V1_1, upstream's ids), else `porep-32g-<proof name>`.
pub fn circuit_id(proof: RegisteredSealProof) -> String {
    let base = format!("porep-{}", size_tag(sector_bytes(proof)));
    match registered_proof_for(sector_bytes(proof)) {
        Ok(current) if current == proof => base,
        _ => format!("{base}-{proof:?}"),
    }
}

/// The registered proof a circuit id names ([`circuit_id`]'s forms;
/// `None` for ids of other proof kinds or unknown sizes).
pub fn seal_proof_of_circuit(id: &str) -> Option<RegisteredSealProof> {
    let id = id.trim().to_ascii_lowercase();
    ABI_ORDER.iter().copied().find(|&proof| circuit_id(proof).to_ascii_lowercase() == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_numbers_and_circuit_ids() {
        assert_eq!(seal_proof_from_abi(0), Some(StackedDrg2KiBV1));
        assert_eq!(seal_proof_from_abi(8), Some(StackedDrg32GiBV1_1));
        assert_eq!(seal_proof_from_abi(20), None);
        assert_eq!(seal_proof_from_abi(u64::MAX), None);
        assert_eq!(circuit_id(StackedDrg32GiBV1_1), "porep-32g");
        assert_eq!(circuit_id(StackedDrg2KiBV1_1), "porep-2k");
        assert_eq!(circuit_id(StackedDrg512MiBV1_1), "porep-512m");
        assert_eq!(circuit_id(StackedDrg2KiBV1), "porep-2k-StackedDrg2KiBV1");
        for proof in ABI_ORDER {
            assert_eq!(seal_proof_of_circuit(&circuit_id(proof)), Some(proof));
        }
        assert_eq!(seal_proof_of_circuit("wpost-32g"), None);
        assert_eq!(seal_proof_of_circuit("porep-3g"), None);
    }
}
