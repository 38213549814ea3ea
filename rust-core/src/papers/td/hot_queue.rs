//! `hot-queue`: TD's hot queue (papers/td/hotspot.rs) as a guard for non-local map reads.
//!
//! YARN's RM never learns which split a non-local container reads: the MapReduce AM picks a map
//! for the container and then drops that map's asks at every host holding a replica. So after a
//! non-local map allocation the guard remembers the app's per-host map counts; the app's next ask
//! snapshot shows which hosts' counts fell (beyond the node-local allocations it saw meanwhile),
//! and each such host gets a `(host, t)` tuple, t being the allocation time. A tuple lives
//! θ·δ/ρ seconds. A host with θ live tuples is an actual hotspot: a non-local map container is
//! admitted only while the app still has outstanding maps at some host that is not hot, and at
//! most one per such host on one heartbeat. Maps whose asks name no host are never held back,
//! nor are node-local maps or any other container.

use std::collections::HashMap;

use crate::papers::td::HotQueue;
use crate::policy::HotspotGuard;
use crate::protocol::Locality;
use crate::state::app::{App, Arrival, TaskKind};
use crate::state::names::NameId;
use crate::state::node::Node;
use crate::state::ClusterState;

/// Host map counts of an app at its first unresolved non-local allocation.
struct Pending {
    at_secs: f64,
    counts: HashMap<NameId, i64>,
    /// Non-local map containers placed since: each removes one task, so no host's count can
    /// fall by more than this because of them.
    reads: i64,
}

pub struct HotQueueGuard {
    hot: HotQueue,
    now_secs: f64,
    pending: HashMap<Arrival, Pending>,
}

impl HotQueueGuard {
    pub fn new(theta: u32, split_bytes: u64, bandwidth_bytes_per_sec: f64) -> Self {
        HotQueueGuard {
            hot: HotQueue::new(theta, split_bytes, bandwidth_bytes_per_sec),
            now_secs: 0.0,
            pending: HashMap::new(),
        }
    }

    /// Live non-local readers of `host` (count_n), for tests and diagnostics.
    pub fn live_reads(&self, host: &str) -> u32 {
        self.hot.live_reads(host)
    }
}

/// YARN racks are network locations, which always start with `/`; anything else in an ask is a
/// host (`*` never shows up among wanted locations).
fn is_host(state: &ClusterState, name: NameId) -> bool {
    !state.names().name(name).starts_with('/')
}

/// Outstanding map containers per host over the app's map keys.
fn host_counts(state: &ClusterState, app: &App) -> HashMap<NameId, i64> {
    let mut out = HashMap::new();
    for (key, table) in app.asks.tables() {
        if !app.kind_of(key.priority).is_map() {
            continue;
        }
        for (name, row) in table.wanted_locations() {
            if is_host(state, name) {
                *out.entry(name).or_insert(0) += row.count as i64;
            }
        }
    }
    out
}

impl HotspotGuard for HotQueueGuard {
    fn name(&self) -> &'static str {
        "hot-queue"
    }

    fn heartbeat(&mut self, state: &ClusterState, _: &Node, now_ms: u64) {
        self.now_secs = now_ms as f64 / 1000.0;
        self.hot.expire(self.now_secs);
        let window = self.hot.window_secs();
        let now = self.now_secs;
        let mut resolved = Vec::new();
        for (&arrival, p) in &self.pending {
            let Some(app) = state.app(arrival) else {
                resolved.push((arrival, Vec::new()));
                continue;
            };
            // An attempt that went away drops every ask at once: that is not a read.
            if !app.asks.has_pending() && p.at_secs + window > now {
                continue;
            }
            let current = host_counts(state, app);
            let mut sources = Vec::new();
            for (&host, &before) in &p.counts {
                if !is_host(state, host) {
                    continue;
                }
                let after = current.get(&host).copied().unwrap_or(0);
                // Each read removes one task, lowering each of its replica hosts by one; a host
                // that fell by more than the reads lost asks for another reason (cancelled,
                // speculative, a shrinking job) and says nothing about where the reads go.
                let fell = before - after;
                if fell <= 0 || fell > p.reads {
                    continue;
                }
                for _ in 0..fell {
                    sources.push((state.names().name(host).to_string(), p.at_secs));
                }
            }
            // An AM that never reveals its choice must not pin the entry forever.
            if !sources.is_empty() || p.at_secs + window <= now {
                resolved.push((arrival, sources));
            }
        }
        for (arrival, sources) in resolved {
            self.pending.remove(&arrival);
            for (host, t) in sources {
                log::debug!("hot queue: non-local read from {host} at {t:.1}s");
                self.hot.record_read(&host, t);
            }
        }
    }

    fn admit(
        &mut self,
        state: &ClusterState,
        _: &Node,
        app: &App,
        kind: TaskKind,
        locality: Locality,
    ) -> u32 {
        if !kind.is_map() || locality == Locality::NodeLocal {
            return u32::MAX;
        }
        let counts = host_counts(state, app);
        if counts.is_empty() {
            return u32::MAX;
        }
        counts
            .keys()
            .filter(|&&h| !self.hot.is_hot(state.names().name(h)))
            .count() as u32
    }

    fn placed(&mut self, node: &Node, app: &App, kind: TaskKind, locality: Locality, count: u32) {
        if !kind.is_map() {
            return;
        }
        if locality == Locality::NodeLocal {
            // The asks' own bookkeeping takes these from the host row: not a remote read.
            if let Some(p) = self.pending.get_mut(&app.arrival) {
                if let Some(c) = p.counts.get_mut(&node.host_id) {
                    *c -= count as i64;
                }
            }
            return;
        }
        if let Some(p) = self.pending.get_mut(&app.arrival) {
            p.reads += count as i64;
            return;
        }
        let mut counts = HashMap::new();
        for (key, table) in app.asks.tables() {
            if !app.kind_of(key.priority).is_map() {
                continue;
            }
            for (name, row) in table.wanted_locations() {
                *counts.entry(name).or_insert(0) += row.count as i64;
            }
        }
        self.pending.insert(
            app.arrival,
            Pending {
                at_secs: self.now_secs,
                counts,
                reads: count as i64,
            },
        );
    }
}
