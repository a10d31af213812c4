//! GPU MSM (G1 and G2) against blst's Pippenger (`cuzk::cpu::msm`) on fresh
//! random inputs; skips without a GPU.
//!
//! Sizes: every n in 1..=2^16 (prefixes of one input, 64 streams at once),
//! every n in 1..=300 with fresh inputs, 2^10, 2^16, 2^20 and 2^24 (G1 and
//! G2). Inputs
//! mix in the edge scalars 0, 1, r−1, r−k, small values and 2^k − 1 (long
//! carry chains), bases with identities, repeats and negations (buckets see
//! P+P and P−P), all-zero and all-one vectors, skewed inputs (90% zeros and
//! ones; one scalar repeated everywhere), density bitmaps with base offsets
//! as the prover uses them, and forced window sizes / chunk settings.

#![cfg(feature = "cuda")]

mod common;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::stream::{Stream, StreamFlags};
use cuzk::cpu::msm::{msm_g1 as cpu_g1, msm_g2 as cpu_g2, select_dense, to_bytes};
use cuzk::density::Density;
use cuzk::gpu::elementwise::{canonical_limbs, scalar_limbs};
use cuzk::gpu::msm::{
    g1_from_result_words, g2_from_result_words, level0_waves, msm_carried, msm_g1, msm_g1_blocking, msm_g1_blocking_with, msm_g2, msm_g2_blocking,
    msm_g2_blocking_with, msm_scratch_bytes, Accumulation, Carry, DeviceDensity, GpuBases, Level0Waves, MsmConfig, MsmCurve, MsmInput, MsmPlan, ScalarForm, Sort, WindowCut,
};
use cuzk::gpu::GpuDevice;
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

// ---------------------------------------------------------------------------
// Inputs

/// `n` random points (`cuzk::synthetic::random_walk_points`), then
/// identities, repeats and negations sprinkled in.
fn random_bases<P>(rng: &mut ChaCha8Rng, n: usize) -> Vec<P::AffineRepr>
where
    P: Group + Curve + Send + Sync,
    P::AffineRepr: PrimeCurveAffine + Send + Sync + std::ops::Neg<Output = P::AffineRepr>,
{
    let mut points = cuzk::synthetic::random_walk_points::<P>(n, rng.gen());
    for i in 0..n {
        match rng.gen_range(0..64) {
            0 => points[i] = P::AffineRepr::identity(),
            1 if i > 0 => points[i] = points[rng.gen_range(0..i)],
            2 if i > 0 => points[i] = -points[rng.gen_range(0..i)],
            _ => {}
        }
    }
    points
}

fn r_minus(k: u64) -> Scalar {
    -Scalar::from(k)
}

