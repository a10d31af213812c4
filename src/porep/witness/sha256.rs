//! bellperson's SHA-256 gadget (`sha256`, `sha256_compression_function`)
//! as values only: the same additions, XORs, Ch and Maj in the same order,
//! so the same aux values come out (see `uint32.rs` for what each step
//! allocates). MultiEq only batches constraints; it allocates nothing.

use super::uint32::{Sink, Word};

const ROUND_CONSTANTS: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// The gadget's `sha256`: `message` (big-endian words, as
/// `UInt32::from_bits_be` reads each 32 bits of the input) padded with
/// constants, then one compression per block from the constant IV. The
/// digest's words, in order.
pub(crate) fn sha256(message: &[Word], sink: &mut impl Sink) -> [Word; 8] {
    let mut state = IV.map(Word::constant);
    let bits = message.len() as u64 * 32;
    let mut block = [Word::constant(0); 16];
    let mut filled = 0;
    let padding = padding_words(message.len());
    for &w in message.iter().chain(&padding) {
        block[filled] = w;
        filled += 1;
        if filled == 16 {
            state = compress(&block, &state, sink);
            filled = 0;
        }
    }
    debug_assert_eq!(filled, 0, "{bits} bits padded to whole blocks");
    state
}

/// The constant words the gadget appends to `words` words of message: a
/// one bit, zeros, the length in bits (64 bits, big-endian).
fn padding_words(words: usize) -> Vec<Word> {
    let bits = words as u64 * 32;
    let mut pad = vec![Word::constant(0x8000_0000)];
    while (words + pad.len() + 2) % 16 != 0 {
        pad.push(Word::constant(0));
    }
    pad.push(Word::constant((bits >> 32) as u32));
    pad.push(Word::constant(bits as u32));
    pad
}

/// The gadget's `sha256_compression_function`.
fn compress(input: &[Word; 16], current: &[Word; 8], sink: &mut impl Sink) -> [Word; 8] {
    let mut w = [Word::constant(0); 64];
    w[..16].copy_from_slice(input);
    for i in 16..64 {
        let s0 = w[i - 15].rotr(7).xor(w[i - 15].rotr(18), sink).xor(w[i - 15].shr(3), sink);
        let s1 = w[i - 2].rotr(17).xor(w[i - 2].rotr(19), sink).xor(w[i - 2].shr(10), sink);
        w[i] = Word::addmany(&[w[i - 16], s0, w[i - 7], s1], sink);
    }

    // `a` and `e` are sums the gadget defers until they are read (so that
    // one addition takes all their operands).
    let mut a = Deferred::Concrete(current[0]);
    let [_, mut b, mut c, mut d, _, mut f, mut g, mut h] = *current;
    let mut e = Deferred::Concrete(current[4]);
    for i in 0..64 {
        let new_e = e.compute(&[], sink);
        let s1 = new_e.rotr(6).xor(new_e.rotr(11), sink).xor(new_e.rotr(25), sink);
        let ch = Word::ch(new_e, f, g, sink);
        let temp1 = [h, s1, ch, Word::constant(ROUND_CONSTANTS[i]), w[i]];

        let new_a = a.compute(&[], sink);
        let s0 = new_a.rotr(2).xor(new_a.rotr(13), sink).xor(new_a.rotr(22), sink);
        let maj = Word::maj(new_a, b, c, sink);

        h = g;
        g = f;
        f = new_e;
        e = Deferred::sum(&temp1, &[d]);
        d = c;
        c = b;
        b = new_a;
        a = Deferred::sum(&temp1, &[s0, maj]);
    }

    [
        a.compute(&[current[0]], sink),
        Word::addmany(&[current[1], b], sink),
        Word::addmany(&[current[2], c], sink),
        Word::addmany(&[current[3], d], sink),
        e.compute(&[current[4]], sink),
        Word::addmany(&[current[5], f], sink),
        Word::addmany(&[current[6], g], sink),
        Word::addmany(&[current[7], h], sink),
    ]
}

/// The gadget's `Maybe`: a word, or the operands of a sum not yet made.
enum Deferred {
    Concrete(Word),
    Sum { operands: [Word; 10], len: usize },
}

impl Deferred {
    fn sum(first: &[Word], then: &[Word]) -> Deferred {
        let mut operands = [Word::constant(0); 10];
        operands[..first.len()].copy_from_slice(first);
        operands[first.len()..first.len() + then.len()].copy_from_slice(then);
        Deferred::Sum { operands, len: first.len() + then.len() }
    }

    /// The word: a deferred sum is made now, with `others` added to it.
    fn compute(&self, others: &[Word], sink: &mut impl Sink) -> Word {
        match *self {
            Deferred::Concrete(w) => w,
            Deferred::Sum { mut operands, len } => {
                operands[len..len + others.len()].copy_from_slice(others);
                Word::addmany(&operands[..len + others.len()], sink)
            }
        }
    }
}
