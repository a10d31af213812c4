//! Multi-scalar multiplication on the GPU: Pippenger with signed windows,
//! a counting sort of (base, sign) entries by bucket, bucket sums by a
//! size-oblivious segmented reduction, and the bucket/window reduction on
//! the device; the host gets one projective point per MSM. The algorithm is
//! described in `cuzk_kernels::msm`; the launch sequence and the arena
//! layout in `cuzk_kernels::msm::plan`.
//!
//! Calls are asynchronous on a caller-given stream and allocate nothing:
//! bases live in a [`GpuBases`] uploaded once, working memory comes from a
//! caller-supplied arena of [`msm_scratch_bytes`], and the result is written
//! to a caller-given device address. [`msm_g1_blocking`] /
//! [`msm_g2_blocking`] wrap a whole call (upload, run, download) for tests
//! and simple use.

use std::ffi::c_void;

use bellperson::groth16::Parameters;
use blstrs::{Bls12, G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use crate::parameters::params_file::Query;
use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer, DeviceSlice};
use cust::event::{Event, EventFlags};
use cust::stream::{Stream, StreamFlags};
use cuzk_kernels::layout::{G1_AFFINE_LIMBS, G1_JACOBIAN_LIMBS, G2_AFFINE_LIMBS, G2_JACOBIAN_LIMBS};
use cuzk_kernels::msm::plan::{MsmIo, Step, MSM_BLOCK};
use cuzk_kernels::msm::tables::{TABLE_BATCH, TABLE_SCRATCH_ELEMENTS};

pub use cuzk_kernels::msm::plan::{default_window_bits, default_window_bits_for, table_spacing_bits, Accumulation, Carry, Curve as MsmCurve, Level0Waves, MsmConfig, MsmPlan, Sort, WindowCut};

pub use cuzk_kernels::ff::ScalarForm;

use super::bound_buffer::BoundBuffer;
use super::elementwise::scalar_limbs;
use super::launch::launch_blocks_of;
use super::{gpu_err, sys_check, GpuDevice};
use crate::witness::density::Density;
use crate::error::ProverError;

// Kernel `u32` parameters are passed as pointers to `u64` values (see
// `Step::args`), which is only right on little-endian hosts.
const _: () = assert!(cfg!(target_endian = "little"));

/// The first accumulation level's threads that `gpu` runs at once, per
/// curve (its multiprocessors × the XYZZ kernel's resident blocks × the
/// block), for [`MsmConfig::level0_waves`].
pub fn level0_waves(gpu: &GpuDevice) -> Result<Level0Waves, ProverError> {
    gpu.bind()?;
    let device = cust::device::Device::get_device(gpu.ordinal).map_err(|e| gpu_err("cuDeviceGet", e))?;
    let sms = device.get_attribute(cust::device::DeviceAttribute::MultiprocessorCount).map_err(|e| gpu_err("multiprocessor count", e))? as u32;
    let wave = |name: &str| -> Result<u32, ProverError> {
        let func = gpu.module.get_function(name).map_err(|e| gpu_err(name, e))?;
        let blocks = func.max_active_blocks_per_multiprocessor(MSM_BLOCK.into(), 0).map_err(|e| gpu_err("occupancy", e))?;
        Ok(sms * blocks * MSM_BLOCK)
    };
    Ok(Level0Waves { g1: wave("msm_g1_accumulate0")?, g2: wave("msm_g2_accumulate0")? })
}

/// Points per launch of the table kernel: bounds its scratch (three field
/// elements per point).
const TABLE_CHUNK_POINTS: usize = 1 << 22;

/// Arena bytes an MSM of `n` scalars on `curve` needs with window bits `c`
/// (0: [`default_window_bits_for`]) and default settings otherwise. For other
/// settings use `MsmPlan::new(n, curve, &config)?.scratch_bytes()`.
pub fn msm_scratch_bytes(n: usize, curve: MsmCurve, c: u32) -> Result<usize, ProverError> {
    let config = MsmConfig { window_bits: c, ..MsmConfig::default() };
    plan(n, curve, &config).map(|p| p.scratch_bytes())
}

fn plan(n: usize, curve: MsmCurve, config: &MsmConfig) -> Result<MsmPlan, ProverError> {
    MsmPlan::new(n, curve, config).map_err(|e| ProverError::Config(e.into()))
}

