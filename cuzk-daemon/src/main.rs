//! `cuzk-daemon`: serves `cuzk.v1.ProvingEngine` until SIGINT or SIGTERM.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use cuzk_daemon::{Config, Daemon, DaemonError};
use log::{error, info, warn};

/// A proving daemon for Curio: cuzk's Groth16 prover behind the
/// cuzk.v1.ProvingEngine gRPC protocol (PoRep C2).
#[derive(Parser, Debug)]
#[command(name = "cuzk-daemon", version)]
struct Cli {
    /// The configuration file (TOML; see cuzk-daemon.example.toml). Without
    /// it, every key takes its default.
    #[arg(short, long)]
    config: Option<PathBuf>,
    /// Listen address, overriding the file's: "host:port" or
    /// "unix:///path/to.sock".
    #[arg(short, long)]
    listen: Option<String>,
    /// Log level, overriding the file's (RUST_LOG overrides both).
    #[arg(long)]
    log_level: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e}");
            eprintln!("cuzk-daemon: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), DaemonError> {
    let (mut config, unused) = match &cli.config {
        Some(path) => {
            let config = Config::from_file(path)?;
            let unused = std::fs::read_to_string(path).map(|t| Config::unused_keys(&t)).unwrap_or_default();
            (config, unused)
        }
        None => (Config::default(), Vec::new()),
    };
    if let Some(listen) = cli.listen {
        config.daemon.listen = listen;
    }
    if let Some(level) = cli.log_level {
        config.logging.level = level;
    }
    config.validate()?;
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(&config.logging.level)).init();
    if !unused.is_empty() {
        warn!("config keys not used by this daemon: {}", unused.join(", "));
    }
    // filecoin-proofs reads its parameter cache variable once per process:
    // set before any prover or verify_seal runs.
    if let Some(dir) = &config.srs.param_cache {
        std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", dir);
    }
    if config.synthesis.threads > 0 {
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(config.synthesis.threads).build_global() {
            warn!("synthesis.threads: the rayon pool was already built: {e}");
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .thread_name("cuzk-grpc")
        .enable_all()
        .build()
        .map_err(|e| DaemonError::Task(format!("tokio runtime: {e}")))?;
    runtime.block_on(async {
        let daemon = Daemon::start(&config).await?;
        info!("cuzk-daemon {} ready on {}", env!("CARGO_PKG_VERSION"), daemon.address());
        stop_signal().await;
        daemon.shutdown().await
    })
}

/// SIGINT or SIGTERM.
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => info!("SIGINT"),
                _ = term.recv() => info!("SIGTERM"),
            }
        }
        Err(e) => {
            warn!("cannot watch SIGTERM ({e}); stopping on SIGINT only");
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
