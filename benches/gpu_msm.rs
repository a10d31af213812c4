//! GPU MSM timing: G1 and G2 at a 32 GiB partition's 329 public inputs, G1
//! at 2^20, 2^24, 2^25, 2^26, 2^27, G2 at 2^20, 2^24, 2^25, random scalars and a
//! witness-like input (90% of scalars 0 or 1). Bases and scalars are
//! uploaded once; each run enqueues one MSM on a stream with a preallocated
//! arena and is timed with CUDA events (2 warm-up runs, median of 5).
//! Without a GPU it prints why and exits 0.
//!
//! Arguments: `g1`, `g2`, `20`, `24`, `skew`, `inputs` … filter the cases by name;
//! `--c N[,N…]` forces window sizes, `--scatter N[,N…]` the windows per
//! scatter launch, `--bin-windows N[,N…]` the windows per launch of the
//! binned sort's first pass (column `sc`: `bN`), `--chunk0 N[,N…]` the first accumulation level's chunk
//! (one row per combination), `--sort auto|counted|padded|pN|binned|bN[,…]`
//! the counting sort (padded: no histogram, `2^N` slots per bucket;
//! binned: the scatter in two passes, `2^N` bins), `--fan N` the bucket reduction's merge fan
//! (log2); `--profile` adds one run's per-kernel device times; `--module
//! FILE` (may be repeated) also runs every case with the kernels of a
//! variant PTX/cubin, on the same bases; `--tables T` (with one `--c N`)
//! precomputes `T` tables of the bases on the GPU (time printed) and runs
//! the MSMs with `T` tables. `--accumulation xyzz|affine|affineK[,…]`
//! picks the first accumulation level (affine: batch-affine additions, `K`
//! streams per thread); every row of a case must give the same sum, which
//! the bench checks. `--calls K[,K…]` runs each MSM as `K` calls over
//! consecutive pieces of its scalars and bases that carry their bucket
//! sums (as a prover on a small GPU does; the whole MSM's window, its
//! arena sized for a piece); `--waves on,off` plans the first level with
//! the device's waves (`MsmConfig::level0_waves`) and without; `--form
//! montgomery,canonical` hands the scalars over in Montgomery form (as
//! blstrs holds them) or as integers (as the prover's H step writes
//! them, `ScalarForm`); `converted` hands them over in Montgomery form
//! and converts them to integers on the device first, timed with the MSM
//! (as the blocking calls do before a binned MSM); `--cut
//! uniform,narrowest` cuts the scalars into windows of `c` bits, or as few
//! of them `c` bits wide as 256 bits need and the rest `c − 1`
//! (`WindowCut`; column `W` then shows windows/wide ones). A witness-like case (`skew`) hands over its count
//! of scalars other than 0 and 1, as the prover does for its witness
//! MSMs, so its window follows that count; each row shows the plan that
//! ran.

#[path = "common/on_off.rs"]
mod on_off;
use on_off::on_off;

use blstrs::{G1Projective, G2Projective, Scalar};
use cust::event::{Event, EventFlags};
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::stream::{Stream, StreamFlags};
use cuzk::gpu::elementwise::limbs_in;
use cuzk::gpu::msm::{default_window_bits_for, g1_from_result_words, g2_from_result_words, level0_waves, msm_carried, msm_profile, scalars_to_integers, Accumulation, Carry, GpuBases, Level0Waves, MsmConfig, MsmCurve, MsmInput, MsmPlan, ScalarForm, Sort, WindowCut};
use cuzk::gpu::GpuDevice;
use ff::Field;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

const WARMUP: usize = 2;
const RUNS: usize = 5;

struct Case {
    name: &'static str,
    curve: MsmCurve,
    n: usize,
    skew: bool,
}

/// A 32 GiB PoRep partition's public inputs (with the one): the size of
/// a proof's input MSMs.
const PARTITION_INPUTS: usize = 329;

