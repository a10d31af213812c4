//! The GPU backend: everything reserved once, each proof run on its worker's
//! own stream.
//!
//! Per device, [`GpuEngine::new`] chooses a [`VramPlan`] for the device's
//! budget (its free memory, or `ProverConfig::vram_limit`), builds the NTT
//! tables and uploads the parameters' resident bases once, with tables of
//! the input MSMs' few bases (`input_tables.rs`); all workers of the
//! device share them. Streamed queries are put in pinned host memory
//! once instead, and each proof copies them in a piece at a time
//! (`streamed_msm.rs`). Every worker owns one slot: a device buffer sized
//! for the witness the parameters describe, a small result buffer with its
//! pinned host copy, a stream, events and a pinned staging buffer. The H
//! coefficients and, unless they fit in the slot's a, b, c once the H step
//! has used them, the MSM arena and staging buffers form a scratch set: one
//! per worker, or one per device when its computes run one at a time and
//! the budget needs it.
//! Pre-stage uploads the witness into the slot; compute runs the H step and
//! the MSMs (in pieces, if the plan chunks them) and downloads their
//! results. Nothing is allocated or freed after `new`, and no call
//! synchronizes the device: a worker only ever waits on its own stream's
//! events.
//!
//! Sharing one device between workers: uploads take turns (one at a time
//! runs at the link's full speed, so the first proof starts sooner), and
//! compute phases of proofs that fill the GPU run one after another, each
//! stream waiting on the previous compute's marker event
//! (`compute_order.rs`), so one worker's upload overlaps another's compute
//! instead of all phases running in lockstep.
//!
//! The slot's layout, the plan and the MSMs' pieces are in [`crate::vram`];
//! the results read back in `proof_msm.rs`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bellperson::groth16::{Proof, VerifyingKey};
use blstrs::{Bls12, Scalar};
use cust::event::{Event, EventFlags};
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer, DevicePointer, LockedBuffer};
use cust::stream::{Stream, StreamFlags};
use log::{debug, info};

use super::compiled::{GpuCompiled, LongRows};
use super::compute_order::{ComputeOrder, Marker};

use super::elementwise::scalar_limbs;
use super::host_bases::HostBases;
use super::input_tables::InputTables;
use super::msm::{msm_at, params_query_words, BasesAt, Carry, DeviceDensity, GpuBases, Level0Waves, MsmConfig, MsmInput, MsmPlan, ScalarForm};
use super::streamed_msm::Ring;
use super::ntt::GpuNtt;
use cuzk_kernels::ntt::TableLayout;
use super::proof_msm::msm_results;
use super::upload::PinnedStager;
use crate::vram::input_tables::input_table_config;
use crate::vram::needs::{gib, staging_words, VramNeeds};
use crate::vram::proof_msms::{general_count_block, msm_calls, pieces, query_curve, DensityRanks, MsmCalls, Piece, ProofMsm, ResultPlaces};
use crate::vram::slot_layout::{SlotLayout, FR_WORDS};
use crate::vram::VramPlan;
use super::wait;
use super::runtime::open_devices;
use super::{gpu_err, sys_check, GpuDevice};
use crate::prover::assemble::assemble;
use crate::compiled::CompiledCircuit;
use crate::error::ProverError;
use crate::prover::faults::{Fault, Faults};
use crate::witness::general_counts::GeneralCounts;
use crate::witness::job::ProofJob;
use crate::parameters::params::ProofShape;
use crate::parameters::params_file::Query;
use crate::parameters::source::ParamsSource;
use super::params_upload::FileLoader;
use crate::prover::ProverConfig;
use crate::prover::timings::PhaseTimings;
use crate::witness::pool::Part;

/// What all workers of one device share: the read-only bases and tables,
/// the compute scratch sets, and the order of their uploads and computes.
struct DeviceShared {
    ntt: GpuNtt,
    /// The queries in VRAM.
    resident: Vec<(Query, GpuBases)>,
    /// The queries streamed from pinned host memory.
    streamed: Vec<(Query, HostBases)>,
    /// The input MSMs' bases with their tables (`ProverConfig::input_msm_tables`).
    input_tables: InputTables,
    /// Held by the worker whose witness is being uploaded.
    upload_turn: Mutex<()>,
    compute_order: ComputeOrder,
    /// The compiled circuit, if the prover has one.
    compiled: Option<GpuCompiled>,
    /// Its densities' ranks, when MSMs run in pieces.
    compiled_ranks: Option<Arc<DensityRanks>>,
    scratch: Vec<Mutex<Scratch>>,
}

/// Where one query's bases are.
enum QueryBases<'a> {
    Resident(&'a GpuBases),
    Streamed(&'a HostBases),
}

const QUERIES: [Query; 5] = [Query::H, Query::L, Query::A, Query::BG1, Query::BG2];

impl DeviceShared {
    #[allow(clippy::too_many_arguments)]
    fn new(gpu: &GpuDevice, params: &ParamsSource, ntt: TableLayout, compiled: Option<(&CompiledCircuit, &LongRows)>, plan: &VramPlan, scratch_words: (usize, usize), timeout: Option<Duration>, input_tables: bool) -> Result<Self, ProverError> {
        let start = Instant::now();
        let (mut resident, mut streamed) = (Vec::new(), Vec::new());
        let mut loader = match params {
            ParamsSource::File(_) => Some(FileLoader::new(timeout)?),
            ParamsSource::Host(_) => None,
        };
        for q in QUERIES {
            let stream_it = plan.streams(q);
            match (params, &mut loader) {
                (ParamsSource::Host(p), _) if stream_it => streamed.push((q, HostBases::from_params(gpu, p, q)?)),
                (ParamsSource::Host(p), _) => {
                    let (words, len) = params_query_words(p, q)?;
                    resident.push((q, GpuBases::upload_words(gpu, words, len, query_curve(q))?));
                }
                (ParamsSource::File(file), Some(loader)) if stream_it => streamed.push((q, loader.query_to_host(gpu, file, q)?)),
                (ParamsSource::File(file), Some(loader)) => resident.push((q, loader.query(gpu, file, q)?)),
                (ParamsSource::File(_), None) => return Err(ProverError::Config("no loader for the parameter file".into())),
            }
        }
        let bytes = |len: usize, curve: super::msm::MsmCurve| len * curve.affine_limbs() * 8;
        let on_gpu: usize = resident.iter().map(|(_, b)| bytes(b.len(), b.curve())).sum();
        let on_host: usize = streamed.iter().map(|(_, b)| bytes(b.len(), b.curve())).sum();
        let took = start.elapsed().as_secs_f64();
        let from = if matches!(params, ParamsSource::File(_)) { "the parameter file (decoded and checked on the GPU)" } else { "host parameters" };
        info!(
            "GPU {}: {:.2} GB of bases in VRAM and {:.2} GB pinned on the host for streaming, from {from} in {took:.2} s",
            gpu.ordinal,
            on_gpu as f64 / 1e9,
            on_host as f64 / 1e9
        );
        let input_tables = if input_tables { InputTables::build(gpu, &params.lengths(), &resident, &streamed)? } else { InputTables::default() };
        let compiled_ranks = match (compiled, plan.msm_chunk) {
            (Some((c, _)), Some(chunk)) => Some(Arc::new(DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(chunk), c.densities()))),
            _ => None,
        };
        let scratch = (0..plan.scratch_sets).map(|_| Scratch::new(scratch_words, plan).map(Mutex::new)).collect::<Result<_, _>>()?;
        Ok(DeviceShared {
            compiled: compiled.map(|(c, long)| GpuCompiled::upload(gpu, c, long)).transpose()?,
            compiled_ranks,
            ntt: GpuNtt::with_layout(gpu, ntt)?,
            resident,
            streamed,
            input_tables,
            upload_turn: Mutex::new(()),
            compute_order: ComputeOrder::default(),
            scratch,
        })
    }

    fn bases(&self, query: Query) -> Result<QueryBases<'_>, ProverError> {
        if let Some((_, b)) = self.resident.iter().find(|(q, _)| *q == query) {
            return Ok(QueryBases::Resident(b));
        }
        self.streamed
            .iter()
            .find(|(q, _)| *q == query)
            .map(|(_, b)| QueryBases::Streamed(b))
            .ok_or_else(|| ProverError::Config(format!("no bases for the {query}")))
    }
}

/// A compute's scratch: the H coefficients, and the MSM arena and the
/// streamed bases' staging buffers when they are not in the slot.
struct Scratch {
    /// The H coefficients (unless the H step writes them over its input).
    h: Option<DeviceBuffer<u64>>,
    /// Arena words, then two staging buffers (when not in the slot).
    msm: Option<DeviceBuffer<u64>>,
    /// The copies of streamed pieces (when the plan streams).
    ring: Option<Ring>,
}

