//! Lazily reduced field elements: Montgomery limbs below `2p` instead of
//! `p`, for chains of additions and multiplications by reduced constants
//! (the NTT's butterflies). A multiplication then skips its final
//! conditional subtraction (about 26 of an Fr multiplication's ≈ 220
//! instructions on the GPU); additions cost the same as reduced ones.
//!
//! A separate type, so a value that may be `>= p` is never compared,
//! stored as a result or multiplied by another lazy value (`a, b < 2p`
//! would break the multiplication's bound) by mistake.

use core::ops::{Add, Mul, Sub};

use super::mont::{Mont, MontConfig};

/// Limbs `< 2p`, congruent to the value they stand for.
#[repr(transparent)]
pub struct Lazy<P, const N: usize>(Mont<P, N>);

impl<P: MontConfig<N>, const N: usize> Lazy<P, N> {
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
