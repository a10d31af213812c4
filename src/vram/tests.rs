//! The plan chooser on a 32 GiB PoRep partition's shape and on small ones,
//! and the MSMs' pieces.

use super::plan::{KEEP_ORDER, MIN_CHUNK};
use super::proof_msms::{general_count_block, merge_pieces, msm_calls, pieces, DensityRanks, Piece, ResultPlaces};
use super::*;
use crate::parameters::params::QueryLengths;
use crate::parameters::params_file::Query;
use crate::witness::density::Density;
use rand::{Rng, SeedableRng};

const GIB: u64 = 1 << 30;

/// A 32 GiB partition's parameters (a real partition's densities).
fn porep_32g() -> QueryLengths {
    let (inputs, aux) = (329, 130_169_893);
    let (a_aux, b_aux) = (129_779_383, 33_063_153);
    QueryLengths { ic: inputs, h: (1 << 27) - 1, l: aux, a: inputs + a_aux, b_g1: 1 + b_aux, b_g2: 1 + b_aux }
}

/// The compiled 32 GiB circuit's matrices on the device (7.4 GiB).
const COMPILED_32G: u64 = 7_945_000_000;

fn plan_32g(compiled: bool, gib: u64) -> Result<VramPlan, u64> {
    let needs = VramNeeds::new(porep_32g(), if compiled { COMPILED_32G } else { 0 }, 2, true, true);
    VramPlan::choose(&needs, gib * GIB)
}

#[test]
fn a_32g_partition_on_an_h200_keeps_everything_resident_with_two_workers() {
    for compiled in [true, false] {
        let p = plan_32g(compiled, 141).unwrap();
        assert_eq!((p.workers, p.msm_chunk, p.row_twiddles, p.streamed.len()), (2, None, true, 0), "{p}");
        // The layout proofs had before plans: scratch per worker, the arena
        // apart, as there is room.
        assert!(!p.msm_in_slot && p.scratch_sets == 2, "{p}");
        assert!(p.total() < 125 * GIB, "{p}");
    }
}

#[test]
fn a_32g_partition_at_80_gib() {
    // Compiled: one worker with every query resident beats two that
    // stream H in chunks (a compiled witness's pre-stage is short).
    let p = plan_32g(true, 80).unwrap();
    assert_eq!((p.workers, p.streamed.len(), p.msm_chunk), (1, 0, None), "{p}");
    // Its arena lies in the slot's used-up a, b, c: apart, it would not fit.
    assert!(p.msm_in_slot, "{p}");
    // Full assignments: two workers (their uploads are long), every query
    // resident and MSMs whole: the H step's output over its input and the
    // scalars copied in during the compute leave room for it.
    let p = plan_32g(false, 80).unwrap();
    assert_eq!((p.workers, p.streamed.len(), p.h_in_slot, p.scalars_late, p.msm_chunk), (2, 0, true, true, None), "{p}");
}

#[test]
fn a_32g_partition_at_48_24_and_16_gib() {
    for compiled in [true, false] {
        let p = plan_32g(compiled, 48).unwrap();
        assert!(p.streamed.len() >= 3 && p.streamed.contains(&Query::H) && p.total() <= 48 * GIB, "{p}");
        // Every chunked plan here has room for H's pieces to carry their
        // buckets at the whole MSM's 20-bit window.
        for gib in [48, 24, 16] {
            if let Ok(p) = plan_32g(compiled, gib) {
                assert!(p.carried_buckets && p.msm_chunk.is_some(), "{p}");
            }
        }
    }
    // 24 GiB: one worker; a compiled circuit's matrices fit only with the
    // H step's output over its input and every query streamed.
    let p = plan_32g(true, 24).unwrap();
    assert_eq!((p.workers, p.streamed.len(), p.h_in_slot), (1, 5, true), "{p}");
    let p = plan_32g(false, 24).unwrap();
    assert_eq!((p.workers, p.scalars_late), (1, true), "{p}");
    // 16 GiB: full assignments only, the scalars copied in during the
    // compute (the slot is then a, b, c: 12 GiB) and every query streamed;
    // a compiled circuit needs 23.4 GiB.
    let p = plan_32g(false, 16).unwrap();
    assert_eq!((p.workers, p.streamed.len(), p.h_in_slot, p.scalars_late), (1, 5, true, true), "{p}");
    let least = plan_32g(true, 16).unwrap_err();
    assert!(least > 23 * GIB && least < 24 * GIB, "{least}");
}

