//! Proves synthetic circuits shaped like a Filecoin PoRep C2 partition.
//!
//! ```text
//! cargo run --release --example prove_partition -- --help
//! ```
//! A real 32 GiB partition is `--constraints 130278869 --inputs 328`; the
//! default is small enough to finish in seconds on a 2-core CPU. Parameters
//! are random (this is a benchmark, not a trusted setup) and cached in a file
//! in bellperson's format, so a second run with the same shape skips
//! generating them: the prover loads the file straight to the backend
//! (`cuzk::ParamsFile`; `--params` names another file, `--params-digest`
//! and `--subgroup-check` check it).
//!
//! `--random-bases` skips the setup (minutes at full size) and uses random
//! points of the right sizes instead (`cuzk::synthetic::random_parameters`):
//! the prover does all the same work, but the proofs cannot verify, so they
//! are reported as unverified rather than checked.
//!
//! `--compiled` records the circuit's R1CS once (cached in a file like the
//! parameters) and proves through it: each proof synthesizes only its
//! witness, and a, b, c are evaluated from the recorded matrices (on the
//! GPU for the GPU backend).
//!
//! `--compact-ntt-tables` leaves out the NTT's row twiddle tables (8 GiB
//! per GPU at a 32 GiB partition's 2^27 domain, 11% of the H step):
//! room for a third worker on an H200.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bellperson::groth16;
use blstrs::{Bls12, Scalar};
use clap::{Parser, ValueEnum};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, ComputeSharing, ParamsFile, ParamsSource, Prover, ProverConfig};
use ff::Field;
use indicatif::{ProgressBar, ProgressStyle};

