//! Bucket sums by segmented reduction over the key-sorted entries.
//!
//! Level 0 reads the sorted entries (base index and sign) and the bucket
//! starts; levels 1, 2, … read `(key, XYZZ)` items written by the level
//! before. At every level thread `t` owns the fixed chunk `[t·L, t·L + L)`
//! and splits it into *runs* of equal key:
//!
//! * a run that is neither the first nor the last of its chunk is bounded
//!   by other keys inside the chunk, hence holds every remaining item of its
//!   bucket: its sum is the bucket's and is stored into `sums[key]`;
//! * the first run goes to item `2t` and the last run to item `2t + 1` of
//!   the next level (a chunk with a single run sends `key | EMPTY`, no point,
//!   as item `2t + 1`). These items are again sorted by key, every bucket
//!   still forms one contiguous run, and the next level shrinks by `L / 2`;
//! * the last level has a single thread, which stores every run.
//!
//! So each bucket is stored exactly once, by whichever level first sees it
//! strictly inside a chunk (or by the last level), whatever its size, and
//! every thread does at most `L` additions per level.
//!
//! Level 0 starts the run that holds a bucket's first entry from the
//! bucket's sum as it is (`sums[key]`) instead of the identity, and every
//! other run from the identity, so what is stored is the old sum plus the
//! bucket's entries. The plan sets the sums to the identity before an MSM,
//! so buckets without entries read as the identity; an MSM in several
//! calls (pieces of its scalars and bases) carries its buckets from one
//! call to the next and reduces them once (`plan::Carry`). Only the thread
//! that holds a bucket's first entry reads its sum, before anything in the
//! same call stores it.
//!
//! Chunks past the last entry emit [`SENTINEL`] items, which sort after
//! every bucket and are dropped.

use super::{EMPTY, KEY_MASK, NEG, SENTINEL};
use crate::ec::{Affine, CurveConfig, Xyzz};
use crate::gpu::grid::indices;
use crate::mem::Limbs;

#[inline(always)]
pub(super) fn xyzz_limbs<C: CurveConfig>() -> usize {
    <Xyzz<C> as Limbs>::LIMBS
}

/// Stores item `slot` of the next level: `key` with `acc`, or a point-less
/// sentinel for the padding key.
#[inline(always)]
pub(super) unsafe fn emit<C: CurveConfig>(
    keys: *mut u32,
    points: *mut u64,
    slot: usize,
    key: u32,
    acc: &Xyzz<C>,
) {
    if key == KEY_MASK {
        *keys.add(slot) = SENTINEL;
    } else {
        *keys.add(slot) = key;
        acc.store(points.add(slot * xyzz_limbs::<C>()));
    }
}

