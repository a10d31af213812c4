//! Filecoin proofs of spacetime (feature `post`): a WinningPoSt, or one
//! partition of a WindowPoSt, from filecoin-proofs' vanilla proofs (what
//! Curio sends its proving daemon), proved by cuzk's prover. The output is
//! filecoin-proofs' proof bytes: what its `generate_winning_post_with_vanilla`
//! and `generate_single_window_post_with_vanilla` return, accepted by its
//! `verify_winning_post` and `verify_window_post`.
//!
//! ```text
//! vanilla proofs ──PostRequest──► storage-proofs-post's FallbackPoStCircuit
//!  (bincode, one per sector)        (the partition's vanilla proof checked first)
//!                                     │  witness-only synthesis, the compiled
//!                                     ▼  circuit's a·b·c, the Groth16 proof
//!                               192 bytes, checked with filecoin-proofs'
//!                               verifying key (`.vk`) before return
//! ```
//!
//! A [`PostProver`] is built once per registered PoSt proof, like a
//! [`SealProver`](crate::porep::SealProver): its compiled circuit from the
//! circuit cache (recorded from storage-proofs' blank circuit the first
//! time), its parameters from filecoin-proofs' parameter cache.
//! [`local_setup`] makes them for tests and private networks.

mod circuits;
mod error;
mod prover;
mod setup;
mod shape;

pub use circuits::PostRequest;
pub use error::PostError;
pub use filecoin_proofs_api::RegisteredPoStProof;
pub use prover::{post_compiled_circuit, post_params_file, PostProof, PostProver, PostProverConfig};
pub use setup::local_setup;
pub use shape::{check_supported, PostCircuit, PostKind};
