//! Host-side sequencing of one MSM: parameters, arena layout and the list of
//! launches, shared by the CUDA driver (`cuzk::gpu::msm`) and the host tests
//! (which run the same steps through the host builds of the kernels).
//!
//! Every size is an upper bound known before any kernel runs (e.g. `n · W`
//! entries), so a call never waits on the device to size its work.
//!
//! Addresses are plain `u64`: device addresses for CUDA, host addresses in
//! the tests. Host-only (not compiled into the PTX).

use super::digits::{num_windows, windows_per_set, WindowLayout, MAX_WINDOW_BITS};
use super::binned::{MAX_BINS_LOG, TILE as BIN_TILE};
use super::binned_counts::{count_blocks, windows_per_count};
use super::padded::compact_group_log;
pub use super::padded::PaddedShape;
use super::scan::{chunks, CHUNK};
use crate::layout::{
    G1_AFFINE_LIMBS, G1_JACOBIAN_LIMBS, G1_XYZZ_LIMBS, G2_AFFINE_LIMBS, G2_JACOBIAN_LIMBS,
    G2_XYZZ_LIMBS,
};

mod carry;
mod config;
mod layout;
mod steps;

pub use carry::*;
pub use config::*;
pub use layout::*;
pub use steps::*;

/// Everything about one MSM that does not depend on the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmPlan {
    pub curve: Curve,
    pub n: u32,
    /// Most scalars that take part (a density's set bits; `n` without one).
    pub selected: u32,
    /// Most of those that are neither 0 nor 1 (`selected` when not known):
    /// what the window is chosen for. A 0 adds no entry and a 1 one (the
    /// ones bucket), so a Groth16 witness, 98% zeros and ones, needs far
    /// fewer buckets than its length suggests.
    pub general: u32,
    /// The widest window's bits and every bucket set's `c`.
    pub c: u32,
    pub windows: u32,
    /// Windows `0..wide` are `c` bits wide, the rest `c − 1`
    /// ([`WindowLayout`], [`WindowCut`]).
    pub wide: u32,
    /// Tables of the bases (1: none) and bucket sets (`windows` without tables).
    pub tables: u32,
    pub sets: u32,
    /// Windows per scatter launch (the last launch may take fewer).
    pub scatter_windows: u32,
    /// Padded sort: the slots per bucket; `None`: counted.
    pub padded: Option<PaddedShape>,
    /// Binned scatter: log2 of its bins per window; `None`: direct.
    pub binned: Option<u32>,
    /// Binned scatter: windows per launch of its pass 1 (1 when not binned).
    pub bin_windows: u32,
    /// Set buckets plus the ones bucket: `sets · 2^(c−1) + 1`.
    pub n_keys: u32,
    pub ones_key: u32,
    /// Upper bound on sorted entries: `selected · windows`.
    pub entries_max: u32,
    pub density_words: u32,
    pub chunk0: u32,
    pub threads0: u32,
    /// The batch-affine first level's launch; `None`: XYZZ, `threads0`
    /// threads. Either way level 0 has `threads0` chunks of `chunk0`
    /// entries, and hands two items per thread (XYZZ) or group (batch) on.
    pub batch: Option<BatchAffinePlan>,
    pub chunk: u32,
    pub levels: [Level; MAX_LEVELS],
    pub n_levels: usize,
    pub merges: [MergeLevel; MAX_REDUCE_LEVELS],
    pub n_merges: usize,
    pub layout: Layout,
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
        Self::for_witness(n, selected, None, curve, config)
    }

    /// As [`for_selected`](Self::for_selected), knowing that at most
    /// `general` of the selected scalars are neither 0 nor 1: the window is
    /// chosen for `general` scalars and the entries are bounded by
    /// `general · windows + (selected − general)`. The bound must hold: more
    /// such scalars than `general` overrun the arena's entries.
    pub fn for_witness(n: usize, selected: usize, general: Option<usize>, curve: Curve, config: &MsmConfig) -> Result<Self, &'static str> {
        if n >= 1 << 31 {
            return Err("MSM: at most 2^31 - 1 scalars per call");
        }
        let selected = selected.min(n);
        let general = general.map_or(selected, |g| g.min(selected));
        let c = if config.window_bits == 0 {
            default_window_bits_for(general.max(1), curve)
        } else {
            config.window_bits
        };
        let tables = config.tables.max(1);
        let max_c = if tables > 1 { MAX_TABLE_WINDOW_BITS } else { MAX_WINDOW_BITS };
        if !(1..=max_c).contains(&c) {
            return Err("MSM: window bits must be in 1..=22 (1..=26 with tables)");
        }
        // Tables step by `c` bits a table, and the padded shape sizes every
        // set's buckets alike: both keep every window `c` bits wide.
        let padded = matches!(config.sort, Sort::Padded { .. }) || (tables > 1 && config.sort == Sort::Auto);
        let window_layout = match config.window_cut {
            WindowCut::Narrowest if tables == 1 && !padded => WindowLayout::narrowest(c),
            _ => WindowLayout::uniform(c),
        };
        let WindowLayout { c, windows, wide } = window_layout;
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
        let entries_max = general as u64 * windows as u64 + (selected - general) as u64;
        let padded_sort = match config.sort {
            Sort::Padded { cap_log } if cap_log != 0 => Some(PaddedShape::uniform(cap_log)),
            _ if padded => Some(padded_shape(c, windows, sets, selected as u64)),
            _ => None,
        };
        if let Some(shape) = padded_sort {
            let slots = ((n_keys as u64) << shape.cap_log) + ((shape.hot_len as u64) << shape.hot_log);
            if shape.cap_log > 16 || shape.hot_log > 24 || slots > u32::MAX as u64 {
                return Err("MSM: padded buckets need n_keys · 2^cap_log < 2^32 slots (cap_log ≤ 16)");
            }
        }
        let binned = match config.sort {
            Sort::Binned { .. } if tables > 1 => return Err("MSM: the binned sort needs windows without tables"),
            Sort::Binned { bins_log: 0 } => Some(default_bins_log(c)),
            Sort::Binned { bins_log } if bins_log <= (c - 1).min(MAX_BINS_LOG) => Some(bins_log),
            Sort::Binned { .. } => return Err("MSM: bins_log must be at most c − 1 and 11"),
            Sort::Auto if tables == 1 && auto_bins(c, general) => Some(default_bins_log(c)),
            _ => None,
        };
        let bin_windows = match (binned, config.bin_windows) {
            (None, _) => 1,
            (Some(_), 0) => DEFAULT_BIN_WINDOWS.min(windows),
            (Some(_), w) if w <= MAX_BIN_WINDOWS => w.min(windows),
            (Some(_), _) => return Err("MSM: bin_windows must be at most 8"),
        };
        let per_thread = match config.accumulation {
            Accumulation::Xyzz => None,
            Accumulation::BatchAffine { streams: 0 } => Some(default_batch_streams(curve)),
            Accumulation::BatchAffine { streams } => Some(streams),
        };
        let chunk0 = if config.chunk0 != 0 {
            config.chunk0
        } else {
            // Batch-affine: enough streams for every launched thread's groups.
            let target = per_thread.map_or(TARGET_THREADS, |k| k as u64 * BATCH_AFFINE_THREADS as u64);
            let chunk = entries_max.div_ceil(target).next_power_of_two().clamp(4, MAX_DEFAULT_CHUNK0);
            match per_thread {
                // Batch-affine threads step groups of chunks: no waves to fit.
                Some(_) => chunk as u32,
                None => fit_chunk0_to_waves(entries_max, chunk, config.level0_waves.of(curve) as u64) as u32,
            }
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
        let batch = per_thread.map(|k| {
            let groups = threads0.div_ceil(k);
            BatchAffinePlan {
                per_thread: k,
                groups,
                grid: groups.next_multiple_of(MSM_BLOCK).min(BATCH_AFFINE_THREADS),
            }
        });

        let level0_outputs = batch.map_or(threads0, |b| b.groups);
        let mut levels = [Level::default(); MAX_LEVELS];
        let mut n_levels = 0;
        let mut n_in = 2 * level0_outputs;
        let mut capacity = [2 * level0_outputs, 0];
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
        // The bucket sums first: at the same place for every call of one
        // window and set count, so calls can carry them (`Carry`), and
        // outside the sort's and batch scratch's aliases below.
        let sums = bump.take(n_keys as usize * xyzz);
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
        let reduction = bump.0;
        let mut merged = [0; MAX_REDUCE_LEVELS];
        for (at, level) in merged.iter_mut().zip(&merges[..n_merges]) {
            *at = bump.take(2 * level.outputs as usize * xyzz);
        }
        let win = bump.take(sets as usize * xyzz);
        let (mut batch_acc, mut batch_first, mut batch_prefix, mut batch_state) = (0, 0, 0, 0);
        if let Some(b) = batch {
            let streams = b.grid as usize * b.per_thread as usize;
            let mut alias = Bump(reduction);
            batch_acc = alias.take(streams * curve.affine_limbs());
            batch_first = alias.take(streams * curve.affine_limbs());
            batch_prefix = alias.take(streams * curve.base_limbs());
            batch_state = alias.take_u32(streams);
            bump.0 = bump.0.max(alias.0);
        }
        let (mut padded, mut overflow, mut overflow_count) = (0, 0, 0);
        if let Some(shape) = padded_sort {
            let mut alias = Bump(after_entries);
            padded = alias.take_u32(shape.base(n_keys) as usize);
            overflow = alias.take(entries_max as usize);
            overflow_count = alias.take_u32(1);
            bump.0 = bump.0.max(alias.0);
        }
        let (mut staged, mut bin_cursor, mut bin_starts) = (0, 0, ScanLayout::default());
        if let Some(bins_log) = binned {
            let mut alias = Bump(after_entries);
            staged = alias.take(general * bin_windows as usize);
            bin_cursor = alias.take_u32((windows as usize) << bins_log);
            // The windows' bins, the ones bucket and the total.
            bin_starts = alias.scan((windows << bins_log) + 2);
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
            staged,
            bin_cursor,
            bin_starts,
            entries,
            item_keys,
            item_points,
            item_capacity: capacity,
            sums,
            merged,
            win,
            batch_acc,
            batch_first,
            batch_prefix,
            batch_state,
            words: bump.0,
        };
        Ok(MsmPlan {
            curve,
            n: n as u32,
            selected: selected as u32,
            general: general as u32,
            c,
            windows,
            wide,
            tables,
            sets,
            scatter_windows,
            bin_windows,
            padded: padded_sort,
            binned,
            n_keys,
            ones_key,
            entries_max,
            density_words,
            chunk0,
            threads0,
            batch,
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
        f: impl FnMut(Step) -> Result<(), E>,
    ) -> Result<(), E> {
        self.carried_steps(io, arena, Carry::WHOLE, f)
    }

    /// [`Self::steps`] of one call of an MSM whose calls carry their
    /// buckets (see [`Carry`]; plans that [`carry with`](Self::carries_with)
    /// each other, XYZZ first level): the first sets the bucket sums to the
    /// identity, each adds its scalars' entries into them, and only the
    /// last reduces them and writes `io.out`.
    pub fn carried_steps<E>(
        &self,
        io: &MsmIo,
        arena: u64,
        carry: Carry,
        mut f: impl FnMut(Step) -> Result<(), E>,
    ) -> Result<(), E> {
        let at = |words: usize| arena + 8 * words as u64;
        let l = &self.layout;
        let scan =
            |s: &ScanLayout, f: &mut dyn FnMut(Step) -> Result<(), E>| scan_steps(s, arena, f);

        let sums = at(l.sums);
        if carry.first {
            f(Step::ZeroU32 {
                dst: sums,
                len: self.n_keys as usize * self.curve.xyzz_limbs() * 2,
            })?;
        }
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
            wide: self.wide,
            sets: self.sets,
            stride: if self.tables > 1 { io.n_bases } else { 0 },
            form: io.scalar_form,
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
        } else if let Some(bins_log) = self.binned {
            self.binned_sort_steps(l, arena, digits, bins_log, &mut f)?;
        } else {
            f(Step::ZeroU32 {
                dst: digit_count,
                len: 1,
            })?;
            f(Step::Histogram {
                digits,
                counts: starts,
                // Only scatter launches after the first read the list: with
                // one scatter launch the histogram does not write it (null).
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

        let keys = |b: usize| at(l.item_keys[b]);
        let points = |b: usize| at(l.item_points[b]);
        match self.batch {
            None => f(Step::Accumulate0 {
                bases: io.bases,
                entries: at(l.entries),
                starts,
                n_keys: self.n_keys,
                chunk: self.chunk0,
                threads: self.threads0,
                out_keys: keys(0),
                out_points: points(0),
                sums,
            })?,
            Some(batch) => f(Step::Accumulate0Affine {
                bases: io.bases,
                entries: at(l.entries),
                starts,
                n_keys: self.n_keys,
                chunk: self.chunk0,
                streams: self.threads0,
                batch,
                acc: at(l.batch_acc),
                first: at(l.batch_first),
                prefix: at(l.batch_prefix),
                state: at(l.batch_state),
                out_keys: keys(0),
                out_points: points(0),
                sums,
            })?,
        }
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

        if !carry.last {
            return Ok(());
        }
        let win = at(l.win);
        let mut input = sums;
        for (k, level) in self.merges[..self.n_merges].iter().enumerate() {
            let out = at(l.merged[k]);
            f(Step::Merge {
                input,
                first_level: k == 0,
                level: *level,
                out,
            })?;
            input = out;
        }
        // One weighted sum per bucket set, weighted by its first bit: without
        // tables a set is a window (`wide` of them `c` bits, the rest `c − 1`);
        // with tables every window is `c` bits and set b, p consecutive
        // windows, carries weight 2^(c·p·b).
        f(Step::Windows {
            top: input,
            c: self.c * windows_per_set(self.windows, self.sets),
            windows: self.sets,
            wide: if self.tables > 1 { self.sets } else { self.wide },
            win,
        })?;
        f(Step::Finish {
            win,
            windows: self.sets,
            sums,
            ones_key: self.ones_key,
            out: io.out,
        })
    }

    /// The binned sort ([`crate::msm::binned`]): bin counts for every
    /// window, scanned; then pass 1 for `bin_windows` windows at a time,
    /// and per window its bucket counts, scanned into its starts, and pass
    /// 2 ([`crate::msm::binned_counts`]). Leaves the bucket starts as the
    /// counted sort's histogram and scan would.
    fn binned_sort_steps<E>(
        &self,
        l: &Layout,
        arena: u64,
        digits: DigitAddrs,
        bins_log: u32,
        f: &mut dyn FnMut(Step) -> Result<(), E>,
    ) -> Result<(), E> {
        let at = |words: usize| arena + 8 * words as u64;
        let u32_at = |base: u64, i: u32| base + 4 * i as u64;
        let starts = at(l.starts.levels[0].0);
        let cursor = at(l.cursor);
        let (digit_list, digit_count) = (at(l.digit_list), at(l.digit_count));
        let bin_starts = at(l.bin_starts.levels[0].0);
        let ones_bin = self.windows << bins_log;
        f(Step::ZeroU32 {
            dst: digit_count,
            len: 1,
        })?;
        f(Step::ZeroU32 {
            dst: bin_starts,
            len: ones_bin as usize + 2,
        })?;
        let per_launch = windows_per_count(bins_log);
        for begin in (0..self.windows).step_by(per_launch as usize) {
            f(Step::CountBins {
                digits,
                counts: bin_starts,
                // Pass 1 reads the list after window 0.
                digit_list: if begin == 0 { digit_list } else { 0 },
                digit_count,
                bins_log,
                rounds: (begin, (begin + per_launch).min(self.windows)),
                blocks: count_blocks(self.n),
            })?;
        }
        scan_steps(&l.bin_starts, arena, f)?;
        // The ones bucket's start and the total, where the buckets' scan
        // would have put them; the ones bucket's cursor for pass 1.
        f(Step::CopyU32 {
            src: u32_at(bin_starts, ones_bin),
            dst: u32_at(starts, self.ones_key),
            len: 2,
        })?;
        f(Step::CopyU32 {
            src: u32_at(bin_starts, ones_bin),
            dst: u32_at(cursor, self.ones_key),
            len: 1,
        })?;
        let bin_cursor = at(l.bin_cursor);
        f(Step::ZeroU32 {
            dst: bin_cursor,
            len: ones_bin as usize,
        })?;
        let staged = at(l.staged);
        let keys = 1u32 << (self.c - 1);
        for from in (0..self.windows).step_by(self.bin_windows as usize) {
            let to = (from + self.bin_windows).min(self.windows);
            f(Step::Bin {
                digits,
                bin_starts,
                cursor,
                bin_cursor: u32_at(bin_cursor, from << bins_log),
                staged,
                entries: at(l.entries),
                digit_list,
                digit_count,
                round: from,
                windows: to - from,
                bins_log,
                tiles: self.n.div_ceil(BIN_TILE),
            })?;
            for round in from..to {
                let tiles = self.general.div_ceil(BIN_TILE);
                f(Step::CountKeys {
                    staged,
                    bin_starts,
                    counts: starts,
                    c: self.c,
                    round,
                    staged_from: from,
                    bins_log,
                    tiles,
                })?;
                // The window's counts (zeroed with the rest) into its
                // starts, from the window's first bin's start.
                let window = u32_at(starts, round * keys);
                scan_steps_at(window, keys, &l.starts, arena, u32_at(bin_starts, round << bins_log), f)?;
                f(Step::CopyU32 {
                    src: window,
                    dst: u32_at(cursor, round * keys),
                    len: keys as usize,
                })?;
                f(Step::Refine {
                    staged,
                    bin_starts,
                    cursor,
                    entries: at(l.entries),
                    c: self.c,
                    round,
                    staged_from: from,
                    bins_log,
                    tiles,
                })?;
            }
        }
        Ok(())
    }
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
