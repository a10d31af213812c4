//! The QAP at τ: the domain's Lagrange coefficients there, and each
//! variable's A, B and C polynomials as sums over the compiled matrices'
//! columns.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use blstrs::Scalar;
use ff::{BatchInvert, Field, PrimeField};
use rayon::prelude::*;

use super::GenerateError;
use crate::compiled::{column, coeff, CompiledCircuit, SparseRows, COEFF_MINUS_ONE, COEFF_ONE};

/// The evaluation domain of `constraints` rows: its size (the least power
/// of two at least `constraints`, as bellperson's `EvaluationDomain`
/// picks it) and generator ω.
pub(super) fn domain(constraints: usize) -> Result<(usize, Scalar), GenerateError> {
    let size = constraints.max(1).next_power_of_two();
    let log = size.trailing_zeros();
    if log >= Scalar::S {
        return Err(GenerateError::DomainTooLarge { constraints });
    }
    let mut omega = Scalar::ROOT_OF_UNITY;
    for _ in log..Scalar::S {
        omega = omega.square();
    }
    Ok((size, omega))
}

/// τ^0 … τ^(n−1), in parallel pieces.
pub(super) fn powers(tau: Scalar, n: usize) -> Vec<Scalar> {
    const PIECE: usize = 1 << 14;
    let mut out = vec![Scalar::ZERO; n];
    out.par_chunks_mut(PIECE).enumerate().for_each(|(k, piece)| {
        let mut p = tau.pow_vartime([(k * PIECE) as u64]);
        for v in piece {
            *v = p;
            p *= tau;
        }
    });
    out
}

/// The Lagrange basis of the domain of `size` (generator ω) at τ:
/// L_j(τ) = ω^j (τ^size − 1) / (size (τ − ω^j)), or, where τ is ω^j
/// itself, 1 at j and 0 elsewhere. Equal to bellperson's inverse FFT of
/// τ's powers.
pub(super) fn lagrange_at(tau: Scalar, size: usize, omega: Scalar) -> Vec<Scalar> {
    let omegas = powers(omega, size);
    if let Some(j) = omegas.iter().position(|w| *w == tau) {
        let mut out = vec![Scalar::ZERO; size];
        out[j] = Scalar::ONE;
        return out;
    }
    let z = tau.pow_vartime([size as u64]) - Scalar::ONE;
    let scale = z * Scalar::from(size as u64).invert().expect("the domain's size is below the field's characteristic");
    let mut denominators: Vec<Scalar> = omegas.par_iter().map(|w| tau - w).collect();
    denominators.par_chunks_mut(1 << 14).for_each(|piece| {
        piece.iter_mut().batch_invert();
    });
    omegas.par_iter().zip(denominators).map(|(w, inv)| *w * inv * scale).collect()
}

/// Per column of z = (inputs, aux): Σ over the matrix's rows of the
/// entry's coefficient times that row's Lagrange coefficient. The
/// row-major matrix is transposed by a counting sort (8 bytes per nonzero:
/// row and coefficient index), then each column is summed, all in
/// parallel.
pub(super) fn column_sums(matrix: &SparseRows, coefficients: &[Scalar], lagrange: &[Scalar], columns: usize) -> Vec<Scalar> {
    let starts = matrix.row_start();
    let entries = matrix.entries();
    let row_entries = |r: usize| &entries[starts[r] as usize..starts[r + 1] as usize];
    // Entries per column, then where each column's run begins.
    let counts: Vec<AtomicU32> = (0..columns).map(|_| AtomicU32::new(0)).collect();
    entries.par_iter().for_each(|&e| {
        counts[column(e) as usize].fetch_add(1, Ordering::Relaxed);
    });
    let mut begin = Vec::with_capacity(columns + 1);
    let mut at = 0usize;
    begin.push(0);
    for c in &counts {
        at += c.load(Ordering::Relaxed) as usize;
        begin.push(at);
    }
    // Each entry's (row, coefficient index) into its column's run.
    let cursor: Vec<AtomicU32> = counts.into_iter().map(|_| AtomicU32::new(0)).collect();
    let slots: Vec<AtomicU64> = (0..entries.len()).map(|_| AtomicU64::new(0)).collect();
    (0..matrix.rows()).into_par_iter().for_each(|r| {
        for &e in row_entries(r) {
            let c = column(e) as usize;
            let k = begin[c] + cursor[c].fetch_add(1, Ordering::Relaxed) as usize;
            slots[k].store((r as u64) << 32 | coeff(e) as u64, Ordering::Relaxed);
        }
    });
    (0..columns)
        .into_par_iter()
        .map(|c| {
            slots[begin[c]..begin[c + 1]].iter().fold(Scalar::ZERO, |sum, slot| {
                let packed = slot.load(Ordering::Relaxed);
                let l = lagrange[(packed >> 32) as usize];
                sum + match packed as u32 {
                    COEFF_ONE => l,
                    COEFF_MINUS_ONE => -l,
                    k => coefficients[k as usize] * l,
                }
            })
        })
        .collect()
}

/// Each variable's A, B and C polynomials at τ, columns in z's order.
pub(super) struct Evaluations {
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
}

pub(super) fn evaluate(compiled: &CompiledCircuit, lagrange: &[Scalar]) -> Evaluations {
    let columns = compiled.inputs() + compiled.aux();
    let [a, b, c] = compiled.matrices().each_ref().map(|m| column_sums(m, compiled.coefficients(), lagrange, columns));
    Evaluations { a, b, c }
}