/// The bucket holding entry position `p`: the largest key `b < n_keys` with
/// `starts[b] ≤ p` (empty buckets share their start with the next one, so
/// this is the non-empty bucket containing `p`). Requires `p < starts[n_keys]`.
#[inline(always)]
pub(super) unsafe fn bucket_of(starts: *const u32, n_keys: u32, p: u32) -> u32 {
    let (mut lo, mut hi) = (0u32, n_keys);
    while hi - lo > 1 {
        let mid = lo + ((hi - lo) >> 1);
        if *starts.add(mid as usize) <= p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Level 0: chunks of `chunk` sorted entries, `threads` of them.
///
/// `starts` holds `n_keys + 1` bucket starts (`starts[n_keys]` = number of
/// entries); `bases` the affine bases; `sums` one XYZZ per key, which a
/// bucket's first run starts from (see the module docs).
///
/// With `PREFETCH` the next entry's base is loaded before the current one
/// is added, so its memory latency overlaps an addition (costs one affine
/// point of registers: worth it for G1, spills G2).
///
/// # Safety
/// Buffers as described, `bases` 16-byte aligned and unchanged while the
/// kernel runs; `out_keys`/`out_points` hold `2 · threads` items;
/// `threads · chunk` must not overflow `u32`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn level0<C: CurveConfig, const PREFETCH: bool>(
    bases: *const u64,
    entries: *const u32,
    starts: *const u32,
    n_keys: u32,
    chunk: u32,
    threads: u32,
    out_keys: *mut u32,
    out_points: *mut u64,
    sums: *mut u64,
) {
    let affine_limbs = <Affine<C> as Limbs>::LIMBS;
    // The entry's base and whether it is subtracted; negation waits until
    // the point is used, so a prefetch does not stall on its own load.
    let fetch = |p: u32| {
        let e = *entries.add(p as usize);
        let base = Affine::<C>::load_readonly(bases.add((e & !NEG) as usize * affine_limbs));
        (base, e & NEG != 0)
    };
    let total = *starts.add(n_keys as usize);
    for t in indices(threads) {
        let p0 = t as u32 * chunk;
        if p0 >= total {
            *out_keys.add(2 * t) = SENTINEL;
            *out_keys.add(2 * t + 1) = SENTINEL;
            continue;
        }
        let p1 = if total - p0 < chunk {
            total
        } else {
            p0 + chunk
        };
        // One flat loop over the chunk: every lane adds one entry per
        // iteration and all lanes (equal chunks) run the same number of
        // iterations, so a warp stays converged on the additions. (Nested
        // per-run loops made each lane wait at every inner-loop exit for
        // the lane with the longest remaining run.) A run ending is a short
        // divergent branch: store the run's sum, move to the next bucket.
        let mut key = bucket_of(starts, n_keys, p0);
        let mut run_end = *starts.add(key as usize + 1);
        let mut first = true;
        let mut acc = if *starts.add(key as usize) == p0 {
            Xyzz::<C>::load(sums.add(key as usize * xyzz_limbs::<C>()))
        } else {
            Xyzz::<C>::IDENTITY
        };
        let mut next = if PREFETCH {
            fetch(p0)
        } else {
            (Affine::<C>::IDENTITY, false)
        };
        for p in p0..p1 {
            let (base, negative) = if PREFETCH {
                let current = next;
                if p + 1 < p1 {
                    next = fetch(p + 1);
                }
                current
            } else {
                fetch(p)
            };
            if p == run_end {
                if first {
                    emit(out_keys, out_points, 2 * t, key, &acc);
                    first = false;
                } else {
                    acc.store(sums.add(key as usize * xyzz_limbs::<C>()));
                }
                // Next non-empty bucket (p < total, so one exists), whose
                // first entry is `p`: its run starts from its sum.
                key += 1;
                while *starts.add(key as usize + 1) <= p {
                    key += 1;
                }
                run_end = *starts.add(key as usize + 1);
                acc = Xyzz::<C>::load(sums.add(key as usize * xyzz_limbs::<C>()));
            }
            acc = acc.add_affine(&if negative { base.neg() } else { base });
        }
        // The chunk's last run goes on to the next level.
        if first {
            emit(out_keys, out_points, 2 * t, key, &acc);
            *out_keys.add(2 * t + 1) = key | EMPTY;
        } else {
            emit(out_keys, out_points, 2 * t + 1, key, &acc);
        }
    }
}

/// Level ≥ 1: chunks of `chunk` items out of `n_in`, `threads =
/// ceil(n_in / chunk)` of them; `last != 0` for the final, single-thread
/// level, which stores every run.
///
/// # Safety
/// Buffers as described; `out_*` hold `2 · threads` items (unused when
/// `last != 0`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn level<C: CurveConfig>(
    in_keys: *const u32,
    in_points: *const u64,
    n_in: u32,
    chunk: u32,
    threads: u32,
    out_keys: *mut u32,
    out_points: *mut u64,
    sums: *mut u64,
    last: u32,
) {
    let limbs = xyzz_limbs::<C>();
    for t in indices(threads) {
        let p0 = t as u32 * chunk;
        if p0 >= n_in {
            *out_keys.add(2 * t) = SENTINEL;
            *out_keys.add(2 * t + 1) = SENTINEL;
            continue;
        }
        let p1 = if n_in - p0 < chunk { n_in } else { p0 + chunk };
        // One flat loop, as in level 0: lanes stay converged on additions.
        let mut key = *in_keys.add(p0 as usize) & KEY_MASK;
        let mut first = true;
        let mut acc = Xyzz::<C>::IDENTITY;
        for p in p0..p1 {
            let k = *in_keys.add(p as usize);
            if k & KEY_MASK != key {
                // A run ends inside the chunk.
                if last != 0 {
                    acc.store(sums.add(key as usize * limbs));
                } else if first {
                    emit(out_keys, out_points, 2 * t, key, &acc);
                } else {
                    // A middle run; never the sentinel, which sorts last.
                    acc.store(sums.add(key as usize * limbs));
                }
                first = false;
                key = k & KEY_MASK;
                acc = Xyzz::<C>::IDENTITY;
            }
            if k & EMPTY == 0 {
                acc = acc.add(&Xyzz::<C>::load(in_points.add(p as usize * limbs)));
            }
        }
        // The chunk's last run.
        if last != 0 {
            if key != KEY_MASK {
                acc.store(sums.add(key as usize * limbs));
            }
        } else if first {
            emit(out_keys, out_points, 2 * t, key, &acc);
            *out_keys.add(2 * t + 1) = key | EMPTY;
        } else {
            emit(out_keys, out_points, 2 * t + 1, key, &acc);
        }
    }
}
