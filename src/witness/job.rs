//! One proof request: a synthesized circuit and its blinding randomness.

use blstrs::Scalar;
use ff::Field;
use rand_core::RngCore;

use crate::witness::assignment::Assignment;
use crate::witness::classes::ClassedValues;
use crate::witness::pool::PooledWitness;

/// One proof request: a synthesized witness and its blinding factors.
pub struct ProofJob {
    witness: Witness,
    /// Only the inputs and aux are set (a, b, c and the densities are
    /// empty): a, b, c come from the prover's compiled circuit.
    witness_only: bool,
    /// A witness-only job's aux values as classes, for a smaller upload
    /// (made when the job is created, for a GPU prover).
    classes: Option<ClassedValues>,
    /// Groth16's blinding factors; fixed values reproduce a proof exactly.
    pub r: Scalar,
    /// See `r`.
    pub s: Scalar,
    /// How long synthesizing the witness took (zero unless the prover
    /// synthesized it).
    pub(crate) synthesis: std::time::Duration,
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
        ProofJob { witness: Witness::Owned(assignment), witness_only: false, classes: None, r, s, synthesis: Default::default() }
    }

    /// A job of a witness alone (inputs with ONE first, aux), for a prover
    /// built with a compiled circuit ([`crate::Prover::with_compiled`]),
    /// which evaluates a, b, c itself.
    pub fn from_witness(input: Vec<Scalar>, aux: Vec<Scalar>, r: Scalar, s: Scalar) -> Self {
        ProofJob { witness: Witness::Owned(Assignment { input, aux, ..Assignment::default() }), witness_only: true, classes: None, r, s, synthesis: Default::default() }
    }

    pub(crate) fn pooled(witness: PooledWitness, witness_only: bool, r: Scalar, s: Scalar) -> Self {
        ProofJob { witness: Witness::Pooled(witness), witness_only, classes: None, r, s, synthesis: Default::default() }
    }

    /// Encodes a witness-only job's aux values as classes (0, 1, other:
    /// 2 bits each) plus the other values, when at most a quarter of them
    /// are other values, for a smaller upload to the GPU. GPU provers with
    /// `ProverConfig::witness_classes` do this in `job`; a job made with
    /// [`ProofJob::from_witness`] can do it here.
    pub fn with_witness_classes(mut self) -> Self {
        if self.witness_only {
            let aux = &self.assignment().aux;
            self.classes = ClassedValues::encode(aux, aux.len() / 4);
            // Packed into the pooled buffer's pinned area, here rather
            // than in the pre-stage, where the GPU would wait for the copy.
            if let (Some(classes), Witness::Pooled(w)) = (&self.classes, &mut self.witness) {
                classes.pack_into(w.classes_area_mut());
            }
        }
        self
    }

    /// How long the prover took to synthesize this job's witness (zero for
    /// a job made from an assignment or witness).
    pub fn synthesis_time(&self) -> std::time::Duration {
        self.synthesis
    }

    pub(crate) fn synthesized_in(mut self, time: std::time::Duration) -> Self {
        self.synthesis = time;
        self
    }

    /// Whether the aux values are encoded as classes.
    pub fn has_witness_classes(&self) -> bool {
        self.classes.is_some()
    }

    /// The aux values as classes, if encoded.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn classes(&self) -> Option<&ClassedValues> {
        self.classes.as_ref()
    }

    /// Whether the job holds only the witness (inputs and aux), its a, b, c
    /// left to the prover's compiled circuit.
    pub fn is_witness_only(&self) -> bool {
        self.witness_only
    }

    /// The synthesized circuit (read-only: a pooled buffer must not move);
    /// for a witness-only job, a, b, c and the densities are empty.
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
            .field("witness_only", &self.witness_only)
            .finish_non_exhaustive()
    }
}

/// Fresh blinding factors: r first, then s, as bellperson draws them.
pub fn random_r_s(rng: &mut impl RngCore) -> (Scalar, Scalar) {
    let r = Scalar::random(&mut *rng);
    let s = Scalar::random(&mut *rng);
    (r, s)
}
