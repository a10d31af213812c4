//! Proving phases at the size of a real 32 GiB PoRep partition on the GPU:
//! 130,278,869 constraints (domain 2^27), 328 public inputs, 130,169,893 aux
//! variables with the real witness's statistics (51% zeros, 47% ones; A-aux
//! density 99.7%, B-aux 25.4%), random bases. No circuit is synthesized
//! (minutes at this size) and no setup run (hours): the assignment and the
//! parameters are random (`cuzk::synthetic`), so the proofs do not verify,
//! but the prover does exactly the work of a real partition.
//!
//! Usage: `bench-gpu_partition [--constraints N] [--aux N] [--inputs N]
//! [--proofs N] [--workers N[,N…]] [--pinned N] [--producer] [--sharing auto|serial|interleaved]
//! [--compiled] [--raw-witness] [--synthesis N] [--params-file PATH]
//! [--devices N[,N…]] [--vram-limit GiB|free[,…]] [--carry on,off] [--fill-waves on,off]
//! [--ahead on,off]` (default: GPU 0).
//! For each worker count (default 1 and 2, one prover after the other on
//! the same inputs) it prints two proofs on their own (per-phase timings),
//! then, with `--proofs` > 1, that many proofs pipelined over the workers:
//! each proof's timeline, the time between consecutive completions after
//! the first (the steady state), the whole run per proof, and how busy the
//! GPU's compute and copy engines were. Each worker copies the assignment
//! into one of the prover's reusable pinned witness buffers before staging
//! it, as synthesis would write it (the first job per worker is copied
//! before the clock starts). With `--producer` a thread of its own writes
//! the next witness while the workers prove, as a synthesis pipeline does,
//! one job ahead (the provers then keep a pinned buffer per worker and one
//! more, unless `--pinned` says otherwise): a lone worker's steady state
//! then leaves out the copy, not its pre-stage. `RUST_LOG=cuzk=debug` also logs each MSM's
//! device time and each upload. Without a GPU it prints why and exits 0.
//!
//! `--compiled` proves through a compiled circuit instead: a random one of
//! the real partition's row weights (`cuzk::synthetic::random_compiled`),
//! saved to and loaded from a file (both timed, with its size), uploaded
//! with the bases; each proof then uploads only the witness (inputs and
//! aux) and a, b, c are evaluated on the GPU; the aux values go up as
//! classes (0, 1, other) expanded on the GPU, or as they are with
//! `--raw-witness`. `--synthesis N` first times,
//! on the host, full synthesis, witness-only synthesis and recording of the
//! synthetic PoRep circuit of N constraints. `--params-file PATH` takes the
//! random bases from a parameter file in bellperson's format instead of
//! making them in host memory (written first if missing), loaded straight
//! to the GPU by each prover (`cuzk::ParamsFile`). `--vram-limit` builds
//! the provers within each budget in turn (`ProverConfig::vram_limit`: a
//! large GPU standing in for smaller ones; `free`: the device's own free
//! memory): each prints its plan, and each
//! proof the bases it streamed and the copy engine's time for them.
//! `--sort auto,counted,binned` builds them with each MSM sort in turn
//! (`ProverConfig::msm_sort`).
//! `--accumulation` builds the provers with each first MSM accumulation
//! level in turn (`ProverConfig::msm_accumulation`; affine: batch-affine
//! additions, `K` streams per thread). `--carry on,off` builds them with
//! MSM calls carrying their buckets and without
//! (`ProverConfig::msm_carried_buckets`), for a same-run comparison.
//! `--fill-waves on,off` likewise with the MSMs' first level sized to the
//! device's waves and not (`ProverConfig::msm_fill_waves`), `--ahead
//! on,off` with streamed bases copied ahead into the H MSM's freed VRAM
//! and not (`ProverConfig::streamed_bases_ahead`), `--h-canonical on,off`
//! with the H step writing integers for the H MSM and Montgomery forms
//! (`ProverConfig::h_canonical`), `--input-tables on,off` with the
//! input MSMs over their bases' tables and without
//! (`ProverConfig::input_msm_tables`); all default to the prover's
//! default (on). `--bin-windows N[,N...]`: windows per launch of the
//! binned sort's first pass (`ProverConfig::msm_bin_windows`; 0, the
//! default: one).

