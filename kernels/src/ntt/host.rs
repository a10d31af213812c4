//! Running schedules on the host with the host build of the kernels: for
//! tests (CI has no GPU) and as a reference of what the GPU executes.

use super::plan::{PassArgs, PassKind};
use super::tables::TableLayout;
use crate::gpu::ntt::{
    ntt_dif_dit_pass, ntt_dif_dit_rows_pass, ntt_dif_pass, ntt_dif_rows_pass, ntt_dit_dif_pass, ntt_dit_pass, ntt_dit_rows_pass, ntt_powers, ntt_row_twiddles,
};

/// Runs one pass launch on the host.
///
/// # Safety
/// The addresses in `a` must be valid host buffers as the schedule expects
/// (see [`super::plan`]).
pub unsafe fn run_pass(a: &PassArgs) {
    let kernel = match (a.kind, a.coset_stages()) {
        (PassKind::Dif, false) => ntt_dif_pass,
        (PassKind::Dit, false) => ntt_dit_pass,
        (PassKind::DifDit, false) => ntt_dif_dit_pass,
        (PassKind::DitDif, false) => ntt_dit_dif_pass,
        (PassKind::Dif, true) => ntt_dif_rows_pass,
        (PassKind::Dit, true) => ntt_dit_rows_pass,
        (PassKind::DifDit, true) => ntt_dif_dit_rows_pass,
        (PassKind::DitDif, true) => panic!("a DIT/DIF pass is outermost: no coset stages"),
    };
    kernel(
        a.data as *mut u64,
        a.b as *const u64,
        a.c as *const u64,
        a.out as *mut u64,
        a.tw as *const u64,
        a.tw_rows as *const u64,
        a.scale_hi as *const u64,
        a.scale_lo as *const u64,
        a.log_n,
        a.log_rem,
        a.log_r,
        a.valid,
        a.out_len,
        a.flags,
    );
}

/// Fills a host table buffer (`layout.words()` words) with the host build
/// of `ntt_powers`, job by job, exactly as the GPU driver does.
///
/// # Panics
/// If `words` has the wrong length.
pub fn fill_tables(layout: &TableLayout, words: &mut [u64]) {
    assert_eq!(words.len(), layout.words(), "table buffer size");
    layout.for_each_job(|job| {
        let [b0, b1, b2, b3] = job.base.limbs;
        let [f0, f1, f2, f3] = job.first.limbs;
        assert!((job.offset + job.count) as usize * 4 <= words.len());
        // SAFETY: the job's range lies inside `words` (checked above).
        unsafe {
            ntt_powers(
                words.as_mut_ptr().add(job.offset as usize * 4),
                job.count,
                b0,
                b1,
                b2,
                b3,
                f0,
                f1,
                f2,
                f3,
            )
        };
    });
    let base = words.as_mut_ptr();
    layout.for_each_row_job(|job| {
        assert!((job.offset + job.count()) as usize * 4 <= words.len());
        // SAFETY: the job's range lies inside `words` (checked above) and
        // does not overlap TW_LO/TW_HI, which the jobs above filled; both
        // pointers come from the one mutable borrow.
        unsafe {
            ntt_row_twiddles(
                base.add(job.offset as usize * 4),
                base,
                job.count(),
                job.log_n,
                job.log_rem,
                job.log_r,
                job.inverse as u32,
            )
        };
    });
}
