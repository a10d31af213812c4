//! A synthetic circuit shaped like a Filecoin PoRep partition, for the
//! example, benchmarks and tests.
//!
//! A real 32 GiB partition has 130,278,869 constraints, 328 public inputs,
//! A-aux density 99.7%, B-aux density 25.4%, and an aux witness that is about
//! half zeros, half ones, with a few percent other values. This circuit
//! repeats a four-constraint pattern that gives the same kind of mix:
//!
//! 0. `b * b = b`                      a fresh bit (the only B-aux use)
//! 1. `(b₋₁ + e₋₂) * b₋₅ = c`          a gated sum of bits: mostly 0 or 1
//! 2. `c₋₁ * 1 = d`                    a copy
//! 3. `d₋₁ * x = e`, `x` = ONE or, every 16th time, a public input
//!
//! Its structure depends only on `(constraints, public_inputs)`, so
//! parameters made once serve every witness of that shape.

mod compiled;

pub use compiled::random_compiled;

use bellperson::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;
use rand_core::{RngCore, SeedableRng};

/// The circuit; `witness_seed: None` synthesizes without values (for
/// parameter generation).
#[derive(Clone, Debug)]
pub struct SyntheticPorep {
    /// Constraints the circuit itself enforces (bellperson adds one per input).
    pub constraints: usize,
    /// Public inputs besides the constant ONE.
    pub public_inputs: usize,
    /// Seed of the witness values; `None` synthesizes without values (for
    /// parameter generation).
    pub witness_seed: Option<u64>,
}

impl SyntheticPorep {
    /// The circuit without a witness: for generating parameters.
    pub fn shape(constraints: usize, public_inputs: usize) -> Self {
        SyntheticPorep { constraints, public_inputs, witness_seed: None }
    }

    /// The circuit with a witness drawn from `seed`.
    pub fn with_witness(constraints: usize, public_inputs: usize, seed: u64) -> Self {
        SyntheticPorep { constraints, public_inputs, witness_seed: Some(seed) }
    }

    /// The public inputs (without ONE) this witness proves, for verification.
    pub fn public_values(&self) -> Vec<Scalar> {
        let mut rng = self.rng();
        (0..self.public_inputs).map(|_| Scalar::random(&mut rng)).collect()
    }

    fn rng(&self) -> rand_chacha::ChaCha8Rng {
        rand_chacha::ChaCha8Rng::seed_from_u64(self.witness_seed.unwrap_or(0))
    }
}

impl Circuit<Scalar> for SyntheticPorep {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let known = self.witness_seed.is_some();
        let mut rng = self.rng();
        let value = |v: Scalar| move || if known { Ok(v) } else { Err(SynthesisError::AssignmentMissing) };

        let mut inputs = Vec::with_capacity(self.public_inputs);
        for (i, x) in self.public_values().into_iter().enumerate() {
            inputs.push((cs.alloc_input(|| format!("input {i}"), value(x))?, x));
        }
        let one = (CS::one(), Scalar::ONE);

        // The last value of each kind, with its variable.
        let zero_var = cs.alloc(|| "zero", value(Scalar::ZERO))?;
        let zero = (zero_var, Scalar::ZERO);
        cs.enforce(|| "zero", |lc| lc + zero_var, |lc| lc + CS::one(), |lc| lc);
        let mut bits: [(Variable, Scalar); 5] = [zero; 5];
        let (mut c, mut d, mut e) = (zero, zero, zero);
        let mut e_count = 0usize;

