//! The listen address: TCP `host:port`, or a unix socket `unix:///path`
//! (the upstream daemon's two forms).

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use crate::error::ConfigError;

/// Where the daemon listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListenAddr {
    /// A TCP address (port 0: any free port).
    Tcp(SocketAddr),
    /// A unix domain socket's path.
    Unix(PathBuf),
}

impl ListenAddr {
    /// Parses `host:port` (a name is resolved, its first address taken) or
    /// `unix:///absolute/path`.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let invalid = |why: String| ConfigError::Invalid { key: "daemon.listen", why };
        let text = text.trim();
        if let Some(path) = text.strip_prefix("unix://") {
            if path.is_empty() {
                return Err(invalid("unix:// needs a socket path, e.g. unix:///run/curio/cuzk.sock".into()));
            }
            return Ok(ListenAddr::Unix(PathBuf::from(path)));
        }
        if let Ok(addr) = text.parse::<SocketAddr>() {
            return Ok(ListenAddr::Tcp(addr));
        }
        let mut addrs = text.to_socket_addrs().map_err(|e| invalid(format!("{text:?} is neither host:port nor unix:///path ({e})")))?;
        addrs.next().map(ListenAddr::Tcp).ok_or_else(|| invalid(format!("{text:?} resolves to no address")))
    }
}

impl fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListenAddr::Tcp(addr) => write!(f, "{addr}"),
            ListenAddr::Unix(path) => write!(f, "unix://{}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_parse_and_garbage_does_not() {
        assert_eq!(ListenAddr::parse("127.0.0.1:9820").unwrap(), ListenAddr::Tcp("127.0.0.1:9820".parse().unwrap()));
        assert_eq!(ListenAddr::parse("unix:///run/cuzk.sock").unwrap(), ListenAddr::Unix("/run/cuzk.sock".into()));
        assert_eq!(ListenAddr::parse("unix:///run/cuzk.sock").unwrap().to_string(), "unix:///run/cuzk.sock");
        assert!(ListenAddr::parse("unix://").is_err());
        assert!(ListenAddr::parse("no port").is_err());
        assert!(ListenAddr::parse("127.0.0.1:99999").is_err());
    }
}
