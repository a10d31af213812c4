//! The engine's state as GetStatus and GetMetrics report it.

use cuzk::Backend;

use crate::engine::Engine;
use crate::job::JobState;
use crate::metrics::Gauges;
use crate::proof_kind::{Priority, ProofKind};
use crate::provers::LoadedProver;

/// Jobs of one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindQueue {
    /// The kind.
    pub kind: ProofKind,
    /// Queued.
    pub pending: usize,
    /// Being proved.
    pub in_progress: usize,
}

/// A device as GetStatus lists it.
#[derive(Clone, Debug)]
pub struct DeviceStatus {
    /// The GPU ordinal (0 for the CPU).
    pub ordinal: u32,
    /// What it is.
    pub name: String,
    /// The job being proved (one engine proves on all devices at once).
    pub current_job_id: String,
    /// Its kind.
    pub current_proof_kind: String,
}

/// A snapshot of the engine.
#[derive(Clone, Debug)]
pub struct EngineStatus {
    /// Per proof kind.
    pub queues: Vec<KindQueue>,
    /// Queued jobs per priority, lowest first.
    pub queued_by_priority: Vec<(Priority, usize)>,
    /// The devices.
    pub devices: Vec<DeviceStatus>,
    /// The loaded provers.
    pub loaded: Vec<LoadedProver>,
    /// Proofs completed.
    pub completed: u64,
    /// Jobs failed.
    pub failed: u64,
    /// Seconds since the engine started.
    pub uptime_seconds: u64,
    /// The process's resident memory.
    pub resident_bytes: u64,
    /// The configured memory budget.
    pub memory_budget: u64,
}

impl Engine {
    /// The engine now.
    pub fn status(&self) -> EngineStatus {
        let inner = &self.inner;
        let loaded = inner.provers.loaded();
        let backends = inner.provers.backends();
        let st = inner.lock();
        let mut queues: Vec<KindQueue> = ProofKind::KNOWN.iter().map(|&kind| KindQueue { kind, pending: 0, in_progress: 0 }).collect();
        let mut current = None;
        for (id, job) in &st.jobs {
            let Some(q) = queues.iter_mut().find(|q| q.kind == job.kind) else { continue };
            if job.active {
                q.in_progress += 1;
                current.get_or_insert((id.clone(), job.kind));
            } else if matches!(*job.state.borrow(), JobState::Queued) {
                q.pending += 1;
            }
        }
        let queued_by_priority = Priority::ALL.iter().map(|&p| (p, st.queue.len_at(p))).collect();
        let (completed, failed) = (st.metrics.total_completed(), st.metrics.total_failed());
        drop(st);
        let (current_job_id, current_proof_kind) = current.map_or((String::new(), String::new()), |(id, kind)| (id, kind.to_string()));
        let device = |ordinal: u32, name: String| DeviceStatus { ordinal, name, current_job_id: current_job_id.clone(), current_proof_kind: current_proof_kind.clone() };
        let devices = if backends.iter().any(|(b, _)| *b == Backend::Gpu) || (cfg!(feature = "cuda") && backends.is_empty()) {
            let ordinals = &inner.config.gpus.devices;
            if ordinals.is_empty() {
                vec![device(0, "all GPUs (cuda backend)".into())]
            } else {
                ordinals.iter().map(|&o| device(o as u32, format!("GPU {o} (cuda backend)"))).collect()
            }
        } else {
            let why = match backends.iter().find_map(|(_, fallback)| fallback.clone()) {
                _ if !cfg!(feature = "cuda") => "built without the cuda feature".to_string(),
                Some(fallback) => format!("no usable GPU: {fallback}"),
                None => "prover.backend = cpu".to_string(),
            };
            vec![device(0, format!("cpu backend, no GPU ({why})"))]
        };
        EngineStatus {
            queues,
            queued_by_priority,
            devices,
            loaded,
            completed,
            failed,
            uptime_seconds: inner.started.elapsed().as_secs(),
            resident_bytes: crate::memory::resident_bytes(),
            memory_budget: inner.memory_budget,
        }
    }

    /// The Prometheus text of the engine's metrics.
    pub fn metrics_text(&self) -> String {
        let status = self.status();
        let gauges = Gauges {
            queued: status.queued_by_priority.clone(),
            running: status.queues.iter().map(|q| q.in_progress).sum(),
            loaded_provers: status.loaded.len(),
            uptime_seconds: status.uptime_seconds,
            resident_bytes: status.resident_bytes,
        };
        self.inner.lock().metrics.render(&gauges)
    }
}
