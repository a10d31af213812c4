//! The binned scatter (`msm::binned`) on the host: the buckets it sorts
//! hold exactly the counted sort's entries, over tile edges, bin counts,
//! hot and sparse bins (the per-entry fallback of `refine`), witnesses and
//! densities; and whole MSMs through it against blstrs.

mod common;

use blstrs::Scalar;
use common::curves::{G1, G2};
use common::msm_host::*;
use common::seeded_rng;
use cuzk_kernels::ff::ScalarForm;
use cuzk_kernels::msm::binned::{MAX_BINS_LOG, TILE};
use cuzk_kernels::msm::binned_counts::COUNT_TILES;
use cuzk_kernels::msm::block::{Shared, BLOCK};
use cuzk_kernels::msm::digits::{digit_at, SignedDigits, WindowLayout};
use cuzk_kernels::msm::plan::{Curve, MsmConfig, MsmIo, MsmPlan, Sort, Step, MAX_BIN_WINDOWS};
use ff::Field;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Runs `config`'s sort on the host and returns every bucket's entries,
/// sorted within the bucket (order inside a bucket is free), and the
/// bucket starts.
fn sorted_buckets(scalars: &[Scalar], density: Option<&[u64]>, selected: usize, general: Option<usize>, config: &MsmConfig) -> (Vec<u32>, Vec<u32>) {
    let plan = MsmPlan::for_witness(scalars.len(), selected, general, Curve::G1, config).expect("plan");
    let mut arena = vec![0xa5a5_a5a5_a5a5_a5a5u64; plan.scratch_words()];
    let scalar_limbs = limbs(scalars);
    let io = MsmIo {
        bases: 0,
        n_bases: selected as u32,
        base_offset: 0,
        scalars: scalar_limbs.as_ptr() as u64,
        scalar_form: ScalarForm::Montgomery,
        density: density.map_or(0, |d| d.as_ptr() as u64),
        out: 0,
    };
    let mut sorting = true;
    plan.steps::<()>(&io, arena.as_mut_ptr() as u64, |step| {
        if matches!(step, Step::Accumulate0 { .. } | Step::Accumulate0Affine { .. }) {
            sorting = false;
        }
        if sorting {
            // SAFETY: the plan sizes every buffer; the sort reads no bases.
            unsafe { exec(Curve::G1, step) };
        }
        Ok(())
    })
    .unwrap();
    let (at, len) = plan.layout.starts.levels[0];
    let words = arena.as_ptr() as *const u32;
    // SAFETY: the scanned starts and the entries lie in the arena.
    let starts = unsafe { std::slice::from_raw_parts(words.add(2 * at), len as usize) }.to_vec();
    let total = starts[plan.n_keys as usize] as usize;
    let mut entries = unsafe { std::slice::from_raw_parts(words.add(2 * plan.layout.entries), total) }.to_vec();
    for k in 0..plan.n_keys as usize {
        entries[starts[k] as usize..starts[k + 1] as usize].sort_unstable();
    }
    (starts, entries)
}

fn binned(c: u32, bins_log: u32) -> MsmConfig {
    MsmConfig { window_bits: c, sort: Sort::Binned { bins_log }, ..MsmConfig::default() }
}

fn counted(c: u32) -> MsmConfig {
    MsmConfig { window_bits: c, sort: Sort::Counted, ..MsmConfig::default() }
}

fn same_buckets(what: &str, seed: u64, s: &[Scalar], density: Option<&[u64]>, selected: usize, general: Option<usize>, c: u32, bins_log: u32) {
    same_buckets_with(what, seed, s, density, selected, general, &binned(c, bins_log));
}

