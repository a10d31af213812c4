//! bellperson's own CUDA prover (its ec-gpu-gen kernels: what
//! filecoin-proofs proves with when built with `cuda` rather than
//! `cuda-supraseal`) and cuzk on one GPU, on one circuit of a 32 GiB PoRep
//! partition's shape: the synthetic PoRep circuit (`cuzk::synthetic::
//! SyntheticPorep`, 130,279,198 constraints, domain 2^27) with one
//! parameter file of random points in bellperson's format. bellperson
//! maps the file as filecoin-proofs does (`build_mapped_parameters`,
//! unchecked) and synthesizes the circuit itself; cuzk proves the same
//! circuit through its compiled form (recorded once, witness-only
//! synthesis) with the same r and s, and the two proofs must be
//! bit-identical. Random bases: the proofs are timed and compared, not
//! verified. Built with the `bellperson-cuda` feature
//! (`scripts/peers-bundle.sh`); `BELLMAN_NO_GPU=1` runs bellperson on the
//! CPU instead.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bellperson::groth16;
use blstrs::Bls12;
use clap::Parser;
use cuzk::synthetic::SyntheticPorep;
use cuzk::{random_r_s, Backend, CompiledCircuit, ParamsFile, Prover, ProverConfig};
use rand::SeedableRng;

use cuzk_peers::peak_memory::peak_resident_gb;

/// bellperson's CUDA prover against cuzk on one partition-shaped circuit.
#[derive(Parser)]
struct Args {
    /// Constraints of the synthetic circuit besides the inputs' (a 32 GiB
    /// partition's by default).
    #[arg(long, default_value_t = 130_278_869)]
    constraints: usize,
    /// Public inputs besides ONE.
    #[arg(long, default_value_t = 328)]
    inputs: usize,
    /// The parameter file (bellperson's format); written with random points
    /// of the circuit's shape when it does not exist.
    #[arg(long)]
    params: PathBuf,
    /// The witness's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    let t = Instant::now();
    let compiled = match CompiledCircuit::record(SyntheticPorep::shape(args.constraints, args.inputs)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: recording the circuit: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shape = match compiled.shape() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: the circuit's shape: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("circuit recorded in {:.1?}: {shape:?}", t.elapsed());
    if let Err(e) = cuzk_peers::random_params::write_if_missing(&args.params, &shape) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let (r, s) = random_r_s(&mut rng);

    let t = Instant::now();
    let mapped = match groth16::Parameters::<Bls12>::build_mapped_parameters(args.params.clone(), false) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: bellperson could not map {}: {e}", args.params.display());
            return ExitCode::FAILURE;
        }
    };
    println!("bellperson: parameters mapped in {:.2?}", t.elapsed());
    let t = Instant::now();
    let theirs = match groth16::create_proof(SyntheticPorep::with_witness(args.constraints, args.inputs, args.seed), &mapped, r, s) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: bellperson's proof: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "bellperson ({}): synthesis and proof {:.2?} (its log has the phases); host memory peak so far {:.1} GB",
        if std::env::var_os("BELLMAN_NO_GPU").is_some() { "CPU" } else { "CUDA" },
        t.elapsed(),
        peak_resident_gb()
    );
    drop(mapped);

    let config = ProverConfig { backend: Backend::Gpu, workers_per_device: 1, devices: vec![0], verify_proofs: Some(false), ..Default::default() };
    let t = Instant::now();
    let prover = match ParamsFile::open(&args.params).map_err(cuzk::ProverError::from).and_then(|file| Prover::with_compiled(file, compiled, config)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cuzk's prover: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("cuzk: prover ready in {:.2?} (bases read from the file, uploaded and checked)", t.elapsed());
    let mut same = false;
    for k in 0..2 {
        let rs = if k == 0 { (r, s) } else { random_r_s(&mut rng) };
        let t = Instant::now();
        let ours = prover.prove_batch_with(vec![SyntheticPorep::with_witness(args.constraints, args.inputs, args.seed)], vec![rs]).pop().expect("one result");
        let ours = match ours {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: cuzk's proof: {e}");
                return ExitCode::FAILURE;
            }
        };
        println!("cuzk proof #{k}: witness-only synthesis and proof {:.3?}", t.elapsed());
        if k == 0 {
            same = ours == theirs;
        }
    }
    println!("cuzk's proof and bellperson's for the same r, s: {}", if same { "bit-identical" } else { "DIFFERENT" });
    println!("host memory peak {:.1} GB", peak_resident_gb());
    if same {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
