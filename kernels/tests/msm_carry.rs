//! Carried buckets (`msm::plan::Carry`): an MSM run as several calls that
//! keep one set of bucket sums and reduce it once, through the host builds
//! of the kernels, against blstrs; and the cost model that picks their
//! window.

mod common;

use blstrs::Scalar;
use common::curves::{G1, G2};
use common::msm_host::*;
use common::{seeded_rng, Pod};
use cuzk_kernels::msm::plan::{
    carried_cost, carried_window_bits, default_window_bits, separate_cost, Accumulation, CallScalars, Carry, Curve, MsmConfig, MsmPlan, Sort, WindowCut,
};
use ff::Field;
use group::Group;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Calls of `sizes` scalars each (multiples of 64 but the last) over `n`
/// scalars, a density selecting some, the bases of each call after the
/// set bits before it.
fn calls_of(n: usize, sizes: &[usize], bits: Option<&[bool]>, scalars: &[Scalar], with_general: bool, offset: usize) -> Vec<CarriedCall> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut k = 0;
    while start < n {
        let len = sizes[k % sizes.len()].min(n - start);
        let take = |i: usize| bits.is_none_or(|b| b[i]);
        let before = (0..start).filter(|&i| take(i)).count();
        let selected = (start..start + len).filter(|&i| take(i)).count();
        let general = (start..start + len).filter(|&i| take(i) && scalars[i] != Scalar::ZERO && scalars[i] != Scalar::ONE).count();
        out.push(CarriedCall { start, len, selected, general: with_general.then_some(general), base_offset: offset + before });
        start += len;
        k += 1;
    }
    out
}

fn density_bits(rng: &mut ChaCha8Rng, n: usize, p: f64) -> (Vec<u64>, Vec<bool>) {
    let bits: Vec<bool> = (0..n).map(|_| rng.gen_bool(p)).collect();
    let mut words = vec![0u64; n.div_ceil(64)];
    for (i, _) in bits.iter().enumerate().filter(|(_, b)| **b) {
        words[i / 64] |= 1 << (i % 64);
    }
    (words, bits)
}