#[test]
fn without_carried_buckets_or_with_batch_affine_no_plan_carries() {
    for (compiled, gib) in [(true, 48), (false, 48), (false, 24), (false, 16)] {
        let mut needs = VramNeeds::new(porep_32g(), if compiled { COMPILED_32G } else { 0 }, 2, true, true);
        let carried = VramPlan::choose(&needs, gib * GIB).unwrap();
        needs.carried_buckets = false;
        let separate = VramPlan::choose(&needs, gib * GIB).unwrap();
        assert!(carried.carried_buckets && !separate.carried_buckets, "{carried} / {separate}");
        // H's 16 or 8 separate calls at their own smaller windows are
        // modelled dearer than one set of carried buckets.
        assert!(separate.estimated_s > carried.estimated_s, "{carried} / {separate}");
        // The batch-affine first level does not carry: no arena for it.
        needs.carried_buckets = true;
        needs.msm.accumulation = cuzk_kernels::msm::plan::Accumulation::BatchAffine { streams: 0 };
        assert!(!VramPlan::choose(&needs, gib * GIB).unwrap().carried_buckets);
    }
}

fn small(rows_log: u32, aux: usize, inputs: usize) -> QueryLengths {
    QueryLengths { ic: inputs, h: (1 << rows_log) - 1, l: aux, a: inputs + aux * 9 / 10, b_g1: 1 + aux / 4, b_g2: 1 + aux / 4 }
}

#[test]
fn every_plan_fits_its_budget_and_the_least_budget_is_exact() {
    for (lengths, compiled) in [(small(14, 12_000, 4), 0), (small(17, 100_000, 30), 3 << 20), (small(10, 900, 2), 0)] {
        for workers in [1, 2, 3] {
            for serial in [true, false] {
                let needs = VramNeeds::new(lengths, compiled, workers, true, serial);
                let least = VramPlan::choose(&needs, 0).unwrap_err();
                let at_least = VramPlan::choose(&needs, least).expect("the least budget");
                assert_eq!(at_least.total(), least);
                assert_eq!(VramPlan::choose(&needs, least - 1), Err(least));
                let all = VramPlan::choose(&needs, u64::MAX).unwrap();
                assert_eq!((all.workers, all.streamed.len(), all.msm_chunk), (workers, 0, None));
                let mut last = f64::INFINITY;
                for k in 0..=64 {
                    let budget = least + (all.total() - least) * k / 64;
                    let p = VramPlan::choose(&needs, budget).unwrap();
                    assert!(p.total() <= budget, "{p}");
                    // Streamed queries are the last of the keep order.
                    assert_eq!(p.streamed[..], KEEP_ORDER[KEEP_ORDER.len() - p.streamed.len()..]);
                    assert!(p.msm_chunk.is_some() || p.streamed.is_empty());
                    // More memory never makes the chosen plan slower.
                    assert!(p.estimated_s <= last + 1e-12, "{budget}: {p}");
                    last = p.estimated_s;
                }
            }
        }
    }
}

#[test]
fn chunk_candidates_are_powers_of_two_below_the_largest_msm() {
    let needs = VramNeeds::new(porep_32g(), 0, 1, true, true);
    let c = needs.chunk_candidates();
    assert_eq!(c.first(), Some(&(1 << 26)));
    assert_eq!(c.last(), Some(&(1 << 17)), "at most 1024 chunks of the largest MSM");
    let needs = VramNeeds::new(small(10, 900, 2), 0, 1, true, true);
    assert_eq!(needs.chunk_candidates(), vec![MIN_CHUNK]);
}

fn random_density(n: usize, fraction: f64, rng: &mut impl Rng) -> Density {
    let mut d = Density::default();
    for i in 0..n {
        d.push_unset();
        if rng.gen_bool(fraction) {
            d.set(i);
        }
    }
    d
}

