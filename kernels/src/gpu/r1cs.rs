//! Kernels of a compiled circuit: the witness expanded from its classes,
//! a, b, c from the witness, and the check that it satisfies the circuit.

use super::grid::indices;
use crate::ff::Fr;
use crate::layout::FR_LIMBS;
use crate::mem::Limbs;
use crate::r1cs::eval_row;

kernel! {
    /// `out[i]` = row i of one sparse matrix times z for `i < rows`, zero
    /// for `rows ≤ i < n` (the padding up to the evaluation domain).
    fn r1cs_rows(row_start: *const u32, entries: *const u64, coeffs: *const u64, z: *const u64, out: *mut u64, rows: u32, n: u32) {
        for i in indices(n) {
            let value = if i < rows as usize { eval_row(row_start, entries, coeffs, z, i) } else { Fr::ZERO };
            value.store(out.add(i * FR_LIMBS));
        }
    }
}

kernel! {
    /// `*first_bad` = min(`*first_bad`, every i < n with a[i]·b[i] ≠ c[i]).
    fn r1cs_check(a: *const u64, b: *const u64, c: *const u64, n: u32, first_bad: *mut u32) {
        for i in indices(n) {
            let at = i * FR_LIMBS;
            if Fr::load(a.add(at)) * Fr::load(b.add(at)) != Fr::load(c.add(at)) {
                core::sync::atomic::AtomicU32::from_ptr(first_bad).fetch_min(i as u32, core::sync::atomic::Ordering::Relaxed);
            }
        }
    }
}

kernel! {
    /// `out[i]` = value i of a classed witness (`crate::witness_classes`),
    /// for `i < n`.
    fn witness_expand(classes: *const u64, chunk_start: *const u32, others: *const u64, out: *mut u64, n: u32) {
        for i in indices(n) {
            crate::witness_classes::value(classes, chunk_start, others, i).store(out.add(i * FR_LIMBS));
        }
    }
}
