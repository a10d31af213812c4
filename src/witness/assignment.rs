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

use crate::witness::density::Density;
use crate::error::ProverError;
use crate::witness::pool::WitnessCapacity;

/// A synthesized circuit: everything the proving phases need, nothing else.
#[derive(Clone, Debug, Default, PartialEq)]
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
    /// Aux variables that appear in some A with a nonzero coefficient.
    pub a_aux_density: Density,
    /// Inputs that appear in some B.
    pub b_input_density: Density,
    /// Aux variables that appear in some B.
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

    /// An empty assignment with room for `cap` without reallocating.
    pub(crate) fn with_capacity(cap: WitnessCapacity) -> Self {
        let mut asg = Assignment {
            a: Vec::with_capacity(cap.evaluations),
            b: Vec::with_capacity(cap.evaluations),
            c: Vec::with_capacity(cap.evaluations),
            input: Vec::with_capacity(cap.inputs),
            aux: Vec::with_capacity(cap.aux),
            ..Assignment::default()
        };
        asg.a_aux_density.reserve(cap.aux);
        asg.b_aux_density.reserve(cap.aux);
        asg.b_input_density.reserve(cap.inputs);
        asg
    }

    /// Empties every vector and density, keeping their allocations.
    pub(crate) fn clear(&mut self) {
        for v in [&mut self.a, &mut self.b, &mut self.c, &mut self.input, &mut self.aux] {
            v.clear();
        }
        for d in [&mut self.a_aux_density, &mut self.b_input_density, &mut self.b_aux_density] {
            d.clear();
        }
    }

    /// Makes this a copy of `src` without growing any vector past `cap`
    /// (so none reallocates); false, and nothing copied, if it would not fit.
    /// The large vectors are copied by several threads.
    pub(crate) fn copy_within_capacity(&mut self, src: &Assignment, cap: WitnessCapacity) -> bool {
        let fits = [(src.a.len(), cap.evaluations), (src.input.len(), cap.inputs), (src.aux.len(), cap.aux)];
        if src.b.len() != src.a.len() || src.c.len() != src.a.len() || fits.iter().any(|&(len, cap)| len > cap) {
            return false;
        }
        self.clear();
        let pairs = [(&mut self.a, &src.a), (&mut self.b, &src.b), (&mut self.c, &src.c), (&mut self.input, &src.input), (&mut self.aux, &src.aux)];
        for (dst, src) in pairs {
            // Within capacity (checked above): writes in place, in parallel.
            dst.par_extend(src.par_iter().copied());
        }
        self.a_aux_density.clone_from(&src.a_aux_density);
        self.b_input_density.clone_from(&src.b_input_density);
        self.b_aux_density.clone_from(&src.b_aux_density);
        true
    }

    /// Makes this a witness-only copy of `input` and `aux` (a, b, c and the
    /// densities empty) without growing past `cap`; false, and nothing
    /// copied, if it would not fit.
    pub(crate) fn copy_witness_within_capacity(&mut self, input: &[Scalar], aux: &[Scalar], cap: WitnessCapacity) -> bool {
        if input.len() > cap.inputs || aux.len() > cap.aux {
            return false;
        }
        self.clear();
        self.input.extend_from_slice(input);
        // Within capacity (checked above): written in place, in parallel.
        self.aux.par_extend(aux.par_iter().copied());
        true
    }

    /// Bytes the vectors hold room for.
    pub(crate) fn reserved_bytes(&self) -> usize {
        [&self.a, &self.b, &self.c, &self.input, &self.aux].iter().map(|v| v.capacity()).sum::<usize>() * std::mem::size_of::<Scalar>()
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
    let mut asg = Assignment::default();
    synthesize_into(circuit, &mut asg, None)?;
    Ok(asg)
}

