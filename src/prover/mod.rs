//! The public prover: two explicit phases per proof, pipelined over workers.

pub(crate) mod assemble;
pub(crate) mod faults;
pub(crate) mod host_pool;
pub(crate) mod slots;
pub(crate) mod timings;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use bellperson::groth16::{Parameters, PreparedVerifyingKey, Proof, VerifyingKey};
use bellperson::Circuit;
use blstrs::{Bls12, Scalar};
use log::{debug, error, info};
use rand_core::RngCore;

use crate::witness::assignment::{panic_message, synthesize, synthesize_into, Assignment};
use crate::compiled::{synthesize_witness, synthesize_witness_into, CompiledCircuit};
use crate::cpu;
pub use cuzk_kernels::msm::plan::Accumulation as MsmAccumulation;
pub use cuzk_kernels::msm::plan::Sort as MsmSort;
use crate::error::{ProverError, TryPrestageError};
use crate::witness::job::{random_r_s, ProofJob};
use crate::parameters::params::{ProofShape, QueryLengths};
use crate::parameters::source::ParamsSource;
use crate::prover::slots::{SlotGuard, SlotPool};
use crate::witness::synthesis_budget;
use crate::prover::timings::PhaseTimings;
use crate::witness::pool::WitnessPool;

/// Where proofs are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// The GPU when the `cuda` feature is built and a device is present,
    /// otherwise the CPU.
    #[default]
    Auto,
    /// The CPU (radix-2 FFTs and blst's MSMs), on the prover's own threads.
    Cpu,
    /// NVIDIA GPUs through CUDA; an error if none can be used.
    Gpu,
}

/// How a [`Prover`] is built; `Default` suits most callers.
#[derive(Clone, Debug)]
pub struct ProverConfig {
    /// Where proofs are computed.
    pub backend: Backend,
    /// Proofs in flight per device: each worker holds one pre-staged proof,
    /// so one can upload while another computes. At most: on a GPU whose
    /// budget holds fewer, the VRAM plan uses fewer (`Prover::workers`).
    pub workers_per_device: usize,
    /// GPU ordinals to use; empty means every GPU. Ignored on the CPU.
    pub devices: Vec<usize>,
    /// Check A·B = C for every constraint before proving, so an unsatisfied
    /// circuit is an error instead of a proof that fails to verify.
    pub check_satisfied: bool,
    /// Threads that synthesize circuits in `prove_batch`; 0: one per core,
    /// but no more than the host memory available when the batch starts
    /// holds. A synthesized witness waits in host memory until a worker
    /// takes it (about 17 GB for a 32 GiB PoRep partition), and up to this
    /// many plus twice the workers can exist at once (with a compiled
    /// circuit a witness is the inputs and aux alone: about 4.2 GB).
    pub synthesis_threads: usize,
    /// Keep the row twiddles of the 2^11 … 2^28 H domain in VRAM (8 GiB
    /// per GPU at 2^27; every inter-pass twiddle folded into the stages,
    /// 11% off the H step; see docs/PERFORMANCE.md). Off leaves
    /// room for a third worker of a 32 GiB partition on an H200.
    pub ntt_row_twiddles: bool,
    /// How the compute phases of one GPU's workers share it.
    pub compute_sharing: ComputeSharing,
    /// Reusable host buffers that `job` and `prove_batch` synthesize into
    /// (GPU: pinned once, then uploaded directly by the copy engine at the
    /// link's speed instead of through a staging copy). Each holds one
    /// witness (about 17 GB for a 32 GiB PoRep partition; with a compiled
    /// circuit the witness alone, 4.2 GB, plus 0.55 GB for its classes,
    /// which are copied in when the job is made) for the prover's life once
    /// made. `None`: one per worker; `Some(0)`: none (plain allocations,
    /// staged uploads). Jobs beyond them use plain allocations.
    pub pinned_witnesses: Option<usize>,
    /// Check every proof against the verifying key before returning it (a
    /// few milliseconds of pairings per proof, on any backend); one that
    /// fails is discarded as `ProverError::InvalidProof` and counted.
    /// `None`: on. `Some(false)` returns proofs unchecked, saving those
    /// milliseconds, and is needed for parameters made of random points
    /// (benches), which never verify.
    pub verify_proofs: Option<bool>,
    /// GPU, compiled circuits: send a witness's aux values as classes (0,
    /// 1, other: 2 bits each) plus the other values, made when the job is
    /// created, and expand them on the GPU: about 3% of the bytes for a
    /// PoRep witness. Witnesses with more than a quarter of other values
    /// are sent as they are; in a pinned witness buffer (`pinned_witnesses`)
    /// the classes of up to an eighth of other values are packed in pinned
    /// memory too, and the GPU copies them directly.
    pub witness_classes: bool,
    /// Longest the host waits on a GPU for one upload or one compute before
    /// it presumes the GPU hung: that proof and every later one on the
    /// device fail at once with `ProverError::DeviceLost` instead of
    /// blocking. `None`: wait for ever. Default 300 s (a 32 GiB partition
    /// computes in 1.4 s on an H200; computes one at a time wait for the
    /// ones enqueued before them, at most a worker count of them).
    pub gpu_timeout: Option<std::time::Duration>,
    /// GPU: the most VRAM per device the prover may reserve, in bytes
    /// (`None`: the device's free memory). The prover fits itself into the
    /// budget when it is built (`vram::VramPlan`, logged): fewer workers,
    /// compact NTT tables, MSMs in chunks, parameter queries streamed from
    /// pinned host memory for each proof; too small a budget is
    /// `ProverError::NotEnoughVram`, saying how much the smallest plan
    /// needs. Lets a large GPU stand in for a smaller one.
    pub vram_limit: Option<u64>,
    /// GPU: how the MSMs' first accumulation level adds points: XYZZ
    /// mixed additions (the default) or affine additions in batches
    /// sharing one inversion (`MsmAccumulation::BatchAffine`: 1.5–1.7×
    /// slower on an H200 for random scalars, more for witnesses; see
    /// docs/PERFORMANCE.md, "MSM"). Proofs are the same either way.
    pub msm_accumulation: MsmAccumulation,
    /// GPU: how the MSMs sort their entries by bucket. `Auto` (the
    /// default) chooses by size (`MsmConfig::sort`); `Counted` or `Binned`
    /// force one, for comparison. Proofs are the same either way.
    pub msm_sort: MsmSort,
    /// GPU: windows per launch of the binned sort's first pass
    /// (`MsmConfig::bin_windows`; 0: the default, one), which share one
    /// read of the scalars from memory for staging room of as many windows'
    /// entries (on an H200 two made a 32 GiB partition's H MSM 1.7 ms
    /// faster for 0.27 GiB more arena). Proofs are the same either way.
    pub msm_bin_windows: u32,
    /// GPU, MSMs in several calls (budgets that chunk them): keep one set
    /// of bucket sums from call to call and reduce it once, where the
    /// kernels' addition model says it is cheaper than each call reducing
    /// its own (XYZZ accumulation only). Off: every call reduces its own
    /// buckets, for comparison. Proofs are the same either way.
    pub msm_carried_buckets: bool,
    /// GPU: size the MSMs' first accumulation level to the device, so
    /// that its last wave of thread blocks is nearly full (a chunked MSM's
    /// calls are short: 3.2 or 6.3 waves of an H200 at the fixed size, the
    /// last mostly empty; `MsmConfig::level0_waves`). On by default
    /// (measured faster on an H100 in every chunked plan: 48 GiB, full
    /// assignments, 1.649 → 1.541 s per proof with bases ahead); off: the
    /// size follows from the MSM's alone. Proofs are the same either way.
    pub msm_fill_waves: bool,
    /// GPU, budgets that stream parameter queries with the H step's output
    /// over its input: once the H MSM is done, its scalars' VRAM (4 GiB at
    /// 2^27) serves as more staging buffers, so the copies of the streamed
    /// MSMs after it run ahead while the MSMs over resident bases compute
    /// (at 48 GiB the B queries' 9 GB, which otherwise arrive one piece
    /// ahead). On by default (measured faster on an H100: 48 GiB, full
    /// assignments, 1.678 → 1.649 s per proof, 1.593 → 1.541 with fitted
    /// waves); off: two staging buffers. Proofs are the same either way.
    pub streamed_bases_ahead: bool,
    /// GPU: the H step writes its coefficients as integers rather than in
    /// Montgomery form (its last scales fold in `R^-1`, at no cost), so
    /// the H MSM cuts its digits from them without converting each scalar
    /// once per window. On by default; off: Montgomery form, for
    /// comparison. Proofs are the same either way.
    pub h_canonical: bool,
    /// GPU: the three MSMs over the public inputs (A, and B in G1 and G2)
    /// run over tables of their few bases, made once when the prover is
    /// built (`vram::input_tables`: a few MiB): one bucket set for all
    /// windows, no chain of window doublings. On by default (a 32 GiB
    /// partition on an H100: 2.8 / 2.8 / 9.0 ms per proof became 0.70 /
    /// 0.71 / 2.5–2.7 ms, its GPU compute 1.199 → 1.189 s); off: the plain
    /// MSMs, for comparison. Proofs are the same either way.
    pub input_msm_tables: bool,
    /// Test hook: GPU operations made to fail (see `FaultPlan`).
    #[doc(hidden)]
    pub faults: crate::prover::faults::FaultPlan,
}

