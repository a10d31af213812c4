//! One prover per registered PoRep, built once: its compiled circuit from
//! the cache (recorded from the blank circuit the first time), its
//! parameters from filecoin-proofs' parameter cache straight to the GPU;
//! then C1 outputs in, filecoin-proofs' C2 bytes out, the partitions of
//! every sector of a call pipelined through the prover's workers.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bellperson::groth16::Proof;
use blstrs::{Bls12, Scalar};
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_proofs::PoRepConfig;
use filecoin_proofs_api::RegisteredSealProof;
use log::{info, warn};
use rand_core::RngCore;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_porep::stacked::StackedCompound;

use super::c1::C1Output;
use super::circuit_cache::{default_circuit_cache, load_or_record, CircuitOrigin};
use super::circuits::{check_replica_id, public_params, sector_circuits_with, SectorCircuits, SectorIds};
use super::witness::{recognizes, NativeWitness};
use super::shape::{check_supported, sector_bytes, with_tree, ShapeTree};
use super::PorepError;
use crate::{random_r_s, CompiledCircuit, ParamsFile, PhaseTimings, Prover, ProverConfig, ProverError};

/// Partitions whose native witnesses are made at once (each on every
/// core) when `ProverConfig::synthesis_threads` is left at 0. One: a 32 GiB
/// partition's witness and its classes take about 0.46 s on 16 cores
/// against 1.42 s of GPU, and the first partition of a batch is then ready
/// soonest (one sector 14.81 s against 14.98 s with two; docs/PERFORMANCE.md).
pub const NATIVE_SYNTHESIS_THREADS: usize = 1;

/// How a [`SealProver`] is built.
#[derive(Clone, Debug)]
pub struct SealProverConfig {
    /// The Groth16 prover's settings. `verify_proofs: None` means on, on
    /// every backend (a partition proof is checked against the parameters'
    /// verifying key before the sector's proof is assembled).
    pub prover: ProverConfig,
    /// The parameter file (bellperson's format). `None`: filecoin-proofs'
    /// own name for the registered proof in its parameter cache
    /// (`FIL_PROOFS_PARAMETER_CACHE`, default `/var/tmp/filecoin-proof-parameters`).
    pub params_file: Option<PathBuf>,
    /// Where compiled circuits are kept. `None`: `CUZK_CIRCUIT_CACHE`, else
    /// `$XDG_CACHE_HOME/cuzk/circuits`, else `~/.cache/cuzk/circuits`.
    pub circuit_cache: Option<PathBuf>,
    /// Check each sector's proof with filecoin-proofs' `verify_seal` (the
    /// `.vk` file of filecoin-proofs' parameter cache) before returning it,
    /// as `seal_commit_phase2` does, and check the C1 output's replica id
    /// against the sector's ids before proving. Off only for parameters
    /// that are not the registered ones (random bases in benchmarks).
    pub verify_seal: bool,
    /// How partition witnesses are made: natively for the compiled
    /// circuits the native witness recognizes (the default), always by
    /// witness-only synthesis, or both and compared. With a native witness
    /// and `prover.synthesis_threads` at 0, [`NATIVE_SYNTHESIS_THREADS`]
    /// partitions are synthesized at a time, each on all cores.
    pub native_witness: NativeWitness,
}

impl Default for SealProverConfig {
    fn default() -> Self {
        SealProverConfig { prover: ProverConfig::default(), params_file: None, circuit_cache: None, verify_seal: true, native_witness: NativeWitness::Auto }
    }
}

/// One sector's C2 request.
#[derive(Clone, Debug)]
pub struct SealRequest {
    /// Its C1 output.
    pub c1: C1Output,
    /// Its prover and sector ids.
    pub ids: SectorIds,
}

/// A sector's C2 proof and what it took.
#[derive(Clone, Debug)]
pub struct SealProof {
    /// filecoin-proofs' C2 bytes: each partition's Groth16 proof,
    /// compressed (192 bytes each), in partition order.
    pub proof: Vec<u8>,
    /// Each partition's Groth16 proof.
    pub partition_proofs: Vec<Proof<Bls12>>,
    /// Each partition's phases (witness synthesis, pre-stage, GPU).
    pub partitions: Vec<PhaseTimings>,
    /// Building the partition circuits from the vanilla proofs.
    pub circuits: Duration,
    /// `verify_seal`, when it ran.
    pub verify_seal: Option<Duration>,
}

