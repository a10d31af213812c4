//! Counting sort of (base, sign) entries by bucket key: histogram, then (after
//! an exclusive scan of the counts, [`super::scan`]) scatter.
//!
//! Both passes recompute the digits from the scalars rather than storing
//! `n · W` keys in between: a Montgomery-to-canonical conversion per scalar is
//! far cheaper than the memory. One thread per scalar walks its `W` windows;
//! all lanes of a warp walk them in lockstep so that lanes hitting the same
//! key in the same round (skewed inputs: many equal small scalars, or the
//! ones bucket) share one atomic ([`super::warp::aggregated_increment`]).

use super::digits::{load, ones_key, round_key, DigitArgs, Kind, SignedDigits};
use super::warp::{atomic_add, lane, match_any, uniform_indices};
use super::NO_KEY;

/// The per-lane state for one scalar (or an idle lane past the end).
#[inline(always)]
unsafe fn start(a: &DigitArgs, i: usize) -> (u32, Kind, SignedDigits) {
    let (base, limbs, kind) = if i < a.n as usize {
        load(a, i)
    } else {
        (0, [0; 4], Kind::Skip)
    };
    (base, kind, SignedDigits::new(limbs, a.c))
}

/// `counts[key] += 1` for every entry.
///
/// # Safety
/// `counts` holds `ones_key(c, windows) + 1` zeroed counters; `a` as
/// documented on [`DigitArgs`].
#[inline(always)]
pub unsafe fn histogram(a: &DigitArgs, counts: *mut u32) {
    let ones = ones_key(a.c, a.windows);
    for i in uniform_indices(a.n) {
        let (base, kind, mut digits) = start(a, i);
        // A warp with no lane that has anything to add skips the rounds
        // (uniform: every lane sees the same vote).
        if warp_all_skip(kind) {
            continue;
        }
        for round in 0..a.windows {
            let (key, _) = round_key(kind, &mut digits, round, base, a.c, ones);
            let peers = match_any(key);
            if key != NO_KEY && lane() == peers.trailing_zeros() {
                atomic_add(counts.add(key as usize), peers.count_ones());
            }
        }
    }
}

/// Writes every entry to `entries[cursor[key]++]`.
///
/// # Safety
/// `cursor` holds the bucket starts (exclusive scan of the histogram) for
/// `ones_key + 1` keys; `entries` has room for every entry.
#[inline(always)]
pub unsafe fn scatter(a: &DigitArgs, cursor: *mut u32, entries: *mut u32) {
    let ones = ones_key(a.c, a.windows);
    for i in uniform_indices(a.n) {
        let (base, kind, mut digits) = start(a, i);
        if warp_all_skip(kind) {
            continue;
        }
        for round in 0..a.windows {
            let (key, entry) = round_key(kind, &mut digits, round, base, a.c, ones);
            let slot = super::warp::aggregated_increment(cursor, key);
            if key != NO_KEY {
                *entries.add(slot as usize) = entry;
            }
        }
    }
}

/// Whether every lane of the warp skips its scalar (zeros, unselected).
#[inline(always)]
unsafe fn warp_all_skip(kind: Kind) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let skip = (kind == Kind::Skip) as u32;
        let all: u32;
        core::arch::asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {s}, 0; vote.sync.all.pred q, p, 0xffffffff; selp.u32 {a}, 1, 0, q; }}",
            s = in(reg32) skip,
            a = out(reg32) all,
            options(nomem, nostack, preserves_flags)
        );
        all != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        kind == Kind::Skip
    }
}