fn witness(rng: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
    (0..n)
        .map(|_| match rng.gen_range(0..10) {
            0..=4 => Scalar::ZERO,
            5..=8 => Scalar::ONE,
            _ => Scalar::random(&mut *rng),
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn check<C: MsmCurve>(what: &str, seed: u64, bases: &[C::Affine], offset: usize, scalars: &[Scalar], density: Option<(&[u64], &[bool])>, calls: &[CarriedCall], config: &MsmConfig)
where
    C::Affine: Pod,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    let selected = scalars.iter().enumerate().filter(|(i, _)| density.is_none_or(|(_, b)| b[*i])).map(|(_, s)| *s);
    let want = naive::<C>(bases[offset..].iter().copied().zip(selected));
    let got = host_msm_carried::<C>(bases, scalars, density.map(|d| d.0), calls, config);
    assert!(got == want, "{what}: n = {}, {} calls, config {config:?}: wrong result (seed {seed})", scalars.len(), calls.len());
}

fn config(c: u32, sort: Sort, accumulation: Accumulation) -> MsmConfig {
    MsmConfig { window_bits: c, sort, accumulation, chunk0: 4, chunk: 4, ..MsmConfig::default() }
}

#[test]
fn random_scalars_in_carried_calls_match_blstrs() {
    let (mut rng, seed) = seeded_rng("random_scalars_in_carried_calls_match_blstrs");
    for (n, sizes, c) in [(1000, vec![64], 5), (1000, vec![128, 320, 64], 8), (700, vec![512], 3), (130, vec![64], 11), (1, vec![64], 4), (300, vec![64, 192], 1)] {
        let b = bases::<G1>(&mut rng, n);
        let s = scalars(&mut rng, n);
        let calls = calls_of(n, &sizes, None, &s, false, 0);
        for sort in [Sort::Counted, random_sort(&mut rng)] {
            check::<G1>("G1 random", seed, &b, 0, &s, None, &calls, &config(c, sort, Accumulation::Xyzz));
        }
    }
    let n = 300;
    let b = bases::<G2>(&mut rng, n);
    let s = scalars(&mut rng, n);
    for sort in [Sort::Counted, random_sort(&mut rng)] {
        check::<G2>("G2 random", seed, &b, 0, &s, None, &calls_of(n, &[64, 128], None, &s, false, 0), &config(6, sort, Accumulation::Xyzz));
    }
}

/// Witness scalars (mostly 0 and 1: the ones bucket is carried too), a
/// density selecting some with the bases offset, each call planned for its
/// own general count, as the prover's MSM pieces are.
#[test]
fn witness_calls_with_densities_match_blstrs() {
    let (mut rng, seed) = seeded_rng("witness_calls_with_densities_match_blstrs");
    for (n, p, sizes, c) in [(1000, 0.3, vec![64], 6), (1000, 0.997, vec![128, 256], 9), (1100, 0.254, vec![512], 4), (700, 0.0, vec![128], 5), (640, 1.0, vec![64, 576], 7)] {
        let (words, bits) = density_bits(&mut rng, n, p);
        let ones = bits.iter().filter(|b| **b).count();
        let offset = rng.gen_range(0..20);
        let b = bases::<G1>(&mut rng, offset + ones);
        let s = witness(&mut rng, n);
        let calls = calls_of(n, &sizes, Some(&bits), &s, true, offset);
        check::<G1>("G1 witness with density", seed, &b, offset, &s, Some((&words, &bits)), &calls, &config(c, Sort::Counted, Accumulation::Xyzz));
    }
    let n = 400;
    let (words, bits) = density_bits(&mut rng, n, 0.5);
    let ones = bits.iter().filter(|b| **b).count();
    let b = bases::<G2>(&mut rng, 1 + ones);
    let s = witness(&mut rng, n);
    let calls = calls_of(n, &[64, 192], Some(&bits), &s, true, 1);
    check::<G2>("G2 witness with density", seed, &b, 1, &s, Some((&words, &bits)), &calls, &config(5, Sort::Counted, Accumulation::Xyzz));
}

/// Every call adds the same bucket sums (one point, one scalar): the
/// carried addition doubles; then a point and its negation in turn: it
/// cancels to the identity and starts again.
#[test]
fn carried_sums_double_and_cancel() {
    let (mut rng, seed) = seeded_rng("carried_sums_double_and_cancel");
    let n = 256;
    let p = affine::<G1>(&[<G1 as common::curves::TestCurve>::Projective::random(&mut rng)])[0];
    let same = vec![p; n];
    let alternating: Vec<_> = (0..n).map(|i| if (i / 64) % 2 == 0 { p } else { -p }).collect();
    for s in [vec![Scalar::from(5u64); n], vec![Scalar::ONE; n], vec![-Scalar::from(3u64); n]] {
        let calls = calls_of(n, &[64], None, &s, false, 0);
        for b in [&same, &alternating] {
            check::<G1>("same buckets every call", seed, b, 0, &s, None, &calls, &config(4, Sort::Counted, Accumulation::Xyzz));
        }
    }
}

/// A call with no entries (all zeros) in the middle, first or last still
/// keeps, sets or reduces the sums.
#[test]
fn calls_without_entries_keep_the_sums() {
    let (mut rng, seed) = seeded_rng("calls_without_entries_keep_the_sums");
    let n = 320;
    let b = bases::<G1>(&mut rng, n);
    for zero in [0..64, 128..192, 256..320] {
        let mut s = scalars(&mut rng, n);
        s[zero].fill(Scalar::ZERO);
        let calls = calls_of(n, &[64], None, &s, true, 0);
        check::<G1>("a call of zeros", seed, &b, 0, &s, None, &calls, &config(6, Sort::Counted, Accumulation::Xyzz));
    }
}

#[test]
fn calls_carry_only_between_plans_of_one_window() {
    let at = |n: usize, c: u32| MsmPlan::for_witness(n, n, None, Curve::G1, &MsmConfig { window_bits: c, ..MsmConfig::default() }).unwrap();
    assert!(at(1 << 20, 16).carries_with(&at(1000, 16)));
    assert!(!at(1 << 20, 16).carries_with(&at(1 << 20, 17)));
    // Cut narrowest, c = 17 cuts scalars as c = 16 does, and c = 20 differs
    // from the uniform cut.
    let cut = |n: usize, c: u32| MsmPlan::for_witness(n, n, None, Curve::G1, &MsmConfig { window_bits: c, window_cut: WindowCut::Narrowest, ..MsmConfig::default() }).unwrap();
    assert!(cut(1 << 20, 17).carries_with(&cut(1000, 16)));
    assert!(!cut(1 << 20, 20).carries_with(&at(1 << 20, 20)) && cut(1 << 20, 20).carries_with(&cut(1000, 20)));
    let g2 = MsmPlan::for_witness(1000, 1000, None, Curve::G2, &MsmConfig { window_bits: 16, ..MsmConfig::default() }).unwrap();
    assert!(!at(1000, 16).carries_with(&g2));
    // The batch-affine first level's runs are affine: it does not carry.
    let batch = MsmPlan::for_witness(1000, 1000, None, Curve::G1, &MsmConfig { window_bits: 16, accumulation: Accumulation::BatchAffine { streams: 0 }, ..MsmConfig::default() }).unwrap();
    assert!(!batch.carries_with(&batch) && !at(1000, 16).carries_with(&batch));
    // The bucket sums lie first, whatever else the plan holds.
    assert_eq!(at(1 << 20, 16).layout.sums, 0);
    assert_eq!((Carry::of(0, 3), Carry::of(2, 3), Carry::of(0, 1)), (Carry { first: true, last: false }, Carry { first: false, last: true }, Carry::WHOLE));
}

/// A 32 GiB partition's H MSM (2^27 − 1 random scalars) in 16 calls of
/// 2^23 keeps the whole MSM's 20-bit window, and the model puts it about
/// 6% above one call where separate calls (16 bits, each reduced) are
/// 23% above; in 1024 calls the window comes down.
#[test]
fn the_model_keeps_the_whole_window_for_an_h_msm_in_pieces() {
    let h = (1u64 << 27) - 1;
    let pieces = |size: u64| -> Vec<CallScalars> {
        (0..h.div_ceil(size)).map(|k| {
            let n = size.min(h - k * size);
            CallScalars { selected: n, general: n }
        }).collect()
    };
    let whole = pieces(h);
    let c_whole = carried_window_bits(&whole, |_| true).unwrap();
    assert_eq!(c_whole, default_window_bits(h as usize));
    let sixteen = pieces(1 << 23);
    assert_eq!(carried_window_bits(&sixteen, |_| true), Some(20));
    let one = carried_cost(c_whole, &whole);
    let carried = carried_cost(20, &sixteen) / one;
    let separate = separate_cost(&sixteen) / one;
    println!("H in 16 calls against one: carried {carried:.3}, separate {separate:.3}");
    assert!(carried > 1.0 && carried < 1.1 && separate > 1.2, "carried {carried}, separate {separate}");
    assert!(carried_window_bits(&pieces(1 << 17), |_| true).unwrap() < 20);
    // What does not fit is not chosen; nothing fits: no window.
    assert_eq!(carried_window_bits(&sixteen, |c| c <= 18), Some(18));
    assert_eq!(carried_window_bits(&sixteen, |_| false), None);
}
