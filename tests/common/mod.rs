//! Circuits and helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gadgets;
pub mod params_files;

use bellperson::groth16::{self, Parameters, Proof};
use bellperson::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use blstrs::{Bls12, Scalar};
use ff::Field;
use rand::SeedableRng;

/// Fresh randomness each run; the seed is printed so a failure reproduces.
pub fn rng() -> rand_chacha::ChaCha8Rng {
    let seed = std::env::var("CUZK_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    eprintln!("test rng seed: {seed} (set CUZK_TEST_SEED to repeat)");
    rand_chacha::ChaCha8Rng::seed_from_u64(seed)
}

/// Small circuits with known shapes; `None` values synthesize for parameters.
#[derive(Clone, Debug)]
pub enum TestCircuit {
    /// x·x = y, y public.
    Square(Option<Scalar>),
    /// x·y = z with no public input besides ONE.
    NoInputs(Option<(Scalar, Scalar)>),
    /// Claims y = x² but is given a wrong y: unsatisfied.
    WrongSquare(Scalar),
    /// Fails to produce a value.
    MissingValue,
    /// Enforces on an aux variable that was never allocated.
    UnknownAux,
    /// Panics while synthesizing.
    Panics,
}

impl Circuit<Scalar> for TestCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let missing = || SynthesisError::AssignmentMissing;
        match self {
            TestCircuit::Square(x) => {
                let xv = cs.alloc(|| "x", || x.ok_or_else(missing))?;
                let y = cs.alloc_input(|| "y", || x.map(|x| x.square()).ok_or_else(missing))?;
                cs.enforce(|| "x*x=y", |lc| lc + xv, |lc| lc + xv, |lc| lc + y);
            }
            TestCircuit::NoInputs(v) => {
                let x = cs.alloc(|| "x", || v.map(|v| v.0).ok_or_else(missing))?;
                let y = cs.alloc(|| "y", || v.map(|v| v.1).ok_or_else(missing))?;
                let z = cs.alloc(|| "z", || v.map(|v| v.0 * v.1).ok_or_else(missing))?;
                cs.enforce(|| "x*y=z", |lc| lc + x, |lc| lc + y, |lc| lc + z);
            }
            TestCircuit::WrongSquare(x) => {
                let xv = cs.alloc(|| "x", || Ok(x))?;
                let y = cs.alloc_input(|| "y", || Ok(x.square() + Scalar::ONE))?;
                cs.enforce(|| "x*x=y", |lc| lc + xv, |lc| lc + xv, |lc| lc + y);
            }
            TestCircuit::MissingValue => {
                cs.alloc(|| "x", || Err(SynthesisError::AssignmentMissing))?;
            }
            TestCircuit::UnknownAux => {
                let ghost = Variable::new_unchecked(Index::Aux(999));
                cs.enforce(|| "ghost", |lc| lc + ghost, |lc| lc + CS::one(), |lc| lc);
            }
            TestCircuit::Panics => panic!("deliberate panic inside a circuit"),
        }
        Ok(())
    }
}

pub fn params_for<C: Circuit<Scalar>>(shape: C, rng: &mut rand_chacha::ChaCha8Rng) -> Parameters<Bls12> {
    groth16::generate_random_parameters::<Bls12, _, _>(shape, rng).expect("parameter generation")
}

pub fn verifies(params: &Parameters<Bls12>, proof: &Proof<Bls12>, inputs: &[Scalar]) -> bool {
    let pvk = groth16::prepare_verifying_key(&params.vk);
    groth16::verify_proof(&pvk, proof, inputs).expect("verify_proof")
}

/// A batch over one worker whose device was lost after its first compute:
/// the proof computed first (not necessarily circuit 0: synthesis runs in
/// parallel) is the only one made and verifies; every other is
/// `DeviceLost` on GPU 0. Returns one of those errors.
pub fn one_made_the_rest_lost<'r>(
    params: &Parameters<Bls12>,
    circuits: &[cuzk::synthetic::SyntheticPorep],
    results: &'r [Result<Proof<Bls12>, cuzk::ProverError>],
) -> &'r cuzk::ProverError {
    let made: Vec<usize> = (0..results.len()).filter(|&i| results[i].is_ok()).collect();
    assert_eq!(made.len(), 1, "{results:?}");
    assert!(verifies(params, results[made[0]].as_ref().unwrap(), &circuits[made[0]].public_values()));
    for (i, r) in results.iter().enumerate().filter(|&(i, _)| i != made[0]) {
        assert!(matches!(r, Err(cuzk::ProverError::DeviceLost { device: 0, .. })), "proof {i}: {r:?}");
    }
    results.iter().find_map(|r| r.as_ref().err()).unwrap()
}

