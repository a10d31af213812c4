//! A registered proof's Groth16 prover, built from its files in the order
//! that fails soonest: the parameter file (a missing one at once, before a
//! circuit is recorded: minutes at 32 GiB), filecoin-proofs' verifying key
//! beside it when proofs are checked before return, then the compiled
//! circuit. Shared by the PoSt and sector update provers.

use std::path::{Path, PathBuf};

use bellperson::groth16::{self, PreparedVerifyingKey};
use blstrs::Bls12;

use super::circuit_cache::CircuitOrigin;
use crate::{CompiledCircuit, ParamsFile, ParamsFileError, Prover, ProverConfig, ProverError};

/// A prover and what it was built from.
pub(crate) struct BuiltProver {
    pub prover: Prover,
    pub circuit_origin: CircuitOrigin,
    /// The `.vk` file's key, when proofs are checked before return.
    pub verifying_key: Option<PreparedVerifyingKey<Bls12>>,
}

/// Why it could not be built; `E` is the compiled circuit's error.
pub(crate) enum BuildError<E> {
    Params { path: PathBuf, source: ParamsFileError },
    VerifyingKey { path: PathBuf, why: String },
    Circuit(E),
    Prover(ProverError),
}

/// Builds the prover of `params_file` and the circuit `compiled` loads or
/// records; `verify`: its `.vk` is read too. Proofs are checked against
/// the parameters before return unless `config` turns that off.
pub(crate) fn build_prover<E>(
    params_file: &Path,
    verify: bool,
    config: &ProverConfig,
    compiled: impl FnOnce() -> Result<(CompiledCircuit, CircuitOrigin), E>,
) -> Result<BuiltProver, BuildError<E>> {
    let params = |source| BuildError::Params { path: params_file.to_path_buf(), source };
    let file = ParamsFile::open(params_file).map_err(params)?;
    let verifying_key = if verify {
        let path = params_file.with_extension("vk");
        Some(read_verifying_key(&path).map_err(|why| BuildError::VerifyingKey { path, why })?)
    } else {
        None
    };
    let (compiled, circuit_origin) = compiled().map_err(BuildError::Circuit)?;
    let mut config = config.clone();
    config.verify_proofs = Some(config.verify_proofs.unwrap_or(true));
    let prover = Prover::with_compiled(file, compiled, config).map_err(|e| match e {
        ProverError::ParamsFile(source) => params(source),
        e => BuildError::Prover(e),
    })?;
    Ok(BuiltProver { prover, circuit_origin, verifying_key })
}

/// A verifying key file (bellperson's `VerifyingKey::write`), prepared.
fn read_verifying_key(path: &Path) -> Result<PreparedVerifyingKey<Bls12>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let vk = groth16::VerifyingKey::<Bls12>::read(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    Ok(groth16::prepare_verifying_key(&vk))
}
