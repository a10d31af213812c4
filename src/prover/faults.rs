//! Injected faults, for testing what a failing upload, kernel launch or
//! result download does to a proof, its worker and the proofs beside it.
//! Not for production use: the hook is hidden from the documentation.
// Only the GPU engine injects faults.
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::ProverError;

/// Which GPU operations of a prover fail: the n-th (counted from 1 over the
/// prover's life, all workers together) of each kind, once.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultPlan {
    /// The n-th witness upload fails after its first copy was enqueued.
    pub upload: Option<u64>,
    /// The n-th compute fails after its H step was enqueued, before the MSMs.
    pub launch: Option<u64>,
    /// The n-th download of MSM results fails.
    pub download: Option<u64>,
    /// The n-th compute makes a kernel access invalid memory, which poisons
    /// the device's context (as a hardware fault would).
    pub poison: Option<u64>,
    /// The n-th compute's stream waits forever (on a value nothing writes),
    /// as on a GPU that stopped making progress.
    pub hang: Option<u64>,
    /// The n-th witness upload's stream waits forever before its copies,
    /// as on a copy engine that stopped: the staging chunks are never
    /// drained.
    pub upload_hang: Option<u64>,
    /// The n-th compute's wait for its completion fails at once (as a
    /// failed event query would) while its work is still running.
    pub completion_wait: Option<u64>,
    /// Bytes of VRAM each device reports free when the prover is built
    /// (instead of what it has), as on a smaller or busier GPU.
    pub vram_free: Option<usize>,
    /// Each GPU is opened as this many devices, each in a CUDA context of
    /// its own instead of the primary one, standing in for as many GPUs:
    /// the several-device paths (proofs spread over devices, every device
    /// lost) run on a machine with one. Not a stand-in for one GPU lost
    /// among several: a fault poisons every context of its GPU. Contexts
    /// on one GPU take turns: for correctness only, never speed.
    pub contexts_per_gpu: Option<usize>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Fault {
    Upload,
    Launch,
    Download,
    Poison,
    Hang,
    UploadHang,
    CompletionWait,
}

/// Counts operations and fails the planned ones.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    plan: FaultPlan,
    seen: [AtomicU64; 7],
}

impl Faults {
    pub fn new(plan: FaultPlan) -> Self {
        Faults { plan, seen: Default::default() }
    }

    /// Counts one operation of `kind`; an error if it is the planned one.
    pub fn check(&self, kind: Fault) -> Result<(), ProverError> {
        let planned = match kind {
            Fault::Upload => self.plan.upload,
            Fault::Launch => self.plan.launch,
            Fault::Download => self.plan.download,
            Fault::Poison => self.plan.poison,
            Fault::Hang => self.plan.hang,
            Fault::UploadHang => self.plan.upload_hang,
            Fault::CompletionWait => self.plan.completion_wait,
        };
        let Some(n) = planned else { return Ok(()) };
        let count = self.seen[kind as usize].fetch_add(1, Ordering::Relaxed) + 1;
        if count == n {
            return Err(ProverError::Gpu(format!("injected fault: {kind:?} #{n}")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_planned_operation_fails() {
        let faults = Faults::new(FaultPlan { upload: Some(2), download: Some(1), ..Default::default() });
        assert!(faults.check(Fault::Upload).is_ok());
        assert!(matches!(faults.check(Fault::Upload), Err(ProverError::Gpu(m)) if m.contains("Upload #2")));
        assert!(faults.check(Fault::Upload).is_ok(), "once");
        assert!(faults.check(Fault::Launch).is_ok());
        assert!(faults.check(Fault::Download).is_err());
        assert!(faults.check(Fault::Download).is_ok());
    }
}
