//! The operations an MSM enqueues (memsets, copies and kernel launches with
//! their arguments), and the steps of an in-place scan.

use super::*;
use crate::ff::ScalarForm;
use crate::msm::block::BLOCK as BIN_BLOCK;


/// Where the inputs and the output of one MSM are (addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmIo {
    /// Affine bases (`n_bases` of them, blst layout; with the plan's
    /// `tables > 1`, that many tables of `n_bases` each, one after another).
    pub bases: u64,
    pub n_bases: u32,
    /// Index of the base paired with the first (selected) scalar.
    pub base_offset: u32,
    /// `n` scalars, in `scalar_form`.
    pub scalars: u64,
    /// Montgomery (blstrs `Scalar` limbs) or the integers themselves.
    pub scalar_form: ScalarForm,
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
    /// Windows of `c` bits (the rest `c − 1`; see `WindowLayout`).
    pub wide: u32,
    pub sets: u32,
    /// Bases per table (0 without tables).
    pub stride: u32,
    pub form: ScalarForm,
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
    /// Binned sort: windows `rounds.0..rounds.1`'s entries counted per bin
    /// (and the ones bucket's) into `counts`, the scalars with digits
    /// listed when `digit_list` is not 0.
    CountBins {
        digits: DigitAddrs,
        counts: u64,
        digit_list: u64,
        digit_count: u64,
        bins_log: u32,
        rounds: (u32, u32),
        /// Blocks of `binned_counts::COUNT_TILES` tiles of scalars.
        blocks: u32,
    },
    /// Binned scatter, pass 1: windows `round .. round + windows`'
    /// entries into bins in `staged` (one after another), the ones
    /// bucket's straight into `entries`.
    Bin {
        digits: DigitAddrs,
        /// The scanned bin counts.
        bin_starts: u64,
        cursor: u64,
        /// The first round's `2^bins_log` counters, the next rounds' after.
        bin_cursor: u64,
        staged: u64,
        entries: u64,
        digit_list: u64,
        digit_count: u64,
        round: u32,
        windows: u32,
        bins_log: u32,
        /// Tiles of `binned::TILE` scalars (a block per tile and window).
        tiles: u32,
    },
    /// Binned sort: window `round`'s staged pairs counted per bucket into
    /// `counts` (the window's bucket counts, to be scanned into starts).
    CountKeys {
        /// Window `staged_from`'s start: the pass 1 that staged `round`
        /// began there.
        staged: u64,
        bin_starts: u64,
        counts: u64,
        c: u32,
        round: u32,
        staged_from: u32,
        bins_log: u32,
        /// Blocks of `binned::TILE` staged pairs.
        tiles: u32,
    },
    /// Binned scatter, pass 2: window `round`'s staged pairs into `entries`.
    Refine {
        /// As for [`Step::CountKeys`].
        staged: u64,
        bin_starts: u64,
        cursor: u64,
        entries: u64,
        c: u32,
        round: u32,
        staged_from: u32,
        bins_log: u32,
        /// Blocks of `binned::TILE` staged pairs.
        tiles: u32,
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
    /// Level 0 with batch-affine additions: `streams` chunks in groups,
    /// `batch` says how many per group and how many threads.
    Accumulate0Affine {
        bases: u64,
        entries: u64,
        starts: u64,
        n_keys: u32,
        chunk: u32,
        streams: u32,
        batch: BatchAffinePlan,
        acc: u64,
        first: u64,
        prefix: u64,
        state: u64,
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
    /// A merge level; the first reads the bucket sums.
    Merge {
        input: u64,
        first_level: bool,
        level: MergeLevel,
        out: u64,
    },
    Windows {
        top: u64,
        /// Doublings between consecutive sets' weights (`c · p`) where sets
        /// are `wide`, one fewer past them.
        c: u32,
        windows: u32,
        wide: u32,
        win: u64,
    },
    Finish {
        win: u64,
        windows: u32,
        sums: u64,
        ones_key: u32,
        out: u64,
    },
}

/// Kernel parameters as `u64` values, in declaration order; a `u32`
/// parameter is the low half (little-endian hosts read it from the first
/// four bytes).
pub type Args = ([u64; MAX_ARGS], usize);

/// Most parameters of an MSM kernel (`msm_bin`'s).
pub const MAX_ARGS: usize = 20;

fn args(list: &[u64]) -> Args {
    let mut a = [0u64; MAX_ARGS];
    a[..list.len()].copy_from_slice(list);
    (a, list.len())
}

/// Windows and how many of them are wide, as one kernel parameter.
fn windows_and_wide(windows: u32, wide: u32) -> u64 {
    crate::msm::digits::WindowLayout::pack(windows, wide) as u64
}

/// The scalar-side kernels' parameters: [`DigitAddrs`] in the order of
/// `crate::msm::digits::DigitArgs`, then `rest`.
fn digit_args(d: &DigitAddrs, rest: &[u64]) -> Args {
    let digits = [
        d.scalars,
        d.n as u64,
        d.density,
        d.prefix,
        d.base_offset as u64,
        d.n_bases as u64,
        d.c as u64,
        windows_and_wide(d.windows, d.wide),
        d.sets as u64,
        d.stride as u64,
        d.form.code() as u64,
    ];
    let mut a = args(&digits);
    a.0[digits.len()..][..rest.len()].copy_from_slice(rest);
    (a.0, digits.len() + rest.len())
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
            Step::Bin { digits, .. } if digits.form == ScalarForm::Canonical => "msm_bin_canonical",
            Step::Bin { .. } => "msm_bin",
            Step::Refine { .. } => "msm_refine",
            Step::CountBins { .. } => "msm_count_bins",
            Step::CountKeys { .. } => "msm_count_keys",
            Step::Compact { .. } => "msm_compact",
            Step::PlaceOverflow { .. } => "msm_place_overflow",
            Step::Accumulate0 { .. } => pick("msm_g1_accumulate0", "msm_g2_accumulate0"),
            Step::Accumulate0Affine { .. } => pick("msm_g1_accumulate0_affine", "msm_g2_accumulate0_affine"),
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
            // A block per tile and window.
            Step::Bin { tiles, windows, .. } => tiles * windows * BIN_BLOCK,
            Step::Refine { tiles, .. } | Step::CountKeys { tiles, .. } => tiles * BIN_BLOCK,
            Step::CountBins { blocks, .. } => blocks * BIN_BLOCK,
            Step::Compact { slots, cap_log, .. } => (slots >> compact_group_log(cap_log)).min(COMPACT_THREADS),
            Step::PlaceOverflow { .. } => OVERFLOW_THREADS,
            Step::Accumulate0 { threads, .. } | Step::Accumulate { threads, .. } => threads,
            Step::Accumulate0Affine { batch, .. } => batch.grid,
            Step::Merge { level, .. } => level.outputs,
            Step::Windows { windows, .. } => windows,
            Step::Finish { .. } => 1,
        }
    }

    /// Threads per block of the kernel's launch.
    pub fn block(&self) -> u32 {
        match self {
            Step::Bin { .. } | Step::Refine { .. } | Step::CountBins { .. } | Step::CountKeys { .. } => BIN_BLOCK,
            _ => MSM_BLOCK,
        }
    }

    /// The kernel's parameters (see [`Args`]).
    pub fn args(&self) -> Args {
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
            } => digit_args(digits, &[*counts, *digit_list, *digit_count]),
            Step::Scatter {
                digits,
                cursor,
                entries,
                digit_list,
                digit_count,
                rounds,
            } => digit_args(digits, &[*cursor, *entries, *digit_list, *digit_count, rounds.0 as u64, rounds.1 as u64]),
            Step::Bin {
                digits,
                bin_starts,
                cursor,
                bin_cursor,
                staged,
                entries,
                digit_list,
                digit_count,
                round,
                windows,
                bins_log,
                tiles,
            } => digit_args(digits, &[*bin_starts, *cursor, *bin_cursor, *staged, *entries, *digit_list, *digit_count, (*round | *windows << 8 | *bins_log << 16) as u64, *tiles as u64]),
            Step::Refine {
                staged,
                bin_starts,
                cursor,
                entries,
                c,
                round,
                staged_from,
                bins_log,
                tiles,
            } => args(&[*staged, *bin_starts, *cursor, *entries, *c as u64, (*round | *staged_from << 16) as u64, *bins_log as u64, *tiles as u64]),
            Step::CountBins {
                digits,
                counts,
                digit_list,
                digit_count,
                bins_log,
                rounds,
                blocks,
            } => digit_args(digits, &[*counts, *digit_list, *digit_count, *bins_log as u64, (rounds.0 | (rounds.1 << 16)) as u64, *blocks as u64]),
            Step::CountKeys {
                staged,
                bin_starts,
                counts,
                c,
                round,
                staged_from,
                bins_log,
                tiles,
            } => args(&[*staged, *bin_starts, *counts, *c as u64, (*round | *staged_from << 16) as u64, *bins_log as u64, *tiles as u64]),
            Step::ScatterPadded {
                digits,
                counts,
                shape,
                padded,
                overflow,
                overflow_count,
                rounds,
            } => digit_args(digits, &[*counts, shape.pack(), *padded, *overflow, *overflow_count, (rounds.0 | (rounds.1 << 16)) as u64]),
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
            Step::Accumulate0Affine {
                bases,
                entries,
                starts,
                n_keys,
                chunk,
                streams,
                batch,
                acc,
                first,
                prefix,
                state,
                out_keys,
                out_points,
                sums,
            } => args(&[
                *bases,
                *entries,
                *starts,
                *n_keys as u64,
                *chunk as u64,
                *streams as u64,
                batch.per_thread as u64,
                *acc,
                *first,
                *prefix,
                *state,
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
                first_level,
                level,
                out,
            } => args(&[
                *input,
                *first_level as u64,
                level.in_m_log as u64,
                level.fan_log as u64,
                level.outputs as u64,
                *out,
            ]),
            Step::Windows {
                top,
                c,
                windows,
                wide,
                win,
            } => args(&[*top, *c as u64, windows_and_wide(*windows, *wide), *win]),
            Step::Finish {
                win,
                windows,
                sums,
                ones_key,
                out,
            } => args(&[
                *win,
                *windows as u64,
                *sums,
                *ones_key as u64,
                *out,
            ]),
        }
    }
}

