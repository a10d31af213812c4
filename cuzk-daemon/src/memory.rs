//! The host memory the daemon can see: its own resident set and the
//! machine's total, from /proc (zero where /proc is absent).

/// The process's resident memory in bytes (`VmRSS` of /proc/self/status).
pub fn resident_bytes() -> u64 {
    kib_field("/proc/self/status", "VmRSS:").unwrap_or(0)
}

/// The machine's memory in bytes (`MemTotal` of /proc/meminfo).
pub fn total_bytes() -> u64 {
    kib_field("/proc/meminfo", "MemTotal:").unwrap_or(0)
}

/// A `Name:  1234 kB` line's value, in bytes.
fn kib_field(file: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_has_resident_memory() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(super::resident_bytes() > 0);
            assert!(super::total_bytes() >= super::resident_bytes());
        }
    }
}
