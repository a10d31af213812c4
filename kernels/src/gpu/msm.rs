//! MSM kernels (see [`crate::msm`] for the algorithm and
//! [`crate::msm::plan`] for the launch sequence and arena layout).
//!
//! The scalar-side kernels (popcount, scan, histogram, scatter) serve both
//! curves; the point kernels are instantiated for G1 and G2 from one
//! generic body by `msm_curve_kernels!`. Every kernel is a grid-stride
//! loop over the thread count the plan gives, launched in blocks of `plan::MSM_BLOCK`.

// Kernel signatures are flat parameter lists by nature.
#![allow(clippy::too_many_arguments)]

use crate::ec::{G1Config, G2Config};
use crate::msm::digits::{DigitArgs, WindowLayout};
use crate::msm::{accumulate, batch_affine, binned, binned_counts, padded, reduce, scan, sort, tables};

kernel! {
    /// `*count +=` how many of the `n` scalars (Montgomery limbs) are neither
    /// 0 nor 1 ([`crate::msm::digits::general_mont`]): what a witness MSM's
    /// window is chosen for (`plan::MsmPlan::for_witness`).
    fn msm_count_general(scalars: *const u64, n: u32, count: *mut u32) {
        let mut mine = 0u32;
        for i in crate::gpu::grid::indices(n) {
            let s = core::ptr::read(scalars.add(i * 4) as *const [u64; 4]);
            mine += crate::msm::digits::general_mont(&s) as u32;
        }
        if mine != 0 {
            crate::msm::warp::atomic_add(count, mine);
        }
    }
}

kernel! {
    /// `out[i] = popcount(words[i])`, `n` threads.
    fn msm_popcount(words: *const u64, n: u32, out: *mut u32) {
        scan::popcount(words, n, out);
    }
}

kernel! {
    /// Chunk sums of a `u32` array: `ceil(n/32)` threads.
    fn msm_scan_reduce(data: *const u32, n: u32, out: *mut u32) {
        scan::reduce(data, n, out);
    }
}

kernel! {
    /// In-place exclusive scan of each 32-element chunk from `offsets[t]`
    /// (0 when null): `ceil(n/32)` threads.
    fn msm_scan_apply(data: *mut u32, n: u32, offsets: *const u32) {
        scan::apply(data, n, offsets);
    }
}

