//! The MSM pipeline on the host: every step of `msm::plan` run through the
//! host builds of the kernels (sequential "grid", one-lane "warps"), with
//! kernel parameters taken from `Step::args()` exactly as the CUDA driver
//! passes them, against blstrs.
//!
//! The host build runs the kernels one thread at a time, so sizes stay small;
//! the window size, chunk lengths and segment counts are forced to small
//! values instead to reach every path (many windows, multi-level bucket
//! reduction, one segment per bucket, …).

mod common;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use common::curves::{TestCurve, G1, G2};
use common::msm_host::*;
use common::{seeded_rng, Pod};
use cuzk_kernels::ff::ScalarForm;
use cuzk_kernels::gpu::msm as k;
use cuzk_kernels::msm::digits::{general_mont, kind, num_windows, Kind, SignedDigits, WindowLayout, MAX_WINDOW_BITS};
use cuzk_kernels::msm::tables::{TABLE_BATCH, TABLE_SCRATCH_ELEMENTS};
use cuzk_kernels::msm::plan::{
    Accumulation, default_scatter_windows, default_window_bits, default_window_bits_for, msm_scratch_bytes, scan_layout, scan_steps, Curve,
    MsmConfig, MsmIo, MsmPlan, PaddedShape, Sort, Step, SCATTER_CURSOR_BYTES, table_spacing_bits, padded_cap_log, WindowCut,
    fit_chunk0_to_waves, Level0Waves,
};
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve as _, Group};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------
// Tests

#[test]
fn window_counts_leave_room_for_the_signed_carry() {
    assert_eq!(num_windows(1), 256);
    assert_eq!(num_windows(8), 32);
    assert_eq!(num_windows(13), 20);
    assert_eq!(num_windows(15), 18); // 15 · 17 = 255: no spare bit
    assert_eq!(num_windows(16), 16);
    assert_eq!(num_windows(17), 16); // 17 · 15 = 255
    assert_eq!(num_windows(18), 15);
    assert_eq!(default_window_bits(1), 2);
    assert_eq!(default_window_bits(1 << 10), 7);
    assert_eq!(default_window_bits(1 << 16), 12);
    assert_eq!(default_window_bits(1 << 20), 16);
    assert_eq!(default_window_bits(1 << 24), 16);
    assert_eq!(default_window_bits(1 << 25), 18);
    assert_eq!(default_window_bits(1 << 27), 20);
    // Both curves take 20 from 2^24 on (binned), the shared rule below.
    for curve in [Curve::G1, Curve::G2] {
        assert_eq!(default_window_bits_for((1 << 24) - 1, curve), 16);
        assert_eq!(default_window_bits_for(1 << 24, curve), 20);
        assert_eq!(default_window_bits_for(1 << 25, curve), 20);
    }
    // A density plan picks the window (and entry bound) of its selected count.
    let sparse = MsmPlan::for_selected(1 << 27, 1 << 25, Curve::G1, &MsmConfig::default()).unwrap();
    assert_eq!((sparse.c, sparse.entries_max), (20, 13 << 25));
    let sparse = MsmPlan::for_selected(1 << 27, 1 << 25, Curve::G2, &MsmConfig::default()).unwrap();
    assert_eq!((sparse.c, sparse.entries_max), (20, 13 << 25));
    // 2^27 scalars at the default window still fit the u32 entry positions.
    assert!(MsmPlan::new(1 << 27, Curve::G1, &MsmConfig::default()).is_ok());
}

/// The narrowest layouts: as many windows as `c` bits need, their widths
/// covering 256 bits (the top window's spare bit) with as few `c` bits wide
/// as can; a layout that needs none is `c − 1`'s. Plans take them when
/// asked (`WindowCut::Narrowest`) without tables and padding, and `c`-bit
/// windows throughout otherwise.
#[test]
fn window_layouts_take_as_few_wide_windows_as_256_bits_allow() {
    for c in 1..=MAX_WINDOW_BITS {
        let l = WindowLayout::narrowest(c);
        let bits: u32 = (0..l.windows).map(|w| l.bits(w)).sum();
        assert!(bits >= 256 && l.windows <= num_windows(c), "c = {c}: {l:?} covers {bits} bits");
        assert!((1..=l.windows).contains(&l.wide), "c = {c}: {l:?}");
        // One wide window fewer would not cover the scalar.
        assert!(bits - 1 < 256 || l.wide == 0, "c = {c}: {l:?} is wider than it needs");
        assert_eq!(l.start(l.windows - 1) + l.bits(l.windows - 1), bits, "c = {c}");
        if l.c == c {
            assert_eq!(l.windows, num_windows(c), "c = {c}");
        } else {
            assert_eq!((l.c, num_windows(c) * (c - 1) >= 256), (c - 1, true), "c = {c}");
        }
    }
    let shape = |l: WindowLayout| (l.c, l.windows, l.wide);
    assert_eq!(shape(WindowLayout::narrowest(22)), (22, 12, 4)); // 4 · 22 + 8 · 21
    assert_eq!(shape(WindowLayout::narrowest(20)), (20, 13, 9)); // 9 · 20 + 4 · 19
    assert_eq!(shape(WindowLayout::narrowest(18)), (18, 15, 1)); // 18 + 14 · 17
    assert_eq!(shape(WindowLayout::narrowest(17)), (16, 16, 16)); // 16 · 16 already
    assert_eq!(shape(WindowLayout::narrowest(16)), (16, 16, 16));
    assert_eq!(shape(WindowLayout::uniform(22)), (22, 12, 12));
    let plan = |c: u32, tables: u32, sort: Sort| {
        let config = MsmConfig { window_bits: c, tables, sort, window_cut: WindowCut::Narrowest, ..MsmConfig::default() };
        let p = MsmPlan::new(1 << 16, Curve::G1, &config).unwrap();
        (p.c, p.windows, p.wide)
    };
    assert_eq!(plan(22, 0, Sort::Auto), (22, 12, 4));
    assert_eq!(plan(20, 0, Sort::Binned { bins_log: 0 }), (20, 13, 9));
    assert_eq!(plan(17, 0, Sort::Counted), (16, 16, 16));
    assert_eq!(plan(22, 6, Sort::Auto), (22, 12, 12));
    assert_eq!(plan(20, 0, Sort::Padded { cap_log: 0 }), (20, 13, 13));
    assert_eq!(plan(20, 0, Sort::Padded { cap_log: 4 }), (20, 13, 13));
    let uniform = MsmPlan::new(1 << 16, Curve::G1, &MsmConfig { window_bits: 17, ..MsmConfig::default() }).unwrap();
    assert_eq!((uniform.c, uniform.windows, uniform.wide), (17, 16, 16));
}

