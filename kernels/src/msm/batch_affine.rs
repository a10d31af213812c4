//! The first accumulation level with batch-affine additions.
//!
//! An affine addition `A + P` needs `1 / (x_P − x_A)`. Montgomery's trick
//! shares one inversion among many independent additions: multiply the
//! denominators together, invert the product once, and walk back,
//! recovering each inverse with two multiplications. An addition then costs
//! 5 M + 1 S plus its share of the inversion, against about 8 M + 2 S and
//! more registers for an XYZZ mixed addition.
//!
//! Additions within one bucket's run depend on each other, so a thread
//! cannot batch them. It takes a *group* of `per_thread` consecutive
//! chunks of `chunk` sorted entries instead, the *streams*, and steps them
//! in lockstep: step `i` adds entry `i` of every stream to that stream's
//! affine accumulator, so one step's additions touch different
//! accumulators and share one inversion, whose cost is spread over
//! `per_thread` additions. A run that ends inside a stream, after its first
//! run, is a whole bucket and is stored as its sum (XYZZ with `ZZ = ZZZ =
//! 1`). At the end the thread merges the streams' first and last runs in
//! order, as a later level would: runs bounded inside the group are stored,
//! and the group's first and last runs go to the next level as items `2g`,
//! `2g + 1`, exactly as [`super::accumulate::level0`] does for a chunk of
//! `per_thread · chunk` entries. So the next level sees one pair of items
//! per group, not per stream.
//!
//! The streams' state cannot live in registers. Each launched thread owns a
//! slice of four scratch arrays: the accumulators and the first runs' sums
//! (affine), the exclusive prefix products of the step's denominators, and
//! a `u32` of state per stream (bucket key, flags, the step's pending
//! operation). The slice is indexed by the launched thread, so the launch
//! may have fewer threads than there are groups (a grid-stride loop goes
//! over them).
//!
//! Special cases never enter the batch: an identity base changes nothing, an
//! empty accumulator takes the point, and `P = −A` empties it. `P = A`
//! enters as a doubling (denominator `2y`).

use super::accumulate::{bucket_of, emit, xyzz_limbs};
use super::{EMPTY, NEG, SENTINEL};
use crate::ec::{Affine, CurveConfig, Xyzz};
use crate::ff::Field;
use crate::gpu::grid::{first_index_and_stride, indices};
use crate::mem::Limbs;

/// The stream's first run has not ended yet.
const FIRST: u32 = 1 << 31;
/// The stream's accumulator is the identity (its memory is not read).
const EMPTY_ACC: u32 = 1 << 30;
/// Two bits: what the current step left for the backward pass.
const OP_SHIFT: u32 = 28;
const OP_MASK: u32 = 3 << OP_SHIFT;
const OP_ADD: u32 = 1 << OP_SHIFT;
const OP_DOUBLE: u32 = 2 << OP_SHIFT;
/// The bucket key of the stream's current run (`n_keys ≤ 2^25 + 1`).
const KEY_BITS: u32 = (1 << OP_SHIFT) - 1;

