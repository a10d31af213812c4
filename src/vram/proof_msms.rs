//! The eight MSMs of a Groth16 proof: their order, curves, sizes, and how
//! each splits into pieces of at most a plan's chunk of scalars.

use cuzk_kernels::msm::plan::{carried_cost, carried_windows, separate_cost, CallScalars, Curve as MsmCurve};

use super::slot_layout::SlotLayout;
use crate::witness::density::Density;
use crate::parameters::params::QueryLengths;
use crate::parameters::params_file::Query;

/// The eight MSMs of a proof, in the order they run on a worker's stream
/// and their results lie in its result buffer (as in `cpu::compute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofMsm {
    /// The H query against the H polynomial's coefficients.
    H,
    /// The L query against the aux values.
    L,
    /// A against the inputs.
    AInputs,
    /// A against the aux values its density selects.
    AAux,
    /// B in G1 against the inputs its density selects.
    BG1Inputs,
    /// B in G1 against the aux values its density selects.
    BG1Aux,
    /// B in G2 against the inputs its density selects.
    BG2Inputs,
    /// B in G2 against the aux values its density selects.
    BG2Aux,
}

impl ProofMsm {
    /// All eight, in their order.
    pub const ALL: [ProofMsm; 8] = [
        ProofMsm::H,
        ProofMsm::L,
        ProofMsm::AInputs,
        ProofMsm::AAux,
        ProofMsm::BG1Inputs,
        ProofMsm::BG1Aux,
        ProofMsm::BG2Inputs,
        ProofMsm::BG2Aux,
    ];

    /// The order a proof runs them in: H first (with late scalars, they
    /// are copied in beside it), then MSMs over resident and streamed
    /// bases taking turns as a 48 GiB plan has them (L and A resident, B
    /// streamed): the link copies the next streamed pieces while resident
    /// ones compute, instead of idling with its buffers full while L and
    /// A run back to back.
    pub const RUN_ORDER: [ProofMsm; 8] = [
        ProofMsm::H,
        ProofMsm::L,
        ProofMsm::BG1Inputs,
        ProofMsm::BG1Aux,
        ProofMsm::AInputs,
        ProofMsm::AAux,
        ProofMsm::BG2Inputs,
        ProofMsm::BG2Aux,
    ];

    /// G1 or G2: its query's.
    pub fn curve(self) -> MsmCurve {
        query_curve(self.query())
    }

    /// The parameter query whose bases it reads.
    pub fn query(self) -> Query {
        match self {
            ProofMsm::H => Query::H,
            ProofMsm::L => Query::L,
            ProofMsm::AInputs | ProofMsm::AAux => Query::A,
            ProofMsm::BG1Inputs | ProofMsm::BG1Aux => Query::BG1,
            ProofMsm::BG2Inputs | ProofMsm::BG2Aux => Query::BG2,
        }
    }

    /// Scalars the MSM reads (before density selection): what sizes its plan.
    pub fn scalars(self, lay: &SlotLayout) -> usize {
        match self {
            ProofMsm::H => lay.domain - 1,
            ProofMsm::AInputs | ProofMsm::BG1Inputs | ProofMsm::BG2Inputs => lay.inputs,
            ProofMsm::L | ProofMsm::AAux | ProofMsm::BG1Aux | ProofMsm::BG2Aux => lay.aux(),
        }
    }

    /// Bases the parameters hold for this MSM: an upper bound on the
    /// scalars a density can select (the witness's exact counts come later).
    pub fn bases_in(self, lengths: &QueryLengths) -> usize {
        query_len(self.query(), lengths)
    }

    /// Scalars per piece when MSMs are split into chunks of `chunk` G1
    /// points: a G2 point takes twice the bytes, so its pieces take half
    /// as many, and every piece's bases fit one staging buffer.
    pub fn piece_scalars(self, chunk: usize) -> usize {
        match self.curve() {
            MsmCurve::G1 => chunk,
            MsmCurve::G2 => chunk / 2,
        }
    }

    /// Pieces of an MSM of `n` scalars split at `chunk` (whole: one).
    pub fn pieces(self, n: usize, chunk: Option<usize>) -> usize {
        chunk.map_or(1, |c| n.div_ceil(self.piece_scalars(c)).max(1))
    }

    /// The density that selects this MSM's scalars, as an index into
    /// `[A aux, B inputs, B aux]` (the order of `CompiledCircuit::densities`).
    pub fn density(self) -> Option<usize> {
        match self {
            ProofMsm::AAux => Some(0),
            ProofMsm::BG1Inputs | ProofMsm::BG2Inputs => Some(1),
            ProofMsm::BG1Aux | ProofMsm::BG2Aux => Some(2),
            ProofMsm::H | ProofMsm::L | ProofMsm::AInputs => None,
        }
    }
}

