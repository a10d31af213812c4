//! Worker slots: the fixed set of places a pre-staged proof can live.
//!
//! Each slot stands for memory reserved once when the prover is built (on the
//! GPU: one worker's VRAM and stream). `prestage` takes a slot and the staged
//! proof gives it back when it is computed or dropped, so the number of proofs
//! in flight never exceeds what was reserved, and nothing is allocated later.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

/// Free slots, least recently used first: with fewer proofs in flight than
/// slots, work still rotates over all slots (slots are numbered device by
/// device, so the rotation reaches every device).
pub(crate) struct SlotPool {
    free: Mutex<VecDeque<usize>>,
    available: Condvar,
}

impl SlotPool {
    pub fn new(count: usize) -> Arc<Self> {
        Arc::new(SlotPool { free: Mutex::new((0..count).collect()), available: Condvar::new() })
    }

    /// A free slot, if there is one now.
    pub fn try_acquire(self: &Arc<Self>) -> Option<SlotGuard> {
        let index = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop_front()?;
        Some(SlotGuard { pool: Arc::clone(self), index })
    }

    /// Blocks until a slot is free.
    pub fn acquire(self: &Arc<Self>) -> SlotGuard {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(index) = free.pop_front() {
                return SlotGuard { pool: Arc::clone(self), index };
            }
            free = self.available.wait(free).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A held slot; returned to the pool on drop.
pub(crate) struct SlotGuard {
    pool: Arc<SlotPool>,
    pub index: usize,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.pool.free.lock().unwrap_or_else(|e| e.into_inner()).push_back(self.index);
        self.pool.available.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn acquire_blocks_until_a_slot_is_returned() {
        let pool = SlotPool::new(1);
        let held = pool.acquire();
        assert_eq!(held.index, 0);
        let waiter = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.acquire().index)
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "second acquire must wait while the only slot is held");
        drop(held);
        assert_eq!(waiter.join().unwrap(), 0);
    }

    #[test]
    fn the_least_recently_used_slot_is_handed_out() {
        let pool = SlotPool::new(3);
        let first = pool.acquire();
        assert_eq!(first.index, 0);
        drop(first);
        // Not slot 0 again: the others have waited longer.
        assert_eq!(pool.acquire().index, 1);
        assert_eq!(pool.acquire().index, 2);
    }
}
