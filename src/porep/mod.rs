//! Filecoin PoRep C2 (feature `porep`): a C1 output in, filecoin-proofs'
//! C2 bytes out, accepted by its `verify_seal`.
//!
//! ```text
//! C1 bytes ──C1Output::parse──► C1Output ──SealProver::circuits──► a circuit per partition
//!     (JSON, bincode, Curio's wrapper)        (storage-proofs' StackedCompound)
//!                                    │
//!          SealProver::prove_sectors ▼  witness-only synthesis in parallel,
//!                                       the compiled circuit's a·b·c and the
//!                                       Groth16 proof on the GPU, per partition
//!                                    │
//!                                    ▼  partition proofs, compressed, concatenated;
//!                                       verify_seal before return
//! ```
//!
//! A [`SealProver`] is built once per registered proof: its compiled
//! circuit comes from a cache file ([`circuit_cache`]), recorded from the
//! blank circuit the first time; its parameters from filecoin-proofs'
//! parameter cache. [`synthetic`] makes C1 outputs of any sector size
//! without sealing one (for full-size runs). [`witness`] makes a
//! partition's witness natively, in parallel, for the circuits it knows.
//! [`local_setup`] makes a registered proof's parameters (and the
//! verifying key `verify_seal` reads) with cuzk's generator, for tests and
//! private networks.

#[cfg(any(feature = "post", feature = "update"))]
mod built_prover;
mod c1;
pub mod circuit_cache;
mod circuits;
mod error;
mod seal_prover;
mod setup;
mod shape;
pub mod synthetic;
pub mod witness;

pub use c1::{C1Form, C1Output};
pub use circuit_cache::CircuitOrigin;
pub use circuits::{check_replica_id, prover_id_from_miner, sector_circuits, sector_circuits_with, SectorCircuits, SectorIds};
pub use error::PorepError;
pub use seal_prover::{compiled_circuit, NATIVE_SYNTHESIS_THREADS, default_params_file, parameter_identifier, SealProof, SealProver, SealProverConfig, SealRequest};
pub use setup::{local_setup, local_setup_of, LocalSetup};
#[cfg(any(feature = "post", feature = "update"))]
pub(crate) use built_prover::{build_prover, BuildError, BuiltProver};
#[cfg(any(feature = "post", feature = "update"))]
pub(crate) use setup::write_setup;
pub(crate) use shape::with_tree;
pub use shape::{check_supported, parse_sector_size, registered_proof_for, sector_bytes, sector_size_name, NativeCircuit, NativeShape, PorepCircuit, ShapeTree, SECTOR_SIZES};
pub use filecoin_proofs_api::RegisteredSealProof;