fn same_buckets_with(what: &str, seed: u64, s: &[Scalar], density: Option<&[u64]>, selected: usize, general: Option<usize>, config: &MsmConfig) {
    let want = sorted_buckets(s, density, selected, general, &counted(config.window_bits));
    let got = sorted_buckets(s, density, selected, general, config);
    let (c, sort, bin_windows) = (config.window_bits, config.sort, config.bin_windows);
    assert!(want.0 == got.0, "{what}: n = {}, c = {c}, {sort:?}, {bin_windows} windows a pass: bucket starts differ (seed {seed})", s.len());
    assert!(want.1 == got.1, "{what}: n = {}, c = {c}, {sort:?}, {bin_windows} windows a pass: bucket entries differ (seed {seed})", s.len());
}

fn random_bins_log(rng: &mut ChaCha8Rng, c: u32) -> u32 {
    // 0 is the default; 1 ..= min(c − 1, 11) explicit.
    rng.gen_range(0..=(c - 1).min(MAX_BINS_LOG))
}

fn witness(rng: &mut ChaCha8Rng, n: usize, general: f64) -> Vec<Scalar> {
    let mut s = scalars(rng, n);
    for v in s.iter_mut() {
        if !rng.gen_bool(general) {
            *v = if rng.gen_bool(0.5) { Scalar::ZERO } else { Scalar::ONE };
        }
    }
    s
}

/// `digit_at` gives every window's digit as the window walk does: random
/// and edge scalars, and scalars whose windows are exactly 2^(bits−1) for a
/// stretch (the carry passes through them) at every window size, in
/// windows of one width and in the narrowest layouts.
#[test]
fn a_windows_digit_read_directly_equals_the_walks() {
    let (mut rng, seed) = seeded_rng("a_windows_digit_read_directly_equals_the_walks");
    let mut inputs: Vec<[u64; 4]> = scalars(&mut rng, 3000).iter().map(canonical).collect();
    for l in (1..=22u32).flat_map(|c| [WindowLayout::uniform(c), WindowLayout::narrowest(c)]) {
        for _ in 0..40 {
            // Windows `lo..hi` set to exactly 2^(bits−1), a random rest below
            // 2^254 (so the top window keeps its spare bit).
            let mut s = canonical(&Scalar::random(&mut rng));
            s[3] &= (1 << 62) - 1;
            let lo = rng.gen_range(0..l.windows);
            let hi = rng.gen_range(lo..=l.windows);
            for j in lo..hi {
                for b in 0..l.bits(j) {
                    let bit = l.start(j) + b;
                    if bit < 254 {
                        let one = b == l.bits(j) - 1;
                        let (i, m) = ((bit / 64) as usize, 1u64 << (bit % 64));
                        s[i] = if one { s[i] | m } else { s[i] & !m };
                    }
                }
            }
            inputs.push(s);
        }
    }
    for l in (1..=22u32).flat_map(|c| [WindowLayout::uniform(c), WindowLayout::narrowest(c)]) {
        for s in &inputs {
            let mut walk = SignedDigits::new(*s, l);
            for w in 0..l.windows {
                let want = walk.next_digit();
                assert_eq!(digit_at(s, l, w), want, "{l:?}, window {w}, scalar {s:x?} (seed {seed})");
            }
        }
    }
}

#[test]
fn binned_buckets_equal_the_counted_sorts_across_tiles_and_bins() {
    let (mut rng, seed) = seeded_rng("binned_buckets_equal_the_counted_sorts_across_tiles_and_bins");
    let t = TILE as usize;
    for n in [0, 1, 2, 100, t - 1, t, t + 1, 2 * t + 17, 5 * t] {
        let s = scalars(&mut rng, n);
        for c in [1, 2, 3, 6, 9, 12, 16, 20] {
            let bins_log = random_bins_log(&mut rng, c);
            same_buckets("random", seed, &s, None, n, None, c, bins_log);
        }
    }
    // Every bin count at one size (from 2^10 bins on, the bin count takes
    // several launches).
    let s = scalars(&mut rng, 3 * t + 5);
    for bins_log in 1..=11 {
        same_buckets("bins", seed, &s, None, s.len(), None, 12, bins_log);
    }
    // Several blocks of the bin count, the last one short.
    let n = (TILE * COUNT_TILES) as usize + 2 * t + 3;
    let s = scalars(&mut rng, n);
    same_buckets("count blocks", seed, &s, None, n, None, 20, 0);
}

