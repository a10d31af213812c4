//! A local setup of a registered update proof's parameters, as
//! [`crate::porep::local_setup`] makes a PoRep's: the `.params` and `.vk`
//! files in filecoin-proofs' parameter cache, under filecoin-proofs' names.
//! For tests and private networks only.

use std::path::Path;
use std::time::Instant;

use log::info;
use rand_core::RngCore;

use super::prover::{update_compiled_circuit, update_params_file};
use super::{RegisteredUpdateProof, UpdateError};
use crate::parameters::generate::{Generator, Progress};
use crate::porep::LocalSetup;

/// Makes `proof`'s parameters from toxic waste drawn from `rng` on
/// `generator` and writes them into filecoin-proofs' parameter cache
/// (replacing what is there); the compiled circuit comes from
/// `circuit_cache` (recorded the first time).
pub fn local_setup(
    proof: RegisteredUpdateProof,
    circuit_cache: Option<&Path>,
    generator: Generator<'_>,
    progress: Progress<'_>,
    rng: &mut impl RngCore,
) -> Result<LocalSetup, UpdateError> {
    let start = Instant::now();
    let (compiled, _) = update_compiled_circuit(proof, circuit_cache)?;
    let setup = crate::porep::write_setup(update_params_file(proof)?, &compiled, generator, progress, rng)?;
    info!("{proof:?}: local setup into {} in {:.2?}", setup.params.display(), start.elapsed());
    Ok(setup)
}