impl Scratch {
    /// `(h words, arena words + staging words)`.
    fn new((h_words, msm_words): (usize, usize), plan: &VramPlan) -> Result<Self, ProverError> {
        // SAFETY: u64 has no invalid bit patterns; the H step and the MSMs
        // write every word before reading it.
        let reserve = |what, words: usize| unsafe { DeviceBuffer::<u64>::uninitialized(words.max(1)) }.map_err(|e| gpu_err(what, e));
        Ok(Scratch {
            h: if plan.h_in_slot { None } else { Some(reserve("H coefficients", h_words)?) },
            msm: if plan.msm_in_slot { None } else { Some(reserve("MSM arena", msm_words)?) },
            ring: if plan.streamed.is_empty() { None } else { Some(Ring::new()?) },
        })
    }
}

/// A worker's compute-phase results and events, reused by every proof.
struct ComputeBuffers {
    results: DeviceBuffer<u64>,
    results_host: LockedBuffer<u64>,
    began: Event,
    h_done: Event,
    /// After the H step, for the first streamed copy (which may write into
    /// the a, b, c the H step reads).
    h_marker: Marker,
    /// Within an H step over its input, once it is done with the slot's b
    /// region (all but `c`'s inverse): for copies into that region.
    b_read: Marker,
    /// Recorded after each of the eight MSMs (also a skipped one), for the
    /// per-MSM times in the debug log.
    msm_done: [Event; 8],
    /// Late scalars' copies (`VramPlan::scalars_late`), beside the H MSM;
    /// the worker's stream waits on `scalars_ready` before the next MSM.
    late: Stream,
    scalars_ready: Marker,
    /// Around the late scalars' copies (the debug log's copy timeline).
    late_copy: (Event, Event),
    /// Around each streamed copy of a proof, on the copy stream (one pair
    /// per MSM piece when the plan streams): the copy engine's own time,
    /// without the waits for the MSMs between copies.
    copies: Vec<(Event, Event)>,
    done: Event,
}

impl ComputeBuffers {
    fn new(result_words: usize, copies: usize) -> Result<Self, ProverError> {
        let timing = || Event::new(EventFlags::DEFAULT).map_err(|e| gpu_err("event", e));
        // SAFETY: u64 has no invalid bit patterns; zeroed below.
        let mut results = unsafe { DeviceBuffer::<u64>::uninitialized(result_words.max(1)) }.map_err(|e| gpu_err("MSM results", e))?;
        // The download copies every MSM's place, also the places of pieces a
        // proof skips (read back as the identity instead): zeroed once, so
        // no copy reads uninitialized memory.
        results.set_zero().map_err(|e| gpu_err("zero MSM results", e))?;
        Ok(ComputeBuffers {
            results,
            results_host: LockedBuffer::new(&0u64, result_words.max(1)).map_err(|e| gpu_err("pinned MSM results", e))?,
            began: timing()?,
            h_done: timing()?,
            h_marker: Marker::new()?,
            b_read: Marker::new()?,
            msm_done: [timing()?, timing()?, timing()?, timing()?, timing()?, timing()?, timing()?, timing()?],
            late: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?,
            scalars_ready: Marker::new()?,
            late_copy: (timing()?, timing()?),
            copies: (0..copies).map(|_| Ok((timing()?, timing()?))).collect::<Result<_, ProverError>>()?,
            // The host waits on this one for the whole proof: block, not spin.
            done: Event::new(EventFlags::BLOCKING_SYNC).map_err(|e| gpu_err("event", e))?,
        })
    }
}

struct WorkerSlot {
    device: usize,
    stream: Stream,
    vram: DeviceBuffer<u64>,
    stager: Mutex<PinnedStager>,
    /// Around the witness upload (timing events: the copy engine's time);
    /// `abc_began` between the upload and a compiled circuit's a, b, c.
    upload_began: Event,
    abc_began: Event,
    uploaded: Event,
    /// A compiled job's satisfaction check: the first failing row, on the
    /// device and in pinned memory.
    first_bad: Mutex<(DeviceBuffer<u32>, LockedBuffer<u32>)>,
    /// How many aux values of the staged witness are neither 0 nor 1, per
    /// block of [`GpuEngine::general_block`] values (device words and
    /// their pinned copy).
    aux_general: Mutex<(DeviceBuffer<u32>, LockedBuffer<u32>)>,
    compute: Mutex<ComputeBuffers>,
    /// Its device's scratch set (`DeviceShared::scratch`).
    scratch: usize,
    /// Recorded after each compute, for the next one on the device to wait on.
    computed: Marker,
    /// Set while a staged proof holds the slot (see [`SlotClaim`]).
    claimed: Arc<AtomicBool>,
}

/// A worker slot held by one staged proof, from its upload until it is
/// computed or dropped: no second witness can be uploaded into the slot
/// meanwhile (it would overwrite the first, or land between a compute's H
/// step and its MSMs on the same stream).
struct SlotClaim(Arc<AtomicBool>);

impl SlotClaim {
    fn take(slot: usize, flag: &Arc<AtomicBool>) -> Result<Self, ProverError> {
        flag.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| SlotClaim(Arc::clone(flag)))
            .map_err(|_| ProverError::SlotBusy { slot })
    }
}

