//! The NTT kernels' host build (the same pass code the GPU runs, with its
//! thread blocks executed one thread at a time) against a reference NTT
//! written directly over blstrs, following bellperson's `EvaluationDomain`
//! step by step. Runs in CI; `tests/gpu_ntt.rs` checks the GPU build
//! against bellperson itself.

use std::sync::OnceLock;

mod common;

use common::msm_host::canonical;

use blstrs::Scalar;
use cuzk_kernels::ff::{Fr, ScalarForm};
use cuzk_kernels::ntt::host::{fill_tables, run_pass};
use cuzk_kernels::ntt::pass::{FLAG_LAZY_STORE, FLAG_ROW_TWIDDLES};
use cuzk_kernels::ntt::plan::{self, pass_bits, Direction, Order, PassArgs, PassKind, Tables, MAX_PASS_BITS};
use cuzk_kernels::ntt::tables::{direct_at, omega, Scale, TableLayout, HALF, ROOT_OF_UNITY};
use ff::{Field, PrimeField};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Largest domain these tests use; the tables are built for it, with the
/// row twiddles of 2^18 in 9 + 9 bits (the default layout).
const MAX_LOG: u32 = 18;
const LAYOUT: TableLayout = TableLayout::new(MAX_LOG);

fn seeded(test: &str) -> ChaCha8Rng {
    let seed = match std::env::var("CUZK_TEST_SEED") {
        Ok(s) => s.parse().expect("CUZK_TEST_SEED must be a u64"),
        Err(_) => rand::random(),
    };
    println!("{test}: seed {seed} (replay with CUZK_TEST_SEED={seed})");
    ChaCha8Rng::seed_from_u64(seed)
}

fn limbs(s: &Scalar) -> [u64; 4] {
    // SAFETY: blstrs::Scalar is repr(transparent) over blst_fr { l: [u64; 4] }.
    unsafe { std::mem::transmute::<Scalar, [u64; 4]>(*s) }
}

fn scalar(l: [u64; 4]) -> Scalar {
    let s = unsafe { std::mem::transmute::<[u64; 4], Scalar>(l) };
    assert!(bool::from(Scalar::from_repr(s.to_repr()).is_some()));
    s
}

fn to_words(v: &[Scalar]) -> Vec<u64> {
    v.iter().flat_map(limbs).collect()
}

fn from_words(w: &[u64]) -> Vec<Scalar> {
    w.chunks_exact(4)
        .map(|c| scalar(c.try_into().unwrap()))
        .collect()
}

fn random(rng: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
    (0..n).map(|_| Scalar::random(&mut *rng)).collect()
}

fn bitrev_perm<T: Copy>(v: &[T]) -> Vec<T> {
    let log_n = v.len().trailing_zeros();
    (0..v.len())
        .map(|i| {
            v[if log_n == 0 {
                0
            } else {
                i.reverse_bits() >> (usize::BITS - log_n)
            }]
        })
        .collect()
}

// ---- reference: bellperson's EvaluationDomain, transcribed over blstrs ----

fn ref_omega(log_n: u32) -> Scalar {
    let mut w = Scalar::ROOT_OF_UNITY;
    for _ in log_n..Scalar::S {
        w = w.square();
    }
    w
}

/// ec-gpu-gen's `serial_fft`: natural in, natural out.
fn ref_fft(a: &mut [Scalar], omega: Scalar) {
    let n = a.len();
    let log_n = n.trailing_zeros();
    for k in 0..n {
        let rk = if log_n == 0 {
            0
        } else {
            k.reverse_bits() >> (usize::BITS - log_n)
        };
        if k < rk {
            a.swap(k, rk);
        }
    }
    let mut m = 1;
    while m < n {
        let w_m = omega.pow_vartime([(n / (2 * m)) as u64]);
        for k in (0..n).step_by(2 * m) {
            let mut w = Scalar::ONE;
            for j in 0..m {
                let t = a[k + j + m] * w;
                a[k + j + m] = a[k + j] - t;
                a[k + j] += t;
                w *= w_m;
            }
        }
        m *= 2;
    }
}

fn distribute_powers(a: &mut [Scalar], g: Scalar) {
    let mut u = Scalar::ONE;
    for v in a.iter_mut() {
        *v *= u;
        u *= g;
    }
}

fn reference(a: &[Scalar], dir: Direction, coset: bool) -> Vec<Scalar> {
    let mut a = a.to_vec();
    let log_n = a.len().trailing_zeros();
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    match dir {
        Direction::Forward => {
            if coset {
                distribute_powers(&mut a, g);
            }
            ref_fft(&mut a, ref_omega(log_n));
        }
        Direction::Inverse => {
            ref_fft(&mut a, ref_omega(log_n).invert().unwrap());
            let minv = Scalar::from(a.len() as u64).invert().unwrap();
            a.iter_mut().for_each(|v| *v *= minv);
            if coset {
                distribute_powers(&mut a, g.invert().unwrap());
            }
        }
    }
    a
}

