//! A witness's aux values as classes (0, 1, other) plus the other values,
//! for an upload of ~3% of the bytes (the layout: `cuzk_kernels::
//! witness_classes`). Made when a job is created (off the upload's path);
//! the GPU expands it into the worker's slot.
// Only GPU provers encode (the host-run kernel code is tested everywhere).
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use blstrs::Scalar;
use cuzk_kernels::witness_classes::{others_in, CHUNK_VALUES, CHUNK_WORDS, CLASS_ONE, CLASS_OTHER, CLASS_ZERO, VALUES_PER_WORD};
use ff::Field;
use rayon::prelude::*;

/// The classed form of a list of values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClassedValues {
    /// 2 bits per value, 32 values per word.
    pub classes: Vec<u64>,
    /// Per chunk of `CHUNK_VALUES` values, the index of its first other value.
    pub chunk_start: Vec<u32>,
    /// The values other than 0 and 1, in order.
    pub others: Vec<Scalar>,
}

impl ClassedValues {
    /// The classes of `values`, or None when more than `max_others` of
    /// them are neither 0 nor 1 (then the values themselves are smaller to
    /// send) or there are 2^32 or more.
    pub fn encode(values: &[Scalar], max_others: usize) -> Option<Self> {
        u32::try_from(values.len()).ok()?;
        let class = class_of;
        let chunks: Vec<([u64; CHUNK_WORDS], u32)> = values
            .par_chunks(CHUNK_VALUES)
            .map(|chunk| {
                let mut words = [0u64; CHUNK_WORDS];
                for (j, v) in chunk.iter().enumerate() {
                    words[j / VALUES_PER_WORD] |= class(v) << (2 * (j % VALUES_PER_WORD));
                }
                let others = words.iter().map(|&w| others_in(w).count_ones()).sum();
                (words, others)
            })
            .collect();
        let total: usize = chunks.iter().map(|c| c.1 as usize).sum();
        if total > max_others {
            return None;
        }
        let mut chunk_start = Vec::with_capacity(chunks.len());
        let mut at = 0u32;
        for c in &chunks {
            chunk_start.push(at);
            at += c.1;
        }
        let words = values.len().div_ceil(VALUES_PER_WORD);
        let mut classes: Vec<u64> = chunks.iter().flat_map(|c| c.0).collect();
        classes.truncate(words);
        let others = values
            .par_chunks(CHUNK_VALUES)
            .zip(&chunks)
            .flat_map_iter(|(chunk, &(_, n))| chunk.iter().filter(move |v| n > 0 && class(v) == CLASS_OTHER).copied())
            .collect();
        Some(ClassedValues { classes, chunk_start, others })
    }

    /// Bytes sent (classes, chunk starts, others).
    pub fn bytes(&self) -> usize {
        self.classes.len() * 8 + self.chunk_start.len() * 4 + self.others.len() * 32
    }

    /// Words of the packed form the kernel reads: the classes, the chunk
    /// starts two to a word, the others' limbs.
    pub fn words(&self) -> usize {
        self.classes.len() + self.chunk_start.len().div_ceil(2) + self.others.len() * 4
    }

    /// The chunk starts two to a word, as the kernel reads them.
    pub fn chunk_words(&self) -> impl Iterator<Item = u64> + '_ {
        self.chunk_start.chunks(2).map(|p| p[0] as u64 | (*p.get(1).unwrap_or(&0) as u64) << 32)
    }

    /// The most words the packed form of `n` values with at most
    /// `max_others` others takes.
    pub fn packed_capacity(n: usize, max_others: usize) -> usize {
        n.div_ceil(VALUES_PER_WORD) + n.div_ceil(CHUNK_VALUES).div_ceil(2) + max_others * 4
    }

    /// Writes the packed form into `out`, replacing its contents, if it
    /// fits `out`'s capacity (`out` never reallocates: it may be pinned);
    /// else leaves `out` empty and returns false.
    pub fn pack_into(&self, out: &mut Vec<u64>) -> bool {
        out.clear();
        if self.words() > out.capacity() {
            return false;
        }
        out.extend_from_slice(&self.classes);
        out.extend(self.chunk_words());
        out.extend(self.others.iter().flat_map(limbs));
        true
    }
}

/// Others a pool buffer's pinned area for classes has room for: one in 8
/// values (a PoRep partition's witness has about 2%, the tests' synthetic
/// circuits about 10%); 0.55 GB of pinned memory per buffer at 32 GiB. A
/// witness with more goes up through the staging chunks instead.
pub(crate) const PINNED_OTHERS_PER: usize = 8;

