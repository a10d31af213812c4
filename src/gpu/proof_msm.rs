//! The eight MSMs' results read back: each MSM's pieces (one unless the
//! plan runs MSMs in chunks) added up on the host.

use blstrs::{G1Projective, G2Projective};
use group::Group;

use super::msm::{g1_from_result_words, g2_from_result_words};
use crate::prover::assemble::MsmResults;
use crate::vram::proof_msms::{ProofMsm, ResultPlaces};

/// The eight points from the downloaded result words; a piece that did not
/// run (`ran[places.index(msm, k)]` false: it selected no scalar) adds the
/// identity.
pub(super) fn msm_results(words: &[u64], places: &ResultPlaces, ran: &[bool]) -> MsmResults {
    let pieces = |msm: ProofMsm| (0..places.pieces(msm)).filter(move |&k| ran[places.index(msm, k)]).map(move |k| &words[places.at(msm, k)..][..msm.curve().jacobian_limbs()]);
    let g1 = |msm| pieces(msm).map(|w| g1_from_result_words(w.try_into().expect("G1 result size"))).fold(G1Projective::identity(), |a, b| a + b);
    let g2 = |msm| pieces(msm).map(|w| g2_from_result_words(w.try_into().expect("G2 result size"))).fold(G2Projective::identity(), |a, b| a + b);
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
