//! The GPU NTT and H step against bellperson's `EvaluationDomain` and
//! `cuzk::cpu::h::h_coefficients`, bit for bit, on fresh random inputs
//! (skips without a GPU). The same pass code runs on the host in
//! `kernels/tests/ntt.rs` (CI); this checks the GPU build and the driver.
#![cfg(feature = "cuda")]

mod common;

use bellperson::domain::EvaluationDomain;
use blstrs::Scalar;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};
use cust::stream::{Stream, StreamFlags};
use cuzk::gpu::elementwise::{limbs_in, scalar_limbs};
use cuzk::gpu::ntt::{Direction, GpuNtt, Order, ScalarForm};
use cuzk::gpu::GpuDevice;
use ec_gpu_gen::threadpool::Worker;
use rand::Rng;

const ALL: [(Direction, bool); 4] =
    [(Direction::Forward, false), (Direction::Forward, true), (Direction::Inverse, false), (Direction::Inverse, true)];

/// Random field elements, fast enough for 2^27 of them: Montgomery limbs
/// drawn below the modulus (every such value is a valid `Scalar`).
fn random_scalars(rng: &mut rand_chacha::ChaCha8Rng, n: usize) -> Vec<Scalar> {
    (0..n)
        .map(|_| {
            let limbs = [rng.gen::<u64>(), rng.gen::<u64>(), rng.gen::<u64>(), rng.gen_range(0..0x73ed_a753_299d_7d48u64)];
            // SAFETY: blstrs' Scalar is repr(transparent) over four
            // Montgomery limbs; these are below r.
            unsafe { std::mem::transmute::<[u64; 4], Scalar>(limbs) }
        })
        .collect()
}

fn bitrev_perm(v: &[Scalar]) -> Vec<Scalar> {
    let log_n = v.len().trailing_zeros();
    if log_n == 0 {
        return v.to_vec();
    }
    (0..v.len()).map(|i| v[i.reverse_bits() >> (usize::BITS - log_n)]).collect()
}

/// bellperson's transform of natural-order `x`, natural-order result.
fn bellperson(x: &[Scalar], dir: Direction, coset: bool, worker: &Worker) -> Vec<Scalar> {
    let mut d = EvaluationDomain::from_coeffs(x.to_vec()).unwrap();
    let gpu = &mut None;
    match (dir, coset) {
        (Direction::Forward, false) => d.fft(worker, gpu).unwrap(),
        (Direction::Forward, true) => d.coset_fft(worker, gpu).unwrap(),
        (Direction::Inverse, false) => d.ifft(worker, gpu).unwrap(),
        (Direction::Inverse, true) => d.icoset_fft(worker, gpu).unwrap(),
    }
    d.into_coeffs()
}

#[track_caller]
fn assert_same(got: &[Scalar], expected: &[Scalar], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        let wrong = (0..got.len()).filter(|&i| got[i] != expected[i]).count();
        panic!("{what}: {wrong} of {} elements differ, first at {i}: got {:?}, expected {:?}", got.len(), got[i], expected[i]);
    }
}

/// One GPU transform in the given order of natural-order `x`; the result
/// is returned in natural order.
fn gpu_ntt(ntt: &GpuNtt, gpu: &GpuDevice, x: &[Scalar], dir: Direction, order: Order, coset: bool) -> Vec<Scalar> {
    let mut v = match order {
        Order::NaturalToBitrev => x.to_vec(),
        Order::BitrevToNatural => bitrev_perm(x),
    };
    ntt.ntt_blocking(gpu, &mut v, dir, order, coset).expect("GPU NTT");
    match order {
        Order::NaturalToBitrev => bitrev_perm(&v),
        Order::BitrevToNatural => v,
    }
}

