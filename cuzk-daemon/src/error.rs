//! What can stop the daemon from starting or serving (a request that fails
//! is a FAILED job, not one of these).

use std::path::PathBuf;

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not TOML of the daemon's configuration.
    #[error("config file {}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The TOML decoder's message.
        source: toml::de::Error,
    },
    /// A value is out of its range or not of its form.
    #[error("config key {key}: {why}")]
    Invalid {
        /// The key, as `section.key`.
        key: &'static str,
        /// What is wrong.
        why: String,
    },
}

/// The daemon could not start or stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The configuration is not usable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The listen address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address, as configured.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// The gRPC server failed.
    #[error("gRPC server: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The server task ended abnormally.
    #[error("server task: {0}")]
    Task(String),
}
