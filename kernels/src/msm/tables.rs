//! Precomputed tables of the bases for an MSM with fewer bucket sets
//! ([`super::plan::MsmConfig::tables`]): table `a + 1` is table `a` doubled
//! `spacing` times, so table `a` holds `2^(a·spacing)·P`.

use crate::ec::{Affine, CurveConfig, Xyzz};
use crate::ff::Field;
use crate::gpu::grid::first_index_and_stride;
use crate::mem::Limbs;

/// Points per thread that share one field inversion (Montgomery's batch
/// inversion): an inversion costs ≈ 570 multiplications, the doublings
/// between tables ≈ 200, the batch 3 per point.
pub const TABLE_BATCH: usize = 16;

/// Field elements of scratch per point for [`next_table`].
pub const TABLE_SCRATCH_ELEMENTS: usize = 3;

/// `dst[i] = 2^spacing · src[i]` for `i < n`, affine in and out (reduced
/// coordinates; the identity stays `(0, 0)`). Each thread doubles
/// [`TABLE_BATCH`] points (a grid stride apart, so loads stay coalesced),
/// inverts the product of their `ZZZ`s once and takes every point's
/// inverse from it on the way back; `dst` holds the unnormalised `X, Y`
/// and `scratch` the `ZZ`, `ZZZ` and running product in between.
///
/// # Safety
/// `src` and `dst` hold `n` affine points each and do not overlap;
/// `scratch` holds `TABLE_SCRATCH_ELEMENTS · n` base-field elements.
#[inline(always)]
pub unsafe fn next_table<C: CurveConfig>(src: *const u64, dst: *mut u64, scratch: *mut u64, n: u32, spacing: u32) {
    let limbs = <Affine<C> as Limbs>::LIMBS;
    let field = <C::Base as Limbs>::LIMBS;
    let (first, stride) = first_index_and_stride();
    let n = n as usize;
    let mut start = first;
    while start < n {
        let mut product = C::Base::ONE;
        for j in 0..TABLE_BATCH {
            let i = start + j * stride;
            if i >= n {
                break;
            }
            let mut q = Xyzz::<C>::from_affine(&Affine::<C>::load(src.add(i * limbs)));
            for _ in 0..spacing {
                q = q.double();
            }
            Affine::<C>::new(q.x, q.y).store(dst.add(i * limbs));
            let s = scratch.add(i * TABLE_SCRATCH_ELEMENTS * field);
            q.zz.store(s);
            // The identity test here and on the way back reads the same
            // reduced ZZZ, so both skip exactly the same points.
            let zzz = q.zzz.reduced();
            zzz.store(s.add(field));
            product.store(s.add(2 * field));
            if !zzz.is_zero_limbs() {
                product = product * zzz;
            }
        }
        let mut inverse = product.inverse();
        for j in (0..TABLE_BATCH).rev() {
            let i = start + j * stride;
            if i >= n {
                continue;
            }
            let s = scratch.add(i * TABLE_SCRATCH_ELEMENTS * field);
            let zzz = C::Base::load(s.add(field));
            let out = if zzz.is_zero_limbs() {
                Affine::<C>::IDENTITY
            } else {
                // 1/ZZZ from the product before this point; then
                // (X/ZZ, Y/ZZZ) with ZZ³ = ZZZ², so 1/ZZ = ZZ²·(1/ZZZ)².
                let zzz_inv = C::Base::load(s.add(2 * field)) * inverse;
                inverse = inverse * zzz;
                let zz = C::Base::load(s);
                let zz_inv = zz.square() * zzz_inv.square();
                let q = Affine::<C>::load(dst.add(i * limbs));
                Affine::new((q.x * zz_inv).reduced(), (q.y * zzz_inv).reduced())
            };
            out.store(dst.add(i * limbs));
        }
        start += stride * TABLE_BATCH;
    }
}
