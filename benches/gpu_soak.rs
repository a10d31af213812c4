//! Soak: two provers sharing one GPU under sustained load, as a storage
//! provider's scheduler would drive them. One proves bellperson's SHA-256
//! gadget over a 64-byte preimage (a 2^16 domain), the other its BLAKE2s
//! gadget (2^15); each calls `prove_batch` from its own thread, again and
//! again, with fresh preimages and random r, s.
//!
//! Usage: `bench-gpu_soak [--per-call N] [--calls N] [--workers N] [--stall-after SECS]
//! [--sharing auto|serial|interleaved] [--path full|compiled|mixed]` (defaults 1000, 3, 3,
//! 120, auto, full). `--path compiled` builds both provers on their recorded
//! circuits (`Prover::with_compiled`: witness-only synthesis, a, b, c from
//! the recording); `mixed` the SHA-256 one compiled, the BLAKE2s one full.
//! Per call it prints proofs/s, failures and
//! proofs the prover rejected before return (each proof is checked against
//! the verifying key, `verify_proofs`); at the end, VRAM free and the
//! witness buffers against their values after the first call, and the
//! proofs/s of the first and last calls. Every 50th proof is also verified
//! here with bellperson's `verify_proof`. A call that has not returned
//! after `--stall-after` seconds is reported as a stall with what each
//! thread is blocked in, and the process exits with status 3 instead of
//! hanging. Without a GPU it prints why and exits 0.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use bellperson::gadgets::boolean::{AllocatedBit, Boolean};
use bellperson::gadgets::{blake2s::blake2s, multipack, sha256::sha256};
use bellperson::groth16::{self, Parameters};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::{Bls12, Scalar};
use cuzk::{Backend, ComputeSharing, Prover, ProverConfig};
use rand::RngCore;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Hash {
    Sha256,
    Blake2s,
}

/// hash(preimage) with the digest packed into public inputs.
#[derive(Clone)]
struct HashCircuit {
    hash: Hash,
    preimage: Option<[u8; 64]>,
}

impl Circuit<Scalar> for HashCircuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let bits: Vec<Option<bool>> = match self.preimage {
            Some(bytes) => multipack::bytes_to_bits(&bytes).into_iter().map(Some).collect(),
            None => vec![None; 512],
        };
        let input = bits
            .into_iter()
            .enumerate()
            .map(|(i, b)| AllocatedBit::alloc(cs.namespace(|| format!("preimage bit {i}")), b).map(Boolean::from))
            .collect::<Result<Vec<_>, _>>()?;
        let digest = match self.hash {
            Hash::Sha256 => sha256(cs.namespace(|| "sha256"), &input)?,
            Hash::Blake2s => blake2s(cs.namespace(|| "blake2s"), &input, b"cuzksoak")?,
        };
        multipack::pack_into_inputs(cs.namespace(|| "digest"), &digest)
    }
}

/// How the provers take their circuits.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ProofPath {
    /// Full synthesis (`Prover::new`).
    Full,
    /// Both through their recorded circuits (`Prover::with_compiled`).
    Compiled,
    /// SHA-256 compiled, BLAKE2s full.
    Mixed,
}

impl ProofPath {
    fn compiled(self, hash: Hash) -> bool {
        match self {
            ProofPath::Full => false,
            ProofPath::Compiled => true,
            ProofPath::Mixed => hash == Hash::Sha256,
        }
    }
}

struct Args {
    per_call: usize,
    calls: usize,
    workers: usize,
    stall_after: u64,
    sharing: ComputeSharing,
    path: ProofPath,
}