#[test]
fn a_witness_plan_takes_the_window_of_its_scalars_other_than_0_and_1() {
    let config = MsmConfig::default();
    // A 32 GiB partition's L MSM: 2^27 aux values, about 2% neither 0 nor 1.
    let (n, general) = (1usize << 27, 2_600_000usize);
    let plan = MsmPlan::for_witness(n, n, Some(general), Curve::G1, &config).unwrap();
    assert_eq!(plan.c, 16);
    assert_eq!(plan.entries_max as usize, general * 16 + (n - general));
    let dense = MsmPlan::new(n, Curve::G1, &config).unwrap();
    assert_eq!(dense.c, 20);
    assert!(plan.scratch_words() < dense.scratch_words(), "fits any arena the dense plan fits");
    // A count over the selected is the selected count; none is unknown.
    let over = MsmPlan::for_witness(1000, 600, Some(900), Curve::G1, &config).unwrap();
    assert_eq!(over, MsmPlan::for_selected(1000, 600, Curve::G1, &config).unwrap());
    assert_eq!(MsmPlan::for_witness(1000, 600, None, Curve::G2, &config).unwrap(), MsmPlan::for_selected(1000, 600, Curve::G2, &config).unwrap());
    // All zeros and ones: one entry per selected scalar at most.
    let flat = MsmPlan::for_witness(1 << 20, 1 << 20, Some(0), Curve::G1, &config).unwrap();
    assert_eq!(flat.entries_max, 1 << 20);
}

/// Scalars like a witness: zeros and ones but for a fraction `general`.
fn witness_scalars(rng: &mut ChaCha8Rng, n: usize, general: f64) -> Vec<Scalar> {
    let mut s = scalars(rng, n);
    for v in s.iter_mut() {
        if !rng.gen_bool(general) {
            *v = if rng.gen_bool(0.5) { Scalar::ZERO } else { Scalar::ONE };
        }
    }
    s
}

fn is_general(s: &Scalar) -> bool {
    !bool::from(s.is_zero()) && *s != Scalar::ONE
}

#[test]
fn the_count_of_scalars_other_than_0_and_1_is_exact_and_bounds_the_digits() {
    let (mut rng, seed) = seeded_rng("the_count_of_scalars_other_than_0_and_1_is_exact_and_bounds_the_digits");
    for n in [0usize, 1, 31, 1000, 4097] {
        let s = witness_scalars(&mut rng, n, 0.1);
        let mut count = 7u32;
        // SAFETY: n scalars as limbs, one count word.
        unsafe { k::msm_count_general(s.as_ptr().cast(), n as u32, &mut count) };
        assert_eq!(count as usize - 7, s.iter().filter(|v| is_general(v)).count(), "n = {n} (seed {seed})");
    }
    // Reduced scalars: the same as the digit kernels' kind; an unreduced
    // one (limbs r + R, which stand for 1) counts, an overcount being safe.
    for v in [Scalar::ZERO, Scalar::ONE, Scalar::from(2), r_minus(1)] {
        let mont: [u64; 4] = limbs(&[v]).try_into().unwrap();
        assert_eq!(general_mont(&mont), kind(&canonical(&v)) == Kind::Digits, "{v:?}");
    }
    let unreduced_one = {
        let r = <cuzk_kernels::ff::bls12_381::FrConfig as cuzk_kernels::ff::mont::MontConfig<4>>::MODULUS;
        let one: [u64; 4] = limbs(&[Scalar::ONE]).try_into().unwrap();
        let (lo, carry) = r[0].overflowing_add(one[0]);
        let mut l = [lo, r[1], r[2], r[3]];
        let mut carry = carry as u64;
        for i in 1..4 {
            let (x, c1) = l[i].overflowing_add(one[i]);
            let (x, c2) = x.overflowing_add(carry);
            l[i] = x;
            carry = (c1 | c2) as u64;
        }
        l
    };
    assert!(general_mont(&unreduced_one));
}

#[test]
fn witness_msms_planned_for_their_general_count_match_blstrs() {
    let (mut rng, seed) = seeded_rng("witness_msms_planned_for_their_general_count_match_blstrs");
    for (n, general) in [(1usize, 0.0), (100, 0.0), (100, 1.0), (3000, 0.02), (3000, 0.1), (5000, 0.5)] {
        let s = witness_scalars(&mut rng, n, general);
        let b = bases::<G1>(&mut rng, n);
        let count = s.iter().filter(|v| is_general(v)).count();
        let want = naive::<G1>(b.iter().copied().zip(s.iter().copied()));
        for config in [MsmConfig::default(), MsmConfig { chunk0: 4, ..MsmConfig::default() }] {
            let got = host_msm_run::<G1>(&b, n, 0, &s, None, n, Some(count), &config);
            assert!(got == want, "G1 n = {n}, {count} general, {config:?} (seed {seed})");
        }
        // Through a density: the count over all scalars bounds the selected ones'.
        let (words, bits) = density(&mut rng, n, 0.3);
        let selected: Vec<Scalar> = s.iter().zip(&bits).filter(|(_, b)| **b).map(|(v, _)| *v).collect();
        let offset = 3;
        let b2 = bases::<G2>(&mut rng, offset + selected.len());
        let want = naive::<G2>(b2[offset..].iter().copied().zip(selected.iter().copied()));
        let got = host_msm_run::<G2>(&b2, b2.len(), offset, &s, Some(&words), selected.len(), Some(count), &MsmConfig::default());
        assert!(got == want, "G2 density n = {n}, {count} general (seed {seed})");
    }
}

#[test]
fn signed_digits_reconstruct_the_scalar() {
    let (mut rng, seed) = seeded_rng("signed_digits_reconstruct_the_scalar");
    let mut values = scalars(&mut rng, 2000);
    values.extend([
        Scalar::ZERO,
        Scalar::ONE,
        r_minus(1),
        Scalar::from(u64::MAX),
    ]);
    let layouts = (1..=MAX_WINDOW_BITS).flat_map(|c| [WindowLayout::uniform(c), WindowLayout::narrowest(c)]);
    for l in layouts {
        for s in &values {
            let limbs = canonical(s);
            let mut digits = SignedDigits::new(limbs, l);
            let mut sum = Scalar::ZERO;
            for w in 0..l.windows {
                let half = 1u32 << (l.bits(w) - 1);
                let (mag, neg) = digits.next_digit();
                assert!(mag <= half, "{l:?}, window {w}: digit {mag} > {half} (seed {seed})");
                let d = Scalar::from(mag as u64) * Scalar::from(2).pow_vartime([l.start(w) as u64]);
                sum += if neg { -d } else { d };
            }
            assert_eq!(sum, *s, "{l:?}: digits do not add up (seed {seed})");
        }
    }
}

