//! SupraSeal C2 and cuzk side by side on one GPU, on the same proof: a
//! 32 GiB PoRep partition's shape (`cuzk::synthetic::random_assignment`,
//! a real partition's witness statistics, the same one
//! `bench-gpu_partition` proves) with one parameter file of random points
//! in bellperson's format, read by each prover its own way. SupraSeal's
//! time is its whole Groth16 call (what bellperson's `cuda-supraseal`
//! prover times after synthesis), one circuit alone and several per call;
//! cuzk's first proof uses the same r and s, and the two proofs are
//! compared bit for bit. Random bases: the proofs are timed and compared,
//! not verified. Steady-state figures of cuzk: `bench-gpu_partition
//! --params-file` on the same file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use cuzk::synthetic::{random_assignment, WitnessStats};
use cuzk::{random_r_s, Backend, ParamsFile, ProofShape, Prover, ProverConfig};
use rand::SeedableRng;

use cuzk_peers::peak_memory::peak_resident_gb;
use cuzk_peers::supraseal::SupraSeal;

/// SupraSeal C2 against cuzk on the same partition-shaped proof.
#[derive(Parser)]
struct Args {
    /// Constraints, per-input ones included (a 32 GiB partition's by default).
    #[arg(long, default_value_t = 130_278_869)]
    constraints: usize,
    /// Public inputs besides ONE.
    #[arg(long, default_value_t = 328)]
    inputs: usize,
    /// Aux variables.
    #[arg(long, default_value_t = 130_169_893)]
    aux: usize,
    /// The parameter file (bellperson's format); written with random points
    /// of the shape when it does not exist.
    #[arg(long)]
    params: PathBuf,
    /// SupraSeal proofs of one circuit per call, one after another.
    #[arg(long, default_value_t = 3)]
    proofs: usize,
    /// Circuits per SupraSeal call for the batched figures.
    #[arg(long, value_delimiter = ',', default_value = "2")]
    batch: Vec<usize>,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args = Args::parse();
    let t = Instant::now();
    let assignment = random_assignment(args.constraints, args.inputs, args.aux, WitnessStats::POREP_32G, 1);
    let shape = ProofShape::of(&assignment).expect("the assignment's shape");
    println!("assignment: {shape:?}, made in {:.1?}", t.elapsed());
    if let Err(e) = cuzk_peers::random_params::write_if_missing(&args.params, &shape) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }

    // The r, s of SupraSeal's first proof and of cuzk's.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let first = random_r_s(&mut rng.clone());

    let (supra, load) = match SupraSeal::load(&args.params) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: SupraSeal could not load {}: {e}", args.params.display());
            return ExitCode::FAILURE;
        }
    };
    println!("SupraSeal: SRS loaded in {load:.2?} (host memory peak so far {:.1} GB)", peak_resident_gb());
    let mut supra_first = None;
    for k in 0..args.proofs.max(1) {
        let rs = if k == 0 { first } else { random_r_s(&mut rand::thread_rng()) };
        let t = Instant::now();
        let proof = supra.prove(&assignment, &[rs]).pop().expect("one proof");
        println!("SupraSeal proof alone #{k}: {:.3?}", t.elapsed());
        supra_first.get_or_insert(proof);
    }
    for &n in &args.batch {
        let randomness: Vec<_> = (0..n).map(|_| random_r_s(&mut rand::thread_rng())).collect();
        let t = Instant::now();
        let proofs = supra.prove(&assignment, &randomness);
        let took = t.elapsed();
        println!("SupraSeal {n} circuits in one call: {took:.3?}, {:.3?} per proof ({} proofs)", took / n as u32, proofs.len());
    }
    println!("SupraSeal: host memory peak {:.1} GB", peak_resident_gb());
    drop(supra);

    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 1,
        devices: vec![0],
        check_satisfied: false,
        // Random bases: the proofs cannot verify.
        verify_proofs: Some(false),
        ..Default::default()
    };
    let t = Instant::now();
    let prover = match ParamsFile::open(&args.params).map_err(cuzk::ProverError::from).and_then(|file| Prover::new(file, config)) {
        Ok(prover) => prover,
        Err(e) => {
            eprintln!("error: cuzk's prover: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("cuzk: prover ready in {:.2?} (bases read from the file, uploaded and checked)", t.elapsed());
    let mut same = false;
    for k in 0..2 {
        let job = prover.job_from_assignment(&assignment, &mut rng);
        let t = Instant::now();
        let (proof, timings) = prover.prestage(job).and_then(|staged| prover.compute_timed(staged)).expect("cuzk's proof");
        println!("cuzk proof alone #{k}: {timings} (wall {:.3?})", t.elapsed());
        if k == 0 {
            let supra = supra_first.as_ref().expect("SupraSeal's first proof");
            same = proof.a == supra.a && proof.b == supra.b && proof.c == supra.c;
        }
    }
    println!("cuzk's proof and SupraSeal's for the same r, s: {}", if same { "bit-identical" } else { "DIFFERENT" });
    println!("host memory peak {:.1} GB", peak_resident_gb());
    if same {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