/// Level 0 over `streams` chunks of `chunk` sorted entries in groups of
/// `per_thread`. Outputs as [`super::accumulate::level0`] with chunks of
/// `per_thread · chunk` entries: items `2g`, `2g + 1` for group `g`.
///
/// `acc`, `first`, `prefix` and `state` hold `per_thread` accumulators and
/// first-run sums (affine limbs), prefix products (base-field limbs) and
/// states per launched thread, indexed by the launched thread's global
/// index.
///
/// # Safety
/// Buffers as for `level0`; the scratch as described for the launch's
/// grid; `per_thread ≥ 1`; `streams · chunk` must not overflow `u32`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn level0<C: CurveConfig>(
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
    let affine_limbs = <Affine<C> as Limbs>::LIMBS;
    let base_limbs = <C::Base as Limbs>::LIMBS;
    // Never zero (the plan's streams are at least 1): no division panic path.
    let per_thread = per_thread.max(1);
    let k = per_thread as usize;
    let (id, _) = first_index_and_stride();
    let acc_of = |j: usize| acc.add((id * k + j) * affine_limbs);
    let first_of = |j: usize| first.add((id * k + j) * affine_limbs);
    let prefix_of = |j: usize| prefix.add((id * k + j) * base_limbs);
    let state_of = |j: usize| state.add(id * k + j);
    let point = |p: u32| {
        let e = *entries.add(p as usize);
        let base = Affine::<C>::load_readonly(bases.add((e & !NEG) as usize * affine_limbs));
        if e & NEG != 0 {
            base.neg()
        } else {
            base
        }
    };
    // The stream's current sum (the identity is `(0, 0)`).
    let sum_of = |j: usize, s: u32| {
        if s & EMPTY_ACC != 0 {
            Affine::<C>::IDENTITY
        } else {
            Affine::<C>::load(acc_of(j))
        }
    };
    let total = *starts.add(n_keys as usize);
    for group in indices(streams.div_ceil(per_thread)) {
        let first_stream = (group * k) as u32;
        let n = (streams - first_stream).min(per_thread) as usize;
        let begin = |j: usize| (first_stream + j as u32) * chunk;
        if begin(0) >= total {
            *out_keys.add(2 * group) = SENTINEL;
            *out_keys.add(2 * group + 1) = SENTINEL;
            continue;
        }
        for j in 0..n {
            if begin(j) < total {
                *state_of(j) = bucket_of(starts, n_keys, begin(j)) | FIRST | EMPTY_ACC;
            }
        }
        for i in 0..chunk {
            // Forward: settle what needs no inversion, and chain the
            // denominators of the rest, keeping each one's exclusive prefix.
            let mut product = C::Base::ONE;
            let mut pending = false;
            for j in 0..n {
                let p = begin(j) + i;
                if p >= total {
                    continue;
                }
                let mut s = *state_of(j) & !OP_MASK;
                let mut key = s & KEY_BITS;
                if p == *starts.add(key as usize + 1) {
                    // The run ends before `p`: keep the stream's first run
                    // for the merge, store a later one (a whole bucket).
                    let sum = sum_of(j, s);
                    if s & FIRST != 0 {
                        sum.store(first_of(j));
                    } else {
                        Xyzz::from_affine(&sum).store(sums.add(key as usize * xyzz_limbs::<C>()));
                    }
                    key += 1;
                    while *starts.add(key as usize + 1) <= p {
                        key += 1;
                    }
                    s = (s & !(FIRST | KEY_BITS)) | EMPTY_ACC | key;
                }
                // The base's x alone in the usual case (an addition); y
                // only to start a run, to tell a doubling from a
                // cancellation, or for an x of zero (the identity, maybe).
                let e = *entries.add(p as usize);
                let at = bases.add((e & !NEG) as usize * affine_limbs);
                let qx = C::Base::load_readonly(at);
                let qy = || {
                    let y = C::Base::load_readonly(at.add(base_limbs));
                    if e & NEG != 0 {
                        -y
                    } else {
                        y
                    }
                };
                if qx.is_zero_limbs() && qy().is_zero_limbs() {
                } else if s & EMPTY_ACC != 0 {
                    Affine::<C>::new(qx, qy()).store(acc_of(j));
                    s &= !EMPTY_ACC;
                } else {
                    let dx = qx - C::Base::load(acc_of(j));
                    let denominator = if !dx.is_zero() {
                        s |= OP_ADD;
                        dx
                    } else {
                        let y = qy();
                        if y == C::Base::load(acc_of(j).add(base_limbs)) && !y.is_zero() {
                            s |= OP_DOUBLE;
                            y.double()
                        } else {
                            // `q = −a` (or `a = q` of order 2): the sum is the identity.
                            s |= EMPTY_ACC;
                            C::Base::ONE
                        }
                    };
                    if s & OP_MASK != 0 {
                        product.store(prefix_of(j));
                        product = product * denominator;
                        pending = true;
                    }
                }
                *state_of(j) = s;
            }
            if !pending {
                continue;
            }
            // Backward: one inversion, then each pending addition's inverse
            // from its prefix, newest first.
            let mut inverse = product.inverse();
            for j in (0..n).rev() {
                let p = begin(j) + i;
                if p >= total {
                    continue;
                }
                let op = *state_of(j) & OP_MASK;
                if op == 0 {
                    continue;
                }
                let q = point(p);
                let a = Affine::<C>::load(acc_of(j));
                let (denominator, numerator, other_x) = if op == OP_ADD {
                    (q.x - a.x, q.y - a.y, q.x)
                } else {
                    let xx = a.x.square();
                    (a.y.double(), xx.double() + xx, a.x)
                };
                let inv = inverse * C::Base::load(prefix_of(j));
                inverse = inverse * denominator;
                let lambda = numerator * inv;
                let x3 = lambda.square() - a.x - other_x;
                let y3 = lambda * (a.x - x3) - a.y;
                Affine::<C>::new(x3, y3).store(acc_of(j));
            }
        }
        let streams_here = (0..n).take_while(|&j| begin(j) < total).count();
        merge_streams::<C>(
            2 * group,
            streams_here,
            begin(0),
            chunk,
            starts,
            n_keys,
            acc_of(0),
            first_of(0),
            state_of(0),
            out_keys,
            out_points,
            sums,
        );
    }
}

