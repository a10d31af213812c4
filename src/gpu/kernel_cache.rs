//! Our kernels' machine code for one GPU kind: found, or compiled once and
//! kept on disk.
//!
//! The kernels ship as PTX, and the driver's JIT of the whole module takes
//! minutes (4 min 13 s for an H200 on its 16-core host, 2026-12-01). The
//! driver keeps its result in its own cache (`~/.nv/ComputeCache`), but that
//! cache can be disabled, too small or wiped, and a fresh machine has none:
//! a first `Prover::new` then said nothing for minutes, which looks like a
//! hang. So a module comes from, in order:
//! 1. a cubin compiled ahead from exactly this PTX in `CUZK_CUBIN_DIR`;
//! 2. a cubin this library compiled before, in the cache directory
//!    (`CUZK_KERNEL_CACHE`, else `$XDG_CACHE_HOME/cuzk`, else
//!    `$HOME/.cache/cuzk`);
//! 3. the JIT, announced in the log and reported every 30 s while it runs.
//!    Its cubin goes to the cache directory, written under a temporary name
//!    and renamed, so no process ever loads half a file.
//!
//! A file that does not load is passed over with a warning. Within a
//! process one JIT runs at a time, so provers built together compile once.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use cust::link::Linker;
use cust::module::Module;
use log::{info, warn};

use super::gpu_err;
use crate::error::ProverError;

/// How often a running JIT is reported in the log.
const JIT_REPORT_EVERY: Duration = Duration::from_secs(30);

/// Where a module's machine code came from.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelOrigin {
    /// A cubin compiled ahead of time (`CUZK_CUBIN_DIR`).
    AheadOfTime(PathBuf),
    /// A cubin compiled by an earlier load, from the cache directory.
    Cached(PathBuf),
    /// Compiled by the driver now; `saved` is where its cubin was kept
    /// (`None`: no cache directory, or it could not be written).
    Compiled {
        /// How long the JIT took.
        seconds: f64,
        /// The cached cubin.
        saved: Option<PathBuf>,
    },
}

/// The directories cubins are looked for and kept in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelDirs {
    /// Cubins compiled ahead of time; only read.
    pub ahead: Option<PathBuf>,
    /// Cubins this library compiled; read and written.
    pub cache: Option<PathBuf>,
}

impl KernelDirs {
    /// From the environment: `CUZK_CUBIN_DIR`, and `CUZK_KERNEL_CACHE` or
    /// `$XDG_CACHE_HOME/cuzk` or `$HOME/.cache/cuzk`.
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// [`Self::from_env`] over any lookup of variables (empty values count
    /// as unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Self {
        let var = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let cache = var("CUZK_KERNEL_CACHE")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("cuzk")))
            .or_else(|| var("HOME").map(|d| d.join(".cache").join("cuzk")));
        KernelDirs { ahead: var("CUZK_CUBIN_DIR"), cache }
    }
}