/// Random scalars with edge values mixed in (about one in four).
fn random_scalars(rng: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
    let seeds: Vec<u64> = (0..n.div_ceil(1 << 14)).map(|_| rng.gen()).collect();
    seeds
        .par_iter()
        .enumerate()
        .flat_map_iter(|(k, &seed)| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            let len = (1usize << 14).min(n - k * (1 << 14));
            (0..len)
                .map(|_| match r.gen_range(0..32) {
                    0 => Scalar::ZERO,
                    1 => Scalar::ONE,
                    2 => r_minus(1),
                    3 => r_minus(r.gen_range(2..1000)),
                    4 => Scalar::from(r.gen_range(2..1 << 20)),
                    5 => Scalar::from(2).pow_vartime([r.gen_range(1..255)]) - Scalar::ONE,
                    6 => Scalar::from(2).pow_vartime([r.gen_range(0..255)]),
                    _ => Scalar::random(&mut r),
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// 90% of the scalars are 0 or 1 (as in real witnesses), the rest random.
fn mostly_zero_one(rng: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
    (0..n)
        .map(|_| match rng.gen_range(0..10) {
            0..=5 => Scalar::ZERO,
            6..=8 => Scalar::ONE,
            _ => Scalar::random(&mut *rng),
        })
        .collect()
}

fn random_density(rng: &mut ChaCha8Rng, n: usize, p: f64) -> Density {
    let mut d = Density::default();
    for i in 0..n {
        d.push_unset();
        if rng.gen_bool(p) {
            d.set(i);
        }
    }
    d
}

// ---------------------------------------------------------------------------
// Checks

fn check_g1(gpu: &GpuDevice, what: &str, bases: &GpuBases, host: &[G1Affine], scalars: &[Scalar], config: &MsmConfig) {
    let got = msm_g1_blocking_with(gpu, bases, scalars, None, 0, config).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = cpu_g1(host, &to_bytes(scalars));
    assert!(got == want, "{what}: G1 MSM of {} scalars differs from blst ({config:?})", scalars.len());
}

fn check_g2(gpu: &GpuDevice, what: &str, bases: &GpuBases, host: &[G2Affine], scalars: &[Scalar], config: &MsmConfig) {
    let got = msm_g2_blocking_with(gpu, bases, scalars, None, 0, config).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = cpu_g2(host, &to_bytes(scalars));
    assert!(got == want, "{what}: G2 MSM of {} scalars differs from blst ({config:?})", scalars.len());
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn g1_every_size_up_to_300() {
    let Some(gpu) = common::gpu_or_skip("g1_every_size_up_to_300") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G1Projective>(&mut rng, 300);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    for n in 1..=300 {
        let s = random_scalars(&mut rng, n);
        check_g1(&gpu, "every size", &bases, &host[..n], &s, &MsmConfig::default());
    }
}

#[test]
fn g2_every_size_up_to_300() {
    let Some(gpu) = common::gpu_or_skip("g2_every_size_up_to_300") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G2Projective>(&mut rng, 300);
    let bases = GpuBases::upload_g2(&gpu, &host).unwrap();
    for n in 1..=300 {
        let s = random_scalars(&mut rng, n);
        check_g2(&gpu, "every size", &bases, &host[..n], &s, &MsmConfig::default());
    }
}

/// Every prefix `n = 1..=2^16` of one random input, as separate MSMs spread
/// over 64 streams (each with its own arena) so they run concurrently; the
/// reference is the prefix sums of `s_i·P_i`.
fn every_prefix<P>(
    name: &str,
    curve: MsmCurve,
    upload: fn(&GpuDevice, &[P::AffineRepr]) -> Result<GpuBases, cuzk::ProverError>,
    from_words: fn(&[u64]) -> P,
) where
    P: Group<Scalar = Scalar> + Curve + Send + Sync,
    P::AffineRepr: PrimeCurveAffine<Curve = P> + Send + Sync + std::ops::Neg<Output = P::AffineRepr>,
{
    let Some(gpu) = common::gpu_or_skip(name) else { return };
    const N: usize = 1 << 16;
    const STREAMS: usize = 64;
    let mut rng = common::rng();
    let host = random_bases::<P>(&mut rng, N);
    let scalars = random_scalars(&mut rng, N);
    let terms: Vec<P> = host.par_iter().zip(&scalars).map(|(b, s)| b.to_curve() * *s).collect();
    let want: Vec<P> = terms.iter().scan(P::identity(), |acc, t| { *acc += t; Some(*acc) }).collect();

    let bases = upload(&gpu, &host).unwrap();
    gpu.bind().unwrap();
    let words = curve.jacobian_limbs();
    let arena_words = (1..=N).map(|n| msm_scratch_bytes(n, curve, 0).unwrap()).max().unwrap() / 8;
    let mut arenas: Vec<DeviceBuffer<u64>> = (0..STREAMS).map(|_| unsafe { DeviceBuffer::uninitialized(arena_words) }.unwrap()).collect();
    let streams: Vec<Stream> = (0..STREAMS).map(|_| Stream::new(StreamFlags::NON_BLOCKING, None).unwrap()).collect();
    let scalar_buf = DeviceBuffer::from_slice(scalar_limbs(&scalars)).unwrap();
    let out = DeviceBuffer::from_slice(&vec![0u64; words * (N + 1)]).unwrap();
    for n in 1..=N {
        let k = n % STREAMS;
        let input = MsmInput { scalars: scalar_buf.as_device_ptr(), form: ScalarForm::Montgomery, n, density: None, base_offset: 0, general: None };
        let at = unsafe { out.as_device_ptr().add(words * n) };
        // SAFETY: every buffer outlives the synchronizes below; each stream
        // has its own arena.
        unsafe {
            match curve {
                MsmCurve::G1 => msm_g1(&gpu, &streams[k], &bases, &input, &MsmConfig::default(), &mut arenas[k], at),
                MsmCurve::G2 => msm_g2(&gpu, &streams[k], &bases, &input, &MsmConfig::default(), &mut arenas[k], at),
            }
            .unwrap()
        };
    }
    for s in &streams {
        s.synchronize().unwrap();
    }
    let mut got = vec![0u64; words * (N + 1)];
    out.copy_to(&mut got[..]).unwrap();
    for n in 1..=N {
        assert!(from_words(&got[words * n..words * (n + 1)]) == want[n - 1], "{name}: prefix of {n} scalars differs from Σ s_i·P_i");
    }
}

#[test]
fn g1_every_size_up_to_2_16() {
    every_prefix::<G1Projective>("g1_every_size_up_to_2_16", MsmCurve::G1, GpuBases::upload_g1, |w| {
        g1_from_result_words(w.try_into().unwrap())
    });
}

#[test]
fn g2_every_size_up_to_2_16() {
    every_prefix::<G2Projective>("g2_every_size_up_to_2_16", MsmCurve::G2, GpuBases::upload_g2, |w| {
        g2_from_result_words(w.try_into().unwrap())
    });
}

#[test]
fn g1_and_g2_at_2_24() {
    let Some(gpu) = common::gpu_or_skip("g1_and_g2_at_2_24") else { return };
    let mut rng = common::rng();
    let n = 1 << 24;
    let s = random_scalars(&mut rng, n);
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    check_g1(&gpu, "2^24", &bases, &host, &s, &MsmConfig::default());
    drop((bases, host));
    let host = random_bases::<G2Projective>(&mut rng, n);
    let bases = GpuBases::upload_g2(&gpu, &host).unwrap();
    check_g2(&gpu, "2^24", &bases, &host, &s, &MsmConfig::default());
}

#[test]
fn g1_large_sizes() {
    let Some(gpu) = common::gpu_or_skip("g1_large_sizes") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G1Projective>(&mut rng, 1 << 20);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    for log in [10, 16, 20] {
        let n = 1 << log;
        let s = random_scalars(&mut rng, n);
        check_g1(&gpu, &format!("2^{log}"), &bases, &host[..n], &s, &MsmConfig::default());
    }
    let s = mostly_zero_one(&mut rng, 1 << 20);
    check_g1(&gpu, "2^20, 90% zero/one", &bases, &host, &s, &MsmConfig::default());
}

#[test]
fn g2_large_sizes() {
    let Some(gpu) = common::gpu_or_skip("g2_large_sizes") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G2Projective>(&mut rng, 1 << 20);
    let bases = GpuBases::upload_g2(&gpu, &host).unwrap();
    for log in [10, 16, 20] {
        let n = 1 << log;
        let s = random_scalars(&mut rng, n);
        check_g2(&gpu, &format!("2^{log}"), &bases, &host[..n], &s, &MsmConfig::default());
    }
    let s = mostly_zero_one(&mut rng, 1 << 20);
    check_g2(&gpu, "2^20, 90% zero/one", &bases, &host, &s, &MsmConfig::default());
}

/// Windows cut narrowest (`WindowCut::Narrowest`: as few `c` bits wide as
/// 256 bits need, the rest `c − 1`) against blst: G1 at c = 16 and 18 … 22
/// and G2 at 16, 18 and 19 (17 cuts as 16 does), counted and binned, random scalars and edge vectors whose
/// digits all go to a narrow window's top buckets (r − 1) or one bucket.
#[test]
fn narrowest_windows_match_blst() {
    let Some(gpu) = common::gpu_or_skip("narrowest_windows_match_blst") else { return };
    let mut rng = common::rng();
    let n = 20_000;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 3000);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    let vectors: Vec<(&str, Vec<Scalar>)> = vec![
        ("random", random_scalars(&mut rng, n)),
        ("all r-1", vec![r_minus(1); n]),
        ("one value everywhere", vec![Scalar::random(&mut rng); n]),
    ];
    for sort in [Sort::Counted, Sort::Binned { bins_log: 0 }] {
        for (what, s) in &vectors {
            for c in [16, 18, 19, 20, 21, 22] {
                let config = MsmConfig { window_bits: c, sort, window_cut: WindowCut::Narrowest, ..MsmConfig::default() };
                check_g1(&gpu, &format!("{what}, narrowest c = {c}"), &bases, &host, s, &config);
                if c <= 19 {
                    check_g2(&gpu, &format!("{what}, narrowest c = {c}"), &bases2, &host2, &s[..3000], &config);
                }
            }
        }
    }
}

#[test]
fn edge_scalar_vectors_and_identity_bases() {
    let Some(gpu) = common::gpu_or_skip("edge_scalar_vectors_and_identity_bases") else { return };
    let mut rng = common::rng();
    let n = 5000;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 1000);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    let one_value = Scalar::random(&mut rng);
    let vectors: Vec<(&str, Vec<Scalar>)> = vec![
        ("all zero", vec![Scalar::ZERO; n]),
        ("all one", vec![Scalar::ONE; n]),
        ("all r-1", vec![r_minus(1); n]),
        ("all two", vec![Scalar::from(2); n]),
        ("one value everywhere", vec![one_value; n]),
        ("alternating 0/1/r-1", (0..n).map(|i| [Scalar::ZERO, Scalar::ONE, r_minus(1)][i % 3]).collect()),
    ];
    for (what, s) in &vectors {
        check_g1(&gpu, what, &bases, &host, s, &MsmConfig::default());
        check_g2(&gpu, what, &bases2, &host2, &s[..1000], &MsmConfig::default());
    }
    // Identity bases only.
    let ids = vec![G1Affine::identity(); 100];
    let id_bases = GpuBases::upload_g1(&gpu, &ids).unwrap();
    let s = random_scalars(&mut rng, 100);
    let got = msm_g1_blocking(&gpu, &id_bases, &s, None).unwrap();
    assert!(bool::from(got.is_identity()), "identity bases");
    // No scalars at all.
    let got = msm_g1_blocking(&gpu, &bases, &[], None).unwrap();
    assert!(bool::from(got.is_identity()), "empty MSM");
    let got = msm_g2_blocking(&gpu, &bases2, &[], None).unwrap();
    assert!(bool::from(got.is_identity()), "empty G2 MSM");
}

#[test]
fn window_sizes_and_chunk_settings() {
    let Some(gpu) = common::gpu_or_skip("window_sizes_and_chunk_settings") else { return };
    let mut rng = common::rng();
    let n = 20_000;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 2000);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    let s = random_scalars(&mut rng, n);
    let skew = vec![Scalar::random(&mut rng); n];
    for c in [1, 2, 3, 5, 8, 11, 13, 15, 16, 17, 18, 20] {
        let config = MsmConfig { window_bits: c, ..MsmConfig::default() };
        check_g1(&gpu, "window size", &bases, &host, &s, &config);
    }
    for config in [
        MsmConfig { window_bits: 10, chunk0: 1, chunk: 4, reduce_fan_log: 1, reduce_top_fan_log: 4, scatter_windows: 1, tables: 0, sort: Sort::Counted, ..MsmConfig::default() },
        MsmConfig { window_bits: 12, chunk0: 3, chunk: 5, reduce_fan_log: 8, reduce_top_fan_log: 0, scatter_windows: 3, tables: 0, sort: Sort::Padded { cap_log: 2 }, ..MsmConfig::default() },
        MsmConfig { window_bits: 16, chunk0: 4096, chunk: 64, reduce_fan_log: 3, reduce_top_fan_log: 2, scatter_windows: 0, tables: 0, sort: Sort::Padded { cap_log: 0 }, ..MsmConfig::default() },
    ] {
        check_g1(&gpu, "chunk settings", &bases, &host, &s, &config);
        check_g1(&gpu, "chunk settings, one giant bucket per window", &bases, &host, &skew, &config);
        check_g2(&gpu, "chunk settings", &bases2, &host2, &s[..2000], &config);
    }
}

fn batch_affine(streams: u32) -> MsmConfig {
    MsmConfig { accumulation: Accumulation::BatchAffine { streams }, ..MsmConfig::default() }
}

/// The batch-affine first level (`Accumulation::BatchAffine`) at every size
/// to 300, G1 and G2, with small windows and chunks and few or many streams
/// per thread (small enough for compute-sanitizer).
#[test]
fn batch_affine_every_size_up_to_300() {
    let Some(gpu) = common::gpu_or_skip("batch_affine_every_size_up_to_300") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G1Projective>(&mut rng, 300);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 300);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    for n in 1..=300 {
        let s = random_scalars(&mut rng, n);
        let config = MsmConfig { window_bits: rng.gen_range(0..=9), chunk0: rng.gen_range(0..=8), ..batch_affine([1, 3, 7, 0][n % 4]) };
        check_g1(&gpu, "batch-affine every size", &bases, &host[..n], &s, &config);
        check_g2(&gpu, "batch-affine every size", &bases2, &host2[..n], &s, &config);
    }
}

/// The batch-affine first level on large and adversarial inputs (one
/// bucket per window, a point added to itself, a point and its negation,
/// identities): 2^16, 2^20 and G1 2^24, few and many streams per thread.
#[test]
fn batch_affine_large_and_adversarial() {
    let Some(gpu) = common::gpu_or_skip("batch_affine_large_and_adversarial") else { return };
    let mut rng = common::rng();
    let batch = batch_affine;
    let host = random_bases::<G1Projective>(&mut rng, 1 << 20);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 1 << 16);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    for streams in [1, 5, 0] {
        for log in [16, 20] {
            let n = 1 << log;
            let s = random_scalars(&mut rng, n);
            check_g1(&gpu, &format!("batch-affine 2^{log}"), &bases, &host[..n], &s, &batch(streams));
            let s = mostly_zero_one(&mut rng, n);
            check_g1(&gpu, &format!("batch-affine 2^{log}, 90% zero/one"), &bases, &host[..n], &s, &batch(streams));
        }
        let s = random_scalars(&mut rng, 1 << 16);
        check_g2(&gpu, "batch-affine G2 2^16", &bases2, &host2, &s, &batch(streams));
    }
    // Adversarial: one bucket, doublings, cancellations, identities.
    let n = 20_000;
    let p = host.iter().copied().find(|b| !bool::from(b.is_identity())).unwrap();
    let same = Scalar::random(&mut rng);
    let cases: Vec<(&str, Vec<G1Affine>, Vec<Scalar>)> = vec![
        ("one bucket", host[..n].to_vec(), vec![Scalar::from(5); n]),
        ("a point added to itself", vec![p; n], vec![same; n]),
        ("a point and its negation", (0..n).map(|i| if i % 2 == 0 { p } else { -p }).collect(), vec![same; n]),
        ("identities among points", (0..n).map(|i| if i % 3 == 0 { G1Affine::identity() } else { host[i] }).collect(), vec![same; n]),
    ];
    for (what, b, s) in &cases {
        let gb = GpuBases::upload_g1(&gpu, b).unwrap();
        for streams in [1, 2, 0] {
            check_g1(&gpu, what, &gb, b, s, &batch(streams));
        }
    }
    let big = random_bases::<G1Projective>(&mut rng, 1 << 24);
    let big_bases = GpuBases::upload_g1(&gpu, &big).unwrap();
    let s = random_scalars(&mut rng, 1 << 24);
    check_g1(&gpu, "batch-affine 2^24", &big_bases, &big, &s, &batch(0));
}

