//! The proto is Curio's upstream file, byte for byte (wire compatibility
//! rests on it): any edit shows here. Taken from filecoin-project/curio's
//! extern/cuzk/cuzk-proto/proto/cuzk/v1/proving.proto at e0294b0f.

use sha2::{Digest, Sha256};

const UPSTREAM_SHA256: &str = "31050c59a68580eaab56a1fb9ac7297ef5950c9c4ab5812279cb50a47168a632";

#[test]
fn the_proto_is_upstreams_unchanged() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/proto/cuzk/v1/proving.proto")).expect("the proto fixture");
    let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(digest, UPSTREAM_SHA256, "proto/cuzk/v1/proving.proto differs from upstream's");
}