/// Makes the C2 proofs of one registered PoRep.
pub struct SealProver {
    proof: RegisteredSealProof,
    config: PoRepConfig,
    prover: Prover,
    verify_seal: bool,
    params_file: PathBuf,
    circuit_origin: CircuitOrigin,
    /// How its witnesses are made (`Auto` resolved to `On` or `Off`).
    native_witness: NativeWitness,
}

impl SealProver {
    /// Builds the prover of `proof`'s C2: the compiled circuit from the
    /// cache or recorded, the parameter file opened and checked against it,
    /// its bases on the GPU (or decoded for the CPU).
    pub fn new(proof: RegisteredSealProof, config: SealProverConfig) -> Result<Self, PorepError> {
        check_supported(proof)?;
        // A missing or unreadable parameter file is an error at once, not
        // after recording the circuit (minutes at 32 GiB).
        let params_file = match &config.params_file {
            Some(path) => path.clone(),
            None => default_params_file(proof)?,
        };
        ParamsFile::open(&params_file).map_err(|source| PorepError::Params { path: params_file.clone(), source })?;
        let cache = config.circuit_cache.clone().or_else(default_circuit_cache);
        let (compiled, origin) = compiled_circuit(proof, cache.as_deref())?;
        Self::with_circuit(proof, compiled, origin, config)
    }

    /// [`SealProver::new`] with its compiled circuit already at hand
    /// ([`compiled_circuit`]).
    pub fn with_circuit(proof: RegisteredSealProof, compiled: CompiledCircuit, circuit_origin: CircuitOrigin, config: SealProverConfig) -> Result<Self, PorepError> {
        check_supported(proof)?;
        let porep = proof.as_v1_config();
        let params_file = match config.params_file.clone() {
            Some(path) => path,
            None => default_params_file(proof)?,
        };
        let native_witness = match config.native_witness {
            NativeWitness::Auto => {
                let start = Instant::now();
                match recognizes(&compiled.digest()) {
                    Some(name) => {
                        info!("{proof:?}: native witness (compiled circuit of {name}, recognized in {:.2?})", start.elapsed());
                        NativeWitness::Auto
                    }
                    None => {
                        info!("{proof:?}: witness-only synthesis (the native witness does not know this compiled circuit)");
                        NativeWitness::Off
                    }
                }
            }
            mode => mode,
        };
        let start = Instant::now();
        let file = ParamsFile::open(&params_file).map_err(|source| PorepError::Params { path: params_file.clone(), source })?;
        info!("{proof:?}: parameter file {} ({:.2} GB) opened in {:.2?}", params_file.display(), file.len() as f64 / 1e9, start.elapsed());
        let mut prover_config = config.prover.clone();
        prover_config.verify_proofs = Some(prover_config.verify_proofs.unwrap_or(true));
        if native_witness != NativeWitness::Off && prover_config.synthesis_threads == 0 {
            // A native witness uses every core: one partition at a time
            // keeps the GPU fed (each takes a third of its proof's GPU time)
            // with the fewest witnesses in memory.
            prover_config.synthesis_threads = NATIVE_SYNTHESIS_THREADS;
        }
        let synthesis_threads = prover_config.synthesis_threads;
        let start = Instant::now();
        let prover = Prover::with_compiled(file, compiled, prover_config).map_err(|e| match e {
            ProverError::ParamsFile(source) => PorepError::Params { path: params_file.clone(), source },
            e => PorepError::Prover(e),
        })?;
        // A SealProver proves for a long time: its witness buffers are made
        // now, not in its first sector's time.
        let buffers = prover.reserve_witness_buffers();
        let synthesis = if synthesis_threads == 0 { "synthesis threads by memory".to_string() } else { format!("{synthesis_threads} partition(s) synthesized at a time") };
        info!("{proof:?}: prover ready in {:.2?} ({:?}, {} worker(s), {buffers} witness buffer(s) reserved, {synthesis})", start.elapsed(), prover.backend(), prover.workers());
        Ok(SealProver { proof, config: porep, prover, verify_seal: config.verify_seal, params_file, circuit_origin, native_witness })
    }