/// Most workers per device: each holds a VRAM slot of a whole witness and
/// threads of its own, so more only waste memory.
pub const MAX_WORKERS_PER_DEVICE: usize = 64;

impl Default for ProverConfig {
    fn default() -> Self {
        ProverConfig {
            backend: Backend::Auto,
            workers_per_device: 2,
            devices: Vec::new(),
            check_satisfied: true,
            synthesis_threads: 0,
            ntt_row_twiddles: true,
            compute_sharing: ComputeSharing::Auto,
            pinned_witnesses: None,
            verify_proofs: None,
            gpu_timeout: Some(std::time::Duration::from_secs(300)),
            witness_classes: true,
            vram_limit: None,
            msm_accumulation: MsmAccumulation::Xyzz,
            msm_sort: MsmSort::Auto,
            msm_bin_windows: 0,
            msm_carried_buckets: true,
            msm_fill_waves: true,
            streamed_bases_ahead: true,
            h_canonical: true,
            input_msm_tables: true,
            faults: Default::default(),
        }
    }
}

/// How the compute phases (H step, MSMs) of one GPU's workers share it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComputeSharing {
    /// `Serial` for domains of at least 2^[`ComputeSharing::SERIAL_FROM_LOG`],
    /// `Interleaved` below (see docs/PERFORMANCE.md, "Workers that overlap").
    #[default]
    Auto,
    /// One compute at a time per device, in the order they are enqueued,
    /// ordered on the GPU (each waits on the previous one's event). For
    /// proofs that fill the GPU: the next proof's upload hides behind this
    /// one's compute instead of both phases running in lockstep.
    Serial,
    /// Workers' computes run at once, their kernels interleaved: for small
    /// proofs, whose launches alone leave the GPU idle.
    Interleaved,
}

impl ComputeSharing {
    /// The smallest domain (log2) that `Auto` computes one at a time. On an
    /// H200 with 2 workers (2026-12-01) interleaving won up to 2^24 (2^17:
    /// 24 ms per proof against 43 one at a time; 2^24: 0.242 s against
    /// 0.256) and lost from 2^26 (0.837 s against 0.772 over 6 proofs; 2^27:
    /// 1.69 s against 1.42 over 5, each proof taking 2.05 s of GPU time
    /// instead of 1.36).
    pub const SERIAL_FROM_LOG: u32 = 25;

    /// Whether computes of a 2^`log_domain` domain run one at a time.
    pub fn serial(self, log_domain: u32) -> bool {
        match self {
            ComputeSharing::Auto => log_domain >= Self::SERIAL_FROM_LOG,
            ComputeSharing::Serial => true,
            ComputeSharing::Interleaved => false,
        }
    }
}

/// The engine a prover resolved its backend to.
enum Engine {
    Cpu,
    #[cfg(feature = "cuda")]
    Gpu(crate::gpu::GpuEngine),
}

