//! Which pass launches make up each operation. Shared by the host tests
//! (which run the host build of the pass kernels) and the CUDA driver in
//! the root crate (which launches them), so both run the same schedule.
//!
//! Buffers are given as addresses (`u64`; 0 = none): device addresses on
//! the GPU, host addresses in host tests.

use super::block::{THREADS, TILE_LOG};
use super::pass::{
    FLAG_DIRECT_TWIDDLES, FLAG_INVERSE, FLAG_INVERSE2, FLAG_LAZY_STORE, FLAG_POINTWISE, FLAG_RADIX2, FLAG_SCALE_ON_LOAD, FLAG_SCATTER, FLAG_STAGE_TABLE,
    FLAG_ROW_TWIDDLES, FLAG_SUBTRACT_OUT,
};
use super::tables::{Scale, TableLayout, HALF};
use crate::ff::ScalarForm;

/// Most bits (radix-2 stages) one pass may take: a tile holds 2^10 elements.
pub const MAX_PASS_BITS: u32 = TILE_LOG;

/// Forward: `X[k] = Σ x[j] ω^(jk)`; inverse: with `ω⁻¹`, times `1/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Inverse,
}

/// Input and output order of a transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Natural input, bit-reversed output (DIF passes).
    NaturalToBitrev,
    /// Bit-reversed input, natural output (DIT passes).
    BitrevToNatural,
}

/// Which pass kernel a launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    Dif,
    Dit,
    /// A DIF pass, then the DIT pass of the same geometry (see [`fuse`]).
    DifDit,
    /// A DIT pass, then the DIF pass of the same geometry.
    DitDif,
}

/// One kernel launch: [`PassArgs::kernel`] with `grid()` blocks of
/// [`THREADS`] threads and these arguments in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassArgs {
    pub kind: PassKind,
    pub data: u64,
    pub b: u64,
    pub c: u64,
    pub out: u64,
    pub tw: u64,
    /// 0, or the pass's row twiddles (see `pass::Pass::tw_rows`).
    pub tw_rows: u64,
    pub scale_hi: u64,
    pub scale_lo: u64,
    pub log_n: u32,
    pub log_rem: u32,
    pub log_r: u32,
    pub valid: u32,
    pub out_len: u32,
    pub flags: u32,
}

impl PassArgs {
    pub fn kernel(&self) -> &'static str {
        match (self.kind, self.coset_stages()) {
            (PassKind::Dif, false) => "ntt_dif_pass",
            (PassKind::Dit, false) => "ntt_dit_pass",
            (PassKind::DifDit, false) => "ntt_dif_dit_pass",
            (PassKind::DitDif, false) => "ntt_dit_dif_pass",
            (PassKind::Dif, true) => "ntt_dif_rows_pass",
            (PassKind::Dit, true) => "ntt_dit_rows_pass",
            (PassKind::DifDit, true) => "ntt_dif_dit_rows_pass",
            (PassKind::DitDif, true) => panic!("a DIT/DIF pass is outermost: no coset stages"),
        }
    }

    /// Whether the pass runs coset stages from row twiddles (every pass of
    /// a [`FLAG_ROW_TWIDDLES`] transform but the outermost).
    pub fn coset_stages(&self) -> bool {
        self.flags & FLAG_ROW_TWIDDLES != 0 && self.log_rem < self.log_n
    }

    pub fn grid(&self) -> u32 {
        1 << (self.log_n - self.log_n.min(TILE_LOG))
    }

    pub const fn block() -> u32 {
        THREADS
    }
}

/// Table addresses: the table buffer's address and its layout, and where
/// the passes read their stage twiddles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tables {
    pub base: u64,
    pub layout: TableLayout,
    /// From the dense `STAGE` tables (`FLAG_STAGE_TABLE`) rather than
    /// `TW_HI`; the same values either way.
    pub stage_table: bool,
    /// Every stage its own radix-2 phase (`FLAG_RADIX2`) rather than pairs
    /// of stages as radix-4 phases; the same values either way.
    pub radix2: bool,
    /// The H step fuses passes across transforms ([`fuse`]); the same
    /// values either way.
    pub fused: bool,
    /// Inter-pass twiddles from the direct tables where they exist
    /// (`FLAG_DIRECT_TWIDDLES`), and folded into the stages of a
    /// 2^`max_log` transform if the layout has its row twiddles
    /// (`FLAG_ROW_TWIDDLES`), rather than composed and multiplied in; the
    /// same values.
    pub direct_twiddles: bool,
    /// Passes inside a transform store lazily reduced values
    /// (`FLAG_LAZY_STORE`); the same values after each transform.
    pub lazy_stores: bool,
}

