//! With feature `cuda`, compiles the `kernels/` crate to PTX for the GPU and
//! exposes it to the library as `$OUT_DIR/cuzk_kernels.ptx`.
//!
//! The kernels are ordinary Rust built by rustc's own `nvptx64-nvidia-cuda`
//! backend. That target ships no prebuilt `core`, so the nested build uses
//! `-Zbuild-std=core`, which needs `RUSTC_BOOTSTRAP=1` on a stable toolchain;
//! it is set for the nested cargo only. `--emit=asm` writes the PTX directly,
//! so no linker (`llvm-bitcode-linker`) is needed.
//!
//! `CUZK_PTX=/path/file.ptx` skips the nested build and embeds that file.
//! `CUZK_PTX_ARCH` picks the PTX target (default `sm_80`: the oldest part we
//! support, A100; the driver JIT-compiles it to native code for the H200,
//! sm_90, when the module is loaded).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CUZK_PTX");
    println!("cargo:rerun-if-env-changed=CUZK_PTX_ARCH");
    if env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap()).join("cuzk_kernels.ptx");
    if let Some(prebuilt) = env::var_os("CUZK_PTX") {
        println!("cargo:rerun-if-changed={}", Path::new(&prebuilt).display());
        std::fs::copy(&prebuilt, &out).unwrap_or_else(|e| {
            fail(&format!("CUZK_PTX={}: {e}", Path::new(&prebuilt).display()))
        });
        export_fingerprint(&out);
        return;
    }
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let kernels = manifest_dir.join("kernels");
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!("cargo:rerun-if-changed={}", kernels.join("Cargo.toml").display());
    let ptx = build_ptx(&kernels, &manifest_dir.join("target").join("ptx"));
    let text = std::fs::read_to_string(&ptx).unwrap_or_else(|e| fail(&format!("read {}: {e}", ptx.display())));
    std::fs::write(&out, cap_registers(&text, MAX_REGISTERS)).unwrap_or_else(|e| fail(&format!("write {}: {e}", out.display())));
    export_fingerprint(&out);
}

/// Register caps (`.maxnreg`, CUDA C++'s launch bounds, which Rust cannot
/// express) for kernels whose occupancy is worth a few spills; measured in
/// docs/PERFORMANCE.md. `scripts/ptx-select.py` makes variants to compare.
/// The NTT passes: 4 blocks of 256 threads per SM instead of 2 or 3 for
/// some spills: the inverse (DIT) and fused passes at 64 (with the lazily
/// reduced butterflies, cap 64 made the 2^27 inverse 3% faster than 80).
/// The forward (DIF) pass needs 78 registers without branches around its
/// twiddles (3 blocks, no spills); a cap of 64 (4 blocks, 60 bytes
/// spilled) was 1% slower at 2^27 and no faster at 2^24.
/// The coset-stage passes (row twiddles): DIF needs 66
/// uncapped (3 blocks); at 64 (12 bytes spilled, 4 blocks) the 2^24 and
/// 2^27 forward were 1.0% and 2.6% faster. The DIT ones need 80; at 64
/// (24 and 16 bytes spilled) the 2^27 inverse was 1.5% faster.
/// The binned sort's first pass over integers (`msm_bin_canonical`) takes
/// 72 registers since it writes a tile in bin order; at 64 (no spills) two
/// of its 512-thread blocks fit an SM, as before.
const MAX_REGISTERS: &[(&str, u32)] = &[
    ("msm_bin_canonical", 64),
    ("ntt_dit_pass", 64),
    ("ntt_dif_dit_pass", 64),
    ("ntt_dit_dif_pass", 64),
    ("ntt_dif_rows_pass", 64),
    ("ntt_dit_rows_pass", 64),
    ("ntt_dif_dit_rows_pass", 64),
];

/// Puts `.maxnreg N` between each listed entry's parameter list and body.
fn cap_registers(ptx: &str, caps: &[(&str, u32)]) -> String {
    let mut out = ptx.to_string();
    for &(name, limit) in caps {
        let head = format!(".entry {name}(");
        let Some(at) = out.find(&head) else {
            fail(&format!("register cap for unknown kernel {name}"));
        };
        let body = at + out[at..].find("\n{\n").unwrap_or_else(|| fail(&format!("no body for {name}")));
        out.insert_str(body, &format!("\n.maxnreg {limit}"));
    }
    out
}

/// `CUZK_KERNELS_PTX_FNV`: FNV-1a 64 of the PTX, so a cubin compiled ahead
/// from exactly this PTX can be recognised by name at run time. Also written
/// next to the PTX (`cuzk_kernels.fnv`) for scripts that name such cubins.
fn export_fingerprint(ptx: &Path) {
    let bytes = std::fs::read(ptx).unwrap_or_else(|e| fail(&format!("read {}: {e}", ptx.display())));
    let hash = bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3));
    let fnv = format!("{hash:016x}");
    let file = ptx.with_extension("fnv");
    std::fs::write(&file, &fnv).unwrap_or_else(|e| fail(&format!("write {}: {e}", file.display())));
    println!("cargo:rustc-env=CUZK_KERNELS_PTX_FNV={fnv}");
}

fn build_ptx(kernels: &Path, target_dir: &Path) -> PathBuf {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    require_rust_src(&rustc);
    let arch = env::var("CUZK_PTX_ARCH").unwrap_or_else(|_| "sm_80".into());

    let mut cmd = Command::new(cargo);
    // The outer build's flags and wrappers target the host; none may leak in.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_") && key != "CARGO_HOME" || key.starts_with("RUSTC_") || key.starts_with("RUSTFLAGS") || key == "RUSTDOCFLAGS" {
            cmd.env_remove(key.as_ref());
        }
    }
    cmd.current_dir(kernels)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target_dir)
        .env("RUSTC", &rustc)
        .args(["rustc", "--release", "--lib", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
        .arg("--")
        .args(["--emit=asm", "-C", "panic=abort", "-C", "codegen-units=1", "-C", "debuginfo=0", "-C", "opt-level=3"])
        .arg("-C")
        .arg(format!("target-cpu={arch}"));
    let status = cmd.status().unwrap_or_else(|e| fail(&format!("cannot run cargo for the PTX build: {e}")));
    if !status.success() {
        fail("the PTX build of kernels/ failed (see the errors above)");
    }
    newest_ptx(&target_dir.join("nvptx64-nvidia-cuda/release/deps"))
}

/// `-Zbuild-std` compiles `core` from source; without rust-src it fails deep
/// inside cargo, so say plainly what is missing.
fn require_rust_src(rustc: &std::ffi::OsStr) {
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let core = Path::new(&sysroot).join("lib/rustlib/src/rust/library/core");
    if !core.is_dir() {
        fail("the `cuda` feature builds GPU kernels from source and needs the rust-src component: run `rustup component add rust-src`");
    }
}

fn newest_ptx(deps: &Path) -> PathBuf {
    std::fs::read_dir(deps)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", deps.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("cuzk_kernels") && name.ends_with(".s")
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| fail(&format!("no cuzk_kernels*.s in {}", deps.display())))
}

fn fail(msg: &str) -> ! {
    println!("cargo::error=cuzk: {msg}");
    std::process::exit(1);
}
