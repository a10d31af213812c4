//! A random compiled circuit with a real 32 GiB PoRep partition's row
//! weights, and a witness with its statistics: for timing the compiled path
//! (a, b, c on the GPU, the witness upload, the file) at full size, where
//! recording the real circuit is out of reach (its witness:
//! `super::random_witness`).
//!
//! Rows of the real partition have 2.4 / 1.0 / 2.2 nonzeros in A / B / C.
//! Here each circuit row i has a "home" aux variable near i·aux/rows (the
//! locality of a circuit whose constraints use the variables allocated just
//! before them); A holds the home and one or two neighbours (every aux
//! variable is in A), B the home in a quarter of the rows and ONE in the
//! rest (the real B-aux density is 25.4%), C the home and one or two
//! neighbours. Coefficients are mostly ±1, then powers of two (bit packing)
//! and a few of a thousand arbitrary constants. The per-input rows close the
//! matrices as bellperson's prover appends them.

use blstrs::Scalar;
use ff::Field;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

use crate::compiled::{entry, CompiledCircuit, SparseRows, COEFF_MINUS_ONE, COEFF_ONE};

/// Powers of two 2^1 … 2^253 in the table (after 1 and −1).
const POWERS: u32 = 253;
/// Arbitrary constants in the table (after the powers).
const CONSTANTS: u32 = 1000;
/// Rows generated per rayon task, each from its own seeded generator.
const CHUNK: usize = 1 << 16;

/// A random compiled circuit of `constraints` rows (the per-input rows
/// included), `inputs` public inputs besides ONE and `aux` aux variables.
pub fn random_compiled(constraints: usize, inputs: usize, aux: usize, seed: u64) -> CompiledCircuit {
    let total_inputs = inputs + 1;
    assert!(constraints > total_inputs && aux > 0, "room for the circuit's rows and the input rows");
    let rows = constraints - total_inputs;
    let mut coeffs = vec![Scalar::ONE, -Scalar::ONE];
    let mut power = Scalar::ONE;
    for _ in 0..POWERS {
        power = power.double();
        coeffs.push(power);
    }
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    coeffs.extend((0..CONSTANTS).map(|_| Scalar::random(&mut r)));

    let col = |j: usize| (total_inputs + j) as u32;
    // Per chunk of rows: for each matrix, the row lengths and the entries.
    let chunks: Vec<[(Vec<u32>, Vec<u64>); 3]> = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (k as u64 + 1) << 20);
            let mut out: [(Vec<u32>, Vec<u64>); 3] = Default::default();
            for i in k * CHUNK..rows.min((k + 1) * CHUNK) {
                let home = (i as u128 * aux as u128 / rows as u128) as usize;
                let near = |r: &mut rand_chacha::ChaCha8Rng| home.saturating_sub(1 + (r.next_u32() % 64) as usize);
                let coeff = |r: &mut rand_chacha::ChaCha8Rng| match r.next_u32() % 100 {
                    0..=44 => COEFF_ONE,
                    45..=69 => COEFF_MINUS_ONE,
                    70..=96 => 2 + r.next_u32() % POWERS,
                    _ => 2 + POWERS + r.next_u32() % CONSTANTS,
                };
                let extra = |r: &mut rand_chacha::ChaCha8Rng, p: u32| 1 + (r.next_u32() % 100 < p) as usize;
                // A: 2.4 per row; C: 2.2 per row; B: 1.
                let (wa, wc) = (extra(&mut r, 40), extra(&mut r, 20));
                let mut row = |m: usize, entries: &mut dyn Iterator<Item = u64>| {
                    let before = out[m].1.len();
                    out[m].1.extend(entries);
                    out[m].0.push((out[m].1.len() - before) as u32);
                };
                let a: Vec<u64> = std::iter::once(entry(col(home), COEFF_ONE)).chain((0..wa).map(|_| entry(col(near(&mut r)), coeff(&mut r)))).collect();
                row(0, &mut a.into_iter());
                let b = if r.next_u32() % 1000 < 254 { entry(col(home), COEFF_ONE) } else { entry(0, COEFF_ONE) };
                row(1, &mut std::iter::once(b));
                let c: Vec<u64> = std::iter::once(entry(col(home), coeff(&mut r))).chain((0..wc).map(|_| entry(col(near(&mut r)), coeff(&mut r)))).collect();
                row(2, &mut c.into_iter());
            }
            out
        })
        .collect();
    let matrices = [0, 1, 2].map(|m| {
        let mut sparse = SparseRows { row_start: Vec::with_capacity(constraints + 1), entries: Vec::with_capacity(chunks.iter().map(|c| c[m].1.len()).sum::<usize>() + total_inputs) };
        sparse.row_start.push(0);
        for chunk in &chunks {
            let mut at = *sparse.row_start.last().expect("starts with 0");
            sparse.row_start.extend(chunk[m].0.iter().map(|len| {
                at += len;
                at
            }));
            sparse.entries.extend_from_slice(&chunk[m].1);
        }
        // The per-input rows: input i in A, nothing in B or C.
        for i in 0..total_inputs {
            if m == 0 {
                sparse.entries.push(entry(i as u32, COEFF_ONE));
            }
            sparse.row_start.push(sparse.entries.len() as u32);
        }
        sparse
    });
    drop(chunks);
    CompiledCircuit::new(total_inputs, aux, coeffs, matrices).expect("a well-formed random circuit")
}
