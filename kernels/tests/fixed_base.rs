//! Fixed-base multiplication and the parameter file's encoding (host
//! builds of the kernels) against blstrs: `(G · s).to_uncompressed()`.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk_kernels::fixed_base::{digit, entries_per_window, windows};
use cuzk_kernels::gpu::fixed_base as k;
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::SeedableRng;

/// The window table of `g` for `bits`-bit windows, as the kernels read it.
fn table<P: Group + Curve>(g: P, bits: u32) -> Vec<P::AffineRepr>
where
    P::AffineRepr: Copy + Default,
{
    let mut points = Vec::new();
    let mut base = g;
    for _ in 0..windows(bits) {
        let mut acc = base;
        for _ in 0..entries_per_window(bits) {
            points.push(acc);
            acc += base;
        }
        for _ in 0..bits {
            base = base.double();
        }
    }
    let mut affine = vec![P::AffineRepr::default(); points.len()];
    P::batch_normalize(&points, &mut affine);
    affine
}

fn words<T>(v: &[T]) -> &[u64] {
    // SAFETY: blstrs' affine points are blst's layout, whole u64 words.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v) / 8) }
}

fn canonical(s: &Scalar) -> [u64; 4] {
    let b = s.to_bytes_le();
    std::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()))
}

fn scalars(rng: &mut rand_chacha::ChaCha8Rng) -> Vec<Scalar> {
    let mut s = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(2), Scalar::from(u64::MAX), Scalar::ROOT_OF_UNITY];
    s.extend((0..250).map(|i| Scalar::from(2).pow_vartime([i])));
    s.extend((0..60).map(|_| Scalar::random(&mut *rng)));
    // Repeats: equal accumulators inside one batch.
    s.extend_from_within(0..8);
    s
}

#[test]
fn digits_cover_the_scalar() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for bits in [1, 4, 7, 8, 12, 13, 16] {
        for _ in 0..20 {
            let s = Scalar::random(&mut rng);
            let c = canonical(&s);
            let mut back = Scalar::ZERO;
            for k in (0..windows(bits)).rev() {
                back = back * Scalar::from(1u64 << bits) + Scalar::from(digit(&c, k, bits) as u64);
            }
            assert_eq!(back, s, "{bits}-bit windows");
        }
    }
}

/// A curve's kernels and sizes: (multiply, encode, XYZZ words, base-field
/// words, encoded bytes).
type Kernels = (unsafe fn(*const u64, u32, *const u64, u32, *mut u64), unsafe fn(*const u64, u32, u32, *mut u64, *mut u64), usize, usize, usize);

/// Every scalar times `g` through the kernels, for each window size and
/// batch size, against blstrs' `(g · s).to_uncompressed()`.
fn check<P>(g: P, s: &[Scalar], bits_list: &[u32], batches: &[u32], (multiply, encode, xyzz_words, base_words, bytes_per_point): Kernels, want: impl Fn(&Scalar) -> Vec<u8>)
where
    P: Group<Scalar = Scalar> + Curve,
    P::AffineRepr: Copy + Default,
{
    let flat: Vec<u64> = s.iter().flat_map(canonical).collect();
    for &bits in bits_list {
        let t = table(g, bits);
        let mut xyzz = vec![0u64; s.len() * xyzz_words];
        // SAFETY: the buffers have the kernels' sizes.
        unsafe { multiply(words(&t).as_ptr(), bits, flat.as_ptr(), s.len() as u32, xyzz.as_mut_ptr()) };
        for &batch in batches {
            let mut scratch = vec![0u64; s.len() * base_words];
            let mut out = vec![0u64; s.len() * bytes_per_point / 8];
            unsafe { encode(xyzz.as_ptr(), s.len() as u32, batch, scratch.as_mut_ptr(), out.as_mut_ptr()) };
            let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
            for (i, e) in s.iter().enumerate() {
                assert_eq!(&bytes[bytes_per_point * i..bytes_per_point * (i + 1)], &want(e)[..], "bits {bits}, batch {batch}, scalar {i}");
            }
        }
    }
}

#[test]
fn g1_fixed_base_matches_blstrs_and_encodes_as_bellperson() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let g = G1Projective::random(&mut rng);
    let s = scalars(&mut rng);
    check(g, &s, &[4, 8, 13], &[1, 7, 64, 1000], (k::fixed_base_g1, k::encode_g1_batches, 24, 6, 96), |e| (g * e).to_affine().to_uncompressed().to_vec());
    // The identity's encoding is what bellperson writes and reads back.
    assert_eq!(G1Affine::identity().to_uncompressed()[0], 0x40);
}

#[test]
fn g2_fixed_base_matches_blstrs_and_encodes_as_bellperson() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let g = G2Projective::random(&mut rng);
    let s = scalars(&mut rng);
    check(g, &s, &[5, 8], &[1, 9, 1000], (k::fixed_base_g2, k::encode_g2_batches, 48, 12, 192), |e| (g * e).to_affine().to_uncompressed().to_vec());
    assert_eq!(G2Affine::identity().to_uncompressed()[0], 0x40);
}