#[test]
fn pieces_cover_every_scalar_and_base_once() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    for (n, fraction) in [(0, 0.5), (1, 1.0), (1023, 0.3), (1024, 0.0), (5000, 0.25), (70_000, 0.997)] {
        let [a, bi, b] = [random_density(n, fraction, &mut rng), random_density(7, 0.5, &mut rng), random_density(n, 1.0 - fraction, &mut rng)];
        for chunk in [None, Some(1024), Some(4096)] {
            let ranks = chunk.map(|c| DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(c), [&a, &bi, &b]));
            for msm in [ProofMsm::L, ProofMsm::AAux, ProofMsm::BG1Aux, ProofMsm::BG2Aux] {
                let density = msm.density().map(|w| [&a, &bi, &b][w]);
                let ones = density.map(|d| d.count_ones());
                let list = pieces(msm, n, ones, 10, chunk, ranks.as_ref()).unwrap();
                assert_eq!(list.len(), msm.pieces(n, chunk));
                let (mut scalar, mut base) = (0, 10);
                for (k, p) in list.iter().enumerate() {
                    assert_eq!((p.k, p.scalar_start, p.base_first), (k, scalar, base), "{msm:?} {chunk:?}");
                    let want = density.map_or(p.n, |d| (p.scalar_start..p.scalar_start + p.n).filter(|&i| d.get(i)).count());
                    assert_eq!(p.selected, want);
                    assert!(chunk.is_none_or(|c| p.n <= msm.piece_scalars(c)));
                    scalar += p.n;
                    base += p.selected;
                }
                assert_eq!(scalar, n);
                assert_eq!(base - 10, ones.unwrap_or(n));
            }
        }
    }
}

/// The engine counts the aux values other than 0 and 1 in blocks of
/// `general_count_block`: every aux MSM's pieces begin on a block, so the
/// count each piece is planned with is its own range's, exactly.
#[test]
fn each_pieces_count_of_general_scalars_is_its_own() {
    use crate::witness::general_counts::GeneralCounts;
    use blstrs::Scalar;
    use ff::Field;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let n = 70_001;
    let values: Vec<Scalar> = (0..n).map(|_| if rng.gen_bool(0.05) { Scalar::random(&mut rng) } else { Scalar::from(rng.gen_range(0..2u64)) }).collect();
    let [a, bi, b] = [random_density(n, 0.997, &mut rng), random_density(7, 0.5, &mut rng), random_density(n, 0.254, &mut rng)];
    for chunk in [None, Some(1024), Some(4096), Some(1 << 16)] {
        let counts = GeneralCounts::count(&values, proof_msms::general_count_block(chunk));
        let ranks = chunk.map(|c| DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(c), [&a, &bi, &b]));
        for msm in [ProofMsm::L, ProofMsm::AAux, ProofMsm::BG1Aux, ProofMsm::BG2Aux] {
            let ones = msm.density().map(|w| [&a, &bi, &b][w].count_ones());
            for p in pieces(msm, n, ones, 0, chunk, ranks.as_ref()).unwrap() {
                let exact = values[p.scalar_start..p.scalar_start + p.n].iter().filter(|v| **v != Scalar::ZERO && **v != Scalar::ONE).count();
                assert_eq!(counts.within(p.scalar_start, p.n), exact, "{msm:?} piece {} in chunks of {chunk:?}", p.k);
            }
        }
    }
}

