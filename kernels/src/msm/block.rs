//! Thread blocks that cooperate through shared memory (the binned sort,
//! [`super::binned`]), runnable sequentially on the host.
//!
//! The schedule is that of [`crate::ntt::block`]: a kernel is phases
//! separated by [`sync`], each phase a loop over [`threads`]. On the GPU
//! the loop runs once, for the calling thread; on the host it runs every
//! thread of the block one after the other. Values a thread keeps from one
//! phase to the next live in a [`PerThread`], which is the thread's own
//! registers on the GPU and one slot per thread on the host.
//!
//! Shared memory is one `u32` array ([`Shared`], [`SHARED_WORDS`] words),
//! declared at PTX module scope like the NTT's tile.

/// Threads per block of the binned sort's kernels.
pub const BLOCK: u32 = 512;
/// Words of the block's shared array: 48 KiB, the most a kernel may
/// declare statically.
pub const SHARED_WORDS: u32 = 12288;

#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(
    ".shared .align 16 .b8 cuzk_msm_shared[{bytes}];",
    bytes = const SHARED_WORDS as usize * 4,
);

/// The block indices below `count` the caller works on: on the GPU its own
/// block (if below `count`), on the host every block, last first (GPU
/// blocks run in any order; nothing may depend on theirs).
#[inline(always)]
pub fn block_ids(count: u32) -> impl Iterator<Item = u32> {
    #[cfg(target_arch = "nvptx64")]
    {
        // SAFETY: reading a special register.
        let b = unsafe { core::arch::nvptx::_block_idx_x() } as u32;
        (b < count).then_some(b).into_iter()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        (0..count).rev()
    }
}

/// The thread indices (within the block) of one phase.
#[inline(always)]
pub fn threads() -> impl Iterator<Item = u32> {
    #[cfg(target_arch = "nvptx64")]
    {
        // SAFETY: reading a special register.
        let t = unsafe { core::arch::nvptx::_thread_idx_x() } as u32;
        t..t + 1
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        0..BLOCK
    }
}

pub use crate::gpu::grid::sync;

/// Thread `tid`'s share of a block-wide pass over `len` shared words (or
/// anything else indexed alike): `tid`, `tid + BLOCK`, …
#[inline(always)]
pub fn share(tid: u32, len: u32) -> core::iter::StepBy<core::ops::Range<u32>> {
    (tid..len).step_by(BLOCK as usize)
}

/// A value per thread that outlives a barrier: the calling thread's own on
/// the GPU, one per thread of the block on the host.
pub struct PerThread<T: Copy> {
    #[cfg(target_arch = "nvptx64")]
    value: T,
    #[cfg(not(target_arch = "nvptx64"))]
    values: [T; BLOCK as usize],
}

impl<T: Copy> PerThread<T> {
    #[inline(always)]
    pub fn new(init: T) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            PerThread { value: init }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            PerThread { values: [init; BLOCK as usize] }
        }
    }

    /// Thread `tid`'s value (on the GPU, `tid` is the caller's own).
    #[inline(always)]
    pub fn of(&mut self, tid: u32) -> &mut T {
        #[cfg(target_arch = "nvptx64")]
        {
            let _ = tid;
            &mut self.value
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            &mut self.values[tid as usize]
        }
    }
}

/// The block's shared `u32` array; on the host, an array of its own.
pub struct Shared {
    #[cfg(target_arch = "nvptx64")]
    base: u32,
    #[cfg(not(target_arch = "nvptx64"))]
    words: core::cell::UnsafeCell<[u32; SHARED_WORDS as usize]>,
}

