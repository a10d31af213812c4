//! SupraSeal C2's Groth16 prover (the `supraseal-c2` crate) on one of
//! cuzk's assignments: exactly what bellperson's `cuda-supraseal` prover
//! hands it once a circuit is synthesized (its A, B, C evaluations, the
//! assignment and the three density bit vectors), with SupraSeal's own SRS
//! loaded from a parameter file in bellperson's format.

use std::path::Path;
use std::time::{Duration, Instant};

use bellperson::groth16::Proof;
use blstrs::{Bls12, G1Affine, G2Affine, Scalar};
use cuzk::Assignment;
use group::prime::PrimeCurveAffine;
use supraseal_c2::SRS;

/// SupraSeal with its SRS loaded.
pub struct SupraSeal {
    srs: SRS,
}

impl SupraSeal {
    /// Loads the SRS from `params` as bellperson's `SuprasealParameters`
    /// does (no cache); how long it took.
    pub fn load(params: &Path) -> Result<(Self, Duration), String> {
        let start = Instant::now();
        let srs = SRS::try_new(params.to_path_buf(), false).map_err(String::from)?;
        Ok((SupraSeal { srs }, start.elapsed()))
    }

    /// One proof of `assignment` per (r, s), all in one call (SupraSeal
    /// batches the circuits of a call).
    pub fn prove(&self, assignment: &Assignment, randomness: &[(Scalar, Scalar)]) -> Vec<Proof<Bls12>> {
        let (a, b, c) = (&assignment.a, &assignment.b, &assignment.c);
        let circuit = || supraseal_c2::Assignment::<Scalar> {
            a_aux_density: assignment.a_aux_density.words().as_ptr() as *const usize,
            a_aux_bit_len: assignment.a_aux_density.len(),
            a_aux_popcount: assignment.a_aux_density.count_ones(),
            b_inp_density: assignment.b_input_density.words().as_ptr() as *const usize,
            b_inp_bit_len: assignment.b_input_density.len(),
            b_inp_popcount: assignment.b_input_density.count_ones(),
            b_aux_density: assignment.b_aux_density.words().as_ptr() as *const usize,
            b_aux_bit_len: assignment.b_aux_density.len(),
            b_aux_popcount: assignment.b_aux_density.count_ones(),
            a: a.as_ptr(),
            b: b.as_ptr(),
            c: c.as_ptr(),
            abc_size: a.len(),
            inp_assignment_data: assignment.input.as_ptr(),
            inp_assignment_size: assignment.input.len(),
            aux_assignment_data: assignment.aux.as_ptr(),
            aux_assignment_size: assignment.aux.len(),
        };
        let circuits: Vec<_> = randomness.iter().map(|_| circuit()).collect();
        let r: Vec<Scalar> = randomness.iter().map(|&(r, _)| r).collect();
        let s: Vec<Scalar> = randomness.iter().map(|&(_, s)| s).collect();
        let mut proofs: Vec<Proof<Bls12>> = randomness.iter().map(|_| Proof { a: G1Affine::identity(), b: G2Affine::identity(), c: G1Affine::identity() }).collect();
        // The pointers above stay valid: `assignment` is borrowed for the call.
        supraseal_c2::generate_groth16_proofs(&circuits, &r, &s, &mut proofs, &self.srs);
        proofs
    }
}
