//! How many circuits `Prover::prove_batch` synthesizes at once by default:
//! one per core, but no more witnesses than the host memory holds. A
//! synthesized witness waits in memory until a worker takes it (≈ 17 GB for
//! a 32 GiB PoRep partition), so one per core can exceed a large host's
//! memory where a crash would lose the whole batch.

use crate::parameters::params::QueryLengths;

/// Share of the available memory the waiting witnesses may take.
const MEMORY_SHARE: f64 = 0.8;

/// Bytes of one synthesized witness for `params`: the a, b, c evaluations
/// (at most one per domain point; none for a witness-only synthesis, whose
/// a, b, c come from a compiled circuit) and the input and aux
/// assignments, 32 bytes per scalar.
pub(crate) fn witness_bytes(lengths: &QueryLengths, witness_only: bool) -> u64 {
    let domain = if witness_only { 0 } else { lengths.h as u64 + 1 };
    let (inputs, aux) = (lengths.ic as u64, lengths.l as u64);
    32 * (3 * domain + inputs + aux)
}

/// Synthesis threads: `cores`, lowered so that these witnesses and the two
/// per worker that wait or are staged fit in [`MEMORY_SHARE`] of
/// `available` bytes (unknown: `cores`); at least one.
pub(crate) fn synthesis_threads(cores: usize, available: Option<u64>, witness: u64, workers: usize) -> usize {
    let Some(available) = available else { return cores.max(1) };
    let fit = (available as f64 * MEMORY_SHARE / witness.max(1) as f64) as usize;
    fit.saturating_sub(2 * workers).clamp(1, cores.max(1))
}

/// `MemAvailable` of /proc/meminfo in bytes (Linux), else `None`.
pub(crate) fn available_memory() -> Option<u64> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1 << 30;

    #[test]
    fn threads_follow_cores_until_memory_runs_out() {
        // Small witnesses: one per core.
        assert_eq!(synthesis_threads(16, Some(64 * GB), GB / 1000, 2), 16);
        // 32 GiB partitions (17 GB) on 256 GB with 2 workers: 12 fit, 4 are
        // the workers'.
        assert_eq!(synthesis_threads(16, Some(256 * GB), 17 * GB, 2), 8);
        // Too little memory for even the workers' witnesses: still one.
        assert_eq!(synthesis_threads(16, Some(20 * GB), 17 * GB, 2), 1);
        assert_eq!(synthesis_threads(0, Some(GB), 1, 1), 1);
        // Unknown memory: one per core.
        assert_eq!(synthesis_threads(6, None, 17 * GB, 2), 6);
    }

    #[test]
    fn reads_mem_available() {
        let meminfo = "MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(20_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert!(available_memory().is_some_and(|b| b > 0) || !cfg!(target_os = "linux"));
    }
}
