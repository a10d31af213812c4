//! `cuzk.v1.ProvingEngine` over the engine: proto messages in and out,
//! engine refusals as gRPC status codes, proofs that cannot be made as
//! FAILED answers.

use std::time::Duration;

use log::info;
use tonic::{Request, Response, Status};

use crate::engine::{Engine, EngineError, JobRequest};
use crate::job::{AwaitOutcome, JobState};
use crate::porep_request::PorepInput;
use crate::post_request::PostInput;
use crate::update_request::UpdateInput;
use crate::proof_kind::ProofKind;
use crate::proto::await_proof_response::Status as AwaitStatus;
use crate::proto::proving_engine_server::ProvingEngine;
use crate::proto::{self as pb, srs_status::Tier};

/// The gRPC service.
pub struct ProvingService {
    engine: Engine,
}

impl ProvingService {
    /// The service of `engine`.
    pub fn new(engine: Engine) -> Self {
        ProvingService { engine }
    }
}

fn to_status(e: EngineError) -> Status {
    match e {
        EngineError::ShuttingDown => Status::unavailable(e.to_string()),
        EngineError::UnknownJob(_) => Status::not_found(e.to_string()),
        EngineError::UnknownCircuit(_) => Status::invalid_argument(e.to_string()),
        EngineError::Evict(_) | EngineError::Load { .. } => Status::failed_precondition(e.to_string()),
    }
}

