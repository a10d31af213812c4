//! Real C1 outputs from filecoin-proofs-api's own sealing API (pre-commit
//! 1 and 2, commit 1): what filecoin-ffi hands Curio and lotus-bench.

use std::io::Cursor;
use std::path::Path;
use std::sync::Once;

use cuzk::porep::{prover_id_from_miner, RegisteredSealProof, SectorIds};
use filecoin_proofs_api::seal::{self, SealCommitPhase1Output};
use filecoin_proofs_api::{PaddedBytesAmount, SectorId, UnpaddedBytesAmount};
use rand::{Rng, SeedableRng};

/// Points filecoin-proofs' caches (read once per process) at this build's
/// target directory: the parents cache and the parameter cache.
pub fn filecoin_caches() -> std::path::PathBuf {
    static ONCE: Once = Once::new();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("filecoin");
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
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
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
