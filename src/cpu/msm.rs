//! Multi-scalar multiplication on the CPU with blst's Pippenger.
//!
//! blstrs' own `multi_exp` wants projective bases and converts them to
//! affine on every call; the parameters are already affine, so we hand blst
//! the affine slices directly (blstrs' point types are `repr(transparent)`
//! over blst's).

use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine, MultiPoint};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::PrimeField;
use group::Group;
use rayon::prelude::*;

use crate::witness::density::Density;

/// A scalar in the canonical little-endian byte form blst's MSM reads.
pub type ScalarBytes = [u8; 32];

/// The scalars in blst's byte form, converted in parallel.
pub fn to_bytes(scalars: &[Scalar]) -> Vec<ScalarBytes> {
    scalars.par_iter().map(|s| s.to_repr()).collect()
}

/// The scalars of the variables a query uses, in base order.
pub fn select_dense(density: &Density, scalars: &[ScalarBytes]) -> Vec<ScalarBytes> {
    density.select(scalars).copied().collect()
}

/// `Σ scalars[i]·bases[i]`; `bases` must be at least as long as `scalars`.
pub fn msm_g1(bases: &[G1Affine], scalars: &[ScalarBytes]) -> G1Projective {
    let bases = &bases[..scalars.len()];
    if bases.is_empty() {
        return G1Projective::identity();
    }
    // SAFETY: G1Affine is repr(transparent) over blst_p1_affine.
    let raw: &[blst_p1_affine] = unsafe { std::slice::from_raw_parts(bases.as_ptr().cast(), bases.len()) };
    let sum: blst_p1 = raw.mult(scalars.as_flattened(), 255);
    // SAFETY: G1Projective is repr(transparent) over blst_p1.
    unsafe { std::mem::transmute::<blst_p1, G1Projective>(sum) }
}

/// `Σ scalars[i]·bases[i]` in G2; `bases` must be at least as long as `scalars`.
pub fn msm_g2(bases: &[G2Affine], scalars: &[ScalarBytes]) -> G2Projective {
    let bases = &bases[..scalars.len()];
    if bases.is_empty() {
        return G2Projective::identity();
    }
    // SAFETY: G2Affine is repr(transparent) over blst_p2_affine.
    let raw: &[blst_p2_affine] = unsafe { std::slice::from_raw_parts(bases.as_ptr().cast(), bases.len()) };
    let sum: blst_p2 = raw.mult(scalars.as_flattened(), 255);
    // SAFETY: G2Projective is repr(transparent) over blst_p2.
    unsafe { std::mem::transmute::<blst_p2, G2Projective>(sum) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use rand::SeedableRng;

    fn naive_g1(bases: &[G1Affine], scalars: &[Scalar]) -> G1Projective {
        bases.iter().zip(scalars).map(|(b, s)| G1Projective::from(b) * s).sum()
    }

    #[test]
    fn msm_matches_naive_sum_with_edge_scalars_and_identity_bases() {
        let mut rng = rand_chacha::ChaCha8Rng::from_entropy();
        for n in [0usize, 1, 2, 31, 33, 100] {
            let mut bases: Vec<G1Affine> = (0..n).map(|_| G1Projective::random(&mut rng).into()).collect();
            let mut scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            if n > 3 {
                scalars[0] = Scalar::ZERO;
                scalars[1] = Scalar::ONE;
                scalars[2] = -Scalar::ONE;
                bases[3] = G1Affine::identity();
            }
            let got = msm_g1(&bases, &to_bytes(&scalars));
            assert_eq!(got, naive_g1(&bases, &scalars), "n = {n}");

            let g2: Vec<G2Affine> = (0..n).map(|_| G2Projective::random(&mut rng).into()).collect();
            let want: G2Projective = g2.iter().zip(&scalars).map(|(b, s)| G2Projective::from(b) * s).sum();
            assert_eq!(msm_g2(&g2, &to_bytes(&scalars)), want, "G2 n = {n}");
        }
    }
}
