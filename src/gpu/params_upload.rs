//! A parameter file's bases sent to the GPU as they lie in the file and
//! decoded there.
//!
//! An encoded point has the size of its decoded form (96 bytes in G1, 192
//! in G2), so the raw bytes go through the pinned staging chunks straight
//! into the bases' own buffer, and `decode_g1_points` / `decode_g2_points`
//! turn each piece into the MSMs' layout in place, checking every point
//! (`cuzk_kernels::point_decode`). Copies run on one stream and decoding
//! on another, each piece's decode waiting on its copy, so one piece is
//! copied while the last is decoded. The host holds nothing but the two
//! staging chunks.

use std::time::Duration;

use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer, DevicePointer, LockedBuffer};
use cust::stream::{Stream, StreamFlags};
use cuzk_kernels::point_decode::NO_PROBLEM;

use super::launch::{kernel_args, launch_elementwise};
use super::host_bases::HostBases;
use super::msm::{GpuBases, MsmCurve};
use crate::vram::proof_msms::query_curve;
use super::upload::{PinnedStager, CHUNK_BYTES};
use super::compute_order::Marker;
use super::{gpu_err, wait, GpuDevice};
use crate::error::ProverError;
use crate::parameters::params_file::{ParamsFile, ParamsFileError, PointProblem, Query};
use crate::parameters::subgroup::subgroup_constants;

/// What the bases' loading on one device shares: the staging chunks, two
/// streams and the constants of the subgroup check.
pub(super) struct FileLoader {
    stager: PinnedStager,
    copy: Stream,
    decode: Stream,
    /// Recorded after each piece's copy; the decode stream waits on it.
    copied: Marker,
    constants: DeviceBuffer<u64>,
    timeout: Option<Duration>,
}

