use core::ops::{Add, Mul, Neg, Sub};

use crate::mem::Limbs;

/// The operations curve code needs from a base field, so G1 (over Fp) and
/// G2 (over Fp2) share one implementation of the point formulas.
///
/// `==` is field equality (also for lazily reduced fields, whose limbs
/// may exceed `p` in registers: they compare residues).
pub trait Field:
    Copy
    + Eq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + Limbs
{
    const ZERO: Self;
    const ONE: Self;

    fn is_zero(&self) -> bool;
    /// Whether every limb is zero: the same as `is_zero` for reduced
    /// values, while a lazily reduced zero may also be `p`. For identity
    /// tests of points whose identity is only ever made of exact zeros
    /// (it is cheaper: no comparison with `p`).
    #[inline(always)]
    fn is_zero_limbs(&self) -> bool {
        self.is_zero()
    }
    /// The same element with canonical limbs (a lazily reduced field's
    /// values may exceed `p` in registers; memory always holds these).
    #[inline(always)]
    fn reduced(self) -> Self {
        self
    }
    fn double(&self) -> Self;
    fn square(&self) -> Self;
    /// Whether [`Self::mul2`] costs less than two products and an
    /// addition: formulas then use it (and order their values for it).
    const FUSED_MUL2: bool = false;

    /// `self · b + c · d`; a field with a cheaper fused form (one
    /// reduction for both products) overrides it and sets [`Self::FUSED_MUL2`].
    #[inline(always)]
    fn mul2(self, b: Self, c: Self, d: Self) -> Self {
        self * b + c * d
    }

    /// Multiplicative inverse; zero maps to zero so callers need no `Option`
    /// (which would otherwise drag panic paths into kernels via `unwrap`).
    fn inverse(&self) -> Self;
}
