//! Proves real Filecoin PoRep partitions: seals a small sector with the
//! public storage-proofs crates (CPU), builds each partition's
//! `StackedCircuit`, generates parameters for it (a random setup, cached),
//! records the circuit once, and proves every partition through the
//! compiled circuit (witness-only synthesis; a, b, c from the recording),
//! checking each proof with bellperson's verifier.
//!
//! ```text
//! cargo run --release --features porep --example prove_porep -- --help
//! ```
//! The sector shapes are Filecoin's 2 KiB and 8 MiB ones (one base tree of
//! arity 8, two layers); the number of partitions and of challenges per
//! partition are flags (a 2 KiB sector has 2 challenges in one partition
//! on the network; a 32 GiB one 18 per partition in 10). Per partition it
//! prints full synthesis against witness-only synthesis, and the proof's
//! phases. The parameter setup takes minutes (cached in `.cache/`).

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bellperson::groth16::{self, Parameters};
use blstrs::{Bls12, Scalar as Fr};
use clap::{Parser, ValueEnum};
use cuzk::{Backend, CompiledCircuit, Prover, ProverConfig};
use ff::Field;
use filecoin_hashers::{poseidon::PoseidonHasher, sha256::Sha256Hasher, Hasher};
use generic_array::typenum::{U0, U8};
use rand::{Rng, SeedableRng};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::drgraph::BASE_DEGREE;
use storage_proofs_core::merkle::LCTree;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_core::test_helper::setup_replica;
use storage_proofs_porep::stacked::{
    Challenges, PrivateInputs, PublicInputs, SetupParams, StackedCircuit, StackedCompound, StackedDrg, TemporaryAuxCache, EXP_DEGREE,
};

/// The tree of Filecoin's 2 KiB and 8 MiB sectors: one base tree of arity 8.
type Tree = LCTree<PoseidonHasher, U8, U0, U0>;
type Circuit = StackedCircuit<Tree, Sha256Hasher>;

