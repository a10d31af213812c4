//! Groth16 parameters for a synthetic PoRep-shaped circuit from cuzk's
//! generator (`cuzk::parameters::generate`), written in bellperson's file
//! format; with `--compare-bellperson`, bellperson's `generate_parameters`
//! for the same toxic waste in the same run, timed, and the two files
//! compared byte for byte.
//!
//! ```text
//! cargo run --release --example generate_params -- --constraints 1048576 --compare-bellperson
//! ```
//! The toxic waste is drawn from `--seed` and thrown away: a setup for
//! tests and benchmarks, not a trusted one.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bellperson::groth16;
use blstrs::Bls12;
use clap::Parser;
use cuzk::parameters::generate::{generate_parameters, write_parameters, ToxicWaste};
use cuzk::synthetic::SyntheticPorep;
use cuzk::CompiledCircuit;
use rand::SeedableRng;

/// Makes Groth16 parameters for a synthetic circuit and writes them.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Constraints of the synthetic circuit (a 32 GiB partition: 130278869).
    #[arg(long, default_value_t = 1 << 16)]
    constraints: usize,
    /// Public inputs besides ONE.
    #[arg(long, default_value_t = 328)]
    inputs: usize,
    /// Seed of the toxic waste.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the file (default: .cache/generated-<constraints>-<inputs>.params).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also bellperson's generate_parameters with the same toxic waste: timed, files compared.
    #[arg(long)]
    compare_bellperson: bool,
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
    let waste = ToxicWaste::random(&mut rand_chacha::ChaCha8Rng::seed_from_u64(args.seed));
    let t = Instant::now();
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(args.constraints, args.inputs))?;
    println!("recorded {} constraints ({} nonzeros) in {:.2?}", compiled.constraints(), compiled.nonzeros(), t.elapsed());
    let t = Instant::now();
    let params = generate_parameters(&compiled, &waste)?;
    let ours = t.elapsed();
    println!("cuzk: parameters in {ours:.2?} ({} threads)", rayon::current_num_threads());
    let path = args.out.clone().unwrap_or_else(|| PathBuf::from(format!(".cache/generated-{}-{}.params", args.constraints, args.inputs)));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let t = Instant::now();
    write_parameters(&params, &path)?;
    println!("written to {} ({:.1} MB) in {:.2?}", path.display(), std::fs::metadata(&path)?.len() as f64 / 1e6, t.elapsed());
    if !args.compare_bellperson {
        return Ok(true);
    }
    let t = Instant::now();
    let theirs = groth16::generate_parameters::<Bls12, _>(SyntheticPorep::shape(args.constraints, args.inputs), waste.g1, waste.g2, waste.alpha, waste.beta, waste.gamma, waste.delta, waste.tau)?;
    let bellperson = t.elapsed();
    let mut bytes = Vec::new();
    theirs.write(&mut bytes)?;
    let same = bytes == std::fs::read(&path)?;
    println!(
        "bellperson: parameters in {bellperson:.2?}: cuzk {:.2}x faster; files {}",
        bellperson.as_secs_f64() / ours.as_secs_f64(),
        if same { "byte-identical" } else { "DIFFER" }
    );
    Ok(same)
}
