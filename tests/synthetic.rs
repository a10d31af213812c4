//! The random assignment and parameters used for full-size timing have the
//! requested shape and statistics, and the prover accepts them.

mod common;

use blstrs::Scalar;
use cuzk::synthetic::{random_assignment, random_parameters, WitnessStats};
use cuzk::{Backend, ProofJob, ProofShape, Prover, ProverConfig};
use ff::Field;

#[test]
fn random_assignment_has_the_requested_shape_and_statistics() {
    let (constraints, inputs, aux) = (100_003, 7, 90_001);
    let asg = random_assignment(constraints, inputs, aux, WitnessStats::POREP_32G, 5);
    let shape = ProofShape::of(&asg).unwrap();
    assert_eq!((shape.constraints, shape.inputs, shape.aux), (constraints, inputs + 1, aux));
    assert_eq!(shape.log_domain, 17);
    let frac = |k: usize| k as f64 / aux as f64;
    let zeros = asg.aux.iter().filter(|v| v.is_zero_vartime()).count();
    let ones = asg.aux.iter().filter(|v| **v == Scalar::ONE).count();
    // Binomial standard deviations at n = 9·10^4 are below 0.002.
    assert!((frac(zeros) - 0.51).abs() < 0.01, "zeros {}", frac(zeros));
    assert!((frac(ones) - 0.47).abs() < 0.01, "ones {}", frac(ones));
    assert!((frac(shape.a_aux_count) - 0.997).abs() < 0.01);
    assert!((frac(shape.b_aux_count) - 0.254).abs() < 0.01);
    assert_eq!(shape.b_input_count, inputs + 1);
    // Same seed, same assignment; another seed, another one.
    assert_eq!(asg, random_assignment(constraints, inputs, aux, WitnessStats::POREP_32G, 5));
    assert_ne!(asg.aux, random_assignment(constraints, inputs, aux, WitnessStats::POREP_32G, 6).aux);
}

#[test]
fn random_parameters_fit_their_shape_and_the_cpu_prover_proves_on_them_as_the_reference_does() {
    let asg = random_assignment(3000, 3, 2500, WitnessStats::POREP_32G, 9);
    let shape = ProofShape::of(&asg).unwrap();
    let params = random_parameters(&shape, 1);
    shape.check_params(&params).unwrap();
    // Random points verify nothing: the check before return is off, and the
    // proof is held to one computed apart (bellperson's domain, blstrs' MSMs).
    let config = ProverConfig { backend: Backend::Cpu, workers_per_device: 1, check_satisfied: false, verify_proofs: Some(false), ..Default::default() };
    let prover = Prover::new(params.clone(), config).unwrap();
    let mut rng = common::rng();
    let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let staged = prover.prestage(ProofJob::with_randomness(asg.clone(), r, s)).unwrap();
    let proof = prover.compute(staged).unwrap();
    assert_eq!(proof, common::reference_proof(&params, &asg, r, s));
    // With the check on (the default), such a proof is refused, not returned.
    let checked = Prover::new(params, ProverConfig { backend: Backend::Cpu, workers_per_device: 1, check_satisfied: false, ..Default::default() }).unwrap();
    let err = checked.compute(checked.prestage(ProofJob::with_randomness(asg, r, s)).unwrap()).unwrap_err();
    assert!(matches!(err, cuzk::ProverError::InvalidProof { .. }), "{err}");
}
