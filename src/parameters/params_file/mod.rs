//! Groth16 parameters straight from the files Filecoin's tooling keeps
//! (bellperson's `Parameters::write` format), without building a host
//! `Parameters`.
//!
//! ```text
//! verifying key: α₁, β₁ (G1), β₂, γ₂ (G2), δ₁ (G1), δ₂ (G2),
//!                inputs' bases: u32 count, then G1 points
//! H, L, A, B in G1: u32 count, then G1 points (96 bytes each)
//! B in G2:          u32 count, then G2 points (192 bytes each)
//! ```
//!
//! Counts are big-endian; points are uncompressed (see
//! `cuzk_kernels::point_decode`). [`ParamsFile::open`] reads only the
//! file's layout and verifying key; the GPU backend then sends the raw
//! points to the device, where they are decoded and checked
//! (`gpu::params_upload`), and the CPU backend decodes them in parallel
//! ([`ParamsFile::read_parameters`]).
//!
//! The file is read with positioned reads, never mapped: a file truncated
//! or rewritten while it is read (a parameter fetch over it) ends a read
//! early, which is `ParamsFileError::Truncated`, where a mapping's missing
//! pages would kill the process with SIGBUS.

mod digest;
mod error;
mod host_decode;
mod writer;

use std::fs::File;
use std::path::{Path, PathBuf};

use bellperson::groth16::VerifyingKey;
use blstrs::Bls12;
use rayon::prelude::*;

pub use error::{ParamsFileError, PointProblem};
pub use writer::write_random_params_file;

use crate::parameters::params::QueryLengths;

/// Bytes of an uncompressed G1 point.
pub const G1_BYTES: usize = 96;
/// Bytes of an uncompressed G2 point.
pub const G2_BYTES: usize = 192;

/// A part of a parameter file that holds points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    /// The verifying key (its six points, then the inputs' bases).
    VerifyingKey,
    /// The H query (G1).
    H,
    /// The L query (G1).
    L,
    /// The A query (G1).
    A,
    /// The B query in G1.
    BG1,
    /// The B query in G2.
    BG2,
}

impl Query {
    /// The five bases queries, in file order.
    pub const BASES: [Query; 5] = [Query::H, Query::L, Query::A, Query::BG1, Query::BG2];

    /// Bytes of one of its points (the verifying key's inputs' bases: G1).
    pub fn point_bytes(self) -> usize {
        if self == Query::BG2 {
            G2_BYTES
        } else {
            G1_BYTES
        }
    }
}

impl std::fmt::Display for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Query::VerifyingKey => "verifying key",
            Query::H => "H query",
            Query::L => "L query",
            Query::A => "A query",
            Query::BG1 => "B query in G1",
            Query::BG2 => "B query in G2",
        })
    }
}

/// An open parameter file whose layout and verifying key were read and
/// checked; the bases stay in the file until a backend loads them.
pub struct ParamsFile {
    path: PathBuf,
    file: File,
    /// Its length when opened (every part was checked to fit in it).
    len: u64,
    vk: VerifyingKey<Bls12>,
    /// Where each of [`Query::BASES`] begins (its first point) and its count.
    queries: [(usize, usize); 5],
    subgroup_check: bool,
}

impl std::fmt::Debug for ParamsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParamsFile").field("path", &self.path).field("lengths", &self.lengths()).finish_non_exhaustive()
    }
}

/// The six points before the inputs' bases: α₁, β₁, β₂, γ₂, δ₁, δ₂.
const VK_FIXED_BYTES: usize = 3 * G1_BYTES + 3 * G2_BYTES;

impl ParamsFile {
    /// Opens `path` and reads its layout: every count, checked against the
    /// file's length before anything else is read, and the verifying key
    /// (decoded and checked in full, subgroup included: it is small). The
    /// bases are checked when a backend loads them: on the curve always,
    /// in the subgroup if [`Self::with_subgroup_check`]. A file changed
    /// while it is read gives `Truncated` (shorter) or points the checks
    /// refuse (or, without the subgroup check, proofs that the check
    /// before return refuses), never a crash.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ParamsFileError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| ParamsFileError::Io { path: path.clone(), source };
        let file = File::open(&path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let (vk_ic_at, ic_len, queries) = layout(len, |at, buf| read_file_at(&file, &path, at, buf, "the file's layout"))?;
        let mut head = vec![0u8; vk_ic_at + ic_len * G1_BYTES];
        read_file_at(&file, &path, 0, &mut head, "the verifying key")?;
        let vk = host_decode::verifying_key(&head, vk_ic_at, ic_len)?;
        Ok(ParamsFile { path, file, len, vk, queries, subgroup_check: false })
    }

