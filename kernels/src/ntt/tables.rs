//! The precomputed tables every transform reads: roots of unity and the
//! per-element scale factors of the coset and inverse transforms.
//!
//! All tables live back to back in one buffer of Fr elements (Montgomery
//! form, 4 words each) whose layout [`TableLayout`] defines. They are
//! filled by the `ntt_powers` kernel, one launch per [`Job`]: entry `i` of
//! a job is `first · base^i`, with `base` and `first` computed on the host
//! (a handful of field operations).
//!
//! * Roots: `W` is the primitive 2^32-th root of unity `ROOT_OF_UNITY` of
//!   blstrs/bellperson, so the root of a 2^k domain is `W^(2^(32-k))`,
//!   exactly the ω bellperson uses. Any power `W^x`, `x` a `u32`, is
//!   `TW_HI[x >> 16] · TW_LO[x & 0xffff]`; powers of ω for transforms up to
//!   2^16 need only `TW_HI`. Inverse roots are `W^(-x) = W^(2^32 - x)`:
//!   a wrapping negation of the index, no separate table.
//! * Stage twiddles: every twiddle of the radix-2 stages inside a pass is
//!   a power `ψ^k`, `k < 512`, of the 1024-th root ψ; `STAGE` holds them
//!   densely (16 KiB, and `STAGE_INV` the inverse powers), so a pass that
//!   reads them there ([`super::pass::FLAG_STAGE_TABLE`]) touches 128 cache
//!   lines instead of 512 lines spread over the 2 MiB of `TW_HI`.
//! * Direct twiddles: for `17 <= L <= 20` (up to the layout's `max_log`),
//!   every power `ω_L^e`, `e < 2^L`, and every `ω_L^-e`, so the
//!   inter-pass twiddles of a pass with `log_rem = L` (the middle pass of
//!   2^26 … 2^30, the first of 2^17 … 2^20) take one lookup instead of two
//!   and a multiplication; below 17 `TW_HI` alone serves, above 20 the
//!   tables would outgrow the L2 cache (126 MB in all at 20).
//! * Row twiddles (layouts for `2^11 … 2^28`, see [`TableLayout::new`]):
//!   for transforms of the layout's size `2^max_log` the inter-pass
//!   twiddles are never multiplied in. Each pass but the outermost runs
//!   its columns' DFTs as coset DFTs whose stage twiddles fold them in
//!   ([`row_twiddle_exponent`]), one table per such pass, forward then
//!   inverse: `2·2^(max_log − log_rem + r)` elements each, 8 GiB in all
//!   at 2^27. A DIF pass then does `r/2` products per element instead of
//!   `r/2 + 1/4` plus the inter-pass product (11.25 instead of 11.75 at
//!   2^24, 12.75 instead of 13.25 at 2^27).
//! * Scales: the coset and inverse transforms multiply element `k`
//!   (natural index) by `c · h^k` for `h ∈ {g, g⁻¹}` (g = 7, bellperson's
//!   `MULTIPLICATIVE_GENERATOR`) and a constant `c`: computed as
//!   `HI[k >> 16] · LO[k & 0xffff]` where `LO[i] = h^i` and `HI[j] =
//!   c · h^(j·2^16)`. The constant is folded into the small `HI` tables,
//!   one per domain size and constant.

use super::pass::bitrev;
use crate::ff::{Field, Fr};

/// Entries of each of the 16-bit ("lo") and 16-bit ("hi") halves.
pub const HALF: u32 = 1 << 16;

/// The largest supported transform, 2^31 (element indices are `u32`).
pub const MAX_LOG: u32 = 31;

/// Offset of the stage-twiddle tables from `TW_LO`, in elements, and
/// entries of each (the forward one, then the inverse one).
pub const STAGE_FROM_TW: u32 = 4 * HALF;
pub const STAGE_COUNT: u32 = 512;

/// Sizes `2^L` with direct twiddle tables, and their offset from `TW_LO`:
/// for each `L` from `DIRECT_MIN` up, `2^L` forward then `2^L` inverse powers.
pub const DIRECT_MIN: u32 = 17;
pub const DIRECT_MAX: u32 = 20;
pub const DIRECT_FROM_TW: u32 = STAGE_FROM_TW + 2 * STAGE_COUNT;

