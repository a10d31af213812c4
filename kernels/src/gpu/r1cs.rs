//! Kernels of a compiled circuit: the witness expanded from its classes,
//! a, b, c from the witness, and the check that it satisfies the circuit.

use super::grid::{first_index_and_stride, indices};
use crate::ff::Fr;
use crate::layout::FR_LIMBS;
use crate::mem::Limbs;
use crate::msm::warp::{lane, shfl};
use crate::r1cs::{add_entry, eval_row, is_long_row, row_range};

kernel! {
    /// `out[i]` = row i of one sparse matrix times z for `i < rows`, zero
    /// for `rows ≤ i < n` (the padding up to the evaluation domain); rows
    /// longer than [`crate::r1cs::LONG_ROW`] entries are left to
    /// `r1cs_long_rows` when `skip_long` is set.
    fn r1cs_rows(row_start: *const u32, entries: *const u64, coeffs: *const u64, z: *const u64, out: *mut u64, rows: u32, n: u32, skip_long: u32) {
        for i in indices(n) {
            let value = if i < rows as usize {
                if skip_long != 0 && is_long_row(row_start, i) {
                    continue;
                }
                eval_row(row_start, entries, coeffs, z, i)
            } else {
                Fr::ZERO
            };
            value.store(out.add(i * FR_LIMBS));
        }
    }
}

kernel! {
    /// `out[row]` = row `row` of one sparse matrix times z, for each row of
    /// `long_rows[..count]`: one warp per row, each lane summing every 32nd
    /// entry, then the lanes' sums added across the warp. Blocks must be
    /// whole warps.
    fn r1cs_long_rows(row_start: *const u32, entries: *const u64, coeffs: *const u64, z: *const u64, out: *mut u64, long_rows: *const u32, count: u32) {
        let (first, stride) = first_index_and_stride();
        // Every lane of a warp has the same k: the loop is warp-uniform, so
        // all 32 lanes reach the shuffles together.
        let (mut k, warps) = (first / LANES, stride / LANES);
        let lane = lane() as usize;
        while k < count as usize {
            let row = *long_rows.add(k) as usize;
            let (begin, end) = row_range(row_start, row);
            let mut acc = Fr::ZERO;
            let mut e = begin + lane;
            while e < end {
                acc = add_entry(acc, *entries.add(e), coeffs, z);
                e += LANES;
            }
            let sum = warp_sum(acc);
            if lane == 0 {
                sum.store(out.add(row * FR_LIMBS));
            }
            k += warps;
        }
    }
}

/// Lanes of a warp: 32 on the GPU; on the host the one "thread" is a warp
/// of one lane.
#[cfg(target_arch = "nvptx64")]
const LANES: usize = 32;
#[cfg(not(target_arch = "nvptx64"))]
const LANES: usize = 1;

/// The sum of `value` over the warp's lanes, in every lane (a butterfly of
/// xor shuffles, one 32-bit word at a time).
///
/// # Safety
/// On the GPU all 32 lanes of the warp must call it together.
#[inline(always)]
unsafe fn warp_sum(mut value: Fr) -> Fr {
    let mut offset = LANES as u32 / 2;
    while offset > 0 {
        let from = lane() ^ offset;
        let mut other = [0u64; FR_LIMBS];
        for (o, &l) in other.iter_mut().zip(value.limbs.iter()) {
            let (lo, hi) = (shfl(l as u32, from), shfl((l >> 32) as u32, from));
            *o = (hi as u64) << 32 | lo as u64;
        }
        value = value + Fr::from_raw(other);
        offset /= 2;
    }
    value
}

kernel! {
    /// `*first_bad` = min(`*first_bad`, every `i < n` with `a[i]·b[i] ≠ c[i]`).
    fn r1cs_check(a: *const u64, b: *const u64, c: *const u64, n: u32, first_bad: *mut u32) {
        for i in indices(n) {
            let at = i * FR_LIMBS;
            if Fr::load(a.add(at)) * Fr::load(b.add(at)) != Fr::load(c.add(at)) {
                core::sync::atomic::AtomicU32::from_ptr(first_bad).fetch_min(i as u32, core::sync::atomic::Ordering::Relaxed);
            }
        }
    }
}

kernel! {
    /// `out[i]` = value i of a classed witness (`crate::witness_classes`),
    /// for `i < n`.
    fn witness_expand(classes: *const u64, chunk_start: *const u32, others: *const u64, out: *mut u64, n: u32) {
        for i in indices(n) {
            crate::witness_classes::value(classes, chunk_start, others, i).store(out.add(i * FR_LIMBS));
        }
    }
}
