//! Parameter files of any size from random valid points, for tests and
//! benchmarks: a full-size file is written without holding its points
//! (bellperson's `Parameters::write` needs them all in memory).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use blstrs::{G1Projective, G2Projective};
use group::{Curve, Group};
use rand_core::RngCore;

use crate::parameters::params::QueryLengths;

/// Distinct random points per curve; longer queries repeat them.
const POOL: usize = 1024;

/// Writes a parameter file with `lengths`' counts: a random verifying
/// key, and queries cycling through `POOL` random points of each group
/// (valid, in the subgroup, never the identity). Proofs made with it do
/// not verify (the points are not a setup's).
pub fn write_random_params_file(path: impl AsRef<Path>, lengths: &QueryLengths, rng: &mut impl RngCore) -> std::io::Result<()> {
    let g1: Vec<[u8; 96]> = (0..POOL).map(|_| G1Projective::random(&mut *rng).to_affine().to_uncompressed()).collect();
    let g2: Vec<[u8; 192]> = (0..POOL).map(|_| G2Projective::random(&mut *rng).to_affine().to_uncompressed()).collect();
    let g1_pool: Vec<u8> = g1.concat();
    let g2_pool: Vec<u8> = g2.concat();
    let mut out = BufWriter::with_capacity(8 << 20, File::create(path)?);
    // α₁, β₁, β₂, γ₂, δ₁, δ₂.
    for bytes in [&g1[0][..], &g1[1], &g2[0], &g2[1], &g1[2], &g2[2]] {
        out.write_all(bytes)?;
    }
    let query = |out: &mut BufWriter<File>, count: usize, pool: &[u8], point: usize| -> std::io::Result<()> {
        let count32 = u32::try_from(count).map_err(|_| std::io::Error::other(format!("{count} points do not fit a u32 count")))?;
        out.write_all(&count32.to_be_bytes())?;
        let mut left = count * point;
        while left > 0 {
            let n = left.min(pool.len());
            out.write_all(&pool[..n])?;
            left -= n;
        }
        Ok(())
    };
    query(&mut out, lengths.ic, &g1_pool, 96)?;
    for count in [lengths.h, lengths.l, lengths.a, lengths.b_g1] {
        query(&mut out, count, &g1_pool, 96)?;
    }
    query(&mut out, lengths.b_g2, &g2_pool, 192)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}
