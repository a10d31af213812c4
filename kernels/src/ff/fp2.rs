//! `Fp2 = Fp[u] / (u^2 + 1)`, the base field of G2.

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use super::bls12_381::Fp;
use super::field::Field;
use crate::mem::Limbs;

/// `c0 + c1 * u`. `repr(C)` with `c0` first matches `blst_fp2` (and so
/// `blstrs::Fp2`): 12 limbs, Montgomery form.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Fp2 {
    pub c0: Fp,
    pub c1: Fp,
}

impl Fp2 {
    pub const ZERO: Self = Self::new(Fp::ZERO, Fp::ZERO);
    pub const ONE: Self = Self::new(Fp::ONE, Fp::ZERO);

    #[inline(always)]
    pub const fn new(c0: Fp, c1: Fp) -> Self {
        Self { c0, c1 }
    }

    #[inline(always)]
    pub fn conjugate(&self) -> Self {
        Self::new(self.c0, -self.c1)
    }
}

impl Field for Fp2 {
    const ZERO: Self = Self::ZERO;
    const ONE: Self = Self::ONE;

    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.c0.is_zero() && self.c1.is_zero()
    }

    #[inline(always)]
    fn double(&self) -> Self {
        Self::new(self.c0.double(), self.c1.double())
    }

    /// `(c0 + c1)(c0 - c1) + 2 c0 c1 u`: two base multiplications instead of three.
    #[inline(always)]
    fn square(&self) -> Self {
        let real = (self.c0 + self.c1) * (self.c0 - self.c1);
        let imag = (self.c0 * self.c1).double();
        Self::new(real, imag)
    }

    /// `conj(a) / (c0^2 + c1^2)`, since `a * conj(a) = c0^2 + c1^2` is in Fp.
    #[inline(always)]
    fn inverse(&self) -> Self {
        let norm_inv = (self.c0.square() + self.c1.square()).inverse();
        Self::new(self.c0 * norm_inv, -(self.c1 * norm_inv))
    }
}

impl Add for Fp2 {
    type Output = Self;

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Self::new(self.c0 + rhs.c0, self.c1 + rhs.c1)
    }
}

impl Sub for Fp2 {
    type Output = Self;

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Self::new(self.c0 - rhs.c0, self.c1 - rhs.c1)
    }
}

impl Neg for Fp2 {
    type Output = Self;

    #[inline(always)]
    fn neg(self) -> Self {
        Self::new(-self.c0, -self.c1)
    }
}

impl Mul for Fp2 {
    type Output = Self;

    /// Karatsuba: three base multiplications instead of four.
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        let real_product = self.c0 * rhs.c0;
        let imag_product = self.c1 * rhs.c1;
        let cross = (self.c0 + self.c1) * (rhs.c0 + rhs.c1);
        Self::new(
            real_product - imag_product,
            cross - real_product - imag_product,
        )
    }
}

impl Limbs for Fp2 {
    const LIMBS: usize = 2 * Fp::LIMBS;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        Self::new(Fp::load(src), Fp::load(src.add(Fp::LIMBS)))
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        self.c0.store(dst);
        self.c1.store(dst.add(Fp::LIMBS));
    }
}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl fmt::Debug for Fp2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fp2({:?} + {:?}*u)", self.c0, self.c1)
    }
}