/// A kernel over a [`DigitArgs`]: the eleven scalar parameters every such
/// kernel takes first, in the order the plan's steps pass them (`form`: 1
/// for integers), then its own; `$a` names the `DigitArgs` in its body.
/// `canonical = true | false` fixes the scalars' form at compile time
/// instead (the `form` parameter is then not read).
macro_rules! digit_kernel {
    (@canonical $form:ident) => { $form != 0 };
    (@canonical $form:ident $canonical:literal) => {{
        let _ = $form;
        $canonical
    }};
    ($(#[doc = $doc:literal])* fn $name:ident($a:ident $(, canonical = $canonical:literal)?; $($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        kernel! {
            $(#[doc = $doc])*
            fn $name(
                scalars: *const u64,
                n: u32,
                density: *const u64,
                prefix: *const u32,
                base_offset: u32,
                n_bases: u32,
                c: u32,
                windows_and_wide: u32,
                sets: u32,
                stride: u32,
                form: u32,
                $($arg: $ty),*
            ) {
                let canonical = digit_kernel!(@canonical form $($canonical)?);
                let (windows, wide) = WindowLayout::unpack(windows_and_wide);
                let $a = DigitArgs { scalars, n, density, prefix, base_offset, n_bases, c, windows, wide, sets, stride, canonical };
                $body
            }
        }
    };
}

digit_kernel! {
    /// Bucket histogram and the list of scalars with digits: one thread per
    /// scalar (warp-uniform loop, block size a multiple of 32), `counts` and
    /// `*digit_count` zeroed beforehand.
    fn msm_histogram(a; counts: *mut u32, digit_list: *mut u32, digit_count: *mut u32) {
        sort::histogram(&a, counts, digit_list, digit_count);
    }
}

digit_kernel! {
    /// Scatter of windows `round_begin..round_end`'s `base | sign << 31`
    /// entries to their buckets through `cursor` (a copy of the bucket
    /// starts): one thread per scalar (per listed scalar after round 0).
    fn msm_scatter(
        a;
        cursor: *mut u32,
        entries: *mut u32,
        digit_list: *const u32,
        digit_count: *const u32,
        round_begin: u32,
        round_end: u32,
    ) {
        sort::scatter(&a, cursor, entries, digit_list, digit_count, round_begin, round_end);
    }
}

digit_kernel! {
    /// Histogram-free scatter of windows `rounds & 0xffff .. rounds >> 16`
    /// into the slots of `shape` (a packed [`padded::PaddedShape`]), counting
    /// in `counts`, the rest to the overflow list: one thread per scalar
    /// (grid-stride, warp-uniform).
    fn msm_scatter_padded(
        a;
        counts: *mut u32,
        shape: u64,
        padded: *mut u32,
        overflow: *mut u64,
        overflow_count: *mut u32,
        rounds: u32,
    ) {
        let shape = padded::PaddedShape::unpack(shape);
        padded::scatter(&a, counts, shape, padded, overflow, overflow_count, rounds & 0xffff, rounds >> 16);
    }
}

kernel! {
    /// Packs the filled slots of buckets `first_key ..` (`2^cap_log` each)
    /// into `entries`: grid-stride over their `slots`.
    fn msm_compact(starts: *const u32, first_key: u32, slots: u32, cap_log: u32, padded: *const u32, entries: *mut u32) {
        padded::compact(starts, first_key, slots, cap_log, padded, entries);
    }
}

kernel! {
    /// The overflow's entries after their buckets' packed slots.
    fn msm_place_overflow(overflow: *const u64, overflow_count: *const u32, cursor: *mut u32, shape: u64, entries: *mut u32) {
        padded::place_overflow(overflow, overflow_count, cursor, padded::PaddedShape::unpack(shape), entries);
    }
}

/// Pass 1 of the binned scatter, one kernel per scalar form: `form` must
/// be the kernel's own (`Step::kernel` picks it). Specialized because
/// the conversion out of Montgomery form holds registers the whole pass:
/// without it `msm_bin_canonical` fits two 512-thread blocks per SM.
macro_rules! msm_bin_kernel {
    ($(#[doc = $doc:literal])* $name:ident, canonical: $canonical:literal) => {
        digit_kernel! {
            $(#[doc = $doc])*
            fn $name(
                a, canonical = $canonical;
                bin_starts: *const u32,
                cursor: *mut u32,
                bin_cursor: *mut u32,
                staged: *mut u64,
                entries: *mut u32,
                digit_list: *const u32,
                digit_count: *const u32,
                round_bins: u32,
                tiles: u32,
            ) {
                let first = round_bins & 0xff;
                binned::bin(&a, (first, first + (round_bins >> 8 & 0xff)), round_bins >> 16, tiles, bin_starts, cursor, bin_cursor, staged, entries, digit_list, digit_count);
            }
        }
    };
}

msm_bin_kernel! {
    /// Binned scatter, pass 1 ([`binned::bin`]) of `round_bins >> 8 & 0xff`
    /// windows from window `round_bins & 0xff` with `2^(round_bins >> 16)`
    /// bins, scalars in Montgomery form: `tiles` blocks of
    /// [`crate::msm::block::BLOCK`] threads.
    msm_bin, canonical: false
}

msm_bin_kernel! {
    /// [`msm_bin`] for scalars that are integers.
    msm_bin_canonical, canonical: true
}

kernel! {
    /// Binned scatter, pass 2 ([`binned::refine`]) of window `round &
    /// 0xffff`, staged from window `round >> 16`'s start: `tiles` blocks of
    /// [`crate::msm::block::BLOCK`] threads.
    fn msm_refine(staged: *const u64, bin_starts: *const u32, cursor: *mut u32, entries: *mut u32, c: u32, round: u32, bins_log: u32, tiles: u32) {
        binned::refine(staged, bin_starts, cursor, entries, c, (round & 0xffff, round >> 16), bins_log, tiles);
    }
}

digit_kernel! {
    /// The binned sort's bin counts of windows `rounds & 0xffff .. rounds
    /// >> 16` with `2^bins_log` bins ([`binned_counts::count_bins`]):
    /// `blocks` blocks of [`crate::msm::block::BLOCK`] threads.
    fn msm_count_bins(
        a;
        counts: *mut u32,
        digit_list: *mut u32,
        digit_count: *mut u32,
        bins_log: u32,
        rounds: u32,
        blocks: u32,
    ) {
        binned_counts::count_bins(&a, bins_log, (rounds & 0xffff, rounds >> 16), blocks, counts, digit_list, digit_count);
    }
}

kernel! {
    /// The binned sort's bucket counts of window `round & 0xffff`, staged
    /// from window `round >> 16`'s start ([`binned_counts::count_keys`]):
    /// `tiles` blocks of [`crate::msm::block::BLOCK`] threads.
    fn msm_count_keys(staged: *const u64, bin_starts: *const u32, counts: *mut u32, c: u32, round: u32, bins_log: u32, tiles: u32) {
        binned_counts::count_keys(staged, bin_starts, counts, c, (round & 0xffff, round >> 16), bins_log, tiles);
    }
}

/// The point kernels of one curve.
macro_rules! msm_curve_kernels {
    ($C:ty, prefetch $prefetch:literal: $acc0:ident, $acc0_affine:ident, $acc:ident, $merge:ident, $windows:ident, $finish:ident, $tables:ident) => {
        kernel! {
            /// The next table of precomputed bases: `dst = 2^spacing · src`, `n` points
            /// (`scratch`: `tables::TABLE_SCRATCH_ELEMENTS` field elements per point).
            fn $tables(src: *const u64, dst: *mut u64, scratch: *mut u64, n: u32, spacing: u32) {
                tables::next_table::<$C>(src, dst, scratch, n, spacing);
            }
        }

        kernel! {
            /// First accumulation level: `threads` chunks of `chunk` sorted entries.
            fn $acc0(
                bases: *const u64,
                entries: *const u32,
                starts: *const u32,
                n_keys: u32,
                chunk: u32,
                threads: u32,
                out_keys: *mut u32,
                out_points: *mut u64,
                sums: *mut u64,
            ) {
                accumulate::level0::<$C, $prefetch>(bases, entries, starts, n_keys, chunk, threads, out_keys, out_points, sums);
            }
        }

        kernel! {
            /// First accumulation level with batch-affine additions: `streams`
            /// chunks of `chunk` sorted entries in groups of `per_thread`, one
            /// group per thread at a time, each launched thread with its slice
            /// of `acc`, `first`, `prefix`, `state`.
            fn $acc0_affine(
                bases: *const u64,
                entries: *const u32,
                starts: *const u32,
                n_keys: u32,
                chunk: u32,
                streams: u32,
                per_thread: u32,
                acc: *mut u64,
                first: *mut u64,
                prefix: *mut u64,
                state: *mut u32,
                out_keys: *mut u32,
                out_points: *mut u64,
                sums: *mut u64,
            ) {
                batch_affine::level0::<$C>(
                    bases, entries, starts, n_keys, chunk, streams, per_thread, acc, first, prefix, state, out_keys, out_points, sums,
                );
            }
        }

        kernel! {
            /// Later accumulation levels: `threads` chunks of `chunk` items.
            fn $acc(
                in_keys: *const u32,
                in_points: *const u64,
                n_in: u32,
                chunk: u32,
                threads: u32,
                out_keys: *mut u32,
                out_points: *mut u64,
                sums: *mut u64,
                last: u32,
            ) {
                accumulate::level::<$C>(in_keys, in_points, n_in, chunk, threads, out_keys, out_points, sums, last);
            }
        }

        kernel! {
            /// One level of the bucket reduction tree: `outputs` threads.
            fn $merge(input: *mut u64, first_level: u32, in_m_log: u32, fan_log: u32, outputs: u32, out: *mut u64) {
                reduce::merge::<$C>(input, first_level, in_m_log, fan_log, outputs, out);
            }
        }

        kernel! {
            /// Window sums weighted by their windows' first bits: `windows`
            /// threads (`windows_and_wide` as `WindowLayout::pack`).
            fn $windows(top: *const u64, c: u32, windows_and_wide: u32, win: *mut u64) {
                let (windows, wide) = WindowLayout::unpack(windows_and_wide);
                reduce::windows::<$C>(top, WindowLayout { c, windows, wide }, win);
            }
        }

        kernel! {
            /// Final sum to one Jacobian point: one thread.
            fn $finish(win: *const u64, windows: u32, sums: *const u64, ones_key: u32, out: *mut u64) {
                reduce::finish::<$C>(win, windows, sums, ones_key, out);
            }
        }
    };
}

msm_curve_kernels!(G1Config, prefetch true: msm_g1_accumulate0, msm_g1_accumulate0_affine, msm_g1_accumulate, msm_g1_merge, msm_g1_windows, msm_g1_finish, msm_g1_tables);
msm_curve_kernels!(G2Config, prefetch false: msm_g2_accumulate0, msm_g2_accumulate0_affine, msm_g2_accumulate, msm_g2_merge, msm_g2_windows, msm_g2_finish, msm_g2_tables);