impl Drop for SlotClaim {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The GPU backend of a prover: devices, their shared bases and tables,
/// and the worker slots (see the module docs). A low-level path: its
/// proofs are not checked before they are returned (use [`crate::Prover`]
/// for that).
pub struct GpuEngine {
    slots: Vec<WorkerSlot>,
    shared: Vec<DeviceShared>,
    devices: Vec<GpuDevice>,
    layout: SlotLayout,
    /// The VRAM plan every device follows.
    plan: VramPlan,
    /// Where each MSM piece's result lies in a worker's result buffer.
    places: ResultPlaces,
    msm_config: MsmConfig,
    /// Whether an MSM in several calls may carry its buckets
    /// (`VramNeeds::may_carry`).
    may_carry: bool,
    /// Whether a device's computes run one at a time (`ComputeSharing`).
    serial_compute: bool,
    faults: Faults,
    /// Per device, the first error that poisoned its context, if any: the
    /// device then takes no more work (`DeviceLost`).
    lost: Vec<Mutex<Option<String>>>,
    /// Longest wait on the GPU before it is presumed hung (`gpu_timeout`).
    timeout: Option<Duration>,
    /// A device word the `hang` fault makes a stream wait on forever.
    hang_word: Option<DeviceBuffer<u32>>,
    h_steps_run: AtomicU64,
    msms_run: AtomicU64,
    /// Words of the MSM arena and of one staging buffer.
    arena_words: usize,
    staging_words: usize,
    /// `ProverConfig::streamed_bases_ahead`.
    bases_ahead: bool,
    /// How the H step writes its coefficients (`ProverConfig::h_canonical`).
    h_form: ScalarForm,
}

impl Drop for GpuEngine {
    /// Buffers, streams and events must be freed in their device's context,
    /// before that context is released with the device.
    fn drop(&mut self) {
        for slot in std::mem::take(&mut self.slots) {
            let _ = self.devices[slot.device].bind();
            // Work still queued (an upload, a compute of a dropped proof)
            // must not outlive the memory it reads and writes. A device
            // that hung may never finish it: its memory is left allocated.
            let lost = self.is_lost(slot.device);
            if lost || wait::stream(&slot.stream, "drain a worker's stream", self.timeout).is_err() {
                std::mem::forget(slot);
                continue;
            }
            drop(slot);
        }
        for (d, shared) in std::mem::take(&mut self.shared).into_iter().enumerate() {
            let _ = self.devices[d].bind();
            if self.is_lost(d) {
                // Freeing may wait for the device, which may never finish.
                std::mem::forget(shared);
                continue;
            }
            drop(shared);
        }
        if let Some(word) = self.hang_word.take() {
            std::mem::forget(word);
        }
        for (d, device) in std::mem::take(&mut self.devices).into_iter().enumerate() {
            if self.is_lost(d) {
                std::mem::forget(device);
            }
        }
    }
}

/// A proof whose witness is in its slot, which it holds until it is
/// computed or dropped: all compute needs besides the slot is r, s and the
/// density counts.
pub struct GpuStaged {
    slot: usize,
    /// Constraints (evaluations of a, b, c); the rest of the domain is zero.
    evaluations: usize,
    r: Scalar,
    s: Scalar,
    a_aux_ones: usize,
    b_input_ones: usize,
    b_aux_ones: usize,
    /// The densities' ranks, when the plan splits MSMs into pieces.
    ranks: Option<Arc<DensityRanks>>,
    /// How many aux values are neither 0 nor 1, per block (counted on the
    /// device): each aux MSM piece's window is chosen for its range's
    /// count (`MsmInput::general`).
    aux_general: GeneralCounts,
    /// The copy engine's time for the witness (zero if not measured).
    pub(crate) upload: Duration,
    /// Bytes read directly from pinned pool memory.
    pub(crate) pinned_bytes: usize,
    /// Device time of a, b, c from a compiled circuit (zero otherwise).
    pub(crate) abc: Duration,
    /// Bytes the upload sent (the values, or their classes).
    pub(crate) sent_bytes: usize,
    claim: SlotClaim,
    /// With late scalars (`VramPlan::scalars_late`): the job, whose inputs
    /// and aux the compute copies into the slot; held until then.
    late_job: Option<ProofJob>,
}

impl GpuEngine {
    /// Opens the configured devices; per device uploads the bases and builds
    /// the NTT tables, and reserves every worker's slot.
    pub fn new(params: &ParamsSource, compiled: Option<&CompiledCircuit>, config: &ProverConfig) -> Result<Self, ProverError> {
        let devices = open_devices(&config.devices, config.faults.contexts_per_gpu)?;
        let lengths = params.lengths();
        let mut layout = SlotLayout::for_params(&lengths);
        if !layout.domain.is_power_of_two() {
            return Err(ProverError::Config(format!("H query has {} bases; expected 2^k − 1", layout.domain - 1)));
        }
        if layout.ntt_log() > cuzk_kernels::ntt::MAX_LOG {
            return Err(ProverError::DomainTooLarge { log_size: layout.ntt_log() });
        }
        let mut msm_config = MsmConfig { accumulation: config.msm_accumulation, sort: config.msm_sort, bin_windows: config.msm_bin_windows, ..MsmConfig::default() };
        if config.msm_fill_waves {
            // One configuration for every device: the smallest waves.
            for gpu in &devices {
                let w = super::msm::level0_waves(gpu)?;
                let min = |a: u32, b: u32| if a == 0 { b } else { a.min(b) };
                msm_config.level0_waves = Level0Waves { g1: min(msm_config.level0_waves.g1, w.g1), g2: min(msm_config.level0_waves.g2, w.g2) };
            }
            debug!("MSM first level: {} G1 / {} G2 threads a wave", msm_config.level0_waves.g1, msm_config.level0_waves.g2);
        }
        let compiled = compiled.map(|c| (c, LongRows::of(c)));
        let compiled_words = compiled.as_ref().map_or(0, |(c, long)| GpuCompiled::words(c, long));
        let serial_compute = config.compute_sharing.serial(layout.ntt_log());
        let compiled_bytes = if compiled_words == 0 { 0 } else { crate::vram::needs::alloc_bytes(compiled_words) };
        let mut needs = VramNeeds::new(lengths, compiled_bytes, config.workers_per_device, config.ntt_row_twiddles, serial_compute);
        needs.msm = msm_config;
        needs.carried_buckets = config.msm_carried_buckets;
        needs.input_tables = config.input_msm_tables;
        // One plan for every device, made for the smallest budget.
        let (mut budget, mut smallest) = (u64::MAX, 0);
        for gpu in &devices {
            gpu.bind()?;
            let (free, _) = cust::memory::mem_get_info().map_err(|e| gpu_err("cuMemGetInfo", e))?;
            let free = config.faults.vram_free.unwrap_or(free) as u64;
            let this = config.vram_limit.map_or(free, |limit| limit.min(free));
            if this < budget {
                (budget, smallest) = (this, gpu.ordinal);
            }
        }
        let plan = VramPlan::choose(&needs, budget).map_err(|least| {
            ProverError::NotEnoughVram {
                device: smallest,
                free: budget,
                needed: least,
                detail: format!(
                    "{} available{}; the smallest plan (one worker, compact NTT tables, every query streamed in the smallest MSM chunks) needs {}",
                    gib(budget),
                    if config.vram_limit.is_some() { " (vram_limit)" } else { "" },
                    gib(least)
                ),
            }
        })?;
        let ntt_layout = GpuNtt::layout(layout.ntt_log(), plan.row_twiddles)?;
        let arena_words = needs.arena_words(plan.msm_chunk, plan.carried_buckets).map_err(ProverError::Config)?;
        let staging = if plan.streamed.is_empty() { 0 } else { staging_words(plan.msm_chunk.unwrap_or(0)) };
        let places = ResultPlaces::new(&layout, plan.msm_chunk);
        layout.late_scalars = plan.scalars_late;
        // Built up in place, so that an error half way frees what was
        // reserved in the right contexts (Drop).
        let mut engine = GpuEngine {
            slots: Vec::new(),
            shared: Vec::new(),
            devices,
            layout,
            plan: plan.clone(),
            places,
            msm_config,
            may_carry: needs.may_carry(),
            serial_compute,
            faults: Faults::new(config.faults),
            lost: Vec::new(),
            timeout: config.gpu_timeout,
            hang_word: None,
            h_steps_run: AtomicU64::new(0),
            msms_run: AtomicU64::new(0),
            arena_words,
            staging_words: staging,
            bases_ahead: config.streamed_bases_ahead,
            h_form: if config.h_canonical { ScalarForm::Canonical } else { ScalarForm::Montgomery },
        };
        if config.faults.hang.is_some() || config.faults.upload_hang.is_some() {
            engine.devices[0].bind()?;
            engine.hang_word = Some(DeviceBuffer::from_slice(&[0u32]).map_err(|e| gpu_err("hang word", e))?);
        }
        let general_blocks = GeneralCounts::blocks(engine.layout.aux(), engine.general_block());
        for (d, gpu) in engine.devices.iter().enumerate() {
            gpu.bind()?;
            let (free, _) = cust::memory::mem_get_info().map_err(|e| gpu_err("cuMemGetInfo", e))?;
            engine.shared.push(DeviceShared::new(gpu, params, ntt_layout, compiled.as_ref().map(|(c, long)| (*c, long)), &plan, (layout.h_words(), arena_words + 2 * staging), config.gpu_timeout, config.input_msm_tables)?);
            engine.lost.push(Mutex::new(None));
            for w in 0..plan.workers {
                // SAFETY: u64 has no invalid bit patterns; pre-stage writes
                // every word a proof reads.
                let vram = unsafe { DeviceBuffer::uninitialized(layout.words()) }.map_err(|e| gpu_err("reserve slot", e))?;
                engine.slots.push(WorkerSlot {
                    device: d,
                    stream: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?,
                    vram,
                    stager: Mutex::new(PinnedStager::new(config.gpu_timeout)?),
                    upload_began: Event::new(EventFlags::DEFAULT).map_err(|e| gpu_err("event", e))?,
                    abc_began: Event::new(EventFlags::DEFAULT).map_err(|e| gpu_err("event", e))?,
                    first_bad: Mutex::new((
                        DeviceBuffer::from_slice(&[u32::MAX]).map_err(|e| gpu_err("check word", e))?,
                        LockedBuffer::new(&u32::MAX, 1).map_err(|e| gpu_err("pinned check word", e))?,
                    )),
                    aux_general: Mutex::new((
                        DeviceBuffer::zeroed(general_blocks).map_err(|e| gpu_err("count words", e))?,
                        LockedBuffer::new(&0u32, general_blocks).map_err(|e| gpu_err("pinned count words", e))?,
                    )),
                    uploaded: Event::new(EventFlags::BLOCKING_SYNC).map_err(|e| gpu_err("event", e))?,
                    compute: Mutex::new(ComputeBuffers::new(engine.places.words(), if plan.streamed.is_empty() { 0 } else { engine.places.total_pieces() })?),
                    scratch: w % plan.scratch_sets,
                    computed: Marker::new()?,
                    claimed: Arc::new(AtomicBool::new(false)),
                });
            }
            info!(
                "GPU {}: {plan}; {} free before; computes {}",
                gpu.ordinal,
                gib(free as u64),
                if serial_compute { "one at a time" } else { "interleaved" }
            );
        }
        Ok(engine)
    }

    /// Devices it proves on.
    pub fn device_count(&self) -> usize {
        self.devices.len()
    }

    /// The devices, in slot order.
    pub fn devices(&self) -> &[GpuDevice] {
        &self.devices
    }

    /// The ordinal of the device that holds worker slot `slot`.
    pub fn device_of_slot(&self, slot: usize) -> Option<u32> {
        self.slots.get(slot).map(|s| self.devices[s.device].ordinal)
    }

    /// Where a witness lives in a worker's slot.
    pub fn layout(&self) -> SlotLayout {
        self.layout
    }

    /// The VRAM plan its devices follow.
    pub fn vram_plan(&self) -> &VramPlan {
        &self.plan
    }

    /// Worker slots per device (the plan's).
    pub fn workers_per_device(&self) -> usize {
        self.plan.workers
    }

    /// H steps this engine has enqueued on its devices (one per proof).
    pub fn h_steps_run(&self) -> u64 {
        self.h_steps_run.load(Ordering::Relaxed)
    }

    /// MSMs this engine has enqueued on its devices (up to eight per proof;
    /// an MSM that selects no scalar is the identity and is not run).
    pub fn msms_run(&self) -> u64 {
        self.msms_run.load(Ordering::Relaxed)
    }

