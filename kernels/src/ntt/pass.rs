//! One pass of a transform: a block loads a tile from global memory, runs
//! `r` radix-2 stages on it in shared memory, and writes it back.
//!
//! # Geometry
//!
//! A pass works on sub-transforms of `2^rem` contiguous elements (`rem` =
//! `log_rem`; the whole array on the first DIF pass). Within one, the
//! element index is `hi · S + low` with `hi < 2^r` the pass's digit and
//! `S = 2^(rem - r)`. A *column* is one `(outer, low)` pair, i.e. the `2^r`
//! elements `outer · 2^rem + hi · S + low`; the pass computes a `2^r`-point
//! DFT down every column. A block takes `C = tile / 2^r` consecutive
//! columns (`tile = min(1024, n)`), so for each `hi` it touches `C`
//! adjacent elements, or (when `C > S`) one contiguous run of `tile`.
//!
//! # Math (the four-step recursion, root ψ = ω or ω⁻¹)
//!
//! DIF (natural in, bit-reversed out): DFT down each column with root
//! `ψ_(2^r)`, giving frequency `k1` at row `bitrev_r(k1)`, then multiply by
//! the inter-pass twiddle `ψ_(2^rem)^(low · k1)`. Each row's `2^(rem-r)`
//! elements then form the next pass's contiguous sub-transform; the last
//! pass has `rem = r` and no twiddle. The result sits at `bitrev(k)`.
//!
//! DIT (bit-reversed in, natural out) is the transpose: passes in reverse
//! order; each multiplies its input at row `t` by `ψ_(2^rem)^(low ·
//! bitrev_r(t))`, then runs a DIT DFT down the column.
//!
//! Row twiddles ([`FLAG_ROW_TWIDDLES`]): the twiddle a sub-transform's
//! element `low` would get is `g^low` for one `g` per sub-transform, so the
//! sub-transform is a coset DFT with generator `g`, and no pass multiplies
//! it in. Its columns are coset DFTs too (generator `g^S`), computed by
//! butterflies `(u + c·v, u − c·v)` whose `c` depends on the block of rows
//! only ([`super::tables::row_twiddle_exponent`]); DIT runs their
//! transposes `(u + v, (u − v)·c)` in reverse order.
//!
//! # Fused extras (flags)
//!
//! * scale: multiply element of natural index `k` by `HI[k >> 16] ·
//!   LO[k & 0xffff]` (or `HI[0]` without `LO`), on load (first pass of a
//!   transform) or on store (last pass). See [`super::tables`].
//! * `valid`: positions `>= valid` load as zero (zero padding, first pass).
//! * pointwise: load `data[p] · b[p]` instead of `data[p]`, minus `c[p]`
//!   unless `c` is null (the H step's `a·b`, first pass of its last
//!   transform).
//! * scatter (DIF last pass only): write element `k` (natural index) to
//!   `out[k]` instead of in place, skipping `k >= out_len`, so the output
//!   is in natural order. The block's columns are then chosen with
//!   consecutive bit-reversed indices, so each row's writes are adjacent.
//!   With [`FLAG_SUBTRACT_OUT`] it stores `v − out[k]` instead (the H
//!   step's final `− C/Z`, `out` holding `C/Z` already).
//!
//! # Fused passes
//!
//! Two passes of the same geometry (`log_rem`, `r`) over the same data,
//! one of each flavour, can run as one launch ([`run`] with `FUSED`): load
//! as the first pass loads, run its stages, apply the *middle* extras to
//! the tile, run the second pass's stages, store as the second pass stores.
//! The H step uses it twice (see [`super::plan::h_step`]): an inverse
//! transform's innermost DIF pass with the next forward transform's
//! innermost DIT pass (middle: the scale, taken at the natural index of the
//! finished first transform), and a forward transform's outermost DIT pass
//! with the next inverse transform's outermost DIF pass (middle: the
//! pointwise product). The second half's direction is [`FLAG_INVERSE2`].

use super::block::{block_ids, sync, threads, Tile, THREADS, TILE, TILE_LOG};
use super::io;
use super::tables::{direct_at, DIRECT_MAX, DIRECT_MIN, HALF, STAGE_COUNT, STAGE_FROM_TW};
use crate::ff::limbs::unrolled_for;
use crate::ff::{Fr, FrLazy};

/// Tile elements per thread.
const PER: usize = (TILE / THREADS) as usize;

/// Use `ψ = ω⁻¹` (inverse transform) instead of `ω`.
pub const FLAG_INVERSE: u32 = 1;
/// Apply the scale on load instead of on store.
pub const FLAG_SCALE_ON_LOAD: u32 = 2;
/// Load `data · b - c` (first pass only).
pub const FLAG_POINTWISE: u32 = 4;
/// Store to `out` in natural order (last pass of a DIF transform only).
pub const FLAG_SCATTER: u32 = 8;
/// Read the stages' twiddles from the dense `STAGE` tables instead of
/// composing them from `TW_HI` (same values; the default, 0.5% faster, see
/// [`super::tables`]).
pub const FLAG_STAGE_TABLE: u32 = 16;

