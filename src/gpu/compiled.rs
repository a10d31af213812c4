//! A compiled circuit in VRAM: uploaded once per device when the prover is
//! built; per proof, a kernel evaluates a, b, c from the witness in a
//! worker's slot, and another checks a·b = c there.
//!
//! One buffer holds, in u64 words: the coefficient table (Montgomery form,
//! as blstrs keeps it), then per matrix its row offsets (u32, padded to a
//! word) and entries, then the three density bitmaps, which are copied
//! into a slot device to device instead of being uploaded per proof.

use cust::memory::DevicePointer;
use cust::stream::Stream;

use super::bound_buffer::BoundBuffer;
use super::elementwise::scalar_limbs;
use super::launch::{kernel_args, launch_elementwise};
use super::slot_layout::FR_WORDS;
use super::{gpu_err, sys_check, GpuDevice};
use crate::compiled::CompiledCircuit;
use crate::error::ProverError;

/// Word offsets of one matrix in the buffer.
#[derive(Clone, Copy, Debug)]
struct MatrixAt {
    row_start: usize,
    entries: usize,
}

pub(crate) struct GpuCompiled {
    buf: BoundBuffer,
    coeffs_at: usize,
    matrices: [MatrixAt; 3],
    /// A-aux, B-aux, B-input bitmaps (the slot's order) and their words.
    densities: [(usize, usize); 3],
    rows: usize,
}

/// Where everything goes, and the total words.
fn layout(c: &CompiledCircuit) -> (usize, [MatrixAt; 3], [(usize, usize); 3], usize) {
    let mut at = c.coefficients().len() * FR_WORDS;
    let matrices = c.matrices().each_ref().map(|m| {
        let row_start = at;
        let entries = row_start + m.row_start().len().div_ceil(2);
        at = entries + m.nonzeros();
        MatrixAt { row_start, entries }
    });
    let [a_aux, b_input, b_aux] = c.densities();
    let densities = [a_aux, b_aux, b_input].map(|d| {
        let place = (at, d.words().len());
        at += d.words().len();
        place
    });
    (0, matrices, densities, at)
}

impl GpuCompiled {
    /// Bytes it takes in VRAM (the VRAM budget).
    pub fn words(c: &CompiledCircuit) -> usize {
        layout(c).3
    }

    /// Uploads `c` to `gpu` (blocking; at prover build).
    pub fn upload(gpu: &GpuDevice, c: &CompiledCircuit) -> Result<Self, ProverError> {
        gpu.bind()?;
        let (coeffs_at, matrices, densities, words) = layout(c);
        // SAFETY: u64 has no invalid bit patterns; every word the kernels
        // read is written below.
        let raw = unsafe { cust::memory::DeviceBuffer::<u64>::uninitialized(words.max(1)) }.map_err(|e| gpu_err("reserve compiled circuit", e))?;
        let buf = BoundBuffer::new(gpu, raw)?;
        let base = buf.as_device_ptr();
        let copy = |words_at: usize, bytes: &[u8]| -> Result<(), ProverError> {
            if bytes.is_empty() {
                return Ok(());
            }
            // SAFETY: the range lies in the buffer (layout above).
            unsafe { sys_check("upload compiled circuit", cust::sys::cuMemcpyHtoD_v2(base.add(words_at).as_raw(), bytes.as_ptr().cast(), bytes.len())) }
        };
        copy(coeffs_at, bytemuck::cast_slice(scalar_limbs(c.coefficients())))?;
        for (m, at) in c.matrices().iter().zip(&matrices) {
            copy(at.row_start, bytemuck::cast_slice(m.row_start()))?;
            copy(at.entries, bytemuck::cast_slice(m.entries()))?;
        }
        let [a_aux, b_input, b_aux] = c.densities();
        for (d, &(at, _)) in [a_aux, b_aux, b_input].iter().zip(&densities) {
            copy(at, bytemuck::cast_slice(d.words()))?;
        }
        Ok(GpuCompiled { buf, coeffs_at, matrices, densities, rows: c.constraints() })
    }

    /// Rows (constraints, the input rows included).
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn at(&self, words: usize) -> DevicePointer<u64> {
        // SAFETY: callers pass offsets from the layout, inside the buffer.
        unsafe { self.buf.as_device_ptr().add(words) }
    }

    /// Enqueues copies of the A-aux, B-aux and B-input densities to `to`.
    pub fn copy_densities(&self, stream: &Stream, to: [DevicePointer<u64>; 3]) -> Result<(), ProverError> {
        for (&(at, words), dst) in self.densities.iter().zip(to) {
            if words == 0 {
                continue;
            }
            // SAFETY: both ranges hold `words` words (layouts of the same
            // circuit's shape); the buffer outlives the engine's streams.
            unsafe {
                sys_check(
                    "copy densities",
                    cust::sys::cuMemcpyDtoDAsync_v2(dst.as_raw(), self.at(at).as_raw(), words * 8, stream.as_inner()),
                )?
            };
        }
        Ok(())
    }

    /// Enqueues a, b, c = A·z, B·z, C·z into `out`, each `domain` scalars
    /// (rows past the circuit's are zeroed).
    ///
    /// # Safety
    /// `z` must hold the circuit's inputs then aux and `out` three buffers
    /// of `domain ≥ rows` scalars, all left alone until the stream is past
    /// the kernels.
    pub unsafe fn enqueue_abc(&self, gpu: &GpuDevice, stream: &Stream, z: DevicePointer<u64>, out: [DevicePointer<u64>; 3], domain: usize) -> Result<(), ProverError> {
        let (rows, n) = (u32::try_from(self.rows), u32::try_from(domain));
        let (Ok(mut rows), Ok(mut n)) = (rows, n) else { return Err(ProverError::DomainTooLarge { log_size: domain.trailing_zeros() }) };
        if domain < self.rows {
            return Err(ProverError::ParamsMismatch { what: "evaluation domain (compiled rows)", params: domain, circuit: self.rows });
        }
        let mut coeffs = self.at(self.coeffs_at);
        let mut z = z;
        for (m, mut dst) in self.matrices.iter().zip(out) {
            let (mut row_start, mut entries) = (self.at(m.row_start), self.at(m.entries));
            let args = kernel_args![row_start, entries, coeffs, z, dst, rows, n];
            launch_elementwise(&gpu.module, stream, "r1cs_rows", n, &args)?;
        }
        Ok(())
    }

    /// Enqueues the check a·b = c over the circuit's rows: `first_bad` is
    /// set to u32::MAX, then lowered to the first failing row, if any.
    ///
    /// # Safety
    /// As for [`GpuCompiled::enqueue_abc`]; `first_bad` one u32.
    pub unsafe fn enqueue_check(&self, gpu: &GpuDevice, stream: &Stream, abc: [DevicePointer<u64>; 3], first_bad: DevicePointer<u32>) -> Result<(), ProverError> {
        sys_check("reset check", cust::sys::cuMemsetD32Async(first_bad.as_raw(), u32::MAX, 1, stream.as_inner()))?;
        let [mut a, mut b, mut c] = abc;
        let mut n = self.rows as u32;
        let mut first_bad = first_bad;
        let args = kernel_args![a, b, c, n, first_bad];
        launch_elementwise(&gpu.module, stream, "r1cs_check", n, &args)
    }
}
