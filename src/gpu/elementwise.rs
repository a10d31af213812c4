//! Element-wise arithmetic on the GPU: the first kernels, and the check
//! that our Rust field and curve code runs on the device exactly as blstrs
//! computes.
//!
//! [`map_kernel`] runs any one-element-per-thread kernel of
//! `kernels/src/gpu/elementwise.rs` over host buffers; [`fr_binary`] is the
//! typed Fr front end on top of it.

use std::ffi::c_void;

use blstrs::Scalar;
use cuzk_kernels::ff::ScalarForm;
use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer};
use cust::stream::{Stream, StreamFlags};
use cuzk_kernels::layout::{
    FP2_LIMBS, FP_LIMBS, FR_LIMBS, G1_AFFINE_LIMBS, G1_JACOBIAN_LIMBS, G1_XYZZ_LIMBS, G2_AFFINE_LIMBS,
    G2_JACOBIAN_LIMBS, G2_XYZZ_LIMBS,
};

use super::launch::launch_elementwise;
use super::{gpu_err, GpuDevice};
use crate::error::ProverError;

/// An element-wise Fr operation on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrOp {
    /// a + b
    Add,
    /// a − b
    Sub,
    /// a · b
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
    let limbs = map_kernel(gpu, op.kernel(), &[scalar_limbs(a), scalar_limbs(b)], FR_LIMBS, a.len())?;
    Ok(limbs_to_scalars(&limbs))
}

/// The element-wise kernels [`map_kernel`] may launch: name, `u64` words
/// per element of each input (in parameter order), words per output
/// element. Every one takes `(inputs..., out: *mut u64, n: u32)`.
///
/// Launching is only memory-safe when the buffers are as large as the
/// kernel reads and writes, so the launcher accepts these kernels alone and
/// checks every length against this table.
const KERNELS: &[(&str, &[usize], usize)] = &[
    ("fr_add", &[FR_LIMBS, FR_LIMBS], FR_LIMBS),
    ("fr_sub", &[FR_LIMBS, FR_LIMBS], FR_LIMBS),
    ("fr_mul", &[FR_LIMBS, FR_LIMBS], FR_LIMBS),
    ("fr_sqr", &[FR_LIMBS], FR_LIMBS),
    ("fr_neg", &[FR_LIMBS], FR_LIMBS),
    ("fr_dbl", &[FR_LIMBS], FR_LIMBS),
    ("fr_inv", &[FR_LIMBS], FR_LIMBS),
    ("fr_to_mont", &[FR_LIMBS], FR_LIMBS),
    ("fr_from_mont", &[FR_LIMBS], FR_LIMBS),
    ("fp_add", &[FP_LIMBS, FP_LIMBS], FP_LIMBS),
    ("fp_sub", &[FP_LIMBS, FP_LIMBS], FP_LIMBS),
    ("fp_mul", &[FP_LIMBS, FP_LIMBS], FP_LIMBS),
    ("fp_sqr", &[FP_LIMBS], FP_LIMBS),
    ("fp_neg", &[FP_LIMBS], FP_LIMBS),
    ("fp_dbl", &[FP_LIMBS], FP_LIMBS),
    ("fp_inv", &[FP_LIMBS], FP_LIMBS),
    ("fp_to_mont", &[FP_LIMBS], FP_LIMBS),
    ("fp_from_mont", &[FP_LIMBS], FP_LIMBS),
    ("fp2_add", &[FP2_LIMBS, FP2_LIMBS], FP2_LIMBS),
    ("fp2_sub", &[FP2_LIMBS, FP2_LIMBS], FP2_LIMBS),
    ("fp2_mul", &[FP2_LIMBS, FP2_LIMBS], FP2_LIMBS),
    ("fp2_mul2", &[FP2_LIMBS, FP2_LIMBS], FP2_LIMBS),
    ("fp2_sqr", &[FP2_LIMBS], FP2_LIMBS),
    ("fp2_neg", &[FP2_LIMBS], FP2_LIMBS),
    ("fp2_dbl", &[FP2_LIMBS], FP2_LIMBS),
    ("fp2_inv", &[FP2_LIMBS], FP2_LIMBS),
    ("g1_add_mixed", &[G1_XYZZ_LIMBS, G1_AFFINE_LIMBS], G1_XYZZ_LIMBS),
    ("g1_add", &[G1_XYZZ_LIMBS, G1_XYZZ_LIMBS], G1_XYZZ_LIMBS),
    ("g1_dbl", &[G1_XYZZ_LIMBS], G1_XYZZ_LIMBS),
    ("g1_dbl_jacobian", &[G1_JACOBIAN_LIMBS], G1_JACOBIAN_LIMBS),
    ("g1_to_jacobian", &[G1_XYZZ_LIMBS], G1_JACOBIAN_LIMBS),
    ("g1_affine_to_xyzz", &[G1_AFFINE_LIMBS], G1_XYZZ_LIMBS),
    ("g2_add_mixed", &[G2_XYZZ_LIMBS, G2_AFFINE_LIMBS], G2_XYZZ_LIMBS),
    ("g2_add", &[G2_XYZZ_LIMBS, G2_XYZZ_LIMBS], G2_XYZZ_LIMBS),
    ("g2_dbl", &[G2_XYZZ_LIMBS], G2_XYZZ_LIMBS),
    ("g2_dbl_jacobian", &[G2_JACOBIAN_LIMBS], G2_JACOBIAN_LIMBS),
    ("g2_to_jacobian", &[G2_XYZZ_LIMBS], G2_JACOBIAN_LIMBS),
    ("g2_affine_to_xyzz", &[G2_AFFINE_LIMBS], G2_XYZZ_LIMBS),
];