fn job_request(req: pb::SubmitProofRequest) -> JobRequest {
    let kind = ProofKind::from_proto(req.proof_kind);
    // The per-sector or per-partition vanilla proofs go to the kind that
    // reads them (they can be megabytes: not copied).
    let (post_vanilla, update_vanilla) = match kind {
        ProofKind::SnapDealsUpdate => (Vec::new(), req.vanilla_proofs),
        _ => (req.vanilla_proofs, Vec::new()),
    };
    JobRequest {
        request_id: req.request_id,
        kind,
        priority: req.priority,
        porep: PorepInput {
            vanilla_proof: req.vanilla_proof,
            sector_size: req.sector_size,
            registered_proof: req.registered_proof,
            sector_number: req.sector_number,
            miner_id: req.miner_id,
        },
        post: PostInput {
            vanilla_proofs: post_vanilla,
            sector_size: req.sector_size,
            registered_proof: req.registered_proof,
            miner_id: req.miner_id,
            randomness: req.randomness,
            partition_index: req.partition_index,
        },
        update: UpdateInput {
            vanilla_proofs: update_vanilla,
            sector_size: req.sector_size,
            registered_proof: req.registered_proof,
            comm_r_old: req.comm_r_old,
            comm_r_new: req.comm_r_new,
            comm_d_new: req.comm_d_new,
        },
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The proto answer of an await.
fn await_response(job_id: &str, outcome: AwaitOutcome, waited: Duration) -> pb::AwaitProofResponse {
    let mut response = pb::AwaitProofResponse { job_id: job_id.to_string(), ..Default::default() };
    let status = match outcome.state {
        JobState::Completed(done) => {
            let t = done.timings;
            response.proof = done.proof.clone();
            response.queue_wait_ms = millis(t.queue_wait);
            response.srs_load_ms = millis(t.srs_load);
            response.synthesis_ms = millis(t.synthesis);
            response.gpu_compute_ms = millis(t.gpu_compute);
            response.total_ms = millis(t.total);
            AwaitStatus::Completed
        }
        JobState::Failed(why) => {
            response.error_message = why;
            AwaitStatus::Failed
        }
        JobState::Cancelled(why) => {
            response.error_message = why;
            AwaitStatus::Cancelled
        }
        JobState::Queued => {
            let ahead = outcome.queue_position.map_or(String::new(), |n| format!(", {n} job(s) ahead"));
            response.error_message = format!("still queued after {} ms{ahead}", millis(waited));
            AwaitStatus::Timeout
        }
        JobState::Running => {
            response.error_message = format!("still running after {} ms", millis(waited));
            AwaitStatus::Timeout
        }
    };
    response.status = status as i32;
    response
}

#[tonic::async_trait]
impl ProvingEngine for ProvingService {
    async fn submit_proof(&self, request: Request<pb::SubmitProofRequest>) -> Result<Response<pb::SubmitProofResponse>, Status> {
        let req = request.into_inner();
        info!("SubmitProof request_id {:?} kind {} ({} bytes of vanilla proof)", req.request_id, req.proof_kind, req.vanilla_proof.len());
        let submitted = self.engine.submit(job_request(req)).await.map_err(to_status)?;
        Ok(Response::new(pb::SubmitProofResponse {
            job_id: submitted.job_id,
            queue_position: u32::try_from(submitted.queue_position).unwrap_or(u32::MAX),
            assigned_gpu: String::new(),
        }))
    }

    async fn await_proof(&self, request: Request<pb::AwaitProofRequest>) -> Result<Response<pb::AwaitProofResponse>, Status> {
        let req = request.into_inner();
        let timeout = (req.timeout_ms > 0).then(|| Duration::from_millis(req.timeout_ms));
        let start = std::time::Instant::now();
        let outcome = self.engine.await_job(&req.job_id, timeout).await.map_err(to_status)?;
        Ok(Response::new(await_response(&req.job_id, outcome, start.elapsed())))
    }

    async fn prove(&self, request: Request<pb::ProveRequest>) -> Result<Response<pb::ProveResponse>, Status> {
        let submit = request.into_inner().submit.ok_or_else(|| Status::invalid_argument("ProveRequest without its submit field"))?;
        info!("Prove request_id {:?} kind {} ({} bytes of vanilla proof)", submit.request_id, submit.proof_kind, submit.vanilla_proof.len());
        let submitted = self.engine.submit(job_request(submit)).await.map_err(to_status)?;
        let start = std::time::Instant::now();
        let outcome = self.engine.await_job(&submitted.job_id, None).await.map_err(to_status)?;
        Ok(Response::new(pb::ProveResponse { result: Some(await_response(&submitted.job_id, outcome, start.elapsed())) }))
    }

    async fn cancel_proof(&self, request: Request<pb::CancelProofRequest>) -> Result<Response<pb::CancelProofResponse>, Status> {
        let req = request.into_inner();
        let cancelled = self.engine.cancel(&req.job_id).map_err(to_status)?;
        info!("CancelProof {}: {}", req.job_id, if cancelled.was_running { "was running" } else { "was not running" });
        Ok(Response::new(pb::CancelProofResponse { was_running: cancelled.was_running }))
    }

    async fn get_status(&self, _request: Request<pb::GetStatusRequest>) -> Result<Response<pb::GetStatusResponse>, Status> {
        let status = self.engine.status();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(Response::new(pb::GetStatusResponse {
            gpus: status
                .devices
                .into_iter()
                .map(|d| pb::GpuStatus {
                    ordinal: d.ordinal,
                    name: d.name,
                    // The library does not report VRAM yet.
                    vram_total_bytes: 0,
                    vram_free_bytes: 0,
                    current_job_id: d.current_job_id,
                    current_proof_kind: d.current_proof_kind,
                })
                .collect(),
            loaded_srs: status
                .loaded
                .into_iter()
                .map(|l| pb::SrsStatus { circuit_id: l.circuit_id, tier: Tier::Hot as i32, size_bytes: l.size_bytes, ref_count: l.in_use })
                .collect(),
            queues: status.queues.into_iter().map(|q| pb::QueueStatus { proof_kind: q.kind.to_string(), pending: count(q.pending), in_progress: count(q.in_progress) }).collect(),
            total_proofs_completed: status.completed,
            total_proofs_failed: status.failed,
            uptime_seconds: status.uptime_seconds,
            // No pinned-memory pool of its own: the process's resident
            // memory against the configured budget.
            pinned_memory_bytes: status.resident_bytes,
            pinned_memory_limit_bytes: status.memory_budget,
        }))
    }

    async fn get_metrics(&self, _request: Request<pb::GetMetricsRequest>) -> Result<Response<pb::GetMetricsResponse>, Status> {
        Ok(Response::new(pb::GetMetricsResponse { prometheus_text: self.engine.metrics_text() }))
    }

    async fn preload_srs(&self, request: Request<pb::PreloadSrsRequest>) -> Result<Response<pb::PreloadSrsResponse>, Status> {
        let id = request.into_inner().circuit_id;
        let (already_loaded, took) = self.engine.preload(&id).await.map_err(to_status)?;
        info!("PreloadSRS {id}: {} in {took:.2?}", if already_loaded { "already loaded" } else { "loaded" });
        Ok(Response::new(pb::PreloadSrsResponse { already_loaded, load_time_ms: millis(took) }))
    }

    async fn evict_srs(&self, request: Request<pb::EvictSrsRequest>) -> Result<Response<pb::EvictSrsResponse>, Status> {
        let id = request.into_inner().circuit_id;
        let freed = self.engine.evict(&id).map_err(to_status)?;
        info!("EvictSRS {id}: {}", if freed.is_some() { "evicted" } else { "was not loaded" });
        Ok(Response::new(pb::EvictSrsResponse { was_loaded: freed.is_some(), freed_bytes: freed.unwrap_or(0) }))
    }
}
