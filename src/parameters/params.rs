//! Checks that Groth16 parameters belong to a circuit before any work starts.
//!
//! bellperson's parameter layout: `a` holds the bases of all inputs followed by
//! the aux variables in the A-aux density; `b_g1`/`b_g2` the inputs in the
//! B-input density followed by the aux variables in the B-aux density; `h` has
//! one base per H coefficient (domain size − 1); `l` one per aux variable.

use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::Bls12;
use group::prime::PrimeCurveAffine;

use crate::witness::assignment::Assignment;
use crate::error::ProverError;

/// How many bases each query of a set of Groth16 parameters holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryLengths {
    /// The verifying key's inputs' bases (`vk.ic`): public inputs with ONE.
    pub ic: usize,
    /// The H query: the domain size − 1.
    pub h: usize,
    /// The L query: one per aux variable.
    pub l: usize,
    /// The A query.
    pub a: usize,
    /// The B query in G1.
    pub b_g1: usize,
    /// The B query in G2.
    pub b_g2: usize,
}

impl QueryLengths {
    /// The lengths parameters for proofs of `shape` have.
    pub fn for_shape(shape: &ProofShape) -> Self {
        let b = shape.b_input_count + shape.b_aux_count;
        QueryLengths { ic: shape.inputs, h: shape.domain_size() - 1, l: shape.aux, a: shape.inputs + shape.a_aux_count, b_g1: b, b_g2: b }
    }

    /// The lengths of host parameters.
    pub fn of(params: &Parameters<Bls12>) -> Self {
        QueryLengths { ic: params.vk.ic.len(), h: params.h.len(), l: params.l.len(), a: params.a.len(), b_g1: params.b_g1.len(), b_g2: params.b_g2.len() }
    }
}

/// log2 of the evaluation domain of `rows` constraints: the smallest power
/// of two that holds them. Over 2^31 is `DomainTooLarge`, as bellperson's
/// `EvaluationDomain` refuses exp ≥ S (32 for BLS12-381).
pub(crate) fn log_domain(rows: usize) -> Result<u32, ProverError> {
    let log = rows.max(1).checked_next_power_of_two().map_or(usize::BITS, |n| n.trailing_zeros());
    if log >= 32 {
        return Err(ProverError::DomainTooLarge { log_size: log });
    }
    Ok(log)
}

/// Sizes of one proof's work, derived from its assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofShape {
    /// Constraints, the per-input ones included.
    pub constraints: usize,
    /// log2 of the evaluation domain.
    pub log_domain: u32,
    /// Public inputs, ONE included.
    pub inputs: usize,
    /// Aux variables.
    pub aux: usize,
    /// Aux variables in the A query.
    pub a_aux_count: usize,
    /// Inputs in the B query.
    pub b_input_count: usize,
    /// Aux variables in the B query.
    pub b_aux_count: usize,
}

impl ProofShape {
    /// The shape of `asg`, after checking its lengths agree.
    pub fn of(asg: &Assignment) -> Result<Self, ProverError> {
        asg.check_shape()?;
        let densities = [asg.a_aux_density.count_ones(), asg.b_input_density.count_ones(), asg.b_aux_density.count_ones()];
        Self::new(asg.num_constraints(), asg.input.len(), asg.aux.len(), densities)
    }

    /// The shape of a proof of `constraints` rows (the per-input rows
    /// included), with the A-aux, B-input and B-aux density counts.
    pub fn new(constraints: usize, inputs: usize, aux: usize, [a_aux_count, b_input_count, b_aux_count]: [usize; 3]) -> Result<Self, ProverError> {
        let log_domain = log_domain(constraints)?;
        Ok(ProofShape { constraints, log_domain, inputs, aux, a_aux_count, b_input_count, b_aux_count })
    }

    /// 2^`log_domain`.
    pub fn domain_size(&self) -> usize {
        1 << self.log_domain
    }

    /// Refuses parameters that were made for another circuit: each query
    /// must have exactly the bases this assignment will use.
    pub fn check_params(&self, params: &Parameters<Bls12>) -> Result<(), ProverError> {
        self.check_against(&QueryLengths::of(params), &params.vk)
    }

    /// [`Self::check_params`] for parameters known by their verifying key
    /// and query lengths (a parameter file's, say).
    pub fn check_against(&self, lengths: &QueryLengths, vk: &VerifyingKey<Bls12>) -> Result<(), ProverError> {
        let expected = [
            ("public inputs (vk.ic)", lengths.ic, self.inputs),
            ("H query", lengths.h, self.domain_size() - 1),
            ("L query", lengths.l, self.aux),
            ("A query", lengths.a, self.inputs + self.a_aux_count),
            ("B query in G1", lengths.b_g1, self.b_input_count + self.b_aux_count),
            ("B query in G2", lengths.b_g2, self.b_input_count + self.b_aux_count),
        ];
        for (what, have, need) in expected {
            if have != need {
                return Err(ProverError::ParamsMismatch { what, params: have, circuit: need });
            }
        }
        if bool::from(vk.delta_g1.is_identity() | vk.delta_g2.is_identity()) {
            return Err(ProverError::IdentityDelta);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_domain_over_2_pow_31_is_refused_before_anything_is_allocated() {
        let shape = ProofShape::new(1 << 31, 2, 10, [10, 1, 5]).expect("2^31 rows fit");
        assert_eq!(shape.log_domain, 31);
        for rows in [(1 << 31) + 1, 1 << 40, usize::MAX] {
            let got = ProofShape::new(rows, 2, 10, [10, 1, 5]);
            assert!(matches!(got, Err(ProverError::DomainTooLarge { log_size }) if log_size >= 32), "{rows} rows: {got:?}");
        }
    }
}
