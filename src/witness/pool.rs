//! Host buffers for witnesses, kept and reused from proof to proof, and
//! pinned (page-locked) once where a backend can copy from pinned memory
//! faster.
//!
//! A 32 GiB PoRep witness is ~17 GB. Allocating it afresh per proof costs
//! page faults, and uploading it from pageable memory costs a second host
//! copy through pinned staging chunks (~15 GB/s on the H200 host). A pool
//! buffer is allocated and pinned once (pinning 17 GB takes seconds), then
//! synthesis writes into it and the GPU's copy engine reads it directly.
//!
//! The rule that keeps this safe: pinned memory must never be freed or
//! moved while the driver has it registered, and the copy engine must only
//! read a buffer that is still the one that was registered. So a pooled
//! witness is only ever lent out inside a [`PooledWitness`] guard, which
//! hands out `&Assignment` alone; synthesis writes through a capped view
//! that never grows a vector past its reserved capacity (so it never
//! reallocates); and a buffer's registration is checked by address and
//! capacity before every direct copy.
//!
//! Taking a buffer never blocks: when all are lent out, callers get a plain
//! allocation and the slower staged upload, so no caller can deadlock on the
//! pool.
// Without the `cuda` feature no backend pins or reads pinned parts.
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use std::sync::{Arc, Mutex};
use std::time::Instant;

use blstrs::Scalar;
use log::{debug, info};

use crate::witness::assignment::Assignment;

/// Parts smaller than this are not pinned: their staged copy costs nothing.
/// (A part sharing a page with a part pinned before is refused by the
/// driver and simply uploads through staging.)
pub(crate) const PIN_MIN_BYTES: usize = 64 << 10;

/// Registers and unregisters host memory with a device driver.
pub(crate) trait HostPinner: Send + Sync {
    /// Pins `bytes` at `ptr` for direct device copies; false if refused.
    fn pin(&self, ptr: *const u8, bytes: usize) -> bool;
    /// Undoes `pin` of the range starting at `ptr`.
    fn unpin(&self, ptr: *const u8);
}

/// The sizes a pool buffer is reserved for (from the parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WitnessCapacity {
    /// a, b and c: at most one evaluation per domain point.
    pub evaluations: usize,
    pub inputs: usize,
    pub aux: usize,
}

/// The large parts of a witness, in the order [`PinnedParts`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    A,
    B,
    C,
    Input,
    Aux,
}

impl Part {
    pub const ALL: [Part; 5] = [Part::A, Part::B, Part::C, Part::Input, Part::Aux];

    pub fn of(self, asg: &Assignment) -> &Vec<Scalar> {
        match self {
            Part::A => &asg.a,
            Part::B => &asg.b,
            Part::C => &asg.c,
            Part::Input => &asg.input,
            Part::Aux => &asg.aux,
        }
    }
}

/// Where each part of a buffer was pinned: its address and capacity then.
type PinnedParts = [Option<(usize, usize)>; 5];

struct Buffer {
    asg: Assignment,
    pinned: PinnedParts,
    /// A witness-only job's aux values as classes, packed
    /// (`ClassedValues::pack_into`) when the job is made, so that the
    /// pre-stage copies them directly instead of through the staging
    /// chunks; empty when none are; its address and capacity when pinned.
    classes: Vec<u64>,
    classes_pinned: Option<(usize, usize)>,
}

struct PoolInner {
    /// Free buffers, and how many exist (free or lent).
    state: Mutex<(Vec<Buffer>, usize)>,
    max: usize,
    capacity: WitnessCapacity,
    /// Words of each buffer's area for packed classes (0: none).
    classes_words: usize,
    pinner: Option<Box<dyn HostPinner>>,
}

/// A bounded set of reusable witness buffers.
#[derive(Clone)]
pub(crate) struct WitnessPool {
    inner: Arc<PoolInner>,
}

/// A pool buffer lent out; returns to its pool when dropped.
pub struct PooledWitness {
    buffer: Option<Buffer>,
    pool: Arc<PoolInner>,
}