#[test]
fn density_with_base_offsets() {
    let Some(gpu) = common::gpu_or_skip("density_with_base_offsets") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G1Projective>(&mut rng, 70_000);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 5_000);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    for (n, p) in [(1usize, 1.0), (64, 0.5), (65, 0.9), (300, 0.3), (1 << 16, 0.7), (1 << 16, 0.05), (1 << 16, 1.0)] {
        let d = random_density(&mut rng, n, p);
        let offset = rng.gen_range(0..=host.len() - d.count_ones()).min(37);
        let s = random_scalars(&mut rng, n);
        let got = msm_g1_blocking(&gpu, &bases, &s, Some((&d, offset))).unwrap();
        let want = cpu_g1(&host[offset..], &select_dense(&d, &to_bytes(&s)));
        assert!(got == want, "G1 density n = {n}, p = {p}, offset {offset}");
        if n <= 4000 {
            let offset = 11;
            let got = msm_g2_blocking(&gpu, &bases2, &s, Some((&d, offset))).unwrap();
            let want = cpu_g2(&host2[offset..], &select_dense(&d, &to_bytes(&s)));
            assert!(got == want, "G2 density n = {n}, p = {p}, offset {offset}");
        }
    }
    // An offset without density.
    let s = random_scalars(&mut rng, 1000);
    let got = msm_g1_blocking_with(&gpu, &bases, &s, None, 500, &MsmConfig::default()).unwrap();
    assert!(got == cpu_g1(&host[500..], &to_bytes(&s)), "offset without density");
}

