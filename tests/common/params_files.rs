//! Parameter files for the tests: written by bellperson, then damaged in
//! each way the loader must refuse, with the error each must give.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use bellperson::groth16::Parameters;
use blstrs::{Bls12, Fp, Fp2, G1Affine, G2Affine};
use cuzk::{ParamsFileError, PointProblem, Query, QueryLengths};
use ff::Field;

/// A file in the temporary folder, removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(bytes: &[u8]) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!("cuzk-params-{}-{}.params", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        std::fs::write(&path, bytes).expect("write a temporary parameter file");
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The parameters of `file` as bellperson's own reader reads them
/// (unchecked, as Filecoin reads its files: on the curve, no subgroup
/// check): what proofs from the file are compared against.
pub fn read_by_bellperson(file: &TempFile) -> Parameters<Bls12> {
    Parameters::read(std::io::BufReader::new(std::fs::File::open(&file.0).expect("open")), false).expect("bellperson reads the file")
}

/// `params` as bellperson writes them.
pub fn file_bytes(params: &Parameters<Bls12>) -> Vec<u8> {
    let mut bytes = Vec::new();
    params.write(&mut bytes).expect("bellperson writes parameters");
    bytes
}

/// Where the count of `query` and its point `index` lie in a file of
/// `lengths` (the verifying key's points: α₁, β₁, β₂, γ₂, δ₁, δ₂).
pub fn count_offset(lengths: &QueryLengths, query: Query) -> usize {
    let mut at = 3 * 96 + 3 * 192 + 4 + lengths.ic * 96;
    for (q, n) in [(Query::H, lengths.h), (Query::L, lengths.l), (Query::A, lengths.a), (Query::BG1, lengths.b_g1), (Query::BG2, lengths.b_g2)] {
        if q == query {
            return at;
        }
        at += 4 + n * q.point_bytes();
    }
    unreachable!("a bases query")
}

pub fn point_offset(lengths: &QueryLengths, query: Query, index: usize) -> usize {
    count_offset(lengths, query) + 4 + index * query.point_bytes()
}

/// What loading a damaged file must give.
#[derive(Debug)]
pub enum Expect {
    Point(Query, usize, PointProblem),
    /// Loads only without the subgroup check; with it, this point error.
    OnlyWithSubgroupCheck(Query, usize),
    Truncated,
    Trailing,
}

impl Expect {
    /// Whether `err` is this expectation's error.
    pub fn matches(&self, err: &ParamsFileError) -> bool {
        match (self, err) {
            (Expect::Point(q, i, p), ParamsFileError::BadPoint { query, index, problem }) => q == query && i == index && p == problem,
            (Expect::OnlyWithSubgroupCheck(q, i), ParamsFileError::BadPoint { query, index, problem }) => {
                q == query && i == index && *problem == PointProblem::NotInSubgroup
            }
            (Expect::Truncated, ParamsFileError::Truncated { .. }) => true,
            (Expect::Trailing, ParamsFileError::TrailingBytes { .. }) => true,
            _ => false,
        }
    }

    /// Whether the damage is only found when the bases are loaded (not
    /// when the file is opened).
    pub fn found_at_load(&self) -> bool {
        matches!(self, Expect::Point(q, ..) | Expect::OnlyWithSubgroupCheck(q, ..) if *q != Query::VerifyingKey)
    }
}

/// An on-curve G1 point outside the prime-order subgroup, encoded.
pub fn g1_outside_subgroup() -> [u8; 96] {
    let mut x = Fp::ONE;
    loop {
        if let Some(y) = Option::<Fp>::from((x.square() * x + Fp::from(4)).sqrt()) {
            let p = G1Affine::from_raw_unchecked(x, y, false);
            if !bool::from(p.is_torsion_free()) {
                let mut out = [0u8; 96];
                out[..48].copy_from_slice(&x.to_bytes_be());
                out[48..].copy_from_slice(&y.to_bytes_be());
                return out;
            }
        }
        x += Fp::ONE;
    }
}