#[test]
fn scan_is_an_exclusive_prefix_sum() {
    let (mut rng, seed) = seeded_rng("scan_is_an_exclusive_prefix_sum");
    for len in [
        0u32,
        1,
        2,
        31,
        32,
        33,
        63,
        64,
        65,
        1023,
        1024,
        1025,
        32 * 32 * 32 + 5,
        100_000,
    ] {
        let (layout, words) = scan_layout(len, 0);
        let mut arena = vec![0xa5a5_a5a5_a5a5_a5a5u64; words.max(1)];
        let values: Vec<u32> = (0..len).map(|_| rng.gen_range(0..1000)).collect();
        // SAFETY: level 0 of the layout starts at word 0 and holds `len` u32.
        let data =
            unsafe { std::slice::from_raw_parts_mut(arena.as_mut_ptr() as *mut u32, len as usize) };
        data.copy_from_slice(&values);
        scan_steps::<()>(&layout, arena.as_mut_ptr() as u64, &mut |step| {
            unsafe { exec(Curve::G1, step) };
            Ok(())
        })
        .unwrap();
        let data =
            unsafe { std::slice::from_raw_parts(arena.as_ptr() as *const u32, len as usize) };
        let mut acc = 0u32;
        for (i, v) in values.iter().enumerate() {
            assert_eq!(data[i], acc, "len {len}, index {i} (seed {seed})");
            acc += v;
        }
    }
}

#[test]
fn g1_every_size_up_to_80_default_and_small_windows() {
    let (mut rng, seed) = seeded_rng("g1_every_size_up_to_80");
    let b = bases::<G1>(&mut rng, 80);
    for n in 0..=80 {
        let s = scalars(&mut rng, n);
        check::<G1>("default", seed, &b[..n], &s, &MsmConfig::default());
        let config = MsmConfig {
            window_bits: rng.gen_range(1..=9),
            chunk0: rng.gen_range(1..=8),
            chunk: rng.gen_range(4..=6),
            reduce_fan_log: 0,
            reduce_top_fan_log: rng.gen_range(0..=3),
            scatter_windows: rng.gen_range(0..=3),
            tables: 0,
            sort: random_sort(&mut rng),
            ..MsmConfig::default()
        };
        check::<G1>("small chunks", seed, &b[..n], &s, &config);
    }
}

#[test]
fn g2_small_sizes() {
    let (mut rng, seed) = seeded_rng("g2_small_sizes");
    let b = bases::<G2>(&mut rng, 64);
    for n in [0usize, 1, 2, 3, 5, 17, 33, 64] {
        let s = scalars(&mut rng, n);
        check::<G2>("default", seed, &b[..n], &s, &MsmConfig::default());
        let config = MsmConfig {
            window_bits: rng.gen_range(2..=7),
            chunk0: 3,
            chunk: 4,
            reduce_fan_log: 2,
            reduce_top_fan_log: 2,
            scatter_windows: 2,
            tables: 0,
            sort: Sort::Padded { cap_log: 1 },
            ..MsmConfig::default()
        };
        check::<G2>("small chunks", seed, &b[..n], &s, &config);
    }
}

#[test]
fn every_window_size_and_reduction_fan() {
    let (mut rng, seed) = seeded_rng("every_window_size_and_reduction_fan");
    let b = bases::<G1>(&mut rng, 40);
    let s = scalars(&mut rng, 40);
    for c in 1..=12 {
        for fan_log in 0..=8 {
            // Top levels of the default, a middle and the largest fan (at
            // c = 11, 12 and small fans the plan mixes both kinds).
            for top_fan_log in [0, 2, 8] {
                let config = MsmConfig {
                    window_bits: c,
                    reduce_fan_log: fan_log,
                    reduce_top_fan_log: top_fan_log,
                    // One launch per window, a few, and all in one.
                    scatter_windows: [1, 3, 0][fan_log as usize % 3],
                    ..MsmConfig::default()
                };
                check::<G1>("window/reduction fan", seed, &b, &s, &config);
            }
        }
    }
}

#[test]
fn larger_window_sizes() {
    let (mut rng, seed) = seeded_rng("larger_window_sizes");
    let b = bases::<G1>(&mut rng, 30);
    let s = scalars(&mut rng, 30);
    for c in [13, 14, 15, 16] {
        check::<G1>(
            "large window",
            seed,
            &b,
            &s,
            &MsmConfig {
                window_bits: c,
                ..MsmConfig::default()
            },
        );
    }
}

/// Windows of 17 to 20 bits cut narrowest (`WindowCut::Narrowest`: c = 20
/// as 9 windows of 20 bits and 4 of 19),
/// counted and binned, against blstrs; among the scalars ones whose narrow
/// windows sit exactly at their half (the carry passes through) and whose
/// wide and narrow windows all hold their largest digit.
#[test]
fn narrow_windows_of_wide_plans_match_blstrs() {
    let (mut rng, seed) = seeded_rng("narrow_windows_of_wide_plans_match_blstrs");
    let n = 24;
    let b = bases::<G1>(&mut rng, n);
    // 17: as 16; 18: one wide window; 20: nine of 13. (c = 22's 25 M
    // bucket sums take about 20 s on the host; its digits are checked
    // elsewhere, its MSMs on the GPU.)
    for c in [17, 18, 20] {
        let l = WindowLayout::narrowest(c);
        let mut s = scalars(&mut rng, n - 2);
        // Window w's bits all set to its half (2^(bits−1)), or to its largest
        // digit below the half, below bit 254.
        for largest in [false, true] {
            let mut limbs = [0u64; 4];
            for w in 0..l.windows {
                let bits = l.bits(w);
                let value = if largest { (1u64 << (bits - 1)) - 1 } else { 1u64 << (bits - 1) };
                for k in 0..bits {
                    let at = l.start(w) + k;
                    if at < 254 && value >> k & 1 == 1 {
                        limbs[(at / 64) as usize] |= 1 << (at % 64);
                    }
                }
            }
            let mut repr = <Scalar as PrimeField>::Repr::default();
            for (bytes, limb) in repr.as_mut().chunks_mut(8).zip(limbs) {
                bytes.copy_from_slice(&limb.to_le_bytes());
            }
            s.push(Scalar::from_repr_vartime(repr).expect("below 2^254"));
        }
        for sort in [Sort::Counted, Sort::Binned { bins_log: 0 }] {
            let config = MsmConfig { window_bits: c, sort, window_cut: WindowCut::Narrowest, ..MsmConfig::default() };
            let plan = MsmPlan::new(n, Curve::G1, &config).unwrap();
            assert_eq!((plan.c, plan.windows, plan.wide), (l.c, l.windows, l.wide), "c = {c}");
            check::<G1>("narrow windows", seed, &b, &s, &config);
        }
    }
}