/// `cuzk::cpu::h::h_coefficients`, i.e. bellperson's H, transcribed.
fn reference_h(a: &[Scalar], b: &[Scalar], c: &[Scalar], log_n: u32) -> Vec<Scalar> {
    let n = 1usize << log_n;
    let pad = |v: &[Scalar]| {
        let mut v = v.to_vec();
        v.resize(n, Scalar::ZERO);
        v
    };
    let ev = |v: &[Scalar]| {
        reference(
            &reference(&pad(v), Direction::Inverse, false),
            Direction::Forward,
            true,
        )
    };
    let (a, b, c) = (ev(a), ev(b), ev(c));
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let zinv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
    let h: Vec<Scalar> = (0..n).map(|i| (a[i] * b[i] - c[i]) * zinv).collect();
    let mut h = reference(&h, Direction::Inverse, true);
    h.pop();
    h
}

// ---- running the kernels' schedules on the host ----

fn tables() -> &'static Vec<u64> {
    static TABLES: OnceLock<Vec<u64>> = OnceLock::new();
    TABLES.get_or_init(|| filled(&LAYOUT))
}

fn filled(layout: &TableLayout) -> Vec<u64> {
    let mut words = vec![0u64; layout.words()];
    fill_tables(layout, &mut words);
    words
}

/// How the passes run their stages: (stage twiddles from the dense table,
/// radix-2 phases only, inter-pass twiddles from the direct tables, lazily
/// reduced stores inside a transform). Every combination computes the same
/// values.
type Stages = (bool, bool, bool, bool);
const DEFAULT_STAGES: Stages = (true, false, true, true);
const ALL_STAGES: [Stages; 6] = [
    (true, false, true, true),
    (false, false, true, true),
    (true, true, true, true),
    (false, true, true, true),
    (true, false, false, true),
    (true, false, true, false),
];

fn table_addrs_with((stage_table, radix2, direct_twiddles, lazy_stores): Stages) -> Tables {
    Tables {
        base: tables().as_ptr() as u64,
        layout: LAYOUT,
        stage_table,
        radix2,
        fused: true,
        direct_twiddles,
        lazy_stores,
    }
}

fn run(passes: &[PassArgs]) {
    for p in passes {
        // SAFETY: the schedules below are given buffers of the sizes they expect.
        unsafe { run_pass(p) };
    }
}

fn host_ntt(
    values: &[Scalar],
    max_bits: u32,
    dir: Direction,
    order: Order,
    coset: bool,
) -> Vec<Scalar> {
    host_ntt_with(values, max_bits, dir, order, coset, DEFAULT_STAGES)
}

fn host_ntt_with(
    values: &[Scalar],
    max_bits: u32,
    dir: Direction,
    order: Order,
    coset: bool,
    stages: Stages,
) -> Vec<Scalar> {
    host_ntt_on(values, max_bits, dir, order, coset, &table_addrs_with(stages))
}

fn host_ntt_on(
    values: &[Scalar],
    max_bits: u32,
    dir: Direction,
    order: Order,
    coset: bool,
    tables: &Tables,
) -> Vec<Scalar> {
    let log_n = values.len().trailing_zeros();
    let mut words = to_words(values);
    let mut passes = Vec::new();
    plan::ntt(log_n, max_bits, dir, order, coset, words.as_mut_ptr() as u64, tables, |p| passes.push(*p));
    assert_eq!(passes.len(), pass_bits(log_n, max_bits).count());
    // Lazy stores inside the transform only: its output is reduced.
    for (i, p) in passes.iter().enumerate() {
        assert_eq!(p.flags & FLAG_LAZY_STORE != 0, tables.lazy_stores && i + 1 < passes.len(), "pass {i} of 2^{log_n}");
        let rows = tables.direct_twiddles && tables.layout.rows_for(log_n, max_bits);
        assert_eq!(p.flags & FLAG_ROW_TWIDDLES != 0, rows, "pass {i} of 2^{log_n}: row twiddles");
    }
    run(&passes);
    from_words(&words)
}