#[test]
fn async_calls_share_one_arena_on_one_stream() {
    let Some(gpu) = common::gpu_or_skip("async_calls_share_one_arena_on_one_stream") else { return };
    let mut rng = common::rng();
    let n = 1 << 14;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let inputs: Vec<Vec<Scalar>> = (0..4).map(|k| random_scalars(&mut rng, n >> k)).collect();
    gpu.bind().unwrap();
    // One arena for all calls: the largest any of them needs.
    let bytes = inputs.iter().map(|s| msm_scratch_bytes(s.len(), MsmCurve::G1, 0).unwrap()).max().unwrap();
    let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(bytes / 8) }.unwrap();
    let scalar_bufs: Vec<DeviceBuffer<u64>> = inputs.iter().map(|s| DeviceBuffer::from_slice(scalar_limbs(s)).unwrap()).collect();
    let out = DeviceBuffer::from_slice(&vec![0u64; 18 * inputs.len()]).unwrap();
    let stream = Stream::new(StreamFlags::DEFAULT, None).unwrap();
    for (k, (s, buf)) in inputs.iter().zip(&scalar_bufs).enumerate() {
        let input = MsmInput { scalars: buf.as_device_ptr(), form: ScalarForm::Montgomery, n: s.len(), density: None, base_offset: 0, general: None };
        // SAFETY: buffers live until the synchronize below.
        unsafe { msm_g1(&gpu, &stream, &bases, &input, &MsmConfig::default(), &mut arena, out.as_device_ptr().add(18 * k)).unwrap() };
    }
    stream.synchronize().unwrap();
    let mut words = vec![0u64; 18 * inputs.len()];
    out.copy_to(&mut words[..]).unwrap();
    for (k, s) in inputs.iter().enumerate() {
        let w: [u64; 18] = words[18 * k..18 * (k + 1)].try_into().unwrap();
        let got = unsafe { std::mem::transmute::<[u64; 18], G1Projective>(w) };
        assert!(got == cpu_g1(&host, &to_bytes(s)), "async call {k}");
    }

    // Misuse is reported, not run.
    let input = MsmInput { scalars: scalar_bufs[0].as_device_ptr(), form: ScalarForm::Montgomery, n, density: None, base_offset: 1, general: None };
    let err = unsafe { msm_g1(&gpu, &stream, &bases, &input, &MsmConfig::default(), &mut arena, out.as_device_ptr()) };
    assert!(err.is_err(), "bases past the end must be rejected");
    let mut small = unsafe { DeviceBuffer::<u64>::uninitialized(16) }.unwrap();
    let input = MsmInput { base_offset: 0, ..input };
    let err = unsafe { msm_g1(&gpu, &stream, &bases, &input, &MsmConfig::default(), &mut small, out.as_device_ptr()) };
    assert!(err.is_err(), "a small arena must be rejected");
    let g2_bases = GpuBases::upload_g2(&gpu, &[G2Affine::generator()]).unwrap();
    let input = MsmInput { n: 1, ..input };
    let err = unsafe { msm_g1(&gpu, &stream, &g2_bases, &input, &MsmConfig::default(), &mut arena, out.as_device_ptr()) };
    assert!(err.is_err(), "G2 bases in a G1 MSM must be rejected");
}

