//! Wall-clock time of each proving phase, for logs and benchmarks.

use std::fmt;
use std::time::{Duration, Instant};

/// How long each phase of one proof took, and when it ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimings {
    /// Synthesis of the job's witness (`Prover::job`, `prove_batch`), before
    /// the proof's phases: not part of `total`. Zero for a job made from an
    /// existing assignment or witness.
    pub synthesis: Duration,
    /// Validation and witness preparation (GPU: waiting for the device's
    /// upload turn, and the upload).
    pub prestage: Duration,
    /// GPU: the copy engine's time for the witness upload (device events),
    /// part of `prestage`.
    pub upload: Duration,
    /// Compiled circuit: a, b, c evaluated from the witness (GPU: device
    /// time, with the a·b = c check; CPU: host time), part of `prestage`.
    pub abc: Duration,
    /// GPU: bytes the witness upload sent (the values, or their classes).
    pub upload_bytes: usize,
    /// GPU: bytes of the witness the copy engine read directly from a
    /// pinned witness buffer (the rest went through staging copies).
    pub pinned_bytes: usize,
    /// The H polynomial: inverse, coset and coset-inverse NTTs (GPU: device
    /// time, not counting a wait for the previous proof's compute).
    pub ntt: Duration,
    /// All multi-scalar multiplications (H, L, A, B in G1 and G2).
    pub msm: Duration,
    /// GPU: bytes of bases streamed from pinned host memory for this proof
    /// (`VramPlan::streamed`; 0 when every query is resident).
    pub bases_streamed: usize,
    /// GPU: the streamed copies' own time on the copy engine (device
    /// events around each copy, without the waits for the MSMs between).
    pub bases_copy: Duration,
    /// Combining the MSM results with r and s.
    pub assemble: Duration,
    /// The check of the proof against the verifying key (`verify_proofs`).
    pub verify: Duration,
    /// When `prestage` began and returned (host clock).
    pub prestage_span: Option<(Instant, Instant)>,
    /// When `compute` was called and returned (host clock): on a shared
    /// GPU it includes waiting for the computes enqueued before it.
    pub compute_span: Option<(Instant, Instant)>,
    /// GPU: the ordinal of the device the proof ran on.
    pub device: Option<u32>,
    /// The worker slot that held the proof. Slots are numbered device by
    /// device, `workers_per_device` each, so `worker / workers_per_device`
    /// is the device's place in the prover's list.
    pub worker: Option<usize>,
    /// Proved on the CPU because `Backend::Auto` found the GPU unusable
    /// (`Prover::gpu_fallback` says why).
    pub gpu_fallback: bool,
}

impl PhaseTimings {
    /// The phases' durations added up (not the wall time, which also
    /// holds the waits between phases).
    pub fn total(&self) -> Duration {
        self.prestage + self.ntt + self.msm + self.assemble + self.verify
    }

    /// The device's busy time for the compute phase (H step and MSMs).
    pub fn device_compute(&self) -> Duration {
        self.ntt + self.msm
    }

    /// Where the phases fell, in seconds after `origin` (a batch's start):
    /// "pre-stage 0.000–0.512 s, compute 0.512–1.901 s (device 1.361 s)".
    pub fn timeline(&self, origin: Instant) -> String {
        let secs = |t: Instant| t.saturating_duration_since(origin).as_secs_f64();
        let span = |s: Option<(Instant, Instant)>| s.map_or("–".to_string(), |(a, b)| format!("{:.3}–{:.3} s", secs(a), secs(b)));
        format!(
            "pre-stage {} (upload {:.3?}), compute {} (device {:.3?})",
            span(self.prestage_span),
            self.upload,
            span(self.compute_span),
            self.device_compute()
        )
    }
}

impl fmt::Display for PhaseTimings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.synthesis.is_zero() {
            write!(f, "synthesis {:.3?}, ", self.synthesis)?;
        }
        write!(
            f,
            "prestage {:.3?} (upload {:.3?}, a·b·c {:.3?}), ntt {:.3?}, msm {:.3?}, assemble {:.3?}, verify {:.3?}, total {:.3?}",
            self.prestage,
            self.upload,
            self.abc,
            self.ntt,
            self.msm,
            self.assemble,
            self.verify,
            self.total()
        )?;
        if self.gpu_fallback {
            write!(f, " (on the CPU: no usable GPU)")?;
        }
        Ok(())
    }
}
