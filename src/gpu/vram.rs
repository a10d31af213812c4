//! How much VRAM a GPU engine reserves on one device, checked before
//! anything is allocated.

use crate::parameters::params::QueryLengths;
use cuzk_kernels::ntt::TableLayout;

use super::msm::MsmCurve;
use super::proof_msm::ProofMsm;
use super::slot_layout::SlotLayout;

/// VRAM one device needs, in bytes, each buffer rounded up to the driver's
/// allocation granularity.
#[derive(Clone, Copy, Debug)]
pub(super) struct VramBudget {
    /// The parameters' bases, shared by the device's workers.
    bases: usize,
    /// The NTT tables, shared.
    ntt_tables: usize,
    /// The compiled circuit's matrices, shared (0 without one).
    compiled: usize,
    /// One worker: witness slot + H coefficients + MSM arena + results.
    per_worker: usize,
    workers: usize,
}

/// cuMemAlloc hands out whole 2 MiB pages for large buffers.
const ALLOC_GRANULE: usize = 2 << 20;

fn alloc_bytes(words: usize) -> usize {
    (words.max(1) * 8).next_multiple_of(ALLOC_GRANULE)
}

impl VramBudget {
    pub(super) fn new(lengths: &QueryLengths, lay: &SlotLayout, ntt: TableLayout, arena_words: usize, compiled_words: usize, workers: usize) -> Self {
        let g1 = MsmCurve::G1.affine_limbs();
        let bases = [lengths.h * g1, lengths.l * g1, lengths.a * g1, lengths.b_g1 * g1]
            .into_iter()
            .chain([lengths.b_g2 * MsmCurve::G2.affine_limbs()])
            .map(alloc_bytes)
            .sum();
        let per_worker = [lay.words(), lay.h_words(), arena_words, ProofMsm::result_words()].into_iter().map(alloc_bytes).sum();
        let compiled = if compiled_words == 0 { 0 } else { alloc_bytes(compiled_words) };
        VramBudget { bases, ntt_tables: alloc_bytes(ntt.words()), compiled, per_worker, workers }
    }

    pub(super) fn total(&self) -> usize {
        self.bases + self.ntt_tables + self.compiled + self.per_worker * self.workers
    }
}

impl std::fmt::Display for VramBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (bases {}, NTT tables {}, compiled circuit {}, {} worker(s) × {} for witness, H, MSM arena and results)",
            gib(self.total()),
            gib(self.bases),
            gib(self.ntt_tables),
            gib(self.compiled),
            self.workers,
            gib(self.per_worker)
        )
    }
}

pub(super) fn gib(bytes: usize) -> String {
    format!("{:.3} GiB", bytes as f64 / (1u64 << 30) as f64)
}
