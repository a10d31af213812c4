//! A witness sent as classes: 2 bits per value (0, 1, or other) and the
//! other values alone, in order. A real PoRep partition's aux values are
//! about 51% zeros and 47% ones, so this is ~3% of the values' bytes.
//!
//! `chunk_start[k]` is the index in `others` of the first other value of
//! values `k·CHUNK_VALUES ..`: a value's place among the others is that
//! plus the other-classes before it in its chunk (popcounts of at most
//! `CHUNK_WORDS` words).

use crate::ff::Fr;
use crate::layout::FR_LIMBS;
use crate::mem::Limbs;

/// Class of a zero value.
pub const CLASS_ZERO: u64 = 0;
/// Class of the value one.
pub const CLASS_ONE: u64 = 1;
/// Class of any other value (listed in `others`).
pub const CLASS_OTHER: u64 = 2;
/// Values per class word.
pub const VALUES_PER_WORD: usize = 32;
/// Class words per chunk.
pub const CHUNK_WORDS: usize = 8;
/// Values per chunk (one `chunk_start` entry each).
pub const CHUNK_VALUES: usize = VALUES_PER_WORD * CHUNK_WORDS;

/// Bit 2j set where value j of the word is of class other (binary 10).
#[inline(always)]
pub const fn others_in(word: u64) -> u64 {
    (word >> 1) & 0x5555_5555_5555_5555
}

/// Value `i` of a classed witness.
///
/// # Safety
/// `classes` must hold value i's word and its chunk's earlier words,
/// `chunk_start` its chunk's entry, and `others` every other value the
/// classes count (`FR_LIMBS` words each).
#[inline(always)]
pub unsafe fn value(classes: *const u64, chunk_start: *const u32, others: *const u64, i: usize) -> Fr {
    let w = i / VALUES_PER_WORD;
    let word = *classes.add(w);
    let shift = 2 * (i % VALUES_PER_WORD);
    match (word >> shift) & 3 {
        CLASS_ZERO => Fr::ZERO,
        CLASS_ONE => Fr::ONE,
        _ => {
            let mut rank = *chunk_start.add(i / CHUNK_VALUES) as usize;
            for k in (i / CHUNK_VALUES) * CHUNK_WORDS..w {
                rank += others_in(*classes.add(k)).count_ones() as usize;
            }
            rank += (others_in(word) & ((1u64 << shift) - 1)).count_ones() as usize;
            Fr::load(others.add(rank * FR_LIMBS))
        }
    }
}
