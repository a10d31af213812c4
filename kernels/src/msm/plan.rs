//! Host-side sequencing of one MSM: parameters, arena layout and the list of
//! launches, shared by the CUDA driver (`cuzk::gpu::msm`) and the host tests
//! (which run the same steps through the host builds of the kernels).
//!
//! Every size is an upper bound known before any kernel runs (e.g. `n · W`
//! entries), so a call never waits on the device to size its work.
//!
//! Addresses are plain `u64`: device addresses for CUDA, host addresses in
//! the tests. Host-only (not compiled into the PTX).

use super::digits::{num_windows, top_digit_max, windows_per_set, MAX_WINDOW_BITS};
use super::padded::compact_group_log;
pub use super::padded::PaddedShape;
use super::scan::{chunks, CHUNK};
use crate::layout::{
    G1_AFFINE_LIMBS, G1_JACOBIAN_LIMBS, G1_XYZZ_LIMBS, G2_AFFINE_LIMBS, G2_JACOBIAN_LIMBS,
    G2_XYZZ_LIMBS,
};

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
    /// Sorted entries per thread in the first accumulation level; 0: sized
    /// so about [`TARGET_THREADS`] threads cover the `n · W` entry bound,
    /// at most [`MAX_DEFAULT_CHUNK0`].
    pub chunk0: u32,
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
}

/// The counting sort's flavour ([`crate::msm::sort`], [`crate::msm::padded`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sort {
    /// Padded with the automatic shape ([`padded_shape`]) when the bases
    /// have tables (VRAM to spare: 14.7 GB of scratch instead of 4.3 at G1
    /// 2^26, most of it the slots and an overflow list sized for every
    /// entry), counted otherwise.
    #[default]
    Auto,
    /// Histogram, scan, scatter.
    Counted,
    /// No histogram: `2^cap_log` slots per bucket (0: from the expected
    /// bucket size, [`padded_cap_log`]), packed after the scatter, overflow
    /// placed last.
    Padded { cap_log: u32 },
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

/// The automatic padded shape: [`padded_cap_log`] for every bucket, and
/// where the top window is short ([`top_digit_max`]) its buckets (the top
/// window's set's first `top_digit_max(c)`) sized for their mean too, the
/// top window's `selected` digits spread over them (9045 more at 2^26, c =
/// 22: 2^14 slots instead of 2^9 and no overflow).
pub fn padded_shape(c: u32, windows: u32, sets: u32, selected: u64) -> PaddedShape {
    let mean = (selected * windows as u64).div_ceil((sets as u64) << (c - 1));
    let cap_log = cap_log_for_mean(mean);
    let top = top_digit_max(c);
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
/// 49.5 (docs/PERFORMANCE.md).
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

/// Threads the first accumulation level aims for (enough to fill an H100 /
/// H200 several times over at the occupancy the point kernels reach).
pub const TARGET_THREADS: u64 = 1 << 17;

/// Largest default first-level chunk: a chunk's serial additions are the
/// level's tail. H200, G1, median ms at chunks of 1024 / 2048: 2^26 448.1 /
/// 453.1, 2^27 857.2 / 861.0 (c = 20); with 12 tables at 2^26 402.3 /
/// 406.0, with 6 at 2^27 801.5 / 805.6 (docs/PERFORMANCE.md, "Defaults
/// and the measurements behind them").
pub const MAX_DEFAULT_CHUNK0: u64 = 1024;

/// The window size for `n` scalars (G1 and G2 alike).
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

/// A `u32` array that is scanned in place, and the chunk-sum arrays of its
/// scan tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanLayout {
    /// Word offset (in the arena) and length of level `l` (level 0 is the
    /// data itself).
    pub levels: [(usize, u32); 8],
    pub count: usize,
}