/// Run every stage as its own radix-2 phase (one barrier per stage)
/// instead of pairing stages into radix-4 phases (off by default: 4%
/// slower at 2^27 under the same register cap; kept for comparisons).
pub const FLAG_RADIX2: u32 = 32;

/// Fused passes: the second half uses `ψ = ω⁻¹`.
pub const FLAG_INVERSE2: u32 = 64;

/// Scatter: store `v − out[k]` (after the scale) instead of `v`.
pub const FLAG_SUBTRACT_OUT: u32 = 128;

/// Inter-pass twiddles of passes with `DIRECT_MIN <= log_rem <=
/// DIRECT_MAX` from the direct tables (one lookup, no multiplication; see
/// [`super::tables`]) instead of composed from `TW_HI` and `TW_LO`.
pub const FLAG_DIRECT_TWIDDLES: u32 = 256;

/// Store the tile lazily reduced (below `2r`): a pass inside a transform,
/// whose output only the transform's next pass reads (every pass loads
/// lazily). Saves the conditional subtraction per element and pass.
pub const FLAG_LAZY_STORE: u32 = 512;

// The stage table holds the powers a 2^TILE_LOG tile's stages use.
const _: () = assert!(STAGE_COUNT == TILE / 2 && TILE_LOG == 10);

/// The kernel arguments of one pass (see the module docs).
#[derive(Clone, Copy)]
pub struct Pass {
    pub data: *mut u64,
    pub b: *const u64,
    pub c: *const u64,
    pub out: *mut u64,
    /// `TW_LO` followed by `TW_HI` (see [`super::tables`]).
    pub tw: *const u64,
    /// With [`FLAG_ROW_TWIDDLES`], unless the pass is outermost: its row
    /// twiddles, forward then inverse (see [`super::tables`]).
    pub tw_rows: *const u64,
    /// Null: no scaling.
    pub scale_hi: *const u64,
    /// Null: the scale is the constant `scale_hi[0]`.
    pub scale_lo: *const u64,
    pub log_n: u32,
    pub log_rem: u32,
    pub log_r: u32,
    pub valid: u32,
    pub out_len: u32,
    pub flags: u32,
}

/// `x` with its low `bits` bits reversed (higher bits must be zero,
/// `bits <= 31`). Branch-free: `bits = 0` shifts a value below 2^31 by 31.
#[inline(always)]
pub const fn bitrev(x: u32, bits: u32) -> u32 {
    (x.reverse_bits() >> 1) >> (31 - bits)
}

/// Fold every inter-pass twiddle into the stages of the later passes
/// instead of multiplying it in (a transform at the table layout's size
/// and split): passes other than the outermost run coset DFTs whose stage
/// twiddles `tw_rows` holds per row (forward then inverse, see
/// [`super::tables::row_twiddle_exponent`]), and no pass multiplies by
/// inter-pass twiddles. A DIF pass then costs `r/2` products per element
/// where it cost `r/2 + 1/4` (its last radix-4 phase was trivial, the
/// inter-pass product was one more).
pub const FLAG_ROW_TWIDDLES: u32 = 1024;

/// Entry `i` of the row twiddles of the pass `(log_rem, r)` of 2^`log_n`
/// transforms (see [`super::tables::RowJob`]), from `TW_LO`/`TW_HI`.
///
/// # Safety
/// `tw` must be the filled `TW_LO` table (followed by `TW_HI`).
#[inline(always)]
pub unsafe fn row_twiddle(tw: *const u64, log_n: u32, log_rem: u32, r: u32, i: u32, inverse: bool) -> Fr {
    let e = super::tables::row_twiddle_exponent(log_n, log_rem, r, i);
    root_power(tw, root_exponent(e, log_n, inverse), true)
}

/// `W^x` for the primitive 2^32-th root `W`; `full` must be set unless the
/// low 16 bits of `x` are zero.
#[inline(always)]
unsafe fn root_power(tw: *const u64, x: u32, full: bool) -> Fr {
    let hi = io::load_const(tw.add(4 * HALF as usize), x >> 16);
    if full {
        hi * io::load_const(tw, x & (HALF - 1))
    } else {
        hi
    }
}

/// The exponent `x` with `W^x = ψ_(2^log_len)^e` (`W` the primitive 2^32-th
/// root), `e < 2^log_len`, `1 <= log_len <= 32`.
#[inline(always)]
fn root_exponent(e: u32, log_len: u32, inverse: bool) -> u32 {
    // The shift is < 32: log_len >= 1.
    let x = e << (32 - log_len);
    if inverse {
        x.wrapping_neg()
    } else {
        x
    }
}

