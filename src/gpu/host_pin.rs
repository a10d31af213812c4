//! Pinning host memory with the CUDA driver (`cuMemHostRegister`), for the
//! reusable witness buffers of `crate::witness::pool`: the copy engine reads
//! registered memory directly, at the link's speed, with no staging copy.

use log::warn;

use super::device_context::DeviceContext;

use crate::witness::pool::HostPinner;

/// Registers memory as portable (usable from every context), under a
/// held reference to one device's context, which therefore outlives every
/// registration made through it.
pub(crate) struct CudaPinner {
    context: DeviceContext,
}

impl CudaPinner {
    pub fn new(gpu: &super::GpuDevice) -> Self {
        CudaPinner { context: gpu.context().clone() }
    }
}

impl HostPinner for CudaPinner {
    fn pin(&self, ptr: *const u8, bytes: usize) -> bool {
        if self.context.set_current().is_err() {
            return false;
        }
        // SAFETY: [ptr, ptr + bytes) is one live allocation of the caller's,
        // which keeps it in place until `unpin`.
        let r = unsafe { cust::sys::cuMemHostRegister_v2(ptr as *mut _, bytes, cust::sys::CU_MEMHOSTREGISTER_PORTABLE) };
        if r != cust::sys::CUresult::CUDA_SUCCESS {
            warn!("cuMemHostRegister of {:.2} GB refused ({r:?}); that buffer uploads through staging", bytes as f64 / 1e9);
        }
        r == cust::sys::CUresult::CUDA_SUCCESS
    }

    fn unpin(&self, ptr: *const u8) {
        let _ = self.context.set_current();
        // SAFETY: ptr was registered by `pin` and is still allocated.
        let r = unsafe { cust::sys::cuMemHostUnregister(ptr as *mut _) };
        if r != cust::sys::CUresult::CUDA_SUCCESS {
            warn!("cuMemHostUnregister: {r:?}");
        }
    }
}
