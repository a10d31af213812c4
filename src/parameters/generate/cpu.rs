//! Parameters on the host (rayon): each query's exponents from the QAP at
//! τ, then its fixed-base multiplications with a shared wNAF table, in
//! parallel pieces, each normalized to affine. The reference the GPU's
//! generation is held to, and fast enough for small circuits.

use std::sync::Arc;
use std::time::Instant;

use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::{Bls12, G1Affine, G2Affine, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Wnaf, WnafGroup};
use log::info;
use rayon::prelude::*;

use super::qap::{domain, evaluate, lagrange_at, powers};
use super::{GenerateError, ToxicWaste};
use crate::compiled::CompiledCircuit;

/// Points per parallel piece (one wNAF table shared by all).
const PIECE: usize = 1 << 12;

/// The parameters of `compiled` for `waste`: bellperson's
/// `generate_parameters` for the same circuit, toxic waste and generators
/// gives the same points (tests), so the same file.
pub fn generate_parameters(compiled: &CompiledCircuit, waste: &ToxicWaste) -> Result<Parameters<Bls12>, GenerateError> {
    let start = Instant::now();
    let ToxicWaste { g1, g2, alpha, beta, gamma, delta, tau } = *waste;
    let gamma_inv = Option::<Scalar>::from(gamma.invert()).ok_or(GenerateError::ZeroSecret("gamma"))?;
    let delta_inv = Option::<Scalar>::from(delta.invert()).ok_or(GenerateError::ZeroSecret("delta"))?;
    let (size, omega) = domain(compiled.constraints())?;
    let (inputs, aux) = (compiled.inputs(), compiled.aux());

    // H: g1 · τ^i · Z(τ) / δ for i < size − 1.
    let z_over_delta = (tau.pow_vartime([size as u64]) - Scalar::ONE) * delta_inv;
    let h_exps: Vec<Scalar> = powers(tau, size - 1).into_par_iter().map(|p| p * z_over_delta).collect();
    let t = Instant::now();
    let lagrange = lagrange_at(tau, size, omega);
    let qap = evaluate(compiled, &lagrange);
    drop(lagrange);
    info!("parameters: QAP of {} constraints (2^{}) at tau in {:.2?}", compiled.constraints(), size.trailing_zeros(), t.elapsed());

    // IC (inputs, over γ) and L (aux, over δ): (β a + α b + c) / γ or δ.
    let ext = |range: std::ops::Range<usize>, inv: Scalar| -> Vec<Scalar> { range.into_par_iter().map(|j| (beta * qap.a[j] + alpha * qap.b[j] + qap.c[j]) * inv).collect() };
    let ic_exps = ext(0..inputs, gamma_inv);
    let l_exps = ext(inputs..inputs + aux, delta_inv);

    let t = Instant::now();
    let (mut g1_wnaf, mut g2_wnaf) = (Wnaf::new(), Wnaf::new());
    let g1_table = g1_wnaf.base(g1, h_exps.len() + 2 * (inputs + aux) + qap.b.len());
    let g2_table = g2_wnaf.base(g2, qap.b.len().max(1));
    let h = fixed_base(&g1_table, &h_exps);
    let l = fixed_base(&g1_table, &l_exps);
    if let Some(index) = l.iter().position(|p| bool::from(p.is_identity())) {
        return Err(GenerateError::UnconstrainedVariable { index });
    }
    let ic = fixed_base(&g1_table, &ic_exps);
    // A and B without their identity points (variables absent from them),
    // as bellperson filters them.
    let nonzero = |points: Vec<G1Affine>| -> Vec<G1Affine> { points.into_iter().filter(|p| !bool::from(p.is_identity())).collect() };
    let a = nonzero(fixed_base(&g1_table, &qap.a));
    let b_g1 = nonzero(fixed_base(&g1_table, &qap.b));
    let b_g2: Vec<G2Affine> = fixed_base(&g2_table, &qap.b).into_iter().filter(|p| !bool::from(p.is_identity())).collect();
    info!("parameters: {} G1 and {} G2 fixed-base multiplications in {:.2?}", h_exps.len() + l_exps.len() + ic_exps.len() + 2 * qap.a.len(), qap.b.len(), t.elapsed());

    let (g1a, g2a) = (g1.to_affine(), g2.to_affine());
    let vk = VerifyingKey {
        alpha_g1: (g1a * alpha).to_affine(),
        beta_g1: (g1a * beta).to_affine(),
        beta_g2: (g2a * beta).to_affine(),
        gamma_g2: (g2a * gamma).to_affine(),
        delta_g1: (g1a * delta).to_affine(),
        delta_g2: (g2a * delta).to_affine(),
        ic,
    };
    info!("parameters of {} constraints, {inputs} inputs, {aux} aux made in {:.2?}", compiled.constraints(), start.elapsed());
    Ok(Parameters { vk, h: Arc::new(h), l: Arc::new(l), a: Arc::new(a), b_g1: Arc::new(b_g1), b_g2: Arc::new(b_g2) })
}

/// `base · e` for every exponent (the base's wNAF table), normalized to
/// affine, in parallel pieces.
fn fixed_base<G>(table: &Wnaf<usize, &[G], &mut Vec<i64>>, exps: &[Scalar]) -> Vec<G::AffineRepr>
where
    G: WnafGroup + Curve + group::Group<Scalar = Scalar> + Send + Sync,
    G::AffineRepr: Send + Sync + Default + Clone,
{
    let mut out = vec![G::AffineRepr::default(); exps.len()];
    out.par_chunks_mut(PIECE).zip(exps.par_chunks(PIECE)).for_each(|(out, exps)| {
        let mut wnaf = table.shared();
        let points: Vec<G> = exps.iter().map(|e| wnaf.scalar(e)).collect();
        G::batch_normalize(&points, out);
    });
    out
}
