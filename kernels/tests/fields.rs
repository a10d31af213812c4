//! Fr, Fp and Fp2 element-wise kernels (host builds) against blstrs,
//! bit-exact on Montgomery limbs.

mod common;

use common::fields::{
    check_binary, check_unary, invert_or_zero, unary_inputs, P_MODULUS, R_MODULUS,
};
use common::{assert_same_limbs, run_unary, seeded_rng};
use cuzk_kernels::gpu::elementwise as k;
use ff::Field;

use blstrs::{Fp, Fp2, Scalar};

macro_rules! field_tests {
    ($F:ty: $add:ident, $sub:ident, $mul:ident, $sqr:ident, $neg:ident, $dbl:ident, $inv:ident) => {
        #[test]
        fn $add() {
            check_binary::<$F>(stringify!($add), k::$add, |a, b| a + b);
        }

        #[test]
        fn $sub() {
            check_binary::<$F>(stringify!($sub), k::$sub, |a, b| a - b);
        }

        #[test]
        fn $mul() {
            check_binary::<$F>(stringify!($mul), k::$mul, |a, b| a * b);
        }

        #[test]
        fn $sqr() {
            check_unary::<$F>(stringify!($sqr), k::$sqr, |a| a.square());
        }

        #[test]
        fn $neg() {
            check_unary::<$F>(stringify!($neg), k::$neg, |a| -a);
        }

        #[test]
        fn $dbl() {
            check_unary::<$F>(stringify!($dbl), k::$dbl, |a| a.double());
        }

        #[test]
        fn $inv() {
            check_unary::<$F>(stringify!($inv), k::$inv, invert_or_zero);
        }
    };
}

field_tests!(Scalar: fr_add, fr_sub, fr_mul, fr_sqr, fr_neg, fr_dbl, fr_inv);
field_tests!(Fp: fp_add, fp_sub, fp_mul, fp_sqr, fp_neg, fp_dbl, fp_inv);
field_tests!(Fp2: fp2_add, fp2_sub, fp2_mul, fp2_sqr, fp2_neg, fp2_dbl, fp2_inv);

#[test]
fn fp2_mul2() {
    check_binary::<Fp2>("fp2_mul2", k::fp2_mul2, |x, y| x * y + (x + y) * (x - y));
}

fn scalar_canonical(x: &Scalar) -> [u64; 4] {
    let bytes = x.to_bytes_le();
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

fn fp_canonical(x: &Fp) -> [u64; 6] {
    let bytes = x.to_bytes_le();
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

#[test]
fn fr_to_mont() {
    let (mut rng, seed) = seeded_rng("fr_to_mont");
    let expected = unary_inputs::<Scalar>(&mut rng);
    let canonical: Vec<[u64; 4]> = expected.iter().map(scalar_canonical).collect();
    let got: Vec<Scalar> = run_unary(k::fr_to_mont, &canonical);
    assert_same_limbs("fr_to_mont", seed, &got, &expected, |i| {
        format!("{:x?}", canonical[i])
    });
}

#[test]
fn fr_from_mont() {
    let (mut rng, seed) = seeded_rng("fr_from_mont");
    let input = unary_inputs::<Scalar>(&mut rng);
    let expected: Vec<[u64; 4]> = input.iter().map(scalar_canonical).collect();
    let got: Vec<[u64; 4]> = run_unary(k::fr_from_mont, &input);
    assert_same_limbs("fr_from_mont", seed, &got, &expected, |i| {
        format!("{:?}", input[i])
    });
}

#[test]
fn fp_to_mont() {
    let (mut rng, seed) = seeded_rng("fp_to_mont");
    let expected = unary_inputs::<Fp>(&mut rng);
    let canonical: Vec<[u64; 6]> = expected.iter().map(fp_canonical).collect();
    let got: Vec<Fp> = run_unary(k::fp_to_mont, &canonical);
    assert_same_limbs("fp_to_mont", seed, &got, &expected, |i| {
        format!("{:x?}", canonical[i])
    });
}

#[test]
fn fp_from_mont() {
    let (mut rng, seed) = seeded_rng("fp_from_mont");
    let input = unary_inputs::<Fp>(&mut rng);
    let expected: Vec<[u64; 6]> = input.iter().map(fp_canonical).collect();
    let got: Vec<[u64; 6]> = run_unary(k::fp_from_mont, &input);
    assert_same_limbs("fp_from_mont", seed, &got, &expected, |i| {
        format!("{:?}", input[i])
    });
}

/// The constants the arithmetic is built from, checked against blstrs and
/// the moduli written out in the tests.
#[test]
fn montgomery_constants_match_blstrs() {
    use cuzk_kernels::ff::{FpConfig, FrConfig, MontConfig};

    assert_eq!(FrConfig::MODULUS, R_MODULUS);
    assert_eq!(FpConfig::MODULUS, P_MODULUS);
    assert_eq!(
        FrConfig::INV.wrapping_mul(R_MODULUS[0]),
        u64::MAX,
        "INV * r = -1 mod 2^64"
    );
    assert_eq!(
        FpConfig::INV.wrapping_mul(P_MODULUS[0]),
        u64::MAX,
        "INV * p = -1 mod 2^64"
    );
    assert_eq!(common::as_limbs(&[Scalar::ONE]), FrConfig::R);
    assert_eq!(common::as_limbs(&[Fp::ONE]), FpConfig::R);
    // R2 is R in Montgomery form, i.e. the canonical value R mod p.
    let r_canonical: Scalar = Option::from(Scalar::from_u64s_le(&FrConfig::R)).unwrap();
    assert_eq!(common::as_limbs(&[r_canonical]), FrConfig::R2);
    let r_canonical: Fp = Option::from(Fp::from_u64s_le(&FpConfig::R)).unwrap();
    assert_eq!(common::as_limbs(&[r_canonical]), FpConfig::R2);
}
