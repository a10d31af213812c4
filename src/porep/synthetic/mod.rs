//! C1 outputs of any registered sector size without sealing a sector: what
//! a full-size (32 GiB, 64 GiB) C2 needs when no sealed sector is at hand.
//!
//! The vanilla proofs are those a real sector could have: random data and
//! random parent columns (one column per node, wherever the node appears),
//! each challenged node's labels computed with the PoRep labeling hash from
//! its parents' labels, its replica leaf the encoding of its data with its
//! last label, and the three trees (tree_d, tree_c, tree_r_last) sparse:
//! the challenged paths with random siblings off them, one root per tree
//! shared by every path. comm_r = Poseidon(comm_c, comm_r_last), and the
//! challenges are derived from the seed as filecoin-proofs derives them.
//! The generator checks its output with storage-proofs' own vanilla
//! verifier before returning it.
//!
//! One thing differs from a sealed sector: the replica id is drawn at
//! random, since the real one hashes comm_d, which depends on the
//! challenged leaves, which depend on the replica id. So `verify_seal`,
//! which derives the replica id from the prover and sector ids, cannot
//! accept a synthetic sector's proof; bellperson's verifier with the
//! circuit's public inputs can.

mod sparse_tree;

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use blstrs::Scalar;
use ff::Field;
use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use filecoin_hashers::{Domain, HashFunction, Hasher};
use filecoin_proofs::{PoRepConfig, VanillaSealProof};
use filecoin_proofs_api::seal::{SealCommitPhase1Output as ApiC1, VanillaSealProof as ApiProofs};
use filecoin_proofs_api::RegisteredSealProof;
use log::info;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};
use storage_proofs_core::drgraph::Graph;
use storage_proofs_core::merkle::MerkleProof;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{
    Challenges, Column, ColumnProof, EncodingProof, LabelingProof, PublicInputs, ReplicaColumnProof, StackedDrg, Tau, TOTAL_PARENTS,
};
use typenum::Unsigned;

pub use sparse_tree::{levels, Level, SparseTree};

use super::c1::{C1Form, C1Output};
use super::circuits::public_params;
use super::shape::{check_supported, sector_bytes, with_tree, ShapeTree};
use super::PorepError;

/// A synthetic C1 output of `proof` (interactive challenges: API 1.0 and
/// 1.1 registered proofs), all its randomness from `seed`.
pub fn synthetic_c1(proof: RegisteredSealProof, seed: u64) -> Result<C1Output, PorepError> {
    check_supported(proof)?;
    let config = proof.as_v1_config();
    let phase1 = with_tree!(sector_bytes(proof), generate(proof, &config, seed))?;
    Ok(C1Output { phase1, sector_num: None, form: C1Form::ApiJson })
}