/// Every direction, order and coset flag, with the stage twiddles from
/// either table.
fn check_ntt(rng: &mut ChaCha8Rng, log_n: u32, max_bits: u32) {
    let n = 1usize << log_n;
    let x = random(rng, n);
    for dir in [Direction::Forward, Direction::Inverse] {
        for coset in [false, true] {
            let expected = reference(&x, dir, coset);
            for st in ALL_STAGES {
                let got = host_ntt_with(&x, max_bits, dir, Order::NaturalToBitrev, coset, st);
                assert!(
                    got == bitrev_perm(&expected),
                    "2^{log_n} {dir:?} coset={coset} natural→bitrev, max {max_bits} bits/pass, stages (dense table, radix-2 only, direct, lazy stores) {st:?}"
                );
                let got = host_ntt_with(
                    &bitrev_perm(&x),
                    max_bits,
                    dir,
                    Order::BitrevToNatural,
                    coset,
                    st,
                );
                assert!(
                    got == expected,
                    "2^{log_n} {dir:?} coset={coset} bitrev→natural, max {max_bits} bits/pass, stages (dense table, radix-2 only, direct, lazy stores) {st:?}"
                );
            }
        }
    }
}

#[test]
fn constants_match_blstrs() {
    assert_eq!(limbs(&Scalar::ROOT_OF_UNITY), ROOT_OF_UNITY.limbs);
    assert_eq!(
        limbs(&Scalar::MULTIPLICATIVE_GENERATOR),
        cuzk_kernels::ntt::tables::generator().limbs
    );
    for log_n in 0..=32 {
        assert_eq!(
            limbs(&ref_omega(log_n)),
            omega(log_n).limbs,
            "omega of 2^{log_n}"
        );
    }
}

#[test]
fn tables_hold_the_expected_powers() {
    let t = tables();
    let layout = LAYOUT;
    let at = |offset: u32, i: u32| scalar(t[(offset + i) as usize * 4..][..4].try_into().unwrap());
    let w = Scalar::ROOT_OF_UNITY;
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let gi = g.invert().unwrap();
    for i in [0u32, 1, 2, 3, 255, 4096, 65534, 65535] {
        assert_eq!(
            at(TableLayout::TW_LO, i),
            w.pow_vartime([i as u64]),
            "TW_LO[{i}]"
        );
        assert_eq!(
            at(TableLayout::TW_HI, i),
            w.pow_vartime([(i as u64) << 16]),
            "TW_HI[{i}]"
        );
        assert_eq!(
            at(TableLayout::G_LO, i),
            g.pow_vartime([i as u64]),
            "G_LO[{i}]"
        );
        assert_eq!(
            at(TableLayout::GI_LO, i),
            gi.pow_vartime([i as u64]),
            "GI_LO[{i}]"
        );
    }
    for log_n in 0..=MAX_LOG {
        let n = 1u64 << log_n;
        let ninv = Scalar::from(n).invert().unwrap();
        let zinv = (g.pow_vartime([n]) - Scalar::ONE).invert().unwrap();
        assert_eq!(at(layout.scale_hi(Scale::InvN, log_n), 0), ninv);
        assert_eq!(at(layout.scale_hi(Scale::InvNZ, log_n), 0), ninv * zinv);
        // The canonical twins hold the integers where the others hold
        // their Montgomery forms.
        assert_eq!(limbs(&at(layout.scale_hi(Scale::InvNZCanonical, log_n), 0)), canonical(&(ninv * zinv)));
        assert_eq!(limbs(&at(layout.scale_hi(Scale::InvNZNegCanonical, log_n), 0)), canonical(&-(ninv * zinv)));
        let h = if log_n > 16 { 1u32 << (log_n - 16) } else { 1 };
        for j in [0, h - 1] {
            let e = (j as u64) << 16;
            assert_eq!(
                at(layout.scale_hi(Scale::CosetFwdInvN, log_n), j),
                g.pow_vartime([e]) * ninv
            );
            assert_eq!(
                at(layout.scale_hi(Scale::CosetInvN, log_n), j),
                gi.pow_vartime([e]) * ninv
            );
            assert_eq!(
                at(layout.scale_hi(Scale::HFinal, log_n), j),
                gi.pow_vartime([e]) * ninv * zinv
            );
            assert_eq!(limbs(&at(layout.scale_hi(Scale::HFinalCanonical, log_n), j)), canonical(&(gi.pow_vartime([e]) * ninv * zinv)));
            assert_eq!(limbs(&at(layout.scale_hi(Scale::HFinalNegCanonical, log_n), j)), canonical(&-(gi.pow_vartime([e]) * ninv * zinv)));
        }
    }
    for log_len in 17..=MAX_LOG.min(20) {
        let omega = w.pow_vartime([1u64 << (32 - log_len)]);
        for e in [0u32, 1, 2, 12345, (1 << log_len) - 1] {
            let want = omega.pow_vartime([e as u64]);
            assert_eq!(at(direct_at(log_len, e, false), 0), want, "direct 2^{log_len} [{e}]");
            assert_eq!(at(direct_at(log_len, e, true), 0), want.invert().unwrap(), "direct inverse 2^{log_len} [{e}]");
        }
    }
    // One pass with row twiddles (2^18 = 9 + 9), the last tables; their
    // entries are checked in row_twiddles_match_reference.
    assert_eq!(layout.row_passes().collect::<Vec<_>>(), [(9, 9)]);
    let rows = layout.row_twiddles(9).expect("test layout with row twiddles");
    assert_eq!(layout.words(), (rows as usize + (2 << MAX_LOG)) * 4);
    let psi = w.pow_vartime([1u64 << 22]); // the 1024-th root
    for k in [0u32, 1, 2, 255, 256, 511] {
        assert_eq!(at(TableLayout::STAGE, k), psi.pow_vartime([k as u64]), "STAGE[{k}]");
        assert_eq!(
            at(TableLayout::STAGE_INV, k),
            psi.invert().unwrap().pow_vartime([k as u64]),
            "STAGE_INV[{k}]"
        );
    }
    assert_eq!(HALF, 1 << 16);
}

