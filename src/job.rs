//! One proof request: a synthesized circuit and its blinding randomness.

use blstrs::Scalar;
use ff::Field;
use rand_core::RngCore;

use crate::assignment::Assignment;

pub struct ProofJob {
    pub assignment: Assignment,
    /// Groth16's blinding factors; fixed values reproduce a proof exactly.
    pub r: Scalar,
    pub s: Scalar,
}

impl ProofJob {
    /// A job with fresh random r and s (drawn r first, then s, as bellperson).
    pub fn new(assignment: Assignment, rng: &mut impl RngCore) -> Self {
        let (r, s) = random_r_s(rng);
        ProofJob { assignment, r, s }
    }

    pub fn with_randomness(assignment: Assignment, r: Scalar, s: Scalar) -> Self {
        ProofJob { assignment, r, s }
    }
}

/// Fresh blinding factors: r first, then s, as bellperson draws them.
pub fn random_r_s(rng: &mut impl RngCore) -> (Scalar, Scalar) {
    let r = Scalar::random(&mut *rng);
    let s = Scalar::random(&mut *rng);
    (r, s)
}