/// Joined pieces still cover every scalar and base once, in order; each
/// is one piece as split, or within the cap and the fit; none could take
/// its neighbour too; each keeps its first part's place.
#[test]
fn merged_pieces_cover_every_scalar_once_within_their_limits() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let chunk = Some(1024);
    for (n, fraction) in [(70_000, 0.254), (70_000, 0.997), (5000, 0.0), (1, 1.0), (0, 0.5)] {
        let [a, bi, b] = [random_density(n, fraction, &mut rng), random_density(7, 0.5, &mut rng), random_density(n, fraction, &mut rng)];
        let ranks = DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(1024), [&a, &bi, &b]);
        for msm in [ProofMsm::H, ProofMsm::L, ProofMsm::AAux, ProofMsm::BG1Aux, ProofMsm::BG2Aux] {
            let ones = msm.density().map(|w| [&a, &bi, &b][w].count_ones());
            let units = pieces(msm, n, ones, 10, chunk, Some(&ranks)).unwrap();
            for cap in [None, Some(msm.piece_scalars(1024))] {
                for span in [1000, 5000, 30_000] {
                    let fits = |p: &Piece| p.n <= span;
                    let merged = merge_pieces(units.clone(), cap, fits);
                    let (mut scalar, mut base) = (0, 10);
                    for (i, p) in merged.iter().enumerate() {
                        assert_eq!((p.scalar_start, p.base_first), (scalar, base), "{msm:?} cap {cap:?} span {span}");
                        let first = units.iter().position(|u| u.scalar_start == p.scalar_start).unwrap();
                        assert_eq!(p.k, units[first].k);
                        assert!(units.contains(p) || (cap.is_none_or(|c| p.selected <= c) && fits(p)), "{msm:?} {p:?}");
                        if let Some(next) = merged.get(i + 1) {
                            let joined = Piece { n: p.n + next.n, selected: p.selected + next.selected, ..*p };
                            let next_unit = &units[units.iter().position(|u| u.scalar_start == next.scalar_start).unwrap()];
                            let joined_unit = Piece { n: p.n + next_unit.n, selected: p.selected + next_unit.selected, ..*p };
                            assert!(!(cap.is_none_or(|c| joined_unit.selected <= c) && fits(&joined_unit)), "{msm:?}: {p:?} could take {next_unit:?} ({joined:?})");
                        }
                        scalar += p.n;
                        base += p.selected;
                    }
                    assert_eq!((scalar, base - 10), (n, ones.unwrap_or(n)));
                }
            }
        }
    }
}