    /// Uploads the job's witness into `slot` on the slot's stream and waits
    /// for it: when this returns the witness is in VRAM and the job's host
    /// buffer is free again (a pooled one is back in its pool), except with
    /// late scalars (`VramPlan::scalars_late`), where the staged proof holds
    /// the job until its compute has copied the scalars in. Parts that
    /// lie in pinned pool memory are copied directly by the copy engine;
    /// the rest go through the slot's pinned staging chunks. Uploads to one
    /// device take turns.
    ///
    /// A witness-only job (inputs and aux) needs the engine's compiled
    /// circuit: a, b, c are evaluated into the slot on the GPU and, with
    /// `check_satisfied`, a·b = c is checked there (`Unsatisfied`).
    pub fn prestage(&self, slot: usize, shape: &ProofShape, job: ProofJob, check_satisfied: bool) -> Result<GpuStaged, ProverError> {
        let device = self.slot(slot)?.device;
        self.usable(device)?;
        let staged = self.prestage_on(slot, shape, job, check_satisfied);
        self.note_loss(device, staged)
    }

    /// Devices whose context a fatal error poisoned, with the error.
    pub fn lost_devices(&self) -> Vec<(u32, String)> {
        let lost = self.lost.iter().map(|l| l.lock().unwrap_or_else(|e| e.into_inner()).clone());
        self.devices.iter().zip(lost).filter_map(|(d, l)| l.map(|cause| (d.ordinal, cause))).collect()
    }

    fn is_lost(&self, device: usize) -> bool {
        self.lost.get(device).is_some_and(|l| l.lock().unwrap_or_else(|e| e.into_inner()).is_some())
    }

    /// `DeviceLost` if a fatal error poisoned the device before.
    fn usable(&self, device: usize) -> Result<(), ProverError> {
        match &*self.lost[device].lock().unwrap_or_else(|e| e.into_inner()) {
            Some(cause) => Err(ProverError::DeviceLost { device: self.devices[device].ordinal, cause: cause.clone() }),
            None => Ok(()),
        }
    }

    /// Remembers a fatal error of `device`, so it takes no more work.
    fn note_loss<T>(&self, device: usize, result: Result<T, ProverError>) -> Result<T, ProverError> {
        if let Err(ProverError::DeviceLost { cause, .. }) = &result {
            let mut lost = self.lost[device].lock().unwrap_or_else(|e| e.into_inner());
            if lost.is_none() {
                log::error!("GPU {} lost: {cause}; its proofs fail from now on", self.devices[device].ordinal);
                *lost = Some(cause.clone());
            }
        }
        result
    }

    fn prestage_on(&self, slot: usize, shape: &ProofShape, job: ProofJob, check_satisfied: bool) -> Result<GpuStaged, ProverError> {
        let ws = self.slot(slot)?;
        self.devices[ws.device].bind()?;
        let lay = &self.layout;
        // The uploads below are sized by it: it must be the job's own.
        let own_shape = if job.is_witness_only() {
            let compiled = self.shared[ws.device].compiled.as_ref().ok_or_else(|| ProverError::Config("a witness-only job needs an engine built with its compiled circuit".into()))?;
            let asg = job.assignment();
            (asg.input.len(), asg.aux.len(), compiled.rows()) == (shape.inputs, shape.aux, shape.constraints)
        } else {
            ProofShape::of(job.assignment())? == *shape
        };
        if !own_shape {
            return Err(ProverError::Config("pre-stage given the shape of another assignment".into()));
        }
        if shape.domain_size() != lay.domain {
            return Err(ProverError::ParamsMismatch { what: "evaluation domain of the reserved slot", params: lay.domain, circuit: shape.domain_size() });
        }
        if shape.inputs != lay.inputs || shape.aux != lay.aux() {
            let what = if shape.inputs != lay.inputs { "public inputs of the reserved slot" } else { "aux variables of the reserved slot" };
            let (params, circuit) = if shape.inputs != lay.inputs { (lay.inputs, shape.inputs) } else { (lay.aux(), shape.aux) };
            return Err(ProverError::ParamsMismatch { what, params, circuit });
        }
        let claim = SlotClaim::take(slot, &ws.claimed)?;
        let turn = self.shared[ws.device].upload_turn.lock().unwrap_or_else(|e| e.into_inner());
        let t = Instant::now();
        let mut stager = ws.stager.lock().unwrap_or_else(|e| e.into_inner());
        // Waited for even after an error: the job's memory (the copies'
        // source) is freed or reused when this returns.
        let check = check_satisfied && job.is_witness_only();
        let uploaded = self
            .enqueue_upload(ws, &mut stager, &job, check)
            .and_then(|direct| wait::event(&ws.uploaded, "witness upload", self.timeout).map(|()| direct));
        if matches!(uploaded, Err(ref e) if !matches!(e, ProverError::DeviceLost { .. })) {
            let _ = wait::stream(&ws.stream, "drain after a failed upload", self.timeout);
        }
        drop((stager, turn));
        let Uploaded { direct, sent } = uploaded?;
        // Counted on the device from the slot's own aux values (the MSMs'
        // window is chosen for it, their sort's room bounded by it).
        // Late scalars are not on the device yet: counted on the host.
        let block = self.general_block();
        let aux_general = if lay.late_scalars {
            GeneralCounts::count(&job.assignment().aux, block)
        } else {
            let words = ws.aux_general.lock().unwrap_or_else(|e| e.into_inner());
            let blocks = GeneralCounts::blocks(shape.aux, block);
            GeneralCounts::from_counts(block, words.1[..blocks].iter().map(|&c| c as usize))
        };
        if check {
            let first_bad = ws.first_bad.lock().unwrap_or_else(|e| e.into_inner()).1[0];
            if first_bad != u32::MAX {
                return Err(ProverError::Unsatisfied { constraint: first_bad as usize });
            }
        }
        // A timing query that fails costs the log its figure, never the proof.
        let (upload, abc) = if job.is_witness_only() {
            (ws.abc_began.elapsed(&ws.upload_began).unwrap_or_default(), ws.uploaded.elapsed(&ws.abc_began).unwrap_or_default())
        } else {
            (ws.uploaded.elapsed(&ws.upload_began).unwrap_or_default(), Duration::ZERO)
        };
        debug!(
            "slot {slot}: witness uploaded in {:.3?} ({upload:.3?} on the copy engine, {:.3} GB sent, {:.2} GB of it read directly from pinned memory)",
            t.elapsed(),
            sent as f64 / 1e9,
            direct as f64 / 1e9
        );
        let ranks = match self.plan.msm_chunk {
            None => None,
            Some(_) if job.is_witness_only() => self.shared[ws.device].compiled_ranks.clone(),
            Some(chunk) => {
                let a = job.assignment();
                Some(Arc::new(DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(chunk), [&a.a_aux_density, &a.b_input_density, &a.b_aux_density])))
            }
        };
        Ok(GpuStaged {
            slot,
            ranks,
            evaluations: shape.constraints,
            r: job.r,
            s: job.s,
            a_aux_ones: shape.a_aux_count,
            b_input_ones: shape.b_input_count,
            b_aux_ones: shape.b_aux_count,
            aux_general,
            upload,
            pinned_bytes: direct,
            sent_bytes: sent,
            abc,
            claim,
            late_job: lay.late_scalars.then_some(job),
        })
    }