/// 0, 1 or other, compared as limbs (a Scalar is its four Montgomery
/// limbs): plain comparisons, where Scalar's own are constant-time.
fn class_of(v: &Scalar) -> u64 {
    match limbs(v) {
        [0, 0, 0, 0] => CLASS_ZERO,
        l if l == limbs(&Scalar::ONE) => CLASS_ONE,
        _ => CLASS_OTHER,
    }
}

/// How many of `values` are neither 0 nor 1 (what an MSM over them sizes
/// its window by).
pub(crate) fn count_others(values: &[Scalar]) -> usize {
    values.par_iter().filter(|v| class_of(v) == CLASS_OTHER).count()
}

/// A scalar's Montgomery limbs.
fn limbs(v: &Scalar) -> [u64; 4] {
    // SAFETY: a Scalar is a blst_fr, four u64 limbs (asserted where the
    // GPU code reinterprets scalars, `gpu::elementwise::scalar_limbs`).
    unsafe { std::mem::transmute::<Scalar, [u64; 4]>(*v) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{RngCore, SeedableRng};

    /// Expands with the kernel's own code (run on the host).
    fn expand(c: &ClassedValues, n: usize) -> Vec<Scalar> {
        let mut out = vec![Scalar::ZERO; n];
        // SAFETY: the buffers are as the kernel expects (encode's layout);
        // a Scalar is its four Montgomery limbs, as the kernels' Fr.
        unsafe { cuzk_kernels::gpu::r1cs::witness_expand(c.classes.as_ptr(), c.chunk_start.as_ptr(), c.others.as_ptr().cast(), out.as_mut_ptr().cast(), n as u32) };
        out
    }

    #[test]
    fn the_packed_form_expands_to_the_values_and_never_grows_its_buffer() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
        for n in [1, 255, 257, 5_001] {
            let values: Vec<Scalar> = (0..n).map(|_| if rng.next_u32() % 16 == 0 { Scalar::random(&mut rng) } else { Scalar::from(rng.next_u32() as u64 % 2) }).collect();
            let c = ClassedValues::encode(&values, n).expect("fits");
            let capacity = ClassedValues::packed_capacity(n, c.others.len());
            assert_eq!(capacity, c.words(), "n = {n}");
            let mut packed = Vec::with_capacity(capacity);
            let at = packed.as_ptr();
            assert!(c.pack_into(&mut packed));
            assert_eq!((packed.len(), packed.as_ptr()), (c.words(), at), "n = {n}: filled in place");
            let (chunks_at, others_at) = (c.classes.len(), c.classes.len() + c.chunk_start.len().div_ceil(2));
            let mut out = vec![Scalar::ZERO; n];
            // SAFETY: the packed form is the kernel's layout (classes, chunk
            // starts as u32 pairs, others' limbs); a Scalar is its limbs.
            unsafe {
                cuzk_kernels::gpu::r1cs::witness_expand(packed.as_ptr(), packed[chunks_at..].as_ptr().cast(), packed[others_at..].as_ptr().cast(), out.as_mut_ptr().cast(), n as u32)
            };
            assert_eq!(out, values, "n = {n}");
            // One word short: refused, left empty, not reallocated.
            let mut short = Vec::with_capacity(c.words() - 1);
            let at = short.as_ptr();
            assert!(!c.pack_into(&mut short));
            assert!(short.is_empty() && short.as_ptr() == at && short.capacity() == c.words() - 1);
        }
    }

    #[test]
    fn classes_round_trip_through_the_kernel_code() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
        for n in [0, 1, 31, 32, 33, 255, 256, 257, 1000, 70_001] {
            let values: Vec<Scalar> = (0..n)
                .map(|_| match rng.next_u32() % 100 {
                    0..=50 => Scalar::ZERO,
                    51..=97 => Scalar::ONE,
                    _ => Scalar::random(&mut rng),
                })
                .collect();
            let c = ClassedValues::encode(&values, n).expect("fits");
            assert_eq!(expand(&c, n), values, "n = {n}");
            assert!(n < 1000 || c.bytes() * 10 < n * 32, "{} bytes for {n} values", c.bytes());
        }
        // All others: refused under a smaller limit, fine under n.
        let values: Vec<Scalar> = (0..300).map(|_| Scalar::random(&mut rng)).collect();
        assert!(ClassedValues::encode(&values, 299).is_none());
        assert_eq!(expand(&ClassedValues::encode(&values, 300).unwrap(), 300), values);
    }
}