/// Offset from `TW_LO` of `ω_L^e` (`ω_L^-e` if `inverse`), `e < 2^L`,
/// `DIRECT_MIN <= L <= DIRECT_MAX`.
#[inline(always)]
pub const fn direct_at(log_len: u32, e: u32, inverse: bool) -> u32 {
    let len = 1 << log_len;
    DIRECT_FROM_TW + 2 * (len - (1 << DIRECT_MIN)) + if inverse { len } else { 0 } + e
}

/// Elements of the direct tables for a layout of domains up to 2^`max_log`.
pub const fn direct_entries(max_log: u32) -> u32 {
    if max_log < DIRECT_MIN {
        0
    } else {
        let top = if max_log < DIRECT_MAX { max_log } else { DIRECT_MAX };
        direct_at(top + 1, 0, false) - DIRECT_FROM_TW
    }
}

/// `ROOT_OF_UNITY` of blstrs (a primitive 2^32-th root of unity), in
/// Montgomery form.
pub const ROOT_OF_UNITY: Fr = Fr::from_raw([
    0xb9b5_8d8c_5f0e_466a,
    0x5b1b_4c80_1819_d7ec,
    0x0af5_3ae3_52a3_1e64,
    0x5bf3_adda_19e9_b27b,
]);

#[cfg(not(target_arch = "nvptx64"))]
/// `MULTIPLICATIVE_GENERATOR` of blstrs: 7.
#[inline(always)]
pub fn generator() -> Fr {
    Fr::from_canonical(&[7, 0, 0, 0])
}

/// The root of unity of a 2^`log_n` domain, as bellperson computes it:
/// `ROOT_OF_UNITY` squared `32 - log_n` times.
#[cfg(not(target_arch = "nvptx64"))]
pub fn omega(log_n: u32) -> Fr {
    let mut w = ROOT_OF_UNITY;
    for _ in log_n..32 {
        w = w.square();
    }
    w
}

#[cfg(not(target_arch = "nvptx64"))]
/// Entries of a "hi" scale table for a 2^`log_n` domain.
#[inline(always)]
pub const fn hi_count(log_n: u32) -> u32 {
    if log_n > 16 {
        1 << (log_n - 16)
    } else {
        1
    }
}

#[cfg(not(target_arch = "nvptx64"))]
/// Offsets (in Fr elements) of every table, for domains up to 2^`max_log`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableLayout {
    pub max_log: u32,
    /// Nonzero: holds the row twiddles of 2^`max_log` transforms split at
    /// this many bits per pass at most (see [`Self::with_rows`]).
    pub rows_bits: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
/// Which constant a per-size scale table folds in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// `1/N` alone (plain inverse): one entry, no `LO` table.
    InvN,
    /// `(g^N - 1)^-1 / N`: the H step's `C/Z` (one entry, no `LO` table).
    InvNZ,
    /// `−(g^N - 1)^-1 / N`: `−C/Z`, for the H step that writes its output
    /// over an input (`plan::h_step_over_input`).
    InvNZNeg,
    /// `g^k / N`: the H step's coset scaling after its first inverse.
    CosetFwdInvN,
    /// `g^-k / N`: inverse coset transform.
    CosetInvN,
    /// `g^-k · (g^N - 1)^-1 / N`: the H step's final scaling (division by
    /// Z on the coset folded in).
    HFinal,
    /// `−g^-k · (g^N - 1)^-1 / N`: [`Scale::HFinal`] negated, for the H
    /// step that writes its output over an input.
    HFinalNeg,
    /// [`Scale::InvNZ`]`·R^-1`: the H step's `C/Z` written as integers
    /// ([`crate::ff::ScalarForm::Canonical`]).
    InvNZCanonical,
    /// [`Scale::InvNZNeg`]`·R^-1`.
    InvNZNegCanonical,
    /// [`Scale::HFinal`]`·R^-1`.
    HFinalCanonical,
    /// [`Scale::HFinalNeg`]`·R^-1`.
    HFinalNegCanonical,
}