/// Pass 1 over several windows a launch, each window staged after the
/// ones before it: one to five and eight windows a launch (the last
/// launch short or not), with round 0 (every scalar read, the ones bucket) and
/// later rounds (the listed scalars) in one launch, all scalars listed
/// (read in place) or some; over several tiles and hot bins.
#[test]
fn binned_buckets_with_several_windows_a_pass() {
    let (mut rng, seed) = seeded_rng("binned_buckets_with_several_windows_a_pass");
    let t = TILE as usize;
    let config = |c: u32, bins_log: u32, bin_windows: u32| MsmConfig { bin_windows, ..binned(c, bins_log) };
    let s = scalars(&mut rng, 2 * t + 41);
    for bin_windows in 1..=5 {
        for c in [3, 7, 12, 20] {
            let bins_log = random_bins_log(&mut rng, c);
            same_buckets_with("random", seed, &s, None, s.len(), None, &config(c, bins_log, bin_windows));
        }
    }
    let n = t + 700;
    let w = witness(&mut rng, n, 0.1);
    let general = w.iter().filter(|v| !bool::from(v.is_zero()) && **v != Scalar::ONE).count();
    let small: Vec<Scalar> = (0..n).map(|_| Scalar::from(rng.gen_range(2u64..5000))).collect();
    for bin_windows in [2, 3, 8] {
        same_buckets_with("witness", seed, &w, None, n, Some(general), &config(9, 4, bin_windows));
        same_buckets_with("small", seed, &small, None, n, None, &config(6, 0, bin_windows));
    }
}

#[test]
fn binned_buckets_handle_hot_and_sparse_bins() {
    let (mut rng, seed) = seeded_rng("binned_buckets_handle_hot_and_sparse_bins");
    let n = 3 * TILE as usize + 100;
    // One bucket per window takes every entry: a tile's keys are one key.
    let v = Scalar::random(&mut rng);
    let same = vec![v; n];
    for c in [4, 13, 16] {
        same_buckets("all equal", seed, &same, None, n, None, c, 0);
    }
    // Small scalars: high windows empty, window 0's low bins hot.
    let small: Vec<Scalar> = (0..n).map(|_| Scalar::from(rng.gen_range(2u64..600))).collect();
    same_buckets("small", seed, &small, None, n, None, 14, 6);
    // Bins wider than shared memory's keys: every tile spans more than it
    // holds, so refine writes entry by entry (c = 16, 2 bins of 2^14 keys),
    // or some tiles do (2^4 bins of 2^11 keys).
    let s = scalars(&mut rng, n);
    same_buckets("wide bins", seed, &s, None, n, None, 16, 1);
    same_buckets("some wide tiles", seed, &s, None, n, None, 16, 4);
    // Few entries over many buckets: tiles span many sparse bins.
    let few = scalars(&mut rng, 300);
    same_buckets("sparse", seed, &few, None, 300, None, 20, 10);
}

#[test]
fn binned_buckets_of_witnesses_and_densities() {
    let (mut rng, seed) = seeded_rng("binned_buckets_of_witnesses_and_densities");
    let n = 2 * TILE as usize + 333;
    // Mostly zeros and ones: the ones go straight to their bucket in round 0.
    let s = witness(&mut rng, n, 0.05);
    let general = s.iter().filter(|v| !bool::from(v.is_zero()) && **v != Scalar::ONE).count();
    for c in [3, 8, 11] {
        same_buckets("witness", seed, &s, None, n, Some(general), c, random_bins_log(&mut rng, c));
    }
    // A density selecting about a third, bases offset by the prefix count.
    let mut words = vec![0u64; n.div_ceil(64)];
    let mut selected = 0;
    for i in 0..n {
        if rng.gen_bool(0.3) {
            words[i / 64] |= 1 << (i % 64);
            selected += 1;
        }
    }
    let s = scalars(&mut rng, n);
    for c in [5, 10] {
        same_buckets("density", seed, &s, Some(&words), selected, None, c, random_bins_log(&mut rng, c));
    }
}