#[test]
fn pass_plans_cover_every_bit() {
    for log_n in 0..=31 {
        for max_bits in 1..=MAX_PASS_BITS {
            let bits: Vec<u32> = pass_bits(log_n, max_bits).collect();
            assert_eq!(bits.iter().sum::<u32>(), log_n);
            assert!(bits.iter().all(|&r| r >= 1 && r <= max_bits));
            assert_eq!(bits.len() as u32, log_n.div_ceil(max_bits));
        }
    }
    assert_eq!(pass_bits(27, 10).collect::<Vec<_>>(), [9, 9, 9]);
    assert_eq!(pass_bits(24, 10).collect::<Vec<_>>(), [8, 8, 8]);
    assert_eq!(pass_bits(20, 10).collect::<Vec<_>>(), [10, 10]);
}

#[test]
fn ntt_matches_reference_at_small_sizes() {
    let mut rng = seeded("ntt_matches_reference_at_small_sizes");
    for log_n in 0..=12 {
        check_ntt(&mut rng, log_n, MAX_PASS_BITS);
    }
}

/// Fewer bits per pass make small transforms take 2–12 passes, exercising
/// every tile geometry (several columns per tile, columns narrower and
/// wider than the tile's rows) that large transforms use on the GPU.
#[test]
fn ntt_matches_reference_with_many_passes() {
    let mut rng = seeded("ntt_matches_reference_with_many_passes");
    for max_bits in [1, 2, 3, 4, 5, 7] {
        for log_n in [1, 2, 5, 8, 11, 12] {
            check_ntt(&mut rng, log_n, max_bits);
        }
    }
}

/// Above 2^16 the outer passes' twiddles need both table halves, or come
/// from the direct tables (first pass of 2^17, and of 2^18 split finer; a middle pass of
/// 2^17 with `log_rem` 17 when the first pass takes 1 bit), or from the
/// row twiddles (2^18 in 9 + 9 bits: no inter-pass product at all).
#[test]
fn ntt_matches_reference_above_2_16() {
    let mut rng = seeded("ntt_matches_reference_above_2_16");
    for (log_n, max_bits) in [(17, 10), (18, 10), (18, 6), (18, 1)] {
        let x = random(&mut rng, 1 << log_n);
        let forward = reference(&x, Direction::Forward, false);
        let inverse_coset = reference(&x, Direction::Inverse, true);
        for direct in [true, false] {
            let st = (true, false, direct, direct);
            let what = format!("2^{log_n}, max {max_bits} bits/pass, direct twiddles and lazy stores {direct}");
            let got = host_ntt_with(&x, max_bits, Direction::Forward, Order::NaturalToBitrev, false, st);
            assert!(got == bitrev_perm(&forward), "{what}: forward");
            let got = host_ntt_with(&bitrev_perm(&forward), max_bits, Direction::Inverse, Order::BitrevToNatural, false, st);
            assert!(got == x, "{what}: inverse");
            let got = host_ntt_with(&bitrev_perm(&x), max_bits, Direction::Inverse, Order::BitrevToNatural, true, st);
            assert!(got == inverse_coset, "{what}: inverse coset");
            let got = host_ntt_with(&x, max_bits, Direction::Inverse, Order::NaturalToBitrev, true, st);
            assert!(got == bitrev_perm(&inverse_coset), "{what}: inverse coset, DIF");
        }
    }
}

