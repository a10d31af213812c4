//! The coefficients of h = (a·b − c) / Z over the evaluation domain, computed
//! with bellperson's own `EvaluationDomain`: the reference the tests hold
//! the GPU's H step and the CPU backend's (`h_rayon`) to.

use bellperson::domain::EvaluationDomain;
use blstrs::Scalar;
use ec_gpu_gen::threadpool::Worker;

use crate::error::ProverError;

/// Pads a, b, c to the domain size 2^k, interpolates, evaluates on the coset
/// of the multiplicative generator, divides by Z there, interpolates back
/// and returns the first 2^k − 1 coefficients (h has degree < 2^k − 1).
pub fn h_coefficients(a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Result<Vec<Scalar>, ProverError> {
    let worker = Worker::new();
    let mut a = EvaluationDomain::from_coeffs(a)?;
    let mut b = EvaluationDomain::from_coeffs(b)?;
    let mut c = EvaluationDomain::from_coeffs(c)?;
    let gpu = &mut None;
    EvaluationDomain::ifft_many(&mut [&mut a, &mut b, &mut c], &worker, gpu).map_err(gpu_err)?;
    EvaluationDomain::coset_fft_many(&mut [&mut a, &mut b, &mut c], &worker, gpu).map_err(gpu_err)?;
    a.mul_assign(&worker, &b);
    drop(b);
    a.sub_assign(&worker, &c);
    drop(c);
    a.divide_by_z_on_coset(&worker);
    a.icoset_fft(&worker, gpu).map_err(gpu_err)?;
    let mut coeffs = a.into_coeffs();
    coeffs.pop();
    Ok(coeffs)
}

// bellperson's FFT API reports GPU errors even on its CPU path.
fn gpu_err(e: bellperson::gpu::GpuError) -> ProverError {
    ProverError::Gpu(e.to_string())
}
