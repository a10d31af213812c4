//! One prover per registered update proof, built once: its compiled
//! circuit from the cache (recorded from the blank circuit the first time),
//! its parameters from filecoin-proofs' parameter cache; then vanilla
//! partition proofs in, filecoin-proofs' update proof bytes out, each
//! partition's proof checked before return.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bellperson::groth16::{self, PreparedVerifyingKey, Proof};
use blstrs::{Bls12, Scalar};
use filecoin_proofs_api::RegisteredUpdateProof;
use log::info;
use rand_core::RngCore;

use super::circuits::{blank, build, identifier, UpdateRequest};
use super::shape::UpdateCircuit;
use super::UpdateError;
use crate::porep::circuit_cache::{default_circuit_cache, load_or_record, CircuitOrigin};
use crate::porep::{build_prover, BuildError, BuiltProver};
use crate::{random_r_s, CompiledCircuit, PhaseTimings, Prover, ProverConfig};

/// How an [`UpdateProver`] is built.
#[derive(Clone, Debug)]
pub struct UpdateProverConfig {
    /// The Groth16 prover's settings (`verify_proofs: None` means on).
    pub prover: ProverConfig,
    /// The parameter file. `None`: filecoin-proofs' name for the proof in
    /// its parameter cache (`FIL_PROOFS_PARAMETER_CACHE`).
    pub params_file: Option<PathBuf>,
    /// Where compiled circuits are kept (`None`: as for
    /// [`SealProverConfig`](crate::porep::SealProverConfig)).
    pub circuit_cache: Option<PathBuf>,
    /// Check each partition's proof with filecoin-proofs' verifying key
    /// (the `.vk` beside the parameter file) and storage-proofs-update's
    /// public inputs before returning, as filecoin-proofs' verifier would.
    pub verify: bool,
}

impl Default for UpdateProverConfig {
    fn default() -> Self {
        UpdateProverConfig { prover: ProverConfig::default(), params_file: None, circuit_cache: None, verify: true }
    }
}

/// A sector update's proof and what it took.
#[derive(Clone, Debug)]
pub struct UpdateProof {
    /// filecoin-proofs' proof bytes: each partition's Groth16 proof,
    /// compressed (192 bytes each), in partition order.
    pub proof: Vec<u8>,
    /// Each partition's Groth16 proof.
    pub partition_proofs: Vec<Proof<Bls12>>,
    /// Each partition's phases.
    pub partitions: Vec<PhaseTimings>,
    /// Decoding and checking the vanilla proofs, building the circuits.
    pub circuits: Duration,
    /// The check against filecoin-proofs' verifying key, when it ran.
    pub verify: Option<Duration>,
}

/// Makes the proofs of one registered update proof.
pub struct UpdateProver {
    proof: RegisteredUpdateProof,
    prover: Prover,
    params_file: PathBuf,
    circuit_origin: CircuitOrigin,
    verifying_key: Option<PreparedVerifyingKey<Bls12>>,
}

/// Where filecoin-proofs looks for `proof`'s parameter file.
pub fn update_params_file(proof: RegisteredUpdateProof) -> Result<PathBuf, UpdateError> {
    Ok(storage_proofs_core::parameter_cache::parameter_cache_params_path(&identifier(proof)?))
}

/// `proof`'s compiled partition circuit, from `cache` (a directory) or
/// recorded from storage-proofs-update's blank circuit and kept there.
pub fn update_compiled_circuit(proof: RegisteredUpdateProof, cache: Option<&Path>) -> Result<(CompiledCircuit, CircuitOrigin), UpdateError> {
    check_supported(proof)?;
    let identifier = identifier(proof)?;
    let blank = blank(proof)?;
    Ok(load_or_record(cache, &identifier, || Ok(CompiledCircuit::record(blank)?))?)
}

fn check_supported(proof: RegisteredUpdateProof) -> Result<(), UpdateError> {
    if proof.major_version() != 1 {
        return Err(UpdateError::UnsupportedProof { proof: format!("{proof:?}"), why: "only version 1 update proofs exist" });
    }
    Ok(())
}

