//! One partition's witness, laid out as storage-proofs' `StackedCircuit`
//! allocates it, and filled in parallel.
//!
//! The aux vector is a header (the commitments, the replica id's bits,
//! comm_r's hash) and then, per challenge, five pieces in this order:
//!
//! | piece | what | how |
//! |-------|------|-----|
//! | tree_d | the data leaf; per level its index bit, sibling, the two ordered children, their bits, SHA-256, the packed hash | native, a task per level |
//! | columns | the 14 parent columns, their Poseidon hashes and tree_c paths; the challenge's 64 bits | native (`poseidon.rs`, `por.rs`), a task per column, then copied |
//! | labels | per layer its parents' bits, the label's SHA-256 (20 compressions), the packed label | native, a task per layer |
//! | tail | the encoded node, its tree_r_last path, the column hash of the labels and its tree_c path | native, two tasks, then copied |
//!
//! The tree_d and label pieces are ~98% of the values (all SHA-256); their
//! lengths do not depend on the values (what is constant in the gadgets'
//! inputs is fixed by the circuit), so each piece's place in the witness
//! is known before any is made, and they are written straight into the
//! constraint system's aux vector (the prover's pinned buffer). The small
//! pieces (columns, tail: ~2%) are made first into vectors of their own,
//! which give the layout its remaining lengths.

use std::marker::PhantomData;
use std::sync::OnceLock;
use std::time::Instant;

use log::debug;

