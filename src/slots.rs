//! Worker slots: the fixed set of places a pre-staged proof can live.
//!
//! Each slot stands for memory reserved once when the prover is built (on the
//! GPU: one worker's VRAM and stream). `prestage` takes a slot and the staged
//! proof gives it back when it is computed or dropped, so the number of proofs
//! in flight never exceeds what was reserved, and nothing is allocated later.

use std::sync::{Arc, Condvar, Mutex};

pub(crate) struct SlotPool {
    free: Mutex<Vec<usize>>,
    available: Condvar,
}

impl SlotPool {
    pub fn new(count: usize) -> Arc<Self> {
        // Reversed so that slot 0 is handed out first.
        Arc::new(SlotPool { free: Mutex::new((0..count).rev().collect()), available: Condvar::new() })
    }

    /// Blocks until a slot is free.
    pub fn acquire(self: &Arc<Self>) -> SlotGuard {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(index) = free.pop() {
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
        self.pool.free.lock().unwrap_or_else(|e| e.into_inner()).push(self.index);
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
}
