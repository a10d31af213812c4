//! Prime fields in Montgomery form, generic over the modulus.

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Add, Mul, Neg, Sub};

use super::field::Field;
use super::window_exp::{pow_windowed, window_schedule, WindowSchedule};
use super::limbs::{
    adc, add_limbs, eq_limbs, is_zero_limbs, mac, select, sub_limbs, sub_small, unrolled_for,
    MAX_UNROLLED_LIMBS,
};
use crate::mem::{load_array, load_array_readonly, store_array, Limbs};

/// Constants of one prime field in Montgomery form with `R = 2^(64 N)`.
///
/// A field is only its constants; all arithmetic lives in [`Mont`].
pub trait MontConfig<const N: usize>: 'static {
    /// `p`, little-endian limbs.
    const MODULUS: [u64; N];
    /// `-p^-1 mod 2^64`.
    const INV: u64;
    /// `R mod p`, i.e. one in Montgomery form.
    const R: [u64; N];
    /// `R^2 mod p`, multiplying by it converts canonical values into Montgomery form.
    const R2: [u64; N];

    /// Fermat exponent for inversion.
    const MODULUS_MINUS_TWO: [u64; N] = sub_small(Self::MODULUS, 2);

    /// The carry-free CIOS multiplication and the single-subtraction `add`
    /// both need the top bit of the modulus clear (and the top limb not
    /// `0x7fff..ff`); the multiplication is unrolled for at most
    /// `MAX_UNROLLED_LIMBS`. Referenced from the arithmetic so an unsupported
    /// modulus fails to compile instead of computing wrong values.
    const SUPPORTED: () =
        assert!(N >= 1 && N <= MAX_UNROLLED_LIMBS && Self::MODULUS[N - 1] < (u64::MAX >> 1));

    /// Montgomery product `a * b / R mod p`.
    ///
    /// This is the one place every multiplication of this field goes through,
    /// so a target-specific implementation (e.g. inline PTX on nvptx) can
    /// override it per field without touching the generic code.
    #[inline(always)]
    fn mont_mul(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        cios_mul(a, b, &Self::MODULUS, Self::INV)
    }

    /// Montgomery square `a * a / R mod p`; a target may override it with
    /// a squaring that computes each cross product once.
    #[inline(always)]
    fn mont_square(a: &[u64; N]) -> [u64; N] {
        Self::mont_mul(a, a)
    }

    /// `a + b mod p` for reduced `a`, `b`; a target may override it with
    /// hardware carry chains.
    #[inline(always)]
    fn mod_add(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        add_then_reduce(a, b, &Self::MODULUS)
    }

    /// `a - b mod p` for reduced `a`, `b`; a target may override it with
    /// hardware borrow chains.
    #[inline(always)]
    fn mod_sub(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        sub_then_wrap(a, b, &Self::MODULUS)
    }

    /// `2p`, the bound of lazily reduced values ([`super::lazy::Lazy`]);
    /// below `2^(64N)` by [`Self::SUPPORTED`].
    const TWICE_MODULUS: [u64; N] = double_limbs(Self::MODULUS);

    /// Montgomery product without the final subtraction: `a < 2p`, `b < p`
    /// (or both `< 2p`, see [`Self::LAZY_PRODUCTS`]), result `< 2p` and
    /// congruent to `a·b/R`.
    #[inline(always)]
    fn mont_mul_lazy(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        cios_mul_lazy(a, b, &Self::MODULUS, Self::INV)
    }

    /// [`Self::mont_mul_lazy`] of `a` by itself, for `a < 2p`.
    #[inline(always)]
    fn mont_square_lazy(a: &[u64; N]) -> [u64; N] {
        Self::mont_mul_lazy(a, a)
    }

    /// Lazy values may multiply each other (`a, b < 2p`, result `< 2p`)
    /// only when `4p < R`: `a·b < 4p² < p·R`. Referenced from that product,
    /// so using it for a field without the room fails to compile.
    const LAZY_PRODUCTS: () = assert!(Self::MODULUS[N - 1] < (1 << 62));

    /// The reduced Montgomery product of `a < 2p` and `b < p` (a target
    /// whose `mont_mul` already allows `a < 2p` overrides it with that).
    #[inline(always)]
    fn mont_mul_from_lazy(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        reduce_once(&Self::mont_mul_lazy(a, b), &Self::MODULUS)
    }

    /// Whether [`Self::mont_mul2_lazy`] is cheaper than its two products
    /// and an addition (one reduction for both), so formulas that can use
    /// it should. The curve code orders its operations by this.
    const FUSED_MUL2: bool = false;

    /// `(a·b + c·d)/R`, congruent, `< 2p`, for `a, b, c, d < 2p` (as
    /// [`Self::mont_mul_lazy`] of lazy values, [`Self::LAZY_PRODUCTS`]).
    #[inline(always)]
    fn mont_mul2_lazy(a: &[u64; N], b: &[u64; N], c: &[u64; N], d: &[u64; N]) -> [u64; N] {
        Self::add_lazy(&Self::mont_mul_lazy(a, b), &Self::mont_mul_lazy(c, d))
    }

    /// Whether [`Self::mont_mul4_lazy`] is cheaper than two
    /// [`Self::mont_mul2_lazy`] and an addition (one reduction for four
    /// products). Fp2 products' sums use it where this holds.
    const FUSED_MUL4: bool = false;

    /// `(a·b + c·d + e·f + g·h)/R`, congruent, `< 2p`, for operands `< 2p`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn mont_mul4_lazy(
        a: &[u64; N],
        b: &[u64; N],
        c: &[u64; N],
        d: &[u64; N],
        e: &[u64; N],
        f: &[u64; N],
        g: &[u64; N],
        h: &[u64; N],
    ) -> [u64; N] {
        Self::add_lazy(&Self::mont_mul2_lazy(a, b, c, d), &Self::mont_mul2_lazy(e, f, g, h))
    }

    /// `a + b` for `a, b < 2p`, result `< 2p`, congruent mod `p`.
    #[inline(always)]
    fn add_lazy(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        add_then_reduce(a, b, &Self::TWICE_MODULUS)
    }

    /// `a - b` for `a, b < 2p`, result `< 2p`, congruent mod `p`.
    #[inline(always)]
    fn sub_lazy(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        sub_then_wrap(a, b, &Self::TWICE_MODULUS)
    }
}