impl WitnessPool {
    /// A pool of at most `max` buffers of `capacity`, each with room for
    /// `classes_words` words of packed classes, pinned by `pinner` when
    /// given. Buffers are made on first use.
    pub fn new(max: usize, capacity: WitnessCapacity, classes_words: usize, pinner: Option<Box<dyn HostPinner>>) -> Self {
        WitnessPool { inner: Arc::new(PoolInner { state: Mutex::new((Vec::new(), 0)), max, capacity, classes_words, pinner }) }
    }

    /// A free buffer (its old contents cleared), a new one while fewer than
    /// `max` exist, else `None`. Never blocks on other callers' buffers.
    pub fn try_take(&self) -> Option<PooledWitness> {
        let mut state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(mut buffer) = state.0.pop() {
            buffer.asg.clear();
            buffer.classes.clear();
            return Some(PooledWitness { buffer: Some(buffer), pool: Arc::clone(&self.inner) });
        }
        if state.1 >= self.inner.max {
            return None;
        }
        state.1 += 1;
        drop(state); // allocating and pinning take seconds at full size
        Some(PooledWitness { buffer: Some(self.inner.new_buffer()), pool: Arc::clone(&self.inner) })
    }

    /// Makes now every buffer the pool may hold (allocated and pinned:
    /// seconds at full size), so that no proof waits for one; how many
    /// were made.
    pub fn reserve_all(&self) -> usize {
        let mut made = 0;
        loop {
            let mut state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
            if state.1 >= self.inner.max {
                return made;
            }
            state.1 += 1;
            drop(state);
            let buffer = self.inner.new_buffer();
            self.inner.state.lock().unwrap_or_else(|e| e.into_inner()).0.push(buffer);
            made += 1;
        }
    }

    /// Buffers in existence (free or lent), and how many are free.
    pub fn counts(&self) -> (usize, usize) {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        (state.1, state.0.len())
    }

}

impl PoolInner {
    fn new_buffer(&self) -> Buffer {
        let t = Instant::now();
        let asg = Assignment::with_capacity(self.capacity);
        let classes: Vec<u64> = Vec::with_capacity(self.classes_words);
        let mut pinned: PinnedParts = [None; 5];
        let mut classes_pinned = None;
        let mut bytes = 0;
        if let Some(pinner) = &self.pinner {
            let mut pin = |ptr: *const u8, size: usize, capacity: usize| {
                let done = size >= PIN_MIN_BYTES && pinner.pin(ptr, size);
                bytes += if done { size } else { 0 };
                done.then_some((ptr as usize, capacity))
            };
            // c never goes to the device (it makes c = a·b there).
            for (slot, part) in pinned.iter_mut().zip(Part::ALL).filter(|(_, part)| *part != Part::C) {
                let v = part.of(&asg);
                *slot = pin(v.as_ptr().cast(), v.capacity() * std::mem::size_of::<Scalar>(), v.capacity());
            }
            classes_pinned = pin(classes.as_ptr().cast(), 8 * classes.capacity(), classes.capacity());
        }
        let reserved = asg.reserved_bytes() + 8 * classes.capacity();
        info!("witness buffer reserved: {:.2} GB, {:.2} GB of it pinned, in {:.3?}", reserved as f64 / 1e9, bytes as f64 / 1e9, t.elapsed());
        Buffer { asg, pinned, classes, classes_pinned }
    }

    /// Unpins every part of `buffer` (before its memory can be freed).
    fn unpin(&self, buffer: &Buffer) {
        if let Some(pinner) = &self.pinner {
            for (addr, _) in buffer.pinned.iter().chain([&buffer.classes_pinned]).flatten() {
                pinner.unpin(*addr as *const u8);
            }
        }
    }
}

impl Drop for PoolInner {
    fn drop(&mut self) {
        let free = std::mem::take(&mut self.state.get_mut().unwrap_or_else(|e| e.into_inner()).0);
        for buffer in &free {
            self.unpin(buffer);
        }
    }
}

impl PooledWitness {
    pub fn assignment(&self) -> &Assignment {
        &self.buffer.as_ref().expect("a lent buffer is present until dropped").asg
    }

    /// The buffer to write into, for crate code that never grows a vector
    /// past its capacity (see [`Assignment::fits`]).
    pub(crate) fn assignment_mut(&mut self) -> &mut Assignment {
        &mut self.buffer.as_mut().expect("a lent buffer is present until dropped").asg
    }

