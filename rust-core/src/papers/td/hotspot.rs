//! TD Section IV-A-2: the *hot queue* and its statistical table, which keep more than θ
//! concurrent non-local readers off any one node (an "actual hotspot").

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash};

/// Tuples `(n, t)` for every non-local read started from node `n` at time `t`, oldest first,
/// plus `count_n`, the number of live tuples per node. Nodes are host names, or whatever ids a
/// caller that names nodes by number uses (TD's scheduler does, to look them up cheaply).
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
            window_secs: theta as f64 * split_bytes as f64 / bandwidth_bytes_per_sec,
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
}
