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

    #[inline(always)]
    pub fn is_identity(&self) -> bool {
        self.zzz.is_zero()
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
        let u2 = p.x * self.zz;
        let s2 = p.y * self.zzz;
        let h = u2 - self.x;
        let r = s2 - self.y;
        if h.is_zero() {
            // Same x: either the same point (double) or its negation (identity).
            return if r.is_zero() {
                Self::double_affine(p)
            } else {
                Self::IDENTITY
            };
        }
        let hh = h.square();
        let hhh = h * hh;
        let q = self.x * hh;
        let x3 = r.square() - hhh - q.double();
        let y3 = r * (q - x3) - self.y * hhh;
        Self {
            x: x3,
            y: y3,
            zz: self.zz * hh,
            zzz: self.zzz * hhh,
        }
    }

    /// `self + other` (add-2008-s).
    #[inline(always)]
    pub fn add(&self, other: &Self) -> Self {
        if other.is_identity() {
            return *self;
        }
        if self.is_identity() {
            return *other;
        }
        let u1 = self.x * other.zz;
        let u2 = other.x * self.zz;
        let s1 = self.y * other.zzz;
        let s2 = other.y * self.zzz;
        let h = u2 - u1;
        let r = s2 - s1;
        if h.is_zero() {
            return if r.is_zero() {
                self.double()
            } else {
                Self::IDENTITY
            };
        }
        let hh = h.square();
        let hhh = h * hh;
        let q = u1 * hh;
        let x3 = r.square() - hhh - q.double();
        let y3 = r * (q - x3) - s1 * hhh;
        Self {
            x: x3,
            y: y3,
            zz: self.zz * other.zz * hh,
            zzz: self.zzz * other.zzz * hhh,
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
        let s = self.x * v;
        let xx = self.x.square();
        let m = xx.double() + xx;
        let x3 = m.square() - s.double();
        let y3 = m * (s - x3) - w * self.y;
        Self {
            x: x3,
            y: y3,
            zz: v * self.zz,
            zzz: w * self.zzz,
        }
    }

    /// `2 * p` for an affine, non-identity `p` (mdbl-2008-s-1).
    #[inline(always)]
    fn double_affine(p: &Affine<C>) -> Self {
        let u = p.y.double();
        let v = u.square();
        let w = u * v;
        let s = p.x * v;
        let xx = p.x.square();
        let m = xx.double() + xx;
        let x3 = m.square() - s.double();
        let y3 = m * (s - x3) - w * p.y;
        Self {
            x: x3,
            y: y3,
            zz: v,
            zzz: w,
        }
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
