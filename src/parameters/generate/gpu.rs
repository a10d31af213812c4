//! [`FixedBase`] on a GPU: the window tables uploaded once, then each
//! piece of a query's exponents uploaded, multiplied
//! (`fixed_base_g1`/`_g2`), made affine in batches and encoded
//! (`encode_g1_batches`/`_g2_`), and brought back for the file.

use std::time::Duration;

use blstrs::{G1Projective, G2Projective, Scalar};
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::stream::{Stream, StreamFlags};

use super::host_kernels::{canonical_words, BATCH, G1_BITS, G2_BITS};
use super::stream::{FixedBase, Sink};
use super::tables::{table_words, window_table};
use super::GenerateError;
use crate::error::ProverError;
use crate::gpu::launch::{kernel_args, launch_elementwise};
use crate::gpu::{gpu_err, wait, GpuDevice};

/// Points per launch at most, by default.
const MAX_PIECE: usize = 1 << 22;
/// Points per launch at least, unless a piece size is asked for.
const MIN_PIECE: usize = 1 << 16;
/// Device bytes per point of a piece: scalar, XYZZ (G2), scratch, encoded.
const BYTES_PER_POINT: usize = 32 + 384 + 96 + 192;

pub(crate) struct GpuFixedBase<'a> {
    gpu: &'a GpuDevice,
    stream: Stream,
    g1_table: DeviceBuffer<u64>,
    g2_table: DeviceBuffer<u64>,
    piece: usize,
    scalars: DeviceBuffer<u64>,
    xyzz: DeviceBuffer<u64>,
    scratch: DeviceBuffer<u64>,
    encoded: DeviceBuffer<u64>,
    timeout: Option<Duration>,
}

impl<'a> GpuFixedBase<'a> {
    /// Tables of `g1`, `g2` and buffers for pieces of `piece_points` on
    /// `gpu`, or of as many as half its free VRAM holds (2^16 to 2^22);
    /// pieces that do not fit are `NotEnoughVram`.
    pub(crate) fn new(gpu: &'a GpuDevice, g1: G1Projective, g2: G2Projective, timeout: Option<Duration>, piece_points: Option<usize>) -> Result<Self, GenerateError> {
        gpu.bind()?;
        let (t1, t2) = (window_table(g1, G1_BITS), window_table(g2, G2_BITS));
        let (w1, w2) = (table_words(&t1), table_words(&t2));
        let (free, _) = cust::memory::mem_get_info().map_err(|e| gpu_err("cuMemGetInfo", e))?;
        let tables = 8 * (w1.len() + w2.len());
        let room = (free / 2).saturating_sub(tables);
        // Pieces asked for are made so or refused; else as large as fits,
        // up to MAX_PIECE.
        let fits = room / BYTES_PER_POINT;
        let (piece, least) = match piece_points {
            Some(n) => (n.max(1), n.max(1)),
            None => (fits.min(MAX_PIECE), MIN_PIECE),
        };
        if piece > fits || piece < least {
            let needed = (tables + BYTES_PER_POINT * least) * 2;
            return Err(ProverError::NotEnoughVram {
                device: gpu.ordinal,
                free: free as u64,
                needed: needed as u64,
                detail: format!("the window tables and a piece of {least} points, at most half of what is free"),
            }
            .into());
        }
        let alloc = |words: usize, what: &str| -> Result<DeviceBuffer<u64>, GenerateError> {
            // SAFETY: u64 takes any bit pattern; every word is written before it is read.
            Ok(unsafe { DeviceBuffer::uninitialized(words) }.map_err(|e| gpu_err(what, e))?)
        };
        Ok(GpuFixedBase {
            gpu,
            stream: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?,
            g1_table: DeviceBuffer::from_slice(w1).map_err(|e| gpu_err("G1 window table", e))?,
            g2_table: DeviceBuffer::from_slice(w2).map_err(|e| gpu_err("G2 window table", e))?,
            piece,
            scalars: alloc(4 * piece, "scalars")?,
            xyzz: alloc(48 * piece, "XYZZ points")?,
            scratch: alloc(12 * piece, "inversion scratch")?,
            encoded: alloc(24 * piece, "encoded points")?,
            timeout,
        })
    }

    /// One query's points, piece by piece.
    fn run(&mut self, exps: &[Scalar], g2: bool, sink: &mut Sink) -> Result<(), GenerateError> {
        self.gpu.bind()?;
        let (point_words, multiply, encode) = if g2 { (24, "fixed_base_g2", "encode_g2_batches") } else { (12, "fixed_base_g1", "encode_g1_batches") };
        let mut host = vec![0u64; self.piece * point_words];
        for piece in exps.chunks(self.piece) {
            let n = piece.len();
            let words = canonical_words(piece);
            let mut scalars_in = self.scalars.index(..4 * n);
            scalars_in.copy_from(&words[..]).map_err(|e| gpu_err("upload scalars", e))?;
            let table = if g2 { self.g2_table.as_device_ptr() } else { self.g1_table.as_device_ptr() };
            let (mut table, mut bits) = (table.as_raw(), if g2 { G2_BITS } else { G1_BITS });
            let (mut scalars, mut count, mut out) = (self.scalars.as_device_ptr().as_raw(), n as u32, self.xyzz.as_device_ptr().as_raw());
            // SAFETY: the arguments match the kernels' signatures; every
            // buffer holds `n` points of its kind and outlives the stream's
            // work (waited for below).
            unsafe { launch_elementwise(&self.gpu.module, &self.stream, multiply, count, &kernel_args!(table, bits, scalars, count, out))? };
            let (mut xyzz, mut batch, mut scratch, mut encoded) = (self.xyzz.as_device_ptr().as_raw(), BATCH, self.scratch.as_device_ptr().as_raw(), self.encoded.as_device_ptr().as_raw());
            unsafe { launch_elementwise(&self.gpu.module, &self.stream, encode, count.div_ceil(BATCH), &kernel_args!(xyzz, count, batch, scratch, encoded))? };
            wait::stream(&self.stream, "fixed-base multiplications", self.timeout)?;
            let host = &mut host[..n * point_words];
            self.encoded.index(..n * point_words).copy_to(host).map_err(|e| gpu_err("download points", e))?;
            sink(bytemuck::cast_slice(&*host))?;
        }
        Ok(())
    }
}

impl FixedBase for GpuFixedBase<'_> {
    fn g1(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
        self.run(exps, false, sink)
    }

    fn g2(&mut self, exps: &[Scalar], sink: &mut Sink) -> Result<(), GenerateError> {
        self.run(exps, true, sink)
    }
}
