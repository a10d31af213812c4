//! Every query's exponents (what its generator is multiplied by), from the
//! QAP at τ and the toxic waste, as bellperson's `generate_parameters`
//! forms them.

use blstrs::Scalar;
use ff::Field;
use log::info;
use rayon::prelude::*;

use super::qap::{domain, evaluate, lagrange_at, powers};
use super::{GenerateError, ToxicWaste};
use crate::compiled::CompiledCircuit;

/// The exponents of each query, in file order.
pub(super) struct Exponents {
    /// H: τ^i · Z(τ) / δ for i below the domain's size less one.
    pub h: Vec<Scalar>,
    /// IC (inputs): (β·a + α·b + c) / γ.
    pub ic: Vec<Scalar>,
    /// L (aux): (β·a + α·b + c) / δ.
    pub l: Vec<Scalar>,
    /// A: a(τ) per variable, inputs then aux (zeros give the identity,
    /// which the file leaves out).
    pub a: Vec<Scalar>,
    /// B (in G1 and G2): b(τ) per variable.
    pub b: Vec<Scalar>,
}

pub(super) fn exponents(compiled: &CompiledCircuit, waste: &ToxicWaste) -> Result<Exponents, GenerateError> {
    let ToxicWaste { alpha, beta, gamma, delta, tau, .. } = *waste;
    let gamma_inv = Option::<Scalar>::from(gamma.invert()).ok_or(GenerateError::ZeroSecret("gamma"))?;
    let delta_inv = Option::<Scalar>::from(delta.invert()).ok_or(GenerateError::ZeroSecret("delta"))?;
    let (size, omega) = domain(compiled.constraints())?;
    let inputs = compiled.inputs();
    let t = std::time::Instant::now();
    let z_over_delta = (tau.pow_vartime([size as u64]) - Scalar::ONE) * delta_inv;
    let h: Vec<Scalar> = powers(tau, size - 1).into_par_iter().map(|p| p * z_over_delta).collect();
    let lagrange = lagrange_at(tau, size, omega);
    let qap = evaluate(compiled, &lagrange);
    drop(lagrange);
    let ext = |range: std::ops::Range<usize>, inv: Scalar| -> Vec<Scalar> { range.into_par_iter().map(|j| (beta * qap.a[j] + alpha * qap.b[j] + qap.c[j]) * inv).collect() };
    let ic = ext(0..inputs, gamma_inv);
    let l = ext(inputs..qap.a.len(), delta_inv);
    info!("parameters: QAP of {} constraints (2^{}) at tau and every query's exponents in {:.2?}", compiled.constraints(), size.trailing_zeros(), t.elapsed());
    Ok(Exponents { h, ic, l, a: qap.a, b: qap.b })
}