#[path = "common/on_off.rs"]
mod on_off;
use on_off::on_off;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::TrySendError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use blstrs::Scalar;
use cuzk::synthetic::{random_assignment, random_compiled, random_parameters, random_witness, SyntheticPorep, WitnessStats};
use cuzk::{Assignment, Backend, CompiledCircuit, ComputeSharing, MsmAccumulation, MsmSort, ParamsFile, ParamsSource, PhaseTimings, ProofJob, ProofShape, Prover, ProverConfig, QueryLengths};

/// What each proof proves: a full assignment, or a witness alone for a
/// compiled prover.
enum Source {
    Full(Assignment),
    Witness(Vec<Scalar>, Vec<Scalar>),
}

impl Source {
    fn job(&self, prover: &Prover, rng: &mut impl rand::RngCore) -> ProofJob {
        match self {
            Source::Full(a) => prover.job_from_assignment(a, rng),
            Source::Witness(input, aux) => prover.job_from_witness(input, aux, rng),
        }
    }

    /// Bytes of the values an upload moves (besides the densities).
    fn bytes(&self) -> usize {
        match self {
            Source::Full(a) => 32 * (a.a.len() + a.b.len() + a.c.len() + a.input.len() + a.aux.len()),
            Source::Witness(input, aux) => 32 * (input.len() + aux.len()),
        }
    }
}

struct Args {
    constraints: usize,
    aux: usize,
    inputs: usize,
    proofs: usize,
    workers: Vec<usize>,
    pinned: Option<usize>,
    producer: bool,
    sharing: ComputeSharing,
    compiled: bool,
    raw_witness: bool,
    synthesis: usize,
    params_file: Option<std::path::PathBuf>,
    devices: Vec<usize>,
    vram_limits: Vec<Option<u64>>,
    accumulations: Vec<MsmAccumulation>,
    sorts: Vec<MsmSort>,
    carries: Vec<bool>,
    fill_waves: Vec<bool>,
    ahead: Vec<bool>,
    h_canonical: Vec<bool>,
    input_tables: Vec<bool>,
    bin_windows: Vec<u32>,
}

