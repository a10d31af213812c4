//! The compiled-circuit file: a versioned header with the shape and a
//! BLAKE3 digest of everything after it, then the coefficient table and
//! the three matrices, all little-endian.
//!
//! ```text
//! magic "CUZKR1CS" | version u32 | 0u32 | inputs, aux, rows, coefficients,
//! nonzeros of A, B, C: u64 each | digest [u8; 32]
//! coefficients: 32 canonical bytes each
//! per matrix: row offsets (rows + 1 u32, padded to 8 bytes), entries u64
//! ```
//!
//! The digest covers the shape fields and the body, so a file that was
//! truncated, corrupted or written for another shape is refused before any
//! of it is used.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use blstrs::Scalar;
use ff::PrimeField;

use super::{CompiledCircuit, SparseRows};

const MAGIC: &[u8; 8] = b"CUZKR1CS";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Magic, version, reserved word, seven u64 fields, digest.
const HEADER_BYTES: usize = 8 + 4 + 4 + 7 * 8 + 32;

/// Why a compiled-circuit file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CompiledFileError {
    /// The file could not be opened, read or written.
    #[error("compiled circuit file: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not begin with the compiled-circuit magic.
    #[error("not a compiled circuit file (bad magic)")]
    NotCompiled,
    /// Written by another version of the format.
    #[error("compiled circuit file of format version {found}; this build reads version {supported}")]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The file is shorter or longer than its header says.
    #[error("compiled circuit file is {found} bytes; its header describes {expected} (truncated or padded)")]
    WrongSize {
        /// Bytes the header describes.
        expected: u64,
        /// Bytes the file has.
        found: u64,
    },
    /// The contents do not hash to the digest in the header.
    #[error("compiled circuit file is corrupt: its contents do not match the digest in its header")]
    DigestMismatch,
    /// A coefficient is not a canonical field element.
    #[error("compiled circuit file is corrupt: coefficient {index} is not a canonical scalar")]
    BadCoefficient {
        /// Its index in the table.
        index: usize,
    },
    /// The structure is inconsistent (offsets, columns, table).
    #[error("malformed compiled circuit: {0}")]
    Malformed(String),
}

/// The header's shape fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    inputs: u64,
    aux: u64,
    rows: u64,
    coeffs: u64,
    nonzeros: [u64; 3],
}

impl Shape {
    fn of(c: &CompiledCircuit) -> Self {
        let nz = c.matrices.each_ref().map(|m| m.entries.len() as u64);
        Shape { inputs: c.inputs as u64, aux: c.aux as u64, rows: c.constraints() as u64, coeffs: c.coeffs.len() as u64, nonzeros: nz }
    }

    fn to_bytes(self) -> Vec<u8> {
        [self.inputs, self.aux, self.rows, self.coeffs].iter().chain(&self.nonzeros).flat_map(|v| v.to_le_bytes()).collect()
    }

    fn offsets_bytes(self) -> Option<u64> {
        self.rows.checked_add(1)?.checked_mul(4)?.checked_next_multiple_of(8)
    }

    /// Bytes of the whole file, or None if that overflows.
    fn file_bytes(self) -> Option<u64> {
        let mut total = (HEADER_BYTES as u64).checked_add(self.coeffs.checked_mul(32)?)?;
        for nz in self.nonzeros {
            total = total.checked_add(self.offsets_bytes()?)?.checked_add(nz.checked_mul(8)?)?;
        }
        Some(total)
    }
}

/// Row offsets as bytes, padded to a multiple of 8.
fn offsets_bytes(m: &SparseRows) -> Vec<u8> {
    let mut bytes: Vec<u8> = m.row_start.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes.resize(bytes.len().next_multiple_of(8), 0);
    bytes
}

