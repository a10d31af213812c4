//! The window tables of fixed-base multiplication
//! (`cuzk_kernels::fixed_base`'s layout): for window k, `d · 2^(k·w) · G`
//! for `d = 1 .. 2^w − 1`, affine.

use cuzk_kernels::fixed_base::{entries_per_window, windows};
use group::{Curve, Group};
use rayon::prelude::*;

/// The table of `g` for `bits`-bit windows, windows in parallel.
pub(crate) fn window_table<P>(g: P, bits: u32) -> Vec<P::AffineRepr>
where
    P: Group + Curve + Send + Sync,
    P::AffineRepr: Copy + Default + Send + Sync,
{
    let mut bases = Vec::with_capacity(windows(bits) as usize);
    let mut base = g;
    for _ in 0..windows(bits) {
        bases.push(base);
        for _ in 0..bits {
            base = base.double();
        }
    }
    let per = entries_per_window(bits);
    let mut table = vec![P::AffineRepr::default(); bases.len() * per];
    table.par_chunks_mut(per).zip(bases).for_each(|(out, base)| {
        let mut points = Vec::with_capacity(per);
        let mut acc = base;
        for _ in 0..per {
            points.push(acc);
            acc += base;
        }
        P::batch_normalize(&points, out);
    });
    table
}

/// The table as the kernels read it: blst's affine layout, whole words.
pub(crate) fn table_words<T>(table: &[T]) -> &[u64] {
    // SAFETY: blstrs' affine points are blst's affine layout: whole u64
    // words, no padding, any bit pattern readable as words.
    unsafe { std::slice::from_raw_parts(table.as_ptr().cast(), std::mem::size_of_val(table) / 8) }
}