use bellperson::gadgets::num::AllocatedNum;
use bellperson::{ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::{Field, PrimeField};
use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::{HashFunction, Hasher, POSEIDON_CONSTANTS_11, POSEIDON_CONSTANTS_2};
use filecoin_proofs::VanillaSealProof;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use storage_proofs_core::merkle::{MerkleProof, MerkleProofTrait};
use storage_proofs_porep::stacked::{PublicInputs, TOTAL_PARENTS};

use super::por;
use super::poseidon::poseidon;
use super::sha256::sha256;
use super::uint32::{Count, SliceSink, Sink, Word};
use crate::porep::{PorepError, ShapeTree};

/// A Merkle path as the circuit takes it: per level, the siblings and the
/// position among them.
type OptionPath = Vec<(Vec<Option<Scalar>>, Option<usize>)>;

/// The values one partition's witness is made of, taken from its
/// challenges' vanilla proofs.
pub struct NativePartition<Tree: ShapeTree> {
    replica_id: Scalar,
    comm_d: Scalar,
    comm_r: Scalar,
    comm_r_last: Scalar,
    comm_c: Scalar,
    challenges: Vec<Challenge>,
    _tree: PhantomData<Tree>,
}

// By hand: a derive would ask the tree type for Clone.
impl<Tree: ShapeTree> Clone for NativePartition<Tree> {
    fn clone(&self) -> Self {
        NativePartition { challenges: self.challenges.clone(), _tree: PhantomData, ..*self }
    }
}

/// One challenge's values.
#[derive(Clone)]
struct Challenge {
    data_leaf: Scalar,
    /// The challenged node (the labels' `node`).
    node: u64,
    /// tree_d, leaf to root: each level's sibling and whether the node is
    /// the right child.
    tree_d: Vec<(Scalar, bool)>,
    drg_parents: Vec<Column>,
    exp_parents: Vec<Column>,
    comm_r_last_path: OptionPath,
    comm_c_path: OptionPath,
}

/// A parent's column: one label per layer, and its tree_c path.
#[derive(Clone)]
struct Column {
    rows: Vec<Scalar>,
    path: OptionPath,
}

// storage-proofs keeps the fields of its column and labeling proofs to
// itself; these have the same serde layout, so a proof read through
// bincode into them gives its fields.
#[derive(Serialize, Deserialize)]
struct ColumnFields {
    index: u32,
    rows: Vec<PoseidonDomain>,
    _h: PhantomData<PoseidonHasher>,
}

#[derive(Deserialize)]
#[serde(bound = "P: serde::de::DeserializeOwned")]
struct ColumnProofFields<P> {
    column: ColumnFields,
    inclusion_proof: P,
}

#[derive(Deserialize)]
struct LabelingFields {
    _parents: Vec<PoseidonDomain>,
    _layer_index: u32,
    node: u64,
}

/// Reads `value`'s private fields through its serde layout.
fn fields_of<T: Serialize, F: serde::de::DeserializeOwned>(value: &T) -> Result<F, PorepError> {
    let bytes = bincode::serialize(value).map_err(|e| PorepError::InvalidC1(format!("re-encoding a vanilla proof: {e}")))?;
    bincode::deserialize(&bytes).map_err(|e| PorepError::InvalidC1(format!("reading a vanilla proof's fields: {e}")))
}

type TreeProof<Tree> = MerkleProof<PoseidonHasher, <Tree as storage_proofs_core::merkle::MerkleTreeTrait>::Arity, <Tree as storage_proofs_core::merkle::MerkleTreeTrait>::SubTreeArity, <Tree as storage_proofs_core::merkle::MerkleTreeTrait>::TopTreeArity>;

fn column<Tree: ShapeTree, T: Serialize>(proof: &T) -> Result<Column, PorepError> {
    let fields: ColumnProofFields<TreeProof<Tree>> = fields_of(proof)?;
    Ok(Column { rows: fields.column.rows.into_iter().map(Into::into).collect(), path: fields.inclusion_proof.as_options() })
}

impl<Tree: ShapeTree> NativePartition<Tree> {
    /// The values of a partition whose circuit storage-proofs'
    /// `StackedCompound::circuit` makes from `inputs` and `proofs`.
    pub(crate) fn new(inputs: &PublicInputs<PoseidonDomain, filecoin_proofs::DefaultPieceDomain>, proofs: &[VanillaSealProof<Tree>]) -> Result<Self, PorepError> {
        let tau = inputs.tau.as_ref().ok_or_else(|| PorepError::InvalidC1("no comm_d and comm_r".into()))?;
        let first = proofs.first().ok_or_else(|| PorepError::InvalidC1("a partition without challenges".into()))?;
        let challenges = proofs
            .iter()
            .map(|p| {
                let tree_d = p
                    .comm_d_proofs
                    .path()
                    .into_iter()
                    .map(|(siblings, index)| match (siblings.as_slice(), index) {
                        ([sibling], 0 | 1) => Ok(((*sibling).into(), index == 1)),
                        _ => Err(PorepError::InvalidC1("a tree_d path that is not binary".into())),
                    })
                    .collect::<Result<_, _>>()?;
                let columns = &p.replica_column_proofs;
                let c_x: ColumnProofFields<TreeProof<Tree>> = fields_of(&columns.c_x)?;
                let labeling = p.labeling_proofs.first().ok_or_else(|| PorepError::InvalidC1("a challenge without labeling proofs".into()))?;
                Ok(Challenge {
                    data_leaf: p.comm_d_proofs.leaf().into(),
                    node: fields_of::<_, LabelingFields>(labeling)?.node,
                    tree_d,
                    drg_parents: columns.drg_parents.iter().map(column::<Tree, _>).collect::<Result<_, _>>()?,
                    exp_parents: columns.exp_parents.iter().map(column::<Tree, _>).collect::<Result<_, _>>()?,
                    comm_r_last_path: p.comm_r_last_proof.as_options(),
                    comm_c_path: c_x.inclusion_proof.as_options(),
                })
            })
            .collect::<Result<Vec<_>, PorepError>>()?;
        let layers = challenges.first().and_then(|c| c.drg_parents.first()).map_or(0, |col| col.rows.len());
        if layers == 0 {
            return Err(PorepError::InvalidC1("parent columns without labels".into()));
        }
        if let Some(c) = challenges.iter().find(|c| c.drg_parents.is_empty() || c.exp_parents.is_empty() || c.drg_parents.iter().chain(&c.exp_parents).any(|col| col.rows.len() != layers)) {
            return Err(PorepError::InvalidC1(format!("challenge {}: parent columns of differing heights", c.node)));
        }
        Ok(NativePartition {
            replica_id: inputs.replica_id.into(),
            comm_d: tau.comm_d.into(),
            comm_r: tau.comm_r.into(),
            comm_r_last: first.comm_r_last().into(),
            comm_c: first.comm_c().into(),
            challenges,
            _tree: PhantomData,
        })
    }

    /// Writes the partition's witness into `cs` (a witness generator whose
    /// input vector holds ONE and whose aux vector is empty).
    pub(crate) fn synthesize<CS: ConstraintSystem<Scalar>>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        // From a thread of its own: a rayon worker of another pool waiting in
        // `install` would take up its own pool's next jobs meanwhile (other
        // partitions' syntheses, stacked on its thread and timed from their
        // start), where this one must simply wait.
        std::thread::scope(|scope| {
            let run = scope.spawn(|| native_pool().install(|| self.synthesize_in_pool(cs)));
            run.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    fn synthesize_in_pool<CS: ConstraintSystem<Scalar>>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let start = Instant::now();
        self.header(cs)?;
        let plain: Vec<Plain> = self.challenges.par_iter().map(|c| self.plain(c)).collect();
        // Each challenge's small pieces, in their order.
        let per_challenge = self.challenges[0].drg_parents.len() + self.challenges[0].exp_parents.len() + 3;
        let small: Vec<(Vec<Scalar>, Vec<Scalar>)> = (0..self.challenges.len() * per_challenge)
            .into_par_iter()
            .map(|i| {
                let (c, piece) = (i / per_challenge, i % per_challenge);
                self.small_piece(&self.challenges[c], &plain[c], piece)
            })
            .collect::<Result<_, _>>()?;
        let small_made = start.elapsed();

        let first = &self.challenges[0];
        let layers = first.drg_parents[0].rows.len();
        let label_lengths: Vec<usize> = (1..=layers).map(|layer| label_len(self.parents_at(first, layer).len())).collect();
        let native_len = 1 + first.tree_d.len() * level_len() + label_lengths.iter().sum::<usize>();
        let aux_len = self.challenges.len() * native_len + small.iter().map(|g| g.1.len()).sum::<usize>();
        let inputs_len = self.challenges.len() + small.iter().map(|g| g.0.len()).sum::<usize>();
        let (aux, inputs) = cs.allocate_empty(aux_len, inputs_len);

        // Per challenge: tree_d's path index (the challenge), then the small pieces' inputs.
        let mut inputs = inputs.iter_mut();
        for (c, pieces) in self.challenges.iter().zip(small.chunks(per_challenge)) {
            let tree_d_index = c.tree_d.iter().enumerate().fold(0u64, |acc, (i, (_, right))| acc | (*right as u64) << i);
            // (The values first: zip takes from its first side first.)
            for (value, slot) in std::iter::once(Scalar::from(tree_d_index)).chain(pieces.iter().flat_map(|p| p.0.iter().copied())).zip(inputs.by_ref()) {
                *slot = value;
            }
        }

        let mut tasks: Vec<(Task, &mut [Scalar])> = Vec::new();
        let mut rest = aux;
        let mut take = |len: usize| {
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            piece
        };
        for (ci, (c, pieces)) in self.challenges.iter().zip(small.chunks(per_challenge)).enumerate() {
            tasks.push((Task::Value(c.data_leaf), take(1)));
            for level in 0..c.tree_d.len() {
                tasks.push((Task::TreeD { challenge: ci, level, cur: plain[ci].tree_d_nodes[level] }, take(level_len())));
            }
            // The parent columns and the challenge's bits, the labels, then the tail.
            let (before, after) = pieces.split_at(per_challenge - 2);
            for (_, aux) in before {
                tasks.push((Task::Copy(aux), take(aux.len())));
            }
            for (layer, &len) in (1..=layers).zip(&label_lengths) {
                tasks.push((Task::Label { challenge: ci, layer }, take(len)));
            }
            for (_, aux) in after {
                tasks.push((Task::Copy(aux), take(aux.len())));
            }
        }
        let laid_out = start.elapsed();
        tasks.into_par_iter().try_for_each(|(task, out)| self.fill(task, out))?;
        debug!(
            "native witness: {aux_len} aux values in {:.3?} (header and small pieces {small_made:.3?}, layout {:.3?}, native pieces {:.3?})",
            start.elapsed(),
            laid_out - small_made,
            start.elapsed() - laid_out
        );
        Ok(())
    }

    /// The circuit's first values: the commitments (replica id, comm_d and
    /// comm_r public), the replica id's bits, comm_r = H(comm_c, comm_r_last).
    fn header<CS: ConstraintSystem<Scalar>>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let replica_id = AllocatedNum::alloc(cs.namespace(|| "replica_id"), || Ok(self.replica_id))?;
        replica_id.inputize(cs.namespace(|| "replica_id_input"))?;
        replica_id.to_bits_le(cs.namespace(|| "replica_id_bits"))?;
        let comm_d = AllocatedNum::alloc(cs.namespace(|| "comm_d"), || Ok(self.comm_d))?;
        comm_d.inputize(cs.namespace(|| "comm_d_input"))?;
        let comm_r = AllocatedNum::alloc(cs.namespace(|| "comm_r"), || Ok(self.comm_r))?;
        comm_r.inputize(cs.namespace(|| "comm_r_input"))?;
        let comm_r_last = AllocatedNum::alloc(cs.namespace(|| "comm_r_last"), || Ok(self.comm_r_last))?;
        let comm_c = AllocatedNum::alloc(cs.namespace(|| "comm_c"), || Ok(self.comm_c))?;
        <PoseidonHasher as Hasher>::Function::hash2_circuit(cs.namespace(|| "H_comm_c_comm_r_last"), &comm_c, &comm_r_last)?;
        Ok(())
    }

    /// A challenge's plain values: tree_d's node below each level, and the
    /// labels.
    fn plain(&self, c: &Challenge) -> Plain {
        let mut tree_d_nodes = Vec::with_capacity(c.tree_d.len());
        let mut cur = c.data_leaf;
        for &(sibling, right) in &c.tree_d {
            tree_d_nodes.push(cur);
            let (left, right) = if right { (sibling, cur) } else { (cur, sibling) };
            cur = sha256_node(&[left, right]);
        }
        let layers = c.drg_parents[0].rows.len();
        Plain { tree_d_nodes, labels: (1..=layers).map(|layer| self.label(c, layer)).collect() }
    }

    /// A challenge's smaller piece (inputs, aux), by index: each parent
    /// column (its values, Poseidon hash and tree_c path), the challenge's
    /// 64 bits; then the encoded node and its tree_r_last path; the labels'
    /// column hash and its tree_c path. (What storage-proofs' gadgets
    /// allocate there, made natively: `poseidon.rs`, `por.rs`.)
    fn small_piece(&self, c: &Challenge, plain: &Plain, piece: usize) -> Result<(Vec<Scalar>, Vec<Scalar>), SynthesisError> {
        let parents = c.drg_parents.len() + c.exp_parents.len();
        let mut aux = Vec::new();
        let input = if piece < parents {
            let parent = c.drg_parents.get(piece).unwrap_or_else(|| &c.exp_parents[piece - c.drg_parents.len()]);
            parent.rows.iter().for_each(|&v| aux.value(v));
            let hash = column_hash(&parent.rows, &mut aux)?;
            self.inclusion(&parent.path, hash, &mut aux)?
        } else if piece == parents {
            (0..64).for_each(|i| aux.bit(c.node >> i & 1 == 1));
            Scalar::from(c.node)
        } else if piece == parents + 1 {
            let encoded = *plain.labels.last().expect("a layer at least") + c.data_leaf;
            aux.value(encoded);
            self.inclusion(&c.comm_r_last_path, encoded, &mut aux)?
        } else {
            let column = column_hash(&plain.labels, &mut aux)?;
            self.inclusion(&c.comm_c_path, column, &mut aux)?
        };
        Ok((vec![input], aux))
    }

    /// A tree_c or tree_r_last path's values and its public input.
    fn inclusion(&self, path: &OptionPath, leaf: Scalar, aux: &mut Vec<Scalar>) -> Result<Scalar, SynthesisError> {
        por::inclusion::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(path, leaf, aux)
            .ok_or_else(|| SynthesisError::IncompatibleLengthVector("a Merkle path of another tree shape".into()))
    }

    /// The parents a label of `layer` hashes (before the circuit repeats
    /// them to 37): the DRG parents' labels in this layer, and from layer 2
    /// on the expander parents' in the layer below.
    fn parents_at(&self, c: &Challenge, layer: usize) -> Vec<Scalar> {
        let mut parents: Vec<Scalar> = c.drg_parents.iter().map(|p| p.rows[layer - 1]).collect();
        if layer > 1 {
            parents.extend(c.exp_parents.iter().map(|p| p.rows[layer - 2]));
        }
        parents
    }

    /// A label's value, as the circuit's `create_label_circuit` makes it.
    fn label(&self, c: &Challenge, layer: usize) -> Scalar {
        let mut h = Sha256::new();
        h.update(self.replica_id.to_repr());
        h.update((layer as u32).to_be_bytes());
        h.update(c.node.to_be_bytes());
        h.update([0u8; 20]);
        for p in expand_parents(&self.parents_at(c, layer)) {
            h.update(p.to_repr());
        }
        truncated(h.finalize().into())
    }

    /// Runs a task into its piece, which it must fill exactly.
    fn fill(&self, task: Task, out: &mut [Scalar]) -> Result<(), SynthesisError> {
        let len = out.len();
        let mut sink = SliceSink::new(out);
        match task {
            Task::Value(v) => sink.value(v),
            Task::Copy(values) => values.iter().for_each(|&v| sink.value(v)),
            Task::TreeD { challenge, level, cur } => {
                let (sibling, right) = self.challenges[challenge].tree_d[level];
                tree_d_level(cur, sibling, right, &mut sink);
            }
            Task::Label { challenge, layer } => {
                let c = &self.challenges[challenge];
                let parents = self.parents_at(c, layer);
                label_witness(self.replica_id, layer as u32, c.node, &parents, &mut sink);
            }
        }
        if sink.written() != len {
            return Err(SynthesisError::IncompatibleLengthVector(format!("a native witness piece of {} values where the layout has {len}", sink.written())));
        }
        Ok(())
    }
}

/// The threads native witnesses run on, one per core (or
/// `CUZK_WITNESS_THREADS`, to leave cores to other work): their own pool,
/// so that a partition synthesized from a small pool (the prover's
/// synthesis threads, which bound how many witnesses exist at once) still
/// uses every core.
fn native_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let configured = std::env::var("CUZK_WITNESS_THREADS").ok().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0);
        let cores = configured.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        rayon::ThreadPoolBuilder::new().num_threads(cores).thread_name(|i| format!("cuzk-witness-{i}")).build().expect("a thread pool")
    })
}