/// Makes Groth16 proofs for one set of parameters.
///
/// ```
/// use cuzk::{Backend, Prover, ProverConfig};
/// # use bellperson::{Circuit, ConstraintSystem, SynthesisError};
/// # use blstrs::{Bls12, Scalar};
/// # #[derive(Clone)]
/// # struct Square(Option<Scalar>);
/// # impl Circuit<Scalar> for Square {
/// #     fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
/// #         let x = cs.alloc(|| "x", || self.0.ok_or(SynthesisError::AssignmentMissing))?;
/// #         let y = cs.alloc_input(|| "y", || self.0.map(|x| x * x).ok_or(SynthesisError::AssignmentMissing))?;
/// #         cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
/// #         Ok(())
/// #     }
/// # }
/// let mut rng = rand::thread_rng();
/// let params = bellperson::groth16::generate_random_parameters::<Bls12, _, _>(Square(None), &mut rng)?;
/// let prover = Prover::new(params.clone(), ProverConfig { backend: Backend::Cpu, ..Default::default() })?;
///
/// // One call…
/// let proof = prover.prove(Square(Some(Scalar::from(3))), &mut rng)?;
/// // …or the two phases, which a caller can overlap across workers.
/// let job = prover.job(Square(Some(Scalar::from(3))), &mut rng)?;
/// let staged = prover.prestage(job)?;
/// let proof2 = prover.compute(staged)?;
///
/// let pvk = bellperson::groth16::prepare_verifying_key(&params.vk);
/// assert!(bellperson::groth16::verify_proof(&pvk, &proof, &[Scalar::from(9)])?);
/// assert!(bellperson::groth16::verify_proof(&pvk, &proof2, &[Scalar::from(9)])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Prover {
    /// The verifying key and the queries' lengths, wherever the
    /// parameters came from.
    vk: VerifyingKey<Bls12>,
    lengths: QueryLengths,
    /// The bases in host memory: host parameters given to it, or the CPU
    /// backend's decoding of a parameter file. None for a GPU prover built
    /// from a file (its bases live only on the devices).
    host_params: Option<Arc<Parameters<Bls12>>>,
    /// The circuit's R1CS, if the prover was built with it: jobs then carry
    /// only the witness, and a, b, c are evaluated from it.
    compiled: Option<Arc<CompiledCircuit>>,
    config: ProverConfig,
    /// Declared before the engine: dropped (and unpinned) first.
    witnesses: Option<WitnessPool>,
    engine: Engine,
    slots: Arc<SlotPool>,
    workers: usize,
    /// Tells this prover's `Staged` values from other provers'.
    id: u64,
    /// The verifying key, prepared, when proofs are checked before return.
    verifier: Option<PreparedVerifyingKey<Bls12>>,
    rejected: AtomicU64,
    /// Why `Backend::Auto` proves on the CPU: the GPU's error.
    gpu_fallback: Option<String>,
}

/// Prover ids, unique within the process.
static NEXT_PROVER_ID: AtomicU64 = AtomicU64::new(1);

/// A proof after its pre-stage: validated, its witness prepared (on the GPU:
/// uploaded into its worker's VRAM slot), holding that worker slot until it
/// is computed or dropped.
pub struct Staged {
    inner: StagedInner,
    shape: ProofShape,
    timings: PhaseTimings,
    /// The id of the prover that staged it (its slot is that prover's).
    prover: u64,
    /// Public inputs without ONE, for the check before return.
    public_inputs: Vec<Scalar>,
    _slot: SlotGuard,
}

enum StagedInner {
    Cpu(cpu::CpuStaged),
    #[cfg(feature = "cuda")]
    Gpu(crate::gpu::GpuStaged),
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged").field("shape", &self.shape).field("slot", &self._slot.index).finish_non_exhaustive()
    }
}

impl Staged {
    /// The sizes of the staged proof.
    pub fn shape(&self) -> &ProofShape {
        &self.shape
    }
}

impl Prover {
    /// A prover for `params` (host [`Parameters`] or a
    /// [`crate::ParamsFile`]): resolves the backend and, on the GPU,
    /// reserves everything proving needs (bases, tables, worker slots)
    /// once. A parameter file's bases go from the file to the GPU and are
    /// decoded and checked there; the prover keeps no host copy of them
    /// (drop the `ParamsFile` after this to unmap it).
    pub fn new(params: impl Into<ParamsSource>, config: ProverConfig) -> Result<Self, ProverError> {
        Self::build(params.into(), None, config)
    }

