//! G1 and G2 point kernels (host builds) against blstrs, including the
//! identity on either side, P + P through different representations, and
//! P + (-P).

mod common;

use common::curves::{from_xyzz, random_points, to_xyzz, to_xyzz_random, TestCurve, Xyzz, G1, G2};
use common::{
    as_limbs, run_binary, run_unary, seeded_rng, BinaryKernel, Mismatches, UnaryKernel,
    RANDOM_CASES,
};
use cuzk_kernels::gpu::elementwise as k;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::Rng;

/// Special cases are repeated with fresh points so each one is seen in many
/// representations.
const SPECIAL_REPEATS: usize = 500;

/// Checks XYZZ kernel outputs: well-formed, and the expected point.
fn check_xyzz_results<C: TestCurve>(
    what: &str,
    seed: u64,
    got: &[Xyzz<C>],
    expected: &[C::Projective],
    input: impl Fn(usize) -> String,
) {
    assert_eq!(got.len(), expected.len());
    let mut mismatches = Mismatches::new(what, seed);
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        match from_xyzz::<C>(g) {
            Ok(point) => mismatches.check(point == *e, || {
                format!(
                    "  [{i}] input {}\n    got      {g:?}\n    expected {:?}",
                    input(i),
                    e.to_affine()
                )
            }),
            Err(why) => mismatches.record(|| {
                format!(
                    "  [{i}] input {}\n    malformed output ({why}): {g:?}",
                    input(i)
                )
            }),
        }
    }
    mismatches.finish(got.len());
}

fn affine_of<C: TestCurve>(points: &[C::Projective]) -> Vec<C::Affine> {
    let mut out = vec![C::Affine::identity(); points.len()];
    C::Projective::batch_normalize(points, &mut out);
    out
}

fn check_add_mixed<C: TestCurve>(name: &str, kernel: BinaryKernel) {
    let (mut rng, seed) = seeded_rng(name);
    let p = random_points::<C>(&mut rng, RANDOM_CASES + SPECIAL_REPEATS);
    let q = random_points::<C>(&mut rng, RANDOM_CASES);
    let identity = C::Projective::identity();
    let (mut acc, mut addend) = (Vec::new(), Vec::new());
    for i in 0..RANDOM_CASES {
        acc.push(p[i]);
        addend.push(q[i]);
    }
    for &x in &p[RANDOM_CASES..] {
        for (a, b) in [
            (identity, x),
            (x, identity),
            (identity, identity),
            (x, x),
            (x, -x),
            (-x, x),
        ] {
            acc.push(a);
            addend.push(b);
        }
    }
    let acc_xyzz: Vec<Xyzz<C>> = acc
        .iter()
        .map(|a| to_xyzz_random::<C>(a, &mut rng))
        .collect();
    let addend_affine = affine_of::<C>(&addend);
    let expected: Vec<C::Projective> = acc
        .iter()
        .zip(&addend_affine)
        .map(|(&a, &b)| a + b)
        .collect();
    let got: Vec<Xyzz<C>> = run_binary(kernel, &acc_xyzz, &addend_affine);
    check_xyzz_results::<C>(name, seed, &got, &expected, |i| {
        format!("{:?} + {:?}", acc_xyzz[i], addend_affine[i])
    });
}

fn check_add<C: TestCurve>(name: &str, kernel: BinaryKernel) {
    let (mut rng, seed) = seeded_rng(name);
    let p = random_points::<C>(&mut rng, RANDOM_CASES + SPECIAL_REPEATS);
    let q = random_points::<C>(&mut rng, RANDOM_CASES);
    let identity = C::Projective::identity();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..RANDOM_CASES {
        a.push(to_xyzz_random::<C>(&p[i], &mut rng));
        b.push(to_xyzz_random::<C>(&q[i], &mut rng));
    }
    for &x in &p[RANDOM_CASES..] {
        let same_rep = to_xyzz_random::<C>(&x, &mut rng);
        a.push(same_rep);
        b.push(same_rep);
        for (l, r) in [
            (identity, x),
            (x, identity),
            (identity, identity),
            (x, x),
            (x, -x),
            (-x, x),
        ] {
            // Independent rescalings: equal points with different coordinates.
            a.push(to_xyzz_random::<C>(&l, &mut rng));
            b.push(to_xyzz_random::<C>(&r, &mut rng));
        }
    }
    let decode = |v: &Xyzz<C>| from_xyzz::<C>(v).unwrap();
    let expected: Vec<C::Projective> = a
        .iter()
        .zip(&b)
        .map(|(l, r)| decode(l) + decode(r))
        .collect();
    let got: Vec<Xyzz<C>> = run_binary(kernel, &a, &b);
    check_xyzz_results::<C>(name, seed, &got, &expected, |i| {
        format!("{:?} + {:?}", a[i], b[i])
    });
}