/// Exits the test process with status 3 unless the returned sender is
/// used (or dropped) within `secs`: a hang fails the run instead of
/// stalling it.
pub fn watchdog(secs: u64, what: &'static str) -> std::sync::mpsc::Sender<()> {
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(std::time::Duration::from_secs(secs)) {
            eprintln!("{what} for {secs} s");
            std::process::exit(3);
        }
    });
    done
}

/// Reports a skipped test on the real stderr (libtest captures `eprintln!`
/// of passing tests, and a skip must be seen).
pub fn report_skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// The first GPU, or `None` after reporting why the test is skipped.
#[cfg(feature = "cuda")]
pub fn gpu_or_skip(test: &str) -> Option<cuzk::gpu::GpuDevice> {
    match cuzk::gpu::discover(&[0]) {
        Ok(mut gpus) => gpus.pop(),
        Err(cuzk::ProverError::NoGpu(why)) => {
            report_skip(test, &format!("no GPU ({why})"));
            None
        }
        Err(e) => panic!("GPU present but unusable: {e}"),
    }
}

/// Two or more GPUs (all of them), or `None` after reporting why the test
/// is skipped.
#[cfg(feature = "cuda")]
pub fn several_gpus_or_skip(test: &str) -> Option<Vec<cuzk::gpu::GpuDevice>> {
    match cuzk::gpu::discover(&[]) {
        Ok(gpus) if gpus.len() >= 2 => Some(gpus),
        Ok(gpus) => {
            report_skip(test, &format!("{} GPU present; this test needs two or more", gpus.len()));
            None
        }
        Err(cuzk::ProverError::NoGpu(why)) => {
            report_skip(test, &format!("no GPU ({why})"));
            None
        }
        Err(e) => panic!("GPU present but unusable: {e}"),
    }
}

/// Proves `count` synthetic circuits with `prover` and with bellperson for
/// the same fresh r, s, and checks every proof: bit-identical and verifying.
pub fn assert_batch_matches_bellperson(
    prover: &cuzk::Prover,
    params: &Parameters<Bls12>,
    constraints: usize,
    inputs: usize,
    count: u64,
    rng: &mut rand_chacha::ChaCha8Rng,
) {
    use cuzk::synthetic::SyntheticPorep;
    let circuits: Vec<_> = (0..count).map(|i| SyntheticPorep::with_witness(constraints, inputs, 100 + i)).collect();
    let public: Vec<_> = circuits.iter().map(|c| c.public_values()).collect();
    assert_proofs_match_bellperson(prover, params, circuits, &public, rng);
}

/// Proves `circuits` (whose public inputs, without ONE, are `public`) with
/// `prover` as one batch and with bellperson for the same fresh r, s, and
/// checks every proof: bit-identical and verifying.
pub fn assert_proofs_match_bellperson<C: Circuit<Scalar> + Clone + Send>(
    prover: &cuzk::Prover,
    params: &Parameters<Bls12>,
    circuits: Vec<C>,
    public: &[Vec<Scalar>],
    rng: &mut rand_chacha::ChaCha8Rng,
) {
    let rs = random_r_s(circuits.len(), rng);
    let expected = bellperson_proofs(params, circuits.clone(), &rs);
    for (i, ours) in prover.prove_batch_with(circuits, rs).into_iter().enumerate() {
        let ours = ours.unwrap_or_else(|e| panic!("proof {i}: {e}"));
        assert_eq!(ours, expected[i], "proof {i} differs from bellperson's");
        assert!(verifies(params, &ours, &public[i]), "proof {i} does not verify");
    }
}

/// `count` fresh (r, s) pairs.
pub fn random_r_s(count: usize, rng: &mut rand_chacha::ChaCha8Rng) -> Vec<(Scalar, Scalar)> {
    (0..count).map(|_| (Scalar::random(&mut *rng), Scalar::random(&mut *rng))).collect()
}

/// bellperson's proofs of `circuits` for the given (r, s) pairs.
pub fn bellperson_proofs<C: Circuit<Scalar> + Send>(params: &Parameters<Bls12>, circuits: Vec<C>, rs: &[(Scalar, Scalar)]) -> Vec<Proof<Bls12>> {
    groth16::create_proof_batch(circuits, params, rs.iter().map(|p| p.0).collect(), rs.iter().map(|p| p.1).collect())
        .expect("bellperson batch")
}

