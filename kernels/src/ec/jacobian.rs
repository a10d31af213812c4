//! Jacobian coordinates in blst's `blst_p1` / `blst_p2` layout, i.e. the
//! layout of `blstrs::G1Projective` / `G2Projective`: `(X, Y, Z)` stands for
//! `(X / Z^2, Y / Z^3)` and `Z = 0` is the identity.
//!
//! This is the hand-off format from GPU buckets back to the host.

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;

use super::affine::Affine;
use super::curves::CurveConfig;
use super::xyzz::Xyzz;
use crate::ff::Field;
use crate::mem::Limbs;

#[repr(C)]
pub struct Jacobian<C: CurveConfig> {
    pub x: C::Base,
    pub y: C::Base,
    pub z: C::Base,
}

impl<C: CurveConfig> Jacobian<C> {
    /// All zeros, the same bytes as `blst_p1::default()` (blstrs' identity).
    pub const IDENTITY: Self = Self {
        x: C::Base::ZERO,
        y: C::Base::ZERO,
        z: C::Base::ZERO,
    };

    #[inline(always)]
    pub fn is_identity(&self) -> bool {
        self.z.is_zero()
    }

    #[inline(always)]
    pub fn from_affine(p: &Affine<C>) -> Self {
        if p.is_identity() {
            return Self::IDENTITY;
        }
        Self {
            x: p.x,
            y: p.y,
            z: C::Base::ONE,
        }
    }

    /// `2 * self` (dbl-2009-l, `a = 0`): 1 multiplication and 5 squarings,
    /// against 9 products for an XYZZ doubling, so long doubling chains
    /// (the window weighting) run in Jacobian coordinates. No identity
    /// branch: `Z = 0` stays 0, and `Y = 0` (2-torsion) gives `Z3 = 0`.
    #[inline(always)]
    pub fn double(&self) -> Self {
        let a = self.x.square();
        let b = self.y.square();
        let c = b.square();
        let d = ((self.x + b).square() - a - c).double();
        let e = a.double() + a;
        let x3 = e.square() - d.double();
        let c8 = c.double().double().double();
        let y3 = e * (d - x3) - c8;
        let z3 = (self.y * self.z).double();
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// Normalises with one inversion; meant for the host or for a handful of
    /// final results, not for per-bucket use.
    pub fn to_affine(&self) -> Affine<C> {
        if self.is_identity() {
            return Affine::IDENTITY;
        }
        let z_inv = self.z.inverse();
        let z_inv2 = z_inv.square();
        Affine::new((self.x * z_inv2).reduced(), (self.y * z_inv2 * z_inv).reduced())
    }
}

impl<C: CurveConfig> Xyzz<C> {
    /// Picks `Z = ZZZ`. Because `ZZ^3 = ZZZ^2`, `Z^2 = ZZ^3` and so
    /// `X_J = X * ZZ^2`, `Y_J = Y * ZZZ^2`: no inversion needed.
    #[inline(always)]
    pub fn to_jacobian(&self) -> Jacobian<C> {
        if self.is_identity() {
            return Jacobian::IDENTITY;
        }
        Jacobian {
            x: self.x * self.zz.square(),
            y: self.y * self.zzz.square(),
            z: self.zzz,
        }
    }

    /// `(X, Y, Z^2, Z^3)`: the same point, with no field inversion.
    #[inline(always)]
    pub fn from_jacobian(p: &Jacobian<C>) -> Self {
        if p.is_identity() {
            return Self::IDENTITY;
        }
        let zz = p.z.square();
        Self {
            x: p.x,
            y: p.y,
            zz,
            zzz: zz * p.z,
        }
    }
}

impl<C: CurveConfig> Limbs for Jacobian<C> {
    const LIMBS: usize = 3 * C::Base::LIMBS;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        let n = C::Base::LIMBS;
        Self {
            x: C::Base::load(src),
            y: C::Base::load(src.add(n)),
            z: C::Base::load(src.add(2 * n)),
        }
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        let n = C::Base::LIMBS;
        self.x.store(dst);
        self.y.store(dst.add(n));
        self.z.store(dst.add(2 * n));
    }
}

impl<C: CurveConfig> Clone for Jacobian<C> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: CurveConfig> Copy for Jacobian<C> {}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl<C: CurveConfig> fmt::Debug for Jacobian<C>
where
    C::Base: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jacobian")
            .field("x", &self.x)
            .field("y", &self.y)
            .field("z", &self.z)
            .finish()
    }
}
