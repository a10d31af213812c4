//! The CUDA context a device's work runs in: its primary context, or (a
//! test hook, `FaultPlan::contexts_per_gpu`) one created for it alone.
//!
//! A created context has its own module, memory and streams, so one GPU
//! opened as several created contexts stands in for several GPUs where the
//! several-device paths (bases per device, slots numbered device by device,
//! proofs spread over devices, every device lost) must run on a machine
//! with one. It does not stand in for a fault on one GPU among several: a
//! fault that poisons one context poisons every context of that GPU in the
//! process (H200, driver 580: three created contexts and the primary one
//! all failed after one illegal access). Contexts on one GPU take turns on
//! it: this is for correctness, never for speed.

use std::sync::Arc;

use cust::context::{Context, CurrentContext};
use cust::device::Device;
use cust::sys::{cuCtxCreate_v2, cuCtxDestroy_v2, cuCtxPopCurrent_v2, cuCtxSetCurrent, CUcontext};

use super::{gpu_err, sys_check};
use crate::error::ProverError;

/// A shared handle: every buffer of the device keeps one, so the context
/// outlives the memory in it.
#[derive(Clone)]
pub(crate) struct DeviceContext(Arc<Kind>);

enum Kind {
    Primary(Context),
    Created(CreatedContext),
}

/// A context from `cuCtxCreate`, destroyed when the last handle drops.
struct CreatedContext(CUcontext);

// SAFETY: a CUDA context may be made current on, and destroyed from, any
// thread; the handle is only a pointer the driver owns.
unsafe impl Send for CreatedContext {}
unsafe impl Sync for CreatedContext {}

impl Drop for CreatedContext {
    fn drop(&mut self) {
        // SAFETY: created by `cuCtxCreate` and destroyed once, here, after
        // every handle (and so every buffer holding one) is gone.
        unsafe { cuCtxDestroy_v2(self.0) };
    }
}

/// A `DeviceLost` from opening a device names that device (the error's
/// own guess, the current context's device, is none or another).
fn on_device(ordinal: u32, e: ProverError) -> ProverError {
    match e {
        ProverError::DeviceLost { cause, .. } => ProverError::DeviceLost { device: ordinal, cause },
        other => other,
    }
}

impl DeviceContext {
    /// The device's primary context, retained (the one the CUDA runtime
    /// and other libraries share).
    pub fn primary(ordinal: u32) -> Result<Self, ProverError> {
        let device = Device::get_device(ordinal).map_err(|e| on_device(ordinal, gpu_err("cuDeviceGet", e)))?;
        let context = Context::new(device).map_err(|e| on_device(ordinal, gpu_err("retain primary context", e)))?;
        Ok(DeviceContext(Arc::new(Kind::Primary(context))))
    }

    /// A context of its own on the device, not current on any thread.
    pub fn created(ordinal: u32) -> Result<Self, ProverError> {
        let device = Device::get_device(ordinal).map_err(|e| on_device(ordinal, gpu_err("cuDeviceGet", e)))?;
        let mut raw: CUcontext = std::ptr::null_mut();
        // SAFETY: writes a new context into `raw` and pushes it on this
        // thread's stack, from which it is popped at once.
        unsafe {
            sys_check("cuCtxCreate", cuCtxCreate_v2(&mut raw, 0, device.as_raw())).map_err(|e| on_device(ordinal, e))?;
            let created = CreatedContext(raw);
            let mut popped: CUcontext = std::ptr::null_mut();
            sys_check("cuCtxPopCurrent", cuCtxPopCurrent_v2(&mut popped))?;
            Ok(DeviceContext(Arc::new(Kind::Created(created))))
        }
    }

    /// Makes this context current on the calling thread.
    pub fn set_current(&self) -> Result<(), ProverError> {
        match &*self.0 {
            Kind::Primary(context) => CurrentContext::set_current(context).map_err(|e| gpu_err("set context", e)),
            // SAFETY: the handle keeps the context alive.
            Kind::Created(created) => sys_check("set context", unsafe { cuCtxSetCurrent(created.0) }),
        }
    }
}
