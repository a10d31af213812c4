//! storage-proofs' private inclusion proof (`PoRCircuit` with a leaf and a
//! root already allocated) over Filecoin's Poseidon trees, as values only:
//! per level its index bits, its siblings, the insertion's picks
//! (`insert_2`, `insert_4`, `insert_8`) and the level's Poseidon hash.
//! The path's bits become one public input (returned).

use blstrs::Scalar;
use filecoin_hashers::PoseidonArity;

use super::poseidon::poseidon;
use super::uint32::Sink;

/// Per level: the siblings and the node's position among its arity.
pub(crate) type Path = [(Vec<Option<Scalar>>, Option<usize>)];

/// Writes the path of `leaf` (levels of arity `U`, then one of `V` and
/// one of `W` where those are not zero, as `AuthPath` splits a path) and
/// returns its public input: the path's index bits packed; None for a
/// path without the tree's shape or with a value missing.
pub(crate) fn inclusion<U: PoseidonArity, V: PoseidonArity, W: PoseidonArity>(path: &Path, leaf: Scalar, sink: &mut impl Sink) -> Option<Scalar> {
    let tops = usize::from(W::to_usize() > 0) + usize::from(V::to_usize() > 0);
    let base = path.len().checked_sub(tops)?;
    let mut cur = leaf;
    let mut index: u64 = 0;
    let mut bits = 0u32;
    for (i, (siblings, position)) in path.iter().enumerate() {
        let level = if i < base { 0 } else if i == base && V::to_usize() > 0 { 1 } else { 2 };
        let arity = [U::to_usize(), V::to_usize(), W::to_usize()][level];
        let position = (*position)?;
        let siblings: Vec<Scalar> = siblings.iter().copied().collect::<Option<_>>()?;
        if siblings.len() + 1 != arity || position >= arity || !arity.is_power_of_two() {
            return None;
        }
        let width = arity.trailing_zeros();
        for b in 0..width {
            sink.bit(position >> b & 1 == 1);
        }
        index |= (position as u64) << bits;
        bits += width;
        for &s in &siblings {
            sink.value(s);
        }
        let children = insert(cur, position, &siblings, sink)?;
        cur = match level {
            0 => poseidon(&children, U::PARAMETERS(), sink),
            1 => poseidon(&children, V::PARAMETERS(), sink),
            _ => poseidon(&children, W::PARAMETERS(), sink),
        };
    }
    (bits < 64).then(|| Scalar::from(index))
}

/// `pick`: one allocated number, `a` if `cond` else `b`.
fn pick(sink: &mut impl Sink, cond: bool, a: Scalar, b: Scalar) -> Scalar {
    let v = if cond { a } else { b };
    sink.value(v);
    v
}

/// storage-proofs' `insert`: `element` put at `position` among `others`,
/// through the picks its gadget allocates, in its order.
fn insert(a: Scalar, position: usize, others: &[Scalar], sink: &mut impl Sink) -> Option<Vec<Scalar>> {
    let bit = |i: usize| position >> i & 1 == 1;
    let s = sink;
    Some(match *others {
        [b] => vec![pick(s, bit(0), b, a), pick(s, bit(0), a, b)],
        [b, c, d] => {
            let (b0, b1) = (bit(0), bit(1));
            let p0_x0 = pick(s, b0, b, a);
            let p0 = pick(s, b1, b, p0_x0);
            let p1_x0 = pick(s, b0, a, b);
            let p1 = pick(s, b1, c, p1_x0);
            let p2_x1 = pick(s, b0, d, a);
            let p2 = pick(s, b1, p2_x1, c);
            let p3_x1 = pick(s, b0, a, d);
            let p3 = pick(s, b1, p3_x1, d);
            vec![p0, p1, p2, p3]
        }
        [b, c, d, e, f, g, h] => {
            let (b0, b1, b2) = (bit(0), bit(1), bit(2));
            // The NOR and the AND of the two low bits are allocated first.
            let (nor, and) = (!b0 && !b1, b0 && b1);
            s.bit(nor);
            s.bit(and);
            let p0_xx0 = pick(s, nor, a, b);
            let p0 = pick(s, b2, b, p0_xx0);
            let p1_x00 = pick(s, b0, a, b);
            let p1_xx0 = pick(s, b1, c, p1_x00);
            let p1 = pick(s, b2, c, p1_xx0);
            let p2_x10 = pick(s, b0, d, a);
            let p2_xx0 = pick(s, b1, p2_x10, c);
            let p2 = pick(s, b2, d, p2_xx0);
            let p3_xx0 = pick(s, and, a, d);
            let p3 = pick(s, b2, e, p3_xx0);
            let p4_xx1 = pick(s, nor, a, f);
            let p4 = pick(s, b2, p4_xx1, e);
            let p5_x01 = pick(s, b0, a, f);
            let p5_xx1 = pick(s, b1, g, p5_x01);
            let p5 = pick(s, b2, p5_xx1, f);
            let p6_x11 = pick(s, b0, h, a);
            let p6_xx1 = pick(s, b1, p6_x11, g);
            let p6 = pick(s, b2, p6_xx1, g);
            let p7_xx1 = pick(s, and, a, h);
            let p7 = pick(s, b2, p7_xx1, h);
            vec![p0, p1, p2, p3, p4, p5, p6, p7]
        }
        _ => return None,
    })
}
