//! The batch-affine first accumulation level (`msm::batch_affine`) through
//! the whole MSM plan on the host, against blstrs: random inputs at every
//! size up to 300 and at powers of two, and the inputs that make affine
//! addition special (one bucket for every scalar, a point added to itself,
//! a point and its negation, the identity), G1 and G2, with few and many
//! streams per thread so that a step's batch holds one addition or many.

mod common;

use blstrs::Scalar;
use common::curves::{random_points, TestCurve, G1, G2};
use common::msm_host::*;
use common::{seeded_rng, Pod};
use cuzk_kernels::ff::ScalarForm;
use cuzk_kernels::msm::plan::{
    Accumulation, Curve, MsmConfig, MsmIo, MsmPlan, Step, BATCH_AFFINE_THREADS, MSM_BLOCK,
};
use ff::Field;
use group::prime::PrimeCurveAffine;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

fn batch(streams: u32) -> MsmConfig {
    MsmConfig { accumulation: Accumulation::BatchAffine { streams }, ..MsmConfig::default() }
}

/// Streams per thread: one (a batch of one addition), a few, odd counts that
/// leave the last group short, and the default.
fn random_streams(rng: &mut ChaCha8Rng) -> u32 {
    [1, 2, 3, 5, 8, 13, 0][rng.gen_range(0..7)]
}

/// A batch-affine configuration with small windows and chunks, so that
/// runs cross chunk and stream boundaries often.
fn random_config(rng: &mut ChaCha8Rng) -> MsmConfig {
    MsmConfig {
        window_bits: rng.gen_range(1..=9),
        chunk0: rng.gen_range(0..=8),
        chunk: rng.gen_range(4..=6),
        scatter_windows: rng.gen_range(0..=3),
        sort: random_sort(rng),
        ..batch(random_streams(rng))
    }
}

fn check_both<C: MsmCurve>(what: &str, seed: u64, bases: &[C::Affine], scalars: &[Scalar], config: &MsmConfig)
where
    C::Affine: Pod,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    check::<C>(what, seed, bases, scalars, config);
    // The XYZZ level 0 on the same input, as a cross-check of the harness.
    let xyzz = MsmConfig { accumulation: Accumulation::Xyzz, ..*config };
    assert_eq!(
        host_msm::<C>(bases, 0, scalars, None, config),
        host_msm::<C>(bases, 0, scalars, None, &xyzz),
        "{what}: batch-affine and XYZZ level 0 differ (seed {seed})"
    );
}

#[test]
fn g1_every_size_up_to_300_and_powers_of_two() {
    let (mut rng, seed) = seeded_rng("g1_every_size_up_to_300_and_powers_of_two");
    let b = bases::<G1>(&mut rng, 512);
    let sizes = (1..=80).chain((81..=300).step_by(11)).chain([128, 256, 512]);
    for n in sizes {
        let s = scalars(&mut rng, n);
        check::<G1>("batch-affine default", seed, &b[..n], &s, &batch(0));
        let config = random_config(&mut rng);
        check::<G1>("batch-affine small chunks", seed, &b[..n], &s, &config);
    }
}

#[test]
fn g2_sizes_and_powers_of_two() {
    let (mut rng, seed) = seeded_rng("g2_sizes_and_powers_of_two");
    let b = bases::<G2>(&mut rng, 256);
    for n in [1usize, 2, 3, 4, 7, 8, 16, 31, 32, 64, 100, 128, 256] {
        let s = scalars(&mut rng, n);
        check::<G2>("G2 batch-affine default", seed, &b[..n], &s, &batch(0));
        let config = random_config(&mut rng);
        check::<G2>("G2 batch-affine small chunks", seed, &b[..n], &s, &config);
    }
}

/// A named input: bases and scalars.
type Case<C> = (&'static str, Vec<<C as TestCurve>::Affine>, Vec<Scalar>);

/// Bases and scalars that make affine additions special.
fn adversarial<C: TestCurve>(rng: &mut ChaCha8Rng, n: usize) -> Vec<Case<C>>
where
    C::Affine: std::ops::Neg<Output = C::Affine>,
{
    let distinct = affine::<C>(&random_points::<C>(rng, n));
    let p = distinct[0];
    let same = Scalar::random(&mut *rng);
    let mixed_scalars: Vec<Scalar> = scalars(rng, n);
    vec![
        // Every entry of a window in one bucket: one long run per window.
        ("one bucket", distinct.clone(), vec![Scalar::from(5); n]),
        ("one random scalar", distinct.clone(), vec![same; n]),
        // P + P inside a run: doublings, then 2P + P, 3P + P, ...
        ("a point added to itself", vec![p; n], vec![same; n]),
        // P + (−P): the accumulator empties and starts again.
        ("a point and its negation", (0..n).map(|i| if i % 2 == 0 { p } else { -p }).collect(), vec![same; n]),
        ("pairs cancel in pairs", (0..n).map(|i| if i % 4 < 2 { p } else { -p }).collect(), vec![same; n]),
        ("identity bases among points", (0..n).map(|i| if i % 3 == 0 { C::Affine::identity() } else { distinct[i] }).collect(), vec![same; n]),
        ("only identities", vec![C::Affine::identity(); n], mixed_scalars.clone()),
        ("all ones", distinct.clone(), vec![Scalar::ONE; n]),
        ("all r - 1", distinct.clone(), vec![r_minus(1); n]),
        ("repeats, negations and identities", bases::<C>(rng, n), mixed_scalars),
    ]
}

fn adversarial_cases<C: MsmCurve>(test: &str, sizes: &[usize])
where
    C::Affine: Pod + std::ops::Neg<Output = C::Affine>,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    let (mut rng, seed) = seeded_rng(test);
    for &n in sizes {
        for (what, b, s) in adversarial::<C>(&mut rng, n) {
            for streams in [1, 2, 7, 0] {
                check_both::<C>(what, seed, &b, &s, &batch(streams));
                let small = MsmConfig { window_bits: 3, chunk0: 4, chunk: 4, ..batch(streams) };
                check_both::<C>(what, seed, &b, &s, &small);
            }
        }
    }
}

