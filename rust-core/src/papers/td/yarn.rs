//! `td`: the Throughput Driven scheduler (papers/td.rs) as the job-level policy for map slots.
//!
//! A heartbeat is Algorithm 1 run once per map slot free on the node: first once for every map
//! container of job j that ended on this node since its last heartbeat (`slot_freed(n, j)`, which
//! may keep the slot for j — the sticky slot), then once per remaining free slot with no
//! predecessor. Each pick lets its job take one map container on this visit; jobs not picked take
//! no map container here. The paper only schedules maps: apps waiting for their AM container come
//! first (FIFO), then the picked jobs, then every other application in FIFO order for its other
//! containers — reduces, generic applications — which therefore never wait for TD.
//!
//! Before each heartbeat the paper module's view is refreshed from the state: T = map containers
//! that fit on all nodes, j.remain / rs_jn = the job's outstanding map asks at `*` / per host,
//! j.occupied = its running map containers, amt(j) = the profile's mean map time. A MapReduce
//! job enters Q (waiting) when its first map asks arrive, with j.demand from its
//! `locus.demand=` tag, else the profile of earlier runs, else its map count, capped at T.

use super::map_containers::MapContainers;
use crate::policy::map_asks::{map_asks, map_demand, map_host_rows_by_id, servable_map_size};
use std::collections::HashMap;

use crate::error::CoreError;
use crate::fast_hash::FastMap;
use crate::papers::td::{TdConfig, TdScheduler};
use crate::policy::{JobPolicy, Observed};
use crate::protocol::Resource;
use crate::state::app::{App, Arrival};
use crate::state::node::Node;
use crate::state::ClusterState;

/// A node never frees more map slots than this in one heartbeat (guards tiny asks on big nodes).
const MAX_SLOTS_PER_HEARTBEAT: u32 = 256;

/// MapReduce's default map container when no job has asked for one yet.
const DEFAULT_MAP: Resource = Resource {
    memory_mb: 1024,
    vcores: 1,
    extra: [0; crate::protocol::MAX_EXTRA_TYPES],
};

/// [`map_demand`]'s count and [`servable_map_size`] of an app as read at `version` of its
/// asks and `nodes` of the cluster's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DemandRead {
    version: u64,
    nodes: u64,
    partitions: u64,
    remain: u32,
    size: Option<Resource>,
}

/// [`map_demand`]'s count and the map size slots are counted in for `app`, read again only when
/// its asks or the nodes changed since `cache` last saw them.
fn cached_map_demand(
    cache: &mut FastMap<Arrival, DemandRead>,
    state: &ClusterState,
    app: &App,
) -> (u32, Option<Resource>) {
    if let Some(d) = cache.get(&app.arrival).filter(|d| {
        d.version == app.asks_version
            && d.nodes == state.nodes_version()
            && d.partitions == state.partitions_version()
    }) {
        return (d.remain, d.size);
    }
    let (remain, _) = map_demand(app);
    let size = servable_map_size(state, app);
    cache.insert(
        app.arrival,
        DemandRead {
            version: app.asks_version,
            nodes: state.nodes_version(),
            partitions: state.partitions_version(),
            remain,
            size,
        },
    );
    (remain, size)
}