impl Tables {
    fn at(&self, fr_offset: u32) -> u64 {
        self.base + 32 * fr_offset as u64
    }

    fn scale(&self, scale: Scale, log_n: u32) -> (u64, u64) {
        let hi = self.at(self.layout.scale_hi(scale, log_n));
        let lo = match scale {
            Scale::InvN | Scale::InvNZ | Scale::InvNZNeg | Scale::InvNZCanonical | Scale::InvNZNegCanonical => 0,
            Scale::CosetFwdInvN => self.at(TableLayout::G_LO),
            Scale::CosetInvN | Scale::HFinal | Scale::HFinalNeg | Scale::HFinalCanonical | Scale::HFinalNegCanonical => {
                self.at(TableLayout::GI_LO)
            }
        };
        (hi, lo)
    }

    fn coset_forward(&self) -> (u64, u64) {
        (self.at(self.layout.g_hi()), self.at(TableLayout::G_LO))
    }
}

/// Bits per pass, outermost (first DIF pass) first: as few passes as
/// `max_bits` allows, bits spread evenly (e.g. 27 = 9 + 9 + 9).
pub fn pass_bits(log_n: u32, max_bits: u32) -> impl DoubleEndedIterator<Item = u32> + Clone {
    let max_bits = max_bits.clamp(1, MAX_PASS_BITS);
    let passes = log_n.div_ceil(max_bits);
    let base = log_n.checked_div(passes).unwrap_or(0);
    let extra = log_n.checked_rem(passes).unwrap_or(0);
    (0..passes).map(move |i| base + (i < extra) as u32)
}

/// Extras of the first and last pass of a transform.
#[derive(Clone, Copy, Default)]
struct Ends {
    /// Positions `>= valid` read as zero (None: all valid).
    valid: Option<u32>,
    /// `(b, c)`: load `data·b − c`.
    pointwise: Option<(u64, u64)>,
    /// Scale applied to the input of the first pass.
    scale_in: Option<(u64, u64)>,
    /// Scale applied to the output of the last pass.
    scale_out: Option<(u64, u64)>,
    /// `(out, out_len)`: last pass writes natural order to `out` (DIF only).
    scatter: Option<(u64, u32)>,
    /// With `scatter`: write `v − out[k]` instead of `v`.
    subtract_out: bool,
}