impl CompiledCircuit {
    /// BLAKE3 of the shape and the contents: what the file's header holds,
    /// and what tells two compiled circuits apart.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        h.update(&Shape::of(self).to_bytes());
        h.update(&coeff_bytes(&self.coeffs));
        for m in &self.matrices {
            h.update(&offsets_bytes(m));
            h.update_rayon(bytemuck::cast_slice(&m.entries));
        }
        *h.finalize().as_bytes()
    }

    /// Writes the compiled circuit to `path` (see the module docs).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), CompiledFileError> {
        let mut w = BufWriter::with_capacity(8 << 20, File::create(path)?);
        self.write_to(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(())
    }

    /// Writes the file's bytes to `w`.
    pub fn write_to(&self, w: &mut impl Write) -> Result<(), CompiledFileError> {
        assert!(cfg!(target_endian = "little"), "the entries are written as they lie in memory");
        w.write_all(MAGIC)?;
        w.write_all(&FORMAT_VERSION.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        w.write_all(&Shape::of(self).to_bytes())?;
        w.write_all(&self.digest())?;
        w.write_all(&coeff_bytes(&self.coeffs))?;
        for m in &self.matrices {
            w.write_all(&offsets_bytes(m))?;
            w.write_all(bytemuck::cast_slice(&m.entries))?;
        }
        Ok(())
    }

    /// Reads a compiled circuit written by [`CompiledCircuit::save`],
    /// checking its size, digest and structure.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, CompiledFileError> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Self::read_from(BufReader::with_capacity(8 << 20, file), len)
    }

    /// Reads a compiled circuit of `len` bytes from `r`.
    pub fn read_from(mut r: impl Read, len: u64) -> Result<Self, CompiledFileError> {
        if len < HEADER_BYTES as u64 {
            return Err(CompiledFileError::WrongSize { expected: HEADER_BYTES as u64, found: len });
        }
        let mut header = [0u8; HEADER_BYTES];
        r.read_exact(&mut header)?;
        if &header[..8] != MAGIC {
            return Err(CompiledFileError::NotCompiled);
        }
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        let field = |i: usize| u64::from_le_bytes(header[16 + 8 * i..24 + 8 * i].try_into().expect("8 bytes"));
        if word(8) != FORMAT_VERSION {
            return Err(CompiledFileError::UnsupportedVersion { found: word(8), supported: FORMAT_VERSION });
        }
        let shape = Shape { inputs: field(0), aux: field(1), rows: field(2), coeffs: field(3), nonzeros: [field(4), field(5), field(6)] };
        // Checked before anything is allocated: a corrupt header must not
        // make us reserve terabytes.
        let expected = shape.file_bytes().unwrap_or(u64::MAX);
        if expected != len {
            return Err(CompiledFileError::WrongSize { expected, found: len });
        }
        let digest: [u8; 32] = header[HEADER_BYTES - 32..].try_into().expect("32 bytes");
        let usize_of = |v: u64| usize::try_from(v).map_err(|_| CompiledFileError::Malformed(format!("size {v} too large for this machine")));

        let mut coeff_raw = vec![0u8; usize_of(shape.coeffs)? * 32];
        r.read_exact(&mut coeff_raw)?;
        let mut h = blake3::Hasher::new();
        h.update(&shape.to_bytes());
        h.update(&coeff_raw);
        let mut matrices = Vec::with_capacity(3);
        for nz in shape.nonzeros {
            let rows = usize_of(shape.rows)?;
            let mut offsets = vec![0u8; usize_of(shape.offsets_bytes().unwrap_or(u64::MAX))?];
            r.read_exact(&mut offsets)?;
            let mut entries = vec![0u64; usize_of(nz)?];
            r.read_exact(bytemuck::cast_slice_mut(&mut entries))?;
            h.update(&offsets);
            h.update_rayon(bytemuck::cast_slice(&entries));
            let row_start = offsets.chunks_exact(4).take(rows + 1).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))).collect();
            matrices.push(SparseRows { row_start, entries });
        }
        if *h.finalize().as_bytes() != digest {
            return Err(CompiledFileError::DigestMismatch);
        }
        let coeffs = coeff_raw
            .chunks_exact(32)
            .enumerate()
            .map(|(index, b)| Option::from(Scalar::from_repr(b.try_into().expect("32 bytes"))).ok_or(CompiledFileError::BadCoefficient { index }))
            .collect::<Result<Vec<_>, _>>()?;
        let matrices: [SparseRows; 3] = matrices.try_into().expect("three matrices");
        CompiledCircuit::new(usize_of(shape.inputs)?, usize_of(shape.aux)?, coeffs, matrices)
    }
}

fn coeff_bytes(coeffs: &[Scalar]) -> Vec<u8> {
    coeffs.iter().flat_map(|c| c.to_repr()).collect()
}