/// Seals a small sector and proves its PoRep partitions.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Sector shape.
    #[arg(long, value_enum, default_value_t = Sector::Kib2)]
    sector: Sector,
    /// Partitions (each its own circuit and proof).
    #[arg(long, default_value_t = 2)]
    partitions: usize,
    /// Challenges per partition (the circuit grows with them: about 1.2 M
    /// constraints each).
    #[arg(long, default_value_t = 1)]
    challenges: usize,
    /// Where to prove.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Workers (proofs in flight) per GPU.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Also prove each partition with bellperson's `create_proof` for the
    /// same r, s and require the same bytes.
    #[arg(long)]
    compare_bellperson: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Sector {
    #[value(name = "2KiB")]
    Kib2,
    #[value(name = "8MiB")]
    Mib8,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BackendArg {
    Auto,
    Cpu,
    Gpu,
}

impl Sector {
    fn bytes(self) -> usize {
        match self {
            Sector::Kib2 => 2 << 10,
            Sector::Mib8 => 8 << 20,
        }
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A sealed sector's partition circuits, their public inputs, and the
/// blank circuit (for the setup and the recording).
struct Sealed {
    circuits: Vec<(Circuit, Vec<Fr>)>,
    blank: Circuit,
}

fn seal(args: &Args) -> Result<Sealed, Box<dyn std::error::Error>> {
    let nodes = args.sector.bytes() / 32;
    let setup = SetupParams {
        nodes,
        degree: BASE_DEGREE,
        expansion_degree: EXP_DEGREE,
        porep_id: [7; 32],
        challenges: Challenges::new_interactive(args.challenges),
        num_layers: 2,
        api_version: ApiVersion::V1_2_0,
        api_features: vec![],
    };
    let pp = StackedDrg::<Tree, Sha256Hasher>::setup(&setup)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::random());
    let replica_id = Fr::random(&mut rng);
    let data: Vec<u8> = (0..nodes).flat_map(|_| fr32::fr_into_bytes(&Fr::random(&mut rng))).collect();
    let dir = tempfile::tempdir()?;
    let replica_path = dir.path().join("replica");
    let mut replica = setup_replica(&data, &replica_path);
    let (labels, _) = StackedDrg::<Tree, Sha256Hasher>::replicate_phase1(&pp, &replica_id.into(), dir.path())?;
    let (tau, (p_aux, t_aux)) =
        StackedDrg::<Tree, Sha256Hasher>::replicate_phase2(&pp, labels, replica.as_mut().into(), None, dir.path().to_path_buf(), replica_path.clone())?;
    drop(replica);
    let public = PublicInputs::<<PoseidonHasher as Hasher>::Domain, <Sha256Hasher as Hasher>::Domain> {
        replica_id: replica_id.into(),
        seed: Some(rng.gen()),
        tau: Some(tau),
        k: None,
    };
    let t_aux = TemporaryAuxCache::<Tree, Sha256Hasher>::new(&t_aux, replica_path, false)?;
    let private = PrivateInputs::<Tree, Sha256Hasher> { p_aux, t_aux };
    let vanilla = StackedDrg::<Tree, Sha256Hasher>::prove_all_partitions(&pp, &public, &private, args.partitions)?;
    if !StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(&pp, &public, &vanilla)? {
        return Err("the vanilla proofs do not verify".into());
    }
    let circuits = vanilla
        .iter()
        .enumerate()
        .map(|(k, proof)| {
            let circuit = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<_, _>>::circuit(&public, (), proof, &pp, Some(k))?;
            let inputs = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<_, _>>::generate_public_inputs(&public, &pp, Some(k))?;
            Ok((circuit, inputs))
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    let blank = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<_, _>>::blank_circuit(&pp);
    Ok(Sealed { circuits, blank })
}

fn run(args: Args) -> Result<bool, Box<dyn std::error::Error>> {
    // The storage-proofs crates keep a parents cache (by default in
    // /var/tmp); one of our own, unless the caller chose one.
    let cache = PathBuf::from(".cache/filecoin-parents");
    if std::env::var_os("FIL_PROOFS_PARENT_CACHE").is_none() {
        std::fs::create_dir_all(&cache)?;
        std::env::set_var("FIL_PROOFS_PARENT_CACHE", &cache);
    }
    let t = Instant::now();
    let sealed = seal(&args)?;
    println!("sealed a {:?} sector: {} partition(s) of {} challenge(s) in {:.3?}", args.sector, sealed.circuits.len(), args.challenges, t.elapsed());

    let t = Instant::now();
    let compiled = CompiledCircuit::record(sealed.blank.clone())?;
    println!(
        "recorded: {} constraints, {} inputs, {} aux, {} nonzeros, {} coefficients, {:.1} MB, in {:.3?}",
        compiled.constraints(),
        compiled.inputs(),
        compiled.aux(),
        compiled.nonzeros(),
        compiled.coefficients().len(),
        compiled.bytes() as f64 / 1e6,
        t.elapsed()
    );
    let params = load_or_generate_params(&args, sealed.blank.clone())?;

    let backend = match args.backend {
        BackendArg::Auto => Backend::Auto,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::Gpu => Backend::Gpu,
    };
    let t = Instant::now();
    let prover = Prover::with_compiled(params.clone(), compiled, ProverConfig { backend, workers_per_device: args.workers, ..Default::default() })?;
    println!("prover: {:?}, {} worker(s), ready in {:.3?}", prover.backend(), prover.workers(), t.elapsed());
    let pvk = groth16::prepare_verifying_key(&params.vk);
    let mut rng = rand::thread_rng();
    let mut all_ok = true;
    for (k, (circuit, inputs)) in sealed.circuits.iter().enumerate() {
        let t = Instant::now();
        let full = cuzk::synthesize(circuit.clone())?;
        let full_time = t.elapsed();
        let t = Instant::now();
        let job = prover.job(circuit.clone(), &mut rng)?;
        let witness_time = t.elapsed();
        if (&job.assignment().input, &job.assignment().aux) != (&full.input, &full.aux) {
            return Err(format!("partition {k}: witness-only synthesis differs from full synthesis").into());
        }
        let (r, s) = (job.r, job.s);
        let (proof, timings) = prover.compute_timed(prover.prestage(job)?)?;
        let verified = groth16::verify_proof(&pvk, &proof, inputs)?;
        println!(
            "partition {k}: {} constraints; synthesis: full {full_time:.3?}, witness only {witness_time:.3?} ({:.1}x); proof: {timings}; verifies: {verified}",
            full.num_constraints(),
            full_time.as_secs_f64() / witness_time.as_secs_f64()
        );
        all_ok &= verified;
        if args.compare_bellperson {
            let t = Instant::now();
            let theirs = groth16::create_proof(circuit.clone(), &params, r, s)?;
            let same = theirs == proof;
            println!("partition {k}: bellperson's proof for the same r, s in {:.3?}: {}", t.elapsed(), if same { "identical" } else { "DIFFERENT" });
            all_ok &= same;
        }
    }
    println!("{}", if all_ok { "all partitions proved and verified" } else { "NOT ALL PARTITIONS VERIFIED" });
    Ok(all_ok)
}

/// The setup's parameters, cached by sector shape and challenge count
/// (what the circuit's structure depends on).
fn load_or_generate_params(args: &Args, blank: Circuit) -> Result<Parameters<Bls12>, Box<dyn std::error::Error>> {
    let path = PathBuf::from(format!(".cache/porep-{:?}-{}.params", args.sector, args.challenges));
    if let Ok(file) = File::open(&path) {
        let t = Instant::now();
        let params = Parameters::read(BufReader::new(file), false)?;
        println!("parameters: read {} in {:.3?}", path.display(), t.elapsed());
        return Ok(params);
    }
    let t = Instant::now();
    let params = groth16::generate_random_parameters::<Bls12, _, _>(blank, &mut rand::thread_rng())?;
    println!("parameters: generated (random setup) in {:.3?}", t.elapsed());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    params.write(BufWriter::new(File::create(&tmp)?))?;
    std::fs::rename(&tmp, &path)?;
    Ok(params)
}