/// An MSM in calls that carry their buckets (`msm_carried`), as the
/// prover runs an MSM whose bases or arena hold a piece: calls of 64-bit
/// aligned ranges, each planned for its own scalars at one window, one
/// arena on one stream, only the last writing the result; random scalars
/// (H) at the whole MSM's window and witness scalars with a density and
/// base offset, G1 and G2, both sorts.
#[test]
fn carried_calls_match_blst() {
    let Some(gpu) = common::gpu_or_skip("carried_calls_match_blst") else { return };
    let mut rng = common::rng();
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::DEFAULT, None).unwrap();
    let host = random_bases::<G1Projective>(&mut rng, 1 << 22);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let host2 = random_bases::<G2Projective>(&mut rng, 1 << 18);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    // (curve, n, call size, window, witness scalars, density fraction, accumulation)
    let cases = [
        (MsmCurve::G1, 1 << 22, 1 << 18, 20, false, None, Sort::Counted),
        (MsmCurve::G1, (1 << 22) - 1, 1 << 20, 18, false, None, Sort::Counted),
        (MsmCurve::G1, 300_000, 1 << 16, 16, false, None, Sort::Padded { cap_log: 0 }),
        (MsmCurve::G1, 1 << 20, 1 << 18, 16, true, Some(0.997), Sort::Counted),
        (MsmCurve::G1, 1 << 20, 1 << 17, 12, true, Some(0.254), Sort::Counted),
        (MsmCurve::G2, 1 << 18, 1 << 16, 16, false, None, Sort::Counted),
        (MsmCurve::G2, 1 << 18, 1 << 15, 13, true, Some(0.254), Sort::Padded { cap_log: 0 }),
    ];
    // Every other case with the first level fitted to the device's waves
    // (smaller chunks: on an H200 8 entries instead of 32 for the first).
    let waves = level0_waves(&gpu).unwrap();
    for (i, (curve, n, size, c, witness, fraction, sort)) in cases.into_iter().enumerate() {
        let s = if witness { mostly_zero_one(&mut rng, n) } else { random_scalars(&mut rng, n) };
        let d = fraction.map(|p| random_density(&mut rng, n, p));
        let offset = if d.is_some() { 7 } else { 0 };
        let level0_waves = if i % 2 == 0 { waves } else { Level0Waves::default() };
        let config = MsmConfig { window_bits: c, sort, level0_waves, ..MsmConfig::default() };
        let starts: Vec<usize> = (0..n).step_by(size).collect();
        let take = |i: usize| d.as_ref().is_none_or(|d| d.get(i));
        let calls: Vec<(usize, usize, usize, usize)> = starts
            .iter()
            .map(|&start| {
                let len = size.min(n - start);
                let before = (0..start).filter(|&i| take(i)).count();
                let selected = (start..start + len).filter(|&i| take(i)).count();
                (start, len, selected, before)
            })
            .collect();
        let arena_words = calls
            .iter()
            .map(|&(_, len, selected, _)| MsmPlan::for_witness(len, selected, None, curve, &config).unwrap().scratch_words())
            .max()
            .unwrap();
        let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(arena_words) }.unwrap();
        let scalar_buf = DeviceBuffer::from_slice(scalar_limbs(&s)).unwrap();
        let density_buf = d.as_ref().map(|d| DeviceBuffer::from_slice(d.words()).unwrap());
        let out = DeviceBuffer::from_slice(&vec![0u64; curve.jacobian_limbs()]).unwrap();
        for (k, &(start, len, selected, before)) in calls.iter().enumerate() {
            let input = MsmInput {
                scalars: unsafe { scalar_buf.as_device_ptr().add(start * 4) },
                form: ScalarForm::Montgomery,
                n: len,
                density: density_buf.as_ref().map(|b| DeviceDensity { words: unsafe { b.as_device_ptr().add(start / 64) }, ones: selected }),
                base_offset: offset + before,
                general: None,
            };
            let b = if curve == MsmCurve::G1 { &bases } else { &bases2 };
            // SAFETY: every buffer outlives the synchronize below; one
            // arena, one stream, the calls in order.
            unsafe { msm_carried(&gpu, &stream, b, &input, &config, &mut arena, out.as_device_ptr(), Carry::of(k, calls.len())).unwrap() };
        }
        stream.synchronize().unwrap();
        let mut words = vec![0u64; curve.jacobian_limbs()];
        out.copy_to(&mut words[..]).unwrap();
        let bytes = to_bytes(&s);
        let what = format!("{curve:?} {n} in {} carried calls at c = {c}, witness {witness}, density {fraction:?}, {sort:?}", calls.len());
        match curve {
            MsmCurve::G1 => {
                let want = match &d { Some(d) => cpu_g1(&host[offset..], &select_dense(d, &bytes)), None => cpu_g1(&host[..n], &bytes) };
                assert!(g1_from_result_words(words[..].try_into().unwrap()) == want, "{what}");
            }
            MsmCurve::G2 => {
                let want = match &d { Some(d) => cpu_g2(&host2[offset..], &select_dense(d, &bytes)), None => cpu_g2(&host2[..n], &bytes) };
                assert!(g2_from_result_words(words[..].try_into().unwrap()) == want, "{what}");
            }
        }
        eprintln!("{what}: ok");
    }
    // Calls without a set window are refused.
    let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(1 << 20) }.unwrap();
    let buf = DeviceBuffer::from_slice(scalar_limbs(&[Scalar::ONE])).unwrap();
    let input = MsmInput { scalars: buf.as_device_ptr(), form: ScalarForm::Montgomery, n: 1, density: None, base_offset: 0, general: None };
    let err = unsafe { msm_carried(&gpu, &stream, &bases, &input, &MsmConfig::default(), &mut arena, buf.as_device_ptr(), Carry::of(0, 2)) };
    assert!(err.is_err(), "carried calls need a set window");
    let batch = MsmConfig { window_bits: 8, accumulation: Accumulation::BatchAffine { streams: 0 }, ..MsmConfig::default() };
    let err = unsafe { msm_carried(&gpu, &stream, &bases, &input, &batch, &mut arena, buf.as_device_ptr(), Carry::of(0, 2)) };
    assert!(err.is_err(), "the batch-affine first level does not carry");
}