fn generate<Tree: ShapeTree>(proof: RegisteredSealProof, config: &PoRepConfig, seed: u64) -> Result<ApiC1, PorepError> {
    let start = Instant::now();
    let pp = public_params::<Tree>(config)?;
    if !matches!(pp.challenges, Challenges::Interactive(_)) {
        return Err(PorepError::UnsupportedProof {
            proof: format!("{proof:?}"),
            why: "synthetic C1 outputs have interactive challenges only (synthetic PoRep's challenges hash comm_r)",
        });
    }
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let graph = &pp.graph;
    let nodes = graph.size();
    let layers = pp.num_layers;
    let replica_id = PoseidonDomain::random(&mut rng);
    let mut challenge_seed = [0u8; 32];
    rng.fill_bytes(&mut challenge_seed);
    let mut ticket = [0u8; 32];
    rng.fill_bytes(&mut ticket);
    let stacked = |tau| PublicInputs::<PoseidonDomain, Sha256Domain> { replica_id, seed: Some(challenge_seed), tau, k: None };
    let partitions = usize::from(config.partitions);
    let challenges: Vec<Vec<usize>> = (0..partitions).map(|k| stacked(None).challenges(&pp.challenges, nodes, Some(k))).collect();

    // Parents of every challenged node, and every node whose column is opened.
    let degree = graph.degree();
    let drg = graph.base_graph().degree();
    let mut parents_of = BTreeMap::new();
    for &c in challenges.iter().flatten() {
        let mut parents = vec![0u32; degree];
        graph.parents(c, &mut parents).map_err(PorepError::proofs)?;
        parents_of.insert(c, parents.into_iter().map(|p| p as usize).collect::<Vec<_>>());
    }
    let opened: BTreeSet<usize> = parents_of.iter().flat_map(|(&c, ps)| std::iter::once(c).chain(ps.iter().copied())).collect();

    // Columns: random for nodes not challenged; computed for challenged
    // ones, layer by layer and node by node upwards (a node's base parents
    // precede it, its expansion parents are of the layer below).
    let mut rows: BTreeMap<usize, Vec<PoseidonDomain>> =
        opened.iter().map(|&n| (n, (0..layers).map(|_| PoseidonDomain::random(&mut rng)).collect())).collect();
    // Per challenged node and layer, the parent labels its label hashed.
    let mut hashed: BTreeMap<usize, Vec<Vec<PoseidonDomain>>> = BTreeMap::new();
    for layer in 1..=layers {
        for (&c, parents) in &parents_of {
            let taken = if layer == 1 { drg } else { degree };
            let mut distinct = Vec::with_capacity(taken);
            for (i, &p) in parents.iter().take(taken).enumerate() {
                let parent_layer = if i < drg { layer } else { layer - 1 };
                // A challenged base parent must be labeled before its child
                // in the same layer (expansion parents are of the layer below).
                if parent_layer == layer && p >= c && parents_of.contains_key(&p) {
                    return Err(PorepError::InvalidC1(format!("node {c}'s parent {p} at layer {parent_layer} is not labeled before it")));
                }
                distinct.push(rows[&p][parent_layer - 1]);
            }
            let repeated: Vec<PoseidonDomain> = distinct.iter().copied().cycle().take(TOTAL_PARENTS).collect();
            let label = label(&replica_id, layer as u32, c as u64, &repeated);
            rows.get_mut(&c).expect("challenged nodes are opened")[layer - 1] = label;
            hashed.entry(c).or_default().push(repeated);
        }
    }

    // The three trees over the leaves the proofs open.
    let tree_levels = levels(nodes, Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize());
    let data: BTreeMap<usize, Scalar> = parents_of.keys().map(|&c| (c, Scalar::random(&mut rng))).collect();
    let tree_d = SparseTree::<Sha256Hasher>::new(data.iter().map(|(&c, &d)| (c, Sha256Domain::from(d))).collect(), levels(nodes, 2, 0, 0), &mut rng);
    let column_hashes = rows.iter().map(|(&n, r)| Ok((n, PoseidonDomain::from(column(n, r)?.hash())))).collect::<Result<BTreeMap<_, _>, PorepError>>()?;
    let tree_c = SparseTree::<PoseidonHasher>::new(column_hashes, tree_levels.clone(), &mut rng);
    // The replica leaf: the data encoded with the last layer's label.
    let replica: BTreeMap<usize, PoseidonDomain> = data.iter().map(|(&c, &d)| (c, PoseidonDomain::from(Scalar::from(rows[&c][layers - 1]) + d))).collect();
    let tree_r = SparseTree::<PoseidonHasher>::new(replica, tree_levels, &mut rng);
    let (comm_d, comm_c, comm_r_last) = (tree_d.root(), tree_c.root(), tree_r.root());
    let comm_r = <PoseidonHasher as Hasher>::Function::hash2(&comm_c, &comm_r_last);

    let column_proof = |n: usize| -> Result<ColumnProof<MerkleProof<PoseidonHasher, Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>>, PorepError> {
        let inclusion = MerkleProof::from_parts(tree_c.leaf(n), comm_c, tree_c.path(n));
        ColumnProof::from_column(column(n, &rows[&n])?, inclusion).map_err(PorepError::proofs)
    };
    let mut vanilla: Vec<Vec<VanillaSealProof<Tree>>> = Vec::with_capacity(partitions);
    for partition in &challenges {
        let mut proofs = Vec::with_capacity(partition.len());
        for &c in partition {
            let parents = &parents_of[&c];
            let parent_labels = &hashed[&c];
            let labeling_proofs = (0..layers).map(|i| LabelingProof::new(i as u32 + 1, c as u64, parent_labels[i].clone())).collect();
            proofs.push(VanillaSealProof::<Tree> {
                comm_d_proofs: MerkleProof::from_parts(tree_d.leaf(c), comm_d, tree_d.path(c)),
                comm_r_last_proof: MerkleProof::from_parts(tree_r.leaf(c), comm_r_last, tree_r.path(c)),
                replica_column_proofs: ReplicaColumnProof {
                    c_x: column_proof(c)?,
                    drg_parents: parents[..drg].iter().map(|&p| column_proof(p)).collect::<Result<_, _>>()?,
                    exp_parents: parents[drg..].iter().map(|&p| column_proof(p)).collect::<Result<_, _>>()?,
                },
                labeling_proofs,
                encoding_proof: EncodingProof::new(layers as u32, c as u64, parent_labels[layers - 1].clone()),
            });
        }
        vanilla.push(proofs);
    }

    // The vanilla verifier filecoin-proofs' commit phase 1 runs.
    let public = stacked(Some(Tau { comm_d, comm_r }));
    if !StackedDrg::<Tree, Sha256Hasher>::verify_all_partitions(&pp, &public, &vanilla).map_err(PorepError::proofs)? {
        return Err(PorepError::InvalidC1(format!("the synthetic vanilla proofs of {proof:?} do not verify")));
    }
    info!(
        "synthetic C1 of {proof:?}: {} challenges, {} columns opened, in {:.2?}",
        challenges.iter().map(Vec::len).sum::<usize>(),
        rows.len(),
        start.elapsed()
    );
    Ok(ApiC1 {
        registered_proof: proof,
        vanilla_proofs: wrap(proof, vanilla)?,
        comm_r: comm_r.into_bytes().try_into().expect("32 bytes"),
        comm_d: comm_d.into_bytes().try_into().expect("32 bytes"),
        replica_id,
        seed: challenge_seed,
        ticket,
    })
}