    /// Enqueues the copies of a job's witness into its slot between the
    /// slot's upload events; returns the bytes read directly from pinned
    /// pool memory (the rest went through the staging chunks) and the bytes
    /// sent in all.
    fn enqueue_upload(&self, ws: &WorkerSlot, stager: &mut PinnedStager, job: &ProofJob, check: bool) -> Result<Uploaded, ProverError> {
        let lay = &self.layout;
        let asg = job.assignment();
        let base = ws.vram.as_device_ptr();
        // SAFETY: every offset below is a region of the slot (SlotLayout).
        let at = |words: usize| unsafe { base.add(words) };
        // Each returns the bytes copied directly from pinned memory.
        let mut direct = 0;
        let upload = |stager: &mut PinnedStager, part: Part, to: usize| upload_part(&ws.stream, stager, job, part, at(to));
        ws.upload_began.record(&ws.stream).map_err(|e| gpu_err("record upload event", e))?;
        if let (Err(_), Some(word)) = (self.faults.check(Fault::UploadHang), &self.hang_word) {
            // SAFETY: the word lives as long as the engine; the stream
            // waits for a value nothing ever writes.
            unsafe { sys_check("upload hang", cuStreamWaitValue32_v2(ws.stream.as_inner(), word.as_device_ptr().as_raw(), 1, 1))? };
        }
        if job.is_witness_only() {
            direct += upload(stager, Part::Input, lay.scalars_at())?;
            self.faults.check(Fault::Upload)?;
            let mut sent = 32 * asg.input.len();
            // The aux values as classes when they came with the job and
            // fit the slot's b and c regions (a, b, c are written later).
            let scratch = lay.abc(1)..lay.abc(3);
            match job.classes().filter(|c| c.words() <= scratch.len()) {
                Some(c) => {
                    let (classes_at, chunks_at) = (scratch.start, scratch.start + c.classes.len());
                    let others_at = chunks_at + c.chunk_start.len().div_ceil(2);
                    // Packed in the job's pinned buffer when it was made
                    // (one direct copy), else the three parts through staging.
                    match job.pooled_witness().and_then(|w| w.pinned_classes()).filter(|p| p.len() == c.words()) {
                        Some(packed) => {
                            copy_pinned(&ws.stream, at(classes_at), packed)?;
                            direct += std::mem::size_of_val(packed);
                        }
                        None => {
                            stager.upload(&ws.stream, at(classes_at), &c.classes)?;
                            let chunk_words: Vec<u64> = c.chunk_words().collect();
                            stager.upload(&ws.stream, at(chunks_at), &chunk_words)?;
                            stager.upload(&ws.stream, at(others_at), scalar_limbs(&c.others))?;
                        }
                    }
                    // SAFETY: the classed witness lies in the slot's b and c
                    // regions, the output is its aux region; only this
                    // slot's stream touches them, and the prestage waits
                    // for it.
                    unsafe { expand_classes(&self.devices[ws.device], &ws.stream, [at(classes_at), at(chunks_at), at(others_at)], at(lay.aux_scalars_at()), asg.aux.len())? };
                    sent += c.bytes();
                }
                None => {
                    direct += upload(stager, Part::Aux, lay.aux_scalars_at())?;
                    sent += 32 * asg.aux.len();
                }
            }
            self.enqueue_count_general(ws, at(lay.aux_scalars_at()), asg.aux.len())?;
            self.enqueue_compiled(ws, check)?;
            ws.uploaded.record(&ws.stream).map_err(|e| gpu_err("record upload event", e))?;
            return Ok(Uploaded { direct, sent });
        }
        for (which, part) in [Part::A, Part::B].into_iter().enumerate() {
            direct += upload(stager, part, lay.abc(which))?;
            if which == 0 {
                self.faults.check(Fault::Upload)?;
            }
        }
        // c is a·b wherever the witness satisfies its circuit (checked on
        // the host when `check_satisfied`; where it does not, the proof
        // fails its check either way): made here, a quarter of the bytes
        // not sent. Padding zeroed after: the product reads only values.
        let len = asg.a.len();
        // SAFETY: a, b and c are regions of the slot with room for `len`
        // scalars; only this slot's stream touches them, after a and b's
        // copies above.
        unsafe { multiply_evaluations(&self.devices[ws.device], &ws.stream, [at(lay.abc(0)), at(lay.abc(1)), at(lay.abc(2))], len)? };
        for which in 0..3 {
            zero_async(&ws.stream, at(lay.abc(which) + len * FR_WORDS), (lay.domain - len) * FR_WORDS)?;
        }
        // Late scalars go up during the compute (`copy_late_scalars`).
        if !lay.late_scalars {
            direct += upload(stager, Part::Input, lay.scalars_at())?;
            direct += upload(stager, Part::Aux, lay.aux_scalars_at())?;
            self.enqueue_count_general(ws, at(lay.aux_scalars_at()), asg.aux.len())?;
        }
        stager.upload(&ws.stream, at(lay.a_aux_density_at()), asg.a_aux_density.words())?;
        stager.upload(&ws.stream, at(lay.b_aux_density_at()), asg.b_aux_density.words())?;
        stager.upload(&ws.stream, at(lay.b_input_density_at()), asg.b_input_density.words())?;
        ws.uploaded.record(&ws.stream).map_err(|e| gpu_err("record upload event", e))?;
        let scalars = if lay.late_scalars { 0 } else { asg.input.len() + asg.aux.len() };
        Ok(Uploaded { direct, sent: 32 * (asg.a.len() + asg.b.len() + scalars) })
    }

    /// Aux values per count of those other than 0 and 1
    /// ([`general_count_block`]).
    fn general_block(&self) -> usize {
        general_count_block(self.plan.msm_chunk)
    }

    /// Counts the slot's aux values other than 0 and 1 on its stream, one
    /// word per block of [`Self::general_block`], into its pinned words
    /// (read once the upload's event has passed).
    fn enqueue_count_general(&self, ws: &WorkerSlot, aux: DevicePointer<u64>, n: usize) -> Result<(), ProverError> {
        u32::try_from(n).map_err(|_| ProverError::Config("over 2^32 aux values".into()))?;
        let block = self.general_block();
        let blocks = GeneralCounts::blocks(n, block);
        let mut words = ws.aux_general.lock().unwrap_or_else(|e| e.into_inner());
        let (device, host) = &mut *words;
        if blocks > device.len() {
            return Err(ProverError::Config(format!("{n} aux values need {blocks} count words, the slot has {}", device.len())));
        }
        // SAFETY: the slot's count words, on the slot's stream.
        sys_check("reset counts", unsafe { cust::sys::cuMemsetD32Async(device.as_device_ptr().as_raw(), 0, blocks, ws.stream.as_inner()) })?;
        for k in 0..blocks {
            let first = k * block;
            let mut len = block.min(n - first) as u32;
            // SAFETY: block k's values lie in the `n` at `aux`.
            let (mut scalars, mut count) = (unsafe { aux.add(first * FR_WORDS) }, unsafe { device.as_device_ptr().add(k) });
            let args = super::launch::kernel_args![scalars, len, count];
            // SAFETY: the values and count word k are the slot's, used only
            // by its stream; the pinned copy is read only after the stream
            // is past the download (the upload's event). A grid of at most
            // 2^18 threads (a grid-stride loop) keeps the atomics few.
            unsafe { super::launch::launch_blocks_of(&self.devices[ws.device].module, &ws.stream, "msm_count_general", len.clamp(1, 1 << 18), super::launch::BLOCK, &args)? };
        }
        // SAFETY: as above; the pinned words outlive the copy (the slot's).
        unsafe { device.async_copy_to(&mut host[..], &ws.stream) }.map_err(|e| gpu_err("counts download", e))
    }

    /// After a witness-only upload: the densities copied in from the
    /// compiled circuit, a, b, c evaluated into the slot, and with `check`
    /// the first row with a·b ≠ c brought back to pinned memory.
    fn enqueue_compiled(&self, ws: &WorkerSlot, check: bool) -> Result<(), ProverError> {
        let gpu = &self.devices[ws.device];
        let compiled = self.shared[ws.device].compiled.as_ref().ok_or_else(|| ProverError::Config("no compiled circuit on this device".into()))?;
        let lay = &self.layout;
        // SAFETY: every offset below is a region of the slot (SlotLayout).
        let at = |words: usize| unsafe { ws.vram.as_device_ptr().add(words) };
        compiled.copy_densities(&ws.stream, [at(lay.a_aux_density_at()), at(lay.b_aux_density_at()), at(lay.b_input_density_at())])?;
        ws.abc_began.record(&ws.stream).map_err(|e| gpu_err("record a·b·c event", e))?;
        let abc = [0, 1, 2].map(|m| at(lay.abc(m)));
        // SAFETY: z (inputs then aux) and a, b, c (domain scalars each) are
        // regions of this slot, which only its stream uses, and which the
        // prestage waits for before returning (also after an error).
        unsafe { compiled.enqueue_abc(gpu, &ws.stream, at(lay.scalars_at()), abc, lay.domain)? };
        self.faults.check(Fault::Launch)?;
        if check {
            // SAFETY: as above; the check word and its pinned copy are the
            // slot's, read only after the stream is past the copy.
            let mut word = ws.first_bad.lock().unwrap_or_else(|e| e.into_inner());
            let (device, host) = &mut *word;
            unsafe {
                compiled.enqueue_check(gpu, &ws.stream, abc, device.as_device_ptr())?;
                device.async_copy_to(&mut host[..], &ws.stream).map_err(|e| gpu_err("check word download", e))?;
            }
        }
        Ok(())
    }

    /// Computes the proof of a staged witness on its worker's stream: the H
    /// step, the eight MSMs, a download of their results, then assembly on
    /// the host. The slot's a, b, c are overwritten (the H step's scratch),
    /// so a slot holds one proof's witness at a time.
    ///
    /// After a fatal error on its device (this proof's or an earlier one's),
    /// `DeviceLost`, at once.
    ///
    /// Unverified: the proof is returned without the check against the
    /// verifying key that [`crate::Prover::compute`] makes
    /// (`ProverConfig::verify_proofs`). A caller of this low-level path
    /// checks its proofs itself (`bellperson::groth16::verify_proof`).
    pub fn compute(&self, vk: &VerifyingKey<Bls12>, st: GpuStaged, timings: &mut PhaseTimings) -> Result<Proof<Bls12>, ProverError> {
        let device = self.slot(st.slot)?.device;
        self.usable(device)?;
        let proof = self.compute_on(vk, st, timings);
        self.note_loss(device, proof)
    }