#[test]
fn inverse_undoes_forward() {
    let mut rng = seeded("inverse_undoes_forward");
    for log_n in [1, 3, 10, 11, 13] {
        let x = random(&mut rng, 1 << log_n);
        for coset in [false, true] {
            let y = host_ntt(
                &x,
                MAX_PASS_BITS,
                Direction::Forward,
                Order::NaturalToBitrev,
                coset,
            );
            assert!(
                host_ntt(
                    &y,
                    MAX_PASS_BITS,
                    Direction::Inverse,
                    Order::BitrevToNatural,
                    coset
                ) == x,
                "2^{log_n} coset={coset}"
            );
            let y = host_ntt(
                &x,
                MAX_PASS_BITS,
                Direction::Inverse,
                Order::NaturalToBitrev,
                coset,
            );
            assert!(
                host_ntt(
                    &y,
                    MAX_PASS_BITS,
                    Direction::Forward,
                    Order::BitrevToNatural,
                    coset
                ) == x,
                "2^{log_n} coset={coset}"
            );
        }
    }
}

/// Runs the H step's schedule; the padding of a, b, c holds garbage and a
/// guard element follows the 2^k − 1 outputs.
fn host_h_with(
    a: &[Scalar],
    b: &[Scalar],
    c: &[Scalar],
    log_n: u32,
    max_bits: u32,
    rng: &mut ChaCha8Rng,
    stages: Stages,
    fused: bool,
) -> Vec<Scalar> {
    let tables = Tables { fused, ..table_addrs_with(stages) };
    host_h_on(a, b, c, log_n, max_bits, rng, &tables)
}

fn host_h_on(a: &[Scalar], b: &[Scalar], c: &[Scalar], log_n: u32, max_bits: u32, rng: &mut ChaCha8Rng, tables: &Tables) -> Vec<Scalar> {
    from_words(&host_h_words(a, b, c, log_n, max_bits, rng, tables, ScalarForm::Montgomery))
}

/// The H step's 2^k − 1 outputs as written, in `form`.
#[allow(clippy::too_many_arguments)]
fn host_h_words(a: &[Scalar], b: &[Scalar], c: &[Scalar], log_n: u32, max_bits: u32, rng: &mut ChaCha8Rng, tables: &Tables, form: ScalarForm) -> Vec<u64> {
    let fused = tables.fused;
    let n = 1usize << log_n;
    let garbage = |v: &[Scalar], rng: &mut ChaCha8Rng| {
        let mut w = to_words(v);
        w.extend((0..(n - v.len()) * 4).map(|_| rng.gen::<u64>()));
        w
    };
    let (mut aw, mut bw, mut cw) = (garbage(a, rng), garbage(b, rng), garbage(c, rng));
    const GUARD: u64 = 0xdead_beef_dead_beef;
    let mut out = vec![GUARD; n * 4];
    let mut passes = Vec::new();
    plan::h_step(
        log_n,
        max_bits,
        a.len() as u32,
        aw.as_mut_ptr() as u64,
        bw.as_mut_ptr() as u64,
        cw.as_mut_ptr() as u64,
        out.as_mut_ptr() as u64,
        form,
        tables,
        |p| passes.push(*p),
    );
    let fused_passes = passes.iter().filter(|p| matches!(p.kind, PassKind::DifDit | PassKind::DitDif)).count();
    let per_transform = pass_bits(log_n, max_bits).count();
    assert_eq!(fused_passes, if fused && per_transform >= 2 { 3 } else { 0 });
    assert_eq!(passes.len(), 6 * per_transform - fused_passes);
    run(&passes);
    assert!(
        out[(n - 1) * 4..].iter().all(|&w| w == GUARD),
        "the H step wrote past its 2^k − 1 outputs"
    );
    out.truncate((n - 1) * 4);
    out
}

#[test]
fn h_step_matches_reference() {
    let mut rng = seeded("h_step_matches_reference");
    for (len, max_bits) in [
        (1, 10),
        (2, 10),
        (3, 10),
        (5, 1),
        (100, 3),
        (1000, 10),
        (1024, 10),
        (1025, 10),
        (3000, 4),
        (4096, 5),
        (5000, 10),
    ] {
        let log_n = (len as u64).next_power_of_two().trailing_zeros();
        let (a, b, c) = (
            random(&mut rng, len),
            random(&mut rng, len),
            random(&mut rng, len),
        );
        let expected = reference_h(&a, &b, &c, log_n);
        for st in ALL_STAGES {
            for fused in [true, false] {
                let got = host_h_with(&a, &b, &c, log_n, max_bits, &mut rng, st, fused);
                assert_eq!(got.len(), expected.len());
                assert!(
                    got == expected,
                    "H for n = {len} (2^{log_n}), max {max_bits} bits/pass, stages (dense table, radix-2 only, direct, lazy stores) {st:?}, fused {fused}"
                );
            }
        }
    }
}

