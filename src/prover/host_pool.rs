//! The threads the prover's own parallel CPU work runs on (the CPU
//! backend's FFTs and MSMs, a witness's classes, satisfaction checks, the
//! check of each proof before it is returned), a pool of their own for the
//! copies a GPU waits for (filling the pinned staging chunks), and the rule
//! that keeps them from waiting for ever.
//!
//! Not rayon's global pool: a caller may fill that pool with tasks that
//! each wait in a `prove_batch` (`batches.par_iter().map(|b|
//! prover.prove_batch(…))`). The batches' workers would then put their
//! work in a pool with no thread left to run it, and every call would wait
//! for ever without an error (`tests/groth16_cpu.rs`). Only closures that
//! never wait on a worker slot, a lock or the GPU run here, so this pool
//! always makes progress.
//!
//! A thread that holds a slot or a lock must not wait inside a rayon pool
//! either: a rayon thread runs other queued tasks while it waits, and one
//! of those wanting the same slot or lock would wait for ever on the frame
//! beneath it. So the prover's entry points first leave any rayon thread
//! they are called on ([`off_pool_threads`]).

use std::sync::OnceLock;

/// A pool built on first use with as many threads as rayon's default
/// (`RAYON_NUM_THREADS`, else one per core); `None` if it could not be.
fn build(name: &'static str) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .thread_name(move |i| format!("{name}-{i}"))
        .build()
        .inspect_err(|e| log::warn!("cuzk's {name} thread pool could not be built ({e}); its work runs in rayon's global pool"))
        .ok()
}

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| build("cuzk-host")).as_ref()
}

/// The copies' pool: idle between uploads. Queued behind the host pool's
/// work (the next job's classes encoded on every core), a compiled
/// pre-stage's 0.12 GB of staged copies took up to 70 ms instead of 10
/// while its GPU waited. (Only the GPU's uploads, and its test, use it.)
#[cfg(any(feature = "cuda", test))]
fn copy_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| build("cuzk-copy")).as_ref()
}

/// Runs `op` (and the parallel iterators inside it) on the prover's pool.
/// `op` must never wait on a worker slot, a lock or the GPU.
pub(crate) fn run<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(op),
        None => op(),
    }
}

/// Runs `op` on the copies' pool: host memory copies a GPU is waiting for,
/// which must not queue behind the host pool's work. The same rule as
/// [`run`]: `op` never waits on a worker slot, a lock or the GPU.
#[cfg(any(feature = "cuda", test))]
pub(crate) fn run_copy<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    match copy_pool() {
        Some(pool) => pool.install(op),
        None => op(),
    }
}

/// Runs `op` on the calling thread, or on a thread of its own when the
/// caller is one of a rayon pool's threads (which would run other tasks
/// while `op` waits). A panic in `op` goes on in the caller.
pub(crate) fn off_pool_threads<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_none() {
        return op();
    }
    let mut op = Some(op);
    let joined = std::thread::scope(|scope| {
        let op = &mut op;
        let spawned = std::thread::Builder::new().name("cuzk-call".into()).spawn_scoped(scope, move || op.take().map(|op| op()));
        spawned.ok().map(|thread| thread.join())
    });
    match joined {
        Some(Ok(Some(out))) => out,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        // No thread could be spawned: run here rather than fail.
        Some(Ok(None)) | None => (op.take().expect("not run yet"))(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_the_hosts_own_threads() {
        let name = run(|| std::thread::current().name().map(str::to_owned));
        assert!(name.is_some_and(|n| n.starts_with("cuzk-host-")));
    }

    #[test]
    fn copies_do_not_queue_behind_the_host_pools_work() {
        // Every host thread busy for 2 s (sleeping: no core is taken).
        let busy = std::thread::spawn(|| {
            run(|| {
                use rayon::prelude::*;
                (0..4 * rayon::current_num_threads()).into_par_iter().for_each(|_| std::thread::sleep(std::time::Duration::from_millis(500)))
            })
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        let start = std::time::Instant::now();
        let name = run_copy(|| {
            use rayon::prelude::*;
            let mut dst = vec![0u8; 1 << 22];
            dst.par_chunks_mut(1 << 16).for_each(|c| c.fill(1));
            assert!(dst.iter().all(|&b| b == 1));
            std::thread::current().name().map(str::to_owned)
        });
        let took = start.elapsed();
        assert!(!busy.is_finished(), "the host pool's work ended before the copy was timed");
        busy.join().unwrap();
        assert!(name.is_some_and(|n| n.starts_with("cuzk-copy-")));
        assert!(took < std::time::Duration::from_millis(1000), "a copy waited {took:?} behind the host pool");
    }

    #[test]
    fn a_call_from_a_rayon_thread_leaves_it_and_a_plain_call_stays() {
        let here = std::thread::current().id();
        assert_eq!(off_pool_threads(|| std::thread::current().id()), here);
        let (on_rayon, in_op) = rayon::scope(|_| (rayon::current_thread_index(), off_pool_threads(rayon::current_thread_index)));
        assert!(on_rayon.is_some());
        assert_eq!(in_op, None, "op ran on a rayon thread");
    }

    #[test]
    fn a_panic_in_op_reaches_the_caller() {
        let caught = rayon::scope(|_| std::panic::catch_unwind(|| off_pool_threads(|| panic!("inside op"))));
        assert!(caught.is_err());
    }
}