    fn compute_on(&self, vk: &VerifyingKey<Bls12>, st: GpuStaged, timings: &mut PhaseTimings) -> Result<Proof<Bls12>, ProverError> {
        let ws = self.slot(st.slot)?;
        // Staged by another engine: its witness is not in this slot.
        if !Arc::ptr_eq(&st.claim.0, &ws.claimed) {
            return Err(ProverError::ForeignStaged);
        }
        self.devices[ws.device].bind()?;
        let mut bufs = ws.compute.lock().unwrap_or_else(|e| e.into_inner());
        let shared = &self.shared[ws.device];
        // Held while the compute is enqueued: with one set per device, the
        // computes' order is also the ring's and the arena's.
        let mut scratch = shared.scratch[ws.scratch].lock().unwrap_or_else(|e| e.into_inner());
        let drain_copies = |scratch: &Scratch| scratch.ring.as_ref().map_or(Ok(()), |r| wait::stream(r.stream(), "drain streamed copies", self.timeout));
        let ran = if self.serial_compute {
            let slots = &self.slots;
            let drain = |stream: &Stream| wait::stream(stream, "drain after a failed compute", self.timeout);
            let ran = shared.compute_order.serialized(st.slot, &ws.stream, |i| &slots[i].computed, drain, || self.enqueue_proof(ws, &st, &mut bufs, &mut scratch));
            if ran.is_err() {
                let _ = drain_copies(&scratch);
                let _ = wait::stream(&bufs.late, "drain late scalars", self.timeout);
            }
            ran?
        } else {
            match self.enqueue_proof(ws, &st, &mut bufs, &mut scratch) {
                Ok(ran) => ran,
                Err(e) => {
                    // Let whatever was enqueued finish, so the next proof
                    // finds the slot's buffers idle.
                    let _ = drain_copies(&scratch);
                    let _ = wait::stream(&bufs.late, "drain late scalars", self.timeout);
                    let _ = wait::stream(&ws.stream, "drain after a failed compute", self.timeout);
                    return Err(e);
                }
            }
        };
        drop(scratch);
        let finished = self.faults.check(Fault::CompletionWait).and_then(|()| wait::event(&bufs.done, "H step and MSMs", self.timeout));
        if let Err(e) = finished {
            // The slot goes back to the pool with this error: its next
            // proof must find its stream idle, not still computing this
            // one (a lost device takes no next proof).
            if !matches!(e, ProverError::DeviceLost { .. }) {
                wait::stream(&ws.stream, "drain after a failed wait for a compute", self.timeout)?;
            }
            return Err(e);
        }
        // A timing query that fails costs the log its figure, never the proof.
        timings.ntt = bufs.h_done.elapsed(&bufs.began).unwrap_or_default();
        timings.msm = bufs.done.elapsed(&bufs.h_done).unwrap_or_default();
        timings.upload_bytes += ran.late_bytes;
        if ran.streamed_bytes > 0 {
            timings.bases_streamed = ran.streamed_bytes;
            timings.bases_copy = bufs.copies.iter().take(ran.copies).map(|(began, done)| done.elapsed(began).unwrap_or_default()).sum();
        }
        let m = msm_results(&bufs.results_host[..], &self.places, &ran.pieces);

        let t = Instant::now();
        let proof = assemble(vk, &m, st.r, st.s);
        timings.assemble = t.elapsed();
        debug!("slot {}: H step {:.3?}, MSMs {:.3?}, assembly {:.3?} (GPU)", st.slot, timings.ntt, timings.msm, timings.assemble);
        if log::log_enabled!(log::Level::Debug) {
            let mut each = String::new();
            let mut prev = &bufs.h_done;
            for msm in &ProofMsm::RUN_ORDER {
                let event = &bufs.msm_done[*msm as usize];
                let took = event.elapsed(prev).unwrap_or_default();
                let (calls, carried) = ran.calls[*msm as usize];
                each += &format!(" {msm:?} {took:.3?}");
                if self.plan.msm_chunk.is_some() {
                    each += &format!(" ({calls} calls{})", if carried { ", buckets carried" } else { "" });
                }
                prev = event;
            }
            debug!("slot {}: MSMs one by one:{each}", st.slot);
            // Each copy's start and end, in ms from the H step's end
            // (negative: during it): where a stall at the link shows.
            let span = |(began, done): &(Event, Event)| {
                let at = |e: &Event| e.elapsed_time_f32(&bufs.h_done).map_or("?".to_string(), |ms| format!("{ms:.0}"));
                format!("{}..{}", at(began), at(done))
            };
            let mut copies = String::new();
            if ran.late_bytes > 0 {
                copies += &format!(" late scalars {};", span(&bufs.late_copy));
            }
            if ran.copies > 0 {
                let each: Vec<String> = bufs.copies.iter().take(ran.copies).map(span).collect();
                copies += &format!(" streamed pieces {}", each.join(" "));
            }
            if !copies.is_empty() {
                debug!("slot {}: copies, ms from the H step's end:{copies}", st.slot);
            }
        }
        Ok(proof)
    }