/// Affine bases in device memory (blst layout, identity = all zeros),
/// uploaded once and reused by any number of MSMs.
///
/// Like every device buffer it must be dropped while its device's context
/// is current on the dropping thread (`GpuDevice::bind`).
pub struct GpuBases {
    /// Freed in its own context, whichever thread drops it.
    buf: BoundBuffer,
    len: usize,
    curve: MsmCurve,
    /// Precomputed tables held (1: the bases alone) and the window bits
    /// they were made for (see `MsmConfig::tables`).
    tables: u32,
    table_c: u32,
}

impl GpuBases {
    /// Uploads G1 bases (blstrs' affine layout, as is).
    pub fn upload_g1(gpu: &GpuDevice, bases: &[G1Affine]) -> Result<Self, ProverError> {
        Self::upload_words(gpu, g1_words(bases), bases.len(), MsmCurve::G1)
    }

    /// [`Self::upload_g1`] plus `tables − 1` precomputed tables for MSMs
    /// with window bits `c` and `MsmConfig::tables = tables`: table `a`
    /// holds `2^(a · table_spacing_bits(c))·P`, made on the GPU
    /// (doublings, one inversion per `TABLE_BATCH` points; blocks until
    /// done). Costs `tables` times the bases' memory.
    pub fn upload_g1_tables(gpu: &GpuDevice, bases: &[G1Affine], c: u32, tables: u32) -> Result<Self, ProverError> {
        Self::upload_g1(gpu, bases)?.with_tables(gpu, c, tables)
    }

    /// [`Self::upload_g1_tables`] in G2.
    pub fn upload_g2_tables(gpu: &GpuDevice, bases: &[G2Affine], c: u32, tables: u32) -> Result<Self, ProverError> {
        Self::upload_g2(gpu, bases)?.with_tables(gpu, c, tables)
    }

    /// The first `len` bases (all, if there are fewer), in a buffer of their
    /// own, with `tables − 1` tables as [`Self::upload_g1_tables`] makes.
    pub(crate) fn prefix_with_tables(&self, gpu: &GpuDevice, len: usize, c: u32, tables: u32) -> Result<Self, ProverError> {
        let len = len.min(self.len);
        let words = len * self.curve.affine_limbs();
        gpu.bind()?;
        // SAFETY: u64 accepts any bit pattern; the copy writes every word.
        let buf = unsafe { DeviceBuffer::<u64>::uninitialized(words.max(1)) }.map_err(|e| gpu_err("MSM base prefix", e))?;
        if words > 0 {
            buf.index(..words).copy_from(&self.buf.index(..words)).map_err(|e| gpu_err("MSM base prefix", e))?;
        }
        Self::from_device(gpu, buf, len, self.curve)?.with_tables(gpu, c, tables)
    }

