//! Warp-level helpers for the counting sort, with sequential host versions.
//!
//! On the host a "warp" is the single sequential thread: every key matches
//! only itself, the lane is 0 and shuffles return their own input, which
//! makes the aggregated atomics below degenerate to plain per-entry adds.

/// Element indices for kernels that use full-warp collectives
/// (`match.any.sync`, `shfl.sync` with mask `0xffffffff`).
///
/// Like [`crate::gpu::grid::indices`], a grid-stride loop, but *warp
/// uniform*: a warp keeps iterating while any of its lanes has an index
/// `< n`, so all 32 lanes reach every collective together. Lanes past the
/// end get indices `≥ n` and must treat them as "nothing to do". Requires
/// the block size to be a multiple of 32 (MSM launches use `plan::MSM_BLOCK`).
#[inline(always)]
pub fn uniform_indices(n: u32) -> WarpStride {
    let (next, stride) = crate::gpu::grid::first_index_and_stride();
    WarpStride { next, stride, end: n as usize }
}

pub struct WarpStride {
    next: usize,
    stride: usize,
    end: usize,
}

impl Iterator for WarpStride {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        // The warp's first index is `next & !31` (global thread ids of one
        // warp are 32 consecutive numbers starting at a multiple of 32).
        #[cfg(target_arch = "nvptx64")]
        let warp_first = self.next & !31;
        #[cfg(not(target_arch = "nvptx64"))]
        let warp_first = self.next;
        if warp_first >= self.end {
            return None;
        }
        let i = self.next;
        self.next += self.stride;
        Some(i)
    }
}

/// This thread's lane within its warp.
#[inline(always)]
pub fn lane() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let l: u32;
        // SAFETY: reads a special register.
        unsafe {
            core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) l, options(pure, nomem, nostack, preserves_flags))
        };
        l
    }
    #[cfg(not(target_arch = "nvptx64"))]
    0
}

/// The lanes of the warp whose `key` equals this lane's (`match.any.sync`).
///
/// # Safety
/// On the GPU all 32 lanes of the warp must execute this call together.
#[inline(always)]
pub unsafe fn match_any(key: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let m: u32;
        core::arch::asm!(
            "match.any.sync.b32 {m}, {k}, 0xffffffff;",
            m = out(reg32) m,
            k = in(reg32) key,
            options(nomem, nostack, preserves_flags)
        );
        m
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = key;
        1
    }
}

/// `value` as held by lane `src` (`shfl.sync.idx`).
///
/// # Safety
/// On the GPU all 32 lanes of the warp must execute this call together.
#[inline(always)]
pub unsafe fn shfl(value: u32, src: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        core::arch::asm!(
            "shfl.sync.idx.b32 {r}, {v}, {s}, 31, 0xffffffff;",
            r = out(reg32) r,
            v = in(reg32) value,
            s = in(reg32) src,
            options(nomem, nostack, preserves_flags)
        );
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = src;
        value
    }
}

/// `*ptr += v` atomically (device scope, relaxed), returning the old value:
/// `atom.add.u32` on the GPU.
///
/// # Safety
/// `ptr` must be valid, aligned, and only accessed atomically meanwhile.
#[inline(always)]
pub unsafe fn atomic_add(ptr: *mut u32, v: u32) -> u32 {
    core::sync::atomic::AtomicU32::from_ptr(ptr).fetch_add(v, core::sync::atomic::Ordering::Relaxed)
}

/// Warp-aggregated count: every lane with `key != NO_KEY` adds one to
/// `counters[key]`; lanes sharing a key issue one atomic between them
/// ([`aggregated_increment`] without the slots).
///
/// # Safety
/// As for [`aggregated_increment`].
#[inline(always)]
pub unsafe fn aggregated_add(counters: *mut u32, key: u32) {
    let peers = match_any(key);
    if key != super::NO_KEY && lane() == peers.trailing_zeros() {
        atomic_add(counters.add(key as usize), peers.count_ones());
    }
}

/// Warp-aggregated counter increment: every lane with `key != NO_KEY` adds
/// one to `counters[key]`; lanes sharing a key issue one atomic between them.
/// Returns this lane's slot: the counter's value before the warp's add plus
/// the lane's rank among the lanes sharing its key (unspecified for
/// `NO_KEY`).
///
/// # Safety
/// `counters` must be valid for every key used; on the GPU all 32 lanes of
/// the warp must call this together.
#[inline(always)]
pub unsafe fn aggregated_increment(counters: *mut u32, key: u32) -> u32 {
    let peers = match_any(key);
    let lane = lane();
    let leader = peers.trailing_zeros();
    let rank = (peers & ((1u32 << lane) - 1)).count_ones();
    let mut first = 0;
    if key != super::NO_KEY && lane == leader {
        first = atomic_add(counters.add(key as usize), peers.count_ones());
    }
    shfl(first, leader) + rank
}

/// Whether every lane of the warp has `flag` set (`vote.sync.all`).
///
/// # Safety
/// On the GPU all 32 lanes of the warp must execute this call together.
#[inline(always)]
pub unsafe fn all(flag: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let f = flag as u32;
        let r: u32;
        core::arch::asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {f}, 0; vote.sync.all.pred q, p, 0xffffffff; selp.u32 {r}, 1, 0, q; }}",
            f = in(reg32) f,
            r = out(reg32) r,
            options(nomem, nostack, preserves_flags)
        );
        r != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        flag
    }
}

/// Whether any lane of the warp has `flag` set.
///
/// # Safety
/// As for [`all`].
#[inline(always)]
pub unsafe fn any(flag: bool) -> bool {
    !all(!flag)
}
