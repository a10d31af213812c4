//! Kernels of a Groth16 setup's fixed-base multiplications
//! (`crate::fixed_base`) and of the results' encoding for the parameter
//! file (`crate::point_encode`).

use super::grid::indices;
use crate::ec::affine::Affine;
use crate::ec::curves::{CurveConfig, G1Config, G2Config};
use crate::ec::xyzz::Xyzz;
use crate::fixed_base::{batch_to_affine, fixed_base};
use crate::mem::Limbs;
use crate::point_encode::{encode_g1, encode_g2};

kernel! {
    /// `out[i] = scalars[i] · G` (XYZZ, 24 words each) for `i < n`, from
    /// the window table of G (`crate::fixed_base`); scalars canonical,
    /// 4 little-endian words each.
    fn fixed_base_g1(table: *const u64, bits: u32, scalars: *const u64, n: u32, out: *mut u64) {
        for i in indices(n) {
            let s = <[u64; 4]>::load(scalars.add(4 * i));
            fixed_base::<G1Config>(table, bits, &s).store(out.add(i * Xyzz::<G1Config>::LIMBS));
        }
    }
}

kernel! {
    /// [`fixed_base_g1`] in G2 (XYZZ, 48 words each).
    fn fixed_base_g2(table: *const u64, bits: u32, scalars: *const u64, n: u32, out: *mut u64) {
        for i in indices(n) {
            let s = <[u64; 4]>::load(scalars.add(4 * i));
            fixed_base::<G2Config>(table, bits, &s).store(out.add(i * Xyzz::<G2Config>::LIMBS));
        }
    }
}

/// Points `0 .. n` of `xyzz` made affine, `batch` per inversion, and
/// encoded (`W` words each) into `out`; `scratch` holds a base-field
/// element per point.
#[inline(always)]
unsafe fn encode_batches<C: CurveConfig, const W: usize>(xyzz: *const u64, n: u32, batch: u32, scratch: *mut u64, out: *mut u64, encode: impl Fn(&Affine<C>) -> [u64; W]) {
    let batch = batch.max(1);
    for b in indices(n.div_ceil(batch)) {
        let first = b * batch as usize;
        let len = (batch as usize).min(n as usize - first);
        batch_to_affine::<C>(xyzz.add(first * Xyzz::<C>::LIMBS), len, scratch.add(first * C::Base::LIMBS), |i, p| {
            encode(&p).store(out.add((first + i) * W));
        });
    }
}

kernel! {
    /// Points `0 .. n` of `xyzz` made affine and encoded into `out` (12
    /// words each, bellperson's encoding), `batch` consecutive points per
    /// inversion; `scratch` holds 6 words per point.
    fn encode_g1_batches(xyzz: *const u64, n: u32, batch: u32, scratch: *mut u64, out: *mut u64) {
        encode_batches::<G1Config, 12>(xyzz, n, batch, scratch, out, encode_g1);
    }
}

kernel! {
    /// [`encode_g1_batches`] in G2 (24 words per encoded point, 12 of
    /// scratch per point).
    fn encode_g2_batches(xyzz: *const u64, n: u32, batch: u32, scratch: *mut u64, out: *mut u64) {
        encode_batches::<G2Config, 24>(xyzz, n, batch, scratch, out, encode_g2);
    }
}
