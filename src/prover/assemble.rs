//! The last Groth16 step: combining the MSM results with r and s into A, B, C
//! exactly as bellperson does.

use bellperson::groth16::{Proof, VerifyingKey};
use blstrs::{Bls12, G1Projective, G2Projective, Scalar};
use group::Curve;

/// One proof's MSM results, whichever backend computed them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmResults {
    /// Σ h_i·H_i over the H coefficients.
    pub h: G1Projective,
    /// Σ aux_i·L_i.
    pub l: G1Projective,
    /// The A query over the public inputs (ONE included).
    pub a_inputs: G1Projective,
    /// The A query over the aux variables in the A-aux density.
    pub a_aux: G1Projective,
    /// The B query in G1 over the inputs in the B-input density.
    pub b_g1_inputs: G1Projective,
    /// The B query in G1 over the aux variables in the B-aux density.
    pub b_g1_aux: G1Projective,
    /// The B query in G2 over the inputs in the B-input density.
    pub b_g2_inputs: G2Projective,
    /// The B query in G2 over the aux variables in the B-aux density.
    pub b_g2_aux: G2Projective,
}

/// A = α + A·z + r·δ;  B = β + B·z + s·δ (in G2);
/// C = s·A·z + r·B·z (in G1) + r·s·δ + s·α + r·β + H + L.
pub fn assemble(vk: &VerifyingKey<Bls12>, m: &MsmResults, r: Scalar, s: Scalar) -> Proof<Bls12> {
    let a_answer = m.a_inputs + m.a_aux;
    let b1_answer = m.b_g1_inputs + m.b_g1_aux;
    let b2_answer = m.b_g2_inputs + m.b_g2_aux;

    let g_a = vk.delta_g1 * r + vk.alpha_g1 + a_answer;
    let g_b = vk.delta_g2 * s + vk.beta_g2 + b2_answer;
    let g_c = a_answer * s + b1_answer * r + vk.delta_g1 * (r * s) + vk.alpha_g1 * s + vk.beta_g1 * r + m.h + m.l;

    Proof { a: g_a.to_affine(), b: g_b.to_affine(), c: g_c.to_affine() }
}
