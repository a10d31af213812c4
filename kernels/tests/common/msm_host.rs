//! An MSM plan run on the host: every step through the host builds of the
//! kernels, with kernel parameters taken from `Step::args()` exactly as the
//! CUDA driver passes them; reference sums and test inputs beside it.

use blstrs::Scalar;
use cuzk_kernels::ff::ScalarForm;
use cuzk_kernels::gpu::msm as k;
use cuzk_kernels::msm::plan::{Carry, Curve, MsmConfig, MsmIo, MsmPlan, Sort, Step};
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve as _, Group};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::curves::{random_points, TestCurve, G1, G2};
use super::{from_limbs, Pod};

// ---------------------------------------------------------------------------
// Running a plan on the host

/// Runs one step through the host kernels, with the parameters from
/// `Step::args()` in declaration order (as the CUDA launcher does).
pub unsafe fn exec(curve: Curve, step: Step) {
    let (a, n) = step.args();
    let p32 = |i: usize| a[i] as *mut u32;
    let p64 = |i: usize| a[i] as *mut u64;
    let u = |i: usize| a[i] as u32;
    let g1 = curve == Curve::G1;
    match step {
        Step::ZeroU32 { dst, len } => std::ptr::write_bytes(dst as *mut u32, 0, len),
        Step::CopyU32 { src, dst, len } => {
            std::ptr::copy_nonoverlapping(src as *const u32, dst as *mut u32, len)
        }
        Step::Popcount { .. } => {
            assert_eq!(n, 3);
            k::msm_popcount(p64(0), u(1), p32(2))
        }
        Step::ScanReduce { .. } => {
            assert_eq!(n, 3);
            k::msm_scan_reduce(p32(0), u(1), p32(2))
        }
        Step::ScanApply { .. } => {
            assert_eq!(n, 3);
            k::msm_scan_apply(p32(0), u(1), p32(2))
        }
        Step::Histogram { .. } => {
            assert_eq!(n, 14);
            k::msm_histogram(p64(0), u(1), p64(2), p32(3), u(4), u(5), u(6), u(7), u(8), u(9), u(10), p32(11), p32(12), p32(13))
        }
        Step::Scatter { .. } => {
            assert_eq!(n, 17);
            k::msm_scatter(
                p64(0),
                u(1),
                p64(2),
                p32(3),
                u(4),
                u(5),
                u(6),
                u(7),
                u(8),
                u(9),
                u(10),
                p32(11),
                p32(12),
                p32(13),
                p32(14),
                u(15),
                u(16),
            )
        }
        Step::ScatterPadded { .. } => {
            assert_eq!(n, 17);
            k::msm_scatter_padded(
                p64(0), u(1), p64(2), p32(3), u(4), u(5), u(6), u(7), u(8), u(9), u(10), p32(11), a[12], p32(13), p64(14), p32(15), u(16),
            )
        }
        Step::Bin { .. } => {
            assert_eq!(n, 20);
            let bin = match step.kernel(curve) {
                Some("msm_bin_canonical") => k::msm_bin_canonical,
                _ => k::msm_bin,
            };
            bin(
                p64(0), u(1), p64(2), p32(3), u(4), u(5), u(6), u(7), u(8), u(9), u(10), p32(11), p32(12), p32(13), p64(14), p32(15), p32(16), p32(17), u(18), u(19),
            )
        }
        Step::Refine { .. } => {
            assert_eq!(n, 8);
            k::msm_refine(p64(0), p32(1), p32(2), p32(3), u(4), u(5), u(6), u(7))
        }
        Step::CountBins { .. } => {
            assert_eq!(n, 17);
            k::msm_count_bins(p64(0), u(1), p64(2), p32(3), u(4), u(5), u(6), u(7), u(8), u(9), u(10), p32(11), p32(12), p32(13), u(14), u(15), u(16))
        }
        Step::CountKeys { .. } => {
            assert_eq!(n, 7);
            k::msm_count_keys(p64(0), p32(1), p32(2), u(3), u(4), u(5), u(6))
        }
        Step::Compact { .. } => {
            assert_eq!(n, 6);
            k::msm_compact(p32(0), u(1), u(2), u(3), p32(4), p32(5))
        }
        Step::PlaceOverflow { .. } => {
            assert_eq!(n, 5);
            k::msm_place_overflow(p64(0), p32(1), p32(2), a[3], p32(4))
        }
        Step::Accumulate0 { .. } => {
            assert_eq!(n, 9);
            let f = if g1 {
                k::msm_g1_accumulate0
            } else {
                k::msm_g2_accumulate0
            };
            f(
                p64(0),
                p32(1),
                p32(2),
                u(3),
                u(4),
                u(5),
                p32(6),
                p64(7),
                p64(8),
            )
        }
        Step::Accumulate0Affine { .. } => {
            assert_eq!(n, 14);
            let f = if g1 {
                k::msm_g1_accumulate0_affine
            } else {
                k::msm_g2_accumulate0_affine
            };
            f(p64(0), p32(1), p32(2), u(3), u(4), u(5), u(6), p64(7), p64(8), p64(9), p32(10), p32(11), p64(12), p64(13))
        }
        Step::Accumulate { .. } => {
            assert_eq!(n, 9);
            let f = if g1 {
                k::msm_g1_accumulate
            } else {
                k::msm_g2_accumulate
            };
            f(
                p32(0),
                p64(1),
                u(2),
                u(3),
                u(4),
                p32(5),
                p64(6),
                p64(7),
                u(8),
            )
        }
        Step::Merge { .. } => {
            assert_eq!(n, 6);
            let f = if g1 {
                k::msm_g1_merge
            } else {
                k::msm_g2_merge
            };
            f(p64(0), u(1), u(2), u(3), u(4), p64(5))
        }
        Step::Windows { .. } => {
            assert_eq!(n, 4);
            let f = if g1 {
                k::msm_g1_windows
            } else {
                k::msm_g2_windows
            };
            f(p64(0), u(1), u(2), p64(3))
        }
        Step::Finish { .. } => {
            assert_eq!(n, 5);
            let f = if g1 {
                k::msm_g1_finish
            } else {
                k::msm_g2_finish
            };
            f(p64(0), u(1), p64(2), u(3), p64(4))
        }
    }
}