/// `ψ_(2^log_len)^e` with `e < 2^log_len`, `1 <= log_len <= 32`; from
/// the direct tables if `direct` and they hold that size.
#[inline(always)]
unsafe fn twiddle(tw: *const u64, e: u32, log_len: u32, inverse: bool, direct: bool) -> Fr {
    if direct && (DIRECT_MIN..=DIRECT_MAX).contains(&log_len) {
        return io::load_const(tw, direct_at(log_len, e, inverse));
    }
    root_power(tw, root_exponent(e, log_len, inverse), log_len > 16)
}

/// The twiddle of a radix-2 stage: `ψ_(2^log_len)^j` (or its inverse),
/// `j < 2^(log_len − 1)`, `log_len <= TILE_LOG`; from the dense stage
/// table when `dense`, which holds it as `ψ_1024^(j·2^(10 − log_len))`,
/// else from `TW_HI` as [`twiddle`] reads it (`log_len <= 16`: one entry).
/// One load either way, its index selected rather than branched on: a
/// branch would split a phase's straight-line code, keeping its
/// independent products from interleaving.
#[inline(always)]
unsafe fn stage_twiddle(tw: *const u64, j: u32, log_len: u32, inverse: bool, dense: bool) -> Fr {
    let dense_at = STAGE_FROM_TW + if inverse { STAGE_COUNT } else { 0 } + (j << (TILE_LOG - log_len));
    // root_power's TW_HI entry (log_len <= 16: the low half is zero).
    let composed_at = HALF + (root_exponent(j, log_len, inverse) >> 16);
    io::load_const(tw, if dense { dense_at } else { composed_at })
}

/// The scale factor of natural index `k`.
#[inline(always)]
unsafe fn scale(p: &Pass, k: u32) -> Fr {
    if p.scale_lo.is_null() {
        io::load_const(p.scale_hi, 0)
    } else {
        io::load_const(p.scale_hi, k >> 16) * io::load_const(p.scale_lo, k & (HALF - 1))
    }
}

/// Derived sizes of a pass (all log2 unless noted).
#[derive(Clone, Copy)]
struct Shape {
    log_tile: u32,
    /// Elements per tile (not log).
    tile: u32,
    r: u32,
    /// Columns per tile.
    log_c: u32,
    /// Column stride.
    log_s: u32,
}

impl Shape {
    #[inline(always)]
    fn of(p: &Pass) -> Self {
        let log_tile = if p.log_n < TILE_LOG {
            p.log_n
        } else {
            TILE_LOG
        };
        Shape {
            log_tile,
            tile: 1 << log_tile,
            r: p.log_r,
            log_c: log_tile - p.log_r,
            log_s: p.log_rem - p.log_r,
        }
    }

    /// Tile element `f` of block `blk` in the in-place mapping: its row,
    /// column (within the tile) and global position.
    #[inline(always)]
    fn place(&self, blk: u32, f: u32, log_rem: u32) -> (u32, u32, u32) {
        if self.log_c <= self.log_s {
            // Rows of C adjacent elements, S apart.
            let t = f >> self.log_c;
            let c = f & ((1 << self.log_c) - 1);
            let gc = blk << self.log_c;
            let outer = gc >> self.log_s;
            let low = (gc & ((1 << self.log_s) - 1)) | c;
            (t, c, (outer << log_rem) | (t << self.log_s) | low)
        } else {
            // The tile is one contiguous run of whole sub-transforms.
            let low = f & ((1 << self.log_s) - 1);
            let t = (f >> self.log_s) & ((1 << self.r) - 1);
            let outer = f >> (self.log_s + self.r);
            (t, (outer << self.log_s) | low, (blk << self.log_tile) | f)
        }
    }

    /// Scatter mode, reading: column `c` is sub-transform
    /// `bitrev(blk·C + c)`; `f` runs down columns (contiguous reads).
    #[inline(always)]
    fn scatter_src(&self, blk: u32, f: u32, log_n: u32) -> (u32, u32, u32) {
        let t = f & ((1 << self.r) - 1);
        let c = f >> self.r;
        let outer = bitrev((blk << self.log_c) | c, log_n - self.r);
        (t, c, (outer << self.r) | t)
    }

    /// Scatter mode, writing: `f` runs along rows; returns row, column and
    /// the natural index of the element.
    #[inline(always)]
    fn scatter_dst(&self, blk: u32, f: u32, log_n: u32) -> (u32, u32, u32) {
        let c = f & ((1 << self.log_c) - 1);
        let t = f >> self.log_c;
        (
            t,
            c,
            (bitrev(t, self.r) << (log_n - self.r)) | (blk << self.log_c) | c,
        )
    }
}

