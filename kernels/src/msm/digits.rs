//! Scalars to signed window digits, and the bucket keys they select.
//!
//! A canonical scalar `s < r < 2^255` is written as `Σ_w d_w · 2^(c·w)` with
//! `d_w ∈ [−2^(c−1) + 1, 2^(c−1)]`: window `w` takes bits `[c·w, c·w + c)`
//! plus the carry of the window below; a value above `H = 2^(c−1)` becomes
//! `value − 2^c` and carries one into the next window. The top window needs
//! a spare bit to absorb its carry (see [`num_windows`]).
//!
//! Without tables the windows need not all be `c` bits wide
//! ([`WindowLayout::narrowest`]): as many as `c` needs, but only as many of
//! them `c` bits wide as 256 bits require, the rest `c − 1` (at `c = 22`: 4
//! of 22 bits and 8 of 21 instead of 12 of 22). A narrow window's digits
//! use half its bucket set, so the same additions land in fewer buckets:
//! longer runs in the first accumulation level, fewer bucket sums to reduce.

use crate::ff::Fr;
use crate::mem::Limbs;

/// Bits of a canonical scalar (`r < 2^255`).
pub const SCALAR_BITS: u32 = 255;
/// Largest supported window: keeps bucket keys, entry positions and the
/// bucket arrays within `u32` range and sane memory.
pub const MAX_WINDOW_BITS: u32 = 22;

/// Windows of `c` bits needed for signed digits of a 255-bit scalar:
/// `ceil(255 / c)`, plus one when the top window has no spare bit for the
/// carry (`c · ceil(255/c) < 256`, e.g. `c = 15`, `17`). With a spare bit the
/// top window's value is at most `2^(c−1)`, a valid digit with no carry out.
pub const fn num_windows(c: u32) -> u32 {
    let w = SCALAR_BITS.div_ceil(c);
    if w * c > SCALAR_BITS {
        w
    } else {
        w + 1
    }
}

/// How scalars are cut into windows: `windows` of them, the first `wide`
/// `c` bits wide and the rest `c − 1`, so window `w` starts at bit
/// `c·w − max(0, w − wide)` ([`Self::start`]). Every window keeps a bucket
/// set of `2^(c−1)` keys (set `w` from key `w·2^(c−1)`); a narrow window's
/// digits, at most `2^(c−2)`, fall into the first half of its set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowLayout {
    /// The widest window's bits (the bucket sets' `c`).
    pub c: u32,
    pub windows: u32,
    /// Windows `0..wide` are `c` bits wide, the rest `c − 1`.
    pub wide: u32,
}

impl WindowLayout {
    /// [`num_windows`]`(c)` windows of `c` bits (what tables need: table `a`
    /// holds `2^(c·a)·P`).
    #[inline]
    pub const fn uniform(c: u32) -> Self {
        let windows = num_windows(c);
        WindowLayout { c, windows, wide: windows }
    }

    /// As many windows as `c` bits need ([`num_windows`]), as few of them `c`
    /// bits wide as cover 256 bits (the top window's spare bit included),
    /// the rest `c − 1`. When none need be `c` bits wide this is `c − 1`'s
    /// layout (`c = 17`: sixteen windows of 16 bits, as `c = 16`).
    #[inline]
    pub const fn narrowest(c: u32) -> Self {
        // Host-side (plans); a loop, not recursion, so it stays inlinable.
        let mut c = c;
        loop {
            let windows = num_windows(c);
            let narrow_bits = windows * (c - 1);
            if narrow_bits <= SCALAR_BITS {
                return WindowLayout { c, windows, wide: SCALAR_BITS + 1 - narrow_bits };
            }
            c -= 1;
        }
    }

    /// `windows` and `wide` as one kernel parameter (the binned pass is at
    /// the launcher's parameter limit); both are at most 256.
    pub const fn pack(windows: u32, wide: u32) -> u32 {
        windows | wide << 16
    }

    /// `(windows, wide)` from [`Self::pack`].
    #[inline(always)]
    pub const fn unpack(packed: u32) -> (u32, u32) {
        (packed & 0xffff, packed >> 16)
    }

    /// Window `w`'s first bit (its weight's doublings).
    #[inline(always)]
    pub const fn start(&self, w: u32) -> u32 {
        self.c * w - w.saturating_sub(self.wide)
    }

    /// Window `w`'s bits.
    #[inline(always)]
    pub const fn bits(&self, w: u32) -> u32 {
        self.c - (w >= self.wide) as u32
    }

