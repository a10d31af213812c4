//! Groth16 parameters for a synthetic PoRep-shaped circuit from cuzk's
//! generator (`cuzk::parameters::generate`), written in bellperson's file
//! format; with `--compare-bellperson`, bellperson's `generate_parameters`
//! for the same toxic waste in the same run, timed, and the two files
//! compared byte for byte.
//!
//! ```text
//! cargo run --release --example generate_params -- --constraints 1048576 --compare-bellperson
//! ```
//! `--how streamed` (the default) writes the file as the points are made
//! by the GPU's kernel bodies on the CPU; `--how host` makes a host
//! `Parameters` with wNAF tables, then writes it; `--how gpu` (feature `cuda`) by
//! the GPU. The toxic waste is drawn from `--seed` and thrown away: a setup
//! for tests and benchmarks, not a trusted one.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bellperson::groth16;
use blstrs::Bls12;
use clap::{Parser, ValueEnum};
use cuzk::parameters::generate::{generate_parameters, generate_parameters_file_with, write_parameters, Generator, ToxicWaste};
use indicatif::{ProgressBar, ProgressStyle};
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
    /// How the points are made.
    #[arg(long, value_enum, default_value_t = How::Streamed)]
    how: How,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum How {
    /// A host Parameters (wNAF tables, rayon), then written.
    Host,
    /// The file written as the points are made, by the GPU's kernel bodies on the CPU.
    Streamed,
    /// The file written as the GPU makes the points (feature cuda).
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
    let waste = ToxicWaste::random(&mut rand_chacha::ChaCha8Rng::seed_from_u64(args.seed));
    let t = Instant::now();
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(args.constraints, args.inputs))?;
    println!("recorded {} constraints ({} nonzeros) in {:.2?}", compiled.constraints(), compiled.nonzeros(), t.elapsed());
    let path = args.out.clone().unwrap_or_else(|| PathBuf::from(format!(".cache/generated-{}-{}.params", args.constraints, args.inputs)));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let t = Instant::now();
    match args.how {
        How::Host => {
            let params = generate_parameters(&compiled, &waste)?;
            println!("cuzk (host Parameters): made in {:.2?} ({} threads)", t.elapsed(), rayon::current_num_threads());
            write_parameters(&params, &path)?;
        }
        How::Streamed => {
            let bar = progress_bar();
            generate_parameters_file_with(&compiled, &waste, &path, Generator::Cpu, &|done, total| {
                bar.set_length(total);
                bar.set_position(done);
            })?;
            bar.finish_and_clear();
        }
        How::Gpu => gpu(&compiled, &waste, &path)?,
    }
    let ours = t.elapsed();
    println!("cuzk ({:?}): {} ({:.1} MB) in {ours:.2?}, written included", args.how, path.display(), std::fs::metadata(&path)?.len() as f64 / 1e6);
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

/// Points written of the file's total (hidden when stderr is not a terminal).
fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(ProgressStyle::with_template("points {bar:40} {percent}% {elapsed_precise} (eta {eta})").expect("template"));
    bar
}

#[cfg(feature = "cuda")]
fn gpu(compiled: &CompiledCircuit, waste: &ToxicWaste, path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let device = cuzk::gpu::discover(&[0])?.into_iter().next().ok_or("no GPU")?;
    let bar = progress_bar();
    let generator = Generator::Gpu { device: &device, timeout: Some(std::time::Duration::from_secs(300)), piece_points: None };
    generate_parameters_file_with(compiled, waste, path, generator, &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    Ok(())
}

#[cfg(not(feature = "cuda"))]
fn gpu(_: &CompiledCircuit, _: &ToxicWaste, _: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    Err("--how gpu needs the cuda feature".into())
}
