//! Witness-only synthesis: a circuit run for its input and aux values alone.
//!
//! Like bellperson's `WitnessCS`, the constraint system builds no linear
//! combination (`enforce` does nothing) and declares itself a witness
//! generator, so gadgets with a native witness path (neptune's Poseidon,
//! `SizedWitness` implementors) take it and write their values in bulk.
//! The a, b, c evaluations then come from the compiled circuit.

use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

use crate::witness::assignment::{panic_message, Assignment};
use crate::error::ProverError;
use crate::witness::pool::WitnessCapacity;

/// Runs `circuit` for its witness: (inputs with ONE first, aux).
pub fn synthesize_witness<C: Circuit<Scalar>>(circuit: C) -> Result<(Vec<Scalar>, Vec<Scalar>), ProverError> {
    let mut asg = Assignment::default();
    synthesize_witness_into(circuit, &mut asg, None)?;
    Ok((asg.input, asg.aux))
}

/// Runs `circuit` into `asg.input` and `asg.aux` (emptied first; a, b, c and
/// the densities are left empty). With `cap`, neither vector grows past its
/// capacity (a pinned buffer stays in place): a larger circuit is an error.
pub(crate) fn synthesize_witness_into<C: Circuit<Scalar>>(circuit: C, asg: &mut Assignment, cap: Option<WitnessCapacity>) -> Result<(), ProverError> {
    asg.clear();
    let mut cs = WitnessOnlyCs {
        // Moving a Vec keeps its heap buffer where it is.
        input: std::mem::take(&mut asg.input),
        aux: std::mem::take(&mut asg.aux),
        cap: cap.map(|c| (c.inputs, c.aux)),
        overflow: Vec::new(),
        error: None,
    };
    let run = |cs: &mut WitnessOnlyCs| -> Result<(), ProverError> {
        cs.alloc_input(|| "one", || Ok(Scalar::ONE))?;
        let synthesized = circuit.synthesize(cs);
        if let Some(e) = cs.error.take() {
            return Err(e);
        }
        synthesized.map_err(ProverError::from)
    };
    // A panic leaves the vectors in `cs`, so they go back to `asg` anyway.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut cs)))
        .unwrap_or_else(|payload| Err(ProverError::CircuitPanicked(panic_message(&*payload))));
    asg.input = cs.input;
    asg.aux = cs.aux;
    result
}

/// The constraint system of [`synthesize_witness`].
pub(crate) struct WitnessOnlyCs {
    pub(crate) input: Vec<Scalar>,
    pub(crate) aux: Vec<Scalar>,
    /// (inputs, aux) neither vector may grow past, if capped.
    cap: Option<(usize, usize)>,
    /// Where `allocate_empty` past the cap hands out room (so the gadget
    /// can write), before the error is reported.
    overflow: Vec<Scalar>,
    error: Option<ProverError>,
}

impl WitnessOnlyCs {
    /// An empty one, without ONE and without a cap (tests of gadgets).
    #[cfg(all(test, feature = "porep"))]
    pub(crate) fn scratch() -> Self {
        WitnessOnlyCs { input: Vec::new(), aux: Vec::new(), cap: None, overflow: Vec::new(), error: None }
    }

    /// Whether `more` values fit in the input (or aux) vector under the
    /// cap; records the error if not.
    fn room(&mut self, inputs: bool, more: usize) -> bool {
        let Some((max_in, max_aux)) = self.cap else { return true };
        let (what, len, max) = if inputs { ("public inputs (witness buffer)", self.input.len(), max_in) } else { ("aux variables (witness buffer)", self.aux.len(), max_aux) };
        if len + more <= max {
            return true;
        }
        self.error.get_or_insert(ProverError::ParamsMismatch { what, params: max, circuit: len + more });
        false
    }

    /// `n` more zeros at the end of the input (or aux) vector, or of the
    /// overflow scratch past the cap; the new slice.
    fn grow(&mut self, inputs: bool, n: usize) -> &mut [Scalar] {
        let fits = self.room(inputs, n);
        let v = match (fits, inputs) {
            (false, _) => {
                self.overflow.clear();
                &mut self.overflow
            }
            (true, true) => &mut self.input,
            (true, false) => &mut self.aux,
        };
        let start = v.len();
        grow_zeroed(v, n);
        &mut v[start..]
    }
}

/// `n` more zeros at the end of `v`, written by all cores when there are
/// many (a native witness asks for a whole partition's at once: gigabytes).
fn grow_zeroed(v: &mut Vec<Scalar>, n: usize) {
    const PARALLEL_FROM: usize = 1 << 20;
    if n < PARALLEL_FROM {
        v.resize(v.len() + n, Scalar::ZERO);
        return;
    }
    use rayon::prelude::*;
    v.reserve(n);
    v.spare_capacity_mut()[..n].par_chunks_mut(1 << 16).for_each(|chunk| chunk.fill(std::mem::MaybeUninit::new(Scalar::ZERO)));
    // SAFETY: the n values past the length were just written.
    unsafe { v.set_len(v.len() + n) };
}

