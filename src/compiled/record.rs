//! Recording a circuit's constraints into a [`CompiledCircuit`].

use std::collections::HashMap;

use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use super::{entry, CompiledCircuit, SparseRows, COEFF_MINUS_ONE, COEFF_ONE};
use crate::witness::assignment::panic_message;
use crate::error::ProverError;

/// Marks an aux column while recording: the input count is known only at
/// the end, when aux columns move behind the inputs.
const AUX_FLAG: u32 = 1 << 31;

impl CompiledCircuit {
    /// Records `circuit`'s constraints: an instance or the blank circuit
    /// used for parameter generation (no value is computed). The per-input
    /// rows bellperson's prover appends are recorded too, so the result
    /// proves exactly as bellperson does.
    pub fn record<C: Circuit<Scalar>>(circuit: C) -> Result<Self, ProverError> {
        let run = std::panic::AssertUnwindSafe(|| -> Result<CompiledCircuit, ProverError> {
            let mut cs = RecordingCs::default();
            cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
            let synthesized = circuit.synthesize(&mut cs);
            if let Some(e) = cs.error.take() {
                return Err(e);
            }
            synthesized?;
            for i in 0..cs.inputs {
                cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
            }
            cs.finish()
        });
        std::panic::catch_unwind(run).unwrap_or_else(|payload| Err(ProverError::CircuitPanicked(panic_message(&*payload))))
    }
}

/// A constraint system that keeps the structure and no value.
#[derive(Default)]
struct RecordingCs {
    inputs: usize,
    aux: usize,
    coeffs: Vec<Scalar>,
    /// Coefficients other than ±1, by canonical bytes, to their index.
    coeff_index: HashMap<[u8; 32], u32>,
    matrices: [SparseRows; 3],
    /// First error; `enforce` cannot return one.
    error: Option<ProverError>,
}

impl RecordingCs {
    fn coeff_index(&mut self, c: &Scalar) -> Option<u32> {
        if self.coeffs.is_empty() {
            self.coeffs = vec![Scalar::ONE, -Scalar::ONE];
        }
        if *c == Scalar::ONE {
            return Some(COEFF_ONE);
        }
        if *c == -Scalar::ONE {
            return Some(COEFF_MINUS_ONE);
        }
        let next = u32::try_from(self.coeffs.len()).ok()?;
        let index = *self.coeff_index.entry(c.to_repr()).or_insert(next);
        if index == next {
            self.coeffs.push(*c);
        }
        Some(index)
    }

    /// Appends one row of `lc` to matrix `m`.
    fn push_row(&mut self, m: usize, lc: &LinearCombination<Scalar>) {
        let mut row = Vec::new();
        for (&i, c) in lc.iter_inputs() {
            if !bool::from(c.is_zero()) {
                row.push((i, self.inputs, 0, c));
            }
        }
        for (&i, c) in lc.iter_aux() {
            if !bool::from(c.is_zero()) {
                row.push((i, self.aux, AUX_FLAG, c));
            }
        }
        for (i, allocated, flag, c) in row {
            let kind = if flag == 0 { "input" } else { "aux" };
            if i >= allocated {
                self.error.get_or_insert(ProverError::UnknownVariable { kind, index: i, allocated });
                continue;
            }
            let (Some(coeff), Ok(col)) = (self.coeff_index(c), u32::try_from(i)) else {
                self.error.get_or_insert(ProverError::Config("circuit too large to compile: 32-bit coefficient or column index".into()));
                continue;
            };
            if col >= AUX_FLAG {
                self.error.get_or_insert(ProverError::Config(format!("circuit too large to compile: {kind} variable {i}")));
                continue;
            }
            self.matrices[m].entries.push(entry(col | flag, coeff));
        }
        match u32::try_from(self.matrices[m].entries.len()) {
            Ok(end) => self.matrices[m].row_start.push(end),
            Err(_) => {
                self.error.get_or_insert(ProverError::Config("circuit too large to compile: over 2^32 nonzeros in one matrix".into()));
            }
        }
    }

    /// Moves aux columns behind the inputs and checks the result.
    fn finish(mut self) -> Result<CompiledCircuit, ProverError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let inputs = u32::try_from(self.inputs).map_err(|_| ProverError::Config("too many public inputs to compile".into()))?;
        for m in &mut self.matrices {
            m.entries.par_iter_mut().for_each(|e| {
                let col = super::column(*e);
                if col & AUX_FLAG != 0 {
                    *e = entry((col & !AUX_FLAG) + inputs, super::coeff(*e));
                }
            });
        }
        if self.coeffs.is_empty() {
            self.coeffs = vec![Scalar::ONE, -Scalar::ONE];
        }
        CompiledCircuit::new(self.inputs, self.aux, self.coeffs, self.matrices).map_err(ProverError::from)
    }
}

impl ConstraintSystem<Scalar> for RecordingCs {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        self.push_row(0, &a(LinearCombination::zero()));
        self.push_row(1, &b(LinearCombination::zero()));
        self.push_row(2, &c(LinearCombination::zero()));
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

impl Default for SparseRows {
    fn default() -> Self {
        SparseRows::new()
    }
}