    /// These bases with `tables − 1` tables for window bits `c` (blocks
    /// until they are made).
    pub(crate) fn with_tables(self, gpu: &GpuDevice, c: u32, tables: u32) -> Result<Self, ProverError> {
        let config = MsmConfig { window_bits: c, tables, ..MsmConfig::default() };
        // Checks c and the table count against the windows.
        plan(self.len.max(1), self.curve, &config)?;
        if tables <= 1 {
            return Ok(self);
        }
        if (self.len as u64) * tables as u64 >= 1 << 31 {
            return Err(ProverError::Config(format!("{tables} tables of {} bases exceed 2^31 - 1 bases", self.len)));
        }
        let words = self.len * self.curve.affine_limbs();
        // SAFETY: u64 accepts any bit pattern; every word is written below.
        let buf = unsafe { DeviceBuffer::<u64>::uninitialized((words * tables as usize).max(1)) }
            .map_err(|e| gpu_err("MSM base tables", e))?;
        if words > 0 {
            buf.index(..words).copy_from(&self.buf.index(..words)).map_err(|e| gpu_err("MSM base tables", e))?;
        }
        let stream = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?;
        let name = match self.curve {
            MsmCurve::G1 => "msm_g1_tables",
            MsmCurve::G2 => "msm_g2_tables",
        };
        let spacing = table_spacing_bits(c);
        // The kernel's scratch (ZZ, ZZZ and a running product per point),
        // for one chunk of points at a time: a one-time allocation while
        // the bases are set up, at most ≈ 1.2 GB (G2).
        let affine = self.curve.affine_limbs();
        let field = affine / 2;
        let chunk = self.len.min(TABLE_CHUNK_POINTS);
        // SAFETY: scratch only; the kernel writes before it reads.
        let scratch = unsafe { DeviceBuffer::<u64>::uninitialized((chunk * TABLE_SCRATCH_ELEMENTS * field).max(1)) }
            .map_err(|e| gpu_err("MSM table scratch", e))?;
        for a in 1..tables as usize {
            for begin in (0..self.len).step_by(chunk.max(1)) {
                let points = chunk.min(self.len - begin);
                let mut src = buf.as_device_ptr().as_raw() + 8 * (words * (a - 1) + begin * affine) as u64;
                let mut dst = src + 8 * words as u64;
                let mut tmp = scratch.as_device_ptr().as_raw();
                let (mut n, mut bits) = (points as u64, spacing as u64);
                let args = [&mut src, &mut dst, &mut tmp, &mut n, &mut bits].map(|v| v as *mut u64 as *mut c_void);
                // SAFETY: table a − 1 is written (copied, or by an earlier
                // launch on this stream), table a has room for `len` points
                // and the scratch for `chunk`; launches on one stream do not
                // overlap, so chunks can share the scratch.
                let threads = points.div_ceil(TABLE_BATCH) as u32;
                unsafe { launch_blocks_of(&gpu.module, &stream, name, threads, MSM_BLOCK, &args)? };
            }
        }
        stream.synchronize().map_err(|e| gpu_err("MSM base tables", e))?;
        Ok(GpuBases { buf: BoundBuffer::new(gpu, buf)?, tables, table_c: c, ..self })
    }

    /// Uploads G2 bases (blstrs' affine layout, as is).
    pub fn upload_g2(gpu: &GpuDevice, bases: &[G2Affine]) -> Result<Self, ProverError> {
        Self::upload_words(gpu, g2_words(bases), bases.len(), MsmCurve::G2)
    }

    /// Bases already in VRAM, in the MSMs' layout (`len` of them in
    /// `buf`, which belongs to `gpu`).
    pub(crate) fn from_device(gpu: &GpuDevice, buf: DeviceBuffer<u64>, len: usize, curve: MsmCurve) -> Result<Self, ProverError> {
        Ok(GpuBases { buf: BoundBuffer::new(gpu, buf)?, len, curve, tables: 1, table_c: 0 })
    }

    /// Uploads `len` bases on `curve` given as their words in the MSMs'
    /// layout.
    pub(crate) fn upload_words(gpu: &GpuDevice, words: &[u64], len: usize, curve: MsmCurve) -> Result<Self, ProverError> {
        if len >= 1 << 31 {
            return Err(ProverError::Config("at most 2^31 - 1 bases".into()));
        }
        gpu.bind()?;
        // One word even when empty: cust cannot allocate zero bytes.
        let buf = if words.is_empty() {
            DeviceBuffer::from_slice(&[0u64])
        } else {
            DeviceBuffer::from_slice(words)
        }
        .map_err(|e| gpu_err("upload MSM bases", e))?;
        Self::from_device(gpu, buf, len, curve)
    }

    /// Number of bases.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bases.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// G1 or G2.
    pub fn curve(&self) -> MsmCurve {
        self.curve
    }

    /// Tables held (1: none) and the window bits they were made for.
    pub fn tables(&self) -> (u32, u32) {
        (self.tables, self.table_c)
    }

    /// Where the bases (and their tables) are in VRAM.
    pub fn as_device_ptr(&self) -> DevicePointer<u64> {
        self.buf.as_device_ptr()
    }

    /// Where an MSM finds them.
    pub(crate) fn at(&self) -> BasesAt {
        BasesAt { ptr: self.buf.as_device_ptr().as_raw(), len: self.len, curve: self.curve, tables: self.tables, table_c: self.table_c }
    }
}

