//! Groth16 parameters made from a compiled circuit and its toxic waste, as
//! bellperson's `generate_parameters` makes them: the same points, so the
//! same file, byte for byte.
//!
//! The steps: the Lagrange coefficients of the evaluation domain at τ
//! (`qap`); each variable's A, B and C polynomials at τ, summed over the
//! compiled matrices' columns (`qap`), and every query's exponents
//! (`exponents`); then the fixed-base multiplications. Two ways:
//! [`generate_parameters`] makes a host `Parameters` with wNAF tables
//! (`cpu`); [`generate_parameters_file`] and, with the `cuda` feature,
//! `generate_parameters_file_gpu` write the file as the points are made
//! (`stream`), from window tables (`tables`) through the GPU's kernels
//! (`gpu`) or their host bodies on rayon (`host_kernels`).

mod cpu;
mod exponents;
mod file;
#[cfg(feature = "cuda")]
mod gpu;
mod host_kernels;
#[cfg(feature = "cuda")]
pub(crate) use host_kernels::canonical_words;
mod qap;
mod stream;
mod tables;
#[cfg(test)]
mod tests;
mod writer;

use std::path::Path;

use bellperson::groth16::VerifyingKey;
use blstrs::{Bls12, G1Projective, G2Projective, Scalar};

use crate::compiled::CompiledCircuit;
pub use cpu::generate_parameters;
pub use file::write_parameters;

/// Where the fixed-base multiplications of a streamed generation run.
#[derive(Clone, Copy)]
pub enum Generator<'a> {
    /// The GPU's kernel bodies on rayon's threads.
    Cpu,
    /// A GPU.
    #[cfg(feature = "cuda")]
    Gpu {
        /// The device.
        device: &'a crate::gpu::GpuDevice,
        /// The longest wait on it (`None`: no deadline).
        timeout: Option<std::time::Duration>,
        /// Points per launch (`None`: up to 2^22, as half the free VRAM
        /// allows); fewer points, less VRAM. Pieces that do not fit are
        /// `NotEnoughVram`.
        piece_points: Option<usize>,
    },
    #[doc(hidden)]
    #[cfg(not(feature = "cuda"))]
    _Lifetime(std::marker::PhantomData<&'a ()>, std::convert::Infallible),
}

/// How far a generation is: points written of the file's total.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// Writes the parameters of `compiled` for `waste` to `path` as they are
/// made, on the CPU (the GPU's kernel bodies, on rayon): the same bytes as
/// [`generate_parameters`] then [`write_parameters`], without holding the
/// parameters. Returns the verifying key.
pub fn generate_parameters_file(compiled: &CompiledCircuit, waste: &ToxicWaste, path: impl AsRef<Path>) -> Result<VerifyingKey<Bls12>, GenerateError> {
    generate_parameters_file_with(compiled, waste, path, Generator::Cpu, &|_, _| {})
}

/// [`generate_parameters_file`] with the fixed-base multiplications on
/// `gpu` (waits on it at most `timeout`).
#[cfg(feature = "cuda")]
pub fn generate_parameters_file_gpu(
    compiled: &CompiledCircuit,
    waste: &ToxicWaste,
    path: impl AsRef<Path>,
    gpu: &crate::gpu::GpuDevice,
    timeout: Option<std::time::Duration>,
) -> Result<VerifyingKey<Bls12>, GenerateError> {
    generate_parameters_file_with(compiled, waste, path, Generator::Gpu { device: gpu, timeout, piece_points: None }, &|_, _| {})
}

/// [`generate_parameters_file`] on `generator`, telling `progress` the
/// points written so far and the file's total after each piece.
pub fn generate_parameters_file_with(
    compiled: &CompiledCircuit,
    waste: &ToxicWaste,
    path: impl AsRef<Path>,
    generator: Generator<'_>,
    progress: Progress<'_>,
) -> Result<VerifyingKey<Bls12>, GenerateError> {
    let path = path.as_ref();
    match generator {
        Generator::Cpu => stream::write_generated(compiled, waste, path, &mut host_kernels::HostKernels::new(waste.g1, waste.g2), progress),
        #[cfg(feature = "cuda")]
        Generator::Gpu { device, timeout, piece_points } => {
            stream::write_generated(compiled, waste, path, &mut gpu::GpuFixedBase::new(device, waste.g1, waste.g2, timeout, piece_points)?, progress)
        }
        #[cfg(not(feature = "cuda"))]
        Generator::_Lifetime(_, never) => match never {},
    }
}