/// Emits the passes of one in-place transform of `2^log_n` elements.
#[allow(clippy::too_many_arguments)]
fn transform(
    log_n: u32,
    max_bits: u32,
    dit: bool,
    inverse: bool,
    data: u64,
    tables: &Tables,
    ends: Ends,
    emit: &mut impl FnMut(&PassArgs),
) {
    assert!(
        log_n <= tables.layout.max_log,
        "transform of 2^{log_n} exceeds the tables' 2^{}",
        tables.layout.max_log
    );
    assert!(
        !(dit && ends.scatter.is_some()),
        "scatter is a DIF-only output"
    );
    assert!(
        !(ends.scale_in.is_some() && ends.scale_out.is_some()),
        "one scale per transform"
    );
    let bits = pass_bits(log_n, max_bits);
    let passes = bits.clone().count();
    // Inter-pass twiddles folded into the stages (see FLAG_ROW_TWIDDLES).
    let rows = tables.direct_twiddles && tables.layout.rows_for(log_n, max_bits);
    // (log_rem, r) of every pass in DIF order.
    let mut rem = log_n;
    let mut geometry = [(0u32, 0u32); 32];
    for (i, r) in bits.enumerate() {
        geometry[i] = (rem, r);
        rem -= r;
    }
    for step in 0..passes {
        let (log_rem, log_r) = geometry[if dit { passes - 1 - step } else { step }];
        let (first, last) = (step == 0, step + 1 == passes);
        let mut a = PassArgs {
            kind: if dit { PassKind::Dit } else { PassKind::Dif },
            data,
            b: 0,
            c: 0,
            out: 0,
            tw: tables.at(TableLayout::TW_LO),
            tw_rows: if rows { tables.layout.row_twiddles(log_rem).map_or(0, |at| tables.at(at)) } else { 0 },
            scale_hi: 0,
            scale_lo: 0,
            log_n,
            log_rem,
            log_r,
            valid: 1 << log_n,
            out_len: 0,
            flags: if inverse { FLAG_INVERSE } else { 0 }
                | if tables.stage_table { FLAG_STAGE_TABLE } else { 0 }
                | if tables.radix2 { FLAG_RADIX2 } else { 0 }
                | if tables.direct_twiddles { FLAG_DIRECT_TWIDDLES } else { 0 }
                | if rows { FLAG_ROW_TWIDDLES } else { 0 }
                // The next pass of this transform reads it back; the last
                // pass (scale, scatter, other readers) stores reduced.
                | if tables.lazy_stores && !last { FLAG_LAZY_STORE } else { 0 },
        };
        if first {
            if let Some(v) = ends.valid {
                a.valid = v;
            }
            if let Some((b, c)) = ends.pointwise {
                (a.b, a.c) = (b, c);
                a.flags |= FLAG_POINTWISE;
            }
            if let Some((hi, lo)) = ends.scale_in {
                (a.scale_hi, a.scale_lo) = (hi, lo);
                a.flags |= FLAG_SCALE_ON_LOAD;
            }
        }
        if last {
            if let Some((hi, lo)) = ends.scale_out {
                (a.scale_hi, a.scale_lo) = (hi, lo);
            }
            if let Some((out, len)) = ends.scatter {
                (a.out, a.out_len) = (out, len);
                a.flags |= FLAG_SCATTER | if ends.subtract_out { FLAG_SUBTRACT_OUT } else { 0 };
            }
        }
        emit(&a);
    }
}

/// An in-place NTT of the `2^log_n` elements at `data`.
///
/// * forward: `X[k] = Σ_j x[j] ω^(jk)` (bellperson `fft`);
/// * forward coset: `x[j]` first multiplied by `g^j` (bellperson `coset_fft`);
/// * inverse: with `ω⁻¹` and times `1/N` (bellperson `ifft`);
/// * inverse coset: the inverse, then element `j` times `g^-j`
///   (bellperson `icoset_fft`).
///
/// `order` says how input and output are laid out; indices above are
/// natural, element `k` being at position `bitrev(k)` in bit-reversed order.
#[allow(clippy::too_many_arguments)]
pub fn ntt(
    log_n: u32,
    max_bits: u32,
    dir: Direction,
    order: Order,
    coset: bool,
    data: u64,
    tables: &Tables,
    mut emit: impl FnMut(&PassArgs),
) {
    let inverse = dir == Direction::Inverse;
    let mut ends = Ends::default();
    match (inverse, coset) {
        (false, false) => {}
        (false, true) => ends.scale_in = Some(tables.coset_forward()),
        (true, false) => ends.scale_out = Some(tables.scale(Scale::InvN, log_n)),
        (true, true) => ends.scale_out = Some(tables.scale(Scale::CosetInvN, log_n)),
    }
    transform(
        log_n,
        max_bits,
        order == Order::BitrevToNatural,
        inverse,
        data,
        tables,
        ends,
        &mut emit,
    );
}