/// `a + b`, minus `m` once if that does not go negative, for `a, b < m`:
/// the result is `< m`. The sum may carry out of the top limb (`m = 2p`
/// close to `2^(64N)`); then `m` is always subtracted.
#[inline(always)]
fn add_then_reduce<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let (sum, carry) = add_limbs(a, b);
    let (reduced, borrow) = sub_limbs(&sum, m);
    select(carry != 0 || borrow == 0, &reduced, &sum)
}

/// `a − b`, plus `m` if that went negative, for `a, b < m`: the result is `< m`.
#[inline(always)]
fn sub_then_wrap<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let (diff, borrow) = sub_limbs(a, b);
    let (wrapped, _) = add_limbs(&diff, m);
    select(borrow != 0, &wrapped, &diff)
}

/// `2a` for `a < 2^(64N − 1)`.
const fn double_limbs<const N: usize>(a: [u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = N;
    while i > 0 {
        i -= 1;
        out[i] = a[i] << 1 | if i > 0 { a[i - 1] >> 63 } else { 0 };
    }
    out
}

/// CIOS Montgomery multiplication with one extra word of running value, for
/// `a·b < p·R` (`a < 2p` and `b < p`, or both `< 2p` when `4p < R`; the
/// no-carry form above could overflow there: its running value reaches
/// `a + p`). No final subtraction: the result `(a·b + m·p)/R < 2p`.
#[inline(always)]
pub fn cios_mul_lazy<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N], inv: u64) -> [u64; N] {
    let mut t = [0u64; N];
    let mut top = 0u64;
    for i in 0..N {
        let mut carry = 0;
        for j in 0..N {
            let (tj, c) = mac(t[j], a[j], b[i], carry);
            t[j] = tj;
            carry = c;
        }
        let (top_lo, top_hi) = adc(top, carry, 0);
        let m = t[0].wrapping_mul(inv);
        let (_, mut carry) = mac(t[0], m, p[0], 0);
        for j in 1..N {
            let (tj, c) = mac(t[j], m, p[j], carry);
            t[j - 1] = tj;
            carry = c;
        }
        let (last, c) = adc(top_lo, carry, 0);
        t[N - 1] = last;
        top = top_hi + c;
    }
    t
}

/// Coarsely Integrated Operand Scanning Montgomery multiplication, in the
/// "no-carry" variant that is valid when the modulus has a spare top bit
/// (see [`MontConfig::SUPPORTED`]). Result is fully reduced.
#[inline(always)]
pub fn cios_mul<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N], inv: u64) -> [u64; N] {
    let mut t = [0u64; N];
    unrolled_for!(i in 0..N => {
        let (t0, mut carry_ab) = mac(t[0], a[0], b[i], 0);
        let m = t0.wrapping_mul(inv);
        // Low word is zero by choice of `m`; only its carry matters.
        let (_, mut carry_mp) = mac(t0, m, p[0], 0);
        for j in 1..N {
            let (tj, c) = mac(t[j], a[j], b[i], carry_ab);
            carry_ab = c;
            let (shifted, c) = mac(tj, m, p[j], carry_mp);
            carry_mp = c;
            t[j - 1] = shifted;
        }
        t[N - 1] = carry_ab.wrapping_add(carry_mp);
    });
    reduce_once(&t, p)
}

/// Maps `[0, 2p)` to `[0, p)`.
#[inline(always)]
fn reduce_once<const N: usize>(t: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let (reduced, borrow) = sub_limbs(t, p);
    select(borrow == 0, &reduced, t)
}

