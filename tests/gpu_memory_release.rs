//! Device objects return their VRAM when dropped on a thread without a
//! context. Alone in its test binary: it reads the device's free memory
//! before and after, which the other GPU tests would move if they ran
//! beside it in one process (they run on parallel threads there).
#![cfg(feature = "cuda")]

mod common;

#[test]
fn device_objects_free_their_memory_from_any_thread() {
    let Some(gpu) = common::gpu_or_skip("device_objects_free_their_memory_from_any_thread") else {
        return;
    };
    gpu.bind().unwrap();
    let free = || cust::memory::mem_get_info().unwrap().0;
    let before = free();
    let points = vec![<blstrs::G1Affine as group::prime::PrimeCurveAffine>::generator(); 1 << 20];
    let objects = (cuzk::gpu::msm::GpuBases::upload_g1(&gpu, &points).unwrap(), cuzk::gpu::ntt::GpuNtt::new(&gpu, 20).unwrap());
    let held = before - free();
    assert!(held >= 96 << 20, "2^20 G1 bases (96 MiB) and NTT tables held: {held} bytes");
    // Dropped on a thread that has no context current.
    std::thread::spawn(move || drop(objects)).join().unwrap();
    let leaked = before.saturating_sub(free());
    assert!(leaked < 4 << 20, "{leaked} bytes of VRAM not returned");
}