/// The last pass of one transform and the first of the next as one launch
/// (`ntt_dif_dit_pass` / `ntt_dit_dif_pass`): `x` runs first, with its
/// input extras; its output extras (a scale: `x` must finish its
/// transform) and `y`'s input extras (pointwise) apply in the middle; `y`
/// stores. Both work in place on the same data with the same geometry, of
/// opposite flavours; a DIF `x` must be untwiddled (innermost), so nothing
/// is lost between the halves.
///
/// # Panics
/// If the two passes cannot be fused that way.
pub fn fuse(x: &PassArgs, y: &PassArgs) -> PassArgs {
    let kind = match (x.kind, y.kind) {
        (PassKind::Dif, PassKind::Dit) => PassKind::DifDit,
        (PassKind::Dit, PassKind::Dif) => PassKind::DitDif,
        _ => panic!("fuse: a DIF and a DIT pass, not {:?} and {:?}", x.kind, y.kind),
    };
    let same = (x.data, x.log_n, x.log_rem, x.log_r, x.tw_rows) == (y.data, y.log_n, y.log_rem, y.log_r, y.tw_rows);
    assert!(same, "fuse: different data or geometry");
    assert!(kind != PassKind::DifDit || x.log_rem == x.log_r, "fuse: a twiddled DIF pass first");
    assert!(x.flags & (FLAG_SCATTER | FLAG_POINTWISE) == 0, "fuse: x scatters or is pointwise");
    assert!(
        x.scale_hi == 0 || x.flags & FLAG_SCALE_ON_LOAD == 0,
        "fuse: x scales on load"
    );
    assert!(
        y.scale_hi == 0 && y.flags & FLAG_SCATTER == 0 && y.valid == 1 << y.log_n,
        "fuse: y scales, scatters or pads"
    );
    assert!(
        x.scale_hi == 0 || y.flags & FLAG_POINTWISE == 0,
        "fuse: one middle extra"
    );
    let options = FLAG_STAGE_TABLE | FLAG_RADIX2 | FLAG_DIRECT_TWIDDLES | FLAG_ROW_TWIDDLES;
    assert_eq!(x.flags & options, y.flags & options, "fuse: different stage options");
    PassArgs {
        kind,
        b: y.b,
        c: y.c,
        // x is its transform's last pass (never lazy); the launch stores as y.
        flags: x.flags
            | (y.flags & (FLAG_POINTWISE | FLAG_LAZY_STORE))
            | if y.flags & FLAG_INVERSE != 0 { FLAG_INVERSE2 } else { 0 },
        ..*x
    }
}

/// The passes of one transform, held so that its ends can be fused.
#[derive(Clone, Copy)]
struct Passes {
    list: [Option<PassArgs>; 32],
    len: usize,
}

impl Passes {
    fn of(run: impl FnOnce(&mut dyn FnMut(&PassArgs))) -> Self {
        let mut t = Passes { list: [None; 32], len: 0 };
        run(&mut |p| {
            t.list[t.len] = Some(*p);
            t.len += 1;
        });
        t
    }

    fn get(&self, i: usize) -> PassArgs {
        self.list[i].expect("pass index")
    }

    fn first(&self) -> PassArgs {
        self.get(0)
    }

    fn last(&self) -> PassArgs {
        self.get(self.len - 1)
    }

    /// Emits passes `from..to`.
    fn emit(&self, from: usize, to: usize, emit: &mut impl FnMut(&PassArgs)) {
        for i in from..to {
            emit(&self.get(i));
        }
    }
}