    /// The largest digit magnitude the top window can hold for a canonical
    /// scalar: its bits of `r − 1` plus the carry from below, at most
    /// `2^(bits − 1)`. Below that the top window is short and its digits
    /// fall into its set's first buckets only (`c = 22` uniform: 7420 of 2^21).
    pub fn top_digit_max(&self) -> u32 {
        use crate::ff::mont::MontConfig;
        let r = crate::ff::bls12_381::FrConfig::MODULUS;
        let top = self.windows - 1;
        // Below bit 255: the widths cover 256 bits.
        let shift = self.start(top);
        // Bits of r − 1 above `shift` (r is odd: r − 1 only clears bit 0).
        let value = (shift..256).rev().fold(0u64, |v, bit| {
            let limb = r[(bit / 64) as usize] - (bit < 64) as u64;
            v << 1 | (limb >> (bit % 64)) & 1
        });
        (value + 1).min(1 << (self.bits(top) - 1)) as u32
    }
}

/// What a scalar contributes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Zero, or not selected by the density: nothing.
    Skip,
    /// Exactly one: the base goes to the ones bucket.
    One,
    /// Anything else: one entry per non-zero digit.
    Digits,
}

/// Classifies a canonical scalar.
#[inline(always)]
pub fn kind(s: &[u64; 4]) -> Kind {
    let high = s[1] | s[2] | s[3];
    if high == 0 && s[0] == 0 {
        Kind::Skip
    } else if high == 0 && s[0] == 1 {
        Kind::One
    } else {
        Kind::Digits
    }
}

/// Whether a scalar in Montgomery form (as stored, before [`kind`]'s
/// canonical form) is neither 0 nor 1. For a reduced scalar this is
/// exactly `kind(..) == Kind::Digits`; an unreduced one only ever counts
/// here, so a count of these bounds the scalars with digits from above.
#[inline(always)]
pub fn general_mont(s: &[u64; 4]) -> bool {
    // Limb by limb: an array comparison becomes a `memcmp` call, which
    // the PTX cannot link.
    let one = Fr::ONE.limbs;
    let zero = (s[0] | s[1] | s[2] | s[3]) == 0;
    let is_one = ((s[0] ^ one[0]) | (s[1] ^ one[1]) | (s[2] ^ one[2]) | (s[3] ^ one[3])) == 0;
    !zero && !is_one
}

/// The signed digits of one scalar, low window first, as `(magnitude,
/// negative)`; magnitude 0 means "no entry in this window".
///
/// The scalar is consumed as a 256-bit shift register (shift by `c` each
/// step) so no limb is ever indexed by a runtime value, which on the GPU
/// would force the limbs into local memory.
pub struct SignedDigits {
    limbs: [u64; 4],
    c: u32,
    mask: u64,
    half: u64,
    carry: u64,
    /// Digits still to come before the windows narrow (`u32::MAX`: never).
    until_narrow: u32,
}

impl SignedDigits {
    /// `layout.c` in `1..=plan::MAX_TABLE_WINDOW_BITS` (22 without tables).
    #[inline(always)]
    pub fn new(limbs: [u64; 4], layout: WindowLayout) -> Self {
        let c = layout.c;
        let mut digits = Self {
            limbs,
            c,
            mask: (1u64 << c) - 1,
            half: 1u64 << (c - 1),
            carry: 0,
            until_narrow: if layout.wide < layout.windows { layout.wide } else { u32::MAX },
        };
        if digits.until_narrow == 0 {
            digits.narrow();
        }
        digits
    }

    /// From here on, windows of one bit fewer.
    #[inline(always)]
    fn narrow(&mut self) {
        self.c -= 1;
        self.mask >>= 1;
        self.half >>= 1;
        self.until_narrow = u32::MAX;
    }

    /// The next window's digit. Call it `layout.windows` times.
    #[inline(always)]
    pub fn next_digit(&mut self) -> (u32, bool) {
        let digit = self.take_digit();
        self.until_narrow = self.until_narrow.wrapping_sub(1);
        if self.until_narrow == 0 {
            self.narrow();
        }
        digit
    }

    #[inline(always)]
    fn take_digit(&mut self) -> (u32, bool) {
        let [l0, l1, l2, l3] = self.limbs;
        let raw = (l0 & self.mask) + self.carry;
        let c = self.c;
        // c < 64, so both shift amounts are in range.
        self.limbs = [
            (l0 >> c) | (l1 << (64 - c)),
            (l1 >> c) | (l2 << (64 - c)),
            (l2 >> c) | (l3 << (64 - c)),
            l3 >> c,
        ];
        if raw > self.half {
            self.carry = 1;
            (((self.mask + 1) - raw) as u32, true)
        } else {
            self.carry = 0;
            (raw as u32, false)
        }
    }
}

