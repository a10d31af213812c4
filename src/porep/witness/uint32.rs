//! bellperson's `UInt32` and `Boolean` as values only: a 32-bit word whose
//! bits are each a constant or an allocated bit (possibly negated), and
//! the gadget operations SHA-256 uses, allocating exactly what the gadgets
//! allocate, in their order, into a [`Sink`].
//!
//! The rules followed (bellpepper-core 0.2 `boolean.rs`, bellperson 0.27
//! `uint32.rs`): an XOR of two allocated bits allocates their XOR; one with
//! a constant allocates nothing. AND allocates only when neither side is a
//! constant. `sha256_ch` and `sha256_maj` reduce to AND or to a constant
//! when a side is constant (in the gadgets' match order) and otherwise
//! allocate the result (MAJ then also `b AND c`). `addmany` allocates the
//! bits of the full sum, carries included, unless every operand bit is a
//! constant.

use blstrs::Scalar;
use ff::Field;

/// Where a witness generator puts the values it allocates, in order.
pub(crate) trait Sink {
    /// An allocated bit.
    fn bit(&mut self, value: bool);
    /// An allocated field element.
    fn value(&mut self, value: Scalar);
    /// The bits of `values` at the set positions of `mask`, lowest first.
    #[inline]
    fn masked_bits(&mut self, mut mask: u32, values: u32) {
        while mask != 0 {
            let at = mask.trailing_zeros();
            self.bit(values >> at & 1 == 1);
            mask &= mask - 1;
        }
    }
}

/// Counts what a generator allocates (the length of its piece).
#[derive(Default)]
pub(crate) struct Count(pub usize);

impl Sink for Count {
    #[inline]
    fn bit(&mut self, _: bool) {
        self.0 += 1;
    }
    #[inline]
    fn value(&mut self, _: Scalar) {
        self.0 += 1;
    }
    #[inline]
    fn masked_bits(&mut self, mask: u32, _: u32) {
        self.0 += mask.count_ones() as usize;
    }
}

/// Writes into a slice of the witness; what does not fit is counted, not
/// written (the caller checks [`SliceSink::written`] against the length).
pub(crate) struct SliceSink<'a> {
    out: &'a mut [Scalar],
    at: usize,
}

impl<'a> SliceSink<'a> {
    pub fn new(out: &'a mut [Scalar]) -> Self {
        SliceSink { out, at: 0 }
    }

    /// How many values were put (written or not).
    pub fn written(&self) -> usize {
        self.at
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn bit(&mut self, value: bool) {
        if let Some(slot) = self.out.get_mut(self.at) {
            *slot = if value { Scalar::ONE } else { Scalar::ZERO };
        }
        self.at += 1;
    }
    #[inline]
    fn value(&mut self, value: Scalar) {
        if let Some(slot) = self.out.get_mut(self.at) {
            *slot = value;
        }
        self.at += 1;
    }
}

impl Sink for Vec<Scalar> {
    fn bit(&mut self, value: bool) {
        self.push(if value { Scalar::ONE } else { Scalar::ZERO });
    }
    fn value(&mut self, value: Scalar) {
        self.push(value);
    }
}

/// One bit as the gadgets see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Constant(bool),
    /// An allocated bit: its value as used (`value`), and whether it is the
    /// negation of the allocated variable (`Boolean::Not`).
    Var { value: bool, negated: bool },
}

impl Bit {
    fn value(self) -> bool {
        match self {
            Bit::Constant(b) => b,
            Bit::Var { value, .. } => value,
        }
    }

    fn not(self) -> Bit {
        match self {
            Bit::Constant(b) => Bit::Constant(!b),
            Bit::Var { value, negated } => Bit::Var { value: !value, negated: !negated },
        }
    }

    /// A freshly allocated bit of `value`.
    fn alloc(sink: &mut impl Sink, value: bool) -> Bit {
        sink.bit(value);
        Bit::Var { value, negated: false }
    }

    /// `Boolean::and`.
    fn and(self, other: Bit, sink: &mut impl Sink) -> Bit {
        match (self, other) {
            (Bit::Constant(false), _) | (_, Bit::Constant(false)) => Bit::Constant(false),
            (Bit::Constant(true), x) | (x, Bit::Constant(true)) => x,
            (a, b) => Bit::alloc(sink, a.value() & b.value()),
        }
    }

    /// `Boolean::sha256_ch`: (a AND b) XOR (NOT a AND c).
    fn ch(a: Bit, b: Bit, c: Bit, sink: &mut impl Sink) -> Bit {
        let value = (a.value() & b.value()) ^ (!a.value() & c.value());
        match (a, b, c) {
            (Bit::Constant(_), Bit::Constant(_), Bit::Constant(_)) => Bit::Constant(value),
            (Bit::Constant(false), _, c) => c,
            (a, Bit::Constant(false), c) => a.not().and(c, sink),
            (a, b, Bit::Constant(false)) => a.and(b, sink),
            (a, b, Bit::Constant(true)) => a.and(b.not(), sink).not(),
            (a, Bit::Constant(true), c) => a.not().and(c.not(), sink).not(),
            _ => Bit::alloc(sink, value),
        }
    }