/// Where everything lives in the arena, in `u64` words from its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// `n_keys + 1` bucket counts, scanned into starts.
    pub starts: ScanLayout,
    /// `n_keys + 1` scatter cursors.
    pub cursor: usize,
    /// `density_words` popcounts, scanned into the density prefix.
    pub prefix: ScanLayout,
    /// Room for `n` indices of scalars with digits, and their count (see
    /// `sort::scatter`).
    pub digit_list: usize,
    pub digit_count: usize,
    /// Padded sort only: `shape.base(n_keys)` slots (`u32`), the overflow
    /// list (`entries_max` `u64` pairs) and its count, overlapping the
    /// accumulation's buffers (written only after the sort).
    pub padded: usize,
    pub overflow: usize,
    pub overflow_count: usize,
    /// `entries_max` sorted entries (`u32`).
    pub entries: usize,
    /// Two ping-pong item buffers of the accumulation levels: keys (`u32`)
    /// and points (XYZZ), capacity in items.
    pub item_keys: [usize; 2],
    pub item_points: [usize; 2],
    pub item_capacity: [u32; 2],
    /// `n_keys` bucket sums (XYZZ).
    pub sums: usize,
    /// Each merge level's `2 · outputs` `(U, T)` points (XYZZ).
    pub merged: [usize; MAX_REDUCE_LEVELS],
    /// `windows` weighted window sums (XYZZ).
    pub win: usize,
    /// Total arena words.
    pub words: usize,
}

/// One level of the bucket reduction tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeLevel {
    /// log2 of the buckets in each input segment.
    pub in_m_log: u32,
    pub fan_log: u32,
    /// Output segments (threads), all windows together.
    pub outputs: u32,
}

/// One accumulation level after the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    pub n_in: u32,
    pub threads: u32,
    pub last: bool,
}

pub const MAX_LEVELS: usize = 32;

/// Everything about one MSM that does not depend on the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmPlan {
    pub curve: Curve,
    pub n: u32,
    /// Most scalars that take part (a density's set bits; `n` without one):
    /// what the window and the entry bound are chosen for.
    pub selected: u32,
    pub c: u32,
    pub windows: u32,
    /// Tables of the bases (1: none) and bucket sets (`windows` without tables).
    pub tables: u32,
    pub sets: u32,
    /// Windows per scatter launch (the last launch may take fewer).
    pub scatter_windows: u32,
    /// Padded sort: the slots per bucket; `None`: counted.
    pub padded: Option<PaddedShape>,
    /// Set buckets plus the ones bucket: `sets · 2^(c−1) + 1`.
    pub n_keys: u32,
    pub ones_key: u32,
    /// Upper bound on sorted entries: `selected · windows`.
    pub entries_max: u32,
    pub density_words: u32,
    pub chunk0: u32,
    pub threads0: u32,
    pub chunk: u32,
    pub levels: [Level; MAX_LEVELS],
    pub n_levels: usize,
    pub merges: [MergeLevel; MAX_REDUCE_LEVELS],
    pub n_merges: usize,
    pub layout: Layout,
}

/// Where the inputs and the output of one MSM are (addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmIo {
    /// Affine bases (`n_bases` of them, blst layout; with the plan's
    /// `tables > 1`, that many tables of `n_bases` each, one after another).
    pub bases: u64,
    pub n_bases: u32,
    /// Index of the base paired with the first (selected) scalar.
    pub base_offset: u32,
    /// `n` scalars, Montgomery limbs (blstrs `Scalar`).
    pub scalars: u64,
    /// Density bitmap of `ceil(n/64)` words, or 0 for none (all selected).
    pub density: u64,
    /// One Jacobian point.
    pub out: u64,
}

/// The scalar-side arguments of the histogram and scatter kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DigitAddrs {
    pub scalars: u64,
    pub n: u32,
    pub density: u64,
    pub prefix: u64,
    pub base_offset: u32,
    /// Bases at or past this index are dropped (see `DigitArgs::n_bases`).
    pub n_bases: u32,
    pub c: u32,
    pub windows: u32,
    pub sets: u32,
    /// Bases per table (0 without tables).
    pub stride: u32,
}

