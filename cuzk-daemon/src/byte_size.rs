//! Byte amounts as the upstream configuration writes them: `256GiB`,
//! `512MiB`, `1024` (bytes), or `auto`.

use crate::error::ConfigError;

/// Parses `N`, `NKiB`, `NMiB`, `NGiB`, `NTiB` (also `KB`/`K`… meaning the
/// binary units, as upstream reads them) into bytes.
pub fn parse_bytes(key: &'static str, text: &str) -> Result<u64, ConfigError> {
    let invalid = || ConfigError::Invalid { key, why: format!("{text:?} is not a byte amount such as 256GiB") };
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(invalid()),
    };
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    n.checked_mul(1u64 << shift).ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn units() {
        assert_eq!(parse_bytes("k", "256GiB").unwrap(), 256 << 30);
        assert_eq!(parse_bytes("k", "5 GiB").unwrap(), 5 << 30);
        assert_eq!(parse_bytes("k", "1024").unwrap(), 1024);
        assert!(parse_bytes("k", "lots").is_err());
        assert!(parse_bytes("k", "GiB").is_err());
        assert!(parse_bytes("k", "99999999999TiB").is_err());
    }
}
