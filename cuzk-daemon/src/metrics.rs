//! The engine's counters and histograms, and their Prometheus text
//! exposition (format 0.0.4).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

use crate::job::ProofTimings;
use crate::proof_kind::{Priority, ProofKind};

/// Upper bounds (seconds) of the duration histograms' buckets: a 2 KiB
/// proof on a CPU to a 64 GiB one queued behind others.
const BUCKETS: [f64; 14] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0];

/// A cumulative histogram of durations.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Histogram {
    /// Counts one observation.
    pub fn observe(&mut self, duration: Duration) {
        let seconds = duration.as_secs_f64();
        for (bound, count) in BUCKETS.iter().zip(self.counts.iter_mut()) {
            if seconds <= *bound {
                *count += 1;
            }
        }
        self.count += 1;
        self.sum += seconds;
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        for (bound, count) in BUCKETS.iter().zip(self.counts) {
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}", self.count);
        let braces = if labels.is_empty() { String::new() } else { format!("{{{labels}}}") };
        let _ = writeln!(out, "{name}_sum{braces} {}", self.sum);
        let _ = writeln!(out, "{name}_count{braces} {}", self.count);
    }
}

/// How jobs ended, per kind, and how long they took.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    completed: BTreeMap<&'static str, u64>,
    failed: BTreeMap<&'static str, u64>,
    cancelled: BTreeMap<&'static str, u64>,
    proof_seconds: BTreeMap<&'static str, Histogram>,
    phase_seconds: BTreeMap<&'static str, Histogram>,
}

/// Gauges read when the metrics are rendered.
#[derive(Clone, Debug, Default)]
pub struct Gauges {
    /// Queued jobs per priority.
    pub queued: Vec<(Priority, usize)>,
    /// Jobs being proved.
    pub running: usize,
    /// Registered proofs whose prover is built.
    pub loaded_provers: usize,
    /// Seconds since the engine started.
    pub uptime_seconds: u64,
    /// The process's resident memory.
    pub resident_bytes: u64,
}

impl Metrics {
    /// A proof of `kind` completed.
    pub fn completed(&mut self, kind: ProofKind, timings: &ProofTimings) {
        *self.completed.entry(kind.metric_label()).or_default() += 1;
        self.proof_seconds.entry(kind.metric_label()).or_default().observe(timings.total);
        for (phase, duration) in [
            ("queue_wait", timings.queue_wait),
            ("srs_load", timings.srs_load),
            ("synthesis", timings.synthesis),
            ("gpu_compute", timings.gpu_compute),
        ] {
            self.phase_seconds.entry(phase).or_default().observe(duration);
        }
    }

    /// A job of `kind` failed.
    pub fn failed(&mut self, kind: ProofKind) {
        *self.failed.entry(kind.metric_label()).or_default() += 1;
    }

    /// A job of `kind` was cancelled.
    pub fn cancelled(&mut self, kind: ProofKind) {
        *self.cancelled.entry(kind.metric_label()).or_default() += 1;
    }

    /// All proofs completed.
    pub fn total_completed(&self) -> u64 {
        self.completed.values().sum()
    }

    /// All jobs failed.
    pub fn total_failed(&self) -> u64 {
        self.failed.values().sum()
    }

    /// The Prometheus text of the metrics and `gauges`.
    pub fn render(&self, gauges: &Gauges) -> String {
        let mut out = String::with_capacity(4096);
        let header = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        for (name, help, counts) in [
            ("cuzk_proofs_completed_total", "Proofs completed, per proof kind", &self.completed),
            ("cuzk_proofs_failed_total", "Jobs failed, per proof kind", &self.failed),
            ("cuzk_proofs_cancelled_total", "Jobs cancelled, per proof kind", &self.cancelled),
        ] {
            header(&mut out, name, "counter", help);
            for kind in ProofKind::KNOWN {
                let label = kind.metric_label();
                let _ = writeln!(out, "{name}{{proof_kind=\"{label}\"}} {}", counts.get(label).copied().unwrap_or(0));
            }
            if let Some(n) = counts.get(ProofKind::Unknown(0).metric_label()) {
                let _ = writeln!(out, "{name}{{proof_kind=\"unknown\"}} {n}");
            }
        }
        header(&mut out, "cuzk_proof_duration_seconds", "histogram", "Submission to proof, per proof kind");
        for (kind, histogram) in &self.proof_seconds {
            histogram.write(&mut out, "cuzk_proof_duration_seconds", &format!("proof_kind=\"{kind}\""));
        }
        header(&mut out, "cuzk_phase_duration_seconds", "histogram", "Phases of completed proofs (synthesis and gpu_compute summed over partitions)");
        for (phase, histogram) in &self.phase_seconds {
            histogram.write(&mut out, "cuzk_phase_duration_seconds", &format!("phase=\"{phase}\""));
        }
        header(&mut out, "cuzk_queue_depth", "gauge", "Jobs waiting, per priority");
        for (priority, n) in &gauges.queued {
            let _ = writeln!(out, "cuzk_queue_depth{{priority=\"{}\"}} {n}", priority.label());
        }
        for (name, help, value) in [
            ("cuzk_running_jobs", "Jobs being proved", gauges.running as u64),
            ("cuzk_loaded_provers", "Registered proofs whose prover (parameters, compiled circuit) is loaded", gauges.loaded_provers as u64),
            ("cuzk_uptime_seconds", "Seconds since the daemon started", gauges.uptime_seconds),
            ("cuzk_resident_memory_bytes", "The daemon's resident memory", gauges.resident_bytes),
        ] {
            header(&mut out, name, "gauge", help);
            let _ = writeln!(out, "{name} {value}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative() {
        let mut h = Histogram::default();
        h.observe(Duration::from_millis(70));
        h.observe(Duration::from_secs(7));
        let mut out = String::new();
        h.write(&mut out, "x", "");
        assert!(out.contains("x_bucket{le=\"0.05\"} 0\n"));
        assert!(out.contains("x_bucket{le=\"0.1\"} 1\n"));
        assert!(out.contains("x_bucket{le=\"10\"} 2\n"));
        assert!(out.contains("x_bucket{le=\"+Inf\"} 2\n"));
        assert!(out.contains("x_count 2\n"));
    }

    #[test]
    fn counters_per_kind() {
        let mut m = Metrics::default();
        m.failed(ProofKind::WinningPost);
        m.completed(ProofKind::PorepSealCommit, &ProofTimings { total: Duration::from_secs(3), ..Default::default() });
        let text = m.render(&Gauges { queued: vec![(Priority::Normal, 4)], ..Default::default() });
        assert!(text.contains("cuzk_proofs_failed_total{proof_kind=\"winning_post\"} 1\n"));
        assert!(text.contains("cuzk_proofs_completed_total{proof_kind=\"porep_c2\"} 1\n"));
        assert!(text.contains("cuzk_proof_duration_seconds_count{proof_kind=\"porep_c2\"} 1\n"));
        assert!(text.contains("cuzk_queue_depth{priority=\"normal\"} 4\n"));
        assert_eq!((m.total_completed(), m.total_failed()), (1, 1));
    }
}
