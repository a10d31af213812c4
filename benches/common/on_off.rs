//! `on,off`-style switches of the benches' command lines.

/// `on`, `off` or both, comma-separated, as booleans; anything else
/// stops the bench naming `flag`.
pub fn on_off(flag: &str, list: &str) -> Vec<bool> {
    list.split(',')
        .map(|v| match v {
            "on" => true,
            "off" => false,
            other => panic!("{flag} {other}: expected on or off"),
        })
        .collect()
}