    /// `Boolean::sha256_maj`: (a AND b) XOR (a AND c) XOR (b AND c).
    fn maj(a: Bit, b: Bit, c: Bit, sink: &mut impl Sink) -> Bit {
        let value = (a.value() & b.value()) ^ (a.value() & c.value()) ^ (b.value() & c.value());
        match (a, b, c) {
            (Bit::Constant(_), Bit::Constant(_), Bit::Constant(_)) => Bit::Constant(value),
            (Bit::Constant(false), b, c) => b.and(c, sink),
            (a, Bit::Constant(false), c) => a.and(c, sink),
            (a, b, Bit::Constant(false)) => a.and(b, sink),
            (a, b, Bit::Constant(true)) => a.not().and(b.not(), sink).not(),
            (a, Bit::Constant(true), c) => a.not().and(c.not(), sink).not(),
            (Bit::Constant(true), b, c) => b.not().and(c.not(), sink).not(),
            _ => {
                let maj = Bit::alloc(sink, value);
                b.and(c, sink);
                maj
            }
        }
    }
}

/// A `UInt32` as values: bit i (least significant first) is a constant
/// where `constant` has it set, else an allocated bit, negated where
/// `negated` has it set (never at a constant). `value` holds every bit's
/// value as used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub value: u32,
    constant: u32,
    negated: u32,
}

impl Word {
    /// `UInt32::constant`.
    pub const fn constant(value: u32) -> Word {
        Word { value, constant: !0, negated: 0 }
    }

    /// 32 allocated bits of `value`.
    pub const fn allocated(value: u32) -> Word {
        Word { value, constant: 0, negated: 0 }
    }

    /// Allocated bits of `value` except those of `constant_mask`, which are
    /// constants (of `value`'s bits there).
    pub const fn with_constants(value: u32, constant_mask: u32) -> Word {
        Word { value, constant: constant_mask, negated: 0 }
    }

    /// Any word: `negated` must be clear where `constant` is set.
    #[cfg(test)]
    pub fn from_masks(value: u32, constant: u32, negated: u32) -> Word {
        assert_eq!(constant & negated, 0);
        Word { value, constant, negated }
    }

    fn bit(self, i: u32) -> Bit {
        let value = self.value >> i & 1 == 1;
        if self.constant >> i & 1 == 1 {
            Bit::Constant(value)
        } else {
            Bit::Var { value, negated: self.negated >> i & 1 == 1 }
        }
    }

    fn from_bits(bits: [Bit; 32]) -> Word {
        let mut w = Word { value: 0, constant: 0, negated: 0 };
        for (i, b) in bits.into_iter().enumerate() {
            w.value |= (b.value() as u32) << i;
            match b {
                Bit::Constant(_) => w.constant |= 1 << i,
                Bit::Var { negated, .. } => w.negated |= (negated as u32) << i,
            }
        }
        w
    }

    /// The allocated variables' own values (a negated bit's variable holds
    /// the opposite of its value as used).
    fn variables(self) -> u32 {
        self.value ^ self.negated
    }

    pub fn rotr(self, by: u32) -> Word {
        Word { value: self.value.rotate_right(by), constant: self.constant.rotate_right(by), negated: self.negated.rotate_right(by) }
    }

    pub fn shr(self, by: u32) -> Word {
        Word { value: self.value >> by, constant: self.constant >> by | !(!0u32 >> by), negated: self.negated >> by }
    }

    /// `UInt32::xor`: bit by bit, lowest first; two allocated bits make a
    /// new one holding their variables' XOR (negated when exactly one of
    /// them was), a constant passes the other bit through or negates it.
    pub fn xor(self, other: Word, sink: &mut impl Sink) -> Word {
        let allocated = !self.constant & !other.constant;
        sink.masked_bits(allocated, self.variables() ^ other.variables());
        let constant = self.constant & other.constant;
        let flips = (self.constant & self.value) ^ (other.constant & other.value);
        Word { value: self.value ^ other.value, constant, negated: (self.negated ^ other.negated ^ flips) & !constant }
    }

    /// `UInt32::sha256_ch`.
    pub fn ch(a: Word, b: Word, c: Word, sink: &mut impl Sink) -> Word {
        if (a.constant | b.constant | c.constant) == 0 {
            let value = (a.value & b.value) ^ (!a.value & c.value);
            sink.masked_bits(!0, value);
            return Word::allocated(value);
        }
        Word::from_bits(std::array::from_fn(|i| Bit::ch(a.bit(i as u32), b.bit(i as u32), c.bit(i as u32), sink)))
    }

    /// `UInt32::sha256_maj`.
    pub fn maj(a: Word, b: Word, c: Word, sink: &mut impl Sink) -> Word {
        if (a.constant | b.constant | c.constant) == 0 {
            let value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
            let bc = b.value & c.value;
            for i in 0..32 {
                sink.bit(value >> i & 1 == 1);
                sink.bit(bc >> i & 1 == 1);
            }
            return Word::allocated(value);
        }
        Word::from_bits(std::array::from_fn(|i| Bit::maj(a.bit(i as u32), b.bit(i as u32), c.bit(i as u32), sink)))
    }

    /// `UInt32::addmany` (2 to 10 operands): the sum's bits up to the
    /// largest possible sum's length, carries included; a constant when
    /// every operand is one.
    pub fn addmany(operands: &[Word], sink: &mut impl Sink) -> Word {
        debug_assert!((2..=10).contains(&operands.len()));
        let sum: u64 = operands.iter().map(|w| u64::from(w.value)).sum();
        if operands.iter().all(|w| w.constant == !0) {
            return Word::constant(sum as u32);
        }
        let max = operands.len() as u64 * u64::from(u32::MAX);
        let bits = 64 - max.leading_zeros();
        for i in 0..bits {
            sink.bit(sum >> i & 1 == 1);
        }
        Word::allocated(sum as u32)
    }
}
