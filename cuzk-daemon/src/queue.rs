//! The queue of jobs waiting for the prover: highest priority first, then
//! arrival order; any job can leave it (a cancel) without a scan.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use crate::proof_kind::Priority;

/// A job's place in the queue.
pub type QueueKey = (Reverse<Priority>, u64);

/// Queued job ids in the order they run.
#[derive(Debug, Default)]
pub struct JobQueue {
    entries: BTreeMap<QueueKey, String>,
    arrivals: u64,
}

impl JobQueue {
    /// Queues `job_id`; its key removes it again.
    pub fn push(&mut self, priority: Priority, job_id: String) -> QueueKey {
        self.arrivals += 1;
        let key = (Reverse(priority), self.arrivals);
        self.entries.insert(key, job_id);
        key
    }

    /// The next job to run, if its priority is at least `min`.
    pub fn pop(&mut self, min: Priority) -> Option<String> {
        let (&key, _) = self.entries.first_key_value()?;
        if key.0 .0 < min {
            return None;
        }
        self.entries.remove(&key)
    }

    /// Takes a queued job out (cancelled); false if it was not queued.
    pub fn remove(&mut self, key: &QueueKey) -> bool {
        self.entries.remove(key).is_some()
    }

    /// Up to `max` more jobs of priority `min` or above, in run order, that
    /// `fits` accepts (the rest of a batch), taken out of the queue.
    pub fn take_matching(&mut self, max: usize, min: Priority, mut fits: impl FnMut(&str) -> bool) -> Vec<String> {
        let keys: Vec<QueueKey> = self.entries.iter().take_while(|(k, _)| k.0 .0 >= min).filter(|(_, id)| fits(id)).map(|(k, _)| *k).take(max).collect();
        keys.iter().filter_map(|k| self.entries.remove(k)).collect()
    }

    /// Jobs ahead of `key` (0: it runs next).
    pub fn position(&self, key: &QueueKey) -> usize {
        self.entries.range(..key).count()
    }

    /// Queued jobs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Nothing queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Queued jobs of one priority.
    pub fn len_at(&self, priority: Priority) -> usize {
        self.entries.keys().filter(|(Reverse(p), _)| *p == priority).count()
    }

    /// Every queued job, in run order (emptying the queue).
    pub fn drain(&mut self) -> Vec<String> {
        std::mem::take(&mut self.entries).into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_then_arrival() {
        let mut q = JobQueue::default();
        q.push(Priority::Normal, "n1".into());
        let low = q.push(Priority::Low, "l1".into());
        q.push(Priority::Critical, "c1".into());
        let n2 = q.push(Priority::Normal, "n2".into());
        assert_eq!(q.position(&low), 3);
        assert_eq!(q.position(&n2), 2);
        assert_eq!(q.len_at(Priority::Normal), 2);
        assert!(q.remove(&n2));
        assert!(!q.remove(&n2));
        assert_eq!(q.pop(Priority::Low).as_deref(), Some("c1"));
        assert_eq!(q.pop(Priority::High), None, "the urgent lane leaves a normal job");
        assert_eq!(q.pop(Priority::Low).as_deref(), Some("n1"));
        assert_eq!(q.pop(Priority::Low).as_deref(), Some("l1"));
        assert_eq!(q.pop(Priority::Low), None);
    }

    #[test]
    fn take_matching_keeps_order_and_limit() {
        let mut q = JobQueue::default();
        for id in ["a1", "b1", "a2", "a3"] {
            q.push(Priority::Normal, id.into());
        }
        q.push(Priority::High, "a0".into());
        assert_eq!(q.take_matching(2, Priority::High, |id| id.starts_with('a')), vec!["a0"], "only urgent ones for the urgent lane");
        assert_eq!(q.take_matching(2, Priority::Low, |id| id.starts_with('a')), vec!["a1", "a2"]);
        assert_eq!(q.len(), 2);
        assert_eq!(q.drain(), vec!["b1", "a3"]);
        assert!(q.is_empty());
    }
}