impl Shared {
    /// The block's shared array.
    #[inline(always)]
    pub fn block() -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let base: u32;
            // SAFETY: takes the shared-window address of the module's array.
            unsafe {
                core::arch::asm!(
                    "mov.u32 {b}, cuzk_msm_shared;",
                    b = out(reg32) base,
                    options(pure, nomem, nostack, preserves_flags)
                )
            };
            Shared { base }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            Shared { words: core::cell::UnsafeCell::new([0; SHARED_WORDS as usize]) }
        }
    }

    /// Words `0..len` set to zero, each thread of the block its [`share`]
    /// of them: a phase of its own ([`sync`] before they are counted into).
    ///
    /// # Safety
    /// `len ≤ SHARED_WORDS`.
    #[inline(always)]
    pub unsafe fn clear(&self, len: u32) {
        for tid in threads() {
            for i in share(tid, len) {
                self.store(i, 0);
            }
        }
    }

    /// # Safety
    /// `i < SHARED_WORDS`.
    #[inline(always)]
    pub unsafe fn load(&self, i: u32) -> u32 {
        #[cfg(target_arch = "nvptx64")]
        {
            let v: u32;
            core::arch::asm!(
                "ld.shared.u32 {v}, [{a}];",
                a = in(reg32) self.base + 4 * i,
                v = out(reg32) v,
                options(readonly, nostack, preserves_flags)
            );
            v
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            (*self.words.get())[i as usize]
        }
    }

    /// # Safety
    /// `i < SHARED_WORDS`.
    #[inline(always)]
    pub unsafe fn store(&self, i: u32, v: u32) {
        #[cfg(target_arch = "nvptx64")]
        {
            core::arch::asm!(
                "st.shared.u32 [{a}], {v};",
                a = in(reg32) self.base + 4 * i,
                v = in(reg32) v,
                options(nostack, preserves_flags)
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            (*self.words.get())[i as usize] = v
        }
    }

    /// Adds `v` to word `i` atomically (block scope), returning the old
    /// value.
    ///
    /// # Safety
    /// `i < SHARED_WORDS`.
    #[inline(always)]
    pub unsafe fn fetch_add(&self, i: u32, v: u32) -> u32 {
        #[cfg(target_arch = "nvptx64")]
        {
            let old: u32;
            core::arch::asm!(
                "atom.shared.add.u32 {o}, [{a}], {v};",
                a = in(reg32) self.base + 4 * i,
                v = in(reg32) v,
                o = out(reg32) old,
                options(nostack, preserves_flags)
            );
            old
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let w = &mut (*self.words.get())[i as usize];
            let old = *w;
            *w = old.wrapping_add(v);
            old
        }
    }

    /// Words `at .. at + len` replaced by their exclusive prefix sums, by
    /// every thread of the block together; returns their total. Uses
    /// `2 · BLOCK` words at `scratch`, which must not overlap them. Ends
    /// with a [`sync`], so the words and the scratch are free for the
    /// next phase.
    ///
    /// Each thread scans a run of `⌈len / BLOCK⌉` consecutive words, the
    /// runs' totals are scanned in `log2 BLOCK` rounds (Hillis–Steele,
    /// between two halves of the scratch), and each run adds the totals of
    /// the runs before it.
    ///
    /// # Safety
    /// Every thread of the block calls it with the same arguments; `at +
    /// len` and `scratch + 2 · BLOCK` at most [`SHARED_WORDS`]; the counts
    /// add up to less than 2^32.
    #[inline(always)]
    pub unsafe fn exclusive_scan(&self, at: u32, len: u32, scratch: u32) -> u32 {
        let per = len.div_ceil(BLOCK);
        let run = |tid: u32| (tid * per).min(len)..((tid + 1) * per).min(len);
        for tid in threads() {
            let mut sum = 0;
            for i in run(tid) {
                let v = self.load(at + i);
                self.store(at + i, sum);
                sum += v;
            }
            self.store(scratch + tid, sum);
        }
        sync();
        let (mut from, mut to) = (scratch, scratch + BLOCK);
        let mut step = 1;
        while step < BLOCK {
            for tid in threads() {
                let below = if tid >= step { self.load(from + tid - step) } else { 0 };
                self.store(to + tid, self.load(from + tid) + below);
            }
            sync();
            (from, to) = (to, from);
            step <<= 1;
        }
        let mut total = 0;
        for tid in threads() {
            let before = if tid > 0 { self.load(from + tid - 1) } else { 0 };
            if before != 0 {
                for i in run(tid) {
                    self.store(at + i, self.load(at + i) + before);
                }
            }
            total = self.load(from + BLOCK - 1);
        }
        sync();
        total
    }
}