#[test]
fn ntt_matches_bellperson_at_every_size_to_2_20() {
    let Some(gpu) = common::gpu_or_skip("ntt_matches_bellperson_at_every_size_to_2_20") else { return };
    let mut rng = common::rng();
    let mut ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    let worker = Worker::new();
    for log_n in 1..=20 {
        let x = random_scalars(&mut rng, 1 << log_n);
        for (dir, coset) in ALL {
            let expected = bellperson(&x, dir, coset, &worker);
            for order in [Order::NaturalToBitrev, Order::BitrevToNatural] {
                // The default stages (radix-4 phases, dense stage table) and
                // the other code paths (radix-2 phases, composed twiddles).
                for default_stages in [true, false] {
                    ntt.set_stage_table(default_stages);
                    ntt.set_radix2_stages(!default_stages);
                    let got = gpu_ntt(&ntt, &gpu, &x, dir, order, coset);
                    assert_same(&got, &expected, &format!("2^{log_n} {dir:?} coset={coset} {order:?} default stages {default_stages}"));
                }
            }
        }
    }
    eprintln!("2^1 … 2^20: forward, inverse, coset forward, coset inverse, both orders, both stage settings, equal to bellperson");
}

#[test]
fn ntt_matches_bellperson_at_2_24_and_2_27() {
    let Some(gpu) = common::gpu_or_skip("ntt_matches_bellperson_at_2_24_and_2_27") else { return };
    let mut rng = common::rng();
    let ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    let worker = Worker::new();
    let x = random_scalars(&mut rng, 1 << 24);
    // On the 2^27 tables every inter-pass twiddle is multiplied in; on the
    // domain's own tables they are folded into the stages (row twiddles).
    let layout = GpuNtt::layout(24, true).unwrap();
    assert!(layout.rows_bits != 0, "a 2^24 layout has row twiddles");
    let own = GpuNtt::with_layout(&gpu, layout).expect("NTT tables");
    for ((dir, coset), order) in ALL.into_iter().zip([Order::NaturalToBitrev, Order::BitrevToNatural].into_iter().cycle()) {
        let expected = bellperson(&x, dir, coset, &worker);
        for (tables, which) in [(&ntt, "for 2^27"), (&own, "for 2^24")] {
            assert_same(&gpu_ntt(tables, &gpu, &x, dir, order, coset), &expected, &format!("2^24 {dir:?} coset={coset} {order:?}, tables {which}"));
        }
    }
    drop((x, own));
    let x = random_scalars(&mut rng, 1 << 27);
    let t = std::time::Instant::now();
    let expected = bellperson(&x, Direction::Forward, false, &worker);
    eprintln!("bellperson fft 2^27 on the CPU: {:.1?}", t.elapsed());
    let mut v = x.clone();
    ntt.ntt_blocking(&gpu, &mut v, Direction::Forward, Order::NaturalToBitrev, false).unwrap();
    assert_same(&bitrev_perm(&v), &expected, "2^27 forward");
    drop(expected);
    ntt.ntt_blocking(&gpu, &mut v, Direction::Inverse, Order::BitrevToNatural, false).unwrap();
    assert_same(&v, &x, "2^27 inverse of forward");
}

/// Fewer bits per pass: many passes, several columns per tile, every tile
/// geometry of the pass kernels (the default plan uses some only at large
/// sizes).
#[test]
fn ntt_with_small_passes_matches_bellperson() {
    let Some(gpu) = common::gpu_or_skip("ntt_with_small_passes_matches_bellperson") else { return };
    let mut rng = common::rng();
    let mut ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    let worker = Worker::new();
    for max_bits in [1, 3, 5, 7, 9] {
        ntt.set_max_pass_bits(max_bits);
        for log_n in [1, 4, 9, 12, 16, 19] {
            let x = random_scalars(&mut rng, 1 << log_n);
            for ((dir, coset), order) in ALL.into_iter().zip([Order::NaturalToBitrev, Order::BitrevToNatural].into_iter().cycle()) {
                let expected = bellperson(&x, dir, coset, &worker);
                let got = gpu_ntt(&ntt, &gpu, &x, dir, order, coset);
                assert_same(&got, &expected, &format!("2^{log_n} {dir:?} coset={coset} {order:?}, max {max_bits} bits/pass"));
            }
        }
    }
}

