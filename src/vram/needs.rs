//! The VRAM each part of a prover takes, for the plan chooser.

use cuzk_kernels::msm::plan::{carried_window_bits, Accumulation, CallScalars, Curve as MsmCurve, MsmConfig, MsmPlan};
use cuzk_kernels::ntt::TableLayout;

use super::input_tables::{input_table_bases, input_table_bytes, input_table_config, TABLED_MSMS};
use super::plan::{MAX_CHUNKS, MIN_CHUNK};
use super::proof_msms::{query_len, query_point_words, ProofMsm, ResultPlaces};
use super::slot_layout::SlotLayout;
use crate::parameters::params::QueryLengths;
use crate::parameters::params_file::Query;

/// cuMemAlloc hands out whole 2 MiB pages for large buffers.
pub const ALLOC_GRANULE: u64 = 2 << 20;

/// Bytes an allocation of `words` u64 takes (at least one word: CUDA
/// cannot allocate zero bytes).
pub fn alloc_bytes(words: usize) -> u64 {
    (words.max(1) as u64 * 8).next_multiple_of(ALLOC_GRANULE)
}

/// What a prover on one device must hold, before a plan fits it into a
/// budget.
#[derive(Clone, Debug)]
pub struct VramNeeds {
    /// The parameters' query lengths.
    pub lengths: QueryLengths,
    /// The witness slot of those parameters.
    pub layout: SlotLayout,
    /// The compiled circuit's matrices on the device (0 without one).
    pub compiled_bytes: u64,
    /// Workers wanted (`ProverConfig::workers_per_device`).
    pub max_workers: usize,
    /// Row twiddles wanted (`ProverConfig::ntt_row_twiddles`).
    pub row_twiddles: bool,
    /// Whether the device's computes run one at a time (they can then
    /// share one set of compute scratch).
    pub serial_compute: bool,
    /// The MSMs' settings.
    pub msm: MsmConfig,
    /// Whether the H step can write its output over an input at this
    /// domain (two NTT passes or more).
    pub h_over_input: bool,
    /// Whether an MSM in several calls may carry its bucket sums from call
    /// to call (`ProverConfig::msm_carried_buckets`).
    pub carried_buckets: bool,
    /// Whether the MSMs over the public inputs run over tables of their
    /// bases (`ProverConfig::input_msm_tables`, [`super::input_tables`]).
    pub input_tables: bool,
}

impl VramNeeds {
    /// The needs of parameters of `lengths`.
    pub fn new(lengths: QueryLengths, compiled_bytes: u64, max_workers: usize, row_twiddles: bool, serial_compute: bool) -> Self {
        let layout = SlotLayout::for_params(&lengths);
        let h_over_input = cuzk_kernels::ntt::plan::h_step_over_input_fits(layout.ntt_log(), cuzk_kernels::ntt::plan::MAX_PASS_BITS);
        VramNeeds { layout, lengths, compiled_bytes, max_workers, row_twiddles, serial_compute, msm: MsmConfig::default(), h_over_input, carried_buckets: true, input_tables: true }
    }

    /// Bases of `query`.
    pub fn query_len(&self, query: Query) -> usize {
        query_len(query, &self.lengths)
    }

    /// VRAM of `query`'s bases.
    pub fn base_bytes(&self, query: Query) -> u64 {
        alloc_bytes(self.query_len(query) * query_point_words(query))
    }

    /// VRAM of the input MSMs' tables (0 without them).
    pub fn input_table_bytes(&self) -> u64 {
        if self.input_tables {
            input_table_bytes(&self.lengths)
        } else {
            0
        }
    }

    /// The NTT tables, with or without row twiddles.
    pub fn ntt_bytes(&self, rows: bool) -> u64 {
        let log = self.layout.ntt_log();
        alloc_bytes(if rows { TableLayout::new(log) } else { TableLayout::compact(log) }.words())
    }

    /// One worker's slot (the witness, its scalars late or not) and its
    /// MSM results.
    pub fn slot_bytes(&self, chunk: Option<usize>, late_scalars: bool) -> u64 {
        let layout = SlotLayout { late_scalars, ..self.layout };
        alloc_bytes(layout.words()) + alloc_bytes(ResultPlaces::new(&layout, chunk).words())
    }

    /// Whether a plan may upload the scalars late: full assignments (a
    /// compiled circuit's a, b, c are made from them at pre-stage), the H
    /// step over its input, scalars that fit one region.
    pub fn late_scalars_possible(&self) -> bool {
        self.compiled_bytes == 0 && self.h_over_input && self.layout.scalars_fit_a_region()
    }

    /// The slot's a, b, c: the H step's scratch, free once it is done.
    pub fn abc_bytes(&self) -> u64 {
        self.layout.abc(3) as u64 * 8
    }

    /// The H coefficients.
    pub fn h_bytes(&self) -> u64 {
        alloc_bytes(self.layout.h_words())
    }

