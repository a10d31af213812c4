//! Carried buckets: an MSM run as several calls (pieces of its scalars and
//! bases, when its arena or a staging buffer holds only a piece) that keep
//! one set of bucket sums from call to call and reduce them once.
//!
//! Each call sorts and accumulates its own entries, its first level
//! starting each bucket from the arena's bucket sum (`accumulate`), which
//! lie first in the arena at the same place for every plan of one window
//! and set count. The batch-affine first level does not (its runs are
//! affine), so its plans do not carry. Against calls that each reduce
//! their own buckets, the whole MSM keeps its own window (a 2^27 G1 MSM in
//! 16 calls: 13 windows of 20 bits instead of 16 of 16 bits each) and pays
//! one reduction, plus one mixed addition per bucket a call touches (its
//! first entry goes onto the carried sum instead of starting the run).

use super::*;

/// Where one call stands among the calls of an MSM that carry buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carry {
    /// It sets the bucket sums to the identity before adding into them.
    pub first: bool,
    /// It reduces the sums and writes the MSM's result.
    pub last: bool,
}

impl Carry {
    /// A whole MSM in one call.
    pub const WHOLE: Carry = Carry { first: true, last: true };

    /// Call `k` of `calls`.
    pub fn of(k: usize, calls: usize) -> Carry {
        Carry { first: k == 0, last: k + 1 == calls }
    }
}

impl MsmPlan {
    /// Whether a call planned as `self` can carry its buckets into one
    /// planned as `other`: the same curve, windows, bucket sets and tables,
    /// so the same keys and the same bucket sums at the arena's start, and
    /// both with the XYZZ first level.
    pub fn carries_with(&self, other: &MsmPlan) -> bool {
        self.batch.is_none()
            && other.batch.is_none()
            && (self.curve, self.c, self.windows, self.wide, self.sets, self.tables, self.n_keys, self.layout.sums)
                == (other.curve, other.c, other.windows, other.wide, other.sets, other.tables, other.n_keys, other.layout.sums)
    }
}

/// The scalars of one call: those selected, and how many of them are
/// neither 0 nor 1 (at most; all of them for random scalars).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallScalars {
    pub selected: u64,
    pub general: u64,
}

/// What a call adds per bucket it touches, in mixed additions: the
/// bucket's first entry is added onto its carried sum (a load and one
/// mixed addition) where a run otherwise starts from the entry itself.
const CARRIED_BUCKET: f64 = 1.0;
/// The reduction's mixed additions per bucket: about two full additions,
/// counted as two mixed ones apiece (as in `default_window_bits`).
const REDUCTION_PER_BUCKET: f64 = 4.0;

/// Buckets of window `c` (one set per window, no tables).
fn buckets(c: u32) -> f64 {
    num_windows(c) as f64 * (1u64 << (c - 1)) as f64
}

/// Entries a call sorts and adds at window `c`: every window of a general
/// scalar, and one (the ones bucket) for each other.
fn entries(c: u32, call: &CallScalars) -> f64 {
    let general = call.general.min(call.selected);
    general as f64 * num_windows(c) as f64 + (call.selected - general) as f64
}

/// The modelled cost, in mixed additions, of `calls` at window `c` that
/// carry their buckets: their entries, each call's carried sums of the
/// buckets it touches, and one reduction.
pub fn carried_cost(c: u32, calls: &[CallScalars]) -> f64 {
    let adds: f64 = calls.iter().map(|call| entries(c, call) + CARRIED_BUCKET * buckets(c).min(entries(c, call))).sum();
    adds + REDUCTION_PER_BUCKET * buckets(c)
}

/// The modelled cost of `calls` that each choose their own window
/// ([`default_window_bits`] of their general scalars) and reduce their
/// own buckets.
pub fn separate_cost(calls: &[CallScalars]) -> f64 {
    calls
        .iter()
        .map(|call| {
            let c = default_window_bits(call.general.min(call.selected).max(1) as usize);
            entries(c, call) + REDUCTION_PER_BUCKET * buckets(c)
        })
        .sum()
}

/// The windows carried calls may take: at most [`default_window_bits`]
/// of all their `general` scalars, what the whole MSM would use (the
/// measured best, where the model alone would go larger).
pub fn carried_windows(general: u64) -> core::ops::RangeInclusive<u32> {
    1..=default_window_bits(general.max(1) as usize)
}

/// Of [`carried_windows`], the one that minimises [`carried_cost`]
/// among those `fits` accepts; `None` if it accepts none.
pub fn carried_window_bits(calls: &[CallScalars], fits: impl Fn(u32) -> bool) -> Option<u32> {
    let general: u64 = calls.iter().map(|c| c.general.min(c.selected)).sum();
    carried_windows(general).filter(|&c| fits(c)).min_by(|&a, &b| carried_cost(a, calls).total_cmp(&carried_cost(b, calls)))
}