/// Runs pass `p` (DIT stages if `DIT`, else DIF) with `tile` as the block's
/// shared memory; with `FUSED`, then the other flavour's stages of the
/// same geometry (see the module docs).
///
/// # Safety
/// The buffers must be as the schedule in [`super::plan`] sets them up:
/// `data` (and `b`, `c`, `out` when flagged) hold `2^log_n` elements (`out`:
/// `out_len`), the tables are filled, and on the GPU the launch has
/// `2^(log_n - min(log_n, 10))` blocks of [`THREADS`] threads.
#[inline(always)]
pub unsafe fn run<const DIT: bool, const FUSED: bool, const ROWS: bool>(p: &Pass, tile: Tile) {
    let sh = Shape::of(p);
    // The flavour and direction of the stages that run last (and store).
    let last_dit = DIT != FUSED;
    let inverse = p.flags & FLAG_INVERSE != 0;
    let last_inverse = if FUSED { p.flags & FLAG_INVERSE2 != 0 } else { inverse };
    let scaled = !p.scale_hi.is_null();
    let scale_on_load = !FUSED && scaled && p.flags & FLAG_SCALE_ON_LOAD != 0;
    let scale_on_store = !FUSED && scaled && p.flags & FLAG_SCALE_ON_LOAD == 0;
    let pointwise = p.flags & FLAG_POINTWISE != 0;
    let scatter = !FUSED && !DIT && p.flags & FLAG_SCATTER != 0;
    let subtract = p.flags & FLAG_SUBTRACT_OUT != 0;
    let dense = p.flags & FLAG_STAGE_TABLE != 0;
    let direct = p.flags & FLAG_DIRECT_TWIDDLES != 0;
    let lazy_store = p.flags & FLAG_LAZY_STORE != 0;
    let radix4 = p.flags & FLAG_RADIX2 == 0;
    // Inter-pass twiddles: every pass but the innermost, unless folded
    // into the later passes' stages (every pass but the outermost).
    let twiddled = p.flags & FLAG_ROW_TWIDDLES == 0 && p.log_rem > sh.r;
    let low_mask = (1 << sh.log_s) - 1;

    // Tile element -> (row, column, global position) for loading and storing.
    let src = |blk: u32, f: u32| {
        if scatter {
            sh.scatter_src(blk, f, p.log_n)
        } else {
            sh.place(blk, f, p.log_rem)
        }
    };
    let dst = |blk: u32, f: u32| {
        if scatter {
            sh.scatter_dst(blk, f, p.log_n)
        } else {
            sh.place(blk, f, p.log_rem)
        }
    };
    // The inter-pass twiddle `ψ_(2^log_rem)^(low·bitrev(t))` of the
    // element at row `t`, tile column `c`.
    let inter_twiddle = |blk: u32, t: u32, c: u32, inverse: bool| {
        let low = ((blk << sh.log_c) | c) & low_mask;
        twiddle(p.tw, low * bitrev(t, sh.r), p.log_rem, inverse, direct)
    };

    for blk in block_ids(1 << (p.log_n - sh.log_tile)) {
        // Global -> tile. Each thread issues all its loads first, so they
        // are in flight together, and stores them raw (zero padding
        // applied). For tiles smaller than PER·THREADS the excess slots
        // reload an existing element and skip the store.
        for tid in threads() {
            // Lazily: the previous pass of the transform may have stored so.
            let mut vals = [FrLazy::from_mont(Fr::ZERO); PER];
            unrolled_for!(k in 0..PER => {
                let (_, _, pos) = src(blk, (tid + k as u32 * THREADS) & (sh.tile - 1));
                vals[k] = io::load_lazy(p.data, pos);
            });
            unrolled_for!(k in 0..PER => {
                let f = tid + k as u32 * THREADS;
                if f < sh.tile {
                    let (t, c, pos) = src(blk, f);
                    let v = if pos < p.valid { vals[k] } else { FrLazy::from_mont(Fr::ZERO) };
                    tile.store((t << sh.log_c) | c, &v);
                }
            });
        }
        // The input-side extras.
        if (!FUSED && pointwise) || scale_on_load || (DIT && twiddled) {
            update_own(tile, sh, |f| src(blk, f), |t, c, pos, mut v| {
                if !FUSED && pointwise && pos < p.valid {
                    v = product(p, v, pos);
                }
                if scale_on_load {
                    // Natural index: DIF input is natural, DIT input bit-reversed.
                    let k = if DIT { bitrev(pos, p.log_n) } else { pos };
                    v = v * scale(p, k);
                }
                if DIT && twiddled {
                    v = v * inter_twiddle(blk, t, c, inverse);
                }
                v
            });
        }
        sync();
        // Separate kernels (ROWS) keep the coset stages' registers out of
        // the other passes' allocation.
        if ROWS {
            row_stages(tile, sh, DIT, radix4, Rows::new(p, sh, blk, inverse, scatter));
        } else {
            stages(p, tile, sh, DIT, inverse, dense, radix4);
        }

        if FUSED {
            // The middle extras, between the two halves' stages: the first
            // half's output is in place, so positions are as loaded.
            if scaled || pointwise {
                update_own(tile, sh, |f| sh.place(blk, f, p.log_rem), |_, _, pos, mut v| {
                    if scaled {
                        // The finished first transform's natural index.
                        let k = if DIT { pos } else { bitrev(pos, p.log_n) };
                        v = v * scale(p, k);
                    }
                    if pointwise {
                        v = product(p, v, pos);
                    }
                    v
                });
                sync();
            }
            if ROWS {
                row_stages(tile, sh, last_dit, radix4, Rows::new(p, sh, blk, last_inverse, scatter));
            } else {
                stages(p, tile, sh, last_dit, last_inverse, dense, radix4);
            }
        }

        // Tile -> global, with the output-side extras. (A loop with a
        // runtime trip count: unrolled, the twiddle and scale lookups of
        // all elements would be hoisted and cost registers, i.e. occupancy.)
        for tid in threads() {
            let mut f = tid;
            while f < sh.tile {
                let (t, c, pos) = dst(blk, f);
                let lazy = tile.load((t << sh.log_c) | c);
                if lazy_store {
                    // Read back only by the transform's next pass (no
                    // scale, scatter or subtraction here: see the plan).
                    let v = if !last_dit && twiddled { lazy * inter_twiddle(blk, t, c, last_inverse) } else { lazy };
                    io::store_lazy(p.data, pos, &v);
                    f += THREADS;
                    continue;
                }
                // Reduced here: what other steps read is fully reduced.
                let mut v = if !last_dit && twiddled {
                    lazy.mul_reduce(inter_twiddle(blk, t, c, last_inverse))
                } else {
                    lazy.reduce()
                };
                if scatter {
                    if pos < p.out_len {
                        if scale_on_store {
                            // `pos` is the natural index.
                            v = v * scale(p, pos);
                        }
                        if subtract {
                            v = v - io::load(p.out, pos);
                        }
                        io::store(p.out, pos, &v);
                    }
                } else {
                    if scale_on_store {
                        // Natural index: DIF output is bit-reversed, DIT natural.
                        let k = if last_dit { pos } else { bitrev(pos, p.log_n) };
                        v = v * scale(p, k);
                    }
                    io::store(p.data, pos, &v);
                }
                f += THREADS;
            }
        }
        // The next block (host only) reuses the tile.
        sync();
    }
}

