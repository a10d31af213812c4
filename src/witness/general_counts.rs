//! How many aux values are neither 0 nor 1, per block of consecutive
//! values: an upper bound for any range of them.
//!
//! An MSM's window is chosen for the scalars other than 0 and 1 it may
//! meet, and its sort's room bounded by them. Split into pieces, each
//! piece meets only its own range's share: planned with the whole
//! witness's count, every piece of a density MSM would plan as if all its
//! scalars were general (a larger window, buckets and entries for each).
//! The engine counts in blocks of a G2 piece's scalars, where every aux
//! MSM's pieces begin, so each piece's bound is exact.
// Only GPU provers count (the counts are tested everywhere).
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use blstrs::Scalar;
use rayon::prelude::*;

use super::classes::count_others;

/// Per-block counts of the values other than 0 and 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GeneralCounts {
    block: usize,
    counts: Vec<usize>,
}

impl GeneralCounts {
    /// Blocks of `block` values that cover `len` values (at least one).
    pub fn blocks(len: usize, block: usize) -> usize {
        len.div_ceil(block.max(1)).max(1)
    }

    /// Counts `values` in blocks of `block`.
    pub fn count(values: &[Scalar], block: usize) -> Self {
        let block = block.max(1);
        let mut counts: Vec<usize> = values.par_chunks(block).map(count_others).collect();
        counts.resize(Self::blocks(values.len(), block), 0);
        GeneralCounts { block, counts }
    }

    /// Counts made elsewhere (on the device), block by block.
    pub fn from_counts(block: usize, counts: impl IntoIterator<Item = usize>) -> Self {
        GeneralCounts { block: block.max(1), counts: counts.into_iter().collect() }
    }

    /// All values other than 0 and 1.
    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// At least the values other than 0 and 1 among `start .. start + len`
    /// (the blocks that range touches; past the counted values, none).
    pub fn within(&self, start: usize, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        let first = (start / self.block).min(self.counts.len());
        let last = ((start + len - 1) / self.block + 1).min(self.counts.len());
        self.counts[first..last].iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand_core::{RngCore, SeedableRng};

    fn witness(n: usize, seed: u64) -> Vec<Scalar> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| match rng.next_u32() % 10 {
                0..=4 => Scalar::ZERO,
                5..=8 => Scalar::ONE,
                _ => Scalar::random(&mut rng),
            })
            .collect()
    }

    fn exact(values: &[Scalar], start: usize, len: usize) -> usize {
        count_others(&values[start.min(values.len())..(start + len).min(values.len())])
    }

    /// Every range's bound holds, is exact on block boundaries, and
    /// overcounts by no more than the two blocks at its ends.
    #[test]
    fn a_range_bound_holds_and_is_tight_on_blocks() {
        let values = witness(10_000, 7);
        for block in [1, 64, 1000, 4096, 10_000, 1 << 20] {
            let counts = GeneralCounts::count(&values, block);
            assert_eq!(counts.total(), count_others(&values));
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(block as u64);
            for _ in 0..300 {
                let start = rng.next_u32() as usize % 10_500;
                let len = rng.next_u32() as usize % 6000;
                let bound = counts.within(start, len);
                let truth = exact(&values, start, len);
                assert!(bound >= truth, "block {block}: {start}+{len}: {bound} < {truth}");
                let a = start / block * block;
                let b = (start + len).div_ceil(block) * block;
                assert_eq!(bound, if len == 0 { 0 } else { exact(&values, a, b - a) }, "block {block}: {start}+{len}");
            }
        }
    }

    #[test]
    fn empty_and_device_made_counts() {
        let none = GeneralCounts::count(&[], 16);
        assert_eq!((none.total(), none.within(0, 100), GeneralCounts::blocks(0, 16)), (0, 0, 1));
        let made = GeneralCounts::from_counts(4, [1, 0, 3]);
        assert_eq!((made.within(0, 4), made.within(3, 2), made.within(5, 100), made.within(12, 4)), (1, 1, 3, 0));
    }
}