/// What a task writes into its piece of the aux vector.
enum Task<'a> {
    Value(Scalar),
    Copy(&'a [Scalar]),
    /// One level of tree_d's path, from the node `cur` below it.
    TreeD { challenge: usize, level: usize, cur: Scalar },
    Label { challenge: usize, layer: usize },
}

/// A challenge's values computed plainly: tree_d's node below each
/// level, the labels.
struct Plain {
    tree_d_nodes: Vec<Scalar>,
    labels: Vec<Scalar>,
}

/// A column's Poseidon hash (storage-proofs' `hash_single_column`).
fn column_hash(rows: &[Scalar], aux: &mut Vec<Scalar>) -> Result<Scalar, SynthesisError> {
    match rows.len() {
        2 => Ok(poseidon(rows, &POSEIDON_CONSTANTS_2, aux)),
        11 => Ok(poseidon(rows, &POSEIDON_CONSTANTS_11, aux)),
        n => Err(SynthesisError::IncompatibleLengthVector(format!("a column of {n} layers"))),
    }
}

/// The label's 37 parents from the layer's 6 (layer 1) or 14: repeated,
/// as the circuit and the vanilla labeling do.
fn expand_parents(parents: &[Scalar]) -> Vec<Scalar> {
    let mut expanded: Vec<Scalar> = parents.iter().copied().cycle().take(TOTAL_PARENTS).collect();
    if parents.len() == 6 {
        // Layer 1: six rounds of the six, then the first again.
        expanded[TOTAL_PARENTS - 1] = parents[0];
    }
    expanded
}

