//! Every element-wise arithmetic kernel of the PTX module, run on the GPU
//! and compared with blstrs (skips without a GPU).
//!
//! Fields: 100 000 fresh random operands (pairs) per operation, plus every
//! edge value (pair of edge values for binary operations): 0, 1, 2, 3,
//! 2^64−1, 2^64, m−1, m−2, m−3, (m−1)/2, … each both as raw Montgomery limbs
//! and as a canonical integer, m = r or p. Results must be bit-exact.
//!
//! Curves: 100 000 random points per operation (G1 and G2 alike: points come
//! from a random walk over hashed-to-curve bases, see `random_points`), in
//! several XYZZ representations, plus the identity (canonical all-zero and
//! non-canonical `ZZ = ZZZ = 0`) on either side, P+P (same and different
//! representations), P+(−P) and (−P)+P. XYZZ results are decoded on the host
//! with blstrs arithmetic (`ZZ³ = ZZZ²` checked) *and* converted with the
//! GPU's `g*_to_jacobian`, then compared with `==` against blstrs.
//!
//! Every launch covers a count that is not a multiple of the 256-thread
//! block, so the last block's bounds check runs; outputs start out as
//! all-ones words (see `map_kernel`), so an element left unwritten fails.

#![cfg(feature = "cuda")]

mod common;

use std::fmt::Debug;
use std::mem::size_of;

use blstrs::{Fp, Fp2, Scalar};
use cuzk::gpu::elementwise::map_kernel;
use cuzk::gpu::GpuDevice;
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

const RANDOM_FIELD: usize = 100_000;
/// Random points per curve operation; generating them is cheap (a walk).
const RANDOM_POINTS: usize = 100_000;
/// Fresh points each special case (P+P, P−P, identity, …) is repeated with.
const SPECIAL_POINTS: usize = 500;
const BLOCK: usize = 256;

const R: [u64; 4] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48];
const P: [u64; 6] = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

// ---------------------------------------------------------------------------
// Raw words, launching, reporting

/// Values whose memory is exactly `size_of / 8` little-endian u64 words:
/// blstrs wrappers are `repr(transparent)` over blst's `repr(C)` limb
/// structs (Fp2 = c0, c1; affine = x, y; projective = x, y, z).
///
/// # Safety
/// No padding, size a multiple of 8, alignment 8, any bit pattern allowed.
unsafe trait Words: Copy + Debug {}
unsafe impl Words for Scalar {}
unsafe impl Words for Fp {}
unsafe impl Words for Fp2 {}
unsafe impl Words for blstrs::G1Affine {}
unsafe impl Words for blstrs::G1Projective {}
unsafe impl Words for blstrs::G2Affine {}
unsafe impl Words for blstrs::G2Projective {}
unsafe impl<T: Words, const N: usize> Words for [T; N] {}
unsafe impl Words for u64 {}

fn words<T: Words>(values: &[T]) -> &[u64] {
    assert!(size_of::<T>() % 8 == 0 && std::mem::align_of::<T>() == 8);
    // SAFETY: see `Words`.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), std::mem::size_of_val(values) / 8) }
}

fn from_words<T: Words>(w: &[u64]) -> Vec<T> {
    // SAFETY: see `Words`; a u64 chunk is 8-aligned like T.
    w.chunks_exact(size_of::<T>() / 8).map(|c| unsafe { c.as_ptr().cast::<T>().read_unaligned() }).collect()
}

fn same_words<T: Words>(a: &T, b: &T) -> bool {
    words(std::slice::from_ref(a)) == words(std::slice::from_ref(b))
}

/// Every base-field element in `v` (Fp limbs, or Fp2/point coordinates) is
/// a reduced value `< p`, which the poison pattern is not.
fn reduced_fp<T: Words>(v: &T) -> bool {
    words(std::slice::from_ref(v)).chunks_exact(6).all(|c| c.iter().rev().cmp(P.iter().rev()).is_lt())
}

/// Collects every mismatch of every operation of one test, so one broken
/// kernel does not hide the others; fails at `finish`.
struct Report {
    test: &'static str,
    failures: Vec<String>,
}

