//! Registered proofs as the protocol names them: Go's
//! `abi.RegisteredSealProof` and `abi.RegisteredPoStProof` numbers (what
//! Curio puts in `registered_proof`) and SRS circuit ids such as
//! `porep-32g`, `winning-32g` and `wpost-32g`.

use std::fmt;

use cuzk::porep::{registered_proof_for, sector_bytes, RegisteredSealProof};
use cuzk::post::RegisteredPoStProof;
use cuzk::update::RegisteredUpdateProof;

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

/// Go's `abi.RegisteredPoStProof` numbering: index = number (Go's
/// `..V1_1` window proofs are filecoin-proofs' `..V1_2`).
const POST_ABI_ORDER: [RegisteredPoStProof; 15] = {
    use RegisteredPoStProof::*;
    [
        StackedDrgWinning2KiBV1,
        StackedDrgWinning8MiBV1,
        StackedDrgWinning512MiBV1,
        StackedDrgWinning32GiBV1,
        StackedDrgWinning64GiBV1,
        StackedDrgWindow2KiBV1,
        StackedDrgWindow8MiBV1,
        StackedDrgWindow512MiBV1,
        StackedDrgWindow32GiBV1,
        StackedDrgWindow64GiBV1,
        StackedDrgWindow2KiBV1_2,
        StackedDrgWindow8MiBV1_2,
        StackedDrgWindow512MiBV1_2,
        StackedDrgWindow32GiBV1_2,
        StackedDrgWindow64GiBV1_2,
    ]
};

/// The registered proof of Go's `abi.RegisteredPoStProof` number.
pub fn post_proof_from_abi(number: u64) -> Option<RegisteredPoStProof> {
    usize::try_from(number).ok().and_then(|i| POST_ABI_ORDER.get(i).copied())
}

/// The current registered PoSt proof of a kind and sector size (what a
/// request that leaves `registered_proof` unset means).
pub fn current_post_proof(winning: bool, sector_bytes: u64) -> Option<RegisteredPoStProof> {
    // The last of each kind and size in Go's order is the current one.
    POST_ABI_ORDER
        .iter()
        .rev()
        .copied()
        .find(|p| u64::from(p.sector_size()) == sector_bytes && (cuzk::post::PostKind::of(*p) == cuzk::post::PostKind::Winning) == winning)
}

/// Go's `abi.RegisteredUpdateProof` numbering: index = number.
const UPDATE_ABI_ORDER: [RegisteredUpdateProof; 5] = {
    use RegisteredUpdateProof::*;
    [StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1, StackedDrg64GiBV1]
};

/// The registered proof of Go's `abi.RegisteredUpdateProof` number.
pub fn update_proof_from_abi(number: u64) -> Option<RegisteredUpdateProof> {
    usize::try_from(number).ok().and_then(|i| UPDATE_ABI_ORDER.get(i).copied())
}

/// The registered update proof of a sector size.
pub fn update_proof_for(sector_bytes: u64) -> Option<RegisteredUpdateProof> {
    UPDATE_ABI_ORDER.iter().copied().find(|p| u64::from(p.sector_size()) == sector_bytes)
}

/// What a prover proves: one registered proof, of any of the protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CircuitKey {
    /// PoRep C2.
    Seal(RegisteredSealProof),
    /// WinningPoSt or a WindowPoSt partition.
    Post(RegisteredPoStProof),
    /// A SnapDeals sector update.
    Update(RegisteredUpdateProof),
}

impl CircuitKey {
    /// Every key, Go's numbering order, seal proofs first.
    pub fn all() -> impl Iterator<Item = CircuitKey> {
        let seal = ABI_ORDER.iter().map(|&p| CircuitKey::Seal(p));
        let post = POST_ABI_ORDER.iter().map(|&p| CircuitKey::Post(p));
        seal.chain(post).chain(UPDATE_ABI_ORDER.iter().map(|&p| CircuitKey::Update(p)))
    }

    /// The key a circuit id names ([`fmt::Display`]'s forms, any case).
    pub fn of_id(id: &str) -> Option<CircuitKey> {
        let id = id.trim().to_ascii_lowercase();
        CircuitKey::all().find(|key| key.to_string().to_ascii_lowercase() == id)
    }
}

impl fmt::Display for CircuitKey {
    /// Upstream's ids for the current proofs (`porep-32g`, `winning-32g`,
    /// `wpost-32g`, `snap-32g`); others carry the proof's name
    /// (`wpost-32g-StackedDrgWindow32GiBV1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CircuitKey::Seal(proof) => write!(f, "{}", circuit_id(proof)),
            CircuitKey::Post(proof) => {
                let winning = cuzk::post::PostKind::of(proof) == cuzk::post::PostKind::Winning;
                let bytes = u64::from(proof.sector_size());
                write!(f, "{}-{}", if winning { "winning" } else { "wpost" }, size_tag(bytes))?;
                if current_post_proof(winning, bytes) != Some(proof) {
                    write!(f, "-{proof:?}")?;
                }
                Ok(())
            }
            CircuitKey::Update(proof) => write!(f, "snap-{}", size_tag(u64::from(proof.sector_size()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_abi_numbers_and_circuit_ids() {
        use RegisteredPoStProof::*;
        assert_eq!(post_proof_from_abi(3), Some(StackedDrgWinning32GiBV1), "upstream: Winning 32G = 3");
        assert_eq!(post_proof_from_abi(13), Some(StackedDrgWindow32GiBV1_2), "upstream: Window 32G V1.1 = 13");
        assert_eq!(post_proof_from_abi(15), None);
        assert_eq!(CircuitKey::Post(StackedDrgWinning32GiBV1).to_string(), "winning-32g");
        assert_eq!(CircuitKey::Post(StackedDrgWindow32GiBV1_2).to_string(), "wpost-32g");
        assert_eq!(CircuitKey::Post(StackedDrgWindow2KiBV1).to_string(), "wpost-2k-StackedDrgWindow2KiBV1");
        assert_eq!(CircuitKey::Seal(RegisteredSealProof::StackedDrg32GiBV1_1).to_string(), "porep-32g");
        for key in CircuitKey::all() {
            assert_eq!(CircuitKey::of_id(&key.to_string()), Some(key), "{key}");
        }
        assert_eq!(CircuitKey::of_id("WPOST-32G"), Some(CircuitKey::Post(StackedDrgWindow32GiBV1_2)));
        assert_eq!(CircuitKey::of_id("snap-32g"), Some(CircuitKey::Update(RegisteredUpdateProof::StackedDrg32GiBV1)));
        assert_eq!(update_proof_from_abi(3), Some(RegisteredUpdateProof::StackedDrg32GiBV1), "upstream: Update 32G = 3");
        assert_eq!(update_proof_for(2048), Some(RegisteredUpdateProof::StackedDrg2KiBV1));
        assert_eq!(CircuitKey::of_id("snap-3g"), None);
        assert_eq!(current_post_proof(true, 2048), Some(StackedDrgWinning2KiBV1));
        assert_eq!(current_post_proof(false, 2048), Some(StackedDrgWindow2KiBV1_2));
    }

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
            assert_eq!(CircuitKey::of_id(&circuit_id(proof)), Some(CircuitKey::Seal(proof)));
        }
        assert_eq!(CircuitKey::of_id("porep-3g"), None);
    }
}
