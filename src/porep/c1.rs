//! C1 outputs as storage providers hold them: filecoin-proofs' own
//! `SealCommitPhase1Output` (serde JSON or bincode), filecoin-proofs-api's
//! (what filecoin-ffi returns: the registered proof and the vanilla proofs
//! wrapped by proof version), and that one wrapped as Curio and lotus-bench
//! send it: `{"SectorNum", "Phase1Out" (base64 of the api's JSON), "SectorSize"}`.

use base64::Engine as _;
use filecoin_proofs::SealCommitPhase1Output as ProofsC1;
use filecoin_proofs_api::seal::{SealCommitPhase1Output as ApiC1, VanillaSealProof};
use filecoin_proofs_api::RegisteredSealProof;
use serde::Deserialize;

use super::shape::sector_bytes;
use super::PorepError;

/// The forms a C1 output comes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum C1Form {
    /// Curio's and lotus-bench's wrapper around filecoin-proofs-api's JSON.
    CurioWrapper,
    /// filecoin-proofs-api's `SealCommitPhase1Output` as serde JSON.
    ApiJson,
    /// filecoin-proofs' `SealCommitPhase1Output<Tree>` as serde JSON.
    ProofsJson,
    /// filecoin-proofs' `SealCommitPhase1Output<Tree>` as bincode.
    ProofsBincode,
}

/// A parsed C1 output: filecoin-proofs-api's form, whichever form it came in.
#[derive(Clone, Debug)]
pub struct C1Output {
    /// The vanilla proofs and commitments, with their registered proof.
    pub phase1: ApiC1,
    /// The sector number, when the wrapper carried one.
    pub sector_num: Option<u64>,
    /// The form it was read from.
    pub form: C1Form,
}

/// The wrapper Curio and lotus-bench send (Go's JSON encodes `[]byte` as
/// base64).
#[derive(Deserialize)]
struct CurioWrapper {
    #[serde(rename = "SectorNum")]
    sector_num: u64,
    #[serde(rename = "Phase1Out")]
    phase1_out: String,
    #[serde(rename = "SectorSize")]
    sector_size: u64,
}

/// Which top-level keys a JSON object has, read without keeping any value.
#[derive(Deserialize)]
struct Keys {
    #[serde(rename = "Phase1Out")]
    phase1_out: Option<serde::de::IgnoredAny>,
    registered_proof: Option<serde::de::IgnoredAny>,
}

fn format_error(form: &'static str) -> impl Fn(&dyn std::fmt::Display) -> PorepError {
    move |e| PorepError::C1Format { form, why: e.to_string() }
}

impl C1Output {
    /// Reads a C1 output in any of its forms ([`C1Form`]) for sectors of
    /// `proof`: the forms that name their registered proof must name this
    /// one, and filecoin-proofs' own forms, which do not, are read as it.
    pub fn parse(bytes: &[u8], proof: RegisteredSealProof) -> Result<Self, PorepError> {
        let json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        let c1 = if !json {
            let phase1 = from_proofs_form(bytes, proof, false)?;
            C1Output { phase1, sector_num: None, form: C1Form::ProofsBincode }
        } else {
            let keys: Keys = serde_json::from_slice(bytes).map_err(|e| format_error("JSON")(&e))?;
            if keys.phase1_out.is_some() {
                let (wrapper, inner) = unwrap_curio(bytes)?;
                let phase1: ApiC1 = serde_json::from_slice(&inner).map_err(|e| format_error("Curio's C1 wrapper: Phase1Out")(&e))?;
                if wrapper.sector_size != sector_bytes(phase1.registered_proof) {
                    return Err(PorepError::InvalidC1(format!(
                        "the wrapper says SectorSize {} but Phase1Out is a {:?} proof",
                        wrapper.sector_size, phase1.registered_proof
                    )));
                }
                C1Output { phase1, sector_num: Some(wrapper.sector_num), form: C1Form::CurioWrapper }
            } else if keys.registered_proof.is_some() {
                let phase1: ApiC1 = serde_json::from_slice(bytes).map_err(|e| format_error("filecoin-proofs-api's JSON")(&e))?;
                C1Output { phase1, sector_num: None, form: C1Form::ApiJson }
            } else {
                let phase1 = from_proofs_form(bytes, proof, true)?;
                C1Output { phase1, sector_num: None, form: C1Form::ProofsJson }
            }
        };
        if c1.phase1.registered_proof != proof {
            return Err(PorepError::WrongProof { expected: format!("{proof:?}"), found: format!("{:?}", c1.phase1.registered_proof) });
        }
        Ok(c1)
    }

