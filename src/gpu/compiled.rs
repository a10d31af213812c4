//! A compiled circuit in VRAM: uploaded once per device when the prover is
//! built; per proof, a kernel evaluates a, b, c from the witness in a
//! worker's slot, and another checks a·b = c there.
//!
//! One buffer holds, in u64 words: the coefficient table (Montgomery form,
//! as blstrs keeps it), then per matrix its row offsets (u32, padded to a
//! word) and entries, then the three density bitmaps, which are copied
//! into a slot device to device instead of being uploaded per proof, then
//! per matrix the indices of its long rows (u32), which a warp evaluates
//! each (a real PoRep partition's a·b·c took 112 ms with a thread per row,
//! its few long rows holding up whole warps).

use cust::memory::DevicePointer;
use cust::stream::Stream;

use super::bound_buffer::BoundBuffer;
use super::elementwise::scalar_limbs;
use super::launch::{kernel_args, launch_elementwise};
use crate::vram::slot_layout::FR_WORDS;
use super::{gpu_err, sys_check, GpuDevice};
use crate::compiled::{CompiledCircuit, SparseRows};
use crate::error::ProverError;
use cuzk_kernels::r1cs::LONG_ROW;

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
    /// Per matrix, where its long rows' indices are and how many.
    long: [(usize, u32); 3],
    rows: usize,
}

/// Per matrix, the rows longer than `LONG_ROW` entries: found once per
/// prover (a pass over every row offset), for the VRAM budget and for
/// each device's upload.
pub(crate) struct LongRows([Vec<u32>; 3]);

impl LongRows {
    pub fn of(c: &CompiledCircuit) -> Self {
        LongRows(c.matrices().each_ref().map(long_rows))
    }
}

/// The rows of `m` longer than `LONG_ROW` entries.
fn long_rows(m: &SparseRows) -> Vec<u32> {
    m.row_start().windows(2).enumerate().filter(|(_, w)| w[1] - w[0] > LONG_ROW).map(|(i, _)| i as u32).collect()
}

/// Where everything goes, and the total words.
fn layout(c: &CompiledCircuit, long: &LongRows) -> (usize, [MatrixAt; 3], [(usize, usize); 3], [(usize, u32); 3], usize) {
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
    let long = long.0.each_ref().map(|rows| {
        let place = (at, rows.len() as u32);
        at += rows.len().div_ceil(2);
        place
    });
    (0, matrices, densities, long, at)
}

impl GpuCompiled {
    /// Bytes it takes in VRAM (the VRAM budget).
    pub fn words(c: &CompiledCircuit, long: &LongRows) -> usize {
        layout(c, long).4
    }

    /// Uploads `c`, whose long rows are `long_lists`, to `gpu` (blocking;
    /// at prover build).
    pub fn upload(gpu: &GpuDevice, c: &CompiledCircuit, long_lists: &LongRows) -> Result<Self, ProverError> {
        gpu.bind()?;
        let (coeffs_at, matrices, densities, long, words) = layout(c, long_lists);
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
        for (rows, &(at, _)) in long_lists.0.iter().zip(&long) {
            copy(at, bytemuck::cast_slice(rows))?;
        }
        Ok(GpuCompiled { buf, coeffs_at, matrices, densities, long, rows: c.constraints() })
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
        for ((m, &(long_at, mut count)), mut dst) in self.matrices.iter().zip(&self.long).zip(out) {
            let (mut row_start, mut entries) = (self.at(m.row_start), self.at(m.entries));
            let mut skip_long = u32::from(count > 0);
            let args = kernel_args![row_start, entries, coeffs, z, dst, rows, n, skip_long];
            launch_elementwise(&gpu.module, stream, "r1cs_rows", n, &args)?;
            if count > 0 {
                // A warp per long row; the same stream orders it after the
                // short rows (it writes only its own rows).
                let mut long_rows = self.at(long_at).cast::<u32>();
                let args = kernel_args![row_start, entries, coeffs, z, dst, long_rows, count];
                launch_elementwise(&gpu.module, stream, "r1cs_long_rows", count.saturating_mul(32), &args)?;
            }
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
