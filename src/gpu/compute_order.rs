//! The compute phases of one device, run one after another on the GPU in
//! the order they are enqueued.
//!
//! A proof at partition size fills the GPU on its own, so two running at
//! once only interleave their kernels: both finish late, and the pre-stage
//! that should hide behind one of them runs beside the other instead
//! (docs/PERFORMANCE.md, "Workers that overlap"). Each worker's stream
//! therefore waits on a marker event recorded after the previous compute's
//! last operation, on whichever stream that was. The wait is on the GPU: no
//! host thread blocks on another worker's proof, and the next proof's first
//! kernel starts as soon as the previous one's last finishes.
//!
//! A host lock is held only while a compute is enqueued (milliseconds), so
//! that "previous" is well defined and its marker is not re-recorded in
//! between. Work is never waited on under the lock.

use std::sync::Mutex;

use cust::stream::Stream;

use crate::error::ProverError;

use super::sys_check;

/// A raw CUDA event without timing (cust's `Stream::wait_event` consumes
/// its event, so the marker is kept as the driver handle).
pub(super) struct Marker(cust::sys::CUevent);

// SAFETY: CUDA event handles may be used from any thread.
unsafe impl Send for Marker {}
unsafe impl Sync for Marker {}

impl Marker {
    /// Creates a marker in the current context.
    pub fn new() -> Result<Self, ProverError> {
        let mut event = std::ptr::null_mut();
        // SAFETY: a plain event creation into a local out-pointer.
        unsafe { sys_check("marker event", cust::sys::cuEventCreate(&mut event, cust::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32))? };
        Ok(Marker(event))
    }

    pub(super) fn record(&self, stream: &Stream) -> Result<(), ProverError> {
        // SAFETY: both handles are live; the event belongs to the stream's context.
        unsafe { sys_check("record marker", cust::sys::cuEventRecord(self.0, stream.as_inner())) }
    }

    pub(super) fn wait_on(&self, stream: &Stream) -> Result<(), ProverError> {
        // SAFETY: as for `record`; the wait takes the event's latest record.
        unsafe { sys_check("wait on marker", cust::sys::cuStreamWaitEvent(stream.as_inner(), self.0, 0)) }
    }
}

impl Drop for Marker {
    /// Must run with the event's context current (the engine binds it).
    fn drop(&mut self) {
        // SAFETY: the handle is live and dropped once.
        unsafe { cust::sys::cuEventDestroy_v2(self.0) };
    }
}

/// One device's order of compute phases: which worker enqueued last.
#[derive(Default)]
pub(super) struct ComputeOrder {
    last: Mutex<Option<usize>>,
}

impl ComputeOrder {
    /// Runs `enqueue`, which puts one compute on `stream` (worker `me`'s),
    /// after the compute enqueued last on this device by another worker,
    /// then records `marker(me)` after it. On an error the stream is
    /// drained (so nothing half enqueued is left running) and the order
    /// restarts, so a failed compute never holds up the ones behind it.
    pub fn serialized<'m, T>(
        &self,
        me: usize,
        stream: &Stream,
        marker: impl Fn(usize) -> &'m Marker,
        drain: impl Fn(&Stream) -> Result<(), ProverError>,
        enqueue: impl FnOnce() -> Result<T, ProverError>,
    ) -> Result<T, ProverError> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let run = || {
            if let Some(prev) = *last {
                if prev != me {
                    marker(prev).wait_on(stream)?;
                }
            }
            let out = enqueue()?;
            marker(me).record(stream)?;
            Ok(out)
        };
        match run() {
            Ok(out) => {
                *last = Some(me);
                Ok(out)
            }
            Err(e) => {
                // The previous compute, waited on, is done too after this.
                let _ = drain(stream);
                *last = None;
                Err(e)
            }
        }
    }
}
