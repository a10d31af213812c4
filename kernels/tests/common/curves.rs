//! Point inputs and blstrs-side conversions for the curve kernel tests.
//!
//! XYZZ buffers are built and interpreted with blstrs field arithmetic only,
//! so the tests never use the crate's own formulas to judge its results.

use std::fmt::Debug;

use ff::Field as _;
use group::{Curve, Group};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::fields::TestField;
use super::Pod;

/// A blstrs group the curve kernels are checked against.
pub trait TestCurve: 'static {
    type Base: TestField + PartialEq;
    type Projective: Pod + PartialEq + Curve<AffineRepr = Self::Affine>;
    type Affine: Pod + Debug + std::ops::Neg<Output = Self::Affine> + group::prime::PrimeCurveAffine;

    fn projective(x: Self::Base, y: Self::Base, z: Self::Base) -> Self::Projective;
    fn xyz(p: &Self::Projective) -> [Self::Base; 3];
    fn is_on_curve(p: &Self::Affine) -> bool;
}

pub struct G1;
pub struct G2;

impl TestCurve for G1 {
    type Base = blstrs::Fp;
    type Projective = blstrs::G1Projective;
    type Affine = blstrs::G1Affine;

    fn projective(x: blstrs::Fp, y: blstrs::Fp, z: blstrs::Fp) -> blstrs::G1Projective {
        blstrs::G1Projective::from_raw_unchecked(x, y, z)
    }

    fn xyz(p: &blstrs::G1Projective) -> [blstrs::Fp; 3] {
        [p.x(), p.y(), p.z()]
    }

    fn is_on_curve(p: &blstrs::G1Affine) -> bool {
        p.is_on_curve().into()
    }
}

impl TestCurve for G2 {
    type Base = blstrs::Fp2;
    type Projective = blstrs::G2Projective;
    type Affine = blstrs::G2Affine;

    fn projective(x: blstrs::Fp2, y: blstrs::Fp2, z: blstrs::Fp2) -> blstrs::G2Projective {
        blstrs::G2Projective::from_raw_unchecked(x, y, z)
    }

    fn xyz(p: &blstrs::G2Projective) -> [blstrs::Fp2; 3] {
        [p.x(), p.y(), p.z()]
    }

    fn is_on_curve(p: &blstrs::G2Affine) -> bool {
        p.is_on_curve().into()
    }
}

/// XYZZ point as the kernels store it: `[X, Y, ZZ, ZZZ]`.
pub type Xyzz<C> = [<C as TestCurve>::Base; 4];

/// `n` pseudo-random points with varied Jacobian `Z`: a walk adding a few
/// hashed-to-curve base points, far cheaper than hashing every point.
pub fn random_points<C: TestCurve>(rng: &mut ChaCha8Rng, n: usize) -> Vec<C::Projective> {
    let bases: Vec<C::Projective> = (0..8).map(|_| C::Projective::random(&mut *rng)).collect();
    let mut current = bases[0];
    (0..n)
        .map(|_| {
            current = if rng.gen_range(0..32) == 0 {
                current.double()
            } else {
                current + bases[rng.gen_range(0..bases.len())]
            };
            current
        })
        .collect()
}

pub fn random_nonzero<F: TestField>(rng: &mut ChaCha8Rng) -> F {
    loop {
        let v = F::random(&mut *rng);
        if !bool::from(v.is_zero()) {
            return v;
        }
    }
}

/// XYZZ of `p` after rescaling its Jacobian `Z` by `lambda`, so the same point
/// reaches the kernels in many different representations.
pub fn to_xyzz<C: TestCurve>(p: &C::Projective, lambda: C::Base) -> Xyzz<C> {
    let [x, y, z] = C::xyz(p);
    if bool::from(z.is_zero()) {
        return [C::Base::ZERO; 4];
    }
    let lambda2 = lambda.square();
    let (x, y, z) = (x * lambda2, y * lambda2 * lambda, z * lambda);
    let zz = z.square();
    [x, y, zz, zz * z]
}

pub fn to_xyzz_random<C: TestCurve>(p: &C::Projective, rng: &mut ChaCha8Rng) -> Xyzz<C> {
    // Keep some Z = 1 inputs too: that is what bucket accumulation starts from.
    let lambda = if rng.gen_range(0..8) == 0 {
        C::Base::ONE
    } else {
        random_nonzero(rng)
    };
    to_xyzz::<C>(p, lambda)
}

/// The point an XYZZ value stands for, or why it is malformed.
pub fn from_xyzz<C: TestCurve>(v: &Xyzz<C>) -> Result<C::Projective, String> {
    let [x, y, zz, zzz] = *v;
    if bool::from(zzz.is_zero()) {
        return if bool::from(zz.is_zero()) {
            Ok(C::Projective::identity())
        } else {
            Err("ZZZ = 0 but ZZ != 0".into())
        };
    }
    if zz.square() * zz != zzz.square() {
        return Err("ZZ^3 != ZZZ^2".into());
    }
    // Jacobian Z = ZZZ: then Z^2 = ZZ^3 and Z^3 = ZZZ^3.
    Ok(C::projective(x * zz.square(), y * zzz.square(), zzz))
}