    /// The registered proof that C1 bytes name, for the forms that name it
    /// (Curio's wrapper, filecoin-proofs-api's JSON); `None` for the others.
    pub fn registered_proof_of(bytes: &[u8]) -> Option<RegisteredSealProof> {
        #[derive(Deserialize)]
        struct Named {
            registered_proof: RegisteredSealProof,
        }
        let keys: Keys = serde_json::from_slice(bytes).ok()?;
        if keys.phase1_out.is_some() {
            let (_, inner) = unwrap_curio(bytes).ok()?;
            return serde_json::from_slice::<Named>(&inner).ok().map(|n| n.registered_proof);
        }
        serde_json::from_slice::<Named>(bytes).ok().map(|n| n.registered_proof)
    }

    /// The registered proof it is for.
    pub fn registered_proof(&self) -> RegisteredSealProof {
        self.phase1.registered_proof
    }

    /// filecoin-proofs-api's JSON of it (what goes inside Curio's wrapper).
    pub fn to_api_json(&self) -> Vec<u8> {
        serde_json::to_vec(&self.phase1).expect("a C1 output serializes")
    }

    /// Curio's wrapper around it, for sector `sector_num`.
    pub fn to_curio_wrapper(&self, sector_num: u64) -> Vec<u8> {
        let phase1_out = base64::engine::general_purpose::STANDARD.encode(self.to_api_json());
        let size = sector_bytes(self.phase1.registered_proof);
        serde_json::to_vec(&serde_json::json!({ "SectorNum": sector_num, "Phase1Out": phase1_out, "SectorSize": size })).expect("JSON")
    }
}

/// Curio's wrapper and the bytes of its `Phase1Out`.
fn unwrap_curio(bytes: &[u8]) -> Result<(CurioWrapper, Vec<u8>), PorepError> {
    let wrapper: CurioWrapper = serde_json::from_slice(bytes).map_err(|e| format_error("Curio's C1 wrapper")(&e))?;
    let inner = base64::engine::general_purpose::STANDARD
        .decode(wrapper.phase1_out.as_bytes())
        .map_err(|e| format_error("Curio's C1 wrapper: Phase1Out's base64")(&e))?;
    Ok((wrapper, inner))
}

/// Reads filecoin-proofs' own `SealCommitPhase1Output<Tree>` (JSON or
/// bincode) for `proof`'s tree and wraps its vanilla proofs as the api does.
fn from_proofs_form(bytes: &[u8], proof: RegisteredSealProof, json: bool) -> Result<ApiC1, PorepError> {
    let form = if json { "filecoin-proofs' JSON" } else { "filecoin-proofs' bincode" };
    macro_rules! read {
        ($tree:ty, $variant:ident) => {{
            let c1: ProofsC1<$tree> = if json {
                serde_json::from_slice(bytes).map_err(|e| format_error(form)(&e))?
            } else {
                bincode::deserialize(bytes).map_err(|e| format_error(form)(&e))?
            };
            ApiC1 {
                registered_proof: proof,
                vanilla_proofs: VanillaSealProof::$variant(c1.vanilla_proofs),
                comm_r: c1.comm_r,
                comm_d: c1.comm_d,
                replica_id: c1.replica_id,
                seed: c1.seed,
                ticket: c1.ticket,
            }
        }};
    }
    Ok(match sector_bytes(proof) {
        filecoin_proofs::SECTOR_SIZE_2_KIB => read!(filecoin_proofs::SectorShape2KiB, StackedDrg2KiBV1),
        filecoin_proofs::SECTOR_SIZE_8_MIB => read!(filecoin_proofs::SectorShape8MiB, StackedDrg8MiBV1),
        filecoin_proofs::SECTOR_SIZE_512_MIB => read!(filecoin_proofs::SectorShape512MiB, StackedDrg512MiBV1),
        filecoin_proofs::SECTOR_SIZE_32_GIB => read!(filecoin_proofs::SectorShape32GiB, StackedDrg32GiBV1),
        filecoin_proofs::SECTOR_SIZE_64_GIB => read!(filecoin_proofs::SectorShape64GiB, StackedDrg64GiBV1),
        other => return Err(PorepError::UnsupportedSectorSize(other)),
    })
}

/// The vanilla proofs' sector size, from the api's wrapping (a C1 output
/// names its registered proof and wraps its proofs by sector size; the two
/// must agree).
pub(crate) fn vanilla_sector_bytes(proofs: &VanillaSealProof) -> u64 {
    match proofs {
        VanillaSealProof::StackedDrg2KiBV1(_) => filecoin_proofs::SECTOR_SIZE_2_KIB,
        VanillaSealProof::StackedDrg8MiBV1(_) => filecoin_proofs::SECTOR_SIZE_8_MIB,
        VanillaSealProof::StackedDrg512MiBV1(_) => filecoin_proofs::SECTOR_SIZE_512_MIB,
        VanillaSealProof::StackedDrg32GiBV1(_) => filecoin_proofs::SECTOR_SIZE_32_GIB,
        VanillaSealProof::StackedDrg64GiBV1(_) => filecoin_proofs::SECTOR_SIZE_64_GIB,
    }
}