/// The H step that writes its output over `b` (`plan::h_step_over_input`):
/// the same coefficients as the reference in `b`'s first 2^k − 1 elements
/// (its last is scratch), every stage variant, fused or not, with row
/// twiddles at 2^18.
fn host_h_over_input(a: &[Scalar], b: &[Scalar], c: &[Scalar], log_n: u32, max_bits: u32, rng: &mut ChaCha8Rng, tables: &Tables) -> Vec<Scalar> {
    from_words(&host_h_over_input_words(a, b, c, log_n, max_bits, rng, tables, ScalarForm::Montgomery))
}

/// [`host_h_over_input`]'s outputs as written, in `form`.
#[allow(clippy::too_many_arguments)]
fn host_h_over_input_words(a: &[Scalar], b: &[Scalar], c: &[Scalar], log_n: u32, max_bits: u32, rng: &mut ChaCha8Rng, tables: &Tables, form: ScalarForm) -> Vec<u64> {
    let n = 1usize << log_n;
    let garbage = |v: &[Scalar], rng: &mut ChaCha8Rng| {
        let mut w = to_words(v);
        w.extend((0..(n - v.len()) * 4).map(|_| rng.gen::<u64>()));
        w
    };
    let (mut aw, mut bw, mut cw) = (garbage(a, rng), garbage(b, rng), garbage(c, rng));
    let mut passes = Vec::new();
    plan::h_step_over_input(log_n, max_bits, a.len() as u32, aw.as_mut_ptr() as u64, bw.as_mut_ptr() as u64, cw.as_mut_ptr() as u64, form, tables, |p| passes.push(*p));
    let per_transform = pass_bits(log_n, max_bits).count();
    let fused_passes = passes.iter().filter(|p| matches!(p.kind, PassKind::DifDit | PassKind::DitDif)).count();
    assert_eq!(passes.len(), 6 * per_transform - fused_passes, "as many launches as the H step");
    // `a` is free once the passes through its last use have run (a device
    // reuses it while `c`'s inverse runs): scribbled over, the same result.
    let split = plan::passes_through(&passes, aw.as_ptr() as u64);
    assert_eq!(split, passes.len() - per_transform, "all but c's inverse touch a");
    assert!(passes[split..].iter().all(|p| p.data == cw.as_ptr() as u64));
    run(&passes[..split]);
    aw.iter_mut().for_each(|w| *w = rng.gen());
    run(&passes[split..]);
    bw.truncate((n - 1) * 4);
    bw
}

/// Both H steps asked for integers write each coefficient's canonical
/// limbs (below r: the MSM's digits depend on it), the same values as in
/// Montgomery form, for every stage variant, fused or not, at sizes of
/// one pass and several, and with row twiddles at 2^18.
#[test]
fn h_step_writes_canonical_scalars() {
    let mut rng = seeded("h_step_writes_canonical_scalars");
    let integers = |v: &[Scalar]| -> Vec<u64> { v.iter().flat_map(canonical).collect() };
    let mut cases: Vec<(usize, u32)> = vec![(1, 10), (3, 10), (5, 1), (1000, 10), (1025, 10), (3000, 4), (5000, 10)];
    cases.push(((1 << MAX_LOG) - 1000, MAX_PASS_BITS));
    for (len, max_bits) in cases {
        let log_n = (len as u64).next_power_of_two().trailing_zeros();
        let (a, b, c) = (random(&mut rng, len), random(&mut rng, len), random(&mut rng, len));
        let expected = integers(&reference_h(&a, &b, &c, log_n));
        // At 2^18 (row twiddles) once: the scale is the last pass's alone.
        let (stages, fusions): (&[Stages], &[bool]) = if log_n == MAX_LOG { (&[(true, false, false, true)], &[true]) } else { (&ALL_STAGES, &[true, false]) };
        for &st in stages {
            for &fused in fusions {
                let tables = Tables { fused, ..table_addrs_with(st) };
                let got = host_h_words(&a, &b, &c, log_n, max_bits, &mut rng, &tables, ScalarForm::Canonical);
                assert!(got == expected, "canonical H for n = {len} (2^{log_n}), max {max_bits} bits/pass, stages {st:?}, fused {fused}");
                if plan::h_step_over_input_fits(log_n, max_bits) {
                    let got = host_h_over_input_words(&a, &b, &c, log_n, max_bits, &mut rng, &tables, ScalarForm::Canonical);
                    assert!(got == expected, "canonical H over b for n = {len} (2^{log_n}), max {max_bits} bits/pass, stages {st:?}, fused {fused}");
                }
            }
        }
    }
}