/// Replaces each of the calling thread's own tile elements `v` by
/// `op(row, column, position, v)`, `place` mapping tile element `f` to its
/// row, column and global position. Only the thread's own elements, so no
/// barrier is needed; one at a time: unrolled, the table lookups of all
/// elements would be hoisted and cost registers, i.e. occupancy.
#[inline(always)]
unsafe fn update_own(
    tile: Tile,
    sh: Shape,
    place: impl Fn(u32) -> (u32, u32, u32),
    mut op: impl FnMut(u32, u32, u32, FrLazy) -> FrLazy,
) {
    for tid in threads() {
        let mut f = tid;
        while f < sh.tile {
            let (t, c, pos) = place(f);
            let i = (t << sh.log_c) | c;
            tile.store(i, &op(t, c, pos, tile.load(i)));
            f += THREADS;
        }
    }
}

/// `v · b[pos]`, minus `c[pos]` unless `c` is null.
#[inline(always)]
unsafe fn product(p: &Pass, v: FrLazy, pos: u32) -> FrLazy {
    let v = v * io::load(p.b, pos);
    if p.c.is_null() {
        v
    } else {
        v - io::load(p.c, pos).into()
    }
}

/// The pass's `r` radix-2 stages of one flavour (a butterfly's column is
/// its index's low `log_c` bits), each phase followed by a barrier. Two
/// consecutive stages run as one radix-4 phase (each thread takes the four
/// elements both stages pair among themselves) if `radix4`: half the
/// barriers and shared-memory round trips. With r odd the lone radix-2
/// stage is the one of the widest half-span (DIF: first, DIT: last), so
/// that the stages of half-spans 2 and 1 pair into a trivial radix-4
/// phase (one product per four elements): 3.75 products per element for
/// r = 9 where a trivial lone stage of half-span 1 leaves four non-trivial
/// radix-4 phases (4).
///
/// Trivial twiddles (index `j = 0`, the value 1) are skipped only where
/// every thread has `j = 0` (half-span 1, `TRIVIAL`): elsewhere the lanes
/// of a warp mix `j = 0` with `j != 0` (a warp spans 8 or 16 rows at 2^24
/// and 2^27), so the warp pays for the product anyway, and a branch around
/// it only keeps the phase's independent products from interleaving.
#[inline(always)]
unsafe fn stages(p: &Pass, tile: Tile, sh: Shape, dit: bool, inverse: bool, dense: bool, radix4: bool) {
    let mut st = 0;
    while st < sh.r {
        // Half-span (in rows) of this stage: DIF halves it, DIT doubles it.
        let log_m = if dit { st } else { sh.r - 1 - st };
        let pair = radix4 && sh.r - st >= 2 && (dit || st > 0 || sh.r % 2 == 0);
        if pair {
            // Stages of half-spans 2h and h (DIF) or h and 2h (DIT).
            let log_h = if dit { log_m } else { log_m - 1 };
            match (dit, log_h == 0) {
                (true, true) => radix4_phase::<true, true>(p, tile, sh, log_h, inverse, dense),
                (true, false) => radix4_phase::<true, false>(p, tile, sh, log_h, inverse, dense),
                (false, true) => radix4_phase::<false, true>(p, tile, sh, log_h, inverse, dense),
                (false, false) => radix4_phase::<false, false>(p, tile, sh, log_h, inverse, dense),
            }
            st += 2;
        } else {
            match (dit, log_m == 0) {
                (true, true) => radix2_phase::<true, true>(p, tile, sh, log_m, inverse, dense),
                (true, false) => radix2_phase::<true, false>(p, tile, sh, log_m, inverse, dense),
                (false, true) => radix2_phase::<false, true>(p, tile, sh, log_m, inverse, dense),
                (false, false) => radix2_phase::<false, false>(p, tile, sh, log_m, inverse, dense),
            }
            st += 1;
        }
        sync();
    }
}