/// Device-resident round trips on one stream, both order pairings.
#[test]
fn inverse_after_forward_is_identity() {
    let Some(gpu) = common::gpu_or_skip("inverse_after_forward_is_identity") else { return };
    let mut rng = common::rng();
    let ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    for log_n in (1..=20).chain([22]) {
        let x = random_scalars(&mut rng, 1 << log_n);
        let mut d = DeviceBuffer::from_slice(scalar_limbs(&x)).unwrap();
        stream.synchronize().unwrap();
        for coset in [false, true] {
            for (first, second) in [(Direction::Forward, Direction::Inverse), (Direction::Inverse, Direction::Forward)] {
                // SAFETY: `d` lives until after the synchronize below.
                unsafe { ntt.ntt(&gpu, &stream, &mut d, first, Order::NaturalToBitrev, coset) }.unwrap();
                unsafe { ntt.ntt(&gpu, &stream, &mut d, second, Order::BitrevToNatural, coset) }.unwrap();
            }
        }
        stream.synchronize().unwrap();
        let mut words = vec![0u64; x.len() * 4];
        d.copy_to(&mut words[..]).unwrap();
        assert!(words == scalar_limbs(&x), "2^{log_n}: four round trips changed the data");
    }
}

#[test]
fn h_step_matches_cpu_h() {
    let Some(gpu) = common::gpu_or_skip("h_step_matches_cpu_h") else { return };
    let mut rng = common::rng();
    let mut ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    for (i, n) in [1, 2, 3, 5, 1000, 1024, 1025, 4097, 65_535, 65_537, 300_000, (1 << 20) - 3, 1 << 20, 3_000_000, (1 << 24) - 5].into_iter().enumerate() {
        let (a, b, c) = (random_scalars(&mut rng, n), random_scalars(&mut rng, n), random_scalars(&mut rng, n));
        // Every other size with radix-2 phases and composed twiddles.
        let default_stages = i % 2 == 1;
        ntt.set_stage_table(default_stages);
        ntt.set_radix2_stages(!default_stages);
        let got = ntt.h_blocking(&gpu, &a, &b, &c).expect("GPU H");
        let expected = cuzk::cpu::h::h_coefficients(a, b, c).expect("CPU H");
        assert_same(&got, &expected, &format!("H for n = {n}, default stages {default_stages}"));
    }
}

/// Tables for 2^21 (7 + 7 + 7 bits) with and without row twiddles: every
/// transform and the H step at 2^21 run coset stages in their inner passes
/// (the fused DIF/DIT pass included) from the row twiddles, or multiply by
/// inter-pass twiddles. Both equal bellperson.
#[test]
fn row_twiddles_at_2_21() {
    let Some(gpu) = common::gpu_or_skip("row_twiddles_at_2_21") else { return };
    let mut rng = common::rng();
    let worker = Worker::new();
    let x = random_scalars(&mut rng, 1 << 21);
    let expected: Vec<Vec<Scalar>> = ALL.iter().map(|&(dir, coset)| bellperson(&x, dir, coset, &worker)).collect();
    let n = (1 << 21) - 7;
    let (a, b, c) = (random_scalars(&mut rng, n), random_scalars(&mut rng, n), random_scalars(&mut rng, n));
    let expected_h = cuzk::cpu::h::h_coefficients(a.clone(), b.clone(), c.clone()).expect("CPU H");
    for rows in [true, false] {
        let layout = GpuNtt::layout(21, rows).unwrap();
        assert_eq!(layout.rows_bits != 0, rows);
        let which = if rows { "row" } else { "no row" };
        let ntt = GpuNtt::with_layout(&gpu, layout).expect("NTT tables");
        for (&(dir, coset), expected) in ALL.iter().zip(&expected) {
            for order in [Order::NaturalToBitrev, Order::BitrevToNatural] {
                let got = gpu_ntt(&ntt, &gpu, &x, dir, order, coset);
                assert_same(&got, expected, &format!("2^21 {dir:?} coset={coset} {order:?}, {which} twiddles"));
            }
        }
        let got = ntt.h_blocking(&gpu, &a, &b, &c).expect("GPU H");
        assert_same(&got, &expected_h, &format!("H for n = {n}, {which} twiddles"));
    }
}