impl ConstraintSystem<Scalar> for WitnessOnlyCs {
    type Root = Self;

    /// A sub-circuit's system, made by a circuit that synthesizes parts in
    /// parallel (storage-proofs-post's `FallbackPoStCircuit`): empty, as
    /// bellperson's prover makes it, for the circuit allocates its own
    /// temporary ONE, which [`extend`](ConstraintSystem::extend) drops.
    /// (The root is made with ONE by `synthesize_witness`, not here.)
    fn new() -> Self {
        WitnessOnlyCs { input: Vec::new(), aux: Vec::new(), cap: None, overflow: Vec::new(), error: None }
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let value = f()?;
        if !self.room(false, 1) {
            return Err(SynthesisError::Unsatisfiable);
        }
        self.aux.push(value);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let value = f()?;
        if !self.room(true, 1) {
            return Err(SynthesisError::Unsatisfiable);
        }
        self.input.push(value);
        Ok(Variable::new_unchecked(Index::Input(self.input.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        // The structure is the compiled circuit's; nothing to build.
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

    fn is_extensible() -> bool {
        true
    }

    fn extend(&mut self, other: &Self) {
        if let Some(e) = &other.error {
            self.error.get_or_insert(ProverError::Config(format!("in a sub-circuit: {e}")));
        }
        // A sub-circuit's first input is its own ONE.
        let inputs = other.input.get(1..).unwrap_or_default();
        self.grow(true, inputs.len()).copy_from_slice(inputs);
        self.grow(false, other.aux.len()).copy_from_slice(&other.aux);
    }

    fn is_witness_generator(&self) -> bool {
        true
    }

    fn extend_inputs(&mut self, new_inputs: &[Scalar]) {
        self.grow(true, new_inputs.len()).copy_from_slice(new_inputs);
    }

    fn extend_aux(&mut self, new_aux: &[Scalar]) {
        self.grow(false, new_aux.len()).copy_from_slice(new_aux);
    }

    fn allocate_empty(&mut self, aux_n: usize, inputs_n: usize) -> (&mut [Scalar], &mut [Scalar]) {
        // Both vectors grow first, then both slices are borrowed at once.
        let aux_fits = self.room(false, aux_n);
        let inputs_fit = self.room(true, inputs_n);
        if !(aux_fits && inputs_fit) {
            self.overflow.clear();
            self.overflow.resize(aux_n + inputs_n, Scalar::ZERO);
            return self.overflow.split_at_mut(aux_n);
        }
        let (a0, i0) = (self.aux.len(), self.input.len());
        grow_zeroed(&mut self.aux, aux_n);
        grow_zeroed(&mut self.input, inputs_n);
        (&mut self.aux[a0..], &mut self.input[i0..])
    }

    fn allocate_empty_inputs(&mut self, n: usize) -> &mut [Scalar] {
        self.grow(true, n)
    }

    fn allocate_empty_aux(&mut self, n: usize) -> &mut [Scalar] {
        self.grow(false, n)
    }

    fn inputs_slice(&self) -> &[Scalar] {
        &self.input
    }

    fn aux_slice(&self) -> &[Scalar] {
        &self.aux
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthesizes its parts in sub-systems made by `CS::new()` when the
    /// system is extensible, as storage-proofs-post's PoSt circuit does.
    struct InParts;

    fn part<CS: ConstraintSystem<Scalar>>(cs: &mut CS, k: u64) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(Scalar::from(k + 2)))?;
        let y = cs.alloc_input(|| "y", || Ok(Scalar::from((k + 2) * (k + 2))))?;
        cs.enforce(|| "x * x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        Ok(())
    }

    impl Circuit<Scalar> for InParts {
        fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            if !CS::is_extensible() {
                return (0..3).try_for_each(|k| part(cs, k));
            }
            for k in 0..3 {
                let mut sub = CS::new();
                sub.alloc_input(|| "temp ONE", || Ok(Scalar::ONE))?;
                part(&mut sub, k)?;
                cs.extend(&sub);
            }
            Ok(())
        }
    }

    #[test]
    fn sub_systems_add_their_values_without_their_ones() {
        let (input, aux) = synthesize_witness(InParts).unwrap();
        let full = crate::synthesize(InParts).unwrap();
        assert_eq!(input, full.input, "the inputs of a full synthesis (the serial path)");
        assert_eq!(aux, full.aux);
        assert_eq!(input.len(), 4, "ONE and one input per part");
    }
}