/// Runs one circuit into `asg` (emptied first). With `cap`, no vector grows
/// past its capacity, so none reallocates (a pinned buffer must stay where
/// it was pinned): a circuit larger than the buffer is an error. A panic
/// leaves `asg` in place, emptied or half filled, never moved.
pub(crate) fn synthesize_into<C: Circuit<Scalar>>(circuit: C, asg: &mut Assignment, cap: Option<WitnessCapacity>) -> Result<(), ProverError> {
    asg.clear();
    let run = std::panic::AssertUnwindSafe(|| -> Result<(), ProverError> {
        let mut cs = WitnessCs { asg: &mut *asg, cap, error: None };
        cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
        let synthesized = circuit.synthesize(&mut cs);
        // A full buffer makes `alloc` fail; name the cause, not the symptom.
        match cs.error.take() {
            Some(e @ ProverError::ParamsMismatch { .. }) => return Err(e),
            other => cs.error = other,
        }
        synthesized?;
        for i in 0..cs.asg.input.len() {
            cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
        }
        cs.error.map_or(Ok(()), Err)
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

/// bellperson's `ProvingAssignment`, rebuilt (it is private there), writing
/// into a borrowed assignment.
struct WitnessCs<'a> {
    asg: &'a mut Assignment,
    /// The capacity no vector may grow past (a pinned buffer), if any.
    cap: Option<WitnessCapacity>,
    /// First bad reference seen; `enforce` cannot return errors.
    error: Option<ProverError>,
}

impl WitnessCs<'_> {
    /// Whether `len` more values fit under the cap; records the error if not.
    fn room(&mut self, what: &'static str, len: usize, limit: impl Fn(WitnessCapacity) -> usize) -> bool {
        let Some(cap) = self.cap else { return true };
        let limit = limit(cap);
        if len < limit {
            return true;
        }
        self.error.get_or_insert(ProverError::ParamsMismatch { what, params: limit, circuit: len + 1 });
        false
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
            let Some(&value) = self.asg.input.get(i) else {
                self.error.get_or_insert(ProverError::UnknownVariable { kind: "input", index: i, allocated: self.asg.input.len() });
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
            let Some(&value) = self.asg.aux.get(i) else {
                self.error.get_or_insert(ProverError::UnknownVariable { kind: "aux", index: i, allocated: self.asg.aux.len() });
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

impl ConstraintSystem<Scalar> for WitnessCs<'_> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let value = f()?;
        if !self.room("aux variables (witness buffer)", self.asg.aux.len(), |c| c.aux) {
            return Err(SynthesisError::Unsatisfiable);
        }
        self.asg.aux.push(value);
        self.asg.a_aux_density.push_unset();
        self.asg.b_aux_density.push_unset();
        Ok(Variable::new_unchecked(Index::Aux(self.asg.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let value = f()?;
        if !self.room("public inputs (witness buffer)", self.asg.input.len(), |c| c.inputs) {
            return Err(SynthesisError::Unsatisfiable);
        }
        self.asg.input.push(value);
        self.asg.b_input_density.push_unset();
        Ok(Variable::new_unchecked(Index::Input(self.asg.input.len() - 1)))
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
        let mut a_aux = std::mem::take(&mut self.asg.a_aux_density);
        let mut b_input = std::mem::take(&mut self.asg.b_input_density);
        let mut b_aux = std::mem::take(&mut self.asg.b_aux_density);
        // Inputs are fully dense in A: every input gets an `input * 0 = 0`
        // constraint after synthesis.
        let a_val = self.eval(&a, None, Some(&mut a_aux));
        let b_val = self.eval(&b, Some(&mut b_input), Some(&mut b_aux));
        let c_val = self.eval(&c, None, None);
        self.asg.a_aux_density = a_aux;
        self.asg.b_input_density = b_input;
        self.asg.b_aux_density = b_aux;
        if self.room("constraints (witness buffer)", self.asg.a.len(), |c| c.evaluations) {
            self.asg.a.push(a_val);
            self.asg.b.push(b_val);
            self.asg.c.push(c_val);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` aux variables, one constraint each; panics instead if asked.
    struct Chain {
        n: usize,
        panic: bool,
    }

    impl Circuit<Scalar> for Chain {
        fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            for i in 0..self.n {
                let v = cs.alloc(|| "v", || Ok(Scalar::from(i as u64)))?;
                cs.enforce(|| "v*1=v", |lc| lc + v, |lc| lc + CS::one(), |lc| lc + v);
                assert!(!(self.panic && i == self.n / 2), "circuit panicked half way");
            }
            Ok(())
        }
    }

    fn buffer(cap: WitnessCapacity) -> Assignment {
        Assignment::with_capacity(cap)
    }

    #[test]
    fn capped_synthesis_fills_in_place_and_refuses_to_grow() {
        // 10 constraints + 1 per input: 11 evaluations.
        let cap = WitnessCapacity { evaluations: 16, inputs: 1, aux: 10 };
        let mut asg = buffer(cap);
        let addr = [asg.a.as_ptr(), asg.aux.as_ptr()];
        synthesize_into(Chain { n: 10, panic: false }, &mut asg, Some(cap)).unwrap();
        assert_eq!(asg, synthesize(Chain { n: 10, panic: false }).unwrap(), "same witness as a plain synthesis");
        assert_eq!([asg.a.as_ptr(), asg.aux.as_ptr()], addr, "written in place");

        let err = synthesize_into(Chain { n: 11, panic: false }, &mut asg, Some(cap)).unwrap_err();
        assert!(matches!(err, ProverError::ParamsMismatch { params: 10, circuit: 11, .. }), "{err}");
        let err = synthesize_into(Chain { n: 16, panic: false }, &mut buffer(WitnessCapacity { aux: 20, ..cap }), Some(WitnessCapacity { aux: 20, ..cap })).unwrap_err();
        assert!(matches!(err, ProverError::ParamsMismatch { params: 16, circuit: 17, .. }), "{err}");
        assert_eq!(asg.aux.capacity(), 10, "nothing grew past the cap");

        let err = synthesize_into(Chain { n: 10, panic: true }, &mut asg, Some(cap)).unwrap_err();
        assert!(matches!(err, ProverError::CircuitPanicked(_)), "{err}");
        assert_eq!([asg.a.as_ptr(), asg.aux.as_ptr()], addr, "a panic leaves the buffer where it was");
    }

    #[test]
    fn copy_within_capacity_copies_or_refuses() {
        let src = synthesize(Chain { n: 300, panic: false }).unwrap();
        let cap = WitnessCapacity { evaluations: 512, inputs: 1, aux: 300 };
        let mut asg = buffer(cap);
        let addr = asg.a.as_ptr();
        assert!(asg.copy_within_capacity(&src, cap));
        assert_eq!(asg, src);
        assert_eq!(asg.a.as_ptr(), addr);
        let small = WitnessCapacity { aux: 299, ..cap };
        assert!(!buffer(small).copy_within_capacity(&src, small), "an assignment larger than the buffer is refused");
    }
}
