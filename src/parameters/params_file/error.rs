//! Why a parameter file cannot be used.

use std::path::PathBuf;

use super::Query;

/// What is wrong with one point of a parameter file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointProblem {
    /// The point at infinity, which the format forbids in every query.
    Identity,
    /// Flags that an uncompressed point cannot have, or a coordinate not
    /// below the field's modulus.
    Encoding,
    /// Not on the curve.
    NotOnCurve,
    /// On the curve but not in the prime-order subgroup.
    NotInSubgroup,
}

impl PointProblem {
    /// The problem a decoding kernel reports (`cuzk_kernels::point_decode`:
    /// the low two bits of its key).
    #[cfg(any(feature = "cuda", test))]
    pub(crate) fn from_kernel_code(code: u64) -> Self {
        use cuzk_kernels::point_decode::{PROBLEM_ENCODING, PROBLEM_IDENTITY, PROBLEM_OFF_CURVE};
        match code % 4 {
            PROBLEM_IDENTITY => PointProblem::Identity,
            PROBLEM_ENCODING => PointProblem::Encoding,
            PROBLEM_OFF_CURVE => PointProblem::NotOnCurve,
            _ => PointProblem::NotInSubgroup,
        }
    }
}

impl std::fmt::Display for PointProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PointProblem::Identity => "is the point at infinity",
            PointProblem::Encoding => "is badly encoded (flags or a coordinate out of range)",
            PointProblem::NotOnCurve => "is not on the curve",
            PointProblem::NotInSubgroup => "is not in the prime-order subgroup",
        })
    }
}

/// Why a Groth16 parameter file could not be opened, checked or loaded.
#[derive(Debug, thiserror::Error)]
pub enum ParamsFileError {
    /// The file could not be opened, mapped or read.
    #[error("parameter file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file ends inside its verifying key or a query.
    #[error("parameter file is truncated: {what} needs bytes up to {needed}, the file has {found}")]
    Truncated {
        /// The part that does not fit.
        what: &'static str,
        /// The end offset that part needs.
        needed: u64,
        /// The file's length.
        found: u64,
    },
    /// The file goes on after its last query.
    #[error("parameter file has {extra} bytes after its last query (not a parameter file, or two concatenated)")]
    TrailingBytes {
        /// Bytes past the B-in-G2 query.
        extra: u64,
    },
    /// A point that cannot be used.
    #[error("parameter file: point {index} of the {query} {problem}")]
    BadPoint {
        /// The verifying key or the query it is in.
        query: Query,
        /// Its index in that query (the verifying key's points: α, β₁,
        /// β₂, γ₂, δ₁, δ₂, then the inputs' bases).
        index: usize,
        /// What is wrong with it.
        problem: PointProblem,
    },
    /// The file's digest is not the one expected.
    #[error("parameter file digest mismatch: expected {expected}, the file has {found}")]
    DigestMismatch {
        /// The expected digest (hex).
        expected: String,
        /// The file's digest, as many hex digits as expected.
        found: String,
    },
    /// An expected digest that is not hex or longer than BLAKE2b's.
    #[error("expected digest {0:?} is not 1 to 128 hex digits")]
    BadExpectedDigest(String),
}
