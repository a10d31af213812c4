//! Device memory that frees itself in its own context, from any thread.
//!
//! cust frees a `DeviceBuffer` in whatever context is current on the
//! dropping thread; with none (or another device's) current, the memory
//! leaks silently. The public device objects (`GpuBases`, `GpuNtt`) keep
//! their memory in a `BoundBuffer`, which holds its device's context and
//! makes it current just for the free, then restores the thread's previous
//! context.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

use cust::memory::DeviceBuffer;

use super::device_context::DeviceContext;
use super::GpuDevice;
use crate::error::ProverError;

pub(crate) struct BoundBuffer {
    buf: ManuallyDrop<DeviceBuffer<u64>>,
    context: DeviceContext,
}

impl BoundBuffer {
    /// `buf`, reserved on `gpu`, bound to that device's context.
    pub fn new(gpu: &GpuDevice, buf: DeviceBuffer<u64>) -> Result<Self, ProverError> {
        Ok(BoundBuffer { buf: ManuallyDrop::new(buf), context: gpu.context().clone() })
    }
}

impl Deref for BoundBuffer {
    type Target = DeviceBuffer<u64>;
    fn deref(&self) -> &DeviceBuffer<u64> {
        &self.buf
    }
}

impl DerefMut for BoundBuffer {
    fn deref_mut(&mut self) -> &mut DeviceBuffer<u64> {
        &mut self.buf
    }
}

impl Drop for BoundBuffer {
    fn drop(&mut self) {
        let mut previous = std::ptr::null_mut();
        // SAFETY: a plain query into a local; null when none is current.
        let _ = unsafe { cust::sys::cuCtxGetCurrent(&mut previous) };
        let _ = self.context.set_current();
        // SAFETY: dropped once, here; the held context outlives it.
        unsafe { ManuallyDrop::drop(&mut self.buf) };
        // SAFETY: `previous` was current on this thread a moment ago (or null).
        let _ = unsafe { cust::sys::cuCtxSetCurrent(previous) };
    }
}
