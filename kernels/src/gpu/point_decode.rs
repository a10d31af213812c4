//! Kernels that decode a parameter file's points in place and check them
//! (`crate::point_decode`).

use core::sync::atomic::{AtomicU64, Ordering};

use super::grid::indices;
use crate::ff::{Fp2, FpLazy};
use crate::mem::Limbs;
use crate::point_decode::{decode_g1, decode_g2, g1_in_subgroup, g2_in_subgroup, G1_WORDS, G2_WORDS, PROBLEM_SUBGROUP};

/// Reports point `index`'s problem: the smallest key wins.
#[inline(always)]
unsafe fn report(first_bad: *mut u64, index: usize, problem: u64) {
    AtomicU64::from_ptr(first_bad).fetch_min(index as u64 * 4 + problem, Ordering::Relaxed);
}

/// `N` words from `src`.
#[inline(always)]
unsafe fn load_words<const N: usize>(src: *const u64) -> [u64; N] {
    let mut out = [0u64; N];
    for k in 0..N {
        out[k] = *src.add(k);
    }
    out
}

kernel! {
    /// Decodes points `first .. first + n` of a G1 query in place (`points`
    /// is point `first`'s place): encoded in, blst affine out. A bad point
    /// sets `*first_bad` to at most its key (`crate::point_decode`);
    /// `subgroup ≠ 0` adds the subgroup check with the constants at
    /// `constants` (`SUBGROUP_CONSTANT_WORDS`).
    fn decode_g1_points(points: *mut u64, n: u32, first: u32, constants: *const u64, subgroup: u32, first_bad: *mut u64) {
        for i in indices(n) {
            let at = points.add(i * G1_WORDS);
            match decode_g1(&load_words::<G1_WORDS>(at)) {
                Ok(p) => {
                    if subgroup != 0 && !g1_in_subgroup(&p, FpLazy::load(constants)) {
                        report(first_bad, first as usize + i, PROBLEM_SUBGROUP);
                    }
                    p.store(at);
                }
                Err(problem) => report(first_bad, first as usize + i, problem),
            }
        }
    }
}

kernel! {
    /// [`decode_g1_points`] for a G2 query.
    fn decode_g2_points(points: *mut u64, n: u32, first: u32, constants: *const u64, subgroup: u32, first_bad: *mut u64) {
        for i in indices(n) {
            let at = points.add(i * G2_WORDS);
            match decode_g2(&load_words::<G2_WORDS>(at)) {
                Ok(p) => {
                    if subgroup != 0 && !g2_in_subgroup(&p, Fp2::load(constants.add(6)), Fp2::load(constants.add(18))) {
                        report(first_bad, first as usize + i, PROBLEM_SUBGROUP);
                    }
                    p.store(at);
                }
                Err(problem) => report(first_bad, first as usize + i, problem),
            }
        }
    }
}
