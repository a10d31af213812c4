//! The eight MSMs of a Groth16 proof on the GPU: their order, curves,
//! sizes and places in a worker's result buffer, and the results read back.

use blstrs::{G1Projective, G2Projective};
use crate::parameters::params::QueryLengths;
use group::Group;

use super::msm::{g1_from_result_words, g2_from_result_words, MsmCurve};
use super::slot_layout::SlotLayout;
use crate::prover::assemble::MsmResults;

/// The eight MSMs of a proof, in the order they run on a worker's stream
/// and their results lie in its result buffer (as in `cpu::compute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ProofMsm {
    H,
    L,
    AInputs,
    AAux,
    BG1Inputs,
    BG1Aux,
    BG2Inputs,
    BG2Aux,
}

impl ProofMsm {
    pub(super) const ALL: [ProofMsm; 8] = [
        ProofMsm::H,
        ProofMsm::L,
        ProofMsm::AInputs,
        ProofMsm::AAux,
        ProofMsm::BG1Inputs,
        ProofMsm::BG1Aux,
        ProofMsm::BG2Inputs,
        ProofMsm::BG2Aux,
    ];

    pub(super) fn curve(self) -> MsmCurve {
        match self {
            ProofMsm::BG2Inputs | ProofMsm::BG2Aux => MsmCurve::G2,
            _ => MsmCurve::G1,
        }
    }

    /// Scalars the MSM reads (before density selection): what sizes its plan.
    pub(super) fn scalars(self, lay: &SlotLayout) -> usize {
        match self {
            ProofMsm::H => lay.domain - 1,
            ProofMsm::AInputs | ProofMsm::BG1Inputs | ProofMsm::BG2Inputs => lay.inputs,
            ProofMsm::L | ProofMsm::AAux | ProofMsm::BG1Aux | ProofMsm::BG2Aux => lay.aux(),
        }
    }

    /// Bases the parameters hold for this MSM: an upper bound on the
    /// scalars a density can select (the witness's exact counts come later).
    pub(super) fn bases_in(self, lengths: &QueryLengths) -> usize {
        match self {
            ProofMsm::H => lengths.h,
            ProofMsm::L => lengths.l,
            ProofMsm::AInputs | ProofMsm::AAux => lengths.a,
            ProofMsm::BG1Inputs | ProofMsm::BG1Aux => lengths.b_g1,
            ProofMsm::BG2Inputs | ProofMsm::BG2Aux => lengths.b_g2,
        }
    }

    /// First word of this MSM's result in the result buffer.
    pub(super) fn result_at(self) -> usize {
        Self::ALL.iter().take_while(|&&m| m != self).map(|m| m.curve().jacobian_limbs()).sum()
    }

    pub(super) fn result_words() -> usize {
        Self::ALL.iter().map(|m| m.curve().jacobian_limbs()).sum()
    }
}

/// The eight points from the downloaded result words; an MSM that did not
/// run (`ran[msm as usize]` false) is the identity.
pub(super) fn msm_results(words: &[u64], ran: [bool; 8]) -> MsmResults {
    let result = |msm: ProofMsm| ran[msm as usize].then(|| &words[msm.result_at()..][..msm.curve().jacobian_limbs()]);
    let g1 = |msm| result(msm).map_or(G1Projective::identity(), |w| g1_from_result_words(w.try_into().expect("G1 result size")));
    let g2 = |msm| result(msm).map_or(G2Projective::identity(), |w| g2_from_result_words(w.try_into().expect("G2 result size")));
    MsmResults {
        h: g1(ProofMsm::H),
        l: g1(ProofMsm::L),
        a_inputs: g1(ProofMsm::AInputs),
        a_aux: g1(ProofMsm::AAux),
        b_g1_inputs: g1(ProofMsm::BG1Inputs),
        b_g1_aux: g1(ProofMsm::BG1Aux),
        b_g2_inputs: g2(ProofMsm::BG2Inputs),
        b_g2_aux: g2(ProofMsm::BG2Aux),
    }
}