/// The PoRep labeling hash: SHA-256 of the replica id, the layer (1-based)
/// and node, and the parents' labels, reduced into the field as
/// storage-proofs' `LabelingProof` computes it.
fn label(replica_id: &PoseidonDomain, layer: u32, node: u64, parents: &[PoseidonDomain]) -> PoseidonDomain {
    let mut buffer = [0u8; 64];
    buffer[..32].copy_from_slice(AsRef::<[u8]>::as_ref(replica_id));
    buffer[32..36].copy_from_slice(&layer.to_be_bytes());
    buffer[36..44].copy_from_slice(&node.to_be_bytes());
    let mut hasher = Sha256::new();
    hasher.update(buffer);
    for parent in parents {
        hasher.update(AsRef::<[u8]>::as_ref(parent));
    }
    fr32::bytes_into_fr_repr_safe(hasher.finalize().as_ref()).into()
}

fn column(node: usize, rows: &[PoseidonDomain]) -> Result<Column<PoseidonHasher>, PorepError> {
    Column::new(node as u32, rows.to_vec()).map_err(PorepError::proofs)
}

/// filecoin-proofs-api's wrapping of a sector size's vanilla proofs.
fn wrap<Tree: ShapeTree>(proof: RegisteredSealProof, vanilla: Vec<Vec<VanillaSealProof<Tree>>>) -> Result<ApiProofs, PorepError> {
    let any: Box<dyn Any> = Box::new(vanilla);
    let mismatch = || PorepError::InvalidC1(format!("{proof:?}: vanilla proofs of another tree shape"));
    macro_rules! as_variant {
        ($tree:ty, $variant:ident) => {
            any.downcast::<Vec<Vec<VanillaSealProof<$tree>>>>().map(|v| ApiProofs::$variant(*v)).map_err(|_| mismatch())
        };
    }
    match sector_bytes(proof) {
        filecoin_proofs::SECTOR_SIZE_2_KIB => as_variant!(filecoin_proofs::SectorShape2KiB, StackedDrg2KiBV1),
        filecoin_proofs::SECTOR_SIZE_8_MIB => as_variant!(filecoin_proofs::SectorShape8MiB, StackedDrg8MiBV1),
        filecoin_proofs::SECTOR_SIZE_512_MIB => as_variant!(filecoin_proofs::SectorShape512MiB, StackedDrg512MiBV1),
        filecoin_proofs::SECTOR_SIZE_32_GIB => as_variant!(filecoin_proofs::SectorShape32GiB, StackedDrg32GiBV1),
        filecoin_proofs::SECTOR_SIZE_64_GIB => as_variant!(filecoin_proofs::SectorShape64GiB, StackedDrg64GiBV1),
        other => Err(PorepError::UnsupportedSectorSize(other)),
    }
}
