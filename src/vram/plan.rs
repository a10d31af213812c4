//! Which buffers a prover keeps in a GPU's memory, chosen for a budget.
//!
//! All the VRAM a prover uses is reserved when it is built. A plan fits
//! that into a budget (the device's free memory, or `ProverConfig::
//! vram_limit`): how many workers, whether the H step keeps its row
//! twiddles, whether MSMs run in chunks (their sort and bucket arena is
//! sized for one chunk), and which parameter queries stay resident while
//! the others are streamed, a chunk at a time, from pinned host memory
//! through a double buffer.
//!
//! The choice: the plan with the least modelled time per proof
//! ([`CostModel`]; ties go to more workers). A second worker hides the
//! next proof's pre-stage behind this one's compute; streaming costs the
//! time a query's copy takes beyond its own MSM, chunked MSMs and compact
//! tables cost GPU time, and the host link carries the streamed bases and
//! the witnesses. Queries are kept resident in the order of the time their
//! MSM spends per byte of bases, least first (L, A, B in G1, B in G2, H):
//! H's MSM (random scalars) outlasts its copy even over PCIe 4.0.

use std::fmt;

use cuzk_kernels::msm::plan::{carried_cost, carried_window_bits};
use cuzk_kernels::ntt::TableLayout;

use super::needs::{gib, VramNeeds};
use crate::parameters::params_file::Query;

/// The order queries are kept resident in (see the module docs).
pub const KEEP_ORDER: [Query; 5] = [Query::L, Query::A, Query::BG1, Query::BG2, Query::H];

/// Smallest MSM chunk considered (G1 points).
pub const MIN_CHUNK: usize = 1 << 10;
/// At most this many chunks per MSM.
pub const MAX_CHUNKS: usize = 1 << 10;

/// How a prover uses one GPU's memory.
#[derive(Clone, Debug, PartialEq)]
pub struct VramPlan {
    /// The budget it was made for, in bytes.
    pub budget: u64,
    /// Worker slots on the device.
    pub workers: usize,
    /// Whether the NTT tables keep the row twiddles (see
    /// `ProverConfig::ntt_row_twiddles`).
    pub row_twiddles: bool,
    /// Sets of compute scratch (the H coefficients, and the MSM arena and
    /// staging buffers unless they lie in the slot): one per worker, or one
    /// per device when its computes run one at a time and the budget needs
    /// it.
    pub scratch_sets: usize,
    /// The H step writes its output over one of its inputs, in the slot
    /// (`ntt::plan::h_step_over_input`: the same transforms), instead of
    /// into H coefficients of the scratch set (only when the budget needs
    /// it).
    pub h_in_slot: bool,
    /// The witness's scalars are copied into the slot during the compute,
    /// beside the H MSM that does not read them, into the region the H
    /// step has finished with (full assignments only; when the budget
    /// needs it): the slot then holds a, b, c and the densities.
    pub scalars_late: bool,
    /// The MSM arena and staging buffers lie in the worker's slot, in the
    /// a, b, c that the H step has used up before the MSMs run (only when
    /// the budget needs it: apart, streamed copies need not wait for the
    /// H step).
    pub msm_in_slot: bool,
    /// G1 points per MSM call (G2: half as many); `None`: whole MSMs.
    pub msm_chunk: Option<usize>,
    /// The arena also holds the H MSM's pieces at the window that carries
    /// their buckets (`VramNeeds::carried_h_window`): its calls keep the
    /// whole MSM's window and reduce once (with a chunk only).
    pub carried_buckets: bool,
    /// Queries streamed from pinned host memory for each proof; the
    /// others stay in VRAM.
    pub streamed: Vec<Query>,
    /// The bytes reserved, part by part.
    pub bytes: PlanBytes,
    /// Bytes of bases each proof copies to the device.
    pub streamed_bytes_per_proof: u64,
    /// The model's time per proof in a stream of proofs, in seconds, over
    /// a link of [`CostModel::LINK_BYTES_PER_S`].
    pub estimated_s: f64,
}