/// The calls `msm_calls` makes: every scalar and base once, in order;
/// each call selects something; with a carried window, every call's plan
/// at that window fits, and the model puts them below separate calls.
#[test]
fn msm_calls_cover_every_scalar_once_and_carry_only_what_fits() {
    use cuzk_kernels::msm::plan::{carried_cost, separate_cost, CallScalars, MsmConfig, MsmPlan};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
    let mut seen = [0usize; 2];
    let chunk = 1024;
    for (n, fraction) in [(70_000, 0.254), (70_000, 0.997), (5000, 0.0), (1, 1.0), (0, 0.5), (3000, 0.01)] {
        let [a, bi, b] = [random_density(n, fraction, &mut rng), random_density(7, 0.5, &mut rng), random_density(n, fraction, &mut rng)];
        let ranks = DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(chunk), [&a, &bi, &b]);
        for msm in [ProofMsm::H, ProofMsm::L, ProofMsm::AAux, ProofMsm::BG2Aux] {
            let ones = msm.density().map(|w| [&a, &bi, &b][w].count_ones());
            let units = pieces(msm, n, ones, 10, Some(chunk), Some(&ranks)).unwrap();
            // H: random scalars; the others: a twentieth general.
            let general = |p: &Piece| (msm != ProofMsm::H).then_some(p.selected / 20);
            for arena_log in [16, 19, 22] {
                let fits = |p: &Piece, c: u32| {
                    let config = MsmConfig { window_bits: c, ..MsmConfig::default() };
                    MsmPlan::for_witness(p.n, p.selected, general(p), msm.curve(), &config).is_ok_and(|plan| plan.scratch_words() <= 1 << arena_log)
                };
                let most = msm.piece_scalars(chunk);
                let cap = Some(most);
                let calls = msm_calls(units.clone(), cap, true, general, fits);
                // A first level that cannot carry: separate calls.
                assert_eq!(msm_calls(units.clone(), cap, false, general, fits).carried, None);
                let (mut scalar, mut base) = (0, 10);
                for p in &calls.pieces {
                    assert!(p.scalar_start >= scalar && p.selected > 0 && p.selected <= most, "{msm:?} {p:?}");
                    // Skipped ranges select nothing.
                    let skipped: usize = units.iter().filter(|u| u.scalar_start >= scalar && u.scalar_start < p.scalar_start).map(|u| u.selected).sum();
                    assert_eq!(skipped, 0);
                    assert_eq!(p.base_first, base + skipped);
                    scalar = p.scalar_start + p.n;
                    base = p.base_first + p.selected;
                }
                assert_eq!(base - 10, ones.unwrap_or(n), "{msm:?}: every selected scalar once");
                let scalars: Vec<CallScalars> = calls.pieces.iter().map(|p| CallScalars { selected: p.selected as u64, general: general(p).unwrap_or(p.selected) as u64 }).collect();
                seen[calls.carried.is_some() as usize] += 1;
                if let Some(c) = calls.carried {
                    assert!(calls.pieces.len() > 1 && calls.pieces.iter().all(|p| fits(p, c)), "{msm:?} at {c}");
                    let plans: Vec<MsmPlan> = calls.pieces.iter().map(|p| MsmPlan::for_witness(p.n, p.selected, general(p), msm.curve(), &MsmConfig { window_bits: c, ..MsmConfig::default() }).unwrap()).collect();
                    assert!(plans.iter().all(|p| p.carries_with(&plans[0]) && p.curve == msm.curve()));
                    let separate = merge_pieces(units.clone(), cap, |p| fits(p, 0));
                    let separate: Vec<CallScalars> = separate.iter().filter(|p| p.selected > 0).map(|p| CallScalars { selected: p.selected as u64, general: general(p).unwrap_or(p.selected) as u64 }).collect();
                    assert!(carried_cost(c, &scalars) < separate_cost(&separate));
                }
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "both kinds of calls: {seen:?}");
}

/// A 32 GiB partition's H MSM at 48 GiB (chunks of 2^23, H streamed): its
/// 16 calls carry their buckets at the whole MSM's 20-bit window in the
/// arena planned for it; in the arena of separate calls they carry at a
/// window that fits.
#[test]
fn a_32g_partitions_h_msm_carries_its_buckets_in_16_calls() {
    use cuzk_kernels::msm::plan::{MsmConfig, MsmPlan};
    let chunk = 1 << 23;
    let needs = VramNeeds::new(porep_32g(), 0, 2, true, true);
    let h = ProofMsm::H.scalars(&needs.layout);
    let units = pieces(ProofMsm::H, h, None, 0, Some(chunk), None).unwrap();
    for (carried, window) in [(true, Some(20)), (false, None)] {
        let arena = needs.arena_words(Some(chunk), carried).unwrap();
        let fits = |p: &Piece, c: u32| MsmPlan::for_witness(p.n, p.selected, None, ProofMsm::H.curve(), &MsmConfig { window_bits: c, ..MsmConfig::default() }).is_ok_and(|plan| plan.scratch_words() <= arena);
        let calls = msm_calls(units.clone(), Some(chunk), true, |_| None, fits);
        eprintln!("arena {} MiB: {} calls, carried at {:?}", arena >> 17, calls.pieces.len(), calls.carried);
        assert_eq!(calls.pieces.len(), 16);
        match window {
            Some(w) => assert_eq!(calls.carried, Some(w)),
            None => assert!(calls.carried.is_some_and(|c| c < 20 && calls.pieces.iter().all(|p| fits(p, c)))),
        }
    }
    assert!(needs.arena_words(Some(chunk), true).unwrap() > needs.arena_words(Some(chunk), false).unwrap());
}

/// A 32 GiB partition at 48 GiB (MSMs in chunks of 2^23 G1 points, B and
/// H streamed): with its witness (about 5% of the aux values neither 0
/// nor 1) the witness MSMs take a few calls each, not one per chunk.
#[test]
fn a_32g_partitions_witness_msms_take_a_few_calls() {
    use crate::witness::general_counts::GeneralCounts;
    use cuzk_kernels::msm::plan::{MsmConfig, MsmPlan};
    let chunk = 1 << 23;
    let needs = VramNeeds::new(porep_32g(), 0, 2, true, true);
    let arena = needs.arena_words(Some(chunk), false).unwrap();
    let lay = &needs.layout;
    let aux = lay.aux();
    // A aux: all but one value in 300; B aux: a quarter, 16 bits a word.
    let a = Density::from_words((0..aux.div_ceil(64)).map(|i| if i % 5 == 0 { !1u64 } else { !0 }).collect(), aux);
    let b = Density::from_words(vec![0x1111_1111_1111_1111; aux.div_ceil(64)], aux);
    let bi = Density::full(lay.inputs);
    let ranks = DensityRanks::new(ProofMsm::BG2Aux.piece_scalars(chunk), [&a, &bi, &b]);
    let block = general_count_block(Some(chunk));
    let general = GeneralCounts::from_counts(block, (0..GeneralCounts::blocks(aux, block)).map(|k| block.min(aux - k * block) / 20));
    let mut calls = Vec::new();
    for (msm, streamed) in [(ProofMsm::L, false), (ProofMsm::AAux, false), (ProofMsm::BG1Aux, true), (ProofMsm::BG2Aux, true)] {
        let ones = msm.density().map(|w| [&a, &bi, &b][w].count_ones());
        let units = pieces(msm, aux, ones, 0, Some(chunk), Some(&ranks)).unwrap();
        let cap = streamed.then(|| msm.piece_scalars(chunk));
        let merged = merge_pieces(units.clone(), cap, |p| {
            let g = general.within(p.scalar_start, p.n).min(p.selected);
            MsmPlan::for_witness(p.n, p.selected, Some(g), msm.curve(), &MsmConfig::default()).is_ok_and(|plan| plan.scratch_words() <= arena)
        });
        eprintln!("{msm:?}: {} calls instead of {}", merged.len(), units.len());
        calls.push((units.len(), merged.len()));
    }
    // L and A: 16 chunks each; B: its bases fill the staging buffers (33 M
    // selected: 4 chunks in G1, 8 half chunks in G2).
    assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), [16, 16, 16, 32]);
    assert!(calls[0].1 <= 4 && calls[1].1 <= 4, "{calls:?}");
    assert!(calls[2].1 <= 5 && calls[3].1 <= 9, "{calls:?}");
}

