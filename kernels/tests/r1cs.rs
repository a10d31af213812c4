//! The compiled circuit's row kernels (host builds) against blstrs: rows of
//! every length around the long-row limit, the short ones by a thread each
//! and the long ones by the warp kernel (on the host a warp of one lane),
//! together equal to a plain sum of coefficient times variable; and the
//! one-kernel path equal to it too.

mod common;

use blstrs::Scalar;
use common::{as_limbs, from_limbs, seeded_rng};
use cuzk_kernels::gpu::r1cs::{r1cs_long_rows, r1cs_rows};
use cuzk_kernels::r1cs::{entry, COEFF_MINUS_ONE, COEFF_ONE, LONG_ROW};
use ff::Field;
use rand::Rng;

/// Rows whose lengths run from 0 to 3 × LONG_ROW and then some.
fn lengths() -> Vec<usize> {
    let limit = LONG_ROW as usize;
    (0..=3 * limit).chain([limit - 1, limit, limit + 1, 500, 1000, 1, 0, 2]).collect()
}

#[test]
fn short_and_long_rows_equal_a_plain_sum() {
    let (mut rng, _) = seeded_rng("short_and_long_rows_equal_a_plain_sum");
    let z: Vec<Scalar> = (0..4096).map(|_| Scalar::random(&mut rng)).collect();
    let coeffs: Vec<Scalar> = [Scalar::ONE, -Scalar::ONE].into_iter().chain((0..20).map(|_| Scalar::random(&mut rng))).collect();
    let (mut row_start, mut entries, mut want) = (vec![0u32], Vec::new(), Vec::new());
    for len in lengths() {
        let mut sum = Scalar::ZERO;
        for _ in 0..len {
            let column = rng.gen_range(0..z.len() as u32);
            let coeff = match rng.gen_range(0..4) {
                0 => COEFF_ONE,
                1 => COEFF_MINUS_ONE,
                _ => rng.gen_range(2..coeffs.len() as u32),
            };
            entries.push(entry(column, coeff));
            sum += coeffs[coeff as usize] * z[column as usize];
        }
        row_start.push(entries.len() as u32);
        want.push(sum);
    }
    let rows = want.len();
    let n = rows + 5; // padding rows, zeroed
    let long: Vec<u32> = row_start.windows(2).enumerate().filter(|(_, w)| w[1] - w[0] > LONG_ROW).map(|(i, _)| i as u32).collect();
    assert!(!long.is_empty() && long.len() < rows);
    let (z, coeffs) = (as_limbs(&z), as_limbs(&coeffs));
    let run = |skip_long: bool| -> Vec<Scalar> {
        let mut out = vec![0xdead_beef_u64; n * 4];
        // SAFETY: the offsets, entries, coefficients and z above are
        // consistent, and out holds n scalars.
        unsafe {
            r1cs_rows(row_start.as_ptr(), entries.as_ptr(), coeffs.as_ptr(), z.as_ptr(), out.as_mut_ptr(), rows as u32, n as u32, skip_long as u32);
            if skip_long {
                r1cs_long_rows(row_start.as_ptr(), entries.as_ptr(), coeffs.as_ptr(), z.as_ptr(), out.as_mut_ptr(), long.as_ptr(), long.len() as u32);
            }
        }
        from_limbs(&out)
    };
    for skip_long in [true, false] {
        let got = run(skip_long);
        assert_eq!(&got[..rows], &want[..], "skip_long {skip_long}");
        assert!(got[rows..].iter().all(|v| bool::from(v.is_zero())), "the padding is zeroed");
    }
}