/// The bytes a plan reserves on one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanBytes {
    /// Resident bases, and the input MSMs' tables.
    pub bases: u64,
    /// NTT tables.
    pub ntt_tables: u64,
    /// The compiled circuit's matrices.
    pub compiled: u64,
    /// One worker's witness slot and results.
    pub per_worker: u64,
    /// One scratch set: the H coefficients unless they are in the slot,
    /// plus the arena and staging buffers unless they are.
    pub per_scratch: u64,
    /// The MSM arena.
    pub arena: u64,
    /// The two staging buffers of streamed bases (0 when nothing is
    /// streamed).
    pub staging: u64,
}

impl VramPlan {
    /// Bytes reserved in all.
    pub fn total(&self) -> u64 {
        let b = &self.bytes;
        b.bases + b.ntt_tables + b.compiled + b.per_worker * self.workers as u64 + b.per_scratch * self.scratch_sets as u64
    }

    /// Whether `query` is streamed.
    pub fn streams(&self, query: Query) -> bool {
        self.streamed.contains(&query)
    }

    /// Chooses the plan for `needs` within `budget` bytes; `Err` carries
    /// the smallest budget any plan needs.
    pub fn choose(needs: &VramNeeds, budget: u64) -> Result<VramPlan, u64> {
        (1..=needs.max_workers.max(1))
            .rev()
            .flat_map(|workers| Self::options(needs, budget, workers))
            .min_by(|a, b| a.estimated_s.total_cmp(&b.estimated_s).then(b.workers.cmp(&a.workers)))
            .ok_or_else(|| Self::least(needs))
    }

    /// One plan for each distinct layout (workers, row twiddles, H output,
    /// late scalars, the arena's place, chunk, streamed queries) that a
    /// budget from the least to the all-resident one gives, in steps of
    /// 1/2048 of that range (2 MiB at least), smallest budget first: what
    /// tests prove with, to cover every layout a shape can take.
    pub fn layouts(needs: &VramNeeds) -> Vec<VramPlan> {
        let least = Self::least(needs);
        let Ok(all) = Self::choose(needs, u64::MAX) else { return Vec::new() };
        let step = ((all.total().saturating_sub(least)) / 2048).max(2 << 20);
        let key = |p: &VramPlan| (p.workers, p.row_twiddles, p.scratch_sets, p.h_in_slot, p.scalars_late, p.msm_in_slot, p.msm_chunk, p.carried_buckets, p.streamed.clone());
        let mut out: Vec<VramPlan> = Vec::new();
        let mut budget = least;
        while budget <= all.total() {
            if let Ok(p) = Self::choose(needs, budget) {
                if !out.iter().any(|q| key(q) == key(&p)) {
                    out.push(p);
                }
            }
            budget = if budget < all.total() { (budget + step).min(all.total()) } else { budget + 1 };
        }
        out
    }

    /// The smallest plan: one worker, compact tables, the smallest chunk,
    /// every query streamed.
    fn least(needs: &VramNeeds) -> u64 {
        let chunk = needs.chunk_candidates().last().copied().unwrap_or(MIN_CHUNK);
        // u64::MAX when even that cannot be planned (an MSM over 2^31 scalars).
        Self::option(needs, None, 1, false, Some(chunk), false, KEEP_ORDER.len()).map_or(u64::MAX, |p| p.total())
    }