impl UpdateProver {
    /// Builds the prover of `proof`: the parameter file opened (and the
    /// verifying key read, when proofs are checked) before the compiled
    /// circuit is loaded or recorded, its bases on the GPU (or decoded for
    /// the CPU).
    pub fn new(proof: RegisteredUpdateProof, config: UpdateProverConfig) -> Result<Self, UpdateError> {
        check_supported(proof)?;
        let params_file = match config.params_file.clone() {
            Some(path) => path,
            None => update_params_file(proof)?,
        };
        let start = Instant::now();
        let cache = config.circuit_cache.clone().or_else(default_circuit_cache);
        let BuiltProver { prover, circuit_origin, verifying_key } = build_prover(&params_file, config.verify, &config.prover, || update_compiled_circuit(proof, cache.as_deref()))?;
        info!("{proof:?}: prover ready in {:.2?} ({:?}, {} worker(s))", start.elapsed(), prover.backend(), prover.workers());
        Ok(UpdateProver { proof, prover, params_file, circuit_origin, verifying_key })
    }

    /// The registered proof it makes.
    pub fn registered_proof(&self) -> RegisteredUpdateProof {
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

    /// The partition circuits of `request` (its vanilla proofs checked),
    /// as the prover proves them: for comparing with bellperson's prover.
    pub fn circuits(&self, request: &UpdateRequest) -> Result<Vec<UpdateCircuit>, UpdateError> {
        Ok(build(self.proof, request)?.into_iter().map(|p| p.circuit).collect())
    }

    /// The update's proof, r and s of each partition drawn from `rng` in
    /// partition order.
    pub fn prove(&self, request: &UpdateRequest, rng: &mut impl RngCore) -> Result<UpdateProof, UpdateError> {
        // One pair per vanilla proof (the circuits check the count).
        let randomness = request.vanilla_proofs.iter().map(|_| random_r_s(rng)).collect();
        self.prove_until(request, randomness, &AtomicBool::new(false))
    }

    /// The update's proof with each partition's `(r, s)`; partitions not
    /// started when `stop` is set are not proved (`ProverError::Cancelled`).
    pub fn prove_until(&self, request: &UpdateRequest, randomness: Vec<(Scalar, Scalar)>, stop: &AtomicBool) -> Result<UpdateProof, UpdateError> {
        let start = Instant::now();
        let built = build(self.proof, request)?;
        let circuits = start.elapsed();
        let (circuits_of, inputs): (Vec<UpdateCircuit>, Vec<Vec<Scalar>>) = built.into_iter().map(|p| (p.circuit, p.public_inputs)).unzip();
        let results = self.prover.prove_batch_timed(circuits_of, randomness, stop, |_, _| {});
        let mut proof = Vec::with_capacity(192 * results.len());
        let (mut partition_proofs, mut partitions) = (Vec::new(), Vec::new());
        for (partition, result) in results.into_iter().enumerate() {
            let (p, t) = result.map_err(|source| UpdateError::Partition { partition, source })?;
            p.write(&mut proof).expect("writing to a Vec");
            partition_proofs.push(p);
            partitions.push(t);
        }
        let verify = match &self.verifying_key {
            Some(vk) => {
                let start = Instant::now();
                for (partition, (p, inputs)) in partition_proofs.iter().zip(&inputs).enumerate() {
                    if !groth16::verify_proof(vk, p, inputs).map_err(UpdateError::proofs)? {
                        return Err(UpdateError::Rejected { partition });
                    }
                }
                Some(start.elapsed())
            }
            None => None,
        };
        Ok(UpdateProof { proof, partition_proofs, partitions, circuits, verify })
    }
}

impl From<BuildError<UpdateError>> for UpdateError {
    fn from(e: BuildError<UpdateError>) -> Self {
        match e {
            BuildError::Params { path, source } => UpdateError::Params { path, source },
            BuildError::VerifyingKey { path, why } => UpdateError::VerifyingKey { path, why },
            BuildError::Circuit(e) => e,
            BuildError::Prover(e) => UpdateError::Prover(e),
        }
    }
}
