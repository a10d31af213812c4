//! Tables for a proof's three MSMs over its public inputs (A, and B in G1
//! and G2). Their bases are few (a 32 GiB partition has 329 inputs) and
//! fixed by the parameters, so the prover keeps, beside each set, copies
//! `2^(c·a)·P` for every window `a` (`MsmConfig::tables`, one table per
//! window): the windows then share one bucket set, and the MSM loses the
//! chain of `c·w` doublings that one thread ran for its window sums, which
//! bounded these MSMs by latency, not work (docs/PERFORMANCE.md, "A whole
//! 32 GiB partition").

use cuzk_kernels::msm::digits::WindowLayout;
use cuzk_kernels::msm::plan::MsmConfig;

use super::needs::alloc_bytes;
use super::proof_msms::{query_len, query_point_words, ProofMsm};
use crate::parameters::params::QueryLengths;

/// Window bits of the input MSMs' tables. Measured on an NVIDIA H100 80GB
/// HBM3 (2026-12-07, 329 random scalars, `bench-gpu_msm inputs --c C
/// --tables W`): G1 0.58 / 0.60 / 0.66 / 0.72 / 0.79 / 0.95 / 1.17 ms and
/// G2 1.77 / 1.88 / 2.06 / 2.26 / 2.45 / 2.95 / 3.59 ms for c = 2 / 3 / 4 /
/// 5 / 6 / 8 / 10, against 2.77 and 8.42 ms without tables (their best
/// window). c = 4 is what the prover's tests ran; c = 2 (twice the tables)
/// would take a tenth of a millisecond more off in G1, a third in G2.
pub const INPUT_TABLE_WINDOW_BITS: u32 = 4;

/// The three MSMs that run over tables of their bases.
pub const TABLED_MSMS: [ProofMsm; 3] = [ProofMsm::AInputs, ProofMsm::BG1Inputs, ProofMsm::BG2Inputs];

/// Tables per set of bases: one per window, so every window adds into one
/// bucket set.
pub fn input_table_count() -> u32 {
    WindowLayout::uniform(INPUT_TABLE_WINDOW_BITS).windows
}

/// The settings of an MSM over input tables: the tables' window and count,
/// the sort they imply (`Sort::Auto`: padded), defaults otherwise.
pub fn input_table_config() -> MsmConfig {
    MsmConfig { window_bits: INPUT_TABLE_WINDOW_BITS, tables: input_table_count(), ..MsmConfig::default() }
}

/// The bases of `msm`'s query its tables cover: the first one per public
/// input (A holds one for each; B one for each input its density selects,
/// which come first). `None` for the MSMs without tables.
pub fn input_table_bases(msm: ProofMsm, lengths: &QueryLengths) -> Option<usize> {
    TABLED_MSMS.contains(&msm).then(|| lengths.ic.min(query_len(msm.query(), lengths)))
}

/// VRAM of all three MSMs' tables (none for a query without such bases).
pub fn input_table_bytes(lengths: &QueryLengths) -> u64 {
    TABLED_MSMS
        .iter()
        .filter_map(|&m| input_table_bases(m, lengths).filter(|&n| n > 0).map(|n| alloc_bytes(n * query_point_words(m.query()) * input_table_count() as usize)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_kernels::msm::plan::MsmPlan;

    fn lengths(ic: usize, b: usize) -> QueryLengths {
        QueryLengths { ic, h: (1 << 10) - 1, l: 900, a: ic + 800, b_g1: b, b_g2: b }
    }

    #[test]
    fn every_window_has_its_table_and_one_bucket_set() {
        let plan = MsmPlan::new(329, cuzk_kernels::msm::plan::Curve::G2, &input_table_config()).unwrap();
        assert_eq!((plan.tables, plan.sets), (plan.windows, 1));
        assert_eq!(input_table_count(), 64);
    }

    #[test]
    fn tables_cover_one_base_per_input_and_no_more_than_the_query_holds() {
        let l = lengths(329, 5000);
        assert_eq!(TABLED_MSMS.map(|m| input_table_bases(m, &l)), [Some(329); 3]);
        assert_eq!(input_table_bases(ProofMsm::AAux, &l), None);
        assert_eq!(input_table_bases(ProofMsm::H, &l), None);
        // B queries with fewer bases than inputs (an empty B density).
        let l = lengths(329, 3);
        assert_eq!(input_table_bases(ProofMsm::BG2Inputs, &l), Some(3));
        assert_eq!(input_table_bases(ProofMsm::AInputs, &l), Some(329));
    }

    #[test]
    fn table_bytes_are_whole_pages_of_each_set() {
        // 329 G1 points of 96 bytes, 64 tables: 2.0 MB, one 2 MiB page
        // each in G1, two for G2's 192-byte points.
        assert_eq!(input_table_bytes(&lengths(329, 5000)), 4 * (2 << 20));
        assert_eq!(input_table_bytes(&lengths(1, 0)), 2 << 20);
    }
}