    /// The pool's capacity: what a writer must stay within.
    pub(crate) fn capacity(&self) -> WitnessCapacity {
        self.pool.capacity
    }

    /// `part`'s values, if they lie in memory still pinned as registered
    /// (same address and capacity), so the device may copy them directly.
    pub(crate) fn pinned(&self, part: Part) -> Option<&[Scalar]> {
        let buffer = self.buffer.as_ref()?;
        let v = part.of(&buffer.asg);
        still_at(v, buffer.pinned[part as usize]?).then_some(&v[..])
    }

    /// The area for this job's packed classes (see [`Buffer`]), to fill
    /// without growing it past its capacity.
    pub(crate) fn classes_area_mut(&mut self) -> &mut Vec<u64> {
        &mut self.buffer.as_mut().expect("a lent buffer is present until dropped").classes
    }

    /// The packed classes, if any were written and they lie in memory
    /// still pinned as registered, so the device may copy them directly.
    pub(crate) fn pinned_classes(&self) -> Option<&[u64]> {
        let buffer = self.buffer.as_ref()?;
        let v = &buffer.classes;
        (!v.is_empty() && still_at(v, buffer.classes_pinned?)).then_some(&v[..])
    }

    /// Moves the assignment out of the pool (unpinned first), for callers
    /// that need it by value.
    pub(crate) fn into_assignment(mut self) -> Assignment {
        let buffer = self.buffer.take().expect("a lent buffer is present until dropped");
        self.pool.unpin(&buffer);
        self.pool.state.lock().unwrap_or_else(|e| e.into_inner()).1 -= 1;
        buffer.asg
    }
}

/// Whether `v` still lies where it was pinned: the registered address and
/// capacity (a write that grew it would have moved it).
fn still_at<T>(v: &Vec<T>, (addr, cap): (usize, usize)) -> bool {
    v.as_ptr() as usize == addr && v.capacity() == cap
}

impl Drop for PooledWitness {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else { return };
        let intact = Part::ALL.iter().all(|&p| buffer.pinned[p as usize].map_or(true, |at| still_at(p.of(&buffer.asg), at)))
            && buffer.classes_pinned.map_or(true, |at| still_at(&buffer.classes, at));
        let mut state = self.pool.state.lock().unwrap_or_else(|e| e.into_inner());
        if intact {
            state.0.push(buffer);
        } else {
            // Cannot happen through the crate's writers; if it did, the
            // registration must not outlive its check.
            debug!("witness buffer moved while lent; unpinned and dropped");
            state.1 -= 1;
            drop(state);
            self.pool.unpin(&buffer);
        }
    }
}