    /// A prover for `params` and the circuit compiled in `compiled`
    /// ([`CompiledCircuit::record`] or [`CompiledCircuit::load`]): `job`,
    /// `prove` and `prove_batch` synthesize only the witness (no linear
    /// combination is built), and a, b, c are evaluated from the compiled
    /// matrices (on the GPU backend, by the GPU from matrices uploaded once
    /// here). Parameters of another circuit are refused.
    ///
    /// ```
    /// use cuzk::{Backend, CompiledCircuit, Prover, ProverConfig};
    /// # use bellperson::{Circuit, ConstraintSystem, SynthesisError};
    /// # use blstrs::{Bls12, Scalar};
    /// # #[derive(Clone)]
    /// # struct Square(Option<Scalar>);
    /// # impl Circuit<Scalar> for Square {
    /// #     fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
    /// #         let x = cs.alloc(|| "x", || self.0.ok_or(SynthesisError::AssignmentMissing))?;
    /// #         let y = cs.alloc_input(|| "y", || self.0.map(|x| x * x).ok_or(SynthesisError::AssignmentMissing))?;
    /// #         cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
    /// #         Ok(())
    /// #     }
    /// # }
    /// let mut rng = rand::thread_rng();
    /// let params = bellperson::groth16::generate_random_parameters::<Bls12, _, _>(Square(None), &mut rng)?;
    /// // Record once (from the blank circuit), keep the file, load it later.
    /// let path = std::env::temp_dir().join(format!("square-{}.r1cs", std::process::id()));
    /// CompiledCircuit::record(Square(None))?.save(&path)?;
    /// let compiled = CompiledCircuit::load(&path)?;
    /// # std::fs::remove_file(&path)?;
    /// let prover = Prover::with_compiled(params.clone(), compiled, ProverConfig { backend: Backend::Cpu, ..Default::default() })?;
    /// let proof = prover.prove(Square(Some(Scalar::from(3))), &mut rng)?;
    /// let pvk = bellperson::groth16::prepare_verifying_key(&params.vk);
    /// assert!(bellperson::groth16::verify_proof(&pvk, &proof, &[Scalar::from(9)])?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_compiled(params: impl Into<ParamsSource>, compiled: impl Into<Arc<CompiledCircuit>>, config: ProverConfig) -> Result<Self, ProverError> {
        let (params, compiled) = (params.into(), compiled.into());
        compiled.shape()?.check_against(&params.lengths(), params.verifying_key())?;
        Self::build(params, Some(compiled), config)
    }

    fn build(params: ParamsSource, compiled: Option<Arc<CompiledCircuit>>, config: ProverConfig) -> Result<Self, ProverError> {
        if !(1..=MAX_WORKERS_PER_DEVICE).contains(&config.workers_per_device) {
            return Err(ProverError::Config(format!("workers_per_device must be 1 to {MAX_WORKERS_PER_DEVICE}, not {}", config.workers_per_device)));
        }
        if config.faults.contexts_per_gpu == Some(0) {
            return Err(ProverError::Config("contexts_per_gpu must be at least 1 (no device would take a proof)".into()));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = config.devices.iter().find(|&&d| !seen.insert(d)) {
            return Err(ProverError::Config(format!("GPU {dup} is listed twice in devices")));
        }
        let (engine, devices, gpu_fallback) = resolve_engine(&params, compiled.as_deref(), &config)?;
        let host_params = match (&params, &engine) {
            (ParamsSource::Host(p), _) => Some(p.clone()),
            (ParamsSource::File(file), Engine::Cpu) => Some(Arc::new(read_on_cpu(file)?)),
            #[cfg(feature = "cuda")]
            (ParamsSource::File(_), Engine::Gpu(_)) => None,
        };
        let (vk, lengths) = (params.verifying_key().clone(), params.lengths());
        drop(params);
        let per_device = match &engine {
            #[cfg(feature = "cuda")]
            Engine::Gpu(gpu) => gpu.workers_per_device(),
            Engine::Cpu => config.workers_per_device,
        };
        let workers = devices * per_device;
        info!("cuzk prover: backend {}, {} worker(s)", engine_name(&engine), workers);
        let witnesses = witness_pool(&engine, compiled.is_some(), config.witness_classes, config.pinned_witnesses.unwrap_or(workers));
        let verify = config.verify_proofs.unwrap_or(true);
        let verifier = verify.then(|| bellperson::groth16::prepare_verifying_key(&vk));
        let id = NEXT_PROVER_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Prover { vk, lengths, host_params, compiled, slots: SlotPool::new(devices, per_device), workers, witnesses, engine, config, id, verifier, rejected: AtomicU64::new(0), gpu_fallback })
    }

    /// Why a `Backend::Auto` prover proves on the CPU: the error that made
    /// the GPU unusable (no device, too little VRAM, a CUDA call that
    /// failed). `None` on the GPU and for `Backend::Cpu`.
    pub fn gpu_fallback(&self) -> Option<&str> {
        self.gpu_fallback.as_deref()
    }

    /// Proofs that failed the check before return (`verify_proofs`) and
    /// were discarded, since the prover was built.
    pub fn proofs_rejected(&self) -> u64 {
        self.rejected.load(Ordering::Relaxed)
    }

    /// The backend this prover resolved to: `Cpu` or `Gpu`, never `Auto`.
    pub fn backend(&self) -> Backend {
        match self.engine {
            Engine::Cpu => Backend::Cpu,
            #[cfg(feature = "cuda")]
            Engine::Gpu(_) => Backend::Gpu,
        }
    }

    /// Total worker slots: proofs that can be pre-staged at once.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// How the GPU backend uses each device's memory (`None` on the CPU):
    /// workers, resident and streamed queries, MSM chunks (see
    /// `ProverConfig::vram_limit`).
    pub fn vram_plan(&self) -> Option<&crate::vram::VramPlan> {
        match &self.engine {
            #[cfg(feature = "cuda")]
            Engine::Gpu(gpu) => Some(gpu.vram_plan()),
            Engine::Cpu => None,
        }
    }

    /// The compiled circuit it evaluates a, b, c with, if built with one.
    pub fn compiled(&self) -> Option<&CompiledCircuit> {
        self.compiled.as_deref()
    }

    /// The parameters it proves with, when it holds them in host memory:
    /// built from host parameters, or a CPU prover built from a file.
    pub fn params(&self) -> Option<&Parameters<Bls12>> {
        self.host_params.as_deref()
    }

    /// The verifying key of its parameters.
    pub fn verifying_key(&self) -> &VerifyingKey<Bls12> {
        &self.vk
    }

    /// How many bases each query of its parameters holds.
    pub fn query_lengths(&self) -> QueryLengths {
        self.lengths
    }

    /// Synthesizes `circuit` and draws fresh r, s for it (a prover with a
    /// compiled circuit synthesizes the witness alone). The witness goes
    /// into one of the prover's reusable buffers when one is free
    /// ([`ProverConfig::pinned_witnesses`]), else into a plain allocation.
    pub fn job<C: Circuit<Scalar>>(&self, circuit: C, rng: &mut impl RngCore) -> Result<ProofJob, ProverError> {
        self.job_with(circuit, || random_r_s(rng))
    }

    /// A job proving `assignment` (copied into one of the prover's reusable
    /// buffers when one is free and it fits, else cloned), with fresh r, s.
    pub fn job_from_assignment(&self, assignment: &Assignment, rng: &mut impl RngCore) -> ProofJob {
        let (r, s) = random_r_s(rng);
        let pooled = self.witnesses.as_ref().and_then(|p| p.try_take()).and_then(|mut witness| {
            let cap = witness.capacity();
            witness.assignment_mut().copy_within_capacity(assignment, cap).then_some(witness)
        });
        match pooled {
            Some(witness) => ProofJob::pooled(witness, false, r, s),
            None => ProofJob::with_randomness(assignment.clone(), r, s),
        }
    }

    /// A witness-only job of `input` (ONE first) and `aux`, for a prover
    /// built with a compiled circuit: copied into one of the prover's
    /// reusable buffers when one is free and it fits, else into a plain
    /// allocation; fresh r, s.
    pub fn job_from_witness(&self, input: &[Scalar], aux: &[Scalar], rng: &mut impl RngCore) -> ProofJob {
        let (r, s) = random_r_s(rng);
        let pooled = self.witnesses.as_ref().and_then(|p| p.try_take()).and_then(|mut witness| {
            let cap = witness.capacity();
            witness.assignment_mut().copy_witness_within_capacity(input, aux, cap).then_some(witness)
        });
        let job = match pooled {
            Some(witness) => ProofJob::pooled(witness, true, r, s),
            None => ProofJob::from_witness(input.to_vec(), aux.to_vec(), r, s),
        };
        self.classed(job)
    }

    /// A witness-only job for this prover's upload: its aux values as
    /// classes on a GPU prover with `witness_classes`.
    fn classed(&self, job: ProofJob) -> ProofJob {
        match self.engine {
            #[cfg(feature = "cuda")]
            // On the host pool's threads, from a thread of its own: the
            // synthesis pool may be one or two threads (its size bounds the
            // witnesses in memory, not the cores an encoding may use), and a
            // rayon thread waiting here would take up other syntheses.
            Engine::Gpu(_) if self.config.witness_classes => host_pool::off_pool_threads(|| host_pool::run(|| job.with_witness_classes())),
            _ => job,
        }
    }

    /// Makes every reusable witness buffer now (a GPU prover's, pinned:
    /// seconds each at full size) instead of on first use, so that the
    /// first proofs do not wait for them; how many were made.
    pub fn reserve_witness_buffers(&self) -> usize {
        self.witnesses.as_ref().map_or(0, |p| p.reserve_all())
    }

    /// Reusable witness buffers: how many exist and how many are free.
    pub fn witness_buffers(&self) -> (usize, usize) {
        self.witnesses.as_ref().map_or((0, 0), |p| p.counts())
    }

    /// Synthesizes into a pool buffer if one is free, else a plain one,
    /// then takes r, s (drawn after synthesis, as bellperson draws them).
    fn job_with<C: Circuit<Scalar>>(&self, circuit: C, r_s: impl FnOnce() -> (Scalar, Scalar)) -> Result<ProofJob, ProverError> {
        let start = Instant::now();
        let witness_only = self.compiled.is_some();
        let job = match self.witnesses.as_ref().and_then(|p| p.try_take()) {
            Some(mut witness) => {
                let cap = witness.capacity();
                if witness_only {
                    synthesize_witness_into(circuit, witness.assignment_mut(), Some(cap))?;
                } else {
                    synthesize_into(circuit, witness.assignment_mut(), Some(cap))?;
                }
                let (r, s) = r_s();
                self.classed(ProofJob::pooled(witness, witness_only, r, s))
            }
            None if witness_only => {
                let (input, aux) = synthesize_witness(circuit)?;
                let (r, s) = r_s();
                self.classed(ProofJob::from_witness(input, aux, r, s))
            }
            None => {
                let assignment = synthesize(circuit)?;
                let (r, s) = r_s();
                ProofJob::with_randomness(assignment, r, s)
            }
        };
        Ok(job.synthesized_in(start.elapsed()))
    }

    /// Phase one: checks the job against the parameters, waits for a free
    /// worker slot and prepares the witness in it.
    ///
    /// Blocks while all `workers()` slots are held by other `Staged` values,
    /// so a single thread must compute (or drop) what it staged before
    /// staging more than `workers()` proofs, and must not call `prove` or
    /// `prove_batch` while it holds `workers()` of them: they would wait for
    /// a slot forever. [`Prover::try_prestage`] never waits.
    pub fn prestage(&self, job: ProofJob) -> Result<Staged, ProverError> {
        self.prestage_in(job, None).map_err(|e| match e {
            TryPrestageError::Failed(e) => e,
            // Not reached: without `no_wait` the slot is waited for.
            TryPrestageError::Busy(_) => ProverError::Config("no worker slot".into()),
        })
    }

    /// [`Prover::prestage`] if a worker slot is free now; otherwise the job
    /// comes back untouched (`TryPrestageError::Busy`), to be staged later.
    ///
    /// ```
    /// use cuzk::{Backend, Prover, ProverConfig, TryPrestageError};
    /// # use bellperson::{Circuit, ConstraintSystem, SynthesisError};
    /// # use blstrs::{Bls12, Scalar};
    /// # #[derive(Clone)]
    /// # struct Square(Option<Scalar>);
    /// # impl Circuit<Scalar> for Square {
    /// #     fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
    /// #         let x = cs.alloc(|| "x", || self.0.ok_or(SynthesisError::AssignmentMissing))?;
    /// #         let y = cs.alloc_input(|| "y", || self.0.map(|x| x * x).ok_or(SynthesisError::AssignmentMissing))?;
    /// #         cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
    /// #         Ok(())
    /// #     }
    /// # }
    /// let mut rng = rand::thread_rng();
    /// let params = bellperson::groth16::generate_random_parameters::<Bls12, _, _>(Square(None), &mut rng)?;
    /// let prover = Prover::new(params, ProverConfig { backend: Backend::Cpu, workers_per_device: 1, ..Default::default() })?;
    /// let held = prover.prestage(prover.job(Square(Some(Scalar::from(3))), &mut rng)?)?;
    /// // The only slot is held: the job comes back instead of waiting forever.
    /// let job = match prover.try_prestage(prover.job(Square(Some(Scalar::from(4))), &mut rng)?) {
    ///     Err(TryPrestageError::Busy(job)) => job,
    ///     other => panic!("expected Busy, got {other:?}"),
    /// };
    /// prover.compute(held)?;
    /// let proof = prover.compute(prover.try_prestage(job)?)?;
    /// # let _ = proof;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_prestage(&self, job: ProofJob) -> Result<Staged, TryPrestageError> {
        self.prestage_in(job, Some(()))
    }

    /// Pre-stage; with `no_wait`, gives the job back if no slot is free.
    fn prestage_in(&self, job: ProofJob, no_wait: Option<()>) -> Result<Staged, TryPrestageError> {
        host_pool::off_pool_threads(|| self.prestage_here(job, no_wait))
    }

    fn prestage_here(&self, job: ProofJob, no_wait: Option<()>) -> Result<Staged, TryPrestageError> {
        let start = Instant::now();
        let witness_only = job.is_witness_only();
        let synthesis = job.synthesis;
        let (shape, job) = self.shape_of(job)?;
        // On the CPU a witness-only job came back with a, b, c evaluated.
        let cpu_abc = if witness_only && !job.is_witness_only() { start.elapsed() } else { Default::default() };
        shape.check_against(&self.lengths, &self.vk)?;
        // A witness-only job on the GPU is checked there, after a, b, c.
        if self.config.check_satisfied && !job.is_witness_only() {
            if let Some(constraint) = host_pool::run(|| job.assignment().first_unsatisfied()) {
                return Err(ProverError::Unsatisfied { constraint }.into());
            }
        }
        let public_inputs = if self.verifier.is_some() { job.assignment().input[1..].to_vec() } else { Vec::new() };
        let slot = match no_wait {
            None => self.slots.acquire(),
            Some(()) => match self.slots.try_acquire() {
                Some(slot) => slot,
                None => return Err(TryPrestageError::Busy(job)),
            },
        };
        let mut timings = PhaseTimings { synthesis, abc: cpu_abc, worker: Some(slot.index), ..Default::default() };
        let inner = match &self.engine {
            Engine::Cpu => StagedInner::Cpu(host_pool::run(|| cpu::prestage(job))),
            #[cfg(feature = "cuda")]
            Engine::Gpu(gpu) => {
                timings.device = gpu.device_of_slot(slot.index);
                let staged = gpu.prestage(slot.index, &shape, job, self.config.check_satisfied).inspect_err(|e| self.retire_if_lost(slot.index, e))?;
                timings.abc = staged.abc;
                timings.upload_bytes = staged.sent_bytes;
                timings.upload = staged.upload;
                timings.pinned_bytes = staged.pinned_bytes;
                StagedInner::Gpu(staged)
            }
        };
        let end = Instant::now();
        timings.prestage = end - start;
        timings.prestage_span = Some((start, end));
        Ok(Staged { inner, shape, timings, prover: self.id, public_inputs, _slot: slot })
    }

    /// After a device was lost, its slots take no more proofs while
    /// another device is usable.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    fn retire_if_lost(&self, slot: usize, e: &ProverError) {
        if let ProverError::DeviceLost { device, .. } = e {
            match self.slots.retire_device_of(slot) {
                (true, true) => log::warn!("GPU {device} lost: it takes no more proofs; the other GPUs go on"),
                (true, false) => log::error!("GPU {device} lost, and no usable GPU is left: proofs fail with DeviceLost"),
                (false, _) => {}
            }
        }
    }

    /// The job's shape, checked against the compiled circuit for a
    /// witness-only job; on the CPU such a job comes back with a, b, c
    /// evaluated.
    fn shape_of(&self, job: ProofJob) -> Result<(ProofShape, ProofJob), ProverError> {
        if !job.is_witness_only() {
            return Ok((ProofShape::of(job.assignment())?, job));
        }
        let compiled = self.compiled.as_ref().ok_or_else(|| ProverError::Config("a witness-only job needs a prover built with its compiled circuit (Prover::with_compiled)".into()))?;
        compiled.check_witness(&job.assignment().input, &job.assignment().aux)?;
        let shape = compiled.shape()?;
        match self.engine {
            Engine::Cpu => {
                let (r, s) = (job.r, job.s);
                let asg = job.into_assignment();
                Ok((shape, ProofJob::with_randomness(host_pool::run(|| compiled.evaluate(asg.input, asg.aux))?, r, s)))
            }
            #[cfg(feature = "cuda")]
            Engine::Gpu(_) => Ok((shape, job)),
        }
    }

    /// Phase two: H, all MSMs and assembly. Frees the worker slot.
    pub fn compute(&self, staged: Staged) -> Result<Proof<Bls12>, ProverError> {
        self.compute_timed(staged).map(|(proof, _)| proof)
    }

    /// `compute`, also returning how long each phase took.
    pub fn compute_timed(&self, staged: Staged) -> Result<(Proof<Bls12>, PhaseTimings), ProverError> {
        host_pool::off_pool_threads(|| self.compute_here(staged))
    }

    fn compute_here(&self, staged: Staged) -> Result<(Proof<Bls12>, PhaseTimings), ProverError> {
        let start = Instant::now();
        let Staged { inner, shape, mut timings, prover, public_inputs, _slot } = staged;
        // Another prover's slot index means another witness here (or none).
        if prover != self.id {
            return Err(ProverError::ForeignStaged);
        }
        let proof = match (inner, &self.engine) {
            (StagedInner::Cpu(st), _) => {
                // A CPU-staged proof comes from a CPU prover, which holds its bases.
                let params = self.host_params.as_deref().ok_or(ProverError::ForeignStaged)?;
                host_pool::run(|| cpu::compute(params, st, &mut timings))?
            }
            #[cfg(feature = "cuda")]
            (StagedInner::Gpu(st), Engine::Gpu(gpu)) => gpu.compute(&self.vk, st, &mut timings).inspect_err(|e| self.retire_if_lost(_slot.index, e))?,
            #[cfg(feature = "cuda")]
            (StagedInner::Gpu(_), Engine::Cpu) => return Err(ProverError::ForeignStaged),
        };
        if let Some(pvk) = &self.verifier {
            let t = Instant::now();
            let verdict = host_pool::run(|| bellperson::groth16::verify_proof(pvk, &proof, &public_inputs));
            timings.verify = t.elapsed();
            if !matches!(verdict, Ok(true)) {
                self.rejected.fetch_add(1, Ordering::Relaxed);
                let why = verdict.map_or_else(|e| format!("verifier error: {e}"), |_| "the pairing check failed".into());
                error!("proof of {} constraints rejected before return ({why}): {timings}", shape.constraints);
                return Err(ProverError::InvalidProof { why, batch_index: None });
            }
        }
        timings.compute_span = Some((start, Instant::now()));
        timings.gpu_fallback = self.gpu_fallback.is_some();
        info!("proof of {} constraints (2^{} domain): {}", shape.constraints, shape.log_domain, timings);
        Ok((proof, timings))
    }

    /// Synthesizes and proves one circuit.
    pub fn prove<C: Circuit<Scalar>>(&self, circuit: C, rng: &mut impl RngCore) -> Result<Proof<Bls12>, ProverError> {
        let staged = self.prestage(self.job(circuit, rng)?)?;
        self.compute(staged)
    }

    /// Proves many circuits, pipelined: circuits are synthesized in parallel
    /// while each worker pre-stages its next proof and computes it. Returns
    /// one result per circuit, in order; a failing circuit costs only its own
    /// proof.
    ///
    /// ```
    /// use cuzk::{Backend, Prover, ProverConfig};
    /// # use bellperson::{Circuit, ConstraintSystem, SynthesisError};
    /// # use blstrs::{Bls12, Scalar};
    /// # #[derive(Clone)]
    /// # struct Square(Option<Scalar>);
    /// # impl Circuit<Scalar> for Square {
    /// #     fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
    /// #         let x = cs.alloc(|| "x", || self.0.ok_or(SynthesisError::AssignmentMissing))?;
    /// #         let y = cs.alloc_input(|| "y", || self.0.map(|x| x * x).ok_or(SynthesisError::AssignmentMissing))?;
    /// #         cs.enforce(|| "x*x=y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
    /// #         Ok(())
    /// #     }
    /// # }
    /// let mut rng = rand::thread_rng();
    /// let params = bellperson::groth16::generate_random_parameters::<Bls12, _, _>(Square(None), &mut rng)?;
    /// let prover = Prover::new(params.clone(), ProverConfig { backend: Backend::Cpu, ..Default::default() })?;
    /// let xs: Vec<u64> = (2..6).collect();
    /// let proofs = prover.prove_batch(xs.iter().map(|&x| Square(Some(Scalar::from(x)))).collect(), &mut rng);
    /// let pvk = bellperson::groth16::prepare_verifying_key(&params.vk);
    /// for (x, proof) in xs.iter().zip(proofs) {
    ///     assert!(bellperson::groth16::verify_proof(&pvk, &proof?, &[Scalar::from(x * x)])?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prove_batch<C: Circuit<Scalar> + Send>(
        &self,
        circuits: Vec<C>,
        rng: &mut impl RngCore,
    ) -> Vec<Result<Proof<Bls12>, ProverError>> {
        let randomness: Vec<(Scalar, Scalar)> = circuits.iter().map(|_| random_r_s(rng)).collect();
        self.prove_batch_with(circuits, randomness)
    }

    /// `prove_batch` with given r and s per circuit.
    pub fn prove_batch_with<C: Circuit<Scalar> + Send>(
        &self,
        circuits: Vec<C>,
        randomness: Vec<(Scalar, Scalar)>,
    ) -> Vec<Result<Proof<Bls12>, ProverError>> {
        self.prove_batch_with_progress(circuits, randomness, |_, _| {})
    }

    /// `prove_batch_with`, calling `on_done(index, result)` as each proof
    /// finishes (from the worker threads, in completion order): for
    /// progress reports and for handing proofs on before the batch ends.
    /// If `on_done` panics, the batch goes on; that proof's result is
    /// `ProverError::CallbackPanicked`, which carries the proof.
    pub fn prove_batch_with_progress<C: Circuit<Scalar> + Send>(
        &self,
        circuits: Vec<C>,
        randomness: Vec<(Scalar, Scalar)>,
        on_done: impl Fn(usize, &Result<Proof<Bls12>, ProverError>) + Sync,
    ) -> Vec<Result<Proof<Bls12>, ProverError>> {
        self.prove_batch_until(circuits, randomness, &AtomicBool::new(false), on_done)
    }

    /// `prove_batch_with_progress` that a caller can give up half way:
    /// once `stop` is set, no circuit is synthesized or staged any more
    /// (their results are `ProverError::Cancelled`), the proofs already
    /// computing finish, and the call returns with every worker slot and
    /// witness buffer free again. `stop` may be set from `on_done` or
    /// from any other thread.
    pub fn prove_batch_until<C: Circuit<Scalar> + Send>(
        &self,
        circuits: Vec<C>,
        randomness: Vec<(Scalar, Scalar)>,
        stop: &AtomicBool,
        on_done: impl Fn(usize, &Result<Proof<Bls12>, ProverError>) + Sync,
    ) -> Vec<Result<Proof<Bls12>, ProverError>> {
        self.batch(circuits, randomness, stop, |result| result.map(|(proof, _)| proof), on_done)
    }

    /// `prove_batch_until` with each proof's phase timings, synthesis
    /// included ([`PhaseTimings::synthesis`]).
    pub fn prove_batch_timed<C: Circuit<Scalar> + Send>(
        &self,
        circuits: Vec<C>,
        randomness: Vec<(Scalar, Scalar)>,
        stop: &AtomicBool,
        on_done: impl Fn(usize, &Result<(Proof<Bls12>, PhaseTimings), ProverError>) + Sync,
    ) -> Vec<Result<(Proof<Bls12>, PhaseTimings), ProverError>> {
        self.batch(circuits, randomness, stop, |result| result, on_done)
    }

    /// The batch pipeline, each result passed through `finish` before
    /// `on_done` sees it and it is kept.
    fn batch<C: Circuit<Scalar> + Send, T: Send>(
        &self,
        circuits: Vec<C>,
        randomness: Vec<(Scalar, Scalar)>,
        stop: &AtomicBool,
        finish: impl Fn(Result<(Proof<Bls12>, PhaseTimings), ProverError>) -> Result<T, ProverError> + Sync,
        on_done: impl Fn(usize, &Result<T, ProverError>) + Sync,
    ) -> Vec<Result<T, ProverError>> {
        let count = circuits.len();
        let stopped = || stop.load(Ordering::Acquire);
        if randomness.len() != count {
            let err = || Err(ProverError::WrongLength { what: "randomness (r, s) pairs", expected: count, got: randomness.len() });
            return (0..count).map(|_| err()).collect();
        }
        let results: Mutex<Vec<Option<Result<T, ProverError>>>> = Mutex::new((0..count).map(|_| None).collect());
        // Per GPU: proofs made and their device time (H step and MSMs).
        let device_busy: Mutex<std::collections::BTreeMap<u32, (usize, Duration)>> = Mutex::default();
        let batch_start = Instant::now();
        // Bounded, so synthesis runs at most one witness per worker ahead.
        let (tx, rx) = mpsc::sync_channel::<(usize, Result<ProofJob, ProverError>)>(self.workers);
        let rx = Mutex::new(rx);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                // A pool of its own: these threads block on the channel, which
                // must never starve a pool other work runs on.
                let pool = rayon::ThreadPoolBuilder::new().num_threads(self.synthesis_threads()).build();
                let synth = |(i, (c, (r, s))): (usize, (C, (Scalar, Scalar)))| {
                    let job = if stopped() { Err(ProverError::Cancelled) } else { self.job_with(c, || (r, s)) };
                    let _ = tx.send((i, job));
                };
                let items: Vec<_> = circuits.into_iter().zip(randomness).enumerate().collect();
                match pool {
                    Ok(pool) => pool.install(|| {
                        use rayon::prelude::*;
                        items.into_par_iter().for_each(synth)
                    }),
                    Err(_) => items.into_iter().for_each(synth),
                }
            });
            for _ in 0..self.workers.min(count) {
                scope.spawn(|| loop {
                    let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((i, job)) = next else { break };
                    // A job synthesized before the stop is dropped unstaged
                    // (its witness buffer goes back to the pool).
                    let job = job.and_then(|job| if stopped() { Err(ProverError::Cancelled) } else { Ok(job) });
                    let result = job.and_then(|job| self.prove_job_catching_panics(job));
                    if let Ok((_, timings)) = &result {
                        if let Some(device) = timings.device {
                            let mut busy = device_busy.lock().unwrap_or_else(|e| e.into_inner());
                            let entry = busy.entry(device).or_default();
                            *entry = (entry.0 + 1, entry.1 + timings.ntt + timings.msm);
                        }
                        debug!("proof {i} of the batch: {}", timings.timeline(batch_start));
                    }
                    let result = result.map_err(|e| match e {
                        ProverError::InvalidProof { why, .. } => ProverError::InvalidProof { why, batch_index: Some(i) },
                        e => e,
                    });
                    // Kept for the callback's error (a copy of three points).
                    let proof = result.as_ref().ok().map(|(proof, _)| proof.clone());
                    let result = finish(result);
                    // The caller's code: a panic in it must neither end this
                    // worker (the synthesis thread would wait for ever on
                    // the channel) nor cost the proof.
                    let called = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_done(i, &result)));
                    let result = match called {
                        Ok(()) => result,
                        Err(panic) => {
                            let message = panic_message(&*panic);
                            error!("prove_batch: the progress callback panicked on proof {i} ({message}); the batch goes on");
                            Err(ProverError::CallbackPanicked { index: i, message, proof: proof.map(Box::new) })
                        }
                    };
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                });
            }
        });
        let wall = batch_start.elapsed();
        for (device, (proofs, busy)) in device_busy.into_inner().unwrap_or_else(|e| e.into_inner()) {
            info!(
                "prove_batch: GPU {device}: {proofs} proof(s), computing {:.0}% of the batch's {:.2?}",
                100.0 * busy.as_secs_f64() / wall.as_secs_f64().max(1e-9),
                wall
            );
        }
        results
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(ProverError::WorkerPanicked("synthesis thread ended early".into()))))
            .collect()
    }

    /// `config.synthesis_threads`, or its memory-bounded default.
    fn synthesis_threads(&self) -> usize {
        if self.config.synthesis_threads != 0 {
            return self.config.synthesis_threads;
        }
        // The global pool's size: what a default rayon pool would have.
        let cores = rayon::current_num_threads();
        let witness = synthesis_budget::witness_bytes(&self.lengths, self.compiled.is_some());
        let threads = synthesis_budget::synthesis_threads(cores, synthesis_budget::available_memory(), witness, self.workers);
        if threads < cores {
            info!("prove_batch: {threads} synthesis thread(s) of {cores} cores: witnesses of {:.1} GB must fit in host memory", witness as f64 / 1e9);
        }
        threads
    }

    fn prove_job_catching_panics(&self, job: ProofJob) -> Result<(Proof<Bls12>, PhaseTimings), ProverError> {
        let run = std::panic::AssertUnwindSafe(|| self.prestage(job).and_then(|st| self.compute_timed(st)));
        std::panic::catch_unwind(run).unwrap_or_else(|p| Err(ProverError::WorkerPanicked(panic_message(&*p))))
    }
}

