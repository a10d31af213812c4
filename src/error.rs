//! Every way a proof request can fail, as one typed error.

use bellperson::SynthesisError;

#[derive(Debug, thiserror::Error)]
pub enum ProverError {
    #[error("circuit synthesis failed: {0}")]
    Synthesis(#[from] SynthesisError),

    #[error("the circuit panicked during synthesis: {0}")]
    CircuitPanicked(String),

    #[error("the circuit refers to {kind} variable {index}, but only {allocated} were allocated")]
    UnknownVariable { kind: &'static str, index: usize, allocated: usize },

    #[error("the parameters do not match the circuit: {what}: the parameters have {params}, the circuit needs {circuit}")]
    ParamsMismatch { what: &'static str, params: usize, circuit: usize },

    #[error("the parameters' delta is the identity (a subverted CRS); refusing to prove")]
    IdentityDelta,

    #[error("wrong length of {what}: expected {expected}, got {got}")]
    WrongLength { what: &'static str, expected: usize, got: usize },

    #[error("the assignment's first input must be the constant ONE")]
    MissingOneInput,

    #[error("the circuit is not satisfied: constraint {constraint} has A·B ≠ C")]
    Unsatisfied { constraint: usize },

    #[error("the circuit needs an evaluation domain of 2^{log_size}, larger than BLS12-381's 2^32")]
    DomainTooLarge { log_size: u32 },

    #[error("invalid prover configuration: {0}")]
    Config(String),

    #[error("no GPU is available: {0}")]
    NoGpu(String),

    #[error("GPU error: {0}")]
    Gpu(String),

    #[error("a proving worker panicked: {0}")]
    WorkerPanicked(String),

    #[error("the proof failed verification before it was returned ({0}); it was discarded")]
    InvalidProof(String),

    #[error("this staged proof was pre-staged by another prover; compute it with that one")]
    ForeignStaged,
}

pub type Result<T, E = ProverError> = std::result::Result<T, E>;

/// Why [`crate::Prover::try_prestage`] did not stage a job.
#[derive(Debug, thiserror::Error)]
pub enum TryPrestageError {
    /// Every worker slot is held by a staged proof; the job comes back
    /// untouched, to be staged once one is computed or dropped.
    #[error("every worker slot is held by a staged proof")]
    Busy(crate::ProofJob),
    /// The job itself was refused, as `prestage` would refuse it.
    #[error(transparent)]
    Failed(#[from] ProverError),
}
