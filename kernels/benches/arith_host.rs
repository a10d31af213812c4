//! Host throughput of the same field and curve code the GPU runs (u64 CIOS
//! on the host), next to blstrs (blst's assembly) for scale. The GPU numbers
//! come from `benches/gpu_arith.rs` in the root crate.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use cuzk_kernels::ec::{G1Affine, G1Xyzz};
use cuzk_kernels::ff::{Field, Fp, Fr};
use ff::Field as _;
use group::{Curve, Group};
use rand::SeedableRng;

const CHAIN: u64 = 1000;

fn fields(c: &mut Criterion) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut g = c.benchmark_group("field_mul");
    g.throughput(Throughput::Elements(CHAIN));

    let (a, b) = (blstrs::Scalar::random(&mut rng), blstrs::Scalar::random(&mut rng));
    // SAFETY: layouts are identical (tested in tests/layout.rs).
    let (x, y): (Fr, Fr) = unsafe { (std::mem::transmute(a), std::mem::transmute(b)) };
    g.bench_function("fr_cuzk", |bn| bn.iter(|| (0..CHAIN).fold(x, |acc, _| acc * black_box(y))));
    g.bench_function("fr_blstrs", |bn| bn.iter(|| (0..CHAIN).fold(a, |acc, _| acc * black_box(b))));

    let (a, b) = (blstrs::Fp::random(&mut rng), blstrs::Fp::random(&mut rng));
    let (x, y): (Fp, Fp) = unsafe { (std::mem::transmute(a), std::mem::transmute(b)) };
    g.bench_function("fp_cuzk", |bn| bn.iter(|| (0..CHAIN).fold(x, |acc, _| acc * black_box(y))));
    g.bench_function("fp_cuzk_square", |bn| bn.iter(|| (0..CHAIN).fold(x, |acc, _| black_box(acc).square())));
    g.bench_function("fp_blstrs", |bn| bn.iter(|| (0..CHAIN).fold(a, |acc, _| acc * black_box(b))));
    g.finish();
}

fn curves(c: &mut Criterion) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let mut g = c.benchmark_group("g1_add_mixed");
    g.throughput(Throughput::Elements(CHAIN));
    let p = blstrs::G1Projective::random(&mut rng).to_affine();
    let start = blstrs::G1Projective::random(&mut rng);
    // SAFETY: blstrs::G1Affine has our affine layout (x, y).
    let pa: G1Affine = unsafe { std::mem::transmute(p) };
    let acc = G1Xyzz::from_affine(&unsafe { std::mem::transmute::<blstrs::G1Affine, G1Affine>(start.to_affine()) });
    g.bench_function("xyzz_cuzk", |bn| bn.iter(|| (0..CHAIN).fold(acc, |s, _| s.add_affine(black_box(&pa)))));
    g.bench_function("projective_blstrs", |bn| bn.iter(|| (0..CHAIN).fold(start, |s, _| s + black_box(&p))));
    g.finish();
}

criterion_group!(benches, fields, curves);
criterion_main!(benches);
