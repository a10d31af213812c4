//! The CUDA errors after which a device takes no more work, in one place.
//!
//! From the driver API's documentation of `CUresult` (CUDA 12/13): the
//! kernel faults whose text reads "this leaves the process in an
//! inconsistent state and any further CUDA work will return the same
//! error"; the uncorrectable hardware errors; and the errors that mean the
//! device or its driver is gone (a GPU that fell off the bus reports
//! `CUDA_ERROR_UNKNOWN` or no device at all). Every other error fails
//! its own call only (`ProverError::Gpu`).

/// Why an error retires a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FatalClass {
    /// A kernel fault poisoned the context.
    KernelFault,
    /// The hardware reported an uncorrectable error.
    Hardware,
    /// The device, its context or its driver is gone.
    DeviceGone,
}

/// (code, the driver's name for it, its class).
pub(crate) const FATAL_ERRORS: [(u32, &str, FatalClass); 20] = [
    (700, "CUDA_ERROR_ILLEGAL_ADDRESS", FatalClass::KernelFault),
    (702, "CUDA_ERROR_LAUNCH_TIMEOUT", FatalClass::KernelFault),
    (710, "CUDA_ERROR_ASSERT", FatalClass::KernelFault),
    (714, "CUDA_ERROR_HARDWARE_STACK_ERROR", FatalClass::KernelFault),
    (715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", FatalClass::KernelFault),
    (716, "CUDA_ERROR_MISALIGNED_ADDRESS", FatalClass::KernelFault),
    (717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", FatalClass::KernelFault),
    (718, "CUDA_ERROR_INVALID_PC", FatalClass::KernelFault),
    (719, "CUDA_ERROR_LAUNCH_FAILED", FatalClass::KernelFault),
    (214, "CUDA_ERROR_ECC_UNCORRECTABLE", FatalClass::Hardware),
    (220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", FatalClass::Hardware),
    (911, "CUDA_ERROR_EXTERNAL_DEVICE", FatalClass::Hardware),
    (3, "CUDA_ERROR_NOT_INITIALIZED", FatalClass::DeviceGone),
    (4, "CUDA_ERROR_DEINITIALIZED", FatalClass::DeviceGone),
    (46, "CUDA_ERROR_DEVICE_UNAVAILABLE", FatalClass::DeviceGone),
    (100, "CUDA_ERROR_NO_DEVICE", FatalClass::DeviceGone),
    (709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", FatalClass::DeviceGone),
    (802, "CUDA_ERROR_SYSTEM_NOT_READY", FatalClass::DeviceGone),
    (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", FatalClass::DeviceGone),
    (999, "CUDA_ERROR_UNKNOWN", FatalClass::DeviceGone),
];

/// The class of a fatal error code, `None` for the others.
pub(crate) fn fatal_class(code: u32) -> Option<FatalClass> {
    FATAL_ERRORS.iter().find(|(c, _, _)| *c == code).map(|(_, _, class)| *class)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ProverError;

    #[test]
    fn every_fatal_class_retires_the_device_and_other_errors_do_not() {
        for (code, name, _) in FATAL_ERRORS {
            let e = super::super::classify("a call", code, name);
            assert!(matches!(&e, ProverError::DeviceLost { cause, .. } if cause.contains(name)), "{code} {name}: {e}");
        }
        // cust reports codes it does not know as CUDA_ERROR_UNKNOWN: those
        // retire the device too.
        assert_eq!(fatal_class(cust::error::CudaError::UnknownError as u32), Some(FatalClass::DeviceGone));
        for class in [FatalClass::KernelFault, FatalClass::Hardware, FatalClass::DeviceGone] {
            assert!(FATAL_ERRORS.iter().any(|(_, _, c)| *c == class));
        }
        // Errors of one call: out of memory, a bad argument, a launch too
        // large, not ready, a device ordinal that does not exist.
        for code in [1, 2, 101, 201, 600, 701, 720, 801] {
            assert!(matches!(super::super::classify("a call", code, "e"), ProverError::Gpu(_)), "{code}");
        }
    }
}
