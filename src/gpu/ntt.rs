//! NTTs and the Groth16 H step on the GPU.
//!
//! [`GpuNtt`] owns the root-of-unity and scale tables of one device (for
//! domains up to 2^27: 8 GiB of row twiddles, 120 MiB of direct
//! twiddles of 2^17 … 2^20, 9 MiB of the rest; see
//! `cuzk_kernels::ntt::tables`), computed there once by `ntt_powers`.
//! Transforms run in place on caller-owned device memory, asynchronously on
//! a caller-given stream, and allocate nothing: the schedule of pass kernels
//! comes from `cuzk_kernels::ntt::plan` (the same one the kernels' host
//! tests run) and each pass is one launch. Elements are packed Fr values,
//! 4 `u64` Montgomery words each, exactly blstrs' `Scalar` layout; every
//! buffer must be 16-byte aligned.
//!
//! Results equal bellperson's `EvaluationDomain` bit for bit. The blocking
//! `*_blocking` wrappers (host slices in and out) exist for tests.

use std::ffi::c_void;

use blstrs::Scalar;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
pub use cuzk_kernels::ff::ScalarForm;
use cuzk_kernels::ntt::plan::{self, PassArgs, Tables};
pub use cuzk_kernels::ntt::plan::{Direction, Order, MAX_PASS_BITS};
use cuzk_kernels::ntt::TableLayout;

use super::bound_buffer::BoundBuffer;
use super::compute_order::Marker;
use super::elementwise::scalar_limbs;
use super::launch::launch_elementwise;
use super::{gpu_err, GpuDevice};
use crate::error::ProverError;

const FR_WORDS: usize = 4;

/// The NTT tables of one device, and the transforms that use them.
///
/// Like every device buffer it must be dropped with its device's context
/// current ([`GpuDevice::bind`]), after the streams using it are done.
pub struct GpuNtt {
    ordinal: u32,
    layout: TableLayout,
    /// Freed in its own context, whichever thread drops it.
    tables: BoundBuffer,
    max_bits: u32,
    stage_table: bool,
    radix2: bool,
    fused: bool,
    direct_twiddles: bool,
    lazy_stores: bool,
}

impl GpuNtt {
    /// Reserves and computes (on `gpu`) the tables for domains up to
    /// 2^`max_log` (at most 2^31), with the row twiddles where the layout
    /// has them by default (2^11 … 2^28). Blocks until they are ready, so
    /// any stream may use them afterwards.
    pub fn new(gpu: &GpuDevice, max_log: u32) -> Result<Self, ProverError> {
        Self::with_layout(gpu, Self::layout(max_log, true)?)
    }

    /// The table layout for domains up to 2^`max_log` (at most 2^31), with
    /// the row twiddles of 2^`max_log` transforms if `rows` and the size
    /// has them (2^11 … 2^28; `cuzk_kernels::ntt::tables`).
    pub fn layout(max_log: u32, rows: bool) -> Result<TableLayout, ProverError> {
        if max_log > cuzk_kernels::ntt::MAX_LOG {
            return Err(ProverError::DomainTooLarge { log_size: max_log });
        }
        Ok(if rows { TableLayout::new(max_log) } else { TableLayout::compact(max_log) })
    }