/// One radix-2 stage of half-span `2^log_m` rows over the tile; `TRIVIAL`
/// iff `log_m = 0` (every twiddle is 1).
#[inline(always)]
unsafe fn radix2_phase<const DIT: bool, const TRIVIAL: bool>(p: &Pass, tile: Tile, sh: Shape, log_m: u32, inverse: bool, dense: bool) {
    let col_mask = (1 << sh.log_c) - 1;
    let half = sh.tile >> 1;
    for tid in threads() {
        let mut b = tid;
        while b < half {
            let c = b & col_mask;
            let q = b >> sh.log_c;
            let j = q & ((1 << log_m) - 1);
            let t0 = ((q >> log_m) << (log_m + 1)) | j;
            let i0 = (t0 << sh.log_c) | c;
            let i1 = ((t0 + (1 << log_m)) << sh.log_c) | c;
            let u = tile.load(i0);
            let mut v = tile.load(i1);
            if DIT {
                if !TRIVIAL {
                    v = v * stage_twiddle(p.tw, j, log_m + 1, inverse, dense);
                }
                tile.store(i0, &(u + v));
                tile.store(i1, &(u - v));
            } else {
                let mut d = u - v;
                if !TRIVIAL {
                    d = d * stage_twiddle(p.tw, j, log_m + 1, inverse, dense);
                }
                tile.store(i0, &(u + v));
                tile.store(i1, &d);
            }
            b += THREADS;
        }
    }
}