/// The secrets of a setup and its generators. Whoever knows them can
/// forge proofs: for tests, benchmarks and a trusted local setup only.
#[derive(Clone, Copy, Debug)]
pub struct ToxicWaste {
    /// The G1 generator the parameters are built on.
    pub g1: G1Projective,
    /// The G2 generator.
    pub g2: G2Projective,
    /// α.
    pub alpha: Scalar,
    /// β.
    pub beta: Scalar,
    /// γ.
    pub gamma: Scalar,
    /// δ.
    pub delta: Scalar,
    /// τ, where the QAP is evaluated.
    pub tau: Scalar,
}

impl ToxicWaste {
    /// The verifying key's six fixed points (α₁, β₁, β₂, γ₂, δ₁, δ₂) with
    /// `ic` as the inputs' bases, as bellperson's generator forms them.
    pub(crate) fn verifying_key(&self, ic: Vec<blstrs::G1Affine>) -> VerifyingKey<Bls12> {
        use group::Curve;
        let (g1, g2) = (self.g1.to_affine(), self.g2.to_affine());
        VerifyingKey {
            alpha_g1: (g1 * self.alpha).to_affine(),
            beta_g1: (g1 * self.beta).to_affine(),
            beta_g2: (g2 * self.beta).to_affine(),
            gamma_g2: (g2 * self.gamma).to_affine(),
            delta_g1: (g1 * self.delta).to_affine(),
            delta_g2: (g2 * self.delta).to_affine(),
            ic,
        }
    }

    /// Random secrets and generators, drawn in the order bellperson's
    /// `generate_random_parameters` draws them (g1, g2, α, β, γ, δ, τ):
    /// the same `rng` state gives the same parameters as bellperson's.
    pub fn random(rng: &mut impl rand_core::RngCore) -> Self {
        use ff::Field;
        use group::Group;
        let g1 = G1Projective::random(&mut *rng);
        let g2 = G2Projective::random(&mut *rng);
        let mut draw = || Scalar::random(&mut *rng);
        let (alpha, beta, gamma, delta, tau) = (draw(), draw(), draw(), draw(), draw());
        ToxicWaste { g1, g2, alpha, beta, gamma, delta, tau }
    }
}

/// Why parameters could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// γ or δ is zero: the parameters would divide by it.
    #[error("{0} is zero: it has no inverse")]
    ZeroSecret(&'static str),
    /// The circuit needs a domain larger than 2^31 (BLS12-381's scalar field has roots of unity up to 2^32; bellperson stops below it too).
    #[error("the circuit's {constraints} constraints need an evaluation domain larger than 2^31")]
    DomainTooLarge {
        /// Constraints, the per-input rows included.
        constraints: usize,
    },
    /// An aux variable no constraint constrains: its L point would be the
    /// identity (bellperson's `UnconstrainedVariable`).
    #[error("aux variable {index} is unconstrained: its L query point is the identity")]
    UnconstrainedVariable {
        /// Its index among the aux variables.
        index: usize,
    },
    /// The GPU could not do it (no device, too little VRAM, a CUDA error).
    #[error(transparent)]
    Gpu(#[from] crate::error::ProverError),
    /// The file's folder has too little free space for it.
    #[error("{path} needs {needed} bytes; its file system has {available} free")]
    NotEnoughDisk {
        /// The file.
        path: std::path::PathBuf,
        /// The file's size.
        needed: u64,
        /// Bytes free there.
        available: u64,
    },
    /// Writing the file failed.
    #[error("writing parameters to {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}
