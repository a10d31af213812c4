//! Lazily reduced field elements: Montgomery limbs below `2p` instead of
//! `p`. A multiplication then skips its final conditional subtraction (18
//! of an Fr multiplication's ≈ 220 SASS instructions, 26 of an Fp one's
//! ≈ 450); additions cost the same as reduced ones.
//!
//! Two uses: the NTT's butterflies (Fr; a lazy value is multiplied only by
//! reduced twiddles and scales, since `r` leaves too little room for two
//! lazy factors) and the curve formulas (Fp, where `4p < R`: lazy times
//! lazy is fine, so [`Lazy`] is a whole [`Field`] there). A separate type,
//! so a value that may be `>= p` is never stored unreduced by accident:
//! [`Limbs::store`] reduces, equality and `is_zero` compare residues. (The
//! NTT's passes inside a transform store and load raw lazy limbs on purpose,
//! through `ntt::io::{store_lazy, load_lazy}`.)

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use super::field::Field;
use super::mont::{Mont, MontConfig};
use crate::mem::{load_array, load_array_readonly, Limbs};

/// Limbs `< 2p`, congruent to the value they stand for.
#[repr(transparent)]
pub struct Lazy<P, const N: usize>(Mont<P, N>);

impl<P: MontConfig<N>, const N: usize> Lazy<P, N> {
    /// A reduced element, as a lazy one.
    #[inline(always)]
    pub const fn from_mont(v: Mont<P, N>) -> Self {
        Lazy(v)
    }

    /// The raw limbs (`< 2p`), e.g. to store between stages.
    #[inline(always)]
    pub fn limbs(&self) -> [u64; N] {
        self.0.limbs
    }

    /// Wraps limbs `< 2p` (from [`Self::limbs`]).
    #[inline(always)]
    pub fn from_limbs(limbs: [u64; N]) -> Self {
        Lazy(Mont::from_raw(limbs))
    }

    /// Whether [`Self::mul4`] takes one reduction for its four products.
    pub const FUSED_MUL4: bool = P::FUSED_MUL4;

    /// `self·b + c·d + e·f + g·h` (see [`MontConfig::mont_mul4_lazy`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn mul4(self, b: Self, c: Self, d: Self, e: Self, f: Self, g: Self, h: Self) -> Self {
        let () = P::LAZY_PRODUCTS;
        let l = |x: &Self| x.0.limbs;
        Self::from_limbs(P::mont_mul4_lazy(
            &l(&self),
            &l(&b),
            &l(&c),
            &l(&d),
            &l(&e),
            &l(&f),
            &l(&g),
            &l(&h),
        ))
    }

    /// The fully reduced element.
    #[inline(always)]
    pub fn reduce(self) -> Mont<P, N> {
        // `mod_add` subtracts p once unless that borrows: a full reduction
        // of any value below 2p, in the target's carry chains.
        Mont::from_raw(P::mod_add(&self.0.limbs, &[0; N]))
    }

    /// `self · w`, fully reduced (no separate reduction needed).
    #[inline(always)]
    pub fn mul_reduce(self, w: Mont<P, N>) -> Mont<P, N> {
        Mont::from_raw(P::mont_mul_from_lazy(&self.0.limbs, &w.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> From<Mont<P, N>> for Lazy<P, N> {
    #[inline(always)]
    fn from(v: Mont<P, N>) -> Self {
        Lazy(v)
    }
}

impl<P: MontConfig<N>, const N: usize> Add for Lazy<P, N> {
    type Output = Self;

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Self::from_limbs(P::add_lazy(&self.0.limbs, &rhs.0.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> Sub for Lazy<P, N> {
    type Output = Self;

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Self::from_limbs(P::sub_lazy(&self.0.limbs, &rhs.0.limbs))
    }
}

/// By a reduced factor only (twiddles, scales).
impl<P: MontConfig<N>, const N: usize> Mul<Mont<P, N>> for Lazy<P, N> {
    type Output = Self;

    #[inline(always)]
    fn mul(self, rhs: Mont<P, N>) -> Self {
        Self::from_limbs(P::mont_mul_lazy(&self.0.limbs, &rhs.limbs))
    }
}

impl<P, const N: usize> Clone for Lazy<P, N> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<P, const N: usize> Copy for Lazy<P, N> {}

/// Lazy times lazy: `a, b < 2p` give `a·b < 4p² < p·R` when `4p < R`, so
/// the product is `< 2p` (Fp: `R ≈ 9.8 p`; not Fr, `R ≈ 2.2 r`).
impl<P: MontConfig<N>, const N: usize> Mul for Lazy<P, N> {
    type Output = Self;

    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        let () = P::LAZY_PRODUCTS;
        Self::from_limbs(P::mont_mul_lazy(&self.0.limbs, &rhs.0.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> Neg for Lazy<P, N> {
    type Output = Self;

    /// `0 − a`: `2p − a`, or 0 for `a = 0`.
    #[inline(always)]
    fn neg(self) -> Self {
        Self::from_limbs(P::sub_lazy(&[0; N], &self.0.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> PartialEq for Lazy<P, N> {
    /// Equality of residues.
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.reduce() == other.reduce()
    }
}

impl<P: MontConfig<N>, const N: usize> Eq for Lazy<P, N> {}

impl<P: MontConfig<N>, const N: usize> Field for Lazy<P, N> {
    const ZERO: Self = Lazy(Mont::ZERO);
    const ONE: Self = Lazy(Mont::ONE);

    #[inline(always)]
    fn reduced(self) -> Self {
        Lazy(self.reduce())
    }

    #[inline(always)]
    fn is_zero_limbs(&self) -> bool {
        super::limbs::is_zero_limbs(&self.0.limbs)
    }

    /// Zero is `0` or `p`.
    #[inline(always)]
    fn is_zero(&self) -> bool {
        let l = &self.0.limbs;
        super::limbs::is_zero_limbs(l) || super::limbs::eq_limbs(l, &P::MODULUS)
    }

    #[inline(always)]
    fn double(&self) -> Self {
        *self + *self
    }

    #[inline(always)]
    fn square(&self) -> Self {
        let () = P::LAZY_PRODUCTS;
        Self::from_limbs(P::mont_square_lazy(&self.0.limbs))
    }

    const FUSED_MUL2: bool = P::FUSED_MUL2;

    #[inline(always)]
    fn mul2(self, b: Self, c: Self, d: Self) -> Self {
        let () = P::LAZY_PRODUCTS;
        Self::from_limbs(P::mont_mul2_lazy(&self.0.limbs, &b.0.limbs, &c.0.limbs, &d.0.limbs))
    }

    /// Of the reduced value (inversions are rare: conversions to affine).
    #[inline(always)]
    fn inverse(&self) -> Self {
        Lazy(self.reduce().inverse())
    }
}

/// Loads are reduced already; stores reduce, so memory only ever holds
/// reduced values (what blst and the host expect).
impl<P: MontConfig<N>, const N: usize> Limbs for Lazy<P, N> {
    const LIMBS: usize = N;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        Self::from_limbs(load_array(src))
    }

    #[inline(always)]
    unsafe fn load_readonly(src: *const u64) -> Self {
        Self::from_limbs(load_array_readonly(src))
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        self.reduce().store(dst)
    }
}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl<P, const N: usize> fmt::Debug for Lazy<P, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lazy({:?})", self.0)
    }
}