/// Runs the element-wise kernel `kernel` over `n` elements on `gpu`,
/// blocking: uploads each of `inputs` (packed elements, `n` of them per
/// buffer), launches one thread per element and returns the `n * out_words`
/// output words.
///
/// `kernel` must be one of the element-wise kernels (`fr_*`, `fp_*`,
/// `fp2_*`, `g1_*`, `g2_*` of `kernels/src/gpu/elementwise.rs`); the number
/// of inputs, their lengths and `out_words` are checked against its
/// signature, so a call can never make the kernel read or write outside its
/// buffers. The output buffer starts as all-ones bytes, so an element the
/// kernel fails to write comes back as `u64::MAX` words (not a reduced field
/// element, hence never a correct result).
pub fn map_kernel(
    gpu: &GpuDevice,
    kernel: &str,
    inputs: &[&[u64]],
    out_words: usize,
    n: usize,
) -> Result<Vec<u64>, ProverError> {
    let &(_, in_words, expected_out) = KERNELS
        .iter()
        .find(|(name, _, _)| *name == kernel)
        .ok_or_else(|| ProverError::Config(format!("{kernel} is not an element-wise kernel")))?;
    if inputs.len() != in_words.len() {
        return Err(ProverError::Config(format!("{kernel} takes {} inputs, got {}", in_words.len(), inputs.len())));
    }
    if out_words != expected_out {
        return Err(ProverError::Config(format!("{kernel} writes {expected_out} words per element, not {out_words}")));
    }
    let n32 = u32::try_from(n).map_err(|_| ProverError::Config("more than 2^32 - 1 elements".into()))?;
    let words = |per: usize| n.checked_mul(per).ok_or_else(|| ProverError::Config("buffer size overflows".into()));
    for (input, &per) in inputs.iter().zip(in_words) {
        let expected = words(per)?;
        if input.len() != expected {
            return Err(ProverError::WrongLength { what: "kernel input", expected, got: input.len() });
        }
    }
    let out_len = words(out_words)?;
    if n == 0 {
        return Ok(Vec::new());
    }

    gpu.bind()?;
    // A blocking stream (not NON_BLOCKING): it waits for the legacy default
    // stream, on which the synchronous uploads below are ordered. For
    // pageable memory cuMemcpyHtoD may return before its DMA has landed.
    let stream = Stream::new(StreamFlags::DEFAULT, None).map_err(|e| gpu_err("stream", e))?;
    let device_inputs = inputs
        .iter()
        .map(|input| DeviceBuffer::from_slice(input).map_err(|e| gpu_err("upload input", e)))
        .collect::<Result<Vec<_>, _>>()?;
    let out = DeviceBuffer::from_slice(&vec![u64::MAX; out_len]).map_err(|e| gpu_err("upload output poison", e))?;

    let mut pointers: Vec<DevicePointer<u64>> = device_inputs.iter().map(|b| b.as_device_ptr()).collect();
    pointers.push(out.as_device_ptr());
    let mut count = n32;
    let mut args: Vec<*mut c_void> = pointers.iter_mut().map(|p| p as *mut DevicePointer<u64> as *mut c_void).collect();
    args.push(&mut count as *mut u32 as *mut c_void);
    // SAFETY: `kernel` is in KERNELS, so its parameters are (inputs..., out:
    // *mut u64, n: u32), exactly `args`; each buffer holds `n` elements of
    // the width the kernel reads or writes (checked above), and all of them
    // outlive the synchronize below.
    unsafe { launch_elementwise(&gpu.module, &stream, kernel, n32, &args)? };
    stream.synchronize().map_err(|e| gpu_err(kernel, e))?;

    let mut result = vec![0u64; out_len];
    out.copy_to(&mut result[..]).map_err(|e| gpu_err("download output", e))?;
    Ok(result)
}

/// blstrs' `Scalar` is `repr(transparent)` over four little-endian u64
/// Montgomery limbs, exactly what the kernels read.
pub fn scalar_limbs(s: &[Scalar]) -> &[u64] {
    const { assert!(std::mem::size_of::<Scalar>() == 8 * FR_LIMBS) };
    // SAFETY: size checked above; u64 alignment ≤ Scalar's; every bit
    // pattern is a valid u64.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len() * FR_LIMBS) }
}

/// The scalars' integers as four little-endian u64 limbs each: what the
/// H step writes when asked for `ScalarForm::Canonical`, and what an MSM
/// of that form reads.
pub fn canonical_limbs(s: &[Scalar]) -> Vec<u64> {
    // The parameter generator's kernels read the same words.
    crate::parameters::generate::canonical_words(s)
}

/// The scalars' limbs as a buffer of `form` holds them: [`scalar_limbs`]
/// or [`canonical_limbs`].
pub fn limbs_in(form: ScalarForm, s: &[Scalar]) -> std::borrow::Cow<'_, [u64]> {
    match form {
        ScalarForm::Montgomery => scalar_limbs(s).into(),
        ScalarForm::Canonical => canonical_limbs(s).into(),
    }
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
