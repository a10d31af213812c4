//! Throughput kernels: each thread applies one operation `iters` times in a
//! dependent chain (`x = x op y`), so the time is arithmetic, not memory.
//! `benches/gpu_arith.rs` launches them and reports operations per second.

use super::grid::indices;
use crate::ec::{G1Affine, G1Xyzz, G2Affine, G2Xyzz};
use crate::ff::{Field, Fp, Fp2, FpConfig, FpLazy, Fr, MontConfig};
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

/// Element `e` of a limb-major ("planar") array of base-field values: limb
/// `l` at `l · stride + e`, so a warp's 32 consecutive elements are 256
/// contiguous bytes per limb.
#[inline(always)]
unsafe fn load_planar(p: *const u64, e: usize, stride: usize) -> FpLazy {
    let mut limbs = [0u64; 6];
    for (l, limb) in limbs.iter_mut().enumerate() {
        *limb = *p.add(l * stride + e);
    }
    Fp::from_raw(limbs).into()
}

#[inline(always)]
unsafe fn store_planar(x: FpLazy, p: *mut u64, e: usize, stride: usize) {
    for (l, limb) in x.reduce().limbs.iter().enumerate() {
        *p.add(l * stride + e) = *limb;
    }
}

/// Batch-affine G1 additions as a streaming pass over sorted entries would
/// make them: thread `t` of `n` owns the `k` elements `e = j · n + t`
/// (`j < k`) and sets `a[e] = a[e] + b[idx[e]]`, `iters` times, sharing one
/// inversion (`invert`) per pass over its `k` additions (Montgomery's
/// trick: the exclusive prefix products of the denominators go to
/// `prefix`, then one inversion, then two products per element walking
/// back). `a` is planar (its x limbs, then its y limbs, `n · k` elements a
/// plane) and `prefix` likewise (x only), so a warp's accesses coalesce;
/// `b` holds affine points one after the other (12 words each, as the
/// MSM's bases), read through `idx`, so a random `idx` makes the gather
/// the MSM's first level makes. No special cases (a timing kernel: the
/// inputs never make `x_a = x_b`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn affine_batch(a: *mut u64, b: *const u64, idx: *const u32, prefix: *mut u64, n: u32, k: u32, iters: u32, invert: impl Fn(FpLazy) -> FpLazy) {
    let total = n as usize * k as usize;
    let ay = a.add(6 * total);
    let b_at = |e: usize| b.add(*idx.add(e) as usize * 12);
    for t in indices(n) {
        for _ in 0..iters {
            let mut product = FpLazy::ONE;
            for j in 0..k as usize {
                let e = j * n as usize + t;
                let d = FpLazy::load_readonly(b_at(e)) - load_planar(a, e, total);
                store_planar(product, prefix, e, total);
                product = product * d;
            }
            let mut inverse = invert(product);
            for j in (0..k as usize).rev() {
                let e = j * n as usize + t;
                let q = G1Affine::load_readonly(b_at(e));
                let (x, y) = (load_planar(a, e, total), load_planar(ay, e, total));
                let inv = inverse * load_planar(prefix, e, total);
                inverse = inverse * (q.x - x);
                let lambda = (q.y - y) * inv;
                let x3 = lambda.square() - x - q.x;
                let y3 = lambda * (x - x3) - y;
                store_planar(x3, a, e, total);
                store_planar(y3, ay, e, total);
            }
        }
    }
}

kernel! {
    /// `affine_batch` with the field's inversion (4-bit windows: about
    /// 463 products, eight odd powers held in registers).
    fn bench_g1_affine_batch(a: *mut u64, b: *const u64, idx: *const u32, prefix: *mut u64, n: u32, k: u32, iters: u32) {
        affine_batch(a, b, idx, prefix, n, k, iters, |x| x.inverse());
    }
}

kernel! {
    /// `affine_batch` with a bit-by-bit inversion (about 610 products,
    /// two values in registers): fewer registers, more threads per SM.
    fn bench_g1_affine_batch_lean(a: *mut u64, b: *const u64, idx: *const u32, prefix: *mut u64, n: u32, k: u32, iters: u32) {
        affine_batch(a, b, idx, prefix, n, k, iters, |x| x.reduce().pow(&<FpConfig as MontConfig<6>>::MODULUS_MINUS_TWO).into());
    }
}
