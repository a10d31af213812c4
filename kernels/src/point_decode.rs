//! Points as bellperson's parameter files hold them, decoded into blst's
//! affine layout and checked.
//!
//! The file format is zcash's uncompressed encoding: each coordinate as 48
//! big-endian bytes (G2: `c1` before `c0`), the first byte's top three bits
//! being flags (compressed, infinity, sort). An uncompressed point of a
//! parameter query has all three clear: bellperson refuses the point at
//! infinity there. A G1 point is 96 bytes and a G2 point 192, exactly the
//! size of blst's affine layout, so a point is decoded where it lies.
//!
//! A problem is packed with the point's index as `index · 4 + problem`, so
//! that the smallest key names the first bad point (`fetch_min`).

use crate::ec::curves::{G1Affine, G1Config, G2Affine, G2Config};
use crate::ec::xyzz::Xyzz;
use crate::ff::limbs::{is_zero_limbs, sub_limbs};
use crate::ff::{Field, Fp, Fp2, FpConfig, FpLazy, MontConfig};

/// The point at infinity (the infinity flag and nothing else).
pub const PROBLEM_IDENTITY: u64 = 0;
/// Other flags set, or a coordinate not below p.
pub const PROBLEM_ENCODING: u64 = 1;
/// Not on the curve.
pub const PROBLEM_OFF_CURVE: u64 = 2;
/// On the curve, not in the prime-order subgroup.
pub const PROBLEM_SUBGROUP: u64 = 3;
/// No bad point.
pub const NO_PROBLEM: u64 = u64::MAX;

/// Words of one encoded (and decoded) G1 point.
pub const G1_WORDS: usize = 12;
/// Words of one encoded (and decoded) G2 point.
pub const G2_WORDS: usize = 24;

/// Words of the subgroup checks' constants: the cube root of unity β of
/// G1's endomorphism, then the two Fp2 factors of G2's ψ (Montgomery
/// limbs, blst's order). The host derives them (`cuzk::subgroup`).
pub const SUBGROUP_CONSTANT_WORDS: usize = 6 + 12 + 12;

/// |z|, the BLS12-381 parameter's magnitude (z itself is negative).
const Z_ABS: u64 = 0xd201_0000_0001_0000;

/// 48 big-endian bytes, as six words lie in memory (little-endian
/// loads), as little-endian limbs of the integer they encode.
#[inline(always)]
fn be_limbs(words: &[u64]) -> [u64; 6] {
    let mut limbs = [0u64; 6];
    for j in 0..6 {
        limbs[j] = words[5 - j].swap_bytes();
    }
    limbs
}

/// The field element of canonical limbs, or `None` if they are not below p.
#[inline(always)]
fn canonical(limbs: &[u64; 6]) -> Option<FpLazy> {
    let (_, borrow) = sub_limbs(limbs, &FpConfig::MODULUS);
    if borrow == 0 {
        return None;
    }
    Some(FpLazy::from_mont(Fp::from_canonical(limbs)))
}

/// The flags of an encoded point (the top three bits of its first byte)
/// and its first coordinate without them; a flag set is a problem.
#[inline(always)]
fn strip_flags(first: &mut [u64; 6], rest_zero: bool) -> Result<(), u64> {
    let flags = first[5] >> 61;
    first[5] &= (1 << 61) - 1;
    match flags {
        0 => Ok(()),
        0b010 if rest_zero && is_zero_limbs(first) => Err(PROBLEM_IDENTITY),
        _ => Err(PROBLEM_ENCODING),
    }
}

/// Decodes one encoded G1 point.
#[inline(always)]
pub fn decode_g1(raw: &[u64; G1_WORDS]) -> Result<G1Affine, u64> {
    let mut x = be_limbs(&raw[0..6]);
    let y = be_limbs(&raw[6..12]);
    strip_flags(&mut x, is_zero_limbs(&y))?;
    let (Some(x), Some(y)) = (canonical(&x), canonical(&y)) else {
        return Err(PROBLEM_ENCODING);
    };
    on_curve(G1Affine::new(x, y))
}

/// Decodes one encoded G2 point (`x.c1, x.c0, y.c1, y.c0` in the file).
#[inline(always)]
pub fn decode_g2(raw: &[u64; G2_WORDS]) -> Result<G2Affine, u64> {
    let mut x1 = be_limbs(&raw[0..6]);
    let x0 = be_limbs(&raw[6..12]);
    let y1 = be_limbs(&raw[12..18]);
    let y0 = be_limbs(&raw[18..24]);
    strip_flags(&mut x1, is_zero_limbs(&x0) && is_zero_limbs(&y1) && is_zero_limbs(&y0))?;
    let (Some(x0), Some(x1), Some(y0), Some(y1)) = (canonical(&x0), canonical(&x1), canonical(&y0), canonical(&y1)) else {
        return Err(PROBLEM_ENCODING);
    };
    on_curve(G2Affine::new(Fp2::new(x0, x1), Fp2::new(y0, y1)))
}

/// `p` if it satisfies the curve equation (`(0, 0)`, which the affine
/// layout reads as the identity, does not).
#[inline(always)]
fn on_curve<C: crate::ec::curves::CurveConfig>(p: crate::ec::affine::Affine<C>) -> Result<crate::ec::affine::Affine<C>, u64> {
    if p.y.square() == p.x.square() * p.x + C::B {
        Ok(p)
    } else {
        Err(PROBLEM_OFF_CURVE)
    }
}

/// `[|z|] p`, most significant bit first. Out of line: the loop is long
/// and G2's formulas are large.
#[inline(never)]
fn times_z_abs<C: crate::ec::curves::CurveConfig>(p: Xyzz<C>) -> Xyzz<C> {
    let mut acc = p;
    let mut bit = 63;
    while bit > 0 {
        bit -= 1;
        acc = acc.double();
        if (Z_ABS >> bit) & 1 == 1 {
            acc = acc.add(&p);
        }
    }
    acc
}

/// Whether `q` (extended Jacobian) is the affine point `(x, y)`; the
/// identity is not.
#[inline(always)]
fn is_point<C: crate::ec::curves::CurveConfig>(q: &Xyzz<C>, x: C::Base, y: C::Base) -> bool {
    !q.is_identity() && q.x == x * q.zz && q.y == y * q.zzz
}

/// G1 membership of a point on the curve (Scott, "A note on group
/// membership tests for G1, G2 and GT on BLS pairing-friendly curves",
/// 2021): `φ(P) = −[z²] P` with `φ(x, y) = (β x, y)`, β the cube root of
/// unity whose eigenvalue is −z².
#[inline(always)]
pub fn g1_in_subgroup(p: &G1Affine, beta: FpLazy) -> bool {
    let q = times_z_abs(times_z_abs(Xyzz::<G1Config>::from_affine(p)));
    is_point(&q, beta * p.x, -p.y)
}

/// G2 membership of a point on the curve (same note): `ψ(P) = [z] P`, i.e.
/// `ψ(P) = −[|z|] P`, with `ψ(x, y) = (c_x · x̄, c_y · ȳ)`.
#[inline(always)]
pub fn g2_in_subgroup(p: &G2Affine, c_x: Fp2, c_y: Fp2) -> bool {
    let q = times_z_abs(Xyzz::<G2Config>::from_affine(p));
    is_point(&q, c_x * p.x.conjugate(), -(c_y * p.y.conjugate()))
}
