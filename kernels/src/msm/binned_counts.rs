//! The binned sort's counts, without a global atomic per entry.
//!
//! The counted sort's histogram adds every entry to its bucket's counter in
//! global memory (1.7 G atomics for a G1 2^27 MSM at c = 20). The binned
//! sort needs less before each pass, and counts it where it is cheap:
//!
//! 1. [`count_bins`], once before the sort: every window's entries per bin
//!    (and the ones bucket's), counted in shared memory by blocks that each
//!    take [`COUNT_TILES`] tiles of scalars and then add their counts to
//!    global memory once. Scanned, these are the bins' starts: where pass 1
//!    ([`super::binned::bin`]) puts each bin's pairs.
//! 2. [`count_keys`], per window after pass 1: its staged pairs counted per
//!    bucket the way pass 2 counts them (a tile's keys in shared memory,
//!    one global atomic per tile and bucket). Scanned, these are the
//!    window's bucket starts, which pass 2 ([`super::binned::refine`]) and
//!    the accumulation need.
//!
//! The counts are the histogram's, so the starts are too.

use super::binned::{first_key, staged_at, tile_keys, window_entries, ITEMS, TILE};
use super::block::{block_ids, share, sync, threads, Shared, BLOCK, SHARED_WORDS};
use super::digits::{classify, ones_key, read, DigitArgs, Kind, SignedDigits};
use super::sort::{append, for_rounds};
use super::warp::{aggregated_add, atomic_add};
use super::NO_KEY;
use crate::ff::limbs::unrolled_for;
use crate::ff::Fr;

/// Tiles of [`TILE`] scalars each block of [`count_bins`] counts before it
/// adds its counts to global memory.
pub const COUNT_TILES: u32 = 32;
/// Scalars a thread of [`count_bins`] reads before it waits on the first.
const READ_GROUP: u32 = 4;

/// Windows one launch of [`count_bins`] counts with `2^bins_log` bins each
/// (a shared counter per bin, and one for the ones bucket).
pub const fn windows_per_count(bins_log: u32) -> u32 {
    (SHARED_WORDS - 1) >> bins_log
}

/// Blocks of [`count_bins`] for `n` scalars.
pub const fn count_blocks(n: u32) -> u32 {
    n.div_ceil(TILE * COUNT_TILES)
}