        for i in 0..self.constraints.saturating_sub(1) {
            match i % 4 {
                0 => {
                    let v = if rng.next_u32() & 1 == 1 { Scalar::ONE } else { Scalar::ZERO };
                    let b = cs.alloc(|| "b", value(v))?;
                    cs.enforce(|| "b*b=b", |lc| lc + b, |lc| lc + b, |lc| lc + b);
                    bits.rotate_right(1);
                    bits[0] = (b, v);
                }
                1 => {
                    let (gate, sum) = (bits[4], (bits[0].1 + e.1));
                    let v = sum * gate.1;
                    let var = cs.alloc(|| "c", value(v))?;
                    let (b0, e0) = (bits[0].0, e.0);
                    cs.enforce(|| "c", |lc| add_distinct(lc, b0, e0), |lc| lc + gate.0, |lc| lc + var);
                    c = (var, v);
                }
                2 => {
                    let var = cs.alloc(|| "d", value(c.1))?;
                    cs.enforce(|| "d", |lc| lc + c.0, |lc| lc + CS::one(), |lc| lc + var);
                    d = (var, c.1);
                }
                _ => {
                    e_count += 1;
                    let x = if e_count % 16 == 0 && !inputs.is_empty() { inputs[e_count / 16 % inputs.len()] } else { one };
                    let v = d.1 * x.1;
                    let var = cs.alloc(|| "e", value(v))?;
                    cs.enforce(|| "e", |lc| lc + d.0, |lc| lc + x.0, |lc| lc + var);
                    e = (var, v);
                }
            }
        }
        Ok(())
    }
}

/// `a + b`, or just `a` when both are the same variable (the first rounds).
fn add_distinct(lc: LinearCombination<Scalar>, a: Variable, b: Variable) -> LinearCombination<Scalar> {
    if a == b {
        lc + a
    } else {
        lc + a + b
    }
}

/// `n` random affine points, far cheaper than hashing each one: parallel
/// random walks of 2^14 steps, each from its own random start adding one of
/// four random steps. Chunk `k` is seeded with `seed + k`, so the points are
/// reproducible from `seed`.
pub fn random_walk_points<P>(n: usize, seed: u64) -> Vec<P::AffineRepr>
where
    P: group::Group + group::Curve + Send + Sync,
    P::AffineRepr: group::prime::PrimeCurveAffine + Send + Sync,
{
    use group::prime::PrimeCurveAffine;
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 14;
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|k| {
            let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed.wrapping_add(k as u64));
            let steps: Vec<P> = (0..4).map(|_| P::random(&mut r)).collect();
            let mut current = P::random(&mut r);
            let len = CHUNK.min(n - k * CHUNK);
            let walk: Vec<P> = (0..len)
                .map(|_| {
                    current += steps[(r.next_u32() & 3) as usize];
                    current
                })
                .collect();
            let mut affine = vec![P::AffineRepr::identity(); len];
            P::batch_normalize(&walk, &mut affine);
            affine
        })
        .collect()
}

/// Distinct random points per query in [`random_parameters`]; longer
/// queries repeat them. Far quicker than walking 10^8 points, and an MSM's
/// cost does not depend on which points its bases are.
const POINT_POOL: usize = 1 << 20;

/// `n` points cycling through `min(n, POINT_POOL)` random ones.
fn pooled_points<P>(n: usize, seed: u64) -> Vec<P::AffineRepr>
where
    P: group::Group + group::Curve + Send + Sync,
    P::AffineRepr: group::prime::PrimeCurveAffine + Send + Sync + Copy,
{
    let pool = random_walk_points::<P>(n.min(POINT_POOL), seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let take = pool.len().min(n - out.len());
        out.extend_from_slice(&pool[..take]);
    }
    out
}

/// Groth16 parameters of exactly the sizes `shape` needs, made of random
/// points (each query cycles through 2^20 of them): for timing a prover
/// where a real setup is out of reach (a whole 32 GiB partition). Proofs
/// made with them are well-formed but do not verify, since the points share
/// no trapdoor.
pub fn random_parameters(shape: &crate::ProofShape, seed: u64) -> bellperson::groth16::Parameters<blstrs::Bls12> {
    use bellperson::groth16::{Parameters, VerifyingKey};
    use blstrs::{G1Projective, G2Projective};
    use std::sync::Arc;
    let g1 = |n: usize, k: u64| pooled_points::<G1Projective>(n, seed.wrapping_add(k << 40));
    let g2 = |n: usize, k: u64| pooled_points::<G2Projective>(n, seed.wrapping_add(k << 40));
    let b_count = shape.b_input_count + shape.b_aux_count;
    let (vk1, vk2) = (g1(3, 0), g2(4, 1));
    Parameters {
        vk: VerifyingKey {
            alpha_g1: vk1[0],
            beta_g1: vk1[1],
            beta_g2: vk2[0],
            gamma_g2: vk2[1],
            delta_g1: vk1[2],
            delta_g2: vk2[2],
            ic: g1(shape.inputs, 2),
        },
        h: Arc::new(g1(shape.domain_size() - 1, 3)),
        l: Arc::new(g1(shape.aux, 4)),
        a: Arc::new(g1(shape.inputs + shape.a_aux_count, 5)),
        b_g1: Arc::new(g1(b_count, 6)),
        b_g2: Arc::new(g2(b_count, 7)),
    }
}