    /// Whether loading the bases also checks that each is in the
    /// prime-order subgroup (on the GPU, or with blst on the CPU backend).
    /// Off by default: it costs more than the rest of the load.
    pub fn with_subgroup_check(mut self, on: bool) -> Self {
        self.subgroup_check = on;
        self
    }

    /// Whether loading checks subgroup membership.
    pub fn subgroup_check(&self) -> bool {
        self.subgroup_check
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length in bytes when it was opened.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the file is empty (never, for a file that opened).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The verifying key.
    pub fn verifying_key(&self) -> &VerifyingKey<Bls12> {
        &self.vk
    }

    /// How many bases each query holds.
    pub fn lengths(&self) -> QueryLengths {
        let n = |q: Query| self.queries[Self::slot(q)].1;
        QueryLengths { ic: self.vk.ic.len(), h: n(Query::H), l: n(Query::L), a: n(Query::A), b_g1: n(Query::BG1), b_g2: n(Query::BG2) }
    }

    /// Bytes of the encoded points of one of [`Query::BASES`].
    pub(crate) fn query_len_bytes(&self, query: Query) -> usize {
        let (_, len) = self.queries[Self::slot(query)];
        len * query.point_bytes()
    }

    /// Reads `buf.len()` bytes of `query`'s encoded points from byte
    /// `offset` of the query on, in parallel pieces of 1 MiB (on the
    /// calling pool's threads). A file shorter now than when it was opened
    /// is `Truncated`.
    pub(crate) fn read_query(&self, query: Query, offset: usize, buf: &mut [u8]) -> Result<(), ParamsFileError> {
        const PIECE: usize = 1 << 20;
        let (at, _) = self.queries[Self::slot(query)];
        let what = query_name(query);
        let start = (at + offset) as u64;
        buf.par_chunks_mut(PIECE).enumerate().try_for_each(|(i, piece)| self.read_at(start + (i * PIECE) as u64, piece, what))
    }

    /// Fills `buf` from byte `at` of the file (see [`read_file_at`]).
    pub(super) fn read_at(&self, at: u64, buf: &mut [u8], what: &'static str) -> Result<(), ParamsFileError> {
        read_file_at(&self.file, &self.path, at, buf, what)
    }

    /// Where `query` (one of [`Query::BASES`]) is in `queries`.
    fn slot(query: Query) -> usize {
        Query::BASES.iter().position(|&q| q == query).expect("only the bases queries have a slot")
    }
}

/// Fills `buf` from byte `at` of `file`; a file that ends first is
/// `Truncated` (naming `what`), with its length as it is now.
fn read_file_at(file: &File, path: &Path, at: u64, buf: &mut [u8], what: &'static str) -> Result<(), ParamsFileError> {
    match read_exact_at(file, buf, at) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            let found = file.metadata().map_or(0, |m| m.len());
            Err(ParamsFileError::Truncated { what, needed: at + buf.len() as u64, found })
        }
        Err(source) => Err(ParamsFileError::Io { path: path.to_path_buf(), source }),
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn query_name(query: Query) -> &'static str {
    match query {
        Query::VerifyingKey => "the inputs' bases (verifying key)",
        Query::H => "the H query",
        Query::L => "the L query",
        Query::A => "the A query",
        Query::BG1 => "the B query in G1",
        Query::BG2 => "the B query in G2",
    }
}

/// Reads every count (through `read`: bytes at an offset) and checks that
/// each part fits in a file of `found` bytes and that nothing follows the
/// last: (the inputs' bases' offset, their count, each bases query's
/// offset and count).
fn layout(found: u64, read: impl Fn(u64, &mut [u8]) -> Result<(), ParamsFileError>) -> Result<(usize, usize, [(usize, usize); 5]), ParamsFileError> {
    let mut at = VK_FIXED_BYTES as u64;
    if at > found {
        return Err(ParamsFileError::Truncated { what: "the verifying key", needed: at, found });
    }
    let mut counted = |what: &'static str, point_bytes: usize| -> Result<(usize, usize), ParamsFileError> {
        let needed = at + 4;
        if needed > found {
            return Err(ParamsFileError::Truncated { what, needed, found });
        }
        let mut word = [0u8; 4];
        read(at, &mut word)?;
        let count = u32::from_be_bytes(word) as u64;
        let needed = needed + count * point_bytes as u64;
        if needed > found {
            return Err(ParamsFileError::Truncated { what, needed, found });
        }
        let begin = at as usize + 4;
        at = needed;
        Ok((begin, count as usize))
    };
    let (ic_at, ic_len) = counted(query_name(Query::VerifyingKey), G1_BYTES)?;
    let mut queries = [(0, 0); 5];
    for (slot, &q) in Query::BASES.iter().enumerate() {
        queries[slot] = counted(query_name(q), q.point_bytes())?;
    }
    if at < found {
        return Err(ParamsFileError::TrailingBytes { extra: found - at });
    }
    Ok((ic_at, ic_len, queries))
}