/// The H step of Groth16 on a 2^`log_n` domain, all on the device:
///
/// `a`, `b`, `c` hold `2^log_n` elements each, of which the first `valid`
/// are the evaluations (the rest is read as zero, whatever it holds); all
/// three are overwritten. `out` receives the `2^log_n − 1` coefficients of
/// `h = (a·b − c) / Z` in natural order, exactly bellperson's (see
/// `cuzk::cpu::h::h_coefficients`).
///
/// bellperson evaluates `A`, `B` and `C` on the coset `g·⟨ω⟩` and takes
/// `icoset((A·B − C)/Z)` there (`Z = g^N − 1` on the whole coset). The
/// inverse coset transform is linear and undoes the forward one on
/// polynomials of degree below `N`, so that equals
/// `(icoset(coset(A)·coset(B)) − C) / Z` with `C`'s coefficients straight
/// from the first inverse transform: six transforms instead of seven, the
/// same values. The order chain (no bit-reversal pass anywhere):
///
/// 1. for `x` in `a, b`: inverse DIF (ω⁻¹), natural evaluations →
///    bit-reversed coefficients; zero padding fused into the first pass;
///    the last pass multiplies coefficient `k` (natural index, i.e. at
///    position `bitrev(k)`) by `g^k / N`: bellperson's `1/N` of `ifft` and
///    the `g^k` of `coset_fft` in one factor; then forward DIT (ω),
///    bit-reversed coefficients → natural evaluations on the coset.
/// 2. `c`: inverse DIF, whose last pass writes coefficient `k` times
///    `1/(N·Z)` to `out[k]` (natural order).
/// 3. inverse DIF on `a`: the first pass loads `a·b` (pointwise,
///    order-independent); the last pass writes coefficient `k` as
///    `g^-k · v / (N·Z) − out[k]` to `out[k]`: `ifft`'s `1/N`,
///    `icoset_fft`'s `g^-k` and the division by `Z` in one factor, minus
///    `C/Z`. `k = N − 1` (zero for a satisfied circuit; bellperson drops
///    it) is not written.
///
/// `form` is how `out` holds `h`: in Montgomery form, as blstrs' `Scalar`
/// does, or as integers (the two final scales times `R^-1`; what the H
/// MSM reads without converting), at the same cost.
///
/// With `tables.fused` (and at least two passes per transform), the
/// transforms' adjacent ends run as single launches ([`fuse`]): the last
/// inverse pass of `a` (`b`) with its first forward pass (same innermost
/// tiles, scale in the middle), and the last forward pass of `a` with the
/// final transform's first pass (same outermost tiles, `·b` in the
/// middle). Launches at 2^27 (3 passes per transform): 14 instead of 18.
#[allow(clippy::too_many_arguments)]
pub fn h_step(
    log_n: u32,
    max_bits: u32,
    valid: u32,
    a: u64,
    b: u64,
    c: u64,
    out: u64,
    form: ScalarForm,
    tables: &Tables,
    mut emit: impl FnMut(&PassArgs),
) {
    if log_n == 0 {
        return; // h has no coefficients
    }
    let out_len = ((1u64 << log_n) - 1) as u32;
    let inverse = |x: u64, ends: Ends| Passes::of(|e| transform(log_n, max_bits, false, true, x, tables, ends, &mut |p| e(p)));
    let to_coset = |x: u64| {
        let ends = Ends {
            valid: Some(valid),
            scale_out: Some(tables.scale(Scale::CosetFwdInvN, log_n)),
            ..Ends::default()
        };
        let forward = Passes::of(|e| transform(log_n, max_bits, true, false, x, tables, Ends::default(), &mut |p| e(p)));
        (inverse(x, ends), forward)
    };
    let fused = tables.fused && pass_bits(log_n, max_bits).count() >= 2;
    // Emits x's inverse and forward passes, without the forward's last
    // `keep` ones.
    let mut coset = |(inv, fwd): (Passes, Passes), keep: usize| {
        if fused {
            inv.emit(0, inv.len - 1, &mut emit);
            emit(&fuse(&inv.last(), &fwd.first()));
            fwd.emit(1, fwd.len - keep, &mut emit);
        } else {
            inv.emit(0, inv.len, &mut emit);
            fwd.emit(0, fwd.len - keep, &mut emit);
        }
    };
    coset(to_coset(b), 0);
    let a_passes = to_coset(a);
    coset(a_passes, fused as usize);
    let c_ends = Ends {
        valid: Some(valid),
        scale_out: Some(tables.scale(Scale::InvNZ.in_form(form), log_n)),
        scatter: Some((out, out_len)),
        ..Ends::default()
    };
    let c_passes = inverse(c, c_ends);
    c_passes.emit(0, c_passes.len, &mut emit);
    let last = inverse(
        a,
        Ends {
            pointwise: Some((b, 0)),
            scale_out: Some(tables.scale(Scale::HFinal.in_form(form), log_n)),
            scatter: Some((out, out_len)),
            subtract_out: true,
            ..Ends::default()
        },
    );
    if fused {
        emit(&fuse(&a_passes.1.last(), &last.first()));
        last.emit(1, last.len, &mut emit);
    } else {
        last.emit(0, last.len, &mut emit);
    }
}

