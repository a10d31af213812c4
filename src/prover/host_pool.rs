//! The threads the prover's own parallel CPU work runs on (staging copies,
//! the CPU backend's FFTs and MSMs, satisfaction checks, the check of each
//! proof before it is returned), and the rule that keeps them from waiting
//! for ever.
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

/// The pool, built on first use with as many threads as rayon's default
/// (`RAYON_NUM_THREADS`, else one per core); `None` if it could not be.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("cuzk-host-{i}"))
            .build()
            .inspect_err(|e| log::warn!("cuzk's host thread pool could not be built ({e}); its work runs in rayon's global pool"))
            .ok()
    })
    .as_ref()
}

/// Runs `op` (and the parallel iterators inside it) on the prover's pool.
/// `op` must never wait on a worker slot, a lock or the GPU.
pub(crate) fn run<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    match pool() {
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
