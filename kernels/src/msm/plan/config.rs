//! What an MSM can be asked to do (curve, window size, tables, sort) and
//! the defaults, with the measurements behind them.

use super::*;


#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    G1,
    G2,
}

impl Curve {
    pub const fn affine_limbs(self) -> usize {
        match self {
            Curve::G1 => G1_AFFINE_LIMBS,
            Curve::G2 => G2_AFFINE_LIMBS,
        }
    }
    pub const fn xyzz_limbs(self) -> usize {
        match self {
            Curve::G1 => G1_XYZZ_LIMBS,
            Curve::G2 => G2_XYZZ_LIMBS,
        }
    }
    /// Limbs of one base-field element.
    pub const fn base_limbs(self) -> usize {
        self.affine_limbs() / 2
    }
    /// Limbs of the result (Jacobian, `blst_p1` / `blst_p2` layout).
    pub const fn jacobian_limbs(self) -> usize {
        match self {
            Curve::G1 => G1_JACOBIAN_LIMBS,
            Curve::G2 => G2_JACOBIAN_LIMBS,
        }
    }
}

/// Tuning knobs; `Default` (all zero / `None`) picks everything from `n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsmConfig {
    /// Window bits `c` in `1..=22`; 0: [`default_window_bits`].
    pub window_bits: u32,
    /// How wide the windows are besides the widest (see [`WindowCut`]).
    pub window_cut: WindowCut,
    /// Sorted entries per thread in the first accumulation level; 0: sized
    /// so about [`TARGET_THREADS`] threads cover the `n · W` entry bound,
    /// at most [`MAX_DEFAULT_CHUNK0`], then fitted to `level0_waves`.
    pub chunk0: u32,
    /// How many first-level (XYZZ) threads the device runs at once; zero
    /// (the default): not known, and the chunk is not fitted to it.
    pub level0_waves: Level0Waves,
    /// Items per thread in the later accumulation levels (≥ 4); 0: 16.
    pub chunk: u32,
    /// log2 of the segments one thread merges per level of the bucket
    /// reduction tree ([`crate::msm::reduce`]), `1..=8`; 0:
    /// [`DEFAULT_REDUCE_FAN_LOG`].
    pub reduce_fan_log: u32,
    /// log2 of the fan of the upper merge levels, those with fewer than
    /// [`MERGE_PARALLEL`] outputs, `1..=8`; 0: [`DEFAULT_REDUCE_TOP_FAN_LOG`].
    pub reduce_top_fan_log: u32,
    /// Windows per scatter launch; 0: [`default_scatter_windows`].
    pub scatter_windows: u32,
    /// Windows per launch of the binned sort's pass 1 (`1..=8`; 0:
    /// [`DEFAULT_BIN_WINDOWS`]): they share one read of the scalars from
    /// memory, for staging room of as many windows' entries.
    pub bin_windows: u32,
    /// Precomputed tables of the bases (0 or 1: none): with `t`, the bases
    /// hold `t` copies, copy `a` being `2^(c·a)·P` (see
    /// [`table_spacing_bits`]); with `sets = ceil(windows / t)` and `p =
    /// ceil(windows / sets)`, window `w = b·p + a` adds copy `a` into bucket
    /// set `b`, whose sum is weighted `2^(c·p·b)`: `sets` bucket sets instead
    /// of `windows`, so a larger `c` (fewer windows, fewer additions) costs
    /// fewer buckets, and a set's windows are consecutive (one scatter
    /// launch, one cursor array). `window_bits` must then be the tables' `c`. Best
    /// measured on an H200 (docs/PERFORMANCE.md, "MSM", with tables; padded
    /// sort): c = 22 with 12 tables (one set) for G1 2^26 (389.7 ms, 77 GB
    /// of tables) and G2 2^24 (301.8 ms, 39 GB), 6 tables (two sets) for G1
    /// 2^27 (774.7 ms, 77 GB).
    pub tables: u32,
    /// How entries are sorted into buckets.
    pub sort: Sort,
    /// How the first accumulation level adds points.
    pub accumulation: Accumulation,
}

