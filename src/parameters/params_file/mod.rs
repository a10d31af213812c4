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
//! `cuzk_kernels::point_decode`). [`ParamsFile::open`] maps the file and
//! reads only its layout and verifying key; the GPU backend then sends the
//! raw points to the device, where they are decoded and checked
//! (`gpu::params_upload`), and the CPU backend decodes them in parallel
//! straight from the mapping ([`ParamsFile::read_parameters`]).

mod digest;
mod error;
mod host_decode;
mod writer;

use std::fs::File;
use std::path::{Path, PathBuf};

use bellperson::groth16::VerifyingKey;
use blstrs::Bls12;
use memmap2::Mmap;

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

/// A mapped parameter file whose layout and verifying key were read and
/// checked; the bases stay in the file until a backend loads them.
pub struct ParamsFile {
    path: PathBuf,
    map: Mmap,
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
    /// Maps `path` and reads its layout: every count, checked against the
    /// file's length before anything else is read, and the verifying key
    /// (decoded and checked in full, subgroup included: it is small). The
    /// bases are checked when a backend loads them: on the curve always,
    /// in the subgroup if [`Self::with_subgroup_check`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ParamsFileError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| ParamsFileError::Io { path: path.clone(), source };
        let file = File::open(&path).map_err(io)?;
        // SAFETY: the mapping is read only; a file changed under it while
        // mapped may give wrong points, which the checks then refuse (or,
        // without the subgroup check, wrong proofs that verification
        // catches), never memory unsafety in safe code reading bytes.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        let (vk_ic_at, ic_len, queries) = layout(&map)?;
        let vk = host_decode::verifying_key(&map, vk_ic_at, ic_len)?;
        Ok(ParamsFile { path, map, vk, queries, subgroup_check: false })
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

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the file is empty (never, for a file that opened).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
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

    /// The encoded points of one of [`Query::BASES`], as they lie in the
    /// file.
    pub(crate) fn query_bytes(&self, query: Query) -> &[u8] {
        let (at, len) = self.queries[Self::slot(query)];
        &self.map[at..at + len * query.point_bytes()]
    }

    /// Unmaps the pages of `bytes` (a part of this file already read), so
    /// that a load of tens of GB does not keep the whole file mapped into
    /// the process (resident, though only page cache). Best effort; the
    /// pages stay in the page cache, and a later read maps them again.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn release_read_pages(&self, bytes: &[u8]) {
        let offset = (bytes.as_ptr() as usize).wrapping_sub(self.map.as_ptr() as usize);
        if offset.checked_add(bytes.len()).is_some_and(|end| end <= self.map.len()) {
            // SAFETY: the mapping is shared and read only: dropped pages
            // read back the file's unchanged contents.
            #[cfg(unix)]
            let _ = unsafe { self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, bytes.len()) };
        }
    }

    /// Where `query` (one of [`Query::BASES`]) is in `queries`.
    fn slot(query: Query) -> usize {
        Query::BASES.iter().position(|&q| q == query).expect("only the bases queries have a slot")
    }
}

/// Reads every count and checks that each part fits in the file and that
/// nothing follows the last: (the inputs' bases' offset, their count, each
/// bases query's offset and count).
fn layout(map: &[u8]) -> Result<(usize, usize, [(usize, usize); 5]), ParamsFileError> {
    let found = map.len() as u64;
    let mut at = VK_FIXED_BYTES as u64;
    if at > found {
        return Err(ParamsFileError::Truncated { what: "the verifying key", needed: at, found });
    }
    let mut counted = |what: &'static str, point_bytes: usize| -> Result<(usize, usize), ParamsFileError> {
        let needed = at + 4;
        if needed > found {
            return Err(ParamsFileError::Truncated { what, needed, found });
        }
        let count = u32::from_be_bytes(map[at as usize..needed as usize].try_into().expect("4 bytes")) as u64;
        let needed = needed + count * point_bytes as u64;
        if needed > found {
            return Err(ParamsFileError::Truncated { what, needed, found });
        }
        let begin = at as usize + 4;
        at = needed;
        Ok((begin, count as usize))
    };
    let (ic_at, ic_len) = counted("the inputs' bases (verifying key)", G1_BYTES)?;
    let mut queries = [(0, 0); 5];
    for (slot, q) in Query::BASES.iter().enumerate() {
        let what = match q {
            Query::H => "the H query",
            Query::L => "the L query",
            Query::A => "the A query",
            Query::BG1 => "the B query in G1",
            _ => "the B query in G2",
        };
        queries[slot] = counted(what, q.point_bytes())?;
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
