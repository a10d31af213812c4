//! SnapDeals sector updates (feature `update`): the empty-sector-update
//! proof of a sector whose new data was encoded into it, from
//! filecoin-proofs' vanilla partition proofs (what Curio sends its proving
//! daemon), proved by cuzk's prover. The output is filecoin-proofs' proof
//! bytes (`generate_empty_sector_update_proof_with_vanilla`'s: each
//! partition's Groth16 proof, 192 bytes, in partition order), accepted by
//! its `verify_empty_sector_update_proof`.
//!
//! An [`UpdateProver`] is built once per registered update proof, like a
//! [`SealProver`](crate::porep::SealProver): its compiled circuit from the
//! circuit cache (recorded from storage-proofs-update's blank circuit the
//! first time), its parameters from filecoin-proofs' parameter cache.
//! [`local_setup`] makes them for tests and private networks.

mod circuits;
mod error;
mod prover;
mod setup;
mod shape;

pub use circuits::UpdateRequest;
pub use error::UpdateError;
pub use filecoin_proofs_api::RegisteredUpdateProof;
pub use prover::{update_compiled_circuit, update_params_file, UpdateProof, UpdateProver, UpdateProverConfig};
pub use setup::local_setup;
pub use shape::UpdateCircuit;
