//! The H step of the CPU backend, on rayon: the same coefficients as
//! [`super::h::h_coefficients`] (bellperson's `EvaluationDomain`), from
//! radix-2 FFTs whose parallel parts run on the pool they are called in
//! (the prover's own, `host_pool`).
//!
//! Why not bellperson's: its FFTs run on ec-gpu-gen's process-wide thread
//! pool, which bellperson's own prover shares and whose tasks there wait on
//! rayon's global pool. With that pool full of callers waiting in
//! `prove_batch`, a CPU proof waited for ever behind them
//! (`tests/groth16_cpu.rs`, `calls_from_rayon_tasks_complete_…`).

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use crate::error::ProverError;

/// Elements per parallel piece of the elementwise steps.
const PIECE: usize = 1 << 12;
/// Fewest butterflies a parallel task of one FFT stage takes.
const MIN_BUTTERFLIES: usize = 1 << 10;

/// h's 2^k − 1 coefficients from a, b, c: each padded to the domain 2^k,
/// interpolated, evaluated on the coset of the multiplicative generator g;
/// there (a·b − c) / Z with Z = g^(2^k) − 1 everywhere; interpolated back
/// from the coset.
pub(crate) fn h_coefficients(a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Result<Vec<Scalar>, ProverError> {
    let log_n = crate::parameters::params::log_domain(a.len().max(b.len()).max(c.len()))?;
    let n = 1usize << log_n;
    let omega = Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - log_n)]);
    let domain = Domain::new(omega, n);
    let inverse = Domain::new(omega.invert().expect("a root of unity is invertible"), n);
    let n_inv = Scalar::from(n as u64).invert().expect("n < r");
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let g_inv = g.invert().expect("the generator is invertible");

    let mut polys = [a, b, c];
    // The three at once: small domains have too little work per FFT
    // stage to keep every thread busy.
    polys.par_iter_mut().for_each(|p| {
        p.resize(n, Scalar::ZERO);
        // Coefficients, then values on the coset g·<ω>.
        inverse.fft(p);
        scale_by_powers(p, g, n_inv);
        domain.fft(p);
    });
    let [mut h, b, c] = polys;
    let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().expect("g is not a root of unity");
    h.par_iter_mut().zip(b.par_iter().zip(c.par_iter())).with_min_len(PIECE).for_each(|(x, (y, z))| *x = (*x * y - z) * z_inv);
    drop((b, c));
    inverse.fft(&mut h);
    scale_by_powers(&mut h, g_inv, n_inv);
    // h has degree n − 2: the last coefficient is 0.
    h.truncate(n - 1);
    Ok(h)
}

/// Multiplies `p[i]` by `scale · base^i`.
fn scale_by_powers(p: &mut [Scalar], base: Scalar, scale: Scalar) {
    p.par_chunks_mut(PIECE).enumerate().for_each(|(k, piece)| {
        let mut factor = scale * base.pow_vartime([(k * PIECE) as u64]);
        for x in piece {
            *x *= factor;
            factor *= base;
        }
    });
}

/// A radix-2 FFT over `<ω>` of size n, with ω^j for j < n/2 tabulated.
struct Domain {
    twiddles: Vec<Scalar>,
}

impl Domain {
    fn new(omega: Scalar, n: usize) -> Self {
        let mut twiddles = vec![Scalar::ZERO; n / 2];
        twiddles.par_chunks_mut(PIECE).enumerate().for_each(|(k, piece)| {
            let mut w = omega.pow_vartime([(k * PIECE) as u64]);
            for t in piece {
                *t = w;
                w *= omega;
            }
        });
        Domain { twiddles }
    }

    /// p[i] ← Σ_j p[j] ω^(ij), in place (decimation in time after a
    /// bit-reversal permutation).
    fn fft(&self, p: &mut [Scalar]) {
        let n = p.len();
        if n <= 1 {
            return;
        }
        bit_reverse(p);
        let mut half = 1;
        while half < n {
            // Stage twiddles are ω^(j·n/(2·half)).
            let step = n / (2 * half);
            p.par_chunks_mut(2 * half).for_each(|block| {
                let (lo, hi) = block.split_at_mut(half);
                lo.par_iter_mut().zip(hi.par_iter_mut()).enumerate().with_min_len(MIN_BUTTERFLIES).for_each(|(j, (u, v))| {
                    let t = *v * self.twiddles[j * step];
                    *v = *u - t;
                    *u += t;
                });
            });
            half *= 2;
        }
    }
}

/// Puts `p[i]` at the index whose log2(len) bits are i's reversed.
fn bit_reverse(p: &mut [Scalar]) {
    /// The slice's start, shared by tasks that touch disjoint pairs.
    #[derive(Clone, Copy)]
    struct Base(*mut Scalar);
    // SAFETY: each index is part of exactly one pair (i, rev(i)), and only
    // the task of the smaller index of a pair touches it.
    unsafe impl Send for Base {}
    unsafe impl Sync for Base {}
    let n = p.len();
    let shift = usize::BITS - n.trailing_zeros();
    let base = Base(p.as_mut_ptr());
    (0..n).into_par_iter().with_min_len(PIECE).for_each(move |i| {
        let j = i.reverse_bits() >> shift;
        if i < j {
            let base = base;
            // SAFETY: i, j < n, distinct, and no other task reads or
            // writes either (see `Base`).
            unsafe { std::ptr::swap(base.0.add(i), base.0.add(j)) };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{RngCore, SeedableRng};

    #[test]
    fn equals_bellperson_on_random_and_edge_inputs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x6a09e667);
        for len in [1usize, 2, 3, 7, 8, 100, 1024, 5000] {
            let random = |rng: &mut rand_chacha::ChaCha8Rng| (0..len).map(|_| Scalar::random(&mut *rng)).collect::<Vec<_>>();
            let (a, b, c) = (random(&mut rng), random(&mut rng), random(&mut rng));
            let want = super::super::h::h_coefficients(a.clone(), b.clone(), c.clone()).unwrap();
            assert_eq!(h_coefficients(a, b, c).unwrap(), want, "{len} random values");
            // Zeros and ones, as most of a real witness.
            let bits = |rng: &mut rand_chacha::ChaCha8Rng| (0..len).map(|_| Scalar::from(rng.next_u32() as u64 & 1)).collect::<Vec<_>>();
            let (a, b, c) = (bits(&mut rng), bits(&mut rng), bits(&mut rng));
            let want = super::super::h::h_coefficients(a.clone(), b.clone(), c.clone()).unwrap();
            assert_eq!(h_coefficients(a, b, c).unwrap(), want, "{len} zeros and ones");
        }
    }
}
