//! Real C1 outputs from filecoin-proofs-api's own sealing API (pre-commit
//! 1 and 2, commit 1): what filecoin-ffi hands Curio and lotus-bench.

use std::io::Cursor;
use std::path::Path;
use std::sync::Once;

use cuzk::porep::{prover_id_from_miner, RegisteredSealProof, SectorIds};
use filecoin_proofs_api::seal::{self, SealCommitPhase1Output};
use filecoin_proofs_api::{PaddedBytesAmount, SectorId, UnpaddedBytesAmount};
use rand::{Rng, SeedableRng};

/// Where the tests keep their sealed sectors and parameter caches: the
/// build's `CARGO_TARGET_TMPDIR`, or `CUZK_TEST_TMPDIR` where the test
/// executables run on another machine (the GPU machine's bundle).
pub fn test_tmpdir() -> std::path::PathBuf {
    std::env::var_os("CUZK_TEST_TMPDIR").map_or_else(|| env!("CARGO_TARGET_TMPDIR").into(), Into::into)
}

/// Points filecoin-proofs' caches (read once per process) at this build's
/// target directory: the parents cache and the parameter cache.
pub fn filecoin_caches() -> std::path::PathBuf {
    static ONCE: Once = Once::new();
    let root = test_tmpdir().join("filecoin");
    ONCE.call_once(|| {
        for (var, dir) in [("FIL_PROOFS_PARENT_CACHE", "parents"), ("FIL_PROOFS_PARAMETER_CACHE", "parameters")] {
            if std::env::var_os(var).is_none() {
                let path = root.join(dir);
                std::fs::create_dir_all(&path).expect("cache directory");
                std::env::set_var(var, path);
            }
        }
    });
    std::path::PathBuf::from(std::env::var_os("FIL_PROOFS_PARAMETER_CACHE").expect("set above"))
}

/// A parameter cache of the calling test binary's own, emptied and set as
/// `FIL_PROOFS_PARAMETER_CACHE` before filecoin-proofs first reads it (once
/// per process): `<target tmp>/<name>/parameters`. Returns `<target
/// tmp>/<name>`, for the test's other files.
#[allow(dead_code)] // not every test binary that includes this file uses it
pub fn own_parameter_cache(name: &str) -> std::path::PathBuf {
    let root = test_tmpdir().join(name);
    let params_dir = root.join("parameters");
    let _ = std::fs::remove_dir_all(&params_dir);
    std::fs::create_dir_all(&params_dir).expect("parameter cache");
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &params_dir);
    assert_eq!(filecoin_caches(), params_dir, "the parameter cache is this test's own");
    root
}

/// Seals a sector of random data through filecoin-proofs-api and returns
/// its C1 output and ids.
#[allow(dead_code)] // not every test binary that includes this file uses it
pub fn seal_sector(proof: RegisteredSealProof, seed: u64) -> (SealCommitPhase1Output, SectorIds) {
    let dir = tempfile::tempdir().expect("temporary directory");
    seal_sector_in(proof, seed, dir.path())
}

/// [`seal_sector`], its files kept in `dir`: the replica `sealed` and the
/// cache directory `cache` (its trees, which proofs of spacetime open).
pub fn seal_sector_in(proof: RegisteredSealProof, seed: u64, dir: &Path) -> (SealCommitPhase1Output, SectorIds) {
    filecoin_caches();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (staged, sealed, cache) = (dir.join("staged"), dir.join("sealed"), dir.join("cache"));
    std::fs::create_dir_all(&cache).expect("cache dir");
    let unpadded = UnpaddedBytesAmount::from(PaddedBytesAmount(u64::from(proof.sector_size())));
    let data: Vec<u8> = (0..u64::from(unpadded)).map(|_| rng.gen()).collect();
    let mut staged_file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged).expect("staged file");
    let (piece, _) = seal::add_piece(proof, Cursor::new(&data), &mut staged_file, unpadded, &[]).expect("add_piece");
    drop(staged_file);
    std::fs::File::create(&sealed).expect("sealed file");
    let ids = SectorIds { prover_id: prover_id_from_miner(1000 + seed), sector_id: seed };
    let ticket: [u8; 32] = rng.gen();
    let challenge_seed: [u8; 32] = rng.gen();
    let pieces = [piece];
    let pc1 = seal::seal_pre_commit_phase1(proof, &cache, &staged, &sealed, ids.prover_id, SectorId::from(ids.sector_id), ticket, &pieces).expect("pre-commit 1");
    let pc2 = seal::seal_pre_commit_phase2(pc1, &cache, &sealed).expect("pre-commit 2");
    let c1 = seal::seal_commit_phase1(&cache, &sealed, ids.prover_id, SectorId::from(ids.sector_id), ticket, challenge_seed, pc2, &pieces).expect("commit 1");
    (c1, ids)
}

/// A sealed sector whose new data was encoded into it (SnapDeals), through
/// filecoin-proofs-api: the commitments and the vanilla partition proofs
/// that Curio sends a prover.
#[allow(dead_code)] // not every test binary that includes this file uses it
pub struct UpdatedSector {
    /// The sealed sector's comm_r.
    pub comm_r_old: [u8; 32],
    /// The updated replica's.
    pub comm_r_new: [u8; 32],
    /// The new data's.
    pub comm_d_new: [u8; 32],
    /// One per partition (bincode `PartitionProof`).
    pub vanilla_proofs: Vec<Vec<u8>>,
}

/// Seals a sector of `proof` in `dir`, encodes fresh random data into it
/// (`empty_sector_update_encode_into`) and makes its vanilla partition
/// proofs (`generate_partition_proofs`).
#[allow(dead_code)] // not every test binary that includes this file uses it
pub fn update_sector_in(proof: RegisteredSealProof, update: filecoin_proofs_api::RegisteredUpdateProof, seed: u64, dir: &Path) -> UpdatedSector {
    let (c1, _) = seal_sector_in(proof, seed, dir);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let unpadded = UnpaddedBytesAmount::from(PaddedBytesAmount(u64::from(proof.sector_size())));
    let data: Vec<u8> = (0..u64::from(unpadded)).map(|_| rng.gen()).collect();
    let staged = dir.join("staged-update");
    let mut staged_file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged).expect("staged file");
    let (piece, _) = seal::add_piece(proof, Cursor::new(&data), &mut staged_file, unpadded, &[]).expect("add_piece");
    drop(staged_file);
    let (replica, cache) = (dir.join("updated"), dir.join("updated-cache"));
    std::fs::create_dir_all(&cache).expect("cache dir");
    // The new replica is written in place: the sector key's size.
    std::fs::File::create(&replica).and_then(|f| f.set_len(u64::from(proof.sector_size()))).expect("replica file");
    let (sector_key, sector_key_cache) = (dir.join("sealed"), dir.join("cache"));
    let encoded = filecoin_proofs_api::update::empty_sector_update_encode_into(update, &replica, &cache, &sector_key, &sector_key_cache, &staged, &[piece]).expect("encode_into");
    let vanilla = filecoin_proofs_api::update::generate_partition_proofs(update, c1.comm_r, encoded.comm_r_new, encoded.comm_d_new, &sector_key, &sector_key_cache, &replica, &cache).expect("partition proofs");
    UpdatedSector { comm_r_old: c1.comm_r, comm_r_new: encoded.comm_r_new, comm_d_new: encoded.comm_d_new, vanilla_proofs: vanilla.into_iter().map(|p| p.0).collect() }
}
