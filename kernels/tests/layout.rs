//! The crate's types must be bit-compatible with blstrs so host slices can
//! be reinterpreted without conversion.

mod common;

use std::mem::{align_of, size_of, transmute};

use cuzk_kernels::ec::{G1Affine, G1Jacobian, G1Xyzz, G2Affine, G2Jacobian, G2Xyzz};
use cuzk_kernels::ff::{Field, Fp, Fp2, Fr};
use cuzk_kernels::layout::*;
use ff::Field as _;
use group::{Curve, Group};

fn assert_same_layout<Ours, Theirs>() {
    assert_eq!(
        size_of::<Ours>(),
        size_of::<Theirs>(),
        "{}",
        std::any::type_name::<Ours>()
    );
    assert_eq!(
        align_of::<Ours>(),
        align_of::<Theirs>(),
        "{}",
        std::any::type_name::<Ours>()
    );
}

#[test]
fn sizes_and_alignments_match_blstrs() {
    assert_same_layout::<Fr, blstrs::Scalar>();
    assert_same_layout::<Fp, blstrs::Fp>();
    assert_same_layout::<Fp2, blstrs::Fp2>();
    assert_same_layout::<G1Affine, blstrs::G1Affine>();
    assert_same_layout::<G1Jacobian, blstrs::G1Projective>();
    assert_same_layout::<G2Affine, blstrs::G2Affine>();
    assert_same_layout::<G2Jacobian, blstrs::G2Projective>();
}

#[test]
fn limb_counts() {
    assert_eq!(
        [
            FR_LIMBS,
            FP_LIMBS,
            FP2_LIMBS,
            G1_AFFINE_LIMBS,
            G1_JACOBIAN_LIMBS,
            G1_XYZZ_LIMBS
        ],
        [4, 6, 12, 12, 18, 24]
    );
    assert_eq!(
        [G2_AFFINE_LIMBS, G2_JACOBIAN_LIMBS, G2_XYZZ_LIMBS],
        [24, 36, 48]
    );
    assert_eq!(size_of::<G1Xyzz>(), G1_XYZZ_LIMBS * LIMB_BYTES);
    assert_eq!(size_of::<G2Xyzz>(), G2_XYZZ_LIMBS * LIMB_BYTES);
}

#[test]
fn transmuted_scalars_multiply_like_blstrs() {
    let (mut rng, _) = common::seeded_rng("transmuted_scalars_multiply_like_blstrs");
    let a: Vec<blstrs::Scalar> = (0..1000)
        .map(|_| blstrs::Scalar::random(&mut rng))
        .collect();
    let b: Vec<blstrs::Scalar> = (0..1000)
        .map(|_| blstrs::Scalar::random(&mut rng))
        .collect();
    // SAFETY: the point of the test; layouts are asserted equal above.
    let (ours_a, ours_b) = unsafe {
        (
            transmute::<&[blstrs::Scalar], &[Fr]>(&a),
            transmute::<&[blstrs::Scalar], &[Fr]>(&b),
        )
    };
    for i in 0..a.len() {
        let theirs = a[i] * b[i];
        let ours = ours_a[i] * ours_b[i];
        assert_eq!(ours, unsafe { transmute::<blstrs::Scalar, Fr>(theirs) });
    }
    assert_eq!(
        unsafe { transmute::<blstrs::Scalar, Fr>(blstrs::Scalar::ONE) },
        Fr::ONE
    );
}

#[test]
fn transmuted_fp2_multiply_like_blstrs() {
    let (mut rng, _) = common::seeded_rng("transmuted_fp2_multiply_like_blstrs");
    for _ in 0..1000 {
        let (a, b) = (blstrs::Fp2::random(&mut rng), blstrs::Fp2::random(&mut rng));
        // SAFETY: layouts are asserted equal above.
        let ours = unsafe { transmute::<blstrs::Fp2, Fp2>(a) * transmute::<blstrs::Fp2, Fp2>(b) };
        assert_eq!(ours, unsafe { transmute::<blstrs::Fp2, Fp2>(a * b) });
        // c0 first: the real part must be where blstrs keeps it.
        assert_eq!(ours.c0, unsafe {
            cuzk_kernels::ff::FpLazy::from_mont(transmute::<blstrs::Fp, Fp>((a * b).c0()))
        });
    }
}

/// Points round-trip through our types by plain reinterpretation, and our
/// host-side helpers agree with blstrs on them.
#[test]
fn transmuted_points_are_the_same_points() {
    let (mut rng, _) = common::seeded_rng("transmuted_points_are_the_same_points");
    for _ in 0..50 {
        let p = blstrs::G1Projective::random(&mut rng);
        let ours: G1Jacobian = unsafe { transmute(p) };
        let affine: blstrs::G1Affine = unsafe { transmute(ours.to_affine()) };
        assert_eq!(affine, p.to_affine());
        assert!(unsafe { transmute::<blstrs::G1Affine, G1Affine>(p.to_affine()) }.is_on_curve());

        let q = blstrs::G2Projective::random(&mut rng);
        let ours: G2Jacobian = unsafe { transmute(q) };
        let affine: blstrs::G2Affine = unsafe { transmute(ours.to_affine()) };
        assert_eq!(affine, q.to_affine());
        assert!(unsafe { transmute::<blstrs::G2Affine, G2Affine>(q.to_affine()) }.is_on_curve());
    }
    let identity: G1Affine = unsafe { transmute(blstrs::G1Affine::default()) };
    assert!(identity.is_identity() && identity.is_on_curve());
    let identity: G1Jacobian = unsafe { transmute(blstrs::G1Projective::identity()) };
    assert!(identity.is_identity());
}

/// `is_on_curve` must be able to say no, or the checks above prove nothing.
#[test]
fn off_curve_points_are_rejected() {
    let (mut rng, _) = common::seeded_rng("off_curve_points_are_rejected");
    let p: G1Affine = unsafe { transmute(blstrs::G1Projective::random(&mut rng).to_affine()) };
    let moved = G1Affine::new(p.x, p.y + Fp::ONE.into());
    assert!(!moved.is_on_curve());
    let q: G2Affine = unsafe { transmute(blstrs::G2Projective::random(&mut rng).to_affine()) };
    let moved = G2Affine::new(q.x.double(), q.y);
    assert!(!moved.is_on_curve());
}