/// How many of `passes` come up to the last one that reads or writes the
/// buffer at `at` (none after it does): with [`h_step_over_input`]'s
/// passes and its `a`, all but `c`'s inverse, after which `a` is free.
pub fn passes_through(passes: &[PassArgs], at: u64) -> usize {
    passes.iter().rposition(|p| [p.data, p.b, p.c, p.out].contains(&at)).map_or(0, |i| i + 1)
}

/// Whether [`h_step_over_input`] can run at 2^`log_n` with passes of at
/// most `max_bits`: its last inverse must read `b` (first pass) before it
/// writes over it (last pass), so it needs two passes or more.
pub fn h_step_over_input_fits(log_n: u32, max_bits: u32) -> bool {
    pass_bits(log_n, max_bits).count() >= 2
}

/// [`h_step`] that writes `h` over `b` instead of into a buffer of its
/// own: the same transforms of `a` and `b`, then the last inverse of
/// `a·b` (which reads `b` in its first pass) writes `−(a·b)/Z`'s
/// coefficients into `b` in natural order, and `c`'s inverse writes
/// `−C/Z − b[k]` there: `h = (a·b − c)/Z`, `2^k − 1` coefficients
/// (`b[2^k − 1]` holds scratch). The transforms are the same six, so
/// it costs what [`h_step`] costs, in a third less memory; `form` as
/// there. Only where [`h_step_over_input_fits`].
#[allow(clippy::too_many_arguments)]
pub fn h_step_over_input(
    log_n: u32,
    max_bits: u32,
    valid: u32,
    a: u64,
    b: u64,
    c: u64,
    form: ScalarForm,
    tables: &Tables,
    mut emit: impl FnMut(&PassArgs),
) {
    assert!(h_step_over_input_fits(log_n, max_bits), "the H step over its input needs two passes or more");
    let out_len = ((1u64 << log_n) - 1) as u32;
    let inverse = |x: u64, ends: Ends| Passes::of(|e| transform(log_n, max_bits, false, true, x, tables, ends, &mut |p| e(p)));
    let to_coset = |x: u64| {
        let ends = Ends { valid: Some(valid), scale_out: Some(tables.scale(Scale::CosetFwdInvN, log_n)), ..Ends::default() };
        let forward = Passes::of(|e| transform(log_n, max_bits, true, false, x, tables, Ends::default(), &mut |p| e(p)));
        (inverse(x, ends), forward)
    };
    let fused = tables.fused;
    let coset = |(inv, fwd): (Passes, Passes), keep: usize, emit: &mut dyn FnMut(&PassArgs)| {
        if fused {
            inv.emit(0, inv.len - 1, &mut |p| emit(p));
            emit(&fuse(&inv.last(), &fwd.first()));
            fwd.emit(1, fwd.len - keep, &mut |p| emit(p));
        } else {
            inv.emit(0, inv.len, &mut |p| emit(p));
            fwd.emit(0, fwd.len - keep, &mut |p| emit(p));
        }
    };
    coset(to_coset(b), 0, &mut emit);
    let a_passes = to_coset(a);
    coset(a_passes, fused as usize, &mut emit);
    let last = inverse(
        a,
        Ends { pointwise: Some((b, 0)), scale_out: Some(tables.scale(Scale::HFinalNeg.in_form(form), log_n)), scatter: Some((b, out_len)), ..Ends::default() },
    );
    if fused {
        emit(&fuse(&a_passes.1.last(), &last.first()));
        last.emit(1, last.len, &mut emit);
    } else {
        last.emit(0, last.len, &mut emit);
    }
    let c_ends = Ends { valid: Some(valid), scale_out: Some(tables.scale(Scale::InvNZNeg.in_form(form), log_n)), scatter: Some((b, out_len)), subtract_out: true, ..Ends::default() };
    let c_passes = inverse(c, c_ends);
    c_passes.emit(0, c_passes.len, &mut emit);
}

// Keeps the table halves and the pass kernels' indexing in agreement.
const _: () = assert!(TableLayout::TW_HI == TableLayout::TW_LO + HALF);