/// How scalars are cut into windows of at most `c` bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowCut {
    /// Every window `c` bits wide ([`WindowLayout::uniform`]).
    #[default]
    Uniform,
    /// As many windows, but only as many `c` bits wide as 256 bits need,
    /// the rest `c − 1` ([`WindowLayout::narrowest`]; the plan's `c` is
    /// `c − 1` when none need be): the same additions into fewer buckets.
    /// Without tables and padding only (those keep every window `c` bits).
    /// Measured no faster at the windows the planner picks (an H100: G1
    /// 2^27 at c = 20 0.996×, at c = 22 1.02×, G2 2^24 slower), since
    /// twice the entries per bucket slow the first level; it gains only on
    /// windows far too wide for their entries (docs/PERFORMANCE.md, "Tried
    /// and not kept").
    Narrowest,
}

/// How the first accumulation level adds the sorted entries' points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accumulation {
    /// XYZZ mixed additions, one chunk per thread ([`crate::msm::accumulate`]).
    #[default]
    Xyzz,
    /// Affine additions in batches that share one inversion
    /// ([`crate::msm::batch_affine`]): `streams` chunks per thread, each
    /// step's additions over them sharing one inversion (0:
    /// [`default_batch_streams`]).
    BatchAffine { streams: u32 },
}

/// Chunks (streams) per thread of the batch-affine level 0: one inversion
/// (≈ 463 base-field products by windowed Fermat) is shared by this many
/// additions (5 M + 1 S each), so it adds about 1.8 M to a G1 addition and
/// 3.6 Fp M to a G2 one (whose addition costs ≈ 17 Fp M). On an H200 more
/// streams were faster up to 256–512, and every count slower than XYZZ
/// (docs/PERFORMANCE.md, "MSM").
pub const fn default_batch_streams(curve: Curve) -> u32 {
    match curve {
        Curve::G1 => 256,
        Curve::G2 => 128,
    }
}

/// Most threads a batch-affine level 0 launches (a grid-stride loop over
/// the stream groups): each owns `streams` accumulators and prefix products
/// of scratch (G1 at 256 streams: 37 KB a thread, 1.2 GB at this count),
/// and about this many fill an H200 at the kernel's register count.
pub const BATCH_AFFINE_THREADS: u32 = 1 << 15;
const _: () = assert!(BATCH_AFFINE_THREADS.is_multiple_of(MSM_BLOCK));

/// The counting sort's flavour ([`crate::msm::sort`], [`crate::msm::padded`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sort {
    /// Padded with the automatic shape ([`padded_shape`]) when the bases
    /// have tables (VRAM to spare: 14.7 GB of scratch instead of 4.3 at G1
    /// 2^26, most of it the slots and an overflow list sized for every
    /// entry); without tables binned for the largest MSMs ([`auto_bins`]),
    /// counted otherwise.
    #[default]
    Auto,
    /// Histogram, scan, scatter.
    Counted,
    /// No histogram: `2^cap_log` slots per bucket (0: from the expected
    /// bucket size, [`padded_cap_log`]), packed after the scatter, overflow
    /// placed last.
    Padded { cap_log: u32 },
    /// Bin counts, then per window two passes through `2^bins_log` bins
    /// of buckets with the window's bucket counts between them (0:
    /// [`default_bins_log`]); windows without tables only
    /// ([`crate::msm::binned`], [`crate::msm::binned_counts`]).
    Binned { bins_log: u32 },
}

/// Whether [`Sort::Auto`] bins the scatter of an untabled MSM with window
/// `c` and `general` scalars with digits: with one window's cursors beyond
/// the direct scatter's L2 share ([`SCATTER_CURSOR_BYTES`], so one window
/// a launch, c ≥ 18) and at least 2^24 of them. The direct scatter costs
/// more per entry the larger the MSM, the two passes about the same. On
/// an H100 (2026-12-07, scalars as integers, the binned sort with its own
/// counts): G1 2^24 (c = 20) 124.8 ms counted against 115.3 binned, 2^25
/// (c = 18) 237.1 against 225.8, 2^26 (c = 20) 440.7 against 396.4
/// (docs/PERFORMANCE.md, "Binned scatter").
pub fn auto_bins(c: u32, general: usize) -> bool {
    let one_window_a_launch = 2 * (4u64 << (c - 1)) > SCATTER_CURSOR_BYTES;
    one_window_a_launch && general >= AUTO_BINNED_FROM
}

/// See [`auto_bins`].
pub const AUTO_BINNED_FROM: usize = 1 << 24;

