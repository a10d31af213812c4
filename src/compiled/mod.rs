//! Compiled circuits: a circuit's R1CS recorded once, so that each proof
//! only synthesizes its witness (inputs and aux) and a, b, c are evaluated
//! from the recorded matrices (on the GPU for the GPU backend).
//!
//! A, B and C are compressed sparse rows (one row per constraint, then one
//! per public input as bellperson's prover appends them), each entry a
//! column of z = (inputs, aux) and an index into a per-circuit coefficient
//! table whose first two values are 1 and −1 (see `cuzk_kernels::r1cs`): 8
//! bytes per nonzero plus 4 per row and matrix. The densities of the A-aux,
//! B-input and B-aux queries follow from the structure.
//!
//! [`CompiledCircuit::record`] records one, [`CompiledCircuit::save`] and
//! [`CompiledCircuit::load`] keep it in a versioned file (`file.rs`), and
//! [`crate::Prover::with_compiled`] proves with it.

mod file;
mod record;
mod witness;

use blstrs::Scalar;
use rayon::prelude::*;

use crate::witness::assignment::Assignment;
use crate::witness::density::Density;
use crate::error::ProverError;
use crate::parameters::params::ProofShape;
pub use cuzk_kernels::r1cs::{column, coeff, entry, COEFF_MINUS_ONE, COEFF_ONE};
pub use file::CompiledFileError;
pub use witness::synthesize_witness;
pub(crate) use witness::synthesize_witness_into;
#[cfg(all(test, feature = "porep"))]
pub(crate) use witness::WitnessOnlyCs;

/// One of A, B, C as compressed sparse rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparseRows {
    /// Row i's entries are `entries[row_start[i]..row_start[i + 1]]`.
    pub(crate) row_start: Vec<u32>,
    /// `cuzk_kernels::r1cs::entry(column, coefficient index)` per nonzero.
    pub(crate) entries: Vec<u64>,
}

impl SparseRows {
    fn new() -> Self {
        SparseRows { row_start: vec![0], entries: Vec::new() }
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.row_start.len() - 1
    }

    /// Nonzero entries.
    pub fn nonzeros(&self) -> usize {
        self.entries.len()
    }

    /// The row offsets (rows + 1 of them, the last one `nonzeros()`).
    pub fn row_start(&self) -> &[u32] {
        &self.row_start
    }

    /// The entries, packed as in `cuzk_kernels::r1cs`.
    pub fn entries(&self) -> &[u64] {
        &self.entries
    }

    /// The entries of row `i`.
    fn row(&self, i: usize) -> &[u64] {
        &self.entries[self.row_start[i] as usize..self.row_start[i + 1] as usize]
    }

    /// Row-by-row product with z = (inputs, aux) (rayon).
    fn times(&self, coeffs: &[Scalar], input: &[Scalar], aux: &[Scalar]) -> Vec<Scalar> {
        let z = |c: usize| if c < input.len() { input[c] } else { aux[c - input.len()] };
        (0..self.rows())
            .into_par_iter()
            .map(|i| {
                self.row(i).iter().fold(Scalar::from(0), |acc, &e| {
                    let value = z(column(e) as usize);
                    match coeff(e) {
                        COEFF_ONE => acc + value,
                        COEFF_MINUS_ONE => acc - value,
                        c => acc + coeffs[c as usize] * value,
                    }
                })
            })
            .collect()
    }

    /// Marks the columns of the entries in `[from, to)` of z, shifted to
    /// start at `from`, in a density of `to - from` bits.
    fn density(&self, from: usize, to: usize) -> Density {
        let words = (to - from).div_ceil(64);
        let bits = self
            .entries
            .par_chunks(1 << 16)
            .fold(
                || vec![0u64; words],
                |mut bits, chunk| {
                    for &e in chunk {
                        let col = column(e) as usize;
                        if (from..to).contains(&col) {
                            bits[(col - from) / 64] |= 1 << ((col - from) % 64);
                        }
                    }
                    bits
                },
            )
            .reduce(
                || vec![0u64; words],
                |mut x, y| {
                    x.iter_mut().zip(y).for_each(|(x, y)| *x |= y);
                    x
                },
            );
        Density::from_words(bits, to - from)
    }
}

/// A circuit's R1CS, recorded once (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledCircuit {
    inputs: usize,
    aux: usize,
    /// Coefficient table: 1, −1, then every other coefficient once.
    coeffs: Vec<Scalar>,
    matrices: [SparseRows; 3],
    a_aux_density: Density,
    b_input_density: Density,
    b_aux_density: Density,
}