/// The verifying key's six points as they lie in the file: α₁, β₁, β₂,
/// γ₂, δ₁, δ₂.
fn vk_fixed_points(map: &[u8]) -> [&[u8]; 6] {
    let sizes = [G1_BYTES, G1_BYTES, G2_BYTES, G2_BYTES, G1_BYTES, G2_BYTES];
    let mut at = 0;
    sizes.map(|n| {
        at += n;
        &map[at - n..at]
    })
}

#[cfg(test)]
mod tests {
    use blstrs::{G1Projective, G2Projective};
    use cuzk_kernels::gpu::point_decode::{decode_g1_points, decode_g2_points};
    use cuzk_kernels::point_decode::NO_PROBLEM;
    use group::{Curve, Group};
    use rand::SeedableRng;

    use crate::parameters::subgroup::subgroup_constants;

    /// The decoding kernels, run on the host: `(decoded words, first bad key)`.
    fn run_kernel(encoded: &[u8], g2: bool, subgroup: bool) -> (Vec<u64>, u64) {
        let mut words: Vec<u64> = encoded.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        let point_words = if g2 { 24 } else { 12 };
        let n = (words.len() / point_words) as u32;
        let mut bad = NO_PROBLEM;
        // SAFETY: the buffers hold n points, the constants their words.
        unsafe {
            let f = if g2 { decode_g2_points } else { decode_g1_points };
            f(words.as_mut_ptr(), n, 0, subgroup_constants().as_ptr(), subgroup as u32, &mut bad);
        }
        (words, bad)
    }

    #[test]
    fn the_kernels_decode_as_blst_does_and_name_the_first_bad_point() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let g1: Vec<_> = (0..40).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
        let g2: Vec<_> = (0..12).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
        let enc1: Vec<u8> = g1.iter().flat_map(|p| p.to_uncompressed()).collect();
        let enc2: Vec<u8> = g2.iter().flat_map(|p| p.to_uncompressed()).collect();
        for subgroup in [false, true] {
            let (words, bad) = run_kernel(&enc1, false, subgroup);
            assert_eq!(bad, NO_PROBLEM);
            // SAFETY: G1Affine is blst's affine layout, 12 words.
            let want: &[u64] = unsafe { std::slice::from_raw_parts(g1.as_ptr().cast(), g1.len() * 12) };
            assert_eq!(words, want);
            let (words, bad) = run_kernel(&enc2, true, subgroup);
            assert_eq!(bad, NO_PROBLEM);
            let want: &[u64] = unsafe { std::slice::from_raw_parts(g2.as_ptr().cast(), g2.len() * 24) };
            assert_eq!(words, want);
        }
        // Two bad points: the first one's key wins (index · 4 + problem).
        let mut damaged = enc1.clone();
        damaged[7 * 96 + 10] ^= 1; // off the curve
        damaged[3 * 96] = 0x40; // infinity flag on a point that is not all zero: encoding
        let (_, bad) = run_kernel(&damaged, false, false);
        assert_eq!(bad, 3 * 4 + cuzk_kernels::point_decode::PROBLEM_ENCODING);
        let mut identity = enc2.clone();
        identity[5 * 192..6 * 192].fill(0);
        identity[5 * 192] = 0x40;
        let (_, bad) = run_kernel(&identity, true, true);
        assert_eq!(bad, 5 * 4 + cuzk_kernels::point_decode::PROBLEM_IDENTITY);
        // Each kind agrees with the CPU decoder.
        for (i, chunk) in damaged.chunks(96).enumerate() {
            let cpu = super::host_decode::decode::<blstrs::G1Affine>(chunk, false).err();
            let (_, key) = run_kernel(chunk, false, false);
            let gpu = (key != NO_PROBLEM).then(|| super::PointProblem::from_kernel_code(key));
            assert_eq!(cpu, gpu, "point {i}");
        }
    }
}
