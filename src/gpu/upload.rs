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
//! prover's own, `host_pool`).

use cust::event::{Event, EventFlags};
use cust::memory::{DevicePointer, LockedBuffer};
use cust::stream::Stream;
use rayon::prelude::*;

use super::{gpu_err, sys_check};
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
}

impl PinnedStager {
    pub fn new() -> Result<Self, ProverError> {
        let chunk = || LockedBuffer::new(&0u64, CHUNK_WORDS).map_err(|e| gpu_err("pinned staging buffer", e));
        let event = || Event::new(EventFlags::DISABLE_TIMING).map_err(|e| gpu_err("event", e));
        Ok(PinnedStager { chunks: [chunk()?, chunk()?], drained: [event()?, event()?], next: 0 })
    }

    /// Enqueues a copy of `src` to `dst` on `stream`. Returns once `src` has
    /// been read; the device copy may still be in flight (ordered on `stream`).
    pub fn upload(&mut self, stream: &Stream, dst: DevicePointer<u64>, src: &[u64]) -> Result<(), ProverError> {
        self.upload_bytes(stream, dst, bytemuck::cast_slice(src))
    }

    /// [`Self::upload`] of bytes (any alignment) to the device address
    /// `dst`.
    pub fn upload_bytes(&mut self, stream: &Stream, dst: DevicePointer<u64>, src: &[u8]) -> Result<(), ProverError> {
        for (i, piece) in src.chunks(CHUNK_BYTES).enumerate() {
            let k = self.next;
            // Unrecorded events report complete, so the first use never waits.
            self.drained[k].synchronize().map_err(|e| gpu_err("staging event", e))?;
            let chunk: &mut [u8] = bytemuck::cast_slice_mut(&mut self.chunks[k][..]);
            crate::prover::host_pool::run(|| {
                chunk[..piece.len()]
                    .par_chunks_mut(COPY_BYTES)
                    .zip(piece.par_chunks(COPY_BYTES))
                    .for_each(|(dst, src)| dst.copy_from_slice(src))
            });
            // SAFETY: dst has room for src (the caller's layout); the
            // pinned chunk stays untouched until its event reports done.
            unsafe {
                sys_check(
                    "host to device copy",
                    cust::sys::cuMemcpyHtoDAsync_v2(
                        dst.as_raw() + (i * CHUNK_BYTES) as u64,
                        self.chunks[k].as_ptr().cast(),
                        piece.len(),
                        stream.as_inner(),
                    ),
                )?;
            }
            // The chunk is used again only once its event says the copy
            // is done; if the event cannot be recorded, wait here instead.
            if let Err(e) = self.drained[k].record(stream) {
                let _ = stream.synchronize();
                return Err(gpu_err("record staging event", e));
            }
            self.next ^= 1;
        }
        Ok(())
    }
}