const CASES: &[Case] = &[
    Case { name: "g1 inputs", curve: MsmCurve::G1, n: PARTITION_INPUTS, skew: false },
    Case { name: "g1 2^20", curve: MsmCurve::G1, n: 1 << 20, skew: false },
    Case { name: "g1 2^20 skew", curve: MsmCurve::G1, n: 1 << 20, skew: true },
    Case { name: "g1 2^24", curve: MsmCurve::G1, n: 1 << 24, skew: false },
    Case { name: "g1 2^24 skew", curve: MsmCurve::G1, n: 1 << 24, skew: true },
    Case { name: "g1 2^25", curve: MsmCurve::G1, n: 1 << 25, skew: false },
    Case { name: "g1 2^26", curve: MsmCurve::G1, n: 1 << 26, skew: false },
    Case { name: "g1 2^27", curve: MsmCurve::G1, n: 1 << 27, skew: false },
    Case { name: "g2 inputs", curve: MsmCurve::G2, n: PARTITION_INPUTS, skew: false },
    Case { name: "g2 2^20", curve: MsmCurve::G2, n: 1 << 20, skew: false },
    Case { name: "g2 2^20 skew", curve: MsmCurve::G2, n: 1 << 20, skew: true },
    Case { name: "g2 2^24", curve: MsmCurve::G2, n: 1 << 24, skew: false },
    Case { name: "g2 2^25", curve: MsmCurve::G2, n: 1 << 25, skew: false },
];