/// Bits `[at, at + c)` of a 256-bit integer, `mask = 2^c − 1` (zeros past
/// bit 255). The limb is chosen by comparisons, not by indexing, so the
/// limbs stay in registers on the GPU.
#[inline(always)]
fn bits_at(s: &[u64; 4], at: u32, mask: u64) -> u64 {
    let limb = |i: u32| match i {
        0 => s[0],
        1 => s[1],
        2 => s[2],
        3 => s[3],
        _ => 0,
    };
    let (i, shift) = (at >> 6, at & 63);
    let low = limb(i) >> shift;
    let high = if shift == 0 { 0 } else { limb(i + 1) << (64 - shift) };
    (low | high) & mask
}

/// Window `w`'s signed digit of the canonical scalar `s`, as [`SignedDigits`]
/// gives it after `w` earlier calls, without walking the windows below.
///
/// Window `j` carries into `j + 1` when its bits plus its own carry in
/// exceed its `H = 2^(bits−1)`: so a window whose bits are above `H`
/// carries, one below does not, and one exactly `H` passes its carry in on.
/// The carry into `w` is therefore decided by the nearest window below whose
/// bits are not `H` (none: no carry), almost always the one right below.
#[inline(always)]
pub fn digit_at(s: &[u64; 4], layout: WindowLayout, w: u32) -> (u32, bool) {
    let mask = |bits: u32| (1u64 << bits) - 1;
    let mut carry = 0;
    let mut below = w;
    while below > 0 {
        below -= 1;
        let width = layout.bits(below);
        let bits = bits_at(s, layout.start(below), mask(width));
        let half = 1u64 << (width - 1);
        if bits != half {
            carry = (bits > half) as u64;
            break;
        }
    }
    let width = layout.bits(w);
    let (mask, half) = (mask(width), 1u64 << (width - 1));
    let raw = bits_at(s, layout.start(w), mask) + carry;
    if raw > half {
        ((mask + 1 - raw) as u32, true)
    } else {
        (raw as u32, false)
    }
}

/// Scalar inputs of the histogram and scatter kernels, shared so both
/// derive exactly the same entries.
#[derive(Clone, Copy)]
pub struct DigitArgs {
    /// `n` scalars, in Montgomery form (blstrs `Scalar` limbs) or, with
    /// `canonical`, as the integers themselves.
    pub scalars: *const u64,
    pub n: u32,
    /// Density bitmap (`ceil(n/64)` words, bit `i` selects scalar `i`), or null.
    pub density: *const u64,
    /// Exclusive prefix popcount per density word (unused without density).
    pub prefix: *const u32,
    /// Base index of the first selected scalar.
    pub base_offset: u32,
    /// End of the usable bases: a scalar whose base would lie at or beyond
    /// is dropped. The plan passes `min(bases, base_offset + selected)`, so
    /// this also drops selected scalars past the plan's count (the host
    /// rejects such inputs; this keeps a bad call within the arena).
    pub n_bases: u32,
    /// Window bits: of the widest windows, and of every bucket set.
    pub c: u32,
    /// Windows (see [`WindowLayout`]).
    pub windows: u32,
    /// Windows `0..wide` are `c` bits wide, the rest `c − 1`
    /// ([`WindowLayout`]; `windows` with tables).
    pub wide: u32,
    /// Bucket sets: `windows` without precomputed tables; with `t` tables,
    /// `ceil(windows / t)`, and window `w = b·per_set + a` (`per_set =
    /// ceil(windows / sets)`) uses set `b` and table `a` (bases
    /// `2^(c·a)·P`, `stride` apart); see [`SetWalk`].
    pub sets: u32,
    /// Bases per table (0 without tables).
    pub stride: u32,
    /// The scalars are integers below `r`
    /// ([`crate::ff::ScalarForm::Canonical`]): read as they are, not
    /// converted out of Montgomery form.
    pub canonical: bool,
}

impl DigitArgs {
    #[inline(always)]
    pub fn layout(&self) -> WindowLayout {
        WindowLayout { c: self.c, windows: self.windows, wide: self.wide }
    }
}

/// Consecutive windows that share a bucket set (1 without tables, where
/// `sets == windows`).
#[inline(always)]
pub fn windows_per_set(windows: u32, sets: u32) -> u32 {
    windows.div_ceil(sets.max(1))
}

/// Which bucket set and which table's bases a window uses, round by round
/// (counters instead of a division per round): windows go set by set,
/// `per_set = ceil(windows / sets)` consecutive windows to a set, each with
/// the next table (window `w = b·per_set + a`: set `b`, table `a`).
/// Without tables every window is its own set (`per_set = 1`).
#[derive(Clone, Copy)]
pub struct SetWalk {
    pub set: u32,
    /// Offset of the current table's bases.
    pub table_base: u32,
    table: u32,
    per_set: u32,
}