#[test]
fn skewed_buckets_go_through_many_levels() {
    let (mut rng, seed) = seeded_rng("skewed_buckets_go_through_many_levels");
    let n = 300;
    let b = bases::<G1>(&mut rng, n);
    let same = Scalar::random(&mut rng);
    let small = Scalar::from(5);
    let cases: Vec<(&str, Vec<Scalar>)> = vec![
        ("all equal", vec![same; n]),
        ("all five", vec![small; n]),
        ("all one", vec![Scalar::ONE; n]),
        ("all zero", vec![Scalar::ZERO; n]),
        ("all r-1", vec![r_minus(1); n]),
        (
            "90% zero or one",
            (0..n)
                .map(|_| match rng.gen_range(0..10) {
                    0..=4 => Scalar::ZERO,
                    5..=8 => Scalar::ONE,
                    _ => Scalar::random(&mut rng),
                })
                .collect(),
        ),
    ];
    for (what, s) in &cases {
        for config in [
            MsmConfig::default(),
            MsmConfig {
                window_bits: 4,
                chunk0: 1,
                chunk: 4,
                reduce_fan_log: 1,
                reduce_top_fan_log: 3,
                scatter_windows: 1,
                tables: 0,
                sort: Sort::Counted,
                ..MsmConfig::default()
            },
            MsmConfig {
                window_bits: 3,
                chunk0: 2,
                chunk: 5,
                reduce_fan_log: 3,
                reduce_top_fan_log: 2,
                scatter_windows: 2,
                tables: 0,
                sort: Sort::Padded { cap_log: 0 },
                ..MsmConfig::default()
            },
            MsmConfig {
                window_bits: 6,
                chunk0: 7,
                chunk: 4,
                reduce_fan_log: 4,
                reduce_top_fan_log: 1,
                scatter_windows: 3,
                tables: 0,
                sort: Sort::Padded { cap_log: 2 },
                ..MsmConfig::default()
            },
            // Wide merge levels below (19 windows · 2^10 outputs), top
            // levels of fan 4 above.
            MsmConfig {
                window_bits: 14,
                chunk0: 0,
                chunk: 0,
                reduce_fan_log: 3,
                reduce_top_fan_log: 2,
                scatter_windows: 1,
                tables: 0,
                sort: Sort::Padded { cap_log: 3 },
                ..MsmConfig::default()
            },
        ] {
            check::<G1>(what, seed, &b, s, &config);
        }
    }
    // G2 as well, one configuration.
    let b2 = bases::<G2>(&mut rng, 64);
    for s in [
        vec![same; 64],
        vec![Scalar::ONE; 64],
        vec![Scalar::from(3); 64],
    ] {
        check::<G2>(
            "G2 skew",
            seed,
            &b2,
            &s,
            &MsmConfig {
                window_bits: 3,
                chunk0: 2,
                chunk: 4,
                reduce_fan_log: 2,
                reduce_top_fan_log: 1,
                scatter_windows: 1,
                tables: 0,
                sort: Sort::Padded { cap_log: 1 },
                ..MsmConfig::default()
            },
        );
    }
}

#[test]
fn identity_bases_give_the_identity() {
    let (mut rng, seed) = seeded_rng("identity_bases_give_the_identity");
    let b = vec![G1Affine::identity(); 50];
    let s = scalars(&mut rng, 50);
    check::<G1>("identity bases", seed, &b, &s, &MsmConfig::default());
    let got = host_msm::<G1>(&b, 0, &s, None, &MsmConfig::default());
    assert!(bool::from(got.is_identity()));
    let b2 = vec![G2Affine::identity(); 10];
    let got = host_msm::<G2>(&b2, 0, &s[..10], None, &MsmConfig::default());
    assert!(bool::from(got.is_identity()));
}

/// A random bitmap over `n` variables (set bits beyond `n` in the last word
/// too, which must be ignored).
fn density(rng: &mut ChaCha8Rng, n: usize, p: f64) -> (Vec<u64>, Vec<bool>) {
    let mut words = vec![0u64; n.div_ceil(64)];
    let mut bits = vec![false; n];
    for (i, bit) in bits.iter_mut().enumerate() {
        if rng.gen_bool(p) {
            *bit = true;
            words[i / 64] |= 1 << (i % 64);
        }
    }
    if !n.is_multiple_of(64) {
        *words.last_mut().unwrap() |= !0u64 << (n % 64);
    }
    (words, bits)
}

fn check_density<C: MsmCurve>(rng: &mut ChaCha8Rng, seed: u64, n: usize, p: f64, config: &MsmConfig)
where
    C::Affine: Pod,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    let (words, bits) = density(rng, n, p);
    let ones = bits.iter().filter(|b| **b).count();
    let offset = rng.gen_range(0..20);
    let extra = rng.gen_range(0..3);
    let b = bases::<C>(rng, offset + ones + extra);
    let s = scalars(rng, n);
    // Planned for all n, for exactly the selected count, and for fewer
    // (which must drop the later selected scalars, not overrun the arena).
    let keep = rng.gen_range(0..=ones);
    for (planned, kept) in [(n, ones), (ones, ones), (keep, keep)] {
        let got = host_msm_run::<C>(&b, b.len(), offset, &s, Some(&words), planned, None, config);
        let selected = s
            .iter()
            .zip(&bits)
            .filter(|(_, bit)| **bit)
            .map(|(s, _)| *s)
            .take(kept);
        let want = naive::<C>(b[offset..].iter().copied().zip(selected));
        assert!(
            got == want,
            "density n = {n}, p = {p}, offset {offset}, planned for {planned} of {ones}, {config:?} (seed {seed})"
        );
    }
}

#[test]
fn density_selects_scalars_and_offsets_bases() {
    let (mut rng, seed) = seeded_rng("density_selects_scalars_and_offsets_bases");
    for n in [0usize, 1, 63, 64, 65, 130, 200] {
        for p in [0.0, 0.3, 0.9, 1.0] {
            check_density::<G1>(&mut rng, seed, n, p, &MsmConfig::default());
            let config = MsmConfig {
                window_bits: 5,
                chunk0: 3,
                chunk: 4,
                reduce_fan_log: 3,
                reduce_top_fan_log: 2,
                scatter_windows: 1,
                tables: 0,
                sort: Sort::Padded { cap_log: 2 },
                ..MsmConfig::default()
            };
            check_density::<G1>(&mut rng, seed, n, p, &config);
        }
    }
    for n in [1usize, 64, 100] {
        check_density::<G2>(&mut rng, seed, n, 0.5, &MsmConfig::default());
    }
}

/// How a prover splits a density MSM into pieces when its VRAM plan runs
/// MSMs in chunks (`cuzk::vram::proof_msms::pieces`): piece `k` takes the
/// scalars and density bits from `k · size` (a multiple of 64) and its
/// bases from the offset plus the set bits before it, planned for exactly
/// its own set bits. The pieces' sum is the whole MSM.
fn check_density_pieces<C: MsmCurve>(rng: &mut ChaCha8Rng, seed: u64, n: usize, p: f64, size: usize)
where
    C::Affine: Pod,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine> + std::ops::Add<Output = C::Projective>,
{
    let (words, bits) = density(rng, n, p);
    let ones = bits.iter().filter(|b| **b).count();
    let offset = rng.gen_range(0..20);
    let b = bases::<C>(rng, offset + ones);
    let s = scalars(rng, n);
    let want = naive::<C>(b[offset..].iter().copied().zip(s.iter().zip(&bits).filter(|(_, bit)| **bit).map(|(s, _)| *s)));
    let mut got = naive::<C>(std::iter::empty());
    for start in (0..n).step_by(size) {
        let end = (start + size).min(n);
        let before = bits[..start].iter().filter(|b| **b).count();
        let selected = bits[start..end].iter().filter(|b| **b).count();
        got = got + host_msm_run::<C>(&b, b.len(), offset + before, &s[start..end], Some(&words[start / 64..]), selected, None, &MsmConfig::default());
    }
    assert!(got == want, "density pieces n = {n}, p = {p}, pieces of {size} (seed {seed})");
}

