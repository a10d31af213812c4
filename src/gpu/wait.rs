//! Host waits on the GPU with a deadline (`ProverConfig::gpu_timeout`): a
//! GPU that stops making progress becomes `ProverError::DeviceLost`, never
//! a thread blocked for good.
//!
//! Without a deadline the wait blocks in the driver (blocking-sync events:
//! no spinning). With one it polls, sleeping 20 µs doubling to 1 ms between
//! polls: at most a millisecond late, against proofs of tens of
//! milliseconds and more.

use std::time::{Duration, Instant};

use cust::event::{Event, EventStatus};
use cust::stream::Stream;

use super::{gpu_err, sys_check};
use crate::error::ProverError;

/// Waits for `event`, at most `timeout`.
pub(crate) fn event(event: &Event, what: &str, timeout: Option<Duration>) -> Result<(), ProverError> {
    let Some(limit) = timeout else { return event.synchronize().map_err(|e| gpu_err(what, e)) };
    poll_until(what, limit, || match event.query() {
        Ok(EventStatus::Ready) => Ok(true),
        Ok(EventStatus::NotReady) => Ok(false),
        Err(e) => Err(gpu_err(what, e)),
    })
}

/// Waits until `stream` has run everything enqueued on it, at most `timeout`.
pub(crate) fn stream(stream: &Stream, what: &str, timeout: Option<Duration>) -> Result<(), ProverError> {
    let Some(limit) = timeout else { return stream.synchronize().map_err(|e| gpu_err(what, e)) };
    poll_until(what, limit, || stream_idle(stream, what))
}

/// Whether `stream` has run everything enqueued on it (never waits).
pub(crate) fn stream_idle(stream: &Stream, what: &str) -> Result<bool, ProverError> {
    // SAFETY: a query of a live stream.
    let r = unsafe { cust::sys::cuStreamQuery(stream.as_inner()) };
    if r == cust::sys::CUresult::CUDA_ERROR_NOT_READY {
        return Ok(false);
    }
    sys_check(what, r).map(|()| true)
}

fn poll_until(what: &str, limit: Duration, mut ready: impl FnMut() -> Result<bool, ProverError>) -> Result<(), ProverError> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(20);
    loop {
        if ready()? {
            return Ok(());
        }
        if start.elapsed() >= limit {
            // The device whose context is current: the one being waited on.
            let device = cust::context::CurrentContext::get_device().map_or(u32::MAX, |d| d.as_raw() as u32);
            return Err(ProverError::DeviceLost { device, cause: format!("{what} did not finish within {limit:?}: the GPU is presumed hung") });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}