fn parse_args() -> Args {
    let mut args = Args {
        constraints: 130_278_869,
        aux: 130_169_893,
        inputs: 328,
        proofs: 1,
        workers: vec![1, 2],
        pinned: None,
        producer: false,
        sharing: ComputeSharing::Auto,
        compiled: false,
        raw_witness: false,
        synthesis: 0,
        params_file: None,
        devices: vec![0],
        vram_limits: vec![None],
        accumulations: vec![MsmAccumulation::Xyzz],
        sorts: vec![MsmSort::Auto],
        carries: vec![true],
        fill_waves: vec![ProverConfig::default().msm_fill_waves],
        ahead: vec![ProverConfig::default().streamed_bases_ahead],
        h_canonical: vec![ProverConfig::default().h_canonical],
        input_tables: vec![ProverConfig::default().input_msm_tables],
        bin_windows: vec![ProverConfig::default().msm_bin_windows],
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{a} needs a value"));
        let number = |v: &str| v.replace('_', "").parse::<usize>().unwrap_or_else(|e| panic!("{a} {v}: {e}"));
        match a.as_str() {
            "--constraints" => args.constraints = number(&value()),
            "--aux" => args.aux = number(&value()),
            "--inputs" => args.inputs = number(&value()),
            "--proofs" => args.proofs = number(&value()).max(1),
            "--workers" => args.workers = value().split(',').map(|w| number(w).max(1)).collect(),
            "--pinned" => args.pinned = Some(number(&value())),
            "--producer" => args.producer = true,
            "--compiled" => args.compiled = true,
            "--raw-witness" => args.raw_witness = true,
            "--synthesis" => args.synthesis = number(&value()),
            "--params-file" => args.params_file = Some(value().into()),
            "--devices" => args.devices = value().split(',').map(number).collect(),
            "--vram-limit" => args.vram_limits = value().split(',').map(|g| (g != "free").then(|| number(g) as u64 * (1 << 30))).collect(),
            "--accumulation" => {
                args.accumulations = value()
                    .split(',')
                    .map(|v| match v {
                        "xyzz" => MsmAccumulation::Xyzz,
                        a => MsmAccumulation::BatchAffine {
                            streams: a.strip_prefix("affine").map(|k| if k.is_empty() { 0 } else { number(k) as u32 }).unwrap_or_else(|| panic!("--accumulation {a}: expected xyzz, affine or affineK")),
                        },
                    })
                    .collect()
            }
            "--sort" => {
                args.sorts = value()
                    .split(',')
                    .map(|v| match v {
                        "auto" => MsmSort::Auto,
                        "counted" => MsmSort::Counted,
                        "binned" => MsmSort::Binned { bins_log: 0 },
                        other => panic!("--sort {other}: expected auto, counted or binned"),
                    })
                    .collect()
            }
            "--carry" => args.carries = on_off(&a, &value()),
            "--fill-waves" => args.fill_waves = on_off(&a, &value()),
            "--h-canonical" => args.h_canonical = on_off(&a, &value()),
            "--ahead" => args.ahead = on_off(&a, &value()),
            "--input-tables" => args.input_tables = on_off(&a, &value()),
            "--bin-windows" => args.bin_windows = value().split(',').map(|v| v.parse().expect("--bin-windows N[,N...]")).collect(),
            "--sharing" => {
                args.sharing = match value().as_str() {
                    "auto" => ComputeSharing::Auto,
                    "serial" => ComputeSharing::Serial,
                    "interleaved" => ComputeSharing::Interleaved,
                    other => panic!("--sharing {other}: expected auto, serial or interleaved"),
                }
            }
            _ => {} // e.g. cargo's --bench
        }
    }
    args
}