/// SHA-256 as Filecoin's trees and labels use it: the digest's first 254
/// bits (little-endian) as a field element.
fn truncated(mut digest: [u8; 32]) -> Scalar {
    digest[31] &= 0x3f;
    Scalar::from_repr_vartime(digest).expect("254 bits are below the modulus")
}

/// A tree_d node from its two children.
fn sha256_node(children: &[Scalar; 2]) -> Scalar {
    let mut h = Sha256::new();
    h.update(children[0].to_repr());
    h.update(children[1].to_repr());
    truncated(h.finalize().into())
}

/// A field element's 255 bits, as `AllocatedNum::to_bits_le` allocates
/// them.
fn bits_le(value: Scalar, sink: &mut impl Sink) {
    let repr = value.to_repr();
    for k in 0..Scalar::NUM_BITS as usize {
        sink.bit(repr[k / 8] >> (k % 8) & 1 == 1);
    }
}

/// A field element as the SHA-256 gadget reads its 255 bits in
/// little-endian bytes, most significant bit of each byte first, the
/// missing 256th bit a constant zero: the big-endian words of its bytes.
fn message_words(value: Scalar) -> [Word; 8] {
    let repr = value.to_repr();
    std::array::from_fn(|k| {
        let w = u32::from_be_bytes(repr[4 * k..4 * k + 4].try_into().expect("4 bytes"));
        // Byte 31's top bit is the padding constant.
        if k == 7 {
            Word::with_constants(w, 0x80)
        } else {
            Word::allocated(w)
        }
    })
}

