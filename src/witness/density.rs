//! Which variables a query (A-aux, B-input, B-aux) actually touches.
//!
//! bellperson's parameters omit the bases of variables that never appear in a
//! query, so an MSM over such a query pairs the i-th *set* bit with the i-th
//! base. The bitmap is kept as plain `u64` words so the GPU can use it as is.

/// A growable bitmap with a cached population count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Density {
    words: Vec<u64>,
    len: usize,
    ones: usize,
}

impl Density {
    /// All `len` bits set (a query every variable takes part in).
    pub fn full(len: usize) -> Self {
        let mut words = vec![u64::MAX; len.div_ceil(64)];
        if len % 64 != 0 {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (len % 64)) - 1;
            }
        }
        Density { words, len, ones: len }
    }

    /// A bitmap of `len` bits from its words (bits past `len` must be 0).
    pub fn from_words(words: Vec<u64>, len: usize) -> Self {
        assert_eq!(words.len(), len.div_ceil(64), "one word per 64 bits");
        let ones = words.iter().map(|w| w.count_ones() as usize).sum();
        Density { words, len, ones }
    }

    /// Empties the bitmap, keeping its allocation (a reused witness buffer).
    pub fn clear(&mut self) {
        self.words.clear();
        self.len = 0;
        self.ones = 0;
    }

    /// Room for `bits` bits without reallocating.
    pub fn reserve(&mut self, bits: usize) {
        self.words.reserve(bits.div_ceil(64));
    }

    /// Appends one cleared bit (a newly allocated variable).
    pub fn push_unset(&mut self) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        self.len += 1;
    }

    /// Sets bit `i`; returns false when `i` is out of range.
    pub fn set(&mut self, i: usize) -> bool {
        if i >= self.len {
            return false;
        }
        let (w, b) = (i / 64, 1u64 << (i % 64));
        if self.words[w] & b == 0 {
            self.words[w] |= b;
            self.ones += 1;
        }
        true
    }

    /// Bit `i` (false past the end).
    pub fn get(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// Number of bits (variables).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits (no variables) at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of set bits: how many bases the query has in the parameters.
    pub fn count_ones(&self) -> usize {
        self.ones
    }

    /// The bitmap as little-endian words (bit i is word i/64, bit i%64).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Keeps the items whose bit is set, in order.
    pub fn select<'a, T>(&'a self, items: &'a [T]) -> impl Iterator<Item = &'a T> + 'a {
        items.iter().enumerate().filter(|(i, _)| self.get(*i)).map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_counts_each_bit_once_and_rejects_out_of_range() {
        let mut d = Density::default();
        for _ in 0..130 {
            d.push_unset();
        }
        assert!(d.set(0) && d.set(64) && d.set(129) && d.set(64));
        assert!(!d.set(130));
        assert_eq!(d.count_ones(), 3);
        assert!(d.get(129) && !d.get(128) && !d.get(500));
        let picked: Vec<_> = d.select(&(0..130).collect::<Vec<_>>()).copied().collect();
        assert_eq!(picked, vec![0, 64, 129]);
    }

    #[test]
    fn full_has_exactly_len_bits() {
        for len in [0, 1, 63, 64, 65, 200] {
            let d = Density::full(len);
            assert_eq!(d.count_ones(), len);
            assert_eq!(d.words().iter().map(|w| w.count_ones() as usize).sum::<usize>(), len);
        }
    }
}
