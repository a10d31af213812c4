//! Proves synthetic circuits shaped like a Filecoin PoRep C2 partition.
//!
//! ```text
//! cargo run --release --example prove_partition -- [--constraints N] [--inputs N]
//!     [--proofs N] [--workers N] [--backend auto|cpu|gpu] [--params FILE]
//!     [--random-bases] [--compact-ntt-tables] [--compute-sharing auto|serial|interleaved]
//!     [--pinned N]
//! ```
//! A real 32 GiB partition is `--constraints 130278869 --inputs 328`; the
//! default is small enough to finish in seconds on a 2-core CPU. Parameters
//! are random (this is a benchmark, not a trusted setup) and cached in a file,
//! so a second run with the same shape skips generating them.
//!
//! `--random-bases` skips the setup (hours at full size) and uses random
//! points of the right sizes instead (`cuzk::synthetic::random_parameters`):
//! the prover does all the same work, but the proofs cannot verify, so they
//! are reported as unverified rather than checked.
//!
//! `--compact-ntt-tables` leaves out the NTT's row twiddle tables (8 GiB
//! per GPU at a 32 GiB partition's 2^27 domain, 11% of the H step):
//! room for a third worker on an H200.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bellperson::groth16::{self, Parameters};
use blstrs::{Bls12, Scalar};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, Prover, ProverConfig};
use ff::Field;

struct Args {
    constraints: usize,
    inputs: usize,
    proofs: usize,
    workers: usize,
    compact_ntt_tables: bool,
    backend: Backend,
    params: Option<PathBuf>,
    random_bases: bool,
    compute_sharing: cuzk::ComputeSharing,
    pinned: Option<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { constraints: 16_000, inputs: 328, proofs: 2, workers: 2, backend: Backend::Auto, params: None, random_bases: false, compact_ntt_tables: false, compute_sharing: cuzk::ComputeSharing::Auto, pinned: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.replace('_', "").parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--constraints" => args.constraints = number(value()?)?,
            "--inputs" => args.inputs = number(value()?)?,
            "--proofs" => args.proofs = number(value()?)?,
            "--workers" => args.workers = number(value()?)?,
            "--backend" => {
                args.backend = match value()?.as_str() {
                    "auto" => Backend::Auto,
                    "cpu" => Backend::Cpu,
                    "gpu" => Backend::Gpu,
                    other => return Err(format!("--backend {other}: expected auto, cpu or gpu")),
                }
            }
            "--params" => args.params = Some(value()?.into()),
            "--compute-sharing" => {
                args.compute_sharing = match value()?.as_str() {
                    "auto" => cuzk::ComputeSharing::Auto,
                    "serial" => cuzk::ComputeSharing::Serial,
                    "interleaved" => cuzk::ComputeSharing::Interleaved,
                    other => return Err(format!("--compute-sharing {other}: expected auto, serial or interleaved")),
                }
            }
            "--pinned" => args.pinned = Some(number(value()?)?),
            "--random-bases" => args.random_bases = true,
            "--compact-ntt-tables" => args.compact_ntt_tables = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if args.constraints < 2 {
        return Err("--constraints must be at least 2".into());
    }
    Ok(args)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}\nusage: prove_partition [--constraints N] [--inputs N] [--proofs N] [--workers N] [--backend auto|cpu|gpu] [--params FILE] [--random-bases] [--compact-ntt-tables] [--compute-sharing auto|serial|interleaved] [--pinned N]");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<bool, Box<dyn std::error::Error>> {
    let circuits: Vec<_> = (0..args.proofs).map(|i| SyntheticPorep::with_witness(args.constraints, args.inputs, 1000 + i as u64)).collect();
    // Proof 0's synthesis, reused for its per-phase timing below (minutes
    // at full size, so it runs once).
    let t = Instant::now();
    let first = cuzk::synthesize(circuits[0].clone())?;
    let synth = t.elapsed();
    let shape = report_witness(&first)?;
    let params = if args.random_bases {
        let t = Instant::now();
        let params = cuzk::synthetic::random_parameters(&shape, 7);
        println!("parameters: random bases (proofs will not verify), made in {:.3?}", t.elapsed());
        params
    } else {
        load_or_generate_params(&args)?
    };
    let t = Instant::now();
    let prover = Prover::new(params.clone(), ProverConfig {
            backend: args.backend,
            workers_per_device: args.workers,
            ntt_row_twiddles: !args.compact_ntt_tables,
            compute_sharing: args.compute_sharing,
            pinned_witnesses: args.pinned,
            // Random bases make proofs that cannot verify; real ones are
            // checked by the prover (on the GPU by default) and again below.
            verify_proofs: if args.random_bases { Some(false) } else { None },
            ..Default::default()
        })?;
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
    let staged = prover.prestage(cuzk::ProofJob::new(first, &mut rng))?;
    let (proof, timings) = prover.compute_timed(staged)?;
    println!("proof 0: synthesis {synth:.3?}, {timings}");
    let pvk = groth16::prepare_verifying_key(&params.vk);
    let mut all_ok = verify(&proof, &circuits[0], &pvk)?;

    // …then the whole batch pipelined over the workers.
    let t = Instant::now();
    let results = prover.prove_batch(circuits.clone(), &mut rng);
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
    Ok(all_ok)
}

fn report_witness(asg: &cuzk::Assignment) -> Result<cuzk::ProofShape, Box<dyn std::error::Error>> {
    let shape = cuzk::ProofShape::of(asg)?;
    let zeros = asg.aux.iter().filter(|v| v.is_zero_vartime()).count();
    let ones = asg.aux.iter().filter(|v| **v == Scalar::ONE).count();
    let pct = |k: usize| 100.0 * k as f64 / asg.aux.len().max(1) as f64;
    println!(
        "circuit: {} constraints (domain 2^{}), {} inputs, {} aux: {:.1}% zeros, {:.1}% ones, {:.1}% other; A-aux density {:.1}%, B-aux density {:.1}%",
        shape.constraints,
        shape.log_domain,
        shape.inputs,
        shape.aux,
        pct(zeros),
        pct(ones),
        pct(asg.aux.len() - zeros - ones),
        pct(shape.a_aux_count),
        pct(shape.b_aux_count)
    );
    Ok(shape)
}

fn load_or_generate_params(args: &Args) -> Result<Parameters<Bls12>, Box<dyn std::error::Error>> {
    let path = args.params.clone().unwrap_or_else(|| {
        PathBuf::from(format!(".cache/prove_partition-{}-{}.params", args.constraints, args.inputs))
    });
    if let Ok(file) = File::open(&path) {
        let t = Instant::now();
        // Unchecked: the file is ours; a checked read costs a subgroup check per point.
        let params = Parameters::read(BufReader::new(file), false)?;
        println!("parameters: read {} in {:.3?}", path.display(), t.elapsed());
        return Ok(params);
    }
    let t = Instant::now();
    let mut rng = rand::thread_rng();
    let params = groth16::generate_random_parameters::<Bls12, _, _>(SyntheticPorep::shape(args.constraints, args.inputs), &mut rng)?;
    println!("parameters: generated in {:.3?}", t.elapsed());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    params.write(BufWriter::new(File::create(&tmp)?))?;
    std::fs::rename(&tmp, &path)?;
    println!("parameters: cached in {}", path.display());
    Ok(params)
}