impl Report {
    fn new(test: &'static str) -> Self {
        Report { test, failures: Vec::new() }
    }

    /// Runs `kernel` over `n` elements; a launch error is recorded.
    fn run<O: Words>(&mut self, gpu: &GpuDevice, kernel: &str, inputs: &[&[u64]], n: usize) -> Option<Vec<O>> {
        match map_kernel(gpu, kernel, inputs, size_of::<O>() / 8, n) {
            Ok(out) => Some(from_words(&out)),
            Err(e) => {
                self.failures.push(format!("{kernel}: launch failed: {e}"));
                None
            }
        }
    }

    /// `bad(i)` describes element `i` if it is wrong; every element is checked.
    fn check(&mut self, what: &str, n: usize, mut bad: impl FnMut(usize) -> Option<String>) {
        assert!(n % BLOCK != 0, "{what}: {n} elements, a multiple of the block size");
        let (mut count, mut first) = (0, None);
        for i in 0..n {
            if let Some(why) = bad(i) {
                count += 1;
                first.get_or_insert_with(|| format!("[{i}] {why}"));
            }
        }
        match first {
            Some(first) => self.failures.push(format!("{what}: {count} of {n} wrong; first: {first}")),
            None => eprintln!("{what}: {n} elements match blstrs"),
        }
    }

