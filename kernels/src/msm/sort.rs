//! Counting sort of (base, sign) entries by bucket key: histogram, then (after
//! an exclusive scan of the counts, [`super::scan`]) scatter.
//!
//! Both passes recompute the digits from the scalars rather than storing
//! `n · W` keys in between: a Montgomery-to-canonical conversion per scalar is
//! far cheaper than the memory (and none is needed for scalars handed over
//! as integers, [`crate::ff::ScalarForm::Canonical`]). One thread per scalar walks its `W` windows;
//! all lanes of a warp walk them in lockstep so that lanes hitting the same
//! key in the same round (skewed inputs: many equal small scalars, or the
//! ones bucket) share one atomic ([`super::warp::aggregated_increment`]).

use super::digits::{load, ones_key, round_key, DigitArgs, Kind, SetWalk, SignedDigits};
use super::warp::{aggregated_add, aggregated_increment, all, uniform_indices};
use super::NO_KEY;

/// The per-lane state for one scalar (or an idle lane past the end).
#[inline(always)]
pub(super) unsafe fn start(a: &DigitArgs, i: usize) -> (u32, Kind, SignedDigits) {
    let (base, limbs, kind) = if i < a.n as usize {
        load(a, i)
    } else {
        (0, [0; 4], Kind::Skip)
    };
    (base, kind, SignedDigits::new(limbs, a.layout()))
}

/// `counts[key] += 1` for every entry; the index of every scalar with
/// digits (neither skipped nor a one) appended to `digit_list`, for the
/// scatter's later launches (none when `digit_list` is null: one launch).
///
/// # Safety
/// `counts` holds `ones_key(c, windows) + 1` zeroed counters, `digit_list`
/// room for `n` indices or null, `*digit_count` is 0; `a` as documented on
/// [`DigitArgs`].
#[inline(always)]
pub unsafe fn histogram(a: &DigitArgs, counts: *mut u32, digit_list: *mut u32, digit_count: *mut u32) {
    for i in uniform_indices(a.n) {
        let (base, kind, mut digits) = start(a, i);
        // Warp-uniform: the pointer is a kernel argument.
        if !digit_list.is_null() {
            append(digit_list, digit_count, i as u32, kind == Kind::Digits);
        }
        // A warp with no lane that has anything to add skips the rounds
        // (uniform: every lane sees the same vote).
        if warp_all_skip(kind) {
            continue;
        }
        for_rounds(a, base, kind, &mut digits, 0, a.windows, |key, _| aggregated_add(counts, key));
    }
}

/// Writes the entries of windows `round_begin..round_end` to
/// `entries[cursor[key]++]`.
///
/// The plan splits the windows over several launches so that the cursors
/// being incremented at any moment stay few: with all windows in one pass,
/// the returning atomics of a 2^26 MSM at c = 20 go to 27 MB of cursors and
/// ran at half the rate seen with 2 MB. The first launch reads every scalar
/// (ones have their single entry in round 0); later ones read only the
/// scalars in `digit_list`, so a witness of mostly zeros and ones is not
/// read again per launch, and skip the rounds below their range (a shift
/// each).
///
/// # Safety
/// `cursor` holds the bucket starts (exclusive scan of the histogram) for
/// `ones_key + 1` keys; `entries` has room for every entry; `digit_list`
/// and `digit_count` as written by [`histogram`] for the same arguments.
#[inline(always)]
pub unsafe fn scatter(
    a: &DigitArgs,
    cursor: *mut u32,
    entries: *mut u32,
    digit_list: *const u32,
    digit_count: *const u32,
    round_begin: u32,
    round_end: u32,
) {
    let round_end = round_end.min(a.windows);
    let listed = if round_begin == 0 { a.n } else { *digit_count };
    for k in uniform_indices(listed) {
        let (base, kind, mut digits) = if k >= listed as usize {
            (0, Kind::Skip, SignedDigits::new([0; 4], a.layout()))
        } else if round_begin == 0 {
            start(a, k)
        } else {
            start(a, *digit_list.add(k) as usize)
        };
        if warp_all_skip(kind) {
            continue;
        }
        for_rounds(a, base, kind, &mut digits, round_begin, round_end, |key, entry| {
            let slot = aggregated_increment(cursor, key);
            if key != NO_KEY {
                *entries.add(slot as usize) = entry;
            }
        });
    }
}

/// Calls `f(key, entry)` for rounds `round_begin..round_end` of one
/// scalar's entries (key `NO_KEY` for a round without one), walking the
/// digits and tables of the rounds below without calling it. Every lane of
/// a warp runs the same rounds, so `f` may use warp collectives.
#[inline(always)]
pub(super) fn for_rounds(
    a: &DigitArgs,
    base: u32,
    kind: Kind,
    digits: &mut SignedDigits,
    round_begin: u32,
    round_end: u32,
    mut f: impl FnMut(u32, u32),
) {
    let ones = ones_key(a.c, a.sets);
    let mut walk = SetWalk::new(a);
    for round in 0..round_end {
        let (key, entry) = round_key(kind, digits, round, walk, base, a.c, ones);
        walk.next(a);
        if round >= round_begin {
            f(key, entry);
        }
    }
}

/// Appends `i` to `list` when `flag`, `*count` counting: the warp-aggregated
/// increment of a single counter (one atomic per warp, lanes in order, so a
/// warp's indices stay adjacent and ascending).
///
/// # Safety
/// `list` has room for every flagged index; on the GPU all 32 lanes of the
/// warp must call this together.
#[inline(always)]
pub(super) unsafe fn append(list: *mut u32, count: *mut u32, i: u32, flag: bool) {
    let slot = aggregated_increment(count, if flag { 0 } else { NO_KEY });
    if flag {
        *list.add(slot as usize) = i;
    }
}

/// Whether every lane of the warp skips its scalar (zeros, unselected).
///
/// # Safety
/// On the GPU all 32 lanes of the warp must call this together.
#[inline(always)]
pub(super) unsafe fn warp_all_skip(kind: Kind) -> bool {
    all(kind == Kind::Skip)
}