fn value_or_missing(known: bool, v: Scalar) -> impl FnOnce() -> Result<Scalar, SynthesisError> {
    move || if known { Ok(v) } else { Err(SynthesisError::AssignmentMissing) }
}

/// `bits` boolean aux variables (`b·b = b`, one in four set), packed eight
/// at a time into a sum `(Σ 2^i·b_i)·1 = byte`; the first byte is the only
/// public input. Almost every scalar is 0 or 1, the MSMs' special cases.
/// `seed: None` synthesizes without values (for parameters).
#[derive(Clone, Debug)]
pub struct MostlyBits {
    pub bits: usize,
    pub seed: Option<u64>,
}

impl MostlyBits {
    fn values(&self) -> Vec<bool> {
        use rand::RngCore;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0));
        (0..self.bits).map(|_| rng.next_u32() % 4 == 0).collect()
    }

    fn bytes(&self) -> Vec<Scalar> {
        self.values().chunks(8).map(|c| Scalar::from(c.iter().rev().fold(0u64, |acc, &b| acc << 1 | b as u64))).collect()
    }

    pub fn public_values(&self) -> Vec<Scalar> {
        self.bytes().into_iter().take(1).collect()
    }
}

impl Circuit<Scalar> for MostlyBits {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let known = self.seed.is_some();
        let (values, bytes) = (self.values(), self.bytes());
        for (k, (chunk, byte)) in values.chunks(8).zip(bytes).enumerate() {
            let mut packed = bellperson::LinearCombination::zero();
            let mut weight = Scalar::ONE;
            for &bit in chunk {
                let b = cs.alloc(|| "bit", value_or_missing(known, Scalar::from(bit as u64)))?;
                cs.enforce(|| "b*b=b", |lc| lc + b, |lc| lc + b, |lc| lc + b);
                packed = packed + (weight, b);
                weight = weight.double();
            }
            let var = if k == 0 {
                cs.alloc_input(|| "first byte", value_or_missing(known, byte))?
            } else {
                cs.alloc(|| "byte", value_or_missing(known, byte))?
            };
            cs.enforce(|| "pack", |_| packed, |lc| lc + CS::one(), |lc| lc + var);
        }
        Ok(())
    }
}

/// Only constraints `x · 0 = 0` over `vars` random aux variables and one
/// public input: no variable, not even ONE, appears in B, so both B
/// densities are empty and B has no bases at all.
#[derive(Clone, Debug)]
pub struct NoBQuery {
    pub vars: usize,
    pub seed: Option<u64>,
}

impl NoBQuery {
    fn values(&self) -> Vec<Scalar> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0));
        (0..=self.vars).map(|_| Scalar::random(&mut rng)).collect()
    }

    pub fn public_values(&self) -> Vec<Scalar> {
        self.values()[..1].to_vec()
    }
}

impl Circuit<Scalar> for NoBQuery {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let known = self.seed.is_some();
        let values = self.values();
        let y = cs.alloc_input(|| "y", value_or_missing(known, values[0]))?;
        cs.enforce(|| "y*0=0", |lc| lc + y, |lc| lc, |lc| lc);
        for &v in &values[1..] {
            let x = cs.alloc(|| "x", value_or_missing(known, v))?;
            cs.enforce(|| "x*0=0", |lc| lc + x, |lc| lc, |lc| lc);
        }
        Ok(())
    }
}

/// Moves one set A-aux density bit to a clear position: the counts stay the
/// same, so every shape check passes, but the proof pairs bases wrongly.
pub fn move_one_a_aux_density_bit(asg: &mut cuzk::Assignment) {
    let d = &asg.a_aux_density;
    let (set, clear) = ((0..d.len()).find(|&i| d.get(i)).unwrap(), (0..d.len()).find(|&i| !d.get(i)).unwrap());
    let mut moved = cuzk::density::Density::default();
    for i in 0..d.len() {
        moved.push_unset();
        if (d.get(i) && i != set) || i == clear {
            moved.set(i);
        }
    }
    asg.a_aux_density = moved;
}

/// No constraints and no variables besides ONE.
#[derive(Clone)]
pub struct Empty;

impl Circuit<Scalar> for Empty {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, _: &mut CS) -> Result<(), SynthesisError> {
        Ok(())
    }
}

