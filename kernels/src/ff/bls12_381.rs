//! BLS12-381 scalar and base field constants.
//!
//! Values match blst (`vec256`/`vec384` Montgomery constants), so `Fr` and
//! `Fp` limbs are bit-identical to `blstrs::Scalar` and `blstrs::Fp`.

use super::mont::{Mont, MontConfig};

/// Scalar field of the BLS12-381 groups, `r` (255 bits).
pub struct FrConfig;

impl MontConfig<4> for FrConfig {
    const MODULUS: [u64; 4] = [
        0xffffffff00000001,
        0x53bda402fffe5bfe,
        0x3339d80809a1d805,
        0x73eda753299d7d48,
    ];
    const INV: u64 = 0xfffffffeffffffff;
    const R: [u64; 4] = [
        0x00000001fffffffe,
        0x5884b7fa00034802,
        0x998c4fefecbc4ff5,
        0x1824b159acc5056f,
    ];
    const R2: [u64; 4] = [
        0xc999e990f3f29c6d,
        0x2b6cedcb87925c23,
        0x05d314967254398f,
        0x0748d9d99f59ff11,
    ];

    /// On the GPU: 32-bit words with hardware carry chains (inline PTX),
    /// reducing with r's shape (see `scripts/gen_ptx_montmul.py`).
    /// `--cfg cuzk_generic_mul` keeps the portable u64 CIOS, for comparison.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_mont_mul(a, b)
    }

    /// Each cross product once (see `scripts/gen_ptx_montmul.py`).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_square(a: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_mont_sqr(a)
    }

    /// One carry chain (see `scripts/gen_ptx_montmul.py`).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mod_add(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_add(a, b)
    }

    /// One borrow chain (see `scripts/gen_ptx_montmul.py`).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mod_sub(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_sub(a, b)
    }

    /// The multiplication without its final subtraction.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul_lazy(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_mont_mul_lazy(a, b)
    }

    /// `fr_mont_mul` allows `a < 2p` (the generator's self-test checks it).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul_from_lazy(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_mont_mul(a, b)
    }

    /// One carry chain against `2r`.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn add_lazy(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_add_lazy(a, b)
    }

    /// One borrow chain, `2r` added back on a borrow.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn sub_lazy(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        super::ptx_montmul::fr_sub_lazy(a, b)
    }
}

/// Base field of BLS12-381, `p` (381 bits).
pub struct FpConfig;

impl MontConfig<6> for FpConfig {
    const MODULUS: [u64; 6] = [
        0xb9feffffffffaaab,
        0x1eabfffeb153ffff,
        0x6730d2a0f6b0f624,
        0x64774b84f38512bf,
        0x4b1ba7b6434bacd7,
        0x1a0111ea397fe69a,
    ];
    const INV: u64 = 0x89f3fffcfffcfffd;
    const R: [u64; 6] = [
        0x760900000002fffd,
        0xebf4000bc40c0002,
        0x5f48985753c758ba,
        0x77ce585370525745,
        0x5c071a97a256ec6d,
        0x15f65ec3fa80e493,
    ];
    const R2: [u64; 6] = [
        0xf4df1f341c341746,
        0x0a76e6a609d104f1,
        0x8de5476c4c95b6d5,
        0x67eb88a9939d83c0,
        0x9a793e85b519952d,
        0x11988fe592cae3aa,
    ];

    /// On the GPU: 32-bit words with hardware carry chains (inline PTX).
    /// `--cfg cuzk_generic_mul` keeps the portable u64 CIOS, for comparison.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_mont_mul(a, b)
    }

    /// Each cross product once (see `scripts/gen_ptx_montmul.py`).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_square(a: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_mont_sqr(a)
    }

    /// One carry chain (see `scripts/gen_ptx_montmul.py`).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mod_add(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_add(a, b)
    }

    /// One borrow chain (see `scripts/gen_ptx_montmul.py`).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mod_sub(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_sub(a, b)
    }

    /// The multiplication without its final subtraction.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_mont_mul_lazy(a, b)
    }

    /// The squaring without its final subtraction.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_square_lazy(a: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_mont_sqr_lazy(a)
    }

    /// On the GPU both products go into one CIOS loop and one reduction
    /// (`gen_mul(terms=2)`); the host's default (two products and an
    /// addition) gives the same residues, so the curve formulas' fused
    /// order runs in the host tests too.
    const FUSED_MUL2: bool = true;

    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul2_lazy(a: &[u64; 6], b: &[u64; 6], c: &[u64; 6], d: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_mont_mul2_lazy(a, b, c, d)
    }

    /// Four products, one reduction and one conditional subtraction on the
    /// GPU (`gen_mul(terms=4)`); on the host two pairs and an addition,
    /// with the same residues.
    const FUSED_MUL4: bool = true;

    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul4_lazy(
        a: &[u64; 6],
        b: &[u64; 6],
        c: &[u64; 6],
        d: &[u64; 6],
        e: &[u64; 6],
        f: &[u64; 6],
        g: &[u64; 6],
        h: &[u64; 6],
    ) -> [u64; 6] {
        super::ptx_montmul::fp_mont_mul4_lazy(a, b, c, d, e, f, g, h)
    }

    /// `fp_mont_mul` allows `a < 2p` (the generator's self-test checks it).
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn mont_mul_from_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_mont_mul(a, b)
    }

    /// One carry chain against `2p`.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn add_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_add_lazy(a, b)
    }

    /// One borrow chain, `2p` added back on a borrow.
    #[cfg(all(target_arch = "nvptx64", not(cuzk_generic_mul)))]
    #[inline(always)]
    fn sub_lazy(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        super::ptx_montmul::fp_sub_lazy(a, b)
    }
}

/// Layout-compatible with `blstrs::Scalar`.
pub type Fr = Mont<FrConfig, 4>;
/// An `Fr` value kept below `2r` (see [`super::lazy`]).
pub type FrLazy = super::lazy::Lazy<FrConfig, 4>;
/// An `Fp` value kept below `2p`: the curve formulas' base field.
pub type FpLazy = super::lazy::Lazy<FpConfig, 6>;
/// Layout-compatible with `blstrs::Fp`.
pub type Fp = Mont<FpConfig, 6>;