/// The steps of an in-place exclusive scan over `s.levels[0]` (offsets
/// relative to `arena`): chunk sums up the tree, then prefix sums down it.
pub fn scan_steps<E>(
    s: &ScanLayout,
    arena: u64,
    f: &mut dyn FnMut(Step) -> Result<(), E>,
) -> Result<(), E> {
    let (data, n) = s.levels[0];
    scan_steps_at(arena + 8 * data as u64, n, s, arena, 0, f)
}

/// The steps of an in-place exclusive scan of the `n` words at address
/// `data`, through the chunk-sum arrays of `tree`'s levels 1 and up
/// (offsets relative to `arena`; each level at least as long as this
/// scan's), starting from the word at address `start` (0: from zero).
pub fn scan_steps_at<E>(
    data: u64,
    n: u32,
    tree: &ScanLayout,
    arena: u64,
    start: u64,
    f: &mut dyn FnMut(Step) -> Result<(), E>,
) -> Result<(), E> {
    let mut levels = [(0u64, 0u32); 8];
    levels[0] = (data, n);
    let mut count = 1;
    while levels[count - 1].1 > CHUNK {
        debug_assert!(count < tree.count && tree.levels[count].1 >= chunks(levels[count - 1].1));
        levels[count] = (arena + 8 * tree.levels[count].0 as u64, chunks(levels[count - 1].1));
        count += 1;
    }
    for k in 0..count - 1 {
        f(Step::ScanReduce {
            data: levels[k].0,
            n: levels[k].1,
            out: levels[k + 1].0,
        })?;
    }
    let (top, n) = levels[count - 1];
    f(Step::ScanApply {
        data: top,
        n,
        offsets: start,
    })?;
    for k in (0..count - 1).rev() {
        f(Step::ScanApply {
            data: levels[k].0,
            n: levels[k].1,
            offsets: levels[k + 1].0,
        })?;
    }
    Ok(())
}
