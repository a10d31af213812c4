//! The PoRep witness made natively: the aux values of storage-proofs'
//! `StackedCircuit` in the order its witness-only synthesis allocates
//! them, without running the SHA-256 gadget (~98% of the values), in
//! parallel across challenges, layers and tree_d levels.
//!
//! It is a fast path, never a different answer: it is used only for
//! compiled circuits it was checked against ([`recognizes`], by the
//! compiled circuit's digest), the general witness-only synthesis stays
//! for every other circuit, the prover's a·b = c check stays on, and
//! [`NativeWitness::Checked`] compares it value by value with the general
//! synthesis on every partition (a [`WitnessMismatch`] names the first
//! differing value).

mod known;
mod partition;
mod por;
mod poseidon;
mod sha256;
mod uint32;

pub use known::{recognizes, KNOWN_CIRCUITS};
pub use partition::NativePartition;

use blstrs::Scalar;

/// Whether a [`crate::porep::SealProver`] makes witnesses natively.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NativeWitness {
    /// Natively for the compiled circuits it [`recognizes`], else by
    /// witness-only synthesis.
    #[default]
    Auto,
    /// Always by witness-only synthesis.
    Off,
    /// Natively, then compared with witness-only synthesis value by value
    /// (as slow as both together): for checking a circuit it does not
    /// recognize yet.
    Checked,
}

/// The native witness and witness-only synthesis differ.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the native witness differs from witness-only synthesis at {what} index {index} (of {len}){}", if *.lengths_differ { " (their lengths differ)" } else { "" })]
pub struct WitnessMismatch {
    /// "aux" or "input".
    pub what: &'static str,
    /// The first index whose values differ (or the shorter length).
    pub index: usize,
    /// The native witness's length of that vector.
    pub len: usize,
    /// Whether the two vectors' lengths differ.
    pub lengths_differ: bool,
}

/// The first difference between a native and a general witness (inputs
/// with ONE first, aux), if any.
pub fn first_difference(native: (&[Scalar], &[Scalar]), general: (&[Scalar], &[Scalar])) -> Option<WitnessMismatch> {
    let check = |what, a: &[Scalar], b: &[Scalar]| {
        let index = a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then(|| a.len().min(b.len())))?;
        Some(WitnessMismatch { what, index, len: a.len(), lengths_differ: a.len() != b.len() })
    };
    check("input", native.0, general.0).or_else(|| check("aux", native.1, general.1))
}

#[cfg(test)]
mod tests;