fn parse_args() -> Args {
    let mut args = Args { per_call: 1000, calls: 3, workers: 3, stall_after: 120, sharing: ComputeSharing::Auto, path: ProofPath::Full };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut number = || it.next().and_then(|v| v.parse::<usize>().ok()).unwrap_or_else(|| panic!("{a} N"));
        match a.as_str() {
            "--per-call" => args.per_call = number().max(1),
            "--calls" => args.calls = number().max(1),
            "--workers" => args.workers = number().max(1),
            "--stall-after" => args.stall_after = number() as u64,
            "--sharing" => {
                args.sharing = match it.next().as_deref() {
                    Some("auto") => ComputeSharing::Auto,
                    Some("serial") => ComputeSharing::Serial,
                    Some("interleaved") => ComputeSharing::Interleaved,
                    other => panic!("--sharing auto|serial|interleaved, not {other:?}"),
                }
            }
            "--path" => {
                args.path = match it.next().as_deref() {
                    Some("full") => ProofPath::Full,
                    Some("compiled") => ProofPath::Compiled,
                    Some("mixed") => ProofPath::Mixed,
                    other => panic!("--path full|compiled|mixed, not {other:?}"),
                }
            }
            _ => {} // e.g. cargo's --bench
        }
    }
    args
}

/// What one call of one prover did.
struct CallReport {
    hash: Hash,
    call: usize,
    proofs: usize,
    failed: usize,
    rejected: u64,
    seconds: f64,
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let gpu = match cuzk::gpu::discover(&[0]) {
        Ok(mut g) => g.remove(0),
        Err(e) => {
            println!("gpu_soak: skipped, {e}");
            return;
        }
    };
    let args = parse_args();
    let mut rng = rand::thread_rng();
    let t = Instant::now();
    let params: Vec<Parameters<Bls12>> = [Hash::Sha256, Hash::Blake2s]
        .iter()
        .map(|&hash| groth16::generate_random_parameters::<Bls12, _, _>(HashCircuit { hash, preimage: None }, &mut rng).expect("setup"))
        .collect();
    println!("parameters: SHA-256 {} / BLAKE2s {} aux, made in {:.1?}", params[0].l.len(), params[1].l.len(), t.elapsed());
    let provers: Vec<Prover> = params
        .iter()
        .zip([Hash::Sha256, Hash::Blake2s])
        .map(|(p, hash)| {
            let config = ProverConfig { backend: Backend::Gpu, workers_per_device: args.workers, devices: vec![0], compute_sharing: args.sharing, ..Default::default() };
            if args.path.compiled(hash) {
                let compiled = cuzk::CompiledCircuit::record(HashCircuit { hash, preimage: None }).expect("recording");
                Prover::with_compiled(p.clone(), compiled, config).expect("prover")
            } else {
                Prover::new(p.clone(), config).expect("prover")
            }
        })
        .collect();
    println!(
        "provers: SHA-256 {}, BLAKE2s {}",
        if args.path.compiled(Hash::Sha256) { "compiled" } else { "full" },
        if args.path.compiled(Hash::Blake2s) { "compiled" } else { "full" }
    );
    let pvks: Vec<_> = params.iter().map(|p| groth16::prepare_verifying_key(&p.vk)).collect();
    let vram_free = || {
        gpu.bind().expect("bind");
        cust::memory::mem_get_info().map(|(free, _)| free).unwrap_or(0)
    };