/// Proves synthetic circuits shaped like a Filecoin PoRep C2 partition and
/// verifies them.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Constraints of the circuit (a real 32 GiB partition: 130278869).
    #[arg(long, default_value_t = 16_000, value_parser = at_least_2)]
    constraints: usize,
    /// Public inputs besides ONE (a real partition: 328).
    #[arg(long, default_value_t = 328)]
    inputs: usize,
    /// Proofs in the batch.
    #[arg(long, default_value_t = 2)]
    proofs: usize,
    /// Workers (proofs in flight) per GPU.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// GPUs to prove on, e.g. 0,1 (default: all).
    #[arg(long, value_delimiter = ',')]
    devices: Vec<usize>,
    /// Where to prove.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Parameter file in bellperson's format (default:
    /// .cache/prove_partition-<constraints>-<inputs>.params, generated and
    /// cached when missing). Its bases go straight from the file to the
    /// backend (on the GPU: decoded and checked there).
    #[arg(long)]
    params: Option<PathBuf>,
    /// Check the parameter file's BLAKE2b digest against these leading hex
    /// digits first (Filecoin's parameters.json gives 32).
    #[arg(long)]
    params_digest: Option<String>,
    /// Also check that every base of the parameter file is in the
    /// prime-order subgroup while loading it.
    #[arg(long)]
    subgroup_check: bool,
    /// Random points instead of a setup (minutes at full size): the proofs
    /// are timed, not verified.
    #[arg(long)]
    random_bases: bool,
    /// Leave out the NTT's row twiddle tables (8 GiB per GPU at 2^27, 11%
    /// of the H step): room for a third worker on an H200.
    #[arg(long)]
    compact_ntt_tables: bool,
    /// How the workers' computes share a GPU.
    #[arg(long, value_enum, default_value_t = SharingArg::Auto)]
    compute_sharing: SharingArg,
    /// Reusable pinned witness buffers (default: one per worker; 0: none).
    #[arg(long)]
    pinned: Option<usize>,
    /// Record the circuit once (cached next to the parameters) and prove
    /// through it: witness-only synthesis, a, b, c from the recording.
    #[arg(long)]
    compiled: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BackendArg {
    Auto,
    Cpu,
    Gpu,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SharingArg {
    Auto,
    Serial,
    Interleaved,
}

fn at_least_2(v: &str) -> Result<usize, String> {
    match v.replace('_', "").parse::<usize>() {
        Ok(n) if n >= 2 => Ok(n),
        Ok(_) => Err("must be at least 2".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A spinner with elapsed time for a step that reports no progress itself
/// (hidden when stderr is not a terminal).
fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner().with_message(what.to_string());
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("template"));
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn run(args: Args) -> Result<bool, Box<dyn std::error::Error>> {
    let circuits: Vec<_> = (0..args.proofs).map(|i| SyntheticPorep::with_witness(args.constraints, args.inputs, 1000 + i as u64)).collect();
    // Proof 0's synthesis, reused for its per-phase timing below (minutes
    // at full size, so it runs once).
    let compiled = if args.compiled { Some(load_or_record(&args)?) } else { None };
    let t = Instant::now();
    let synthesizing = spinner(if compiled.is_some() { "synthesizing proof 0's witness" } else { "synthesizing proof 0" });
    let (first, shape) = match &compiled {
        Some(c) => {
            let (input, aux) = cuzk::synthesize_witness(circuits[0].clone())?;
            (cuzk::ProofJob::from_witness(input, aux, Scalar::ZERO, Scalar::ZERO), c.shape()?)
        }
        None => {
            let asg = cuzk::synthesize(circuits[0].clone())?;
            let shape = cuzk::ProofShape::of(&asg)?;
            (cuzk::ProofJob::new(asg, &mut rand::thread_rng()), shape)
        }
    };
    synthesizing.finish_and_clear();
    let synth = t.elapsed();
    report_witness(&shape, &first.assignment().aux);
    let params: ParamsSource = if args.random_bases {
        let t = Instant::now();
        let params = cuzk::synthetic::random_parameters(&shape, 7);
        println!("parameters: random bases (proofs will not verify), made in {:.3?}", t.elapsed());
        params.into()
    } else {
        open_or_generate_params(&args, compiled.as_ref())?
    };
    let pvk = groth16::prepare_verifying_key(params.verifying_key());
    let t = Instant::now();
    let building = spinner("building the prover (bases to the GPU)");
    let backend = match args.backend {
        BackendArg::Auto => Backend::Auto,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::Gpu => Backend::Gpu,
    };
    let compute_sharing = match args.compute_sharing {
        SharingArg::Auto => ComputeSharing::Auto,
        SharingArg::Serial => ComputeSharing::Serial,
        SharingArg::Interleaved => ComputeSharing::Interleaved,
    };
    let config = ProverConfig {
            backend,
            workers_per_device: args.workers,
            devices: args.devices.clone(),
            ntt_row_twiddles: !args.compact_ntt_tables,
            compute_sharing,
            pinned_witnesses: args.pinned,
            // Random bases make proofs that cannot verify; real ones are
            // checked by the prover (on the GPU by default) and again below.
            verify_proofs: if args.random_bases { Some(false) } else { None },
            ..Default::default()
        };
    // The prover takes the parameters (a file is unmapped once loaded).
    let prover = match compiled {
        Some(c) => Prover::with_compiled(params, c, config)?,
        None => Prover::new(params, config)?,
    };
    building.finish_and_clear();
    println!("backend: {:?}, workers: {}, ready in {:.3?}", prover.backend(), prover.workers(), t.elapsed());
    // With random bases a proof cannot verify; it is only timed.
    let verify = |proof: &groth16::Proof<Bls12>, circuit: &SyntheticPorep, pvk: &groth16::PreparedVerifyingKey<Bls12>| {
        if args.random_bases {
            Ok(true)
        } else {
            groth16::verify_proof(pvk, proof, &circuit.public_values())
        }
    };

    // The two phases one proof at a time, for per-phase timings…
    let mut rng = rand::thread_rng();
    let (r, s) = cuzk::random_r_s(&mut rng);
    let mut first = first;
    (first.r, first.s) = (r, s);
    let staged = prover.prestage(first)?;
    let (proof, timings) = prover.compute_timed(staged)?;
    println!("proof 0: synthesis {synth:.3?}, {timings}");
    let mut all_ok = verify(&proof, &circuits[0], &pvk)?;

    // …then the whole batch pipelined over the workers.
    let t = Instant::now();
    let bar = ProgressBar::new(args.proofs as u64);
    bar.set_style(ProgressStyle::with_template("proving {bar:30} {pos}/{len} ({elapsed}, {eta} left)").expect("template"));
    let randomness: Vec<(Scalar, Scalar)> = circuits.iter().map(|_| cuzk::random_r_s(&mut rng)).collect();
    let results = prover.prove_batch_with_progress(circuits.clone(), randomness, |_, _| bar.inc(1));
    bar.finish_and_clear();
    let batch = t.elapsed();
    for (i, result) in results.iter().enumerate() {
        let ok = match result {
            Ok(p) => verify(p, &circuits[i], &pvk)?,
            Err(e) => {
                eprintln!("proof {i} failed: {e}");
                false
            }
        };
        all_ok &= ok;
    }
    println!(
        "batch: {} proofs in {:.3?} ({:.3?} per proof, synthesis included); verified: {}",
        args.proofs,
        batch,
        batch / args.proofs.max(1) as u32,
        match (args.random_bases, all_ok) {
            (true, true) => "not checked (random bases)",
            (true, false) => "NOT ALL MADE",
            (false, true) => "all",
            (false, false) => "NOT ALL",
        }
    );
    if let Some(peak) = peak_resident_gb() {
        println!("host memory: peak resident {peak:.2} GB (witnesses waiting for a worker are bounded by the memory available)");
    }
    Ok(all_ok)
}

/// The process's peak resident memory (Linux's `VmHWM`), in GB.
fn peak_resident_gb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0 / 1e9)
}

fn report_witness(shape: &cuzk::ProofShape, aux: &[Scalar]) {
    let zeros = aux.iter().filter(|v| v.is_zero_vartime()).count();
    let ones = aux.iter().filter(|v| **v == Scalar::ONE).count();
    let pct = |k: usize| 100.0 * k as f64 / aux.len().max(1) as f64;
    println!(
        "circuit: {} constraints (domain 2^{}), {} inputs, {} aux: {:.1}% zeros, {:.1}% ones, {:.1}% other; A-aux density {:.1}%, B-aux density {:.1}%",
        shape.constraints,
        shape.log_domain,
        shape.inputs,
        shape.aux,
        pct(zeros),
        pct(ones),
        pct(aux.len() - zeros - ones),
        pct(shape.a_aux_count),
        pct(shape.b_aux_count)
    );
}

/// The circuit's recording: read from its cache file, or recorded from the
/// blank circuit and cached.
fn load_or_record(args: &Args) -> Result<cuzk::CompiledCircuit, Box<dyn std::error::Error>> {
    let path = PathBuf::from(format!(".cache/prove_partition-{}-{}.r1cs", args.constraints, args.inputs));
    let t = Instant::now();
    match cuzk::CompiledCircuit::load(&path) {
        Ok(c) => {
            println!("compiled circuit: loaded {} ({:.1} MB) in {:.3?}", path.display(), c.bytes() as f64 / 1e6, t.elapsed());
            return Ok(c);
        }
        Err(cuzk::CompiledFileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => println!("compiled circuit: {} unusable ({e}); recording again", path.display()),
    }
    let recording = spinner("recording the circuit");
    let c = cuzk::CompiledCircuit::record(SyntheticPorep::shape(args.constraints, args.inputs))?;
    recording.finish_and_clear();
    println!(
        "compiled circuit: recorded in {:.3?}: {} rows, {} nonzeros, {} coefficients, {:.1} MB",
        t.elapsed(),
        c.constraints(),
        c.nonzeros(),
        c.coefficients().len(),
        c.bytes() as f64 / 1e6
    );
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    c.save(&tmp)?;
    std::fs::rename(&tmp, &path)?;
    Ok(c)
}

/// The parameter file, opened (its layout and verifying key read and
/// checked; the bases are loaded by the prover), or parameters generated
/// from `compiled` (recorded here if not given) and cached in it.
fn open_or_generate_params(args: &Args, compiled: Option<&cuzk::CompiledCircuit>) -> Result<ParamsSource, Box<dyn std::error::Error>> {
    let path = args.params.clone().unwrap_or_else(|| {
        PathBuf::from(format!(".cache/prove_partition-{}-{}.params", args.constraints, args.inputs))
    });
    if path.exists() {
        let file = ParamsFile::open(&path)?.with_subgroup_check(args.subgroup_check);
        if let Some(digest) = &args.params_digest {
            let t = Instant::now();
            let hashing = spinner(&format!("checking the digest of {}", path.display()));
            file.check_digest(digest)?;
            hashing.finish_and_clear();
            println!("parameters: {} matches digest {digest} ({:.3?})", path.display(), t.elapsed());
        }
        println!("parameters: {} ({:.2} GB, {:?})", path.display(), file.len() as f64 / 1e9, file.lengths());
        return Ok(file.into());
    }
    let t = Instant::now();
    let mut rng = rand::thread_rng();
    let recorded;
    let compiled = match compiled {
        Some(c) => c,
        None => {
            recorded = cuzk::CompiledCircuit::record(SyntheticPorep::shape(args.constraints, args.inputs))?;
            &recorded
        }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let waste = cuzk::parameters::generate::ToxicWaste::random(&mut rng);
    // On the first GPU where there is one (and the CPU backend is not
    // asked for), else on the CPU's cores.
    #[cfg(feature = "cuda")]
    let device = match args.backend {
        BackendArg::Cpu => None,
        _ => cuzk::gpu::discover(&[0]).ok().and_then(|d| d.into_iter().next()),
    };
    #[cfg(feature = "cuda")]
    let generator = match &device {
        Some(device) => cuzk::parameters::generate::Generator::Gpu { device, timeout: Some(Duration::from_secs(300)), piece_points: None },
        None => cuzk::parameters::generate::Generator::Cpu,
    };
    #[cfg(not(feature = "cuda"))]
    let generator = cuzk::parameters::generate::Generator::Cpu;
    let bar = ProgressBar::new(0);
    bar.set_style(ProgressStyle::with_template("generating parameters ({msg}) {bar:30} {percent}% ({elapsed}, {eta} left)").expect("template"));
    bar.set_message(if matches!(generator, cuzk::parameters::generate::Generator::Cpu) { "CPU" } else { "GPU" });
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    cuzk::parameters::generate::generate_parameters_file_with(compiled, &waste, &path, generator, &progress)?;
    bar.finish_and_clear();
    println!("parameters: generated and cached in {} in {:.3?}", path.display(), t.elapsed());
    Ok(ParamsFile::open(&path)?.with_subgroup_check(args.subgroup_check).into())
}