    /// Puts the H step, the MSMs (each in its plan's pieces, streamed ones
    /// copied in on the scratch's ring) and the result download on the
    /// slot's stream, between the `began`, `h_done` and `done` events.
    fn enqueue_proof(&self, ws: &WorkerSlot, st: &GpuStaged, bufs: &mut ComputeBuffers, scratch: &mut Scratch) -> Result<Ran, ProverError> {
        let gpu = &self.devices[ws.device];
        let shared = &self.shared[ws.device];
        let lay = &self.layout;
        let record = |event: &Event, what: &str| event.record(&ws.stream).map_err(|e| gpu_err(what, e));

        record(&bufs.began, "record start event")?;
        if self.faults.check(Fault::Poison).is_err() {
            poison(gpu, &ws.stream)?;
        }
        if let (Err(_), Some(word)) = (self.faults.check(Fault::Hang), &self.hang_word) {
            // SAFETY: the word lives as long as the engine; the stream
            // waits for a value nothing ever writes.
            unsafe { sys_check("hang", cuStreamWaitValue32_v2(ws.stream.as_inner(), word.as_device_ptr().as_raw(), 1, 1))? };
        }
        let region = |which: usize| ws.vram.index(lay.abc(which)..lay.abc(which + 1));
        let (mut a, mut b, mut c) = (region(0), region(1), region(2));
        // SAFETY: a, b, c and the H buffer are this slot's (the H buffer
        // its scratch set's), reserved for the engine's life and used only
        // on this slot's stream, or on streams ordered after it (computes
        // one at a time); the caller drains it before the slot is used
        // again (also after an error).
        let h_in_slot = scratch.h.is_none();
        let h_ptr = match scratch.h.as_mut() {
            Some(h) => {
                unsafe { shared.ntt.h_step(gpu, &ws.stream, &mut a, &mut b, &mut c, st.evaluations, h, self.h_form)? };
                h.as_device_ptr()
            }
            None => {
                // The coefficients land in the slot's first region (passed
                // as b: the product a·b is symmetric), leaving the other two
                // one block for the MSMs' arena.
                unsafe { shared.ntt.h_step_over_input_marked(gpu, &ws.stream, &mut b, &mut a, &mut c, st.evaluations, self.h_form, Some(&bufs.b_read))? };
                a.as_device_ptr()
            }
        };
        self.h_steps_run.fetch_add(1, Ordering::Relaxed);
        record(&bufs.h_done, "record H event")?;
        bufs.h_marker.record(&ws.stream)?;
        self.faults.check(Fault::Launch)?;

        // The arena and the two staging buffers: in the slot's a, b, c
        // (free once the H step is done) or in the scratch set.
        let msm_words = self.arena_words + 2 * self.staging_words;
        // After the H output (a's region), before the late scalars (c's).
        let in_slot_at = lay.msm_in_slot_at(self.plan.h_in_slot);
        let msm_region = match &mut scratch.msm {
            Some(buf) => buf.index(..msm_words),
            None => ws.vram.index(in_slot_at..in_slot_at + msm_words),
        };
        let staging_at = msm_region.as_device_ptr().as_raw() + 8 * self.arena_words as u64;
        let staging = [staging_at, staging_at + 8 * self.staging_words as u64];
        let mut arena = msm_region.index(..self.arena_words.max(1));
        let mut ran = Ran { pieces: vec![false; self.places.total_pieces()], calls: [(0, false); 8], streamed_bytes: 0, late_bytes: 0, copies: 0 };
        // In the slot, each staging buffer's first copy of a proof waits
        // until the H step is done with its memory: the slot's b region
        // once the H step over its input has only c's inverse left
        // (`b_read`), the rest of a, b, c at its end.
        let base = ws.vram.as_device_ptr().as_raw();
        let region_b = (base + 8 * lay.abc(1) as u64)..(base + 8 * lay.abc(2) as u64);
        let free_from = |at: u64| match h_in_slot && region_b.contains(&at) && at + 8 * self.staging_words as u64 <= region_b.end {
            true => &bufs.b_read,
            false => &bufs.h_marker,
        };
        let mut unused = [self.plan.msm_in_slot; 2];
        if let Some(ring) = scratch.ring.as_mut() {
            ring.begin();
            if self.bases_ahead {
                // What the H step leaves idle in the slot's a, b, c: more
                // staging buffers from the start, so streamed copies run
                // ahead of their MSMs by that many more pieces.
                let msm_in_slot = scratch.msm.is_none().then_some(msm_words);
                let idle: Vec<u64> = lay.idle_staging_buffers(h_in_slot, msm_in_slot, self.staging_words).into_iter().map(|w| base + 8 * w as u64).collect();
                // SAFETY: that memory is the slot's, apart from everything
                // the MSMs read (the H output, the arena and staging, the
                // late scalars); the H step enqueued above is the last to
                // use it before the slot's next proof.
                unsafe { ring.extend(&idle, &ws.stream)? };
            }
        }
        for msm in ProofMsm::RUN_ORDER {
            if msm == ProofMsm::L {
                if let Some(job) = &st.late_job {
                    ran.late_bytes = self.copy_late_scalars(ws, bufs, job)?;
                }
            }
            let input = self.msm_input(ws, st, h_ptr, msm);
            let ones = input.density.map(|d| d.ones);
            let list = pieces(msm, input.n, ones, input.base_offset, self.plan.msm_chunk, st.ranks.as_deref()).map_err(ProverError::Config)?;
            // A piece's own range's count of scalars other than 0 and 1
            // (exact: the counts' blocks divide the pieces).
            let general = |p: &Piece| input.general.map(|g| g.min(st.aux_general.within(p.scalar_start, p.n)));
            let calls = match self.plan.msm_chunk {
                Some(chunk) => {
                    let cap = matches!(shared.bases(msm.query())?, QueryBases::Streamed(_)).then(|| msm.piece_scalars(chunk));
                    msm_calls(list, cap, self.may_carry, general, |p, c| {
                        let config = MsmConfig { window_bits: c, ..self.msm_config };
                        MsmPlan::for_witness(p.n, p.selected, general(p), msm.curve(), &config).is_ok_and(|plan| plan.scratch_words() <= self.arena_words)
                    })
                }
                // Pieces that select nothing are skipped (their results
                // are the identity).
                None => MsmCalls { pieces: list.into_iter().filter(|p| p.selected > 0).collect(), carried: None },
            };
            // An input MSM in one call runs over its bases' tables, if the
            // prover has them and they hold its bases.
            let tabled = shared.input_tables.of(msm).filter(|t| match calls.pieces.as_slice() {
                [p] => calls.carried.is_none() && p.base_first + p.selected <= t.len(),
                _ => false,
            });
            let config = match tabled {
                Some(_) => input_table_config(),
                None => MsmConfig { window_bits: calls.carried.unwrap_or(self.msm_config.window_bits), ..self.msm_config },
            };
            ran.calls[msm as usize] = (calls.pieces.len(), calls.carried.is_some());
            let mut first_plan: Option<MsmPlan> = None;
            for (i, &piece) in calls.pieces.iter().enumerate() {
                let carry = if calls.carried.is_some() { Carry::of(i, calls.pieces.len()) } else { Carry::WHOLE };
                // SAFETY: every piece's place lies in the result buffer
                // (ResultPlaces), its scalars and density words in the
                // MSM's (pieces split them).
                let out = unsafe { bufs.results.as_device_ptr().add(self.places.at(msm, piece.k)) };
                let part = MsmInput {
                    scalars: unsafe { input.scalars.add(piece.scalar_start * FR_WORDS) },
                    form: input.form,
                    n: piece.n,
                    density: input.density.map(|d| DeviceDensity { words: unsafe { d.words.add(piece.scalar_start / 64) }, ones: piece.selected }),
                    base_offset: 0,
                    general: general(&piece),
                };
                let (bases, part, streamed) = match (tabled, shared.bases(msm.query())?) {
                    (Some(t), _) => (t.at(), MsmInput { base_offset: piece.base_first, ..part }, false),
                    (None, QueryBases::Resident(b)) => (b.at(), MsmInput { base_offset: piece.base_first, ..part }, false),
                    (None, QueryBases::Streamed(host)) => {
                        let ring = scratch.ring.as_mut().ok_or_else(|| ProverError::Config("streamed bases without a copy ring".into()))?;
                        // SAFETY: both staging buffers hold a piece's bases
                        // (a chunk of G1 points, half as many in G2) and are
                        // reserved for the engine's life; in the slot, the
                        // first copy into each of a proof waits until its H
                        // step is done with that memory (apart, copies start
                        // at once); other buffers' memory is free once the
                        // work their markers were recorded after is done.
                        let next = ring.next_buffer();
                        let after = (next < 2 && std::mem::take(&mut unused[next])).then(|| free_from(staging[next]));
                        let at = unsafe { ring.fill(staging, host, piece.base_first, piece.selected, after, &ws.stream, bufs.copies.get(ran.copies))? };
                        ran.copies += 1;
                        ran.streamed_bytes += piece.selected * host.curve().affine_limbs() * 8;
                        (BasesAt { ptr: at, len: piece.selected, curve: host.curve(), tables: 1, table_c: 0 }, part, true)
                    }
                };
                // SAFETY: the scalars, densities and H coefficients lie in
                // this slot's and its scratch set's buffers, `out` in its
                // result buffer, the bases resident or in the staging
                // buffer just filled; all are reserved for the engine's life
                // and used in this stream's order. `input.general` was
                // counted from the job's aux values (on the device, or on
                // the host for late scalars), which nothing changes until
                // the proof is computed.
                let plan = unsafe { msm_at(gpu, &ws.stream, bases, &part, &config, &mut arena, out, carry)? };
                if streamed {
                    if let Some(ring) = scratch.ring.as_mut() {
                        ring.release(&ws.stream)?;
                    }
                }
                // Carried calls share one window by construction; a call
                // that does not would have started from other buckets' sums.
                if calls.carried.is_some() && !first_plan.get_or_insert(plan).carries_with(&plan) {
                    return Err(ProverError::Config(format!("{msm:?} MSM: call {i} at window {} cannot carry the buckets of window {}", plan.c, first_plan.map_or(0, |p| p.c))));
                }
                log::trace!("slot {}: {msm:?} MSM piece {}, window {} bits for at most {} of {} scalars other than 0 and 1{}", st.slot, piece.k, plan.c, plan.general, plan.selected, if calls.carried.is_some() { ", buckets carried" } else { "" });
                self.msms_run.fetch_add(1, Ordering::Relaxed);
                // Carried calls: the last one's place holds the MSM's result.
                if carry.last {
                    ran.pieces[self.places.index(msm, piece.k)] = true;
                }
            }
            record(&bufs.msm_done[msm as usize], "record MSM event")?;
            // (With H in the slot the MSMs' arena and staging lie past
            // that region, or apart.)
            if msm == ProofMsm::H && self.bases_ahead && h_in_slot && self.staging_words > 0 {
                if let Some(ring) = scratch.ring.as_mut() {
                    // The H coefficients' region is free now: more staging
                    // buffers for the streamed MSMs after H.
                    let region = ws.vram.index(lay.abc(0)..lay.abc(1)).as_device_ptr().as_raw();
                    let buffers: Vec<u64> = (0..(lay.abc(1) - lay.abc(0)) / self.staging_words).map(|k| region + 8 * (k * self.staging_words) as u64).collect();
                    // SAFETY: the region held H's scalars, which the H MSM
                    // just enqueued was the last to read; nothing else uses
                    // it until the slot's next proof, after this one.
                    unsafe { ring.extend(&buffers, &ws.stream)? };
                }
            }
        }
        self.faults.check(Fault::Download)?;
        // SAFETY: the pinned buffer stays untouched until `done` reports the
        // copy finished (the caller holds the slot's compute lock).
        unsafe { bufs.results.async_copy_to(&mut bufs.results_host[..], &ws.stream) }.map_err(|e| gpu_err("MSM results download", e))?;
        record(&bufs.done, "record done event")?;
        Ok(ran)
    }

    /// Copies a late-scalars job's inputs and aux into the slot's c region
    /// on the worker's late stream, once the H step (whose output went over
    /// a) is done, beside the H MSM; the worker's stream
    /// waits for them before its next MSM. Pinned pool memory is copied
    /// directly, the rest through the slot's staging chunks (which blocks
    /// this thread while the GPU runs the H MSM). Returns the bytes.
    fn copy_late_scalars(&self, ws: &WorkerSlot, bufs: &ComputeBuffers, job: &ProofJob) -> Result<usize, ProverError> {
        let lay = &self.layout;
        let asg = job.assignment();
        // SAFETY: both offsets are regions of the slot (SlotLayout).
        let at = |words: usize| unsafe { ws.vram.as_device_ptr().add(words) };
        bufs.h_marker.wait_on(&bufs.late)?;
        let timing = |event: &Event| event.record(&bufs.late).map_err(|e| gpu_err("record late copy event", e));
        timing(&bufs.late_copy.0)?;
        let mut stager = ws.stager.lock().unwrap_or_else(|e| e.into_inner());
        for (part, to) in [(Part::Input, lay.scalars_at()), (Part::Aux, lay.aux_scalars_at())] {
            upload_part(&bufs.late, &mut stager, job, part, at(to))?;
        }
        timing(&bufs.late_copy.1)?;
        bufs.scalars_ready.record(&bufs.late)?;
        bufs.scalars_ready.wait_on(&ws.stream)?;
        Ok(32 * (asg.input.len() + asg.aux.len()))
    }

