//! TD Section IV-A-2: the *hot queue* and its statistical table, which keep more than θ
//! concurrent non-local readers off any one node (an "actual hotspot").

use std::borrow::Borrow;
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hash};

/// Tuples `(n, t)` for every non-local read started from node `n` at time `t`, oldest first,
/// plus `count_n`, the number of live tuples per node, by host name (the `hot-queue` hotspot
/// guard's; TD's scheduler numbers its nodes and uses [`NodeHotQueue`]).
#[derive(Debug, Clone)]
pub struct HotQueue<K = String, S = RandomState> {
    /// θ: the most concurrent non-local readers a node serves at full speed.
    theta: u32,
    /// θ·δ/ρ in seconds: how long a split of δ bytes takes to cross the network at the per-reader
    /// speed ρ/θ. After that the read is assumed finished.
    window_secs: f64,
    queue: VecDeque<(K, f64)>,
    count: HashMap<K, u32, S>,
}

impl<K: Hash + Eq + Clone, S: BuildHasher + Default> HotQueue<K, S> {
    /// `split_bytes` is δ, `bandwidth_bytes_per_sec` is ρ (callers validate both are positive).
    pub fn new(theta: u32, split_bytes: u64, bandwidth_bytes_per_sec: f64) -> Self {
        HotQueue {
            theta,
            window_secs: window_secs(theta, split_bytes, bandwidth_bytes_per_sec),
            queue: VecDeque::new(),
            count: HashMap::default(),
        }
    }

    /// θ·δ/ρ: a tuple `(n, t)` is overdue once `t + θ·δ/ρ ≤ t_cur`.
    pub fn window_secs(&self) -> f64 {
        self.window_secs
    }

    /// A new non-local assignment reads its split from `node` starting at `now`.
    pub fn record_read<Q>(&mut self, node: &Q, now: f64)
    where
        K: Borrow<Q>,
        Q: ToOwned<Owned = K> + Hash + Eq + ?Sized,
    {
        self.queue.push_back((node.to_owned(), now));
        *self.count.entry(node.to_owned()).or_insert(0) += 1;
    }

    /// The periodic inspection from the head: drop every overdue tuple and its count.
    pub fn expire(&mut self, now: f64) {
        while let Some((node, t)) = self.queue.front() {
            if t + self.window_secs > now {
                break;
            }
            if let Some(c) = self.count.get_mut(node) {
                *c -= 1;
                if *c == 0 {
                    self.count.remove(node);
                }
            }
            self.queue.pop_front();
        }
    }

    /// `count_n` from the statistical table.
    pub fn live_reads<Q>(&self, node: &Q) -> u32
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.count.get(node).copied().unwrap_or(0)
    }

    /// `count_n == θ`: the node takes no more connections until some of its reads expire.
    pub fn is_hot<Q>(&self, node: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.live_reads(node) >= self.theta
    }
}

/// The hot queue for nodes numbered 0, 1, 2, ... (TD's scheduler numbers the hosts it is
/// given): the statistical table is a vector indexed by node number instead of a hash map.
/// GetNonHotspotNode asks it about every holder of the picked job on every non-local pick, and
/// the hash lookup was most of a 10,000-node simulation under TD. The vector has one entry per
/// node ever recorded, so it is bounded by the cluster's nodes, as the numbering is.
///
/// Each node's tuples are also linked oldest to newest, so that [`cools_at`](Self::cools_at)
/// can say when the node may next lose one: TD remembers that all holders of a job were hot
/// and until when that must stay true.
#[derive(Debug, Clone)]
pub(crate) struct NodeHotQueue {
    theta: u32,
    window_secs: f64,
    /// `(n, t, seq of n's next tuple)`; the front has sequence number `popped`.
    queue: VecDeque<(u32, f64, u64)>,
    popped: u64,
    nodes: Vec<NodeReads>,
    /// The latest `now` any [`expire`](Self::expire) was given.
    latest_expiry: f64,
}

/// count_n, and the sequence numbers of the node's oldest and newest live tuples (meaningful
/// while count_n > 0).
#[derive(Debug, Clone, Copy, Default)]
struct NodeReads {
    count: u32,
    oldest: u64,
    newest: u64,
}

impl NodeHotQueue {
    pub(crate) fn new(theta: u32, split_bytes: u64, bandwidth_bytes_per_sec: f64) -> Self {
        NodeHotQueue {
            theta,
            window_secs: window_secs(theta, split_bytes, bandwidth_bytes_per_sec),
            queue: VecDeque::new(),
            popped: 0,
            nodes: Vec::new(),
            latest_expiry: f64::NEG_INFINITY,
        }
    }

    /// As [`HotQueue::record_read`].
    pub(crate) fn record_read(&mut self, node: u32, now: f64) {
        let i = node as usize;
        if self.nodes.len() <= i {
            self.nodes.resize(i + 1, NodeReads::default());
        }
        let seq = self.popped + self.queue.len() as u64;
        let n = &mut self.nodes[i];
        if n.count > 0 {
            self.queue[(n.newest - self.popped) as usize].2 = seq;
        } else {
            n.oldest = seq;
        }
        n.newest = seq;
        n.count += 1;
        self.queue.push_back((node, now, seq));
    }