pub struct TdPolicy {
    td: TdScheduler,
    default_map_secs: f64,
    /// TD jobs by arrival, with the id the paper module knows them by. This policy's maps are
    /// keyed by arrivals, RM-assigned ids and registered node ids only, so they use the fast
    /// hasher (SipHash on `jobs` alone was 2 % of a 10,000-node simulation).
    jobs: FastMap<Arrival, String>,
    /// `jobs` the other way round: the paper module names its picks by id.
    ids: FastMap<String, Arrival>,
    /// The `App::asks_version` each job's rs_jn was last read from.
    asks_read: FastMap<Arrival, u64>,
    /// Per MapReduce app, [`map_demand`] and the `App::asks_version` it was read at: walking
    /// every ask table of every app twice per heartbeat was a quarter of a 10,000-node
    /// simulation under TD, and the asks of most apps do not change between two heartbeats.
    demand_read: FastMap<Arrival, DemandRead>,
    /// Per job, the asks version, j.remain and j.occupied the paper module was last given, for
    /// jobs no `slot_freed` has touched since (picked, or named as a freed slot's last job).
    /// Giving such a job the same values again changes nothing (j.remain and j.occupied are
    /// already those, and its status already agrees with them), so `sync` skips it: passing
    /// every job's counts on every heartbeat was most of what was left of a heartbeat.
    synced: FastMap<Arrival, (u64, u32, u32)>,
    /// The `ClusterState::partitions_version` rs_jn were read at: a partition change moves
    /// which hosts a job's maps may be local to, so every job's are read again.
    partitions_read: u64,
    /// Map containers running at the previous heartbeat (any node), kept from the core's events.
    running: MapContainers,
    /// T, with the map container size and node set it was counted for.
    total_slots: Option<(Resource, u64, u32)>,
    /// Per node, the jobs whose map containers there ended and whose slots the node's next
    /// heartbeat offers (one entry per container).
    freed: FastMap<String, Vec<Arrival>>,
    /// This heartbeat's map picks per app.
    picks: FastMap<Arrival, u32>,
    /// Per node id, the non-local picks of its latest heartbeat not yet seen as containers: the
    /// app, the node read from and when. A container of that app starting on that node confirms
    /// one, and only then does the read enter TD's hot queue; the node's next heartbeat drops
    /// the rest (picks no container followed). At most `MAX_SLOTS_PER_HEARTBEAT` per node.
    reads_to_confirm: FastMap<String, Vec<(Arrival, String, f64)>>,
}

impl TdPolicy {
    pub fn new(cfg: &TdConfig, default_map_secs: f64) -> Result<Self, CoreError> {
        let mut td = TdScheduler::new(cfg.clone())?;
        td.defer_reads();
        Ok(TdPolicy {
            td,
            default_map_secs,
            jobs: FastMap::default(),
            ids: FastMap::default(),
            asks_read: FastMap::default(),
            demand_read: FastMap::default(),
            synced: FastMap::default(),
            partitions_read: 0,
            running: MapContainers::default(),
            total_slots: None,
            freed: FastMap::default(),
            picks: FastMap::default(),
            reads_to_confirm: FastMap::default(),
        })
    }

    /// The paper module's state, for tests and diagnostics.
    pub fn scheduler(&self) -> &TdScheduler {
        &self.td
    }
}

fn log_err(what: &str, r: Result<(), CoreError>) {
    if let Err(e) = r {
        log::warn!("td: {what}: {e}");
    }
}

