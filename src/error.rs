//! Every way a proof request can fail, as one typed error.

use bellperson::SynthesisError;

/// Why a proof (or a prover) could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProverError {
    #[error("circuit synthesis failed: {0}")]
    /// The circuit's own error.
    Synthesis(#[from] SynthesisError),

    #[error("the circuit panicked during synthesis: {0}")]
    /// The circuit panicked; the panic's message.
    CircuitPanicked(String),

    #[error("the circuit refers to {kind} variable {index}, but only {allocated} were allocated")]
    /// A constraint names a variable that was never allocated.
    UnknownVariable {
        /// "input" or "aux".
        kind: &'static str,
        /// The index it names.
        index: usize,
        /// How many of that kind exist.
        allocated: usize,
    },

    #[error("the parameters do not match the circuit: {what}: the parameters have {params}, the circuit needs {circuit}")]
    /// The parameters (or the prover's reserved buffers) are sized for
    /// another circuit.
    ParamsMismatch {
        /// Which size differs.
        what: &'static str,
        /// The size the parameters (or buffers) have.
        params: usize,
        /// The size the circuit needs.
        circuit: usize,
    },

    #[error("the circuit does not match the compiled circuit: {what}: compiled {compiled}, the circuit has {circuit}")]
    /// A witness whose counts differ from the prover's compiled circuit.
    CompiledMismatch {
        /// Which count differs.
        what: &'static str,
        /// The compiled circuit's count.
        compiled: usize,
        /// The witness's count.
        circuit: usize,
    },

    #[error(transparent)]
    /// A parameter file that cannot be used.
    ParamsFile(#[from] crate::parameters::params_file::ParamsFileError),

    #[error(transparent)]
    /// A compiled-circuit file that cannot be used.
    CompiledFile(#[from] crate::compiled::CompiledFileError),

    #[error("the parameters' delta is the identity (a subverted CRS); refusing to prove")]
    /// The parameters' delta is the point at infinity.
    IdentityDelta,

    #[error("wrong length of {what}: expected {expected}, got {got}")]
    /// A caller-given vector has the wrong length.
    WrongLength {
        /// Which vector.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        got: usize,
    },

    #[error("the assignment's first input must be the constant ONE")]
    /// An assignment whose first input is not ONE.
    MissingOneInput,

    #[error("the circuit is not satisfied: constraint {constraint} has A·B ≠ C")]
    /// The witness does not satisfy the circuit (`check_satisfied`).
    Unsatisfied {
        /// The first constraint it fails.
        constraint: usize,
    },

    #[error("the circuit needs an evaluation domain of 2^{log_size}, larger than BLS12-381's 2^32")]
    /// The circuit is too large for BLS12-381's evaluation domains.
    DomainTooLarge {
        /// log2 of the domain it would need.
        log_size: u32,
    },

    #[error("invalid prover configuration: {0}")]
    /// A configuration the prover cannot run with.
    Config(String),

    #[error("no GPU is available: {0}")]
    /// No GPU can be used (no driver, no device, or built without `cuda`).
    NoGpu(String),

    #[error("GPU error: {0}")]
    /// A CUDA call failed.
    Gpu(String),

    #[error("GPU {device} is unusable after a fatal error ({cause}); its proofs fail until the prover is rebuilt")]
    /// A CUDA error that poisons the device's context (an illegal memory
    /// access, a failed launch, an uncorrectable ECC error): the device
    /// takes no more work from this prover, and its proofs fail at once
    /// with this error instead of waiting on it.
    DeviceLost {
        /// The device's ordinal (`u32::MAX` if it could not be told).
        device: u32,
        /// The first fatal error.
        cause: String,
    },

    #[error("the batch was stopped before this proof was made")]
    /// `Prover::prove_batch_until`'s stop was set before this proof was
    /// synthesized or staged.
    Cancelled,

    #[error("a proving worker panicked: {0}")]
    /// A proving thread panicked; the panic's message.
    WorkerPanicked(String),

    #[error("{}the proof failed verification before it was returned ({why}); it was discarded", batch_index.map_or(String::new(), |i| format!("proof {i} of the batch: ")))]
    /// The finished proof failed the check before return (`verify_proofs`).
    InvalidProof {
        /// Why: the pairing check failed, or the verifier's error.
        why: String,
        /// Its circuit's place in a `prove_batch` call (`None` outside one).
        batch_index: Option<usize>,
    },

    #[error("proof {index} of the batch was made, but the batch's progress callback panicked on it: {message}")]
    /// The caller's `on_done` callback of a `prove_batch_*` call panicked
    /// on this proof. The proof was made (and checked, with
    /// `verify_proofs`): it is here, so no work is lost; the batch's other
    /// proofs went on.
    CallbackPanicked {
        /// The proof's place in the batch.
        index: usize,
        /// The panic's message.
        message: String,
        /// The proof the callback was given.
        proof: Option<Box<bellperson::groth16::Proof<blstrs::Bls12>>>,
    },

    #[error("GPU {device} has {free} bytes of VRAM free; {needed} are needed: {detail}")]
    /// The device cannot hold what the prover reserves (bases, tables,
    /// worker slots): `Backend::Auto` then proves on the CPU.
    NotEnoughVram {
        /// The device's ordinal.
        device: u32,
        /// Bytes free (or the configured stand-in).
        free: u64,
        /// Bytes the prover would reserve.
        needed: u64,
        /// What the bytes are for, and what to change.
        detail: String,
    },

    #[error("this staged proof was pre-staged by another prover; compute it with that one")]
    /// A `Staged` given to a prover other than the one that made it.
    ForeignStaged,

    /// A GPU worker slot asked to take a second witness while a staged
    /// proof holds it.
    #[error("GPU worker slot {slot} already holds a staged proof")]
    SlotBusy {
        /// The slot's index.
        slot: usize,
    },
}

/// `Result` with [`ProverError`].
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