    /// As [`HotQueue::expire`].
    pub(crate) fn expire(&mut self, now: f64) {
        self.latest_expiry = self.latest_expiry.max(now);
        while let Some(&(node, t, next)) = self.queue.front() {
            if t + self.window_secs > now {
                break;
            }
            // The front is the oldest tuple of its node: tuples leave in queue order.
            let n = &mut self.nodes[node as usize];
            n.count -= 1;
            n.oldest = next;
            self.queue.pop_front();
            self.popped += 1;
        }
    }

    pub(crate) fn live_reads(&self, node: u32) -> u32 {
        self.nodes.get(node as usize).map_or(0, |n| n.count)
    }

    pub(crate) fn is_hot(&self, node: u32) -> bool {
        self.live_reads(node) >= self.theta
    }

    /// The earliest `now` at which [`expire`](Self::expire) could drop a tuple of `node`, and so
    /// make a hot node accept readers again: its oldest tuple's `t + θ·δ/ρ`. `None` when it has
    /// no live tuple. A node's tuples leave only from the front of the queue, its oldest first,
    /// and that one only when `expire` is given `now ≥ t + θ·δ/ρ`.
    pub(crate) fn cools_at(&self, node: u32) -> Option<f64> {
        let n = self.nodes.get(node as usize).filter(|n| n.count > 0)?;
        let (_, t, _) = self.queue[(n.oldest - self.popped) as usize];
        Some(t + self.window_secs)
    }

    /// The latest `now` [`expire`](Self::expire) has been given: while it stays below a node's
    /// [`cools_at`](Self::cools_at), none of that node's tuples has left the queue.
    pub(crate) fn latest_expiry(&self) -> f64 {
        self.latest_expiry
    }
}

/// θ·δ/ρ, computed the same way for both queues.
fn window_secs(theta: u32, split_bytes: u64, bandwidth_bytes_per_sec: f64) -> f64 {
    theta as f64 * split_bytes as f64 / bandwidth_bytes_per_sec
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    #[test]
    fn tuple_expires_at_t_plus_theta_delta_over_rho() {
        // θ = 3 readers, δ = 64 MB splits, ρ = 32 MB/s  →  window 3·64/32 = 6 s
        let mut hq: HotQueue = HotQueue::new(3, 64 * MB, 32.0 * MB as f64);
        assert_eq!(hq.window_secs(), 6.0);
        hq.record_read("n1", 10.0);
        hq.expire(15.9);
        assert_eq!(hq.live_reads("n1"), 1);
        hq.expire(16.0);
        assert_eq!(hq.live_reads("n1"), 0, "overdue when t + θδ/ρ ≤ t_cur");
    }

    #[test]
    fn node_is_hot_at_theta_live_reads() {
        let mut hq: HotQueue = HotQueue::new(2, 64 * MB, 64.0 * MB as f64);
        hq.record_read("n1", 0.0);
        assert!(!hq.is_hot("n1"));
        hq.record_read("n1", 0.5);
        assert!(hq.is_hot("n1"));
        assert!(!hq.is_hot("n2"));
        // the first read is overdue at 0 + 2 s; the node accepts readers again
        hq.expire(2.0);
        assert!(!hq.is_hot("n1"));
        assert_eq!(hq.live_reads("n1"), 1);
    }

    /// The numbered queue answers exactly as the named one over any sequence of reads and
    /// expiries (TD's picks depend on it bit for bit).
    #[test]
    fn numbered_queue_agrees_with_the_named_one() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let mut named: HotQueue = HotQueue::new(3, 64 * MB, 125_000_000.0);
        let mut numbered = NodeHotQueue::new(3, 64 * MB, 125_000_000.0);
        let mut now = 0.0;
        for _ in 0..5_000 {
            now += next(400) as f64 / 1000.0;
            let node = next(12) as u32;
            if next(3) == 0 {
                named.expire(now);
                numbered.expire(now);
            } else {
                named.record_read(&format!("n{node}"), now);
                numbered.record_read(node, now);
            }
            for n in 0..14u32 {
                assert_eq!(numbered.live_reads(n), named.live_reads(&format!("n{n}")));
                assert_eq!(numbered.is_hot(n), named.is_hot(&format!("n{n}")));
            }
        }
    }

    /// A node may cool when its oldest live read expires, whatever other nodes' reads lie
    /// between its own in the queue.
    #[test]
    fn a_node_cools_when_its_oldest_live_read_expires() {
        // window 2·64/64 = 2 s
        let mut hq = NodeHotQueue::new(2, 64 * MB, 64.0 * MB as f64);
        assert_eq!(hq.cools_at(4), None);
        hq.record_read(4, 1.0);
        hq.record_read(7, 1.5);
        hq.record_read(4, 2.5);
        assert_eq!((hq.cools_at(4), hq.cools_at(7)), (Some(3.0), Some(3.5)));
        hq.expire(3.0);
        assert_eq!((hq.cools_at(4), hq.cools_at(7)), (Some(4.5), Some(3.5)));
        hq.expire(4.5);
        assert_eq!(
            (hq.cools_at(4), hq.cools_at(7), hq.latest_expiry()),
            (None, None, 4.5)
        );
        hq.record_read(7, 5.0);
        assert_eq!(hq.cools_at(7), Some(7.0));
    }
}