/// Uniform in [0, 1).
fn unit(r: &mut rand_chacha::ChaCha8Rng) -> f64 {
    (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `len` values drawn in parallel chunks, chunk k from its own generator
/// (seeded from `seed`, `salt` and k), so the result depends on the seed
/// only, not on the thread count.
fn random_scalars(len: usize, seed: u64, salt: u64, draw: &(dyn Fn(&mut rand_chacha::ChaCha8Rng) -> Scalar + Sync)) -> Vec<Scalar> {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|k| {
            let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (salt << 56) ^ k as u64);
            (0..CHUNK.min(len - k * CHUNK)).map(|_| draw(&mut r)).collect::<Vec<_>>()
        })
        .collect()
}

/// A witness of `inputs` public inputs besides ONE and `aux` aux values
/// with the given statistics: (inputs with ONE, aux). The values of
/// [`random_assignment`] for the same arguments.
pub fn random_witness(inputs: usize, aux: usize, stats: WitnessStats, seed: u64) -> (Vec<Scalar>, Vec<Scalar>) {
    let witness = |r: &mut rand_chacha::ChaCha8Rng| {
        let u = unit(r);
        if u < stats.zeros {
            Scalar::ZERO
        } else if u < stats.zeros + stats.ones {
            Scalar::ONE
        } else {
            Scalar::random(r)
        }
    };
    let mut input = vec![Scalar::ONE];
    input.extend(random_scalars(inputs, seed, 1, &|r| Scalar::random(r)));
    (input, random_scalars(aux, seed, 5, &witness))
}

/// Measured statistics of a real 32 GiB PoRep partition's witness and
/// queries (see the module docs), used by [`random_assignment`].
#[derive(Clone, Copy, Debug)]
pub struct WitnessStats {
    /// Fractions of aux values equal to 0 and to 1 (the rest are random).
    pub zeros: f64,
    /// See `zeros`.
    pub ones: f64,
    /// Fractions of aux variables in the A and B queries.
    pub a_aux_density: f64,
    /// See `a_aux_density`.
    pub b_aux_density: f64,
}

impl WitnessStats {
    /// A real 32 GiB PoRep partition's.
    pub const POREP_32G: WitnessStats = WitnessStats { zeros: 0.51, ones: 0.47, a_aux_density: 0.997, b_aux_density: 0.254 };
}

/// An assignment of `constraints` constraints (per-input ones included),
/// `inputs` public inputs besides ONE and `aux` aux variables, drawn with
/// the given statistics; A·z, B·z and C·z are random, so it satisfies
/// nothing. For timing the proving phases at full size without running a
/// circuit (synthesis alone takes minutes at 10^8 constraints): prove it
/// with `check_satisfied: false` and [`random_parameters`] of its shape.
pub fn random_assignment(constraints: usize, inputs: usize, aux: usize, stats: WitnessStats, seed: u64) -> crate::Assignment {
    use crate::witness::density::Density;
    let (input, aux_values) = random_witness(inputs, aux, stats, seed);
    let density = |fraction: f64, salt: u64| {
        let mut d = Density::default();
        let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (salt << 56));
        for i in 0..aux {
            d.push_unset();
            if unit(&mut r) < fraction {
                d.set(i);
            }
        }
        d
    };
    let random = |r: &mut rand_chacha::ChaCha8Rng| Scalar::random(r);
    crate::Assignment {
        a: random_scalars(constraints, seed, 2, &random),
        b: random_scalars(constraints, seed, 3, &random),
        c: random_scalars(constraints, seed, 4, &random),
        aux: aux_values,
        a_aux_density: density(stats.a_aux_density, 6),
        b_aux_density: density(stats.b_aux_density, 7),
        b_input_density: Density::full(input.len()),
        input,
    }
}
