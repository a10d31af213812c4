//! The embedded PTX is self-contained: no unresolved functions (a panic path
//! or a missing intrinsic would leave a `.extern .func`), and it exports the
//! kernels the host launches (the MSM plans' included).
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

/// Every kernel an MSM plan launches (both curves, both first accumulation
/// levels, every sort, with and without a density) is in the PTX.
#[test]
fn ptx_exports_every_msm_kernel_a_plan_launches() {
    use cuzk_kernels::ff::ScalarForm;
    use cuzk_kernels::msm::plan::{Accumulation, Curve, MsmConfig, MsmIo, MsmPlan, Sort};
    let mut names = std::collections::BTreeSet::new();
    for curve in [Curve::G1, Curve::G2] {
        for accumulation in [Accumulation::Xyzz, Accumulation::BatchAffine { streams: 0 }] {
            for sort in [Sort::Counted, Sort::Padded { cap_log: 0 }, Sort::Binned { bins_log: 0 }] {
                let plan = MsmPlan::new(5000, curve, &MsmConfig { sort, accumulation, ..MsmConfig::default() }).unwrap();
                for scalar_form in [ScalarForm::Montgomery, ScalarForm::Canonical] {
                    let io = MsmIo { bases: 0, n_bases: 5000, base_offset: 0, scalars: 0, scalar_form, density: 1, out: 0 };
                    plan.steps::<()>(&io, 0, |step| {
                        names.extend(step.kernel(curve));
                        Ok(())
                    })
                    .unwrap();
                }
            }
        }
    }
    assert!(names.contains("msm_g2_accumulate0_affine") && names.contains("msm_popcount") && names.contains("msm_refine") && names.contains("msm_bin_canonical") && names.contains("msm_count_bins") && names.contains("msm_count_keys"), "{names:?}");
    for name in names {
        assert!(KERNELS_PTX.contains(&format!(".entry {name}(")), "missing kernel {name}");
    }
}
