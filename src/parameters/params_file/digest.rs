//! The whole-file digest Filecoin publishes per parameter file: BLAKE2b
//! (512 bits), compared on as many leading hex digits as given
//! (Filecoin's `parameters.json` gives 32).

use std::time::Instant;

use log::info;

use super::{ParamsFile, ParamsFileError};

/// Bytes hashed between progress reports.
const REPORT_EVERY: usize = 4 << 30;
/// Bytes read at a time.
const PIECE: usize = 16 << 20;

impl ParamsFile {
    /// Hashes the whole file (BLAKE2b-512, one core: ≈ 1 GB/s, so a
    /// minute for a 32 GiB partition's file; progress in the log every
    /// 4 GiB) and compares the digest's leading hex digits with
    /// `expected` (1 to 128 of them, any case).
    pub fn check_digest(&self, expected: &str) -> Result<(), ParamsFileError> {
        let expected_lower = expected.to_ascii_lowercase();
        if expected.is_empty() || expected.len() > 128 || !expected.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ParamsFileError::BadExpectedDigest(expected.to_string()));
        }
        let start = Instant::now();
        let mut state = blake2b_simd::State::new();
        let len = self.len();
        let mut piece = vec![0u8; PIECE.min(len)];
        let mut reported = 0;
        for at in (0..len).step_by(PIECE) {
            let bytes = &mut piece[..PIECE.min(len - at)];
            self.read_at(at as u64, bytes, "the digested file")?;
            state.update(bytes);
            let done = at + bytes.len();
            if done < len && done / REPORT_EVERY > reported {
                reported = done / REPORT_EVERY;
                info!("digest of {}: {:.1} of {:.1} GB", self.path.display(), done as f64 / 1e9, len as f64 / 1e9);
            }
        }
        let found = state.finalize().to_hex();
        let found = &found[..expected.len()];
        info!("digest of {}: {found} ({:.1} s)", self.path.display(), start.elapsed().as_secs_f64());
        if found != expected_lower {
            return Err(ParamsFileError::DigestMismatch { expected: expected.to_string(), found: found.to_string() });
        }
        Ok(())
    }
}