impl Drop for Prover {
    /// Unpinning a witness buffer may wait for its GPU; after a device was
    /// lost (it may never answer) the buffers are left pinned instead.
    fn drop(&mut self) {
        #[cfg(feature = "cuda")]
        if let Engine::Gpu(gpu) = &self.engine {
            if !gpu.lost_devices().is_empty() {
                std::mem::forget(self.witnesses.take());
            }
        }
    }
}

/// The reusable witness buffers of a prover: pinned for the GPU's copy
/// engine on the GPU backend, none on the CPU (whose prestage consumes the
/// witness's memory). A compiled prover's buffers with `classes` also hold
/// a job's packed classes.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
fn witness_pool(engine: &Engine, witness_only: bool, classes: bool, max: usize) -> Option<WitnessPool> {
    match engine {
        Engine::Cpu => None,
        #[cfg(feature = "cuda")]
        Engine::Gpu(gpu) => {
            if max == 0 {
                return None;
            }
            let lay = gpu.layout();
            // A compiled prover's jobs hold the witness alone: no a, b, c.
            let evaluations = if witness_only { 0 } else { lay.domain };
            let capacity = crate::witness::pool::WitnessCapacity { evaluations, inputs: lay.inputs, aux: lay.aux() };
            use crate::witness::classes::{ClassedValues, PINNED_OTHERS_PER};
            let classes_words = if witness_only && classes { ClassedValues::packed_capacity(lay.aux(), lay.aux() / PINNED_OTHERS_PER) } else { 0 };
            let pinner = Box::new(crate::gpu::CudaPinner::new(&gpu.devices()[0])) as Box<dyn crate::witness::pool::HostPinner>;
            Some(WitnessPool::new(max, capacity, classes_words, Some(pinner)))
        }
    }
}