#[cfg(not(target_arch = "nvptx64"))]
impl Scale {
    /// The H step's scale that writes its output in `form`: the product
    /// by a table entry already holding `R^-1` leaves `x` where it would
    /// leave `x·R` (only the H step's four scales have such a twin).
    pub fn in_form(self, form: crate::ff::ScalarForm) -> Scale {
        use crate::ff::ScalarForm;
        match (form, self) {
            (ScalarForm::Montgomery, s) => s,
            (ScalarForm::Canonical, Scale::InvNZ) => Scale::InvNZCanonical,
            (ScalarForm::Canonical, Scale::InvNZNeg) => Scale::InvNZNegCanonical,
            (ScalarForm::Canonical, Scale::HFinal) => Scale::HFinalCanonical,
            (ScalarForm::Canonical, Scale::HFinalNeg) => Scale::HFinalNegCanonical,
            (ScalarForm::Canonical, s) => panic!("{s:?} has no canonical twin"),
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl TableLayout {
    pub const TW_LO: u32 = 0;
    pub const TW_HI: u32 = HALF;
    /// `g^i`, `i < 2^16`.
    pub const G_LO: u32 = 2 * HALF;
    /// `g^-i`, `i < 2^16`.
    pub const GI_LO: u32 = 3 * HALF;
    /// `ψ^k` and `ψ^-k` for the 1024-th root ψ, `k < 512`.
    pub const STAGE: u32 = STAGE_FROM_TW;
    pub const STAGE_INV: u32 = STAGE_FROM_TW + STAGE_COUNT;
    /// The direct twiddles (see the module docs).
    pub const DIRECT: u32 = DIRECT_FROM_TW;

    /// `g^(j·2^16)` for `j < hi_count(max_log)` (coset forward, no constant).
    pub const fn g_hi(&self) -> u32 {
        Self::DIRECT + direct_entries(self.max_log)
    }

    /// Tables for domains up to 2^`max_log`, with the row twiddles of
    /// 2^`max_log` transforms at the default split where it has more than
    /// one pass and is at most 2^28 (above, offsets would pass `u32`).
    ///
    /// # Panics
    /// If `max_log > MAX_LOG` (host-side construction only).
    pub const fn new(max_log: u32) -> Self {
        let compact = Self::compact(max_log);
        if max_log > super::plan::MAX_PASS_BITS && max_log <= 28 {
            compact.with_rows(super::plan::MAX_PASS_BITS)
        } else {
            compact
        }
    }

    /// Tables for domains up to 2^`max_log` without row twiddles (every
    /// inter-pass twiddle is then multiplied in, read from the direct
    /// tables or composed).
    ///
    /// # Panics
    /// If `max_log > MAX_LOG` (host-side construction only).
    pub const fn compact(max_log: u32) -> Self {
        assert!(max_log <= MAX_LOG, "NTT tables support domains up to 2^31");
        TableLayout { max_log, rows_bits: 0 }
    }

    /// This layout plus the row twiddles of 2^`max_log` transforms split
    /// as `plan::pass_bits(max_log, bits)` (more than one pass, ≤ 2^28):
    /// for every pass but the outermost, `2^(max_log − log_rem + r)`
    /// forward then as many inverse entries (see [`row_twiddle_exponent`]).
    ///
    /// # Panics
    /// If the size has no such passes.
    pub const fn with_rows(self, bits: u32) -> Self {
        assert!(bits >= 1 && bits <= super::plan::MAX_PASS_BITS, "row twiddles: 1 … 10 bits per pass");
        assert!(self.max_log > bits && self.max_log <= 28, "row twiddles need two or more passes and 2^28 at most");
        TableLayout { rows_bits: bits, ..self }
    }

    /// Whether a 2^`log_n` transform at `max_bits` bits per pass reads
    /// this layout's row twiddles.
    pub fn rows_for(&self, log_n: u32, max_bits: u32) -> bool {
        self.rows_bits != 0
            && log_n == self.max_log
            && super::plan::pass_bits(log_n, max_bits).eq(super::plan::pass_bits(log_n, self.rows_bits))
    }

    /// Offset of the row twiddles (forward, then inverse) of the pass of
    /// 2^`max_log` transforms with `log_rem`, if the layout has them.
    pub fn row_twiddles(&self, log_rem: u32) -> Option<u32> {
        let mut at = self.rows_start();
        for (rem, r) in self.row_passes() {
            if rem == log_rem {
                return Some(at);
            }
            at += 2 << (self.max_log - rem + r);
        }
        None
    }

    /// `(log_rem, r)` of the passes with row twiddles.
    pub fn row_passes(&self) -> impl Iterator<Item = (u32, u32)> {
        let passes = if self.rows_bits == 0 { 0 } else { usize::MAX };
        let mut rem = self.max_log;
        super::plan::pass_bits(self.max_log, self.rows_bits)
            .map(move |r| {
                let at = (rem, r);
                rem -= r;
                at
            })
            .skip(1)
            .take(passes)
    }

    const fn rows_start(&self) -> u32 {
        self.per_size(self.max_log + 1)
    }

    /// First entry of the per-size tables of a 2^`log_n` domain.
    const fn per_size(&self, log_n: u32) -> u32 {
        let mut at = self.g_hi() + hi_count(self.max_log);
        let mut l = 0;
        while l < log_n {
            at += 5 + 6 * hi_count(l);
            l += 1;
        }
        at
    }

    /// Offset of the `HI` table of `scale` for a 2^`log_n` domain.
    pub const fn scale_hi(&self, scale: Scale, log_n: u32) -> u32 {
        let at = self.per_size(log_n);
        let h = hi_count(log_n);
        match scale {
            Scale::InvN => at,
            Scale::InvNZ => at + 1,
            Scale::InvNZNeg => at + 2,
            Scale::CosetFwdInvN => at + 3,
            Scale::CosetInvN => at + 3 + h,
            Scale::HFinal => at + 3 + 2 * h,
            Scale::HFinalNeg => at + 3 + 3 * h,
            Scale::InvNZCanonical => at + 3 + 4 * h,
            Scale::InvNZNegCanonical => at + 4 + 4 * h,
            Scale::HFinalCanonical => at + 5 + 4 * h,
            Scale::HFinalNegCanonical => at + 5 + 5 * h,
        }
    }

    /// Total Fr elements of the table buffer.
    pub fn entries(&self) -> u32 {
        self.rows_start() + self.row_passes().map(|(rem, r)| 2u32 << (self.max_log - rem + r)).sum::<u32>()
    }

    /// Total `u64` words of the table buffer.
    pub fn words(&self) -> usize {
        self.entries() as usize * 4
    }

    /// Calls `f` with every table-filling job (host side).
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn for_each_job(&self, mut f: impl FnMut(Job)) {
        let one = Fr::ONE;
        let w = ROOT_OF_UNITY;
        let g = generator();
        let g_inv = g.inverse();
        // x^(2^k)
        let squarings = |x: Fr, k: u32| (0..k).fold(x, |y, _| y.square());
        let pow16 = |x: Fr| squarings(x, 16);
        f(Job {
            offset: Self::TW_LO,
            count: HALF,
            base: w,
            first: one,
        });
        f(Job {
            offset: Self::TW_HI,
            count: HALF,
            base: pow16(w),
            first: one,
        });
        let psi = squarings(w, 22); // the 1024-th root
        f(Job {
            offset: Self::STAGE,
            count: STAGE_COUNT,
            base: psi,
            first: one,
        });
        f(Job {
            offset: Self::STAGE_INV,
            count: STAGE_COUNT,
            base: psi.inverse(),
            first: one,
        });
        f(Job {
            offset: Self::G_LO,
            count: HALF,
            base: g,
            first: one,
        });
        f(Job {
            offset: Self::GI_LO,
            count: HALF,
            base: g_inv,
            first: one,
        });
        for log_len in DIRECT_MIN..=self.max_log.min(DIRECT_MAX) {
            let w = omega(log_len);
            for (inverse, base) in [(false, w), (true, w.inverse())] {
                f(Job {
                    offset: direct_at(log_len, 0, inverse),
                    count: 1 << log_len,
                    base,
                    first: one,
                });
            }
        }
        f(Job {
            offset: self.g_hi(),
            count: hi_count(self.max_log),
            base: pow16(g),
            first: one,
        });
        let mut g_pow_n = g; // g^(2^log_n)
        let two_inv = Fr::from_canonical(&[2, 0, 0, 0]).inverse();
        let mut n_inv = one; // 1 / 2^log_n
        for log_n in 0..=self.max_log {
            let h = hi_count(log_n);
            let zinv = (g_pow_n - one).inverse();
            f(Job {
                offset: self.scale_hi(Scale::InvN, log_n),
                count: 1,
                base: one,
                first: n_inv,
            });
            f(Job {
                offset: self.scale_hi(Scale::InvNZ, log_n),
                count: 1,
                base: one,
                first: zinv * n_inv,
            });
            f(Job {
                offset: self.scale_hi(Scale::InvNZNeg, log_n),
                count: 1,
                base: one,
                first: -(zinv * n_inv),
            });
            f(Job {
                offset: self.scale_hi(Scale::CosetFwdInvN, log_n),
                count: h,
                base: pow16(g),
                first: n_inv,
            });
            f(Job {
                offset: self.scale_hi(Scale::CosetInvN, log_n),
                count: h,
                base: pow16(g_inv),
                first: n_inv,
            });
            f(Job {
                offset: self.scale_hi(Scale::HFinal, log_n),
                count: h,
                base: pow16(g_inv),
                first: zinv * n_inv,
            });
            f(Job {
                offset: self.scale_hi(Scale::HFinalNeg, log_n),
                count: h,
                base: pow16(g_inv),
                first: -(zinv * n_inv),
            });
            // The same four times R^-1, whose Montgomery form is 1.
            let r_inv = Fr::from_raw([1, 0, 0, 0]);
            for (scale, count, base, first) in [
                (Scale::InvNZCanonical, 1, one, zinv * n_inv),
                (Scale::InvNZNegCanonical, 1, one, -(zinv * n_inv)),
                (Scale::HFinalCanonical, h, pow16(g_inv), zinv * n_inv),
                (Scale::HFinalNegCanonical, h, pow16(g_inv), -(zinv * n_inv)),
            ] {
                f(Job { offset: self.scale_hi(scale, log_n), count, base, first: first * r_inv });
            }
            g_pow_n = g_pow_n.square();
            n_inv = n_inv * two_inv;
        }
    }
}

/// The exponent `e` of `ψ_N^e` (`N = 2^log_n`) that entry `i` of the row
/// twiddles of the pass `(log_rem, r)` holds; 0 for the unused entries
/// (`i mod 2^r = 0`).
///
/// The four-step recursion leaves the rows of a DIF pass (the columns
/// `2^log_rem`-element sub-transform number `outer` is split into) with the
/// DFT of their elements `x_i·G^i`, where `G = ψ_N^(bitrev(outer)·S)`
/// (`bitrev` over the `log_n − log_rem` bits of `outer`, `S = 2^(log_rem −
/// r)`): the inter-pass twiddles of all earlier passes, not multiplied in.
/// A radix-2 stage `s` of that coset DFT, on the block `b` of rows of
/// `2^(r−s)`, is the butterfly `(u + c·v, u − c·v)` with `c =
/// G^(2^(r−s−1)) · ψ_(2^(s+1))^bitrev_s(b)`; entry `outer·2^r + 2^s + b`.
pub const fn row_twiddle_exponent(log_n: u32, log_rem: u32, r: u32, i: u32) -> u32 {
    let k = i & ((1 << r) - 1);
    if k == 0 {
        return 0;
    }
    let outer = i >> r;
    let s = 31 - k.leading_zeros();
    let b = k - (1 << s);
    let g = bitrev(outer, log_n - log_rem) << (log_rem - r);
    ((g << (r - s - 1)) + (bitrev(b, s) << (log_n - s - 1))) & ((1 << log_n) - 1)
}

/// Entries `offset + i`, `i < count()`, of the table buffer are entry `i`
/// of the row twiddles of the pass `(log_rem, log_r)` of 2^`log_n`
/// transforms (with `ψ = ω⁻¹` if `inverse`): `ψ_N^e`, `e` from
/// [`row_twiddle_exponent`]. Filled after the [`Job`]s (from `TW_LO`/`TW_HI`).
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowJob {
    pub offset: u32,
    pub log_n: u32,
    pub log_rem: u32,
    pub log_r: u32,
    pub inverse: bool,
}

#[cfg(not(target_arch = "nvptx64"))]
impl RowJob {
    pub const fn count(&self) -> u32 {
        1 << (self.log_n - self.log_rem + self.log_r)
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl TableLayout {
    /// Calls `f` with every row-twiddle table to fill (after every [`Job`]).
    pub fn for_each_row_job(&self, mut f: impl FnMut(RowJob)) {
        for (log_rem, log_r) in self.row_passes() {
            let at = self.row_twiddles(log_rem).expect("a row pass has a table");
            for inverse in [false, true] {
                let job = RowJob { offset: at, log_n: self.max_log, log_rem, log_r, inverse };
                f(RowJob { offset: at + if inverse { job.count() } else { 0 }, ..job });
            }
        }
    }
}

/// Entries `offset + i`, `i < count`, of the table buffer are `first · base^i`.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub offset: u32,
    pub count: u32,
    pub base: Fr,
    pub first: Fr,
}

/// `base^e` by square-and-multiply over the bits of `e`.
#[inline(always)]
pub fn pow_u32(base: Fr, e: u32) -> Fr {
    let mut acc = Fr::ONE;
    let mut bit = 32 - e.leading_zeros();
    while bit > 0 {
        bit -= 1;
        acc = acc.square();
        if (e >> bit) & 1 == 1 {
            acc = acc * base;
        }
    }
    acc
}