fn main() {
    // RUST_LOG=cuzk=debug adds each MSM's time per proof.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    if let Err(e) = cuzk::gpu::discover(&[0]) {
        println!("gpu_partition: skipped, {e}");
        return;
    }
    let args = parse_args();
    if args.synthesis > 0 {
        synthesis(args.synthesis);
    }
    let t = Instant::now();
    let (source, compiled, shape) = if args.compiled {
        let compiled = compiled_circuit(&args);
        let (input, aux) = random_witness(args.inputs, args.aux, WitnessStats::POREP_32G, 1);
        let shape = compiled.shape().expect("shape");
        (Source::Witness(input, aux), Some(Arc::new(compiled)), shape)
    } else {
        let assignment = random_assignment(args.constraints, args.inputs, args.aux, WitnessStats::POREP_32G, 1);
        let shape = ProofShape::of(&assignment).expect("shape");
        (Source::Full(assignment), None, shape)
    };
    println!("{}: {shape:?}, made in {:.1?}", if args.compiled { "compiled circuit and witness" } else { "assignment" }, t.elapsed());
    let t = Instant::now();
    let params: ParamsSource = match &args.params_file {
        None => {
            let params = random_parameters(&shape, 2);
            println!("random parameters made in {:.1?}", t.elapsed());
            params.into()
        }
        Some(path) => {
            if !path.exists() {
                cuzk::params_file::write_random_params_file(path, &QueryLengths::for_shape(&shape), &mut rand::thread_rng()).expect("write the parameter file");
                println!("random parameter file {} written in {:.1?}", path.display(), t.elapsed());
            }
            ParamsFile::open(path).expect("open the parameter file").into()
        }
    };
    println!("host memory per in-flight proof (its witness buffer): {:.2} GB", source.bytes() as f64 / 1e9);
    for &accumulation in &args.accumulations {
    for &sort in &args.sorts {
    for &limit in &args.vram_limits {
    for &carried in &args.carries {
    for &fill_waves in &args.fill_waves {
    for &ahead in &args.ahead {
    for &h_canonical in &args.h_canonical {
    for &input_msm_tables in &args.input_tables {
    for &msm_bin_windows in &args.bin_windows {
    let mut steady = Vec::new();
    if args.bin_windows.len() > 1 {
        println!("\n=== windows per pass 1 of the binned sort: {msm_bin_windows} (0: the default)");
    }
    if args.input_tables.len() > 1 {
        println!("\n=== input MSMs over tables: {}", if input_msm_tables { "on" } else { "off" });
    }
    if args.h_canonical.len() > 1 {
        println!("\n=== H step writing integers: {}", if h_canonical { "on" } else { "off" });
    }
    if args.carries.len() > 1 {
        println!("\n=== MSM calls carrying their buckets: {}", if carried { "on" } else { "off" });
    }
    if args.fill_waves.len() > 1 {
        println!("\n=== MSM first level fitted to the waves: {}", if fill_waves { "on" } else { "off" });
    }
    if args.ahead.len() > 1 {
        println!("\n=== streamed bases copied ahead: {}", if ahead { "on" } else { "off" });
    }
    if args.accumulations.len() > 1 {
        println!("\n=== MSM accumulation: {accumulation:?}");
    }
    if args.sorts.len() > 1 {
        println!("\n=== MSM sort: {sort:?}");
    }
    for &workers in &args.workers {
        let config = ProverConfig {
            vram_limit: limit,
            backend: Backend::Gpu,
            workers_per_device: workers,
            devices: args.devices.clone(),
            check_satisfied: false,
            compute_sharing: args.sharing,
            pinned_witnesses: args.pinned.or(args.producer.then_some(workers + 1)),
            // Random bases: the proofs cannot verify.
            verify_proofs: Some(false),
            witness_classes: !args.raw_witness,
            msm_accumulation: accumulation,
            msm_sort: sort,
            msm_carried_buckets: carried,
            msm_fill_waves: fill_waves,
            streamed_bases_ahead: ahead,
            h_canonical,
            input_msm_tables,
            msm_bin_windows,
            ..Default::default()
        };
        let t = Instant::now();
        let prover = match &compiled {
            Some(c) => Prover::with_compiled(params.clone(), Arc::clone(c), config),
            None => Prover::new(params.clone(), config),
        }
        .expect("prover");
        println!("\n== {workers} worker(s): prover ready in {:.1?} (bases uploaded, {} worker slot(s))", t.elapsed(), prover.workers());
        if let Some(plan) = prover.vram_plan() {
            println!("VRAM plan{}: {plan}", limit.map_or(String::new(), |l| format!(" within {} GiB", l >> 30)));
        }
        alone(&prover, &source);
        if args.proofs > 1 {
            steady.push((workers, pipelined(&prover, &source, args.proofs, args.producer)));
        }
    }
    if let [(w1, one), .., (wn, many)] = steady[..] {
        println!("\nsteady state: {wn} worker(s) {:.3} s per proof against {w1}: {:.3} s ({:.2}x)", many, one, one / many);
    }
    }
    }
    }
    }
    }
    }
    }
    }
    }
}

