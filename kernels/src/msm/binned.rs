//! The binned scatter: the counted sort's scatter in two passes per window
//! that take one global atomic per block and bucket instead of one per
//! entry (windows without tables only).
//!
//! The direct scatter ([`super::sort::scatter`]) writes every entry through
//! its bucket's cursor: one returning global atomic and one 4-byte write to
//! a random place per entry, which is what bounds it. Here a window's
//! `2^(c−1)` buckets are grouped into `2^bins_log` *bins* of consecutive
//! keys, and
//!
//! 1. [`bin`]: each block takes a tile of [`TILE`] scalars, counts its
//!    entries per bin in shared memory (each entry's count before it is its
//!    rank), reserves one range per bin with one global atomic, and writes
//!    its `(key, entry)` pairs there: a bin's pairs end up next to each
//!    other in a staging array laid out like the window's final entries
//!    (bin `b` where its buckets' entries will be). The ones bucket's
//!    entries (round 0) go straight to their bucket, warp-aggregated. One
//!    launch may take several windows (`MsmConfig::bin_windows`), each
//!    staged after the ones before it, so that they share one read of the
//!    scalars from memory.
//! 2. [`refine`]: each block takes a tile of [`TILE`] staged pairs, whose
//!    keys lie in a few consecutive bins, counts them per key in shared
//!    memory, reserves one range per key with one global atomic on its
//!    cursor, and writes the entries there. A tile whose keys span more
//!    than [`LOCAL_KEYS`] keys (sparse bins) writes each entry through its
//!    cursor, as the direct scatter does.
//!
//! Both passes write a tile's items grouped by destination: the items are
//! first put in shared memory in bin (pass 1) or key (pass 2) order, at
//! their group's place among the tile's (an exclusive scan of the counts)
//! plus their rank, and then consecutive threads write consecutive items.
//! A group's items are then consecutive words of one warp's store instead
//! of stores from as many warps, so memory sees one transaction per group
//! and sector rather than one per item (the items' scattered writes were
//! what kept the L2 busy).
//!
//! The starts the passes need are counted without a global atomic per
//! entry either ([`super::binned_counts`]): the bins' starts once for
//! every window before pass 1, each window's bucket starts from its staged
//! pairs between the passes.
//!
//! Order inside a bucket is arbitrary, as with the direct scatter.

use super::block::{block_ids, share, sync, threads, PerThread, Shared, BLOCK, SHARED_WORDS};
use super::digits::{classify, ones_key, read, window_key, DigitArgs};
use super::warp::{aggregated_increment, atomic_add};
use super::NO_KEY;
use crate::ff::limbs::unrolled_for;
use crate::ff::Fr;

/// Entries (pass 1: scalars) each thread of a block takes per tile.
pub const ITEMS: u32 = 8;
const _: () = assert!(ITEMS as usize <= crate::ff::limbs::MAX_UNROLLED_LIMBS);
/// Scalars a thread of pass 1 reads before it waits on the first.
const READ_GROUP: u32 = 4;
const _: () = assert!(ITEMS % READ_GROUP == 0);
/// Scalars or staged pairs per block.
pub const TILE: u32 = BLOCK * ITEMS;
/// Most bins per window: pass 1 keeps a count and a base per bin in shared
/// memory.
pub const MAX_BINS_LOG: u32 = 11;
/// Most keys a tile of pass 2 counts in shared memory.
pub const LOCAL_KEYS: u32 = 2048;
const _: () = assert!(1 << MAX_BINS_LOG <= LOCAL_KEYS);

// The block's shared words: a count per group (bin or key), which becomes
// the group's place among the tile's items; the group's place in global
// memory; then the tile's items in group order, their keys and their
// entries in two planes (the exclusive scan's scratch before that).
const COUNTS: u32 = 0;
const PLACES: u32 = LOCAL_KEYS;
const SORTED_KEYS: u32 = 2 * LOCAL_KEYS;
const SORTED_ENTRIES: u32 = SORTED_KEYS + TILE;
const _: () = assert!(SORTED_ENTRIES + TILE <= SHARED_WORDS);
// The scan's scratch (2 · BLOCK words at SORTED_KEYS) fits the planes.
const _: () = assert!(2 * BLOCK <= 2 * TILE);