#[test]
fn h_step_over_input_matches_reference() {
    let mut rng = seeded("h_step_over_input_matches_reference");
    assert!(!plan::h_step_over_input_fits(10, 10) && plan::h_step_over_input_fits(11, 10) && plan::h_step_over_input_fits(3, 1));
    for (len, max_bits) in [(5, 1), (100, 3), (1000, 5), (1025, 10), (3000, 4), (4096, 5), (5000, 10)] {
        let log_n = (len as u64).next_power_of_two().trailing_zeros();
        let (a, b, c) = (random(&mut rng, len), random(&mut rng, len), random(&mut rng, len));
        let expected = reference_h(&a, &b, &c, log_n);
        for st in ALL_STAGES {
            for fused in [true, false] {
                let tables = Tables { fused, ..table_addrs_with(st) };
                let got = host_h_over_input(&a, &b, &c, log_n, max_bits, &mut rng, &tables);
                assert!(got == expected, "H over b for n = {len} (2^{log_n}), max {max_bits} bits/pass, stages {st:?}, fused {fused}");
            }
        }
    }
    let len = (1 << MAX_LOG) - 1000;
    let (a, b, c) = (random(&mut rng, len), random(&mut rng, len), random(&mut rng, len));
    let tables = Tables { fused: true, ..table_addrs_with((true, false, true, false)) };
    assert!(host_h_over_input(&a, &b, &c, MAX_LOG, MAX_PASS_BITS, &mut rng, &tables) == reference_h(&a, &b, &c, MAX_LOG), "H over b at 2^18");
}

/// The H step at 2^18 in two passes of 9 bits: its inner passes (the
/// fused DIF/DIT one included) run coset stages from the row twiddles, or
/// its outer ones multiply by composed twiddles.
#[test]
fn h_step_with_row_twiddles() {
    let mut rng = seeded("h_step_with_row_twiddles");
    let len = (1 << MAX_LOG) - 1000;
    let (a, b, c) = (random(&mut rng, len), random(&mut rng, len), random(&mut rng, len));
    let expected = reference_h(&a, &b, &c, MAX_LOG);
    for direct in [true, false] {
        let got = host_h_with(&a, &b, &c, MAX_LOG, MAX_PASS_BITS, &mut rng, (true, false, direct, !direct), true);
        assert!(got == expected, "H at 2^18, direct and row twiddles {direct}");
    }
}

/// A satisfied "circuit": c = a·b on the domain, so h = (a·b − c)/Z is a
/// genuine polynomial quotient and its top coefficient vanishes.
#[test]
fn h_step_of_a_satisfied_system() {
    let mut rng = seeded("h_step_of_a_satisfied_system");
    let len = 700;
    let (a, b) = (random(&mut rng, len), random(&mut rng, len));
    let c: Vec<Scalar> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
    let got = host_h_with(&a, &b, &c, 10, MAX_PASS_BITS, &mut rng, DEFAULT_STAGES, true);
    assert!(got == reference_h(&a, &b, &c, 10));
    let _ = Fr::ONE;
}

/// The host runs each phase's threads one after another; on the GPU they
/// run concurrently. Scrambling the order of threads (and blocks) must not
/// change any result, else some phase reads what another thread of the
/// same phase writes (a race on the GPU).
#[test]
fn results_do_not_depend_on_thread_order() {
    use cuzk_kernels::ntt::block::HOST_ORDER_SEED;
    use std::sync::atomic::Ordering;
    let mut rng = seeded("results_do_not_depend_on_thread_order");
    let cases = [(4, 10), (10, 10), (11, 10), (12, 4), (12, 5), (13, 7)];
    let inputs: Vec<Vec<Scalar>> = cases
        .iter()
        .map(|&(log_n, _)| random(&mut rng, 1 << log_n))
        .collect();
    let run_all = |seed: u32| {
        HOST_ORDER_SEED.store(seed, Ordering::Relaxed);
        let mut outs = Vec::new();
        for (x, &(_, max_bits)) in inputs.iter().zip(&cases) {
            for (dir, order, coset) in [
                (Direction::Forward, Order::NaturalToBitrev, true),
                (Direction::Inverse, Order::BitrevToNatural, true),
                (Direction::Inverse, Order::NaturalToBitrev, false),
            ] {
                outs.push(host_ntt(x, max_bits, dir, order, coset));
            }
        }
        let (a, b, c) = (&inputs[3], &inputs[4], &inputs[5][..3000]);
        outs.push(host_h_with(
            a,
            b,
            &c[..a.len().min(c.len())],
            12,
            5,
            &mut ChaCha8Rng::seed_from_u64(7),
            (true, true, true, true),
            true,
        ));
        outs
    };
    let reference = run_all(0);
    for seed in [1, 2, 77, 12345] {
        assert!(
            run_all(seed) == reference,
            "thread order seed {seed} changed a result"
        );
    }
    HOST_ORDER_SEED.store(0, Ordering::Relaxed);
}