/// An element of the field described by `P`, stored as `N` little-endian
/// limbs in Montgomery form, always fully reduced (`< p`).
///
/// `repr(transparent)` over `[u64; N]` makes it layout-identical to
/// `blst_fr` / `blst_fp` (and so to `blstrs::Scalar` / `blstrs::Fp`).
#[repr(transparent)]
pub struct Mont<P, const N: usize> {
    pub limbs: [u64; N],
    _config: PhantomData<P>,
}

impl<P: MontConfig<N>, const N: usize> Mont<P, N> {
    pub const ZERO: Self = Self::from_raw([0; N]);
    pub const ONE: Self = Self::from_raw(P::R);

    /// Wraps limbs that are already in Montgomery form; no conversion.
    #[inline(always)]
    pub const fn from_raw(limbs: [u64; N]) -> Self {
        Self {
            limbs,
            _config: PhantomData,
        }
    }

    /// Converts a canonical integer (must be `< p`) into Montgomery form.
    #[inline(always)]
    pub fn from_canonical(value: &[u64; N]) -> Self {
        Self::from_raw(P::mont_mul(value, &P::R2))
    }

    /// The canonical integer this element represents.
    #[inline(always)]
    pub fn to_canonical(&self) -> [u64; N] {
        let mut one = [0u64; N];
        one[0] = 1;
        P::mont_mul(&self.limbs, &one)
    }

    /// The window schedule of `p − 2` ([`Field::inverse`]).
    pub const INVERSE_SCHEDULE: WindowSchedule = window_schedule(&P::MODULUS_MINUS_TWO);

    /// `self^exp` with `exp` as little-endian `u64` limbs (any length).
    // Always inlined: an out-of-line call passes the operands through local memory on nvptx.
    #[inline(always)]
    pub fn pow<const E: usize>(&self, exp: &[u64; E]) -> Self {
        let mut acc = Self::ONE;
        for i in (0..E).rev() {
            for bit in (0..64).rev() {
                acc = acc.square();
                if (exp[i] >> bit) & 1 == 1 {
                    acc = acc * *self;
                }
            }
        }
        acc
    }
}

impl<P: MontConfig<N>, const N: usize> Field for Mont<P, N> {
    const ZERO: Self = Self::ZERO;
    const ONE: Self = Self::ONE;

    #[inline(always)]
    fn is_zero(&self) -> bool {
        is_zero_limbs(&self.limbs)
    }

    #[inline(always)]
    fn double(&self) -> Self {
        *self + *self
    }

    #[inline(always)]
    fn square(&self) -> Self {
        Self::from_raw(P::mont_square(&self.limbs))
    }

    /// Fermat: `a^(p-2)`, by 4-bit windows of odd powers (for Fp about
    /// 381 squarings and 80 multiplications instead of 229); branch-free in
    /// the data.
    #[inline(always)]
    fn inverse(&self) -> Self {
        pow_windowed(*self, &Self::INVERSE_SCHEDULE)
    }
}

impl<P: MontConfig<N>, const N: usize> Add for Mont<P, N> {
    type Output = Self;

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        let () = P::SUPPORTED;
        Self::from_raw(P::mod_add(&self.limbs, &rhs.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> Sub for Mont<P, N> {
    type Output = Self;

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Self::from_raw(P::mod_sub(&self.limbs, &rhs.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> Neg for Mont<P, N> {
    type Output = Self;

    #[inline(always)]
    fn neg(self) -> Self {
        // p - 0 = p is not reduced, so zero must stay zero.
        let (negated, _) = sub_limbs(&P::MODULUS, &self.limbs);
        Self::from_raw(select(self.is_zero(), &self.limbs, &negated))
    }
}

impl<P: MontConfig<N>, const N: usize> Mul for Mont<P, N> {
    type Output = Self;

    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        let () = P::SUPPORTED;
        Self::from_raw(P::mont_mul(&self.limbs, &rhs.limbs))
    }
}

impl<P: MontConfig<N>, const N: usize> Limbs for Mont<P, N> {
    const LIMBS: usize = N;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        Self::from_raw(load_array(src))
    }

    #[inline(always)]
    unsafe fn load_readonly(src: *const u64) -> Self {
        Self::from_raw(load_array_readonly(src))
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        store_array(dst, &self.limbs)
    }
}

// Manual impls: derives would demand `P: Clone` etc. of the marker type.
impl<P, const N: usize> Clone for Mont<P, N> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<P, const N: usize> Copy for Mont<P, N> {}

impl<P, const N: usize> PartialEq for Mont<P, N> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        eq_limbs(&self.limbs, &other.limbs)
    }
}

impl<P, const N: usize> Eq for Mont<P, N> {}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl<P, const N: usize> fmt::Debug for Mont<P, N> {
    /// Raw Montgomery limbs, most significant first, to match hex dumps.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Mont(0x")?;
        for limb in self.limbs.iter().rev() {
            write!(f, "{limb:016x}")?;
        }
        f.write_str(")")
    }
}
