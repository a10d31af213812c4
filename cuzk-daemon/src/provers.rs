//! One prover per registered proof (a `SealProver` or a `PostProver`):
//! built on first use or by
//! PreloadSRS, kept until EvictSRS, which is refused while proofs of that
//! proof run. A build that fails (a missing parameter file) is not kept,
//! so the next request tries again.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cuzk::porep::{default_params_file, SealProver, SealProverConfig};
use cuzk::post::{post_params_file, PostProver, PostProverConfig};
use cuzk::update::{update_params_file, UpdateProver, UpdateProverConfig};
use cuzk::Prover;
use log::info;

use crate::registered::CircuitKey;

/// Why EvictSRS did not evict.
#[derive(Debug, thiserror::Error)]
pub enum EvictError {
    /// Proofs are using it.
    #[error("{circuit_id} is in use by {in_use} running proof(s)")]
    InUse {
        /// The circuit id.
        circuit_id: String,
        /// How many.
        in_use: u32,
    },
}

/// A loaded prover, as `GetStatus` lists it.
#[derive(Clone, Debug)]
pub struct LoadedProver {
    /// Its circuit id (`porep-32g`).
    pub circuit_id: String,
    /// Its parameter file's size.
    pub size_bytes: u64,
    /// Proofs using it now.
    pub in_use: u32,
}

/// A loaded prover of either protocol.
#[derive(Clone)]
pub enum AnyProver {
    /// PoRep C2.
    Seal(Arc<SealProver>),
    /// WinningPoSt or WindowPoSt.
    Post(Arc<PostProver>),
    /// SnapDeals sector updates.
    Update(Arc<UpdateProver>),
}

impl AnyProver {
    /// The Groth16 prover underneath.
    pub fn groth16(&self) -> &Prover {
        match self {
            AnyProver::Seal(p) => p.prover(),
            AnyProver::Post(p) => p.prover(),
            AnyProver::Update(p) => p.prover(),
        }
    }

    /// Its parameter file.
    pub fn params_file(&self) -> &std::path::Path {
        match self {
            AnyProver::Seal(p) => p.params_file(),
            AnyProver::Post(p) => p.params_file(),
            AnyProver::Update(p) => p.params_file(),
        }
    }
}

#[derive(Default)]
struct Entry {
    prover: Option<AnyProver>,
    in_use: u32,
    size_bytes: u64,
}

/// The provers of every registered proof used so far.
pub struct ProverCache {
    config: SealProverConfig,
    param_cache: Option<PathBuf>,
    entries: Mutex<HashMap<CircuitKey, Entry>>,
    // One build at a time per registered proof (two would read the same
    // parameter file twice and hold its bases twice); different proofs
    // build side by side, so a WinningPoSt's prover never waits for a
    // C2 prover's build (minutes at 32 GiB when its circuit is recorded).
    building: Mutex<HashMap<CircuitKey, Arc<Mutex<()>>>>,
}

/// A prover lent to a batch of proofs; eviction waits for it back.
pub struct ProverLease<'a> {
    cache: &'a ProverCache,
    proof: CircuitKey,
    prover: AnyProver,
    /// How long getting it took (the build, when it was built for this lease).
    pub load_time: Duration,
}

impl ProverLease<'_> {
    /// The prover.
    pub fn prover(&self) -> &AnyProver {
        &self.prover
    }
}

impl Drop for ProverLease<'_> {
    fn drop(&mut self) {
        if let Some(entry) = self.cache.lock().get_mut(&self.proof) {
            entry.in_use = entry.in_use.saturating_sub(1);
        }
    }
}

