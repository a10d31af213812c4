//! The engine: the job table, the priority queue, the provers, and the
//! prover threads that take jobs from the queue. The async side (the gRPC
//! service) submits, awaits and cancels; the proving runs on std threads,
//! off the async runtime.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cuzk::porep::{SealProverConfig, SealRequest};
use cuzk::post::{PostKind, PostRequest};
use cuzk::update::UpdateRequest;
use cuzk::ProverConfig;
use log::{info, warn};
use tokio::sync::watch;

use crate::config::Config;
use crate::error::ConfigError;
use crate::job::{AwaitOutcome, JobState};
use crate::metrics::Metrics;
use crate::porep_request::PorepInput;
use crate::post_request::PostInput;
use crate::update_request::UpdateInput;
use crate::proof_kind::{Priority, ProofKind};
use crate::provers::{EvictError, ProverCache};
use crate::queue::{JobQueue, QueueKey};
use crate::registered::CircuitKey;

/// A request to prove, as the service hands it over.
#[derive(Clone, Debug)]
pub struct JobRequest {
    /// The caller's idempotency key (and the job's id); empty: one is made.
    pub request_id: String,
    /// What to prove.
    pub kind: ProofKind,
    /// The proto's priority number (0: the kind's default).
    pub priority: i32,
    /// The PoRep C2 fields.
    pub porep: PorepInput,
    /// The PoSt fields.
    pub post: PostInput,
    /// The SnapDeals fields.
    pub update: UpdateInput,
}

/// A submitted job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// Its id.
    pub job_id: String,
    /// Jobs ahead of it (0 when it is not queued).
    pub queue_position: usize,
}

/// What the engine refuses (a job that cannot be proved is a FAILED job,
/// not one of these).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The daemon is stopping.
    #[error("the daemon is shutting down")]
    ShuttingDown,
    /// No such job (never submitted, or its result dropped long ago).
    #[error("no job {0}")]
    UnknownJob(String),
    /// A circuit id that names no registered proof this daemon proves.
    #[error("unknown circuit id {0:?}: expected porep-<size>, winning-<size>, wpost-<size> or snap-<size>, size 2k, 8m, 512m, 32g or 64g")]
    UnknownCircuit(String),
    /// EvictSRS of a prover in use.
    #[error(transparent)]
    Evict(#[from] EvictError),
    /// PreloadSRS could not build the prover.
    #[error("{circuit_id}: {why}")]
    Load {
        /// The circuit id.
        circuit_id: String,
        /// Why.
        why: String,
    },
}

/// What CancelProof did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled {
    /// The job was being proved (its result will be discarded).
    pub was_running: bool,
}

/// Which jobs a prover thread takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Any job, highest priority first.
    Any,
    /// Only HIGH and CRITICAL jobs (`scheduler.urgent_lane`).
    Urgent,
}

impl Lane {
    /// The lowest priority it takes.
    pub(crate) fn min_priority(self) -> Priority {
        match self {
            Lane::Any => Priority::Low,
            Lane::Urgent => Priority::High,
        }
    }
}

/// One job's record.
pub(crate) struct Job {
    pub(crate) kind: ProofKind,
    pub(crate) proof: Option<CircuitKey>,
    /// Unique across the engine's life: a resubmitted id is a new job.
    pub(crate) serial: u64,
    pub(crate) submitted: Instant,
    pub(crate) queue_key: Option<QueueKey>,
    /// A prover thread holds it (running, or cancelled while running).
    pub(crate) active: bool,
    pub(crate) work: Option<Work>,
    pub(crate) state: watch::Sender<JobState>,
}

/// What a queued job proves.
#[derive(Clone, Debug)]
pub(crate) enum Work {
    /// A sector's C2.
    Seal(SealRequest),
    /// A WinningPoSt or a WindowPoSt partition.
    Post(PostRequest),
    /// A SnapDeals sector update.
    Update(UpdateRequest),
}

/// Everything behind the engine's one lock.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) jobs: HashMap<String, Job>,
    pub(crate) queue: JobQueue,
    pub(crate) finished: VecDeque<(String, u64)>,
    pub(crate) metrics: Metrics,
    pub(crate) stopping: bool,
    /// The prover threads take no job while set ([`Engine::pause`]).
    pub(crate) paused: bool,
    pub(crate) serials: u64,
    /// The batches the prover threads are proving, one per lane at most:
    /// their jobs and the flags that stop them early (set once every one
    /// of a batch's jobs was cancelled).
    pub(crate) running: Vec<RunningBatch>,
}

