//! The GPU backend: VRAM slots reserved once, witness upload on each
//! worker's own stream.
//!
//! Every worker owns one slot: a device buffer sized for the largest witness
//! the parameters allow, a stream, and a pinned staging buffer. Pre-stage
//! uploads the witness into the slot; nothing is allocated or freed after
//! `GpuEngine::new`, and no call synchronizes the device.
//!
//! Until the NTT and MSM kernels land, `compute` waits for the upload and then
//! runs H and the MSMs on the CPU (logged as such); the slot layout below is
//! what those kernels will read.

use std::sync::Mutex;
use std::time::Instant;

use bellperson::groth16::{Parameters, Proof};
use blstrs::Bls12;
use cust::event::{Event, EventFlags};
use cust::memory::{CopyDestination, DeviceBuffer, DevicePointer};
use cust::stream::{Stream, StreamFlags};
use log::{debug, info};

use super::elementwise::scalar_limbs;
use super::upload::PinnedStager;
use super::{discover, gpu_err, sys_check, GpuDevice};
use crate::cpu::{self, CpuStaged};
use crate::error::ProverError;
use crate::job::ProofJob;
use crate::params::ProofShape;
use crate::prover::ProverConfig;
use crate::timings::PhaseTimings;

const FR_WORDS: usize = 4;

/// Where each part of a witness lives in a slot, in u64 words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotLayout {
    /// Evaluation domain size 2^k: a, b and c are each padded to it.
    pub domain: usize,
    /// Input count (with ONE) + aux count: the scalars, inputs first.
    pub scalars: usize,
    /// Words of one density bitmap over the aux variables.
    pub aux_density_words: usize,
    /// Words of the B-input density bitmap.
    pub input_density_words: usize,
}

impl SlotLayout {
    fn for_params(params: &Parameters<Bls12>) -> Self {
        let (inputs, aux) = (params.vk.ic.len(), params.l.len());
        SlotLayout {
            domain: params.h.len() + 1,
            scalars: inputs + aux,
            aux_density_words: aux.div_ceil(64),
            input_density_words: inputs.div_ceil(64),
        }
    }
    /// a, b, c: `domain` Fr each, back to back.
    pub fn abc(&self, which: usize) -> usize {
        which * self.domain * FR_WORDS
    }
    pub fn scalars_at(&self) -> usize {
        self.abc(3)
    }
    pub fn a_aux_density_at(&self) -> usize {
        self.scalars_at() + self.scalars * FR_WORDS
    }
    pub fn b_aux_density_at(&self) -> usize {
        self.a_aux_density_at() + self.aux_density_words
    }
    pub fn b_input_density_at(&self) -> usize {
        self.b_aux_density_at() + self.aux_density_words
    }
    pub fn words(&self) -> usize {
        self.b_input_density_at() + self.input_density_words
    }
}

struct WorkerSlot {
    device: usize,
    stream: Stream,
    vram: DeviceBuffer<u64>,
    stager: Mutex<PinnedStager>,
    uploaded: Event,
}

pub struct GpuEngine {
    slots: Vec<WorkerSlot>,
    devices: Vec<GpuDevice>,
    layout: SlotLayout,
}

impl Drop for GpuEngine {
    /// A slot's buffers, stream and events must be freed in their device's
    /// context, before that context is released with the device.
    fn drop(&mut self) {
        for slot in std::mem::take(&mut self.slots) {
            let _ = self.devices[slot.device].bind();
            drop(slot);
        }
    }
}

/// A proof whose witness is on its way into (or already in) its slot.
pub struct GpuStaged {
    slot: usize,
    cpu: CpuStaged,
}

