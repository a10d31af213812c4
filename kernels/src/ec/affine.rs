//! Affine points in blst's layout: `{ x, y }`, no infinity flag.

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;

use super::curves::CurveConfig;
use crate::ff::Field;
use crate::mem::Limbs;

/// `(x, y)` with the identity encoded as `x = y = 0`, exactly as blst does
/// (`(0, 0)` is never on a curve with `b != 0`, so the encoding is unambiguous).
#[repr(C)]
pub struct Affine<C: CurveConfig> {
    pub x: C::Base,
    pub y: C::Base,
}

impl<C: CurveConfig> Affine<C> {
    pub const IDENTITY: Self = Self::new(C::Base::ZERO, C::Base::ZERO);

    #[inline(always)]
    pub const fn new(x: C::Base, y: C::Base) -> Self {
        Self { x, y }
    }

    /// `(0, 0)`, exactly: affine points come from memory (reduced) or
    /// from `Jacobian::to_affine` (reduced), and negation keeps `y = 0`.
    #[inline(always)]
    pub fn is_identity(&self) -> bool {
        self.x.is_zero_limbs() && self.y.is_zero_limbs()
    }

    /// Negating `y = 0` leaves it zero, so the identity maps to itself.
    #[inline(always)]
    pub fn neg(&self) -> Self {
        Self::new(self.x, -self.y)
    }

    /// `y^2 == x^3 + b`, or the identity.
    pub fn is_on_curve(&self) -> bool {
        self.is_identity() || self.y.square() == self.x.square() * self.x + C::B
    }
}

impl<C: CurveConfig> Limbs for Affine<C> {
    const LIMBS: usize = 2 * C::Base::LIMBS;

    #[inline(always)]
    unsafe fn load(src: *const u64) -> Self {
        Self::new(C::Base::load(src), C::Base::load(src.add(C::Base::LIMBS)))
    }

    #[inline(always)]
    unsafe fn load_readonly(src: *const u64) -> Self {
        Self::new(C::Base::load_readonly(src), C::Base::load_readonly(src.add(C::Base::LIMBS)))
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut u64) {
        self.x.store(dst);
        self.y.store(dst.add(C::Base::LIMBS));
    }
}

// Manual impls: derives would require `C: Clone` etc. of the marker type.
impl<C: CurveConfig> Clone for Affine<C> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: CurveConfig> Copy for Affine<C> {}

// Host-only: formatting machinery has no place in kernels.
#[cfg(not(target_arch = "nvptx64"))]
impl<C: CurveConfig> fmt::Debug for Affine<C>
where
    C::Base: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Affine")
            .field("x", &self.x)
            .field("y", &self.y)
            .finish()
    }
}
