//! Mapping of element indices to threads.

/// Block-wide barrier (and shared/global memory fence for the block); on
/// the host, where a block's threads run one phase after another (see
/// [`crate::ntt::block`]), nothing.
#[inline(always)]
pub fn sync() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every thread of the block reaches each barrier the same number
    // of times: callers keep barriers outside all per-thread loops and
    // leave a block's loop only on block-uniform conditions.
    unsafe {
        core::arch::nvptx::_syncthreads()
    }
}

/// The element indices `i < n` owned by the calling thread.
///
/// On the GPU this is a grid-stride loop, so any launch shape covers all `n`
/// elements. On the host the one "thread" owns every index, which lets tests
/// run the exact kernel bodies sequentially.
///
/// An iterator rather than a closure-taking helper: closures are separate
/// functions to LLVM, and for large bodies (G2) it declines to inline them,
/// which passes points through local memory.
#[inline(always)]
pub fn indices(n: u32) -> GridStride {
    let (next, stride) = first_index_and_stride();
    GridStride { next, stride, end: n as usize }
}

/// This thread's first element index and the grid-wide stride; on the host
/// one "thread" starts at 0 with stride 1.
#[inline(always)]
pub fn first_index_and_stride() -> (usize, usize) {
    #[cfg(target_arch = "nvptx64")]
    {
        use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
        // SAFETY: reading special registers has no preconditions.
        let (block, block_dim, thread, grid_dim) = unsafe {
            (
                _block_idx_x(),
                _block_dim_x(),
                _thread_idx_x(),
                _grid_dim_x(),
            )
        };
        (
            block as u32 as usize * block_dim as u32 as usize + thread as u32 as usize,
            grid_dim as u32 as usize * block_dim as u32 as usize,
        )
    }
    #[cfg(not(target_arch = "nvptx64"))]
    (0, 1)
}

pub struct GridStride {
    next: usize,
    stride: usize,
    end: usize,
}

impl Iterator for GridStride {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += self.stride;
        Some(i)
    }
}
