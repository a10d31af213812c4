//! Precomputed tables of the bases for an MSM with fewer bucket sets
//! ([`super::plan::MsmConfig::tables`]): table `a + 1` is table `a` doubled
//! `spacing` times, so table `a` holds `2^(a·spacing)·P`.

use crate::ec::{Affine, CurveConfig, Xyzz};
use crate::ff::Field;
use crate::gpu::grid::indices;
use crate::mem::Limbs;

/// `dst[i] = 2^spacing · src[i]` for `i < n`, affine in and out (reduced
/// coordinates; the identity stays `(0, 0)`). One inversion per point (by
/// Fermat): a one-time cost when the bases are set up.
///
/// # Safety
/// `src` and `dst` hold `n` affine points each and do not overlap.
#[inline(always)]
pub unsafe fn next_table<C: CurveConfig>(src: *const u64, dst: *mut u64, n: u32, spacing: u32) {
    let limbs = <Affine<C> as Limbs>::LIMBS;
    for i in indices(n) {
        let p = Affine::<C>::load(src.add(i * limbs));
        let mut q = Xyzz::<C>::from_affine(&p);
        for _ in 0..spacing {
            q = q.double();
        }
        let out = if q.is_identity() {
            Affine::<C>::IDENTITY
        } else {
            // (X/ZZ, Y/ZZZ) with one inversion: ZZ³ = ZZZ², so
            // 1/ZZ = ZZ²·(1/ZZZ)².
            let zzz_inv = q.zzz.inverse();
            let zz_inv = q.zz.square() * zzz_inv.square();
            Affine::new((q.x * zz_inv).reduced(), (q.y * zzz_inv).reduced())
        };
        out.store(dst.add(i * limbs));
    }
}