/// One entry a thread holds across the barriers.
#[derive(Clone, Copy)]
struct Item {
    /// The entry's bucket key (pass 1), or that key less the tile's lowest
    /// (pass 2, counted in shared memory; the window's key otherwise).
    key: u32,
    entry: u32,
    /// Its place among the block's entries of the same bin (pass 1) or key
    /// (pass 2).
    rank: u32,
}

const NONE: Item = Item { key: NO_KEY, entry: 0, rank: 0 };

/// The keys of window `round` start here (no tables: window `w` is set `w`).
#[inline(always)]
pub(super) fn first_key(c: u32, round: u32) -> u32 {
    round << (c - 1)
}

/// The entries of window `round`, from the scanned bin counts (the next
/// window's first bin, or the ones bucket, starts where it ends).
///
/// # Safety
/// `bin_starts` holds `(round + 1) · 2^bins_log + 1` words or more.
#[inline(always)]
pub(super) unsafe fn window_entries(bin_starts: *const u32, round: u32, bins_log: u32) -> u32 {
    *bin_starts.add(((round + 1) << bins_log) as usize) - *bin_starts.add((round << bins_log) as usize)
}

/// The keys of a tile of window `round`'s staged pairs (`tile ..
/// min(tile + TILE, count)`): those of the bins of its first and last
/// pair and of the bins between (pairs are in bin order), as `(low,
/// span)`: keys `low .. low + span` relative to the window's first.
///
/// # Safety
/// `staged` holds the window's `count > tile` pairs as [`bin`] wrote them.
#[inline(always)]
pub(super) unsafe fn tile_keys(staged: *const u64, c: u32, round: u32, bins_log: u32, tile: u32, count: u32) -> (u32, u32) {
    let first = first_key(c, round);
    let fine_log = c - 1 - bins_log;
    let key_of = |k: u32| (*staged.add(k as usize) >> 32) as u32 - first;
    let low = key_of(tile) >> fine_log << fine_log;
    let end = ((key_of(count.min(tile + TILE) - 1) >> fine_log) + 1) << fine_log;
    (low, end - low)
}

/// Where window `round`'s staged pairs start in a staging array shared by
/// the windows from `staged_from` on: after those windows' entries.
///
/// # Safety
/// `bin_starts` as for [`window_entries`], `staged_from ≤ round`.
#[inline(always)]
pub(super) unsafe fn staged_at(bin_starts: *const u32, round: u32, staged_from: u32, bins_log: u32) -> usize {
    (*bin_starts.add((round << bins_log) as usize) - *bin_starts.add((staged_from << bins_log) as usize)) as usize
}

