//! Evaluating a compiled circuit's rows: `(A·z)_i`, `(B·z)_i`, `(C·z)_i`.
//!
//! A compiled circuit keeps each of A, B and C as compressed sparse rows:
//! `row_start[i]..row_start[i + 1]` are row i's entries, one `u64` each, the
//! column (an index into z = inputs then aux) in the low 32 bits and the
//! coefficient's index in the circuit's coefficient table in the high 32.
//! Index 0 is always 1 and index 1 always −1, the two coefficients that make
//! up nearly all entries of real circuits, so they cost an add or a subtract
//! and no multiplication or table read.
//!
//! The host (CPU backend, tests) and the GPU kernel run this same function.

use crate::ff::Fr;
use crate::layout::FR_LIMBS;
use crate::mem::Limbs;

/// Coefficient index of 1.
pub const COEFF_ONE: u32 = 0;
/// Coefficient index of −1.
pub const COEFF_MINUS_ONE: u32 = 1;

/// An entry: `coeff` times variable `column` of z.
#[inline(always)]
pub const fn entry(column: u32, coeff: u32) -> u64 {
    (coeff as u64) << 32 | column as u64
}

/// The variable (index into z) of an entry.
#[inline(always)]
pub const fn column(entry: u64) -> u32 {
    entry as u32
}

/// The coefficient-table index of an entry.
#[inline(always)]
pub const fn coeff(entry: u64) -> u32 {
    (entry >> 32) as u32
}

/// Row `row` of a sparse matrix times z.
///
/// # Safety
/// `row_start` must hold `row + 2` offsets, the entries they delimit must be
/// readable, every entry's column must index z (`FR_LIMBS` words each) and
/// every coefficient index the table; on the GPU, z and the table are
/// 16-byte aligned and unchanged while the kernel runs.
#[inline(always)]
pub unsafe fn eval_row(row_start: *const u32, entries: *const u64, coeffs: *const u64, z: *const u64, row: usize) -> Fr {
    let (begin, end) = row_range(row_start, row);
    let mut acc = Fr::ZERO;
    for k in begin..end {
        acc = add_entry(acc, *entries.add(k), coeffs, z);
    }
    acc
}

/// The entries of row `row`: `row_start[row]..row_start[row + 1]`.
///
/// # Safety
/// `row_start` must hold `row + 2` offsets.
#[inline(always)]
pub unsafe fn row_range(row_start: *const u32, row: usize) -> (usize, usize) {
    (*row_start.add(row) as usize, *row_start.add(row + 1) as usize)
}

/// `acc` plus one entry's term, its coefficient times its variable of z.
///
/// # Safety
/// As for [`eval_row`], for this entry.
#[inline(always)]
pub unsafe fn add_entry(acc: Fr, e: u64, coeffs: *const u64, z: *const u64) -> Fr {
    let value = Fr::load_readonly(z.add(column(e) as usize * FR_LIMBS));
    match coeff(e) {
        COEFF_ONE => acc + value,
        COEFF_MINUS_ONE => acc - value,
        c => acc + Fr::load_readonly(coeffs.add(c as usize * FR_LIMBS)) * value,
    }
}

/// Rows longer than this are evaluated by a whole warp
/// (`r1cs_long_rows`), not one thread: a real circuit's few long rows
/// (bellperson's `MultiEq` packs hundreds of bit terms with power-of-two
/// coefficients into one constraint) otherwise hold up 31 idle lanes each.
pub const LONG_ROW: u32 = 32;

/// Whether row `row` is left to the warps.
///
/// # Safety
/// As for [`row_range`].
#[inline(always)]
pub unsafe fn is_long_row(row_start: *const u32, row: usize) -> bool {
    let (begin, end) = row_range(row_start, row);
    end - begin > LONG_ROW as usize
}