/// The jobs of a batch being proved, and its stop flag.
pub(crate) struct RunningBatch {
    pub(crate) jobs: Vec<(String, u64)>,
    pub(crate) stop: Arc<AtomicBool>,
}

impl State {
    /// Stops each running batch once none of its jobs still waits for it.
    fn stop_batches_if_abandoned(&self) {
        for batch in &self.running {
            let wanted = batch.jobs.iter().any(|(id, serial)| self.jobs.get(id).is_some_and(|j| j.serial == *serial && matches!(*j.state.borrow(), JobState::Running)));
            if !wanted {
                batch.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

pub(crate) struct Inner {
    pub(crate) state: Mutex<State>,
    pub(crate) work_ready: Condvar,
    pub(crate) provers: ProverCache,
    pub(crate) config: Config,
    pub(crate) memory_budget: u64,
    pub(crate) started: Instant,
}

impl Inner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // Every change under the lock is consistent statement by statement:
        // a panic while holding it must not stop the daemon.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// Moves a job to a final state: counted, awaiters woken, kept for
    /// later awaits until `kept` newer jobs have finished.
    pub(crate) fn finish(&mut self, id: &str, state: JobState, kept: usize) {
        let Some(job) = self.jobs.get_mut(id) else { return };
        match &state {
            JobState::Completed(proof) => self.metrics.completed(job.kind, &proof.timings),
            JobState::Failed(why) => {
                warn!("job {id} ({}) failed: {why}", job.kind);
                self.metrics.failed(job.kind)
            }
            JobState::Cancelled(why) => {
                info!("job {id} ({}) cancelled: {why}", job.kind);
                self.metrics.cancelled(job.kind)
            }
            JobState::Queued | JobState::Running => {}
        }
        job.work = None;
        job.state.send_replace(state);
        self.finished.push_back((id.to_string(), job.serial));
        while self.finished.len() > kept {
            let Some((old, serial)) = self.finished.pop_front() else { break };
            if self.jobs.get(&old).is_some_and(|j| j.serial == serial && !j.active && j.state.borrow().is_final()) {
                self.jobs.remove(&old);
            }
        }
    }
}

/// The proving engine; clones share it.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl Engine {
    /// An engine for `config` (validated here), its prover threads started.
    /// No prover is built until a job or PreloadSRS needs one.
    pub fn new(config: &Config) -> Result<Engine, ConfigError> {
        config.validate()?;
        let prover = ProverConfig {
            backend: config.prover.backend.into(),
            workers_per_device: config.gpus.gpu_workers_per_device,
            devices: config.gpus.devices.clone(),
            synthesis_threads: config.synthesis.partitions,
            vram_limit: config.vram_limit()?,
            ..Default::default()
        };
        let seal = SealProverConfig { prover, circuit_cache: config.prover.circuit_cache.clone(), verify_seal: config.prover.verify_seal, ..Default::default() };
        let inner = Arc::new(Inner {
            state: Mutex::new(State::default()),
            work_ready: Condvar::new(),
            provers: ProverCache::new(seal, config.srs.param_cache.clone()),
            config: config.clone(),
            memory_budget: config.memory_budget()?,
            started: Instant::now(),
        });
        let mut lanes = vec![(Lane::Any, "cuzk-prover")];
        if config.scheduler.urgent_lane {
            lanes.push((Lane::Urgent, "cuzk-prover-urgent"));
        }
        for (lane, name) in lanes {
            let worker = inner.clone();
            // If the thread cannot be made, jobs stay queued (or go to the
            // other lane); the error is logged rather than taking the
            // daemon down at start.
            if let Err(e) = std::thread::Builder::new().name(name.into()).spawn(move || crate::worker::run(worker, lane)) {
                warn!("cannot start the prover thread {name}: {e}");
            }
        }
        Ok(Engine { inner })
    }

    /// Queues a job, or records it as FAILED when it cannot be proved (an
    /// unsupported kind, a bad C1 output). A `request_id` already queued,
    /// running or completed returns that job; one that failed or was
    /// cancelled is submitted anew.
    pub async fn submit(&self, request: JobRequest) -> Result<Submitted, EngineError> {
        let kind = request.kind;
        let priority = Priority::from_proto(request.priority, kind);
        {
            let st = self.inner.lock();
            if st.stopping {
                return Err(EngineError::ShuttingDown);
            }
            if let Some(existing) = existing_job(&st, &request.request_id) {
                return Ok(existing);
            }
        }
        let start = Instant::now();
        let post = |input: PostInput, kind: PostKind| input.resolve(kind).map(|r| (CircuitKey::Post(r.proof), Work::Post(r.request))).map_err(|e| e.to_string());
        let resolved = match kind {
            ProofKind::PorepSealCommit => {
                let input = request.porep;
                match tokio::task::spawn_blocking(move || input.resolve()).await {
                    Ok(result) => result.map(|r| (CircuitKey::Seal(r.proof), Work::Seal(r.request))).map_err(|e| e.to_string()),
                    Err(e) => Err(format!("internal error reading the C1 output: {e}")),
                }
            }
            ProofKind::WinningPost => post(request.post, PostKind::Winning),
            ProofKind::WindowPostPartition => post(request.post, PostKind::Window),
            ProofKind::SnapDealsUpdate => request.update.resolve().map(|r| (CircuitKey::Update(r.proof), Work::Update(r.request))).map_err(|e| e.to_string()),
            ProofKind::Unknown(n) => Err(format!("unknown proof kind {n}: expected POREP_SEAL_COMMIT (1), SNAP_DEALS_UPDATE (2), WINDOW_POST_PARTITION (3) or WINNING_POST (4)")),
        };
        let parse_time = start.elapsed();
        let mut st = self.inner.lock();
        if st.stopping {
            return Err(EngineError::ShuttingDown);
        }
        if let Some(existing) = existing_job(&st, &request.request_id) {
            return Ok(existing);
        }
        st.serials += 1;
        let serial = st.serials;
        let job_id = if request.request_id.is_empty() { generated_id(&st, serial) } else { request.request_id };
        let (state, _) = watch::channel(JobState::Queued);
        let mut job = Job { kind, proof: None, serial, submitted: Instant::now(), queue_key: None, active: false, work: None, state };
        let position = match resolved {
            Ok((circuit, work)) => {
                job.proof = Some(circuit);
                job.work = Some(work);
                let key = st.queue.push(priority, job_id.clone());
                job.queue_key = Some(key);
                st.jobs.insert(job_id.clone(), job);
                // Every lane looks: the one woken alone might not take it.
                self.inner.work_ready.notify_all();
                let position = st.queue.position(&key);
                info!("job {job_id}: {circuit} queued at {priority:?} priority, position {position} (request read in {parse_time:.2?})");
                position
            }
            Err(why) => {
                st.jobs.insert(job_id.clone(), job);
                let kept = self.inner.config.daemon.finished_jobs_kept;
                st.finish(&job_id, JobState::Failed(why), kept);
                0
            }
        };
        Ok(Submitted { job_id, queue_position: position })
    }

    /// Waits for a job's final state, or for `timeout` (then its state at
    /// that moment, not final). `None`: no limit; a shutdown still answers.
    pub async fn await_job(&self, job_id: &str, timeout: Option<Duration>) -> Result<AwaitOutcome, EngineError> {
        let mut rx = {
            let st = self.inner.lock();
            st.jobs.get(job_id).ok_or_else(|| EngineError::UnknownJob(job_id.to_string()))?.state.subscribe()
        };
        // Timed out, or the channel closed (the record replaced by a
        // resubmission): the last state sent is the answer either way.
        match timeout {
            None => drop(rx.wait_for(JobState::is_final).await),
            Some(limit) => drop(tokio::time::timeout(limit, rx.wait_for(JobState::is_final)).await),
        }
        let state = rx.borrow().clone();
        let queue_position = match state {
            JobState::Queued => {
                let st = self.inner.lock();
                st.jobs.get(job_id).and_then(|j| j.queue_key).map(|k| st.queue.position(&k))
            }
            _ => None,
        };
        Ok(AwaitOutcome { state, queue_position })
    }

    /// Cancels a job: a queued one leaves the queue; a running one is
    /// answered CANCELLED at once and its result discarded when the prover
    /// finishes it. A finished job is left as it is.
    pub fn cancel(&self, job_id: &str) -> Result<Cancelled, EngineError> {
        let kept = self.inner.config.daemon.finished_jobs_kept;
        let mut st = self.inner.lock();
        let job = st.jobs.get_mut(job_id).ok_or_else(|| EngineError::UnknownJob(job_id.to_string()))?;
        let current = job.state.borrow().clone();
        let key = job.queue_key.take();
        match current {
            JobState::Queued => {
                if let Some(key) = key {
                    st.queue.remove(&key);
                }
                st.finish(job_id, JobState::Cancelled("cancelled by CancelProof while queued".into()), kept);
                Ok(Cancelled { was_running: false })
            }
            JobState::Running => {
                st.finish(job_id, JobState::Cancelled("cancelled by CancelProof while running; its result is discarded".into()), kept);
                // The last job of its batch: the partitions not yet on a
                // GPU are not proved.
                st.stop_batches_if_abandoned();
                Ok(Cancelled { was_running: true })
            }
            _ => Ok(Cancelled { was_running: false }),
        }
    }

    /// Builds the prover of a circuit id (`porep-32g`) now. True when it
    /// was already loaded; the time it took.
    pub async fn preload(&self, id: &str) -> Result<(bool, Duration), EngineError> {
        let proof = CircuitKey::of_id(id).ok_or_else(|| EngineError::UnknownCircuit(id.to_string()))?;
        let inner = self.inner.clone();
        let start = Instant::now();
        let loaded = tokio::task::spawn_blocking(move || inner.provers.load(proof).map(|(_, already)| already)).await;
        let error = |why: String| EngineError::Load { circuit_id: proof.to_string(), why };
        let already = loaded.map_err(|e| error(format!("internal error: {e}")))?.map_err(|e| error(e.to_string()))?;
        Ok((already, start.elapsed()))
    }

    /// Drops a circuit id's prover; its parameter file's size when it was
    /// loaded. Refused while its proofs run.
    pub fn evict(&self, id: &str) -> Result<Option<u64>, EngineError> {
        let proof = CircuitKey::of_id(id).ok_or_else(|| EngineError::UnknownCircuit(id.to_string()))?;
        Ok(self.inner.provers.evict(proof)?)
    }

    /// Holds the queue: no job starts until [`Engine::resume`] (running
    /// ones go on). For maintenance, and for tests that need jobs to stay
    /// queued.
    pub fn pause(&self) {
        self.inner.lock().paused = true;
    }

    /// Lets queued jobs start again.
    pub fn resume(&self) {
        self.inner.lock().paused = false;
        self.inner.work_ready.notify_all();
    }

    /// Stops taking jobs and cancels the queued ones; running ones go on.
    pub fn begin_shutdown(&self) {
        let kept = self.inner.config.daemon.finished_jobs_kept;
        let mut st = self.inner.lock();
        st.stopping = true;
        for id in st.queue.drain() {
            st.finish(&id, JobState::Cancelled("the daemon is shutting down".into()), kept);
        }
        self.inner.work_ready.notify_all();
    }

    /// Jobs being proved (including ones cancelled while running).
    pub fn active_jobs(&self) -> usize {
        self.inner.lock().jobs.values().filter(|j| j.active).count()
    }

    /// Shuts down: queued jobs cancelled, running ones given `grace` to
    /// finish, then answered CANCELLED (their results discarded).
    pub async fn shutdown(&self, grace: Duration) {
        self.begin_shutdown();
        let deadline = Instant::now() + grace;
        while self.running_states() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let kept = self.inner.config.daemon.finished_jobs_kept;
        let mut st = self.inner.lock();
        let running: Vec<String> = st.jobs.iter().filter(|(_, j)| matches!(*j.state.borrow(), JobState::Running)).map(|(id, _)| id.clone()).collect();
        for id in running {
            st.finish(&id, JobState::Cancelled("the daemon shut down before the proof finished; its result is discarded".into()), kept);
        }
        st.stop_batches_if_abandoned();
    }

    /// Jobs whose state is Running (awaiters still waiting on a prover).
    fn running_states(&self) -> usize {
        self.inner.lock().jobs.values().filter(|j| matches!(*j.state.borrow(), JobState::Running)).count()
    }
}

/// The job a request id already names, unless it failed or was cancelled.
fn existing_job(st: &State, request_id: &str) -> Option<Submitted> {
    if request_id.is_empty() {
        return None;
    }
    let job = st.jobs.get(request_id)?;
    let state = job.state.borrow();
    match *state {
        JobState::Failed(_) | JobState::Cancelled(_) => None,
        _ => Some(Submitted { job_id: request_id.to_string(), queue_position: job.queue_key.map_or(0, |k| st.queue.position(&k)) }),
    }
}

/// A job id for a request without one, unused so far.
fn generated_id(st: &State, serial: u64) -> String {
    let mut id = format!("cuzk-job-{serial}");
    let mut n = 0;
    while st.jobs.contains_key(&id) {
        n += 1;
        id = format!("cuzk-job-{serial}-{n}");
    }
    id
}
