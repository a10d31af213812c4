//! One-operation-per-element kernels, for differential testing of the
//! field and curve arithmetic against blstrs on real hardware.
//!
//! Every buffer is a packed array of elements in the layout given by
//! [`crate::layout`]; element `i` of a buffer of `T` starts at limb
//! `i * T::LIMBS`. Each element is fully loaded before its result is stored,
//! so in-place operation (output = input buffer) is fine.

use super::grid::indices;
use crate::ec::{G1Affine, G1Jacobian, G1Xyzz, G2Affine, G2Jacobian, G2Xyzz};
use crate::ff::{Field, Fp, Fp2, Fr};
use crate::mem::Limbs;

/// `out[i] = f(a[i])`, with `a` of type `$In` and `out` of type `$Out`.
macro_rules! unary_kernel {
    ($(#[doc = $doc:literal])* $name:ident: $In:ty => $Out:ty, |$x:ident| $result:expr) => {
        kernel! {
            $(#[doc = $doc])*
            fn $name(a: *const u64, out: *mut u64, n: u32) {
                for i in indices(n) {
                    let $x = <$In as Limbs>::load(a.add(i * <$In as Limbs>::LIMBS));
                    let result: $Out = $result;
                    result.store(out.add(i * <$Out as Limbs>::LIMBS));
                }
            }
        }
    };
}

/// `out[i] = f(a[i], b[i])`.
macro_rules! binary_kernel {
    ($(#[doc = $doc:literal])* $name:ident: $A:ty, $B:ty => $Out:ty, |$x:ident, $y:ident| $result:expr) => {
        kernel! {
            $(#[doc = $doc])*
            fn $name(a: *const u64, b: *const u64, out: *mut u64, n: u32) {
                for i in indices(n) {
                    let $x = <$A as Limbs>::load(a.add(i * <$A as Limbs>::LIMBS));
                    let $y = <$B as Limbs>::load(b.add(i * <$B as Limbs>::LIMBS));
                    let result: $Out = $result;
                    result.store(out.add(i * <$Out as Limbs>::LIMBS));
                }
            }
        }
    };
}

/// The field operations shared by Fr, Fp and Fp2.
macro_rules! field_kernels {
    ($F:ty: $add:ident, $sub:ident, $mul:ident, $sqr:ident, $neg:ident, $dbl:ident, $inv:ident) => {
        binary_kernel!($add: $F, $F => $F, |x, y| x + y);
        binary_kernel!($sub: $F, $F => $F, |x, y| x - y);
        binary_kernel!($mul: $F, $F => $F, |x, y| x * y);
        unary_kernel!($sqr: $F => $F, |x| x.square());
        unary_kernel!($neg: $F => $F, |x| -x);
        unary_kernel!($dbl: $F => $F, |x| x.double());
        unary_kernel!(
            /// Zero maps to zero.
            $inv: $F => $F, |x| x.inverse()
        );
    };
}

/// The point operations shared by G1 and G2.
macro_rules! curve_kernels {
    ($Affine:ty, $Xyzz:ty, $Jacobian:ty: $add_mixed:ident, $add:ident, $dbl:ident, $dbl_jacobian:ident, $to_jacobian:ident, $affine_to_xyzz:ident) => {
        binary_kernel!(
            /// `(acc: XYZZ, p: affine) -> XYZZ`.
            $add_mixed: $Xyzz, $Affine => $Xyzz, |acc, p| acc.add_affine(&p)
        );
        binary_kernel!($add: $Xyzz, $Xyzz => $Xyzz, |x, y| x.add(&y));
        unary_kernel!($dbl: $Xyzz => $Xyzz, |x| x.double());
        unary_kernel!($dbl_jacobian: $Jacobian => $Jacobian, |x| x.double());
        unary_kernel!(
            /// Output in blst_p1/blst_p2 (blstrs projective) layout.
            $to_jacobian: $Xyzz => $Jacobian, |x| x.to_jacobian()
        );
        unary_kernel!($affine_to_xyzz: $Affine => $Xyzz, |p| <$Xyzz>::from_affine(&p));
    };
}

field_kernels!(Fr: fr_add, fr_sub, fr_mul, fr_sqr, fr_neg, fr_dbl, fr_inv);
field_kernels!(Fp: fp_add, fp_sub, fp_mul, fp_sqr, fp_neg, fp_dbl, fp_inv);
field_kernels!(Fp2: fp2_add, fp2_sub, fp2_mul, fp2_sqr, fp2_neg, fp2_dbl, fp2_inv);
binary_kernel!(
    /// `x·y + (x + y)·(x − y)`: Fp2's fused sum of two products (G2's
    /// `Y3`), with a second pair that is lazily reduced (below `2p`).
    fp2_mul2: Fp2, Fp2 => Fp2, |x, y| x.mul2(y, x + y, x - y)
);

unary_kernel!(
    /// Canonical little-endian limbs (must be `< r`) to Montgomery form.
    fr_to_mont: [u64; 4] => Fr, |x| Fr::from_canonical(&x)
);
unary_kernel!(fr_from_mont: Fr => [u64; 4], |x| x.to_canonical());
unary_kernel!(
    /// Canonical little-endian limbs (must be `< p`) to Montgomery form.
    fp_to_mont: [u64; 6] => Fp, |x| Fp::from_canonical(&x)
);
unary_kernel!(fp_from_mont: Fp => [u64; 6], |x| x.to_canonical());

curve_kernels!(G1Affine, G1Xyzz, G1Jacobian: g1_add_mixed, g1_add, g1_dbl, g1_dbl_jacobian, g1_to_jacobian, g1_affine_to_xyzz);
curve_kernels!(G2Affine, G2Xyzz, G2Jacobian: g2_add_mixed, g2_add, g2_dbl, g2_dbl_jacobian, g2_to_jacobian, g2_affine_to_xyzz);
