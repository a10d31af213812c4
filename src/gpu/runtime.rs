//! Device discovery: one context (the primary one, or for tests one of its
//! own, `device_context`) and one loaded kernel module per device.

use cust::device::{Device, DeviceAttribute};
use cust::error::CudaError;
use cust::module::Module;
use log::info;

use super::device_context::DeviceContext;
use super::kernel_cache::{self, KernelOrigin};
use super::{gpu_err, KERNELS_PTX, KERNELS_PTX_FNV};
use crate::error::ProverError;

/// One GPU, ready to launch our kernels.
pub struct GpuDevice {
    /// The CUDA device ordinal.
    pub ordinal: u32,
    /// The device's name, as the driver reports it.
    pub name: String,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// (major, minor), e.g. (9, 0) for an H200.
    pub compute_capability: (i32, i32),
    /// Our kernels, loaded in this device's context.
    pub module: Module,
    // Dropped last: the module and every buffer live in this context.
    context: DeviceContext,
}

impl Drop for GpuDevice {
    /// The module is unloaded in its own context (fields drop after this).
    fn drop(&mut self) {
        let _ = self.bind();
    }
}

impl GpuDevice {
    /// Makes this device's context current on the calling thread; every
    /// thread must do this before touching the device.
    pub fn bind(&self) -> Result<(), ProverError> {
        self.context.set_current()
    }

    /// The context this device's work runs in, for buffers that must free
    /// themselves in it.
    pub(crate) fn context(&self) -> &DeviceContext {
        &self.context
    }

    /// Loads another module (PTX, cubin or fatbin file) into this device's
    /// context, e.g. a variant build of the kernels to measure against.
    pub fn load_module_file(&self, path: &std::path::Path) -> Result<Module, ProverError> {
        self.bind()?;
        Module::from_file(path).map_err(|e| gpu_err(&format!("load {}", path.display()), e))
    }
}

/// Opens the devices with the given ordinals (all when empty). No driver or
/// no device is `ProverError::NoGpu`, so callers can fall back to the CPU.
pub fn discover(ordinals: &[usize]) -> Result<Vec<GpuDevice>, ProverError> {
    open_devices(ordinals, None)
}

/// As [`discover`]; with `contexts_per_gpu`, each GPU is opened as that
/// many devices, each in a context of its own, standing in for as many
/// GPUs (`FaultPlan::contexts_per_gpu`, for tests).
pub(crate) fn open_devices(ordinals: &[usize], contexts_per_gpu: Option<usize>) -> Result<Vec<GpuDevice>, ProverError> {
    match cust::init(cust::CudaFlags::empty()) {
        Ok(()) => {}
        Err(e @ (CudaError::NoDevice | CudaError::NotInitialized | CudaError::InvalidDevice | CudaError::UnknownError)) => {
            return Err(ProverError::NoGpu(format!("cuInit: {e}")));
        }
        Err(e) => return Err(ProverError::NoGpu(format!("cuInit: {e} (is the NVIDIA driver installed?)"))),
    }
    let count = Device::num_devices().map_err(|e| ProverError::NoGpu(format!("cuDeviceGetCount: {e}")))? as usize;
    if count == 0 {
        return Err(ProverError::NoGpu("the driver reports no CUDA device".into()));
    }
    let wanted: Vec<usize> = if ordinals.is_empty() { (0..count).collect() } else { ordinals.to_vec() };
    if let Some(ordinal) = wanted.iter().find(|&&o| o >= count) {
        return Err(ProverError::Config(format!("GPU {ordinal} requested, but only {count} present")));
    }
    let mut devices = Vec::new();
    for ordinal in wanted {
        let ordinal = ordinal as u32;
        match contexts_per_gpu {
            None => devices.push(open(ordinal, DeviceContext::primary(ordinal)?)?),
            Some(n) => {
                for _ in 0..n {
                    devices.push(open(ordinal, DeviceContext::created(ordinal)?)?);
                }
            }
        }
    }
    Ok(devices)
}

/// The kernels for compute capability `sm`: from a cubin compiled ahead or
/// cached, else compiled by the driver's JIT and cached (`kernel_cache`).
fn load_kernels(sm: (i32, i32)) -> Result<Module, ProverError> {
    let name = cubin_path(std::path::Path::new(""), sm);
    let name = name.to_str().expect("an ASCII file name");
    let (module, origin) = kernel_cache::load_module(KERNELS_PTX, name, &kernel_cache::KernelDirs::from_env())?;
    match origin {
        KernelOrigin::AheadOfTime(path) | KernelOrigin::Cached(path) => info!("kernels loaded from {}", path.display()),
        KernelOrigin::Compiled { .. } => {}
    }
    Ok(module)
}

/// Where a cubin of our PTX for `sm` is looked for in `dir` (ahead of
/// time, or in the cache).
pub fn cubin_path(dir: &std::path::Path, sm: (i32, i32)) -> std::path::PathBuf {
    dir.join(format!("cuzk_kernels-{KERNELS_PTX_FNV}-sm_{}{}.cubin", sm.0, sm.1))
}

fn open(ordinal: u32, context: DeviceContext) -> Result<GpuDevice, ProverError> {
    let device = Device::get_device(ordinal).map_err(|e| gpu_err("cuDeviceGet", e))?;
    context.set_current()?;
    let attr = |a| device.get_attribute(a).unwrap_or(0);
    let sm = (attr(DeviceAttribute::ComputeCapabilityMajor), attr(DeviceAttribute::ComputeCapabilityMinor));
    let module = load_kernels(sm)?;
    let gpu = GpuDevice {
        ordinal,
        name: device.name().unwrap_or_default(),
        total_memory: device.total_memory().unwrap_or(0),
        compute_capability: sm,
        module,
        context,
    };
    info!(
        "GPU {}: {} (sm_{}{}), {:.1} GiB",
        gpu.ordinal,
        gpu.name,
        gpu.compute_capability.0,
        gpu.compute_capability.1,
        gpu.total_memory as f64 / (1u64 << 30) as f64
    );
    Ok(gpu)
}
