//! The constants of the GPU's subgroup checks
//! (`cuzk_kernels::point_decode`), derived with blstrs and checked on the
//! generators rather than written down.

use std::sync::OnceLock;

use blstrs::{Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_kernels::point_decode::SUBGROUP_CONSTANT_WORDS;
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};

/// |z|, the BLS12-381 parameter's magnitude (z is negative).
const Z_ABS: u64 = 0xd201_0000_0001_0000;

/// β, then ψ's `c_x` and `c_y`, as Montgomery limbs in blst's order.
pub(crate) fn subgroup_constants() -> &'static [u64; SUBGROUP_CONSTANT_WORDS] {
    static CONSTANTS: OnceLock<[u64; SUBGROUP_CONSTANT_WORDS]> = OnceLock::new();
    CONSTANTS.get_or_init(derive)
}

fn derive() -> [u64; SUBGROUP_CONSTANT_WORDS] {
    let third = p_minus_one_over(3);
    let half = p_minus_one_over(2);
    let z_abs = Scalar::from(Z_ABS);

    // β: of the two cube roots of unity other than 1, the one that acts on
    // G1 as −z².
    let g1 = G1Affine::generator();
    let minus_z2 = -(G1Projective::generator() * (z_abs * z_abs)).to_affine();
    let root = (2u64..).map(|g| Fp::from(g).pow_vartime(third)).find(|w| *w != Fp::ONE).unwrap_or(Fp::ONE);
    let beta = [root, root.square()]
        .into_iter()
        .find(|b| G1Affine::from_raw_unchecked(g1.x() * b, g1.y(), false) == minus_z2)
        .expect("one cube root of unity acts on G1 as −z²");

    // ψ(x, y) = (c_x · x̄, c_y · ȳ), which acts on G2 as z.
    let u_plus_1 = Fp2::new(Fp::ONE, Fp::ONE);
    let c_x = u_plus_1.pow_vartime(third).invert().unwrap();
    let c_y = u_plus_1.pow_vartime(half).invert().unwrap();
    let conjugate = |a: Fp2| Fp2::new(a.c0(), -a.c1());
    let g2 = G2Affine::generator();
    let psi = G2Affine::from_raw_unchecked(c_x * conjugate(g2.x()), c_y * conjugate(g2.y()), false);
    assert!(psi == -(G2Projective::generator() * z_abs).to_affine(), "ψ acts on G2 as z");

    let mut words = [0u64; SUBGROUP_CONSTANT_WORDS];
    words[..6].copy_from_slice(&fp_limbs(beta));
    for (k, c) in [c_x, c_y].into_iter().enumerate() {
        words[6 + 12 * k..][..6].copy_from_slice(&fp_limbs(c.c0()));
        words[12 + 12 * k..][..6].copy_from_slice(&fp_limbs(c.c1()));
    }
    words
}

/// An element's Montgomery limbs, as blst holds them.
fn fp_limbs(a: Fp) -> [u64; 6] {
    // SAFETY: Fp is repr(transparent) over blst_fp, six u64 limbs.
    unsafe { std::mem::transmute::<Fp, [u64; 6]>(a) }
}

/// (p − 1) / d as little-endian limbs, d dividing p − 1.
fn p_minus_one_over(d: u64) -> [u64; 6] {
    let bytes = (-Fp::ONE).to_bytes_le();
    let mut limbs = [0u64; 6];
    for (i, chunk) in bytes.chunks(8).enumerate() {
        limbs[i] = u64::from_le_bytes(chunk.try_into().unwrap());
    }
    let mut rem = 0u128;
    for limb in limbs.iter_mut().rev() {
        let cur = (rem << 64) | *limb as u128;
        *limb = (cur / d as u128) as u64;
        rem = cur % d as u128;
    }
    limbs
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_kernels::ec::curves::{G1Affine as KG1, G2Affine as KG2};
    use cuzk_kernels::ff::{Fp2 as KFp2, FpLazy};
    use cuzk_kernels::mem::Limbs;
    use cuzk_kernels::point_decode::{g1_in_subgroup, g2_in_subgroup};
    use rand::SeedableRng;

    fn constants() -> (FpLazy, KFp2, KFp2) {
        let c = subgroup_constants();
        // SAFETY: the slices hold the words each type loads.
        unsafe { (FpLazy::load(c.as_ptr()), KFp2::load(c[6..].as_ptr()), KFp2::load(c[18..].as_ptr())) }
    }

    /// A point on the curve with x = `x` or a later x, not necessarily in
    /// the subgroup.
    fn on_curve_g1(mut x: Fp) -> G1Affine {
        loop {
            let y2 = x.square() * x + Fp::from(4);
            if let Some(y) = Option::<Fp>::from(y2.sqrt()) {
                return G1Affine::from_raw_unchecked(x, y, false);
            }
            x += Fp::ONE;
        }
    }

    fn on_curve_g2(mut x: Fp2) -> G2Affine {
        loop {
            let y2 = x.square() * x + Fp2::new(Fp::from(4), Fp::from(4));
            if let Some(y) = Option::<Fp2>::from(y2.sqrt()) {
                return G2Affine::from_raw_unchecked(x, y, false);
            }
            x += Fp2::ONE;
        }
    }

    #[test]
    fn the_checks_agree_with_blst_on_members_and_non_members() {
        let (beta, c_x, c_y) = constants();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut g1_outside, mut g2_outside) = (0, 0);
        for _ in 0..16 {
            let member = G1Projective::random(&mut rng).to_affine();
            // SAFETY: blstrs' affine points have the kernels' layout.
            let k: KG1 = unsafe { KG1::load((&member as *const G1Affine).cast()) };
            assert!(g1_in_subgroup(&k, beta));
            let other = on_curve_g1(Fp::random(&mut rng));
            assert!(bool::from(other.is_on_curve()));
            let k: KG1 = unsafe { KG1::load((&other as *const G1Affine).cast()) };
            assert_eq!(g1_in_subgroup(&k, beta), bool::from(other.is_torsion_free()));
            g1_outside += usize::from(!bool::from(other.is_torsion_free()));

            let member = G2Projective::random(&mut rng).to_affine();
            let k: KG2 = unsafe { KG2::load((&member as *const G2Affine).cast()) };
            assert!(g2_in_subgroup(&k, c_x, c_y));
            let other = on_curve_g2(Fp2::random(&mut rng));
            assert!(bool::from(other.is_on_curve()));
            let k: KG2 = unsafe { KG2::load((&other as *const G2Affine).cast()) };
            assert_eq!(g2_in_subgroup(&k, c_x, c_y), bool::from(other.is_torsion_free()));
            g2_outside += usize::from(!bool::from(other.is_torsion_free()));
        }
        // Random points on the curve are almost never in the subgroup.
        assert!(g1_outside >= 15 && g2_outside >= 15, "{g1_outside} {g2_outside}");
    }
}
