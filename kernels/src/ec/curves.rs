//! BLS12-381 G1 and G2 as short Weierstrass curves `y^2 = x^3 + b` (a = 0).
//!
//! A curve is nothing but its base field and `b`; the point formulas in
//! `affine`, `xyzz` and `jacobian` are generic over it.

use super::affine::Affine;
use super::jacobian::Jacobian;
use super::xyzz::Xyzz;
use crate::ff::{Field, Fp, Fp2, FpLazy};

pub trait CurveConfig: 'static {
    type Base: Field;
    /// The constant term `b`; `a` is zero for every curve here, which the
    /// doubling formulas rely on.
    const B: Self::Base;
}

/// 4 in Montgomery form (blst's `B_E1`).
const FOUR: Fp = Fp::from_raw([
    0xaa270000000cfff3,
    0x53cc0032fc34000a,
    0x478fe97a6b0a807f,
    0xb1d37ebee6ba24d7,
    0x8ec9733bbf78ab2f,
    0x09d645513d83de7e,
]);

/// G1: `y^2 = x^3 + 4` over Fp (lazily reduced: products skip their
/// final subtraction, stores reduce; see `ff::lazy`).
pub struct G1Config;

impl CurveConfig for G1Config {
    type Base = FpLazy;
    const B: FpLazy = FpLazy::from_mont(FOUR);
}

/// G2: `y^2 = x^3 + 4(u + 1)` over Fp2.
pub struct G2Config;

impl CurveConfig for G2Config {
    type Base = Fp2;
    const B: Fp2 = Fp2::new(FpLazy::from_mont(FOUR), FpLazy::from_mont(FOUR));
}

/// Layout-compatible with `blstrs::G1Affine` (`blst_p1_affine`).
pub type G1Affine = Affine<G1Config>;
/// Layout-compatible with `blstrs::G1Projective` (`blst_p1`).
pub type G1Jacobian = Jacobian<G1Config>;
pub type G1Xyzz = Xyzz<G1Config>;

/// Layout-compatible with `blstrs::G2Affine` (`blst_p2_affine`).
pub type G2Affine = Affine<G2Config>;
/// Layout-compatible with `blstrs::G2Projective` (`blst_p2`).
pub type G2Jacobian = Jacobian<G2Config>;
pub type G2Xyzz = Xyzz<G2Config>;
