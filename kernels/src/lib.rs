//! BLS12-381 arithmetic shared by the host and the nvptx64 GPU build.
//!
//! The arithmetic is plain `no_std` Rust so it is tested on the host against
//! blstrs and compiled unchanged to PTX; only the thin entry points in
//! [`gpu`] differ per target. All in-memory layouts are bit-identical to blst
//! / blstrs (see [`layout`]), so host slices can be handed over without
//! conversion.

#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, asm_experimental_arch, stdarch_nvptx)
)]

pub mod ec;
pub mod ff;
pub mod fixed_base;
pub mod gpu;
pub mod layout;
pub mod mem;
pub mod msm;
pub mod ntt;
pub mod point_decode;
pub mod point_encode;
pub mod r1cs;
pub mod witness_classes;

/// A panic in a kernel (none is reachable today: `tests/ptx_clean.rs`)
/// aborts the launch, which the host then sees as a CUDA error, instead of
/// spinning forever without one.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` only ends the kernel with an error.
    unsafe { core::arch::nvptx::trap() }
}