    /// The registered proof it makes.
    pub fn registered_proof(&self) -> RegisteredSealProof {
        self.proof
    }

    /// The Groth16 prover underneath.
    pub fn prover(&self) -> &Prover {
        &self.prover
    }

    /// The parameter file it proves with.
    pub fn params_file(&self) -> &Path {
        &self.params_file
    }

    /// Where its compiled circuit came from.
    pub fn circuit_origin(&self) -> &CircuitOrigin {
        &self.circuit_origin
    }

    /// How it makes partition witnesses: `Auto` when natively (its
    /// compiled circuit recognized), `Off` by witness-only synthesis,
    /// `Checked` both.
    pub fn native_witness(&self) -> NativeWitness {
        self.native_witness
    }

    /// filecoin-proofs' configuration of its registered proof.
    pub fn porep_config(&self) -> &PoRepConfig {
        &self.config
    }

    /// The partition circuits of a C1 output of this prover's proof.
    pub fn circuits(&self, c1: &C1Output) -> Result<SectorCircuits, PorepError> {
        if c1.registered_proof() != self.proof {
            return Err(PorepError::WrongProof { expected: format!("{:?}", self.proof), found: format!("{:?}", c1.registered_proof()) });
        }
        sector_circuits_with(&c1.phase1, &self.config, self.native_witness)
    }

    /// One sector's C2.
    pub fn prove(&self, request: &SealRequest, rng: &mut impl RngCore) -> Result<SealProof, PorepError> {
        self.prove_sectors(std::slice::from_ref(request), rng, |_, _, _| {}).pop().expect("one result per request")
    }

    /// The C2 of every sector of `requests`, one result each, in order. All
    /// their partitions go through one batch of the prover (witnesses
    /// synthesized in parallel within the host memory there is, handed to
    /// the workers as each is ready), so the GPU is not idle between
    /// sectors. A sector whose C1 output is bad, or one of whose partitions
    /// fails, has an error; the others are proved. `on_partition(sector,
    /// partition, result)` is called as each partition's proof finishes.
    /// r and s are drawn from `rng` in order, sector by sector and partition
    /// by partition.
    pub fn prove_sectors(
        &self,
        requests: &[SealRequest],
        rng: &mut impl RngCore,
        on_partition: impl Fn(usize, usize, &Result<(Proof<Bls12>, PhaseTimings), ProverError>) + Sync,
    ) -> Vec<Result<SealProof, PorepError>> {
        self.prove_sectors_until(requests, rng, &AtomicBool::new(false), on_partition)
    }

    /// [`prove_sectors`](Self::prove_sectors) that stops early once `stop`
    /// is set: partitions not yet started are not proved (their sectors'
    /// results are errors, `ProverError::Cancelled` underneath); those
    /// already on a GPU finish. For a daemon whose client cancelled.
    pub fn prove_sectors_until(
        &self,
        requests: &[SealRequest],
        rng: &mut impl RngCore,
        stop: &AtomicBool,
        on_partition: impl Fn(usize, usize, &Result<(Proof<Bls12>, PhaseTimings), ProverError>) + Sync,
    ) -> Vec<Result<SealProof, PorepError>> {
        let mut results: Vec<Option<Result<SealProof, PorepError>>> = (0..requests.len()).map(|_| None).collect();
        // Which sector and partition each circuit of the batch is.
        let mut owner: Vec<(usize, usize)> = Vec::new();
        let mut circuits = Vec::new();
        let mut building = vec![Duration::ZERO; requests.len()];
        for (i, request) in requests.iter().enumerate() {
            let start = Instant::now();
            let built = self.circuits(&request.c1).and_then(|c| {
                if self.verify_seal {
                    check_replica_id(&request.c1.phase1, &self.config, &request.ids)?;
                }
                Ok(c)
            });
            building[i] = start.elapsed();
            match built {
                Ok(sector) => {
                    owner.extend((0..sector.circuits.len()).map(|k| (i, k)));
                    circuits.extend(sector.circuits);
                }
                Err(e) => {
                    warn!("sector {}: no proof: {e}", request.ids.sector_id);
                    results[i] = Some(Err(e));
                }
            }
        }
        let randomness: Vec<(Scalar, Scalar)> = circuits.iter().map(|_| random_r_s(rng)).collect();
        let proved = self.prover.prove_batch_timed(circuits, randomness, stop, |j, result| {
            let (sector, partition) = owner[j];
            on_partition(sector, partition, result)
        });
        let mut partitions: Vec<Vec<Result<(Proof<Bls12>, PhaseTimings), ProverError>>> = (0..requests.len()).map(|_| Vec::new()).collect();
        for ((sector, _), result) in owner.iter().zip(proved) {
            partitions[*sector].push(result);
        }
        for (i, request) in requests.iter().enumerate() {
            if results[i].is_none() {
                results[i] = Some(self.assemble(request, std::mem::take(&mut partitions[i]), building[i]));
            }
        }
        results.into_iter().map(|r| r.expect("every sector has a result")).collect()
    }

