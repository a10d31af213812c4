//! The CPU's decoding of a parameter file's points, with blst: the
//! verifying key when the file is opened, and every query, in parallel
//! as it is read, for the CPU backend.

use std::sync::Arc;

use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::{Bls12, Fp, G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use group::UncompressedEncoding;
use rayon::prelude::*;

use super::{vk_fixed_points, ParamsFile, ParamsFileError, PointProblem, Query, G1_BYTES};

/// The problems every point is checked for before blst reads it: flags
/// (the first byte's top three bits) and coordinates below p. `bytes` is
/// one encoded point; its first 48-byte word carries the flags.
fn check_encoding(bytes: &[u8]) -> Result<(), PointProblem> {
    let flags = bytes[0] >> 5;
    if flags != 0 {
        let rest_zero = bytes[0] & 0x1f == 0 && bytes[1..].iter().all(|&b| b == 0);
        return Err(if flags == 0b010 && rest_zero { PointProblem::Identity } else { PointProblem::Encoding });
    }
    let canonical = bytes.chunks_exact(48).all(|c| bool::from(Fp::from_bytes_be(c.try_into().expect("48 bytes")).is_some()));
    if !canonical {
        return Err(PointProblem::Encoding);
    }
    // (0, 0) with no flags: blst's layout would read it as the identity.
    if bytes.iter().all(|&b| b == 0) {
        return Err(PointProblem::NotOnCurve);
    }
    Ok(())
}

/// One encoded point (G1 or G2), checked (in the subgroup only if
/// `subgroup`).
pub(super) fn decode<P: UncompressedEncoding + PrimeCurveAffine>(bytes: &[u8], subgroup: bool) -> Result<P, PointProblem> {
    check_encoding(bytes)?;
    let mut repr = P::Uncompressed::default();
    repr.as_mut().copy_from_slice(bytes);
    // blst's deserialization checks the curve equation; the checked one
    // adds the subgroup.
    let p = Option::<P>::from(P::from_uncompressed_unchecked(&repr)).ok_or(PointProblem::NotOnCurve)?;
    if bool::from(p.is_identity()) {
        return Err(PointProblem::Identity);
    }
    if subgroup && Option::<P>::from(P::from_uncompressed(&repr)).is_none() {
        return Err(PointProblem::NotInSubgroup);
    }
    Ok(p)
}

/// Every point of `bytes`, decoded in parallel; the first bad one (by
/// index) is the error.
fn decode_all<T: Send>(
    bytes: &[u8],
    point_bytes: usize,
    query: Query,
    decode: impl Fn(&[u8]) -> Result<T, PointProblem> + Sync,
) -> Result<Vec<T>, ParamsFileError> {
    let all: Result<Vec<T>, PointProblem> = bytes.par_chunks_exact(point_bytes).map(&decode).collect();
    all.map_err(|_| {
        // Which point failed first: only on the error path.
        let index = bytes.par_chunks_exact(point_bytes).position_first(|c| decode(c).is_err()).unwrap_or(0);
        let problem = decode(&bytes[index * point_bytes..][..point_bytes]).err().unwrap_or(PointProblem::Encoding);
        ParamsFileError::BadPoint { query, index, problem }
    })
}

/// The verifying key, every point checked in full (subgroup included).
pub(super) fn verifying_key(map: &[u8], ic_at: usize, ic_len: usize) -> Result<VerifyingKey<Bls12>, ParamsFileError> {
    let bad = |index, problem| ParamsFileError::BadPoint { query: Query::VerifyingKey, index, problem };
    let [alpha1, beta1, beta2, gamma2, delta1, delta2] = vk_fixed_points(map);
    let g1 = |i: usize, bytes: &[u8]| decode::<G1Affine>(bytes, true).map_err(|p| bad(i, p));
    let g2 = |i: usize, bytes: &[u8]| decode::<G2Affine>(bytes, true).map_err(|p| bad(i, p));
    let ic = decode_all(&map[ic_at..ic_at + ic_len * G1_BYTES], G1_BYTES, Query::VerifyingKey, |b| decode::<G1Affine>(b, true))
        .map_err(|e| match e {
            ParamsFileError::BadPoint { index, problem, .. } => bad(6 + index, problem),
            e => e,
        })?;
    Ok(VerifyingKey {
        alpha_g1: g1(0, alpha1)?,
        beta_g1: g1(1, beta1)?,
        beta_g2: g2(2, beta2)?,
        gamma_g2: g2(3, gamma2)?,
        delta_g1: g1(4, delta1)?,
        delta_g2: g2(5, delta2)?,
        ic,
    })
}

impl ParamsFile {
    /// The whole parameters on the host, decoded in parallel (rayon) as
    /// they are read, and checked as the GPU checks them (on the curve; in
    /// the subgroup with [`Self::with_subgroup_check`]). The CPU backend
    /// proves with this; it holds every base in host memory.
    pub fn read_parameters(&self) -> Result<Parameters<Bls12>, ParamsFileError> {
        let sub = self.subgroup_check;
        let g1 = |q: Query| self.decode_query(q, |b| decode::<G1Affine>(b, sub)).map(Arc::new);
        Ok(Parameters {
            vk: self.vk.clone(),
            h: g1(Query::H)?,
            l: g1(Query::L)?,
            a: g1(Query::A)?,
            b_g1: g1(Query::BG1)?,
            b_g2: Arc::new(self.decode_query(Query::BG2, |b| decode::<G2Affine>(b, sub))?),
        })
    }

    /// One query's points, read in pieces of 64 MiB and decoded in parallel;
    /// the first bad one (by index) is the error.
    fn decode_query<T: Send>(&self, query: Query, decode: impl Fn(&[u8]) -> Result<T, PointProblem> + Sync) -> Result<Vec<T>, ParamsFileError> {
        let point_bytes = query.point_bytes();
        let total = self.query_len_bytes(query);
        let piece_bytes = (64 << 20) / point_bytes * point_bytes;
        let mut points = Vec::with_capacity(total / point_bytes);
        let mut piece = vec![0u8; piece_bytes.min(total)];
        for start in (0..total).step_by(piece_bytes.max(1)) {
            let bytes = &mut piece[..piece_bytes.min(total - start)];
            self.read_query(query, start, bytes)?;
            let decoded = decode_all(bytes, point_bytes, query, &decode).map_err(|e| match e {
                ParamsFileError::BadPoint { query, index, problem } => ParamsFileError::BadPoint { query, index: start / point_bytes + index, problem },
                e => e,
            })?;
            points.extend(decoded);
        }
        Ok(points)
    }
}