/// The synthetic PoRep circuit of `constraints` constraints on the host:
/// full synthesis, witness-only synthesis and recording, timed.
fn synthesis(constraints: usize) {
    let circuit = SyntheticPorep::with_witness(constraints, 328, 7);
    let t = Instant::now();
    let full = cuzk::synthesize(circuit.clone()).expect("synthesis");
    let full_time = t.elapsed();
    let t = Instant::now();
    let (input, aux) = cuzk::synthesize_witness(circuit.clone()).expect("witness");
    let witness_time = t.elapsed();
    assert_eq!((&input, &aux), (&full.input, &full.aux));
    drop(full);
    let t = Instant::now();
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(constraints, 328)).expect("record");
    let record_time = t.elapsed();
    let t = Instant::now();
    let evaluated = compiled.evaluate(input, aux).expect("evaluate");
    let evaluate_time = t.elapsed();
    assert_eq!(evaluated.first_unsatisfied(), None);
    println!(
        "synthetic PoRep circuit of {constraints} constraints on the host: full synthesis {full_time:.3?}, witness-only {witness_time:.3?} \
         ({:.1}x less), recording {record_time:.3?} ({} nonzeros), a·b·c on the CPU from the compiled circuit {evaluate_time:.3?}",
        full_time.as_secs_f64() / witness_time.as_secs_f64(),
        compiled.nonzeros()
    );
}

/// The random compiled circuit of the partition's shape, through its file.
fn compiled_circuit(args: &Args) -> CompiledCircuit {
    let t = Instant::now();
    let compiled = random_compiled(args.constraints, args.inputs, args.aux, 3);
    let made = t.elapsed();
    let path = std::env::temp_dir().join(format!("cuzk-partition-{}.r1cs", std::process::id()));
    let t = Instant::now();
    compiled.save(&path).expect("save");
    let saved = t.elapsed();
    drop(compiled);
    let t = Instant::now();
    let compiled = CompiledCircuit::load(&path).expect("load");
    let loaded = t.elapsed();
    let _ = std::fs::remove_file(&path);
    let per_row = compiled.matrices().each_ref().map(|m| m.nonzeros() as f64 / compiled.constraints() as f64);
    println!(
        "compiled circuit: {} rows, {} nonzeros ({per_row:.2?} per row in A, B, C), {} coefficients, {:.2} GB ({:.2} bytes per nonzero); \
         made in {made:.1?}, saved in {saved:.1?}, loaded and checked in {loaded:.1?}",
        compiled.constraints(),
        compiled.nonzeros(),
        compiled.coefficients().len(),
        compiled.bytes() as f64 / 1e9,
        compiled.bytes() as f64 / compiled.nonzeros() as f64
    );
    compiled
}

/// Two proofs on their own: the phases without interference (the first
/// also makes the worker's pinned witness buffer).
fn alone(prover: &Prover, source: &Source) {
    let mut rng = rand::thread_rng();
    for k in 0..2 {
        let t = Instant::now();
        let job = source.job(prover, &mut rng);
        let copied = t.elapsed();
        let pooled = job.is_pooled();
        let t = Instant::now();
        let staged = prover.prestage(job).expect("prestage");
        let (_proof, timings) = prover.compute_timed(staged).expect("compute");
        println!(
            "proof alone #{k}: {timings} (wall {:.3?}; witness {} in {copied:.3?}; upload {:.3} GB at {:.1} GB/s; bases streamed {:.2} GB, copied in {:.3?} at {:.1} GB/s)",
            t.elapsed(),
            if pooled { "copied into a pinned buffer" } else { "cloned (no free pinned buffer)" },
            timings.upload_bytes as f64 / 1e9,
            timings.upload_bytes as f64 / timings.upload.as_secs_f64().max(1e-9) / 1e9,
            timings.bases_streamed as f64 / 1e9,
            timings.bases_copy,
            timings.bases_streamed as f64 / timings.bases_copy.as_secs_f64().max(1e-9) / 1e9
        );
    }
}

