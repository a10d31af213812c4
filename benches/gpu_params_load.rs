//! Groth16 parameters from a parameter file (bellperson's format) to a GPU
//! prover ready to prove, at the size of a 32 GiB PoRep partition by
//! default: 130,278,869 constraints (H: 2^27 − 1 bases), 328 inputs,
//! 130,169,893 aux (L), A-aux density 99.7%, B-aux 25.4%: a 47 GB file.
//!
//! Usage: `bench-gpu_params_load [--constraints N] [--aux N] [--inputs N]
//! [--file PATH] [--subgroup] [--cold] [--bellperson] [--keep]`.
//! Writes the file from random valid points if it is missing
//! (`cuzk::params_file::write_random_params_file`, timed), reads it once
//! so it is in the page cache, then times `ParamsFile::open` +
//! `Prover::new` (one worker, no pinned witness buffers: the prover's own
//! host memory) and reports the process's resident memory after loading.
//! `--subgroup` times a second load with the subgroup check of every base
//! on the GPU; `--cold` a load after the file was evicted from the page
//! cache (disk-bound); `--bellperson` times bellperson's unchecked
//! `Parameters::read` of the same file (single-threaded: minutes at full
//! size). The file is removed at the end unless `--keep`. Without a GPU it
//! prints why and exits 0.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

use cuzk::{Backend, ParamsFile, ProofShape, Prover, ProverConfig, QueryLengths};

struct Args {
    constraints: usize,
    aux: usize,
    inputs: usize,
    file: PathBuf,
    subgroup: bool,
    cold: bool,
    bellperson: bool,
    keep: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        constraints: 130_278_869,
        aux: 130_169_893,
        inputs: 329,
        file: std::env::temp_dir().join("cuzk-bench.params"),
        subgroup: false,
        cold: false,
        bellperson: false,
        keep: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        let number = |v: String| v.replace('_', "").parse::<usize>().unwrap_or_else(|e| panic!("{v}: {e}"));
        match flag.as_str() {
            "--constraints" => args.constraints = number(value()),
            "--aux" => args.aux = number(value()),
            "--inputs" => args.inputs = number(value()),
            "--file" => args.file = PathBuf::from(value()),
            "--subgroup" => args.subgroup = true,
            "--cold" => args.cold = true,
            "--bellperson" => args.bellperson = true,
            "--keep" => args.keep = true,
            _ => {} // e.g. cargo's --bench
        }
    }
    args
}

/// `VmRSS`, `RssAnon`, `RssFile` and `VmHWM` of this process, in GB.
fn resident() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse::<f64>().ok()).map_or(-1.0, |kb| kb * 1024.0 / 1e9)
    };
    format!("resident {:.2} GB (anonymous {:.2}, file {:.2}; peak {:.2})", field("VmRSS:"), field("RssAnon:"), field("RssFile:"), field("VmHWM:"))
}

/// Drops the file's pages from the page cache (clean pages only: the file
/// was synced when written).
fn evict(path: &PathBuf) {
    use std::os::fd::AsRawFd;
    let f = File::open(path).expect("open");
    // SAFETY: a plain advice call on an open descriptor.
    let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(r, 0, "posix_fadvise");
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("cuzk=info")).init();
    if let Err(e) = cuzk::gpu::discover(&[0]) {
        println!("gpu_params_load: skipped, {e}");
        return;
    }
    let args = parse_args();
    let share = |f: f64| (args.aux as f64 * f).round() as usize;
    let shape = ProofShape::new(args.constraints, args.inputs, args.aux, [share(0.997), args.inputs, share(0.254)]).expect("shape");
    let lengths = QueryLengths::for_shape(&shape);
    println!("shape: {shape:?}\nquery lengths: {lengths:?}");
    if !args.file.exists() {
        let t = Instant::now();
        cuzk::params_file::write_random_params_file(&args.file, &lengths, &mut rand::thread_rng()).expect("write the parameter file");
        let len = std::fs::metadata(&args.file).expect("written").len() as f64;
        println!("wrote {} ({:.2} GB) in {:.1?} ({:.2} GB/s)", args.file.display(), len / 1e9, t.elapsed(), len / 1e9 / t.elapsed().as_secs_f64());
    }
    let t = Instant::now();
    let mut f = File::open(&args.file).expect("open");
    let mut buf = vec![0u8; 64 << 20];
    let mut total = 0usize;
    while let Ok(n) = f.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n;
    }
    println!("read through once (into the page cache): {:.2} GB in {:.1?} ({:.2} GB/s)", total as f64 / 1e9, t.elapsed(), total as f64 / 1e9 / t.elapsed().as_secs_f64());
    drop(buf);
    println!("before loading: {}", resident());

    let mut runs = vec![("page cache", false, false)];
    if args.subgroup {
        runs.push(("page cache, subgroup check", true, false));
    }
    if args.cold {
        runs.push(("cold (evicted from the page cache)", false, true));
    }
    for (what, subgroup, cold) in runs {
        if cold {
            evict(&args.file);
        }
        let config = ProverConfig {
            backend: Backend::Gpu,
            devices: vec![0],
            workers_per_device: 1,
            pinned_witnesses: Some(0),
            verify_proofs: Some(false),
            ..Default::default()
        };
        let t = Instant::now();
        let file = ParamsFile::open(&args.file).expect("open the parameter file").with_subgroup_check(subgroup);
        let opened = t.elapsed();
        let prover = Prover::new(file, config).expect("prover from the parameter file");
        let ready = t.elapsed();
        println!(
            "{what}: opened in {opened:.3?}, prover ready in {ready:.3?} ({:.2} GB/s of file); after loading: {}",
            total as f64 / 1e9 / ready.as_secs_f64(),
            resident()
        );
        drop(prover);
    }
    if args.bellperson {
        let t = Instant::now();
        let params = bellperson::groth16::Parameters::<blstrs::Bls12>::read(std::io::BufReader::with_capacity(8 << 20, File::open(&args.file).expect("open")), false)
            .expect("bellperson reads the file");
        println!("bellperson's unchecked Parameters::read: {:.1?}; holding them: {}", t.elapsed(), resident());
        drop(params);
    }
    if !args.keep {
        let _ = std::fs::remove_file(&args.file);
    }
}
