//! How a buffer of `Fr` scalars holds its values.

/// The representation of the scalars in a buffer of `Fr` limbs.
///
/// The MSM cuts its digits from the integer itself, so Montgomery scalars
/// are converted once per window that reads them; the H step can write its
/// coefficients as integers at no cost (its last scale folds in `R^-1`),
/// which spares the H MSM those conversions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScalarForm {
    /// `x·R mod r`, as blstrs' `Scalar` holds them.
    #[default]
    Montgomery,
    /// `x` itself, below `r`.
    Canonical,
}

impl ScalarForm {
    /// As a kernel parameter: 1 for [`Self::Canonical`], 0 otherwise.
    pub const fn code(self) -> u32 {
        match self {
            ScalarForm::Montgomery => 0,
            ScalarForm::Canonical => 1,
        }
    }
}
