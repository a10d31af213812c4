//! PoRep C2: C1 outputs in, filecoin-proofs' C2 proof bytes out, checked
//! with filecoin-proofs' `verify_seal` (or, for synthetic sectors and
//! random parameters, with bellperson's verifier per partition).
//!
//! ```text
//! # A C1 output as filecoin-proofs, filecoin-ffi, Curio or lotus-bench wrote it:
//! cargo run --release --features porep --example porep_c2 -- --c1 c1.json --miner-id 1000 --sector-id 7
//! # Synthetic C1 outputs of a full-size sector, random parameters of the real circuit's shape:
//! cargo run --release --features cuda,porep --example porep_c2 -- --synthetic 32GiB --sectors 3 --random-params
//! ```
//! Parameters come from filecoin-proofs' parameter cache
//! (`FIL_PROOFS_PARAMETER_CACHE`) unless `--params` or `--random-params`
//! says otherwise; compiled circuits from `CUZK_CIRCUIT_CACHE` (default
//! `~/.cache/cuzk/circuits`), recorded the first time.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use cuzk::porep::witness::NativeWitness;
use cuzk::porep::{
    compiled_circuit, circuit_cache::default_circuit_cache, parse_sector_size, prover_id_from_miner, registered_proof_for, synthetic::synthetic_c1, C1Output,
    RegisteredSealProof, SealProver, SealProverConfig, SealRequest, SectorIds,
};
use cuzk::{Backend, PhaseTimings, ProverConfig, QueryLengths};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;