fn engine_name(engine: &Engine) -> &'static str {
    match engine {
        Engine::Cpu => "cpu",
        #[cfg(feature = "cuda")]
        Engine::Gpu(_) => "gpu",
    }
}

/// A parameter file's bases decoded into host memory, for the CPU backend.
fn read_on_cpu(file: &crate::parameters::params_file::ParamsFile) -> Result<Parameters<Bls12>, ProverError> {
    let start = Instant::now();
    let params = file.read_parameters()?;
    info!("parameters of {} decoded on the CPU in {:.2} s", file.path().display(), start.elapsed().as_secs_f64());
    Ok(params)
}

/// Picks the engine and how many devices it spans.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
/// Picks the engine, how many devices it spans, and why `Auto` fell back
/// to the CPU.
fn resolve_engine(params: &ParamsSource, compiled: Option<&CompiledCircuit>, config: &ProverConfig) -> Result<(Engine, usize, Option<String>), ProverError> {
    match config.backend {
        Backend::Cpu => Ok((Engine::Cpu, 1, None)),
        #[cfg(feature = "cuda")]
        Backend::Gpu => {
            let gpu = crate::gpu::GpuEngine::new(params, compiled, config)?;
            let devices = gpu.device_count();
            Ok((Engine::Gpu(gpu), devices, None))
        }
        #[cfg(not(feature = "cuda"))]
        Backend::Gpu => Err(ProverError::NoGpu("cuzk was built without the `cuda` feature".into())),
        Backend::Auto => {
            #[cfg(feature = "cuda")]
            let why = match crate::gpu::GpuEngine::new(params, compiled, config) {
                Ok(gpu) => {
                    let devices = gpu.device_count();
                    return Ok((Engine::Gpu(gpu), devices, None));
                }
                Err(e) if falls_back_to_cpu(&e) => e.to_string(),
                // Bad input (a corrupt parameter file, a mistyped device
                // ordinal, parameters of another circuit) fails the same
                // way on the CPU, after decoding every base into host memory.
                Err(e) => return Err(e),
            };
            #[cfg(not(feature = "cuda"))]
            let why = "cuzk was built without the `cuda` feature".to_string();
            let _ = (params, compiled);
            log::warn!("the GPU cannot be used ({why}); proving on the CPU");
            Ok((Engine::Cpu, 1, Some(why)))
        }
    }
}