/// One operation on the stream. Kernel parameters are in the order the
/// kernels declare them (see [`Step::args`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Set `len` `u32` words to zero (a memset, not a kernel).
    ZeroU32 {
        dst: u64,
        len: usize,
    },
    /// Copy `len` `u32` words (a device-to-device copy, not a kernel).
    CopyU32 {
        src: u64,
        dst: u64,
        len: usize,
    },
    Popcount {
        words: u64,
        n: u32,
        out: u64,
    },
    ScanReduce {
        data: u64,
        n: u32,
        out: u64,
    },
    ScanApply {
        data: u64,
        n: u32,
        offsets: u64,
    },
    Histogram {
        digits: DigitAddrs,
        counts: u64,
        digit_list: u64,
        digit_count: u64,
    },
    /// Padded sort: the entries of windows `rounds.0..rounds.1` into slots.
    ScatterPadded {
        digits: DigitAddrs,
        counts: u64,
        shape: PaddedShape,
        padded: u64,
        overflow: u64,
        overflow_count: u64,
        rounds: (u32, u32),
    },
    /// Padded sort: the slots of buckets `first_key ..` (`2^cap_log` each,
    /// `slots` in all, from `padded`) packed into `entries`.
    Compact {
        starts: u64,
        first_key: u32,
        slots: u32,
        cap_log: u32,
        padded: u64,
        entries: u64,
    },
    /// Padded sort: the overflow after its buckets' packed slots.
    PlaceOverflow {
        overflow: u64,
        overflow_count: u64,
        cursor: u64,
        shape: PaddedShape,
        entries: u64,
    },
    /// The entries of windows `rounds.0..rounds.1`.
    Scatter {
        digits: DigitAddrs,
        cursor: u64,
        entries: u64,
        digit_list: u64,
        digit_count: u64,
        rounds: (u32, u32),
    },
    Accumulate0 {
        bases: u64,
        entries: u64,
        starts: u64,
        n_keys: u32,
        chunk: u32,
        threads: u32,
        out_keys: u64,
        out_points: u64,
        sums: u64,
    },
    Accumulate {
        in_keys: u64,
        in_points: u64,
        n_in: u32,
        chunk: u32,
        threads: u32,
        out_keys: u64,
        out_points: u64,
        sums: u64,
        last: bool,
    },
    /// A merge level; `starts` is 0 except for the first (bucket) level.
    Merge {
        input: u64,
        starts: u64,
        level: MergeLevel,
        out: u64,
    },
    Windows {
        top: u64,
        /// Doublings between consecutive sets' weights (`c · p`).
        c: u32,
        windows: u32,
        win: u64,
    },
    Finish {
        win: u64,
        windows: u32,
        sums: u64,
        starts: u64,
        ones_key: u32,
        out: u64,
    },
}

/// Kernel parameters as `u64` values, in declaration order; a `u32`
/// parameter is the low half (little-endian hosts read it from the first
/// four bytes).
pub type Args = ([u64; 16], usize);

fn args(list: &[u64]) -> Args {
    let mut a = [0u64; 16];
    a[..list.len()].copy_from_slice(list);
    (a, list.len())
}

