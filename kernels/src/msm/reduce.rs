//! From bucket sums to the result.
//!
//! Window `w` has buckets `B_q`, `q = 0..H−1` (`H = 2^(c−1)`, digit
//! `q + 1`, key `w·H + q`), and contributes `S_w = Σ_q (q + 1)·B_q`. That
//! weighted sum is built by a tree of *merge* levels, every level one
//! launch with one thread per output, so the serial chain per thread is
//! short and the GPU is full from the first level on (the previous design,
//! one thread per window segment, ran 2048 threads with 512 dependent
//! additions each and took longer than all bucket accumulation at 2^20).
//!
//! A *segment* of `M = 2^m` consecutive buckets starting at `a` is
//! summarised by two points:
//!
//! ```text
//! T = Σ_{a ≤ q < a+M} B_q,   U = Σ_{a ≤ q < a+M} (q − a)·B_q.
//! ```
//!
//! A single bucket is a segment with `T = B_q`, `U = 0`. A level merges
//! `F = 2^f` adjacent segments `i = 0..F−1` (each of `2^m` buckets) into one
//! of `2^(m+f)`, since `q − a = (q − a_i) + i·2^m`:
//!
//! ```text
//! T = Σ_i T_i,   U = Σ_i U_i + 2^m · Σ_i i·T_i,   Σ_i i·T_i = Σ_{i ≥ 1} R_i
//! ```
//!
//! with running sums `R_i = Σ_{i' ≥ i} T_i'` (so `T = R_0`). After the last
//! level each window is one segment of all `H` buckets and `S_w = U + T`;
//! the window thread doubles it as often as the window's first bit says
//! (`c·w` with windows of one width), and a last single thread adds the
//! windows and the ones bucket. A narrow window's upper half of buckets
//! holds the identity, which an addition passes through cheaply.
//!
//! Per output a thread walks its `F` inputs three times (running sums,
//! stored over the `T_i`; their sum; the `U_i`), so every loop holds one
//! accumulator and one loaded point, which keeps the G2 kernels (96
//! registers per XYZZ point) within the register file.

use super::digits::WindowLayout;
use crate::ec::{CurveConfig, Jacobian, Xyzz};
use crate::gpu::grid::indices;
use crate::mem::Limbs;

#[inline(always)]
fn xyzz_limbs<C: CurveConfig>() -> usize {
    <Xyzz<C> as Limbs>::LIMBS
}

/// Bucket `key`'s sum. Every key is read: the sums start at the identity
/// and accumulation starts each bucket from its sum (`accumulate`), so a
/// bucket without entries holds the identity, and one carried through an
/// MSM's calls holds all of them.
#[inline(always)]
unsafe fn bucket<C: CurveConfig>(sums: *const u64, key: u32) -> Xyzz<C> {
    Xyzz::load(sums.add(key as usize * xyzz_limbs::<C>()))
}

/// One merge level, one thread per output segment (`outputs` of them,
/// window-major): output `o` merges inputs `o·2^f … o·2^f + 2^f − 1`, each
/// a segment of `2^in_m_log` buckets, and writes `(U, T)` to
/// `out + 2·o·XYZZ`.
///
/// The first level (`first_level != 0`) reads bucket sums (`input` holds
/// one XYZZ per key, `U_i = 0`); later levels read the `(U, T)` pairs of
/// the level before. Running sums are written over the input's `T` slots.
///
/// # Safety
/// `input` holds `outputs · 2^f` inputs of the described kind, `out` room
/// for `2 · outputs` points.
#[inline(always)]
pub unsafe fn merge<C: CurveConfig>(
    input: *mut u64,
    first_level: u32,
    in_m_log: u32,
    fan_log: u32,
    outputs: u32,
    out: *mut u64,
) {
    let limbs = xyzz_limbs::<C>();
    let buckets = first_level != 0;
    let fan = 1usize << fan_log;
    let t_at = |i: usize| {
        if buckets {
            input.add(i * limbs)
        } else {
            input.add((2 * i + 1) * limbs)
        }
    };
    for o in indices(outputs) {
        let first = o << fan_log;
        let mut running = Xyzz::<C>::IDENTITY;
        let mut q = fan;
        while q > 0 {
            q -= 1;
            let t = if buckets {
                bucket::<C>(input, (first + q) as u32)
            } else {
                Xyzz::load(t_at(first + q))
            };
            running = running.add(&t);
            running.store(t_at(first + q));
        }
        running.store(out.add((2 * o + 1) * limbs));
        // A thread reads back its own writes: program order suffices.
        let mut acc = Xyzz::<C>::IDENTITY;
        for q in 1..fan {
            acc = acc.add(&Xyzz::load(t_at(first + q)));
        }
        for _ in 0..in_m_log {
            acc = acc.double();
        }
        if !buckets {
            for q in 0..fan {
                acc = acc.add(&Xyzz::load(input.add(2 * (first + q) * limbs)));
            }
        }
        acc.store(out.add(2 * o * limbs));
    }
}

/// One thread per window (bucket set): `2^start(w) · (U_w + T_w)` to `win +
/// w·XYZZ`, from the last merge level's one `(U, T)` pair per window at
/// `top`. `sets` lays the weights out: one window per set without tables
/// (a [`WindowLayout`] as the digits were cut); with tables `c` is the
/// window bits times the windows per set, every set as wide.
///
/// # Safety
/// `top` holds `2 · sets.windows` points, `win` room for as many.
#[inline(always)]
pub unsafe fn windows<C: CurveConfig>(top: *const u64, sets: WindowLayout, win: *mut u64) {
    let limbs = xyzz_limbs::<C>();
    for w in indices(sets.windows) {
        let sum =
            Xyzz::<C>::load(top.add(2 * w * limbs)).add(&Xyzz::load(top.add((2 * w + 1) * limbs)));
        // The longest serial chain of the MSM (the top window's start in
        // doublings): Jacobian doublings cost 6 products instead of 9.
        let mut acc = sum.to_jacobian();
        for _ in 0..sets.start(w as u32) {
            acc = acc.double();
        }
        Xyzz::from_jacobian(&acc).store(win.add(w * limbs));
    }
}

/// One thread: `Σ_w win[w] + B_ones`, stored as a Jacobian point (blst
/// `blst_p1`/`blst_p2` layout) at `out`.
///
/// # Safety
/// `win` holds `windows` points, `sums` the bucket sums; `out` has room for
/// one Jacobian point.
#[inline(always)]
pub unsafe fn finish<C: CurveConfig>(
    win: *const u64,
    windows: u32,
    sums: *const u64,
    ones_key: u32,
    out: *mut u64,
) {
    let limbs = xyzz_limbs::<C>();
    for _ in indices(1) {
        let mut acc = bucket::<C>(sums, ones_key);
        for w in 0..windows as usize {
            acc = acc.add(&Xyzz::load(win.add(w * limbs)));
        }
        let result: Jacobian<C> = acc.to_jacobian();
        result.store(out);
    }
}
