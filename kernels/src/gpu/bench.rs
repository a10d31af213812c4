//! Throughput kernels: each thread applies one operation `iters` times in a
//! dependent chain (`x = x op y`), so the time is arithmetic, not memory.
//! `benches/gpu_arith.rs` launches them and reports operations per second.

use super::grid::indices;
use crate::ec::{G1Affine, G1Xyzz, G2Affine, G2Xyzz};
use crate::ff::{Field, Fp, Fp2, Fr};
use crate::mem::Limbs;

macro_rules! chain_kernel {
    ($name:ident: $State:ty, $Operand:ty, |$x:ident, $y:ident| $step:expr) => {
        kernel! {
            /// `state[i] = state[i] op operand[i]`, `iters` times.
            fn $name(state: *mut u64, operand: *const u64, n: u32, iters: u32) {
                for i in indices(n) {
                    let mut $x = <$State as Limbs>::load(state.add(i * <$State as Limbs>::LIMBS));
                    let $y = <$Operand as Limbs>::load(operand.add(i * <$Operand as Limbs>::LIMBS));
                    for _ in 0..iters {
                        $x = $step;
                    }
                    $x.store(state.add(i * <$State as Limbs>::LIMBS));
                }
            }
        }
    };
}

chain_kernel!(bench_fr_mul: Fr, Fr, |x, y| x * y);
chain_kernel!(bench_fp_mul: Fp, Fp, |x, y| x * y);
chain_kernel!(bench_fp_sqr: Fp, Fp, |x, _y| x.square());
chain_kernel!(bench_fp2_mul: Fp2, Fp2, |x, y| x * y);
/// Like `chain_kernel!`, but the operand is loaded from memory in every
/// iteration (through a pointer the optimiser cannot prove loop-invariant),
/// as in MSM bucket accumulation, where each point is fresh: keeping a G2
/// point in registers across the whole chain would cost 48 of them.
macro_rules! chain_kernel_reload {
    ($name:ident: $State:ty, $Operand:ty, |$x:ident, $y:ident| $step:expr) => {
        kernel! {
            /// `state[i] = state[i] op operand[i]`, `iters` times, reloading `operand[i]`.
            fn $name(state: *mut u64, operand: *const u64, n: u32, iters: u32) {
                for i in indices(n) {
                    let mut $x = <$State as Limbs>::load(state.add(i * <$State as Limbs>::LIMBS));
                    for _ in 0..iters {
                        let src = opaque(operand.add(i * <$Operand as Limbs>::LIMBS));
                        let $y = <$Operand as Limbs>::load(src);
                        $x = $step;
                    }
                    $x.store(state.add(i * <$State as Limbs>::LIMBS));
                }
            }
        }
    };
}

/// The pointer itself, hidden from the optimiser (no instruction emitted).
#[inline(always)]
fn opaque(mut ptr: *const u64) -> *const u64 {
    // SAFETY: an empty asm block that only "reads and writes" the register.
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("// {0}", inout(reg64) ptr, options(nomem, nostack, preserves_flags));
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ptr = core::hint::black_box(ptr);
    }
    ptr
}

chain_kernel_reload!(bench_g1_add_mixed: G1Xyzz, G1Affine, |acc, p| acc.add_affine(&p));
chain_kernel_reload!(bench_g2_add_mixed: G2Xyzz, G2Affine, |acc, p| acc.add_affine(&p));
