//! Number-theoretic transforms over BLS12-381 Fr, for every domain size
//! 2^0 … 2^31, in place, bit-identical to bellperson's `EvaluationDomain`.
//!
//! # Design
//!
//! A transform of 2^L elements is `⌈L / 10⌉` *passes* (kernel launches),
//! the bits spread evenly (2^27 = 9 + 9 + 9, 2^24 = 8 + 8 + 8, 2^20 = 10 +
//! 10). A pass of `r` bits is a radix-2^r step of the four-step FFT: each
//! thread block loads a tile of 1024 elements (`1024 / 2^r` columns of
//! `2^r`) into shared memory, runs `r` radix-2 stages there and writes the
//! tile back, multiplying by the inter-pass twiddles on the way out (DIF) or
//! in (DIT). See [`pass`] for the index math, [`block`] for how the same
//! block-cooperative code runs sequentially on the host.
//!
//! At the size the tables are built for (a prover's H domain), the
//! inter-pass twiddles are not multiplied in at all: every pass but the
//! outermost runs its columns' DFTs as coset DFTs (butterflies `(u + c·v,
//! u − c·v)`, `c` per block of rows, from the *row twiddles* of
//! [`tables`]), which absorb them. One product per butterfly everywhere,
//! none per element between passes: 11.25 products per element at 2^24
//! instead of 11.75 (`pass::FLAG_ROW_TWIDDLES`; separate kernels
//! `ntt_*_rows_pass`).
//!
//! Two pass flavours, either direction (root ω or ω⁻¹):
//!
//! * DIF: natural in → bit-reversed out, outermost digit first;
//! * DIT: bit-reversed in → natural out, innermost digit first.
//!
//! so a DIF transform followed by a DIT one needs no reordering. Roots come
//! from two 2^16-entry tables of powers of the 2^32-th root of unity (one
//! multiplication composes any power; powers needed inside a pass take one
//! lookup), and without the composing multiplication from direct tables for
//! 2^17 … 2^20; see [`tables`]. Coset factors `g^±k`, `1/N` and the H step's
//! `1/Z(g)` are folded into per-size scale tables and applied while a pass
//! loads or stores, never in a separate pass.
//!
//! # The H step's order chain
//!
//! bellperson computes `h` as `ifft(a)`, `coset_fft`, `(a·b − c)/Z(g)`,
//! `icoset_fft` for each of a, b, c: seven transforms. Here six, with the
//! same values (the inverse coset transform is linear, so `c` needs only
//! its coefficients; details in [`plan::h_step`]):
//!
//! ```text
//! a (natural evals) --inverse DIF, ×g^k/N on store--> bitrev coeffs
//!                   --forward DIT--------------------> natural coset evals
//! (same for b)
//! c (natural evals) --inverse DIF, ×1/(N·Z(g)), scattered store--> out = C/Z
//! a·b (on load) --inverse DIF, ×g^-k/(N·Z(g)), scattered store, − out--> out
//! ```
//!
//! An odd number of transforms in a row would flip the order, so the last
//! passes of `c`'s and the final transform write out of place, to `out`,
//! in natural order (their tiles are chosen so the scattered writes are
//! still runs of adjacent elements). Where two transforms meet on the same
//! tiles (an inverse DIF's innermost pass and the forward DIT's innermost;
//! `a`'s outermost DIT pass and the final transform's outermost DIF pass),
//! one fused launch runs both ([`plan::fuse`]).

//! # Kernels
//!
//! `ntt_dif_pass` / `ntt_dit_pass` (one launch per pass: `2^(L − min(L,
//! 10))` blocks of 256 threads, 32 KiB static shared memory; every option
//! is a uniform runtime flag), the fused `ntt_dif_dit_pass` /
//! `ntt_dit_dif_pass` (the same, two passes' stages in one launch), their
//! coset-stage versions `ntt_dif_rows_pass` / `ntt_dit_rows_pass` /
//! `ntt_dif_dit_rows_pass`, and `ntt_powers` / `ntt_row_twiddles` (table
//! filling, once per prover). Each thread loads its 4 tile elements with all loads in
//! flight at once; two consecutive stages run as one radix-4 phase, in
//! which each thread combines the 4 elements the two stages pair among
//! themselves (one barrier per two stages; [`pass::FLAG_RADIX2`] runs one
//! stage per phase instead); results go back with 16-byte vector stores.
//! The inverse and fused passes are capped at 64 registers (build.rs: 4
//! blocks per SM), the forward pass runs uncapped at 78 (3 blocks), its
//! coset-stage version at 64 (4 blocks).
//! Field additions and subtractions are single carry chains in inline PTX
//! (`ff::ptx_montmul`): the portable u64 code cost the passes 14%.
//!
//! # Tuning levers
//!
//! Measured on an H200 (docs/PERFORMANCE.md, "Tried and not kept"; the
//! dated log in docs/history/): the radix-4 phases helped
//! only with the register cap (−3.5% at 2^27); other caps and two
//! butterflies per thread did not help. Stage twiddles read from a dense
//! 512-entry table ([`pass::FLAG_STAGE_TABLE`], the default; off with
//! `GpuNtt::set_stage_table`) instead of composed: 0.5% faster.
//!
//! Fusing passes across transforms saved 0.5% of the H step: the passes are
//! bound by arithmetic and latency, not by memory traffic. Not tried:
//! register-resident stages exchanged by warp shuffles;
//! 64 KiB dynamic shared memory tiles (fewer passes); pass bit splits that
//! favour coalescing (e.g. 2^20 as 7 + 7 + 6). Inter-pass twiddles come
//! from tables that need no composing multiplication where they exist (the
//! direct twiddles of [`tables`]; the row twiddles fold the rest into the
//! stages): −5% each at 2^27.
//!
//! Measured on an H200 (docs/PERFORMANCE.md, "NTT and H step"; the dated
//! log in docs/history/): phases without branches around trivial twiddles
//! −2.4% at 2^27, −1.4% at 2^24; with r odd, the lone radix-2 stage at the
//! widest half-span so that a trivial radix-4 phase remains: −3.1% at 2^27;
//! row twiddles (coset stages) instead of separate inter-pass twiddles:
//! 4.3% fewer products at 2^24, 5.1% less time. The passes are bound by the
//! integer multiply (fmaheavy) pipe, 75–79% busy in every pass. A
//! warp-uniform twiddle index was tried and not kept ("Tried and not kept").

pub mod block;
#[cfg(not(target_arch = "nvptx64"))]
pub mod host;
pub mod io;
pub mod pass;
#[cfg(not(target_arch = "nvptx64"))]
pub mod plan;
pub mod tables;

pub use block::{THREADS, TILE, TILE_LOG};
#[cfg(not(target_arch = "nvptx64"))]
pub use plan::{Direction, Order, PassArgs, Tables, MAX_PASS_BITS};
#[cfg(not(target_arch = "nvptx64"))]
pub use tables::TableLayout;
pub use tables::MAX_LOG;