    /// Every plan of `workers` workers that fits `budget`.
    fn options(needs: &VramNeeds, budget: u64, workers: usize) -> Vec<VramPlan> {
        let twiddles = if needs.row_twiddles { vec![true, false] } else { vec![false] };
        let mut out = Vec::new();
        for rows in twiddles {
            if let Some(p) = Self::option(needs, Some(budget), workers, rows, None, false, 0) {
                out.push(p);
            }
            for chunk in needs.chunk_candidates() {
                for carried in [true, false] {
                    // The fewest streamed queries that fit, in keep order.
                    if let Some(p) = (0..=KEEP_ORDER.len()).find_map(|s| Self::option(needs, Some(budget), workers, rows, Some(chunk), carried, s)) {
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    /// The plan that streams the last `streamed` queries of
    /// [`KEEP_ORDER`] (none without a chunk), its arena holding the H
    /// MSM's carried pieces or not (`carried`, only with a chunk that
    /// splits H), if it fits `budget`; without a budget, its smallest
    /// variant.
    fn option(needs: &VramNeeds, budget: Option<u64>, workers: usize, rows: bool, chunk: Option<usize>, carried: bool, streamed: usize) -> Option<VramPlan> {
        if chunk.is_none() && streamed > 0 || carried && chunk.and_then(|c| needs.carried_h_window(c)).is_none() {
            return None;
        }
        let streamed: Vec<Query> = KEEP_ORDER[KEEP_ORDER.len() - streamed..].to_vec();
        let arena = needs.arena_bytes(chunk, carried)?;
        let staging = if streamed.is_empty() { 0 } else { needs.staging_bytes(chunk?) };
        // The input MSMs' tables stay in VRAM whichever queries stream.
        let bases = KEEP_ORDER.iter().filter(|q| !streamed.contains(q)).map(|&q| needs.base_bytes(q)).sum::<u64>() + needs.input_table_bytes();
        let streamed_bytes_per_proof = streamed.iter().map(|&q| needs.base_bytes(q)).sum();
        // The layout proofs have always had (scratch per worker, the H
        // coefficients and the arena apart) when it fits; else, in this
        // order, one scratch set per device (computes one at a time), the
        // arena and staging buffers in the slot's used-up a, b, c (the
        // streamed copies then wait for the H step), and the H step's
        // output over its input b (the arena then in the rest), and the
        // scalars copied in during the compute (the arena in the last third).
        let abc = needs.abc_bytes();
        let shared = if needs.serial_compute && workers > 1 { vec![workers, 1] } else { vec![workers] };
        let mut layouts = Vec::new();
        for h_in_slot in [false, true].into_iter().filter(|&h| !h || needs.h_over_input) {
            for late in [false, true].into_iter().filter(|&l| !l || (h_in_slot && needs.late_scalars_possible())) {
                for msm_in_slot in [false, true] {
                    // Thirds of a, b, c left for the arena: all; two when
                    // the H output is in one; one when the scalars are in
                    // another.
                    let room = abc / 3 * (3 - h_in_slot as u64 - late as u64);
                    if msm_in_slot && arena + staging > room {
                        continue;
                    }
                    for &sets in &shared {
                        layouts.push((h_in_slot, late, msm_in_slot, sets));
                    }
                }
            }
        }
        let variants = layouts
            .into_iter()
            .map(|(h_in_slot, scalars_late, msm_in_slot, scratch_sets)| {
                let bytes = PlanBytes {
                    bases,
                    ntt_tables: needs.ntt_bytes(rows),
                    compiled: needs.compiled_bytes,
                    per_worker: needs.slot_bytes(chunk, scalars_late),
                    per_scratch: if h_in_slot { 0 } else { needs.h_bytes() } + if msm_in_slot { 0 } else { arena + staging },
                    arena,
                    staging,
                };
                VramPlan { budget: budget.unwrap_or(0), workers, row_twiddles: rows, scratch_sets, h_in_slot, scalars_late, msm_in_slot, msm_chunk: chunk, carried_buckets: carried, streamed: streamed.clone(), bytes, streamed_bytes_per_proof, estimated_s: 0.0 }
            })
            .collect::<Vec<_>>();
        let mut plan = match budget {
            None => variants.into_iter().min_by_key(VramPlan::total)?,
            Some(budget) => variants.into_iter().find(|p| p.total() <= budget)?,
        };
        plan.estimated_s = CostModel::seconds_per_proof(needs, &plan);
        Some(plan)
    }
}

/// What the choice ranks options by: a proof's time in a stream of
/// proofs. The GPU's time is the compute of all-resident bases, whole MSMs
/// and row twiddles, plus what chunked MSMs, compact tables and the
/// streamed queries' copies beyond their MSMs add; the link carries the
/// streamed bases and the witness; the longer of the two is the proof's
/// time, and with one worker the witness's pre-stage comes on top. Its
/// constants are measured on an H200 on a 32 GiB PoRep partition
/// (docs/PERFORMANCE.md); on other shapes and GPUs they rank the options.
pub struct CostModel;

impl CostModel {
    /// The host link assumed: PCIe 4.0 x16 (the cards storage providers
    /// own); an H200's PCIe 5.0 link is about twice as fast.
    pub const LINK_BYTES_PER_S: f64 = 25e9;
    /// G1 MSM time per random scalar at 2^27 (857 ms), and what each
    /// halving of the MSM's size adds per scalar (2^24: 125 ms): what
    /// pieces that each reduce their own buckets cost.
    const RANDOM_NS: f64 = 6.39;
    const RANDOM_NS_PER_HALVING: f64 = 0.37;
    /// What each H MSM call of 2^23 scalars or more after the first costs
    /// beyond its additions (sort passes, launches, a GPU not full at a
    /// call's start and end); a smaller call costs its share: on the H200,
    /// 16 calls of 2^23 took 1.10–1.22 s against 0.857 for one, 40–160 ms
    /// more than their windows and reductions explain.
    const CALL_S: f64 = 0.010;
    const CALL_S_FROM: f64 = (1u64 << 23) as f64;
    /// H step time per domain element (335 ms at 2^27) and the share the
    /// row twiddles save.
    const H_STEP_NS: f64 = 2.5;
    const ROW_TWIDDLE_SAVING: f64 = 0.11;
    /// A compiled witness is sent as classes: about 3% of its values' bytes.
    const CLASSED_SHARE: f64 = 0.03;
    /// What a compiled witness's pre-stage adds per domain element when no
    /// second worker hides it (a, b, c, the classes' expansion, the host's
    /// turn between proofs): one 32 GiB sector on one worker took 0.64 s
    /// more than on two, 64 ms per 2^27 partition.
    const PRESTAGE_COMPILED_NS: f64 = 0.48;

    /// MSM time per base of a witness MSM: L and A 58 ms, B in G1 28 ms,
    /// B in G2 68 ms for a partition's 130 M / 33 M bases (98% of the
    /// witness 0 or 1); H: random scalars.
    fn msm_ns_per_base(query: Query) -> f64 {
        match query {
            Query::L | Query::A => 0.45,
            Query::BG1 => 0.86,
            Query::BG2 => 2.05,
            Query::H | Query::VerifyingKey => Self::RANDOM_NS,
        }
    }

    /// The modelled time per proof of `plan`, in seconds.
    pub fn seconds_per_proof(needs: &VramNeeds, plan: &VramPlan) -> f64 {
        let h = needs.lengths.h as f64;
        let domain = h + 1.0;
        let msm = |q: Query| needs.query_len(q) as f64 * Self::msm_ns_per_base(q) * 1e-9;
        let compute = domain * Self::H_STEP_NS * 1e-9 + [Query::H, Query::L, Query::A, Query::BG1, Query::BG2].map(msm).iter().sum::<f64>();
        let stalls: f64 = plan.streamed.iter().map(|&q| (needs.base_bytes(q) as f64 / Self::LINK_BYTES_PER_S - msm(q)).max(0.0)).sum();
        let calls = plan.msm_chunk.map_or(1, |c| needs.h_calls(c).len());
        let call_s = Self::CALL_S * (plan.msm_chunk.unwrap_or(0) as f64 / Self::CALL_S_FROM).min(1.0);
        let chunking = (calls - 1) as f64 * call_s + plan.msm_chunk.filter(|&c| c < needs.lengths.h).map_or(0.0, |c| match needs.carried_h_window(c).filter(|_| plan.carried_buckets) {
            // Carried pieces: the H MSM's time scaled by the additions
            // the kernels' model adds to one whole call's.
            Some(window) => {
                let whole = needs.h_calls(needs.lengths.h.max(1));
                let one = carried_cost(carried_window_bits(&whole, |_| true).unwrap_or(window), &whole);
                h * Self::RANDOM_NS * 1e-9 * (carried_cost(window, &needs.h_calls(c)) / one - 1.0).max(0.0)
            }
            None => {
                let halvings = domain.log2() - (c as f64).log2();
                h * halvings * Self::RANDOM_NS_PER_HALVING * 1e-9
            }
        });
        let tables = if plan.row_twiddles || TableLayout::new(needs.layout.ntt_log()).rows_bits == 0 {
            0.0
        } else {
            domain * Self::H_STEP_NS * Self::ROW_TWIDDLE_SAVING * 1e-9
        };
        let gpu = compute + stalls + chunking + tables;
        let lay = &needs.layout;
        let compiled = needs.compiled_bytes > 0;
        // Full assignments send a and b (c = a·b is made on the GPU) and
        // the scalars.
        let witness_bytes = if compiled {
            lay.scalars as f64 * 32.0 * Self::CLASSED_SHARE
        } else {
            (2 * lay.domain + lay.scalars) as f64 * 32.0
        };
        let link = (plan.streamed_bytes_per_proof as f64 + witness_bytes) / Self::LINK_BYTES_PER_S;
        // Late scalars go up during the H MSM, not at pre-stage.
        let staged_bytes = if plan.scalars_late { (2 * lay.domain) as f64 * 32.0 } else { witness_bytes };
        let prestage = staged_bytes / Self::LINK_BYTES_PER_S + if compiled { domain * Self::PRESTAGE_COMPILED_NS * 1e-9 } else { 0.0 };
        gpu.max(link) + if plan.workers == 1 { prestage } else { 0.0 }
    }
}

impl fmt::Display for VramPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.bytes;
        let mut scratch = Vec::new();
        if !self.h_in_slot {
            scratch.push("H coefficients");
        }
        if !self.msm_in_slot {
            scratch.push("MSM arena and staging");
        }
        write!(
            f,
            "{} of a {} budget: {} worker(s) × {} (witness slot{}), {} scratch set(s) × {} ({}), H step {}, MSM arena {}{} {}, bases {} resident, NTT tables {}{}, compiled circuit {}; MSMs {}; ",
            gib(self.total()),
            gib(self.budget),
            self.workers,
            gib(b.per_worker),
            if self.scalars_late { "; scalars copied in during the compute" } else { "" },
            self.scratch_sets,
            gib(b.per_scratch),
            if scratch.is_empty() { "nothing".to_string() } else { scratch.join(", ") },
            if self.h_in_slot { "output over its input" } else { "into its own buffer" },
            gib(b.arena),
            if b.staging > 0 { format!(" + staging {}", gib(b.staging)) } else { String::new() },
            if self.msm_in_slot { "in the slot's used a, b, c" } else { "apart" },
            gib(b.bases),
            gib(b.ntt_tables),
            if self.row_twiddles { " (row twiddles)" } else { " (compact)" },
            gib(b.compiled),
            self.msm_chunk.map_or("whole".to_string(), |c| format!("in chunks of 2^{} G1 points{}", c.trailing_zeros(), if self.carried_buckets { ", H's pieces carrying their buckets" } else { "" })),
        )?;
        write!(f, "model: {:.2} s per proof over PCIe 4.0 x16; ", self.estimated_s)?;
        if self.streamed.is_empty() {
            write!(f, "every query resident")
        } else {
            let names: Vec<String> = self.streamed.iter().map(|q| q.to_string()).collect();
            write!(
                f,
                "streamed: {} ({:.2} GB per proof)",
                names.join(", "),
                self.streamed_bytes_per_proof as f64 / 1e9
            )
        }
    }
}
