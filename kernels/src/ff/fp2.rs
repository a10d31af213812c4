//! `Fp2 = Fp[u] / (u^2 + 1)`, the base field of G2, over lazily reduced
//! coordinates ([`FpLazy`], below `2p`; stores reduce).

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use super::bls12_381::FpLazy;
use super::field::Field;
use crate::mem::Limbs;

/// `c0 + c1 * u`. `repr(C)` with `c0` first matches `blst_fp2` (and so
/// `blstrs::Fp2`): 12 limbs, Montgomery form. Equality compares residues.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Fp2 {
    pub c0: FpLazy,
    pub c1: FpLazy,
}

impl Fp2 {
    pub const ZERO: Self = Self::new(FpLazy::ZERO, FpLazy::ZERO);
    pub const ONE: Self = Self::new(FpLazy::ONE, FpLazy::ZERO);

    #[inline(always)]
    pub const fn new(c0: FpLazy, c1: FpLazy) -> Self {
        Self { c0, c1 }
    }

    #[inline(always)]
    pub fn conjugate(&self) -> Self {
        Self::new(self.c0, -self.c1)
    }
}

impl Field for Fp2 {
    const ZERO: Self = Self::ZERO;
    const ONE: Self = Self::ONE;

    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.c0.is_zero() && self.c1.is_zero()
    }

    #[inline(always)]
    fn is_zero_limbs(&self) -> bool {
        self.c0.is_zero_limbs() && self.c1.is_zero_limbs()
    }

    #[inline(always)]
    fn reduced(self) -> Self {
        Self::new(self.c0.reduced(), self.c1.reduced())
    }

    #[inline(always)]
    fn double(&self) -> Self {
        Self::new(self.c0.double(), self.c1.double())
    }

    /// Where the base field sums four products under one reduction (Fp on
    /// the GPU), so does [`Self::mul2`]: two reductions for its eight
    /// products instead of four.
    const FUSED_MUL2: bool = FpLazy::FUSED_MUL4;

    /// `a·b + c·d`, each coordinate one sum of four base products:
    /// `a0·b0 − a1·b1 + c0·d0 − c1·d1` and `a0·b1 + a1·b0 + c0·d1 + c1·d0`.
    #[inline(always)]
    fn mul2(self, b: Self, c: Self, d: Self) -> Self {
        let (a, b, c, d) = (pin2(self), pin2(b), pin2(c), pin2(d));
        let real = base_mul4([a.c0, b.c0, a.c1, -b.c1, c.c0, d.c0, c.c1, -d.c1]);
        let imag = base_mul4([a.c0, b.c1, a.c1, b.c0, c.c0, d.c1, c.c1, d.c0]);
        Self::new(real, imag)
    }

    /// `(c0 + c1)(c0 - c1) + 2 c0 c1 u`: two base multiplications instead of three.
    #[inline(always)]
    fn square(&self) -> Self {
        let a = pin2(*self);
        let imag = base_mul(a.c0, a.c1).double();
        let real = base_mul(a.c0 + a.c1, a.c0 - a.c1);
        Self::new(real, imag)
    }

    /// `conj(a) / (c0^2 + c1^2)`, since `a * conj(a) = c0^2 + c1^2` is in Fp.
    #[inline(always)]
    fn inverse(&self) -> Self {
        let norm_inv = (self.c0.square() + self.c1.square()).inverse();
        Self::new(self.c0 * norm_inv, -(self.c1 * norm_inv))
    }
}

impl Add for Fp2 {
    type Output = Self;

    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Self::new(self.c0 + rhs.c0, self.c1 + rhs.c1)
    }
}

impl Sub for Fp2 {
    type Output = Self;

    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Self::new(self.c0 - rhs.c0, self.c1 - rhs.c1)
    }
}

impl Neg for Fp2 {
    type Output = Self;

    #[inline(always)]
    fn neg(self) -> Self {
        Self::new(-self.c0, -self.c1)
    }
}

impl Mul for Fp2 {
    type Output = Self;