/// Row twiddles (`TableLayout::with_rows`): at the layout's size and split,
/// every inter-pass twiddle is folded into the later passes' coset stages.
/// Each entry against `G^(2^(r−s−1)) · ψ_(2^(s+1))^bitrev_s(b)` computed
/// over blstrs, then every transform, both stage shapes, and the H step
/// (fused or not: its scattered last passes read the tables by
/// bit-reversed column) against the reference. Splits: 9 + 9 (two
/// columns per tile, lone stage), 6 + 6 + 6 (a middle pass whose tile's
/// columns share one row, an inner one whose don't), 4 + 4 + 4, 7 + 6.
#[test]
fn row_twiddles_match_reference() {
    let mut rng = seeded("row_twiddles_match_reference");
    for (log_n, bits) in [(18, 10), (18, 6), (12, 4), (13, 7)] {
        let layout = TableLayout::compact(log_n).with_rows(bits);
        let words = filled(&layout);
        let entry = |at: u32| scalar(words[at as usize * 4..at as usize * 4 + 4].try_into().unwrap());
        let mut checked = 0;
        for (log_rem, r) in layout.row_passes() {
            let at = layout.row_twiddles(log_rem).unwrap();
            let per_direction = 1u32 << (log_n - log_rem + r);
            for inverse in [false, true] {
                let psi = |log_len: u32| if inverse { ref_omega(log_len).invert().unwrap() } else { ref_omega(log_len) };
                for _ in 0..200 {
                    let i = rng.gen_range(0..per_direction);
                    let (outer, k) = (i >> r, i & ((1 << r) - 1));
                    let expected = if k == 0 {
                        Scalar::ONE
                    } else {
                        let s = 31 - k.leading_zeros();
                        let b = k - (1 << s);
                        let rev = |x: u32, bits: u32| if bits == 0 { 0 } else { x.reverse_bits() >> (32 - bits) };
                        let g = psi(log_n).pow_vartime([(rev(outer, log_n - log_rem) as u64) << (log_rem - r)]);
                        g.pow_vartime([1u64 << (r - s - 1)]) * psi(s + 1).pow_vartime([rev(b, s) as u64])
                    };
                    assert_eq!(entry(at + if inverse { per_direction } else { 0 } + i), expected, "2^{log_n} pass ({log_rem}, {r}) entry {i} inverse {inverse}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "2^{log_n} split at {bits} has row twiddles");
        let x = random(&mut rng, 1 << log_n);
        for radix2 in [false, true] {
            let tables = Tables {
                base: words.as_ptr() as u64,
                layout,
                stage_table: true,
                radix2,
                fused: true,
                direct_twiddles: true,
                lazy_stores: true,
            };
            let what = format!("2^{log_n} split at {bits} bits, radix-2 {radix2}");
            for dir in [Direction::Forward, Direction::Inverse] {
                for coset in [false, true] {
                    let expected = reference(&x, dir, coset);
                    let got = host_ntt_on(&x, bits, dir, Order::NaturalToBitrev, coset, &tables);
                    assert!(got == bitrev_perm(&expected), "{what}: {dir:?} coset={coset} natural→bitrev");
                    let got = host_ntt_on(&bitrev_perm(&x), bits, dir, Order::BitrevToNatural, coset, &tables);
                    assert!(got == expected, "{what}: {dir:?} coset={coset} bitrev→natural");
                }
            }
            // Scrambled thread order (see results_do_not_depend_on_thread_order).
            cuzk_kernels::ntt::block::HOST_ORDER_SEED.store(77, std::sync::atomic::Ordering::Relaxed);
            let got = host_ntt_on(&x, bits, Direction::Inverse, Order::NaturalToBitrev, true, &tables);
            let scrambled = host_ntt_on(&bitrev_perm(&x), bits, Direction::Forward, Order::BitrevToNatural, false, &tables);
            cuzk_kernels::ntt::block::HOST_ORDER_SEED.store(0, std::sync::atomic::Ordering::Relaxed);
            assert!(got == bitrev_perm(&reference(&x, Direction::Inverse, true)), "{what}: scrambled thread order, DIF");
            assert!(scrambled == reference(&x, Direction::Forward, false), "{what}: scrambled thread order, DIT");
            let len = (1 << log_n) - 37;
            let (a, b, c) = (random(&mut rng, len), random(&mut rng, len), random(&mut rng, len));
            let expected = reference_h(&a, &b, &c, log_n);
            for fused in [true, false] {
                let got = host_h_on(&a, &b, &c, log_n, bits, &mut rng, &Tables { fused, ..tables });
                assert!(got == expected, "{what}: H, fused {fused}");
            }
        }
    }
}
