//! A parameter file written as its points are made, query by query, in
//! bellperson's format: the verifying key, then H, L, A, B in G1 and B in
//! G2, each a big-endian u32 count and its uncompressed points. Nothing of
//! a query is held but the piece being written; the points come from a
//! [`FixedBase`] backend (the kernels' host bodies, or the GPU).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bellperson::groth16::VerifyingKey;
use blstrs::{Bls12, G1Affine, Scalar};
use ff::Field;
use group::Group;
use log::info;

use super::exponents::{exponents, Exponents};
use super::writer::BackgroundWriter;
use super::{GenerateError, Progress, ToxicWaste};
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
/// from `backend`, telling `progress` the points written; returns the
/// verifying key.
pub(crate) fn write_generated(compiled: &CompiledCircuit, waste: &ToxicWaste, path: &Path, backend: &mut dyn FixedBase, progress: Progress<'_>) -> Result<VerifyingKey<Bls12>, GenerateError> {
    let start = Instant::now();
    let exps = exponents(compiled, waste)?;
    let needed = file_bytes(&exps);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    check_room(path, needed, available_bytes(dir))?;
    let tmp = path.with_extension("generating");
    let written = write_all(&exps, waste, &tmp, backend, progress);
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

/// `NotEnoughDisk` where `available` (if known) is less than `needed`.
fn check_room(path: &Path, needed: u64, available: Option<u64>) -> Result<(), GenerateError> {
    match available {
        Some(available) if available < needed => Err(GenerateError::NotEnoughDisk { path: path.to_path_buf(), needed, available }),
        _ => Ok(()),
    }
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

/// `exps`, or none where the generator is the identity (every point is).
fn none_if(exps: &[Scalar], generator_is_identity: bool) -> &[Scalar] {
    if generator_is_identity {
        &[]
    } else {
        exps
    }
}

/// The exponents that are not zero, in order (borrowed when all are).
fn nonzero_exponents(exps: &[Scalar]) -> std::borrow::Cow<'_, [Scalar]> {
    use rayon::prelude::*;
    if exps.par_iter().all(|x| !bool::from(x.is_zero())) {
        return std::borrow::Cow::Borrowed(exps);
    }
    std::borrow::Cow::Owned(exps.par_iter().filter(|x| !bool::from(x.is_zero())).copied().collect())
}

fn write_all(exps: &Exponents, waste: &ToxicWaste, path: &Path, backend: &mut dyn FixedBase, progress: Progress<'_>) -> Result<VerifyingKey<Bls12>, GenerateError> {
    let io = |source| GenerateError::Io { path: PathBuf::from(path), source };
    let mut out = BackgroundWriter::new(File::create(path).map_err(io)?).map_err(io)?;
    // A and B without their identities: only the nonzero exponents are
    // multiplied (B is a quarter dense in a PoRep circuit), none if the
    // generator is the identity; the identity filter below is a guard.
    let (a, b) = (nonzero_exponents(&exps.a), nonzero_exponents(&exps.b));
    let g1_identity = bool::from(waste.g1.is_identity());
    let g2_identity = bool::from(waste.g2.is_identity());
    let ab = [("A", none_if(&a, g1_identity), false), ("B in G1", none_if(&b, g1_identity), false), ("B in G2", none_if(&b, g2_identity), true)];
    let total = exps.ic.len() + exps.h.len() + exps.l.len() + ab.iter().map(|q| q.1.len()).sum::<usize>();
    let mut backend = Counting { inner: backend, done: 0, total: total as u64, progress };
    let backend = &mut backend;
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

    let count = |out: &mut BackgroundWriter, n: usize| -> Result<(), GenerateError> {
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
    // A and B (their nonzero exponents, above), each count first.
    for (query, exps_of, in_g2) in ab {
        let t = Instant::now();
        let expected = exps_of.len();
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
    out.finish().map_err(io)?;
    Ok(VerifyingKey { ic, ..fixed })
}

/// A backend whose points are counted for `progress` as they are handed on.
struct Counting<'b, 'p> {
    inner: &'b mut dyn FixedBase,
    done: u64,
    total: u64,
    progress: Progress<'p>,
}

impl Counting<'_, '_> {
    fn counted(&mut self, exps: &[Scalar], g2: bool, sink: &mut Sink) -> Result<(), GenerateError> {
        let size = if g2 { 192 } else { 96 };
        let (done, total, progress) = (&mut self.done, self.total, self.progress);
        let mut counting = |piece: &[u8]| {
            sink(piece)?;
            *done += (piece.len() / size) as u64;
            progress(*done, total);
            Ok(())
        };
        if g2 {
            self.inner.g2(exps, &mut counting)
        } else {
            self.inner.g1(exps, &mut counting)
        }
    }
}

impl FixedBase for Counting<'_, '_> {
    fn g1(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
        self.counted(exps, false, sink)
    }

    fn g2(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
        self.counted(exps, true, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_little_disk_is_refused_before_writing() {
        let path = Path::new("/somewhere/p.params");
        assert!(check_room(path, 100, Some(1000)).is_ok());
        assert!(check_room(path, 100, None).is_ok(), "unknown free space: the write itself reports a full disk");
        match check_room(path, 1000, Some(999)) {
            Err(GenerateError::NotEnoughDisk { needed: 1000, available: 999, path: p }) => assert_eq!(p, path),
            other => panic!("{other:?}"),
        }
        // The temporary folder's file system reports its free space.
        #[cfg(unix)]
        assert!(available_bytes(&std::env::temp_dir()).is_some_and(|b| b > 0));
    }
}