/// The end of a group: its streams' first and last runs, in order, merged
/// into the group's first and last runs (items `slot`, `slot + 1`) and
/// whole buckets between them (stored). `streams` streams with entries,
/// the first beginning at entry `begin`; `acc`, `first`, `state` point at
/// the first stream's scratch.
///
/// Out of line: it runs once per group, and inlined, its XYZZ additions
/// made G2's kernel spill in the steps' loop.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
unsafe fn merge_streams<C: CurveConfig>(
    slot: usize,
    streams: usize,
    begin: u32,
    chunk: u32,
    starts: *const u32,
    n_keys: u32,
    acc: *const u64,
    first: *const u64,
    state: *const u32,
    out_keys: *mut u32,
    out_points: *mut u64,
    sums: *mut u64,
) {
    let affine_limbs = <Affine<C> as Limbs>::LIMBS;
    let mut merge = RunMerge::<C>::new(slot);
    for j in 0..streams {
        let s = *state.add(j);
        if s & FIRST == 0 {
            let first_key = bucket_of(starts, n_keys, begin + j as u32 * chunk);
            merge.push(first_key, &Affine::<C>::load(first.add(j * affine_limbs)), out_keys, out_points, sums);
        }
        let last = if s & EMPTY_ACC != 0 { Affine::<C>::IDENTITY } else { Affine::<C>::load(acc.add(j * affine_limbs)) };
        merge.push(s & KEY_BITS, &last, out_keys, out_points, sums);
    }
    merge.finish(out_keys, out_points);
}

/// Sums `(key, point)` items that arrive sorted by key into runs: the
/// first run is forwarded as item `slot`, the last as `slot + 1` (or
/// `key | EMPTY` there when there is one run), the runs between are whole
/// buckets and are stored.
struct RunMerge<C: CurveConfig> {
    slot: usize,
    key: u32,
    sum: Xyzz<C>,
    started: bool,
    first: bool,
}

impl<C: CurveConfig> RunMerge<C> {
    #[inline(always)]
    fn new(slot: usize) -> Self {
        RunMerge { slot, key: 0, sum: Xyzz::IDENTITY, started: false, first: true }
    }

    #[inline(always)]
    unsafe fn push(&mut self, key: u32, point: &Affine<C>, out_keys: *mut u32, out_points: *mut u64, sums: *mut u64) {
        if self.started && key == self.key {
            self.sum = self.sum.add_affine(point);
            return;
        }
        if self.started {
            if self.first {
                emit(out_keys, out_points, self.slot, self.key, &self.sum);
                self.first = false;
            } else {
                self.sum.store(sums.add(self.key as usize * xyzz_limbs::<C>()));
            }
        }
        self.started = true;
        self.key = key;
        self.sum = Xyzz::from_affine(point);
    }

    /// The last run (called after at least one push).
    #[inline(always)]
    unsafe fn finish(&self, out_keys: *mut u32, out_points: *mut u64) {
        if self.first {
            emit(out_keys, out_points, self.slot, self.key, &self.sum);
            *out_keys.add(self.slot + 1) = self.key | EMPTY;
        } else {
            emit(out_keys, out_points, self.slot + 1, self.key, &self.sum);
        }
    }
}
