//! SupraSeal C2 and cuzk side by side on one GPU: what `peer_partition`
//! and `tests/c2.rs` share.

pub mod peak_memory;
pub mod supraseal;
