//! One prover per registered PoSt proof, built once: its compiled circuit
//! from the cache (recorded from the blank circuit the first time), its
//! parameters from filecoin-proofs' parameter cache; then vanilla proofs
//! in, filecoin-proofs' PoSt proof bytes out, each checked before return.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bellperson::groth16::{self, PreparedVerifyingKey, Proof};
use blstrs::{Bls12, Scalar};
use filecoin_proofs_api::RegisteredPoStProof;
use log::info;
use rand_core::RngCore;

use super::circuits::{blank, build, identifier, PostRequest};
use super::shape::{check_supported, PostCircuit, PostKind};
use super::PostError;
use crate::porep::circuit_cache::{default_circuit_cache, load_or_record, CircuitOrigin};
use crate::porep::{build_prover, BuildError, BuiltProver};
use crate::{random_r_s, CompiledCircuit, PhaseTimings, Prover, ProverConfig};

/// How a [`PostProver`] is built.
#[derive(Clone, Debug)]
pub struct PostProverConfig {
    /// The Groth16 prover's settings (`verify_proofs: None` means on).
    pub prover: ProverConfig,
    /// The parameter file. `None`: filecoin-proofs' name for the proof in
    /// its parameter cache (`FIL_PROOFS_PARAMETER_CACHE`).
    pub params_file: Option<PathBuf>,
    /// Where compiled circuits are kept (`None`: as for
    /// [`SealProverConfig`](crate::porep::SealProverConfig)).
    pub circuit_cache: Option<PathBuf>,
    /// Check each proof with filecoin-proofs' verifying key (the `.vk`
    /// beside the parameter file) and storage-proofs' public inputs before
    /// returning it, as filecoin-proofs' verifier would. Off only for
    /// parameters that are not the registered ones.
    pub verify: bool,
}

impl Default for PostProverConfig {
    fn default() -> Self {
        PostProverConfig { prover: ProverConfig::default(), params_file: None, circuit_cache: None, verify: true }
    }
}

/// A PoSt proof and what it took.
#[derive(Clone, Debug)]
pub struct PostProof {
    /// filecoin-proofs' proof bytes (the Groth16 proof, compressed: 192
    /// bytes).
    pub proof: Vec<u8>,
    /// The Groth16 proof.
    pub groth16: Proof<Bls12>,
    /// Its phases (witness synthesis, pre-stage, GPU).
    pub timings: PhaseTimings,
    /// Decoding and checking the vanilla proofs, building the circuit.
    pub circuit: Duration,
    /// The check against filecoin-proofs' verifying key, when it ran.
    pub verify: Option<Duration>,
}

/// Makes the proofs of one registered PoSt proof.
pub struct PostProver {
    proof: RegisteredPoStProof,
    prover: Prover,
    params_file: PathBuf,
    circuit_origin: CircuitOrigin,
    verifying_key: Option<PreparedVerifyingKey<Bls12>>,
}

/// Where filecoin-proofs looks for `proof`'s parameter file.
pub fn post_params_file(proof: RegisteredPoStProof) -> Result<PathBuf, PostError> {
    Ok(storage_proofs_core::parameter_cache::parameter_cache_params_path(&identifier(proof)?))
}

/// `proof`'s compiled circuit, from `cache` (a directory) or recorded from
/// storage-proofs' blank circuit and kept there.
pub fn post_compiled_circuit(proof: RegisteredPoStProof, cache: Option<&Path>) -> Result<(CompiledCircuit, CircuitOrigin), PostError> {
    check_supported(proof)?;
    let identifier = identifier(proof)?;
    // Cheap beside recording it (paths of unknown values), and it says
    // what is wrong with a size before the cache is looked at.
    let blank = blank(proof)?;
    Ok(load_or_record(cache, &identifier, || Ok(CompiledCircuit::record(blank)?))?)
}

impl PostProver {
    /// Builds the prover of `proof`: the compiled circuit from the cache or
    /// recorded, the parameter file opened and checked against it, its
    /// bases on the GPU (or decoded for the CPU), and filecoin-proofs'
    /// verifying key read when proofs are checked.
    pub fn new(proof: RegisteredPoStProof, config: PostProverConfig) -> Result<Self, PostError> {
        check_supported(proof)?;
        let params_file = match config.params_file.clone() {
            Some(path) => path,
            None => post_params_file(proof)?,
        };
        let start = Instant::now();
        let cache = config.circuit_cache.clone().or_else(default_circuit_cache);
        let BuiltProver { prover, circuit_origin, verifying_key } = build_prover(&params_file, config.verify, &config.prover, || post_compiled_circuit(proof, cache.as_deref()))?;
        info!("{proof:?}: prover ready in {:.2?} ({:?}, {} worker(s))", start.elapsed(), prover.backend(), prover.workers());
        Ok(PostProver { proof, prover, params_file, circuit_origin, verifying_key })
    }

    /// The registered proof it makes.
    pub fn registered_proof(&self) -> RegisteredPoStProof {
        self.proof
    }

    /// Winning or Window.
    pub fn kind(&self) -> PostKind {
        PostKind::of(self.proof)
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

    /// The circuit of `request` (its vanilla proofs checked), as the
    /// prover proves it: for comparing with bellperson's prover.
    pub fn circuit(&self, request: &PostRequest) -> Result<PostCircuit, PostError> {
        Ok(build(self.proof, request)?.circuit)
    }

    /// One PoSt proof, r and s drawn from `rng`.
    pub fn prove(&self, request: &PostRequest, rng: &mut impl RngCore) -> Result<PostProof, PostError> {
        let (r, s) = random_r_s(rng);
        self.prove_until(request, r, s, &AtomicBool::new(false))
    }

    /// One PoSt proof with the blinding factors `r` and `s`, not started
    /// when `stop` is already set (`ProverError::Cancelled`).
    pub fn prove_until(&self, request: &PostRequest, r: Scalar, s: Scalar, stop: &AtomicBool) -> Result<PostProof, PostError> {
        let start = Instant::now();
        let built = build(self.proof, request)?;
        let circuit = start.elapsed();
        let (groth16, timings) = self.prover.prove_batch_timed(vec![built.circuit], vec![(r, s)], stop, |_, _| {}).pop().expect("one result per circuit")?;
        let verify = match &self.verifying_key {
            Some(vk) => {
                let start = Instant::now();
                let ok = groth16::verify_proof(vk, &groth16, &built.public_inputs).map_err(PostError::proofs)?;
                if !ok {
                    return Err(PostError::Rejected { proof: format!("{:?}", self.proof) });
                }
                Some(start.elapsed())
            }
            None => None,
        };
        let mut proof = Vec::with_capacity(192);
        groth16.write(&mut proof).expect("writing to a Vec");
        Ok(PostProof { proof, groth16, timings, circuit, verify })
    }
}

impl From<BuildError<PostError>> for PostError {
    fn from(e: BuildError<PostError>) -> Self {
        match e {
            BuildError::Params { path, source } => PostError::Params { path, source },
            BuildError::VerifyingKey { path, why } => PostError::VerifyingKey { path, why },
            BuildError::Circuit(e) => e,
            BuildError::Prover(e) => PostError::Prover(e),
        }
    }
}
