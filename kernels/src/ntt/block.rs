//! Cooperative thread blocks that also run sequentially on the host.
//!
//! A pass kernel is written as phases separated by barriers:
//!
//! ```text
//! for blk in block_ids(count) {
//!     for tid in threads() { ...phase 1 of thread `tid`... }
//!     sync();
//!     for tid in threads() { ...phase 2... }
//!     sync();
//! }
//! ```
//!
//! On the GPU `block_ids` yields the block's own index, `threads` the
//! thread's own index and `sync` is `bar.sync`. On the host `block_ids`
//! yields every block, `threads` every thread of the block one after the
//! other and `sync` does nothing, which is a valid schedule of the same
//! program *provided no value lives in registers across a barrier*: every
//! phase starts from shared or global memory and ends by writing to it. All
//! NTT phases are written that way.
//!
//! Shared memory: Rust has no address-space-3 statics, so the tile is
//! declared at PTX module scope with `global_asm!` (`.shared .align 16 .b8
//! cuzk_ntt_tile[…]`) and accessed with `ld.shared`/`st.shared` through
//! inline PTX. ptxas gives each kernel that references it its own 32 KiB.
//! On the host the tile is an ordinary array owned by the caller.

use crate::ff::FrLazy;

/// log2 of the elements one block holds in shared memory.
pub const TILE_LOG: u32 = 10;
/// Elements per tile.
pub const TILE: u32 = 1 << TILE_LOG;
/// Threads per block; every launch of a pass kernel must use exactly this.
pub const THREADS: u32 = 256;
/// `u64` words of the shared tile: four limb planes of `TILE` words.
pub const TILE_WORDS: usize = 4 * TILE as usize;

#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(
    ".shared .align 16 .b8 cuzk_ntt_tile[{bytes}];",
    bytes = const TILE_WORDS * 8,
);

// The inline PTX below addresses the limb planes with literal offsets.
const _: () = assert!(TILE as usize * 8 == 8192);

/// Host only: a nonzero seed makes [`block_ids`] and [`threads`] visit
/// blocks and threads in a scrambled order, `i -> (i·(2s+1) + s) mod count`.
/// Results must not change: a test's check that no phase depends on the
/// order in which other threads of the same phase ran (on the GPU they run
/// concurrently).
#[cfg(not(target_arch = "nvptx64"))]
pub static HOST_ORDER_SEED: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn host_order(count: u32) -> impl Iterator<Item = u32> {
    let s = HOST_ORDER_SEED.load(core::sync::atomic::Ordering::Relaxed);
    // A bijection on 0..count for a power-of-two count.
    (0..count).map(move |i| i.wrapping_mul(2 * s + 1).wrapping_add(s) & (count - 1))
}

/// The block indices the calling thread works on (`count` a power of two).
///
/// On the GPU an `Option`, not a one-element range: LLVM then sees no loop,
/// and does not hoist "loop-invariant" values out of the body only to keep
/// them in registers through all of it.
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
        host_order(count)
    }
}

/// The thread indices (within the block) the caller runs, one phase at a time.
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
        host_order(THREADS)
    }
}

pub use crate::gpu::grid::sync;

/// The block's tile of `TILE` field elements, lazily reduced (the stages
/// add and multiply without full reductions; a pass reduces when it
/// stores), as four planes of limbs (limb `k` of element `i` at word
/// `k * TILE + i`): threads reading consecutive elements hit consecutive
/// 8-byte words, so accesses are free of bank conflicts.
#[derive(Clone, Copy)]
pub struct Tile {
    #[cfg(target_arch = "nvptx64")]
    base: u32,
    #[cfg(not(target_arch = "nvptx64"))]
    words: *mut u64,
}

impl Tile {
    /// The block's shared tile.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn shared() -> Self {
        let base: u32;
        // SAFETY: takes the shared-window address of the module's tile.
        unsafe {
            core::arch::asm!(
                "mov.u32 {b}, cuzk_ntt_tile;",
                b = out(reg32) base,
                options(pure, nomem, nostack, preserves_flags)
            )
        };
        Tile { base }
    }

    /// A host tile backed by `buf`.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub fn host(buf: &mut [u64; TILE_WORDS]) -> Self {
        Tile {
            words: buf.as_mut_ptr(),
        }
    }

    /// # Safety
    /// `i < TILE`.
    #[inline(always)]
    pub unsafe fn load(self, i: u32) -> FrLazy {
        #[cfg(target_arch = "nvptx64")]
        {
            let a = self.base + i * 8;
            let (l0, l1, l2, l3): (u64, u64, u64, u64);
            core::arch::asm!(
                "ld.shared.u64 {l0}, [{a}];",
                "ld.shared.u64 {l1}, [{a}+8192];",
                "ld.shared.u64 {l2}, [{a}+16384];",
                "ld.shared.u64 {l3}, [{a}+24576];",
                a = in(reg32) a,
                l0 = out(reg64) l0,
                l1 = out(reg64) l1,
                l2 = out(reg64) l2,
                l3 = out(reg64) l3,
                options(readonly, nostack, preserves_flags)
            );
            FrLazy::from_limbs([l0, l1, l2, l3])
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let p = self.words.add(i as usize);
            let t = TILE as usize;
            FrLazy::from_limbs([
                p.read(),
                p.add(t).read(),
                p.add(2 * t).read(),
                p.add(3 * t).read(),
            ])
        }
    }

    /// # Safety
    /// `i < TILE`.
    #[inline(always)]
    pub unsafe fn store(self, i: u32, v: &FrLazy) {
        let [l0, l1, l2, l3] = v.limbs();
        #[cfg(target_arch = "nvptx64")]
        {
            let a = self.base + i * 8;
            core::arch::asm!(
                "st.shared.u64 [{a}], {l0};",
                "st.shared.u64 [{a}+8192], {l1};",
                "st.shared.u64 [{a}+16384], {l2};",
                "st.shared.u64 [{a}+24576], {l3};",
                a = in(reg32) a,
                l0 = in(reg64) l0,
                l1 = in(reg64) l1,
                l2 = in(reg64) l2,
                l3 = in(reg64) l3,
                options(nostack, preserves_flags)
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let p = self.words.add(i as usize);
            let t = TILE as usize;
            p.write(l0);
            p.add(t).write(l1);
            p.add(2 * t).write(l2);
            p.add(3 * t).write(l3);
        }
    }
}