#[test]
fn msms_through_the_binned_sort_match_blstrs() {
    let (mut rng, seed) = seeded_rng("msms_through_the_binned_sort_match_blstrs");
    let b1 = bases::<G1>(&mut rng, 600);
    for n in [0usize, 1, 2, 77, 600] {
        let s = scalars(&mut rng, n);
        for c in [1, 4, 9] {
            let config = MsmConfig { chunk0: rng.gen_range(1..=8), chunk: 4, ..binned(c, random_bins_log(&mut rng, c)) };
            check::<G1>("binned G1", seed, &b1[..n], &s, &config);
        }
    }
    let b2 = bases::<G2>(&mut rng, 100);
    let s = scalars(&mut rng, 100);
    check::<G2>("binned G2", seed, &b2, &s, &MsmConfig { chunk0: 3, chunk: 4, ..binned(5, 2) });
    for bin_windows in [1, 3] {
        let s = scalars(&mut rng, 600);
        check::<G1>("binned G1, windows a pass", seed, &b1, &s, &MsmConfig { bin_windows, chunk0: 4, chunk: 4, ..binned(7, 0) });
    }
}

#[test]
fn binned_sort_plans_reject_tables_and_too_many_bins() {
    let with_tables = MsmConfig { tables: 2, ..binned(8, 0) };
    assert!(MsmPlan::new(1000, Curve::G1, &with_tables).is_err());
    assert!(MsmPlan::new(1000, Curve::G1, &binned(8, 8)).is_err(), "more bins than a window's buckets");
    assert!(MsmPlan::new(1000, Curve::G1, &binned(20, MAX_BINS_LOG + 1)).is_err());
    let plan = MsmPlan::new(1000, Curve::G1, &binned(20, 0)).unwrap();
    assert_eq!(plan.binned, Some(9));
    assert_eq!(MsmPlan::new(1000, Curve::G1, &binned(4, 0)).unwrap().binned, Some(3));
    // At c = 22 a bin holds 2^10 buckets, as at c = 20 and 21.
    assert_eq!(MsmPlan::new(1000, Curve::G1, &binned(22, 0)).unwrap().binned, Some(11));
    // The staging array fits the entries of every scalar in as many
    // windows as a pass takes (one by default).
    assert_eq!(plan.bin_windows, 1);
    assert!(plan.layout.bin_cursor >= plan.layout.staged + 1000);
    for bin_windows in [2, 5] {
        let plan = MsmPlan::new(1000, Curve::G1, &MsmConfig { bin_windows, ..binned(20, 0) }).unwrap();
        assert_eq!(plan.bin_windows, bin_windows);
        assert!(plan.layout.bin_cursor >= plan.layout.staged + bin_windows as usize * 1000);
    }
    // No more windows a pass than MAX_BIN_WINDOWS.
    assert_eq!(MsmPlan::new(1000, Curve::G1, &MsmConfig { bin_windows: 8, ..binned(22, 0) }).unwrap().bin_windows, 8);
    assert!(MsmPlan::new(1000, Curve::G1, &MsmConfig { bin_windows: MAX_BIN_WINDOWS + 1, ..binned(20, 0) }).is_err());
    // Unbinned plans stage nothing: one window a pass.
    assert_eq!(MsmPlan::new(1000, Curve::G1, &MsmConfig { bin_windows: 4, ..counted(20) }).unwrap().bin_windows, 1);
}

