//! bellperson's parameter file format (`Parameters::write`), written
//! through a buffer of 32 MiB.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use bellperson::groth16::Parameters;
use blstrs::Bls12;

use super::GenerateError;

/// Writes `params` to `path` as bellperson's `Parameters::write` does
/// (uncompressed points, big-endian u32 counts), then syncs it.
pub fn write_parameters(params: &Parameters<Bls12>, path: impl AsRef<Path>) -> Result<(), GenerateError> {
    let path = path.as_ref();
    let io = |source| GenerateError::Io { path: path.to_path_buf(), source };
    let mut out = BufWriter::with_capacity(32 << 20, File::create(path).map_err(io)?);
    params.write(&mut out).map_err(io)?;
    out.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)
}