#[test]
fn g1_adversarial_inputs() {
    adversarial_cases::<G1>("g1_adversarial_inputs", &[1, 2, 3, 17, 64, 150]);
}

#[test]
fn g2_adversarial_inputs() {
    adversarial_cases::<G2>("g2_adversarial_inputs", &[1, 2, 5, 33]);
}

#[test]
fn density_and_offset_bases() {
    let (mut rng, seed) = seeded_rng("batch_affine_density_and_offset_bases");
    for n in [1usize, 40, 130] {
        let b = bases::<G1>(&mut rng, n + 7);
        let s = scalars(&mut rng, n);
        let mut words = vec![0u64; n.div_ceil(64)];
        let mut picked = Vec::new();
        for i in 0..n {
            if rng.gen_bool(0.6) {
                words[i / 64] |= 1 << (i % 64);
                picked.push(s[i]);
            }
        }
        let offset = 3;
        let config = random_config(&mut rng);
        let got = host_msm::<G1>(&b, offset, &s, Some(&words), &config);
        let want = naive::<G1>(b[offset..].iter().copied().zip(picked.iter().copied()));
        assert!(got == want, "density n = {n}, {config:?} (seed {seed})");
    }
}

/// The launch and scratch of a batch-affine plan: every group covered,
/// whole blocks, at most `BATCH_AFFINE_THREADS` threads, and the scratch
/// inside the arena, clear of what level 0 reads and writes.
#[test]
fn batch_affine_plan_launch_and_scratch() {
    for (n, curve, streams) in [
        (1usize, Curve::G1, 0),
        (1000, Curve::G2, 3),
        (1 << 20, Curve::G1, 0),
        ((1 << 27) - 1, Curve::G1, 0),
        (1 << 24, Curve::G2, 0),
    ] {
        let plan = MsmPlan::new(n, curve, &batch(streams)).unwrap();
        let xyzz = MsmPlan::new(n, curve, &MsmConfig::default()).unwrap();
        let b = plan.batch.expect("a batch-affine plan");
        assert!(xyzz.batch.is_none());
        assert_eq!(b.groups, plan.threads0.div_ceil(b.per_thread));
        assert_eq!(b.grid % MSM_BLOCK, 0);
        assert!(b.grid <= BATCH_AFFINE_THREADS && b.grid >= b.groups.min(BATCH_AFFINE_THREADS));
        let l = plan.layout;
        let k = (b.grid * b.per_thread) as usize;
        let ends = [
            (l.batch_acc, l.batch_acc + k * curve.affine_limbs()),
            (l.batch_first, l.batch_first + k * curve.affine_limbs()),
            (l.batch_prefix, l.batch_prefix + k * curve.base_limbs()),
            (l.batch_state, l.batch_state + k.div_ceil(2)),
        ];
        let sums_end = l.sums + plan.n_keys as usize * curve.xyzz_limbs();
        for (begin, end) in ends {
            assert!(begin >= sums_end && end <= plan.scratch_words(), "{n} {curve:?}: scratch outside the arena");
        }
        let mut steps = Vec::new();
        let io = MsmIo { bases: 0, n_bases: n as u32, base_offset: 0, scalars: 0, scalar_form: ScalarForm::Montgomery, density: 0, out: 0 };
        plan.steps::<()>(&io, 0, |s| {
            steps.push(s);
            Ok(())
        })
        .unwrap();
        assert!(steps.iter().any(|s| matches!(s, Step::Accumulate0Affine { .. })));
        assert!(!steps.iter().any(|s| matches!(s, Step::Accumulate0 { .. })));
    }
    // A 32 GiB partition's H MSM (13 windows of 20 bits): 6.8 M chunks of
    // 256 entries, 256 a thread, 26,624 threads (under one H200 wave).
    let h = MsmPlan::new((1 << 27) - 1, Curve::G1, &batch(0)).unwrap();
    let b = h.batch.unwrap();
    assert_eq!((h.chunk0, h.threads0, b.per_thread, b.groups, b.grid), (256, 6_815_744, 256, 26_624, 26_624));
}