impl TdPolicy {
    /// Brings Q, T, remain, rs_jn, occupied and amt up to date; returns the map container size.
    fn sync(&mut self, state: &ClusterState) -> Resource {
        let cache = &mut self.demand_read;
        let each = state
            .apps()
            .filter(|a| a.is_mapreduce)
            .filter_map(|a| cached_map_demand(cache, state, a).1)
            .min_by_key(|r| r.memory_mb)
            .unwrap_or(DEFAULT_MAP);
        // T changes only with the map size or the nodes: counting it over every node on every
        // heartbeat was O(nodes) per heartbeat.
        let total = match self.total_slots {
            Some((size, version, total)) if size == each && version == state.nodes_version() => {
                total
            }
            _ => {
                let total: u64 = state
                    .nodes()
                    .map(|n| n.capability.count_fitting(&each) as u64)
                    .sum();
                let total = total.min(u32::MAX as u64) as u32;
                self.total_slots = Some((each, state.nodes_version(), total));
                total
            }
        };
        self.td.set_total_slots(total);
        if self.partitions_read != state.partitions_version() {
            self.partitions_read = state.partitions_version();
            self.asks_read.clear();
            self.synced.clear();
        }
        for app in state.apps_by_submission() {
            if !app.is_mapreduce {
                continue;
            }
            let (remain, _) = cached_map_demand(&mut self.demand_read, state, app);
            if !self.jobs.contains_key(&app.arrival) {
                if remain == 0 {
                    continue;
                }
                let (remain, on_node, _) = map_asks::<HashMap<String, u32>>(state, app);
                let estimate = state.profiles().estimate(app.arrival);
                // A demand above T could never be co-scheduled (formula (3)) and would keep every
                // later job waiting behind an infantile job forever.
                let demand = estimate.demand.unwrap_or(remain).min(total).max(1);
                let amt = estimate
                    .avg_map_ms
                    .map(|ms| ms / 1000.0)
                    .filter(|s| *s > 0.0)
                    .unwrap_or(self.default_map_secs);
                match self.td.submit(&app.id, demand, amt, remain, on_node) {
                    Ok(()) => {
                        log::info!(
                            "td: {} enters Q with demand {demand}, amt {amt:.1}s",
                            app.id
                        );
                        self.jobs.insert(app.arrival, app.id.clone());
                        self.ids.insert(app.id.clone(), app.arrival);
                        self.asks_read.insert(app.arrival, app.asks_version);
                    }
                    Err(e) => log::warn!("td: {e}"),
                }
                continue;
            }
            let occupied = self.running.running(app.arrival);
            let given = (app.asks_version, remain, occupied);
            if self.synced.get(&app.arrival) == Some(&given) {
                continue;
            }
            // Read rs_jn again only when the asks changed or TD counted them down itself;
            // otherwise it already holds those counts. It is updated in place, without copying
            // the job's host names.
            let unchanged = self.asks_read.get(&app.arrival) == Some(&app.asks_version);
            if unchanged && !self.td.counted_down(&app.id) {
                log_err("set_tasks", self.td.set_remain(&app.id, remain));
            } else {
                // Numbered by the core's name table, which only node registrations add to, so
                // TD's table from those numbers is bounded by the cluster's hosts and racks.
                let rows =
                    map_host_rows_by_id(state, app).map(|(id, name, count)| (id.0, name, count));
                log_err(
                    "set_tasks",
                    self.td.refresh_tasks_numbered(&app.id, remain, rows),
                );
                self.asks_read.insert(app.arrival, app.asks_version);
            }
            log_err("set_occupied", self.td.set_occupied(&app.id, occupied));
            self.synced.insert(app.arrival, given);
        }
        each
    }

    /// The jobs whose map containers on `node` ended since they were last seen, once per
    /// container: each freed a slot whose last task was theirs. Containers are compared across
    /// every heartbeat, so a container created after its node's heartbeat is seen by the next
    /// heartbeat of any node. (One created and ended between two heartbeats of the whole cluster
    /// is not seen; its slot counts as having no predecessor.)
    /// `ended` is what [`MapContainers::heartbeat`] returned for this heartbeat.
    fn freed_on(
        &mut self,
        state: &ClusterState,
        ended: Vec<(String, Arrival)>,
        node: &Node,
    ) -> Vec<Arrival> {
        for (on, app) in ended {
            if state.node(&on).is_some() {
                self.freed.entry(on).or_default().push(app);
            }
        }
        let mut freed = self.freed.remove(&node.id).unwrap_or_default();
        freed.sort();
        freed
    }
}

impl TdPolicy {
    /// A container started: if it follows one of its node's non-local picks for its app, that
    /// read has begun.
    fn confirm_read(&mut self, c: &crate::state::container::Container) {
        if !c.kind.is_map() {
            return;
        }
        let Some(&arrival) = self.ids.get(&c.app) else {
            return;
        };
        let Some(pending) = self.reads_to_confirm.get_mut(&c.node) else {
            return;
        };
        if let Some(i) = pending.iter().position(|r| r.0 == arrival) {
            let (_, src, at) = pending.remove(i);
            self.td.record_read(&src, at);
        }
    }
}