/// G1 bases' words in the MSMs' layout (blstrs' affine layout, as is).
fn g1_words(bases: &[G1Affine]) -> &[u64] {
    const { assert!(std::mem::size_of::<G1Affine>() == 8 * G1_AFFINE_LIMBS) };
    // SAFETY: G1Affine is repr(transparent) over blst_p1_affine, two Fp of
    // six u64 limbs; size checked above.
    unsafe { std::slice::from_raw_parts(bases.as_ptr().cast::<u64>(), bases.len() * G1_AFFINE_LIMBS) }
}

/// [`g1_words`] in G2.
fn g2_words(bases: &[G2Affine]) -> &[u64] {
    const { assert!(std::mem::size_of::<G2Affine>() == 8 * G2_AFFINE_LIMBS) };
    // SAFETY: as for G1, with Fp2 coordinates (c0, c1).
    unsafe { std::slice::from_raw_parts(bases.as_ptr().cast::<u64>(), bases.len() * G2_AFFINE_LIMBS) }
}

/// One MSM query of host parameters: its bases' words in the MSMs' layout
/// and how many bases.
pub(crate) fn params_query_words(params: &Parameters<Bls12>, query: Query) -> Result<(&[u64], usize), ProverError> {
    Ok(match query {
        Query::H => (g1_words(&params.h), params.h.len()),
        Query::L => (g1_words(&params.l), params.l.len()),
        Query::A => (g1_words(&params.a), params.a.len()),
        Query::BG1 => (g1_words(&params.b_g1), params.b_g1.len()),
        Query::BG2 => (g2_words(&params.b_g2), params.b_g2.len()),
        Query::VerifyingKey => return Err(ProverError::Config("the verifying key is not an MSM query".into())),
    })
}

/// Bases an MSM reads: where they lie in VRAM (a [`GpuBases`], or a
/// staging buffer a streamed piece was copied into) and how many.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BasesAt {
    pub ptr: u64,
    pub len: usize,
    pub curve: MsmCurve,
    /// Tables held (1: none) and the window bits they were made for.
    pub tables: u32,
    pub table_c: u32,
}

/// A density bitmap in device memory: `ceil(n/64)` words, bit `i` selects
/// scalar `i`; `ones` is its population count (how many bases it uses).
/// The MSM is planned for `ones` selected scalars and drops any selected
/// past the first `ones`, so it must be exact.
#[derive(Clone, Copy, Debug)]
pub struct DeviceDensity {
    /// The bitmap's words.
    pub words: DevicePointer<u64>,
    /// Its population count.
    pub ones: usize,
}

/// The scalars of one MSM, already on the device.
#[derive(Clone, Copy, Debug)]
pub struct MsmInput {
    /// `n` scalars, in `form`.
    pub scalars: DevicePointer<u64>,
    /// How the scalars hold their values: blstrs `Scalar` limbs
    /// (Montgomery form) or the integers themselves (as the prover's H
    /// step writes them, sparing the MSM a conversion per window).
    pub form: ScalarForm,
    /// Number of scalars.
    pub n: usize,
    /// Which scalars take part; the `k`-th selected one pairs with base
    /// `base_offset + k`. `None`: all, scalar `i` with base `base_offset + i`.
    pub density: Option<DeviceDensity>,
    /// The first base this MSM uses.
    pub base_offset: usize,
    /// At most how many selected scalars are neither 0 nor 1, if known: the
    /// window is chosen for that many and the sort's room is `general ·
    /// windows + (selected − general)` entries (a witness of zeros and ones
    /// needs far fewer buckets than its length). An undercount overruns
    /// the arena: see the safety rules of [`msm_g1`].
    pub general: Option<usize>,
}

/// Enqueues `Σ scalars[i] · bases[...]` in G1 on `stream`; the result (a
/// `blstrs::G1Projective`, 18 words) is written to `out`. Returns the plan
/// it ran. Nothing is allocated and nothing synchronizes.
///
/// # Safety
/// `input.scalars`, `input.density` and `out` must be valid device memory
/// of the documented sizes in this device's context; the arena, the bases
/// and those buffers must stay alive and untouched by other work until the
/// stream has run the MSM; `input.general`, if given, must be at least the
/// number of selected scalars other than 0 and 1.
pub unsafe fn msm_g1(
    gpu: &GpuDevice,
    stream: &Stream,
    bases: &GpuBases,
    input: &MsmInput,
    config: &MsmConfig,
    arena: &mut DeviceSlice<u64>,
    out: DevicePointer<u64>,
) -> Result<MsmPlan, ProverError> {
    msm_enqueue(gpu, stream, MsmCurve::G1, bases.at(), input, config, arena, out, Carry::WHOLE, &mut |_| Ok(()))
}

