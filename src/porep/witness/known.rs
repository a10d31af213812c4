//! The compiled circuits the native witness was checked against: BLAKE3
//! digests ([`crate::CompiledCircuit::digest`]) of the circuits this crate
//! records from storage-proofs-porep 19.1's blank `StackedCircuit`, each
//! one's native witness compared value by value with witness-only
//! synthesis (2 KiB, 8 MiB and 512 MiB in the tests; a whole 32 GiB
//! partition on a 16-core host, a whole 64 GiB one on a 2-core one, with
//! `examples/porep_witness --compare`).
//! A registered proof's circuit is fixed by its parameters, so a digest
//! names one R1CS with its variable order.

/// (registered proofs, digest) of each recognized compiled circuit.
pub const KNOWN_CIRCUITS: &[(&str, [u8; 32])] = &[
    ("StackedDrg2KiBV1, StackedDrg2KiBV1_1", hex("fd516f5ba762ecaa4fa4d7f20df28ddf81a1d366eb0e8e840bb410911e020b9a")),
    ("StackedDrg8MiBV1, StackedDrg8MiBV1_1", hex("9fc26bcf2c3dad109a9c13216f9b58fafffb365a396dfe8010de02dbbdf0f678")),
    ("StackedDrg512MiBV1, StackedDrg512MiBV1_1", hex("977379f9607cab87440460537b6acab0e7dbe6a601354adf46bbc7d66492c530")),
    ("StackedDrg32GiBV1, StackedDrg32GiBV1_1", hex("61bc43dfea39891c7ed3754ecb4d1b30afaac3e7466c08f8c85831f7bb3b796c")),
    ("StackedDrg64GiBV1, StackedDrg64GiBV1_1", hex("b21ff971f56ff04d7fc4bd29790b38510c7ec8b819bac732d6f1dd2208dc4141")),
];

/// 32 bytes from 64 hex digits, at compile time.
const fn hex(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    assert!(b.len() == 64, "64 hex digits");
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = digit(b[2 * i]) << 4 | digit(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn digit(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("a lowercase hex digit"),
    }
}

/// The registered proofs whose compiled circuit has `digest`, if the
/// native witness knows it.
pub fn recognizes(digest: &[u8; 32]) -> Option<&'static str> {
    KNOWN_CIRCUITS.iter().find(|(_, d)| d == digest).map(|(name, _)| *name)
}