    /// [`Self::new`] with a chosen layout (see [`Self::layout`]).
    pub fn with_layout(gpu: &GpuDevice, layout: TableLayout) -> Result<Self, ProverError> {
        gpu.bind()?;
        // SAFETY: u64 has no invalid bit patterns; every word is written below.
        let tables = unsafe { DeviceBuffer::<u64>::uninitialized(layout.words()) }.map_err(|e| gpu_err("NTT tables", e))?;
        let stream = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?;
        let mut jobs = Vec::new();
        layout.for_each_job(|job| jobs.push(job));
        for job in jobs {
            let mut out = tables.as_device_ptr().as_raw() + (job.offset as usize * FR_WORDS * 8) as u64;
            let mut n = job.count;
            let [mut b0, mut b1, mut b2, mut b3] = job.base.limbs;
            let [mut f0, mut f1, mut f2, mut f3] = job.first.limbs;
            let args = [
                &mut out as *mut u64 as *mut c_void,
                &mut n as *mut u32 as *mut c_void,
                &mut b0 as *mut u64 as *mut c_void,
                &mut b1 as *mut u64 as *mut c_void,
                &mut b2 as *mut u64 as *mut c_void,
                &mut b3 as *mut u64 as *mut c_void,
                &mut f0 as *mut u64 as *mut c_void,
                &mut f1 as *mut u64 as *mut c_void,
                &mut f2 as *mut u64 as *mut c_void,
                &mut f3 as *mut u64 as *mut c_void,
            ];
            // SAFETY: ntt_powers(out: *mut u64, n: u32, base: 4 × u64,
            // first: 4 × u64) writes `n` elements from `out`, inside the
            // table buffer (the layout's jobs tile it); the buffer lives
            // until the synchronize below.
            unsafe { launch_elementwise(&gpu.module, &stream, "ntt_powers", job.count, &args) }?;
        }
        // Row twiddles last: they are composed from TW_LO/TW_HI (same stream).
        let mut row_jobs = Vec::new();
        layout.for_each_row_job(|job| row_jobs.push(job));
        for job in row_jobs {
            let base = tables.as_device_ptr().as_raw();
            let mut out = base + (job.offset as usize * FR_WORDS * 8) as u64;
            let mut tw = base;
            let (mut n, mut log_n, mut log_rem, mut log_r, mut inverse) = (job.count(), job.log_n, job.log_rem, job.log_r, job.inverse as u32);
            let args = [
                &mut out as *mut u64 as *mut c_void,
                &mut tw as *mut u64 as *mut c_void,
                &mut n as *mut u32 as *mut c_void,
                &mut log_n as *mut u32 as *mut c_void,
                &mut log_rem as *mut u32 as *mut c_void,
                &mut log_r as *mut u32 as *mut c_void,
                &mut inverse as *mut u32 as *mut c_void,
            ];
            // SAFETY: ntt_row_twiddles(out, tw: *u64, n, log_n, log_rem,
            // log_r, inverse: u32) writes `n` elements from `out`, inside
            // the table buffer and apart from TW_LO/TW_HI, which it reads.
            unsafe { launch_elementwise(&gpu.module, &stream, "ntt_row_twiddles", job.count(), &args) }?;
        }
        stream.synchronize().map_err(|e| gpu_err("NTT tables", e))?;
        Ok(GpuNtt { ordinal: gpu.ordinal, layout, tables: BoundBuffer::new(gpu, tables)?, max_bits: MAX_PASS_BITS, stage_table: true, radix2: false, fused: true, direct_twiddles: true, lazy_stores: true })
    }

    /// The largest domain (log2) the tables cover.
    pub fn max_log(&self) -> u32 {
        self.layout.max_log
    }

    /// Bits per pass (1..=10, default 10): fewer means more, smaller passes.
    /// For experiments; every setting computes the same values.
    pub fn set_max_pass_bits(&mut self, bits: u32) {
        self.max_bits = bits.clamp(1, MAX_PASS_BITS);
    }

    /// Whether passes read their stage twiddles from the dense stage table
    /// (the default: 0.5% faster on an H200, docs/PERFORMANCE.md) or compose
    /// them from the power tables; results are the same.
    pub fn set_stage_table(&mut self, on: bool) {
        self.stage_table = on;
    }

    /// Whether every stage runs as its own radix-2 phase instead of pairs
    /// of stages as radix-4 phases (the default); results are the same.
    pub fn set_radix2_stages(&mut self, on: bool) {
        self.radix2 = on;
    }

    /// Whether the H step runs adjacent passes of consecutive transforms as
    /// one launch (the default; `cuzk_kernels::ntt::plan::fuse`); results
    /// are the same.
    pub fn set_fused_passes(&mut self, on: bool) {
        self.fused = on;
    }

