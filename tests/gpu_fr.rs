//! The Fr kernels on the GPU against blstrs (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use blstrs::Scalar;
use cuzk::gpu::elementwise::{fr_binary, FrOp};
use ff::{Field, PrimeField};

/// Random values plus 0, 1, r−1, r−2 paired with every edge value.
fn operands(rng: &mut rand_chacha::ChaCha8Rng, random: usize) -> (Vec<Scalar>, Vec<Scalar>) {
    let edges = [Scalar::ZERO, Scalar::ONE, -Scalar::ONE, -Scalar::from(2u64), Scalar::from_u128(1 << 64)];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in edges {
        for y in edges {
            a.push(x);
            b.push(y);
        }
    }
    for _ in 0..random {
        a.push(Scalar::random(&mut *rng));
        b.push(Scalar::random(&mut *rng));
    }
    (a, b)
}

#[test]
fn fr_add_sub_mul_match_blstrs_on_the_gpu() {
    let Some(gpu) = common::gpu_or_skip("fr_add_sub_mul_match_blstrs_on_the_gpu") else { return };
    let mut rng = common::rng();
    // Not a multiple of the block size, so the last block's bounds check runs.
    let (a, b) = operands(&mut rng, 100_003);
    let cases: [(FrOp, fn(&Scalar, &Scalar) -> Scalar); 3] =
        [(FrOp::Add, |x, y| x + y), (FrOp::Sub, |x, y| x - y), (FrOp::Mul, |x, y| x * y)];
    for (op, reference) in cases {
        let got = fr_binary(&gpu, op, &a, &b).expect("kernel");
        assert_eq!(got.len(), a.len());
        for i in 0..a.len() {
            assert_eq!(got[i], reference(&a[i], &b[i]), "{op:?} at {i}: {:?} and {:?}", a[i], b[i]);
            assert!(bool::from(Scalar::from_repr(got[i].to_repr()).is_some()));
        }
        eprintln!("{op:?}: {} values match blstrs", a.len());
    }
}
