//! The two proving phases on the CPU.

use std::time::Instant;

use bellperson::groth16::Parameters;
use blstrs::Bls12;

use super::h_rayon::h_coefficients;
use super::msm::{msm_g1, msm_g2, select_dense, to_bytes, ScalarBytes};
use crate::prover::assemble::{assemble, MsmResults};
use crate::error::ProverError;
use crate::witness::job::ProofJob;
use crate::prover::timings::PhaseTimings;

/// A job whose witness is in the form the MSMs read: canonical bytes, already
/// gathered per density.
pub(crate) struct CpuStaged {
    a: Vec<blstrs::Scalar>,
    b: Vec<blstrs::Scalar>,
    c: Vec<blstrs::Scalar>,
    input: Vec<ScalarBytes>,
    aux: Vec<ScalarBytes>,
    a_aux: Vec<ScalarBytes>,
    b_input: Vec<ScalarBytes>,
    b_aux: Vec<ScalarBytes>,
    r: blstrs::Scalar,
    s: blstrs::Scalar,
}

pub(crate) fn prestage(job: ProofJob) -> CpuStaged {
    let (r, s) = (job.r, job.s);
    let asg = job.into_assignment();
    let input = to_bytes(&asg.input);
    let aux = to_bytes(&asg.aux);
    CpuStaged {
        a_aux: select_dense(&asg.a_aux_density, &aux),
        b_input: select_dense(&asg.b_input_density, &input),
        b_aux: select_dense(&asg.b_aux_density, &aux),
        input,
        aux,
        a: asg.a,
        b: asg.b,
        c: asg.c,
        r,
        s,
    }
}

pub(crate) fn compute(
    params: &Parameters<Bls12>,
    st: CpuStaged,
    timings: &mut PhaseTimings,
) -> Result<bellperson::groth16::Proof<Bls12>, ProverError> {
    let t = Instant::now();
    let h = to_bytes(&h_coefficients(st.a, st.b, st.c)?);
    timings.ntt = t.elapsed();

    let t = Instant::now();
    let n_in = st.input.len();
    let n_b_in = st.b_input.len();
    let m = MsmResults {
        h: msm_g1(&params.h, &h),
        l: msm_g1(&params.l, &st.aux),
        a_inputs: msm_g1(&params.a, &st.input),
        a_aux: msm_g1(&params.a[n_in..], &st.a_aux),
        b_g1_inputs: msm_g1(&params.b_g1, &st.b_input),
        b_g1_aux: msm_g1(&params.b_g1[n_b_in..], &st.b_aux),
        b_g2_inputs: msm_g2(&params.b_g2, &st.b_input),
        b_g2_aux: msm_g2(&params.b_g2[n_b_in..], &st.b_aux),
    };
    timings.msm = t.elapsed();

    let t = Instant::now();
    let proof = assemble(&params.vk, &m, st.r, st.s);
    timings.assemble = t.elapsed();
    Ok(proof)
}