/// Precomputed tables made on the GPU (`GpuBases::upload_*_tables`):
/// MSMs with fewer bucket sets against blst, G1 and G2, random and
/// mostly-zero/one scalars, a density with an offset; and a config that
/// does not match the tables is refused.
#[test]
fn precomputed_tables() {
    let Some(gpu) = common::gpu_or_skip("precomputed_tables") else { return };
    let mut rng = common::rng();
    let n = (1 << 16) + 77;
    let host = random_bases::<G1Projective>(&mut rng, n);
    for (c, t) in [(16, 16), (20, 13), (20, 4), (22, 6), (24, 11), (8, 3)] {
        let bases = GpuBases::upload_g1_tables(&gpu, &host, c, t).unwrap();
        let config = MsmConfig { window_bits: c, tables: t, ..MsmConfig::default() };
        let s = random_scalars(&mut rng, n);
        check_g1(&gpu, &format!("G1 tables c = {c}, t = {t}"), &bases, &host, &s, &config);
        let s = mostly_zero_one(&mut rng, n);
        check_g1(&gpu, &format!("G1 tables c = {c}, t = {t}, 90% zero/one"), &bases, &host, &s, &config);
        let wrong = MsmConfig { window_bits: c, ..MsmConfig::default() };
        assert!(msm_g1_blocking_with(&gpu, &bases, &s, None, 0, &wrong).is_err(), "untabled config accepted");
        // The default sorts padded with tables; the counted sort too.
        let counted = MsmConfig { sort: Sort::Counted, ..config };
        check_g1(&gpu, &format!("G1 tables c = {c}, t = {t}, counted sort"), &bases, &host, &s, &counted);
    }
    // A density with a base offset, as the prover's B MSMs use them.
    let bases = GpuBases::upload_g1_tables(&gpu, &host, 18, 5).unwrap();
    let config = MsmConfig { window_bits: 18, tables: 5, ..MsmConfig::default() };
    let s = random_scalars(&mut rng, 5000);
    let d = random_density(&mut rng, s.len(), 0.3);
    let offset = 17;
    let got = msm_g1_blocking_with(&gpu, &bases, &s, Some(&d), offset, &config).unwrap();
    let want = cpu_g1(&host[offset..], &select_dense(&d, &to_bytes(&s)));
    assert!(got == want, "G1 tables with a density and offset {offset}");

    let host2 = random_bases::<G2Projective>(&mut rng, 1 << 14);
    for (c, t) in [(16, 16), (20, 7)] {
        let bases = GpuBases::upload_g2_tables(&gpu, &host2, c, t).unwrap();
        let config = MsmConfig { window_bits: c, tables: t, ..MsmConfig::default() };
        let s = random_scalars(&mut rng, host2.len());
        check_g2(&gpu, &format!("G2 tables c = {c}, t = {t}"), &bases, &host2, &s, &config);
    }
}

/// The histogram-free padded sort without tables: capacities from one slot
/// per bucket (every bucket overflows) to the automatic one, sizes around
/// warps and blocks, one scalar everywhere and all ones (one giant bucket
/// each), mostly zero/one witnesses, a density with an offset, 2^22
/// scalars at c = 22 (the tables' window), G2.
#[test]
fn padded_sort() {
    let Some(gpu) = common::gpu_or_skip("padded_sort") else { return };
    let mut rng = common::rng();
    let n = 1 << 22;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let padded = |cap_log| Sort::Padded { cap_log };
    for m in [1usize, 31, 129, 100_000] {
        let s = random_scalars(&mut rng, m);
        for cap_log in [0, 1, 4, 8] {
            let config = MsmConfig { sort: padded(cap_log), ..MsmConfig::default() };
            check_g1(&gpu, &format!("padded, 2^{cap_log} slots"), &bases, &host[..m], &s, &config);
        }
    }
    let m = 1 << 20;
    let config = MsmConfig { window_bits: 16, sort: padded(0), ..MsmConfig::default() };
    let same = vec![Scalar::random(&mut rng); m];
    check_g1(&gpu, "padded, one scalar everywhere", &bases, &host[..m], &same, &config);
    check_g1(&gpu, "padded, all one", &bases, &host[..m], &vec![Scalar::ONE; m], &config);
    let s = mostly_zero_one(&mut rng, m);
    check_g1(&gpu, "padded, 90% zero/one", &bases, &host[..m], &s, &config);
    let s = random_scalars(&mut rng, m);
    let d = random_density(&mut rng, m, 0.3);
    let offset = 1000;
    let got = msm_g1_blocking_with(&gpu, &bases, &s, Some(&d), offset, &config).unwrap();
    let want = cpu_g1(&host[offset..], &select_dense(&d, &to_bytes(&s)));
    assert!(got == want, "padded with a density and offset {offset}");
    let s = random_scalars(&mut rng, n);
    let wide = MsmConfig { window_bits: 22, sort: padded(0), ..MsmConfig::default() };
    check_g1(&gpu, "padded 2^22, c = 22", &bases, &host, &s, &wide);
    drop(bases);
    let host2 = random_bases::<G2Projective>(&mut rng, 1 << 16);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    let s = random_scalars(&mut rng, host2.len());
    check_g2(&gpu, "padded G2", &bases2, &host2, &s, &MsmConfig { sort: padded(2), ..MsmConfig::default() });
}

/// The binned scatter at small sizes (few enough launches for
/// compute-sanitizer's memcheck, racecheck and synccheck): one and several
/// tiles, one bin, a few and the most, a window's tiles entry by entry
/// (c = 16, 2 bins), one hot bucket, a witness, several windows a pass 1
/// launch, against blst.
#[test]
fn binned_sort_small_sizes() {
    let Some(gpu) = common::gpu_or_skip("binned_sort_small_sizes") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G1Projective>(&mut rng, 9000);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let binned = |c, bins_log| MsmConfig { window_bits: c, sort: Sort::Binned { bins_log }, ..MsmConfig::default() };
    for m in [1usize, 300, 4097, 9000] {
        let s = random_scalars(&mut rng, m);
        for (c, bins_log) in [(2, 0), (8, 3), (12, 11), (16, 1)] {
            check_g1(&gpu, &format!("binned, c = {c}, 2^{bins_log} bins"), &bases, &host[..m], &s, &binned(c, bins_log));
        }
    }
    let same = vec![Scalar::random(&mut rng); 9000];
    check_g1(&gpu, "binned, one scalar everywhere", &bases, &host, &same, &binned(10, 0));
    let s = mostly_zero_one(&mut rng, 9000);
    check_g1(&gpu, "binned, 90% zero/one", &bases, &host, &s, &binned(10, 0));
    // Pass 1 over two, three and eight windows a launch (one by default).
    let r = random_scalars(&mut rng, 9000);
    for bin_windows in [2, 3, 8] {
        for (what, s) in [("random", &r), ("90% zero/one", &s)] {
            check_g1(&gpu, &format!("binned, {what}, {bin_windows} windows a pass"), &bases, &host, s, &MsmConfig { bin_windows, ..binned(9, 0) });
        }
    }
}

