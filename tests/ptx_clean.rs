//! The embedded PTX is self-contained: no unresolved functions (a panic path
//! or a missing intrinsic would leave a `.extern .func`), and it exports the
//! kernels the host launches.
#![cfg(feature = "cuda")]

use cuzk::gpu::KERNELS_PTX;

#[test]
fn ptx_has_no_external_functions_or_panic_paths() {
    let externs: Vec<&str> = KERNELS_PTX.lines().filter(|l| l.contains(".extern")).collect();
    assert!(externs.is_empty(), "unresolved externals in the PTX: {externs:?}");
    let panics: Vec<&str> = KERNELS_PTX.lines().filter(|l| l.contains("panicking")).take(5).collect();
    assert!(panics.is_empty(), "core::panicking is reachable from a kernel: {panics:?}");
}

#[test]
fn ptx_exports_the_fr_kernels() {
    for name in ["fr_add", "fr_sub", "fr_mul"] {
        let entry = format!(".entry {name}(");
        assert!(KERNELS_PTX.contains(&entry), "missing kernel {name}");
    }
}