#[test]
fn result_places_hold_every_piece() {
    let lay = SlotLayout::for_params(&small(14, 12_000, 4));
    for chunk in [None, Some(1024)] {
        let places = ResultPlaces::new(&lay, chunk);
        let mut next = 0;
        for m in ProofMsm::ALL {
            for k in 0..places.pieces(m) {
                assert_eq!(places.at(m, k), next);
                assert_eq!(places.index(m, k), (0..m as usize).map(|i| places.pieces(ProofMsm::ALL[i])).sum::<usize>() + k);
                next += m.curve().jacobian_limbs();
            }
        }
        assert_eq!(places.words(), next);
    }
    assert_eq!(ResultPlaces::new(&lay, Some(1024)).pieces(ProofMsm::H), (1 << 14) / 1024);
    assert_eq!(ResultPlaces::new(&lay, Some(1024)).pieces(ProofMsm::BG2Aux), 12_000usize.div_ceil(512));
}

/// The arena holds the plan every piece falls back to (all its scalars
/// selected), the last, smaller piece included: below 2^25 and 2^26 the
/// window is smaller and the entries more.
#[test]
fn the_arena_holds_every_pieces_fallback_plan() {
    use cuzk_kernels::msm::plan::{MsmConfig, MsmPlan};
    for lengths in [porep_32g(), small(14, 12_000, 4), small(17, 100_000, 30)] {
        let needs = VramNeeds::new(lengths, 0, 1, true, true);
        for chunk in std::iter::once(None).chain(needs.chunk_candidates().into_iter().map(Some)) {
            let arena = needs.arena_words(chunk, false).unwrap();
            for m in ProofMsm::ALL {
                let n = m.scalars(&needs.layout);
                let size = chunk.map_or(n.max(1), |c| m.piece_scalars(c));
                let count = m.pieces(n, chunk);
                for piece_n in [size.min(n), n - (count - 1) * size.min(n)] {
                    let plan = MsmPlan::new(piece_n, m.curve(), &MsmConfig::default()).unwrap();
                    assert!(plan.scratch_words() <= arena, "{m:?} piece of {piece_n} in chunks of {chunk:?}");
                }
            }
        }
    }
}