/// a, b, c back to back in one device buffer of three 2^k regions, as in a
/// worker slot, the padding left as random garbage (the H step must read
/// it as zero).
fn slot_of(values: [&[Scalar]; 3], domain: usize, rng: &mut rand_chacha::ChaCha8Rng) -> DeviceBuffer<u64> {
    let mut slot: Vec<u64> = (0..3 * domain * 4).map(|_| rng.gen()).collect();
    for (i, v) in values.into_iter().enumerate() {
        slot[i * domain * 4..][..v.len() * 4].copy_from_slice(scalar_limbs(v));
    }
    DeviceBuffer::from_slice(&slot).unwrap()
}

/// The H step as the prover will call it: a, b, c back to back in one
/// device buffer (like a worker slot), the output in another with a guard
/// element after it, on a non-blocking stream; in Montgomery form and as
/// integers (the prover's default: what the H MSM reads).
#[test]
fn h_step_on_slot_style_buffers() {
    let Some(gpu) = common::gpu_or_skip("h_step_on_slot_style_buffers") else { return };
    let mut rng = common::rng();
    let ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    for (n, log_domain, form) in [
        (70_001usize, 17u32, ScalarForm::Montgomery),
        (1 << 16, 16, ScalarForm::Montgomery),
        (9, 4, ScalarForm::Montgomery),
        (70_001, 17, ScalarForm::Canonical),
        (1 << 16, 16, ScalarForm::Canonical),
        (9, 4, ScalarForm::Canonical),
        ((1 << 22) - 1000, 22, ScalarForm::Canonical),
    ] {
        let domain = 1usize << log_domain;
        let (a, b, c) = (random_scalars(&mut rng, n), random_scalars(&mut rng, n), random_scalars(&mut rng, n));
        let vram = slot_of([&a, &b, &c], domain, &mut rng);
        let out = DeviceBuffer::from_slice(&vec![u64::MAX; domain * 4]).unwrap();
        let w = domain * 4;
        let (mut da, mut db, mut dc) = (vram.index(0..w), vram.index(w..2 * w), vram.index(2 * w..3 * w));
        let mut dout = out.index(0..(domain - 1) * 4);
        // SAFETY: the buffers live until after the synchronize below.
        unsafe { ntt.h_step(&gpu, &stream, &mut da, &mut db, &mut dc, n, &mut dout, form) }.unwrap();
        stream.synchronize().unwrap();
        let mut words = vec![0u64; domain * 4];
        out.copy_to(&mut words[..]).unwrap();
        assert!(words[(domain - 1) * 4..].iter().all(|&x| x == u64::MAX), "wrote past the 2^k − 1 outputs");
        let expected = cuzk::cpu::h::h_coefficients(a, b, c).unwrap();
        assert!(words[..(domain - 1) * 4] == *limbs_in(form, &expected), "H for n = {n} in a 2^{log_domain} slot, {form:?}");
    }
}

