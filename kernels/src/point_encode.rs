//! Points in bellperson's parameter-file encoding, from blst's affine
//! layout: the inverse of [`crate::point_decode`]. Each coordinate as 48
//! big-endian bytes (G2: `c1` before `c0`); the identity is the infinity
//! flag (`0x40` in the first byte) and zeros, as zcash's uncompressed
//! encoding writes it. Same size as the affine point, so it is encoded
//! where it lies.

use crate::ec::curves::{G1Affine, G2Affine};
use crate::ff::FpLazy;
use crate::point_decode::{G1_WORDS, G2_WORDS};

/// The file's words (little-endian u64s of the big-endian bytes) of one
/// coordinate: the inverse of `point_decode`'s `be_limbs`.
#[inline(always)]
fn be_words(x: FpLazy, out: &mut [u64]) {
    let limbs = x.reduce().to_canonical();
    for j in 0..6 {
        out[5 - j] = limbs[j].swap_bytes();
    }
}

/// The infinity flag, as the first word of a coordinate holds it.
const INFINITY_WORD: u64 = (0b010u64 << 61).swap_bytes();

/// One G1 point, encoded.
#[inline(always)]
pub fn encode_g1(p: &G1Affine) -> [u64; G1_WORDS] {
    let mut out = [0u64; G1_WORDS];
    if p.is_identity() {
        out[0] = INFINITY_WORD;
        return out;
    }
    be_words(p.x, &mut out[0..6]);
    be_words(p.y, &mut out[6..12]);
    out
}

/// One G2 point, encoded (`x.c1, x.c0, y.c1, y.c0`).
#[inline(always)]
pub fn encode_g2(p: &G2Affine) -> [u64; G2_WORDS] {
    let mut out = [0u64; G2_WORDS];
    if p.is_identity() {
        out[0] = INFINITY_WORD;
        return out;
    }
    be_words(p.x.c1, &mut out[0..6]);
    be_words(p.x.c0, &mut out[6..12]);
    be_words(p.y.c1, &mut out[12..18]);
    be_words(p.y.c0, &mut out[18..24]);
    out
}