    fn finish(self) {
        assert!(
            self.failures.is_empty(),
            "{}: {} failure(s):\n{}",
            self.test,
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// Pads a list of cases with `extra()` until its length is not a multiple
/// of the block size.
fn off_block<T>(v: &mut Vec<T>, mut extra: impl FnMut() -> T) {
    while v.len() % BLOCK == 0 {
        v.push(extra());
    }
}

// ---------------------------------------------------------------------------
// Fields

trait TestField: Words + Field {
    /// Kernel name prefix.
    const NAME: &'static str;
    fn edges() -> Vec<Self>;
}

/// Integers below `m` around carry and reduction boundaries.
fn edge_integers<const N: usize>(m: [u64; N]) -> Vec<[u64; N]> {
    let small = |v: u64| std::array::from_fn::<u64, N, _>(|i| if i == 0 { v } else { 0 });
    let pow2 = |bit: usize| std::array::from_fn::<u64, N, _>(|i| if i == bit / 64 { 1 << (bit % 64) } else { 0 });
    let sub = |a: [u64; N], b: [u64; N]| {
        let (mut out, mut borrow) = ([0u64; N], false);
        for i in 0..N {
            let (d, b1) = a[i].overflowing_sub(b[i]);
            let (d, b2) = d.overflowing_sub(borrow as u64);
            (out[i], borrow) = (d, b1 || b2);
        }
        assert!(!borrow);
        out
    };
    let half =
        |a: [u64; N]| std::array::from_fn::<u64, N, _>(|i| a[i] >> 1 | if i + 1 < N { a[i + 1] << 63 } else { 0 });
    let top = 64 * (N - 1);
    vec![
        small(0),
        small(1),
        small(2),
        small(3),
        small(u64::MAX),
        pow2(64),
        sub(m, small(1)),
        sub(m, small(2)),
        sub(m, small(3)),
        half(sub(m, small(1))),
        sub(m, small(u64::MAX)),
        sub(m, pow2(64)),
        pow2(top),
        sub(pow2(top), small(1)),
        sub(m, pow2(top)),
    ]
}

impl TestField for Scalar {
    const NAME: &'static str = "fr";
    fn edges() -> Vec<Self> {
        let ints = edge_integers(R);
        // SAFETY: Scalar is repr(transparent) over 4 Montgomery limbs; all are < r.
        let raw = ints.iter().map(|l| unsafe { std::mem::transmute::<[u64; 4], Scalar>(*l) });
        raw.chain(ints.iter().map(|l| Scalar::from_u64s_le(l).unwrap())).collect()
    }
}

impl TestField for Fp {
    const NAME: &'static str = "fp";
    fn edges() -> Vec<Self> {
        let ints = edge_integers(P);
        let raw = ints.iter().map(|l| Fp::from_raw_unchecked(*l));
        raw.chain(ints.iter().map(|l| Fp::from_u64s_le(l).unwrap())).collect()
    }
}

impl TestField for Fp2 {
    const NAME: &'static str = "fp2";
    fn edges() -> Vec<Self> {
        let fp = Fp::edges();
        let few = [Fp::ZERO, Fp::ONE, -Fp::ONE, Fp::from_raw_unchecked(edge_integers(P)[6])];
        let mut out = Vec::new();
        for &c0 in &fp {
            out.extend(few.iter().map(|&c1| Fp2::new(c0, c1)));
            out.push(Fp2::new(Fp::ZERO, c0));
        }
        out
    }
}

/// Every edge value, then random values.
fn unary_inputs<F: TestField>(rng: &mut ChaCha8Rng) -> Vec<F> {
    let mut a = F::edges();
    a.extend((0..RANDOM_FIELD).map(|_| F::random(&mut *rng)));
    off_block(&mut a, || F::random(&mut *rng));
    a
}

/// Every pair of edge values, then random pairs, some `(x, x)`, `(x, −x)`
/// or `(x, edge)`.
fn binary_inputs<F: TestField>(rng: &mut ChaCha8Rng) -> (Vec<F>, Vec<F>) {
    let edges = F::edges();
    let mut pairs: Vec<(F, F)> = edges.iter().flat_map(|&x| edges.iter().map(move |&y| (x, y))).collect();
    for _ in 0..RANDOM_FIELD {
        let x = F::random(&mut *rng);
        let y = match rng.gen_range(0..16) {
            0 => x,
            1 => -x,
            2 => edges[rng.gen_range(0..edges.len())],
            _ => F::random(&mut *rng),
        };
        pairs.push(if rng.gen() { (x, y) } else { (y, x) });
    }
    off_block(&mut pairs, || (F::random(&mut *rng), F::random(&mut *rng)));
    pairs.into_iter().unzip()
}

/// A kernel name suffix and its blstrs reference.
type Binary<F> = (&'static str, fn(F, F) -> F);
type Unary<F> = (&'static str, fn(F) -> F);

fn invert_or_zero<F: Field>(x: F) -> F {
    Option::from(x.invert()).unwrap_or(F::ZERO)
}

/// add, sub, mul, sqr, neg, dbl, inv of `F`, bit-exact against blstrs.
fn check_field<F: TestField>(gpu: &GpuDevice, rng: &mut ChaCha8Rng, report: &mut Report) {
    let (a, b) = binary_inputs::<F>(rng);
    let binary: [Binary<F>; 3] = [("add", |x, y| x + y), ("sub", |x, y| x - y), ("mul", |x, y| x * y)];
    for (op, reference) in binary {
        let kernel = format!("{}_{op}", F::NAME);
        let Some(got) = report.run::<F>(gpu, &kernel, &[words(&a), words(&b)], a.len()) else { continue };
        report.check(&kernel, a.len(), |i| {
            let want = reference(a[i], b[i]);
            (!same_words(&got[i], &want))
                .then(|| format!("{:?}, {:?}: got {:?}, expected {want:?}", a[i], b[i], got[i]))
        });
    }
    let x = unary_inputs::<F>(rng);
    let unary: [Unary<F>; 4] =
        [("sqr", |v| v.square()), ("neg", |v| -v), ("dbl", |v| v.double()), ("inv", invert_or_zero)];
    for (op, reference) in unary {
        let kernel = format!("{}_{op}", F::NAME);
        let Some(got) = report.run::<F>(gpu, &kernel, &[words(&x)], x.len()) else { continue };
        report.check(&kernel, x.len(), |i| {
            let want = reference(x[i]);
            (!same_words(&got[i], &want)).then(|| format!("{:?}: got {:?}, expected {want:?}", x[i], got[i]))
        });
    }
}

/// `{fr,fp}_to_mont` (canonical limbs → Montgomery) and `_from_mont`.
fn check_mont<F: TestField, const N: usize>(
    gpu: &GpuDevice,
    rng: &mut ChaCha8Rng,
    report: &mut Report,
    canonical: fn(&F) -> [u64; N],
) {
    let values = unary_inputs::<F>(rng);
    let ints: Vec<[u64; N]> = values.iter().map(canonical).collect();
    let to = format!("{}_to_mont", F::NAME);
    if let Some(got) = report.run::<F>(gpu, &to, &[words(&ints)], ints.len()) {
        report.check(&to, ints.len(), |i| {
            (!same_words(&got[i], &values[i]))
                .then(|| format!("{:x?}: got {:?}, expected {:?}", ints[i], got[i], values[i]))
        });
    }
    let from = format!("{}_from_mont", F::NAME);
    if let Some(got) = report.run::<[u64; N]>(gpu, &from, &[words(&values)], values.len()) {
        report.check(&from, values.len(), |i| {
            (got[i] != ints[i]).then(|| format!("{:?}: got {:x?}, expected {:x?}", values[i], got[i], ints[i]))
        });
    }
}

fn le_words<const N: usize>(bytes: &[u8]) -> [u64; N] {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

#[test]
fn gpu_fr_kernels_match_blstrs() {
    let Some(gpu) = common::gpu_or_skip("gpu_fr_kernels_match_blstrs") else { return };
    let mut rng = common::rng();
    let mut report = Report::new("gpu_fr_kernels_match_blstrs");
    check_field::<Scalar>(&gpu, &mut rng, &mut report);
    check_mont::<Scalar, 4>(&gpu, &mut rng, &mut report, |s| le_words(&s.to_bytes_le()));
    report.finish();
}

#[test]
fn gpu_fp_kernels_match_blstrs() {
    let Some(gpu) = common::gpu_or_skip("gpu_fp_kernels_match_blstrs") else { return };
    let mut rng = common::rng();
    let mut report = Report::new("gpu_fp_kernels_match_blstrs");
    check_field::<Fp>(&gpu, &mut rng, &mut report);
    check_mont::<Fp, 6>(&gpu, &mut rng, &mut report, |s| le_words(&s.to_bytes_le()));
    report.finish();
}

#[test]
fn gpu_fp2_kernels_match_blstrs() {
    let Some(gpu) = common::gpu_or_skip("gpu_fp2_kernels_match_blstrs") else { return };
    let mut rng = common::rng();
    let mut report = Report::new("gpu_fp2_kernels_match_blstrs");
    check_field::<Fp2>(&gpu, &mut rng, &mut report);
    // The fused sum of products (G2's Y3: four base products, one reduction).
    let (a, b) = binary_inputs::<Fp2>(&mut rng);
    if let Some(got) = report.run::<Fp2>(&gpu, "fp2_mul2", &[words(&a), words(&b)], a.len()) {
        report.check("fp2_mul2", a.len(), |i| {
            let (x, y) = (a[i], b[i]);
            let want = x * y + (x + y) * (x - y);
            (!same_words(&got[i], &want)).then(|| format!("{x:?}, {y:?}: got {:?}, expected {want:?}", got[i]))
        });
    }
    report.finish();
}

// ---------------------------------------------------------------------------
// Curves

trait TestCurve {
    /// Kernel name prefix.
    const NAME: &'static str;
    type Base: TestField;
    type Projective: Words + Curve<AffineRepr = Self::Affine>;
    type Affine: Words + PrimeCurveAffine<Curve = Self::Projective>;
    fn from_xyz(x: Self::Base, y: Self::Base, z: Self::Base) -> Self::Projective;
    fn xyz(p: &Self::Projective) -> [Self::Base; 3];
}

struct G1;
struct G2;

impl TestCurve for G1 {
    const NAME: &'static str = "g1";
    type Base = Fp;
    type Projective = blstrs::G1Projective;
    type Affine = blstrs::G1Affine;
    fn from_xyz(x: Fp, y: Fp, z: Fp) -> Self::Projective {
        blstrs::G1Projective::from_raw_unchecked(x, y, z)
    }
    fn xyz(p: &Self::Projective) -> [Fp; 3] {
        [p.x(), p.y(), p.z()]
    }
}

impl TestCurve for G2 {
    const NAME: &'static str = "g2";
    type Base = Fp2;
    type Projective = blstrs::G2Projective;
    type Affine = blstrs::G2Affine;
    fn from_xyz(x: Fp2, y: Fp2, z: Fp2) -> Self::Projective {
        blstrs::G2Projective::from_raw_unchecked(x, y, z)
    }
    fn xyz(p: &Self::Projective) -> [Fp2; 3] {
        [p.x(), p.y(), p.z()]
    }
}

/// `[X, Y, ZZ, ZZZ]`, the kernels' XYZZ layout.
type Xyzz<C> = [<C as TestCurve>::Base; 4];

/// `n` fresh random points, with varied Jacobian Z. Hashing each one to the
/// curve (`Group::random`) is ~100× slower than an addition, so only 16
/// random bases are hashed and the points are a random walk over them.
fn random_points<C: TestCurve>(rng: &mut ChaCha8Rng, n: usize) -> Vec<C::Projective> {
    let bases: Vec<C::Projective> = (0..16).map(|_| C::Projective::random(&mut *rng)).collect();
    let mut current = bases[0];
    (0..n)
        .map(|_| {
            current = if rng.gen_range(0..32) == 0 { current.double() } else { current + bases[rng.gen_range(0..16)] };
            current
        })
        .collect()
}

fn to_affine<C: TestCurve>(points: &[C::Projective]) -> Vec<C::Affine> {
    let mut out = vec![C::Affine::identity(); points.len()];
    C::Projective::batch_normalize(points, &mut out);
    out
}

fn random_nonzero<F: Field>(rng: &mut ChaCha8Rng) -> F {
    loop {
        let v = F::random(&mut *rng);
        if !bool::from(v.is_zero()) {
            return v;
        }
    }
}

/// XYZZ of `p` built with blstrs arithmetic, its Jacobian Z rescaled by a
/// random λ (λ = 1, i.e. blstrs' own Z, one time in eight); the identity is
/// canonical (all zero) or, half the time, random X, Y with ZZ = ZZZ = 0.
fn to_xyzz<C: TestCurve>(p: &C::Projective, rng: &mut ChaCha8Rng) -> Xyzz<C> {
    let [x, y, z] = C::xyz(p);
    let zero = C::Base::ZERO;
    if bool::from(z.is_zero()) {
        return if rng.gen() {
            [zero; 4]
        } else {
            [C::Base::random(&mut *rng), C::Base::random(&mut *rng), zero, zero]
        };
    }
    let l = if rng.gen_range(0..8) == 0 { C::Base::ONE } else { random_nonzero(rng) };
    let (x, y, z) = (x * l.square(), y * l.square() * l, z * l);
    [x, y, z.square(), z.square() * z]
}

/// XYZZ with ZZ = ZZZ = 1 from an affine point: the bucket start.
fn affine_xyzz<C: TestCurve>(p: &C::Affine) -> Xyzz<C> {
    let [x, y] = from_words::<[C::Base; 2]>(words(std::slice::from_ref(p)))[0];
    if bool::from(p.is_identity()) {
        [C::Base::ZERO; 4]
    } else {
        [x, y, C::Base::ONE, C::Base::ONE]
    }
}

fn neg_xyzz<C: TestCurve>(v: &Xyzz<C>) -> Xyzz<C> {
    [v[0], -v[1], v[2], v[3]]
}

/// The point an XYZZ value stands for, decoded with blstrs arithmetic, or
/// why it is malformed.
fn decode<C: TestCurve>(v: &Xyzz<C>) -> Result<C::Projective, String> {
    let [x, y, zz, zzz] = *v;
    if !reduced_fp(v) {
        return Err("coordinate not reduced below p (unwritten output?)".into());
    }
    if bool::from(zzz.is_zero()) {
        return if bool::from(zz.is_zero()) {
            Ok(C::Projective::identity())
        } else {
            Err("ZZZ = 0 but ZZ ≠ 0".into())
        };
    }
    if zz.square() * zz != zzz.square() {
        return Err("ZZ³ ≠ ZZZ²".into());
    }
    // Jacobian Z = ZZZ: Z² = ZZ³ and Z³ = ZZZ³.
    Ok(C::from_xyz(x * zz.square(), y * zzz.square(), zzz))
}

/// Checks XYZZ outputs of `kernel` twice: decoded on the host, and through
/// the GPU's `to_jacobian` read as blstrs projective points.
fn check_xyzz<C: TestCurve>(
    gpu: &GpuDevice,
    report: &mut Report,
    kernel: &str,
    got: &[Xyzz<C>],
    expected: &[C::Projective],
    input: impl Fn(usize) -> String,
) {
    assert_eq!(got.len(), expected.len());
    report.check(kernel, got.len(), |i| match decode::<C>(&got[i]) {
        Ok(point) if point == expected[i] => None,
        Ok(_) => Some(format!("{}\n  got {:?}\n  expected {:?}", input(i), got[i], expected[i].to_affine())),
        Err(why) => Some(format!("{}\n  malformed output ({why}): {:?}", input(i), got[i])),
    });
    let to_jacobian = format!("{}_to_jacobian", C::NAME);
    if let Some(jac) = report.run::<C::Projective>(gpu, &to_jacobian, &[words(got)], got.len()) {
        report.check(&format!("{kernel} (via {to_jacobian})"), got.len(), |i| {
            (!(reduced_fp(&jac[i]) && jac[i] == expected[i])).then(|| {
                format!(
                    "{}\n  got {:?}\n  as Jacobian {:?}\n  expected {:?}",
                    input(i),
                    got[i],
                    jac[i],
                    expected[i].to_affine()
                )
            })
        });
    }
}

fn check_curve<C: TestCurve>(gpu: &GpuDevice, rng: &mut ChaCha8Rng, report: &mut Report) {
    let name = |op: &str| format!("{}_{op}", C::NAME);
    let identity = C::Projective::identity();
    let p = random_points::<C>(rng, RANDOM_POINTS);
    let q = random_points::<C>(rng, RANDOM_POINTS);
    let special = random_points::<C>(rng, SPECIAL_POINTS);
    let q_aff = to_affine::<C>(&q);

    // affine_to_xyzz: random points and affine identities.
    let mut points = p.clone();
    points.extend([identity; 4]);
    off_block(&mut points, || identity);
    let aff = to_affine::<C>(&points);
    let kernel = name("affine_to_xyzz");
    if let Some(got) = report.run::<Xyzz<C>>(gpu, &kernel, &[words(&aff)], aff.len()) {
        check_xyzz::<C>(gpu, report, &kernel, &got, &points, |i| format!("{:?}", aff[i]));
    }

    // to_jacobian, on its own: XYZZ built on the host in many representations,
    // identities canonical and not; the identity must come back all zero.
    let xyzz: Vec<Xyzz<C>> = points.iter().map(|x| to_xyzz::<C>(x, rng)).collect();
    let kernel = name("to_jacobian");
    if let Some(got) = report.run::<C::Projective>(gpu, &kernel, &[words(&xyzz)], xyzz.len()) {
        report.check(&kernel, got.len(), |i| {
            let ok = reduced_fp(&got[i])
                && got[i] == points[i]
                && (!bool::from(points[i].is_identity()) || words(&got[i..=i]).iter().all(|&w| w == 0));
            (!ok).then(|| format!("{:?}: got {:?}, expected {:?}", xyzz[i], got[i], points[i]))
        });
    }

    // dbl: random points in random representations, and identities.
    let expected: Vec<C::Projective> = points.iter().map(|x| x.double()).collect();
    let kernel = name("dbl");
    if let Some(got) = report.run::<Xyzz<C>>(gpu, &kernel, &[words(&xyzz)], xyzz.len()) {
        check_xyzz::<C>(gpu, report, &kernel, &got, &expected, |i| format!("{:?}", xyzz[i]));
    }

    // dbl_jacobian: the same points as blstrs projective (Jacobian) input.
    let kernel = name("dbl_jacobian");
    if let Some(got) = report.run::<C::Projective>(gpu, &kernel, &[words(&points)], points.len()) {
        report.check(&kernel, got.len(), |i| {
            let ok = reduced_fp(&got[i]) && got[i] == expected[i];
            (!ok).then(|| format!("2 * {:?}: got {:?}, expected {:?}", points[i], got[i], expected[i]))
        });
    }

    // add: random pairs; then for each special point x: x + x (one
    // representation, then two), x + (−x), (−x) + x and the identity on
    // either or both sides (canonical or not, see `to_xyzz`).
    let mut pairs: Vec<(C::Projective, C::Projective)> = p.iter().copied().zip(q.iter().copied()).collect();
    for &x in &special {
        pairs.extend([(x, x), (x, x), (x, -x), (-x, x), (identity, x), (x, identity), (identity, identity)]);
    }
    off_block(&mut pairs, || (identity, special[0]));
    let mut a: Vec<Xyzz<C>> = pairs.iter().map(|(l, _)| to_xyzz::<C>(l, rng)).collect();
    let b: Vec<Xyzz<C>> = pairs.iter().map(|(_, r)| to_xyzz::<C>(r, rng)).collect();
    for (k, _) in special.iter().enumerate() {
        // The first case of each special point, x + x, in one representation.
        let at = RANDOM_POINTS + 7 * k;
        a[at] = b[at];
    }
    let expected: Vec<C::Projective> = pairs.iter().map(|&(l, r)| l + r).collect();
    let kernel = name("add");
    if let Some(got) = report.run::<Xyzz<C>>(gpu, &kernel, &[words(&a), words(&b)], a.len()) {
        check_xyzz::<C>(gpu, report, &kernel, &got, &expected, |i| format!("{:?} + {:?}", a[i], b[i]));
    }

    // add_mixed: the same pairs with an affine right-hand side (the identity
    // as all-zero affine), the left side in random representations.
    let addend = to_affine::<C>(&pairs.iter().map(|&(_, r)| r).collect::<Vec<_>>());
    let kernel = name("add_mixed");
    if let Some(got) = report.run::<Xyzz<C>>(gpu, &kernel, &[words(&a), words(&addend)], a.len()) {
        check_xyzz::<C>(gpu, report, &kernel, &got, &expected, |i| format!("{:?} + {:?}", a[i], addend[i]));
    }
    // ... and with ZZ = ZZZ = 1 on the left, so P + P meets equal coordinates.
    let a1: Vec<Xyzz<C>> =
        to_affine::<C>(&pairs.iter().map(|&(l, _)| l).collect::<Vec<_>>()).iter().map(affine_xyzz::<C>).collect();
    let kernel1 = format!("{kernel} (ZZ = 1)");
    if let Some(got) = report.run::<Xyzz<C>>(gpu, &kernel, &[words(&a1), words(&addend)], a1.len()) {
        check_xyzz::<C>(gpu, report, &kernel1, &got, &expected, |i| format!("{:?} + {:?}", a1[i], addend[i]));
    }

    // Chains on coordinates the GPU made: s = xyzz(p) + q, then 2s, 2s + s,
    // s + s, s + aff(s), s + (−aff(s)), s + (−s), 2s + (−s).
    let n = RANDOM_POINTS + 1;
    assert!(n % BLOCK != 0);
    let (mut pc, mut qc) = (p.clone(), q_aff.clone());
    pc.push(special[0]);
    qc.push(C::Affine::identity());
    let pc_aff = to_affine::<C>(&pc);
    let Some(start) = report.run::<Xyzz<C>>(gpu, &name("affine_to_xyzz"), &[words(&pc_aff)], n) else { return };
    let Some(s) = report.run::<Xyzz<C>>(gpu, &name("add_mixed"), &[words(&start), words(&qc)], n) else { return };
    let sum: Vec<C::Projective> = pc.iter().zip(&qc).map(|(&x, &y)| x + y.to_curve()).collect();
    check_xyzz::<C>(gpu, report, &name("chain: s = xyzz(p) + q"), &s, &sum, |i| {
        format!("{:?} + {:?}", start[i], qc[i])
    });
    let Some(d) = report.run::<Xyzz<C>>(gpu, &name("dbl"), &[words(&s)], n) else { return };
    let twice: Vec<C::Projective> = sum.iter().map(|x| x.double()).collect();
    check_xyzz::<C>(gpu, report, &name("chain: 2s"), &d, &twice, |i| format!("2 * {:?}", s[i]));
    let sum_aff = to_affine::<C>(&sum);
    let neg_sum_aff: Vec<C::Affine> = sum_aff.iter().map(|&x| -x).collect();
    let neg_s: Vec<Xyzz<C>> = s.iter().map(neg_xyzz::<C>).collect();
    let thrice: Vec<C::Projective> = sum.iter().map(|x| x.double() + x).collect();
    let identities = vec![identity; n];
    let cases = [
        ("chain: 2s + s", "add", &d[..], words(&s), &thrice[..]),
        ("chain: s + s", "add", &s[..], words(&s), &twice[..]),
        ("chain: s + aff(s)", "add_mixed", &s[..], words(&sum_aff), &twice[..]),
        ("chain: s + (-aff(s))", "add_mixed", &s[..], words(&neg_sum_aff), &identities[..]),
        ("chain: s + (-s)", "add", &s[..], words(&neg_s), &identities[..]),
        ("chain: 2s + (-s)", "add", &d[..], words(&neg_s), &sum[..]),
    ];
    for (what, op, left, right, expected) in cases {
        if let Some(got) = report.run::<Xyzz<C>>(gpu, &name(op), &[words(left), right], n) {
            let w = right.len() / n;
            check_xyzz::<C>(gpu, report, &name(what), &got, expected, |i| {
                format!("{:?} {op} {:x?}", left[i], &right[i * w..][..w])
            });
        }
    }
}

#[test]
fn gpu_g1_kernels_match_blstrs() {
    let Some(gpu) = common::gpu_or_skip("gpu_g1_kernels_match_blstrs") else { return };
    let mut rng = common::rng();
    let mut report = Report::new("gpu_g1_kernels_match_blstrs");
    check_curve::<G1>(&gpu, &mut rng, &mut report);
    report.finish();
}

#[test]
fn gpu_g2_kernels_match_blstrs() {
    let Some(gpu) = common::gpu_or_skip("gpu_g2_kernels_match_blstrs") else { return };
    let mut rng = common::rng();
    let mut report = Report::new("gpu_g2_kernels_match_blstrs");
    check_curve::<G2>(&gpu, &mut rng, &mut report);
    report.finish();
}

// ---------------------------------------------------------------------------
// The launcher itself

/// map_kernel refuses what could make a kernel leave its buffers, and its
/// poisoned output is really overwritten for the last partial block.
#[test]
fn gpu_map_kernel_checks_its_arguments() {
    let Some(gpu) = common::gpu_or_skip("gpu_map_kernel_checks_its_arguments") else { return };
    let three = [Scalar::ONE; 3];
    let one = words(&three);
    let empty: &[u64] = &[];
    assert!(map_kernel(&gpu, "no_such_kernel", &[one], 4, 3).is_err(), "unknown kernel");
    assert!(map_kernel(&gpu, "add_one", &[one], 4, 3).is_err(), "not an element-wise kernel");
    assert!(map_kernel(&gpu, "fr_add", &[one], 4, 3).is_err(), "missing input");
    assert!(map_kernel(&gpu, "fr_sqr", &[one, one], 4, 3).is_err(), "extra input");
    assert!(map_kernel(&gpu, "fr_sqr", &[one], 6, 3).is_err(), "wrong output width");
    assert!(map_kernel(&gpu, "fr_sqr", &[one], 4, 4).is_err(), "input too short");
    assert!(map_kernel(&gpu, "fr_sqr", &[one], 4, 2).is_err(), "input too long");
    assert_eq!(map_kernel(&gpu, "fr_sqr", &[empty], 4, 0).expect("empty launch"), Vec::<u64>::new());
    // 1, 255, 257 elements: a lone thread, a block short by one, one past a block.
    for n in [1, 255, 257] {
        let x: Vec<Scalar> = (0..n as u64).map(|i| Scalar::from(i + 2)).collect();
        let got: Vec<Scalar> = from_words(&map_kernel(&gpu, "fr_sqr", &[words(&x)], 4, n).expect("fr_sqr"));
        for i in 0..n {
            assert_eq!(got[i], x[i].square(), "fr_sqr of {} elements, at {i}", n);
        }
    }
}
