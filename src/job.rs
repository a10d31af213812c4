//! One proof request: a synthesized circuit and its blinding randomness.

use blstrs::Scalar;
use ff::Field;
use rand_core::RngCore;

use crate::assignment::Assignment;
use crate::witness_pool::PooledWitness;

/// One proof request: a synthesized witness and its blinding factors.
pub struct ProofJob {
    witness: Witness,
    /// Groth16's blinding factors; fixed values reproduce a proof exactly.
    pub r: Scalar,
    /// See `r`.
    pub s: Scalar,
}

/// Where a job's witness lives.
enum Witness {
    /// The caller's own (or a plain synthesized) assignment.
    Owned(Assignment),
    /// A prover's reusable (on the GPU: pinned) buffer, returned to its pool
    /// when the job is staged or dropped.
    Pooled(PooledWitness),
}

impl ProofJob {
    /// A job with fresh random r and s (drawn r first, then s, as bellperson).
    pub fn new(assignment: Assignment, rng: &mut impl RngCore) -> Self {
        let (r, s) = random_r_s(rng);
        ProofJob::with_randomness(assignment, r, s)
    }

    /// A job with the given r and s (bellperson's proof for the same r, s
    /// is bit-identical).
    pub fn with_randomness(assignment: Assignment, r: Scalar, s: Scalar) -> Self {
        ProofJob { witness: Witness::Owned(assignment), r, s }
    }

    pub(crate) fn pooled(witness: PooledWitness, r: Scalar, s: Scalar) -> Self {
        ProofJob { witness: Witness::Pooled(witness), r, s }
    }

    /// The synthesized circuit (read-only: a pooled buffer must not move).
    pub fn assignment(&self) -> &Assignment {
        match &self.witness {
            Witness::Owned(a) => a,
            Witness::Pooled(w) => w.assignment(),
        }
    }

    /// The assignment by value (a pooled buffer leaves its pool, unpinned).
    pub fn into_assignment(self) -> Assignment {
        match self.witness {
            Witness::Owned(a) => a,
            Witness::Pooled(w) => w.into_assignment(),
        }
    }

    /// Whether the witness lives in one of a prover's reusable buffers
    /// (`Prover::job`, `Prover::job_from_assignment`): on the GPU, pinned
    /// memory the copy engine reads directly.
    pub fn is_pooled(&self) -> bool {
        self.pooled_witness().is_some()
    }

    /// The pooled buffer this job's witness lives in, if any.
    pub(crate) fn pooled_witness(&self) -> Option<&PooledWitness> {
        match &self.witness {
            Witness::Pooled(w) => Some(w),
            Witness::Owned(_) => None,
        }
    }
}

impl std::fmt::Debug for ProofJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let asg = self.assignment();
        f.debug_struct("ProofJob")
            .field("constraints", &asg.num_constraints())
            .field("inputs", &asg.input.len())
            .field("aux", &asg.aux.len())
            .field("pooled", &self.pooled_witness().is_some())
            .finish_non_exhaustive()
    }
}

/// Fresh blinding factors: r first, then s, as bellperson draws them.
pub fn random_r_s(rng: &mut impl RngCore) -> (Scalar, Scalar) {
    let r = Scalar::random(&mut *rng);
    let s = Scalar::random(&mut *rng);
    (r, s)
}
