//! Limb-by-limb loads and stores between raw `u64` buffers and typed values.
//!
//! Kernels never copy whole structs through raw pointers: on nvptx that turns
//! into byte-wise `memcpy` loops or local-memory staging. Instead every type
//! says how many limbs it occupies and moves them one `u64` at a time, in the
//! same order as its `#[repr(C)]` layout, so buffers are interchangeable with
//! blstrs values.

// One explicit `u64` access per index is exactly what these loops are for.
#![allow(clippy::needless_range_loop)]

pub trait Limbs: Sized {
    /// Number of `u64` words this value occupies in memory.
    const LIMBS: usize;

    /// # Safety
    /// `src` must be valid for reading `Self::LIMBS` consecutive `u64`s.
    unsafe fn load(src: *const u64) -> Self;

    /// # Safety
    /// `dst` must be valid for writing `Self::LIMBS` consecutive `u64`s.
    unsafe fn store(&self, dst: *mut u64);

    /// [`Limbs::load`] from memory that no thread writes while the kernel
    /// runs, 16 bytes per instruction through the read-only data cache
    /// (`ld.global.nc.v2.u64`). The default is a plain load.
    ///
    /// # Safety
    /// As for `load`, and `src` must be 16-byte aligned global memory that
    /// stays unchanged during the kernel.
    #[inline(always)]
    unsafe fn load_readonly(src: *const u64) -> Self {
        Self::load(src)
    }
}

/// `N` words (`N` even) read with `ld.global.nc.v2.u64`; a plain read on
/// the host.
///
/// # Safety
/// As for [`Limbs::load_readonly`].
#[inline(always)]
pub unsafe fn load_array_readonly<const N: usize>(src: *const u64) -> [u64; N] {
    #[cfg(target_arch = "nvptx64")]
    {
        const { assert!(N % 2 == 0) };
        let mut out = [0u64; N];
        for i in 0..N / 2 {
            core::arch::asm!(
                "ld.global.nc.v2.u64 {{{a}, {b}}}, [{p}];",
                a = out(reg64) out[2 * i],
                b = out(reg64) out[2 * i + 1],
                p = in(reg64) src.add(2 * i),
                options(readonly, nostack, preserves_flags)
            );
        }
        out
    }
    #[cfg(not(target_arch = "nvptx64"))]
    load_array(src)
}

/// # Safety
/// `src` must be valid for reading `N` consecutive `u64`s.
#[inline(always)]
pub unsafe fn load_array<const N: usize>(src: *const u64) -> [u64; N] {
    let mut out = [0u64; N];
    for i in 0..N {
        out[i] = src.add(i).read();
    }
    out
}

/// # Safety
/// `dst` must be valid for writing `N` consecutive `u64`s.
#[inline(always)]
pub unsafe fn store_array<const N: usize>(dst: *mut u64, limbs: &[u64; N]) {
    for i in 0..N {
        dst.add(i).write(limbs[i]);
    }
}

/// Plain limb arrays, e.g. canonical (non-Montgomery) integers.
impl<const N: usize> Limbs for [u64; N] {
    const LIMBS: usize = N;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        load_array(src)
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        store_array(dst, self)
    }
}