/// `tests/gpu_vram_budget.rs`'s shape (the synthetic PoRep circuit of
/// 100,000 constraints, full assignments) has the layouts that test proves
/// with: the H output over its input with late scalars, the arena in the
/// slot, two workers streaming in chunks, under both sharing rules.
#[test]
fn the_gpu_budget_tests_shape_has_the_layouts_they_exercise() {
    let compiled = crate::CompiledCircuit::record(crate::synthetic::SyntheticPorep::shape(100_000, 3)).unwrap();
    let lengths = QueryLengths::for_shape(&compiled.shape().unwrap());
    for serial in [true, false] {
        let plans = VramPlan::layouts(&VramNeeds::new(lengths, 0, 2, true, serial));
        eprintln!("serial {serial}: {} layouts, {} carrying H's buckets", plans.len(), plans.iter().filter(|p| p.carried_buckets).count());
        let has = |f: &dyn Fn(&VramPlan) -> bool| plans.iter().any(f);
        assert!(has(&|p| p.h_in_slot && p.scalars_late && !p.streamed.is_empty()));
        assert!(has(&|p| p.msm_in_slot && p.msm_chunk.is_some()));
        assert!(has(&|p| p.workers == 2 && p.streamed.len() >= 2 && p.msm_chunk.is_some()));
        assert!(has(&|p| p.workers == 2 && p.streamed.is_empty() && p.msm_chunk.is_none()));
        // Smallest first, each within its budget, the first the least.
        assert_eq!(plans[0].budget, VramPlan::choose(&VramNeeds::new(lengths, 0, 2, true, serial), 0).unwrap_err());
        assert!(plans.windows(2).all(|w| w[0].budget < w[1].budget) && plans.iter().all(|p| p.total() <= p.budget));
        assert_eq!(plans.last().map(|p| (p.workers, p.streamed.len(), p.msm_chunk)), Some((2, 0, None)), "ends all resident");
    }
}

/// The staging buffers the H step leaves room for in the slot's a, b, c
/// (streamed copies then run further ahead): one at 48 GiB for a compiled
/// circuit (its arena and staging take 5.5 of the 8 GiB past the H
/// output), none for full assignments with two workers (b's region holds
/// 3.55 of 4 GiB, the late scalars c's), all of b's region at 16 GiB (the
/// arena apart).
#[test]
fn idle_slot_room_becomes_staging_buffers() {
    use cuzk_kernels::msm::plan::Level0Waves;
    let count = |compiled: bool, gib: u64| {
        let mut needs = VramNeeds::new(porep_32g(), if compiled { COMPILED_32G } else { 0 }, 2, true, true);
        needs.msm.level0_waves = Level0Waves { g1: 33_792, g2: 33_792 };
        let p = VramPlan::choose(&needs, gib * GIB).unwrap();
        let mut lay = needs.layout;
        lay.late_scalars = p.scalars_late;
        let staging = needs::staging_words(p.msm_chunk.unwrap());
        let msm_words = needs.arena_words(p.msm_chunk, p.carried_buckets).unwrap() + 2 * staging;
        let in_slot = p.msm_in_slot.then_some(msm_words);
        let idle = lay.idle_after_h_step(p.h_in_slot, in_slot);
        let buffers = lay.idle_staging_buffers(p.h_in_slot, in_slot, staging);
        // Past the H output and the MSMs' arena and staging, before the
        // late scalars (c's region) or a, b, c's end; none overlapping.
        let first = lay.abc(p.h_in_slot as usize) + in_slot.unwrap_or(0);
        let end = lay.abc(if p.scalars_late { 2 } else { 3 });
        assert_eq!(idle, first..end, "{p}");
        assert!(lay.scalars_at() >= end || !p.scalars_late);
        for (k, &at) in buffers.iter().enumerate() {
            assert_eq!(at, first + k * staging);
            assert!(at + staging <= end);
        }
        assert!(idle.len() - buffers.len() * staging < staging);
        (p, buffers.len())
    };
    let (p, n) = count(true, 48);
    assert_eq!((p.workers, p.msm_in_slot, p.scalars_late, n), (1, true, false, 1), "{p}");
    let (p, n) = count(false, 48);
    assert_eq!((p.workers, p.msm_in_slot, p.scalars_late, n), (2, true, true, 0), "{p}");
    let (p, n) = count(false, 16);
    assert_eq!((p.msm_in_slot, p.scalars_late, n), (false, true, 5), "{p}");
    // Nothing to stage into: no buffers.
    let lay = SlotLayout::for_params(&porep_32g());
    assert!(lay.idle_staging_buffers(true, None, 0).is_empty());
    assert!(lay.idle_staging_buffers(true, Some(lay.abc(3)), 1 << 20).is_empty());
}
