//! Global-memory loads and stores of whole Fr elements.
//!
//! On the GPU an element is moved as two 16-byte vector accesses
//! (`ld.global.v2.u64`), which needs 16-byte aligned buffers (the host API
//! checks). Tables, which no kernel writes while a transform runs, go
//! through the read-only (non-coherent) cache. On the host these are plain
//! reads and writes.

use crate::ff::{Fr, FrLazy};

/// Element `idx` of a packed array of lazily reduced Fr elements (reduced
/// ones are valid too).
///
/// # Safety
/// As [`load`].
#[inline(always)]
pub unsafe fn load_lazy(p: *const u64, idx: u32) -> FrLazy {
    FrLazy::from_limbs(load(p, idx).limbs)
}

/// Stores a lazily reduced element, for a reader that loads it with
/// [`load_lazy`].
///
/// # Safety
/// As [`store`].
#[inline(always)]
pub unsafe fn store_lazy(p: *mut u64, idx: u32, v: &FrLazy) {
    store(p, idx, &Fr::from_raw(v.limbs()))
}

/// Element `idx` of a packed Fr array.
///
/// # Safety
/// `p` must be valid for element `idx` (and 16-byte aligned on the GPU).
#[inline(always)]
pub unsafe fn load(p: *const u64, idx: u32) -> Fr {
    let p = p.add(4 * idx as usize);
    #[cfg(target_arch = "nvptx64")]
    {
        let (l0, l1, l2, l3): (u64, u64, u64, u64);
        core::arch::asm!(
            "{{",
            ".reg .u64 ga;",
            "cvta.to.global.u64 ga, {p};",
            "ld.global.v2.u64 {{{l0}, {l1}}}, [ga];",
            "ld.global.v2.u64 {{{l2}, {l3}}}, [ga+16];",
            "}}",
            p = in(reg64) p,
            l0 = out(reg64) l0,
            l1 = out(reg64) l1,
            l2 = out(reg64) l2,
            l3 = out(reg64) l3,
            options(readonly, nostack, preserves_flags)
        );
        Fr::from_raw([l0, l1, l2, l3])
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        Fr::from_raw([p.read(), p.add(1).read(), p.add(2).read(), p.add(3).read()])
    }
}

/// Element `idx` of a table that stays constant while the kernel runs.
///
/// # Safety
/// As [`load`].
#[inline(always)]
pub unsafe fn load_const(p: *const u64, idx: u32) -> Fr {
    let p = p.add(4 * idx as usize);
    #[cfg(target_arch = "nvptx64")]
    {
        let (l0, l1, l2, l3): (u64, u64, u64, u64);
        core::arch::asm!(
            "{{",
            ".reg .u64 ga;",
            "cvta.to.global.u64 ga, {p};",
            "ld.global.nc.v2.u64 {{{l0}, {l1}}}, [ga];",
            "ld.global.nc.v2.u64 {{{l2}, {l3}}}, [ga+16];",
            "}}",
            p = in(reg64) p,
            l0 = out(reg64) l0,
            l1 = out(reg64) l1,
            l2 = out(reg64) l2,
            l3 = out(reg64) l3,
            options(pure, readonly, nostack, preserves_flags)
        );
        Fr::from_raw([l0, l1, l2, l3])
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        Fr::from_raw([p.read(), p.add(1).read(), p.add(2).read(), p.add(3).read()])
    }
}

/// Writes element `idx` of a packed Fr array.
///
/// # Safety
/// As [`load`], for writing.
#[inline(always)]
pub unsafe fn store(p: *mut u64, idx: u32, v: &Fr) {
    let p = p.add(4 * idx as usize);
    let [l0, l1, l2, l3] = v.limbs;
    #[cfg(target_arch = "nvptx64")]
    {
        core::arch::asm!(
            "{{",
            ".reg .u64 ga;",
            "cvta.to.global.u64 ga, {p};",
            "st.global.v2.u64 [ga], {{{l0}, {l1}}};",
            "st.global.v2.u64 [ga+16], {{{l2}, {l3}}};",
            "}}",
            p = in(reg64) p,
            l0 = in(reg64) l0,
            l1 = in(reg64) l1,
            l2 = in(reg64) l2,
            l3 = in(reg64) l3,
            options(nostack, preserves_flags)
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        p.write(l0);
        p.add(1).write(l1);
        p.add(2).write(l2);
        p.add(3).write(l3);
    }
}
