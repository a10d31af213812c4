//! Circuits built from bellperson's own gadgets, one family each, with a
//! seeded witness (`seed: None` synthesizes without values, for parameters
//! and recording).

use bellperson::gadgets::boolean::{AllocatedBit, Boolean};
use bellperson::gadgets::multieq::MultiEq;
use bellperson::gadgets::num::AllocatedNum;
use bellperson::gadgets::uint32::UInt32;
use bellperson::gadgets::{blake2s::blake2s, multipack, sha256::sha256};
use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use generic_array::typenum::U2;
use neptune::poseidon::PoseidonConstants;
use rand::{RngCore, SeedableRng};

/// Which gadget family a [`Gadget`] circuit exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Booleans: allocation, xor, and, not.
    Boolean,
    /// Field elements: mul, square, inverse-free selects, packing to bits.
    Num,
    /// 32-bit words: add_many, xor, rotations.
    Uint32,
    /// SHA-256 of one 64-byte block, digest packed into public inputs.
    Sha256,
    /// BLAKE2s of 32 bytes.
    Blake2s,
    /// Bits packed into public inputs (multipack).
    Multipack,
    /// A chain of neptune Poseidon hashes (arity 2): the gadget that writes
    /// its witness natively under a witness generator, and its legacy form.
    Poseidon,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 7] = [Family::Boolean, Family::Num, Family::Uint32, Family::Sha256, Family::Blake2s, Family::Multipack, Family::Poseidon];
}

/// One circuit of a gadget family.
#[derive(Clone, Debug)]
pub struct Gadget {
    pub family: Family,
    pub seed: Option<u64>,
}

impl Gadget {
    fn bytes(&self, n: usize) -> Vec<u8> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0));
        (0..n).map(|_| rng.next_u32() as u8).collect()
    }

    fn bits<CS: ConstraintSystem<Scalar>>(&self, cs: &mut CS, bytes: usize) -> Result<Vec<Boolean>, SynthesisError> {
        let values = multipack::bytes_to_bits(&self.bytes(bytes));
        values
            .into_iter()
            .enumerate()
            .map(|(i, b)| AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), self.seed.map(|_| b)).map(Boolean::from))
            .collect()
    }

    /// The public inputs (without ONE) of this circuit's witness.
    pub fn public_values(&self) -> Vec<Scalar> {
        let mut cs = bellperson::util_cs::test_cs::TestConstraintSystem::<Scalar>::new();
        self.clone().synthesize(&mut cs).expect("synthesis");
        assert!(cs.is_satisfied(), "{:?}: {:?}", self.family, cs.which_is_unsatisfied());
        cs.get_inputs().iter().skip(1).map(|(v, _)| *v).collect()
    }
}

impl Circuit<Scalar> for Gadget {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        match self.family {
            Family::Boolean => {
                let bits = self.bits(cs, 16)?;
                let mut acc = bits[0].clone();
                for (i, b) in bits[1..].iter().enumerate() {
                    let x = Boolean::xor(cs.namespace(|| format!("xor {i}")), &acc, b)?;
                    let a = Boolean::and(cs.namespace(|| format!("and {i}")), &x, &b.not())?;
                    acc = Boolean::xor(cs.namespace(|| format!("mix {i}")), &a, &x)?;
                }
                multipack::pack_into_inputs(cs.namespace(|| "out"), &[acc])
            }
            Family::Num => {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0));
                let known = self.seed.is_some();
                let x = AllocatedNum::alloc(cs.namespace(|| "x"), || known.then(|| Scalar::random(&mut rng)).ok_or(SynthesisError::AssignmentMissing))?;
                let mut acc = x.clone();
                for i in 0..20 {
                    let sq = acc.square(cs.namespace(|| format!("square {i}")))?;
                    acc = sq.mul(cs.namespace(|| format!("mul {i}")), &x)?;
                }
                let bits = acc.to_bits_le(cs.namespace(|| "bits"))?;
                let flag = &bits[0];
                let (l, r) = AllocatedNum::conditionally_reverse(cs.namespace(|| "swap"), &x, &acc, flag)?;
                l.inputize(cs.namespace(|| "l"))?;
                r.inputize(cs.namespace(|| "r"))
            }
            Family::Uint32 => {
                let words: Vec<UInt32> = self.bytes(16).chunks(4).enumerate().map(|(i, w)| {
                    let v = u32::from_le_bytes(w.try_into().unwrap());
                    UInt32::alloc(cs.namespace(|| format!("word {i}")), self.seed.map(|_| v))
                }).collect::<Result<_, _>>()?;
                let sum = {
                    let mut cs = MultiEq::new(cs.namespace(|| "multieq"));
                    UInt32::addmany(cs.namespace(|| "sum"), &words)?
                };
                let x = sum.rotr(7).xor(cs.namespace(|| "xor"), &words[0].shr(3))?;
                multipack::pack_into_inputs(cs.namespace(|| "out"), &x.into_bits())
            }
            Family::Sha256 => {
                let bits = self.bits(cs, 64)?;
                let digest = sha256(cs.namespace(|| "sha256"), &bits)?;
                multipack::pack_into_inputs(cs.namespace(|| "digest"), &digest)
            }
            Family::Blake2s => {
                let bits = self.bits(cs, 32)?;
                let digest = blake2s(cs.namespace(|| "blake2s"), &bits, b"cuzktest")?;
                multipack::pack_into_inputs(cs.namespace(|| "digest"), &digest)
            }
            Family::Multipack => {
                let bits = self.bits(cs, 100)?;
                multipack::pack_into_inputs(cs.namespace(|| "packed"), &bits)
            }
            Family::Poseidon => {
                static CONSTANTS: std::sync::OnceLock<PoseidonConstants<Scalar, U2>> = std::sync::OnceLock::new();
                let constants = CONSTANTS.get_or_init(PoseidonConstants::new);
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed.unwrap_or(0));
                let known = self.seed.is_some();
                let mut alloc = |cs: &mut CS, i: usize| {
                    let v = Scalar::random(&mut rng);
                    AllocatedNum::alloc(cs.namespace(|| format!("leaf {i}")), || known.then_some(v).ok_or(SynthesisError::AssignmentMissing))
                };
                let mut acc = alloc(cs, 0)?;
                for i in 1..12 {
                    let leaf = alloc(cs, i)?;
                    acc = if i % 4 == 0 {
                        neptune::circuit::poseidon_hash(cs.namespace(|| format!("legacy hash {i}")), vec![acc, leaf], constants)?
                    } else {
                        neptune::circuit2::poseidon_hash_allocated(cs.namespace(|| format!("hash {i}")), vec![acc, leaf], constants)?
                    };
                }
                acc.inputize(cs.namespace(|| "root"))
            }
        }
    }
}
