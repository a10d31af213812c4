//! Launching a one-thread-per-element kernel.

use std::ffi::c_void;

use cust::module::Module;
use cust::stream::Stream;

use super::gpu_err;
use crate::error::ProverError;

/// The kernel parameters `x, y, …` (mutable locals) as CUDA's launch takes
/// them: an array of pointers to each.
macro_rules! kernel_args {
    ($($x:ident),* $(,)?) => {
        [$(&mut $x as *mut _ as *mut std::ffi::c_void),*]
    };
}
pub(crate) use kernel_args;

/// Threads per block of a one-thread-per-element launch.
pub const BLOCK: u32 = 256;

/// Launches `name` over `n` elements on `stream`. `args` are pointers to the
/// kernel's parameters, in order (CUDA's launch convention).
///
/// # Safety
/// `args` must match the kernel's signature, and every buffer they point to
/// must stay alive until the stream has run the kernel.
pub unsafe fn launch_elementwise(
    module: &Module,
    stream: &Stream,
    name: &str,
    n: u32,
    args: &[*mut c_void],
) -> Result<(), ProverError> {
    launch_blocks_of(module, stream, name, n, BLOCK, args)
}

/// [`launch_elementwise`] with `block` threads per block.
///
/// # Safety
/// As for [`launch_elementwise`].
pub unsafe fn launch_blocks_of(
    module: &Module,
    stream: &Stream,
    name: &str,
    n: u32,
    block: u32,
    args: &[*mut c_void],
) -> Result<(), ProverError> {
    if n == 0 {
        return Ok(());
    }
    let func = module.get_function(name).map_err(|e| gpu_err(name, e))?;
    stream.launch(&func, n.div_ceil(block), block, 0, args).map_err(|e| gpu_err(name, e))
}
