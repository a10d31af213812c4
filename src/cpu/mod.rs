//! The CPU backend: H from radix-2 FFTs on rayon (equal to bellperson's
//! `EvaluationDomain`, which `h` keeps as the tests' reference), MSMs with
//! blst's Pippenger. It is the fallback when there is no GPU, and proves
//! bit for bit as bellperson does.

pub mod h;
mod h_rayon;
pub mod msm;
mod backend;

pub(crate) use backend::{compute, prestage, CpuStaged};
