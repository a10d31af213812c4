//! Elliptic-curve points, generic over the curve (which is only its constants).

pub mod affine;
pub mod curves;
pub mod jacobian;
pub mod xyzz;

pub use affine::Affine;
pub use curves::{
    CurveConfig, G1Affine, G1Config, G1Jacobian, G1Xyzz, G2Affine, G2Config, G2Jacobian, G2Xyzz,
};
pub use jacobian::Jacobian;
pub use xyzz::Xyzz;
