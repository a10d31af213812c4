//! Starting a daemon in-process and connecting a client generated from the
//! same proto, over TCP or a unix socket.
#![allow(dead_code)]

pub mod post;

use std::path::{Path, PathBuf};

use cuzk_daemon::config::BackendChoice;
use cuzk_daemon::proto::proving_engine_client::ProvingEngineClient;
use cuzk_daemon::{Config, Daemon, ListenAddr, MAX_MESSAGE_BYTES};
use hyper_util::rt::TokioIo;
use tonic::transport::{Channel, Endpoint, Uri};

pub type Client = ProvingEngineClient<Channel>;

/// Where the library's sealing tests keep their setups: the build's
/// `CARGO_TARGET_TMPDIR`, or `CUZK_TEST_TMPDIR` where the test executables
/// run on another machine (as `tests/porep/sealing.rs` reads it).
pub fn sealing_tmpdir() -> PathBuf {
    std::env::var_os("CUZK_TEST_TMPDIR").map_or_else(|| env!("CARGO_TARGET_TMPDIR").into(), Into::into)
}

/// A CPU daemon on a free loopback port, its circuits and parameters in
/// `dir` (`params_in_dir`: else filecoin-proofs' own cache).
pub fn config(dir: &Path, params_in_dir: bool) -> Config {
    let mut config = Config::default();
    config.daemon.listen = "127.0.0.1:0".into();
    config.daemon.shutdown_grace_seconds = 10;
    config.prover.backend = BackendChoice::Cpu;
    config.prover.circuit_cache = Some(dir.join("circuits"));
    if params_in_dir {
        let params = dir.join("parameters");
        std::fs::create_dir_all(&params).unwrap();
        config.srs.param_cache = Some(params);
    }
    config
}

/// A client of `daemon`, with the daemon's message limits.
pub async fn connect(daemon: &Daemon) -> Client {
    let channel = match daemon.address() {
        ListenAddr::Tcp(addr) => Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.expect("TCP connection"),
        ListenAddr::Unix(path) => connect_unix(path.clone()).await,
    };
    ProvingEngineClient::new(channel).max_decoding_message_size(MAX_MESSAGE_BYTES).max_encoding_message_size(MAX_MESSAGE_BYTES)
}

async fn connect_unix(path: PathBuf) -> Channel {
    // The URI is unused: the connector dials the socket.
    Endpoint::try_from("http://[::1]:50051")
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = path.clone();
            async move { Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?)) }
        }))
        .await
        .expect("unix socket connection")
}

/// Parses Prometheus text: every sample line `name{labels} value` with a
/// number, every sample's family declared by a TYPE line. The samples.
pub fn parse_prometheus(text: &str) -> Vec<(String, f64)> {
    let mut declared = std::collections::HashSet::new();
    let mut samples = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut parts = rest.split_whitespace();
            declared.insert(parts.next().expect("a family name").to_string());
            assert!(matches!(parts.next(), Some("counter" | "gauge" | "histogram")), "{line}");
            continue;
        }
        if line.starts_with("# HELP ") || line.is_empty() {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("not a sample: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("not a number: {line}"));
        let name = series.split('{').next().unwrap();
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{line}");
        if let Some(labels) = series.strip_prefix(name) {
            if !labels.is_empty() {
                assert!(labels.starts_with('{') && labels.ends_with('}'), "{line}");
            }
        }
        let family = ["_bucket", "_sum", "_count"].iter().find_map(|s| name.strip_suffix(s)).filter(|f| declared.contains(*f)).unwrap_or(name);
        assert!(declared.contains(family), "no TYPE line for {name}");
        samples.push((series.to_string(), value));
    }
    samples
}

/// A sample's value.
pub fn sample(samples: &[(String, f64)], series: &str) -> f64 {
    samples.iter().find(|(s, _)| s == series).unwrap_or_else(|| panic!("no sample {series}")).1
}

/// Copies a setup that one of the library's tests made (the library's tests
/// run before this crate's in a workspace test run, under the same target
/// directory): the parameter file named like `params` and its `.vk` from
/// `<target tmp>/<library_test>/parameters`, and the compiled circuits of
/// `<target tmp>/<library_test>/circuits` into `circuits`. A run of the
/// ignored real-sealing tests then makes each 2 KiB setup once, not twice.
/// Nothing is copied unless both files are there; true when copied.
pub fn reuse_library_setup(library_test: &str, params: &Path, circuits: &Path) -> bool {
    let library = sealing_tmpdir().join(library_test);
    let Some(name) = params.file_name() else { return false };
    let from = library.join("parameters").join(name);
    let from_vk = from.with_extension("vk");
    if !(from.exists() && from_vk.exists()) {
        return false;
    }
    let copying = params.with_extension("vk-copying");
    let copied = std::fs::copy(&from_vk, &copying).and_then(|_| std::fs::copy(&from, params)).and_then(|_| std::fs::rename(&copying, params.with_extension("vk")));
    if let Err(e) = copied {
        println!("{}: the library test's setup not reused: {e}", from.display());
        return false;
    }
    println!("{}: the library test's setup reused", from.display());
    if let Ok(entries) = std::fs::read_dir(library.join("circuits")) {
        let _ = std::fs::create_dir_all(circuits);
        for entry in entries.flatten() {
            let _ = std::fs::copy(entry.path(), circuits.join(entry.file_name()));
        }
    }
    true
}
