//! Shared plumbing for the differential tests: seeding, raw-buffer views of
//! blstrs values, and running the host builds of the element-wise kernels.

#![allow(dead_code)]

pub mod curves;
pub mod fields;
pub mod msm_host;

use std::fmt::Debug;
use std::mem::{align_of, size_of};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Random values per operation; the brief asks for at least 100 000.
pub const RANDOM_CASES: usize = 100_000;

/// A fresh OS-random seed per test (or `CUZK_TEST_SEED` to replay one),
/// printed so a failure can be reproduced; libtest shows it on failure.
pub fn seeded_rng(test: &str) -> (ChaCha8Rng, u64) {
    let seed = match std::env::var("CUZK_TEST_SEED") {
        Ok(s) => s.parse().expect("CUZK_TEST_SEED must be a u64"),
        Err(_) => rand::random(),
    };
    println!("{test}: seed {seed} (replay with CUZK_TEST_SEED={seed})");
    (ChaCha8Rng::seed_from_u64(seed), seed)
}

/// Types whose memory is exactly `size_of::<T>() / 8` little-endian `u64`s
/// with no padding: blstrs field/point wrappers over blst's `#[repr(C)]`
/// limb structs, and plain limb arrays.
///
/// # Safety
/// Implementors must have no padding, size a multiple of 8, align <= 8, and
/// every bit pattern the kernels write must be a valid value.
pub unsafe trait Pod: Copy + Debug {}

unsafe impl Pod for blstrs::Scalar {}
unsafe impl Pod for blstrs::Fp {}
unsafe impl Pod for blstrs::Fp2 {}
unsafe impl Pod for blstrs::G1Affine {}
unsafe impl Pod for blstrs::G1Projective {}
unsafe impl Pod for blstrs::G2Affine {}
unsafe impl Pod for blstrs::G2Projective {}
unsafe impl Pod for u64 {}
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

pub fn limbs_per<T: Pod>() -> usize {
    assert_eq!(size_of::<T>() % 8, 0);
    assert!(align_of::<T>() <= 8);
    size_of::<T>() / 8
}

pub fn as_limbs<T: Pod>(values: &[T]) -> &[u64] {
    let len = values.len() * limbs_per::<T>();
    // SAFETY: Pod guarantees a padding-free u64 layout; align_of::<T>() is 8
    // for every implementor (all contain u64s).
    assert_eq!(align_of::<T>(), 8);
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), len) }
}

pub fn from_limbs<T: Pod>(limbs: &[u64]) -> Vec<T> {
    let per = limbs_per::<T>();
    assert_eq!(limbs.len() % per, 0);
    limbs
        .chunks_exact(per)
        // SAFETY: Pod; read_unaligned since a u64 chunk's alignment (8) may
        // be less than T's in principle.
        .map(|chunk| unsafe { std::ptr::read_unaligned(chunk.as_ptr().cast::<T>()) })
        .collect()
}

pub type UnaryKernel = unsafe fn(*const u64, *mut u64, u32);
pub type BinaryKernel = unsafe fn(*const u64, *const u64, *mut u64, u32);

/// Distinctive filler so an output the kernel forgot to write never
/// happens to equal the expected value.
const UNWRITTEN: u64 = 0xdead_beef_dead_beef;

pub fn run_unary<I: Pod, O: Pod>(kernel: UnaryKernel, input: &[I]) -> Vec<O> {
    let mut out = vec![UNWRITTEN; input.len() * limbs_per::<O>()];
    let n = u32::try_from(input.len()).unwrap();
    // SAFETY: buffers hold `n` elements of the kernel's input/output types.
    unsafe { kernel(as_limbs(input).as_ptr(), out.as_mut_ptr(), n) };
    from_limbs(&out)
}

pub fn run_binary<A: Pod, B: Pod, O: Pod>(kernel: BinaryKernel, a: &[A], b: &[B]) -> Vec<O> {
    assert_eq!(a.len(), b.len());
    let mut out = vec![UNWRITTEN; a.len() * limbs_per::<O>()];
    let n = u32::try_from(a.len()).unwrap();
    // SAFETY: buffers hold `n` elements of the kernel's input/output types.
    unsafe {
        kernel(
            as_limbs(a).as_ptr(),
            as_limbs(b).as_ptr(),
            out.as_mut_ptr(),
            n,
        )
    };
    from_limbs(&out)
}

/// Collects mismatches and fails with the seed and the first few cases.
pub struct Mismatches {
    what: String,
    seed: u64,
    count: usize,
    shown: Vec<String>,
}

impl Mismatches {
    pub fn new(what: &str, seed: u64) -> Self {
        Self {
            what: what.to_string(),
            seed,
            count: 0,
            shown: Vec::new(),
        }
    }

    pub fn record(&mut self, describe: impl FnOnce() -> String) {
        self.count += 1;
        if self.shown.len() < 5 {
            self.shown.push(describe());
        }
    }

    pub fn check(&mut self, ok: bool, describe: impl FnOnce() -> String) {
        if !ok {
            self.record(describe);
        }
    }

    pub fn finish(self, total: usize) {
        assert!(total > 0, "{}: no cases ran", self.what);
        if self.count > 0 {
            panic!(
                "{}: {} of {} cases wrong (seed {}):\n{}",
                self.what,
                self.count,
                total,
                self.seed,
                self.shown.join("\n")
            );
        }
    }
}

/// Bit-exact comparison of kernel output against expected blstrs values.
pub fn assert_same_limbs<T: Pod>(
    what: &str,
    seed: u64,
    got: &[T],
    expected: &[T],
    input: impl Fn(usize) -> String,
) {
    assert_eq!(got.len(), expected.len());
    let mut mismatches = Mismatches::new(what, seed);
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        let same = as_limbs(std::slice::from_ref(g)) == as_limbs(std::slice::from_ref(e));
        mismatches.check(same, || {
            format!(
                "  [{i}] input {}\n    got      {g:?}\n    expected {e:?}",
                input(i)
            )
        });
    }
    mismatches.finish(got.len());
}
