//! The FP64 pipe's 768-bit product (`ff::f64_product`) against a schoolbook
//! product on u128, for random words and the extremes of every limb.

use cuzk_kernels::ff::f64_product::product;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn schoolbook(x: &[u64; 6], y: &[u64; 6]) -> [u64; 12] {
    let mut t = [0u64; 12];
    for i in 0..6 {
        let mut carry = 0u128;
        for j in 0..6 {
            let s = t[i + j] as u128 + x[i] as u128 * y[j] as u128 + carry;
            t[i + j] = s as u64;
            carry = s >> 64;
        }
        t[i + 6] = carry as u64;
    }
    t
}

#[test]
fn f64_product_equals_the_schoolbook_product() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xF64);
    let all = [u64::MAX; 6];
    // Words of all ones make every column and carry as large as it gets.
    let mut values = vec![[0u64; 6], [1, 0, 0, 0, 0, 0], all, [0, 0, 0, 0, 0, 1 << 63]];
    for _ in 0..20_000 {
        values.push(std::array::from_fn(|_| match rng.gen_range(0..4) {
            0 => 0,
            1 => u64::MAX,
            _ => rng.gen(),
        }));
    }
    for (n, x) in values.iter().enumerate() {
        for y in [values[rng.gen_range(0..values.len())], *x, all] {
            let (lo, hi) = product(x, &y);
            let want = schoolbook(x, &y);
            assert_eq!((&lo[..], &hi[..]), (&want[..6], &want[6..]), "case {n}: {x:x?} * {y:x?}");
        }
    }
}