/// `proofs` proofs over all workers, their jobs made by the workers
/// themselves or, with `producer`, by a thread of its own one job ahead;
/// returns the steady-state seconds per proof.
fn pipelined(prover: &Prover, source: &Source, proofs: usize, producer: bool) -> f64 {
    let mut rng = rand::thread_rng();
    // One job per worker ready before the clock starts; the rest are copied
    // into the buffers staged jobs free, by the workers or the producer.
    let ready: Vec<_> = (0..prover.workers().min(proofs)).map(|_| source.job(prover, &mut rng)).collect();
    let ready = Mutex::new(ready);
    let to_make = AtomicUsize::new(proofs - ready.lock().unwrap().len());
    let done: Mutex<Vec<PhaseTimings>> = Mutex::new(Vec::new());
    let plain = AtomicUsize::new(0);
    // A rendezvous channel: the producer writes one job ahead and hands it
    // to whichever worker asks first.
    let (to_workers, made) = std::sync::mpsc::sync_channel(0);
    let made = Mutex::new(made);
    let failed = AtomicBool::new(false);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        if producer {
            let to_make = to_make.swap(0, Ordering::SeqCst);
            let failed = &failed;
            s.spawn(move || {
                let mut rng = rand::thread_rng();
                for _ in 0..to_make {
                    let mut job = source.job(prover, &mut rng);
                    // Handed over when a worker asks; given up if one died.
                    loop {
                        match to_workers.try_send(job) {
                            Ok(()) => break,
                            Err(TrySendError::Full(back)) if !failed.load(Ordering::SeqCst) => {
                                job = back;
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            Err(_) => return,
                        }
                    }
                }
            });
        } else {
            drop(to_workers);
        }
        for _ in 0..prover.workers() {
            s.spawn(|| {
                let _flag = PanicFlag(&failed);
                let mut rng = rand::thread_rng();
                loop {
                    let job = match ready.lock().unwrap().pop() {
                        Some(job) => job,
                        None if to_make.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() => source.job(prover, &mut rng),
                        None => match made.lock().unwrap().recv() {
                            Ok(job) => job,
                            Err(_) => break,
                        },
                    };
                    if !job.is_pooled() {
                        plain.fetch_add(1, Ordering::Relaxed);
                    }
                    let staged = prover.prestage(job).expect("prestage");
                    let (_proof, timings) = prover.compute_timed(staged).expect("compute");
                    done.lock().unwrap().push(timings);
                }
            });
        }
    });
    let wall = t0.elapsed();
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|t| t.compute_span.map(|(_, end)| end));
    for (i, t) in done.iter().enumerate() {
        println!("  proof {i}: {}", t.timeline(t0));
    }
    let finished = |t: &PhaseTimings| t.compute_span.expect("computed").1 - t0;
    let (first, last) = (finished(&done[0]), finished(&done[done.len() - 1]));
    let interval = (last - first).as_secs_f64() / (done.len() - 1) as f64;
    let gpu_after_first: Duration = done[1..].iter().map(PhaseTimings::device_compute).sum();
    let copy: Duration = done.iter().map(|t| t.upload + t.bases_copy).sum();
    let link_bytes = done.iter().map(|t| t.upload_bytes + t.bases_streamed).sum::<usize>() as f64 / done.len() as f64;
    let compute_mean = done.iter().map(PhaseTimings::device_compute).sum::<Duration>().as_secs_f64() / done.len() as f64;
    println!(
        "pipelined: {proofs} proofs over {} worker(s) in {wall:.3?} ({:.3} s per proof); steady state {interval:.3} s per proof \
         ({:.3}x the mean GPU compute of {compute_mean:.3} s); GPU busy {:.1}% after the first proof; copy engine busy {:.1}%; \
         {} job(s) without a free pinned buffer; {:.2} GB over the link per proof (bases {:.2} GB): {:.3} s at PCIe 4.0 x16's 25 GB/s",
        prover.workers(),
        wall.as_secs_f64() / proofs as f64,
        interval / compute_mean,
        100.0 * gpu_after_first.as_secs_f64() / (last - first).as_secs_f64(),
        100.0 * copy.as_secs_f64() / wall.as_secs_f64(),
        plain.load(Ordering::Relaxed),
        link_bytes / 1e9,
        done.iter().map(|t| t.bases_streamed).sum::<usize>() as f64 / done.len() as f64 / 1e9,
        link_bytes / 25e9
    );
    interval
}

/// Raises its flag when the thread holding it panics (so a producer stops
/// waiting for a worker that is gone).
struct PanicFlag<'a>(&'a AtomicBool);

impl Drop for PanicFlag<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}