/// The H step writing its output over an input, as a prover within a
/// small VRAM budget calls it (`VramPlan::h_in_slot`): the slot's second
/// region passed as `a`, the first as `b`, which receives the 2^k − 1
/// coefficients; sizes of two passes and more, and a one-pass size refused.
#[test]
fn h_step_over_input_on_slot_style_buffers() {
    let Some(gpu) = common::gpu_or_skip("h_step_over_input_on_slot_style_buffers") else { return };
    let mut rng = common::rng();
    let ntt = GpuNtt::new(&gpu, 27).expect("NTT tables");
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    assert!(!ntt.h_over_input_fits(9) && ntt.h_over_input_fits(17));
    for (n, log_domain, form) in [
        (70_001usize, 17u32, ScalarForm::Montgomery),
        (1 << 16, 16, ScalarForm::Montgomery),
        (2000, 11, ScalarForm::Montgomery),
        (70_001, 17, ScalarForm::Canonical),
        (2000, 11, ScalarForm::Canonical),
    ] {
        let domain = 1usize << log_domain;
        let (a, b, c) = (random_scalars(&mut rng, n), random_scalars(&mut rng, n), random_scalars(&mut rng, n));
        let vram = slot_of([&a, &b, &c], domain, &mut rng);
        let w = domain * 4;
        let (mut r0, mut r1, mut r2) = (vram.index(0..w), vram.index(w..2 * w), vram.index(2 * w..3 * w));
        // SAFETY: the buffer lives until after the synchronize below.
        unsafe { ntt.h_step_over_input(&gpu, &stream, &mut r1, &mut r0, &mut r2, n, form) }.unwrap();
        stream.synchronize().unwrap();
        let mut words = vec![0u64; w];
        r0.copy_to(&mut words[..]).unwrap();
        let expected = cuzk::cpu::h::h_coefficients(a, b, c).unwrap();
        assert!(words[..(domain - 1) * 4] == *limbs_in(form, &expected), "H over its input for n = {n} in a 2^{log_domain} slot, {form:?}");
    }
    let vram = DeviceBuffer::from_slice(&vec![0u64; 3 * 512 * 4]).unwrap();
    let w = 512 * 4;
    let (mut r0, mut r1, mut r2) = (vram.index(0..w), vram.index(w..2 * w), vram.index(2 * w..3 * w));
    // SAFETY: refused before anything is enqueued.
    assert!(unsafe { ntt.h_step_over_input(&gpu, &stream, &mut r1, &mut r0, &mut r2, 500, ScalarForm::Canonical) }.is_err(), "one pass: refused");
}

#[test]
fn bad_buffers_are_rejected() {
    let Some(gpu) = common::gpu_or_skip("bad_buffers_are_rejected") else { return };
    let ntt = GpuNtt::new(&gpu, 12).expect("NTT tables");
    gpu.bind().unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    let buf = DeviceBuffer::from_slice(&vec![0u64; 4 * 8192 + 4]).unwrap();
    let slice = |from: usize, words: usize| -> DeviceSlice<u64> { buf.index(from..from + words) };
    // SAFETY (here and below): `buf` lives until after the final synchronize.
    let fwd = |s: &mut DeviceSlice<u64>| unsafe { ntt.ntt(&gpu, &stream, s, Direction::Forward, Order::NaturalToBitrev, false) };
    let h = |a: &mut DeviceSlice<u64>, b: &mut DeviceSlice<u64>, c: &mut DeviceSlice<u64>, n: usize, out: &mut DeviceSlice<u64>| unsafe {
        ntt.h_step(&gpu, &stream, a, b, c, n, out, ScalarForm::Montgomery)
    };
    assert!(fwd(&mut slice(0, 4 * 3)).is_err(), "not a power of two");
    assert!(fwd(&mut slice(0, 4 * 8192)).is_err(), "beyond the tables");
    assert!(fwd(&mut slice(1, 4 * 16)).is_err(), "misaligned");
    assert!(fwd(&mut slice(4, 4 * 16)).is_ok());
    let (mut a, mut b, mut c) = (slice(0, 64), slice(64, 64), slice(128, 64));
    assert!(h(&mut a, &mut b, &mut c, 16, &mut slice(180, 60)).is_err(), "output overlaps c");
    assert!(h(&mut a, &mut b, &mut c, 17, &mut slice(192, 60)).is_err(), "n beyond the domain");
    assert!(h(&mut a, &mut b, &mut c, 16, &mut slice(192, 56)).is_err(), "output too short");
    assert!(h(&mut a, &mut b, &mut c, 16, &mut slice(192, 60)).is_ok());
    stream.synchronize().unwrap();
}