/// Loads `ptx` as a module in the current context, through the cubins
/// named `file_name` in `dirs` (see the module's documentation).
pub fn load_module(ptx: &str, file_name: &str, dirs: &KernelDirs) -> Result<(Module, KernelOrigin), ProverError> {
    if let Some(path) = dirs.ahead.as_ref().map(|d| d.join(file_name)) {
        if let Some(module) = load_file(&path) {
            return Ok((module, KernelOrigin::AheadOfTime(path)));
        }
    }
    let cached = dirs.cache.as_ref().map(|d| d.join(file_name));
    if let Some(module) = cached.as_deref().and_then(load_file) {
        return Ok((module, KernelOrigin::Cached(cached.expect("just loaded"))));
    }
    static ONE_JIT_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_JIT_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Another thread may have compiled it while this one waited.
    if let Some(module) = cached.as_deref().and_then(load_file) {
        return Ok((module, KernelOrigin::Cached(cached.expect("just loaded"))));
    }
    warn!(
        "compiling the GPU kernels from PTX ({} MB): minutes, once per build and GPU kind; {}",
        ptx.len() >> 20,
        match &cached {
            Some(path) => format!("the result is kept in {}", path.display()),
            None => "no cache directory (set CUZK_KERNEL_CACHE), so every process compiles again".into(),
        }
    );
    let start = Instant::now();
    let cubin = {
        let _report = JitReporter::start(start);
        jit(ptx)
    };
    let seconds = start.elapsed().as_secs_f64();
    let cubin = match cubin {
        Ok(cubin) => cubin,
        Err(e) => {
            // The linker is one route to the JIT; loading the PTX is the other.
            warn!("the driver's linker could not compile the kernels ({e}); loading the PTX directly");
            let module = Module::from_ptx(ptx, &[]).map_err(|e| gpu_err("load kernels PTX", e))?;
            return Ok((module, KernelOrigin::Compiled { seconds: start.elapsed().as_secs_f64(), saved: None }));
        }
    };
    let module = Module::from_cubin(&cubin, &[]).map_err(|e| gpu_err("load the compiled kernels", e))?;
    let saved = cached.and_then(|path| match save(&path, &cubin) {
        Ok(()) => Some(path),
        Err(e) => {
            warn!("could not keep the compiled kernels in {}: {e}", path.display());
            None
        }
    });
    info!("kernels compiled in {seconds:.1} s{}", saved.as_ref().map_or(String::new(), |p| format!(", kept in {}", p.display())));
    Ok((module, KernelOrigin::Compiled { seconds, saved }))
}

/// The module in the cubin at `path`, if there is one that loads.
fn load_file(path: &Path) -> Option<Module> {
    if !path.is_file() {
        return None;
    }
    match Module::from_file(path) {
        Ok(module) => Some(module),
        Err(e) => {
            warn!("{} does not load ({e}); passing it over", path.display());
            None
        }
    }
}

/// The driver's JIT of `ptx`, as a cubin.
fn jit(ptx: &str) -> Result<Vec<u8>, cust::error::CudaError> {
    // The driver reads PTX up to its terminating NUL.
    let mut text = String::with_capacity(ptx.len() + 1);
    text.push_str(ptx);
    text.push('\0');
    let mut linker = Linker::new()?;
    linker.add_ptx(&text)?;
    linker.complete()
}

/// Writes `bytes` to `path` through a temporary file in the same directory.
fn save(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("kernels");
    let temporary = dir.join(format!(".{name}.{}.partial", std::process::id()));
    std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

/// Logs every [`JIT_REPORT_EVERY`] that the JIT still runs, until dropped.
struct JitReporter(Option<mpsc::Sender<()>>);

impl JitReporter {
    fn start(since: Instant) -> Self {
        let (done, wait) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new().name("cuzk-jit-report".into()).spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(JIT_REPORT_EVERY) {
                info!("still compiling the GPU kernels ({:.0} s so far)", since.elapsed().as_secs_f64());
            }
        });
        JitReporter(spawned.ok().map(|_| done))
    }
}