/// Bases in a query (`QueryLengths`).
pub fn query_len(query: Query, lengths: &QueryLengths) -> usize {
    match query {
        Query::H => lengths.h,
        Query::L => lengths.l,
        Query::A => lengths.a,
        Query::BG1 => lengths.b_g1,
        Query::BG2 => lengths.b_g2,
        Query::VerifyingKey => lengths.ic,
    }
}

/// The curve of a query's bases: G2 for B in G2, else G1.
pub fn query_curve(query: Query) -> MsmCurve {
    match query {
        Query::BG2 => MsmCurve::G2,
        _ => MsmCurve::G1,
    }
}

/// Words of one base of a query in the MSMs' affine layout.
pub fn query_point_words(query: Query) -> usize {
    query_curve(query).affine_limbs()
}

/// Where each MSM's piece results lie in a result buffer, in u64 words:
/// the pieces of one MSM back to back, the MSMs in their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultPlaces {
    first: [usize; 8],
    pieces: [usize; 8],
}

impl ResultPlaces {
    /// The places for a layout's MSMs split at `chunk`.
    pub fn new(lay: &SlotLayout, chunk: Option<usize>) -> Self {
        let (mut first, mut pieces, mut at) = ([0; 8], [0; 8], 0);
        for m in ProofMsm::ALL {
            first[m as usize] = at;
            pieces[m as usize] = m.pieces(m.scalars(lay), chunk);
            at += pieces[m as usize] * m.curve().jacobian_limbs();
        }
        ResultPlaces { first, pieces }
    }

    /// Pieces of `msm`.
    pub fn pieces(&self, msm: ProofMsm) -> usize {
        self.pieces[msm as usize]
    }

    /// First word of piece `k` of `msm`.
    pub fn at(&self, msm: ProofMsm, k: usize) -> usize {
        self.first[msm as usize] + k * msm.curve().jacobian_limbs()
    }

    /// Words of the whole buffer.
    pub fn words(&self) -> usize {
        self.at(ProofMsm::BG2Aux, self.pieces(ProofMsm::BG2Aux))
    }

    /// Pieces of all MSMs.
    pub fn total_pieces(&self) -> usize {
        self.pieces.iter().sum()
    }

    /// The place of piece `k` of `msm` in a list of all pieces, MSMs in
    /// their order.
    pub fn index(&self, msm: ProofMsm, k: usize) -> usize {
        self.pieces[..msm as usize].iter().sum::<usize>() + k
    }
}

/// Set bits of the three densities before every `step`-th scalar: where a
/// density MSM's pieces begin in its bases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DensityRanks {
    step: usize,
    ranks: [Vec<usize>; 3],
}

impl DensityRanks {
    /// Ranks every `step` bits (a multiple of 64) of `[A aux, B inputs,
    /// B aux]`.
    pub fn new(step: usize, densities: [&Density; 3]) -> Self {
        assert!(step > 0 && step % 64 == 0, "density ranks every multiple of 64 bits");
        let ranks = densities.map(|d| {
            let mut out = vec![0];
            let mut sum = 0;
            for words in d.words().chunks(step / 64) {
                sum += words.iter().map(|w| w.count_ones() as usize).sum::<usize>();
                out.push(sum);
            }
            out
        });
        DensityRanks { step, ranks }
    }

    /// Set bits of density `which` before scalar `at` (a multiple of the
    /// step), if known.
    fn before(&self, which: usize, at: usize) -> Option<usize> {
        if at % self.step != 0 {
            return None;
        }
        let r = &self.ranks[which];
        r.get(at / self.step).or(r.last()).copied()
    }
}

/// One MSM call of a proof's MSM: scalars `scalar_start ..` `+ n` (their
/// density bits from the same place), of which `selected` take part, with
/// bases from `base_first` of the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Its place among the MSM's pieces.
    pub k: usize,
    /// First scalar (and density bit).
    pub scalar_start: usize,
    /// Scalars.
    pub n: usize,
    /// Those that take part (all `n` without a density).
    pub selected: usize,
    /// The base the first selected scalar pairs with.
    pub base_first: usize,
}

/// Aux values per count of those other than 0 and 1
/// (`witness::general_counts`): a G2 piece's scalars when MSMs run in
/// chunks (every aux MSM's pieces begin on a multiple of it, so each
/// piece's count is exact), else all of them.
pub fn general_count_block(chunk: Option<usize>) -> usize {
    chunk.map_or(usize::MAX, |c| ProofMsm::BG2Aux.piece_scalars(c))
}

