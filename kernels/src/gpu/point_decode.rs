//! Kernels that decode a parameter file's points in place and check them
//! (`crate::point_decode`).

use core::sync::atomic::{AtomicU64, Ordering};

use super::grid::indices;
use crate::ff::{Fp2, FpLazy};
use crate::mem::Limbs;
use crate::point_decode::{decode_g1, decode_g2, g1_in_subgroup, g2_in_subgroup, G1_WORDS, G2_WORDS, PROBLEM_SUBGROUP};

/// The body of both kernels: point `i` of `n` (`W` words each) decoded in
/// place, a bad one reported as `(first + i) · 4 + problem` through
/// `fetch_min` on `first_bad`; `in_subgroup` runs on the decoded point.
#[inline(always)]
unsafe fn decode_in_place<const W: usize, P: Limbs>(
    points: *mut u64,
    n: u32,
    first: u32,
    first_bad: *mut u64,
    decode: impl Fn(&[u64; W]) -> Result<P, u64>,
    in_subgroup: impl Fn(&P) -> bool,
) {
    for i in indices(n) {
        let at = points.add(i * W);
        let mut raw = [0u64; W];
        for k in 0..W {
            raw[k] = *at.add(k);
        }
        let problem = match decode(&raw) {
            Ok(p) => {
                p.store(at);
                (!in_subgroup(&p)).then_some(PROBLEM_SUBGROUP)
            }
            Err(problem) => Some(problem),
        };
        if let Some(problem) = problem {
            AtomicU64::from_ptr(first_bad).fetch_min((first as u64 + i as u64) * 4 + problem, Ordering::Relaxed);
        }
    }
}

kernel! {
    /// Decodes points `first .. first + n` of a G1 query in place (`points`
    /// is point `first`'s place): encoded in, blst affine out. A bad point
    /// sets `*first_bad` to at most its key (`crate::point_decode`);
    /// `subgroup ≠ 0` adds the subgroup check with the constants at
    /// `constants` (`SUBGROUP_CONSTANT_WORDS`).
    fn decode_g1_points(points: *mut u64, n: u32, first: u32, constants: *const u64, subgroup: u32, first_bad: *mut u64) {
        decode_in_place::<G1_WORDS, _>(points, n, first, first_bad, decode_g1, |p| subgroup == 0 || g1_in_subgroup(p, FpLazy::load(constants)));
    }
}

kernel! {
    /// [`decode_g1_points`] for a G2 query.
    fn decode_g2_points(points: *mut u64, n: u32, first: u32, constants: *const u64, subgroup: u32, first_bad: *mut u64) {
        decode_in_place::<G2_WORDS, _>(points, n, first, first_bad, decode_g2, |p| {
            subgroup == 0 || g2_in_subgroup(p, Fp2::load(constants.add(6)), Fp2::load(constants.add(18)))
        });
    }
}