impl FileLoader {
    /// Reserves the loader's buffers on `gpu` (bound by the caller).
    pub fn new(timeout: Option<Duration>) -> Result<Self, ProverError> {
        let stream = || Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e));
        Ok(FileLoader {
            stager: PinnedStager::new(timeout)?,
            copy: stream()?,
            decode: stream()?,
            copied: Marker::new()?,
            constants: DeviceBuffer::from_slice(subgroup_constants()).map_err(|e| gpu_err("subgroup constants", e))?,
            timeout,
        })
    }

    /// One query's bases decoded and checked on `gpu` as [`Self::query`]
    /// does, a piece at a time through two device buffers of a staging
    /// chunk each, and brought back into pinned host memory for streaming
    /// (VRAM used: the two pieces). Blocks until done.
    pub fn query_to_host(&mut self, gpu: &GpuDevice, file: &ParamsFile, query: Query) -> Result<HostBases, ProverError> {
        let start = std::time::Instant::now();
        let total = file.query_len_bytes(query);
        let piece_bytes = CHUNK_BYTES / query.point_bytes() * query.point_bytes();
        // SAFETY: u64 takes any bit pattern; each piece is copied in before
        // it is decoded and read back.
        let mut host = unsafe { LockedBuffer::<u64>::uninitialized((total / 8).max(1)) }.map_err(|e| gpu_err("pinned bases", e))?;
        let piece = || unsafe { DeviceBuffer::<u64>::uninitialized(piece_bytes / 8) }.map_err(|e| gpu_err("decode piece", e));
        let pieces = [piece()?, piece()?];
        let drained = [Marker::new()?, Marker::new()?];
        let first_bad = DeviceBuffer::from_slice(&[NO_PROBLEM]).map_err(|e| gpu_err("decode status", e))?;
        let enqueued = (0..total).step_by(piece_bytes).enumerate().try_for_each(|(k, offset)| {
            let piece_len = piece_bytes.min(total - offset);
            let dst = pieces[k % 2].as_device_ptr();
            // The piece's buffer is free once its last read-back is done.
            drained[k % 2].wait_on(&self.copy)?;
            self.enqueue_piece(gpu, file, query, &first_bad, k, offset, piece_len, dst)?;
            // SAFETY: the read-back lands in the host buffer's piece, which
            // outlives the stream's work (waited on below).
            unsafe { pieces[k % 2].index(..piece_len / 8).async_copy_to(&mut host[offset / 8..(offset + piece_len) / 8], &self.decode) }.map_err(|e| gpu_err("bases read-back", e))?;
            drained[k % 2].record(&self.decode)
        });
        self.finish(enqueued, &first_bad, query)?;
        log_loaded(gpu, file, query, "decoded{} and kept in pinned host memory for streaming", start);
        Ok(HostBases::from_locked(host, total / query.point_bytes(), query))
    }

    /// One query's bases, decoded and checked on `gpu` (on the curve; in
    /// the subgroup if the file asks for it). Blocks until done; a bad
    /// point is `ParamsFileError::BadPoint` naming the first one.
    pub fn query(&mut self, gpu: &GpuDevice, file: &ParamsFile, query: Query) -> Result<GpuBases, ProverError> {
        let start = std::time::Instant::now();
        let total = file.query_len_bytes(query);
        let len = total / query.point_bytes();
        if len >= 1 << 31 {
            return Err(ProverError::Config(format!("the {query} has {len} bases; at most 2^31 - 1 are supported")));
        }
        // SAFETY: u64 takes any bit pattern; every word is copied in below.
        let buf = unsafe { DeviceBuffer::<u64>::uninitialized((total / 8).max(1)) }.map_err(|e| gpu_err("MSM bases", e))?;
        let first_bad = DeviceBuffer::from_slice(&[NO_PROBLEM]).map_err(|e| gpu_err("decode status", e))?;
        let piece_bytes = CHUNK_BYTES / query.point_bytes() * query.point_bytes();
        // Each piece is read from the file straight into a pinned staging
        // chunk (in parallel, on the host pool's threads), copied into the
        // bases' buffer, then decoded there while the next one is read.
        let enqueued = (0..total).step_by(piece_bytes).enumerate().try_for_each(|(k, offset)| {
            let piece_len = piece_bytes.min(total - offset);
            self.enqueue_piece(gpu, file, query, &first_bad, k, offset, piece_len, buf.as_device_ptr().wrapping_add(offset / 8))
        });
        self.finish(enqueued, &first_bad, query)?;
        log_loaded(gpu, file, query, "decoded{}", start);
        GpuBases::from_device(gpu, buf, len, query_curve(query))
    }

    /// Enqueues piece `k` of a query (`piece_len` bytes from `offset`):
    /// read from the file into a staging chunk, copied to `dst` on the
    /// copy stream, decoded and checked there on the decode stream.
    #[allow(clippy::too_many_arguments)]
    fn enqueue_piece(&mut self, gpu: &GpuDevice, file: &ParamsFile, query: Query, first_bad: &DeviceBuffer<u64>, k: usize, offset: usize, piece_len: usize, dst: DevicePointer<u64>) -> Result<(), ProverError> {
        let point_bytes = query.point_bytes();
        let kernel = match query_curve(query) {
            MsmCurve::G1 => "decode_g1_points",
            MsmCurve::G2 => "decode_g2_points",
        };
        let read = |chunk: &mut [u8], _: usize| crate::prover::host_pool::run(|| file.read_query(query, offset, chunk)).map_err(ProverError::from);
        self.stager.upload_filled(&self.copy, dst, piece_len, read)?;
        self.copied.record(&self.copy)?;
        self.copied.wait_on(&self.decode)?;
        let (mut points, mut n, mut first) = (dst.as_raw(), (piece_len / point_bytes) as u32, (k * (CHUNK_BYTES / point_bytes)) as u32);
        let (mut constants, mut subgroup, mut bad) = (self.constants.as_device_ptr().as_raw(), u32::from(file.subgroup_check()), first_bad.as_device_ptr().as_raw());
        // SAFETY: the arguments match the kernel's signature; the buffers
        // outlive the streams' work (`finish` waits for it).
        unsafe { launch_elementwise(&gpu.module, &self.decode, kernel, n, &kernel_args!(points, n, first, constants, subgroup, bad)) }
    }

    /// Waits for both streams (also after an error: the buffers must not
    /// be freed under them), then reads the decode status.
    fn finish(&self, enqueued: Result<(), ProverError>, first_bad: &DeviceBuffer<u64>, query: Query) -> Result<(), ProverError> {
        let copied = wait::stream(&self.copy, "copy parameter file", self.timeout);
        let decoded = wait::stream(&self.decode, "decode parameter file", self.timeout);
        enqueued.and(copied).and(decoded)?;
        let mut key = [NO_PROBLEM];
        first_bad.copy_to(&mut key[..]).map_err(|e| gpu_err("decode status", e))?;
        if key[0] != NO_PROBLEM {
            let problem = PointProblem::from_kernel_code(key[0]);
            return Err(ParamsFileError::BadPoint { query, index: (key[0] / 4) as usize, problem }.into());
        }
        Ok(())
    }
}

/// Progress of a long load (tens of GB), one line per query; `what` has a
/// `{}` for the subgroup check.
fn log_loaded(gpu: &GpuDevice, file: &ParamsFile, query: Query, what: &str, start: std::time::Instant) {
    let total = file.query_len_bytes(query);
    let what = what.replace("{}", if file.subgroup_check() { " and subgroup-checked" } else { "" });
    log::info!(
        "GPU {}: {} of {}: {} points, {:.2} GB, {what} in {:.2} s",
        gpu.ordinal,
        query,
        file.path().display(),
        total / query.point_bytes(),
        total as f64 / 1e9,
        start.elapsed().as_secs_f64()
    );
}