    /// Where one MSM's scalars, density and bases are, as `cpu::compute`
    /// pairs them.
    fn msm_input(&self, ws: &WorkerSlot, st: &GpuStaged, h: DevicePointer<u64>, msm: ProofMsm) -> MsmInput {
        let lay = &self.layout;
        // SAFETY: every offset below is a region of the slot (SlotLayout).
        let at = |words: usize| unsafe { ws.vram.as_device_ptr().add(words) };
        let density = |words: usize, ones: usize| Some(DeviceDensity { words: at(words), ones });
        let (scalars, density, base_offset) = match msm {
            ProofMsm::H => (h, None, 0),
            ProofMsm::L => (at(lay.aux_scalars_at()), None, 0),
            ProofMsm::AInputs => (at(lay.scalars_at()), None, 0),
            ProofMsm::AAux => (at(lay.aux_scalars_at()), density(lay.a_aux_density_at(), st.a_aux_ones), lay.inputs),
            ProofMsm::BG1Inputs | ProofMsm::BG2Inputs => (at(lay.scalars_at()), density(lay.b_input_density_at(), st.b_input_ones), 0),
            ProofMsm::BG1Aux | ProofMsm::BG2Aux => (at(lay.aux_scalars_at()), density(lay.b_aux_density_at(), st.b_aux_ones), st.b_input_ones),
        };
        let general = match msm {
            ProofMsm::L | ProofMsm::AAux | ProofMsm::BG1Aux | ProofMsm::BG2Aux => Some(st.aux_general.total()),
            _ => None,
        };
        // The witness is in blstrs' form; the H step's output in its own.
        let form = if msm == ProofMsm::H { self.h_form } else { ScalarForm::Montgomery };
        MsmInput { scalars, form, n: msm.scalars(lay), density, base_offset, general }
    }

    /// Whether a worker slot's stream has nothing left to run (for tests
    /// and monitoring; never waits).
    pub fn slot_idle(&self, slot: usize) -> Result<bool, ProverError> {
        let ws = self.slot(slot)?;
        self.devices[ws.device].bind()?;
        wait::stream_idle(&ws.stream, "slot stream")
    }

    /// Downloads a slot's contents (for tests and debugging; blocks).
    pub fn read_slot(&self, slot: usize) -> Result<Vec<u64>, ProverError> {
        let ws = self.slot(slot)?;
        self.devices[ws.device].bind()?;
        ws.stream.synchronize().map_err(|e| gpu_err("slot stream", e))?;
        let mut out = vec![0u64; self.layout.words()];
        ws.vram.copy_to(&mut out[..]).map_err(|e| gpu_err("read slot", e))?;
        Ok(out)
    }

    fn slot(&self, slot: usize) -> Result<&WorkerSlot, ProverError> {
        self.slots.get(slot).ok_or_else(|| ProverError::Config(format!("no worker slot {slot}")))
    }
}

extern "C" {
    // The versioned entry point (stream memory operations without the
    // driver's opt-in), which cust's bindings lack.
    fn cuStreamWaitValue32_v2(stream: cust::sys::CUstream, addr: cust::sys::CUdeviceptr, value: u32, flags: u32) -> cust::sys::CUresult;
}

/// Which MSM pieces' places hold results (`ResultPlaces::index` order; the
/// others selected no scalar, or carried their buckets into a later
/// call), the calls of each MSM, and the bytes of bases it streamed.
struct Ran {
    pieces: Vec<bool>,
    /// Calls per MSM (`ProofMsm` order), and whether they carried buckets.
    calls: [(usize, bool); 8],
    streamed_bytes: usize,
    /// Streamed copies enqueued (their timing pairs in `ComputeBuffers::copies`).
    copies: usize,
    /// Late scalars copied in (`VramPlan::scalars_late`).
    late_bytes: usize,
}

/// What an upload moved.
struct Uploaded {
    /// Bytes read directly from pinned pool memory.
    direct: usize,
    /// Bytes sent to the GPU in all (values or their classes).
    sent: usize,
}

/// Enqueues the expansion of a classed witness (`[classes, chunk starts,
/// others]` on the device) into `n` scalars at `out`.
///
/// # Safety
/// The buffers hold a classed witness of `n` values and `out` room for
/// `n` scalars, untouched by others until the stream is past the kernel.
unsafe fn expand_classes(gpu: &GpuDevice, stream: &Stream, [classes, chunks, others]: [DevicePointer<u64>; 3], out: DevicePointer<u64>, n: usize) -> Result<(), ProverError> {
    let (mut classes, mut chunks, mut others, mut out) = (classes, chunks, others, out);
    let mut n = u32::try_from(n).map_err(|_| ProverError::Config("over 2^32 aux values".into()))?;
    let args = super::launch::kernel_args![classes, chunks, others, out, n];
    super::launch::launch_elementwise(&gpu.module, stream, "witness_expand", n, &args)
}

/// Enqueues `c[i] = a[i] · b[i]` for `n` evaluations.
///
/// # Safety
/// Each pointer has room for `n` scalars, untouched by others until the
/// stream is past the kernel.
unsafe fn multiply_evaluations(gpu: &GpuDevice, stream: &Stream, [a, b, c]: [DevicePointer<u64>; 3], n: usize) -> Result<(), ProverError> {
    let (mut a, mut b, mut c) = (a, b, c);
    let mut n = u32::try_from(n).map_err(|_| ProverError::Config("over 2^32 constraints".into()))?;
    let args = super::launch::kernel_args![a, b, c, n];
    super::launch::launch_elementwise(&gpu.module, stream, "fr_mul", n, &args)
}

/// Test hook (`FaultPlan::poison`): a kernel write to an unmapped address,
/// which poisons the device's context as a hardware fault would.
fn poison(gpu: &GpuDevice, stream: &Stream) -> Result<(), ProverError> {
    let mut bad: u64 = 8;
    let mut n: u32 = 1;
    let args = super::launch::kernel_args![bad, n];
    // SAFETY: deliberately not: the write faults on the device, never on
    // the host, and only with the hidden fault plan set.
    unsafe { super::launch::launch_elementwise(&gpu.module, stream, "add_one", 1, &args) }
}

/// Enqueues the upload of one part of a job's witness to `dst` on
/// `stream`: copied directly when it lies in pinned pool memory, else
/// through the staging chunks. Returns the bytes copied directly.
fn upload_part(stream: &Stream, stager: &mut PinnedStager, job: &ProofJob, part: Part, dst: DevicePointer<u64>) -> Result<usize, ProverError> {
    match job.pooled_witness().and_then(|w| w.pinned(part)) {
        Some(values) => copy_pinned(stream, dst, scalar_limbs(values)).map(|()| std::mem::size_of_val(values)),
        None => stager.upload(stream, dst, scalar_limbs(part.of(job.assignment()))).map(|()| 0),
    }
}

/// Words of one pinned witness copy. Host-to-device copies of several
/// streams share the copy engine, one copy command after another, so a
/// part's 4 GiB in one command (73 ms at 55 GB/s) can hold a streamed MSM's
/// bases back for as long; in commands of 128 MiB (2.4 ms) they take turns.
const PINNED_COPY_WORDS: usize = 16 << 20;

/// Enqueues a copy from pinned host memory: the copy engine reads `src`
/// directly, asynchronously to the host, in pieces of [`PINNED_COPY_WORDS`].
fn copy_pinned(stream: &Stream, dst: DevicePointer<u64>, src: &[u64]) -> Result<(), ProverError> {
    for (k, piece) in src.chunks(PINNED_COPY_WORDS).enumerate() {
        // SAFETY: dst has room for src (the slot layout); src is pinned pool
        // memory that the caller keeps in place until the stream has copied it.
        unsafe {
            sys_check(
                "host to device copy (pinned)",
                cust::sys::cuMemcpyHtoDAsync_v2(dst.add(k * PINNED_COPY_WORDS).as_raw(), piece.as_ptr().cast(), std::mem::size_of_val(piece), stream.as_inner()),
            )?
        }
    }
    Ok(())
}

fn zero_async(stream: &Stream, at: DevicePointer<u64>, words: usize) -> Result<(), ProverError> {
    if words == 0 {
        return Ok(());
    }
    // SAFETY: the range lies inside the slot (layout arithmetic above).
    unsafe { sys_check("zero padding", cust::sys::cuMemsetD32Async(at.as_raw(), 0, words * 2, stream.as_inner())) }
}
