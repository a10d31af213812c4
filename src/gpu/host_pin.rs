//! Pinning host memory with the CUDA driver (`cuMemHostRegister`), for the
//! reusable witness buffers of `crate::witness_pool`: the copy engine reads
//! registered memory directly, at the link's speed, with no staging copy.

use cust::context::{Context, CurrentContext};
use cust::device::Device;
use log::warn;

use crate::witness_pool::HostPinner;

/// Registers memory as portable (usable from every context), under a
/// retained reference to one device's primary context, which therefore
/// outlives every registration made through it.
pub(crate) struct CudaPinner {
    context: Context,
}

impl CudaPinner {
    pub fn new(ordinal: u32) -> Result<Self, cust::error::CudaError> {
        Ok(CudaPinner { context: Context::new(Device::get_device(ordinal)?)? })
    }
}

impl HostPinner for CudaPinner {
    fn pin(&self, ptr: *const u8, bytes: usize) -> bool {
        if CurrentContext::set_current(&self.context).is_err() {
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
        let _ = CurrentContext::set_current(&self.context);
        // SAFETY: ptr was registered by `pin` and is still allocated.
        let r = unsafe { cust::sys::cuMemHostUnregister(ptr as *mut _) };
        if r != cust::sys::CUresult::CUDA_SUCCESS {
            warn!("cuMemHostUnregister: {r:?}");
        }
    }
}