/// Bins per window of the binned sort: 2^9 (all windows' bins then fit
/// one launch of the bin count, [`crate::msm::binned_counts`]), fewer when
/// the window has fewer buckets, more when a bin would hold more than 2^10
/// buckets (two bins' keys must fit pass 2's shared counts,
/// [`crate::msm::binned::LOCAL_KEYS`]).
pub fn default_bins_log(c: u32) -> u32 {
    (c - 1).min(9).max((c - 1).saturating_sub(10))
}

/// Slots per bucket for `entries` entries over `buckets` buckets when
/// padded: the power of two at or above the mean plus five standard
/// deviations plus 16 (at 2^26 scalars, c = 22, one set: 384 ± 20 → 512,
/// 6.5 deviations: an overflow about once in 10^4 MSMs).
pub fn padded_cap_log(entries: u64, buckets: u64) -> u32 {
    cap_log_for_mean(entries.div_ceil(buckets.max(1)))
}

fn cap_log_for_mean(mean: u64) -> u32 {
    let cap = mean + 5 * (mean.isqrt() + 1) + 16;
    cap.next_power_of_two().trailing_zeros()
}

/// The automatic padded shape of `c`-bit windows ([`WindowLayout::uniform`]):
/// [`padded_cap_log`] for every bucket, and where the top window is short
/// ([`WindowLayout::top_digit_max`]) its buckets (the top window's set's
/// first `top_digit_max`) sized for their mean too, the top window's
/// `selected` digits spread over them (9045 more at 2^26, c = 22: 2^14 slots
/// instead of 2^9 and no overflow).
pub fn padded_shape(c: u32, windows: u32, sets: u32, selected: u64) -> PaddedShape {
    let mean = (selected * windows as u64).div_ceil((sets as u64) << (c - 1));
    let cap_log = cap_log_for_mean(mean);
    let top = WindowLayout::uniform(c).top_digit_max();
    let hot_log = cap_log_for_mean(mean + selected.div_ceil(top as u64));
    if hot_log <= cap_log {
        return PaddedShape::uniform(cap_log);
    }
    let top_set = (windows - 1) / windows_per_set(windows, sets);
    PaddedShape { cap_log, hot_log, hot_begin: top_set << (c - 1), hot_len: top }
}

/// Threads of the overflow placement (a grid-stride loop over a count
/// only the device knows; usually nothing to do).
pub const OVERFLOW_THREADS: u32 = 1 << 16;
/// Most threads of the packing copy (a grid-stride loop over the slots).
pub const COMPACT_THREADS: u32 = 1 << 24;

/// Largest window with precomputed tables: fewer sets make larger windows
/// affordable (c = 24: 11 windows instead of 13 at c = 20), though the
/// scatter's cursors grow with `2^(c−1)` (c = 22 measured best).
pub const MAX_TABLE_WINDOW_BITS: u32 = 26;

/// Most buckets (`sets · 2^(c−1)`) a plan may have.
pub const MAX_BUCKETS: u64 = 1 << 25;

/// Bucket sets for `windows` windows over `tables` tables.
pub const fn bucket_sets(windows: u32, tables: u32) -> u32 {
    if tables <= 1 {
        windows
    } else {
        windows.div_ceil(tables)
    }
}

/// The doublings between consecutive tables for window bits `c`: table
/// `a` holds `2^(a · table_spacing_bits(c))·P` (a set's windows are
/// consecutive, so each table is one window further, whatever the count).
pub const fn table_spacing_bits(c: u32) -> u32 {
    c
}

/// Default merge fan of the bucket reduction's lower levels: 16 inputs per
/// thread and level (`3 · 16` additions).
pub const DEFAULT_REDUCE_FAN_LOG: u32 = 4;

/// Merge levels with fewer outputs than this (threads) do not fill an
/// H200 (≈ 33 K threads at the merge kernels' registers): their time is one
/// thread's chain of `3 · fan` additions, so they use a smaller fan.
pub const MERGE_PARALLEL: u64 = 1 << 13;

/// Default fan of the upper merge levels: 4 inputs per thread (H200, merge
/// time at 2^20: G1 2.86 / 2.64 / 2.31 ms and G2 12.4 / 9.96 / 9.03 ms for
/// fans 16 / 2 / 4, docs/PERFORMANCE.md).
pub const DEFAULT_REDUCE_TOP_FAN_LOG: u32 = 2;