    let (tx, rx) = mpsc::channel::<CallReport>();
    let mut reports: Vec<CallReport> = Vec::new();
    let mut after_first: Option<(usize, Vec<(usize, usize)>)> = None;
    let mut bad_verify = 0usize;
    std::thread::scope(|s| {
        for (k, (prover, pvk)) in provers.iter().zip(&pvks).enumerate() {
            let tx = tx.clone();
            let hash = [Hash::Sha256, Hash::Blake2s][k];
            s.spawn(move || {
                let mut rng = rand::thread_rng();
                for call in 0..args.calls {
                    let circuits: Vec<HashCircuit> = (0..args.per_call)
                        .map(|_| {
                            let mut preimage = [0u8; 64];
                            rng.fill_bytes(&mut preimage);
                            HashCircuit { hash, preimage: Some(preimage) }
                        })
                        .collect();
                    let t = Instant::now();
                    let results = prover.prove_batch(circuits.clone(), &mut rng);
                    let seconds = t.elapsed().as_secs_f64();
                    let failed = results.iter().filter(|r| r.is_err()).count();
                    for (i, r) in results.iter().enumerate() {
                        if let Err(e) = r {
                            eprintln!("{hash:?} call {call} proof {i}: {e}");
                        }
                    }
                    // An independent check of a sample: bellperson's verifier
                    // on the public inputs the circuit computes.
                    let mismatched = results
                        .iter()
                        .zip(&circuits)
                        .step_by(50)
                        .filter(|(r, c)| {
                            let Ok(proof) = r else { return false };
                            let inputs = cuzk::synthesize((*c).clone()).expect("synthesis").input[1..].to_vec();
                            !groth16::verify_proof(pvk, proof, &inputs).unwrap_or(false)
                        })
                        .count();
                    let report = CallReport { hash, call, proofs: results.len(), failed: failed + mismatched, rejected: prover.proofs_rejected(), seconds };
                    if tx.send(report).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let expected = provers.len() * args.calls;
        while reports.len() < expected {
            match rx.recv_timeout(Duration::from_secs(args.stall_after)) {
                Ok(r) => {
                    println!(
                        "{:?} call {}: {} proofs in {:.2} s ({:.1} proofs/s), {} failed, {} rejected before return so far",
                        r.hash,
                        r.call,
                        r.proofs,
                        r.seconds,
                        r.proofs as f64 / r.seconds,
                        r.failed,
                        r.rejected
                    );
                    bad_verify += r.failed;
                    reports.push(r);
                    if after_first.is_none() && reports.len() == provers.len() {
                        after_first = Some((vram_free(), provers.iter().map(Prover::witness_buffers).collect()));
                    }
                }
                Err(_) => {
                    println!("STALL: no call returned in {} s ({} of {expected} calls done)", args.stall_after, reports.len());
                    report_threads();
                    std::process::exit(3);
                }
            }
        }
    });
    let (vram_first, buffers_first) = after_first.unwrap_or_default();
    let buffers_last: Vec<_> = provers.iter().map(Prover::witness_buffers).collect();
    let rate = |call: usize| {
        let r: Vec<_> = reports.iter().filter(|r| r.call == call).collect();
        r.iter().map(|r| r.proofs as f64 / r.seconds).sum::<f64>() / r.len().max(1) as f64
    };
    let total: usize = reports.iter().map(|r| r.proofs).sum();
    println!(
        "soak: {total} proofs, {bad_verify} failed or not verifying, {} rejected before return; VRAM free {:.3} GiB after the first calls, {:.3} GiB at the end; \
         witness buffers (made, free) {buffers_first:?} then {buffers_last:?}; proofs/s per prover: first call {:.1}, last {:.1}",
        provers.iter().map(Prover::proofs_rejected).sum::<u64>(),
        vram_first as f64 / (1u64 << 30) as f64,
        vram_free() as f64 / (1u64 << 30) as f64,
        rate(0),
        rate(args.calls - 1)
    );
}

/// Each thread's name, state and kernel wait channel (Linux), to tell a
/// wait on the GPU (an ioctl or poll in the driver) from a host lock (futex).
fn report_threads() {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return };
    for task in tasks.flatten() {
        let path = task.path();
        let read = |f: &str| std::fs::read_to_string(path.join(f)).unwrap_or_default().trim().to_string();
        let state = read("stat").split(") ").nth(1).and_then(|s| s.split(' ').next()).unwrap_or("?").to_string();
        println!("  thread {} {:<16} state {state} wchan {}", task.file_name().to_string_lossy(), read("comm"), read("wchan"));
    }
    if let Ok(out) = std::process::Command::new("nvidia-smi").args(["--query-gpu=utilization.gpu,memory.used", "--format=csv"]).output() {
        println!("{}", String::from_utf8_lossy(&out.stdout));
    }
}
