//! The prover threads: each takes the next job of its lane (highest
//! priority, oldest), with the queued jobs of the same registered proof up
//! to the batch size, and proves them in one pass of the library's
//! pipeline. The urgent lane takes only HIGH and CRITICAL jobs, so a
//! WinningPoSt starts while a batch of C2s is being proved.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuzk::porep::{SealProver, SealRequest};
use cuzk::post::PostProver;
use cuzk::update::UpdateProver;
use log::{debug, info};

use crate::engine::{Inner, Lane, RunningBatch, State, Work};
use crate::job::{CompletedProof, JobState, ProofTimings};
use crate::provers::AnyProver;
use crate::registered::CircuitKey;

/// One job of a batch.
struct Item {
    id: String,
    serial: u64,
    submitted: Instant,
    queue_wait: Duration,
    work: Work,
}

/// A job's proof bytes and the phases that made it.
struct Proved {
    proof: Vec<u8>,
    /// Building circuits and synthesizing witnesses (summed over partitions).
    synthesis: Duration,
    /// The Groth16 phases (summed over partitions).
    gpu_compute: Duration,
}

/// Takes batches of `lane`'s jobs until the engine stops.
pub(crate) fn run(inner: Arc<Inner>, lane: Lane) {
    loop {
        let batch = {
            let mut st = inner.lock();
            loop {
                if !st.paused {
                    if let Some(batch) = next_batch(&mut st, inner.config.scheduler.max_batch_size, lane) {
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

/// The next job the lane takes and the queued ones of its registered
/// proof, marked running.
fn next_batch(st: &mut State, max_batch: usize, lane: Lane) -> Option<(CircuitKey, Vec<Item>)> {
    let State { jobs, queue, .. } = st;
    let min = lane.min_priority();
    while let Some(first) = queue.pop(min) {
        let Some(proof) = jobs.get(&first).and_then(|j| j.proof) else { continue };
        let mut ids = vec![first];
        if max_batch > 1 {
            ids.extend(queue.take_matching(max_batch - 1, min, |id| jobs.get(id).is_some_and(|j| j.proof == Some(proof))));
        }
        let items: Vec<Item> = ids
            .into_iter()
            .filter_map(|id| {
                let job = jobs.get_mut(&id)?;
                let work = job.work.take()?;
                job.queue_key = None;
                job.active = true;
                job.state.send_replace(JobState::Running);
                Some(Item { serial: job.serial, submitted: job.submitted, queue_wait: job.submitted.elapsed(), work, id })
            })
            .collect();
        if !items.is_empty() {
            return Some((proof, items));
        }
    }
    None
}

/// Proves a batch and records each job's result.
fn prove(inner: &Inner, proof: CircuitKey, items: Vec<Item>) {
    let circuit = proof.to_string();
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
    // Set by CancelProof (or shutdown) once no job of the batch is wanted.
    let stop = Arc::new(AtomicBool::new(false));
    inner.lock().running.push(RunningBatch { jobs: items.iter().map(|i| (i.id.clone(), i.serial)).collect(), stop: stop.clone() });
    let start = Instant::now();
    // A panic in the library must not end the prover thread: the batch
    // fails and the next one runs.
    let proved = catch_unwind(AssertUnwindSafe(|| match lease.prover() {
        AnyProver::Seal(prover) => prove_seals(prover, &items, &stop, &ids, &circuit),
        AnyProver::Post(prover) => prove_posts(prover, &items, &stop),
        AnyProver::Update(prover) => prove_updates(prover, &items, &stop),
    }));
    let results: Vec<Result<Proved, String>> = match proved {
        Ok(results) => results,
        Err(panic) => {
            let why = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            items.iter().map(|_| Err(format!("internal error: the prover panicked: {why}"))).collect()
        }
    };
    inner.lock().running.retain(|b| !Arc::ptr_eq(&b.stop, &stop));
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
/// The C2s of a batch's jobs, through one pass of the C2 pipeline.
fn prove_seals(prover: &SealProver, items: &[Item], stop: &AtomicBool, ids: &[&str], circuit: &str) -> Vec<Result<Proved, String>> {
    let requests: Vec<SealRequest> = items.iter().filter_map(|i| if let Work::Seal(r) = &i.work { Some(r.clone()) } else { None }).collect();
    if requests.len() != items.len() {
        return items.iter().map(|_| Err("internal error: another kind of job in a C2 batch".to_string())).collect();
    }
    prover
        .prove_sectors_until(&requests, &mut rand::rngs::OsRng, stop, |sector, partition, result| {
            debug!("{circuit}: job {} partition {partition}: {}", ids[sector], if result.is_ok() { "proved" } else { "failed" });
        })
        .into_iter()
        .map(|r| {
            r.map(|sealed| Proved {
                synthesis: sealed.circuits + sealed.partitions.iter().map(|p| p.synthesis).sum::<Duration>(),
                gpu_compute: sealed.partitions.iter().map(|p| p.total()).sum(),
                proof: sealed.proof,
            })
            .map_err(|e| e.to_string())
        })
        .collect()
}

/// The PoSt proofs of a batch's jobs, one after the other (each is one
/// circuit; those not started when the batch is stopped are not proved).
fn prove_posts(prover: &PostProver, items: &[Item], stop: &AtomicBool) -> Vec<Result<Proved, String>> {
    items
        .iter()
        .map(|item| {
            let Work::Post(request) = &item.work else { return Err("internal error: another kind of job in a PoSt batch".to_string()) };
            let (r, s) = cuzk::random_r_s(&mut rand::rngs::OsRng);
            prover
                .prove_until(request, r, s, stop)
                .map(|p| Proved { synthesis: p.circuit + p.timings.synthesis, gpu_compute: p.timings.total(), proof: p.proof })
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// The sector updates of a batch's jobs, one after the other (each one's
/// partitions through one pass of the prover's pipeline).
fn prove_updates(prover: &UpdateProver, items: &[Item], stop: &AtomicBool) -> Vec<Result<Proved, String>> {
    items
        .iter()
        .map(|item| {
            let Work::Update(request) = &item.work else { return Err("internal error: another kind of job in a sector update batch".to_string()) };
            let randomness = request.vanilla_proofs.iter().map(|_| cuzk::random_r_s(&mut rand::rngs::OsRng)).collect();
            prover
                .prove_until(request, randomness, stop)
                .map(|p| Proved {
                    synthesis: p.circuits + p.partitions.iter().map(|t| t.synthesis).sum::<Duration>(),
                    gpu_compute: p.partitions.iter().map(|t| t.total()).sum(),
                    proof: p.proof,
                })
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn record(inner: &Inner, items: &[Item], results: Vec<Result<Proved, String>>, srs_load: Duration) {
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
            Ok(proved) => JobState::Completed(Arc::new(CompletedProof { timings: timings(item, &proved, srs_load), proof: proved.proof })),
            Err(why) => JobState::Failed(why),
        };
        st.finish(&item.id, state, kept);
    }
}

fn timings(item: &Item, proved: &Proved, srs_load: Duration) -> ProofTimings {
    ProofTimings { queue_wait: item.queue_wait, srs_load, synthesis: proved.synthesis, gpu_compute: proved.gpu_compute, total: item.submitted.elapsed() }
}
