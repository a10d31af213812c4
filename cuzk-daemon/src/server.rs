//! Serving the engine over gRPC on TCP or a unix socket, with the message
//! limits Curio's client uses, until a shutdown: queued jobs cancelled,
//! running ones given the grace period, every pending await answered,
//! then the server stops.

use std::time::Duration;

use log::{info, warn};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::wrappers::{TcpListenerStream, UnixListenerStream};
use tonic::transport::Server;

use crate::config::Config;
use crate::engine::Engine;
use crate::error::DaemonError;
use crate::listen::ListenAddr;
use crate::proto::proving_engine_server::ProvingEngineServer;
use crate::service::ProvingService;

/// The largest message either way: a 64 GiB sector's C1 output is about
/// 100 MB of JSON; Curio's client allows 256 MiB.
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// A running daemon.
pub struct Daemon {
    address: ListenAddr,
    engine: Engine,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), DaemonError>>,
}

impl Daemon {
    /// Builds the engine, binds the listen address and serves on the
    /// current tokio runtime.
    pub async fn start(config: &Config) -> Result<Daemon, DaemonError> {
        let engine = Engine::new(config)?;
        let configured = config.listen_addr()?;
        let grace = Duration::from_secs(config.daemon.shutdown_grace_seconds);
        let (stop, stopped) = oneshot::channel::<()>();
        let service = ProvingEngineServer::new(ProvingService::new(engine.clone()))
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        let shutdown_engine = engine.clone();
        let shutdown = async move {
            // A dropped handle stops the daemon too.
            let _ = stopped.await;
            info!("shutting down: cancelling queued jobs, {grace:?} for running ones");
            shutdown_engine.shutdown(grace).await;
        };
        let bind_error = |source| DaemonError::Bind { address: configured.to_string(), source };
        let (address, task) = match &configured {
            ListenAddr::Tcp(addr) => {
                let listener = tokio::net::TcpListener::bind(addr).await.map_err(bind_error)?;
                let bound = ListenAddr::Tcp(listener.local_addr().map_err(bind_error)?);
                let incoming = TcpListenerStream::new(listener);
                let server = Server::builder().add_service(service).serve_with_incoming_shutdown(incoming, shutdown);
                (bound, tokio::spawn(async move { server.await.map_err(DaemonError::from) }))
            }
            ListenAddr::Unix(path) => {
                remove_stale_socket(path);
                let listener = tokio::net::UnixListener::bind(path).map_err(bind_error)?;
                let incoming = UnixListenerStream::new(listener);
                let server = Server::builder().add_service(service).serve_with_incoming_shutdown(incoming, shutdown);
                let socket = path.clone();
                let task = tokio::spawn(async move {
                    let result = server.await.map_err(DaemonError::from);
                    let _ = std::fs::remove_file(&socket);
                    result
                });
                (configured.clone(), task)
            }
        };
        info!("serving cuzk.v1.ProvingEngine on {address}");
        Ok(Daemon { address, engine, stop: Some(stop), task })
    }

    /// Where it listens (a TCP port 0 resolved to the port bound).
    pub fn address(&self) -> &ListenAddr {
        &self.address
    }

    /// Its engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Shuts down and waits until the server has stopped.
    pub async fn shutdown(mut self) -> Result<(), DaemonError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.wait().await
    }

    /// Waits until the server stops (after a shutdown, or an error).
    pub async fn wait(self) -> Result<(), DaemonError> {
        let result = self.task.await.map_err(|e| DaemonError::Task(e.to_string()))?;
        info!("stopped serving on {}", self.address);
        result
    }
}

/// A socket file left by a daemon that did not stop cleanly would make
/// the bind fail; anything else at that path is left for the bind to
/// refuse.
fn remove_stale_socket(path: &std::path::Path) {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_socket() {
            if let Err(e) = std::fs::remove_file(path) {
                warn!("cannot remove the old socket {}: {e}", path.display());
            }
        }
    }
}