    /// A sector's proof bytes from its partitions' proofs, checked with
    /// `verify_seal` when it is on.
    fn assemble(
        &self,
        request: &SealRequest,
        partitions: Vec<Result<(Proof<Bls12>, PhaseTimings), ProverError>>,
        circuits: Duration,
    ) -> Result<SealProof, PorepError> {
        let mut proof = Vec::with_capacity(192 * partitions.len());
        let mut partition_proofs = Vec::with_capacity(partitions.len());
        let mut timings = Vec::with_capacity(partitions.len());
        for (partition, result) in partitions.into_iter().enumerate() {
            let (p, t) = result.map_err(|source| PorepError::partition(partition, source))?;
            p.write(&mut proof).expect("writing to a Vec");
            partition_proofs.push(p);
            timings.push(t);
        }
        let verify_seal = if self.verify_seal {
            let start = Instant::now();
            let phase1 = &request.c1.phase1;
            let ok = filecoin_proofs_api::seal::verify_seal(
                self.proof,
                phase1.comm_r,
                phase1.comm_d,
                request.ids.prover_id,
                request.ids.sector_id.into(),
                phase1.ticket,
                phase1.seed,
                &proof,
            )
            .map_err(PorepError::proofs)?;
            if !ok {
                return Err(PorepError::SealRejected { sector_id: request.ids.sector_id });
            }
            Some(start.elapsed())
        } else {
            None
        };
        Ok(SealProof { proof, partition_proofs, partitions: timings, circuits, verify_seal })
    }
}

fn cache_identifier<Tree: ShapeTree>(config: &PoRepConfig) -> Result<String, PorepError> {
    config.get_cache_identifier::<Tree>().map_err(PorepError::proofs)
}

/// filecoin-proofs' parameter identifier of `proof` (its parameter and
/// verifying key files are `v28-<identifier>.params` and `.vk`).
pub fn parameter_identifier(proof: RegisteredSealProof) -> Result<String, PorepError> {
    with_tree!(sector_bytes(proof), cache_identifier(&proof.as_v1_config()))
}

/// Where filecoin-proofs looks for `proof`'s parameter file: its parameter
/// cache (`FIL_PROOFS_PARAMETER_CACHE`, read once per process).
pub fn default_params_file(proof: RegisteredSealProof) -> Result<PathBuf, PorepError> {
    Ok(storage_proofs_core::parameter_cache::parameter_cache_params_path(&parameter_identifier(proof)?))
}

/// `proof`'s compiled circuit, from `cache` (a directory) or recorded from
/// storage-proofs' blank circuit and kept there.
pub fn compiled_circuit(proof: RegisteredSealProof, cache: Option<&Path>) -> Result<(CompiledCircuit, CircuitOrigin), PorepError> {
    let identifier = parameter_identifier(proof)?;
    let config = proof.as_v1_config();
    load_or_record(cache, &identifier, || with_tree!(sector_bytes(proof), record_blank(&config)))
}

/// The compiled circuit of a partition of `config`'s sectors, recorded from
/// storage-proofs' blank circuit.
fn record_blank<Tree: ShapeTree>(config: &PoRepConfig) -> Result<CompiledCircuit, PorepError> {
    let pp = public_params::<Tree>(config)?;
    let blank = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<_, _>>::blank_circuit(&pp);
    Ok(CompiledCircuit::record(Tree::wrap(blank))?)
}
