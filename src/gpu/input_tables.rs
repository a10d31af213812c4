//! The input MSMs' tables on one device (`vram::input_tables`): made once,
//! when the prover is built, from the first bases of the A and B queries,
//! whether those queries stay in VRAM or stream from pinned host memory.

use std::time::Instant;

use log::debug;

use super::host_bases::HostBases;
use super::msm::GpuBases;
use super::GpuDevice;
use crate::error::ProverError;
use crate::parameters::params::QueryLengths;
use crate::parameters::params_file::Query;
use crate::vram::input_tables::{input_table_bases, input_table_count, INPUT_TABLE_WINDOW_BITS, TABLED_MSMS};
use crate::vram::proof_msms::ProofMsm;

/// Each input MSM's bases with their tables (none for an MSM whose query
/// holds no such bases, or when the prover runs without them).
#[derive(Default)]
pub(super) struct InputTables(Vec<(ProofMsm, GpuBases)>);

impl InputTables {
    /// Tables of the bases the three input MSMs read, from the queries'
    /// resident or streamed bases.
    pub fn build(gpu: &GpuDevice, lengths: &QueryLengths, resident: &[(Query, GpuBases)], streamed: &[(Query, HostBases)]) -> Result<Self, ProverError> {
        let start = Instant::now();
        let (c, tables) = (INPUT_TABLE_WINDOW_BITS, input_table_count());
        let mut made = Vec::new();
        for msm in TABLED_MSMS {
            let len = input_table_bases(msm, lengths).unwrap_or(0);
            if len == 0 {
                continue;
            }
            let query = msm.query();
            let bases = if let Some((_, b)) = resident.iter().find(|(q, _)| *q == query) {
                b.prefix_with_tables(gpu, len, c, tables)?
            } else if let Some((_, b)) = streamed.iter().find(|(q, _)| *q == query) {
                GpuBases::upload_words(gpu, b.words(len), len.min(b.len()), b.curve())?.with_tables(gpu, c, tables)?
            } else {
                return Err(ProverError::Config(format!("no bases for the {query}")));
            };
            made.push((msm, bases));
        }
        debug!("GPU {}: the input MSMs' tables ({tables} a base, c = {c}) made in {:.1?}", gpu.ordinal, start.elapsed());
        Ok(InputTables(made))
    }

    /// `msm`'s bases with their tables, if it has them.
    pub fn of(&self, msm: ProofMsm) -> Option<&GpuBases> {
        self.0.iter().find(|(m, _)| *m == msm).map(|(_, b)| b)
    }
}
