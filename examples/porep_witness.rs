//! A PoRep partition's witness two ways: natively (`cuzk::porep::witness`,
//! on every core the process may use: `taskset -c 0` for one) and by
//! witness-only synthesis of storage-proofs' circuit (one core, as each
//! partition was synthesized before), compared value by value; and the
//! floor, writing as many values on every core.
//!
//! ```text
//! cargo run --release --features porep --example porep_witness -- --sector-size 8MiB --compare
//! # A full-size partition, and the digest of its compiled circuit (recorded once into the cache):
//! cargo run --release --features porep --example porep_witness -- --sector-size 32GiB --compare --digest
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use cuzk::porep::witness::{first_difference, recognizes, NativeWitness};
use cuzk::porep::{circuit_cache::default_circuit_cache, compiled_circuit, parse_sector_size, registered_proof_for, sector_circuits_with, synthetic::synthetic_c1};
use cuzk::synthesize_witness;

/// Times a PoRep partition's native witness against witness-only synthesis.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB): a synthetic C1 output of it.
    #[arg(long, default_value = "2KiB")]
    sector_size: String,
    /// The synthetic sector's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Which partition.
    #[arg(long, default_value_t = 0)]
    partition: usize,
    /// Native runs on all cores (best of this many).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Also witness-only synthesis (one core), compared value by value.
    #[arg(long)]
    compare: bool,
    /// Also the compiled circuit's digest (recorded into the circuit cache if missing) and whether it is recognized.
    #[arg(long)]
    digest: bool,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<bool, Box<dyn std::error::Error>> {
    let proof = registered_proof_for(parse_sector_size(&args.sector_size)?)?;
    let config = proof.as_v1_config();
    let t = Instant::now();
    let c1 = synthetic_c1(proof, args.seed)?;
    println!("{proof:?}: synthetic C1 output (seed {}) in {:.2?}", args.seed, t.elapsed());
    let circuit = |native| -> Result<_, Box<dyn std::error::Error>> {
        let t = Instant::now();
        let mut circuits = sector_circuits_with(&c1.phase1, &config, native)?.circuits;
        if args.partition >= circuits.len() {
            return Err(format!("partition {} of {}", args.partition, circuits.len()).into());
        }
        let c = circuits.swap_remove(args.partition);
        Ok((c, t.elapsed()))
    };

    let threads = rayon::current_num_threads();
    let mut best = Duration::MAX;
    let mut native = None;
    for _ in 0..args.runs.max(1) {
        let (c, built) = circuit(NativeWitness::Auto)?;
        let t = Instant::now();
        let w = synthesize_witness(c)?;
        best = best.min(t.elapsed());
        println!("native witness, {threads} threads: {:.3?} (circuit and native inputs built in {built:.2?})", t.elapsed());
        native = Some(w);
    }
    let (input, mut aux) = native.expect("a run");
    // The floor: writing as many values into the same (already mapped)
    // memory on every core, nothing computed.
    let t = Instant::now();
    {
        use rayon::prelude::*;
        aux.par_chunks_mut(1 << 16).for_each(|c| c.fill(ff::Field::ONE));
    }
    let floor = t.elapsed();
    let (_, aux) = {
        let (c, _) = circuit(NativeWitness::Auto)?;
        let t = Instant::now();
        let w = synthesize_witness(c)?;
        println!("native witness, {threads} threads, again: {:.3?}", t.elapsed());
        w
    };
    println!("the floor, writing {} values on {threads} threads: {floor:.3?} ({:.1} GB/s)", aux.len(), aux.len() as f64 * 32.0 / floor.as_secs_f64() / 1e9);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let compressions = compressions(&config);
    println!("partition {}: {} inputs, {} aux values ({:.2} GB); {compressions} SHA-256 compressions", args.partition, input.len(), aux.len(), aux.len() as f64 * 32e-9);
    println!(
        "native: {:.3?} on {threads} threads ({:.0} M aux values/s, {:.0} SHA-256 compressions/s; one core: run under `taskset -c 0`)",
        best,
        aux.len() as f64 / best.as_secs_f64() / 1e6,
        compressions as f64 / best.as_secs_f64()
    );

    let mut same = true;
    if args.compare {
        let (c, _) = circuit(NativeWitness::Off)?;
        let t = Instant::now();
        let (gi, ga) = one.install(|| synthesize_witness(c))?;
        let general = t.elapsed();
        println!("witness-only synthesis, 1 thread: {general:.3?}: {:.1}x the native witness on {threads} threads", general.as_secs_f64() / best.as_secs_f64());
        match first_difference((&input, &aux), (&gi, &ga)) {
            None => println!("identical: {} inputs and {} aux values", gi.len(), ga.len()),
            Some(m) => {
                println!("DIFFERENT: {m}");
                same = false;
            }
        }
    }
    if args.digest {
        let t = Instant::now();
        let (compiled, origin) = compiled_circuit(proof, default_circuit_cache().as_deref())?;
        let digest = compiled.digest();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        println!("compiled circuit ({origin:?}, {:.1?}): digest {hex}, recognized: {:?}", t.elapsed(), recognizes(&digest));
    }
    Ok(same)
}

/// SHA-256 compressions in one partition: 20 per label, two per tree_d level.
fn compressions(config: &filecoin_proofs::PoRepConfig) -> usize {
    let bytes = u64::from(config.sector_size);
    let nodes = bytes as usize / 32;
    let challenges = config.minimum_challenges().div_ceil(usize::from(config.partitions));
    let layers = filecoin_proofs::constants::LAYERS.read().expect("layers").get(&bytes).copied().unwrap_or(11);
    challenges * (layers * 20 + 2 * nodes.trailing_zeros() as usize)
}
