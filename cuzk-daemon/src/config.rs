//! The daemon's TOML configuration. Sections and keys follow the upstream
//! daemon's (`cuzk.example.toml` of Curio's extern/cuzk) where they mean
//! the same, so an upstream file is read as it is; the keys this daemon
//! does not use are reported by [`Config::unused_keys`], not refused.

use std::path::{Path, PathBuf};

use cuzk::Backend;
use serde::Deserialize;

use crate::byte_size::parse_bytes;
use crate::error::ConfigError;
use crate::listen::ListenAddr;

/// The whole configuration; every key has a default.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    /// `[daemon]`: where it listens, how it stops.
    pub daemon: DaemonConfig,
    /// `[srs]`: where the parameter files are.
    pub srs: SrsConfig,
    /// `[gpus]`: which devices, how many proofs in flight on each.
    pub gpus: GpuConfig,
    /// `[synthesis]`: CPU threads.
    pub synthesis: SynthesisConfig,
    /// `[memory]`: the memory budget.
    pub memory: MemoryConfig,
    /// `[scheduler]`: batching.
    pub scheduler: SchedulerConfig,
    /// `[prover]` (this daemon's own): backend, circuit cache, checks.
    pub prover: ProverSection,
    /// `[logging]`: the log level.
    pub logging: LoggingConfig,
}

/// `[daemon]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct DaemonConfig {
    /// `host:port` or `unix:///path` (upstream's key).
    pub listen: String,
    /// Seconds a shutdown waits for running proofs before their results are
    /// discarded and their awaiters told so.
    pub shutdown_grace_seconds: u64,
    /// Finished jobs whose results are kept for `AwaitProof` (oldest dropped first).
    pub finished_jobs_kept: usize,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig { listen: "0.0.0.0:9820".into(), shutdown_grace_seconds: 60, finished_jobs_kept: 10_000 }
    }
}

/// `[srs]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct SrsConfig {
    /// The directory of Filecoin's `v28-*.params` and `.vk` files
    /// (upstream's key). Unset: filecoin-proofs' own
    /// (`FIL_PROOFS_PARAMETER_CACHE`, else `/var/tmp/filecoin-proof-parameters`).
    /// The binary exports it as `FIL_PROOFS_PARAMETER_CACHE` before anything
    /// reads that, so `verify_seal` finds the `.vk` files there too.
    pub param_cache: Option<PathBuf>,
}

/// `[gpus]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct GpuConfig {
    /// GPU ordinals to use; empty: every GPU (upstream's key).
    pub devices: Vec<usize>,
    /// Proofs in flight per GPU (upstream's key; the prover's
    /// `workers_per_device`).
    pub gpu_workers_per_device: usize,
    /// The most VRAM a prover reserves per GPU, as `memory.total_budget`
    /// (e.g. "20GiB"); "auto": the GPU's free memory. The prover fits its
    /// plan into it (fewer workers, streamed bases: the prover's
    /// `vram_limit`).
    pub vram_limit: String,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig { devices: Vec::new(), gpu_workers_per_device: 2, vram_limit: "auto".into() }
    }
}

/// `[synthesis]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct SynthesisConfig {
    /// CPU threads of the global rayon pool that synthesis runs on; 0: one
    /// per core (upstream's key and meaning).
    pub threads: usize,
    /// Partitions synthesized at once (the prover's `synthesis_threads`);
    /// 0: chosen by the prover from the cores and host memory.
    pub partitions: usize,
}

/// `[memory]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct MemoryConfig {
    /// The host memory budget: `auto` (the machine's memory less
    /// `safety_margin`) or an amount such as `256GiB` (upstream's key).
    /// Reported in `GetStatus`; the prover sizes its own buffers.
    pub total_budget: String,
    /// What `auto` leaves to the rest of the machine (upstream's key).
    pub safety_margin: String,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig { total_budget: "auto".into(), safety_margin: "5GiB".into() }
    }
}

