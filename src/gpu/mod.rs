//! The CUDA side (feature `cuda`): a thin layer over `cust`.
//!
//! The design rule: CUDA allocation, frees and device-wide synchronization
//! serialize every stream on a device, so all VRAM a prover needs is reserved
//! in [`GpuEngine::new`] and the proving phases order their work with
//! streams and events only.

mod bound_buffer;
mod compiled;
mod compute_order;
mod device_context;
mod engine;
mod fatal;
mod host_pin;
mod input_tables;
pub mod kernel_cache;
mod params_upload;
mod proof_msm;
mod host_bases;
mod streamed_msm;
pub mod elementwise;
pub mod launch;
pub mod msm;
pub mod ntt;
mod runtime;
mod upload;
pub(crate) mod wait;

pub use engine::{GpuEngine, GpuStaged};
pub(crate) use host_pin::CudaPinner;
pub use crate::vram::SlotLayout;
pub use runtime::{cubin_path, discover, GpuDevice};

/// The PTX of the `kernels/` crate, built by `build.rs`.
pub const KERNELS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/cuzk_kernels.ptx"));

/// FNV-1a 64 of [`KERNELS_PTX`] (hex): names the ahead-of-time cubins
/// `cuzk_kernels-<fnv>-sm_<major><minor>.cubin` that may replace the JIT.
pub const KERNELS_PTX_FNV: &str = env!("CUZK_KERNELS_PTX_FNV");

use crate::error::ProverError;

/// A failed CUDA call as our error: `DeviceLost` for the errors that
/// poison the context (every later call on the device fails the same way),
/// `Gpu` for the others.
pub(crate) fn gpu_err(what: &str, e: cust::error::CudaError) -> ProverError {
    let text = e.to_string();
    classify(what, e as u32, &text)
}

/// `DeviceLost` for the errors of [`fatal::FATAL_ERRORS`].
fn classify(what: &str, code: u32, text: &str) -> ProverError {
    if fatal::fatal_class(code).is_some() {
        // The device whose context is current: the one the failed call used.
        let device = cust::context::CurrentContext::get_device().map_or(u32::MAX, |d| d.as_raw() as u32);
        return ProverError::DeviceLost { device, cause: format!("{what}: {text}") };
    }
    ProverError::Gpu(format!("{what}: {text}"))
}

/// For the few driver calls cust does not wrap.
pub(crate) fn sys_check(what: &str, r: cust::sys::CUresult) -> Result<(), ProverError> {
    if r == cust::sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(classify(what, r as u32, &format!("{r:?}")))
    }
}