/// Two radix-2 stages, of half-spans `2h` and `h = 2^log_h` rows (DIF
/// order; DIT runs them the other way round), as one radix-4 step per
/// group of rows `t0 + {0, h, 2h, 3h}`: the same products as two radix-2
/// phases, one shared-memory round trip and barrier fewer. `TRIVIAL` iff
/// `h = 1` (`j = 0` everywhere: the products by 1 are skipped).
#[inline(always)]
unsafe fn radix4_phase<const DIT: bool, const TRIVIAL: bool>(p: &Pass, tile: Tile, sh: Shape, log_h: u32, inverse: bool, dense: bool) {
    let col_mask = (1 << sh.log_c) - 1;
    let quarter = sh.tile >> 2;
    let h = 1u32 << log_h;
    for tid in threads() {
        let mut b = tid;
        while b < quarter {
            let c = b & col_mask;
            let q = b >> sh.log_c;
            let j = q & (h - 1);
            let t0 = ((q >> log_h) << (log_h + 2)) | j;
            let at = |k: u32| ((t0 + k * h) << sh.log_c) | c;
            // Span-2h twiddles of rows t0 (index j) and t0 + h (index j + h),
            // span-h twiddle of both pairs (index j). Written so that few
            // values are live at once: every element is stored as soon as
            // it is final (registers are occupancy here).
            let wide = |e: u32| stage_twiddle(p.tw, e, log_h + 2, inverse, dense);
            let narrow = || stage_twiddle(p.tw, j, log_h + 1, inverse, dense);
            if DIT {
                let w = if TRIVIAL { Fr::ONE } else { narrow() };
                let twiddle = |v: FrLazy| if TRIVIAL { v } else { v * w };
                let (x0, x1) = (tile.load(at(0)), twiddle(tile.load(at(1))));
                let (a0, a1) = (x0 + x1, x0 - x1);
                let (x2, x3) = (tile.load(at(2)), twiddle(tile.load(at(3))));
                let (a2, a3) = (x2 + x3, x2 - x3);
                let b2 = if TRIVIAL { a2 } else { a2 * wide(j) };
                tile.store(at(0), &(a0 + b2));
                tile.store(at(2), &(a0 - b2));
                let b3 = a3 * wide(j + h);
                tile.store(at(1), &(a1 + b3));
                tile.store(at(3), &(a1 - b3));
            } else {
                let (x0, x2) = (tile.load(at(0)), tile.load(at(2)));
                let a0 = x0 + x2;
                let a2 = if TRIVIAL { x0 - x2 } else { (x0 - x2) * wide(j) };
                let (x1, x3) = (tile.load(at(1)), tile.load(at(3)));
                let a1 = x1 + x3;
                let a3 = (x1 - x3) * wide(j + h);
                tile.store(at(0), &(a0 + a1));
                tile.store(at(2), &(a2 + a3));
                let (d1, d3) = (a0 - a1, a2 - a3);
                if !TRIVIAL {
                    let w = narrow();
                    tile.store(at(1), &(d1 * w));
                    tile.store(at(3), &(d3 * w));
                } else {
                    tile.store(at(1), &d1);
                    tile.store(at(3), &d3);
                }
            }
            b += THREADS;
        }
    }
}

/// The stages of the columns' coset DFTs ([`FLAG_ROW_TWIDDLES`]), paired
/// into radix-4 phases as [`stages`] pairs them: one product per
/// butterfly everywhere, its twiddle set by the butterfly's block of rows
/// rather than its row.
#[inline(always)]
unsafe fn row_stages(tile: Tile, sh: Shape, dit: bool, radix4: bool, rows: Rows) {
    if dit {
        row_stages_of::<true>(tile, sh, radix4, rows)
    } else {
        row_stages_of::<false>(tile, sh, radix4, rows)
    }
}

/// [`row_stages`] of one flavour. The lone radix-2 stage of an odd `r`
/// runs outside the loop of radix-4 phases: in one loop with it, the
/// DIF pass needed 88 registers instead of 70.
#[inline(always)]
unsafe fn row_stages_of<const DIT: bool>(tile: Tile, sh: Shape, radix4: bool, rows: Rows) {
    // Half-span (in rows) of stage `st`: DIF halves it, DIT doubles it.
    let log_m = |st: u32| if DIT { st } else { sh.r - 1 - st };
    if !radix4 {
        for st in 0..sh.r {
            radix2_rows_phase::<DIT>(tile, sh, log_m(st), rows);
            sync();
        }
        return;
    }
    let lone = sh.r % 2 == 1;
    let mut st = 0;
    if !DIT && lone {
        radix2_rows_phase::<false>(tile, sh, log_m(0), rows);
        sync();
        st = 1;
    }
    while st + 2 <= sh.r {
        // Half-spans 2h and h, h = 2^log_h.
        let log_h = if DIT { st } else { sh.r - 2 - st };
        radix4_rows_phase::<DIT>(tile, sh, log_h, rows);
        sync();
        st += 2;
    }
    if DIT && lone {
        radix2_rows_phase::<true>(tile, sh, log_m(sh.r - 1), rows);
        sync();
    }
}

/// Where a pass's columns find their row twiddles ([`FLAG_ROW_TWIDDLES`]).
#[derive(Clone, Copy)]
struct Rows {
    /// The pass's table for the direction.
    table: *const u64,
    /// Global index of the tile's first column.
    first_col: u32,
    log_s: u32,
    /// Scatter: column `c` is sub-transform `bitrev(first_col + c)` over
    /// `outer_bits` bits.
    scatter: bool,
    outer_bits: u32,
}

impl Rows {
    #[inline(always)]
    unsafe fn new(p: &Pass, sh: Shape, blk: u32, inverse: bool, scatter: bool) -> Self {
        let per_direction = 1usize << (p.log_n - p.log_rem + sh.r);
        Rows {
            table: p.tw_rows.add(if inverse { 4 * per_direction } else { 0 }),
            first_col: blk << sh.log_c,
            log_s: sh.log_s,
            scatter,
            outer_bits: p.log_n - p.log_rem,
        }
    }

