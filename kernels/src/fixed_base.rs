//! Fixed-base multiplication, `s · G` for many scalars and one base, as a
//! Groth16 setup needs for every query: a table of G's multiples per
//! window of the scalar's bits, one mixed addition per nonzero window, then
//! the results made affine in batches (one inversion per batch) and encoded
//! as bellperson's parameter file holds them.
//!
//! Table layout: window k covers bits `k·w .. (k+1)·w` of the canonical
//! scalar; its entries are `d · 2^(k·w) · G` for `d = 1 .. 2^w − 1`, at
//! index `k · (2^w − 1) + d − 1`, in blst's affine layout.

use crate::ec::affine::Affine;
use crate::ec::curves::CurveConfig;
use crate::ec::xyzz::Xyzz;
use crate::ff::Field;
use crate::mem::Limbs;

/// Bits of a BLS12-381 scalar.
pub const SCALAR_BITS: u32 = 255;

/// Windows of `bits` bits that cover a scalar.
#[inline(always)]
pub const fn windows(bits: u32) -> u32 {
    // A divisor that cannot be zero: no division-by-zero panic path in
    // the kernels (0 bits is no table at all).
    SCALAR_BITS.div_ceil(if bits == 0 { 1 } else { bits })
}

/// Table entries per window.
#[inline(always)]
pub const fn entries_per_window(bits: u32) -> usize {
    (1usize << bits) - 1
}

/// Window `k` of a canonical little-endian scalar (`bits` ≤ 32).
#[inline(always)]
pub fn digit(scalar: &[u64; 4], k: u32, bits: u32) -> u32 {
    let at = k * bits;
    // `& 3`: the words are in range (`at` < 255), and the mask says so
    // without a bounds check's panic path in the kernel.
    let (word, shift) = ((at / 64) as usize & 3, at % 64);
    let mut v = scalar[word] >> shift;
    if shift + bits > 64 && word < 3 {
        v |= scalar[(word + 1) & 3] << (64 - shift);
    }
    (v & ((1u64 << bits) - 1)) as u32
}

/// `s · G` from `table` (see the module docs), XYZZ.
///
/// # Safety
/// `table` must hold `windows(bits) · entries_per_window(bits)` affine
/// points that no thread writes meanwhile.
#[inline(always)]
pub unsafe fn fixed_base<C: CurveConfig>(table: *const u64, bits: u32, scalar: &[u64; 4]) -> Xyzz<C> {
    let per_window = entries_per_window(bits);
    let mut acc = Xyzz::<C>::IDENTITY;
    for k in 0..windows(bits) {
        let d = digit(scalar, k, bits) as usize;
        if d != 0 {
            let at = table.add((k as usize * per_window + d - 1) * Affine::<C>::LIMBS);
            acc = acc.add_affine(&Affine::<C>::load_readonly(at));
        }
    }
    acc
}

/// Points `0 .. n` of `xyzz` (consecutive XYZZ points) made affine with one
/// inversion for all of them (Montgomery's trick over ZZZ; the identity
/// stays the identity), each passed to `emit(i, point)`. `scratch` holds
/// `n` base-field elements.
///
/// `x = X / ZZ` and `y = Y / ZZZ`, and `ZZ^3 = ZZZ^2` gives
/// `1 / ZZ = ZZ^2 / ZZZ^2`: only ZZZ is inverted.
///
/// # Safety
/// `xyzz` must hold `n` points and `scratch` room for `n` elements of the
/// base field, neither overlapping the other.
#[inline(always)]
pub unsafe fn batch_to_affine<C: CurveConfig>(xyzz: *const u64, n: usize, scratch: *mut u64, mut emit: impl FnMut(usize, Affine<C>)) {
    let base = C::Base::LIMBS;
    let point = Xyzz::<C>::LIMBS;
    // Prefix products of the ZZZ that are not zero.
    let mut acc = C::Base::ONE;
    for i in 0..n {
        let p = Xyzz::<C>::load(xyzz.add(i * point));
        acc.reduced().store(scratch.add(i * base));
        if !p.is_identity() {
            acc = acc * p.zzz;
        }
    }
    let mut inv = acc.inverse();
    for i in (0..n).rev() {
        let p = Xyzz::<C>::load(xyzz.add(i * point));
        if p.is_identity() {
            emit(i, Affine::IDENTITY);
            continue;
        }
        let before = C::Base::load(scratch.add(i * base));
        let zzz_inv = inv * before;
        inv = inv * p.zzz;
        let zz_inv = p.zz.square() * zzz_inv.square();
        emit(i, Affine::new((p.x * zz_inv).reduced(), (p.y * zzz_inv).reduced()));
    }
}
