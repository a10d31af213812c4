//! Parameters on the host (rayon): each query's exponents from the QAP at
//! τ, then its fixed-base multiplications with a shared wNAF table, in
//! parallel pieces, each normalized to affine. The reference the GPU's
//! generation is held to, and fast enough for small circuits.

use std::sync::Arc;
use std::time::Instant;

use bellperson::groth16::Parameters;
use blstrs::{Bls12, G1Affine, G2Affine, Scalar};
use group::prime::PrimeCurveAffine;
use group::{Curve, Wnaf, WnafGroup};
use log::info;
use rayon::prelude::*;

use super::exponents::{exponents, Exponents};
use super::{GenerateError, ToxicWaste};
use crate::compiled::CompiledCircuit;

/// Points per parallel piece (one wNAF table shared by all).
const PIECE: usize = 1 << 12;

/// The parameters of `compiled` for `waste`: bellperson's
/// `generate_parameters` for the same circuit, toxic waste and generators
/// gives the same points (tests), so the same file.
pub fn generate_parameters(compiled: &CompiledCircuit, waste: &ToxicWaste) -> Result<Parameters<Bls12>, GenerateError> {
    let start = Instant::now();
    let ToxicWaste { g1, g2, .. } = *waste;
    let (inputs, aux) = (compiled.inputs(), compiled.aux());
    let exps = exponents(compiled, waste)?;
    let Exponents { h: h_exps, ic: ic_exps, l: l_exps, a: a_exps, b: b_exps } = &exps;

    let t = Instant::now();
    let (mut g1_wnaf, mut g2_wnaf) = (Wnaf::new(), Wnaf::new());
    let g1_table = g1_wnaf.base(g1, h_exps.len() + 2 * (inputs + aux) + b_exps.len());
    let g2_table = g2_wnaf.base(g2, b_exps.len().max(1));
    let h = fixed_base(&g1_table, h_exps);
    let l = fixed_base(&g1_table, l_exps);
    if let Some(index) = l.iter().position(|p| bool::from(p.is_identity())) {
        return Err(GenerateError::UnconstrainedVariable { index });
    }
    let ic = fixed_base(&g1_table, ic_exps);
    // A and B without their identity points (variables absent from them),
    // as bellperson filters them.
    let nonzero = |points: Vec<G1Affine>| -> Vec<G1Affine> { points.into_iter().filter(|p| !bool::from(p.is_identity())).collect() };
    let a = nonzero(fixed_base(&g1_table, a_exps));
    let b_g1 = nonzero(fixed_base(&g1_table, b_exps));
    let b_g2: Vec<G2Affine> = fixed_base(&g2_table, b_exps).into_iter().filter(|p| !bool::from(p.is_identity())).collect();
    info!("parameters: {} G1 and {} G2 fixed-base multiplications in {:.2?}", h_exps.len() + l_exps.len() + ic_exps.len() + 2 * a_exps.len(), b_exps.len(), t.elapsed());

    let vk = waste.verifying_key(ic);
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
