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
pub mod gpu;
pub mod layout;
pub mod mem;
pub mod msm;
pub mod ntt;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