impl JobPolicy for TdPolicy {
    fn name(&self) -> &'static str {
        "td"
    }

    fn order(&mut self, state: &ClusterState, node: &Node, now_ms: u64) -> Vec<Arrival> {
        let ended = self.running.heartbeat(state);
        let each = self.sync(state);
        let freed = self.freed_on(state, ended, node);
        let now = now_ms as f64 / 1000.0;
        let mut slots = node
            .unallocated
            .count_fitting(&each)
            .min(MAX_SLOTS_PER_HEARTBEAT);
        let by_id = &self.ids;
        let mut picks: Vec<Arrival> = Vec::new();
        let mut remote: Vec<(Arrival, String, f64)> = Vec::new();
        let mut pick = |td: &mut TdScheduler, last: Option<&str>| {
            if let Some(a) = td.slot_freed(now, &node.host, last) {
                if let Some(&arrival) = by_id.get(&a.job) {
                    picks.push(arrival);
                    if let crate::papers::td::TaskSource::Remote(src) = a.source {
                        remote.push((arrival, src, now));
                    }
                }
            }
        };
        for app in freed {
            if slots == 0 {
                break;
            }
            let Some(id) = self.jobs.get(&app).cloned() else {
                continue;
            };
            self.synced.remove(&app);
            // The paper's slot still counts as occupied until line 1 of Algorithm 1.
            let held = self.td.occupied(&id).unwrap_or(0);
            log_err("set_occupied", self.td.set_occupied(&id, held + 1));
            pick(&mut self.td, Some(&id));
            slots -= 1;
        }
        for _ in 0..slots {
            pick(&mut self.td, None);
        }
        if log::log_enabled!(log::Level::Trace) {
            for id in self.jobs.values() {
                log::trace!(
                    "td: {id} {:?} occupied {:?}, T {}",
                    self.td.status(id),
                    self.td.occupied(id),
                    self.td.config().total_slots
                );
            }
        }
        if remote.is_empty() {
            self.reads_to_confirm.remove(&node.id);
        } else {
            self.reads_to_confirm.insert(node.id.clone(), remote);
        }
        self.picks.clear();
        for &a in &picks {
            self.synced.remove(&a);
            *self.picks.entry(a).or_insert(0) += 1;
        }
        // An AM is what lets a job make progress at all: apps waiting for theirs go first.
        crate::policy::am_share::order_around(state, picks)
    }

    fn map_limit(&mut self, app: Arrival) -> u32 {
        self.picks.get(&app).copied().unwrap_or(0)
    }

    /// Algorithm 2 hands non-local slots to CPU-bound jobs one by one: Hadoop 1's
    /// one-off-switch-per-heartbeat rule would leave TD's non-local picks idle.
    fn off_switch_limit(&self) -> Option<u32> {
        Some(u32::MAX)
    }

    fn observe(&mut self, state: &ClusterState, what: &Observed<'_>) {
        match what {
            Observed::ContainerStarted(c) => {
                self.running.started(state, c);
                self.confirm_read(c);
            }
            Observed::ContainerRecovered(c) => self.running.started(state, c),
            Observed::ContainerFinished(c) => self.running.finished(c),
            _ => {}
        }
    }

    fn app_removed(&mut self, app: Arrival) {
        if let Some(id) = self.jobs.remove(&app) {
            self.td.remove_job(&id);
            self.ids.remove(&id);
        }
        self.asks_read.remove(&app);
        self.demand_read.remove(&app);
        self.synced.remove(&app);
        self.running.app_removed(app);
        for per_node in self.freed.values_mut() {
            per_node.retain(|a| *a != app);
        }
        for per_node in self.reads_to_confirm.values_mut() {
            per_node.retain(|r| r.0 != app);
        }
    }
}