impl std::fmt::Debug for PooledWitness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledWitness").field("pinned", &self.buffer.as_ref().map(|b| b.pinned.iter().chain([&b.classes_pinned]).flatten().count())).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Records pins and unpins instead of calling a driver.
    #[derive(Default)]
    struct CountingPinner {
        pinned: Arc<AtomicUsize>,
    }

    impl HostPinner for CountingPinner {
        fn pin(&self, _: *const u8, _: usize) -> bool {
            self.pinned.fetch_add(1, Ordering::SeqCst);
            true
        }
        fn unpin(&self, _: *const u8) {
            self.pinned.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn big() -> WitnessCapacity {
        // a, b, c and aux above PIN_MIN_BYTES, inputs below.
        let n = PIN_MIN_BYTES / 32;
        WitnessCapacity { evaluations: n, inputs: 4, aux: n }
    }

    #[test]
    fn buffers_are_bounded_reused_and_pinned_once() {
        let pinned = Arc::new(AtomicUsize::new(0));
        let pool = WitnessPool::new(2, big(), 0, Some(Box::new(CountingPinner { pinned: Arc::clone(&pinned) })));
        let first = pool.try_take().expect("first buffer");
        let second = pool.try_take().expect("second buffer");
        assert!(pool.try_take().is_none(), "a third buffer would exceed the pool's bound");
        assert_eq!(pinned.load(Ordering::SeqCst), 6, "a, b and aux of two buffers are pinned; inputs are too small, c is not sent");
        assert!(first.pinned(Part::A).is_some() && first.pinned(Part::Input).is_none() && first.pinned(Part::C).is_none());
        let addr = first.assignment().a.as_ptr();
        drop(first);
        assert_eq!(pool.counts(), (2, 1));
        let again = pool.try_take().expect("the returned buffer");
        assert_eq!(again.assignment().a.as_ptr(), addr, "the same memory is reused");
        assert_eq!(pinned.load(Ordering::SeqCst), 6, "reuse pins nothing new");
        drop((again, second));
        drop(pool);
        assert_eq!(pinned.load(Ordering::SeqCst), 0, "a dropped pool unpins every buffer");
    }

    #[test]
    fn reserved_buffers_are_made_once_and_lent_without_making_more() {
        let pinned = Arc::new(AtomicUsize::new(0));
        let pool = WitnessPool::new(2, big(), 0, Some(Box::new(CountingPinner { pinned: Arc::clone(&pinned) })));
        let first = pool.try_take().expect("a buffer");
        assert_eq!(pool.reserve_all(), 1, "one more up to the bound");
        assert_eq!((pool.counts(), pinned.load(Ordering::SeqCst)), ((2, 1), 6));
        assert_eq!(pool.reserve_all(), 0);
        let second = pool.try_take().expect("the reserved buffer");
        assert!(pool.try_take().is_none());
        assert_eq!(pinned.load(Ordering::SeqCst), 6, "taking a reserved buffer pins nothing");
        drop((first, second));
        assert_eq!(pool.counts(), (2, 2));
    }

    #[test]
    fn a_moved_or_grown_part_is_no_longer_pinned() {
        let pinned = Arc::new(AtomicUsize::new(0));
        let pool = WitnessPool::new(1, big(), 0, Some(Box::new(CountingPinner { pinned: Arc::clone(&pinned) })));
        let mut w = pool.try_take().unwrap();
        let cap = w.assignment().a.capacity();
        w.assignment_mut().a.resize(cap + 1, Scalar::from(1u64)); // reallocates
        assert!(w.pinned(Part::A).is_none(), "a reallocated part must not be copied as pinned");
        assert!(w.pinned(Part::B).is_some());
        drop(w);
        assert_eq!(pool.counts(), (0, 0), "a buffer that moved is dropped, not reused");
        assert_eq!(pinned.load(Ordering::SeqCst), 0, "and unpinned");
    }

    #[test]
    fn packed_classes_are_pinned_once_lent_while_written_and_cleared_on_reuse() {
        let pinned = Arc::new(AtomicUsize::new(0));
        let words = PIN_MIN_BYTES / 8;
        let pool = WitnessPool::new(1, big(), words, Some(Box::new(CountingPinner { pinned: Arc::clone(&pinned) })));
        let mut w = pool.try_take().unwrap();
        assert_eq!(pinned.load(Ordering::SeqCst), 4, "a, b, aux and the classes' area");
        assert!(w.pinned_classes().is_none(), "nothing written yet");
        w.classes_area_mut().extend([7u64; 100]);
        assert_eq!(w.pinned_classes(), Some(&[7u64; 100][..]));
        drop(w);
        let mut again = pool.try_take().unwrap();
        assert!(again.pinned_classes().is_none(), "a reused buffer starts without the last job's classes");
        let area = again.classes_area_mut();
        area.resize(words + 1, 0); // reallocates
        assert!(again.pinned_classes().is_none(), "moved classes must not be copied as pinned");
        drop(again);
        assert_eq!((pool.counts(), pinned.load(Ordering::SeqCst)), ((0, 0), 0), "dropped and unpinned");
    }

    #[test]
    fn into_assignment_unpins_and_frees_a_place() {
        let pinned = Arc::new(AtomicUsize::new(0));
        let pool = WitnessPool::new(1, big(), 0, Some(Box::new(CountingPinner { pinned: Arc::clone(&pinned) })));
        let asg = pool.try_take().unwrap().into_assignment();
        assert_eq!(pinned.load(Ordering::SeqCst), 0);
        assert_eq!(asg.a.capacity(), big().evaluations);
        assert!(pool.try_take().is_some(), "the pool may make a new buffer in its place");
    }
}