/// The binned scatter (`Sort::Binned`): small and large sizes, bins from 2
/// to 2^11 (2 at c = 16: every tile past shared memory's keys, entry by
/// entry), one scalar everywhere (one hot bucket per window), all ones,
/// witnesses, a density with an offset, c = 22, one to five windows a
/// pass 1 launch, G2; against blst.
#[test]
fn binned_sort() {
    let Some(gpu) = common::gpu_or_skip("binned_sort") else { return };
    let mut rng = common::rng();
    let n = 1 << 22;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let binned = |bins_log| Sort::Binned { bins_log };
    for m in [1usize, 31, 4097, 100_000] {
        let s = random_scalars(&mut rng, m);
        for bins_log in [0, 1, 4, 11] {
            let config = MsmConfig { window_bits: 12, sort: binned(bins_log), ..MsmConfig::default() };
            check_g1(&gpu, &format!("binned, 2^{bins_log} bins"), &bases, &host[..m], &s, &config);
        }
    }
    let m = 1 << 20;
    let s = random_scalars(&mut rng, m);
    for bins_log in [1, 6, 10] {
        let config = MsmConfig { window_bits: 16, sort: binned(bins_log), ..MsmConfig::default() };
        check_g1(&gpu, &format!("binned 2^20, 2^{bins_log} bins"), &bases, &host[..m], &s, &config);
    }
    let config = MsmConfig { window_bits: 16, sort: binned(0), ..MsmConfig::default() };
    let same = vec![Scalar::random(&mut rng); m];
    check_g1(&gpu, "binned, one scalar everywhere", &bases, &host[..m], &same, &config);
    check_g1(&gpu, "binned, all one", &bases, &host[..m], &vec![Scalar::ONE; m], &config);
    let s = mostly_zero_one(&mut rng, m);
    check_g1(&gpu, "binned, 90% zero/one", &bases, &host[..m], &s, &config);
    let s = random_scalars(&mut rng, m);
    let d = random_density(&mut rng, m, 0.3);
    let offset = 1000;
    let got = msm_g1_blocking_with(&gpu, &bases, &s, Some(&d), offset, &config).unwrap();
    let want = cpu_g1(&host[offset..], &select_dense(&d, &to_bytes(&s)));
    assert!(got == want, "binned with a density and offset {offset}");
    let s = random_scalars(&mut rng, n);
    check_g1(&gpu, "binned 2^22, default window", &bases, &host, &s, &MsmConfig { sort: binned(0), ..MsmConfig::default() });
    for bin_windows in [2, 5] {
        check_g1(&gpu, &format!("binned 2^22, {bin_windows} windows a pass"), &bases, &host, &s, &MsmConfig { sort: binned(0), bin_windows, ..MsmConfig::default() });
    }
    let wide = MsmConfig { window_bits: 22, sort: binned(0), ..MsmConfig::default() };
    check_g1(&gpu, "binned 2^22, c = 22", &bases, &host, &s, &wide);
    drop(bases);
    let host2 = random_bases::<G2Projective>(&mut rng, 1 << 16);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    let s = random_scalars(&mut rng, host2.len());
    check_g2(&gpu, "binned G2", &bases2, &host2, &s, &MsmConfig { sort: binned(0), ..MsmConfig::default() });
}

/// A witness's MSMs: 98% zeros and ones, planned for the count of the other
/// scalars (`MsmInput::general`: a smaller window, room for far fewer
/// entries), all of them and through a density, G1 and G2, against blst.
#[test]
fn witness_msms_planned_for_their_other_scalars_match_blst() {
    let Some(gpu) = common::gpu_or_skip("witness_msms_planned_for_their_other_scalars_match_blst") else { return };
    let mut rng = common::rng();
    let n = 1 << 18;
    let s: Vec<Scalar> = (0..n)
        .map(|_| match rng.gen_range(0..100) {
            0..=50 => Scalar::ZERO,
            51..=97 => Scalar::ONE,
            _ => Scalar::random(&mut rng),
        })
        .collect();
    let general = s.iter().filter(|v| !bool::from(v.is_zero()) && **v != Scalar::ONE).count();
    let density = random_density(&mut rng, n, 0.25);
    let selected = density.count_ones();
    let host1 = random_bases::<G1Projective>(&mut rng, n);
    let host2 = random_bases::<G2Projective>(&mut rng, selected);
    let bases1 = GpuBases::upload_g1(&gpu, &host1).unwrap();
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    gpu.bind().unwrap();
    let bytes = msm_scratch_bytes(n, MsmCurve::G2, 0).unwrap().max(msm_scratch_bytes(n, MsmCurve::G1, 0).unwrap());
    let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(bytes / 8) }.unwrap();
    let scalars = DeviceBuffer::from_slice(scalar_limbs(&s)).unwrap();
    let words = DeviceBuffer::from_slice(density.words()).unwrap();
    let out = DeviceBuffer::from_slice(&[0u64; 18 + 36]).unwrap();
    let stream = Stream::new(StreamFlags::DEFAULT, None).unwrap();
    let all = MsmInput { scalars: scalars.as_device_ptr(), form: ScalarForm::Montgomery, n, density: None, base_offset: 0, general: Some(general) };
    let some = MsmInput { density: Some(cuzk::gpu::msm::DeviceDensity { words: words.as_device_ptr(), ones: selected }), ..all };
    // SAFETY: every buffer lives until the synchronize below; `general`
    // counts the scalars other than 0 and 1 exactly.
    let (plan1, plan2) = unsafe {
        let p1 = msm_g1(&gpu, &stream, &bases1, &all, &MsmConfig::default(), &mut arena, out.as_device_ptr()).unwrap();
        stream.synchronize().unwrap();
        let p2 = msm_g2(&gpu, &stream, &bases2, &some, &MsmConfig::default(), &mut arena, out.as_device_ptr().add(18)).unwrap();
        (p1, p2)
    };
    stream.synchronize().unwrap();
    let mut result = vec![0u64; 18 + 36];
    out.copy_to(&mut result[..]).unwrap();
    assert!(plan1.c < 16 && plan1.general as usize == general, "G1 planned for {} others at c = {}", plan1.general, plan1.c);
    assert!(plan2.c < 16, "G2 planned at c = {}", plan2.c);
    let got1 = g1_from_result_words(result[..18].try_into().unwrap());
    assert!(got1 == cpu_g1(&host1, &to_bytes(&s)), "G1, {general} of {n} others");
    let got2 = g2_from_result_words(result[18..].try_into().unwrap());
    assert!(got2 == cpu_g2(&host2, &select_dense(&density, &to_bytes(&s))), "G2 through a density, {selected} selected");
}