/// `[scheduler]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct SchedulerConfig {
    /// Queued PoRep C2s of one registered proof proved in one batch of the
    /// prover's pipeline (upstream's key); 1: one at a time.
    pub max_batch_size: usize,
    /// A second prover thread for HIGH and CRITICAL jobs (WindowPoSt and
    /// WinningPoSt by default), so that they never wait for a running
    /// batch of C2s; their proofs share the GPU with it. Off: one thread,
    /// and an urgent job waits for the batch in progress.
    pub urgent_lane: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig { max_batch_size: 1, urgent_lane: true }
    }
}

/// Which backend proves: `auto`, `cpu` or `gpu`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// The GPU when built with `cuda` and a device is usable, else the CPU.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// The GPU; a prover cannot be built without one.
    Gpu,
}

impl From<BackendChoice> for Backend {
    fn from(choice: BackendChoice) -> Backend {
        match choice {
            BackendChoice::Auto => Backend::Auto,
            BackendChoice::Cpu => Backend::Cpu,
            BackendChoice::Gpu => Backend::Gpu,
        }
    }
}

/// `[prover]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct ProverSection {
    /// The backend.
    pub backend: BackendChoice,
    /// Where compiled circuits are cached; unset: the library's default
    /// (`CUZK_CIRCUIT_CACHE`, else `~/.cache/cuzk/circuits`).
    pub circuit_cache: Option<PathBuf>,
    /// Check each proof with filecoin-proofs' `verify_seal` before it is
    /// returned (and each C1 output's replica id before it is proved).
    pub verify_seal: bool,
}

impl Default for ProverSection {
    fn default() -> Self {
        ProverSection { backend: BackendChoice::Auto, circuit_cache: None, verify_seal: true }
    }
}

/// `[logging]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct LoggingConfig {
    /// `error`, `warn`, `info`, `debug` or `trace`; `RUST_LOG` overrides it.
    pub level: String,
}

impl Default for LoggingConfig {
    fn default() -> Self {
        LoggingConfig { level: "info".into() }
    }
}

/// Every key this daemon reads, as `section.key`.
const KEYS: &[&str] = &[
    "daemon.listen",
    "daemon.shutdown_grace_seconds",
    "daemon.finished_jobs_kept",
    "srs.param_cache",
    "gpus.devices",
    "gpus.gpu_workers_per_device",
    "gpus.vram_limit",
    "synthesis.threads",
    "synthesis.partitions",
    "memory.total_budget",
    "memory.safety_margin",
    "scheduler.max_batch_size",
    "scheduler.urgent_lane",
    "prover.backend",
    "prover.circuit_cache",
    "prover.verify_seal",
    "logging.level",
];