/// [`msm_g1`] for G2 (result: a `blstrs::G2Projective`, 36 words).
///
/// # Safety
/// As for [`msm_g1`].
pub unsafe fn msm_g2(
    gpu: &GpuDevice,
    stream: &Stream,
    bases: &GpuBases,
    input: &MsmInput,
    config: &MsmConfig,
    arena: &mut DeviceSlice<u64>,
    out: DevicePointer<u64>,
) -> Result<MsmPlan, ProverError> {
    msm_enqueue(gpu, stream, MsmCurve::G2, bases.at(), input, config, arena, out, Carry::WHOLE, &mut |_| Ok(()))
}

/// One call of an MSM run as several calls that carry their buckets
/// (`cuzk_kernels::msm::plan::Carry`): each call adds its scalars' entries
/// into the bucket sums at the start of `arena`, the first sets them to
/// the identity, and the last reduces them and writes the whole MSM's
/// result to `out` (`bases`' curve). Every call must take the same window
/// (`config.window_bits` set, as the prover does when an MSM's bases or
/// arena hold only a piece) and the XYZZ first level.
///
/// # Safety
/// As for [`msm_g1`]; the calls of one MSM run in order on one stream
/// with one arena, which nothing else uses between them.
#[allow(clippy::too_many_arguments)]
pub unsafe fn msm_carried(
    gpu: &GpuDevice,
    stream: &Stream,
    bases: &GpuBases,
    input: &MsmInput,
    config: &MsmConfig,
    arena: &mut DeviceSlice<u64>,
    out: DevicePointer<u64>,
    carry: Carry,
) -> Result<MsmPlan, ProverError> {
    if carry != Carry::WHOLE && (config.window_bits == 0 || config.accumulation != Accumulation::Xyzz) {
        return Err(ProverError::Config("calls that carry their buckets need one set window (MsmConfig::window_bits) and the XYZZ first level".into()));
    }
    msm_enqueue(gpu, stream, bases.curve, bases.at(), input, config, arena, out, carry, &mut |_| Ok(()))
}

/// Per-step device times of one MSM, or one call of one ([`Carry`]; for
/// tuning): runs it like [`msm_g1`] / [`msm_g2`] / [`msm_carried`] with an
/// event after every step, waits, and returns each step's kernel name
/// (`"memset/copy"` for the others) and milliseconds.
///
/// # Safety
/// As for [`msm_g1`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn msm_profile(
    gpu: &GpuDevice,
    stream: &Stream,
    curve: MsmCurve,
    bases: &GpuBases,
    input: &MsmInput,
    config: &MsmConfig,
    arena: &mut DeviceSlice<u64>,
    out: DevicePointer<u64>,
    carry: Carry,
) -> Result<Vec<(&'static str, f64)>, ProverError> {
    let event = || Event::new(EventFlags::DEFAULT).map_err(|e| gpu_err("event", e));
    let start = event()?;
    start.record(stream).map_err(|e| gpu_err("record event", e))?;
    let mut marks = Vec::new();
    msm_enqueue(gpu, stream, curve, bases.at(), input, config, arena, out, carry, &mut |step| {
        let e = event()?;
        e.record(stream).map_err(|e| gpu_err("record event", e))?;
        marks.push((step.kernel(curve).unwrap_or("memset/copy"), e));
        Ok(())
    })?;
    stream.synchronize().map_err(|e| gpu_err("MSM", e))?;
    let mut prev = &start;
    let mut times = Vec::new();
    for (name, e) in &marks {
        times.push((*name, e.elapsed_time_f32(prev).map_err(|e| gpu_err("event time", e))? as f64));
        prev = e;
    }
    Ok(times)
}