impl CompiledCircuit {
    /// Checks the structure (the entries index z and the table, rows agree,
    /// the input rows are there) and derives the densities.
    pub(crate) fn new(inputs: usize, aux: usize, coeffs: Vec<Scalar>, matrices: [SparseRows; 3]) -> Result<Self, CompiledFileError> {
        let bad = |why: String| Err(CompiledFileError::Malformed(why));
        let rows = matrices[0].rows();
        if inputs == 0 {
            return bad("no public input (ONE is input 0)".into());
        }
        if coeffs.len() < 2 || coeffs[0] != Scalar::from(1) || coeffs[1] != -Scalar::from(1) {
            return bad("the coefficient table must begin with 1 and −1".into());
        }
        if rows < inputs {
            return bad(format!("{rows} rows, fewer than the {inputs} input rows"));
        }
        let columns = inputs + aux;
        if columns > u32::MAX as usize + 1 {
            return bad(format!("{columns} variables do not fit 32-bit columns"));
        }
        for (m, name) in matrices.iter().zip(["A", "B", "C"]) {
            if m.rows() != rows {
                return bad(format!("{name} has {} rows, A has {rows}", m.rows()));
            }
            if m.row_start[0] != 0 || m.row_start.windows(2).any(|w| w[0] > w[1]) || *m.row_start.last().unwrap_or(&0) as usize != m.entries.len() {
                return bad(format!("{name}'s row offsets are not increasing from 0 to its {} entries", m.entries.len()));
            }
            if let Some(&e) = m.entries.par_iter().find_any(|&&e| column(e) as usize >= columns || coeff(e) as usize >= coeffs.len()) {
                return bad(format!("an entry of {name} names column {} of {columns} or coefficient {} of {}", column(e), coeff(e), coeffs.len()));
            }
        }
        let a_aux_density = matrices[0].density(inputs, columns);
        let b_input_density = matrices[1].density(0, inputs);
        let b_aux_density = matrices[1].density(inputs, columns);
        Ok(CompiledCircuit { inputs, aux, coeffs, matrices, a_aux_density, b_input_density, b_aux_density })
    }

    /// Public inputs, ONE included.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Aux variables.
    pub fn aux(&self) -> usize {
        self.aux
    }

    /// Constraints, the per-input rows included.
    pub fn constraints(&self) -> usize {
        self.matrices[0].rows()
    }

    /// A, B and C.
    pub fn matrices(&self) -> &[SparseRows; 3] {
        &self.matrices
    }

    /// The coefficient table (1, −1, then the others).
    pub fn coefficients(&self) -> &[Scalar] {
        &self.coeffs
    }

    /// Nonzeros of A, B and C together.
    pub fn nonzeros(&self) -> usize {
        self.matrices.iter().map(SparseRows::nonzeros).sum()
    }

    /// Bytes the matrices and the table take (in memory, in the file, in
    /// VRAM): 8 per nonzero, 4 per row and matrix, 32 per coefficient.
    pub fn bytes(&self) -> usize {
        self.matrices.iter().map(|m| m.entries.len() * 8 + m.row_start.len() * 4).sum::<usize>() + self.coeffs.len() * 32
    }

    /// The A-aux, B-input and B-aux densities.
    pub fn densities(&self) -> [&Density; 3] {
        [&self.a_aux_density, &self.b_input_density, &self.b_aux_density]
    }

    /// The sizes of every proof of this circuit.
    pub fn shape(&self) -> Result<ProofShape, ProverError> {
        ProofShape::new(
            self.constraints(),
            self.inputs,
            self.aux,
            [self.a_aux_density.count_ones(), self.b_input_density.count_ones(), self.b_aux_density.count_ones()],
        )
    }

    /// Refuses a witness of another circuit (other counts, or no ONE).
    pub fn check_witness(&self, input: &[Scalar], aux: &[Scalar]) -> Result<(), ProverError> {
        for (what, compiled, circuit) in [("public inputs", self.inputs, input.len()), ("aux variables", self.aux, aux.len())] {
            if compiled != circuit {
                return Err(ProverError::CompiledMismatch { what, compiled, circuit });
            }
        }
        if input.first() != Some(&Scalar::from(1)) {
            return Err(ProverError::MissingOneInput);
        }
        Ok(())
    }

    /// The full assignment of a witness: a, b, c evaluated from the
    /// matrices (rayon), densities from the structure.
    pub fn evaluate(&self, input: Vec<Scalar>, aux: Vec<Scalar>) -> Result<Assignment, ProverError> {
        self.check_witness(&input, &aux)?;
        let [a, b, c] = [0, 1, 2].map(|m| self.matrices[m].times(&self.coeffs, &input, &aux));
        Ok(Assignment {
            a,
            b,
            c,
            input,
            aux,
            a_aux_density: self.a_aux_density.clone(),
            b_input_density: self.b_input_density.clone(),
            b_aux_density: self.b_aux_density.clone(),
        })
    }
}