fn check_dbl<C: TestCurve>(name: &str, kernel: UnaryKernel) {
    let (mut rng, seed) = seeded_rng(name);
    let mut points = random_points::<C>(&mut rng, RANDOM_CASES);
    points.extend([C::Projective::identity(); 4]);
    let input: Vec<Xyzz<C>> = points
        .iter()
        .map(|p| to_xyzz_random::<C>(p, &mut rng))
        .collect();
    let expected: Vec<C::Projective> = points.iter().map(|p| p.double()).collect();
    let got: Vec<Xyzz<C>> = run_unary(kernel, &input);
    check_xyzz_results::<C>(name, seed, &got, &expected, |i| format!("{:?}", input[i]));
}

/// Jacobian doubling: blstrs projective points are read as they are.
fn check_dbl_jacobian<C: TestCurve>(name: &str, kernel: UnaryKernel) {
    let (mut rng, seed) = seeded_rng(name);
    let mut points = random_points::<C>(&mut rng, RANDOM_CASES);
    points.extend([C::Projective::identity(); 4]);
    let got: Vec<C::Projective> = run_unary(kernel, &points);
    let mut mismatches = Mismatches::new(name, seed);
    for (i, (g, p)) in got.iter().zip(&points).enumerate() {
        let e = p.double();
        mismatches.check(*g == e && C::is_on_curve(&g.to_affine()), || {
            format!("  [{i}] 2 * {p:?}\n    got {g:?}\n    expected {e:?}")
        });
    }
    mismatches.finish(got.len());
}

fn check_affine_to_xyzz<C: TestCurve>(name: &str, kernel: UnaryKernel) {
    let (mut rng, seed) = seeded_rng(name);
    let mut points = random_points::<C>(&mut rng, RANDOM_CASES);
    points.extend([C::Projective::identity(); 4]);
    let affine = affine_of::<C>(&points);
    let got: Vec<Xyzz<C>> = run_unary(kernel, &affine);
    check_xyzz_results::<C>(name, seed, &got, &points, |i| format!("{:?}", affine[i]));
}

/// The Jacobian output is read directly as a blstrs projective point.
fn check_to_jacobian<C: TestCurve>(name: &str, kernel: UnaryKernel) {
    let (mut rng, seed) = seeded_rng(name);
    let mut points = random_points::<C>(&mut rng, RANDOM_CASES);
    points.extend([C::Projective::identity(); 4]);
    let input: Vec<Xyzz<C>> = points
        .iter()
        .map(|p| to_xyzz_random::<C>(p, &mut rng))
        .collect();
    let got: Vec<C::Projective> = run_unary(kernel, &input);
    let mut mismatches = Mismatches::new(name, seed);
    for (i, (g, e)) in got.iter().zip(&points).enumerate() {
        let ok = g == e && C::is_on_curve(&g.to_affine());
        mismatches.check(ok, || {
            format!(
                "  [{i}] input {:?}\n    got {g:?}\n    expected {e:?}",
                input[i]
            )
        });
        if bool::from(e.is_identity()) {
            // Same bytes as blstrs' own identity, not just an equal point.
            let canonical =
                as_limbs(std::slice::from_ref(g)) == as_limbs(&[C::Projective::identity()]);
            mismatches.check(canonical, || {
                format!("  [{i}] identity not all-zero: {g:?}")
            });
        }
    }
    mismatches.finish(got.len());
}

#[test]
fn g1_add_mixed() {
    check_add_mixed::<G1>("g1_add_mixed", k::g1_add_mixed);
}

#[test]
fn g1_add() {
    check_add::<G1>("g1_add", k::g1_add);
}

#[test]
fn g1_dbl() {
    check_dbl::<G1>("g1_dbl", k::g1_dbl);
}

#[test]
fn g1_dbl_jacobian() {
    check_dbl_jacobian::<G1>("g1_dbl_jacobian", k::g1_dbl_jacobian);
}

#[test]
fn g1_affine_to_xyzz() {
    check_affine_to_xyzz::<G1>("g1_affine_to_xyzz", k::g1_affine_to_xyzz);
}