/// Windows `rounds.0 .. rounds.1`'s entries added to their bins' counters
/// in `counts`, laid out like the buckets at bin granularity (bin `b` of
/// window `w` at `w · 2^bins_log + b`, the ones bucket at `windows ·
/// 2^bins_log`, i.e. at `key >> (c − 1 − bins_log)`); the scalars with
/// digits appended to `digit_list` when it is not null, `*digit_count`
/// counting. `blocks` blocks of [`BLOCK`] threads.
///
/// # Safety
/// `a.sets == a.windows` (no tables); `counts` holds `windows · 2^bins_log
/// + 1` counters, zeroed before the first launch; `rounds.1 − rounds.0 ≤
/// windows_per_count(bins_log)`, `bins_log ≤ c − 1`; `digit_list` null or
/// room for `n` indices, `*digit_count` zeroed; `blocks ≥
/// count_blocks(n)`.
#[inline(always)]
pub unsafe fn count_bins(
    a: &DigitArgs,
    bins_log: u32,
    rounds: (u32, u32),
    blocks: u32,
    counts: *mut u32,
    digit_list: *mut u32,
    digit_count: *mut u32,
) {
    let fine_log = a.c - 1 - bins_log;
    let ones = ones_key(a.c, a.sets);
    // Shared counters: the windows' bins, then the ones bucket's.
    let first_bin = rounds.0 << bins_log;
    let ones_slot = (rounds.1 - rounds.0) << bins_log;
    let span = TILE * COUNT_TILES;
    let shared = Shared::block();

    for blk in block_ids(blocks) {
        let from = blk * span;
        if from >= a.n {
            continue;
        }
        let to = a.n.min(from + span);
        shared.clear(ones_slot + 1);
        sync();
        // The same number of steps for every thread: the list's append is
        // warp-collective.
        let steps = (to - from).div_ceil(BLOCK * READ_GROUP);
        for tid in threads() {
            for step in 0..steps {
                let at = from + step * BLOCK * READ_GROUP + tid;
                let mut stored = [Fr::ZERO; READ_GROUP as usize];
                unrolled_for!(q in 0..READ_GROUP as usize => {
                    let i = at + q as u32 * BLOCK;
                    if i < to {
                        stored[q] = read(a, i as usize);
                    }
                });
                unrolled_for!(q in 0..READ_GROUP as usize => {
                    let i = at + q as u32 * BLOCK;
                    let (base, limbs, kind) = if i < to { classify(a, i as usize, stored[q]) } else { (0, [0; 4], Kind::Skip) };
                    if !digit_list.is_null() {
                        append(digit_list, digit_count, i, kind == Kind::Digits);
                    }
                    let mut digits = SignedDigits::new(limbs, a.layout());
                    for_rounds(a, base, kind, &mut digits, rounds.0, rounds.1, |key, _| {
                        if key != NO_KEY {
                            let slot = if key == ones { ones_slot } else { (key >> fine_log) - first_bin };
                            shared.fetch_add(slot, 1);
                        }
                    });
                });
            }
        }
        sync();
        for tid in threads() {
            for slot in share(tid, ones_slot + 1) {
                let count = shared.load(slot);
                if count != 0 {
                    let bin = if slot == ones_slot { ones >> fine_log } else { first_bin + slot };
                    atomic_add(counts.add(bin as usize), count);
                }
            }
        }
    }
}

/// Window `round`'s staged pairs added to their buckets' counters in
/// `counts` (indexed by key): a tile's keys counted in shared memory and
/// added with one global atomic per key, or, for a tile whose keys span
/// more than [`SHARED_WORDS`] (sparse bins), one per warp and key. `tiles`
/// blocks of [`BLOCK`] threads.
///
/// # Safety
/// [`super::binned::bin`] has run for this round with the same
/// `bin_starts`, `c` and `bins_log`, its first round `staged_from`;
/// `counts` holds the window's keys; `tiles · TILE` covers the window's
/// entries.
#[inline(always)]
pub unsafe fn count_keys(staged: *const u64, bin_starts: *const u32, counts: *mut u32, c: u32, (round, staged_from): (u32, u32), bins_log: u32, tiles: u32) {
    let first = first_key(c, round);
    let count = window_entries(bin_starts, round, bins_log);
    let staged = staged.add(staged_at(bin_starts, round, staged_from, bins_log));
    let shared = Shared::block();

    for blk in block_ids(tiles) {
        let tile = blk * TILE;
        if tile >= count {
            continue;
        }
        let (low, span) = tile_keys(staged, c, round, bins_log, tile, count);
        // Block-uniform.
        let local = span <= SHARED_WORDS;
        if local {
            shared.clear(span);
        }
        sync();
        for tid in threads() {
            // Every read issued before the first atomic.
            let mut keys = [NO_KEY; ITEMS as usize];
            unrolled_for!(j in 0..ITEMS as usize => {
                let k = tile + j as u32 * BLOCK + tid;
                if k < count {
                    keys[j] = (*staged.add(k as usize) >> 32) as u32;
                }
            });
            unrolled_for!(j in 0..ITEMS as usize => {
                let key = keys[j];
                if local {
                    if key != NO_KEY {
                        shared.fetch_add(key - first - low, 1);
                    }
                } else {
                    // Block-uniform branch: every lane of the warp is here.
                    aggregated_add(counts, key);
                }
            });
        }
        if !local {
            continue;
        }
        sync();
        for tid in threads() {
            for k in share(tid, span) {
                let n = shared.load(k);
                if n != 0 {
                    atomic_add(counts.add((first + low + k) as usize), n);
                }
            }
        }
    }
}