/// [`msm_g1`] / [`msm_g2`] over bases anywhere in VRAM, as one call of
/// an MSM whose calls carry their buckets in the arena ([`Carry`]; a whole
/// MSM: `Carry::WHOLE`). Only the last call writes `out`.
///
/// # Safety
/// As for [`msm_g1`]; `bases.ptr` holds `bases.len` bases (times their
/// tables) until the stream has run the MSM; a call after the first finds
/// the arena as the call before left it, planned at the same window.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn msm_at(
    gpu: &GpuDevice,
    stream: &Stream,
    bases: BasesAt,
    input: &MsmInput,
    config: &MsmConfig,
    arena: &mut DeviceSlice<u64>,
    out: DevicePointer<u64>,
    carry: Carry,
) -> Result<MsmPlan, ProverError> {
    msm_enqueue(gpu, stream, bases.curve, bases, input, config, arena, out, carry, &mut |_| Ok(()))
}

/// Validates, plans and enqueues one MSM, calling `after` once each step is
/// on the stream.
#[allow(clippy::too_many_arguments)]
unsafe fn msm_enqueue(
    gpu: &GpuDevice,
    stream: &Stream,
    curve: MsmCurve,
    bases: BasesAt,
    input: &MsmInput,
    config: &MsmConfig,
    arena: &mut DeviceSlice<u64>,
    out: DevicePointer<u64>,
    carry: Carry,
    after: &mut dyn FnMut(&Step) -> Result<(), ProverError>,
) -> Result<MsmPlan, ProverError> {
    if bases.curve != curve {
        return Err(ProverError::Config(format!("{curve:?} MSM given {:?} bases", bases.curve)));
    }
    if config.tables.max(1) != bases.tables || (bases.tables > 1 && config.window_bits != bases.table_c) {
        return Err(ProverError::Config(format!(
            "MSM with {} tables at c = {} given bases with {} tables made for c = {}",
            config.tables.max(1),
            config.window_bits,
            bases.tables,
            bases.table_c
        )));
    }
    let used = input.density.map_or(input.n, |d| d.ones);
    if input.density.is_some_and(|d| d.ones > input.n) {
        return Err(ProverError::Config(format!("density has {used} set bits for {} scalars", input.n)));
    }
    if input.base_offset + used > bases.len {
        return Err(ProverError::Config(format!(
            "MSM needs bases up to {} (offset {} + {used}), {} uploaded",
            input.base_offset + used,
            input.base_offset,
            bases.len
        )));
    }
    let plan = input_plan(input, curve, config, arena.len())?;
    if arena.len() < plan.scratch_words() {
        return Err(ProverError::Config(format!(
            "MSM arena has {} bytes, needs {}",
            arena.len() * 8,
            plan.scratch_bytes()
        )));
    }
    gpu.bind()?;
    let io = MsmIo {
        bases: bases.ptr,
        n_bases: bases.len as u32,
        base_offset: input.base_offset as u32,
        scalars: input.scalars.as_raw(),
        scalar_form: input.form,
        density: input.density.map_or(0, |d| d.words.as_raw()),
        out: out.as_raw(),
    };
    plan.carried_steps(&io, arena.as_device_ptr().as_raw(), carry, |step| {
        enqueue(gpu, stream, curve, step)?;
        after(&step)
    })?;
    Ok(plan)
}

/// The plan an MSM of `input` runs in an arena of `arena_words`: planned
/// for the selected count (a smaller window and entry bound for sparse
/// densities) when the arena holds that plan, else for all `n` scalars,
/// which an arena of `msm_scratch_bytes(n, …)` always holds.
fn input_plan(input: &MsmInput, curve: MsmCurve, config: &MsmConfig, arena_words: usize) -> Result<MsmPlan, ProverError> {
    let used = input.density.map_or(input.n, |d| d.ones);
    match MsmPlan::for_witness(input.n, used, input.general, curve, config) {
        Ok(p) if p.scratch_words() <= arena_words => Ok(p),
        _ => plan(input.n, curve, config),
    }
}