impl Config {
    /// Reads and validates a TOML file.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        let config = Self::from_toml(&text).map_err(|e| match e {
            ConfigError::Parse { source, .. } => ConfigError::Parse { path: path.to_path_buf(), source },
            e => e,
        })?;
        Ok(config)
    }

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|source| ConfigError::Parse { path: PathBuf::from("<text>"), source })?;
        config.validate()?;
        Ok(config)
    }

    /// The keys of `text` this daemon does not read (upstream's pipeline
    /// and scheduler tuning, typos), as `section.key`.
    pub fn unused_keys(text: &str) -> Vec<String> {
        let Ok(table) = text.parse::<toml::Table>() else { return Vec::new() };
        let mut unused = Vec::new();
        for (section, value) in &table {
            match value.as_table() {
                Some(keys) => unused.extend(keys.keys().map(|k| format!("{section}.{k}")).filter(|k| !KEYS.contains(&k.as_str()))),
                None => unused.push(section.clone()),
            }
        }
        unused
    }

    /// Checks every value; the first one out of range is the error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.listen_addr()?;
        let workers = self.gpus.gpu_workers_per_device;
        if workers == 0 || workers > cuzk::MAX_WORKERS_PER_DEVICE {
            return Err(ConfigError::Invalid { key: "gpus.gpu_workers_per_device", why: format!("{workers} is not in 1..={}", cuzk::MAX_WORKERS_PER_DEVICE) });
        }
        if self.scheduler.max_batch_size == 0 {
            return Err(ConfigError::Invalid { key: "scheduler.max_batch_size", why: "must be at least 1".into() });
        }
        if self.daemon.finished_jobs_kept == 0 {
            return Err(ConfigError::Invalid { key: "daemon.finished_jobs_kept", why: "must be at least 1 (a result must outlive its proof to be awaited)".into() });
        }
        self.memory_budget()?;
        self.vram_limit()?;
        if self.prover.backend == BackendChoice::Gpu && !cfg!(feature = "cuda") {
            return Err(ConfigError::Invalid { key: "prover.backend", why: "\"gpu\" needs a build with the cuda feature".into() });
        }
        Ok(())
    }

    /// The listen address.
    pub fn listen_addr(&self) -> Result<ListenAddr, ConfigError> {
        ListenAddr::parse(&self.daemon.listen)
    }

    /// The VRAM limit per GPU in bytes (`None`: "auto", the free memory).
    pub fn vram_limit(&self) -> Result<Option<u64>, ConfigError> {
        if self.gpus.vram_limit.trim().eq_ignore_ascii_case("auto") {
            return Ok(None);
        }
        parse_bytes("gpus.vram_limit", &self.gpus.vram_limit).map(Some)
    }

    /// The memory budget in bytes (`auto`: the machine's memory less the
    /// safety margin, 0 where the machine's memory cannot be read).
    pub fn memory_budget(&self) -> Result<u64, ConfigError> {
        if self.memory.total_budget.trim().eq_ignore_ascii_case("auto") {
            let margin = parse_bytes("memory.safety_margin", &self.memory.safety_margin)?;
            return Ok(crate::memory::total_bytes().saturating_sub(margin));
        }
        parse_bytes("memory.total_budget", &self.memory.total_budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let config = Config::from_toml("").unwrap();
        assert_eq!(config.daemon.listen, "0.0.0.0:9820");
        assert_eq!(config.gpus.gpu_workers_per_device, 2);
        assert!(config.prover.verify_seal);
    }

    #[test]
    fn the_sample_file_parses_and_uses_every_key() {
        let text = include_str!("../cuzk-daemon.example.toml");
        Config::from_toml(text).unwrap();
        assert_eq!(Config::unused_keys(text), Vec::<String>::new());
    }

    #[test]
    fn upstream_keys_are_read_and_the_rest_reported() {
        let text = "[daemon]\nlisten = \"unix:///run/curio/cuzk.sock\"\nstatus_listen = \"\"\n[srs]\nparam_cache = \"/data/zk/params\"\n[pipeline]\nenabled = true\n";
        let config = Config::from_toml(text).unwrap();
        assert_eq!(config.listen_addr().unwrap(), ListenAddr::Unix("/run/curio/cuzk.sock".into()));
        assert_eq!(config.srs.param_cache.as_deref(), Some(Path::new("/data/zk/params")));
        assert_eq!(Config::unused_keys(text), vec!["daemon.status_listen".to_string(), "pipeline.enabled".to_string()]);
    }

    #[test]
    fn bad_values_are_errors_naming_their_key() {
        for (text, key) in [
            ("[daemon]\nlisten = \"nowhere\"", "daemon.listen"),
            ("[gpus]\ngpu_workers_per_device = 0", "gpus.gpu_workers_per_device"),
            ("[scheduler]\nmax_batch_size = 0", "scheduler.max_batch_size"),
            ("[memory]\ntotal_budget = \"much\"", "memory.total_budget"),
            ("[gpus]\nvram_limit = \"small\"", "gpus.vram_limit"),
        ] {
            match Config::from_toml(text) {
                Err(ConfigError::Invalid { key: k, .. }) => assert_eq!(k, key, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(Config::from_toml("[gpus]\ndevices = \"all\""), Err(ConfigError::Parse { .. })));
        assert!(matches!(Config::from_toml("[prover]\nbackend = \"tpu\""), Err(ConfigError::Parse { .. })));
    }
}