/// Makes PoRep C2 proofs from C1 outputs.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// C1 output files (filecoin-proofs' JSON or bincode, filecoin-proofs-api's JSON, or Curio's wrapper).
    #[arg(long, num_args = 1.., required_unless_present = "synthetic")]
    c1: Vec<PathBuf>,
    /// Synthetic C1 outputs of this sector size instead (2KiB, 8MiB, 512MiB, 32GiB, 64GiB).
    #[arg(long, conflicts_with = "c1")]
    synthetic: Option<String>,
    /// Sectors to prove in one pipelined call: synthetic ones with seeds --seed, --seed + 1, …; or the --c1 files over again.
    #[arg(long, default_value_t = 1)]
    sectors: usize,
    /// The sector size of --c1 files that do not name their registered proof (filecoin-proofs' own forms).
    #[arg(long)]
    sector_size: Option<String>,
    /// The miner actor id the sectors were sealed by (the prover id verify_seal needs).
    #[arg(long, default_value_t = 1000)]
    miner_id: u64,
    /// The sector number, where the C1 file does not carry it (Curio's wrapper does).
    #[arg(long, default_value_t = 1)]
    sector_id: u64,
    /// The parameter file (default: filecoin-proofs' parameter cache).
    #[arg(long, conflicts_with = "random_params")]
    params: Option<PathBuf>,
    /// Parameters of random valid points of the circuit's shape, written once under .cache/ (timings only: proofs are not checked).
    #[arg(long)]
    random_params: bool,
    /// Skip filecoin-proofs' verify_seal (synthetic sectors always skip it: their replica ids are random).
    #[arg(long)]
    no_verify_seal: bool,
    /// Where to prove.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Workers (proofs in flight) per GPU.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Partitions whose witnesses are made at once (0: the prover's default; with the native witness, cuzk::porep::NATIVE_SYNTHESIS_THREADS).
    #[arg(long, default_value_t = 0)]
    synthesis_threads: usize,
    /// First synthetic seed, and the seed of r and s.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write each sector's proof bytes to DIR/<sector>.proof.
    #[arg(long)]
    out: Option<PathBuf>,
    /// How partition witnesses are made: natively for the circuits the native witness knows (auto), by witness-only synthesis (general), or both, compared (checked).
    #[arg(long, value_enum, default_value_t = WitnessArg::Auto)]
    witness: WitnessArg,
    /// Write the synthetic C1 outputs to DIR/<sector>.c1.json in Curio's wrapper (timing the read back) and stop.
    #[arg(long, requires = "synthetic")]
    write_c1: Option<PathBuf>,
    /// Make the parameters first with cuzk's generator (a local setup into filecoin-proofs' parameter cache, replacing what is there; toxic waste from --seed, thrown away): for tests and benchmarks, never for mainnet sectors.
    #[arg(long, value_enum, conflicts_with_all = ["params", "random_params"])]
    generate_params: Option<GenerateArg>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum GenerateArg {
    Cpu,
    Gpu,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum WitnessArg {
    Auto,
    General,
    Checked,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BackendArg {
    Auto,
    Cpu,
    Gpu,
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

fn run(args: Args) -> Result<bool, Box<dyn std::error::Error>> {
    let wall = Instant::now();
    let prover_id = prover_id_from_miner(args.miner_id);
    // The requests: parsed C1 files, or synthetic sectors.
    let t = Instant::now();
    let (proof, requests, synthetic) = if let Some(size) = &args.synthetic {
        let proof = registered_proof_for(parse_sector_size(size)?)?;
        let requests = (0..args.sectors as u64)
            .map(|i| Ok(SealRequest { c1: synthetic_c1(proof, args.seed + i)?, ids: SectorIds { prover_id, sector_id: args.sector_id + i } }))
            .collect::<Result<Vec<_>, cuzk::porep::PorepError>>()?;
        println!("{} synthetic {proof:?} C1 output(s) in {:.3?}", requests.len(), t.elapsed());
        if let Some(dir) = &args.write_c1 {
            std::fs::create_dir_all(dir)?;
            for request in &requests {
                let t = Instant::now();
                let bytes = request.c1.to_curio_wrapper(request.ids.sector_id);
                let written = t.elapsed();
                let t = Instant::now();
                let back = C1Output::parse(&bytes, proof)?;
                if back.to_api_json() != request.c1.to_api_json() {
                    return Err("a synthetic C1 output does not read back as written".into());
                }
                let path = dir.join(format!("{}.c1.json", request.ids.sector_id));
                std::fs::write(&path, &bytes)?;
                println!("{}: {:.1} MB in Curio's wrapper, written in {written:.3?}, parsed in {:.3?}", path.display(), bytes.len() as f64 / 1e6, t.elapsed());
            }
            return Ok(true);
        }
        (proof, requests, true)
    } else {
        let files = args.c1.iter().map(|p| std::fs::read(p).map(|b| (p, b))).collect::<Result<Vec<_>, _>>()?;
        let named = C1Output::registered_proof_of(&files[0].1);
        let proof = match (named, &args.sector_size) {
            (Some(p), _) => p,
            (None, Some(size)) => registered_proof_for(parse_sector_size(size)?)?,
            (None, None) => return Err(format!("{} does not name its registered proof: give --sector-size", files[0].0.display()).into()),
        };
        let mut requests = Vec::new();
        for _ in 0..args.sectors {
            for (path, bytes) in &files {
                let t = Instant::now();
                let c1 = C1Output::parse(bytes, proof).map_err(|e| format!("{}: {e}", path.display()))?;
                let sector_id = c1.sector_num.unwrap_or(args.sector_id);
                println!("{}: {:?} as {:?} ({:.1} MB) parsed in {:.3?}", path.display(), proof, c1.form, bytes.len() as f64 / 1e6, t.elapsed());
                requests.push(SealRequest { c1, ids: SectorIds { prover_id, sector_id } });
            }
        }
        (proof, requests, false)
    };

    let backend = match args.backend {
        BackendArg::Auto => Backend::Auto,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::Gpu => Backend::Gpu,
    };
    let t = Instant::now();
    let (compiled, origin) = compiled_circuit(proof, default_circuit_cache().as_deref())?;
    println!("compiled circuit ({origin:?}): {} constraints, {} inputs, {} aux, {:.2} GB, in {:.2?}", compiled.constraints(), compiled.inputs(), compiled.aux(), compiled.bytes() as f64 / 1e9, t.elapsed());
    if let Some(how) = args.generate_params {
        generate_params(proof, &compiled, how, args.seed)?;
    }
    let params_file = match (&args.params, args.random_params) {
        (Some(path), _) => Some(path.clone()),
        (None, true) => Some(random_params(proof, &QueryLengths::for_shape(&compiled.shape()?))?),
        (None, false) => None,
    };
    let checked_by_verify_seal = !(synthetic || args.random_params || args.no_verify_seal);
    let config = SealProverConfig {
        prover: ProverConfig { backend, workers_per_device: args.workers, synthesis_threads: args.synthesis_threads, verify_proofs: Some(!args.random_params), ..Default::default() },
        params_file,
        verify_seal: checked_by_verify_seal,
        native_witness: match args.witness {
            WitnessArg::Auto => NativeWitness::Auto,
            WitnessArg::General => NativeWitness::Off,
            WitnessArg::Checked => NativeWitness::Checked,
        },
        ..Default::default()
    };
    let t = Instant::now();
    let prover = SealProver::with_circuit(proof, compiled, origin, config)?;
    println!(
        "prover: {:?}, {} worker(s), parameters {}, witness {:?}, ready in {:.2?}",
        prover.prover().backend(),
        prover.prover().workers(),
        prover.params_file().display(),
        prover.native_witness(),
        t.elapsed()
    );

    let partitions = usize::from(prover.porep_config().partitions);
    let bar = ProgressBar::new((partitions * requests.len()) as u64);
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} partitions {elapsed_precise} (eta {eta})").expect("template"));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let t = Instant::now();
    let results = prover.prove_sectors(&requests, &mut rng, |_, _, _| bar.inc(1));
    bar.finish_and_clear();
    let proving = t.elapsed();

    let mut all_ok = true;
    let mut partition_times: Vec<PhaseTimings> = Vec::new();
    for (request, result) in requests.iter().zip(&results) {
        let sector = request.ids.sector_id;
        match result {
            Ok(sealed) => {
                let how = if checked_by_verify_seal {
                    format!("verify_seal accepted it in {:.3?}", sealed.verify_seal.unwrap_or_default())
                } else if args.random_params {
                    "random parameters: not checked".to_string()
                } else {
                    "every partition verified with the parameters' verifying key".to_string()
                };
                println!("sector {sector}: {} bytes of proof, circuits built in {:.3?}; {how}", sealed.proof.len(), sealed.circuits);
                for (k, t) in sealed.partitions.iter().enumerate() {
                    println!("  partition {k}: {t}");
                }
                partition_times.extend(sealed.partitions.iter().copied());
                if let Some(dir) = &args.out {
                    std::fs::create_dir_all(dir)?;
                    std::fs::write(dir.join(format!("{sector}.proof")), &sealed.proof)?;
                }
            }
            Err(e) => {
                println!("sector {sector}: FAILED: {e}");
                all_ok = false;
            }
        }
    }
    let mean = |f: fn(&PhaseTimings) -> Duration| {
        partition_times.iter().map(f).sum::<Duration>().as_secs_f64() / partition_times.len().max(1) as f64
    };
    println!(
        "{} sector(s), {} partition(s) in {:.2} s: {:.2} s per sector; per partition (mean): witness {:.3} s, pre-stage {:.3} s, compute (H, MSMs) {:.3} s, verify {:.3} s; peak host memory {:.1} GB; whole run {:.2} s",
        requests.len(),
        partition_times.len(),
        proving.as_secs_f64(),
        proving.as_secs_f64() / requests.len().max(1) as f64,
        mean(|t| t.synthesis),
        mean(|t| t.prestage),
        mean(|t| t.device_compute()),
        mean(|t| t.verify),
        peak_resident_gb().unwrap_or(f64::NAN),
        wall.elapsed().as_secs_f64()
    );
    println!("{}", if all_ok { "all sectors proved" } else { "NOT ALL SECTORS PROVED" });
    Ok(all_ok)
}

/// A parameter file of random valid points with the circuit's query
/// lengths, kept under .cache/ (a 32 GiB partition's is 47 GB).
fn random_params(proof: RegisteredSealProof, lengths: &QueryLengths) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let path = PathBuf::from(format!(".cache/random-{proof:?}.params"));
    if !path.exists() {
        let t = Instant::now();
        std::fs::create_dir_all(".cache")?;
        let tmp = path.with_extension("tmp");
        cuzk::params_file::write_random_params_file(&tmp, lengths, &mut rand::thread_rng())?;
        std::fs::rename(&tmp, &path)?;
        println!("random parameters written to {} in {:.2?}", path.display(), t.elapsed());
    }
    Ok(path)
}

/// A local setup of `proof` from `compiled` on the CPU or the first GPU,
/// with a progress bar.
fn generate_params(proof: RegisteredSealProof, compiled: &cuzk::CompiledCircuit, how: GenerateArg, seed: u64) -> Result<(), Box<dyn std::error::Error>> {
    use cuzk::parameters::generate::Generator;
    let t = Instant::now();
    #[cfg(feature = "cuda")]
    let device = match how {
        GenerateArg::Gpu => Some(cuzk::gpu::discover(&[0])?.into_iter().next().ok_or("no GPU")?),
        GenerateArg::Cpu => None,
    };
    let generator = match how {
        GenerateArg::Cpu => Generator::Cpu,
        #[cfg(feature = "cuda")]
        GenerateArg::Gpu => Generator::Gpu { device: device.as_ref().ok_or("no GPU")?, timeout: Some(Duration::from_secs(300)), piece_points: None },
        #[cfg(not(feature = "cuda"))]
        GenerateArg::Gpu => return Err("--generate-params gpu needs the cuda feature".into()),
    };
    let bar = ProgressBar::new(0);
    bar.set_style(ProgressStyle::with_template("parameters {bar:40} {percent}% {elapsed_precise} (eta {eta})").expect("template"));
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5e7u64);
    let setup = cuzk::porep::local_setup_of(proof, compiled, generator, &progress, &mut rng)?;
    bar.finish_and_clear();
    let bytes = std::fs::metadata(&setup.params)?.len();
    println!("parameters generated ({how:?}): {} ({:.2} GB) and {} in {:.2?}", setup.params.display(), bytes as f64 / 1e9, setup.verifying_key.display(), t.elapsed());
    Ok(())
}

/// The process's peak resident memory (Linux's `VmHWM`), in GB.
fn peak_resident_gb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1e6)
}