#[test]
fn auto_bins_only_the_largest_untabled_msms() {
    let auto = MsmConfig::default();
    let sort_on = |curve: Curve, n: usize, general: Option<usize>, config: &MsmConfig| {
        let plan = MsmPlan::for_witness(n, n, general, curve, config).expect("plan");
        (plan.c, plan.binned, plan.padded.is_some())
    };
    let sort_of = |n: usize, general: Option<usize>, config: &MsmConfig| sort_on(Curve::G1, n, general, config);
    // A 32 GiB partition's H MSM: 2^27 − 1 scalars, c = 20.
    assert_eq!(sort_of((1 << 27) - 1, None, &auto), (20, Some(9), false));
    assert_eq!(sort_of(1 << 26, None, &auto), (20, Some(9), false));
    // Both curves take c = 20, binned, from 2^24 scalars on.
    assert_eq!(sort_of((1 << 26) - 1, None, &auto), (20, Some(9), false));
    assert_eq!(sort_of(1 << 25, None, &auto), (20, Some(9), false));
    assert_eq!(sort_of(1 << 24, None, &auto), (20, Some(9), false));
    // Below, c = 16, whose cursors leave room for a second window in a
    // scatter launch: direct.
    assert_eq!(sort_of((1 << 24) - 1, None, &auto), (16, None, false));
    // G2 too, from 2^24 on; 16 (direct) below.
    assert_eq!(sort_on(Curve::G2, (1 << 24) - 1, None, &auto), (16, None, false));
    assert_eq!(sort_on(Curve::G2, 1 << 24, None, &auto), (20, Some(9), false));
    assert_eq!(sort_on(Curve::G2, 1 << 25, None, &auto), (20, Some(9), false));
    assert_eq!(sort_on(Curve::G2, 1 << 26, None, &auto), (20, Some(9), false));
    // A witness: the window and the sort follow its scalars other than 0 and 1.
    assert_eq!(sort_of(1 << 27, Some(2_600_000), &auto), (16, None, false));
    // A window whose cursors leave room for a second in one launch: direct.
    assert_eq!(sort_of((1 << 27) - 1, None, &MsmConfig { window_bits: 16, ..auto }), (16, None, false));
    // Tables: the padded sort.
    assert_eq!(sort_of((1 << 27) - 1, None, &MsmConfig { window_bits: 22, tables: 6, ..auto }), (22, None, true));
    // Asked for, the counted sort is kept at any size.
    assert_eq!(sort_of((1 << 27) - 1, None, &MsmConfig { sort: Sort::Counted, ..auto }), (20, None, false));
}

/// The block-wide exclusive scan both passes use to put a tile's items in
/// order: every length around the block's size and up to the largest
/// count array (one run per thread of 0, 1 or several words), random
/// counts and the largest that can occur (a whole tile in one group).
#[test]
fn the_block_scan_gives_exclusive_prefix_sums() {
    let (mut rng, seed) = seeded_rng("the_block_scan_gives_exclusive_prefix_sums");
    let scratch = 8192;
    for len in [0, 1, 2, 31, BLOCK - 1, BLOCK, BLOCK + 1, 1000, 2 * BLOCK + 3, 2048, 4096, 8192 - 1] {
        for heavy in [false, true] {
            let counts: Vec<u32> = (0..len).map(|_| if heavy { rng.gen_range(0..=TILE) } else { rng.gen_range(0..9) }).collect();
            let shared = Shared::block();
            // SAFETY: lengths and scratch inside the array, disjoint.
            let total = unsafe {
                for (i, v) in counts.iter().enumerate() {
                    shared.store(i as u32, *v);
                }
                shared.exclusive_scan(0, len, scratch)
            };
            let mut want = 0u32;
            for (i, v) in counts.iter().enumerate() {
                assert_eq!(unsafe { shared.load(i as u32) }, want, "len {len}, word {i} (seed {seed})");
                want += v;
            }
            assert_eq!(total, want, "len {len}: total (seed {seed})");
        }
    }
}
