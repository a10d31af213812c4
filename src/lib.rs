//! cuzk: Groth16 proofs over BLS12-381 for bellperson circuits, on NVIDIA
//! GPUs (feature `cuda`, kernels written in Rust and compiled to PTX) or on
//! the CPU with the same API.
//!
//! Inputs and outputs are bellperson's and blstrs' own types: a
//! `bellperson::Circuit<blstrs::Scalar>` (or an [`Assignment`] synthesized
//! beforehand) and `bellperson::groth16::Parameters<Bls12>` go in, a
//! `bellperson::groth16::Proof<Bls12>` that `verify_proof` accepts comes out.
//!
//! Each proof has two explicit phases, [`Prover::prestage`] and
//! [`Prover::compute`]; see [`Prover`].
#![warn(missing_docs)]

pub mod compiled;
pub mod cpu;
mod error;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod parameters;
#[cfg(feature = "porep")]
pub mod porep;
#[cfg(feature = "post")]
pub mod post;
#[cfg(feature = "update")]
pub mod update;
mod prover;
pub mod synthetic;
pub mod vram;
pub mod witness;

// The public modules by their names before the grouping (`cuzk::params_file`, …).
pub use parameters::{params, params_file};
pub use witness::{assignment, density};

pub use compiled::{synthesize_witness, CompiledCircuit, CompiledFileError};
pub use error::{ProverError, Result, TryPrestageError};
pub use parameters::params::{ProofShape, QueryLengths};
pub use parameters::params_file::{ParamsFile, ParamsFileError, PointProblem, Query};
pub use parameters::source::ParamsSource;
#[doc(hidden)]
pub use prover::faults::FaultPlan;
pub use prover::assemble::{assemble, MsmResults};
pub use prover::timings::PhaseTimings;
pub use prover::{Backend, ComputeSharing, MsmAccumulation, MsmSort, Prover, ProverConfig, Staged, MAX_WORKERS_PER_DEVICE};
pub use witness::assignment::{synthesize, synthesize_batch, Assignment};
pub use witness::job::{random_r_s, ProofJob};