/// The pieces of `msm` over `n` scalars (a density selecting `ones` of
/// them when it has one), its bases from `base_offset` of its query, split
/// at `chunk`; a density MSM in more than one piece needs `ranks` made
/// with a step that divides its pieces.
pub fn pieces(msm: ProofMsm, n: usize, ones: Option<usize>, base_offset: usize, chunk: Option<usize>, ranks: Option<&DensityRanks>) -> Result<Vec<Piece>, String> {
    let size = chunk.map_or(n.max(1), |c| msm.piece_scalars(c));
    let count = msm.pieces(n, chunk);
    (0..count)
        .map(|k| {
            let start = k * size;
            let len = size.min(n.saturating_sub(start));
            let (selected, before) = match (msm.density(), ones) {
                (Some(_), Some(ones)) if count == 1 => (ones, 0),
                (Some(which), Some(ones)) => {
                    let ranks = ranks.ok_or_else(|| format!("{msm:?} MSM in pieces without density ranks"))?;
                    let rank = |at: usize| ranks.before(which, at).ok_or_else(|| format!("density ranks every {} scalars cannot split at {at}", ranks.step));
                    let (a, b) = (rank(start)?, if start + len >= n { Ok(ones) } else { rank(start + len) }?);
                    (b.saturating_sub(a), a)
                }
                _ => (len, start),
            };
            Ok(Piece { k, scalar_start: start, n: len, selected, base_first: base_offset + before })
        })
        .collect()
}

/// Neighbouring pieces joined while the joined one still fits: at most
/// `cap` selected scalars (its bases fit a staging buffer; `None` for
/// resident bases) and `fits` (its MSM's plan, for its own scalars other
/// than 0 and 1, fits the arena). A piece keeps the place (`k`) of its
/// first part. Each MSM call costs a sort, a reduction and a dozen
/// launches whatever its size, so a witness MSM (mostly zeros and ones,
/// a Groth16 B density a quarter of its scalars) takes a few calls
/// instead of one per chunk.
pub fn merge_pieces(list: Vec<Piece>, cap: Option<usize>, fits: impl Fn(&Piece) -> bool) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(list.len());
    for piece in list {
        if let Some(last) = out.last_mut() {
            let joined = Piece { n: last.n + piece.n, selected: last.selected + piece.selected, ..*last };
            if cap.is_none_or(|c| joined.selected <= c) && fits(&joined) {
                *last = joined;
                continue;
            }
        }
        out.push(piece);
    }
    out
}

/// How one MSM runs: its calls, and the window they all share when they
/// carry their buckets (`cuzk_kernels::msm::plan::Carry`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MsmCalls {
    /// The calls, each selecting at least one scalar.
    pub pieces: Vec<Piece>,
    /// `Some(c)`: every call at window `c`, adding into one set of bucket
    /// sums that the last reduces; `None`: each call its own window and
    /// reduction.
    pub carried: Option<u32>,
}

/// The calls of an MSM split into `units` (its pieces of a chunk), joined
/// while they fit ([`merge_pieces`], `cap` as there): either each with
/// its own window, or all at one window carrying their buckets, whichever
/// the model (`carried_cost`, `separate_cost`) puts lower. `general`: at
/// most how many of a piece's selected scalars are neither 0 nor 1 (`None`:
/// all of them); `fits(piece, c)`: whether its plan at window `c` (0: its
/// own) fits the arena; `may_carry`: whether the MSMs' plans can carry
/// (the XYZZ first level). Pieces that select nothing are left out.
pub fn msm_calls(units: Vec<Piece>, cap: Option<usize>, may_carry: bool, general: impl Fn(&Piece) -> Option<usize>, fits: impl Fn(&Piece, u32) -> bool) -> MsmCalls {
    let scalars = |list: &[Piece]| -> Vec<CallScalars> {
        list.iter().map(|p| CallScalars { selected: p.selected as u64, general: general(p).unwrap_or(p.selected).min(p.selected) as u64 }).collect()
    };
    let selecting = |list: Vec<Piece>| -> Vec<Piece> { list.into_iter().filter(|p| p.selected > 0).collect() };
    let separate = selecting(merge_pieces(units.clone(), cap, |p| fits(p, 0)));
    if separate.len() <= 1 || !may_carry {
        return MsmCalls { pieces: separate, carried: None };
    }
    let general_total: u64 = scalars(&separate).iter().map(|c| c.general).sum();
    let carried = carried_windows(general_total)
        .filter_map(|c| {
            let list = selecting(merge_pieces(units.clone(), cap, |p| fits(p, c)));
            // A unit that does not fit on its own stays as it is: then
            // this window cannot carry.
            list.iter().all(|p| fits(p, c)).then(|| (carried_cost(c, &scalars(&list)), c, list))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match carried {
        Some((cost, c, list)) if cost < separate_cost(&scalars(&separate)) => MsmCalls { pieces: list, carried: Some(c) },
        _ => MsmCalls { pieces: separate, carried: None },
    }
}