fn main() {
    let mut gpu = match cuzk::gpu::discover(&[0]) {
        Ok(mut g) => g.remove(0),
        Err(e) => {
            println!("gpu_msm: skipped, {e}");
            return;
        }
    };
    let mut filter = Vec::new();
    let mut config = MsmConfig::default();
    let mut windows = vec![0u32];
    let mut cuts = vec![WindowCut::Uniform];
    let mut scatters = vec![0u32];
    let mut bin_windows = vec![0u32];
    let mut chunks = vec![0u32];
    let mut sorts = vec![Sort::Auto];
    let mut accumulations = vec![Accumulation::Xyzz];
    let mut profile = false;
    let mut calls = vec![1usize];
    let mut waves = vec![false];
    let mut forms = vec![HandOver::Form(ScalarForm::Montgomery)];
    let mut variants = Vec::new();
    let mut args = std::env::args().skip(1);
    let number = |args: &mut dyn Iterator<Item = String>, flag: &str| -> u32 {
        args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{flag} N"))
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--c" => {
                let list = args.next().expect("--c N[,N...]");
                windows = list.split(',').map(|v| v.parse().expect("--c N[,N...]")).collect();
            }
            "--cut" => {
                let list = args.next().expect("--cut uniform|narrowest[,...]");
                cuts = list.split(',').map(parse_cut).collect();
            }
            "--scatter" => {
                let list = args.next().expect("--scatter N[,N...]");
                scatters = list.split(',').map(|v| v.parse().expect("--scatter N[,N...]")).collect();
            }
            "--bin-windows" => {
                let list = args.next().expect("--bin-windows N[,N...]");
                bin_windows = list.split(',').map(|v| v.parse().expect("--bin-windows N[,N...]")).collect();
            }
            "--sort" => {
                let list = args.next().expect("--sort auto|counted|padded|pN|binned|bN[,...]");
                sorts = list.split(',').map(parse_sort).collect();
            }
            "--chunk0" => {
                let list = args.next().expect("--chunk0 N[,N...]");
                chunks = list.split(',').map(|v| v.parse().expect("--chunk0 N[,N...]")).collect();
            }
            "--accumulation" => {
                let list = args.next().expect("--accumulation xyzz|affine|affineK[,...]");
                accumulations = list.split(',').map(parse_accumulation).collect();
            }
            "--fan" => config.reduce_fan_log = number(&mut args, "--fan"),
            "--top-fan" => config.reduce_top_fan_log = number(&mut args, "--top-fan"),
            "--profile" => profile = true,
            "--calls" => {
                let list = args.next().expect("--calls K[,K...]");
                calls = list.split(',').map(|v| v.parse().expect("--calls K[,K...]")).collect();
            }
            "--waves" => {
                waves = on_off("--waves", &args.next().expect("--waves on,off"));
            }
            "--form" => {
                let list = args.next().expect("--form montgomery|canonical|converted[,...]");
                forms = list.split(',').map(parse_form).collect();
            }
            "--tables" => config.tables = number(&mut args, "--tables"),
            // A variant build of the kernels (e.g. other register caps, from
            // scripts/ptx-select.py), run after the embedded module.
            "--module" => {
                let path = std::path::PathBuf::from(args.next().expect("--module FILE"));
                variants.push((path.display().to_string(), gpu.load_module_file(&path).unwrap()));
            }
            other if other.starts_with("--") => {}
            other => filter.push(other.to_string()),
        }
    }
    if config.tables > 1 {
        assert!(windows.len() == 1 && windows[0] != 0, "--tables needs one --c N");
    }
    let shapes: Vec<(u32, WindowCut)> = windows.iter().flat_map(|&c| cuts.iter().map(move |&cut| (c, cut))).collect();
    println!("device: {}", gpu.name);
    println!(
        "{:<14} {:>3} {:>5} {:>3} {:>5} {:>8} {:>6} {:>5} {:>4} {:>10} {:>10} {:>10} {:>12}",
        "case", "c", "W", "sc", "slots", "chunk0", "acc", "calls", "form", "scratch MB", "median ms", "min ms", "Mpoints/s"
    );
    let device_waves = level0_waves(&gpu).unwrap();
    if waves.contains(&true) {
        println!("first-level waves: {} G1 / {} G2 threads", device_waves.g1, device_waves.g2);
    }
    let wanted = |c: &Case| filter.iter().all(|f| c.name.contains(f.as_str()));
    // Bases are generated once per (curve, size) and shared by the cases.
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    for curve in [MsmCurve::G1, MsmCurve::G2] {
        for n in [PARTITION_INPUTS, 1 << 20, 1 << 24, 1 << 25, 1 << 26, 1 << 27] {
            let cases: Vec<&Case> = CASES.iter().filter(|c| c.curve == curve && c.n == n && wanted(c)).collect();
            if cases.is_empty() {
                continue;
            }
            let (c, t) = (windows[0], config.tables.max(1));
            let t0 = std::time::Instant::now();
            let bases = match curve {
                MsmCurve::G1 => GpuBases::upload_g1_tables(&gpu, &cuzk::synthetic::random_walk_points::<G1Projective>(n, 0), c, t).unwrap(),
                MsmCurve::G2 => GpuBases::upload_g2_tables(&gpu, &cuzk::synthetic::random_walk_points::<G2Projective>(n, 0), c, t).unwrap(),
            };
            if t > 1 {
                println!("{curve:?} {n} bases: bases and {t} tables ready in {:.2?} (c = {c})", t0.elapsed());
            }
            for case in cases {
                let scalars = scalars_of(&mut rng, n, case.skew);
                // Every configuration of a case computes the same sum (as a
                // point: its Jacobian coordinates depend on the order of the
                // additions).
                let mut first: Option<[u64; 36]> = None;
                // Index 0 is the embedded module; variants are swapped in.
                for v in 0..=variants.len() {
                    if v > 0 {
                        std::mem::swap(&mut gpu.module, &mut variants[v - 1].1);
                        println!("module: {}", variants[v - 1].0);
                    }
                    for &(c, window_cut) in &shapes {
                        for (scatter_windows, bin_windows) in scatters.iter().flat_map(|&s| bin_windows.iter().map(move |&b| (s, b))) {
                            for &chunk0 in &chunks {
                                for &sort in &sorts {
                                    for &accumulation in &accumulations {
                                        for &k in &calls {
                                            for &w in &waves {
                                                for &form in &forms {
                                                    let level0_waves = if w { device_waves } else { Level0Waves::default() };
                                                    let config = MsmConfig { window_bits: c, window_cut, scatter_windows, bin_windows, chunk0, sort, accumulation, level0_waves, ..config };
                                                    let words = run_case(&gpu, case, &bases, &scalars, form, &config, k, profile);
                                                    match first {
                                                        None => first = Some(words),
                                                        Some(w) => assert!(same_point(case.curve, &w, &words), "{}: {config:?} in {k} call(s), {form:?} scalars, gives another sum than the case's first row", case.name),
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if v > 0 {
                        std::mem::swap(&mut gpu.module, &mut variants[v - 1].1);
                    }
                }
            }
        }
    }
}

/// `auto`, `counted`, `padded` (automatic capacity), `pN`: padded with
/// `2^N` slots per bucket, `binned` (default bins) or `bN`: binned with
/// `2^N` bins per window.
fn parse_sort(v: &str) -> Sort {
    let log = |prefix: char| v.strip_prefix(prefix).and_then(|b| b.parse().ok()).expect("--sort auto|counted|padded|pN|binned|bN");
    match v {
        "auto" => Sort::Auto,
        "counted" => Sort::Counted,
        "padded" => Sort::Padded { cap_log: 0 },
        "binned" => Sort::Binned { bins_log: 0 },
        b if b.starts_with('b') => Sort::Binned { bins_log: log('b') },
        _ => Sort::Padded { cap_log: log('p') },
    }
}

/// How a row hands its scalars over.
#[derive(Clone, Copy, Debug)]
enum HandOver {
    /// As they are, in this form.
    Form(ScalarForm),
    /// In Montgomery form, converted to integers on the device first
    /// (`scalars_to_integers`, timed with the MSM), as the blocking calls
    /// do before a binned MSM.
    Converted,
}

/// `montgomery`, `canonical` or `converted`.
fn parse_form(v: &str) -> HandOver {
    match v {
        "montgomery" => HandOver::Form(ScalarForm::Montgomery),
        "canonical" => HandOver::Form(ScalarForm::Canonical),
        "converted" => HandOver::Converted,
        other => panic!("--form {other}: expected montgomery, canonical or converted"),
    }
}

/// Whether two MSM results (Jacobian words) are the same point.
fn same_point(curve: MsmCurve, a: &[u64; 36], b: &[u64; 36]) -> bool {
    match curve {
        MsmCurve::G1 => g1_from_result_words(a[..18].try_into().unwrap()) == g1_from_result_words(b[..18].try_into().unwrap()),
        MsmCurve::G2 => g2_from_result_words(a) == g2_from_result_words(b),
    }
}

/// `uniform` or `narrowest`.
fn parse_cut(v: &str) -> WindowCut {
    match v {
        "uniform" => WindowCut::Uniform,
        "narrowest" => WindowCut::Narrowest,
        _ => panic!("--cut uniform|narrowest"),
    }
}

/// `xyzz`, `affine` (default streams per thread) or `affineK`.
fn parse_accumulation(v: &str) -> Accumulation {
    match v {
        "xyzz" => Accumulation::Xyzz,
        a => Accumulation::BatchAffine {
            streams: a.strip_prefix("affine").and_then(|k| if k.is_empty() { Some(0) } else { k.parse().ok() }).expect("--accumulation xyzz|affine|affineK"),
        },
    }
}

/// Times one configuration, the MSM in `calls` calls that carry their
/// buckets (1: whole); returns the result's words.
#[allow(clippy::too_many_arguments)]
fn run_case(gpu: &GpuDevice, case: &Case, bases: &GpuBases, scalars: &[Scalar], hand_over: HandOver, config: &MsmConfig, calls: usize, profile: bool) -> [u64; 36] {
    let form = match hand_over {
        HandOver::Form(f) => f,
        HandOver::Converted => ScalarForm::Canonical,
    };
    gpu.bind().unwrap();
    let n = scalars.len();
    let piece = n.div_ceil(calls);
    // Calls share the whole MSM's window, set.
    let config = &match calls {
        1 => *config,
        _ => MsmConfig { window_bits: if config.window_bits == 0 { default_window_bits_for(n, case.curve) } else { config.window_bits }, ..*config },
    };
    let plan = MsmPlan::new(piece, case.curve, config).unwrap();
    // A witness-like case hands over its count of scalars other than 0 and
    // 1, as the prover does for its witness MSMs (the window follows it).
    let general: Vec<Option<usize>> = (0..calls)
        .map(|k| case.skew.then(|| scalars[k * piece..n.min((k + 1) * piece)].iter().filter(|s| !bool::from(s.is_zero()) && **s != Scalar::ONE).count()))
        .collect();
    let scalar_buf = DeviceBuffer::from_slice(&limbs_in(form, scalars)).unwrap();
    let montgomery = matches!(hand_over, HandOver::Converted).then(|| DeviceBuffer::from_slice(&limbs_in(ScalarForm::Montgomery, scalars)).unwrap());
    let mut arena = unsafe { DeviceBuffer::<u64>::uninitialized(plan.scratch_words()) }.unwrap();
    let out = DeviceBuffer::from_slice(&[0u64; 36]).unwrap();
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    let input = |k: usize| MsmInput {
        // SAFETY: piece k's scalars lie in the buffer.
        scalars: unsafe { scalar_buf.as_device_ptr().add(k * piece * 4) },
        form,
        n: piece.min(n - k * piece),
        density: None,
        base_offset: k * piece,
        general: general[k],
    };
    let carry = |k: usize| if calls == 1 { Carry::WHOLE } else { Carry::of(k, calls) };
    let (start, stop) = (Event::new(EventFlags::DEFAULT).unwrap(), Event::new(EventFlags::DEFAULT).unwrap());
    let mut times = Vec::new();
    // The plan the calls ran (a witness-like case's follows its count).
    let mut ran = None;
    for run in 0..WARMUP + RUNS {
        start.record(&stream).unwrap();
        if let Some(src) = &montgomery {
            // SAFETY: both buffers hold the n scalars and outlive the run.
            unsafe { scalars_to_integers(gpu, &stream, src.as_device_ptr(), scalar_buf.as_device_ptr(), n) }.unwrap();
        }
        for k in 0..calls {
            // SAFETY: every buffer outlives the event synchronize below;
            // the calls run in order on one stream and arena.
            ran = Some(unsafe { msm_carried(gpu, &stream, bases, &input(k), config, &mut arena, out.as_device_ptr(), carry(k)) }.unwrap());
        }
        stop.record(&stream).unwrap();
        stop.synchronize().unwrap();
        if run >= WARMUP {
            times.push(stop.elapsed_time_f32(&start).unwrap() as f64);
        }
    }
    let mut words = [0u64; 36];
    out.copy_to(&mut words[..]).unwrap();
    times.sort_by(|a, b| a.total_cmp(b));
    let median = times[times.len() / 2];
    let plan = ran.expect("the MSM ran");
    println!(
        "{:<14} {:>3} {:>5} {:>3} {:>5} {:>8} {:>6} {:>5} {:>4} {:>10.0} {:>10.2} {:>10.2} {:>12.1}",
        case.name,
        plan.c,
        // Windows, and how many are `c` bits wide where not all are.
        if plan.wide < plan.windows { format!("{}/{}", plan.windows, plan.wide) } else { plan.windows.to_string() },
        // Windows per scatter launch, or per pass 1 of the binned sort (bN).
        match plan.binned {
            Some(_) => format!("b{}", plan.bin_windows),
            None => plan.scatter_windows.to_string(),
        },
        // Padded sort: slots per bucket (/ per top-window bucket); counted: "-".
        plan.padded.map_or("-".to_string(), |p| match p.hot_len {
            0 => (1u32 << p.cap_log).to_string(),
            _ => format!("{}/{}", 1u32 << p.cap_log, 1u32 << p.hot_log),
        }),
        plan.chunk0,
        plan.batch.map_or("xyzz".to_string(), |b| format!("ba{}", b.per_thread)),
        calls,
        match hand_over {
            HandOver::Form(ScalarForm::Montgomery) => "mont",
            HandOver::Form(ScalarForm::Canonical) => "int",
            HandOver::Converted => "conv",
        },
        plan.scratch_bytes() as f64 / 1e6,
        median,
        times[0],
        n as f64 / (median * 1e-3) / 1e6
    );
    if profile {
        let mut by_kernel: Vec<(&str, f64, usize)> = Vec::new();
        for k in 0..calls {
            // SAFETY: as above; msm_profile waits for the stream.
            let steps = unsafe { msm_profile(gpu, &stream, case.curve, bases, &input(k), config, &mut arena, out.as_device_ptr(), carry(k)) }.unwrap();
            for (name, ms) in steps {
                match by_kernel.iter_mut().find(|k| k.0 == name) {
                    Some(k) => {
                        k.1 += ms;
                        k.2 += 1;
                    }
                    None => by_kernel.push((name, ms, 1)),
                }
            }
        }
        for (name, ms, launches) in by_kernel {
            println!("    {name:<26} {launches:>3} launch(es) {ms:>9.3} ms");
        }
    }
    words
}

/// Uniform random scalars, or 90% zeros and ones (60% zero, 30% one).
fn scalars_of(rng: &mut ChaCha8Rng, n: usize, skew: bool) -> Vec<Scalar> {
    let seed: u64 = rng.gen();
    (0..n.div_ceil(1 << 16))
        .into_par_iter()
        .flat_map_iter(|k| {
            let mut r = ChaCha8Rng::seed_from_u64(seed ^ k as u64);
            let len = (1usize << 16).min(n - k * (1 << 16));
            (0..len)
                .map(|_| {
                    if !skew {
                        return Scalar::random(&mut r);
                    }
                    match r.gen_range(0..10) {
                        0..=5 => Scalar::ZERO,
                        6..=8 => Scalar::ONE,
                        _ => Scalar::random(&mut r),
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect()
}
