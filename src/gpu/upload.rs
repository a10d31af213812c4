//! Host → device copies through a small pinned double buffer.
//!
//! The witness lives in pageable memory, which the DMA engine cannot read
//! asynchronously. Pinning it whole would cost as much host memory as the
//! witness again (gigabytes per partition), so each worker owns two fixed
//! pinned chunks: the host fills one while the copy engine drains the other.
//! Each chunk's event says when its last copy finished; waiting on it blocks
//! only this worker, never the device.
//!
//! Filling a chunk is a host memcpy, and one thread's memcpy (≈ 5 GB/s
//! measured on the H200 machine) was the bound of a full-size pre-stage
//! (16.7 GB in 3.1 s), so chunks are filled by several threads (the
//! copies' pool of `host_pool`, apart from the prover's other host work).

use cust::event::{Event, EventFlags};
use cust::memory::{DevicePointer, LockedBuffer};
use cust::stream::Stream;
use rayon::prelude::*;

use std::time::Duration;

use super::{gpu_err, sys_check, wait};
use crate::error::ProverError;

/// 32 MiB per chunk: large enough to run the PCIe link at full speed.
const CHUNK_WORDS: usize = 4 << 20;
/// A chunk in bytes: the most one [`PinnedStager::upload_bytes`] piece
/// takes without splitting.
pub(crate) const CHUNK_BYTES: usize = 8 * CHUNK_WORDS;
/// Bytes one thread copies into a chunk (1 MiB).
const COPY_BYTES: usize = 1 << 20;

pub(crate) struct PinnedStager {
    chunks: [LockedBuffer<u64>; 2],
    drained: [Event; 2],
    next: usize,
    /// The longest wait for a chunk's copy (`ProverConfig::gpu_timeout`):
    /// a copy that never finishes is `DeviceLost`, not a thread blocked
    /// for ever while it holds the device's upload turn.
    timeout: Option<Duration>,
}

impl PinnedStager {
    pub fn new(timeout: Option<Duration>) -> Result<Self, ProverError> {
        let chunk = || LockedBuffer::new(&0u64, CHUNK_WORDS).map_err(|e| gpu_err("pinned staging buffer", e));
        let event = || Event::new(EventFlags::DISABLE_TIMING).map_err(|e| gpu_err("event", e));
        Ok(PinnedStager { chunks: [chunk()?, chunk()?], drained: [event()?, event()?], next: 0, timeout })
    }

    /// Enqueues a copy of `src` to `dst` on `stream`. Returns once `src` has
    /// been read; the device copy may still be in flight (ordered on `stream`).
    pub fn upload(&mut self, stream: &Stream, dst: DevicePointer<u64>, src: &[u64]) -> Result<(), ProverError> {
        self.upload_bytes(stream, dst, bytemuck::cast_slice(src))
    }

    /// [`Self::upload`] of bytes (any alignment) to the device address
    /// `dst`.
    pub fn upload_bytes(&mut self, stream: &Stream, dst: DevicePointer<u64>, src: &[u8]) -> Result<(), ProverError> {
        self.upload_filled(stream, dst, src.len(), |chunk, offset| {
            let piece = &src[offset..offset + chunk.len()];
            crate::prover::host_pool::run_copy(|| chunk.par_chunks_mut(COPY_BYTES).zip(piece.par_chunks(COPY_BYTES)).for_each(|(dst, src)| dst.copy_from_slice(src)));
            Ok(())
        })
    }

    /// Enqueues a copy of `len` bytes to `dst` on `stream`, each staging
    /// chunk filled by `fill(chunk, offset)` with the bytes from `offset`
    /// on (a file read straight into pinned memory, or a memcpy). Returns
    /// once every chunk has been filled.
    pub fn upload_filled(
        &mut self,
        stream: &Stream,
        dst: DevicePointer<u64>,
        len: usize,
        mut fill: impl FnMut(&mut [u8], usize) -> Result<(), ProverError>,
    ) -> Result<(), ProverError> {
        for (i, offset) in (0..len).step_by(CHUNK_BYTES).enumerate() {
            let n = CHUNK_BYTES.min(len - offset);
            let k = self.next;
            // Unrecorded events report complete, so the first use never waits.
            wait::event(&self.drained[k], "a staging chunk's copy to the GPU", self.timeout)?;
            let chunk: &mut [u8] = bytemuck::cast_slice_mut(&mut self.chunks[k][..]);
            fill(&mut chunk[..n], offset)?;
            // SAFETY: dst has room for len bytes (the caller's layout); the
            // pinned chunk stays untouched until its event reports done.
            unsafe {
                sys_check(
                    "host to device copy",
                    cust::sys::cuMemcpyHtoDAsync_v2(dst.as_raw() + (i * CHUNK_BYTES) as u64, self.chunks[k].as_ptr().cast(), n, stream.as_inner()),
                )?;
            }
            // The chunk is used again only once its event says the copy
            // is done; if the event cannot be recorded, wait here instead.
            if let Err(e) = self.drained[k].record(stream) {
                let drained = wait::stream(stream, "a staging copy, its event not recorded", self.timeout);
                return Err(drained.err().unwrap_or_else(|| gpu_err("record staging event", e)));
            }
            self.next ^= 1;
        }
        Ok(())
    }
}
