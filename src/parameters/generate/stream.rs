//! A parameter file written as its points are made, query by query, in
//! bellperson's format: the verifying key, then H, L, A, B in G1 and B in
//! G2, each a big-endian u32 count and its uncompressed points. Nothing of
//! a query is held but the piece being written; the points come from a
//! [`FixedBase`] backend (the kernels' host bodies, or the GPU).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use bellperson::groth16::VerifyingKey;
use blstrs::{Bls12, G1Affine, Scalar};
use ff::Field;
use group::Group;
use log::info;

use super::exponents::{exponents, Exponents};
use super::{GenerateError, ToxicWaste};
use crate::compiled::CompiledCircuit;

/// Where encoded points go, piece by piece, in order.
pub(crate) type Sink<'a> = dyn FnMut(&[u8]) -> Result<(), GenerateError> + 'a;

/// Makes `generator · e` for each exponent, in bellperson's encoding (96
/// bytes in G1, 192 in G2), handing them to the sink in order.
pub(crate) trait FixedBase {
    fn g1(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError>;
    fn g2(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError>;
}

/// The encoded identity: the infinity flag in the first byte.
fn is_identity(encoded: &[u8]) -> bool {
    encoded[0] & 0x40 != 0
}

/// Writes the parameters of `compiled` for `waste` to `path` (through a
/// temporary file beside it, renamed when complete), every query's points
/// from `backend`; returns the verifying key.
pub(crate) fn write_generated(compiled: &CompiledCircuit, waste: &ToxicWaste, path: &Path, backend: &mut dyn FixedBase) -> Result<VerifyingKey<Bls12>, GenerateError> {
    let start = Instant::now();
    let exps = exponents(compiled, waste)?;
    let needed = file_bytes(&exps);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Some(available) = available_bytes(dir) {
        if available < needed {
            return Err(GenerateError::NotEnoughDisk { path: path.to_path_buf(), needed, available });
        }
    }
    let tmp = path.with_extension("generating");
    let written = write_all(&exps, waste, &tmp, backend);
    match written {
        Ok(vk) => {
            std::fs::rename(&tmp, path).map_err(|source| GenerateError::Io { path: path.to_path_buf(), source })?;
            info!("parameters: {} written in {:.2?}", path.display(), start.elapsed());
            Ok(vk)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The file's size: the verifying key's six points, then each query's
/// count and points (A and B without their zero exponents).
fn file_bytes(exps: &Exponents) -> u64 {
    let nonzero = |e: &[Scalar]| e.iter().filter(|x| !bool::from(x.is_zero())).count() as u64;
    let (g1, g2) = (96u64, 192u64);
    let b = nonzero(&exps.b);
    3 * g1 + 3 * g2 + 6 * 4 + g1 * (exps.ic.len() + exps.h.len() + exps.l.len()) as u64 + g1 * nonzero(&exps.a) + (g1 + g2) * b
}

/// The size of the file of `compiled` for `waste` (tests).
#[cfg(test)]
pub(super) fn expected_bytes(compiled: &CompiledCircuit, waste: &ToxicWaste) -> u64 {
    file_bytes(&exponents(compiled, waste).expect("exponents"))
}

/// Bytes free to an unprivileged writer on the file system of `dir`.
#[cfg(unix)]
fn available_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statvfs to fill.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

#[cfg(not(unix))]
fn available_bytes(_: &Path) -> Option<u64> {
    None
}

fn write_all(exps: &Exponents, waste: &ToxicWaste, path: &Path, backend: &mut dyn FixedBase) -> Result<VerifyingKey<Bls12>, GenerateError> {
    let io = |source| GenerateError::Io { path: PathBuf::from(path), source };
    let mut out = BufWriter::with_capacity(32 << 20, File::create(path).map_err(io)?);
    // The fixed points now; the inputs' bases when IC is made below.
    let fixed = waste.verifying_key(Vec::new());
    for g1 in [fixed.alpha_g1, fixed.beta_g1] {
        out.write_all(&g1.to_uncompressed()).map_err(io)?;
    }
    for g2 in [fixed.beta_g2, fixed.gamma_g2] {
        out.write_all(&g2.to_uncompressed()).map_err(io)?;
    }
    out.write_all(&fixed.delta_g1.to_uncompressed()).map_err(io)?;
    out.write_all(&fixed.delta_g2.to_uncompressed()).map_err(io)?;

    let count = |out: &mut BufWriter<File>, n: usize| -> Result<(), GenerateError> {
        let n = u32::try_from(n).map_err(|_| io(std::io::Error::other(format!("{n} points do not fit a u32 count"))))?;
        out.write_all(&n.to_be_bytes()).map_err(io)
    };
    // IC: kept for the verifying key as well.
    let mut ic = Vec::with_capacity(exps.ic.len());
    count(&mut out, exps.ic.len())?;
    backend.g1(&exps.ic, &mut |piece| {
        for p in piece.chunks_exact(96) {
            let point = Option::<G1Affine>::from(G1Affine::from_uncompressed(p.try_into().expect("96 bytes"))).ok_or_else(|| io(std::io::Error::other("an IC point the backend made does not decode")))?;
            ic.push(point);
        }
        out.write_all(piece).map_err(io)
    })?;
    let t = Instant::now();
    count(&mut out, exps.h.len())?;
    backend.g1(&exps.h, &mut |piece| out.write_all(piece).map_err(io))?;
    info!("parameters: H, {} points, in {:.2?}", exps.h.len(), t.elapsed());
    // L: every point must be one (bellperson's UnconstrainedVariable).
    let t = Instant::now();
    count(&mut out, exps.l.len())?;
    let mut at = 0;
    backend.g1(&exps.l, &mut |piece| {
        if let Some(k) = piece.chunks_exact(96).position(is_identity) {
            return Err(GenerateError::UnconstrainedVariable { index: at + k });
        }
        at += piece.len() / 96;
        out.write_all(piece).map_err(io)
    })?;
    info!("parameters: L, {} points, in {:.2?}", exps.l.len(), t.elapsed());
    // A and B without their identities; the counts come first, so they
    // are told from the exponents (a zero exponent, or an identity
    // generator, is the identity).
    let nonzero = |e: &[Scalar], g_is_identity: bool| if g_is_identity { 0 } else { e.iter().filter(|x| !bool::from(x.is_zero())).count() };
    let g1_identity = bool::from(waste.g1.is_identity());
    let g2_identity = bool::from(waste.g2.is_identity());
    for (query, exps_of, in_g2, is_g_identity) in [("A", &exps.a, false, g1_identity), ("B in G1", &exps.b, false, g1_identity), ("B in G2", &exps.b, true, g2_identity)] {
        let t = Instant::now();
        let expected = nonzero(exps_of, is_g_identity);
        count(&mut out, expected)?;
        let size = if in_g2 { 192 } else { 96 };
        let mut kept = 0;
        let mut write = |piece: &[u8]| -> Result<(), GenerateError> {
            for p in piece.chunks_exact(size).filter(|p| !is_identity(p)) {
                out.write_all(p).map_err(io)?;
                kept += 1;
            }
            Ok(())
        };
        if in_g2 {
            backend.g2(exps_of, &mut write)?;
        } else {
            backend.g1(exps_of, &mut write)?;
        }
        if kept != expected {
            return Err(io(std::io::Error::other(format!("the {query} query has {kept} points, its count says {expected}"))));
        }
        info!("parameters: {query}, {kept} points, in {:.2?}", t.elapsed());
    }
    out.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)?;
    Ok(VerifyingKey { ic, ..fixed })
}
