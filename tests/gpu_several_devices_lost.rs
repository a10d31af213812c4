//! Faults on a prover over several devices (an injected kernel fault
//! poisons a context). One GPU of several lost: its proofs fail with
//! `DeviceLost`, it takes no more, and the other GPUs make the rest of the
//! batch (skips with fewer than two GPUs). Every device lost at once (one
//! GPU opened as three contexts, `FaultPlan::contexts_per_gpu`, which share
//! a fault's fate): every proof fails with `DeviceLost`, nothing hangs.
//! Its own binary, since a poisoned context stays poisoned for the process.
#![cfg(feature = "cuda")]

mod common;

use cuzk::synthetic::SyntheticPorep;
use cuzk::{Backend, FaultPlan, Prover, ProverConfig, ProverError};

/// GPUs a test of this binary poisoned (a poisoned GPU stays so for the
/// process); held for a whole test, so the tests take turns.
static POISONED: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

#[test]
fn a_lost_gpu_takes_no_more_proofs_and_the_others_go_on() {
    let mut poisoned = POISONED.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = common::several_gpus_or_skip("a_lost_gpu_takes_no_more_proofs_and_the_others_go_on") else {
        return;
    };
    if !poisoned.is_empty() {
        common::report_skip("a_lost_gpu_takes_no_more_proofs_and_the_others_go_on", &format!("GPUs {poisoned:?} were poisoned by another test"));
        return;
    }
    let devices = gpus.len();
    drop(gpus);
    let done = common::watchdog(300, "a batch with a lost GPU did not return");
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 2), &mut rng);
    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 1,
        devices: vec![],
        faults: FaultPlan { poison: Some(2), ..Default::default() },
        ..Default::default()
    };
    let prover = Prover::new(params.clone(), config).expect("prover over every GPU");
    assert_eq!(prover.workers(), devices);
    let circuits: Vec<_> = (0..16).map(|i| SyntheticPorep::with_witness(20_000, 2, 50 + i)).collect();
    let randomness = common::random_r_s(circuits.len(), &mut rng);
    let results = prover.prove_batch_timed(circuits.clone(), randomness, &std::sync::atomic::AtomicBool::new(false), |_, _| {});
    let lost: Vec<u32> = results.iter().filter_map(|r| if let Err(ProverError::DeviceLost { device, .. }) = r { Some(*device) } else { None }).collect();
    poisoned.extend(&lost);
    // The poisoned proof, and at most one staged on that GPU per worker
    // meanwhile; every other proof is made by the other GPUs.
    assert!(!lost.is_empty() && lost.len() <= 2, "{} lost: {results:?}", lost.len());
    let mut made_on = std::collections::BTreeMap::<u32, usize>::new();
    for (i, r) in results.iter().enumerate() {
        match r {
            Ok((proof, timings)) => {
                assert!(common::verifies(&params, proof, &circuits[i].public_values()), "proof {i}");
                *made_on.entry(timings.device.expect("a GPU proof names its device")).or_default() += 1;
            }
            Err(ProverError::DeviceLost { .. }) => {}
            Err(e) => panic!("proof {i}: {e}"),
        }
    }
    // The surviving GPUs made every proof the lost one did not take.
    assert_eq!(made_on.values().sum::<usize>(), circuits.len() - lost.len());
    assert!((0..devices as u32).filter(|d| !lost.contains(d)).all(|d| made_on.contains_key(&d)), "a surviving GPU made none of the batch: {made_on:?}");
    assert_eq!(prover.proofs_rejected(), 0);
    // Later proofs go to the GPUs still usable, never the lost one.
    let mut workers = std::collections::BTreeSet::new();
    for i in 0..2 * devices as u64 {
        let c = SyntheticPorep::with_witness(20_000, 2, 90 + i);
        let staged = prover.prestage(prover.job(c.clone(), &mut rng).unwrap()).expect("staged on a usable device");
        let (proof, timings) = prover.compute_timed(staged).expect("made on a usable device");
        assert!(common::verifies(&params, &proof, &c.public_values()));
        workers.insert(timings.worker.expect("a worker slot"));
    }
    assert_eq!(workers.len(), devices - 1, "every usable GPU, and only those, took the later proofs: workers {workers:?}");
    drop(prover);
    drop(done);
}

/// A fault that poisons one context of a GPU poisons all its contexts in
/// the process (measured on an H200, driver 580), so three contexts of one
/// GPU are three devices lost at once: the batch returns, every proof not
/// finished before the fault fails with `DeviceLost`, and later proofs fail
/// at once with it, on retired devices (none is left usable).
#[test]
fn devices_lost_at_once_fail_every_later_proof_at_once_and_nothing_hangs() {
    let mut poisoned = POISONED.lock().unwrap_or_else(|e| e.into_inner());
    let test = "devices_lost_at_once_fail_every_later_proof_at_once_and_nothing_hangs";
    // The first GPU not poisoned before (opening a poisoned one fails).
    let mut gpu = 0;
    loop {
        if poisoned.contains(&gpu) {
            gpu += 1;
            continue;
        }
        match cuzk::gpu::discover(&[gpu as usize]) {
            Ok(_) => break,
            Err(ProverError::NoGpu(why)) => return common::report_skip(test, &format!("no GPU ({why})")),
            Err(ProverError::Config(why)) => return common::report_skip(test, &format!("every GPU was poisoned by another test ({why})")),
            Err(e) => panic!("GPU {gpu} present but unusable: {e}"),
        }
    }
    poisoned.push(gpu);
    let done = common::watchdog(300, "a batch with every device lost did not return");
    let mut rng = common::rng();
    let params = common::params_for(SyntheticPorep::shape(20_000, 2), &mut rng);
    let config = ProverConfig {
        backend: Backend::Gpu,
        workers_per_device: 1,
        devices: vec![gpu as usize],
        faults: FaultPlan { poison: Some(2), contexts_per_gpu: Some(3), ..Default::default() },
        ..Default::default()
    };
    let prover = Prover::new(params.clone(), config).expect("prover over three contexts");
    assert_eq!(prover.workers(), 3);
    let circuits: Vec<_> = (0..16).map(|i| SyntheticPorep::with_witness(20_000, 2, 50 + i)).collect();
    let results = prover.prove_batch(circuits.clone(), &mut rng);
    let mut made = 0;
    for (i, r) in results.iter().enumerate() {
        match r {
            Ok(proof) => {
                assert!(common::verifies(&params, proof, &circuits[i].public_values()), "proof {i}");
                made += 1;
            }
            Err(ProverError::DeviceLost { device, .. }) if *device == gpu => {}
            Err(e) => panic!("proof {i}: {e}"),
        }
    }
    // Only the first compute can finish before the second poisons the GPU.
    assert!(made <= 1, "{made} made after the fault: {results:?}");
    assert_eq!(prover.proofs_rejected(), 0);
    for i in 0..3 {
        let started = std::time::Instant::now();
        let err = prover.prove(SyntheticPorep::with_witness(20_000, 2, 90 + i), &mut rng).unwrap_err();
        assert!(matches!(err, ProverError::DeviceLost { device, .. } if device == gpu), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "a lost device's proof failed only after {:?}", started.elapsed());
    }
    drop(prover);
    drop(done);
}