    /// Whether passes read inter-pass twiddles from the direct tables where
    /// they exist (the default; `cuzk_kernels::ntt::tables`) or compose
    /// them from the power tables; results are the same.
    pub fn set_direct_twiddles(&mut self, on: bool) {
        self.direct_twiddles = on;
    }

    /// Whether passes inside a transform store lazily reduced values (the
    /// default; `cuzk_kernels::ntt::pass::FLAG_LAZY_STORE`); every
    /// transform's output is reduced either way.
    pub fn set_lazy_stores(&mut self, on: bool) {
        self.lazy_stores = on;
    }

    fn tables(&self) -> Tables {
        Tables {
            base: self.tables.as_device_ptr().as_raw(),
            layout: self.layout,
            stage_table: self.stage_table,
            radix2: self.radix2,
            fused: self.fused,
            direct_twiddles: self.direct_twiddles,
            lazy_stores: self.lazy_stores,
        }
    }

    fn check_device(&self, gpu: &GpuDevice) -> Result<(), ProverError> {
        if gpu.ordinal != self.ordinal {
            return Err(ProverError::Config(format!("NTT tables of GPU {} used on GPU {}", self.ordinal, gpu.ordinal)));
        }
        Ok(())
    }

    /// log2 of the elements in `words` words, which must be 2^k elements
    /// within the tables' range.
    fn log_len(&self, what: &'static str, words: usize) -> Result<u32, ProverError> {
        let n = words / FR_WORDS;
        if words % FR_WORDS != 0 || !n.is_power_of_two() {
            return Err(ProverError::WrongLength { what, expected: n.next_power_of_two() * FR_WORDS, got: words });
        }
        let log_n = n.trailing_zeros();
        if log_n > self.layout.max_log {
            return Err(ProverError::Config(format!("{what}: 2^{log_n} elements, tables built for 2^{}", self.layout.max_log)));
        }
        Ok(log_n)
    }

    /// In-place NTT of `data` (2^k elements) on `stream`, asynchronously:
    ///
    /// * `Forward`: `X[k] = Σ_j x[j] ω^(jk)` (bellperson `fft`); with
    ///   `coset`, `x[j]` is first multiplied by `g^j` (`coset_fft`);
    /// * `Inverse`: with `ω⁻¹`, times `1/N` (`ifft`); with `coset`, element
    ///   `j` is then multiplied by `g^-j` (`icoset_fft`).
    ///
    /// `order` gives the layout of input and output (index `k` at position
    /// `bitrev(k)` when bit-reversed).
    ///
    /// # Safety
    /// `data` must stay allocated, and untouched by other work, until the
    /// stream has run the transform (the call returns before it runs; on an
    /// error, part of it may have been enqueued).
    pub unsafe fn ntt(&self, gpu: &GpuDevice, stream: &Stream, data: &mut DeviceSlice<u64>, dir: Direction, order: Order, coset: bool) -> Result<(), ProverError> {
        self.check_device(gpu)?;
        let log_n = self.log_len("NTT data", data.len())?;
        aligned("NTT data", data)?;
        let mut passes = Vec::new();
        plan::ntt(log_n, self.max_bits, dir, order, coset, data.as_device_ptr().as_raw(), &self.tables(), |p| passes.push(*p));
        launch_all(&gpu.module, stream, &passes)
    }

