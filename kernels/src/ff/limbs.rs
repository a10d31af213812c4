//! Multi-precision primitives on little-endian `u64` limbs.
//!
//! Everything takes `[u64; N]` with a const `N` so every loop has a
//! compile-time trip count: LLVM fully unrolls them and proves every index in
//! bounds, which keeps the PTX free of local-memory arrays and panic paths.

// Index loops over several arrays at once are the clearest form here.
#![allow(clippy::needless_range_loop)]

/// `a + b + carry`, returning (sum, carry-out).
#[inline(always)]
pub const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a - b - borrow`, returning (difference, borrow-out as 0 or 1).
#[inline(always)]
pub const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128 + borrow as u128);
    (t as u64, (t >> 127) as u64)
}

/// `a + b * c + carry`, returning (low, high). Cannot overflow 128 bits.
#[inline(always)]
pub const fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + (b as u128) * (c as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a + b`, returning the sum and the carry out of the top limb.
#[inline(always)]
pub fn add_limbs<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut carry = 0;
    for i in 0..N {
        (out[i], carry) = adc(a[i], b[i], carry);
    }
    (out, carry)
}

/// `a - b`, returning the difference and the borrow out of the top limb.
#[inline(always)]
pub fn sub_limbs<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut borrow = 0;
    for i in 0..N {
        (out[i], borrow) = sbb(a[i], b[i], borrow);
    }
    (out, borrow)
}

/// Picks `a` when `choose_a` else `b`; written as a per-limb select so the GPU
/// gets predicated moves rather than a divergent branch.
#[inline(always)]
pub fn select<const N: usize>(choose_a: bool, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    for i in 0..N {
        out[i] = if choose_a { a[i] } else { b[i] };
    }
    out
}

/// Limb-wise equality without `[T; N]: PartialEq`, which may lower to a
/// `bcmp` call on nvptx.
#[inline(always)]
pub fn eq_limbs<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    let mut diff = 0;
    for i in 0..N {
        diff |= a[i] ^ b[i];
    }
    diff == 0
}

#[inline(always)]
pub fn is_zero_limbs<const N: usize>(a: &[u64; N]) -> bool {
    let mut acc = 0;
    for i in 0..N {
        acc |= a[i];
    }
    acc == 0
}

/// `a - small` for constant derivation (e.g. the Fermat exponent `p - 2`).
/// Wraps if `a < small`, which never happens for the moduli used here.
pub const fn sub_small<const N: usize>(a: [u64; N], small: u64) -> [u64; N] {
    let mut out = a;
    let mut borrow = small;
    let mut i = 0;
    while i < N {
        let (d, b) = sbb(out[i], borrow, 0);
        out[i] = d;
        borrow = b;
        i += 1;
    }
    out
}

/// Largest limb count `unrolled_for!` expands to.
pub const MAX_UNROLLED_LIMBS: usize = 8;

/// `for $i in 0..$n $body`, expanded textually so `$i` is a constant in each
/// copy. LLVM's unroller gives up on nested limb loops once their bodies get
/// large (e.g. the CIOS outer loop for 6 limbs on nvptx), and a loop index
/// that stays dynamic forces the array it indexes into local memory.
/// `$n` must be a compile-time constant `<= MAX_UNROLLED_LIMBS`; copies with
/// `k >= $n` fold away.
macro_rules! unrolled_for {
    ($i:ident in 0..$n:expr => $body:block) => {
        unrolled_for!(@copies $i, $n, $body, 0 1 2 3 4 5 6 7)
    };
    (@copies $i:ident, $n:expr, $body:block, $($k:literal)*) => {
        $(
            if $k < $n {
                let $i: usize = $k;
                $body
            }
        )*
    };
}
pub(crate) use unrolled_for;
