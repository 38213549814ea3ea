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
//! The paper's "maps" are the tasks the locality layer decides for ([`crate::policy::locality_applies`]):
//! any application's task keys whose asks name a host or rack, so a Spark executor with
//! preferred locations waits for a marker as a map does, and counts as local or pending work.
//!
//! Liveness (docs/design/liveness.md): the paper hands the non-local task to "the first job that has
//! any". On YARN a job may have maps that cannot run on this node at all (bigger than its free
//! room, or relax_locality=false away from it); such maps count neither as local work nor as
//! pending here, and the quota goes to the first job that actually places a map, so a job that
//! cannot use the node never takes the one non-local map every other job waits for.
//!
//! A local map can also fit the node and still not run there: the job policy or the slot layer
//! holds it back (a capacity queue at its maximum, a slot share, FRESH's admission). The marker
//! cannot see those limits before the walk, so the adapter judges the heartbeat by what it
//! placed: local maps were counted but none ran while the node kept room for one, so the node
//! found no local task it could run, which is the paper's miss: the node is marked, and since its
//! next heartbeat is the paper's second miss unless a local map runs then, that heartbeat may give
//! one non-local map. A heartbeat that ran a map is judged afresh at the next one, so while
//! the held maps stay held the node gives a non-local map every second heartbeat, and a local map
//! that can run is passed over at most once. If the held maps can run by then, they run locally
//! as usual and one non-local map may run beside them, once. Without this a
//! job whose local maps are held back kept the node counting up forever and no other job ever
//! got the non-local map (the fuzzer's starvation,
//! `fuzz/findings/starvation-matchmaking-held-local-maps.json`).

use std::collections::{HashMap, HashSet};

use crate::papers::matchmaking::{MapDemand, Matchmaker};
use crate::policy::{locality_applies, LocalityTechnique};
use crate::protocol::{Locality, Resource};
use crate::state::app::{App, Arrival};
use crate::state::ask::{AskTable, SchedulerKey};
use crate::state::names::ANY_ID;
use crate::state::node::Node;
use crate::state::ClusterState;

pub struct MatchmakingLocality {
    mm: Matchmaker,
    /// Highest arrival seen: a larger one on the next heartbeat means a job arrived.
    newest: Option<Arrival>,
    /// Non-local maps the current heartbeat may still give (0 or 1).
    quota: u32,
    /// Node ids at the last membership check, so a node that left loses its marker.
    nodes: HashSet<String>,
    /// The heartbeat being offered, to judge it by what it placed (module docs).
    beat: Option<Beat>,
    /// Nodes whose last heartbeat ran no map though local maps were counted: the next heartbeat
    /// may give one non-local map. At most one entry per node.
    owed: HashSet<String>,
}

/// What a heartbeat's marker update assumed, and what the walk then placed.
struct Beat {
    node: String,
    /// Whether the marker counted local maps.
    counted_local: bool,
    /// The shapes of the maps the jobs in the order could run on the node, locally or not
    /// (distinct; at most one per scheduler key the walk counted).
    sizes: Vec<Resource>,
    placed_local: bool,
    /// Any map (a key the locality layer decides for) placed here, local or not.
    placed_map: bool,
}

impl Default for MatchmakingLocality {
    fn default() -> Self {
        MatchmakingLocality {
            mm: Matchmaker::new(),
            newest: None,
            quota: 0,
            nodes: HashSet::new(),
            beat: None,
            owed: HashSet::new(),
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
/// Each counted key's shape is added to `sizes`.
fn demand(
    state: &ClusterState,
    app: &App,
    node: &Node,
    room: Resource,
    sizes: &mut Vec<Resource>,
) -> (u32, u32) {
    let (host, rack) = (node.host_id, node.rack_id);
    let (mut local, mut pending): (u32, u32) = (0, 0);
    for (key, table) in app.asks.tables() {
        // A key that may not run on this node (another partition's) is neither work here nor
        // a miss of it.
        if !node.serves(app.partitions.of(key))
            || !locality_applies(state, app, *key, app.kind_of(key.priority), table)
        {
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
            sizes.push(c);
        }
    }
    (local, pending)
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
        self.beat = None;
        if state.node_count() != self.nodes.len() || !self.nodes.contains(&node.id) {
            let now: HashSet<String> = state.nodes().map(|n| n.id.clone()).collect();
            for gone in self.nodes.difference(&now) {
                self.mm.node_removed(gone);
                self.owed.remove(gone);
            }
            self.nodes = now;
        }
        let newest = state.apps().map(|a| a.arrival).max();
        if newest > self.newest {
            self.mm.job_added();
            self.owed.clear();
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
        let mut sizes: Vec<Resource> = Vec::new();
        for &arrival in order {
            if seen.insert(arrival, ()).is_some() {
                continue;
            }
            let Some(app) = state.app(arrival) else {
                continue;
            };
            let (local, pending) = demand(state, app, node, node.unallocated, &mut sizes);
            if pending == 0 {
                continue;
            }
            jobs.push(MapDemand::new(app.id.clone(), local, pending));
        }
        sizes.sort_unstable_by_key(|r| (r.memory_mb, r.vcores));
        sizes.dedup();
        // The paper's slots, for maps of several shapes: as many as the shape the room holds
        // most of (memory and vcores both count; until c5f212d the shape with the least memory
        // was taken for all, whatever its vcores).
        let free_slots = sizes
            .iter()
            .map(|s| node.unallocated.count_fitting(s))
            .max()
            .unwrap_or(0);
        if free_slots == 0 {
            return;
        }
        // The paper's pick (the first job with a map this node can run non-locally) is where
        // the quota would go; a hotspot guard, slot cap or job policy may still hold that job
        // back here, and then the quota passes to the next job in the order that can use it.
        let picks = self.mm.assign(&node.id, free_slots, &jobs);
        if picks.iter().any(|a| !a.local) || self.owed.contains(&node.id) {
            self.quota = 1;
        }
        self.beat = Some(Beat {
            node: node.id.clone(),
            counted_local: picks.iter().any(|a| a.local),
            sizes,
            placed_local: false,
            placed_map: false,
        });
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
        // `got` is the best locality among the key's placements here.
        if let (Some(beat), Some(l)) = (self.beat.as_mut(), got) {
            beat.placed_map = true;
            beat.placed_local |= l == Locality::NodeLocal;
        }
        if got.is_some_and(|l| l != Locality::NodeLocal) {
            self.quota = 0;
        }
    }

    fn settled(&mut self, node: &Node, _room_before: Resource, room_left: Resource) {
        let Some(beat) = self.beat.take() else { return };
        if beat.node != node.id {
            return;
        }
        // A heartbeat that ran a map used the node for maps: the next one is judged afresh, so a
        // local map that can run by then is not passed over for a non-local one (until
        // 4f5589e an owed node gave its one free slot to an older job's non-local map at every
        // heartbeat ahead of a newer job's local map). Work no locality wait holds (reduces,
        // AMs, asks on `*` only) does not count: a stream of it would keep the held maps counted
        // and every non-local map waiting (as it did until e6c6a01).
        if beat.placed_map {
            self.owed.remove(&node.id);
            return;
        }
        // Local maps were counted, no map ran, and the node has room left for a map: the counted
        // ones are held back here, so the node found no local map it could run (module docs).
        // Room for any job's map, not only the held ones' (until 76e5bda, work that left
        // less room than a held map but enough for another job's kept that job waiting).
        if !beat.counted_local || !beat.sizes.iter().any(|s| room_left.fits(s)) {
            return;
        }
        self.owed.insert(node.id.clone());
        self.mm.mark(&node.id);
    }
}
