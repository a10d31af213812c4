//! Exclusive prefix sum of `u32` arrays without shared memory, as a tree of
//! chunk sums (see [`super::plan`] for the launch sequence):
//!
//! ```text
//! level 0: data (n)          --reduce-->  sums_1 (ceil(n/32))  --reduce--> ... sums_k (≤ 32)
//! apply sums_k (one thread, no offsets); apply sums_{k-1} with offsets sums_k; ... apply data with sums_1
//! ```
//!
//! Each thread owns [`CHUNK`] consecutive elements, so the serial part at
//! every level is 32 long.

use crate::gpu::grid::indices;

/// log2 of the elements one scan thread owns.
pub const CHUNK_LOG: u32 = 5;
pub const CHUNK: u32 = 1 << CHUNK_LOG;

/// Number of chunks (threads) for `n` elements.
#[inline(always)]
pub const fn chunks(n: u32) -> u32 {
    (n >> CHUNK_LOG) + ((n & (CHUNK - 1)) != 0) as u32
}

/// The elements of chunk `t`: `[32t, min(32t + 32, n))`.
#[inline(always)]
fn chunk_range(n: u32, t: usize) -> (usize, usize) {
    let first = t << CHUNK_LOG;
    let end = first + CHUNK as usize;
    (first, if end < n as usize { end } else { n as usize })
}

/// `out[t] = Σ data[32t .. 32t + 32]` (clipped to `n`).
///
/// # Safety
/// `data` valid for `n` reads, `out` for `chunks(n)` writes.
#[inline(always)]
pub unsafe fn reduce(data: *const u32, n: u32, out: *mut u32) {
    for t in indices(chunks(n)) {
        let (first, end) = chunk_range(n, t);
        let mut sum = 0u32;
        for i in first..end {
            sum = sum.wrapping_add(*data.add(i));
        }
        *out.add(t) = sum;
    }
}

/// Replaces chunk `t` of `data` by its exclusive prefix sums, starting from
/// `offsets[t]` (or 0 when `offsets` is null).
///
/// # Safety
/// `data` valid for `n` reads and writes; `offsets` null or valid for
/// `chunks(n)` reads.
#[inline(always)]
pub unsafe fn apply(data: *mut u32, n: u32, offsets: *const u32) {
    for t in indices(chunks(n)) {
        let (first, end) = chunk_range(n, t);
        let mut acc = if offsets.is_null() {
            0
        } else {
            *offsets.add(t)
        };
        for i in first..end {
            let v = *data.add(i);
            *data.add(i) = acc;
            acc = acc.wrapping_add(v);
        }
    }
}

/// `out[i] = popcount(words[i])`: the input of the density prefix scan.
///
/// # Safety
/// `words` valid for `n` reads, `out` for `n` writes.
#[inline(always)]
pub unsafe fn popcount(words: *const u64, n: u32, out: *mut u32) {
    for i in indices(n) {
        *out.add(i) = (*words.add(i)).count_ones();
    }
}