/// One MSM of `scalars` uploaded in `form` (`ScalarForm::Canonical`: as
/// integers) through the device-pointer call: the result's words.
fn msm_of_form(gpu: &GpuDevice, curve: MsmCurve, bases: &GpuBases, scalars: &[Scalar], form: ScalarForm, config: &MsmConfig) -> Vec<u64> {
    gpu.bind().unwrap();
    let plan = MsmPlan::new(scalars.len(), curve, config).unwrap();
    let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(plan.scratch_words()) }.unwrap();
    let words = match form {
        ScalarForm::Canonical => canonical_limbs(scalars),
        ScalarForm::Montgomery => scalar_limbs(scalars).to_vec(),
    };
    let scalar_buf = DeviceBuffer::from_slice(&words).unwrap();
    let out = DeviceBuffer::from_slice(&vec![0u64; curve.jacobian_limbs()]).unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    let input = MsmInput { scalars: scalar_buf.as_device_ptr(), form, n: scalars.len(), density: None, base_offset: 0, general: None };
    // SAFETY: every buffer outlives the synchronize below.
    unsafe {
        match curve {
            MsmCurve::G1 => msm_g1(gpu, &stream, bases, &input, config, &mut arena, out.as_device_ptr()),
            MsmCurve::G2 => msm_g2(gpu, &stream, bases, &input, config, &mut arena, out.as_device_ptr()),
        }
        .unwrap()
    };
    stream.synchronize().unwrap();
    let mut got = vec![0u64; curve.jacobian_limbs()];
    out.copy_to(&mut got[..]).unwrap();
    got
}

/// Both forms device scalars come in: integers (the prover's H step) and
/// Montgomery (callers of `msm_g1`; the blocking calls hand binned MSMs
/// over as integers, so these tests are what runs the binned sort's
/// conversion).
const FORMS: [ScalarForm; 2] = [ScalarForm::Canonical, ScalarForm::Montgomery];

/// Device scalars as integers, as the prover's H step writes them, and in
/// Montgomery form (see [`FORMS`]), against blst at small sizes (for
/// compute-sanitizer): every sort (the H MSM's binned one at the
/// partition's window among them), edge values, sizes across the binned
/// tile.
#[test]
fn canonical_scalars_small_sizes() {
    let Some(gpu) = common::gpu_or_skip("canonical_scalars_small_sizes") else { return };
    let mut rng = common::rng();
    let host = random_bases::<G1Projective>(&mut rng, 5000);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    for m in [1usize, 2, 300, 4097, 5000] {
        let s = random_scalars(&mut rng, m);
        let want = cpu_g1(&host[..m], &to_bytes(&s));
        for sort in [Sort::Counted, Sort::Binned { bins_log: 0 }, Sort::Padded { cap_log: 0 }] {
            for (c, form) in [0, 12].into_iter().flat_map(|c| FORMS.map(|f| (c, f))) {
                let config = MsmConfig { window_bits: c, sort, ..MsmConfig::default() };
                let got = g1_from_result_words(msm_of_form(&gpu, MsmCurve::G1, &bases, &s, form, &config)[..].try_into().unwrap());
                assert!(got == want, "G1 MSM of {m} {form:?} scalars differs from blst ({config:?})");
            }
        }
    }
}

/// [`canonical_scalars_small_sizes`] at 2^20, for a witness-like mix, and
/// in G2.
#[test]
fn canonical_scalars() {
    let Some(gpu) = common::gpu_or_skip("canonical_scalars") else { return };
    let mut rng = common::rng();
    let n = 1 << 20;
    let host = random_bases::<G1Projective>(&mut rng, n);
    let bases = GpuBases::upload_g1(&gpu, &host).unwrap();
    let sorts = [Sort::Counted, Sort::Binned { bins_log: 0 }, Sort::Padded { cap_log: 0 }];
    for m in [4097, n] {
        let s = random_scalars(&mut rng, m);
        let want = cpu_g1(&host[..m], &to_bytes(&s));
        for sort in sorts {
            for (c, form) in [0, 12, 20].into_iter().flat_map(|c| FORMS.map(|f| (c, f))) {
                let config = MsmConfig { window_bits: c, sort, ..MsmConfig::default() };
                let got = g1_from_result_words(msm_of_form(&gpu, MsmCurve::G1, &bases, &s, form, &config)[..].try_into().unwrap());
                assert!(got == want, "G1 MSM of {m} {form:?} scalars differs from blst ({config:?})");
            }
        }
    }
    let s = mostly_zero_one(&mut rng, n);
    let want = cpu_g1(&host, &to_bytes(&s));
    for (sort, form) in [Sort::Auto, Sort::Binned { bins_log: 0 }].into_iter().flat_map(|s| FORMS.map(|f| (s, f))) {
        let config = MsmConfig { sort, ..MsmConfig::default() };
        let got = g1_from_result_words(msm_of_form(&gpu, MsmCurve::G1, &bases, &s, form, &config)[..].try_into().unwrap());
        assert!(got == want, "G1 MSM of 90% zero/one {form:?} scalars differs from blst ({config:?})");
    }
    drop(bases);
    let host2 = random_bases::<G2Projective>(&mut rng, 1 << 16);
    let bases2 = GpuBases::upload_g2(&gpu, &host2).unwrap();
    let s = random_scalars(&mut rng, host2.len());
    let want = cpu_g2(&host2, &to_bytes(&s));
    for (sort, form) in sorts.into_iter().flat_map(|s| FORMS.map(|f| (s, f))) {
        let config = MsmConfig { sort, ..MsmConfig::default() };
        let got = g2_from_result_words(msm_of_form(&gpu, MsmCurve::G2, &bases2, &s, form, &config)[..].try_into().unwrap());
        assert!(got == want, "G2 MSM of {form:?} scalars differs from blst ({config:?})");
    }
}