    /// The H step on `stream`, asynchronously: `a`, `b`, `c` are 2^k
    /// elements each (one evaluation domain), of which the first `n` hold
    /// the evaluations and the rest is taken as zero whatever it contains;
    /// all three are overwritten (scratch). `out` (at least 2^k − 1
    /// elements) receives the 2^k − 1 coefficients of `h = (a·b − c)/Z`
    /// in natural order, as `cuzk::cpu::h::h_coefficients` computes them
    /// for a domain of 2^k (i.e. when 2^k is `n` rounded up to a power of
    /// two), in `form` (Montgomery: as blstrs' `Scalar`; canonical: what
    /// the H MSM reads without converting). Nothing is allocated; see
    /// `cuzk_kernels::ntt::plan::h_step` for the passes.
    ///
    /// # Safety
    /// `a`, `b`, `c` and `out` must stay allocated, and untouched by other
    /// work, until the stream has run the H step (the call returns before it
    /// runs; on an error, part of it may have been enqueued).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn h_step(
        &self,
        gpu: &GpuDevice,
        stream: &Stream,
        a: &mut DeviceSlice<u64>,
        b: &mut DeviceSlice<u64>,
        c: &mut DeviceSlice<u64>,
        n: usize,
        out: &mut DeviceSlice<u64>,
        form: ScalarForm,
    ) -> Result<(), ProverError> {
        let log_n = self.check_h_buffers(gpu, [&*a, &*b, &*c], n, Some(&*out))?;
        let addr = |s: &DeviceSlice<u64>| s.as_device_ptr().as_raw();
        let mut passes = Vec::new();
        plan::h_step(log_n, self.max_bits, n as u32, addr(a), addr(b), addr(c), addr(out), form, &self.tables(), |p| passes.push(*p));
        launch_all(&gpu.module, stream, &passes)
    }

    /// [`Self::h_step`] writing `h` over `b` instead of into a buffer of
    /// its own (`cuzk_kernels::ntt::plan::h_step_over_input`): `b`'s first
    /// 2^k − 1 elements receive the coefficients. The same transforms, a
    /// third less memory; 2^k must take two passes or more
    /// ([`Self::h_over_input_fits`]).
    ///
    /// # Safety
    /// As for [`Self::h_step`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn h_step_over_input(
        &self,
        gpu: &GpuDevice,
        stream: &Stream,
        a: &mut DeviceSlice<u64>,
        b: &mut DeviceSlice<u64>,
        c: &mut DeviceSlice<u64>,
        n: usize,
        form: ScalarForm,
    ) -> Result<(), ProverError> {
        self.h_step_over_input_marked(gpu, stream, a, b, c, n, form, None)
    }

    /// [`Self::h_step_over_input`], recording `a_read` on the stream once
    /// every pass that reads or writes `a` is enqueued: `c`'s inverse,
    /// the last sixth of the transforms, still runs after it, and `a` may
    /// be reused from then on.
    ///
    /// # Safety
    /// As for [`Self::h_step`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn h_step_over_input_marked(
        &self,
        gpu: &GpuDevice,
        stream: &Stream,
        a: &mut DeviceSlice<u64>,
        b: &mut DeviceSlice<u64>,
        c: &mut DeviceSlice<u64>,
        n: usize,
        form: ScalarForm,
        a_read: Option<&Marker>,
    ) -> Result<(), ProverError> {
        let log_n = self.check_h_buffers(gpu, [&*a, &*b, &*c], n, None)?;
        if !plan::h_step_over_input_fits(log_n, self.max_bits) {
            return Err(ProverError::Config(format!("an H step over its input needs two passes or more (2^{log_n} at {} bits a pass)", self.max_bits)));
        }
        let addr = |s: &DeviceSlice<u64>| s.as_device_ptr().as_raw();
        let mut passes = Vec::new();
        plan::h_step_over_input(log_n, self.max_bits, n as u32, addr(a), addr(b), addr(c), form, &self.tables(), |p| passes.push(*p));
        let split = plan::passes_through(&passes, addr(a));
        launch_all(&gpu.module, stream, &passes[..split])?;
        if let Some(m) = a_read {
            m.record(stream)?;
        }
        launch_all(&gpu.module, stream, &passes[split..])
    }

    /// The H step's buffers checked: on this device, a, b, c of one 2^k
    /// length, at most 2^k evaluations, room for the output if it has its
    /// own, all aligned and apart. Returns k.
    fn check_h_buffers(&self, gpu: &GpuDevice, [a, b, c]: [&DeviceSlice<u64>; 3], n: usize, out: Option<&DeviceSlice<u64>>) -> Result<u32, ProverError> {
        self.check_device(gpu)?;
        let log_n = self.log_len("H input a", a.len())?;
        for (what, s) in [("H input b", b), ("H input c", c)] {
            if s.len() != a.len() {
                return Err(ProverError::WrongLength { what, expected: a.len(), got: s.len() });
            }
        }
        let domain = 1usize << log_n;
        if n > domain {
            return Err(ProverError::WrongLength { what: "H evaluations", expected: domain, got: n });
        }
        if let Some(out) = out {
            if out.len() < (domain - 1) * FR_WORDS {
                return Err(ProverError::WrongLength { what: "H output", expected: (domain - 1) * FR_WORDS, got: out.len() });
            }
        }
        let views: Vec<(&str, &DeviceSlice<u64>)> = [("H input a", a), ("H input b", b), ("H input c", c)].into_iter().chain(out.map(|o| ("H output", o))).collect();
        for (i, (what, s)) in views.iter().enumerate() {
            aligned(what, s)?;
            for (other, t) in &views[..i] {
                if overlap(s, t) {
                    return Err(ProverError::Config(format!("{what} overlaps {other}")));
                }
            }
        }
        Ok(log_n)
    }

    /// Whether [`Self::h_step_over_input`] runs at 2^`log_n`.
    pub fn h_over_input_fits(&self, log_n: u32) -> bool {
        plan::h_step_over_input_fits(log_n, self.max_bits)
    }

    /// [`Self::ntt`] on host values (2^k of them), blocking.
    pub fn ntt_blocking(&self, gpu: &GpuDevice, values: &mut [Scalar], dir: Direction, order: Order, coset: bool) -> Result<(), ProverError> {
        self.check_device(gpu)?;
        gpu.bind()?;
        // A blocking stream: it waits for the legacy default stream, on
        // which the synchronous copies are ordered.
        let stream = Stream::new(StreamFlags::DEFAULT, None).map_err(|e| gpu_err("stream", e))?;
        let mut data = DeviceBuffer::from_slice(scalar_limbs(values)).map_err(|e| gpu_err("upload NTT data", e))?;
        // SAFETY: `data` lives until after the synchronize below, which
        // also runs when enqueuing failed half way.
        let enqueued = unsafe { self.ntt(gpu, &stream, &mut data, dir, order, coset) };
        let ran = stream.synchronize().map_err(|e| gpu_err("NTT", e));
        enqueued.and(ran)?;
        data.copy_to(scalar_words_mut(values)).map_err(|e| gpu_err("download NTT data", e))
    }

    /// The H step on host evaluations, blocking, with the signature and
    /// result of `cuzk::cpu::h::h_coefficients`: the domain is the length
    /// rounded up to a power of two. The padding is filled with garbage
    /// on the device (it must be ignored).
    pub fn h_blocking(&self, gpu: &GpuDevice, a: &[Scalar], b: &[Scalar], c: &[Scalar]) -> Result<Vec<Scalar>, ProverError> {
        self.check_device(gpu)?;
        for (what, v) in [("H input b", b), ("H input c", c)] {
            if v.len() != a.len() {
                return Err(ProverError::WrongLength { what, expected: a.len(), got: v.len() });
            }
        }
        let domain = a.len().max(1).next_power_of_two();
        if domain == 1 {
            return Ok(Vec::new());
        }
        gpu.bind()?;
        let stream = Stream::new(StreamFlags::DEFAULT, None).map_err(|e| gpu_err("stream", e))?;
        let upload = |v: &[Scalar]| {
            let mut words = scalar_limbs(v).to_vec();
            words.resize(domain * FR_WORDS, u64::MAX);
            DeviceBuffer::from_slice(&words).map_err(|e| gpu_err("upload H input", e))
        };
        let (mut da, mut db, mut dc) = (upload(a)?, upload(b)?, upload(c)?);
        let mut out = DeviceBuffer::from_slice(&vec![u64::MAX; (domain - 1) * FR_WORDS]).map_err(|e| gpu_err("H output", e))?;
        // SAFETY: the buffers live until after the synchronize below, which
        // also runs when enqueuing failed half way.
        let enqueued = unsafe { self.h_step(gpu, &stream, &mut da, &mut db, &mut dc, a.len(), &mut out, ScalarForm::Montgomery) };
        let ran = stream.synchronize().map_err(|e| gpu_err("H step", e));
        enqueued.and(ran)?;
        let mut h = vec![Scalar::from(0u64); domain - 1];
        out.copy_to(scalar_words_mut(&mut h)).map_err(|e| gpu_err("download H", e))?;
        Ok(h)
    }
}

