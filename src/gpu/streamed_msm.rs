//! Streamed bases: each piece of a streamed query's MSM is copied from
//! pinned host memory into one of two staging buffers on a copy stream,
//! while the worker's stream runs the MSM of the piece before.
//!
//! Four markers order it: a copy into buffer `i` waits until the MSM that
//! last read `i` is done (`consumed[i]`), the MSM waits until its copy is
//! done (`filled[i]`). All waits are on the GPU; the host only enqueues.

use cust::event::Event;
use cust::stream::{Stream, StreamFlags};

use super::compute_order::Marker;
use super::host_bases::HostBases;
use super::{gpu_err, sys_check};
use crate::error::ProverError;

pub(super) struct Ring {
    copy: Stream,
    filled: [Marker; 2],
    consumed: [Marker; 2],
    next: usize,
}

impl Ring {
    pub fn new() -> Result<Self, ProverError> {
        Ok(Ring {
            copy: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?,
            filled: [Marker::new()?, Marker::new()?],
            consumed: [Marker::new()?, Marker::new()?],
            next: 0,
        })
    }

    /// The copy stream (for timing events and draining).
    pub fn stream(&self) -> &Stream {
        &self.copy
    }

    /// Enqueues the copy of bases `first .. first + count` of `host` into
    /// the next staging buffer (after `after`, if given, and after the
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
            sys_check("streamed bases copy", cust::sys::cuMemcpyHtoDAsync_v2(staging[i], host.ptr().add(first * words).cast(), count * words * 8, self.copy.as_inner()))?;
        }
        if let Some((_, done)) = timing {
            record(done)?;
        }
        self.filled[i].record(&self.copy)?;
        self.filled[i].wait_on(compute)?;
        Ok(staging[i])
    }

    /// Marks the buffer of the last [`Self::fill`] free once `compute` is
    /// past the MSM enqueued on it.
    pub fn release(&mut self, compute: &Stream) -> Result<(), ProverError> {
        self.consumed[self.next].record(compute)?;
        self.next ^= 1;
        Ok(())
    }
}