    /// Index of the first entry of tile column `c`'s row of twiddles.
    #[inline(always)]
    fn base(&self, c: u32, r: u32) -> u32 {
        let col = self.first_col | c;
        let outer = if self.scatter { bitrev(col, self.outer_bits) } else { col >> self.log_s };
        outer << r
    }

    /// The twiddle of stage `s`'s block `b` in the row from `base`.
    #[inline(always)]
    unsafe fn at(&self, base: u32, s: u32, b: u32) -> Fr {
        io::load_const(self.table, base + (1 << s) + b)
    }
}

/// Butterfly group `b` of a coset phase whose group members are
/// `2^log_span` rows apart in blocks of `2^log_block` rows: its tile
/// column, its block (at the phase's wider stage) and its first row.
#[inline(always)]
fn rows_group(sh: Shape, b: u32, log_span: u32, log_block: u32) -> (u32, u32, u32) {
    let c = b & ((1 << sh.log_c) - 1);
    let q = b >> sh.log_c;
    let j = q & ((1 << log_span) - 1);
    let block = q >> log_span;
    (c, block, (block << log_block) | j)
}

/// A coset stage of half-span `2^log_m` rows: DIF `(u + c·v, u − c·v)`,
/// DIT (its transpose) `(u + v, (u − v)·c)`, `c` the twiddle of the block.
#[inline(always)]
unsafe fn radix2_rows_phase<const DIT: bool>(tile: Tile, sh: Shape, log_m: u32, rows: Rows) {
    let half = sh.tile >> 1;
    let s = sh.r - 1 - log_m;
    for tid in threads() {
        let mut b = tid;
        while b < half {
            let (c, block, t0) = rows_group(sh, b, log_m, log_m + 1);
            let i0 = (t0 << sh.log_c) | c;
            let i1 = ((t0 + (1 << log_m)) << sh.log_c) | c;
            let w = rows.at(rows.base(c, sh.r), s, block);
            let u = tile.load(i0);
            let v = tile.load(i1);
            if DIT {
                tile.store(i0, &(u + v));
                tile.store(i1, &((u - v) * w));
            } else {
                let t = v * w;
                tile.store(i0, &(u + t));
                tile.store(i1, &(u - t));
            }
            b += THREADS;
        }
    }
}

/// Two coset stages, of half-spans `2h` and `h = 2^log_h` rows (DIF order;
/// DIT runs their transposes the other way round), as one radix-4 step
/// per group of rows `t0 + {0, h, 2h, 3h}`: four products.
#[inline(always)]
unsafe fn radix4_rows_phase<const DIT: bool>(tile: Tile, sh: Shape, log_h: u32, rows: Rows) {
    let quarter = sh.tile >> 2;
    let h = 1u32 << log_h;
    // DIF index of the wider stage.
    let s = sh.r - 2 - log_h;
    for tid in threads() {
        let mut b = tid;
        while b < quarter {
            let (c, block, t0) = rows_group(sh, b, log_h, log_h + 2);
            let at = |k: u32| ((t0 + k * h) << sh.log_c) | c;
            let base = rows.base(c, sh.r);
            // The wider stage's block, then its two halves in the narrower.
            let wide = || rows.at(base, s, block);
            let narrow = |k: u32| rows.at(base, s + 1, 2 * block + k);
            // Ordered so that at most four values are live at once (besides
            // a product's own temporaries): registers are occupancy here.
            if DIT {
                let (x0, x1) = (tile.load(at(0)), tile.load(at(1)));
                let (a0, a1) = (x0 + x1, (x0 - x1) * narrow(0));
                let (x2, x3) = (tile.load(at(2)), tile.load(at(3)));
                let a2 = x2 + x3;
                tile.store(at(0), &(a0 + a2));
                let d02 = a0 - a2;
                let a3 = (x2 - x3) * narrow(1);
                tile.store(at(1), &(a1 + a3));
                let d13 = a1 - a3;
                let w = wide();
                tile.store(at(2), &(d02 * w));
                tile.store(at(3), &(d13 * w));
            } else {
                let w = wide();
                let (x1, x3) = (tile.load(at(1)), tile.load(at(3)));
                let t = x3 * w;
                let (a1, a3) = (x1 + t, x1 - t);
                let t1 = a1 * narrow(0);
                let t3 = a3 * narrow(1);
                let t = tile.load(at(2)) * w;
                let x0 = tile.load(at(0));
                let (a0, a2) = (x0 + t, x0 - t);
                tile.store(at(0), &(a0 + t1));
                tile.store(at(1), &(a0 - t1));
                tile.store(at(2), &(a2 + t3));
                tile.store(at(3), &(a2 - t3));
            }
            b += THREADS;
        }
    }
}