impl SetWalk {
    #[inline(always)]
    pub fn new(a: &DigitArgs) -> Self {
        SetWalk { set: 0, table_base: 0, table: 0, per_set: windows_per_set(a.windows, a.sets) }
    }

    /// On to the next window.
    #[inline(always)]
    pub fn next(&mut self, a: &DigitArgs) {
        self.table += 1;
        self.table_base = self.table_base.wrapping_add(a.stride);
        if self.table == self.per_set {
            self.table = 0;
            self.table_base = 0;
            self.set += 1;
        }
    }
}

/// The scalar at position `i` as (base index, canonical limbs, kind).
///
/// # Safety
/// `i < a.n`; the pointers in `a` valid as documented there.
#[inline(always)]
pub unsafe fn load(a: &DigitArgs, i: usize) -> (u32, [u64; 4], Kind) {
    classify(a, i, Fr::load(a.scalars.add(i * 4)))
}

/// Scalar `i` as read from `a.scalars` (in their form), through the
/// read-only cache: [`classify`] it. Split from [`load`] so a thread can
/// issue several scalars' reads before it waits on the first.
///
/// # Safety
/// `i < a.n`; `a.scalars` unchanged while the kernel runs.
#[inline(always)]
pub unsafe fn read(a: &DigitArgs, i: usize) -> Fr {
    Fr::load_readonly(a.scalars.add(i * 4))
}

/// [`load`] of scalar `i` whose limbs `stored` were already read.
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub unsafe fn classify(a: &DigitArgs, i: usize, stored: Fr) -> (u32, [u64; 4], Kind) {
    let s = if a.canonical { stored.limbs } else { stored.to_canonical() };
    let base = if a.density.is_null() {
        a.base_offset.wrapping_add(i as u32)
    } else {
        let word = *a.density.add(i >> 6);
        let bit = (i & 63) as u32;
        if (word >> bit) & 1 == 0 {
            return (0, s, Kind::Skip);
        }
        let below = (word & ((1u64 << bit) - 1)).count_ones();
        a.base_offset
            .wrapping_add(*a.prefix.add(i >> 6))
            .wrapping_add(below)
    };
    if base >= a.n_bases {
        return (0, s, Kind::Skip);
    }
    (base, s, kind(&s))
}

/// Key of the ones bucket: right after all bucket sets.
#[inline(always)]
pub fn ones_key(c: u32, sets: u32) -> u32 {
    sets << (c - 1)
}

/// The key and entry of one round for one lane: round 0 of a `One` scalar
/// is its ones-bucket entry; a `Digits` scalar yields window `round`'s digit,
/// in bucket set `walk.set` with the base of table `walk.table_base`.
/// [`crate::msm::NO_KEY`] when there is nothing.
#[inline(always)]
pub fn round_key(
    kind: Kind,
    digits: &mut SignedDigits,
    round: u32,
    walk: SetWalk,
    base: u32,
    c: u32,
    ones: u32,
) -> (u32, u32) {
    // A one's entry is in round 0, whose table is the first (offset 0).
    key_of(kind, round, base.wrapping_add(walk.table_base), walk.set << (c - 1), ones, || digits.next_digit())
}

/// [`round_key`] of window `round` without tables (window `w` is bucket set
/// `w`), reading the digit directly ([`digit_at`]) instead of walking the
/// windows below.
#[inline(always)]
pub fn window_key(kind: Kind, limbs: &[u64; 4], round: u32, base: u32, layout: WindowLayout, ones: u32) -> (u32, u32) {
    key_of(kind, round, base, round << (layout.c - 1), ones, || digit_at(limbs, layout, round))
}

/// The key and entry for `kind`, a `Digits` scalar's digit from `digit`
/// (called once, for those only) in the bucket set starting at `set_key`,
/// its entry's base `base`.
#[inline(always)]
fn key_of(kind: Kind, round: u32, base: u32, set_key: u32, ones: u32, digit: impl FnOnce() -> (u32, bool)) -> (u32, u32) {
    match kind {
        Kind::Skip => (super::NO_KEY, 0),
        Kind::One if round == 0 => (ones, base),
        Kind::One => (super::NO_KEY, 0),
        Kind::Digits => match digit() {
            (0, _) => (super::NO_KEY, 0),
            (mag, neg) => (set_key + mag - 1, base | if neg { super::NEG } else { 0 }),
        },
    }
}