    /// Each coordinate a sum of two products with one reduction
    /// (`c0 = a0·b0 + a1·(−b1)`, `c1 = a0·b1 + a1·b0`): Karatsuba's
    /// multiply-pipe work (two products and a reduction, twice, against
    /// three products and three reductions) without its operand sums,
    /// which left fewer values live. H100, 2026-12-06: Fp2 products 8.62 →
    /// 8.91 G/s, G2 mixed additions 0.73 → 0.84 G/s against Karatsuba.
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        let (a, b) = (pin2(self), pin2(rhs));
        let real = base_mul2(a.c0, b.c0, a.c1, -b.c1);
        let imag = base_mul2(a.c0, b.c1, a.c1, b.c0);
        Self::new(real, imag)
    }
}

/// One base-field multiplication, fenced on nvptx: its operands and result
/// pass through [`pin`], so LLVM keeps it in program order, and an empty
/// out-of-line call follows it, which ptxas does not schedule across. Left
/// to themselves, both compilers interleave consecutive products for ILP,
/// which multiplies the registers they need: that is what made the G2 point
/// formulas spill. One product is ~400 SASS instructions; the fence adds
/// four (two moves, the call, the return).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn base_mul(a: FpLazy, b: FpLazy) -> FpLazy {
    let product = pin(pin(a) * pin(b));
    fence();
    product
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn base_mul(a: FpLazy, b: FpLazy) -> FpLazy {
    a * b
}

/// `a·b + c·d` with one reduction, fenced like [`base_mul`].
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn base_mul2(a: FpLazy, b: FpLazy, c: FpLazy, d: FpLazy) -> FpLazy {
    let sum = pin(pin(a).mul2(pin(b), pin(c), pin(d)));
    fence();
    sum
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn base_mul2(a: FpLazy, b: FpLazy, c: FpLazy, d: FpLazy) -> FpLazy {
    a.mul2(b, c, d)
}

/// `x0·x1 + x2·x3 + x4·x5 + x6·x7` with one reduction, fenced like
/// [`base_mul`].
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn base_mul4(x: [FpLazy; 8]) -> FpLazy {
    let x = x.map(pin);
    let sum = pin(x[0].mul4(x[1], x[2], x[3], x[4], x[5], x[6], x[7]));
    fence();
    sum
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn base_mul4(x: [FpLazy; 8]) -> FpLazy {
    x[0].mul4(x[1], x[2], x[3], x[4], x[5], x[6], x[7])
}

/// An empty call: a scheduling barrier for ptxas.
#[cfg(target_arch = "nvptx64")]
#[inline(never)]
extern "C" fn fence() {
    // SAFETY: emits nothing; volatile so that the call is kept and ordered.
    unsafe { core::arch::asm!("", options(nomem, nostack, preserves_flags)) }
}

/// `x`, through an empty volatile asm: LLVM keeps volatile asm in program
/// order and cannot see through it, so no arithmetic on the result moves
/// above this point (hoisting is what lengthens live ranges). Emits no
/// instruction.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn pin(x: FpLazy) -> FpLazy {
    let mut l = x.limbs();
    // SAFETY: empty asm; the operands are only nominally read and written.
    unsafe {
        core::arch::asm!(
            "// pin {0} {1} {2} {3} {4} {5}",
            inout(reg64) l[0], inout(reg64) l[1], inout(reg64) l[2],
            inout(reg64) l[3], inout(reg64) l[4], inout(reg64) l[5],
            options(nomem, nostack, preserves_flags)
        );
    }
    FpLazy::from_limbs(l)
}

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn pin(x: FpLazy) -> FpLazy {
    x
}

/// [`pin`] for both coordinates.
#[inline(always)]
fn pin2(x: Fp2) -> Fp2 {
    Fp2::new(pin(x.c0), pin(x.c1))
}

impl Limbs for Fp2 {
    const LIMBS: usize = 2 * FpLazy::LIMBS;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        Self::new(FpLazy::load(src), FpLazy::load(src.add(FpLazy::LIMBS)))
    }

    #[inline(always)]
    unsafe fn load_readonly(src: *const u64) -> Self {
        Self::new(FpLazy::load_readonly(src), FpLazy::load_readonly(src.add(FpLazy::LIMBS)))
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        self.c0.store(dst);
        self.c1.store(dst.add(FpLazy::LIMBS));
    }
}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl fmt::Debug for Fp2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fp2({:?} + {:?}*u)", self.c0, self.c1)
    }
}
