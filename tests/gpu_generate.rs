//! Parameters made on the GPU (`Generator::Gpu`): the same file, byte for
//! byte, as bellperson's `generate_parameters` and as the CPU generator
//! for the same toxic waste, in one piece and across many; proofs from it
//! bit-identical to bellperson's from the same file; typed errors, and no
//! file left, for what cannot be made (skips without a GPU).
#![cfg(feature = "cuda")]

mod common;

use std::time::Duration;

use bellperson::groth16::{self, Parameters};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::{Bls12, Scalar};
use common::params_files::{file_bytes, read_by_bellperson, TempFile};
use cuzk::parameters::generate::{generate_parameters_file, generate_parameters_file_with, GenerateError, Generator, ToxicWaste};
use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, CompiledCircuit, ParamsFile, Prover, ProverConfig};

/// The edges of a setup: B entries nowhere, an input used by no
/// constraint, an aux variable used by none.
#[derive(Clone, Copy)]
enum SetupEdge {
    NoB,
    UnusedInput,
    UnconstrainedAux,
}

impl Circuit<Scalar> for SetupEdge {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let a = cs.alloc(|| "a", || Ok(Scalar::from(4)))?;
        let out = cs.alloc_input(|| "out", || Ok(Scalar::from(16)))?;
        match self {
            SetupEdge::NoB => {
                let d = cs.alloc(|| "d", || Ok(Scalar::from(20)))?;
                cs.enforce(|| "a + out - d in A", |lc| lc + a + out - d, |lc| lc, |lc| lc);
                cs.enforce(|| "d - a - out in C", |lc| lc, |lc| lc, |lc| lc + d - a - out);
            }
            SetupEdge::UnusedInput => {
                cs.alloc_input(|| "spare", || Ok(Scalar::from(2)))?;
                cs.enforce(|| "a*a=out", |lc| lc + a, |lc| lc + a, |lc| lc + out);
            }
            SetupEdge::UnconstrainedAux => {
                cs.alloc(|| "loose", || Ok(Scalar::from(1)))?;
                cs.enforce(|| "a*a=out", |lc| lc + a, |lc| lc + a, |lc| lc + out);
            }
        }
        Ok(())
    }
}

fn waste(rng: &mut rand_chacha::ChaCha8Rng) -> ToxicWaste {
    ToxicWaste::random(rng)
}

fn bellperson<C: Circuit<Scalar>>(circuit: C, w: &ToxicWaste) -> Parameters<Bls12> {
    groth16::generate_parameters::<Bls12, _>(circuit, w.g1, w.g2, w.alpha, w.beta, w.gamma, w.delta, w.tau).expect("bellperson's setup")
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("cuzk-gpu-generated-{}-{name}.params", std::process::id()))
}

fn on_gpu<'a>(device: &'a cuzk::gpu::GpuDevice, piece_points: Option<usize>) -> Generator<'a> {
    Generator::Gpu { device, timeout: Some(Duration::from_secs(120)), piece_points }
}

/// The GPU's file for `compiled`, or its error; the file is removed.
fn gpu_file(device: &cuzk::gpu::GpuDevice, compiled: &CompiledCircuit, w: &ToxicWaste, piece_points: Option<usize>, name: &str) -> Result<Vec<u8>, GenerateError> {
    let path = temp_path(name);
    let result = generate_parameters_file_with(compiled, w, &path, on_gpu(device, piece_points), &|_, _| {});
    let bytes = result.map(|_| std::fs::read(&path).expect("the written file"));
    let _ = std::fs::remove_file(&path);
    bytes
}

#[test]
fn gpu_parameters_are_bellpersons_bytes_and_the_cpus() {
    let Some(device) = common::gpu_or_skip("gpu_parameters_are_bellpersons_bytes_and_the_cpus") else {
        return;
    };
    let mut rng = common::rng();
    let w = waste(&mut rng);
    // (name, circuit, points per launch): one piece, then pieces that end
    // inside a 64-point inversion batch and at odd sizes.
    let cases: Vec<(&str, CompiledCircuit, Parameters<Bls12>, Option<usize>)> = vec![
        ("synthetic, 3 inputs", CompiledCircuit::record(SyntheticPorep::shape(5000, 3)).unwrap(), bellperson(SyntheticPorep::shape(5000, 3), &w), None),
        ("synthetic, 3 inputs, pieces of 1000", CompiledCircuit::record(SyntheticPorep::shape(5000, 3)).unwrap(), bellperson(SyntheticPorep::shape(5000, 3), &w), Some(1000)),
        ("synthetic, ONE alone, pieces of 77", CompiledCircuit::record(SyntheticPorep::shape(900, 0)).unwrap(), bellperson(SyntheticPorep::shape(900, 0), &w), Some(77)),
        ("no B", CompiledCircuit::record(SetupEdge::NoB).unwrap(), bellperson(SetupEdge::NoB, &w), None),
        ("an unused input", CompiledCircuit::record(SetupEdge::UnusedInput).unwrap(), bellperson(SetupEdge::UnusedInput, &w), Some(1)),
    ];
    for (name, compiled, theirs, piece) in &cases {
        let ours = gpu_file(&device, compiled, &w, *piece, &name.replace([' ', ','], "-")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ours == file_bytes(theirs), "{name}: the GPU's file differs from bellperson's");
        let cpu_path = temp_path("cpu");
        generate_parameters_file(compiled, &w, &cpu_path).unwrap();
        let cpu = std::fs::read(&cpu_path).unwrap();
        std::fs::remove_file(&cpu_path).unwrap();
        assert!(ours == cpu, "{name}: the GPU's file differs from the CPU generator's");
    }
}

