//! What a prover keeps in a GPU's memory, and the plan that fits it into a
//! budget (host-side: used by the GPU engine, tested without a GPU).
//!
//! - [`slot_layout`]: where a witness lives in a worker's slot.
//! - [`proof_msms`]: the eight MSMs of a proof, and their pieces when MSMs
//!   run in chunks.
//! - [`needs`]: the bytes of each part (bases, tables, slots, scratch).
//! - [`input_tables`]: the tables of the few bases of the MSMs over the
//!   public inputs.
//! - [`plan`]: the choice of workers, chunks and streamed queries for a
//!   budget ([`VramPlan`]).

pub mod input_tables;
pub mod needs;
pub mod plan;
pub mod proof_msms;
pub mod slot_layout;
#[cfg(test)]
mod tests;

pub use needs::VramNeeds;
pub use plan::{CostModel, PlanBytes, VramPlan};
pub use proof_msms::ProofMsm;
pub use slot_layout::SlotLayout;
