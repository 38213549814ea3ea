//! What keeps JoSS's map queues fast on a large cluster, kept apart from the queues and the
//! assigners in [`super::queues`]: each queue's per-VPS and per-datacenter index of its tasks,
//! as runs of consecutive tasks in batches, so Hadoop's FIFO-with-locality choice is a lookup,
//! not a scan (the queues' tests compare it with the scan).

use std::collections::VecDeque;

use crate::fast_hash::FastMap;

/// Tasks one index batch lists at most: offsets in a batch (and offset + 1) are `u32`.
pub(super) const MAX_BATCH: usize = 1 << 31;

/// Offsets `lo..hi` of one batch's tasks, all listed for one key.
pub(super) type Run = (u32, u32);

/// A key's runs in one batch: `runs[lo..hi]` of batch number `batch`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Chunk {
    batch: u64,
    lo: u32,
    hi: u32,
}

/// The tasks of one `extend` (a job's tasks, or a rebuilt queue's), as runs grouped by key.
#[derive(Debug, Clone)]
pub(super) struct Batch {
    first_seq: u64,
    end_seq: u64,
    /// Grouped by key, ascending within a key; a run's start moves up as its tasks are taken.
    runs: Vec<Run>,
    /// Keys this batch added a chunk for.
    keys: usize,
}

/// Sequence numbers of the queued tasks listed per key (a VPS or a datacenter number), in queue
/// order, as runs of consecutive tasks: a job's blocks are dealt round-robin over its hosts
/// ([`super::yarn::rebuild_blocks`]), so each host holds one or two runs of consecutive
/// blocks, and a 65,536-task job lists a few thousand runs instead of 300,000 entries (pushed
/// one at a time into a list per VPS, they were half of its first JoSS heartbeat). Each
/// `extend` adds one batch; a key's list is its chunks of runs, oldest batch first.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    lists: FastMap<u32, VecDeque<Chunk>>,
    batches: VecDeque<Batch>,
    /// Number of `batches[0]`; chunks of older batches are dead.
    first_batch: u64,
    /// Chunks the batches dropped since the last sweep added (some may have left already): a
    /// key nobody asks for (a VPS of another datacenter) would keep its dead chunks forever.
    dead: usize,
}

impl Index {
    /// The first sequence number listed for `key` that `live` accepts; the ones before it, which
    /// `live` refused (taken tasks), leave the list for good.
    pub(super) fn first_live(&mut self, key: u32, live: impl Fn(u64) -> bool) -> Option<u64> {
        let Index {
            lists,
            batches,
            first_batch,
            ..
        } = self;
        let list = lists.get_mut(&key)?;
        while let Some(c) = list.front_mut() {
            let batch = c
                .batch
                .checked_sub(*first_batch)
                .and_then(|i| batches.get_mut(usize::try_from(i).ok()?));
            if let Some(b) = batch {
                while c.lo < c.hi {
                    let Some(run) = b.runs.get_mut(c.lo as usize) else {
                        break;
                    };
                    while run.0 < run.1 {
                        let seq = b.first_seq + u64::from(run.0);
                        if live(seq) {
                            return Some(seq);
                        }
                        run.0 += 1;
                    }
                    c.lo += 1;
                }
            }
            list.pop_front();
        }
        lists.remove(&key);
        None
    }

    /// Forgets the batches whose tasks are all before `base` (taken or dropped), and their chunks
    /// once they are as many as the lists: a sweep costs one step per list plus one per chunk it
    /// drops, paid for by the chunks dropped since the last one, and leaves fewer dead chunks
    /// than keys whichever keys are asked.
    pub(super) fn drop_before(&mut self, base: u64) {
        while let Some(b) = self.batches.front().filter(|b| b.end_seq <= base) {
            self.dead += b.keys;
            self.batches.pop_front();
            self.first_batch += 1;
        }
        if self.dead > 0 && self.dead >= self.lists.len() {
            self.sweep();
        }
    }

    /// Drops every list's chunks of forgotten batches (always its front ones: a list is in
    /// batch order) and the lists left empty.
    pub(super) fn sweep(&mut self) {
        let first_batch = self.first_batch;
        self.lists.retain(|_, list| {
            while list.front().is_some_and(|c| c.batch < first_batch) {
                list.pop_front();
            }
            !list.is_empty()
        });
        self.dead = 0;
    }

    /// Chunks listed over all keys, dead or live.
    #[cfg(test)]
    pub(super) fn chunk_count(&self) -> usize {
        self.lists.values().map(VecDeque::len).sum()
    }

    /// Chunks the live batches added.
    #[cfg(test)]
    pub(super) fn live_chunk_count(&self) -> usize {
        self.batches.iter().map(|b| b.keys).sum()
    }

    pub(super) fn clear(&mut self) {
        self.lists.clear();
        self.dead = 0;
        self.first_batch += self.batches.len() as u64;
        self.batches.clear();
    }
}

/// One batch of an [`Index`] being built over a dense key space, offsets in ascending order.
pub(super) struct Runs {
    /// Per key: its open run (`(0, 0)` before its first offset).
    open: Vec<Run>,
    /// Runs closed by a gap, with their keys; each key's in ascending order.
    closed: Vec<(u32, Run)>,
}

impl Runs {
    pub(super) fn new(keys: usize) -> Self {
        Runs {
            open: vec![(0, 0); keys],
            closed: Vec::new(),
        }
    }

    /// Lists `off` for `key`; false when it already was (the same task naming it twice).
    pub(super) fn add(&mut self, key: u32, off: u32) -> bool {
        let Some(run) = self.open.get_mut(key as usize) else {
            return false;
        };
        if run.1 == off + 1 {
            return false;
        }
        if run.1 == off && run.0 < run.1 {
            run.1 = off + 1;
            return true;
        }
        if run.0 < run.1 {
            self.closed.push((key, *run));
        }
        *run = (off, off + 1);
        true
    }

    /// Adds the batch to `index`: its runs grouped by key (a stable counting sort), one chunk
    /// per key.
    pub(super) fn finish(mut self, index: &mut Index, first_seq: u64, end_seq: u64) {
        for (key, run) in self.open.iter().enumerate() {
            if run.0 < run.1 {
                self.closed.push((key as u32, *run));
            }
        }
        let mut starts = vec![0u32; self.open.len() + 1];
        for &(key, _) in &self.closed {
            starts[key as usize + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let mut next = starts.clone();
        let mut runs: Vec<Run> = vec![(0, 0); self.closed.len()];
        for &(key, run) in &self.closed {
            let at = &mut next[key as usize];
            runs[*at as usize] = run;
            *at += 1;
        }
        let batch = index.first_batch + index.batches.len() as u64;
        let mut keys = 0;
        for (key, w) in starts.windows(2).enumerate() {
            if w[1] > w[0] {
                index.lists.entry(key as u32).or_default().push_back(Chunk {
                    batch,
                    lo: w[0],
                    hi: w[1],
                });
                keys += 1;
            }
        }
        index.batches.push_back(Batch {
            first_seq,
            end_seq,
            runs,
            keys,
        });
    }
}
