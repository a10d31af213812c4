//! Streamed bases: each piece of a streamed query's MSM is copied from
//! pinned host memory into one of the staging buffers on a copy stream,
//! while the worker's stream runs the MSM of the piece before.
//!
//! Two staging buffers are the ring's own. The ring can take more
//! ([`Ring::extend`]): from the H step's end, whatever of the slot's a, b,
//! c no MSM reads (`SlotLayout::idle_staging_buffers`), and once the H
//! query's MSM is done, the VRAM its scalars took (the slot's first
//! region, 4 GiB at 2^27). The copies of streamed pieces then run that
//! many pieces ahead of their MSMs, also while MSMs over resident bases
//! compute, instead of one piece ahead.
//!
//! Markers order it: a copy into buffer `i` waits until the MSM that last
//! read `i` is done (`consumed[i]`), the MSM waits until its copy is done
//! (`filled[i]`). All waits are on the GPU; the host only enqueues.

use cust::event::Event;
use cust::stream::{Stream, StreamFlags};

use super::compute_order::Marker;
use super::host_bases::HostBases;
use super::{gpu_err, sys_check};
use crate::error::ProverError;

/// Most staging buffers a ring cycles through: its own two and those it
/// takes once the H MSM is done.
pub(super) const MAX_RING_BUFFERS: usize = 8;

pub(super) struct Ring {
    copy: Stream,
    filled: Vec<Marker>,
    consumed: Vec<Marker>,
    /// Buffers taken for this proof beyond the two staging buffers.
    extra: Vec<u64>,
    next: usize,
}

impl Ring {
    pub fn new() -> Result<Self, ProverError> {
        let markers = || (0..MAX_RING_BUFFERS).map(|_| Marker::new()).collect::<Result<Vec<_>, _>>();
        Ok(Ring {
            copy: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?,
            filled: markers()?,
            consumed: markers()?,
            extra: Vec::new(),
            next: 0,
        })
    }

    /// The copy stream (for timing events and draining).
    pub fn stream(&self) -> &Stream {
        &self.copy
    }

    /// Starts a proof with the two staging buffers alone (drops buffers
    /// taken for the proof before, also one that failed half way).
    pub fn begin(&mut self) {
        self.extra.clear();
        self.next %= 2;
    }

    /// Takes `buffers` (device addresses, each with room for a piece) as
    /// staging buffers too, until the next [`Self::begin`]: the first copy
    /// into each waits until `compute` is past what is enqueued on it now
    /// (the MSM that read that memory last).
    ///
    /// # Safety
    /// Nothing but this ring's copies and the MSMs that read them may use
    /// that memory, from now on `compute`, until the proof ends.
    pub unsafe fn extend(&mut self, buffers: &[u64], compute: &Stream) -> Result<(), ProverError> {
        for &at in buffers.iter().take(MAX_RING_BUFFERS - 2 - self.extra.len()) {
            self.consumed[2 + self.extra.len()].record(compute)?;
            self.extra.push(at);
        }
        Ok(())
    }

    /// The buffer the next [`Self::fill`] copies into: 0 and 1 are the
    /// ring's own staging buffers, the rest those [`Self::extend`] took.
    pub fn next_buffer(&self) -> usize {
        self.next
    }

    /// Staging buffers in use.
    fn buffers(&self) -> usize {
        2 + self.extra.len()
    }

    /// Enqueues the copy of bases `first .. first + count` of `host` into
    /// the next staging buffer (`staging`, the two of the ring's own, or
    /// one taken by [`Self::extend`]) (after `after`, if given, and after the
    /// last MSM that read that buffer), and makes `compute` wait for it.
    /// Returns the buffer's address; call [`Self::release`] once the MSM
    /// that reads it is enqueued on `compute`. `timing`, if given, is
    /// recorded around the copy itself.
    ///
    /// # Safety
    /// `staging[i]` must have room for `count` bases and stay reserved
    /// until the copy and the MSM after it have run.
    pub unsafe fn fill(&mut self, staging: [u64; 2], host: &HostBases, first: usize, count: usize, after: Option<&Marker>, compute: &Stream, timing: Option<&(Event, Event)>) -> Result<u64, ProverError> {
        let i = self.next;
        let at = if i < 2 { staging[i] } else { self.extra[i - 2] };
        let words = host.curve().affine_limbs();
        if first + count > host.len() {
            return Err(ProverError::Config(format!("streamed piece of bases {first}..{} past the query's {}", first + count, host.len())));
        }
        if let Some(m) = after {
            m.wait_on(&self.copy)?;
        }
        self.consumed[i].wait_on(&self.copy)?;
        let record = |event: &Event| event.record(&self.copy).map_err(|e| gpu_err("record copy event", e));
        if let Some((began, _)) = timing {
            record(began)?;
        }
        if count > 0 {
            // SAFETY: the host range lies in the pinned query (checked
            // above), the device range in staging buffer i (the caller's).
            sys_check("streamed bases copy", cust::sys::cuMemcpyHtoDAsync_v2(at, host.ptr().add(first * words).cast(), count * words * 8, self.copy.as_inner()))?;
        }
        if let Some((_, done)) = timing {
            record(done)?;
        }
        self.filled[i].record(&self.copy)?;
        self.filled[i].wait_on(compute)?;
        Ok(at)
    }

    /// Marks the buffer of the last [`Self::fill`] free once `compute` is
    /// past the MSM enqueued on it.
    pub fn release(&mut self, compute: &Stream) -> Result<(), ProverError> {
        self.consumed[self.next].record(compute)?;
        self.next = (self.next + 1) % self.buffers();
        Ok(())
    }
}