#[test]
fn g1_to_jacobian() {
    check_to_jacobian::<G1>("g1_to_jacobian", k::g1_to_jacobian);
}

#[test]
fn g2_add_mixed() {
    check_add_mixed::<G2>("g2_add_mixed", k::g2_add_mixed);
}

#[test]
fn g2_add() {
    check_add::<G2>("g2_add", k::g2_add);
}

#[test]
fn g2_dbl() {
    check_dbl::<G2>("g2_dbl", k::g2_dbl);
}

#[test]
fn g2_dbl_jacobian() {
    check_dbl_jacobian::<G2>("g2_dbl_jacobian", k::g2_dbl_jacobian);
}

#[test]
fn g2_affine_to_xyzz() {
    check_affine_to_xyzz::<G2>("g2_affine_to_xyzz", k::g2_affine_to_xyzz);
}

#[test]
fn g2_to_jacobian() {
    check_to_jacobian::<G2>("g2_to_jacobian", k::g2_to_jacobian);
}

/// A long bucket-style accumulation (mixed adds into one XYZZ accumulator,
/// some of them repeating or cancelling the running sum) ends at the same
/// point as blstrs.
#[test]
fn g1_bucket_accumulation() {
    let (mut rng, seed) = seeded_rng("g1_bucket_accumulation");
    let points = random_points::<G1>(&mut rng, 20_000);
    let affine = affine_of::<G1>(&points);
    let mut acc = to_xyzz::<G1>(&blstrs::G1Projective::identity(), ff::Field::ONE);
    let mut expected = blstrs::G1Projective::identity();
    for (i, p) in affine.iter().enumerate() {
        let addend = match rng.gen_range(0..64) {
            0 => expected.to_affine(),  // P + P
            1 => -expected.to_affine(), // P + (-P)
            _ => *p,
        };
        let out: Vec<Xyzz<G1>> = run_binary(k::g1_add_mixed, &[acc], &[addend]);
        acc = out[0];
        expected += addend;
        assert_eq!(from_xyzz::<G1>(&acc), Ok(expected), "step {i}, seed {seed}");
    }
}

/// The batch-affine timing kernels (`bench_g1_affine_batch` and its
/// `_lean` twin, host builds) add as blstrs does: 3 threads × 5 elements, planar accumulators,
/// bases gathered through a shuffled index, two chained passes.
#[test]
fn g1_affine_batch_bench_kernel_adds_like_blstrs() {
    use rand::seq::SliceRandom;
    let (mut rng, seed) = seeded_rng("g1_affine_batch_bench_kernel");
    let (n, k, iters) = (3usize, 5usize, 2u32);
    let total = n * k;
    let random = |rng: &mut rand_chacha::ChaCha8Rng| -> Vec<blstrs::G1Affine> { (0..total).map(|_| blstrs::G1Projective::random(&mut *rng).to_affine()).collect() };
    let (a, bases) = (random(&mut rng), random(&mut rng));
    let mut idx: Vec<u32> = (0..total as u32).collect();
    idx.shuffle(&mut rng);
    let mut planar = vec![0u64; 12 * total];
    for (e, p) in a.iter().enumerate() {
        for (w, limb) in as_limbs(std::slice::from_ref(p)).iter().enumerate() {
            planar[w * total + e] = *limb;
        }
    }
    type Kernel = unsafe fn(*mut u64, *const u64, *const u32, *mut u64, u32, u32, u32);
    let kernels: [(&str, Kernel); 2] = [("bench_g1_affine_batch", cuzk_kernels::gpu::bench::bench_g1_affine_batch), ("bench_g1_affine_batch_lean", cuzk_kernels::gpu::bench::bench_g1_affine_batch_lean)];
    for (name, kernel) in kernels {
        let mut out = planar.clone();
        let mut prefix = vec![0u64; 6 * total];
        // SAFETY: buffers of the sizes the kernel's documentation gives.
        unsafe { kernel(out.as_mut_ptr(), as_limbs(&bases).as_ptr(), idx.as_ptr(), prefix.as_mut_ptr(), n as u32, k as u32, iters) };
        for e in 0..total {
            let q = blstrs::G1Projective::from(bases[idx[e] as usize]);
            let expected = (blstrs::G1Projective::from(a[e]) + q + q).to_affine();
            let got: Vec<u64> = (0..12).map(|w| out[w * total + e]).collect();
            assert_eq!(got, as_limbs(&[expected]), "{name}: element {e} (seed {seed})");
        }
    }
}