#[test]
fn a_density_msm_in_pieces_sums_to_the_whole() {
    let (mut rng, seed) = seeded_rng("a_density_msm_in_pieces_sums_to_the_whole");
    for (n, p, size) in [(1000, 0.3, 64), (1000, 0.997, 128), (1100, 0.254, 512), (130, 1.0, 64), (700, 0.0, 128)] {
        check_density_pieces::<G1>(&mut rng, seed, n, p, size);
    }
    check_density_pieces::<G2>(&mut rng, seed, 300, 0.5, 64);
}

#[test]
fn scatter_launches_cover_every_window_once() {
    let io = MsmIo { bases: 0, n_bases: 1000, base_offset: 0, scalars: 0, scalar_form: ScalarForm::Montgomery, density: 0, out: 0 };
    for c in 1..=MAX_WINDOW_BITS {
        for scatter_windows in [0, 1, 2, 5] {
            let config = MsmConfig { window_bits: c, scatter_windows, sort: Sort::Counted, ..MsmConfig::default() };
            let plan = MsmPlan::new(1000, Curve::G1, &config).unwrap();
            let mut rounds = Vec::new();
            plan.steps::<()>(&io, 0, |step| {
                if let Step::Scatter { rounds: r, .. } = step {
                    rounds.push(r);
                }
                Ok(())
            })
            .unwrap();
            let mut next = 0;
            for &(begin, end) in &rounds {
                assert!(begin == next && end > begin && end - begin <= plan.scatter_windows, "c = {c}: {rounds:?}");
                next = end;
            }
            assert_eq!(next, plan.windows, "c = {c}: {rounds:?}");
            if scatter_windows == 0 {
                // The default keeps one launch's cursors within the budget.
                let cursor_bytes = plan.scatter_windows as u64 * (4u64 << (plan.c - 1));
                assert!(cursor_bytes <= SCATTER_CURSOR_BYTES || plan.scatter_windows == 1, "c = {c}");
            } else {
                assert_eq!(plan.scatter_windows, scatter_windows.min(plan.windows));
            }
        }
    }
    assert_eq!((default_scatter_windows(16, 16, 16), default_scatter_windows(20, 13, 13)), (4, 1));
    // Tables: one launch per bucket set, its windows being consecutive.
    assert_eq!((default_scatter_windows(22, 1, 12), default_scatter_windows(22, 2, 12)), (12, 6));
    assert_eq!(default_scatter_windows(22, 3, 12), 4);
}

/// An H100's or H200's wave of first-level threads: 132 SMs × 2 blocks × 128.
const H200_WAVE: u32 = 132 * 2 * 128;

#[test]
fn the_first_level_chunk_fits_the_devices_waves() {
    let waves = MsmConfig { level0_waves: Level0Waves { g1: H200_WAVE, g2: H200_WAVE }, ..MsmConfig::default() };
    let plan = |n: usize, curve: Curve, config: &MsmConfig| MsmPlan::new(n, curve, &MsmConfig { window_bits: 20, ..*config }).unwrap();
    // A piece of 2^23 scalars at the 20-bit window: 109 M entries, 3.15
    // waves at 1024 (run as 4), 12.6 at 256 (13).
    let (fixed, fitted) = (plan(1 << 23, Curve::G1, &MsmConfig::default()), plan(1 << 23, Curve::G1, &waves));
    assert_eq!((fixed.chunk0, fitted.chunk0), (1024, 256));
    assert_eq!(fitted.threads0, fixed.threads0 * 4);
    assert!(fitted.scratch_bytes() > fixed.scratch_bytes(), "more threads hand on more items");
    assert!(fitted.layout.item_capacity[0] >= 2 * fitted.threads0, "room for two items per first-level thread");
    // 2^24: 6.3 waves at 1024, 12.6 at 512 (2^24 · 13 entries).
    assert_eq!(plan(1 << 24, Curve::G1, &waves).chunk0, 512);
    // The whole 2^27 MSM: 50.4 waves at 1024, nothing to gain.
    assert_eq!(plan(1 << 27, Curve::G1, &waves).chunk0, 1024);
    // Unknown waves, a set chunk, and batch-affine plans are left alone.
    assert_eq!(plan(1 << 23, Curve::G2, &MsmConfig { level0_waves: Level0Waves { g1: H200_WAVE, g2: 0 }, ..waves }).chunk0, 1024);
    assert_eq!(plan(1 << 23, Curve::G1, &MsmConfig { chunk0: 1024, ..waves }).chunk0, 1024);
    let affine = MsmConfig { accumulation: Accumulation::BatchAffine { streams: 0 }, ..waves };
    assert_eq!(plan(1 << 23, Curve::G1, &affine).chunk0, plan(1 << 23, Curve::G1, &MsmConfig { level0_waves: Level0Waves::default(), ..affine }).chunk0);
    // The rule itself: a quarter at most, only for more than 1%, never below 4.
    assert_eq!(fit_chunk0_to_waves(1000, 1024, 0), 1024);
    assert_eq!(fit_chunk0_to_waves(10 * 1024, 1024, 10), 1024, "one full wave");
    assert_eq!(fit_chunk0_to_waves(11 * 1024, 1024, 10), 256, "1.1 waves: 2 at 1024, 5 at 256");
    assert_eq!(fit_chunk0_to_waves(8 * 5, 8, 4), 4, "2 waves of 8 at 8, 3 of 4 at 4");
    assert_eq!(fit_chunk0_to_waves(5 * 4, 4, 4), 4);
}

#[test]
fn plan_rejects_bad_settings_and_sizes_scratch() {
    let bad = |c: MsmConfig| MsmPlan::new(10, Curve::G1, &c).is_err();
    assert!(bad(MsmConfig {
        window_bits: 23,
        ..MsmConfig::default()
    }));
    assert!(bad(MsmConfig {
        chunk: 3,
        ..MsmConfig::default()
    }));
    assert!(bad(MsmConfig {
        window_bits: 4,
        reduce_fan_log: 9,
        ..MsmConfig::default()
    }));
    assert!(bad(MsmConfig {
        reduce_top_fan_log: 9,
        ..MsmConfig::default()
    }));
    assert!(MsmPlan::new(1 << 31, Curve::G1, &MsmConfig::default()).is_err());
    // n · W ≥ 2^32 entries cannot be positioned with u32.
    assert!(MsmPlan::new(
        1 << 28,
        Curve::G1,
        &MsmConfig {
            window_bits: 8,
            ..MsmConfig::default()
        }
    )
    .is_err());
    let g1 = msm_scratch_bytes(1 << 20, Curve::G1, 16).unwrap();
    let g2 = msm_scratch_bytes(1 << 20, Curve::G2, 16).unwrap();
    assert!(
        g2 > g1 && g1 > (1 << 20) * 16 * 4,
        "scratch G1 {g1}, G2 {g2}"
    );
    for n in [0usize, 1, 1000, 1 << 20, 1 << 24] {
        let plan = MsmPlan::new(n, Curve::G1, &MsmConfig::default()).unwrap();
        println!(
            "n = {n}: c = {}, W = {}, chunk0 = {}, threads0 = {}, levels = {}, scratch = {:.1} MiB",
            plan.c,
            plan.windows,
            plan.chunk0,
            plan.threads0,
            plan.n_levels,
            plan.scratch_bytes() as f64 / (1 << 20) as f64
        );
    }
}

