//! From bucket sums to the result.
//!
//! Window `w` has buckets `B_k`, `k = 1..=H` (`H = 2^(c−1)`, key
//! `w·H + k − 1`), and contributes `S_w = Σ_k k·B_k`. Its buckets are split
//! into `G = 2^g` segments of `M = H / G`; segment `j` covers
//! `k ∈ [jM + 1, jM + M]`. One thread per segment computes the running sums
//! from the top bucket down, then adds them up:
//!
//! ```text
//! R_k = Σ_{k ≤ k' ≤ jM+M} B_k'          (stored over B_k)
//! T_j = R_{jM+1} = Σ_seg B_k,   U_j = Σ_seg R_k = Σ_seg (k − jM)·B_k
//! ```
//!
//! Since `k = (k − jM) + jM`:
//!
//! ```text
//! S_w = Σ_j U_j + Σ_j jM·T_j = Σ_j U_j + 2^(c−1−g) · Σ_j j·T_j
//! ```
//!
//! and `Σ_j j·T_j = Σ_{j ≥ 1} R'_j` with `R'_j = Σ_{j' ≥ j} T_j'` is again a
//! running sum, done by one thread per window, which then doubles `S_w`
//! `c·w` times. A last single thread adds the windows and the ones bucket
//! and converts to Jacobian (blst layout).
//!
//! Each running sum is written out and summed in a second loop rather than
//! kept next to its weighted sum: then every loop holds one accumulator and
//! one loaded point, which keeps the G2 kernels (96 registers per XYZZ
//! point) within the register file.

use crate::ec::{CurveConfig, Jacobian, Xyzz};
use crate::gpu::grid::indices;
use crate::mem::Limbs;

#[inline(always)]
fn xyzz_limbs<C: CurveConfig>() -> usize {
    <Xyzz<C> as Limbs>::LIMBS
}

/// Bucket `key`'s sum, or the identity when it received no entry (such
/// buckets are never written).
#[inline(always)]
unsafe fn bucket<C: CurveConfig>(sums: *const u64, starts: *const u32, key: u32) -> Xyzz<C> {
    let k = key as usize;
    if *starts.add(k + 1) == *starts.add(k) {
        Xyzz::IDENTITY
    } else {
        Xyzz::load(sums.add(k * xyzz_limbs::<C>()))
    }
}

/// One thread per (window, segment), `windows << seg_log` threads: replaces
/// the window buckets by their in-segment running sums `R_k` (empty buckets
/// included, so every window key of `sums` is written afterwards) and
/// writes `U_j` then `T_j` (two XYZZ points) at `seg + 2·t·XYZZ` for
/// `t = w·G + j`.
///
/// # Safety
/// `sums`, `starts` as produced by accumulation and the scan; `seg` holds
/// `2 · windows · 2^seg_log` points; `seg_log ≤ c − 1`.
#[inline(always)]
pub unsafe fn segments<C: CurveConfig>(
    sums: *mut u64,
    starts: *const u32,
    c: u32,
    windows: u32,
    seg_log: u32,
    seg: *mut u64,
) {
    let limbs = xyzz_limbs::<C>();
    let m_log = c - 1 - seg_log;
    for t in indices(windows << seg_log) {
        // Key of the segment's lowest bucket: w·H + j·M, which is t·M.
        let low = t << m_log;
        let m = 1usize << m_log;
        let mut running = Xyzz::<C>::IDENTITY;
        let mut q = m;
        while q > 0 {
            q -= 1;
            running = running.add(&bucket::<C>(sums, starts, (low + q) as u32));
            running.store(sums.add((low + q) * limbs));
        }
        running.store(seg.add((2 * t + 1) * limbs));
        // A thread reads back its own writes: program order suffices.
        let mut weighted = Xyzz::<C>::IDENTITY;
        for q in 0..m {
            weighted = weighted.add(&Xyzz::load(sums.add((low + q) * limbs)));
        }
        weighted.store(seg.add(2 * t * limbs));
    }
}

/// One thread per window: `2^(c·w) · S_w` to `win + w·XYZZ`; the `T_j`
/// slots of `seg` are overwritten by their running sums.
///
/// # Safety
/// `seg` as written by [`segments`] with the same `c`, `windows`, `seg_log`;
/// `win` holds `windows` points.
#[inline(always)]
pub unsafe fn combine<C: CurveConfig>(
    seg: *mut u64,
    c: u32,
    windows: u32,
    seg_log: u32,
    win: *mut u64,
) {
    let limbs = xyzz_limbs::<C>();
    let g = 1usize << seg_log;
    for w in indices(windows) {
        let u = |j: usize| seg.add(2 * (w * g + j) * limbs);
        let t = |j: usize| seg.add((2 * (w * g + j) + 1) * limbs);
        // R'_j = Σ_{j' ≥ j} T_j', for j = G−1 … 1, stored over T_j.
        let mut running = Xyzz::<C>::IDENTITY;
        let mut j = g;
        while j > 1 {
            j -= 1;
            running = running.add(&Xyzz::load(t(j)));
            running.store(t(j));
        }
        // Σ_j j·T_j = Σ_{j ≥ 1} R'_j, times M = 2^(c−1−g).
        let mut acc = Xyzz::<C>::IDENTITY;
        for j in 1..g {
            acc = acc.add(&Xyzz::load(t(j)));
        }
        for _ in 0..c - 1 - seg_log {
            acc = acc.double();
        }
        for j in 0..g {
            acc = acc.add(&Xyzz::load(u(j)));
        }
        for _ in 0..c * w as u32 {
            acc = acc.double();
        }
        acc.store(win.add(w * limbs));
    }
}

/// One thread: `Σ_w win[w] + B_ones`, stored as a Jacobian point (blst
/// `blst_p1`/`blst_p2` layout) at `out`.
///
/// # Safety
/// `win` holds `windows` points; `sums`/`starts` as for [`segments`];
/// `out` has room for one Jacobian point.
#[inline(always)]
pub unsafe fn finish<C: CurveConfig>(
    win: *const u64,
    windows: u32,
    sums: *const u64,
    starts: *const u32,
    ones_key: u32,
    out: *mut u64,
) {
    let limbs = xyzz_limbs::<C>();
    for _ in indices(1) {
        let mut acc = bucket::<C>(sums, starts, ones_key);
        for w in 0..windows as usize {
            acc = acc.add(&Xyzz::load(win.add(w * limbs)));
        }
        let result: Jacobian<C> = acc.to_jacobian();
        result.store(out);
    }
}
