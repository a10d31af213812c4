//! Groth16 parameters made from a compiled circuit and its toxic waste, as
//! bellperson's `generate_parameters` makes them: the same points, so the
//! same file, byte for byte.
//!
//! The steps: the Lagrange coefficients of the evaluation domain at τ
//! (`qap`); each variable's A, B and C polynomials at τ, summed over the
//! compiled matrices' columns (`qap`); then every query's fixed-base
//! multiplications (`cpu`), and bellperson's file format (`file`).

mod cpu;
mod file;
mod qap;
#[cfg(test)]
mod tests;

use blstrs::{G1Projective, G2Projective, Scalar};

pub use cpu::generate_parameters;
pub use file::write_parameters;

/// The secrets of a setup and its generators. Whoever knows them can
/// forge proofs: for tests, benchmarks and a trusted local setup only.
#[derive(Clone, Copy, Debug)]
pub struct ToxicWaste {
    /// The G1 generator the parameters are built on.
    pub g1: G1Projective,
    /// The G2 generator.
    pub g2: G2Projective,
    /// α.
    pub alpha: Scalar,
    /// β.
    pub beta: Scalar,
    /// γ.
    pub gamma: Scalar,
    /// δ.
    pub delta: Scalar,
    /// τ, where the QAP is evaluated.
    pub tau: Scalar,
}

impl ToxicWaste {
    /// Random secrets and generators, drawn in the order bellperson's
    /// `generate_random_parameters` draws them (g1, g2, α, β, γ, δ, τ):
    /// the same `rng` state gives the same parameters as bellperson's.
    pub fn random(rng: &mut impl rand_core::RngCore) -> Self {
        use ff::Field;
        use group::Group;
        let g1 = G1Projective::random(&mut *rng);
        let g2 = G2Projective::random(&mut *rng);
        let mut draw = || Scalar::random(&mut *rng);
        let (alpha, beta, gamma, delta, tau) = (draw(), draw(), draw(), draw(), draw());
        ToxicWaste { g1, g2, alpha, beta, gamma, delta, tau }
    }
}

/// Why parameters could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// γ or δ is zero: the parameters would divide by it.
    #[error("{0} is zero: it has no inverse")]
    ZeroSecret(&'static str),
    /// The circuit needs a domain larger than BLS12-381's 2^32.
    #[error("the circuit's {constraints} constraints need an evaluation domain larger than 2^32")]
    DomainTooLarge {
        /// Constraints, the per-input rows included.
        constraints: usize,
    },
    /// An aux variable no constraint constrains: its L point would be the
    /// identity (bellperson's `UnconstrainedVariable`).
    #[error("aux variable {index} is unconstrained: its L query point is the identity")]
    UnconstrainedVariable {
        /// Its index among the aux variables.
        index: usize,
    },
    /// Writing the file failed.
    #[error("writing parameters to {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}