/// An on-curve G2 point outside the prime-order subgroup, encoded.
pub fn g2_outside_subgroup() -> [u8; 192] {
    let mut x = Fp2::ONE;
    loop {
        let b = Fp2::new(Fp::from(4), Fp::from(4));
        if let Some(y) = Option::<Fp2>::from((x.square() * x + b).sqrt()) {
            let p = G2Affine::from_raw_unchecked(x, y, false);
            if !bool::from(p.is_torsion_free()) {
                let mut out = [0u8; 192];
                for (k, c) in [x.c1(), x.c0(), y.c1(), y.c0()].iter().enumerate() {
                    out[48 * k..48 * (k + 1)].copy_from_slice(&c.to_bytes_be());
                }
                return out;
            }
        }
        x += Fp2::ONE;
    }
}

/// Damaged copies of `good` (a file of `lengths`), each with its name and
/// the error it must give.
pub fn damaged_files(good: &[u8], lengths: &QueryLengths) -> Vec<(&'static str, Vec<u8>, Expect)> {
    let mut cases = Vec::new();
    let mut with = |name, edit: &dyn Fn(&mut Vec<u8>), expect| {
        let mut bytes = good.to_vec();
        edit(&mut bytes);
        cases.push((name, bytes, expect));
    };
    let h2 = point_offset(lengths, Query::H, 2);
    with("a flipped byte inside an H point's x", &|b| b[h2 + 20] ^= 0x5a, Expect::Point(Query::H, 2, PointProblem::NotOnCurve));
    let l1 = point_offset(lengths, Query::L, 1);
    with("the compressed flag on an L point", &|b| b[l1] |= 0x80, Expect::Point(Query::L, 1, PointProblem::Encoding));
    with(
        "the point at infinity in L",
        &|b| {
            b[l1..l1 + 96].fill(0);
            b[l1] = 0x40;
        },
        Expect::Point(Query::L, 1, PointProblem::Identity),
    );
    let a0 = point_offset(lengths, Query::A, 0);
    with("an x not below p in A", &|b| b[a0..a0 + 48].copy_from_slice(&[0x1f; 48]), Expect::Point(Query::A, 0, PointProblem::Encoding));
    let last_bg1 = point_offset(lengths, Query::BG1, lengths.b_g1 - 1);
    with("a flipped byte in B-in-G1's last point's y", &|b| b[last_bg1 + 90] ^= 1, Expect::Point(Query::BG1, lengths.b_g1 - 1, PointProblem::NotOnCurve));
    let g2 = point_offset(lengths, Query::BG2, 0);
    with("a flipped byte in a B-in-G2 point", &|b| b[g2 + 100] ^= 0x10, Expect::Point(Query::BG2, 0, PointProblem::NotOnCurve));
    let a1 = point_offset(lengths, Query::A, 1);
    with("a G1 point outside the subgroup in A", &|b| b[a1..a1 + 96].copy_from_slice(&g1_outside_subgroup()), Expect::OnlyWithSubgroupCheck(Query::A, 1));
    with("a G2 point outside the subgroup in B-in-G2", &|b| b[g2..g2 + 192].copy_from_slice(&g2_outside_subgroup()), Expect::OnlyWithSubgroupCheck(Query::BG2, 0));
    // δ₁ is the verifying key's fifth point (index 4).
    with("a flipped byte in δ₁", &|b| b[3 * 96 + 2 * 192 - 96 + 30] ^= 0x21, Expect::Point(Query::VerifyingKey, 4, PointProblem::NotOnCurve));
    let ic1 = 3 * 96 + 3 * 192 + 4 + 96;
    with("a flipped byte in an input's base", &|b| b[ic1 + 7] ^= 0x80, Expect::Point(Query::VerifyingKey, 7, PointProblem::NotOnCurve));
    let mid_bg2 = g2 + 50;
    with("truncated inside B in G2", &|b| b.truncate(mid_bg2), Expect::Truncated);
    with("truncated inside the verifying key", &|b| b.truncate(500), Expect::Truncated);
    let l_count = count_offset(lengths, Query::L);
    let more = (lengths.l as u32 + 1).to_be_bytes();
    with("an L count one too large", &|b| b[l_count..l_count + 4].copy_from_slice(&more), Expect::Truncated);
    let fewer = (lengths.b_g2 as u32 - 1).to_be_bytes();
    let bg2_count = count_offset(lengths, Query::BG2);
    with("a B-in-G2 count one too small", &|b| b[bg2_count..bg2_count + 4].copy_from_slice(&fewer), Expect::Trailing);
    with("bytes after the last query", &|b| b.extend_from_slice(&[0; 10]), Expect::Trailing);
    cases
}
