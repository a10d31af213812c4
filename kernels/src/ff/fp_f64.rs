//! Fp whose multiplications make their product on the FP64 pipe
//! ([`super::f64_product`]) and reduce it on the integer multiply pipe
//! (`ptx_montmul::fp_mont_redc`), so both pipes work at once; squares,
//! additions and subtractions are `Fp`'s. The same values and layout as
//! [`super::Fp`]: only the instructions differ. A separate config so the
//! two can be measured side by side (`bench_fp_mul_f64`, the `_f64` curve
//! kernels) before either replaces the other.

use super::bls12_381::FpConfig;
use super::f64_product::product;
use super::lazy::Lazy;
use super::mont::{Mont, MontConfig};

/// [`FpConfig`]'s constants with the FP64 pipe's products.
pub struct FpF64Config;

/// Layout-compatible with [`super::Fp`] (and `blstrs::Fp`).
pub type FpF64 = Mont<FpF64Config, 6>;
/// An [`FpF64`] kept below `2p` (see [`super::lazy`]).
pub type FpF64Lazy = Lazy<FpF64Config, 6>;

/// `(lo + hi·2^384) / 2^384 mod p`, fully reduced if `reduce`, else below
/// `2p`, for `lo + hi·2^384 < 4p²`: the host's reference for the PTX
/// `fp_mont_redc` (operand-scanning REDC on 64-bit limbs).
#[cfg(not(target_arch = "nvptx64"))]
fn redc(lo: &[u64; 6], hi: &[u64; 6], reduce: bool) -> [u64; 6] {
    let p = FpConfig::MODULUS;
    let mut t = [0u64; 13];
    t[..6].copy_from_slice(lo);
    t[6..12].copy_from_slice(hi);
    for i in 0..6 {
        let m = t[i].wrapping_mul(FpConfig::INV);
        let mut carry = 0u128;
        for j in 0..6 {
            let s = t[i + j] as u128 + m as u128 * p[j] as u128 + carry;
            t[i + j] = s as u64;
            carry = s >> 64;
        }
        let mut k = i + 6;
        while carry != 0 {
            let s = t[k] as u128 + carry;
            t[k] = s as u64;
            carry = s >> 64;
            k += 1;
        }
    }
    // (T + m·p)/2^384 < 4p²/2^384 + p < 2p: no word 12.
    let mut r = [0u64; 6];
    r.copy_from_slice(&t[6..12]);
    if reduce {
        let mut d = [0u64; 6];
        let mut borrow = 0u64;
        for j in 0..6 {
            let (x, b1) = r[j].overflowing_sub(p[j]);
            let (x, b2) = x.overflowing_sub(borrow);
            d[j] = x;
            borrow = (b1 | b2) as u64;
        }
        if borrow == 0 {
            r = d;
        }
    }
    r
}

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn redc(lo: &[u64; 6], hi: &[u64; 6], reduce: bool) -> [u64; 6] {
    if reduce {
        super::ptx_montmul::fp_mont_redc(lo, hi)
    } else {
        super::ptx_montmul::fp_mont_redc_lazy(lo, hi)
    }
}

impl MontConfig<6> for FpF64Config {
    const MODULUS: [u64; 6] = FpConfig::MODULUS;
    const INV: u64 = FpConfig::INV;
    const R: [u64; 6] = FpConfig::R;
    const R2: [u64; 6] = FpConfig::R2;

    /// `a, b < p` (or `a < 2p`): result `< p`.
    #[inline(always)]
    fn mont_mul(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (lo, hi) = product(a, b);
        redc(&lo, &hi, true)
    }

    #[inline(always)]
    fn mont_square(a: &[u64; 6]) -> [u64; 6] {
        FpConfig::mont_square(a)
    }

    #[inline(always)]
    fn mod_add(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        FpConfig::mod_add(a, b)
    }

    #[inline(always)]
    fn mod_sub(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        FpConfig::mod_sub(a, b)
    }

    /// `a, b < 2p`: result `< 2p`.
    #[inline(always)]
    fn mont_mul_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (lo, hi) = product(a, b);
        redc(&lo, &hi, false)
    }

    #[inline(always)]
    fn mont_square_lazy(a: &[u64; 6]) -> [u64; 6] {
        FpConfig::mont_square_lazy(a)
    }

    #[inline(always)]
    fn mont_mul_from_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        FpConfig::mont_mul_from_lazy(a, b)
    }

    #[inline(always)]
    fn add_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        FpConfig::add_lazy(a, b)
    }

    #[inline(always)]
    fn sub_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        FpConfig::sub_lazy(a, b)
    }
}
