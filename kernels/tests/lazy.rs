//! Lazily reduced arithmetic (`ff::Lazy`, values below `2p`) against
//! blstrs, host build: results stay below `2p`, reduce to blstrs' values,
//! and do reach `[p, 2p)` (so the tests exercise the unreduced range).

mod common;

use common::fields::{edge_integers, scalar_from_mont_limbs, P_MODULUS, R_MODULUS};
use common::seeded_rng;
use cuzk_kernels::ff::limbs::{add_limbs, sub_limbs};
use cuzk_kernels::ff::{Lazy, Mont, MontConfig};
use rand::Rng;

/// `a < b` on little-endian limbs.
fn below<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    sub_limbs(a, b).1 != 0
}

/// A value below `2p`: a reduced `x` or `x + p`, and the reduced `x`.
fn lazy_pair<const N: usize>(x: [u64; N], modulus: [u64; N], lift: bool) -> ([u64; N], [u64; N]) {
    if lift {
        (add_limbs(&x, &modulus).0, x)
    } else {
        (x, x)
    }
}

/// Operands: edge integers and random ones, each also lifted by `p`, plus `2p − 1`.
fn operands<const N: usize>(modulus: [u64; N], rng: &mut impl Rng) -> Vec<([u64; N], [u64; N])> {
    let mut reduced = edge_integers(modulus);
    for _ in 0..3000 {
        let mut l: [u64; N] = std::array::from_fn(|_| rng.gen());
        l[N - 1] %= modulus[N - 1];
        reduced.push(l);
    }
    let mut out: Vec<_> = reduced
        .iter()
        .flat_map(|&x| [lazy_pair(x, modulus, false), lazy_pair(x, modulus, true)])
        .filter(|(lz, _)| below(lz, &add_limbs(&modulus, &modulus).0))
        .collect();
    let p_minus_1 = sub_limbs(&modulus, &{
        let mut one = [0u64; N];
        one[0] = 1;
        one
    })
    .0;
    out.push((add_limbs(&modulus, &p_minus_1).0, p_minus_1));
    out
}

/// Every lazy operation of field `P` on all operand pairs, against the
/// reduced operations `reference` (`mul`, `add`, `sub` on reduced limbs).
fn check<P: MontConfig<N>, const N: usize>(
    name: &str,
    modulus: [u64; N],
    reference: impl Fn(&str, [u64; N], [u64; N]) -> [u64; N],
) {
    let (mut rng, _) = seeded_rng(name);
    let ops = operands(modulus, &mut rng);
    let twice = add_limbs(&modulus, &modulus).0;
    let mut reached_upper = [0usize; 3];
    let step = 1 + ops.len() / 400;
    for (i, &(a, a_red)) in ops.iter().enumerate() {
        for &(b, b_red) in ops.iter().skip(i % step).step_by(step) {
            let lazy = |v: [u64; N]| Lazy::<P, N>::from_limbs(v);
            let results = [
                ("mul", (lazy(a) * Mont::<P, N>::from_raw(b_red)).limbs()),
                ("add", (lazy(a) + lazy(b)).limbs()),
                ("sub", (lazy(a) - lazy(b)).limbs()),
            ];
            for (k, (op, got)) in results.into_iter().enumerate() {
                assert!(below(&got, &twice), "{name} {op}: {got:x?} not below 2p ({a:x?}, {b:x?})");
                let want = reference(op, a_red, b_red);
                assert_eq!(Lazy::<P, N>::from_limbs(got).reduce().limbs, want, "{name} {op} ({a:x?}, {b:x?})");
                reached_upper[k] += !below(&got, &modulus) as usize;
            }
            let full = lazy(a).mul_reduce(Mont::from_raw(b_red)).limbs;
            assert_eq!(full, reference("mul", a_red, b_red), "{name} mul_reduce ({a:x?}, {b:x?})");
        }
    }
    // The unreduced range is reached, or these tests would not test it.
    assert!(reached_upper.iter().all(|&n| n > 0), "{name}: results in [p, 2p) per op: {reached_upper:?}");
}

#[test]
fn fr_lazy_against_blstrs() {
    use cuzk_kernels::ff::FrConfig;
    check::<FrConfig, 4>("fr_lazy", R_MODULUS, |op, a, b| {
        let (a, b) = (scalar_from_mont_limbs(a), scalar_from_mont_limbs(b));
        let r = match op {
            "mul" => a * b,
            "add" => a + b,
            _ => a - b,
        };
        common::as_limbs(&[r]).try_into().unwrap()
    });
}

#[test]
fn fp_lazy_against_blstrs() {
    use cuzk_kernels::ff::FpConfig;
    check::<FpConfig, 6>("fp_lazy", P_MODULUS, |op, a, b| {
        let (a, b) = (blstrs::Fp::from_raw_unchecked(a), blstrs::Fp::from_raw_unchecked(b));
        let r = match op {
            "mul" => a * b,
            "add" => a + b,
            _ => a - b,
        };
        common::as_limbs(&[r]).try_into().unwrap()
    });
}
