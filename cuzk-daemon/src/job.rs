//! A job's state as awaiters see it, and what a finished proof carries.

use std::sync::Arc;
use std::time::Duration;

/// Where a job is. The last three are final: once there, a job stays.
#[derive(Clone, Debug)]
pub enum JobState {
    /// Waiting in the queue.
    Queued,
    /// Being proved.
    Running,
    /// Proved.
    Completed(Arc<CompletedProof>),
    /// Not proved; why.
    Failed(String),
    /// Cancelled (by `CancelProof` or a shutdown); why.
    Cancelled(String),
}

impl JobState {
    /// Completed, failed or cancelled.
    pub fn is_final(&self) -> bool {
        matches!(self, JobState::Completed(_) | JobState::Failed(_) | JobState::Cancelled(_))
    }

    /// A short name for logs and errors.
    pub fn name(&self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Completed(_) => "completed",
            JobState::Failed(_) => "failed",
            JobState::Cancelled(_) => "cancelled",
        }
    }
}

/// A proof and what it took.
#[derive(Clone, Debug, Default)]
pub struct CompletedProof {
    /// filecoin-proofs' C2 bytes.
    pub proof: Vec<u8>,
    /// Its phases.
    pub timings: ProofTimings,
}

/// The phases of one job, as `AwaitProofResponse` reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProofTimings {
    /// In the queue.
    pub queue_wait: Duration,
    /// Building the prover (compiled circuit, parameter file) when the job
    /// was the first of its registered proof.
    pub srs_load: Duration,
    /// Building the partition circuits and synthesizing their witnesses
    /// (summed over partitions, which overlap).
    pub synthesis: Duration,
    /// The Groth16 phases of the partitions (summed over partitions).
    pub gpu_compute: Duration,
    /// From submission to the proof.
    pub total: Duration,
}

/// What an await found.
#[derive(Clone, Debug)]
pub struct AwaitOutcome {
    /// The state then (not final when the await timed out).
    pub state: JobState,
    /// For a timed-out await of a queued job: the jobs ahead of it.
    pub queue_position: Option<usize>,
}
