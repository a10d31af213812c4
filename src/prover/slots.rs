//! Worker slots: the fixed set of places a pre-staged proof can live.
//!
//! Each slot stands for memory reserved once when the prover is built (on the
//! GPU: one worker's VRAM and stream). `prestage` takes a slot and the staged
//! proof gives it back when it is computed or dropped, so the number of proofs
//! in flight never exceeds what was reserved, and nothing is allocated later.
//!
//! Slots are numbered device by device (`workers_per_device` each). A slot is
//! handed out from the device with the fewest proofs in flight, least
//! recently used first, so work spreads over every device even when fewer
//! proofs are in flight than there are slots. A device that was lost is
//! retired: it takes no more proofs while another device is usable (its
//! proofs would only fail); once every device is retired, slots are handed
//! out again, and their proofs fail at once with the device's error.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

pub(crate) struct SlotPool {
    state: Mutex<PoolState>,
    available: Condvar,
}

struct PoolState {
    /// Free slots, least recently used first.
    free: VecDeque<usize>,
    workers_per_device: usize,
    /// Per device: slots held.
    busy: Vec<usize>,
    /// Per device: lost, takes no more proofs while another is usable.
    retired: Vec<bool>,
}

impl PoolState {
    fn device(&self, slot: usize) -> usize {
        slot / self.workers_per_device
    }

    /// Where in `free` the slot to hand out is, if one may be handed out.
    fn pick(&self) -> Option<usize> {
        let any_usable = self.retired.iter().any(|r| !r);
        self.free
            .iter()
            .enumerate()
            .filter(|&(_, &slot)| !any_usable || !self.retired[self.device(slot)])
            // The first of the least busy devices' slots: min_by_key keeps the first minimum.
            .min_by_key(|&(_, &slot)| self.busy[self.device(slot)])
            .map(|(at, _)| at)
    }

    fn take(&mut self, at: usize) -> usize {
        let slot = self.free.remove(at).expect("a free slot's place");
        let device = self.device(slot);
        self.busy[device] += 1;
        slot
    }
}

impl SlotPool {
    /// `devices × workers_per_device` slots, all free.
    pub fn new(devices: usize, workers_per_device: usize) -> Arc<Self> {
        let (devices, workers_per_device) = (devices.max(1), workers_per_device.max(1));
        let state = PoolState {
            free: (0..devices * workers_per_device).collect(),
            workers_per_device,
            busy: vec![0; devices],
            retired: vec![false; devices],
        };
        Arc::new(SlotPool { state: Mutex::new(state), available: Condvar::new() })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A free slot, if one may be taken now.
    pub fn try_acquire(self: &Arc<Self>) -> Option<SlotGuard> {
        let mut state = self.lock();
        let at = state.pick()?;
        Some(SlotGuard { pool: Arc::clone(self), index: state.take(at) })
    }

    /// Blocks until a slot may be taken.
    pub fn acquire(self: &Arc<Self>) -> SlotGuard {
        let mut state = self.lock();
        loop {
            if let Some(at) = state.pick() {
                return SlotGuard { pool: Arc::clone(self), index: state.take(at) };
            }
            state = self.available.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Retires the device that holds `slot` (it was lost). Returns whether
    /// it was not retired before, and whether a usable device is left.
    pub fn retire_device_of(&self, slot: usize) -> (bool, bool) {
        let mut state = self.lock();
        let device = state.device(slot);
        let newly = state.retired.get_mut(device).is_some_and(|r| !std::mem::replace(r, true));
        let usable_left = state.retired.iter().any(|r| !r);
        // Waiters may now take a retired device's slot (every device lost).
        self.available.notify_all();
        (newly, usable_left)
    }
}

/// A held slot; returned to the pool on drop.
pub(crate) struct SlotGuard {
    pool: Arc<SlotPool>,
    pub index: usize,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        state.free.push_back(self.index);
        let device = state.device(self.index);
        state.busy[device] -= 1;
        drop(state);
        self.pool.available.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn acquire_blocks_until_a_slot_is_returned() {
        let pool = SlotPool::new(1, 1);
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
        let pool = SlotPool::new(1, 3);
        let first = pool.acquire();
        assert_eq!(first.index, 0);
        drop(first);
        // Not slot 0 again: the others have waited longer.
        assert_eq!(pool.acquire().index, 1);
        assert_eq!(pool.acquire().index, 2);
    }

    #[test]
    fn proofs_spread_over_every_device() {
        // Slots 0, 1 on device 0; 2, 3 on device 1; 4, 5 on device 2.
        let pool = SlotPool::new(3, 2);
        let held: Vec<_> = (0..3).map(|_| pool.acquire()).collect();
        let mut devices: Vec<usize> = held.iter().map(|s| s.index / 2).collect();
        devices.sort();
        assert_eq!(devices, [0, 1, 2], "one proof per device before a second on any");
        // One in flight at a time: still rotates over the devices.
        drop(held);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..6 {
            seen.insert(pool.acquire().index / 2);
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn a_retired_device_takes_no_proofs_while_another_is_usable() {
        let pool = SlotPool::new(2, 2);
        let first = pool.acquire();
        assert_eq!(first.index / 2, 0);
        assert_eq!(pool.retire_device_of(first.index), (true, true));
        assert_eq!(pool.retire_device_of(first.index), (false, true), "once");
        drop(first);
        let (a, b) = (pool.acquire(), pool.acquire());
        assert_eq!((a.index / 2, b.index / 2), (1, 1));
        assert!(pool.try_acquire().is_none(), "device 0's free slots are not handed out");
        // A waiter gets device 1's slot back, not device 0's.
        let waiter = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.acquire().index)
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished());
        let b_index = b.index;
        drop(b);
        assert_eq!(waiter.join().unwrap(), b_index);
        // Every device lost: slots are handed out again (their proofs fail fast).
        assert_eq!(pool.retire_device_of(a.index), (true, false));
        assert!(pool.try_acquire().is_some());
    }
}
