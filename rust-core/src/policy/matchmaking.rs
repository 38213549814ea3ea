//! `matchmaking`: locality markers (He, Lu, Swanson 2011) over any job-level policy.
//!
//! On each heartbeat with room for a map container the adapter hands [`Matchmaker::assign`] the
//! jobs in the job policy's order, each with its outstanding map asks at this node's host
//! ("local") and in total. The paper module keeps the markers and says whether the node gets
//! only local maps (from any job: the job order is relaxed for local work, which the decision
//! procedure does by skipping a job with nothing here), nothing at all (first miss), or exactly
//! one non-local map from one job (second miss in a row). The adapter enforces that by the
//! locality ceiling (node-local for everyone except that one job) and a non-local quota of one.
//! Any application arriving resets every marker (Algorithm 2); a node that leaves loses its own.

use std::collections::{HashMap, HashSet};

use super::LocalityTechnique;
use crate::app::{App, Arrival};
use crate::ask::{AskTable, SchedulerKey};
use crate::names::ANY_ID;
use crate::node::Node;
use crate::papers::matchmaking::{MapDemand, Matchmaker};
use crate::protocol::{Locality, Resource};
use crate::state::ClusterState;

pub struct MatchmakingLocality {
    mm: Matchmaker,
    /// Highest arrival seen: a larger one on the next heartbeat means a job arrived.
    newest: Option<Arrival>,
    /// The job the current heartbeat may give one non-local map to, and whether it still may.
    non_local: Option<Arrival>,
    quota: u32,
    /// Node ids at the last membership check, so a node that left loses its marker.
    nodes: HashSet<String>,
}

impl Default for MatchmakingLocality {
    fn default() -> Self {
        MatchmakingLocality {
            mm: Matchmaker::new(),
            newest: None,
            non_local: None,
            quota: 0,
            nodes: HashSet::new(),
        }
    }
}

impl MatchmakingLocality {
    pub fn new() -> Self {
        Self::default()
    }

    /// The node's marker (`None` = the paper's null), for tests and diagnostics.
    pub fn marker(&self, node: &str) -> Option<u32> {
        self.mm.marker(node)
    }
}

/// What `app` offers a node with host `host`: local = outstanding maps at the host (bounded by
/// the rack and `*` rows, as YARN counts node-local), pending = outstanding maps with a location.
/// Keys that name only `*` are not the technique's business: the procedure never holds them.
fn demand(
    app: &App,
    host: crate::names::NameId,
    rack: crate::names::NameId,
) -> (u32, u32, Option<Resource>) {
    let (mut local, mut pending, mut size): (u32, u32, Option<Resource>) = (0, 0, None);
    for (key, table) in app.asks.tables() {
        if !app.kind_of(key.priority).is_map() || table.locality_free() {
            continue;
        }
        let any = table.outstanding();
        if any == 0 {
            continue;
        }
        local += table.count(host).min(table.count(rack)).min(any);
        pending += any;
        if let Some(row) = table.row(ANY_ID) {
            let c = row.capability;
            size = Some(match size {
                None => c,
                Some(s) if c.memory_mb < s.memory_mb => c,
                Some(s) => s,
            });
        }
    }
    (local, pending, size)
}

impl LocalityTechnique for MatchmakingLocality {
    fn name(&self) -> &'static str {
        "matchmaking"
    }

    fn heartbeat(&mut self, state: &ClusterState, node: &Node, order: &[Arrival], _: u64) {
        self.non_local = None;
        self.quota = 0;
        if state.node_count() != self.nodes.len() || !self.nodes.contains(&node.id) {
            let now: HashSet<String> = state.nodes().map(|n| n.id.clone()).collect();
            for gone in self.nodes.difference(&now) {
                self.mm.node_removed(gone);
            }
            self.nodes = now;
        }
        let newest = state.apps().map(|a| a.arrival).max();
        if newest > self.newest {
            self.mm.job_added();
            self.newest = newest;
        }
        // The job policy may list an app several times (fair); the paper's queue has it once.
        let mut seen: HashMap<Arrival, ()> = HashMap::new();
        let mut jobs = Vec::new();
        let mut arrivals = Vec::new();
        let mut smallest: Option<Resource> = None;
        for &arrival in order {
            if seen.insert(arrival, ()).is_some() {
                continue;
            }
            let Some(app) = state.app(arrival) else {
                continue;
            };
            let (local, pending, size) = demand(app, node.host_id, node.rack_id);
            if pending == 0 {
                continue;
            }
            if let Some(s) = size {
                if smallest.is_none_or(|m| s.memory_mb < m.memory_mb) {
                    smallest = Some(s);
                }
            }
            jobs.push(MapDemand::new(app.id.clone(), local, pending));
            arrivals.push(arrival);
        }
        let Some(each) = smallest else { return };
        let free_slots = node.unallocated.count_fitting(&each);
        if free_slots == 0 {
            return;
        }
        for a in self.mm.assign(&node.id, free_slots, &jobs) {
            if a.local {
                continue;
            }
            if let Some(i) = jobs.iter().position(|j| j.job == a.job) {
                self.non_local = Some(arrivals[i]);
                self.quota = 1;
            }
        }
    }

    fn allowed(&mut self, app: &App, _: SchedulerKey, _: &AskTable, _: &Node, _: u64) -> Locality {
        if self.quota > 0 && self.non_local == Some(app.arrival) {
            Locality::OffSwitch
        } else {
            Locality::NodeLocal
        }
    }

    fn non_local_cap(&mut self, app: &App, _: SchedulerKey, _: &Node) -> u32 {
        if self.non_local == Some(app.arrival) {
            self.quota
        } else {
            0
        }
    }

    fn offered(&mut self, app: Arrival, _: SchedulerKey, _: &Node, got: Option<Locality>, _: u64) {
        if self.non_local == Some(app) && got.is_some_and(|l| l != Locality::NodeLocal) {
            self.quota = 0;
        }
    }
}