impl ProverCache {
    /// A cache building provers with `config`; parameter files are looked
    /// for in `param_cache` when set (else filecoin-proofs' cache).
    pub fn new(config: SealProverConfig, param_cache: Option<PathBuf>) -> Self {
        ProverCache { config, param_cache, entries: Mutex::new(HashMap::new()), building: Mutex::new(HashMap::new()) }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<CircuitKey, Entry>> {
        // A panic elsewhere while it was held leaves the map consistent
        // (every change is one statement): keep serving.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The prover of `proof`, built if it is not loaded.
    pub fn lease(&self, proof: CircuitKey) -> Result<ProverLease<'_>, String> {
        let start = Instant::now();
        let prover = self.load(proof)?.0;
        let mut entries = self.lock();
        let entry = entries.entry(proof).or_default();
        entry.in_use += 1;
        // An eviction between the load and here: keep the prover we hold.
        if entry.prover.is_none() {
            entry.prover = Some(prover.clone());
        }
        Ok(ProverLease { cache: self, proof, prover, load_time: start.elapsed() })
    }

    /// Loads `proof`'s prover; true when it already was.
    pub fn load(&self, proof: CircuitKey) -> Result<(AnyProver, bool), String> {
        if let Some(prover) = self.lock().get(&proof).and_then(|e| e.prover.clone()) {
            return Ok((prover, true));
        }
        let build_lock = self.building.lock().unwrap_or_else(|e| e.into_inner()).entry(proof).or_default().clone();
        let _building = build_lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(prover) = self.lock().get(&proof).and_then(|e| e.prover.clone()) {
            return Ok((prover, true));
        }
        let start = Instant::now();
        // A parameter cache directory of the daemon's own: filecoin-proofs'
        // file name there.
        let in_cache = |default: PathBuf| self.param_cache.as_ref().map(|dir| dir.join(default.file_name().unwrap_or(default.as_os_str())));
        let prover = match proof {
            CircuitKey::Seal(seal) => {
                let mut config = self.config.clone();
                if self.param_cache.is_some() {
                    config.params_file = in_cache(default_params_file(seal).map_err(|e| e.to_string())?);
                }
                AnyProver::Seal(Arc::new(SealProver::new(seal, config).map_err(|e| e.to_string())?))
            }
            CircuitKey::Post(post) => {
                let mut config = PostProverConfig { prover: self.config.prover.clone(), params_file: None, circuit_cache: self.config.circuit_cache.clone(), verify: self.config.verify_seal };
                if self.param_cache.is_some() {
                    config.params_file = in_cache(post_params_file(post).map_err(|e| e.to_string())?);
                }
                AnyProver::Post(Arc::new(PostProver::new(post, config).map_err(|e| e.to_string())?))
            }
            CircuitKey::Update(update) => {
                let mut config = UpdateProverConfig { prover: self.config.prover.clone(), params_file: None, circuit_cache: self.config.circuit_cache.clone(), verify: self.config.verify_seal };
                if self.param_cache.is_some() {
                    config.params_file = in_cache(update_params_file(update).map_err(|e| e.to_string())?);
                }
                AnyProver::Update(Arc::new(UpdateProver::new(update, config).map_err(|e| e.to_string())?))
            }
        };
        let size_bytes = std::fs::metadata(prover.params_file()).map(|m| m.len()).unwrap_or(0);
        info!("{proof}: prover loaded in {:.2?} ({:?} backend, {:.2} GB of parameters)", start.elapsed(), prover.groth16().backend(), size_bytes as f64 / 1e9);
        let mut entries = self.lock();
        let entry = entries.entry(proof).or_default();
        entry.prover = Some(prover.clone());
        entry.size_bytes = size_bytes;
        Ok((prover, false))
    }

    /// Drops `proof`'s prover; the parameter file's size when it was
    /// loaded, `None` when it was not.
    pub fn evict(&self, proof: CircuitKey) -> Result<Option<u64>, EvictError> {
        let mut entries = self.lock();
        let Some(entry) = entries.get_mut(&proof) else { return Ok(None) };
        if entry.in_use > 0 {
            return Err(EvictError::InUse { circuit_id: proof.to_string(), in_use: entry.in_use });
        }
        let evicted = entry.prover.take().map(|_| entry.size_bytes);
        entries.remove(&proof);
        if evicted.is_some() {
            info!("{proof}: prover evicted");
        }
        Ok(evicted)
    }

    /// The loaded provers.
    pub fn loaded(&self) -> Vec<LoadedProver> {
        let mut loaded: Vec<LoadedProver> = self
            .lock()
            .iter()
            .filter(|(_, e)| e.prover.is_some())
            .map(|(proof, e)| LoadedProver { circuit_id: proof.to_string(), size_bytes: e.size_bytes, in_use: e.in_use })
            .collect();
        loaded.sort_by(|a, b| a.circuit_id.cmp(&b.circuit_id));
        loaded
    }

    /// The backends of the loaded provers, and why any `Auto` one fell
    /// back to the CPU.
    pub fn backends(&self) -> Vec<(cuzk::Backend, Option<String>)> {
        self.lock().values().filter_map(|e| e.prover.as_ref()).map(|p| (p.groth16().backend(), p.groth16().gpu_fallback().map(str::to_string))).collect()
    }
}
