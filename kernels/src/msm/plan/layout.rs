//! Where an MSM's working arrays live in the arena: the layout types and
//! the region allocator that places them.

use super::*;


/// A `u32` array that is scanned in place, and the chunk-sum arrays of its
/// scan tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanLayout {
    /// Word offset (in the arena) and length of level `l` (level 0 is the
    /// data itself).
    pub levels: [(usize, u32); 8],
    pub count: usize,
}

/// Where everything lives in the arena, in `u64` words from its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// `n_keys + 1` bucket counts, scanned into starts.
    pub starts: ScanLayout,
    /// `n_keys + 1` scatter cursors.
    pub cursor: usize,
    /// `density_words` popcounts, scanned into the density prefix.
    pub prefix: ScanLayout,
    /// Room for `n` indices of scalars with digits, and their count (see
    /// `sort::scatter`).
    pub digit_list: usize,
    pub digit_count: usize,
    /// Padded sort only: `shape.base(n_keys)` slots (`u32`), the overflow
    /// list (`entries_max` `u64` pairs) and its count, overlapping the
    /// accumulation's buffers (written only after the sort).
    pub padded: usize,
    pub overflow: usize,
    pub overflow_count: usize,
    /// Binned sort only: one window's staged `(key, entry)` pairs (`general`
    /// `u64`) and every window's bin cursors (`windows · 2^bins_log` `u32`),
    /// overlapping the accumulation's buffers as the padded sort's do.
    pub staged: usize,
    pub bin_cursor: usize,
    /// Binned sort only: the bin counts (`windows · 2^bins_log` bins, the
    /// ones bucket, the total), scanned into the bins' starts.
    pub bin_starts: ScanLayout,
    /// `entries_max` sorted entries (`u32`).
    pub entries: usize,
    /// Two ping-pong item buffers of the accumulation levels: keys (`u32`)
    /// and points (XYZZ), capacity in items.
    pub item_keys: [usize; 2],
    pub item_points: [usize; 2],
    pub item_capacity: [u32; 2],
    /// `n_keys` bucket sums (XYZZ), first in the arena (see `Carry`).
    pub sums: usize,
    /// Each merge level's `2 · outputs` `(U, T)` points (XYZZ).
    pub merged: [usize; MAX_REDUCE_LEVELS],
    /// `windows` weighted window sums (XYZZ).
    pub win: usize,
    /// Batch-affine level 0 only: per launched thread and stream, the
    /// affine accumulator and first-run sum, the prefix product and the
    /// `u32` state,
    /// overlapping the bucket reduction's buffers (written only after the
    /// accumulation).
    pub batch_acc: usize,
    pub batch_first: usize,
    pub batch_prefix: usize,
    pub batch_state: usize,
    /// Total arena words.
    pub words: usize,
}

/// One level of the bucket reduction tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeLevel {
    /// log2 of the buckets in each input segment.
    pub in_m_log: u32,
    pub fan_log: u32,
    /// Output segments (threads), all windows together.
    pub outputs: u32,
}

/// The batch-affine first accumulation level's launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchAffinePlan {
    /// Streams (level-0 chunks) per group, the chunks a thread steps at
    /// once.
    pub per_thread: u32,
    /// Stream groups: `ceil(threads0 / per_thread)`; the next level gets
    /// two items from each.
    pub groups: u32,
    /// Threads launched (a multiple of `MSM_BLOCK`), each with its scratch.
    pub grid: u32,
}

/// One accumulation level after the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    pub n_in: u32,
    pub threads: u32,
    pub last: bool,
}

pub const MAX_LEVELS: usize = 32;


/// Region allocator: 256-byte aligned offsets in `u64` words.
pub(super) struct Bump(pub(super) usize);

impl Bump {
    pub(super) fn take(&mut self, words: usize) -> usize {
        let at = self.0;
        self.0 = (self.0 + words).div_ceil(32) * 32;
        at
    }
    pub(super) fn take_u32(&mut self, len: usize) -> usize {
        self.take(len.div_ceil(2))
    }
    pub(super) fn scan(&mut self, len: u32) -> ScanLayout {
        let mut s = ScanLayout::default();
        let mut n = len;
        s.levels[0] = (self.take_u32(n as usize), n);
        s.count = 1;
        while n > CHUNK {
            n = chunks(n);
            s.levels[s.count] = (self.take_u32(n as usize), n);
            s.count += 1;
        }
        s
    }
}

/// A scan tree for `len` elements placed from word `at` on; returns it and
/// the first word after it.
pub fn scan_layout(len: u32, at: usize) -> (ScanLayout, usize) {
    let mut bump = Bump(at);
    let s = bump.scan(len);
    (s, bump.0)
}
