//! Where a prover's parameters come from: host `Parameters`, or a
//! parameter file whose bases go straight to the backend.

use std::sync::Arc;

use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::Bls12;

use crate::parameters::params::QueryLengths;
use crate::parameters::params_file::ParamsFile;

/// The parameters a [`crate::Prover`] is built from. Anything that turns
/// into one can be given to `Prover::new`: `Parameters<Bls12>`, an `Arc`
/// of them, or a [`ParamsFile`].
#[derive(Clone)]
pub enum ParamsSource {
    /// Parameters in host memory.
    Host(Arc<Parameters<Bls12>>),
    /// A mapped parameter file: the GPU backend sends its raw points to
    /// the device and decodes them there; the CPU backend decodes them
    /// from the mapping into host memory.
    File(Arc<ParamsFile>),
}

impl ParamsSource {
    /// The verifying key.
    pub fn verifying_key(&self) -> &VerifyingKey<Bls12> {
        match self {
            ParamsSource::Host(p) => &p.vk,
            ParamsSource::File(f) => f.verifying_key(),
        }
    }

    /// How many bases each query holds.
    pub fn lengths(&self) -> QueryLengths {
        match self {
            ParamsSource::Host(p) => QueryLengths::of(p),
            ParamsSource::File(f) => f.lengths(),
        }
    }
}

impl From<Parameters<Bls12>> for ParamsSource {
    fn from(p: Parameters<Bls12>) -> Self {
        ParamsSource::Host(Arc::new(p))
    }
}

impl From<Arc<Parameters<Bls12>>> for ParamsSource {
    fn from(p: Arc<Parameters<Bls12>>) -> Self {
        ParamsSource::Host(p)
    }
}

impl From<ParamsFile> for ParamsSource {
    fn from(f: ParamsFile) -> Self {
        ParamsSource::File(Arc::new(f))
    }
}

impl From<Arc<ParamsFile>> for ParamsSource {
    fn from(f: Arc<ParamsFile>) -> Self {
        ParamsSource::File(f)
    }
}