pub trait MsmCurve: TestCurve {
    const CURVE: Curve;
}
impl MsmCurve for G1 {
    const CURVE: Curve = Curve::G1;
}
impl MsmCurve for G2 {
    const CURVE: Curve = Curve::G2;
}

pub fn limbs<T: Pod>(v: &[T]) -> Vec<u64> {
    super::as_limbs(v).to_vec()
}

/// One MSM through the plan on the host.
pub fn host_msm<C: MsmCurve>(
    bases: &[C::Affine],
    base_offset: usize,
    scalars: &[Scalar],
    density: Option<&[u64]>,
    config: &MsmConfig,
) -> C::Projective
where
    C::Affine: Pod,
{
    host_msm_run::<C>(bases, bases.len(), base_offset, scalars, density, scalars.len(), None, config)
}

/// One MSM through the plan on the host, planned for at most `selected`
/// selected scalars (`general` of them neither 0 nor 1), `bases` holding
/// `config.tables` tables of `per_table` bases each (or just `per_table`
/// bases). Checks that the sort stayed within the plan's entry bound.
#[allow(clippy::too_many_arguments)]
pub fn host_msm_run<C: MsmCurve>(
    bases: &[C::Affine],
    per_table: usize,
    base_offset: usize,
    scalars: &[Scalar],
    density: Option<&[u64]>,
    selected: usize,
    general: Option<usize>,
    config: &MsmConfig,
) -> C::Projective
where
    C::Affine: Pod,
{
    host_msm_run_in::<C>(bases, per_table, base_offset, scalars, ScalarForm::Montgomery, density, selected, general, config)
}