/// Puts one step of the plan on `stream`.
///
/// # Safety
/// The step's addresses must be valid as the plan describes.
unsafe fn enqueue(gpu: &GpuDevice, stream: &Stream, curve: MsmCurve, step: Step) -> Result<(), ProverError> {
    match step {
        Step::ZeroU32 { dst, len } if len > 0 => {
            sys_check("MSM memset", cust::sys::cuMemsetD32Async(dst, 0, len, stream.as_inner()))
        }
        Step::CopyU32 { src, dst, len } if len > 0 => {
            sys_check("MSM copy", cust::sys::cuMemcpyDtoDAsync_v2(dst, src, len * 4, stream.as_inner()))
        }
        Step::ZeroU32 { .. } | Step::CopyU32 { .. } => Ok(()),
        _ => {
            let name = step.kernel(curve).expect("every other step is a kernel");
            let (mut values, count) = step.args();
            let args: Vec<*mut c_void> = values[..count].iter_mut().map(|v| v as *mut u64 as *mut c_void).collect();
            // SAFETY: `args` follows the kernel's parameter list (Step::args,
            // checked by the host tests); the buffers are the caller's.
            launch_blocks_of(&gpu.module, stream, name, step.threads(), step.block(), &args)
        }
    }
}

/// Enqueues the conversion of `n` scalars in Montgomery form (blstrs
/// `Scalar` limbs) at `src` into the integers they stand for at `dst`
/// ([`ScalarForm::Canonical`]); `dst` may be `src`.
///
/// # Safety
/// Both hold `n` scalars of device memory that nothing else touches until
/// the stream has run the conversion.
pub unsafe fn scalars_to_integers(gpu: &GpuDevice, stream: &Stream, src: DevicePointer<u64>, dst: DevicePointer<u64>, n: usize) -> Result<(), ProverError> {
    let (mut src, mut dst) = (src, dst);
    let mut n = u32::try_from(n).map_err(|_| ProverError::Config("over 2^32 - 1 scalars".into()))?;
    let args = super::launch::kernel_args![src, dst, n];
    // Each element is loaded before its result is stored (in place is fine).
    super::launch::launch_elementwise(&gpu.module, stream, "fr_from_mont", n, &args)
}

/// One whole MSM, blocking: uploads `scalars` (and the density), runs on a
/// fresh stream with a freshly allocated arena, downloads the result words.
fn msm_blocking(
    gpu: &GpuDevice,
    curve: MsmCurve,
    bases: &GpuBases,
    scalars: &[Scalar],
    density: Option<&Density>,
    base_offset: usize,
    config: &MsmConfig,
) -> Result<Vec<u64>, ProverError> {
    if let Some(d) = density {
        if d.len() != scalars.len() {
            return Err(ProverError::WrongLength { what: "density bitmap", expected: scalars.len(), got: d.len() });
        }
    }
    gpu.bind()?;
    let plan = plan(scalars.len(), curve, config)?;
    let upload = |words: &[u64]| {
        if words.is_empty() {
            DeviceBuffer::from_slice(&[0u64])
        } else {
            DeviceBuffer::from_slice(words)
        }
        .map_err(|e| gpu_err("MSM upload", e))
    };
    let scalar_buf = upload(scalar_limbs(scalars))?;
    let density_buf = density.map(|d| upload(d.words())).transpose()?;
    // SAFETY: u64 accepts any bit pattern; the plan writes before it reads.
    let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(plan.scratch_words().max(1)) }
        .map_err(|e| gpu_err("MSM arena", e))?;
    let out = upload(&vec![0u64; curve.jacobian_limbs()])?;
    // A blocking stream: it waits for the legacy default stream, on which
    // the synchronous uploads above are ordered.
    let stream = Stream::new(StreamFlags::DEFAULT, None).map_err(|e| gpu_err("stream", e))?;
    let mut input = MsmInput {
        scalars: scalar_buf.as_device_ptr(),
        form: ScalarForm::Montgomery,
        n: scalars.len(),
        density: density_buf.as_ref().zip(density).map(|(b, d)| DeviceDensity { words: b.as_device_ptr(), ones: d.count_ones() }),
        base_offset,
        general: Some(crate::witness::classes::count_others(scalars)),
    };
    // The binned sort reads every scalar once per window, converting it out
    // of Montgomery form each time; the upload is this call's own copy, so
    // it is converted once, in place. On an H100 (2026-12-07, bench-gpu_msm
    // --form montgomery,converted,canonical): G1 2^27 792.7 -> 765.1 ms
    // (integers: 763.1), G1 2^24 122.4 -> 118.7 (118.4). The counted sort
    // gains nothing from it (a 90%-{0,1} 2^24: 20.9 -> 21.2 ms), so only
    // binned plans convert.
    if input_plan(&input, curve, config, arena.len())?.binned.is_some() {
        // SAFETY: this call's own buffer of `n` scalars, converted in place.
        unsafe { scalars_to_integers(gpu, &stream, scalar_buf.as_device_ptr(), scalar_buf.as_device_ptr(), input.n)? };
        input.form = ScalarForm::Canonical;
    }
    // SAFETY: every buffer is sized by the plan and outlives the
    // synchronize below.
    unsafe { msm_enqueue(gpu, &stream, curve, bases.at(), &input, config, &mut arena, out.as_device_ptr(), Carry::WHOLE, &mut |_| Ok(()))? };
    stream.synchronize().map_err(|e| gpu_err("MSM", e))?;
    let mut words = vec![0u64; curve.jacobian_limbs()];
    out.copy_to(&mut words[..]).map_err(|e| gpu_err("MSM result download", e))?;
    Ok(words)
}

