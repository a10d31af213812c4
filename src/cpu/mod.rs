//! The CPU backend: H with bellperson's `EvaluationDomain`, MSMs with blst's
//! Pippenger. It is the reference the GPU backend is checked against and the
//! fallback when there is no GPU.

pub mod h;
pub mod msm;
mod backend;

pub(crate) use backend::{compute, prestage, CpuStaged};