#[test]
fn projective_result_layout_is_blst() {
    // One base, scalar 2: a doubled point, not normalised; compares with
    // blstrs through `==`, which checks the Jacobian interpretation.
    let (mut rng, _) = seeded_rng("projective_result_layout_is_blst");
    let p: G1Affine = G1Projective::random(&mut rng).to_affine();
    let got = host_msm::<G1>(&[p], 0, &[Scalar::from(2)], None, &MsmConfig::default());
    assert_eq!(got, G1Projective::from(p).double());
    let q: G2Affine = G2Projective::random(&mut rng).to_affine();
    let got = host_msm::<G2>(&[q], 0, &[r_minus(1)], None, &MsmConfig::default());
    assert_eq!(got, -G2Projective::from(q));
}

/// `t` tables of `bases`: table `a` holds `2^(a·spacing)·P` for each base.
fn tables_of<C: TestCurve>(bases: &[C::Affine], t: u32, spacing: u32) -> Vec<C::Affine>
where
    C::Projective: From<C::Affine>,
{
    let mut all = Vec::with_capacity(bases.len() * t as usize);
    let mut current: Vec<C::Projective> = bases.iter().map(|&b| C::Projective::from(b)).collect();
    for a in 0..t {
        if a > 0 {
            for p in current.iter_mut() {
                for _ in 0..spacing {
                    *p = p.double();
                }
            }
        }
        all.extend(affine::<C>(&current));
    }
    all
}

fn check_tables<C: MsmCurve>(rng: &mut ChaCha8Rng, seed: u64, n: usize, c: u32, t: u32, density_p: Option<f64>)
where
    C::Affine: Pod,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    let sort = [Sort::Auto, Sort::Counted, Sort::Padded { cap_log: 1 }][n % 3];
    // Both first accumulation levels read table entries alike.
    let accumulation = match n % 2 {
        0 => Accumulation::Xyzz,
        _ => Accumulation::BatchAffine { streams: 1 + n as u32 % 5 },
    };
    let config = MsmConfig { window_bits: c, tables: t, chunk0: 3, chunk: 4, sort, accumulation, ..MsmConfig::default() };
    let plan = MsmPlan::new(n.max(1), C::CURVE, &config).unwrap();
    assert_eq!(plan.padded.is_some(), sort != Sort::Counted, "tables sort padded by default");
    assert_eq!(plan.sets, num_windows(c).div_ceil(t), "c = {c}, t = {t}");
    assert_eq!(plan.n_keys, (plan.sets << (c - 1)) + 1);
    let spacing = table_spacing_bits(c);
    assert_eq!(spacing, c);
    let s = scalars(rng, n);
    match density_p {
        None => {
            let b = bases::<C>(rng, n);
            let got = host_msm_run::<C>(&tables_of::<C>(&b, t, spacing), n, 0, &s, None, n, None, &config);
            let want = naive::<C>(b.iter().copied().zip(s.iter().copied()));
            assert!(got == want, "tables: n = {n}, c = {c}, t = {t} (seed {seed})");
        }
        Some(p) => {
            let (words, bits) = density(rng, n, p);
            let ones = bits.iter().filter(|b| **b).count();
            let offset = rng.gen_range(0..5);
            let per_table = offset + ones + rng.gen_range(0..3);
            let b = bases::<C>(rng, per_table);
            let got = host_msm_run::<C>(&tables_of::<C>(&b, t, spacing), per_table, offset, &s, Some(&words), n, None, &config);
            let selected = s.iter().zip(&bits).filter(|(_, bit)| **bit).map(|(s, _)| *s);
            let want = naive::<C>(b[offset..].iter().copied().zip(selected));
            assert!(got == want, "tables with density: n = {n}, c = {c}, t = {t}, p = {p} (seed {seed})");
        }
    }
}

/// Precomputed tables: window `b·p + a` (`p` windows per set) adds table
/// `a`'s base into bucket set `b`; against blstrs for table counts that divide the windows
/// and that do not, one table per window (a single set), with densities
/// and base offsets, and on G2; odd sizes through the batch-affine first
/// accumulation level.
#[test]
fn precomputed_tables_match_blstrs() {
    let (mut rng, seed) = seeded_rng("precomputed_tables_match_blstrs");
    for (c, t) in [(4, 2), (4, 3), (4, 64), (5, 7), (8, 2), (8, 32), (9, 29), (13, 5), (16, 16)] {
        let t = t.min(num_windows(c));
        for n in [1usize, 2, 7, 64, 150] {
            check_tables::<G1>(&mut rng, seed, n, c, t, None);
        }
        check_tables::<G1>(&mut rng, seed, 130, c, t, Some(0.4));
    }
    for (c, t) in [(4, 3), (8, 32)] {
        check_tables::<G2>(&mut rng, seed, 40, c, t.min(num_windows(c)), None);
    }
    let too_many = MsmConfig { window_bits: 8, tables: num_windows(8) + 1, ..MsmConfig::default() };
    assert!(MsmPlan::new(10, Curve::G1, &too_many).is_err());
    // Windows past 22 bits only with tables, and only while the buckets fit.
    let wide = |c: u32, tables: u32| MsmPlan::new(10, Curve::G1, &MsmConfig { window_bits: c, tables, ..MsmConfig::default() });
    assert!(wide(24, 0).is_err() && wide(27, 11).is_err());
    assert_eq!(wide(24, 11).map(|p| (p.windows, p.sets)), Ok((11, 1)));
    assert!(wide(26, 5).is_err(), "3 sets of 2^25 buckets");
    assert_eq!(wide(26, 10).map(|p| p.sets), Ok(1));
}

