//! What a prover of a 32 GiB PoRep partition (or any shape) would reserve
//! on a GPU of a given memory: the VRAM plan `Prover::new` chooses for
//! that budget (`cuzk::vram::VramPlan`), without a GPU.
//!
//! ```text
//! cargo run --release --example vram_plan -- --gib 80,48,24,16
//! cargo run --release --example vram_plan -- --gib 24 --full-assignments
//! cargo run --release --example vram_plan -- --layouts
//! ```
//! The defaults are a real 32 GiB partition's query lengths and its
//! compiled circuit's matrices on the device (722 M nonzeros, 7.4 GiB).

use clap::Parser;
use cuzk::vram::{VramNeeds, VramPlan};
use cuzk_kernels::msm::plan::Level0Waves;
use cuzk::QueryLengths;

/// Prints the VRAM plan for each budget.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Budgets in GiB (a card's memory, or `ProverConfig::vram_limit`).
    #[arg(long, value_delimiter = ',', default_value = "141,80,48,24,16")]
    gib: Vec<f64>,
    /// Workers wanted per GPU (`ProverConfig::workers_per_device`).
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Prove full assignments (no compiled circuit on the device).
    #[arg(long)]
    full_assignments: bool,
    /// Bytes of the compiled circuit's matrices on the device.
    #[arg(long, default_value_t = 7_945_000_000)]
    compiled_bytes: u64,
    /// Domain size log2 (a 32 GiB partition: 27).
    #[arg(long, default_value_t = 27)]
    domain_log: u32,
    /// Aux variables (a 32 GiB partition: 130169893).
    #[arg(long, default_value_t = 130_169_893)]
    aux: usize,
    /// Public inputs with ONE.
    #[arg(long, default_value_t = 329)]
    inputs: usize,
    /// Share of the aux variables the A density selects.
    #[arg(long, default_value_t = 0.997)]
    a_density: f64,
    /// Share of the aux variables the B density selects.
    #[arg(long, default_value_t = 0.254)]
    b_density: f64,
    /// First-level MSM threads the GPU runs at once, as a prover with
    /// `ProverConfig::msm_fill_waves` (the default) reads them from its
    /// device (`MsmConfig::level0_waves`, both curves; 0: a prover with
    /// it off). The default is an H100's or H200's: 33792 (132 SMs × 2
    /// blocks × 128).
    #[arg(long, default_value_t = 33792)]
    wave_threads: u32,
    /// Print every layout a budget can give, from the smallest budget up,
    /// instead of the plans for `--gib`.
    #[arg(long)]
    layouts: bool,
}

fn main() {
    let args = Args::parse();
    let b = 1 + (args.aux as f64 * args.b_density) as usize;
    let lengths = QueryLengths {
        ic: args.inputs,
        h: (1 << args.domain_log) - 1,
        l: args.aux,
        a: args.inputs + (args.aux as f64 * args.a_density) as usize,
        b_g1: b,
        b_g2: b,
    };
    let compiled = if args.full_assignments { 0 } else { args.compiled_bytes };
    // Computes one at a time from 2^25 on (`ComputeSharing::Auto`).
    let mut needs = VramNeeds::new(lengths, compiled, args.workers.max(1), true, args.domain_log >= 25);
    needs.msm.level0_waves = Level0Waves { g1: args.wave_threads, g2: args.wave_threads };
    if args.layouts {
        for plan in VramPlan::layouts(&needs) {
            println!("from {:.2} GiB: {plan}", plan.budget as f64 / (1u64 << 30) as f64);
        }
        return;
    }
    for gib in &args.gib {
        let budget = (gib * (1u64 << 30) as f64) as u64;
        match VramPlan::choose(&needs, budget) {
            Ok(plan) => println!("{gib} GiB: {plan}"),
            Err(least) => println!("{gib} GiB: too little; the smallest plan needs {:.2} GiB", least as f64 / (1u64 << 30) as f64),
        }
    }
}
