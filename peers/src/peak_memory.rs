//! The process's peak resident memory (Linux's `VmHWM`).

/// In GB; 0 where the kernel does not say.
pub fn peak_resident_gb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    kb / 1e6
}
