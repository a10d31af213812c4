//! A Merkle tree known only along some paths: the leaves given, random
//! siblings beside them, and every node above computed with the tree's own
//! hash, as storage-proofs' `InclusionPath::root` hashes a path. All paths
//! of one tree share its nodes, so they share its root.

use std::collections::BTreeMap;

use filecoin_hashers::{Domain, Hasher};
use merkletree::hash::Algorithm;
use rand_core::RngCore;

/// One level of a tree: how many children a node has, and the height
/// storage-proofs hashes it at (its index within the base, sub or top
/// tree's own path).
#[derive(Clone, Copy, Debug)]
pub struct Level {
    /// Children per node.
    pub arity: usize,
    /// The `height` argument of the hash.
    pub height: usize,
}

/// The levels of a tree of `leaves` leaves: a base tree of arity `base`,
/// then one level of `sub` children and one of `top` (0: none), as
/// storage-proofs' compound trees are built.
pub fn levels(leaves: usize, base: usize, sub: usize, top: usize) -> Vec<Level> {
    let mut base_leaves = leaves / sub.max(1) / top.max(1);
    let mut out = Vec::new();
    while base_leaves > 1 {
        out.push(Level { arity: base, height: out.len() });
        base_leaves /= base;
    }
    out.extend([sub, top].into_iter().filter(|&a| a > 0).map(|arity| Level { arity, height: 0 }));
    out
}

/// The known part of a tree.
pub struct SparseTree<H: Hasher> {
    /// Level by level from the leaves: each known node by index.
    nodes: Vec<BTreeMap<usize, H::Domain>>,
    levels: Vec<Level>,
}

impl<H: Hasher> SparseTree<H> {
    /// The tree over `leaves` (index, value); siblings off their paths are
    /// drawn from `rng`.
    pub fn new(leaves: BTreeMap<usize, H::Domain>, levels: Vec<Level>, rng: &mut impl RngCore) -> Self {
        let mut nodes = vec![leaves];
        for level in &levels {
            let below = nodes.last_mut().expect("the leaves");
            let parents: Vec<usize> = below.keys().map(|i| i / level.arity).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            let mut above = BTreeMap::new();
            for parent in parents {
                let children: Vec<H::Domain> =
                    (0..level.arity).map(|c| *below.entry(parent * level.arity + c).or_insert_with(|| H::Domain::random(rng))).collect();
                let mut hash = H::Function::default();
                hash.reset();
                above.insert(parent, hash.multi_node(&children, level.height));
            }
            nodes.push(above);
        }
        SparseTree { nodes, levels }
    }

    /// The root.
    pub fn root(&self) -> H::Domain {
        *self.nodes.last().and_then(|top| top.get(&0)).expect("a tree with a leaf has a root")
    }

    /// The leaf at `index` (one of those given).
    pub fn leaf(&self, index: usize) -> H::Domain {
        self.nodes[0][&index]
    }

    /// The inclusion path of leaf `index`: per level, the siblings and the
    /// leaf's position among them (storage-proofs' `MerkleProof::from_parts`).
    pub fn path(&self, mut index: usize) -> Vec<(Vec<H::Domain>, usize)> {
        self.levels
            .iter()
            .zip(&self.nodes)
            .map(|(level, known)| {
                let (parent, position) = (index / level.arity, index % level.arity);
                let siblings = (0..level.arity).filter(|&c| c != position).map(|c| known[&(parent * level.arity + c)]).collect();
                index = parent;
                (siblings, position)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_hashers::poseidon::PoseidonHasher;
    use filecoin_hashers::sha256::Sha256Hasher;
    use generic_array::typenum::{U0, U2, U8};
    use rand_core::SeedableRng;
    use storage_proofs_core::merkle::{MerkleProof, MerkleProofTrait};

    #[test]
    fn levels_of_the_registered_tree_shapes() {
        let arities = |l: Vec<Level>| l.iter().map(|l| (l.arity, l.height)).collect::<Vec<_>>();
        assert_eq!(arities(levels(64, 8, 0, 0)), vec![(8, 0), (8, 1)]);
        assert_eq!(arities(levels(1 << 30, 8, 8, 0)).len(), 10);
        assert_eq!(arities(levels(1 << 30, 8, 8, 0))[9], (8, 0));
        assert_eq!(arities(levels(1 << 31, 8, 8, 2))[9..], [(8, 0), (2, 0)]);
        assert_eq!(levels(1 << 30, 2, 0, 0).len(), 30);
    }

    /// Paths of one sparse tree verify with storage-proofs' own proofs and
    /// share the root, for a binary SHA-256 tree and a compound Poseidon one.
    #[test]
    fn paths_verify_as_storage_proofs_merkle_proofs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let picks = [1usize, 2, 9, 63, 200, 511];
        let sha: BTreeMap<_, _> = picks.iter().map(|&i| (i, <Sha256Hasher as Hasher>::Domain::random(&mut rng))).collect();
        let tree = SparseTree::<Sha256Hasher>::new(sha, levels(512, 2, 0, 0), &mut rng);
        for &i in &picks {
            let proof = MerkleProof::<Sha256Hasher, U2>::from_parts(tree.leaf(i), tree.root(), tree.path(i));
            assert!(proof.verify() && proof.validate(i), "sha256 leaf {i}");
        }
        let pos: BTreeMap<_, _> = picks.iter().map(|&i| (i, <PoseidonHasher as Hasher>::Domain::random(&mut rng))).collect();
        let tree = SparseTree::<PoseidonHasher>::new(pos, levels(512, 8, 8, 0), &mut rng);
        for &i in &picks {
            let proof = MerkleProof::<PoseidonHasher, U8, U8, U0>::from_parts(tree.leaf(i), tree.root(), tree.path(i));
            assert!(proof.verify() && proof.validate(i), "poseidon leaf {i}");
            // Another leaf's value does not verify on this path.
            let wrong = MerkleProof::<PoseidonHasher, U8, U8, U0>::from_parts(tree.leaf(picks[0] ^ 1), tree.root(), tree.path(i));
            assert!(!wrong.verify() || tree.leaf(picks[0] ^ 1) == tree.leaf(i));
        }
    }
}
