//! The QAP at τ: the domain's Lagrange coefficients there, and each
//! variable's A, B and C polynomials as sums over the compiled matrices'
//! columns.

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
/// entry's coefficient times that row's Lagrange coefficient.
pub(super) fn column_sums(matrix: &SparseRows, coefficients: &[Scalar], lagrange: &[Scalar], columns: usize) -> Vec<Scalar> {
    let starts = matrix.row_start();
    let rows = matrix.rows();
    // (column, value) for every entry, sorted by column, then summed per
    // column: the transpose of row-major matrices, in parallel.
    let mut terms: Vec<(u32, Scalar)> = (0..rows)
        .into_par_iter()
        .flat_map_iter(|r| {
            matrix.entries()[starts[r] as usize..starts[r + 1] as usize].iter().map(move |&e| {
                let l = lagrange[r];
                let value = match coeff(e) {
                    COEFF_ONE => l,
                    COEFF_MINUS_ONE => -l,
                    c => coefficients[c as usize] * l,
                };
                (column(e), value)
            })
        })
        .collect();
    terms.par_sort_unstable_by_key(|t| t.0);
    let mut sums = vec![Scalar::ZERO; columns];
    let runs: Vec<(u32, Scalar)> = terms.par_chunk_by(|x, y| x.0 == y.0).map(|run| (run[0].0, run.iter().map(|t| t.1).sum())).collect();
    for (c, sum) in runs {
        sums[c as usize] = sum;
    }
    sums
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