/// Pass 1 for windows `rounds.0 .. rounds.1`: every entry of the windows'
/// digits as a `key << 32 | entry` pair into `staged`, each window's after
/// the windows' before it (`staged_at`), bins in key order; the ones
/// bucket's entries (round 0) into `entries` through `cursor`. A tile's
/// windows are taken by neighbouring blocks, which run at the same time,
/// so the windows after the first read their scalars from the L2 the
/// first's reads filled: one read of the scalars from memory for several
/// windows.
///
/// `tiles · (rounds.1 − rounds.0)` blocks of [`BLOCK`] threads; round 0
/// reads scalar `k` for `k < n`, later rounds the listed scalar
/// `digit_list[k]` for `k < *digit_count`.
///
/// # Safety
/// `a.sets == a.windows` (no tables); `bin_starts` the scanned bin counts
/// ([`super::binned_counts::count_bins`]); `cursor[ones]` the ones bucket's
/// start; `bin_cursor` `2^bins_log` zeroed counters for each of the rounds,
/// `staged` room for the windows' entries, `bins_log ≤ c − 1` and `≤
/// MAX_BINS_LOG`; the list as `count_bins` wrote it; `tiles · TILE` covers
/// the scalars read.
#[inline(always)]
pub unsafe fn bin(
    a: &DigitArgs,
    rounds: (u32, u32),
    bins_log: u32,
    tiles: u32,
    bin_starts: *const u32,
    cursor: *mut u32,
    bin_cursor: *mut u32,
    staged: *mut u64,
    entries: *mut u32,
    digit_list: *const u32,
    digit_count: *const u32,
) {
    let fine_log = a.c - 1 - bins_log;
    let bins = 1u32 << bins_log;
    let ones = ones_key(a.c, a.sets);
    let shared = Shared::block();

    // Block `b` takes window `rounds.0 + b % windows` of tile `b / windows`:
    // a tile's windows run in neighbouring blocks, started together, so
    // the scalars the first reads from memory are in the L2 for the rest.
    // At least one (a division by zero would be a panic path in the PTX).
    let windows = (rounds.1 - rounds.0).max(1);
    for blk in block_ids(tiles * windows) {
        let tile = blk / windows * TILE;
        let round = rounds.0 + blk % windows;
        let listed = if round == 0 { a.n } else { *digit_count };
        // A list of every scalar (all have digits, as in an H query's MSM)
        // is some order of 0..n: read the scalars in place, not through it.
        let in_place = listed == a.n;
        let first = first_key(a.c, round);
        // Block-uniform: no thread of a block past the list reaches a barrier.
        if tile >= listed {
            continue;
        }
        shared.clear(bins); // COUNTS
        sync();
        let mut items = PerThread::new([NONE; ITEMS as usize]);
        for tid in threads() {
            let mine = items.of(tid);
            // Unrolled: a dynamic index would put the items in local memory.
            // The scalars are read a group at a time, every read issued
            // before the first is waited on; the shared-memory atomics come
            // after all of them (an atomic orders the reads around it).
            unrolled_for!(g in 0..(ITEMS / READ_GROUP) as usize => {
                let mut index = [usize::MAX; READ_GROUP as usize];
                unrolled_for!(q in 0..READ_GROUP as usize => {
                    let k = tile + (g * READ_GROUP as usize + q) as u32 * BLOCK + tid;
                    if k < listed {
                        index[q] = if in_place { k as usize } else { *digit_list.add(k as usize) as usize };
                    }
                });
                let mut stored = [Fr::ZERO; READ_GROUP as usize];
                unrolled_for!(q in 0..READ_GROUP as usize => {
                    if index[q] != usize::MAX {
                        stored[q] = read(a, index[q]);
                    }
                });
                unrolled_for!(q in 0..READ_GROUP as usize => {
                    let (key, entry) = if index[q] == usize::MAX {
                        (NO_KEY, 0)
                    } else {
                        let (base, limbs, kind) = classify(a, index[q], stored[q]);
                        window_key(kind, &limbs, round, base, a.layout(), ones)
                    };
                    let item = &mut mine[g * READ_GROUP as usize + q];
                    item.key = key;
                    item.entry = entry;
                });
            });
            unrolled_for!(j in 0..ITEMS as usize => {
                let item = &mut mine[j];
                // Round-uniform, so every lane of the warp calls it.
                if round == 0 {
                    let one = if item.key == ones { ones } else { NO_KEY };
                    let slot = aggregated_increment(cursor, one);
                    if one != NO_KEY {
                        *entries.add(slot as usize) = item.entry;
                        item.key = NO_KEY;
                    }
                }
                if item.key != NO_KEY {
                    item.rank = shared.fetch_add(COUNTS + ((item.key - first) >> fine_log), 1);
                }
            });
        }
        sync();
        // The bins' places in the staging array: the bin's place among
        // the launch's windows (from the bin starts) plus what blocks before
        // this one reserved. (Addressed here rather than at the block's
        // start, to spare registers across the reads.)
        let round_bins = bin_starts.add((round << bins_log) as usize);
        let staged_start = *bin_starts.add((rounds.0 << bins_log) as usize);
        let bin_cursor = bin_cursor.add(((round - rounds.0) << bins_log) as usize);
        for tid in threads() {
            for b in share(tid, bins) {
                let count = shared.load(COUNTS + b);
                if count != 0 {
                    let reserved = atomic_add(bin_cursor.add(b as usize), count);
                    let bin_start = *round_bins.add(b as usize) - staged_start;
                    shared.store(PLACES + b, bin_start + reserved);
                }
            }
        }
        sync();
        // Counts become each bin's place among the tile's pairs.
        let total = shared.exclusive_scan(COUNTS, bins, SORTED_KEYS);
        let bin_of = |key: u32| (key - first) >> fine_log;
        put_in_order(&shared, &mut items, bin_of);
        write_in_order(&shared, total, bin_of, |key, entry, to| {
            *staged.add(to as usize) = (key as u64) << 32 | entry as u64;
        });
    }
}

