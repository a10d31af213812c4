//! The prover thread: takes the next job (highest priority, oldest), with
//! the queued jobs of the same registered proof up to the batch size, and
//! proves them in one pass of the library's pipeline.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuzk::porep::{RegisteredSealProof, SealProof, SealRequest};
use log::{debug, info};

use crate::engine::{Inner, RunningBatch, State};
use crate::job::{CompletedProof, JobState, ProofTimings};
use crate::registered::circuit_id;

/// One job of a batch.
struct Item {
    id: String,
    serial: u64,
    submitted: Instant,
    queue_wait: Duration,
    request: SealRequest,
}

/// Takes batches until the engine stops.
pub(crate) fn run(inner: Arc<Inner>) {
    loop {
        let batch = {
            let mut st = inner.lock();
            loop {
                if !st.paused {
                    if let Some(batch) = next_batch(&mut st, inner.config.scheduler.max_batch_size) {
                        break batch;
                    }
                }
                if st.stopping {
                    return;
                }
                st = inner.work_ready.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        prove(&inner, batch.0, batch.1);
    }
}

/// The next job and the queued ones of its registered proof, marked running.
fn next_batch(st: &mut State, max_batch: usize) -> Option<(RegisteredSealProof, Vec<Item>)> {
    let State { jobs, queue, .. } = st;
    while let Some(first) = queue.pop() {
        let Some(proof) = jobs.get(&first).and_then(|j| j.proof) else { continue };
        let mut ids = vec![first];
        if max_batch > 1 {
            ids.extend(queue.take_matching(max_batch - 1, |id| jobs.get(id).is_some_and(|j| j.proof == Some(proof))));
        }
        let items: Vec<Item> = ids
            .into_iter()
            .filter_map(|id| {
                let job = jobs.get_mut(&id)?;
                let request = job.work.take()?;
                job.queue_key = None;
                job.active = true;
                job.state.send_replace(JobState::Running);
                Some(Item { serial: job.serial, submitted: job.submitted, queue_wait: job.submitted.elapsed(), request, id })
            })
            .collect();
        if !items.is_empty() {
            return Some((proof, items));
        }
    }
    None
}

/// Proves a batch and records each job's result.
fn prove(inner: &Inner, proof: RegisteredSealProof, items: Vec<Item>) {
    let circuit = circuit_id(proof);
    let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    info!("{circuit}: proving {} job(s): {}", items.len(), ids.join(", "));
    let lease = match inner.provers.lease(proof) {
        Ok(lease) => lease,
        Err(e) => {
            let why = format!("{circuit}: cannot load the prover: {e}");
            let results = items.iter().map(|_| Err(why.clone())).collect();
            return record(inner, &items, results, Duration::ZERO);
        }
    };
    let requests: Vec<SealRequest> = items.iter().map(|i| i.request.clone()).collect();
    // Set by CancelProof (or shutdown) once no job of the batch is wanted.
    let stop = Arc::new(AtomicBool::new(false));
    inner.lock().running = Some(RunningBatch { jobs: items.iter().map(|i| (i.id.clone(), i.serial)).collect(), stop: stop.clone() });
    let start = Instant::now();
    // A panic in the library must not end the prover thread: the batch
    // fails and the next one runs.
    let proved = catch_unwind(AssertUnwindSafe(|| {
        lease.prover().prove_sectors_until(&requests, &mut rand::rngs::OsRng, &stop, |sector, partition, result| {
            debug!("{circuit}: job {} partition {partition}: {}", ids[sector], if result.is_ok() { "proved" } else { "failed" });
        })
    }));
    let results: Vec<Result<SealProof, String>> = match proved {
        Ok(results) => results.into_iter().map(|r| r.map_err(|e| e.to_string())).collect(),
        Err(panic) => {
            let why = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            items.iter().map(|_| Err(format!("internal error: the prover panicked: {why}"))).collect()
        }
    };
    inner.lock().running = None;
    if stop.load(Ordering::Relaxed) {
        info!("{circuit}: {} job(s) stopped after {:.2?}: every one was cancelled", items.len(), start.elapsed());
    } else {
        info!("{circuit}: {} job(s) proved in {:.2?} (prover ready in {:.2?})", items.len(), start.elapsed(), lease.load_time);
    }
    let load_time = lease.load_time;
    drop(lease);
    record(inner, &items, results, load_time);
}

/// Each job's final state, unless it was cancelled or replaced meanwhile.
fn record(inner: &Inner, items: &[Item], results: Vec<Result<SealProof, String>>, srs_load: Duration) {
    let kept = inner.config.daemon.finished_jobs_kept;
    let mut st = inner.lock();
    for (item, result) in items.iter().zip(results) {
        let Some(job) = st.jobs.get_mut(&item.id).filter(|j| j.serial == item.serial) else { continue };
        job.active = false;
        if !matches!(*job.state.borrow(), JobState::Running) {
            info!("job {}: result discarded (the job was {} meanwhile)", item.id, job.state.borrow().name());
            continue;
        }
        let state = match result {
            Ok(sealed) => JobState::Completed(Arc::new(CompletedProof { timings: timings(item, &sealed, srs_load), proof: sealed.proof })),
            Err(why) => JobState::Failed(why),
        };
        st.finish(&item.id, state, kept);
    }
}

fn timings(item: &Item, sealed: &SealProof, srs_load: Duration) -> ProofTimings {
    ProofTimings {
        queue_wait: item.queue_wait,
        srs_load,
        synthesis: sealed.circuits + sealed.partitions.iter().map(|p| p.synthesis).sum::<Duration>(),
        gpu_compute: sealed.partitions.iter().map(|p| p.total()).sum(),
        total: item.submitted.elapsed(),
    }
}