    /// Words of the MSM arena: room for each MSM (each piece of it with a
    /// chunk: a whole one and the last, smaller one, whose window can be
    /// smaller and its entries more) planned for all its scalars and for as
    /// many as its bases (a density MSM's window is chosen for the selected
    /// count; the MSM falls back to the former plan if the witness's count
    /// needs more). With `carried`, also room for the H MSM's pieces at
    /// the window that carries their buckets ([`Self::carried_h_window`]),
    /// the bucket sums of the whole MSM's window included.
    pub fn arena_words(&self, chunk: Option<usize>, carried: bool) -> Result<usize, String> {
        let carried_h = chunk.filter(|_| carried).and_then(|c| {
            let window = self.carried_h_window(c)?;
            let h = ProofMsm::H.scalars(&self.layout);
            let piece = ProofMsm::H.piece_scalars(c);
            let config = MsmConfig { window_bits: window, ..self.msm };
            Some([piece, h - (h.div_ceil(piece) - 1) * piece].map(move |n| (MsmCurve::G1, n, n, config)))
        });
        ProofMsm::ALL
            .iter()
            .flat_map(|m| {
                let n = m.scalars(&self.layout);
                let sizes = match chunk {
                    Some(c) if n > m.piece_scalars(c) => {
                        let piece = m.piece_scalars(c);
                        vec![piece, n - (n.div_ceil(piece) - 1) * piece]
                    }
                    _ => vec![n],
                };
                let (bases, curve) = (m.bases_in(&self.lengths), m.curve());
                sizes.into_iter().flat_map(move |n| [n, bases.min(n)].map(move |selected| (curve, n, selected, self.msm)))
            })
            .chain(carried_h.into_iter().flatten())
            .chain(self.input_tables.then(|| self.input_table_plans()).into_iter().flatten())
            .map(|(curve, n, selected, config)| MsmPlan::for_selected(n, selected, curve, &config))
            .try_fold(0, |max, plan| plan.map(|p| p.scratch_words().max(max)))
            .map_err(|e| format!("MSM plan: {e}"))
    }

    /// The input MSMs over their tables, as [`Self::arena_words`] sizes
    /// them: all their scalars, and as many as their tables' bases.
    fn input_table_plans(&self) -> impl Iterator<Item = (MsmCurve, usize, usize, MsmConfig)> + '_ {
        TABLED_MSMS.into_iter().filter_map(move |m| {
            let bases = input_table_bases(m, &self.lengths).filter(|&b| b > 0)?;
            let n = m.scalars(&self.layout);
            Some([n, bases.min(n)].map(move |selected| (m.curve(), n, selected, input_table_config())))
        }).flatten()
    }

    /// [`Self::arena_words`] in bytes; `None` if the MSMs cannot be planned.
    pub fn arena_bytes(&self, chunk: Option<usize>, carried: bool) -> Option<u64> {
        self.arena_words(chunk, carried).ok().map(alloc_bytes)
    }

    /// The H MSM's calls (random scalars) in pieces of `chunk`.
    pub fn h_calls(&self, chunk: usize) -> Vec<CallScalars> {
        let h = ProofMsm::H.scalars(&self.layout) as u64;
        let piece = ProofMsm::H.piece_scalars(chunk).max(1) as u64;
        (0..h.div_ceil(piece)).map(|k| piece.min(h - k * piece)).map(|n| CallScalars { selected: n, general: n }).collect()
    }

    /// Whether an MSM in several calls may carry its buckets: allowed
    /// (`carried_buckets`) and with the XYZZ first level (the batch-affine
    /// one does not carry).
    pub fn may_carry(&self) -> bool {
        self.carried_buckets && self.msm.accumulation == Accumulation::Xyzz
    }

    /// The window the model (`carried_window_bits`) gives the H MSM's
    /// pieces of `chunk` to carry their buckets at; `None` when it runs
    /// whole or cannot carry.
    pub fn carried_h_window(&self, chunk: usize) -> Option<u32> {
        let calls = self.h_calls(chunk);
        if calls.len() < 2 || !self.may_carry() {
            return None;
        }
        carried_window_bits(&calls, |_| true)
    }

    /// Two staging buffers of `chunk` G1 points each.
    pub fn staging_bytes(&self, chunk: usize) -> u64 {
        2 * alloc_bytes(staging_words(chunk))
    }

    /// MSM chunk sizes worth considering, largest first: powers of two
    /// below the largest MSM, down to [`MIN_CHUNK`] and no smaller than
    /// a [`MAX_CHUNKS`]-th of it.
    pub fn chunk_candidates(&self) -> Vec<usize> {
        let largest = ProofMsm::ALL.iter().map(|m| m.scalars(&self.layout)).max().unwrap_or(1).max(1);
        let floor = MIN_CHUNK.max(largest.div_ceil(MAX_CHUNKS).next_power_of_two());
        let mut out: Vec<usize> = (0..usize::BITS).map(|k| 1usize << k).filter(|&c| c >= floor && c < largest).collect();
        if out.is_empty() {
            out.push(floor);
        }
        out.reverse();
        out
    }
}

/// Words of one staging buffer: `chunk` G1 points (or `chunk / 2` in G2).
pub fn staging_words(chunk: usize) -> usize {
    chunk * query_point_words(Query::H)
}

/// Bytes in GiB, for logs.
pub fn gib(bytes: u64) -> String {
    format!("{:.3} GiB", bytes as f64 / (1u64 << 30) as f64)
}