/// Windows per launch of the binned sort's pass 1 by default
/// ([`MsmConfig::bin_windows`]): one. On an H200 (2026-12-07, G1,
/// integers, docs/PERFORMANCE.md "Binned scatter") two took the pass from
/// 21.9 to 20.2 ms at 2^27 (the MSM 756.0 → 754.5 ms) for 1.07 GB more
/// scratch, and three 20.0 ms for 2.1 GB: the pass is not bound by its
/// reads of the scalars, and on smaller cards the scratch is worth more.
pub const DEFAULT_BIN_WINDOWS: u32 = 1;

/// Most windows one launch of the binned sort's pass 1 takes.
pub const MAX_BIN_WINDOWS: u32 = 8;

/// Cursor bytes one scatter launch should touch: the windows of a launch
/// are chosen so their cursors fit this (H200, 50 MB L2; see
/// [`default_scatter_windows`]).
pub const SCATTER_CURSOR_BYTES: u64 = 512 << 10;

/// Threads of a scatter launch after the first (a grid-stride loop over
/// the listed scalars, whose count only the device knows). Many waves, so
/// the last one's share is small: an H200 holds ≈ 200 K scatter threads
/// (36 registers), and 2^18 threads (1.3 waves, every thread looping alike)
/// made the scatter of a 2^26 MSM 12% slower (53.7 against 47.8 ms); and
/// few enough blocks that a short list costs little to walk past.
pub const LISTED_THREADS: u32 = 1 << 22;

/// Windows per scatter launch for window size `c` and `sets` bucket sets
/// over `windows` windows. With tables, one set's windows (consecutive, see
/// [`MsmConfig::tables`]): one cursor array however many windows a launch
/// has. Without, as many windows as keep the cursors of one launch within
/// [`SCATTER_CURSOR_BYTES`], at least one.
/// H200, G1, random scalars, scatter ms for 1 / 2 / 4 / all windows per
/// launch: 2^26 (c = 20) 46.6 / 50.4 / 54.3 / 73.7; 2^24 (c = 16) 10.2 /
/// 8.0 / 7.7 / 11.7; 2^26, c = 22, 12 tables (one set) 56.8 / 53.1 / 51.1 /
/// 49.5 (docs/PERFORMANCE.md, "Defaults and the measurements behind them";
/// every run in docs/history/).
pub fn default_scatter_windows(c: u32, sets: u32, windows: u32) -> u32 {
    let per_set = windows_per_set(windows, sets);
    if per_set > 1 {
        return per_set;
    }
    // One window per set: no tables, `sets == windows`.
    let fit = (SCATTER_CURSOR_BYTES / (4u64 << (c - 1))).clamp(1, u32::MAX as u64) as u32;
    fit.min(windows)
}

/// Most merge levels a plan can have (`c − 1 ≤ 21` bits at fan 2^1).
pub const MAX_REDUCE_LEVELS: usize = 22;

/// Default cap on the window size below 2^20 scalars (the model's range).
pub const DEFAULT_MAX_WINDOW_BITS: u32 = 18;

/// Threads per block of every MSM launch (a multiple of 32, as the
/// warp-uniform loops require). 128 rather than 256: point kernels need
/// 128–255 registers per thread, and smaller blocks let the register file
/// hold one more block (e.g. 3 × 4 warps at ≤ 168 registers instead of one
/// 8-warp block of 256).
pub const MSM_BLOCK: u32 = 128;
// The warp-uniform index loop (`warp::uniform_indices`) needs full warps.
const _: () = assert!(MSM_BLOCK % 32 == 0 && MSM_BLOCK <= 1024);

/// Threads the first accumulation level aims for (enough to fill an H100 /
/// H200 several times over at the occupancy the point kernels reach).
pub const TARGET_THREADS: u64 = 1 << 17;

/// Threads of the XYZZ first accumulation level that one device runs at
/// once, per curve: multiprocessors × resident blocks of [`MSM_BLOCK`]
/// (the kernel's occupancy) × `MSM_BLOCK`; 132 × 2 × 128 on an H100 or H200
/// for both curves. Zero: not known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level0Waves {
    pub g1: u32,
    pub g2: u32,
}

impl Level0Waves {
    /// The threads of one wave on `curve` (0: not known).
    pub fn of(self, curve: Curve) -> u32 {
        match curve {
            Curve::G1 => self.g1,
            Curve::G2 => self.g2,
        }
    }
}

