//! neptune's Poseidon gadget (`neptune::circuit::poseidon_hash`, the one
//! Filecoin's trees and columns use) as values only: per S-box, the input
//! when it is still a linear combination, then x², x⁴ and x⁵ (plus the
//! round keys where the gadget adds them); the MDS products allocate
//! nothing; the result is allocated at the end.

use blstrs::Scalar;
use ff::Field;
use neptune::poseidon::PoseidonConstants;
use neptune::Arity;

use super::uint32::Sink;

/// A state element: its value, and whether the gadget holds it as an
/// allocated number (else as a linear combination, allocated when an
/// S-box needs it).
#[derive(Clone, Copy)]
struct Element {
    value: Scalar,
    allocated: bool,
}

/// The hash of `preimage` (allocated numbers) and the values the gadget
/// allocates on the way, into `sink`.
pub(crate) fn poseidon<A: Arity<Scalar>>(preimage: &[Scalar], constants: &PoseidonConstants<Scalar, A>, sink: &mut impl Sink) -> Scalar {
    let mut state = Vec::with_capacity(constants.width());
    state.push(Element { value: constants.domain_tag, allocated: false });
    state.extend(preimage.iter().map(|&value| Element { value, allocated: true }));
    let mut p = Permutation { state, constants, offset: 0, round: 0 };
    p.full_round(true, false, sink);
    for _ in 1..constants.full_rounds / 2 {
        p.full_round(false, false, sink);
    }
    for _ in 0..constants.partial_rounds {
        p.partial_round(sink);
    }
    for _ in 0..constants.full_rounds / 2 - 1 {
        p.full_round(false, false, sink);
    }
    p.full_round(false, true, sink);
    ensure_allocated(p.state[1], sink)
}

/// `Elt::ensure_allocated`: a linear combination becomes a number.
fn ensure_allocated(e: Element, sink: &mut impl Sink) -> Scalar {
    if !e.allocated {
        sink.value(e.value);
    }
    e.value
}

struct Permutation<'a, A: Arity<Scalar>> {
    state: Vec<Element>,
    constants: &'a PoseidonConstants<Scalar, A>,
    /// Into `compressed_round_constants`.
    offset: usize,
    round: usize,
}

impl<A: Arity<Scalar>> Permutation<'_, A> {
    fn keys(&mut self, n: usize) -> &[Scalar] {
        let keys = &self.constants.compressed_round_constants[self.offset..self.offset + n];
        self.offset += n;
        keys
    }

    fn full_round(&mut self, first: bool, last: bool, sink: &mut impl Sink) {
        let width = self.state.len();
        let pre: Vec<Scalar> = if first { self.keys(width).to_vec() } else { Vec::new() };
        let post: Vec<Scalar> = if first || !last { self.keys(width).to_vec() } else { Vec::new() };
        for i in 0..width {
            let e = self.state[i];
            self.state[i] = if first && i == 0 {
                // The domain tag's S-box is a constant.
                let mut x = e.value + pre[0];
                x = x.square().square() * x + post[0];
                Element { value: x, allocated: false }
            } else if first {
                let l = ensure_allocated(e, sink);
                let s = l + pre[i];
                let l2 = s.square();
                let l4 = l2.square();
                let l5 = l4 * s + post[i];
                sink.value(l2);
                sink.value(l4);
                sink.value(l5);
                Element { value: l5, allocated: true }
            } else {
                s_box(e, post.get(i).copied(), sink)
            };
        }
        self.mds();
    }

    fn partial_round(&mut self, sink: &mut impl Sink) {
        let key = self.keys(1)[0];
        self.state[0] = s_box(self.state[0], Some(key), sink);
        self.mds();
    }

    /// `product_mds`: the pre-sparse matrix before the partial rounds, the
    /// sparse ones during them, the MDS matrix otherwise.
    fn mds(&mut self) {
        let c = self.constants;
        let sparse_offset = c.half_full_rounds - 1;
        let width = self.state.len();
        let values: Vec<Scalar> = self.state.iter().map(|e| e.value).collect();
        let dense = |m: &Vec<Vec<Scalar>>| (0..width).map(|j| (0..width).map(|i| values[i] * m[i][j]).sum::<Scalar>()).collect::<Vec<_>>();
        let next = if self.round == sparse_offset {
            dense(&c.pre_sparse_matrix)
        } else if self.round > sparse_offset && self.round < c.half_full_rounds + c.partial_rounds {
            let sparse = &c.sparse_matrixes[self.round - sparse_offset - 1];
            let mut next = vec![values.iter().zip(&sparse.w_hat).map(|(v, w)| *v * w).sum::<Scalar>()];
            next.extend((1..width).map(|j| values[j] + values[0] * sparse.v_rest[j - 1]));
            next
        } else {
            dense(&c.mds_matrices.m)
        };
        self.state = next.into_iter().map(|value| Element { value, allocated: false }).collect();
        self.round += 1;
    }
}

/// `quintic_s_box`: x (allocated if it was not), x², x⁴, x⁵ + key.
fn s_box(e: Element, key: Option<Scalar>, sink: &mut impl Sink) -> Element {
    let l = ensure_allocated(e, sink);
    let l2 = l.square();
    let l4 = l2.square();
    let mut l5 = l4 * l;
    if let Some(k) = key {
        l5 += k;
    }
    sink.value(l2);
    sink.value(l4);
    sink.value(l5);
    Element { value: l5, allocated: true }
}
