//! Elliptic-curve points, generic over the curve (which is only its constants).

pub mod affine;
pub mod curves;
pub mod jacobian;
pub mod xyzz;

pub use affine::Affine;
pub use curves::{
    CurveConfig, G1Affine, G1AffineF64, G1Config, G1F64Config, G1Jacobian, G1Xyzz, G1XyzzF64, G2Affine, G2Config, G2Jacobian, G2Xyzz,
};
pub use jacobian::Jacobian;
pub use xyzz::Xyzz;