impl Step {
    /// The kernel this step launches (`None` for memset/copy).
    pub fn kernel(&self, curve: Curve) -> Option<&'static str> {
        let g1 = curve == Curve::G1;
        let pick = |a: &'static str, b: &'static str| if g1 { a } else { b };
        Some(match self {
            Step::ZeroU32 { .. } | Step::CopyU32 { .. } => return None,
            Step::Popcount { .. } => "msm_popcount",
            Step::ScanReduce { .. } => "msm_scan_reduce",
            Step::ScanApply { .. } => "msm_scan_apply",
            Step::Histogram { .. } => "msm_histogram",
            Step::Scatter { .. } => "msm_scatter",
            Step::ScatterPadded { .. } => "msm_scatter_padded",
            Step::Compact { .. } => "msm_compact",
            Step::PlaceOverflow { .. } => "msm_place_overflow",
            Step::Accumulate0 { .. } => pick("msm_g1_accumulate0", "msm_g2_accumulate0"),
            Step::Accumulate { .. } => pick("msm_g1_accumulate", "msm_g2_accumulate"),
            Step::Merge { .. } => pick("msm_g1_merge", "msm_g2_merge"),
            Step::Windows { .. } => pick("msm_g1_windows", "msm_g2_windows"),
            Step::Finish { .. } => pick("msm_g1_finish", "msm_g2_finish"),
        })
    }

    /// Threads the kernel's grid-stride loop covers (0 for memset/copy).
    pub fn threads(&self) -> u32 {
        match *self {
            Step::ZeroU32 { .. } | Step::CopyU32 { .. } => 0,
            Step::Popcount { n, .. } => n,
            Step::ScanReduce { n, .. } | Step::ScanApply { n, .. } => chunks(n),
            Step::Histogram { digits, .. } => digits.n,
            // After round 0 a scatter walks a list of unknown length.
            Step::Scatter { digits, rounds, .. } if rounds.0 > 0 => digits.n.min(LISTED_THREADS),
            Step::Scatter { digits, .. } => digits.n,
            Step::ScatterPadded { digits, .. } => digits.n,
            Step::Compact { slots, cap_log, .. } => (slots >> compact_group_log(cap_log)).min(COMPACT_THREADS),
            Step::PlaceOverflow { .. } => OVERFLOW_THREADS,
            Step::Accumulate0 { threads, .. } | Step::Accumulate { threads, .. } => threads,
            Step::Merge { level, .. } => level.outputs,
            Step::Windows { windows, .. } => windows,
            Step::Finish { .. } => 1,
        }
    }

    /// The kernel's parameters (see [`Args`]).
    pub fn args(&self) -> Args {
        let d = |d: &DigitAddrs| {
            [
                d.scalars,
                d.n as u64,
                d.density,
                d.prefix,
                d.base_offset as u64,
                d.n_bases as u64,
                d.c as u64,
                d.windows as u64,
                d.sets as u64,
                d.stride as u64,
            ]
        };
        match self {
            Step::ZeroU32 { .. } | Step::CopyU32 { .. } => args(&[]),
            Step::Popcount { words, n, out } => args(&[*words, *n as u64, *out]),
            Step::ScanReduce { data, n, out } => args(&[*data, *n as u64, *out]),
            Step::ScanApply { data, n, offsets } => args(&[*data, *n as u64, *offsets]),
            Step::Histogram {
                digits,
                counts,
                digit_list,
                digit_count,
            } => {
                let mut a = args(&d(digits));
                a.0[10] = *counts;
                a.0[11] = *digit_list;
                a.0[12] = *digit_count;
                (a.0, 13)
            }
            Step::Scatter {
                digits,
                cursor,
                entries,
                digit_list,
                digit_count,
                rounds,
            } => {
                let mut a = args(&d(digits));
                a.0[10] = *cursor;
                a.0[11] = *entries;
                a.0[12] = *digit_list;
                a.0[13] = *digit_count;
                a.0[14] = rounds.0 as u64;
                a.0[15] = rounds.1 as u64;
                (a.0, 16)
            }
            Step::ScatterPadded {
                digits,
                counts,
                shape,
                padded,
                overflow,
                overflow_count,
                rounds,
            } => {
                let mut a = args(&d(digits));
                a.0[10] = *counts;
                a.0[11] = shape.pack();
                a.0[12] = *padded;
                a.0[13] = *overflow;
                a.0[14] = *overflow_count;
                a.0[15] = (rounds.0 | (rounds.1 << 16)) as u64;
                (a.0, 16)
            }
            Step::Compact {
                starts,
                first_key,
                slots,
                cap_log,
                padded,
                entries,
            } => args(&[*starts, *first_key as u64, *slots as u64, *cap_log as u64, *padded, *entries]),
            Step::PlaceOverflow {
                overflow,
                overflow_count,
                cursor,
                shape,
                entries,
            } => args(&[*overflow, *overflow_count, *cursor, shape.pack(), *entries]),
            Step::Accumulate0 {
                bases,
                entries,
                starts,
                n_keys,
                chunk,
                threads,
                out_keys,
                out_points,
                sums,
            } => args(&[
                *bases,
                *entries,
                *starts,
                *n_keys as u64,
                *chunk as u64,
                *threads as u64,
                *out_keys,
                *out_points,
                *sums,
            ]),
            Step::Accumulate {
                in_keys,
                in_points,
                n_in,
                chunk,
                threads,
                out_keys,
                out_points,
                sums,
                last,
            } => args(&[
                *in_keys,
                *in_points,
                *n_in as u64,
                *chunk as u64,
                *threads as u64,
                *out_keys,
                *out_points,
                *sums,
                *last as u64,
            ]),
            Step::Merge {
                input,
                starts,
                level,
                out,
            } => args(&[
                *input,
                *starts,
                level.in_m_log as u64,
                level.fan_log as u64,
                level.outputs as u64,
                *out,
            ]),
            Step::Windows {
                top,
                c,
                windows,
                win,
            } => args(&[*top, *c as u64, *windows as u64, *win]),
            Step::Finish {
                win,
                windows,
                sums,
                starts,
                ones_key,
                out,
            } => args(&[
                *win,
                *windows as u64,
                *sums,
                *starts,
                *ones_key as u64,
                *out,
            ]),
        }
    }
}

