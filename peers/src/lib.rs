//! The provers storage providers use today and cuzk side by side on one
//! GPU: what `peer_partition`, `peer_bellperson` and `tests/c2.rs` share.

pub mod peak_memory;
pub mod random_params;
pub mod supraseal;