/// The digest words as the packed number the circuit allocates.
fn digest_value(state: &[Word; 8]) -> Scalar {
    let mut digest = [0u8; 32];
    for (k, w) in state.iter().enumerate() {
        digest[4 * k..4 * k + 4].copy_from_slice(&w.value.to_be_bytes());
    }
    truncated(digest)
}

/// One level of tree_d's inclusion path (storage-proofs' `SubPath`
/// arity 2, Filecoin's SHA-256 `hash_multi_leaf_circuit`): the index bit,
/// the sibling, the two children in order (`insert_2`'s picks), their
/// bits, SHA-256 of their 64 bytes, the packed hash.
fn tree_d_level(cur: Scalar, sibling: Scalar, right: bool, sink: &mut impl Sink) {
    sink.bit(right);
    sink.value(sibling);
    let (left, right_child) = if right { (sibling, cur) } else { (cur, sibling) };
    sink.value(left);
    sink.value(right_child);
    bits_le(left, sink);
    bits_le(right_child, sink);
    let mut message = [Word::constant(0); 16];
    message[..8].copy_from_slice(&message_words(left));
    message[8..].copy_from_slice(&message_words(right_child));
    let state = sha256(&message, sink);
    sink.value(digest_value(&state));
}

/// One label (storage-proofs' labeling in the circuit): the layer's
/// parents' bits, SHA-256 of replica id ‖ layer ‖ node ‖ zeros ‖ the 37
/// parents, the packed label.
fn label_witness(replica_id: Scalar, layer: u32, node: u64, parents: &[Scalar], sink: &mut impl Sink) {
    for &p in parents {
        bits_le(p, sink);
    }
    let mut message = Vec::with_capacity(8 * (2 + TOTAL_PARENTS));
    message.extend(message_words(replica_id));
    message.push(Word::constant(layer));
    // The challenge's 64 allocated bits, big-endian.
    message.push(Word::allocated((node >> 32) as u32));
    message.push(Word::allocated(node as u32));
    message.extend([Word::constant(0); 5]);
    for p in expand_parents(parents) {
        message.extend(message_words(p));
    }
    let state = sha256(&message, sink);
    sink.value(digest_value(&state));
}

/// Values one tree_d level allocates.
fn level_len() -> usize {
    static LEN: OnceLock<usize> = OnceLock::new();
    *LEN.get_or_init(|| {
        let mut count = Count::default();
        tree_d_level(Scalar::ZERO, Scalar::ZERO, false, &mut count);
        count.0
    })
}

/// Values a label of `parents` distinct parents allocates.
fn label_len(parents: usize) -> usize {
    static SHA_LEN: OnceLock<usize> = OnceLock::new();
    let sha = *SHA_LEN.get_or_init(|| {
        let mut count = Count::default();
        label_witness(Scalar::ZERO, 1, 0, &[Scalar::ZERO; 6], &mut count);
        count.0 - 6 * Scalar::NUM_BITS as usize
    });
    parents * Scalar::NUM_BITS as usize + sha
}
