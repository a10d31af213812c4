//! Finite fields: a generic Montgomery prime field, the BLS12-381 instances
//! and the quadratic extension used by G2.

pub mod bls12_381;
pub mod field;
pub mod fp2;
pub mod lazy;
pub mod limbs;
pub mod mont;
pub mod scalar_form;
pub mod window_exp;
#[cfg(target_arch = "nvptx64")]
pub mod ptx_montmul;

pub use bls12_381::{Fp, FpConfig, FpLazy, Fr, FrConfig, FrLazy};
pub use field::Field;
pub use fp2::Fp2;
pub use lazy::Lazy;
pub use mont::{Mont, MontConfig};
pub use scalar_form::ScalarForm;
