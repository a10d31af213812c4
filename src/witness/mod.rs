//! A proof's witness: synthesis into an assignment, the job that carries it
//! to a prover, the reusable (pinned) buffers it is synthesized into, its
//! compact 0/1/other classes, the queries' densities, and how many
//! syntheses the host's memory holds at once.

pub mod assignment;
pub(crate) mod classes;
pub(crate) mod general_counts;
pub mod density;
pub(crate) mod job;
pub(crate) mod pool;
pub(crate) mod synthesis_budget;
