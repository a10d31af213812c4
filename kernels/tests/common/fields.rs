//! Field inputs (edge values and random values) and generic kernel checks.

use std::fmt::Debug;

use ff::Field as _;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{
    assert_same_limbs, run_binary, run_unary, seeded_rng, BinaryKernel, Pod, UnaryKernel,
    RANDOM_CASES,
};

/// Moduli written out independently of the crate under test.
pub const R_MODULUS: [u64; 4] = [
    0xffffffff00000001,
    0x53bda402fffe5bfe,
    0x3339d80809a1d805,
    0x73eda753299d7d48,
];
pub const P_MODULUS: [u64; 6] = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

/// A blstrs field type the kernels are checked against.
pub trait TestField: Pod + ff::Field + Debug {
    /// Values that stress carries and the final reduction.
    fn edge_values() -> Vec<Self>;
}

impl TestField for blstrs::Scalar {
    fn edge_values() -> Vec<Self> {
        let ints = edge_integers(R_MODULUS);
        // Each integer both as raw Montgomery limbs (stresses reduction of
        // inputs near r) and as a canonical value converted to Montgomery form.
        let raw = ints.iter().map(|l| scalar_from_mont_limbs(*l));
        let canonical = ints
            .iter()
            .map(|l| Option::from(blstrs::Scalar::from_u64s_le(l)).unwrap());
        raw.chain(canonical).collect()
    }
}

impl TestField for blstrs::Fp {
    fn edge_values() -> Vec<Self> {
        let ints = edge_integers(P_MODULUS);
        let raw = ints.iter().map(|l| blstrs::Fp::from_raw_unchecked(*l));
        let canonical = ints
            .iter()
            .map(|l| Option::from(blstrs::Fp::from_u64s_le(l)).unwrap());
        raw.chain(canonical).collect()
    }
}

impl TestField for blstrs::Fp2 {
    fn edge_values() -> Vec<Self> {
        let fp = blstrs::Fp::edge_values();
        // fp[5] is the raw Montgomery limbs p - 1.
        let few = [blstrs::Fp::ZERO, blstrs::Fp::ONE, fp[5], -blstrs::Fp::ONE];
        let mut out = Vec::new();
        for &c0 in &fp {
            for &c1 in &few {
                out.push(blstrs::Fp2::new(c0, c1));
            }
            out.push(blstrs::Fp2::new(blstrs::Fp::ZERO, c0));
        }
        out
    }
}

/// `blstrs::Scalar` has no public raw-limb constructor; it is
/// `repr(transparent)` over `blst_fr { l: [u64; 4] }`.
pub fn scalar_from_mont_limbs(limbs: [u64; 4]) -> blstrs::Scalar {
    // SAFETY: same size and layout; every value below r is valid.
    unsafe { std::mem::transmute::<[u64; 4], blstrs::Scalar>(limbs) }
}

/// Integers below `modulus` around carry and reduction boundaries.
pub fn edge_integers<const N: usize>(modulus: [u64; N]) -> Vec<[u64; N]> {
    let small = |v: u64| {
        let mut l = [0u64; N];
        l[0] = v;
        l
    };
    let power_of_two = |bit: usize| {
        let mut l = [0u64; N];
        l[bit / 64] = 1 << (bit % 64);
        l
    };
    let top = 64 * (N - 1);
    let values = vec![
        small(0),
        small(1),
        small(2),
        small(3),
        small(u64::MAX),
        sub(modulus, small(1)),
        sub(modulus, small(2)),
        sub(modulus, small(3)),
        half(sub(modulus, small(1))),
        sub(modulus, small(u64::MAX)),
        add(half(modulus), small(1)),
        power_of_two(64),
        power_of_two(top),
        sub(power_of_two(top), small(1)),
        sub(modulus, power_of_two(64)),
        sub(modulus, power_of_two(top)),
    ];
    for v in &values {
        assert!(
            less_than(v, &modulus),
            "edge value not below modulus: {v:x?}"
        );
    }
    values
}

fn add<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut carry = 0u128;
    for i in 0..N {
        let t = a[i] as u128 + b[i] as u128 + carry;
        out[i] = t as u64;
        carry = t >> 64;
    }
    assert_eq!(carry, 0);
    out
}

fn sub<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut borrow = false;
    for i in 0..N {
        let (d1, b1) = a[i].overflowing_sub(b[i]);
        let (d2, b2) = d1.overflowing_sub(borrow as u64);
        out[i] = d2;
        borrow = b1 || b2;
    }
    assert!(!borrow);
    out
}

fn half<const N: usize>(a: [u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    for i in 0..N {
        out[i] = a[i] >> 1 | if i + 1 < N { a[i + 1] << 63 } else { 0 };
    }
    out
}

fn less_than<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    a.iter().rev().cmp(b.iter().rev()).is_lt()
}

/// Every edge value, then `RANDOM_CASES` random values.
pub fn unary_inputs<F: TestField>(rng: &mut ChaCha8Rng) -> Vec<F> {
    let mut values = F::edge_values();
    values.extend((0..RANDOM_CASES).map(|_| F::random(&mut *rng)));
    values
}

/// Every pair of edge values, then `RANDOM_CASES` random pairs, some of them
/// `(a, a)` and `(a, -a)` to hit the zero results, some edge-vs-random.
pub fn binary_inputs<F: TestField>(rng: &mut ChaCha8Rng) -> (Vec<F>, Vec<F>) {
    let edges = F::edge_values();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    for _ in 0..RANDOM_CASES {
        let x = F::random(&mut *rng);
        let y = match rng.gen_range(0..16) {
            0 => x,
            1 => -x,
            2 => edges[rng.gen_range(0..edges.len())],
            _ => F::random(&mut *rng),
        };
        a.push(x);
        b.push(y);
    }
    (a, b)
}

pub fn check_binary<F: TestField>(name: &str, kernel: BinaryKernel, op: impl Fn(F, F) -> F) {
    let (mut rng, seed) = seeded_rng(name);
    let (a, b) = binary_inputs::<F>(&mut rng);
    let got: Vec<F> = run_binary(kernel, &a, &b);
    let expected: Vec<F> = a.iter().zip(&b).map(|(&x, &y)| op(x, y)).collect();
    assert_same_limbs(name, seed, &got, &expected, |i| {
        format!("{:?}, {:?}", a[i], b[i])
    });
}

pub fn check_unary<F: TestField>(name: &str, kernel: UnaryKernel, op: impl Fn(F) -> F) {
    let (mut rng, seed) = seeded_rng(name);
    let a = unary_inputs::<F>(&mut rng);
    let got: Vec<F> = run_unary(kernel, &a);
    let expected: Vec<F> = a.iter().map(|&x| op(x)).collect();
    assert_same_limbs(name, seed, &got, &expected, |i| format!("{:?}", a[i]));
}

/// blstrs' `invert` is `None` for zero; the kernels map zero to zero.
pub fn invert_or_zero<F: ff::Field>(x: F) -> F {
    Option::from(x.invert()).unwrap_or(F::ZERO)
}
