//! Groth16 parameters: their shape checks (`params`), bellperson's file
//! format read straight to the backend (`params_file`), where a prover's
//! parameters come from (`source`), the subgroup checks of their points,
//! and parameters made from a compiled circuit and toxic waste
//! (`generate`).

pub mod generate;
pub mod params;
pub mod params_file;
pub(crate) mod source;
#[cfg(any(feature = "cuda", test))]
pub(crate) mod subgroup;