/// [`host_msm_run`] with the scalars handed to the plan in `form`.
#[allow(clippy::too_many_arguments)]
pub fn host_msm_run_in<C: MsmCurve>(
    bases: &[C::Affine],
    per_table: usize,
    base_offset: usize,
    scalars: &[Scalar],
    form: ScalarForm,
    density: Option<&[u64]>,
    selected: usize,
    general: Option<usize>,
    config: &MsmConfig,
) -> C::Projective
where
    C::Affine: Pod,
{
    let plan = MsmPlan::for_witness(scalars.len(), selected, general, C::CURVE, config).expect("plan");
    // Poisoned arena: whatever the pipeline reads without writing first
    // shows up as garbage, not as a lucky zero.
    let mut arena = vec![0xa5a5_a5a5_a5a5_a5a5u64; plan.scratch_words()];
    let base_limbs = limbs(bases);
    let scalar_limbs = scalar_limbs(scalars, form);
    let density: Option<Vec<u64>> = density.map(|d| d.to_vec());
    let mut out = vec![0xdead_beefu64; C::CURVE.jacobian_limbs()];
    let io = MsmIo {
        bases: base_limbs.as_ptr() as u64,
        n_bases: per_table as u32,
        base_offset: base_offset as u32,
        scalars: scalar_limbs.as_ptr() as u64,
        scalar_form: form,
        density: density.as_ref().map_or(0, |d| d.as_ptr() as u64),
        out: out.as_mut_ptr() as u64,
    };
    plan.steps::<()>(&io, arena.as_mut_ptr() as u64, |step| {
        // SAFETY: the plan sizes every buffer; inputs live until here.
        unsafe { exec(C::CURVE, step) };
        Ok(())
    })
    .unwrap();
    if plan.padded.is_none() {
        // The counted sort's scanned bucket starts end in the entry total.
        let (at, len) = plan.layout.starts.levels[0];
        assert_eq!(len, plan.n_keys + 1);
        // SAFETY: `len` u32 counts at word `at` of the arena, written by the scan.
        let starts = unsafe { std::slice::from_raw_parts(arena.as_ptr().add(at) as *const u32, len as usize) };
        let total = starts[plan.n_keys as usize];
        assert!(total <= plan.entries_max, "{total} entries sorted, plan bound {}", plan.entries_max);
    }
    from_limbs::<C::Projective>(&out)[0]
}

/// One call of an MSM that carries its buckets: scalars `start ..
/// start + len` (and their density bits), of which `selected` take part
/// (`general` of them at most neither 0 nor 1), paired with bases from
/// `base_offset`.
#[derive(Clone, Copy, Debug)]
pub struct CarriedCall {
    pub start: usize,
    pub len: usize,
    pub selected: usize,
    pub general: Option<usize>,
    pub base_offset: usize,
}

/// An MSM in `calls` that carry their buckets, through the plan on the
/// host: every call planned for its own scalars with `config` (whose
/// window must be set), in one arena that is poisoned again between calls
/// everywhere but the bucket sums, so only those can carry anything.
pub fn host_msm_carried<C: MsmCurve>(
    bases: &[C::Affine],
    scalars: &[Scalar],
    density: Option<&[u64]>,
    calls: &[CarriedCall],
    config: &MsmConfig,
) -> C::Projective
where
    C::Affine: Pod,
{
    assert!(config.window_bits > 0, "carried calls share one window");
    let plans: Vec<MsmPlan> = calls
        .iter()
        .map(|call| MsmPlan::for_witness(call.len, call.selected, call.general, C::CURVE, config).expect("plan"))
        .collect();
    for p in &plans {
        assert!(p.carries_with(&plans[0]), "calls of one window carry into each other");
    }
    let words = plans.iter().map(MsmPlan::scratch_words).max().unwrap_or(1);
    let sums_end = plans[0].layout.sums + plans[0].n_keys as usize * C::CURVE.xyzz_limbs();
    let mut arena = vec![0xa5a5_a5a5_a5a5_a5a5u64; words];
    let base_limbs = limbs(bases);
    let scalar_limbs = limbs(scalars);
    let density: Option<Vec<u64>> = density.map(|d| d.to_vec());
    let mut out = vec![0xdead_beefu64; C::CURVE.jacobian_limbs()];
    for (k, (call, plan)) in calls.iter().zip(&plans).enumerate() {
        assert_eq!(call.start % 64, 0, "a call's density bits start on a word");
        arena[sums_end..].fill(0x5a5a_5a5a_5a5a_5a5a);
        let io = MsmIo {
            bases: base_limbs.as_ptr() as u64,
            n_bases: bases.len() as u32,
            base_offset: call.base_offset as u32,
            // SAFETY (of the offsets): the call's scalars and density words
            // lie in the slices.
            scalars: scalar_limbs[call.start * 4..].as_ptr() as u64,
            scalar_form: ScalarForm::Montgomery,
            density: density.as_ref().map_or(0, |d| d[call.start / 64..].as_ptr() as u64),
            out: out.as_mut_ptr() as u64,
        };
        plan.carried_steps::<()>(&io, arena.as_mut_ptr() as u64, Carry::of(k, calls.len()), |step| {
            // SAFETY: the plan sizes every buffer; inputs live until here.
            unsafe { exec(C::CURVE, step) };
            Ok(())
        })
        .unwrap();
    }
    from_limbs::<C::Projective>(&out)[0]
}