/// Whether `Backend::Auto` proves on the CPU after the GPU engine failed
/// with `e`: only for errors that say this GPU cannot do it (no device,
/// too little VRAM, a lost device, a failed CUDA call such as a module that
/// does not load); input errors are returned as they are.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn falls_back_to_cpu(e: &ProverError) -> bool {
    matches!(e, ProverError::NoGpu(_) | ProverError::NotEnoughVram { .. } | ProverError::DeviceLost { .. } | ProverError::Gpu(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parameters::params_file::ParamsFileError;

    #[test]
    fn auto_falls_back_only_when_the_gpu_cannot_do_it() {
        let unusable = [
            ProverError::NoGpu("no driver".into()),
            ProverError::NotEnoughVram { device: 0, free: 1, needed: 2, detail: String::new() },
            ProverError::DeviceLost { device: 0, cause: "ECC".into() },
            ProverError::Gpu("module load: CUDA_ERROR_INVALID_PTX".into()),
        ];
        assert!(unusable.iter().all(falls_back_to_cpu));
        let input = [
            ProverError::Config("GPU 7 requested, but only 1 present".into()),
            ProverError::ParamsFile(ParamsFileError::TrailingBytes { extra: 3 }),
            ProverError::ParamsMismatch { what: "L query", params: 1, circuit: 2 },
            ProverError::DomainTooLarge { log_size: 33 },
            ProverError::IdentityDelta,
        ];
        assert!(!input.iter().any(falls_back_to_cpu));
    }
}
