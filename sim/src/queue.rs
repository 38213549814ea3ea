//! The engine's event queue: events by time, and among events of one millisecond in the order
//! they were queued (what a binary heap ordered by (time, sequence number) gives).
//!
//! Nearly every event lands within a minute of now (heartbeats, allocate calls, reads, most
//! tasks), so those go into one bucket per millisecond of a ring covering the next
//! [`WINDOW_MS`]: queueing appends, taking the next event reads the current bucket. A binary
//! heap cost a dozen comparisons of cache-cold entries per event and was a tenth of a large run's
//! time. Later events wait in a heap and move into the ring as soon as their millisecond enters
//! the window, which is before any event queued directly for that millisecond (such an event is
//! queued later, so it must come after them).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Milliseconds the ring covers (a power of two).
pub const WINDOW_MS: u64 = 1 << 16;
const MASK: u64 = WINDOW_MS - 1;

pub struct EventQueue<E> {
    /// The millisecond being taken from; nothing earlier is queued.
    now: u64,
    /// How many events of `ring[now]` were already taken.
    taken: usize,
    ring: Vec<Vec<E>>,
    /// Events in the ring, taken ones excluded.
    in_ring: usize,
    /// Events at or after `now + WINDOW_MS` when queued, by (time, sequence number).
    later: BinaryHeap<Reverse<(u64, u64, E)>>,
    seq: u64,
}

impl<E: Copy + Ord> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            now: 0,
            taken: 0,
            ring: (0..WINDOW_MS).map(|_| Vec::new()).collect(),
            in_ring: 0,
            later: BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl<E: Copy + Ord> EventQueue<E> {
    /// Queues `ev` at `at`. The engine never queues into the past; if it did, the event would
    /// run now, after what is already queued for now.
    pub fn push(&mut self, at: u64, ev: E) {
        debug_assert!(
            at >= self.now,
            "event queued at {at} ms, before now ({} ms)",
            self.now
        );
        let at = at.max(self.now);
        if at - self.now < WINDOW_MS {
            self.ring[(at & MASK) as usize].push(ev);
            self.in_ring += 1;
        } else {
            self.seq += 1;
            self.later.push(Reverse((at, self.seq, ev)));
        }
    }

    /// The earliest event with its time; `None` when nothing is queued.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        loop {
            let bucket = &mut self.ring[(self.now & MASK) as usize];
            if let Some(&ev) = bucket.get(self.taken) {
                self.taken += 1;
                self.in_ring -= 1;
                return Some((self.now, ev));
            }
            bucket.clear();
            self.taken = 0;
            if self.in_ring > 0 {
                self.now += 1;
            } else {
                // Nothing within the window: jump to the first later event.
                let Reverse((at, _, _)) = self.later.peek()?;
                self.now = *at;
            }
            self.admit_later();
        }
    }

    /// Starts loading what a `push` at `at` will touch: with `end`, the end of its bucket
    /// (reading the bucket's header, so do that a few pushes after the header's own fetch).
    pub fn prefetch(&self, at: u64, end: bool) {
        if at < self.now || at - self.now >= WINDOW_MS {
            return;
        }
        let bucket = &self.ring[(at & MASK) as usize];
        if !end {
            crate::prefetch::prefetch(bucket);
        } else if let Some(last) = bucket.last() {
            crate::prefetch::prefetch(last);
        }
    }

    /// The event `k` places after the next one `pop` returns, if it is queued for the same
    /// millisecond (what is certain to come soon, so its data can be fetched ahead).
    pub fn ahead(&self, k: usize) -> Option<&E> {
        self.ring[(self.now & MASK) as usize].get(self.taken + k)
    }

    /// Moves the later events whose millisecond is now inside the window into the ring, in
    /// (time, sequence) order.
    fn admit_later(&mut self) {
        while let Some(&Reverse((at, _, ev))) = self.later.peek() {
            if at - self.now >= WINDOW_MS {
                break;
            }
            self.later.pop();
            self.ring[(at & MASK) as usize].push(ev);
            self.in_ring += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: a binary heap by (time, sequence number).
    fn heap_order(pushes: &[(u64, u32)]) -> Vec<(u64, u32)> {
        let mut h: BinaryHeap<Reverse<(u64, usize, u32)>> = BinaryHeap::new();
        for (i, &(at, ev)) in pushes.iter().enumerate() {
            h.push(Reverse((at, i, ev)));
        }
        std::iter::from_fn(|| h.pop().map(|Reverse((at, _, ev))| (at, ev))).collect()
    }

    #[test]
    fn same_order_as_a_heap_by_time_then_queueing() {
        // Near and far events, ties at one millisecond from both sides of the window, and a
        // gap longer than the window with nothing in the ring.
        let far = WINDOW_MS * 3 + 17;
        let pushes: Vec<(u64, u32)> = vec![
            (5, 1),
            (far, 2),
            (5, 3),
            (WINDOW_MS + 4, 4),
            (0, 5),
            (far, 6),
            (WINDOW_MS - 1, 7),
            (WINDOW_MS + 4, 8),
        ];
        let mut q = EventQueue::default();
        for &(at, ev) in &pushes {
            q.push(at, ev);
        }
        let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, heap_order(&pushes));
    }

    #[test]
    fn events_queued_while_running_keep_time_then_queue_order() {
        // Each popped event queues follow-ups at now, now + 1, and one just past the window
        // (which then meets events queued for that millisecond from inside the window).
        let mut q = EventQueue::default();
        let mut reference: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0;
        let mut push = |q: &mut EventQueue<u32>, r: &mut BinaryHeap<_>, at: u64, ev: u32| {
            seq += 1;
            q.push(at, ev);
            r.push(Reverse((at, seq, ev)));
        };
        push(&mut q, &mut reference, 0, 0);
        let mut next = 1;
        for _ in 0..2000 {
            let Some((at, ev)) = q.pop() else { break };
            let Reverse((rat, _, rev)) = reference.pop().unwrap();
            assert_eq!((at, ev), (rat, rev));
            if next < 600 {
                for d in [0, 1, WINDOW_MS, WINDOW_MS - 1, 3 * WINDOW_MS / 2] {
                    if ev % 3 == 0 || d < 2 {
                        push(&mut q, &mut reference, at + d, next);
                        next += 1;
                    }
                }
            }
        }
        assert!(q.pop().is_none() && reference.is_empty());
    }

    #[test]
    fn ahead_is_what_pop_returns_later_in_the_same_millisecond() {
        let mut q: EventQueue<u32> = EventQueue::default();
        for (at, ev) in [(5, 1), (5, 2), (6, 3), (5, 4), (WINDOW_MS + 5, 5), (5, 6)] {
            q.push(at, ev);
        }
        assert_eq!(q.pop(), Some((5, 1)));
        assert_eq!(
            (0..4).map(|k| q.ahead(k).copied()).collect::<Vec<_>>(),
            [Some(2), Some(4), Some(6), None],
            "the rest of millisecond 5, not 6's or the later heap's"
        );
        q.push(5, 7);
        assert_eq!(q.ahead(3), Some(&7), "one queued now comes last");
        for ev in [2, 4, 6, 7] {
            assert_eq!(q.pop(), Some((5, ev)));
        }
        q.prefetch(6, false);
        q.prefetch(6, true);
        q.prefetch(u64::MAX, true);
        assert_eq!(q.pop(), Some((6, 3)), "a prefetch changes nothing");
    }
}