#[test]
fn gpu_parameters_over_several_file_buffers_and_their_proofs_match_bellperson() {
    let Some(device) = common::gpu_or_skip("gpu_parameters_over_several_file_buffers_and_their_proofs_match_bellperson") else {
        return;
    };
    let mut rng = common::rng();
    let w = waste(&mut rng);
    // 2^18: an H query of 25 MB and a 50+ MB file, written in several
    // 32 MiB buffers; pieces of 100,000 points.
    let (constraints, inputs) = (200_000, 5);
    let compiled = CompiledCircuit::record(SyntheticPorep::shape(constraints, inputs)).unwrap();
    let path = temp_path("proving");
    let seen = std::sync::Mutex::new((0u64, 0u64));
    let vk = generate_parameters_file_with(&compiled, &w, &path, on_gpu(&device, Some(100_000)), &|done, total| {
        let mut seen = seen.lock().unwrap();
        assert!(done >= seen.0 && done <= total, "progress goes forward within its total");
        *seen = (done, total);
    })
    .unwrap();
    let (done, total) = *seen.lock().unwrap();
    assert!(total > 0 && done == total, "progress ends at its total ({done} of {total})");
    let file = TempFile(path);
    let theirs = bellperson(SyntheticPorep::shape(constraints, inputs), &w);
    let bytes = std::fs::read(&file.0).unwrap();
    assert!(bytes.len() > 64 << 20, "{} bytes: more than two buffers", bytes.len());
    assert!(bytes == file_bytes(&theirs), "the file differs from bellperson's");
    assert!(vk == theirs.vk, "the returned verifying key");
    // Proofs on the GPU from the file, against bellperson's from its own
    // reading of it, for the same r, s.
    let read = read_by_bellperson(&file);
    let config = ProverConfig { backend: Backend::Gpu, devices: vec![0], workers_per_device: 2, ..Default::default() };
    let prover = Prover::new(ParamsFile::open(&file.0).unwrap(), config).expect("a GPU prover from the generated file");
    common::assert_batch_matches_bellperson(&prover, &read, constraints, inputs, 3, &mut rng);
}

#[test]
fn what_the_gpu_cannot_make_is_a_typed_error_and_no_file() {
    let Some(device) = common::gpu_or_skip("what_the_gpu_cannot_make_is_a_typed_error_and_no_file") else {
        return;
    };
    let mut rng = common::rng();
    let w = waste(&mut rng);
    let path = temp_path("refused");
    let compiled = CompiledCircuit::record(SetupEdge::UnconstrainedAux).unwrap();
    let err = generate_parameters_file_with(&compiled, &w, &path, on_gpu(&device, None), &|_, _| {}).err().expect("an unconstrained aux variable is refused");
    assert!(matches!(err, GenerateError::UnconstrainedVariable { index: 1 }), "{err}");
    assert!(!path.exists() && !path.with_extension("generating").exists(), "nothing is left behind");
    // Pieces larger than half the free VRAM: NotEnoughVram, before any file.
    let err = generate_parameters_file_with(&CompiledCircuit::record(SyntheticPorep::shape(100, 1)).unwrap(), &w, &path, on_gpu(&device, Some(1 << 40)), &|_, _| {});
    match err {
        Err(GenerateError::Gpu(cuzk::ProverError::NotEnoughVram { device: 0, needed, free, .. })) => assert!(needed > free),
        other => panic!("expected NotEnoughVram, got {:?}", other.err()),
    }
    assert!(!path.exists() && !path.with_extension("generating").exists(), "nothing is left behind");
    // γ = 0: refused.
    let err = generate_parameters_file_with(&compiled, &ToxicWaste { gamma: Scalar::from(0), ..w }, &path, on_gpu(&device, None), &|_, _| {});
    assert!(matches!(err, Err(GenerateError::ZeroSecret("gamma"))), "{:?}", err.err());
}