impl GpuEngine {
    /// Opens the configured devices and reserves every worker's slot.
    pub fn new(params: &Parameters<Bls12>, config: &ProverConfig) -> Result<Self, ProverError> {
        let devices = discover(&config.devices)?;
        let layout = SlotLayout::for_params(params);
        if !layout.domain.is_power_of_two() {
            return Err(ProverError::Config(format!("H query has {} bases; expected 2^k − 1", layout.domain - 1)));
        }
        let bytes = layout.words() * 8;
        let mut slots = Vec::new();
        for (d, gpu) in devices.iter().enumerate() {
            gpu.bind()?;
            let (free, _) = cust::memory::mem_get_info().map_err(|e| gpu_err("cuMemGetInfo", e))?;
            let need = bytes * config.workers_per_device;
            if need > free {
                return Err(ProverError::Config(format!(
                    "{} workers need {:.2} GiB of VRAM on GPU {}, {:.2} GiB free",
                    config.workers_per_device,
                    need as f64 / (1u64 << 30) as f64,
                    gpu.ordinal,
                    free as f64 / (1u64 << 30) as f64
                )));
            }
            for _ in 0..config.workers_per_device {
                // SAFETY: u64 has no invalid bit patterns; pre-stage writes
                // every word a proof reads.
                let vram = unsafe { DeviceBuffer::uninitialized(layout.words()) }.map_err(|e| gpu_err("reserve slot", e))?;
                slots.push(WorkerSlot {
                    device: d,
                    stream: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(|e| gpu_err("stream", e))?,
                    vram,
                    stager: Mutex::new(PinnedStager::new()?),
                    uploaded: Event::new(EventFlags::DISABLE_TIMING).map_err(|e| gpu_err("event", e))?,
                });
            }
            info!("GPU {}: reserved {} slot(s) of {:.3} GiB", gpu.ordinal, config.workers_per_device, bytes as f64 / (1u64 << 30) as f64);
        }
        Ok(GpuEngine { slots, devices, layout })
    }

    pub fn device_count(&self) -> usize {
        self.devices.len()
    }

    pub fn devices(&self) -> &[GpuDevice] {
        &self.devices
    }

    pub fn layout(&self) -> SlotLayout {
        self.layout
    }

    /// Uploads the job's witness into `slot` on the slot's stream.
    pub fn prestage(&self, slot: usize, shape: &ProofShape, job: ProofJob) -> Result<GpuStaged, ProverError> {
        let ws = self.slot(slot)?;
        self.devices[ws.device].bind()?;
        let lay = &self.layout;
        if shape.domain_size() != lay.domain || shape.inputs + shape.aux != lay.scalars {
            return Err(ProverError::ParamsMismatch { what: "witness size for the reserved slot", params: lay.scalars, circuit: shape.inputs + shape.aux });
        }
        let t = Instant::now();
        let asg = &job.assignment;
        let base = ws.vram.as_device_ptr();
        let at = |words: usize| unsafe { base.add(words) };
        let mut stager = ws.stager.lock().unwrap_or_else(|e| e.into_inner());
        for (which, values) in [&asg.a, &asg.b, &asg.c].into_iter().enumerate() {
            stager.upload(&ws.stream, at(lay.abc(which)), scalar_limbs(values))?;
            zero_async(&ws.stream, at(lay.abc(which) + values.len() * FR_WORDS), (lay.domain - values.len()) * FR_WORDS)?;
        }
        stager.upload(&ws.stream, at(lay.scalars_at()), scalar_limbs(&asg.input))?;
        stager.upload(&ws.stream, at(lay.scalars_at() + asg.input.len() * FR_WORDS), scalar_limbs(&asg.aux))?;
        stager.upload(&ws.stream, at(lay.a_aux_density_at()), asg.a_aux_density.words())?;
        stager.upload(&ws.stream, at(lay.b_aux_density_at()), asg.b_aux_density.words())?;
        stager.upload(&ws.stream, at(lay.b_input_density_at()), asg.b_input_density.words())?;
        ws.uploaded.record(&ws.stream).map_err(|e| gpu_err("record upload event", e))?;
        debug!("slot {slot}: witness enqueued in {:.3?}", t.elapsed());
        Ok(GpuStaged { slot, cpu: cpu::prestage(job) })
    }

    /// Waits for the slot's upload, then computes the proof (H and MSMs on
    /// the CPU until the GPU kernels exist).
    pub fn compute(&self, params: &Parameters<Bls12>, st: GpuStaged, timings: &mut PhaseTimings) -> Result<Proof<Bls12>, ProverError> {
        let ws = self.slot(st.slot)?;
        let t = Instant::now();
        ws.uploaded.synchronize().map_err(|e| gpu_err("witness upload", e))?;
        timings.prestage += t.elapsed();
        debug!("slot {}: computing H and MSMs on the CPU (GPU NTT/MSM kernels not built yet)", st.slot);
        cpu::compute(params, st.cpu, timings)
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

fn zero_async(stream: &Stream, at: DevicePointer<u64>, words: usize) -> Result<(), ProverError> {
    if words == 0 {
        return Ok(());
    }
    // SAFETY: the range lies inside the slot (layout arithmetic above).
    unsafe { sys_check("zero padding", cust::sys::cuMemsetD32Async(at.as_raw(), 0, words * 2, stream.as_inner())) }
}