/// The table kernel (host build): `2^spacing · P` for every base, identities
/// included, equal to blstrs' doublings.
#[test]
fn table_kernel_doubles_like_blstrs() {
    let (mut rng, seed) = seeded_rng("table_kernel_doubles_like_blstrs");
    // Sizes around the batch of points that share an inversion, and runs
    // of identities inside one batch.
    for (spacing, n) in [(1u32, 50), (5, TABLE_BATCH), (24, TABLE_BATCH + 1), (3, 2 * TABLE_BATCH + 5)] {
        let mut b = bases::<G1>(&mut rng, n);
        b[n / 2] = G1Affine::identity();
        b[n - 1] = G1Affine::identity();
        let want = tables_of::<G1>(&b, 2, spacing);
        let mut got = vec![G1Affine::identity(); b.len()];
        let mut scratch = vec![0u64; TABLE_SCRATCH_ELEMENTS * 6 * n];
        unsafe { k::msm_g1_tables(limbs(&b).as_ptr(), got.as_mut_ptr().cast(), scratch.as_mut_ptr(), n as u32, spacing) };
        assert!(got[..] == want[b.len()..], "G1, spacing {spacing}, {n} points (seed {seed})");
        let b2 = bases::<G2>(&mut rng, n.min(20));
        let want2 = tables_of::<G2>(&b2, 2, spacing);
        let mut got2 = vec![G2Affine::identity(); b2.len()];
        let mut scratch2 = vec![0u64; TABLE_SCRATCH_ELEMENTS * 12 * b2.len()];
        unsafe { k::msm_g2_tables(limbs(&b2).as_ptr(), got2.as_mut_ptr().cast(), scratch2.as_mut_ptr(), b2.len() as u32, spacing) };
        assert!(got2[..] == want2[b2.len()..], "G2, spacing {spacing}, {} points (seed {seed})", b2.len());
    }
}

/// The histogram-free padded sort against blstrs: capacities from one slot
/// per bucket (nearly every entry overflows) to more than any bucket needs,
/// inputs that pile into one bucket (all equal, all one), densities with
/// offsets, several scatter launches, G2.
#[test]
fn padded_sort_matches_blstrs() {
    let (mut rng, seed) = seeded_rng("padded_sort_matches_blstrs");
    let b = bases::<G1>(&mut rng, 400);
    for n in [1usize, 31, 200, 400] {
        let s = scalars(&mut rng, n);
        for cap_log in [0, 1, 3, 6, 0] {
            let c = rng.gen_range(3..=9);
            let config = MsmConfig { window_bits: c, scatter_windows: rng.gen_range(0..=2), sort: Sort::Padded { cap_log }, ..MsmConfig::default() };
            check::<G1>("padded", seed, &b[..n], &s, &config);
        }
    }
    let same = Scalar::random(&mut rng);
    for (what, s) in [("all equal", vec![same; 300]), ("all one", vec![Scalar::ONE; 300]), ("all zero", vec![Scalar::ZERO; 300])] {
        for cap_log in [0, 2, 9] {
            let config = MsmConfig { window_bits: 5, sort: Sort::Padded { cap_log }, ..MsmConfig::default() };
            check::<G1>(what, seed, &b[..300], &s, &config);
        }
    }
    for p in [0.2, 1.0] {
        let config = MsmConfig { window_bits: 6, sort: Sort::Padded { cap_log: 2 }, ..MsmConfig::default() };
        check_density::<G1>(&mut rng, seed, 250, p, &config);
    }
    let b2 = bases::<G2>(&mut rng, 50);
    let s2 = scalars(&mut rng, 50);
    check::<G2>("padded G2", seed, &b2, &s2, &MsmConfig { window_bits: 4, sort: Sort::Padded { cap_log: 1 }, ..MsmConfig::default() });
}

/// The padded plan: the automatic capacity covers the mean with room (512
/// slots for the 384-entry buckets of G1 2^26 with 12 tables), the slots
/// and overflow fit the arena after the entries, and capacities whose
/// slots overflow `u32` positions are refused.
#[test]
fn padded_plan_capacity_and_layout() {
    assert_eq!(padded_cap_log(12 << 26, 1 << 21), 9);
    assert_eq!(padded_cap_log(12 << 24, 1 << 21), 8);
    assert_eq!(padded_cap_log(0, 1 << 21), 5);
    for (n, c, tables) in [(1usize << 20, 22, 12), (1000, 8, 3), (1 << 16, 16, 16)] {
        let plan = MsmPlan::new(n, Curve::G1, &MsmConfig { window_bits: c, tables, ..MsmConfig::default() }).unwrap();
        let shape = plan.padded.expect("tables: padded");
        let cap_log = shape.cap_log;
        let mean = plan.entries_max as f64 / plan.ones_key as f64;
        assert!(((1u64 << cap_log) as f64) > mean + 4.0 * mean.sqrt(), "n = {n}, c = {c}: cap 2^{cap_log}, mean {mean}");
        let l = &plan.layout;
        let entries_end = l.entries + (plan.entries_max as usize).div_ceil(2);
        assert!(l.padded >= entries_end && l.overflow >= l.padded + (shape.base(plan.n_keys) as usize).div_ceil(2));
        assert!(l.overflow_count >= l.overflow + plan.entries_max as usize && l.overflow_count < plan.scratch_words());
    }
    let untabled = MsmPlan::new(1000, Curve::G1, &MsmConfig::default()).unwrap();
    assert_eq!(untabled.padded, None, "no tables: counted by default");
    // The short top window's buckets (7420 at c = 22: r < 7420 · 2^242)
    // get slots for their own mean: 384 + 2^26 / 7420 ≈ 9429 → 2^14 at
    // 2^26 with one set; at 2^27 with two sets, the second set's.
    let shape = |n: usize, t: u32| MsmPlan::new(n, Curve::G1, &MsmConfig { window_bits: 22, tables: t, ..MsmConfig::default() }).unwrap().padded;
    assert_eq!(shape(1 << 26, 12), Some(PaddedShape { cap_log: 9, hot_log: 14, hot_begin: 0, hot_len: 7420 }));
    assert_eq!(shape(1 << 27, 6), Some(PaddedShape { cap_log: 9, hot_log: 15, hot_begin: 1 << 21, hot_len: 7420 }));
    // With few scalars the top window's buckets need no more room.
    assert_eq!(shape(1 << 10, 12), Some(PaddedShape::uniform(5)));
    // Layout in key order, hot buckets in the middle; packing round trip.
    let s = PaddedShape { cap_log: 2, hot_log: 5, hot_begin: 3, hot_len: 2 };
    let bases: Vec<u32> = (0..=7).map(|k| s.base(k)).collect();
    assert_eq!(bases, [0, 4, 8, 12, 44, 76, 80, 84]);
    assert_eq!((s.cap_log_of(2), s.cap_log_of(3), s.cap_log_of(4), s.cap_log_of(5)), (2, 5, 5, 2));
    assert_eq!(s.regions(7), [(0, 3, 2), (3, 2, 5), (5, 2, 2)]);
    assert_eq!(s.regions(4), [(0, 3, 2), (3, 1, 5), (4, 0, 2)]);
    let wide = PaddedShape { cap_log: 16, hot_log: 24, hot_begin: (1 << 25) + 1, hot_len: 1 << 25 };
    assert_eq!(PaddedShape::unpack(wide.pack()), wide);
    assert_eq!(PaddedShape::unpack(s.pack()), s);
    let huge = MsmConfig { window_bits: 22, sort: Sort::Padded { cap_log: 12 }, ..MsmConfig::default() };
    assert!(MsmPlan::new(1 << 20, Curve::G1, &huge).is_err());
}