/// `Σ scalars[i] · bases[i]` in G1 (or, with `density = Some((d, offset))`,
/// the `k`-th scalar whose bit is set times `bases[offset + k]`), blocking.
pub fn msm_g1_blocking(
    gpu: &GpuDevice,
    bases: &GpuBases,
    scalars: &[Scalar],
    density: Option<(&Density, usize)>,
) -> Result<G1Projective, ProverError> {
    msm_g1_blocking_with(gpu, bases, scalars, density.map(|d| d.0), density.map_or(0, |d| d.1), &MsmConfig::default())
}

/// [`msm_g1_blocking`] with any base offset and settings.
pub fn msm_g1_blocking_with(
    gpu: &GpuDevice,
    bases: &GpuBases,
    scalars: &[Scalar],
    density: Option<&Density>,
    base_offset: usize,
    config: &MsmConfig,
) -> Result<G1Projective, ProverError> {
    let words = msm_blocking(gpu, MsmCurve::G1, bases, scalars, density, base_offset, config)?;
    Ok(g1_from_result_words(words[..].try_into().expect("G1 result size")))
}

/// The point an MSM wrote as its result (`G1_JACOBIAN_LIMBS` words).
pub fn g1_from_result_words(words: &[u64; G1_JACOBIAN_LIMBS]) -> G1Projective {
    const { assert!(std::mem::size_of::<G1Projective>() == 8 * G1_JACOBIAN_LIMBS) };
    // SAFETY: G1Projective is repr(transparent) over blst_p1 {x, y, z}, the
    // Jacobian layout the finish kernel writes, with reduced Montgomery Fp;
    // any words are a valid blst_p1 value.
    unsafe { std::mem::transmute::<[u64; G1_JACOBIAN_LIMBS], G1Projective>(*words) }
}

/// The point a G2 MSM wrote as its result (`G2_JACOBIAN_LIMBS` words).
pub fn g2_from_result_words(words: &[u64; G2_JACOBIAN_LIMBS]) -> G2Projective {
    const { assert!(std::mem::size_of::<G2Projective>() == 8 * G2_JACOBIAN_LIMBS) };
    // SAFETY: as for G1, blst_p2 with Fp2 coordinates.
    unsafe { std::mem::transmute::<[u64; G2_JACOBIAN_LIMBS], G2Projective>(*words) }
}

/// [`msm_g1_blocking`] in G2.
pub fn msm_g2_blocking(
    gpu: &GpuDevice,
    bases: &GpuBases,
    scalars: &[Scalar],
    density: Option<(&Density, usize)>,
) -> Result<G2Projective, ProverError> {
    msm_g2_blocking_with(gpu, bases, scalars, density.map(|d| d.0), density.map_or(0, |d| d.1), &MsmConfig::default())
}

/// [`msm_g2_blocking`] with any base offset and settings.
pub fn msm_g2_blocking_with(
    gpu: &GpuDevice,
    bases: &GpuBases,
    scalars: &[Scalar],
    density: Option<&Density>,
    base_offset: usize,
    config: &MsmConfig,
) -> Result<G2Projective, ProverError> {
    let words = msm_blocking(gpu, MsmCurve::G2, bases, scalars, density, base_offset, config)?;
    Ok(g2_from_result_words(words[..].try_into().expect("G2 result size")))
}
