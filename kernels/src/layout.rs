//! Sizes of every kernel-visible type in `u64` limbs, for host code that
//! allocates device buffers or reinterprets blstrs slices.
//!
//! All values are Montgomery-form little-endian limbs, in the same order as
//! the corresponding blst struct: `Fp2` is `c0, c1`; affine points `x, y`;
//! Jacobian `x, y, z`; XYZZ `x, y, zz, zzz`.

use crate::ec::{G1Affine, G1Jacobian, G1Xyzz, G2Affine, G2Jacobian, G2Xyzz};
use crate::ff::{Fp, Fp2, Fr};
use crate::mem::Limbs;

pub const LIMB_BYTES: usize = 8;

pub const FR_LIMBS: usize = Fr::LIMBS;
pub const FP_LIMBS: usize = Fp::LIMBS;
pub const FP2_LIMBS: usize = Fp2::LIMBS;

pub const G1_AFFINE_LIMBS: usize = G1Affine::LIMBS;
pub const G1_JACOBIAN_LIMBS: usize = G1Jacobian::LIMBS;
pub const G1_XYZZ_LIMBS: usize = G1Xyzz::LIMBS;

pub const G2_AFFINE_LIMBS: usize = G2Affine::LIMBS;
pub const G2_JACOBIAN_LIMBS: usize = G2Jacobian::LIMBS;
pub const G2_XYZZ_LIMBS: usize = G2Xyzz::LIMBS;

// The kernels index buffers by these counts, so they must agree with the
// in-memory size of the types (and thus with blstrs).
const _: () = {
    use core::mem::size_of;
    assert!(size_of::<Fr>() == FR_LIMBS * LIMB_BYTES);
    assert!(size_of::<Fp>() == FP_LIMBS * LIMB_BYTES);
    assert!(size_of::<Fp2>() == FP2_LIMBS * LIMB_BYTES);
    assert!(size_of::<G1Affine>() == G1_AFFINE_LIMBS * LIMB_BYTES);
    assert!(size_of::<G1Jacobian>() == G1_JACOBIAN_LIMBS * LIMB_BYTES);
    assert!(size_of::<G1Xyzz>() == G1_XYZZ_LIMBS * LIMB_BYTES);
    assert!(size_of::<G2Affine>() == G2_AFFINE_LIMBS * LIMB_BYTES);
    assert!(size_of::<G2Jacobian>() == G2_JACOBIAN_LIMBS * LIMB_BYTES);
    assert!(size_of::<G2Xyzz>() == G2_XYZZ_LIMBS * LIMB_BYTES);
};