impl Drop for JitReporter {
    fn drop(&mut self) {
        if let Some(done) = self.0.take() {
            let _ = done.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_come_from_the_environment_in_order() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v));
        let dirs = KernelDirs::from_vars(vars(&[("CUZK_CUBIN_DIR", "/a"), ("CUZK_KERNEL_CACHE", "/k"), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]));
        assert_eq!(dirs, KernelDirs { ahead: Some("/a".into()), cache: Some("/k".into()) });
        let dirs = KernelDirs::from_vars(vars(&[("CUZK_KERNEL_CACHE", ""), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]));
        assert_eq!(dirs, KernelDirs { ahead: None, cache: Some("/x/cuzk".into()) });
        let dirs = KernelDirs::from_vars(vars(&[("HOME", "/h")]));
        assert_eq!(dirs.cache, Some("/h/.cache/cuzk".into()));
        assert_eq!(KernelDirs::from_vars(|_| None), KernelDirs::default());
    }

    #[test]
    fn a_save_replaces_the_file_whole_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("cuzk-kernel-cache-save-{}", std::process::id()));
        let path = dir.join("k.cubin");
        save(&path, b"first").unwrap();
        save(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "a temporary file was left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A one-kernel module: writes 42 to `out`.
    const PROBE_PTX: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry cuzk_cache_probe(.param .u64 out)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n\
        ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, 42;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";

    /// Runs the probe kernel of `module`; what it wrote.
    fn probe(module: &Module) -> u32 {
        use cust::memory::{CopyDestination, DeviceBox};
        let stream = cust::stream::Stream::new(cust::stream::StreamFlags::NON_BLOCKING, None).unwrap();
        let out = DeviceBox::new(&0u32).unwrap();
        let mut at = out.as_device_ptr();
        let args = [&mut at as *mut _ as *mut std::ffi::c_void];
        let func = module.get_function("cuzk_cache_probe").unwrap();
        // SAFETY: one pointer argument, to a live device word; synchronized below.
        unsafe { stream.launch(&func, 1, 1, 0, &args).unwrap() };
        stream.synchronize().unwrap();
        let mut got = 0u32;
        out.copy_to(&mut got).unwrap();
        got
    }

    #[test]
    fn a_module_is_compiled_once_then_loaded_from_the_cache() {
        // A bare context: `discover` would load (maybe compile) our kernels.
        let context = cust::init(cust::CudaFlags::empty()).and_then(|()| cust::device::Device::get_device(0)).and_then(cust::context::Context::new);
        let context = match context {
            Ok(context) => context,
            Err(e) => {
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "SKIPPED a_module_is_compiled_once_then_loaded_from_the_cache: no GPU ({e})");
                return;
            }
        };
        cust::context::CurrentContext::set_current(&context).unwrap();
        let root = std::env::temp_dir().join(format!("cuzk-kernel-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dirs = KernelDirs { ahead: None, cache: Some(root.join("cache")) };
        let cached = root.join("cache").join("probe.cubin");

        let (module, origin) = load_module(PROBE_PTX, "probe.cubin", &dirs).unwrap();
        assert!(matches!(&origin, KernelOrigin::Compiled { saved: Some(p), .. } if *p == cached), "{origin:?}");
        assert_eq!(probe(&module), 42);
        let (module, origin) = load_module(PROBE_PTX, "probe.cubin", &dirs).unwrap();
        assert_eq!(origin, KernelOrigin::Cached(cached.clone()));
        assert_eq!(probe(&module), 42);

        // A damaged cache file is passed over and replaced.
        std::fs::write(&cached, b"not a cubin").unwrap();
        let (module, origin) = load_module(PROBE_PTX, "probe.cubin", &dirs).unwrap();
        assert!(matches!(origin, KernelOrigin::Compiled { saved: Some(_), .. }), "{origin:?}");
        assert_eq!(probe(&module), 42);
        assert_eq!(load_module(PROBE_PTX, "probe.cubin", &dirs).unwrap().1, KernelOrigin::Cached(cached.clone()));

        // An ahead-of-time cubin comes first.
        let ahead = root.join("ahead");
        std::fs::create_dir_all(&ahead).unwrap();
        std::fs::copy(&cached, ahead.join("probe.cubin")).unwrap();
        let with_ahead = KernelDirs { ahead: Some(ahead.clone()), ..dirs.clone() };
        assert_eq!(load_module(PROBE_PTX, "probe.cubin", &with_ahead).unwrap().1, KernelOrigin::AheadOfTime(ahead.join("probe.cubin")));

        // A cache that cannot be written still gives a module.
        let blocked = KernelDirs { ahead: None, cache: Some(cached.join("under-a-file")) };
        let (module, origin) = load_module(PROBE_PTX, "probe.cubin", &blocked).unwrap();
        assert!(matches!(origin, KernelOrigin::Compiled { saved: None, .. }), "{origin:?}");
        assert_eq!(probe(&module), 42);
        drop(module);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