/// The first level's chunk fitted to the device's waves: every thread adds
/// about `chunk` entries, so the level takes about `ceil(threads / wave)`
/// waves of `chunk` additions each, and a last wave that is mostly empty
/// costs as much as a full one. An MSM call of 2^23 G1 scalars at the
/// 20-bit window (a piece of the H query's MSM on a small GPU) has 109 M
/// entries: at 1024 that is 3.15 waves of an H200 run as 4; at 256, 12.6
/// as 13 (19% less by this count). Halving the chunk doubles the items
/// handed to the next level (two per thread), so it goes at most to a
/// quarter of `chunk`, and only for a gain of more than 1%.
pub fn fit_chunk0_to_waves(entries: u64, chunk: u64, wave: u64) -> u64 {
    if wave == 0 {
        return chunk;
    }
    let cost = |c: u64| entries.div_ceil(c).div_ceil(wave) * c;
    let mut best = chunk;
    for c in [chunk / 2, chunk / 4] {
        if c >= 4 && cost(c) * 100 < cost(best) * 99 {
            best = c;
        }
    }
    best
}

/// Largest default first-level chunk: a chunk's serial additions are the
/// level's tail. H200, G1, median ms at chunks of 1024 / 2048: 2^26 448.1 /
/// 453.1, 2^27 857.2 / 861.0 (c = 20); with 12 tables at 2^26 402.3 /
/// 406.0, with 6 at 2^27 801.5 / 805.6 (docs/PERFORMANCE.md, "Defaults
/// and the measurements behind them").
pub const MAX_DEFAULT_CHUNK0: u64 = 1024;

/// The window size for `n` scalars on `curve`: [`default_window_bits`],
/// except from [`WIDE_WINDOWS_FROM`] scalars on: 20, which the binned sort
/// makes the best there ([`auto_bins`]). G1 on an H100 (2026-12-07,
/// integers, docs/PERFORMANCE.md "MSM window size"): 2^24 at c = 16
/// (counted) / 19 / 20 (binned) 124.0 / 115.1 / 115.3 ms, in Montgomery
/// form 124.2 / – / 119.3; 2^25 at c = 18 / 19 / 20 (binned) 225.7 / 217.0
/// / 209.7. G2 on an H200 (2026-12-07, "G2 windows of 20 bits"): 2^24 at
/// c = 16 / 18 / 19 / 20 342.7 / 342.5 / 330.9 / 324.5 ms, 2^25 658.9 /
/// 630.6 / 598.4 / 572.4 (18 had been its window there); at 2^20, 16
/// stays the best (33.7 ms, 42.1 at 18).
pub fn default_window_bits_for(n: usize, _curve: Curve) -> u32 {
    if n >= WIDE_WINDOWS_FROM {
        20
    } else {
        default_window_bits(n)
    }
}

/// See [`default_window_bits_for`] (below 2^24 not measured against 16).
pub const WIDE_WINDOWS_FROM: usize = 1 << 24;

/// The window size for `n` scalars (G1 and G2 alike; the plan takes
/// [`default_window_bits_for`]'s, this one bounds carried calls).
///
/// From 2^20 on, the best measured on an H200 (docs/PERFORMANCE.md, random
/// scalars, both curves): 16 up to 2^24 (larger windows add more bucket
/// stores and reduction than they save in entries), 18 below 2^26, 20
/// from 2^26 (c = 18…21 at 2^26: 686, 667, 656, 690 ms).
///
/// Below 2^20, the `c ≤ 18` minimising the modelled cost
/// `W(c) · (n + 4 · 2^(c−1))`: per window `n` mixed additions into buckets
/// plus about two full additions per bucket in the reduction (counted as
/// two mixed ones apiece); e.g. `c = 2` for `n = 1`, 7 for 2^10, 12 for 2^16.
pub fn default_window_bits(n: usize) -> u32 {
    match n {
        n if n >= 1 << 26 => return 20,
        n if n >= 1 << 25 => return 18,
        n if n >= 1 << 20 => return 16,
        _ => {}
    }
    let n = n as f64;
    (1..=DEFAULT_MAX_WINDOW_BITS)
        .map(|c| {
            (
                c,
                num_windows(c) as f64 * (n + 4.0 * (1u64 << (c - 1)) as f64),
            )
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
        .unwrap_or(1)
}