/// Proofs asked for from rayon's threads come back and verify: a
/// `prove_batch` of `batch` from every thread of the global pool at once
/// (their workers must not need that pool), then `prove` of each of
/// `singles` from a parallel iterator (more than there are slots). A hang
/// ends the process under a watchdog.
pub fn assert_calls_from_rayon_threads_complete(
    prover: &cuzk::Prover,
    params: &Parameters<Bls12>,
    batch: &[cuzk::synthetic::SyntheticPorep],
    singles: &[cuzk::synthetic::SyntheticPorep],
) {
    use rayon::prelude::*;
    let _done = watchdog(300, "proofs asked for from rayon's threads did not come back");
    let batches = std::sync::Mutex::new(Vec::new());
    rayon::scope(|s| {
        for _ in 0..rayon::current_num_threads() {
            s.spawn(|_| {
                let results = prover.prove_batch(batch.to_vec(), &mut rng());
                batches.lock().unwrap().push(results);
            });
        }
    });
    for results in batches.into_inner().unwrap() {
        for (c, r) in batch.iter().zip(results) {
            assert!(verifies(params, &r.expect("proof of a batch"), &c.public_values()));
        }
    }
    let proofs: Vec<_> = singles.par_iter().map(|c| prover.prove(c.clone(), &mut rng())).collect();
    for (c, r) in singles.iter().zip(proofs) {
        assert!(verifies(params, &r.expect("single proof"), &c.public_values()));
    }
}

/// A Groth16 proof of `asg` computed apart from cuzk's backends, as
/// bellperson's prover computes it: h from bellperson's own evaluation
/// domain, every MSM by blstrs' `multi_exp` over the densities' bases.
/// For checking proofs made with parameters of random points (which no
/// verifier accepts).
pub fn reference_proof(params: &Parameters<Bls12>, asg: &cuzk::Assignment, r: Scalar, s: Scalar) -> Proof<Bls12> {
    use blstrs::{G1Projective, G2Projective};
    use group::{Curve, Group};
    let worker = ec_gpu_gen::threadpool::Worker::new();
    let domain = |v: &[Scalar]| bellperson::domain::EvaluationDomain::from_coeffs(v.to_vec()).unwrap();
    let (mut a, mut b, c) = (domain(&asg.a), domain(&asg.b), domain(&asg.c));
    let mut c = c;
    let gpu = &mut None;
    for d in [&mut a, &mut b, &mut c] {
        d.ifft(&worker, gpu).unwrap();
        d.coset_fft(&worker, gpu).unwrap();
    }
    a.mul_assign(&worker, &b);
    a.sub_assign(&worker, &c);
    a.divide_by_z_on_coset(&worker);
    a.icoset_fft(&worker, gpu).unwrap();
    let mut h = a.into_coeffs();
    h.truncate(params.h.len());
    // The values the density selects, in order.
    let dense = |values: &[Scalar], density: &cuzk::density::Density| -> Vec<Scalar> { values.iter().enumerate().filter(|(i, _)| density.get(*i)).map(|(_, v)| *v).collect() };
    let g1 = |bases: &[blstrs::G1Affine], scalars: &[Scalar]| -> G1Projective {
        assert_eq!(bases.len(), scalars.len());
        let bases: Vec<G1Projective> = bases.iter().map(|p| p.into()).collect();
        if bases.is_empty() { G1Projective::identity() } else { G1Projective::multi_exp(&bases, scalars) }
    };
    let g2 = |bases: &[blstrs::G2Affine], scalars: &[Scalar]| -> G2Projective {
        assert_eq!(bases.len(), scalars.len());
        let bases: Vec<G2Projective> = bases.iter().map(|p| p.into()).collect();
        if bases.is_empty() { G2Projective::identity() } else { G2Projective::multi_exp(&bases, scalars) }
    };
    let inputs = asg.input.len();
    let a_aux = dense(&asg.aux, &asg.a_aux_density);
    let (b_in, b_aux) = (dense(&asg.input, &asg.b_input_density), dense(&asg.aux, &asg.b_aux_density));
    let vk = &params.vk;
    let a_g1 = G1Projective::from(vk.alpha_g1) + vk.delta_g1 * r + g1(&params.a[..inputs], &asg.input) + g1(&params.a[inputs..], &a_aux);
    let b_g2 = G2Projective::from(vk.beta_g2) + vk.delta_g2 * s + g2(&params.b_g2[..b_in.len()], &b_in) + g2(&params.b_g2[b_in.len()..], &b_aux);
    let b_g1 = G1Projective::from(vk.beta_g1) + vk.delta_g1 * s + g1(&params.b_g1[..b_in.len()], &b_in) + g1(&params.b_g1[b_in.len()..], &b_aux);
    let c_g1 = g1(&params.h, &h) + g1(&params.l, &asg.aux) + a_g1 * s + b_g1 * r - vk.delta_g1 * (r * s);
    Proof { a: a_g1.to_affine(), b: b_g2.to_affine(), c: c_g1.to_affine() }
}
