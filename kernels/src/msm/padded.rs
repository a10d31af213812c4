//! The counting sort without a histogram pass, for dense inputs: every
//! bucket gets `2^cap_log` slots up front, the scatter's cursors (from zero)
//! become the counts, and a streaming copy packs the slots into the sorted
//! array the accumulation reads.
//!
//! With random scalars and one bucket set a bucket's size is binomial
//! (384 ± 20 entries at 2^26 scalars, c = 22), so slots of a few standard
//! deviations above the mean almost never run out; entries past a bucket's
//! slots (skewed inputs: the ones bucket, repeated scalars) go to an
//! overflow list of `(key, entry)` pairs and are placed after the bucket's
//! packed slots once the starts are known. Correct for any input; fast
//! when the overflow is rare.

use super::digits::DigitArgs;
use super::sort::{for_rounds, start, warp_all_skip};
use super::warp::{aggregated_increment, any, uniform_indices};
use super::NO_KEY;
use crate::gpu::grid::indices;

/// Writes the entries of windows `round_begin..round_end` to their
/// bucket's slots `padded[key << cap_log ..]`, counting them in
/// `counts[key]`; entries past `2^cap_log` in a bucket go to `overflow`
/// (`(key << 32) | entry`, `*overflow_count` of them).
///
/// # Safety
/// `counts` holds `ones_key + 1` counters, zeroed before the first launch;
/// `padded` `(ones_key + 1) << cap_log` slots; `overflow` room for every
/// entry; `*overflow_count` zeroed before the first launch.
#[inline(always)]
pub unsafe fn scatter(
    a: &DigitArgs,
    counts: *mut u32,
    cap_log: u32,
    padded: *mut u32,
    overflow: *mut u64,
    overflow_count: *mut u32,
    round_begin: u32,
    round_end: u32,
) {
    let round_end = round_end.min(a.windows);
    let cap = 1u32 << cap_log;
    for i in uniform_indices(a.n) {
        let (base, kind, mut digits) = start(a, i);
        if warp_all_skip(kind) {
            continue;
        }
        for_rounds(a, base, kind, &mut digits, round_begin, round_end, |key, entry| {
            let slot = aggregated_increment(counts, key);
            let spill = key != NO_KEY && slot >= cap;
            // The overflow's own warp-aggregated counter only when a lane
            // needs it (uniform: every lane sees the same vote).
            if any(spill) {
                let at = aggregated_increment(overflow_count, if spill { 0 } else { NO_KEY });
                if spill {
                    *overflow.add(at as usize) = ((key as u64) << 32) | entry as u64;
                }
            }
            if key != NO_KEY && !spill {
                *padded.add(((key as usize) << cap_log) + slot as usize) = entry;
            }
        });
    }
}

/// Packs every bucket's filled slots into `entries` from its start:
/// `slots = n_keys << cap_log` indices, one slot each.
///
/// # Safety
/// `starts` holds the exclusive scan of the counts (`n_keys + 1`), `padded`
/// as written by [`scatter`], `entries` room for every entry.
#[inline(always)]
pub unsafe fn compact(starts: *const u32, slots: u32, cap_log: u32, padded: *const u32, entries: *mut u32) {
    let cap = 1u32 << cap_log;
    for i in indices(slots) {
        let key = i >> cap_log;
        let j = i as u32 & (cap - 1);
        let first = *starts.add(key);
        if j < *starts.add(key + 1) - first {
            *entries.add((first + j) as usize) = *padded.add(i);
        }
    }
}

/// Puts the overflow's entries after their buckets' packed slots: entry
/// `cursor[key]++ + 2^cap_log`.
///
/// # Safety
/// `cursor` a fresh copy of the starts; `overflow` and `overflow_count`
/// as written by [`scatter`]; `entries` as after [`compact`].
#[inline(always)]
pub unsafe fn place_overflow(overflow: *const u64, overflow_count: *const u32, cursor: *mut u32, cap_log: u32, entries: *mut u32) {
    let n = *overflow_count;
    for k in uniform_indices(n) {
        let (key, entry) = if k < n as usize {
            let pair = *overflow.add(k);
            ((pair >> 32) as u32, pair as u32)
        } else {
            (NO_KEY, 0)
        };
        let slot = aggregated_increment(cursor, key);
        if key != NO_KEY {
            *entries.add((slot + (1 << cap_log)) as usize) = entry;
        }
    }
}
