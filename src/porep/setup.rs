//! A local setup of a registered PoRep's parameters, made by cuzk's
//! generator from the compiled circuit and written where filecoin-proofs
//! looks for them: the `.params` file a prover reads and the `.vk` file
//! `verify_seal` reads, in its parameter cache. For tests, benchmarks and
//! private networks only: whoever holds the toxic waste can forge proofs,
//! and mainnet sectors are proved with Filecoin's published parameters.

use std::path::{Path, PathBuf};
use std::time::Instant;

use log::info;
use rand_core::RngCore;

use super::seal_prover::{compiled_circuit, default_params_file};
use super::PorepError;
use crate::compiled::CompiledCircuit;
use crate::parameters::generate::{generate_parameters_file_with, Generator, Progress, ToxicWaste};
use filecoin_proofs_api::RegisteredSealProof;

/// Where a local setup put its files.
#[derive(Clone, Debug)]
pub struct LocalSetup {
    /// The parameter file (bellperson's format), filecoin-proofs' name for it.
    pub params: PathBuf,
    /// The verifying key (bellperson's `VerifyingKey::write`).
    pub verifying_key: PathBuf,
}

/// Makes `proof`'s parameters from toxic waste drawn from `rng` and writes
/// them into filecoin-proofs' parameter cache (`FIL_PROOFS_PARAMETER_CACHE`,
/// read once per process), replacing what is there. The compiled circuit
/// comes from `circuit_cache` (recorded the first time). On the CPU: the
/// GPU's fixed-base kernels' bodies on rayon.
pub fn local_setup(proof: RegisteredSealProof, circuit_cache: Option<&Path>, rng: &mut impl RngCore) -> Result<LocalSetup, PorepError> {
    let (compiled, _) = compiled_circuit(proof, circuit_cache)?;
    local_setup_of(proof, &compiled, Generator::Cpu, &|_, _| {}, rng)
}

/// [`local_setup`] of `proof`'s compiled circuit, already at hand, on
/// `generator` (the GPU: a 32 GiB sector's in minutes), telling `progress`
/// the points written.
pub fn local_setup_of(
    proof: RegisteredSealProof,
    compiled: &CompiledCircuit,
    generator: Generator<'_>,
    progress: Progress<'_>,
    rng: &mut impl RngCore,
) -> Result<LocalSetup, PorepError> {
    let start = Instant::now();
    let setup = write_setup(default_params_file(proof)?, compiled, generator, progress, rng)?;
    info!("{proof:?}: local setup into {} in {:.2?}", setup.params.display(), start.elapsed());
    Ok(setup)
}

/// Makes `compiled`'s parameters from fresh toxic waste and writes them to
/// `params`, their verifying key beside it (`.vk`, written whole and then
/// renamed, so a reader never sees half of one). Shared by every proof
/// kind's local setup.
pub(crate) fn write_setup(
    params: PathBuf,
    compiled: &CompiledCircuit,
    generator: Generator<'_>,
    progress: Progress<'_>,
    rng: &mut impl RngCore,
) -> Result<LocalSetup, PorepError> {
    let verifying_key = params.with_extension("vk");
    let io = |path: &Path, source| PorepError::Setup(crate::parameters::generate::GenerateError::Io { path: path.to_path_buf(), source });
    if let Some(dir) = params.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let vk = generate_parameters_file_with(compiled, &ToxicWaste::random(rng), &params, generator, progress)?;
    let tmp = verifying_key.with_extension("vk-writing");
    let write = || -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        vk.write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &verifying_key)
    };
    write().map_err(|e| io(&verifying_key, e))?;
    Ok(LocalSetup { params, verifying_key })
}
