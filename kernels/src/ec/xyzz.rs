//! Extended Jacobian ("XYZZ") coordinates, the bucket representation for MSM.
//!
//! `(X, Y, ZZ, ZZZ)` stands for the affine point `(X / ZZ, Y / ZZZ)` with
//! `ZZ^3 = ZZZ^2`. Compared with plain Jacobian coordinates this makes mixed
//! addition cheaper (no `Z^2`/`Z^3` recomputation), which is what bucket
//! accumulation does over and over. Formulas are from the Explicit-Formulas
//! Database, `a = 0` specialisations.

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;

use super::affine::Affine;
use super::curves::CurveConfig;
use crate::ff::Field;
use crate::mem::Limbs;

/// The identity is any point with `ZZ = ZZZ = 0`; the canonical one is all zeros.
#[repr(C)]
pub struct Xyzz<C: CurveConfig> {
    pub x: C::Base,
    pub y: C::Base,
    pub zz: C::Base,
    pub zzz: C::Base,
}

impl<C: CurveConfig> Xyzz<C> {
    pub const IDENTITY: Self = Self {
        x: C::Base::ZERO,
        y: C::Base::ZERO,
        zz: C::Base::ZERO,
        zzz: C::Base::ZERO,
    };

    /// `ZZZ = 0`, exactly, also with a lazily reduced base field: the
    /// identity is only ever made as [`Self::IDENTITY`] (or loaded,
    /// reduced), and `ZZZ` is always a product, of residues that are not
    /// zero unless an operand is the identity (the formulas branch on a zero
    /// `h` first), so it never holds the other zero, `p`. A product with an
    /// exact-zero factor is exactly zero (the doubling of a point with `y =
    /// 0`: `u = 2y` reduces `2p` to 0).
    #[inline(always)]
    pub fn is_identity(&self) -> bool {
        self.zzz.is_zero_limbs()
    }

    #[inline(always)]
    pub fn from_affine(p: &Affine<C>) -> Self {
        if p.is_identity() {
            return Self::IDENTITY;
        }
        Self {
            x: p.x,
            y: p.y,
            zz: C::Base::ONE,
            zzz: C::Base::ONE,
        }
    }

    #[inline(always)]
    pub fn neg(&self) -> Self {
        Self {
            x: self.x,
            y: -self.y,
            zz: self.zz,
            zzz: self.zzz,
        }
    }

    /// `self + p` for an affine `p` (madd-2008-s).
    #[inline(always)]
    pub fn add_affine(&self, p: &Affine<C>) -> Self {
        if p.is_identity() {
            return *self;
        }
        if self.is_identity() {
            return Self::from_affine(p);
        }
        // The order keeps few values alive at once (G2 sits at the register
        // limit): every input dies at its last use, `r` is formed only once
        // `h`, `hh` are consumed, and each product is used promptly.
        let h = p.x * self.zz - self.x;
        if h.is_zero() {
            // Same x: either the same point (double) or its negation (identity).
            return add_affine_same_x(*self, p.y);
        }
        let hh = h.square();
        let hhh = h * hh;
        let zz3 = self.zz * hh;
        let q = self.x * hh;
        let r = p.y * self.zzz - self.y;
        let zzz3 = self.zzz * hhh;
        let (x3, y3) = x3_y3(r, q, hhh, self.y);
        Self {
            x: x3,
            y: y3,
            zz: zz3,
            zzz: zzz3,
        }
    }

    /// `self + other` (add-2008-s).
    #[inline(always)]
    pub fn add(&self, other: &Self) -> Self {
        if self.is_identity() || other.is_identity() {
            return add_identity(*self, *other);
        }
        // Ordered for few live values: each input pair dies as soon as
        // possible (`ZZ1 ZZ2`, `ZZZ1 ZZZ2`).
        let u1 = self.x * other.zz;
        let h = other.x * self.zz - u1;
        let zz12 = other.zz * self.zz;
        let s1 = self.y * other.zzz;
        let r = other.y * self.zzz - s1;
        let zzz12 = self.zzz * other.zzz;
        if h.is_zero() {
            // Same x. `(u1, s1, zz12, zzz12)` is `self` scaled by `ZZZ2 / ZZ2`.
            let scaled = Self {
                x: u1,
                y: s1,
                zz: zz12,
                zzz: zzz12,
            };
            return double_if_zero(scaled, r);
        }
        let hh = h.square();
        let hhh = h * hh;
        let zz3 = zz12 * hh;
        let q = u1 * hh;
        let zzz3 = zzz12 * hhh;
        let (x3, y3) = x3_y3(r, q, hhh, s1);
        Self {
            x: x3,
            y: y3,
            zz: zz3,
            zzz: zzz3,
        }
    }

