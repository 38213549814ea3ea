//! `matchmaking`: locality markers (He, Lu, Swanson 2011) over any job-level policy.
//!
//! On each heartbeat with room for a map container the adapter hands [`Matchmaker::assign`] the
//! jobs in the job policy's order, each with its outstanding located asks (maps, or any
//! application's tasks with host rows) at this node's host ("local") and in total. The paper module keeps the markers and says whether the node gets
//! only local maps (from any job: the job order is relaxed for local work, which the decision
//! procedure does by skipping a job with nothing here), nothing at all (first miss), or exactly
//! one non-local map (second miss in a row). The adapter enforces that by the locality ceiling
//! (node-local unless the heartbeat's non-local map is still to be given) and a non-local quota
//! of one, spent by the first job in the policy's order that places a map non-locally here.
//! Any application arriving resets every marker (Algorithm 2); a node that leaves loses its own.
//! Markers move on heartbeats only: an async sweep's offer of a node (`Heartbeat::sweep`) gives
//! it local maps but is no miss, so the non-local map still waits two heartbeat intervals.
//! The paper's "maps" are the tasks the locality layer decides for ([`super::locality_applies`]):
//! any application's task keys whose asks name a host or rack, so a Spark executor with
//! preferred locations waits for a marker as a map does, and counts as local or pending work.
//!
//! Liveness (docs/liveness.md): the paper hands the non-local task to "the first job that has
//! any". On YARN a job may have maps that cannot run on this node at all (bigger than its free
//! room, or relax_locality=false away from it); such maps count neither as local work nor as
//! pending here, and the quota goes to the first job that actually places a map, so a job that
//! cannot use the node never takes the one non-local map every other job waits for.

use std::collections::{HashMap, HashSet};

use super::{locality_applies, LocalityTechnique};
use crate::app::{App, Arrival};
use crate::ask::{AskTable, SchedulerKey};
use crate::names::{NameId, ANY_ID};
use crate::node::Node;
use crate::papers::matchmaking::{MapDemand, Matchmaker};
use crate::protocol::{Locality, Resource};
use crate::state::ClusterState;

pub struct MatchmakingLocality {
    mm: Matchmaker,
    /// Highest arrival seen: a larger one on the next heartbeat means a job arrived.
    newest: Option<Arrival>,
    /// Non-local maps the current heartbeat may still give (0 or 1).
    quota: u32,
    /// Node ids at the last membership check, so a node that left loses its marker.
    nodes: HashSet<String>,
}

impl Default for MatchmakingLocality {
    fn default() -> Self {
        MatchmakingLocality {
            mm: Matchmaker::new(),
            newest: None,
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

/// What `app` offers a node with host `host` and `room` free: local = outstanding maps at the
/// host (bounded by the rack and `*` rows, as YARN counts node-local), pending = those plus the
/// maps the node could run non-locally (relaxable to its rack, or to `*` when the rack has none).
/// Maps bigger than `room` count as neither: the node cannot run them now. Keys that name only
/// `*` are not the technique's business: the procedure never holds them.
fn demand(app: &App, host: NameId, rack: NameId, room: Resource) -> (u32, u32, Option<Resource>) {
    let (mut local, mut pending, mut size): (u32, u32, Option<Resource>) = (0, 0, None);
    for (key, table) in app.asks.tables() {
        if !locality_applies(app.kind_of(key.priority), table) {
            continue;
        }
        let any = table.outstanding();
        if any == 0 {
            continue;
        }
        let Some(c) = table.row(ANY_ID).map(|r| r.capability) else {
            continue;
        };
        if !room.fits(&c) {
            continue;
        }
        let at_rack = table.count(rack);
        let here = table.count(host).min(at_rack).min(any);
        let non_local = if at_rack > 0 {
            table.may_relax_to(rack)
        } else {
            table.may_relax_to(ANY_ID)
        };
        local += here;
        pending += if non_local { any } else { here };
        if here > 0 || non_local {
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

    fn reads_order(&self) -> bool {
        true
    }

    fn heartbeat(
        &mut self,
        state: &ClusterState,
        node: &Node,
        order: &[Arrival],
        _: u64,
        sweep: bool,
    ) {
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
        if sweep {
            // Not a heartbeat: the node takes local maps only (quota 0) and its marker stays
            // as its last heartbeat left it, so a node misses "in a row" per heartbeat interval
            // as the paper counts, however often async sweeps offer it.
            return;
        }
        // The job policy may list an app several times (fair); the paper's queue has it once.
        let mut seen: HashMap<Arrival, ()> = HashMap::new();
        let mut jobs = Vec::new();
        let mut smallest: Option<Resource> = None;
        for &arrival in order {
            if seen.insert(arrival, ()).is_some() {
                continue;
            }
            let Some(app) = state.app(arrival) else {
                continue;
            };
            let (local, pending, size) = demand(app, node.host_id, node.rack_id, node.unallocated);
            if pending == 0 {
                continue;
            }
            if let Some(s) = size {
                if smallest.is_none_or(|m| s.memory_mb < m.memory_mb) {
                    smallest = Some(s);
                }
            }
            jobs.push(MapDemand::new(app.id.clone(), local, pending));
        }
        let Some(each) = smallest else { return };
        let free_slots = node.unallocated.count_fitting(&each);
        if free_slots == 0 {
            return;
        }
        // The paper's pick (the first job with a map this node can run non-locally) is where
        // the quota would go; a hotspot guard, slot cap or job policy may still hold that job
        // back here, and then the quota passes to the next job in the order that can use it.
        if self
            .mm
            .assign(&node.id, free_slots, &jobs)
            .iter()
            .any(|a| !a.local)
        {
            self.quota = 1;
        }
    }

    fn allowed(&mut self, _: &App, _: SchedulerKey, _: &AskTable, _: &Node, _: u64) -> Locality {
        if self.quota > 0 {
            Locality::OffSwitch
        } else {
            Locality::NodeLocal
        }
    }

    fn non_local_cap(&mut self, _: &App, _: SchedulerKey, _: &Node) -> u32 {
        self.quota
    }

    fn offered(&mut self, _: Arrival, _: SchedulerKey, _: &Node, got: Option<Locality>, _: u64) {
        if got.is_some_and(|l| l != Locality::NodeLocal) {
            self.quota = 0;
        }
    }
}