/// The top window's largest digit against `r − 1` from blstrs: its bits
/// above the top window's position, plus one for a carry, capped at
/// `2^(bits−1)`; and no scalar's top digit exceeds it. Windows of one width
/// (to `c = 26`, as tables take them) and the narrowest layouts.
#[test]
fn top_digit_max_bounds_the_top_window() {
    let (mut rng, seed) = seeded_rng("top_digit_max_bounds_the_top_window");
    let r_minus_1 = r_minus(1).to_repr();
    let bit = |i: u32| (r_minus_1.as_ref()[(i / 8) as usize] >> (i % 8)) as u64 & 1;
    let some = [r_minus(1), r_minus(2), Scalar::ONE.double()];
    let mut s: Vec<Scalar> = some.to_vec();
    s.extend(scalars(&mut rng, 200));
    let layouts = (1..=26).map(WindowLayout::uniform).chain((1..=MAX_WINDOW_BITS).map(WindowLayout::narrowest));
    for l in layouts {
        let top_window = l.windows - 1;
        let shift = l.start(top_window);
        let top = (shift..255).rev().fold(0u64, |v, i| v << 1 | bit(i));
        let want = (top + 1).min(1 << (l.bits(top_window) - 1)) as u32;
        assert_eq!(l.top_digit_max(), want, "{l:?}");
        if l.c <= MAX_WINDOW_BITS {
            for x in &s {
                let mut d = SignedDigits::new(canonical(x), l);
                let last = (0..l.windows).map(|_| d.next_digit().0).last().unwrap();
                assert!(last <= want, "{l:?}: top digit {last} > {want} (seed {seed})");
            }
        }
    }
    assert_eq!(WindowLayout::uniform(22).top_digit_max(), 7420);
}

/// The automatic padded shape's top-window buckets on the host against
/// blstrs: random scalars, scalars whose top digits all hit one of those
/// buckets (r − 1: past its slots, through the overflow), one set with
/// tables (c = 9, 29 tables: 8 short buckets) and without (c = 5: one).
#[test]
fn padded_top_window_buckets_match_blstrs() {
    let (mut rng, seed) = seeded_rng("padded_top_window_buckets_match_blstrs");
    let n = 400;
    let b = bases::<G1>(&mut rng, n);
    let random = scalars(&mut rng, n);
    let top = vec![r_minus(1); n];
    let mixed: Vec<Scalar> = (0..n).map(|i| if i % 3 == 0 { random[i] } else { r_minus(1 + i as u64 % 2) }).collect();
    for (c, t) in [(9u32, 29u32), (5, 0)] {
        let config = MsmConfig { window_bits: c, tables: t, chunk0: 5, chunk: 4, sort: Sort::Padded { cap_log: 0 }, ..MsmConfig::default() };
        let shape = MsmPlan::new(n, Curve::G1, &config).unwrap().padded.unwrap();
        assert!(shape.hot_len == WindowLayout::uniform(c).top_digit_max() && shape.hot_log > shape.cap_log, "c = {c}: {shape:?}");
        let all = if t > 1 { tables_of::<G1>(&b, t, table_spacing_bits(c)) } else { b.clone() };
        for (what, s) in [("random", &random), ("r - 1", &top), ("mixed", &mixed)] {
            let got = host_msm_run::<G1>(&all, n, 0, s, None, n, None, &config);
            let want = naive::<G1>(b.iter().copied().zip(s.iter().copied()));
            assert!(got == want, "{what}, c = {c}, t = {t} (seed {seed})");
        }
    }
}

/// Scalars handed over as integers (`ScalarForm::Canonical`, as the H
/// step writes them) give blstrs' sums through every sort, in G1 and G2:
/// edge values (0, 1, r − 1, powers of two, carry runs), sizes across the
/// binned sort's tile, densities with base offsets, and witnesses planned
/// for their count of scalars other than 0 and 1.
#[test]
fn canonical_scalars_match_blstrs() {
    let (mut rng, seed) = seeded_rng("canonical_scalars_match_blstrs");
    let sorts = [Sort::Counted, Sort::Binned { bins_log: 0 }, Sort::Binned { bins_log: 2 }, Sort::Padded { cap_log: 0 }, Sort::Padded { cap_log: 1 }];
    let b = bases::<G1>(&mut rng, 4200);
    for n in [1usize, 2, 33, 300, 4097, 4200] {
        let s = scalars(&mut rng, n);
        let want = naive::<G1>(b.iter().copied().zip(s.iter().copied()));
        for sort in sorts {
            let config = MsmConfig { window_bits: rng.gen_range(3..=10), sort, ..MsmConfig::default() };
            let got = host_msm_run_in::<G1>(&b[..n], n, 0, &s, ScalarForm::Canonical, None, n, None, &config);
            assert!(got == want, "G1 n = {n}, {config:?}: canonical scalars, wrong sum (seed {seed})");
        }
    }
    for p in [0.3, 1.0] {
        let n = 700;
        let (words, bits) = density(&mut rng, n, p);
        let ones = bits.iter().filter(|b| **b).count();
        let offset = rng.gen_range(0..20);
        let b = bases::<G1>(&mut rng, offset + ones);
        let s = scalars(&mut rng, n);
        let selected = s.iter().zip(&bits).filter(|(_, bit)| **bit).map(|(s, _)| *s);
        let want = naive::<G1>(b[offset..].iter().copied().zip(selected));
        for sort in sorts {
            let config = MsmConfig { window_bits: rng.gen_range(3..=9), sort, ..MsmConfig::default() };
            let got = host_msm_run_in::<G1>(&b, b.len(), offset, &s, ScalarForm::Canonical, Some(&words), ones, None, &config);
            assert!(got == want, "G1 density p = {p}, offset {offset}, {config:?}: canonical scalars, wrong sum (seed {seed})");
        }
    }
    let s = witness_scalars(&mut rng, 3000, 0.05);
    let general = s.iter().filter(|s| is_general(s)).count();
    let want = naive::<G1>(b.iter().copied().zip(s.iter().copied()));
    for sort in [Sort::Auto, Sort::Counted, Sort::Binned { bins_log: 0 }] {
        let config = MsmConfig { sort, ..MsmConfig::default() };
        let got = host_msm_run_in::<G1>(&b[..3000], 3000, 0, &s, ScalarForm::Canonical, None, 3000, Some(general), &config);
        assert!(got == want, "G1 witness of {general} general scalars, {sort:?}: canonical scalars, wrong sum (seed {seed})");
    }
    let b2 = bases::<G2>(&mut rng, 300);
    let s2 = scalars(&mut rng, 300);
    let want = naive::<G2>(b2.iter().copied().zip(s2.iter().copied()));
    for sort in sorts {
        let config = MsmConfig { window_bits: rng.gen_range(3..=8), sort, ..MsmConfig::default() };
        let got = host_msm_run_in::<G2>(&b2, 300, 0, &s2, ScalarForm::Canonical, None, 300, None, &config);
        assert!(got == want, "G2, {config:?}: canonical scalars, wrong sum (seed {seed})");
    }
}
