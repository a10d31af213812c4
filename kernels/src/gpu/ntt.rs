//! NTT kernels: the two pass kernels every transform is made of, the two
//! fused ones the H step uses, and the table generator. See `crate::ntt`
//! for the design and `crate::ntt::plan` for how launches are sequenced.

// Kernel parameters are flat scalars and pointers, by design.
#![allow(clippy::too_many_arguments)]

use super::grid::indices;
use crate::ff::Fr;
use crate::mem::Limbs;
use crate::ntt::block::Tile;
use crate::ntt::pass::{row_twiddle, run, Pass};
use crate::ntt::tables::pow_u32;

/// Builds the pass arguments and the block's tile (shared memory on the
/// GPU, a local array on the host) and runs the pass body.
macro_rules! pass_kernel {
    ($(#[doc = $doc:literal])* $name:ident, $dit:literal, $fused:literal, $rows:literal) => {
        kernel! {
            $(#[doc = $doc])*
            fn $name(
                data: *mut u64,
                b: *const u64,
                c: *const u64,
                out: *mut u64,
                tw: *const u64,
                tw_rows: *const u64,
                scale_hi: *const u64,
                scale_lo: *const u64,
                log_n: u32,
                log_rem: u32,
                log_r: u32,
                valid: u32,
                out_len: u32,
                flags: u32,
            ) {
                let p = Pass { data, b, c, out, tw, tw_rows, scale_hi, scale_lo, log_n, log_rem, log_r, valid, out_len, flags };
                #[cfg(target_arch = "nvptx64")]
                let tile = Tile::shared();
                #[cfg(not(target_arch = "nvptx64"))]
                let mut buf = [0u64; crate::ntt::block::TILE_WORDS];
                #[cfg(not(target_arch = "nvptx64"))]
                let tile = Tile::host(&mut buf);
                run::<$dit, $fused, $rows>(&p, tile);
            }
        }
    };
}

pass_kernel!(
    /// One decimation-in-frequency pass (natural-order digit in,
    /// bit-reversed out); `2^(log_n - min(log_n, 10))` blocks of 256 threads.
    ntt_dif_pass,
    false,
    false,
    false
);
pass_kernel!(
    /// One decimation-in-time pass (bit-reversed digit in, natural out);
    /// `2^(log_n - min(log_n, 10))` blocks of 256 threads.
    ntt_dit_pass,
    true,
    false,
    false
);
pass_kernel!(
    /// A DIF pass, then (in shared memory) the DIT pass of the same
    /// geometry: the H step's innermost passes of an inverse and the next
    /// forward transform; launched like the passes.
    ntt_dif_dit_pass,
    false,
    true,
    false
);
pass_kernel!(
    /// A DIT pass, then (in shared memory) the DIF pass of the same
    /// geometry: the H step's outermost passes of a forward and the next
    /// inverse transform; launched like the passes.
    ntt_dit_dif_pass,
    true,
    true,
    false
);

pass_kernel!(
    /// A DIF pass with coset stages (`FLAG_ROW_TWIDDLES`, every pass of
    /// such a transform but the outermost); launched like the passes.
    ntt_dif_rows_pass,
    false,
    false,
    true
);
pass_kernel!(
    /// A DIT pass with coset stages (`FLAG_ROW_TWIDDLES`, every pass of
    /// such a transform but the outermost); launched like the passes.
    ntt_dit_rows_pass,
    true,
    false,
    true
);
pass_kernel!(
    /// `ntt_dif_dit_pass` with coset stages in both halves (the H step's
    /// innermost passes, `FLAG_ROW_TWIDDLES`); launched like the passes.
    ntt_dif_dit_rows_pass,
    false,
    true,
    true
);

kernel! {
    /// Table filling: `out[i] = first · base^i` for `i < n` (Montgomery limbs
    /// of `base` and `first` passed by value).
    fn ntt_powers(out: *mut u64, n: u32, b0: u64, b1: u64, b2: u64, b3: u64, f0: u64, f1: u64, f2: u64, f3: u64) {
        let base = Fr::from_raw([b0, b1, b2, b3]);
        let first = Fr::from_raw([f0, f1, f2, f3]);
        for i in indices(n) {
            (first * pow_u32(base, i as u32)).store(out.add(i * 4));
        }
    }
}

kernel! {
    /// Table filling: `out[i]` = entry `i < n` of the row twiddles of the
    /// pass `(log_rem, log_r)` of 2^`log_n` transforms (`inverse` nonzero:
    /// with ω⁻¹), composed from the filled `TW_LO`/`TW_HI` at `tw`.
    fn ntt_row_twiddles(out: *mut u64, tw: *const u64, n: u32, log_n: u32, log_rem: u32, log_r: u32, inverse: u32) {
        for i in indices(n) {
            row_twiddle(tw, log_n, log_rem, log_r, i as u32, inverse != 0).store(out.add(i * 4));
        }
    }
}
