//! Pippenger bucket MSM: `Σ s_i · P_i` for G1 and G2, one implementation
//! generic over [`crate::ec::CurveConfig`].
//!
//! The pipeline (every step one or more kernel launches on one stream, no
//! atomics on points, no host round trip; [`plan`] sequences it):
//!
//! 1. **Digits** ([`digits`]): each scalar (blstrs Montgomery `Fr`) is made
//!    canonical and cut into `W` signed digits of `c` bits, `|d| ≤ 2^(c−1)`
//!    ([`digits::num_windows`]), or, on request, only as many `c` bits
//!    wide as 256 bits need and the rest `c − 1`
//!    ([`digits::WindowLayout`], [`plan::WindowCut`]). A digit `d ≠ 0` of window `w` puts the base
//!    into bucket `w·H + |d| − 1` (`H = 2^(c−1)`), negated when `d < 0`.
//!    Scalars equal to 0 are skipped; scalars equal to 1 go, whole, into one
//!    extra bucket, the *ones bucket* (key `W·H`), so a witness full of ones
//!    does not pile up in window 0's bucket 1. An optional density bitmap
//!    selects scalars; the base of selected scalar `i` is `base_offset +`
//!    (set bits before `i`), from a per-word prefix popcount.
//! 2. **Counting sort** ([`sort`], [`scan`]): a histogram of bucket keys
//!    (warp-aggregated `atom.add` on `u32` counters), an exclusive scan into
//!    bucket starts, then a scatter that writes each entry `base | sign<<31`
//!    to its bucket's range through per-bucket cursors, a few windows per
//!    launch so the cursors in use stay in cache (the histogram lists the
//!    scalars with digits, and only those are read again after the first
//!    launch). Order inside a bucket is arbitrary: addition is exact.
//!    Large MSMs without tables can sort in two passes instead
//!    ([`binned`]: entries to bins of buckets in shared-memory tiles, then
//!    from the bins to their buckets), one global atomic per block and
//!    bucket rather than per entry, with counts taken the same way
//!    ([`binned_counts`]) instead of the histogram.
//!    With precomputed tables (dense benchmark inputs) the sort is padded
//!    instead ([`padded`]): no histogram; every bucket gets a fixed number
//!    of slots, the scatter's cursors count, a streaming copy packs the
//!    slots, and entries past a bucket's slots go through an overflow list.
//! 3. **Bucket accumulation** ([`accumulate`]): a segmented reduction over
//!    the sorted entries that is oblivious to bucket sizes. Thread `t` sums
//!    a fixed-length chunk with XYZZ mixed additions; runs that lie strictly
//!    inside the chunk are complete buckets and are stored (a bucket's
//!    first run starts from its sum, set to the identity before the MSM;
//!    an MSM in several calls keeps them from call to call, `plan::Carry`),
//!    the first
//!    and last run of the chunk are forwarded as `(key, partial)` items to
//!    the next level, which reduces them the same way (full XYZZ additions)
//!    until one thread is left. A bucket with a million entries is therefore
//!    summed by many threads plus a logarithmic tree, exactly like a small one.
//!    The first level can instead add affine points in batches that share
//!    one inversion ([`batch_affine`], chosen by `plan::Accumulation`), with
//!    the same outputs.
//! 4. **Bucket reduction** ([`reduce`]): per window `Σ_k k·B_k` by a tree
//!    of merge levels (each thread folds 16 adjacent segments' running sums
//!    into one, so every level is one short launch over many threads), then
//!    one thread per window weights it by `2^(c·w)`, and a single thread
//!    adds the windows and the ones bucket into one Jacobian point.
//!
//! All working memory comes from one caller-supplied arena whose layout
//! [`plan::MsmPlan`] computes; nothing is allocated on the device.

pub mod accumulate;
pub mod batch_affine;
pub mod binned;
pub mod binned_counts;
pub mod block;
pub mod digits;
pub mod padded;
#[cfg(not(target_arch = "nvptx64"))]
pub mod plan;
pub mod reduce;
pub mod scan;
pub mod sort;
pub mod tables;
pub mod warp;

/// Bit 31 of a sorted entry: the base is subtracted, not added.
pub const NEG: u32 = 1 << 31;
/// Bit 31 of a forwarded item's key: the item carries no point (read as the
/// identity). Keeps key sequences sorted without a placeholder point.
pub const EMPTY: u32 = 1 << 31;
/// The bucket key bits of an item key.
pub const KEY_MASK: u32 = !EMPTY;
/// Key of padding items after the last real entry: larger than every bucket
/// key, so sequences stay sorted; never written out, never carries a point.
pub const SENTINEL: u32 = u32::MAX;
/// Key given to a lane with nothing to count or scatter in a round.
pub const NO_KEY: u32 = u32::MAX;
