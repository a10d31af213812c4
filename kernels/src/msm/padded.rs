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
//!
//! A short top window (c = 22: 13 of its 22 bits below r) piles its
//! scalars' digits into few buckets (≈ 7420 of 2^21, 9000 entries each at
//! 2^26): those buckets get slots of their own size ([`PaddedShape`]), so
//! they do not all go through the overflow.

use super::digits::DigitArgs;
use super::sort::{for_rounds, start, warp_all_skip};
use super::warp::{aggregated_increment, any, uniform_indices};
use super::NO_KEY;
use crate::gpu::grid::indices;

/// Slots per bucket: `2^cap_log`, except the `hot_len` buckets from key
/// `hot_begin` with `2^hot_log` each (`hot_log >= cap_log`); laid out in
/// key order. Passed to the kernels packed into one `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaddedShape {
    pub cap_log: u32,
    pub hot_log: u32,
    pub hot_begin: u32,
    pub hot_len: u32,
}

impl PaddedShape {
    /// `2^cap_log` slots for every bucket.
    pub const fn uniform(cap_log: u32) -> Self {
        PaddedShape { cap_log, hot_log: cap_log, hot_begin: 0, hot_len: 0 }
    }

    /// Bits 0..5 `cap_log`, 5..10 `hot_log`, 10..36 `hot_begin`, 36..62
    /// `hot_len` (keys stay below 2^26).
    pub const fn pack(self) -> u64 {
        self.cap_log as u64 | (self.hot_log as u64) << 5 | (self.hot_begin as u64) << 10 | (self.hot_len as u64) << 36
    }

    #[inline(always)]
    pub const fn unpack(w: u64) -> Self {
        const M26: u64 = (1 << 26) - 1;
        PaddedShape {
            cap_log: (w & 31) as u32,
            hot_log: ((w >> 5) & 31) as u32,
            hot_begin: ((w >> 10) & M26) as u32,
            hot_len: ((w >> 36) & M26) as u32,
        }
    }

    /// log2 of bucket `key`'s slots.
    #[inline(always)]
    pub fn cap_log_of(self, key: u32) -> u32 {
        if key.wrapping_sub(self.hot_begin) < self.hot_len {
            self.hot_log
        } else {
            self.cap_log
        }
    }

    /// Index of bucket `key`'s first slot; `base(n_keys)` is the slot count.
    #[inline(always)]
    pub fn base(self, key: u32) -> u32 {
        let hot_before = key.saturating_sub(self.hot_begin).min(self.hot_len);
        (key << self.cap_log) + hot_before * ((1 << self.hot_log) - (1 << self.cap_log))
    }

    /// The key ranges of equal capacity, as `(first key, keys, cap_log)`
    /// (empty ones included), in key order: one packing launch each.
    pub fn regions(self, n_keys: u32) -> [(u32, u32, u32); 3] {
        let begin = self.hot_begin.min(n_keys);
        let end = (self.hot_begin + self.hot_len).min(n_keys);
        [(0, begin, self.cap_log), (begin, end - begin, self.hot_log), (end, n_keys - end, self.cap_log)]
    }
}

/// Writes the entries of windows `round_begin..round_end` to their
/// bucket's slots `padded[shape.base(key) ..]`, counting them in
/// `counts[key]`; entries past a bucket's slots go to `overflow`
/// (`(key << 32) | entry`, `*overflow_count` of them).
///
/// # Safety
/// `counts` holds `ones_key + 1` counters, zeroed before the first launch;
/// `padded` `shape.base(ones_key + 1)` slots; `overflow` room for every
/// entry; `*overflow_count` zeroed before the first launch.
#[inline(always)]
pub unsafe fn scatter(
    a: &DigitArgs,
    counts: *mut u32,
    shape: PaddedShape,
    padded: *mut u32,
    overflow: *mut u64,
    overflow_count: *mut u32,
    round_begin: u32,
    round_end: u32,
) {
    let round_end = round_end.min(a.windows);
    for i in uniform_indices(a.n) {
        let (base, kind, mut digits) = start(a, i);
        if warp_all_skip(kind) {
            continue;
        }
        for_rounds(a, base, kind, &mut digits, round_begin, round_end, |key, entry| {
            let slot = aggregated_increment(counts, key);
            let spill = key != NO_KEY && slot >= 1 << shape.cap_log_of(key);
            // The overflow's own warp-aggregated counter only when a lane
            // needs it (uniform: every lane sees the same vote).
            if any(spill) {
                let at = aggregated_increment(overflow_count, if spill { 0 } else { NO_KEY });
                if spill {
                    *overflow.add(at as usize) = ((key as u64) << 32) | entry as u64;
                }
            }
            if key != NO_KEY && !spill {
                *padded.add((shape.base(key) + slot) as usize) = entry;
            }
        });
    }
}

/// Packs the filled slots of buckets `first_key ..` (`2^cap_log` slots
/// each, from `padded`) into `entries` from their starts: `slots` slots,
/// [`compact_group_log`] of them per index (more loads in flight per
/// thread, fewer start lookups).
///
/// # Safety
/// `starts` holds the exclusive scan of the counts (`n_keys + 1`), `padded`
/// the region's slots as written by [`scatter`] (16-byte aligned), `entries`
/// room for every entry.
#[inline(always)]
pub unsafe fn compact(starts: *const u32, first_key: u32, slots: u32, cap_log: u32, padded: *const u32, entries: *mut u32) {
    let cap = 1u32 << cap_log;
    let group_log = compact_group_log(cap_log);
    for g in indices(slots >> group_log) {
        let i = (g as u32) << group_log;
        let key = first_key + (i >> cap_log);
        let j = i & (cap - 1);
        let first = *starts.add(key as usize);
        let count = *starts.add(key as usize + 1) - first;
        if j < count {
            let at = entries.add((first + j) as usize);
            if group_log == 2 {
                // Two 8-byte loads (a u32x4 read would be split byte-wise).
                let lo = *(padded.add(i as usize) as *const u64);
                let hi = *(padded.add(i as usize + 2) as *const u64);
                *at = lo as u32;
                if j + 1 < count {
                    *at.add(1) = (lo >> 32) as u32;
                }
                if j + 2 < count {
                    *at.add(2) = hi as u32;
                }
                if j + 3 < count {
                    *at.add(3) = (hi >> 32) as u32;
                }
            } else {
                for k in 0..1u32 << group_log {
                    if j + k < count {
                        *at.add(k as usize) = *padded.add((i + k) as usize);
                    }
                }
            }
        }
    }
}

/// log2 of the slots one packing index takes: 4 where buckets hold at
/// least 4.
#[inline(always)]
pub fn compact_group_log(cap_log: u32) -> u32 {
    cap_log.min(2)
}

/// Puts the overflow's entries after their buckets' packed slots: entry
/// `cursor[key]++ + 2^shape.cap_log_of(key)`.
///
/// # Safety
/// `cursor` a fresh copy of the starts; `overflow` and `overflow_count`
/// as written by [`scatter`]; `entries` as after [`compact`].
#[inline(always)]
pub unsafe fn place_overflow(overflow: *const u64, overflow_count: *const u32, cursor: *mut u32, shape: PaddedShape, entries: *mut u32) {
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
            *entries.add((slot + (1 << shape.cap_log_of(key))) as usize) = entry;
        }
    }
}
