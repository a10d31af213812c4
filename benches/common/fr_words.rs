//! Random Fr elements as Montgomery limbs, for benches that need many of
//! them quickly (2^27 elements in about a second).

/// `n` valid Fr elements (limbs below the modulus), from splitmix64:
/// random enough for timing, fast at 2^27 elements.
pub fn random_words(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = move || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut words = Vec::with_capacity(4 * n);
    for _ in 0..n {
        words.extend([next(), next(), next(), next() % 0x73ed_a753_299d_7d48]);
    }
    words
}
