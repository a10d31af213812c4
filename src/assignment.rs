//! Synthesis: running a bellperson `Circuit` to get what the prover needs.
//!
//! Mirrors bellperson's private `ProvingAssignment`: for every constraint the
//! values of its A, B and C linear combinations, the input and aux
//! assignments, and the density of the A-aux, B-input and B-aux queries. After
//! the circuit, one `input * 1 = 0`-shaped constraint (`input` in A, nothing in
//! B or C) is added per input, exactly as bellperson does, so that the IC
//! query is fully dense and our proofs match bellperson's bit for bit.

use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::density::Density;
use crate::error::ProverError;

/// A synthesized circuit: everything the proving phases need, nothing else.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// A·z per constraint (constraints first, then one per input).
    pub a: Vec<Scalar>,
    /// B·z per constraint.
    pub b: Vec<Scalar>,
    /// C·z per constraint.
    pub c: Vec<Scalar>,
    /// Public inputs; element 0 is the constant ONE.
    pub input: Vec<Scalar>,
    /// Private (auxiliary) variables.
    pub aux: Vec<Scalar>,
    pub a_aux_density: Density,
    pub b_input_density: Density,
    pub b_aux_density: Density,
}

impl Assignment {
    /// Number of constraints, including the per-input ones.
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// Checks that the three evaluation vectors and the densities agree in
    /// length with the assignment (they may come from the caller, not from
    /// our synthesizer).
    pub fn check_shape(&self) -> Result<(), ProverError> {
        let n = self.a.len();
        for (what, got) in [("b evaluations", self.b.len()), ("c evaluations", self.c.len())] {
            if got != n {
                return Err(ProverError::WrongLength { what, expected: n, got });
            }
        }
        if self.input.first() != Some(&Scalar::ONE) {
            return Err(ProverError::MissingOneInput);
        }
        let lens = [
            ("A-aux density", self.a_aux_density.len(), self.aux.len()),
            ("B-input density", self.b_input_density.len(), self.input.len()),
            ("B-aux density", self.b_aux_density.len(), self.aux.len()),
        ];
        for (what, got, expected) in lens {
            if got != expected {
                return Err(ProverError::WrongLength { what, expected, got });
            }
        }
        if n < self.input.len() {
            // Every input has its own constraint; fewer means a caller-built
            // assignment without them, whose proof bellperson would reject.
            return Err(ProverError::WrongLength {
                what: "constraints (at least one per input)",
                expected: self.input.len(),
                got: n,
            });
        }
        Ok(())
    }

    /// Index of the first constraint with A·z · B·z ≠ C·z, if any.
    pub fn first_unsatisfied(&self) -> Option<usize> {
        (0..self.a.len())
            .into_par_iter()
            .find_first(|&i| self.a[i] * self.b[i] != self.c[i])
    }
}

/// Runs one circuit. A panic inside the circuit becomes an error, so that one
/// bad circuit in a batch does not take the others down.
pub fn synthesize<C: Circuit<Scalar>>(circuit: C) -> Result<Assignment, ProverError> {
    let run = std::panic::AssertUnwindSafe(move || -> Result<Assignment, ProverError> {
        let mut cs = WitnessCs::default();
        cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
        circuit.synthesize(&mut cs)?;
        for i in 0..cs.input.len() {
            cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
        }
        if let Some(err) = cs.error {
            return Err(err);
        }
        Ok(cs.into_assignment())
    });
    std::panic::catch_unwind(run).unwrap_or_else(|payload| Err(ProverError::CircuitPanicked(panic_message(&*payload))))
}

/// Runs several circuits in parallel; one result per circuit, in order.
pub fn synthesize_batch<C: Circuit<Scalar> + Send>(circuits: Vec<C>) -> Vec<Result<Assignment, ProverError>> {
    circuits.into_par_iter().map(synthesize).collect()
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into())
}

/// bellperson's `ProvingAssignment`, rebuilt (it is private there).
#[derive(Default)]
struct WitnessCs {
    a: Vec<Scalar>,
    b: Vec<Scalar>,
    c: Vec<Scalar>,
    input: Vec<Scalar>,
    aux: Vec<Scalar>,
    a_aux_density: Density,
    b_input_density: Density,
    b_aux_density: Density,
    /// First bad reference seen; `enforce` cannot return errors.
    error: Option<ProverError>,
}

impl WitnessCs {
    fn into_assignment(self) -> Assignment {
        Assignment {
            a: self.a,
            b: self.b,
            c: self.c,
            input: self.input,
            aux: self.aux,
            a_aux_density: self.a_aux_density,
            b_input_density: self.b_input_density,
            b_aux_density: self.b_aux_density,
        }
    }

    /// `lc` evaluated at the assignment, marking the variables it uses with a
    /// nonzero coefficient in the given densities (as bellperson does).
    fn eval(
        &mut self,
        lc: &LinearCombination<Scalar>,
        mut input_density: Option<&mut Density>,
        mut aux_density: Option<&mut Density>,
    ) -> Scalar {
        let mut acc = Scalar::ZERO;
        for (&i, coeff) in lc.iter_inputs() {
            if bool::from(coeff.is_zero()) {
                continue;
            }
            let Some(&value) = self.input.get(i) else {
                self.error.get_or_insert(ProverError::UnknownVariable { kind: "input", index: i, allocated: self.input.len() });
                continue;
            };
            acc += if *coeff == Scalar::ONE { value } else { value * coeff };
            if let Some(d) = input_density.as_deref_mut() {
                d.set(i);
            }
        }
        for (&i, coeff) in lc.iter_aux() {
            if bool::from(coeff.is_zero()) {
                continue;
            }
            let Some(&value) = self.aux.get(i) else {
                self.error.get_or_insert(ProverError::UnknownVariable { kind: "aux", index: i, allocated: self.aux.len() });
                continue;
            };
            acc += if *coeff == Scalar::ONE { value } else { value * coeff };
            if let Some(d) = aux_density.as_deref_mut() {
                d.set(i);
            }
        }
        acc
    }
}

impl ConstraintSystem<Scalar> for WitnessCs {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        self.a_aux_density.push_unset();
        self.b_aux_density.push_unset();
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.input.push(f()?);
        self.b_input_density.push_unset();
        Ok(Variable::new_unchecked(Index::Input(self.input.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let (a, b, c) = (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        // Densities are moved out while evaluating so `eval` can borrow self.
        let mut a_aux = std::mem::take(&mut self.a_aux_density);
        let mut b_input = std::mem::take(&mut self.b_input_density);
        let mut b_aux = std::mem::take(&mut self.b_aux_density);
        // Inputs are fully dense in A: every input gets an `input * 0 = 0`
        // constraint after synthesis.
        let a_val = self.eval(&a, None, Some(&mut a_aux));
        let b_val = self.eval(&b, Some(&mut b_input), Some(&mut b_aux));
        let c_val = self.eval(&c, None, None);
        self.a_aux_density = a_aux;
        self.b_input_density = b_input;
        self.b_aux_density = b_aux;
        self.a.push(a_val);
        self.b.push(b_val);
        self.c.push(c_val);
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
