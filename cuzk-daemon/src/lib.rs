//! A proving daemon serving Curio's `cuzk.v1.ProvingEngine` gRPC protocol
//! (wire-compatible with the upstream proto kept in `proto/`) on cuzk's
//! prover: PoRep C2 from the C1 output Curio sends, on the GPU or the CPU.
//!
//! ```text
//! gRPC (TCP / unix socket) ── service ── engine ── job table, priority queue
//!                                          │
//!                   prover threads (any job; HIGH and CRITICAL only)
//!                                          │
//!                              ProverCache (a Seal/Post/UpdateProver per
//!                                          │    registered proof, lazy)
//!                                          ▼
//!                              prove_sectors / prove_until ── proof bytes
//! ```
//!
//! [`Daemon::start`] serves in-process (what the binary and the tests do).

pub mod byte_size;
pub mod config;
pub mod engine;
pub mod error;
pub mod job;
pub mod listen;
pub mod memory;
pub mod metrics;
pub mod porep_request;
pub mod post_request;
pub mod update_request;
pub mod proof_kind;
mod provers;
pub mod queue;
pub mod registered;
pub mod server;
pub mod service;
pub mod status;
mod worker;

/// The protocol's messages, server and client, generated from
/// `proto/cuzk/v1/proving.proto`.
#[allow(missing_docs, clippy::all)]
pub mod proto {
    tonic::include_proto!("cuzk.v1");
}

pub use config::Config;
pub use engine::{Engine, EngineError, JobRequest, Submitted};
pub use error::{ConfigError, DaemonError};
pub use listen::ListenAddr;
pub use provers::{EvictError, LoadedProver};
pub use server::{Daemon, MAX_MESSAGE_BYTES};
