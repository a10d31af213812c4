//! [`FixedBase`] on the host: the GPU's own kernel bodies
//! (`cuzk_kernels::gpu::fixed_base`), run on rayon's threads over pieces of
//! the exponents. Streams a file of any size on the CPU, and holds the
//! GPU's code to bellperson's output where no GPU is.

use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_kernels::gpu::fixed_base as k;
use rayon::prelude::*;

use super::stream::{FixedBase, Sink};
use super::tables::{table_words, window_table};
use super::GenerateError;

/// Window bits of the tables (G1: 20 windows of 8,191 points, 15.7 MB;
/// G2: 22 of 4,095, 17.3 MB).
pub(crate) const G1_BITS: u32 = 13;
pub(crate) const G2_BITS: u32 = 12;
/// Points made and encoded per piece.
const PIECE: usize = 1 << 12;
/// Points made affine per inversion (here and on the GPU).
pub(crate) const BATCH: u32 = 64;

/// The kernels' canonical scalar words.
pub(crate) fn canonical_words(exps: &[Scalar]) -> Vec<u64> {
    exps.par_iter()
        .flat_map_iter(|e| {
            let b = e.to_bytes_le();
            (0..4).map(move |i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes")))
        })
        .collect()
}

pub(crate) struct HostKernels {
    g1: Vec<u64>,
    g2: Vec<u64>,
}

impl HostKernels {
    pub(crate) fn new(g1: G1Projective, g2: G2Projective) -> Self {
        HostKernels { g1: table_words(&window_table(g1, G1_BITS)).to_vec(), g2: table_words(&window_table(g2, G2_BITS)).to_vec() }
    }
}

/// Pieces of `exps` made in parallel, handed to `sink` in order, 64 pieces
/// at a time.
fn run(exps: &[Scalar], point_words: usize, make: impl Fn(&[u64], usize, &mut [u64]) + Sync, sink: &mut Sink) -> Result<(), GenerateError> {
    for group in exps.chunks(64 * PIECE) {
        let words = canonical_words(group);
        let pieces: Vec<Vec<u8>> = words
            .par_chunks(4 * PIECE)
            .map(|scalars| {
                let n = scalars.len() / 4;
                let mut out = vec![0u64; n * point_words];
                make(scalars, n, &mut out);
                out.iter().flat_map(|w| w.to_le_bytes()).collect()
            })
            .collect();
        for piece in &pieces {
            sink(piece)?;
        }
    }
    Ok(())
}

/// A kernel pair: multiply (table, bits, scalars, n, XYZZ out), then make
/// affine and encode (XYZZ, n, batch, scratch, out).
type Multiply = unsafe fn(*const u64, u32, *const u64, u32, *mut u64);
type Encode = unsafe fn(*const u64, u32, u32, *mut u64, *mut u64);

/// One curve's kernels on pieces of `exps`: `xyzz_words` and
/// `base_words` per point of the XYZZ and scratch buffers.
fn on_curve(table: &[u64], bits: u32, (multiply, encode): (Multiply, Encode), (point_words, xyzz_words, base_words): (usize, usize, usize), exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
    run(exps, point_words, |scalars, n, out| {
        let (mut xyzz, mut scratch) = (vec![0u64; n * xyzz_words], vec![0u64; n * base_words]);
        // SAFETY: the buffers have the kernels' sizes for n points; the
        // table has `bits`-bit windows of the kernels' curve.
        unsafe {
            multiply(table.as_ptr(), bits, scalars.as_ptr(), n as u32, xyzz.as_mut_ptr());
            encode(xyzz.as_ptr(), n as u32, BATCH, scratch.as_mut_ptr(), out.as_mut_ptr());
        }
    }, sink)
}

impl FixedBase for HostKernels {
    fn g1(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
        on_curve(&self.g1, G1_BITS, (k::fixed_base_g1, k::encode_g1_batches), (12, 24, 6), exps, sink)
    }

    fn g2(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
        on_curve(&self.g2, G2_BITS, (k::fixed_base_g2, k::encode_g2_batches), (24, 48, 12), exps, sink)
    }
}