    /// `2 * self` (dbl-2008-s-1 with `a = 0`).
    ///
    /// Needs no identity branch: `ZZ = ZZZ = 0` propagates to the result, and
    /// a point with `y = 0` (2-torsion) correctly doubles to `ZZ = ZZZ = 0`.
    #[inline(always)]
    pub fn double(&self) -> Self {
        let u = self.y.double();
        let v = u.square();
        let w = u * v;
        let zz3 = v * self.zz;
        let zzz3 = w * self.zzz;
        let t = w * self.y;
        let s = self.x * v;
        let xx = self.x.square();
        let m = xx.double() + xx;
        let x3 = m.square() - s.double();
        let y3 = m * (s - x3) - t;
        Self {
            x: x3,
            y: y3,
            zz: zz3,
            zzz: zzz3,
        }
    }
}

/// The end of both additions: `X3 = R² − HHH − 2Q` and `Y3 = R·(Q − X3) −
/// Y1·HHH`, where `Y1` is the first point's y (scaled by the second's ZZZ
/// in the full addition). Where the base field fuses two products (Fp on
/// the GPU: one reduction; Fp2: one per coordinate, over four base
/// products), Y3's are fused, at the cost of `Y1` staying live to the end;
/// otherwise `Y1·HHH` goes first, so that `Y1` dies early.
#[inline(always)]
fn x3_y3<F: Field>(r: F, q: F, hhh: F, y1: F) -> (F, F) {
    if F::FUSED_MUL2 {
        let x3 = r.square() - hhh - q.double();
        (x3, r.mul2(q - x3, y1, -hhh))
    } else {
        let s = y1 * hhh;
        let x3 = r.square() - hhh - q.double();
        (x3, r * (q - x3) - s)
    }
}

/// The rare branch of [`Xyzz::add_affine`]: `p` has the x of `acc` (`h = 0`),
/// so the sum is `2 acc` or the identity. Out of line (and cold) so the
/// kernels carry one call here instead of an inlined doubling, which both
/// bloats the hot path's code and crowds its register allocation.
#[cold]
#[inline(never)]
extern "C" fn add_affine_same_x<C: CurveConfig>(acc: Xyzz<C>, py: C::Base) -> Xyzz<C> {
    if py * acc.zzz == acc.y {
        acc.double()
    } else {
        Xyzz::IDENTITY
    }
}

/// `a + b` where one of them is the identity.
#[cold]
#[inline(never)]
extern "C" fn add_identity<C: CurveConfig>(a: Xyzz<C>, b: Xyzz<C>) -> Xyzz<C> {
    if b.is_identity() {
        a
    } else {
        b
    }
}

/// The rare branch of [`Xyzz::add`] (`h = 0`), out of line as above: `2 p`
/// if `r = 0` (the same point), else the identity (opposite points).
#[cold]
#[inline(never)]
extern "C" fn double_if_zero<C: CurveConfig>(p: Xyzz<C>, r: C::Base) -> Xyzz<C> {
    if r.is_zero() {
        p.double()
    } else {
        Xyzz::IDENTITY
    }
}

impl<C: CurveConfig> Limbs for Xyzz<C> {
    const LIMBS: usize = 4 * C::Base::LIMBS;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        let n = C::Base::LIMBS;
        Self {
            x: C::Base::load(src),
            y: C::Base::load(src.add(n)),
            zz: C::Base::load(src.add(2 * n)),
            zzz: C::Base::load(src.add(3 * n)),
        }
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        let n = C::Base::LIMBS;
        self.x.store(dst);
        self.y.store(dst.add(n));
        self.zz.store(dst.add(2 * n));
        self.zzz.store(dst.add(3 * n));
    }
}

impl<C: CurveConfig> Clone for Xyzz<C> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: CurveConfig> Copy for Xyzz<C> {}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl<C: CurveConfig> fmt::Debug for Xyzz<C>
where
    C::Base: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Xyzz")
            .field("x", &self.x)
            .field("y", &self.y)
            .field("zz", &self.zz)
            .field("zzz", &self.zzz)
            .finish()
    }
}