pub fn naive<C: TestCurve>(pairs: impl Iterator<Item = (C::Affine, Scalar)>) -> C::Projective
where
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    pairs.fold(C::Projective::identity(), |acc, (b, s)| {
        acc + C::Projective::from(b) * s
    })
}

// ---------------------------------------------------------------------------
// Inputs

pub fn affine<C: TestCurve>(points: &[C::Projective]) -> Vec<C::Affine> {
    let mut out = vec![C::Affine::identity(); points.len()];
    C::Projective::batch_normalize(points, &mut out);
    out
}

/// Random bases with identities, repeats and negations sprinkled in, so
/// buckets see P + P, P + (−P) and identity additions.
pub fn bases<C: TestCurve>(rng: &mut ChaCha8Rng, n: usize) -> Vec<C::Affine> {
    let mut b = affine::<C>(&random_points::<C>(rng, n));
    for i in 0..n {
        match rng.gen_range(0..16) {
            0 => b[i] = C::Affine::identity(),
            1 if i > 0 => b[i] = b[rng.gen_range(0..i)],
            2 if i > 0 => b[i] = -b[rng.gen_range(0..i)],
            _ => {}
        }
    }
    b
}

/// The scalars' limbs as an MSM reads them in `form`.
pub fn scalar_limbs(scalars: &[Scalar], form: ScalarForm) -> Vec<u64> {
    match form {
        ScalarForm::Montgomery => limbs(scalars),
        ScalarForm::Canonical => scalars.iter().flat_map(canonical).collect(),
    }
}

pub fn canonical(s: &Scalar) -> [u64; 4] {
    let repr = s.to_repr();
    let mut l = [0u64; 4];
    for (i, chunk) in repr.as_ref().chunks(8).enumerate() {
        l[i] = u64::from_le_bytes(chunk.try_into().unwrap());
    }
    l
}

pub fn r_minus(k: u64) -> Scalar {
    -Scalar::from(k)
}

/// Random scalars with edge values mixed in: 0, 1, 2, r−1, r−2, small
/// values, powers of two, values with long runs of ones (carry chains).
pub fn scalars(rng: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
    (0..n)
        .map(|_| match rng.gen_range(0..12) {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => r_minus(1),
            3 => r_minus(rng.gen_range(2..1000)),
            4 => Scalar::from(rng.gen_range(2..1 << 20)),
            5 => Scalar::from(2).pow_vartime([rng.gen_range(0..255)]),
            6 => Scalar::from(2).pow_vartime([rng.gen_range(1..255)]) - Scalar::ONE,
            _ => Scalar::random(&mut *rng),
        })
        .collect()
}

/// Any sort: counted, binned with its default bins, or padded with 1 … 16
/// slots per bucket (small capacities overflow all the time) or the
/// automatic capacity. For windows without tables.
pub fn random_sort(rng: &mut ChaCha8Rng) -> Sort {
    match rng.gen_range(0..=6) {
        0 => Sort::Counted,
        6 => Sort::Binned { bins_log: 0 },
        cap_log => Sort::Padded { cap_log: cap_log - 1 },
    }
}

pub fn check<C: MsmCurve>(
    what: &str,
    seed: u64,
    bases: &[C::Affine],
    scalars: &[Scalar],
    config: &MsmConfig,
) where
    C::Affine: Pod,
    C::Projective: std::ops::Mul<Scalar, Output = C::Projective> + From<C::Affine>,
{
    let got = host_msm::<C>(bases, 0, scalars, None, config);
    let want = naive::<C>(bases.iter().copied().zip(scalars.iter().copied()));
    assert!(
        got == want,
        "{what}: n = {}, config {config:?}: wrong result (seed {seed})",
        scalars.len()
    );
}