/// Region allocator: 256-byte aligned offsets in `u64` words.
struct Bump(usize);

impl Bump {
    fn take(&mut self, words: usize) -> usize {
        let at = self.0;
        self.0 = (self.0 + words).div_ceil(32) * 32;
        at
    }
    fn take_u32(&mut self, len: usize) -> usize {
        self.take(len.div_ceil(2))
    }
    fn scan(&mut self, len: u32) -> ScanLayout {
        let mut s = ScanLayout::default();
        let mut n = len;
        s.levels[0] = (self.take_u32(n as usize), n);
        s.count = 1;
        while n > CHUNK {
            n = chunks(n);
            s.levels[s.count] = (self.take_u32(n as usize), n);
            s.count += 1;
        }
        s
    }
}

impl MsmPlan {
    /// Plans an MSM of `n` scalars (before density selection) on `curve`,
    /// any number of them selected.
    pub fn new(n: usize, curve: Curve, config: &MsmConfig) -> Result<Self, &'static str> {
        Self::for_selected(n, n, curve, config)
    }

    /// Plans an MSM of `n` scalars of which a density selects at most
    /// `selected`: the window is chosen for `selected` scalars and the
    /// entries are bounded by `selected · windows` (a quarter of the memory
    /// and buckets for a Groth16 B density). Selected scalars past the
    /// first `selected` are dropped, so a bitmap with more set bits cannot
    /// overrun the arena.
    pub fn for_selected(n: usize, selected: usize, curve: Curve, config: &MsmConfig) -> Result<Self, &'static str> {
        if n >= 1 << 31 {
            return Err("MSM: at most 2^31 - 1 scalars per call");
        }
        let selected = selected.min(n);
        let c = if config.window_bits == 0 {
            default_window_bits(selected)
        } else {
            config.window_bits
        };
        let tables = config.tables.max(1);
        let max_c = if tables > 1 { MAX_TABLE_WINDOW_BITS } else { MAX_WINDOW_BITS };
        if !(1..=max_c).contains(&c) {
            return Err("MSM: window bits must be in 1..=22 (1..=26 with tables)");
        }
        let windows = num_windows(c);
        if tables > windows {
            return Err("MSM: more tables than windows");
        }
        let sets = bucket_sets(windows, tables);
        let scatter_windows = match config.scatter_windows {
            0 => default_scatter_windows(c, sets, windows),
            w => w,
        }
        .min(windows);
        if (sets as u64) << (c - 1) > MAX_BUCKETS {
            return Err("MSM: too many buckets (sets · 2^(c−1) > 2^25); use more tables");
        }
        let ones_key = sets << (c - 1);
        let n_keys = ones_key + 1;
        let entries_max = selected as u64 * windows as u64;
        let padded_sort = match config.sort {
            Sort::Auto if tables > 1 => Some(padded_shape(c, windows, sets, selected as u64)),
            Sort::Auto | Sort::Counted => None,
            Sort::Padded { cap_log: 0 } => Some(padded_shape(c, windows, sets, selected as u64)),
            Sort::Padded { cap_log } => Some(PaddedShape::uniform(cap_log)),
        };
        if let Some(shape) = padded_sort {
            let slots = ((n_keys as u64) << shape.cap_log) + ((shape.hot_len as u64) << shape.hot_log);
            if shape.cap_log > 16 || shape.hot_log > 24 || slots > u32::MAX as u64 {
                return Err("MSM: padded buckets need n_keys · 2^cap_log < 2^32 slots (cap_log ≤ 16)");
            }
        }
        let chunk0 = if config.chunk0 != 0 {
            config.chunk0
        } else {
            entries_max
                .div_ceil(TARGET_THREADS)
                .next_power_of_two()
                .clamp(4, MAX_DEFAULT_CHUNK0) as u32
        };
        // Positions and `threads0 · chunk0` stay below 2^32.
        if entries_max + chunk0 as u64 > u32::MAX as u64 {
            return Err(
                "MSM: n · windows exceeds 2^32 entries; split the MSM or use a larger window",
            );
        }
        let entries_max = entries_max as u32;
        let chunk = if config.chunk == 0 { 16 } else { config.chunk };
        if chunk < 4 {
            return Err("MSM: accumulation chunk must be at least 4");
        }
        let fan_max = match config.reduce_fan_log {
            0 => DEFAULT_REDUCE_FAN_LOG,
            f @ 1..=8 => f,
            _ => return Err("MSM: reduce_fan_log must be in 1..=8 (0: default)"),
        };
        let top_fan = match config.reduce_top_fan_log {
            0 => DEFAULT_REDUCE_TOP_FAN_LOG,
            f @ 1..=8 => f,
            _ => return Err("MSM: reduce_top_fan_log must be in 1..=8 (0: default)"),
        };
        // The window's c − 1 bucket bits: levels of the full fan while they
        // leave at least MERGE_PARALLEL outputs, then the rest spread evenly
        // over levels of at most the top fan (at least one level, which
        // for c = 1 merges single buckets).
        let log_h = c - 1;
        let mut fans = [0u32; MAX_REDUCE_LEVELS];
        let mut n_merges = 0;
        let mut wide_bits = 0;
        while wide_bits < log_h {
            let f = fan_max.min(log_h - wide_bits);
            if (sets as u64) << (log_h - wide_bits - f) < MERGE_PARALLEL {
                break;
            }
            fans[n_merges] = f;
            n_merges += 1;
            wide_bits += f;
        }
        let rest = log_h - wide_bits;
        let top_levels = rest.div_ceil(top_fan).max((n_merges == 0) as u32);
        for i in 0..top_levels {
            fans[n_merges] = rest / top_levels + (i < rest % top_levels) as u32;
            n_merges += 1;
        }
        let mut merges = [MergeLevel::default(); MAX_REDUCE_LEVELS];
        let mut in_m_log = 0;
        for (level, &fan_log) in merges[..n_merges].iter_mut().zip(&fans) {
            *level = MergeLevel {
                in_m_log,
                fan_log,
                outputs: sets << (log_h - in_m_log - fan_log),
            };
            in_m_log += fan_log;
        }
        let threads0 = entries_max.div_ceil(chunk0).max(1);

        let mut levels = [Level::default(); MAX_LEVELS];
        let mut n_levels = 0;
        let mut n_in = 2 * threads0;
        let mut capacity = [2 * threads0, 0];
        loop {
            if n_levels == MAX_LEVELS {
                return Err("MSM: too many accumulation levels");
            }
            let last = n_in <= chunk;
            let threads = if last { 1 } else { n_in.div_ceil(chunk) };
            levels[n_levels] = Level {
                n_in,
                threads,
                last,
            };
            // Level k (0-based among these) reads buffer k % 2 and writes the other.
            if !last {
                let out = (n_levels + 1) % 2;
                capacity[out] = capacity[out].max(2 * threads);
            }
            n_levels += 1;
            if last {
                break;
            }
            n_in = 2 * threads;
        }

        let density_words = (n as u32).div_ceil(64);
        let xyzz = curve.xyzz_limbs();
        let mut bump = Bump(0);
        let starts = bump.scan(n_keys + 1);
        let cursor = bump.take_u32(n_keys as usize + 1);
        let prefix = bump.scan(density_words);
        let digit_list = bump.take_u32(n);
        let digit_count = bump.take_u32(1);
        let entries = bump.take_u32(entries_max as usize);
        let after_entries = bump.0;
        let item_keys = [
            bump.take_u32(capacity[0] as usize),
            bump.take_u32(capacity[1] as usize),
        ];
        let item_points = [
            bump.take(capacity[0] as usize * xyzz),
            bump.take(capacity[1] as usize * xyzz),
        ];
        let sums = bump.take(n_keys as usize * xyzz);
        let mut merged = [0; MAX_REDUCE_LEVELS];
        for (at, level) in merged.iter_mut().zip(&merges[..n_merges]) {
            *at = bump.take(2 * level.outputs as usize * xyzz);
        }
        let win = bump.take(sets as usize * xyzz);
        let (mut padded, mut overflow, mut overflow_count) = (0, 0, 0);
        if let Some(shape) = padded_sort {
            let mut alias = Bump(after_entries);
            padded = alias.take_u32(shape.base(n_keys) as usize);
            overflow = alias.take(entries_max as usize);
            overflow_count = alias.take_u32(1);
            bump.0 = bump.0.max(alias.0);
        }
        let layout = Layout {
            starts,
            cursor,
            prefix,
            digit_list,
            digit_count,
            padded,
            overflow,
            overflow_count,
            entries,
            item_keys,
            item_points,
            item_capacity: capacity,
            sums,
            merged,
            win,
            words: bump.0,
        };
        Ok(MsmPlan {
            curve,
            n: n as u32,
            selected: selected as u32,
            c,
            windows,
            tables,
            sets,
            scatter_windows,
            padded: padded_sort,
            n_keys,
            ones_key,
            entries_max,
            density_words,
            chunk0,
            threads0,
            chunk,
            levels,
            n_levels,
            merges,
            n_merges,
            layout,
        })
    }

    /// Arena size in `u64` words.
    pub fn scratch_words(&self) -> usize {
        self.layout.words
    }

    pub fn scratch_bytes(&self) -> usize {
        self.layout.words * 8
    }

    /// Calls `f` with every step of the MSM, in stream order. `arena` is the
    /// address of at least [`Self::scratch_words`] `u64` words.
    pub fn steps<E>(
        &self,
        io: &MsmIo,
        arena: u64,
        mut f: impl FnMut(Step) -> Result<(), E>,
    ) -> Result<(), E> {
        let at = |words: usize| arena + 8 * words as u64;
        let l = &self.layout;
        let scan =
            |s: &ScanLayout, f: &mut dyn FnMut(Step) -> Result<(), E>| scan_steps(s, arena, f);

        let prefix = at(l.prefix.levels[0].0);
        if io.density != 0 {
            f(Step::Popcount {
                words: io.density,
                n: self.density_words,
                out: prefix,
            })?;
            scan(&l.prefix, &mut f)?;
        }
        let digits = DigitAddrs {
            scalars: io.scalars,
            n: self.n,
            density: io.density,
            prefix,
            base_offset: io.base_offset,
            // Drops selected scalars past the first `selected`.
            n_bases: io.n_bases.min(io.base_offset.saturating_add(self.selected)),
            c: self.c,
            windows: self.windows,
            sets: self.sets,
            stride: if self.tables > 1 { io.n_bases } else { 0 },
        };
        let starts = at(l.starts.levels[0].0);
        let cursor = at(l.cursor);
        let len = self.n_keys as usize + 1;
        let (digit_list, digit_count) = (at(l.digit_list), at(l.digit_count));
        f(Step::ZeroU32 { dst: starts, len })?;
        if let Some(shape) = self.padded {
            // Padded: the scatter's cursors count, no histogram.
            let (overflow, overflow_count) = (at(l.overflow), at(l.overflow_count));
            f(Step::ZeroU32 {
                dst: overflow_count,
                len: 1,
            })?;
            for begin in (0..self.windows).step_by(self.scatter_windows as usize) {
                f(Step::ScatterPadded {
                    digits,
                    counts: starts,
                    shape,
                    padded: at(l.padded),
                    overflow,
                    overflow_count,
                    rounds: (begin, (begin + self.scatter_windows).min(self.windows)),
                })?;
            }
            scan(&l.starts, &mut f)?;
            for (first_key, keys, cap_log) in shape.regions(self.n_keys) {
                if keys > 0 {
                    f(Step::Compact {
                        starts,
                        first_key,
                        slots: keys << cap_log,
                        cap_log,
                        padded: at(l.padded) + 4 * shape.base(first_key) as u64,
                        entries: at(l.entries),
                    })?;
                }
            }
            f(Step::CopyU32 {
                src: starts,
                dst: cursor,
                len,
            })?;
            f(Step::PlaceOverflow {
                overflow,
                overflow_count,
                cursor,
                shape,
                entries: at(l.entries),
            })?;
        } else {
            f(Step::ZeroU32 {
                dst: digit_count,
                len: 1,
            })?;
            f(Step::Histogram {
                digits,
                counts: starts,
                // Only launches after the first read the list: with one scatter
                // launch the histogram does not write it (null).
                digit_list: if self.scatter_windows < self.windows { digit_list } else { 0 },
                digit_count,
            })?;
            scan(&l.starts, &mut f)?;
            f(Step::CopyU32 {
                src: starts,
                dst: cursor,
                len,
            })?;
            for begin in (0..self.windows).step_by(self.scatter_windows as usize) {
                f(Step::Scatter {
                    digits,
                    cursor,
                    entries: at(l.entries),
                    digit_list,
                    digit_count,
                    rounds: (begin, (begin + self.scatter_windows).min(self.windows)),
                })?;
            }
        }

        let sums = at(l.sums);
        let keys = |b: usize| at(l.item_keys[b]);
        let points = |b: usize| at(l.item_points[b]);
        f(Step::Accumulate0 {
            bases: io.bases,
            entries: at(l.entries),
            starts,
            n_keys: self.n_keys,
            chunk: self.chunk0,
            threads: self.threads0,
            out_keys: keys(0),
            out_points: points(0),
            sums,
        })?;
        for (k, level) in self.levels[..self.n_levels].iter().enumerate() {
            let (src, dst) = (k % 2, (k + 1) % 2);
            f(Step::Accumulate {
                in_keys: keys(src),
                in_points: points(src),
                n_in: level.n_in,
                chunk: self.chunk,
                threads: level.threads,
                out_keys: keys(dst),
                out_points: points(dst),
                sums,
                last: level.last,
            })?;
        }

        let win = at(l.win);
        let mut input = sums;
        for (k, level) in self.merges[..self.n_merges].iter().enumerate() {
            let out = at(l.merged[k]);
            f(Step::Merge {
                input,
                starts: if k == 0 { starts } else { 0 },
                level: *level,
                out,
            })?;
            input = out;
        }
        // One weighted sum per bucket set (set b carries weight 2^(c·p·b),
        // p consecutive windows per set).
        f(Step::Windows {
            top: input,
            c: self.c * windows_per_set(self.windows, self.sets),
            windows: self.sets,
            win,
        })?;
        f(Step::Finish {
            win,
            windows: self.sets,
            sums,
            starts,
            ones_key: self.ones_key,
            out: io.out,
        })
    }
}

