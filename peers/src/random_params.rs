//! A parameter file of random points of a proof's shape, written once.

use std::path::Path;
use std::time::Instant;

use cuzk::{ProofShape, QueryLengths};

/// Writes a random parameter file of `shape` at `path` unless one is
/// there, saying how long it took; the error names the file.
pub fn write_if_missing(path: &Path, shape: &ProofShape) -> Result<(), String> {
    if path.exists() {
        return Ok(());
    }
    let t = Instant::now();
    cuzk::params_file::write_random_params_file(path, &QueryLengths::for_shape(shape), &mut rand::thread_rng()).map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!("random parameter file {} written in {:.1?}", path.display(), t.elapsed());
    Ok(())
}