/// Pass 2 for window `round`: the staged pairs' entries into `entries`
/// through `cursor`. `tiles` blocks of [`BLOCK`] threads.
///
/// # Safety
/// [`bin`] has run for this round with the same `bin_starts`, `c` and
/// `bins_log`, its first round `staged_from`; `cursor` the window's bucket
/// starts (scanned from [`super::binned_counts::count_keys`]); `tiles ·
/// TILE` covers the window's entries.
#[inline(always)]
pub unsafe fn refine(
    staged: *const u64,
    bin_starts: *const u32,
    cursor: *mut u32,
    entries: *mut u32,
    c: u32,
    (round, staged_from): (u32, u32),
    bins_log: u32,
    tiles: u32,
) {
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
        let local = span <= LOCAL_KEYS;
        if local {
            shared.clear(span); // COUNTS
        }
        sync();
        let mut items = PerThread::new([NONE; ITEMS as usize]);
        for tid in threads() {
            let mine = items.of(tid);
            unrolled_for!(j in 0..ITEMS as usize => {
                let item = &mut mine[j];
                let k = tile + j as u32 * BLOCK + tid;
                let (key, entry) = if k < count {
                    let pair = *staged.add(k as usize);
                    ((pair >> 32) as u32, pair as u32)
                } else {
                    (NO_KEY, 0)
                };
                if local {
                    if key != NO_KEY {
                        // Keys relative to the tile's lowest.
                        item.key = key - first - low;
                        item.rank = shared.fetch_add(COUNTS + item.key, 1);
                        item.entry = entry;
                    }
                } else {
                    // Block-uniform branch: every lane of the warp calls it.
                    let slot = aggregated_increment(cursor, key);
                    if key != NO_KEY {
                        *entries.add(slot as usize) = entry;
                    }
                }
            });
        }
        if !local {
            continue;
        }
        sync();
        // Each key's place in `entries`: one atomic per key the tile has.
        for tid in threads() {
            for k in share(tid, span) {
                let n = shared.load(COUNTS + k);
                if n != 0 {
                    shared.store(PLACES + k, atomic_add(cursor.add((first + low + k) as usize), n));
                }
            }
        }
        sync();
        // Counts become each key's place among the tile's entries.
        let total = shared.exclusive_scan(COUNTS, span, SORTED_KEYS);
        put_in_order(&shared, &mut items, |k| k);
        write_in_order(&shared, total, |k| k, |_, entry, to| {
            *entries.add(to as usize) = entry;
        });
    }
}

/// Puts every item the block's threads hold at its group's place among
/// the tile's items (`COUNTS`, scanned) plus its rank: keys and entries in
/// two planes. Ends with a [`sync`].
#[inline(always)]
unsafe fn put_in_order(shared: &Shared, items: &mut PerThread<[Item; ITEMS as usize]>, group: impl Fn(u32) -> u32) {
    for tid in threads() {
        let mine = items.of(tid);
        unrolled_for!(j in 0..ITEMS as usize => {
            let item = mine[j];
            if item.key != NO_KEY {
                let at = shared.load(COUNTS + group(item.key)) + item.rank;
                shared.store(SORTED_KEYS + at, item.key);
                shared.store(SORTED_ENTRIES + at, item.entry);
            }
        });
    }
    sync();
}

/// The tile's `total` items in order, consecutive threads taking
/// consecutive items: `write(key, entry, to)`, `to` the group's place
/// (`PLACES`) plus the item's place within its group.
#[inline(always)]
unsafe fn write_in_order(shared: &Shared, total: u32, group: impl Fn(u32) -> u32, mut write: impl FnMut(u32, u32, u32)) {
    for tid in threads() {
        for at in share(tid, total) {
            let key = shared.load(SORTED_KEYS + at);
            let g = group(key);
            write(key, shared.load(SORTED_ENTRIES + at), shared.load(PLACES + g) + (at - shared.load(COUNTS + g)));
        }
    }
}
