//! Element-wise Fr arithmetic on the GPU: the first kernels, and the check
//! that our Rust field code runs on the device exactly as blstrs computes.

use std::ffi::c_void;

use blstrs::Scalar;
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::stream::{Stream, StreamFlags};

use super::launch::launch_elementwise;
use super::{gpu_err, GpuDevice};
use crate::error::ProverError;

const FR_LIMBS: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrOp {
    Add,
    Sub,
    Mul,
}

impl FrOp {
    fn kernel(self) -> &'static str {
        match self {
            FrOp::Add => "fr_add",
            FrOp::Sub => "fr_sub",
            FrOp::Mul => "fr_mul",
        }
    }
}

/// `out[i] = a[i] op b[i]` on `gpu`, blocking. blstrs scalars go up and
/// come back without conversion (same Montgomery limbs).
pub fn fr_binary(gpu: &GpuDevice, op: FrOp, a: &[Scalar], b: &[Scalar]) -> Result<Vec<Scalar>, ProverError> {
    if a.len() != b.len() {
        return Err(ProverError::WrongLength { what: "second operand", expected: a.len(), got: b.len() });
    }
    let n = u32::try_from(a.len()).map_err(|_| ProverError::Config("more than 2^32 elements".into()))?;
    gpu.bind()?;
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?;
    let da = DeviceBuffer::from_slice(scalar_limbs(a)).map_err(|e| gpu_err("upload a", e))?;
    let db = DeviceBuffer::from_slice(scalar_limbs(b)).map_err(|e| gpu_err("upload b", e))?;
    let out = DeviceBuffer::<u64>::zeroed(a.len() * FR_LIMBS).map_err(|e| gpu_err("alloc out", e))?;
    let (mut pa, mut pb, mut po, mut pn) = (da.as_device_ptr(), db.as_device_ptr(), out.as_device_ptr(), n);
    let args = [
        &mut pa as *mut _ as *mut c_void,
        &mut pb as *mut _ as *mut c_void,
        &mut po as *mut _ as *mut c_void,
        &mut pn as *mut _ as *mut c_void,
    ];
    // SAFETY: fr_add/sub/mul take (a, b, out: *u64, n: u32); the buffers
    // outlive the synchronize below.
    unsafe { launch_elementwise(&gpu.module, &stream, op.kernel(), n, &args)? };
    stream.synchronize().map_err(|e| gpu_err(op.kernel(), e))?;
    let mut limbs = vec![0u64; a.len() * FR_LIMBS];
    out.copy_to(&mut limbs[..]).map_err(|e| gpu_err("download", e))?;
    Ok(limbs_to_scalars(&limbs))
}

/// blstrs' `Scalar` is `repr(transparent)` over four little-endian u64
/// Montgomery limbs, exactly what the kernels read.
pub fn scalar_limbs(s: &[Scalar]) -> &[u64] {
    const { assert!(std::mem::size_of::<Scalar>() == 8 * FR_LIMBS) };
    // SAFETY: size checked above; u64 alignment ≤ Scalar's; every bit
    // pattern is a valid u64.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len() * FR_LIMBS) }
}

fn limbs_to_scalars(limbs: &[u64]) -> Vec<Scalar> {
    limbs
        .chunks_exact(FR_LIMBS)
        .map(|l| {
            let l: [u64; 4] = l.try_into().expect("chunk of 4");
            // SAFETY: the kernels return reduced Montgomery values, which is
            // what a Scalar holds; the test compares them with blstrs.
            unsafe { std::mem::transmute::<[u64; 4], Scalar>(l) }
        })
        .collect()
}
