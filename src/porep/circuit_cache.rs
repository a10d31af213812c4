//! Compiled PoRep circuits kept on disk: recording a 32 GiB partition's
//! circuit takes minutes, loading it seconds. A file is named by
//! filecoin-proofs' parameter identifier of its registered proof (which
//! hashes everything the circuit's structure depends on: sector size,
//! layers, challenges, porep id, API version), so it is the circuit those
//! parameters were made for; the file itself carries the circuit's digest,
//! checked when it is loaded.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use log::{info, warn};

use super::PorepError;
use crate::CompiledCircuit;

/// Where compiled circuits are kept: `CUZK_CIRCUIT_CACHE`, else
/// `$XDG_CACHE_HOME/cuzk/circuits`, else `$HOME/.cache/cuzk/circuits`.
pub fn default_circuit_cache() -> Option<PathBuf> {
    circuit_cache_from(|name| std::env::var_os(name))
}

fn circuit_cache_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let var = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("CUZK_CIRCUIT_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("cuzk").join("circuits")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("cuzk").join("circuits")))
}

/// The cache file of the circuit with parameter identifier `identifier`.
pub fn circuit_file(dir: &Path, identifier: &str) -> PathBuf {
    dir.join(format!("{identifier}.cuzk-r1cs"))
}

/// How a prover's compiled circuit was had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CircuitOrigin {
    /// Loaded from this cache file.
    Loaded(PathBuf),
    /// Recorded, and kept in this file.
    Recorded(PathBuf),
    /// Recorded; no cache (no directory, or it could not be written: see the log).
    RecordedUncached,
}

/// The compiled circuit `identifier` from `dir`, or `record()`ed and saved
/// there (under a temporary name, then renamed, so no process reads half a
/// file). A file that does not load (damaged, of an older format) is
/// recorded again and replaced.
pub fn load_or_record(
    dir: Option<&Path>,
    identifier: &str,
    record: impl FnOnce() -> Result<CompiledCircuit, PorepError>,
) -> Result<(CompiledCircuit, CircuitOrigin), PorepError> {
    let Some(dir) = dir else {
        return Ok((timed_record(record)?, CircuitOrigin::RecordedUncached));
    };
    let path = circuit_file(dir, identifier);
    if path.exists() {
        let start = Instant::now();
        match CompiledCircuit::load(&path) {
            Ok(compiled) => {
                info!("compiled circuit loaded from {} in {:.2?}", path.display(), start.elapsed());
                return Ok((compiled, CircuitOrigin::Loaded(path)));
            }
            Err(e) => warn!("compiled circuit {} does not load ({e}); recording it again", path.display()),
        }
    }
    let compiled = timed_record(record)?;
    let saved = std::fs::create_dir_all(dir).map_err(Into::into).and_then(|()| {
        let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
        compiled.save(&temporary).and_then(|()| std::fs::rename(&temporary, &path).map_err(Into::into)).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
    });
    match saved {
        Ok(()) => {
            info!("compiled circuit kept in {}", path.display());
            Ok((compiled, CircuitOrigin::Recorded(path)))
        }
        Err(source) => {
            // Proving goes on; the next process records again.
            warn!("{}", PorepError::CircuitCache { path, source });
            Ok((compiled, CircuitOrigin::RecordedUncached))
        }
    }
}

fn timed_record(record: impl FnOnce() -> Result<CompiledCircuit, PorepError>) -> Result<CompiledCircuit, PorepError> {
    let start = Instant::now();
    info!("recording the compiled circuit (minutes for a 32 GiB partition)");
    let compiled = record()?;
    info!(
        "compiled circuit recorded in {:.2?}: {} constraints, {} inputs, {} aux, {:.1} MB",
        start.elapsed(),
        compiled.constraints(),
        compiled.inputs(),
        compiled.aux(),
        compiled.bytes() as f64 / 1e6
    );
    Ok(compiled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn the_cache_directory_comes_from_the_environment_in_order() {
        let all = [("CUZK_CIRCUIT_CACHE", "/c"), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(circuit_cache_from(vars(&all)), Some(PathBuf::from("/c")));
        assert_eq!(circuit_cache_from(vars(&all[1..])), Some(PathBuf::from("/x/cuzk/circuits")));
        assert_eq!(circuit_cache_from(vars(&[("CUZK_CIRCUIT_CACHE", ""), ("HOME", "/h")])), Some(PathBuf::from("/h/.cache/cuzk/circuits")));
        assert_eq!(circuit_cache_from(vars(&[])), None);
    }
}
