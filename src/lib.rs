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

mod assemble;
pub mod assignment;
pub mod compiled;
pub mod cpu;
pub mod density;
mod error;
mod faults;
#[cfg(feature = "cuda")]
pub mod gpu;
mod host_pool;
mod job;
pub mod params;
pub mod params_file;
mod params_source;
#[cfg(feature = "porep")]
pub mod porep;
mod prover;
mod slots;
#[cfg(any(feature = "cuda", test))]
mod subgroup;
mod synthesis_budget;
pub mod synthetic;
mod timings;
mod witness_classes;
mod witness_pool;

pub use assemble::{assemble, MsmResults};
pub use assignment::{synthesize, synthesize_batch, Assignment};
pub use compiled::{synthesize_witness, CompiledCircuit, CompiledFileError};
pub use error::{ProverError, Result, TryPrestageError};
#[doc(hidden)]
pub use faults::FaultPlan;
pub use job::{random_r_s, ProofJob};
pub use params::{ProofShape, QueryLengths};
pub use params_file::{ParamsFile, ParamsFileError, PointProblem, Query};
pub use params_source::ParamsSource;
pub use prover::{Backend, ComputeSharing, Prover, ProverConfig, Staged, MAX_WORKERS_PER_DEVICE};
pub use timings::PhaseTimings;