// Shared by a device's workers, each on its own stream.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<GpuNtt>();
};

fn aligned(what: &str, s: &DeviceSlice<u64>) -> Result<(), ProverError> {
    if s.as_device_ptr().as_raw() % 16 != 0 {
        return Err(ProverError::Config(format!("{what} is not 16-byte aligned")));
    }
    Ok(())
}

fn overlap(s: &DeviceSlice<u64>, t: &DeviceSlice<u64>) -> bool {
    let (s0, t0) = (s.as_device_ptr().as_raw(), t.as_device_ptr().as_raw());
    let (s1, t1) = (s0 + 8 * s.len() as u64, t0 + 8 * t.len() as u64);
    s0 < t1 && t0 < s1
}

/// Launches every pass of a schedule on `stream`.
fn launch_all(module: &Module, stream: &Stream, passes: &[PassArgs]) -> Result<(), ProverError> {
    for p in passes {
        let func = module.get_function(p.kernel()).map_err(|e| gpu_err(p.kernel(), e))?;
        let (mut data, mut b, mut c, mut out) = (p.data, p.b, p.c, p.out);
        let (mut tw, mut tw_rows, mut scale_hi, mut scale_lo) = (p.tw, p.tw_rows, p.scale_hi, p.scale_lo);
        let (mut log_n, mut log_rem, mut log_r) = (p.log_n, p.log_rem, p.log_r);
        let (mut valid, mut out_len, mut flags) = (p.valid, p.out_len, p.flags);
        let args = [
            &mut data as *mut u64 as *mut c_void,
            &mut b as *mut u64 as *mut c_void,
            &mut c as *mut u64 as *mut c_void,
            &mut out as *mut u64 as *mut c_void,
            &mut tw as *mut u64 as *mut c_void,
            &mut tw_rows as *mut u64 as *mut c_void,
            &mut scale_hi as *mut u64 as *mut c_void,
            &mut scale_lo as *mut u64 as *mut c_void,
            &mut log_n as *mut u32 as *mut c_void,
            &mut log_rem as *mut u32 as *mut c_void,
            &mut log_r as *mut u32 as *mut c_void,
            &mut valid as *mut u32 as *mut c_void,
            &mut out_len as *mut u32 as *mut c_void,
            &mut flags as *mut u32 as *mut c_void,
        ];
        // SAFETY: the pass kernels take exactly these 14 parameters (8
        // pointers as u64, 6 u32); the schedule only references the
        // caller's checked buffers and the tables, which outlive the work
        // by the callers' contract.
        unsafe { stream.launch(&func, p.grid(), PassArgs::block(), 0, &args) }.map_err(|e| gpu_err(p.kernel(), e))?;
    }
    Ok(())
}

/// The `u64` words of blstrs scalars, for downloading into them.
fn scalar_words_mut(s: &mut [Scalar]) -> &mut [u64] {
    const { assert!(std::mem::size_of::<Scalar>() == 8 * FR_WORDS) };
    // SAFETY: Scalar is four u64 Montgomery limbs (repr(transparent)); the
    // kernels only write reduced values.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), s.len() * FR_WORDS) }
}
