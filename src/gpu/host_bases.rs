//! A streamed query's bases in pinned host memory, in the MSMs' layout,
//! from which each proof copies them to the GPU a chunk at a time.
//!
//! Host parameters are pinned where they lie (`cuMemHostRegister`: no
//! second copy); a parameter file's points are decoded on the GPU piece by
//! piece and brought back once, into memory allocated pinned
//! (`params_upload.rs`).

use std::sync::Arc;

use bellperson::groth16::Parameters;
use blstrs::Bls12;
use cust::memory::LockedBuffer;
use log::warn;

use super::device_context::DeviceContext;
use super::msm::{params_query_words, MsmCurve};
use super::{sys_check, GpuDevice};
use crate::error::ProverError;
use crate::parameters::params_file::Query;
use crate::vram::proof_msms::query_curve;

pub(super) struct HostBases {
    words: HostWords,
    len: usize,
    curve: MsmCurve,
}

enum HostWords {
    /// Host parameters' own vector, registered with the driver.
    Registered { _params: Arc<Parameters<Bls12>>, ptr: *const u64, context: DeviceContext },
    /// Memory allocated pinned.
    Locked(LockedBuffer<u64>),
}

// SAFETY: the pointer is into parameters this holds (read-only) or into a
// buffer it owns; the driver's pinned memory is usable from any thread.
unsafe impl Send for HostBases {}
unsafe impl Sync for HostBases {}

impl HostBases {
    /// `query` of host parameters, pinned in place (or, if the driver
    /// refuses, copied into pinned memory).
    pub fn from_params(gpu: &GpuDevice, params: &Arc<Parameters<Bls12>>, query: Query) -> Result<Self, ProverError> {
        let (src, len) = params_query_words(params, query)?;
        let (ptr, words, curve) = (src.as_ptr(), src.len(), query_curve(query));
        if words == 0 {
            return Ok(HostBases { words: HostWords::Locked(LockedBuffer::new(&0u64, 1).map_err(|e| super::gpu_err("pinned bases", e))?), len, curve });
        }
        gpu.bind()?;
        // SAFETY: the vector lives as long as `params`, which this holds;
        // it is unregistered in Drop, before that reference goes.
        let r = unsafe { cust::sys::cuMemHostRegister_v2(ptr as *mut _, words * 8, cust::sys::CU_MEMHOSTREGISTER_PORTABLE) };
        if r == cust::sys::CUresult::CUDA_SUCCESS {
            return Ok(HostBases { words: HostWords::Registered { _params: Arc::clone(params), ptr, context: gpu.context().clone() }, len, curve });
        }
        warn!("cuMemHostRegister of the {query} ({:.2} GB) refused ({r:?}); copying it into pinned memory", words as f64 * 8e-9);
        let mut buf = LockedBuffer::new(&0u64, words).map_err(|e| super::gpu_err("pinned bases", e))?;
        buf.copy_from_slice(src);
        Ok(HostBases { words: HostWords::Locked(buf), len, curve })
    }

    /// Bases decoded elsewhere, in a pinned buffer.
    pub fn from_locked(buf: LockedBuffer<u64>, len: usize, query: Query) -> Self {
        HostBases { words: HostWords::Locked(buf), len, curve: query_curve(query) }
    }

    /// The first word of base 0.
    pub fn ptr(&self) -> *const u64 {
        match &self.words {
            HostWords::Registered { ptr, .. } => *ptr,
            HostWords::Locked(buf) => buf.as_ptr(),
        }
    }

    /// The words of the first `len` bases (all, if it holds fewer).
    pub fn words(&self, len: usize) -> &[u64] {
        let words = len.min(self.len) * self.curve.affine_limbs();
        // SAFETY: `ptr` holds `self.len` bases of `affine_limbs` words,
        // pinned for as long as this lives (read-only).
        unsafe { std::slice::from_raw_parts(self.ptr(), words) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn curve(&self) -> MsmCurve {
        self.curve
    }
}

impl Drop for HostBases {
    fn drop(&mut self) {
        if let HostWords::Registered { ptr, context, .. } = &self.words {
            let _ = context.set_current();
            // SAFETY: registered in `from_params`, still allocated.
            let _ = sys_check("cuMemHostUnregister", unsafe { cust::sys::cuMemHostUnregister(*ptr as *mut _) });
        }
    }
}