/// A scan tree for `len` elements placed from word `at` on; returns it and
/// the first word after it.
pub fn scan_layout(len: u32, at: usize) -> (ScanLayout, usize) {
    let mut bump = Bump(at);
    let s = bump.scan(len);
    (s, bump.0)
}

/// The steps of an in-place exclusive scan over `s.levels[0]` (offsets
/// relative to `arena`): chunk sums up the tree, then prefix sums down it.
pub fn scan_steps<E>(
    s: &ScanLayout,
    arena: u64,
    f: &mut dyn FnMut(Step) -> Result<(), E>,
) -> Result<(), E> {
    let at = |words: usize| arena + 8 * words as u64;
    for k in 0..s.count - 1 {
        let (data, n) = s.levels[k];
        f(Step::ScanReduce {
            data: at(data),
            n,
            out: at(s.levels[k + 1].0),
        })?;
    }
    let (top, n) = s.levels[s.count - 1];
    f(Step::ScanApply {
        data: at(top),
        n,
        offsets: 0,
    })?;
    for k in (0..s.count - 1).rev() {
        let (data, n) = s.levels[k];
        f(Step::ScanApply {
            data: at(data),
            n,
            offsets: at(s.levels[k + 1].0),
        })?;
    }
    Ok(())
}

/// Arena bytes for an MSM of `n` scalars on `curve` with window `c` (0:
/// default) and otherwise default settings.
pub fn msm_scratch_bytes(n: usize, curve: Curve, c: u32) -> Result<usize, &'static str> {
    let config = MsmConfig {
        window_bits: c,
        ..MsmConfig::default()
    };
    Ok(MsmPlan::new(n, curve, &config)?.scratch_bytes())
}
