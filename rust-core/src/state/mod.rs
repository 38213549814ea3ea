//! The scheduling state the policies read: nodes, applications with their asks, running
//! containers, queues and per-pool usage. Every mutation keeps the derived totals (node
//! allocation, app usage, queue usage, slot usage, cluster capacity) in step, so a policy
//! reading them never has to recompute a sum over the cluster.

pub mod app;
pub mod ask;
pub mod container;
pub mod inflight;
pub mod names;
pub mod node;
pub mod parallel;
pub mod queue;
pub mod rejections;
pub mod topology;
pub(crate) mod waiting;

use std::collections::{BTreeMap, BTreeSet};

use crate::error::CoreError;
use crate::fast_hash::{FastMap, FastSet};
use crate::profile::Profiles;
use crate::protocol::{Ask, AskRef, ContainerInfo, Resource};
use crate::state::app::{is_mapreduce, App, Arrival, Blacklist, FifoKey, SlotKind, TaskKind};
use crate::state::ask::{AppAsks, AskLimits, AskTable, ChangedRows};
use crate::state::container::{Container, Containers};
use crate::state::names::{Names, ANY_ID};
use crate::state::node::Node;
use crate::state::queue::Queues;
use crate::state::topology::{locate, DatacenterMapping};

/// Sums that saturate: a shim reporting absurd capabilities must get wrong totals in the
/// log, not a panic inside the ResourceManager.
pub(crate) fn plus(a: Resource, b: &Resource) -> Resource {
    a.add(b)
}

/// Everything `app_added` says about an application.
#[derive(Debug, Clone)]
pub struct AppSpec {
    pub id: String,
    pub queue: String,
    pub user: String,
    pub name: String,
    pub app_type: String,
    pub tags: Vec<String>,
    pub submit_ms: u64,
    /// YARN application priority (higher first in FIFO order).
    pub priority: i32,
}

/// A key a capped slot pool alone held back on a heartbeat of `node` (it fit the node and
/// every other limit let it start there): the pool's freed room is kept for it. Without this,
/// room a pool frees at one node's heartbeat goes to whichever job ranks first *there*, often
/// the job whose container just ended, while the job the pool held back at another node,
/// first in the policy's order there, waits for that job's whole phase (docs/design/liveness.md,
/// item 5).
#[derive(Debug, Clone)]
pub(crate) struct PoolWaiter {
    pub arrival: Arrival,
    pub key: crate::state::ask::SchedulerKey,
    /// One container of the key.
    pub size: Resource,
    /// The node whose heartbeat found it held back; its next heartbeat confirms or ends it.
    pub node: String,
}

/// What an in-flight decision holds until the RM creates or refuses its containers.
#[derive(Debug, Clone)]
pub struct InFlightUse {
    pub app: Arrival,
    pub queue: String,
    pub resource: Resource,
    pub am: bool,
    /// The partition of the node decided on (empty: the default one).
    pub partition: String,
}

#[derive(Debug, Default)]
pub struct ClusterState {
    /// Per slot pool (map, reduce), the key its next room is kept for (`schedule.rs`).
    pub(crate) pool_waiters: [Option<PoolWaiter>; 2],
    // The fast, unkeyed hasher is safe for these string keys: node ids, application ids and
    // (in `containers`) container ids are assigned by the ResourceManager, not chosen by an
    // application. Names AMs choose are hashed in `names` only.
    nodes: FastMap<String, Node>,
    apps: BTreeMap<Arrival, App>,
    app_ids: FastMap<String, Arrival>,
    /// Every app in FIFO order (priority, submission, arrival) without sorting on every
    /// heartbeat.
    submission: BTreeSet<FifoKey>,
    containers: Containers,
    /// Containers recorded so far: the next one's [`Container::started`].
    containers_started: u64,
    queues: Queues,
    mapping: DatacenterMapping,
    names: Names,
    capacity: Resource,
    map_used: Resource,
    reduce_used: Resource,
    /// Held by ApplicationMaster containers (the AM share's measure), kept as containers start
    /// and finish so the AM share costs nothing per heartbeat.
    am_used: Resource,
    /// Containers decided and not yet created or refused (the core's in-flight decisions), per
    /// app with its queue and whether they are AMs: set before every heartbeat
    /// ([`Self::set_in_flight`]), so the AM share, the queues' maxima and the user limits hold
    /// across a batch of node offers the RM executes only after the batch.
    in_flight: Vec<InFlightUse>,
    am_in_flight_total: Resource,
    /// Map and reduce containers decided and not yet created or refused, set before every
    /// heartbeat ([`Self::set_slot_in_flight`]) so a slot pool's cap holds across a batch of
    /// node offers, as the AM share's does.
    slot_in_flight: [Resource; 2],
    /// Bumped whenever a node joins, leaves or changes size, so a policy can keep a figure
    /// computed over all nodes until it changes.
    nodes_version: u64,
    /// Nodes of a non-exclusive partition: while there are none, no default-partition key
    /// can borrow, so its offers are not counted.
    lending_nodes: usize,
    /// Nodes in a partition other than the default one, and those of them in an exclusive one.
    labelled_nodes: usize,
    exclusive_nodes: usize,
    /// While some node is labelled: per host and rack name, the (partition, exclusive) pairs of
    /// the nodes there, and per partition its node count; rebuilt whenever a node joins, leaves
    /// or changes partition (node events, so O(nodes) each only on a labelled cluster), empty
    /// otherwise. Where a key's data is, seen from the partition it may run in.
    partition_places: FastMap<crate::state::names::NameId, Vec<(String, bool)>>,
    partition_sizes: BTreeMap<String, usize>,
    /// Per labelled partition, its nodes' capabilities summed (rebuilt with the index).
    partition_capacity: BTreeMap<String, Resource>,
    /// While some node is labelled: how many nodes have each (partition, exclusive,
    /// capability), rebuilt with the index ([`Self::node_kinds`]).
    partition_shapes: BTreeMap<(String, bool, Shape), usize>,
    /// Bumped whenever `partition_places` may have changed.
    partitions_version: u64,
    /// How many nodes have each capability (memory, vcores, extra types): whether a container
    /// fits some node is a look at the few distinct shapes, not at every node.
    node_shapes: BTreeMap<Shape, u32>,
    next_arrival: u64,
    /// Job profiles learned from container start/finish (see [`crate::profile`]).
    profiles: Profiles,
    /// The latest heartbeat's RM clock, the time of the events that carry none.
    clock_ms: u64,
    /// Apps with outstanding containers, in FIFO order: a heartbeat on a cluster with thousands
    /// of apps walks only those that want something. Brought up to date by `sync_pending`.
    /// Each carries the app's floor, so a walk can pass over apps a room cannot fit without
    /// looking each one up.
    pending_apps: BTreeMap<FifoKey, Resource>,
    /// The floor (see [`AppAsks::might_fit`]) of each app in `pending_apps`, and how many of
    /// them have each memory and each vcores floor: a room below the smallest fits no app.
    pending_floor: FastMap<Arrival, (FifoKey, Resource)>,
    floor_memory: BTreeMap<u64, u32>,
    floor_vcores: BTreeMap<u32, u32>,
    /// Apps whose asks may have changed since the last `sync_pending`.
    asks_touched: Vec<Arrival>,
    /// The last `App::asks_version` handed out.
    asks_versions: u64,
    /// `locus.app.*` bounds on each application's asks.
    ask_limits: AskLimits,
    /// Apps with rows naming hosts or racks no node has carried (see `AppAsks::adopt`).
    with_unknown: BTreeSet<Arrival>,
    /// Apps that have been let into the pending index for good (see [`Self::activate`]).
    activated: FastSet<Arrival>,
    /// Apps with outstanding asks that wait for their AM to be admitted and are not activated:
    /// per (queue, user), in FIFO order. No policy orders them; the heartbeat activates the
    /// heads while their AM fits (`schedule::activate`).
    awaiting: BTreeMap<(String, String), BTreeSet<FifoKey>>,
    /// Where each app in `awaiting` is filed.
    awaiting_at: FastMap<Arrival, ((String, String), FifoKey)>,
    /// Apps activated to start their AM that have not been given it yet: their AM counts
    /// against the AM room until it is decided, so one free slot activates one app, not all.
    reserving: BTreeSet<Arrival>,
    /// Apps the job policy ordered on the last node offer.
    last_ordered: u64,
    /// Which apps the running-application limits hold (`max-parallel-apps`): a held app is
    /// neither pending nor waiting for activation.
    parallel: parallel::Parallel,
}

impl ClusterState {
    pub fn new(mapping: DatacenterMapping) -> Self {
        ClusterState {
            mapping,
            ..Default::default()
        }
    }

    // ---- reading -------------------------------------------------------------------------

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.get(id)
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.values()
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn app(&self, arrival: Arrival) -> Option<&App> {
        self.apps.get(&arrival)
    }

    pub fn app_by_id(&self, id: &str) -> Option<&App> {
        self.app_ids.get(id).and_then(|a| self.apps.get(a))
    }

    /// Mutable access marks the app's asks as possibly changed (see `sync_pending`).
    pub(crate) fn app_mut(&mut self, arrival: Arrival) -> Option<&mut App> {
        self.asks_touched.push(arrival);
        self.asks_versions += 1;
        let version = self.asks_versions;
        let app = self.apps.get_mut(&arrival)?;
        app.asks_version = version;
        Some(app)
    }

    pub(crate) fn app_mut_by_id(&mut self, id: &str) -> Option<&mut App> {
        let arrival = *self.app_ids.get(id)?;
        self.app_mut(arrival)
    }

    /// Brings the index of apps with outstanding containers up to date with every app touched
    /// since the last call. The heartbeat calls it before ordering apps.
    pub(crate) fn sync_pending(&mut self) {
        let touched = std::mem::take(&mut self.asks_touched);
        for arrival in touched {
            let now = self
                .apps
                .get(&arrival)
                .filter(|a| a.asks.has_pending() && !self.parallel.is_held(arrival))
                .map(|a| (a.fifo_key(), a.asks.floor(), self.needs_activation(a)));
            self.unlist(arrival);
            match now {
                Some((key, floor, false)) => {
                    self.activated.insert(arrival);
                    self.list(arrival, key, floor);
                }
                Some((key, _, true)) => {
                    let app = &self.apps[&arrival];
                    let group = (app.queue.clone(), app.user.clone());
                    self.awaiting.entry(group.clone()).or_default().insert(key);
                    self.awaiting_at.insert(arrival, (group, key));
                }
                None => {}
            }
        }
    }

    /// Whether `app`, which has outstanding asks, may be ordered only once activated: it was
    /// never activated, holds nothing (no container, no AM decided) and its first pending ask
    /// is its AM. An app that holds a container, whose AM is decided, or that asks for
    /// something other than an AM first (an unmanaged AM's tasks) is activated at once.
    fn needs_activation(&self, app: &App) -> bool {
        if self.activated.contains(&app.arrival) || app.used != Resource::ZERO {
            return false;
        }
        let waits_for_am = app
            .asks
            .next_pending_key(None)
            .is_some_and(|k| app.kind_of(k.priority) == TaskKind::ApplicationMaster);
        waits_for_am && !self.in_flight.iter().any(|u| u.am && u.app == app.arrival)
    }

    fn list(&mut self, arrival: Arrival, key: FifoKey, floor: Resource) {
        self.pending_apps.insert(key, floor);
        self.pending_floor.insert(arrival, (key, floor));
        *self.floor_memory.entry(floor.memory_mb).or_default() += 1;
        *self.floor_vcores.entry(floor.vcores).or_default() += 1;
    }

    /// Lets an app waiting for activation into the pending index for good (CapacityScheduler's
    /// `activateApplications`): from now on every policy orders it whenever it has asks. It
    /// counts against the AM room ([`Self::reserving`]) until its AM is decided.
    pub(crate) fn activate(&mut self, arrival: Arrival) {
        let Some((group, key)) = self.awaiting_at.remove(&arrival) else {
            return;
        };
        self.drop_awaiting(&group, key);
        self.activated.insert(arrival);
        self.reserving.insert(arrival);
        if let Some(floor) = self.apps.get(&arrival).map(|a| a.asks.floor()) {
            self.list(arrival, key, floor);
        }
    }

    fn drop_awaiting(&mut self, group: &(String, String), key: FifoKey) {
        if let Some(set) = self.awaiting.get_mut(group) {
            set.remove(&key);
            if set.is_empty() {
                self.awaiting.remove(group);
            }
        }
    }

    /// The first app waiting for activation (as of the last `sync_pending`) of each queue and
    /// user, with its queue and user: one per pair, however many wait.
    pub fn awaiting_heads(&self) -> impl Iterator<Item = (&(String, String), FifoKey)> {
        self.awaiting
            .iter()
            .filter_map(|(g, set)| set.first().map(|k| (g, *k)))
    }

    /// The app after `after` waiting for activation in `group` (queue, user), FIFO order.
    pub fn awaiting_next(&self, group: &(String, String), after: FifoKey) -> Option<FifoKey> {
        use std::ops::Bound::{Excluded, Unbounded};
        self.awaiting
            .get(group)?
            .range((Excluded(after), Unbounded))
            .next()
            .copied()
    }

    /// Apps with outstanding asks waiting for activation, each queue's and user's in FIFO
    /// order.
    pub fn awaiting_apps(&self) -> impl Iterator<Item = &App> {
        self.awaiting
            .values()
            .flatten()
            .filter_map(|k| self.apps.get(&k.arrival))
    }

    /// Sets the running-application limits (`max-parallel-apps`); held apps the new limits
    /// admit become runnable.
    pub fn set_parallel_limits(&mut self, limits: parallel::ParallelLimits) {
        if *self.parallel.limits() == limits {
            return;
        }
        let released = self.parallel.set_limits(limits);
        self.asks_touched.extend(released);
    }

    /// Which apps the running-application limits hold.
    pub fn parallel(&self) -> &parallel::Parallel {
        &self.parallel
    }

    /// How many apps wait for activation.
    pub fn awaiting_count(&self) -> usize {
        self.awaiting_at.len()
    }

    /// Whether `app` has been activated (see [`Self::activate`]).
    pub fn is_activated(&self, app: Arrival) -> bool {
        self.activated.contains(&app)
    }

    /// Activated apps whose AM is neither running nor decided, pruning those whose AM runs (or
    /// that are gone): each is visited until its AM starts. An AM in flight is already in
    /// [`Self::am_used`].
    pub(crate) fn reserving(&mut self) -> Vec<Arrival> {
        let apps = &self.apps;
        self.reserving
            .retain(|a| apps.get(a).is_some_and(|app| app.am_used == Resource::ZERO));
        let in_flight = &self.in_flight;
        self.reserving
            .iter()
            .filter(|a| !in_flight.iter().any(|u| u.am && u.app == **a))
            .copied()
            .collect()
    }

    /// Records how many apps the job policy ordered on this node offer.
    pub(crate) fn note_ordered(&mut self, apps: usize) {
        self.last_ordered = apps as u64;
    }

    /// Apps the job policy ordered on the last node offer (0 when the offer walked the pending
    /// index lazily or found no room).
    pub fn last_ordered(&self) -> u64 {
        self.last_ordered
    }

    fn unlist(&mut self, arrival: Arrival) {
        if let Some((group, key)) = self.awaiting_at.remove(&arrival) {
            self.drop_awaiting(&group, key);
        }
        let Some((key, floor)) = self.pending_floor.remove(&arrival) else {
            return;
        };
        self.pending_apps.remove(&key);
        fn drop_one<K: Ord>(m: &mut BTreeMap<K, u32>, k: K) {
            if let Some(n) = m.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    m.remove(&k);
                }
            }
        }
        drop_one(&mut self.floor_memory, floor.memory_mb);
        drop_one(&mut self.floor_vcores, floor.vcores);
    }

    /// Apps with outstanding containers in FIFO order ([`FifoKey`]: application priority,
    /// then submit time, then arrival), as of the last `sync_pending`.
    pub fn pending_apps_by_submission(&self) -> impl Iterator<Item = &App> {
        self.pending_apps
            .keys()
            .filter_map(|k| self.apps.get(&k.arrival))
    }

    /// The first app with outstanding asks after `after` in FIFO order (the first of all for
    /// `None`), as [`Self::pending_apps_by_submission`] lists them: a walk that may stop early
    /// without listing the rest. Every listed key's app exists (`remove_app` unlists it).
    pub fn next_pending_by_submission(&self, after: Option<FifoKey>) -> Option<FifoKey> {
        use std::ops::Bound::{Excluded, Unbounded};
        match after {
            None => self.pending_apps.keys().next().copied(),
            Some(k) => self
                .pending_apps
                .range((Excluded(k), Unbounded))
                .next()
                .map(|(k, _)| *k),
        }
    }

    /// The first app after `after` in [`Self::next_pending_by_submission`]'s order whose floor
    /// (as of the last `sync_pending`) `room` fits: one range search for a stretch of apps that
    /// cannot use the room, where a step per app would search from the root and look each up.
    pub fn next_pending_fitting(&self, after: Option<FifoKey>, room: &Resource) -> Option<FifoKey> {
        use std::ops::Bound::{Excluded, Unbounded};
        let lower = after.map_or(Unbounded, Excluded);
        self.pending_apps
            .range((lower, Unbounded))
            .find(|(_, floor)| room.fits(floor))
            .map(|(k, _)| *k)
    }

    /// False when `room` is below every pending app's floor: no app could use it.
    pub fn any_pending_might_fit(&self, room: &Resource) -> bool {
        match (
            self.floor_memory.keys().next(),
            self.floor_vcores.keys().next(),
        ) {
            (Some(&memory_mb), Some(&vcores)) => {
                room.fits(&Resource::new(memory_mb, vcores))
                    && self.pending_apps.values().any(|floor| room.fits(floor))
            }
            _ => false,
        }
    }

    /// Apps in arrival order.
    pub fn apps(&self) -> impl Iterator<Item = &App> {
        self.apps.values()
    }

    pub fn app_count(&self) -> usize {
        self.apps.len()
    }

    /// Apps in YARN's FIFO order ([`FifoKey`]: application priority, then submit time, then
    /// arrival).
    pub fn apps_by_submission(&self) -> impl Iterator<Item = &App> {
        self.submission
            .iter()
            .filter_map(|k| self.apps.get(&k.arrival))
    }

    /// Interned resource names, to turn the ids in ask tables back into host and rack names.
    pub fn names(&self) -> &Names {
        &self.names
    }

    pub fn containers(&self) -> &Containers {
        &self.containers
    }

    pub fn queues(&self) -> &Queues {
        &self.queues
    }

    /// Sum of all nodes' capabilities.
    pub fn capacity(&self) -> Resource {
        self.capacity
    }

    /// Resource held by ApplicationMaster containers, counting those decided and not yet
    /// created or refused: the AM share's measure.
    pub fn am_used(&self) -> Resource {
        plus(self.am_used, &self.am_in_flight_total)
    }

    /// AM memory of `queue`'s apps decided and not yet created or refused.
    pub fn queue_am_in_flight_mb(&self, queue: &str) -> u64 {
        self.in_flight
            .iter()
            .filter(|u| u.am && u.queue == queue)
            .fold(0u64, |sum, u| sum.saturating_add(u.resource.memory_mb))
    }

    /// AM memory of `app` decided and not yet created or refused.
    pub fn app_am_in_flight_mb(&self, app: Arrival) -> u64 {
        self.in_flight
            .iter()
            .filter(|u| u.am && u.app == app)
            .fold(0u64, |sum, u| sum.saturating_add(u.resource.memory_mb))
    }

    /// Every container decided and not yet created or refused, AMs included, by app.
    pub fn in_flight(&self) -> &[InFlightUse] {
        &self.in_flight
    }

    /// Replaces the containers in flight: (app id, resource of the unsettled part, whether they
    /// are AMs) for each unconfirmed decision. Apps no longer known are skipped.
    pub fn set_in_flight<'a>(
        &mut self,
        decided: impl Iterator<Item = (&'a str, Resource, bool, &'a str)>,
    ) {
        self.in_flight.clear();
        self.am_in_flight_total = Resource::ZERO;
        for (id, resource, am, node) in decided {
            let Some(app) = self.app_ids.get(id).and_then(|a| self.apps.get(a)) else {
                continue;
            };
            if am {
                self.am_in_flight_total = plus(self.am_in_flight_total, &resource);
            }
            let partition = self
                .nodes
                .get(node)
                .map_or(String::new(), |n| n.partition.clone());
            self.in_flight.push(InFlightUse {
                app: app.arrival,
                queue: app.queue.clone(),
                resource,
                am,
                partition,
            });
        }
    }

    /// Whether a container of `size` fits some node's capability.
    pub fn fits_some_node(&self, size: &Resource) -> bool {
        self.node_shapes.keys().any(|&(memory_mb, vcores, extra)| {
            Resource {
                memory_mb,
                vcores,
                extra,
            }
            .fits(size)
        })
    }

    /// Whether some node of today's cluster could hold a container of this key: one its size
    /// fits, where YARN's locality rules let the key place (`schedule::plan_key`'s: node-local
    /// where the host and its rack have containers outstanding, rack-local where the rack has
    /// and relaxes, off-switch where the rack has none and `*` relaxes). A key no node can
    /// serve (bigger than every node, or pinned to hosts without a NodeManager) is a blocker:
    /// it takes nothing, so nothing may wait for it (docs/design/liveness.md). Locality techniques
    /// only delay a key and are not consulted. A key whose `*` row relaxes is judged by size
    /// alone; only a pinned one walks the nodes.
    pub fn can_ever_place(&self, table: &AskTable) -> bool {
        self.can_place_for(table, &Blacklist::default(), "")
    }

    /// `can_ever_place` for one application's key: nodes the application blacklists do not
    /// count, as the RM refuses it every container there. Maps that fit only blacklisted nodes
    /// take nothing until the list changes, so nothing may wait for them either.
    /// A key labelled with a partition counts only that partition's nodes (it is placed nowhere
    /// else), so a labelled key no node of its partition can hold is a blocker too; a
    /// default-partition key counts no exclusive partition's node.
    pub fn app_can_ever_place(
        &self,
        app: &App,
        key: &crate::state::ask::SchedulerKey,
        table: &AskTable,
    ) -> bool {
        self.can_place_for(table, &app.blacklist, app.partitions.of(key))
    }

    fn can_place_for(&self, table: &AskTable, blacklist: &Blacklist, partition: &str) -> bool {
        let Some(any) = table.row(ANY_ID).filter(|r| r.count > 0) else {
            return false;
        };
        if blacklist.is_empty()
            && partition.is_empty()
            && self.exclusive_nodes == 0
            && table.may_relax_to(ANY_ID)
        {
            return self.fits_some_node(&any.capability);
        }
        self.nodes.values().any(|n| {
            if blacklist.excludes(&n.host, &n.rack) || !n.serves(partition) {
                return false;
            }
            if table.may_relax_to(ANY_ID) && n.capability.fits(&any.capability) {
                return true;
            }
            let fits = |name| {
                table
                    .row(name)
                    .is_some_and(|r| r.count > 0 && n.capability.fits(&r.capability))
            };
            (fits(n.host_id) && table.count(n.rack_id) > 0)
                || (fits(n.rack_id) && table.may_relax_to(n.rack_id))
        })
    }

    /// Changes whenever a node is added, removed or resized.
    pub fn nodes_version(&self) -> u64 {
        self.nodes_version
    }

    /// Ends the pool waiters whose key has nothing outstanding (or whose app is gone) and
    /// those whose node left: nothing would confirm or end them otherwise.
    pub(crate) fn drop_stale_pool_waiters(&mut self) {
        for i in 0..self.pool_waiters.len() {
            let live = self.pool_waiters[i].as_ref().is_some_and(|w| {
                self.nodes.contains_key(&w.node)
                    && self
                        .app(w.arrival)
                        .and_then(|a| a.asks.table(&w.key))
                        .is_some_and(|t| t.outstanding() > 0)
            });
            if !live {
                self.pool_waiters[i] = None;
            }
        }
    }

    /// Resource held by containers of one slot pool, counting those decided and not yet
    /// created or refused.
    pub fn slot_used(&self, slot: SlotKind) -> Resource {
        match slot {
            SlotKind::Map => plus(self.map_used, &self.slot_in_flight[0]),
            SlotKind::Reduce => plus(self.reduce_used, &self.slot_in_flight[1]),
        }
    }

    /// Map and reduce containers decided and not yet settled, per pool (map, reduce).
    pub fn set_slot_in_flight(&mut self, in_flight: [Resource; 2]) {
        self.slot_in_flight = in_flight;
    }

    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }

    pub(crate) fn profiles_mut(&mut self) -> &mut Profiles {
        &mut self.profiles
    }

    /// The latest heartbeat's `now_ms`: the RM reports container starts and finishes while it
    /// processes a node's heartbeat, so this is their time too.
    pub fn clock_ms(&self) -> u64 {
        self.clock_ms
    }

    pub fn pending_containers(&self) -> u64 {
        self.apps
            .values()
            .map(|a| a.asks.pending_containers())
            .sum()
    }

    pub fn set_ask_limits(&mut self, limits: AskLimits) {
        self.ask_limits = limits;
    }

    /// A node brought a name no node carried before: rows that waited for it count now.
    fn adopt_name(&mut self, name: &str, id: crate::state::names::NameId) {
        let waiting: Vec<Arrival> = self.with_unknown.iter().copied().collect();
        for arrival in waiting {
            let Some(app) = self.apps.get_mut(&arrival) else {
                self.with_unknown.remove(&arrival);
                continue;
            };
            if app.asks.adopt(name, id) {
                self.asks_versions += 1;
                app.asks_version = self.asks_versions;
                self.asks_touched.push(arrival);
            }
            if !app.asks.has_unknown() {
                self.with_unknown.remove(&arrival);
            }
        }
    }

    fn note_unknown(&mut self, arrival: Arrival) {
        let has = self
            .apps
            .get(&arrival)
            .is_some_and(|a| a.asks.has_unknown());
        if has {
            self.with_unknown.insert(arrival);
        } else {
            self.with_unknown.remove(&arrival);
        }
    }

    // ---- nodes ---------------------------------------------------------------------------

    /// Adds a node, or updates it in place when the RM reports it again (a NodeManager that
    /// re-registers keeps its NodeId): its running containers stay counted.
    /// Returns true for a new node.
    pub fn add_node(&mut self, id: &str, host: &str, rack: &str, capability: Resource) -> bool {
        let loc = locate(host, rack, &self.mapping);
        self.nodes_version += 1;
        // Node names are the only ones interned: they come from the RM's registered
        // NodeManagers, so the table is bounded by the cluster, never by what an AM sends.
        let new_host = self.names.id(host).is_none();
        let new_rack = self.names.id(rack).is_none();
        let host_id = self.names.intern(host);
        let rack_id = self.names.intern(rack);
        if new_host {
            self.adopt_name(host, host_id);
        }
        if new_rack {
            self.adopt_name(rack, rack_id);
        }
        if let Some(n) = self.nodes.get_mut(id) {
            // Carried by this node from now on: its old names lose it (a re-registration may
            // move the node to another rack).
            self.names.uncarry(n.host_id);
            self.names.uncarry(n.rack_id);
            self.names.carry(host_id);
            self.names.carry(rack_id);
            self.capacity = plus(self.capacity.saturating_sub(&n.capability), &capability);
            let old = std::mem::replace(&mut n.capability, capability);
            shape_removed(&mut self.node_shapes, old);
            shape_added(&mut self.node_shapes, capability);
            n.host = host.to_string();
            n.rack = loc.rack;
            n.host_id = host_id;
            n.rack_id = rack_id;
            n.datacenter = loc.datacenter;
            n.capability = capability;
            if n.last_heartbeat_ms.is_none() {
                n.unallocated = capability.saturating_sub(&n.allocated);
            }
            if self.labelled_nodes > 0 {
                self.index_partitions();
            }
            return false;
        }
        self.names.carry(host_id);
        self.names.carry(rack_id);
        self.capacity = plus(self.capacity, &capability);
        shape_added(&mut self.node_shapes, capability);
        self.nodes.insert(
            id.to_string(),
            Node {
                id: id.to_string(),
                host: host.to_string(),
                rack: loc.rack,
                host_id,
                rack_id,
                datacenter: loc.datacenter,
                capability,
                unallocated: capability,
                allocated: Resource::ZERO,
                running: 0,
                last_heartbeat_ms: None,
                opportunity: false,
                partition: String::new(),
                exclusive: false,
            },
        );
        if self.labelled_nodes > 0 {
            self.index_partitions();
        }
        true
    }

    /// Puts a node in `partition` (empty: the default one). False for an unknown node.
    pub fn set_node_partition(&mut self, id: &str, partition: &str, exclusive: bool) -> bool {
        let Some(n) = self.nodes.get_mut(id) else {
            return false;
        };
        let lent = n.lends();
        let (was_labelled, was_exclusive) = (!n.partition.is_empty(), n.exclusive);
        let old = std::mem::replace(&mut n.partition, partition.to_string());
        if old != partition && n.running > 0 {
            // CapacityScheduler moves the running containers' usage to the node's new
            // partition; a relabel is an operator's action, so one pass over the containers.
            for c in self.containers.iter().filter(|c| c.node == id) {
                if let Some(app) = self.app_ids.get(&c.app).and_then(|a| self.apps.get_mut(a)) {
                    app.used_by_partition.sub(&old, &c.resource);
                    app.used_by_partition.add(partition, &c.resource);
                    self.queues
                        .container_relabelled(&app.queue, &c.resource, &old, partition);
                }
            }
        }
        let Some(n) = self.nodes.get_mut(id) else {
            return false;
        };
        n.exclusive = exclusive && !partition.is_empty();
        match (lent, n.lends()) {
            (false, true) => self.lending_nodes += 1,
            (true, false) => self.lending_nodes = self.lending_nodes.saturating_sub(1),
            _ => {}
        }
        let (labelled, exclusive) = (!n.partition.is_empty(), n.exclusive);
        self.labelled_nodes = (self.labelled_nodes + labelled as usize) - was_labelled as usize;
        self.exclusive_nodes = (self.exclusive_nodes + exclusive as usize) - was_exclusive as usize;
        self.nodes_version += 1;
        self.index_partitions();
        true
    }

    /// Rebuilds `partition_places` and `partition_sizes` (empty while no node is labelled).
    fn index_partitions(&mut self) {
        self.partitions_version += 1;
        self.partition_places.clear();
        self.partition_sizes.clear();
        self.partition_capacity.clear();
        self.partition_shapes.clear();
        if self.labelled_nodes == 0 {
            return;
        }
        for n in self.nodes.values() {
            let c = n.capability;
            *self
                .partition_shapes
                .entry((
                    n.partition.clone(),
                    n.exclusive,
                    (c.memory_mb, c.vcores, c.extra),
                ))
                .or_default() += 1;
            for name in [n.host_id, n.rack_id] {
                let places = self.partition_places.entry(name).or_default();
                if !places
                    .iter()
                    .any(|(p, e)| *p == n.partition && *e == n.exclusive)
                {
                    places.push((n.partition.clone(), n.exclusive));
                }
            }
            *self.partition_sizes.entry(n.partition.clone()).or_insert(0) += 1;
            if !n.partition.is_empty() {
                let c = self
                    .partition_capacity
                    .entry(n.partition.clone())
                    .or_default();
                *c = plus(*c, &n.capability);
            }
        }
    }

    /// The capabilities of `partition`'s nodes summed (zero when no node is in it); for the
    /// default partition (""), those of the nodes with no label, as CapacityScheduler's label
    /// manager measures it.
    pub fn partition_capacity(&self, partition: &str) -> Resource {
        if partition.is_empty() {
            // A few entries: the labelled partitions the cluster's nodes are in.
            return self
                .partition_capacity
                .values()
                .fold(self.capacity, |rest, c| rest.saturating_sub(c));
        }
        self.partition_capacity
            .get(partition)
            .copied()
            .unwrap_or(Resource::ZERO)
    }

    /// Whether a key asking for `partition` may run on some node at `name` (a host or a rack):
    /// a key is local only where such a node is. A name with no node there counts for the
    /// default partition (a node may join there), never for a labelled one.
    pub fn may_run_at(&self, name: crate::state::names::NameId, partition: &str) -> bool {
        if self.labelled_nodes == 0 {
            return partition.is_empty();
        }
        match self.partition_places.get(&name) {
            None => partition.is_empty(),
            Some(places) => places.iter().any(|(p, exclusive)| {
                crate::state::node::partition_serves(p, *exclusive, partition)
            }),
        }
    }

    /// Whether some host or rack `table` wants containers at has a node a key asking for
    /// `partition` may run on: when none has, the key can be local nowhere and has no data to
    /// wait for. Stops at the first such place; without labelled nodes, a look at one counter.
    pub fn data_in_partition(&self, partition: &str, table: &AskTable) -> bool {
        if self.labelled_nodes == 0 && partition.is_empty() {
            return true;
        }
        table
            .wanted_locations()
            .any(|(name, _)| self.may_run_at(name, partition))
    }

    /// How many nodes a key asking for `partition` may run on (the cluster a locality wait
    /// counts its opportunities in).
    pub fn partition_node_count(&self, partition: &str) -> usize {
        if partition.is_empty() {
            self.nodes.len().saturating_sub(self.exclusive_nodes)
        } else {
            self.partition_sizes.get(partition).copied().unwrap_or(0)
        }
    }

    /// Today's nodes by kind: each distinct (partition, exclusive, capability) with how many
    /// nodes have it. Whether a key may run on a node depends on nothing else a node has (its
    /// partition, and its size in every resource type), so a count of the nodes a key may run
    /// on is a look at these few kinds: one entry per capability without labelled nodes, per
    /// partition and capability with them (kept as nodes join, leave, resize or change
    /// partition).
    pub fn node_kinds(&self) -> Vec<(String, bool, Resource, usize)> {
        let as_resource = |&(memory_mb, vcores, extra): &Shape| Resource {
            memory_mb,
            vcores,
            extra,
        };
        if self.labelled_nodes == 0 {
            return self
                .node_shapes
                .iter()
                .map(|(shape, n)| (String::new(), false, as_resource(shape), *n as usize))
                .collect();
        }
        self.partition_shapes
            .iter()
            .map(|((p, e, shape), n)| (p.clone(), *e, as_resource(shape), *n))
            .collect()
    }

    /// How many nodes a key asking for `partition` may be offered a container of `size` on:
    /// the nodes of its partition (a default-partition key's: every node but an exclusive
    /// partition's) that `size` fits in every resource type. A look at the few node kinds.
    pub fn nodes_fitting(&self, partition: &str, size: &Resource) -> usize {
        let fits = |&(memory_mb, vcores, extra): &Shape| {
            Resource {
                memory_mb,
                vcores,
                extra,
            }
            .fits(size)
        };
        if self.labelled_nodes == 0 {
            if !partition.is_empty() {
                return 0;
            }
            return self
                .node_shapes
                .iter()
                .filter(|(shape, _)| fits(shape))
                .fold(0usize, |sum, (_, n)| sum.saturating_add(*n as usize));
        }
        self.partition_shapes
            .iter()
            .filter(|((p, exclusive, shape), _)| {
                crate::state::node::partition_serves(p, *exclusive, partition) && fits(shape)
            })
            .fold(0usize, |sum, (_, n)| sum.saturating_add(*n))
    }

    /// Changes whenever a node joins, leaves or changes partition while some node is
    /// labelled, or an application's keys change partition, so a policy can keep what it read
    /// of where keys may run until then.
    pub fn partitions_version(&self) -> u64 {
        self.partitions_version
    }

    /// An application's keys changed partition (`key_partitions`).
    pub(crate) fn key_partitions_changed(&mut self) {
        self.partitions_version += 1;
    }

    /// Whether some node's partition lends idle room to default-partition keys.
    pub fn lends(&self) -> bool {
        self.lending_nodes > 0
    }

    /// An app for bookkeeping that leaves its asks alone (no re-index of pending asks).
    pub(crate) fn app_counters_mut(&mut self, arrival: Arrival) -> Option<&mut App> {
        self.apps.get_mut(&arrival)
    }

    /// Removes a node and forgets the containers on it (the RM kills them; their releases may
    /// still arrive and are then ignored).
    pub fn remove_node(&mut self, id: &str) -> Option<(Node, Vec<Container>)> {
        let node = self.nodes.remove(id)?;
        if node.lends() {
            self.lending_nodes = self.lending_nodes.saturating_sub(1);
        }
        if !node.partition.is_empty() {
            self.labelled_nodes = self.labelled_nodes.saturating_sub(1);
        }
        if node.exclusive {
            self.exclusive_nodes = self.exclusive_nodes.saturating_sub(1);
        }
        if self.labelled_nodes > 0 || !node.partition.is_empty() {
            self.index_partitions();
        }
        // Its names stay interned (rows keep naming them), but no longer published by id.
        self.names.uncarry(node.host_id);
        self.names.uncarry(node.rack_id);
        self.nodes_version += 1;
        let now = self.clock_ms;
        self.profiles.node_removed(id, now);
        self.capacity = self.capacity.saturating_sub(&node.capability);
        shape_removed(&mut self.node_shapes, node.capability);
        let lost = self.containers.drain_where(|c| c.node == id);
        for c in &lost {
            self.account_finished(c, &node.partition, false);
        }
        Some((node, lost))
    }

    pub fn update_node_resource(
        &mut self,
        id: &str,
        capability: Resource,
    ) -> Result<(), CoreError> {
        let n = self
            .nodes
            .get_mut(id)
            .ok_or_else(|| CoreError::UnknownNode(id.to_string()))?;
        self.nodes_version += 1;
        self.capacity = plus(self.capacity.saturating_sub(&n.capability), &capability);
        shape_removed(&mut self.node_shapes, n.capability);
        shape_added(&mut self.node_shapes, capability);
        n.capability = capability;
        if n.last_heartbeat_ms.is_none() {
            n.unallocated = capability.saturating_sub(&n.allocated);
        }
        // Any node's size is in the partitions' index (its kinds), a default node's too.
        if self.labelled_nodes > 0 {
            self.index_partitions();
        }
        Ok(())
    }

    /// Records what a heartbeat says; the RM's figure wins over the core's own sum.
    pub fn node_heartbeat(
        &mut self,
        id: &str,
        unallocated: Resource,
        now_ms: u64,
    ) -> Result<&Node, CoreError> {
        let n = self
            .nodes
            .get_mut(id)
            .ok_or_else(|| CoreError::UnknownNode(id.to_string()))?;
        n.unallocated = unallocated;
        n.last_heartbeat_ms = Some(now_ms);
        self.clock_ms = self.clock_ms.max(now_ms);
        self.profiles.node_heartbeat(id, now_ms);
        Ok(n)
    }

    /// The node heartbeated: its next offer that walks the apps is a scheduling opportunity.
    pub fn grant_opportunity(&mut self, id: &str) {
        if let Some(n) = self.nodes.get_mut(id) {
            n.opportunity = true;
        }
    }

    /// Whether this offer of the node is a scheduling opportunity, taking it if so.
    pub fn take_opportunity(&mut self, id: &str) -> bool {
        self.nodes
            .get_mut(id)
            .is_some_and(|n| std::mem::take(&mut n.opportunity))
    }

    /// Re-resolves every node's datacenter after the mapping file changed.
    pub fn set_mapping(&mut self, mapping: DatacenterMapping) {
        self.mapping = mapping;
        for n in self.nodes.values_mut() {
            n.datacenter = locate(&n.host, &n.rack, &self.mapping).datacenter;
        }
    }

    // ---- applications --------------------------------------------------------------------

    /// Adds an application, or updates its descriptive fields when it is reported again
    /// (RM recovery replays APP_ADDED): its place in the FIFO order, asks and containers stay.
    /// Returns true for a new application.
    pub fn add_app(&mut self, spec: AppSpec) -> bool {
        let queue = if spec.queue.trim().is_empty() {
            "default".to_string()
        } else {
            spec.queue
        };
        if let Some(&arrival) = self.app_ids.get(&spec.id) {
            if let Some(app) = self.apps.get_mut(&arrival) {
                if app.queue != queue {
                    self.queues.app_moved(
                        &app.queue,
                        &queue,
                        &app.used,
                        &app.am_used,
                        app.running,
                        &app.used_by_partition,
                    );
                    app.queue = queue;
                    let released = self.parallel.moved(arrival, &app.queue);
                    self.asks_touched.extend(released);
                }
                app.user = spec.user;
                app.name = spec.name;
                app.is_mapreduce = is_mapreduce(&spec.app_type);
                app.app_type = spec.app_type;
                app.tags = spec.tags;
                self.profiles.app_added(app);
            }
            self.set_priority(arrival, spec.priority);
            return false;
        }
        let arrival = Arrival(self.next_arrival);
        self.next_arrival += 1;
        self.queues.app_joined(&queue);
        self.app_ids.insert(spec.id.clone(), arrival);
        self.apps.insert(
            arrival,
            App {
                id: spec.id,
                arrival,
                queue,
                user: spec.user,
                name: spec.name,
                is_mapreduce: is_mapreduce(&spec.app_type),
                app_type: spec.app_type,
                tags: spec.tags,
                submit_ms: spec.submit_ms,
                priority: spec.priority,
                attempt: None,
                asks: AppAsks::default(),
                asks_version: 0,
                used: Resource::ZERO,
                am_used: Resource::ZERO,
                used_by_partition: Default::default(),
                running: 0,
                blacklist: Default::default(),
                partitions: Default::default(),
                lend_misses: Default::default(),
            },
        );
        if let Some(app) = self.apps.get(&arrival) {
            self.submission.insert(app.fifo_key());
            self.profiles.app_added(app);
            self.parallel.admit(arrival, &app.queue, &app.user);
        }
        true
    }

    /// Gives an application a new YARN priority and moves it to its new place in the FIFO
    /// orders at once (not at the next `sync_pending`: an update between heartbeats must count
    /// at the very next one). Returns the old priority.
    pub fn set_app_priority(&mut self, id: &str, priority: i32) -> Result<i32, CoreError> {
        let arrival = *self
            .app_ids
            .get(id)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        Ok(self.set_priority(arrival, priority))
    }

    fn set_priority(&mut self, arrival: Arrival, priority: i32) -> i32 {
        let Some(app) = self.apps.get_mut(&arrival) else {
            return priority;
        };
        let old_key = app.fifo_key();
        let old = std::mem::replace(&mut app.priority, priority);
        let new_key = app.fifo_key();
        if self.submission.remove(&old_key) {
            self.submission.insert(new_key);
        }
        if let Some((key, _)) = self.pending_floor.get_mut(&arrival) {
            if let Some(floor) = self.pending_apps.remove(key) {
                self.pending_apps.insert(new_key, floor);
            }
            *key = new_key;
        }
        if let Some((group, key)) = self.awaiting_at.get_mut(&arrival) {
            if let Some(set) = self.awaiting.get_mut(group) {
                set.remove(key);
                set.insert(new_key);
            }
            *key = new_key;
        }
        old
    }

    /// Files an application under another queue (CapacityScheduler's moveApplication): what it
    /// holds (used, AM used, running containers) leaves the old queue and counts in the new one,
    /// and its outstanding asks are the new queue's from the next heartbeat (policies read an
    /// app's queue from the app). Returns the old queue.
    pub fn move_app(&mut self, id: &str, queue: &str) -> Result<String, CoreError> {
        let arrival = *self
            .app_ids
            .get(id)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        let app = self
            .apps
            .get_mut(&arrival)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        if app.queue == queue {
            return Ok(app.queue.clone());
        }
        self.queues.app_moved(
            &app.queue,
            queue,
            &app.used,
            &app.am_used,
            app.running,
            &app.used_by_partition,
        );
        let old = std::mem::replace(&mut app.queue, queue.to_string());
        let released = self.parallel.moved(arrival, queue);
        self.asks_touched.extend(released);
        // An app waiting for activation waits in its new queue, at its FIFO place there.
        self.asks_touched.push(arrival);
        self.sync_pending();
        Ok(old)
    }

    /// Removes an application with its asks and forgets its containers.
    pub fn remove_app(&mut self, id: &str) -> Option<App> {
        let arrival = self.app_ids.remove(id)?;
        let app = self.apps.remove(&arrival)?;
        self.submission.remove(&app.fifo_key());
        self.with_unknown.remove(&arrival);
        self.unlist(arrival);
        self.activated.remove(&arrival);
        self.reserving.remove(&arrival);
        let released = self.parallel.remove(arrival);
        self.asks_touched.extend(released);
        let gone = self.containers.drain_app(id);
        let now = self.clock_ms;
        for c in &gone {
            self.profiles.container_finished(&c.id, now);
        }
        self.profiles.app_removed(arrival, now);
        for c in &gone {
            let partition = self.node_partition(&c.node);
            self.account_finished_on_node(c);
            self.account_slot(c, false);
            self.queues
                .container_finished(&app.queue, &c.resource, c.is_am(), &partition);
        }
        self.queues.app_left(&app.queue);
        Some(app)
    }

    pub fn replace_asks(&mut self, id: &str, asks: Vec<Ask>) -> Result<&App, CoreError> {
        let rows: Vec<AskRef<'_>> = asks.iter().map(Ask::view).collect();
        self.replace_ask_rows(id, &rows)
    }

    /// [`replace_asks`](Self::replace_asks) of borrowed rows (a decoded asks frame's).
    pub fn replace_ask_rows(&mut self, id: &str, asks: &[AskRef<'_>]) -> Result<&App, CoreError> {
        let arrival = *self
            .app_ids
            .get(id)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        // Ids continue from the table replaced: one the shim learned from it must not come to
        // name another of this snapshot's waiting names.
        let before = self.apps.get(&arrival).map(|a| &a.asks);
        let table =
            AppAsks::from_snapshot_rows_after(id, asks, &self.names, self.ask_limits, before)?;
        self.asks_touched.push(arrival);
        self.asks_versions += 1;
        let app = self
            .apps
            .get_mut(&arrival)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        app.asks = table;
        app.asks_version = self.asks_versions;
        self.note_unknown(arrival);
        self.apps
            .get(&arrival)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))
    }

    /// Sets the rows an `asks_changed` names; on error the app's asks are untouched.
    pub fn change_asks(&mut self, id: &str, asks: Vec<Ask>) -> Result<ChangedRows, CoreError> {
        let rows: Vec<AskRef<'_>> = asks.iter().map(Ask::view).collect();
        self.change_ask_rows(id, &rows)
    }

    /// [`change_asks`](Self::change_asks) of borrowed rows (a decoded asks frame's).
    pub fn change_ask_rows(
        &mut self,
        id: &str,
        asks: &[AskRef<'_>],
    ) -> Result<ChangedRows, CoreError> {
        let arrival = *self
            .app_ids
            .get(id)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        let app = self
            .apps
            .get_mut(&arrival)
            .ok_or_else(|| CoreError::UnknownApp(id.to_string()))?;
        self.asks_touched.push(arrival);
        self.asks_versions += 1;
        app.asks_version = self.asks_versions;
        let changed = app
            .asks
            .apply_change_rows(id, asks, &self.names, self.ask_limits)?;
        self.note_unknown(arrival);
        Ok(changed)
    }

    // ---- containers ----------------------------------------------------------------------

    /// Records a container the RM created or recovered. Returns false when the container was
    /// already known (a replayed event), which changes nothing.
    pub fn container_allocated(
        &mut self,
        info: &ContainerInfo,
        recovered: bool,
    ) -> Result<bool, CoreError> {
        let arrival = *self
            .app_ids
            .get(&info.app)
            .ok_or_else(|| CoreError::UnknownApp(info.app.clone()))?;
        if !self.nodes.contains_key(&info.node) {
            return Err(CoreError::UnknownNode(info.node.clone()));
        }
        if self.containers.get(&info.container).is_some() {
            return Ok(false);
        }
        let app = self
            .apps
            .get_mut(&arrival)
            .ok_or_else(|| CoreError::UnknownApp(info.app.clone()))?;
        let c = Container {
            id: info.container.clone(),
            app: info.app.clone(),
            node: info.node.clone(),
            priority: info.priority,
            resource: info.resource,
            kind: app.kind_of(info.priority),
            recovered,
            started: self.containers_started,
        };
        self.containers_started += 1;
        let partition = self
            .nodes
            .get(&c.node)
            .map_or(String::new(), |n| n.partition.clone());
        app.used = plus(app.used, &c.resource);
        app.used_by_partition.add(&partition, &c.resource);
        if c.is_am() {
            app.am_used = plus(app.am_used, &c.resource);
        }
        app.running += 1;
        // An app whose AM (or any container) runs is activated, recovered ones included, and
        // runs whatever the running-application limits.
        let was_held = self.parallel.force_run(arrival);
        if self.activated.insert(arrival) || was_held {
            self.asks_touched.push(arrival);
        }
        self.queues
            .container_started(&app.queue, &c.resource, c.is_am(), &partition);
        if let Some(n) = self.nodes.get_mut(&c.node) {
            n.allocated = plus(n.allocated, &c.resource);
            n.running += 1;
        }
        self.account_slot(&c, true);
        if !recovered {
            // A recovered container's start is unknown: timing it from now would teach a wrong
            // task time.
            self.profiles
                .container_started(&c.id, arrival, c.kind, self.clock_ms);
        }
        self.containers.insert(c);
        Ok(true)
    }

    /// Gives a finished container's resource back; `None` when the container is unknown (its
    /// node or app was removed first).
    pub fn container_released(&mut self, id: &str) -> Option<Container> {
        let c = self.containers.remove(id)?;
        self.profiles.container_released(&c.id, &c.node);
        let partition = self.node_partition(&c.node);
        self.account_finished(&c, &partition, true);
        Some(c)
    }

    /// A node's partition (empty: the default one, or an unknown node).
    fn node_partition(&self, node: &str) -> String {
        self.nodes
            .get(node)
            .map_or(String::new(), |n| n.partition.clone())
    }

    fn account_finished(&mut self, c: &Container, partition: &str, on_node: bool) {
        let now = self.clock_ms;
        self.profiles.container_finished(&c.id, now);
        if on_node {
            self.account_finished_on_node(c);
        }
        self.account_slot(c, false);
        if let Some(app) = self.app_ids.get(&c.app).and_then(|a| self.apps.get_mut(a)) {
            app.used = app.used.saturating_sub(&c.resource);
            if c.is_am() {
                app.am_used = app.am_used.saturating_sub(&c.resource);
            }
            app.running = app.running.saturating_sub(1);
            app.used_by_partition.sub(partition, &c.resource);
            self.queues
                .container_finished(&app.queue, &c.resource, c.is_am(), partition);
        }
    }

    fn account_finished_on_node(&mut self, c: &Container) {
        if let Some(n) = self.nodes.get_mut(&c.node) {
            n.allocated = n.allocated.saturating_sub(&c.resource);
            n.running = n.running.saturating_sub(1);
        }
    }

    fn account_slot(&mut self, c: &Container, started: bool) {
        let pool = match c.kind.slot() {
            Some(SlotKind::Map) => &mut self.map_used,
            Some(SlotKind::Reduce) => &mut self.reduce_used,
            None if c.is_am() => &mut self.am_used,
            None => return,
        };
        *pool = if started {
            plus(*pool, &c.resource)
        } else {
            pool.saturating_sub(&c.resource)
        };
    }
}

/// A node capability as a map key.
type Shape = (u64, u32, [u64; crate::protocol::MAX_EXTRA_TYPES]);

fn shape_added(shapes: &mut BTreeMap<Shape, u32>, c: Resource) {
    *shapes.entry((c.memory_mb, c.vcores, c.extra)).or_default() += 1;
}

fn shape_removed(shapes: &mut BTreeMap<Shape, u32>, c: Resource) {
    let key = (c.memory_mb, c.vcores, c.extra);
    if let Some(n) = shapes.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            shapes.remove(&key);
        }
    }
}

/// A MapReduce app in queue `default`, for the tests of this crate's modules.
#[cfg(test)]
pub(crate) fn test_spec(id: &str, submit_ms: u64) -> AppSpec {
    AppSpec {
        id: id.into(),
        queue: "default".into(),
        user: "u".into(),
        name: "n".into(),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms,
        priority: 0,
    }
}

#[cfg(test)]
mod pending_walk_tests {
    use super::*;

    use crate::state::test_spec as spec;

    fn ask(count: u32) -> Ask {
        Ask {
            priority: 20,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability: Resource::new(1024, 1),
            count,
            relax_locality: true,
        }
    }

    /// The FIFO heartbeat's lazy walk must visit exactly the apps, in the order, that listing
    /// the pending index gave, through submissions, asks coming and going, priority changes
    /// and removals (random sequences, fixed seeds).
    #[test]
    fn cursor_walk_matches_the_listed_order() {
        for seed in 1..=20u64 {
            let mut rng = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut next = |n: u64| {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (rng >> 33) % n
            };
            let mut s = ClusterState::default();
            s.add_node("h1:1", "h1", "/r1", Resource::new(8192, 8));
            for step in 0..400u64 {
                let id = format!("a{}", next(60));
                match next(4) {
                    0 => {
                        s.add_app(spec(&id, next(50)));
                    }
                    1 => {
                        let mut a = ask(next(3) as u32);
                        a.capability = Resource::new(1024 * (1 + next(3)), 1 + next(2) as u32);
                        let _ = s.replace_asks(&id, vec![a]);
                    }
                    2 => {
                        let _ = s.set_app_priority(&id, next(5) as i32 - 2);
                    }
                    _ => {
                        if next(3) == 0 {
                            s.remove_app(&id);
                        }
                    }
                }
                s.sync_pending();
                let listed: Vec<Arrival> =
                    s.pending_apps_by_submission().map(|a| a.arrival).collect();
                let mut walked = Vec::new();
                let mut cursor = None;
                while let Some(k) = s.next_pending_by_submission(cursor) {
                    assert!(
                        s.app(k.arrival).is_some(),
                        "seed {seed} step {step}: unknown app listed"
                    );
                    walked.push(k.arrival);
                    cursor = Some(k);
                }
                assert_eq!(walked, listed, "seed {seed} step {step}");
                let room = Resource::new(1024 * next(4), next(3) as u32);
                let fitting: Vec<Arrival> = s
                    .pending_apps_by_submission()
                    .filter(|a| a.asks.might_fit(&room))
                    .map(|a| a.arrival)
                    .collect();
                let mut walked = Vec::new();
                let mut cursor = None;
                while let Some(k) = s.next_pending_fitting(cursor, &room) {
                    walked.push(k.arrival);
                    cursor = Some(k);
                }
                assert_eq!(walked, fitting, "seed {seed} step {step}: fitting {room:?}");
                assert_eq!(
                    s.any_pending_might_fit(&room),
                    !fitting.is_empty(),
                    "seed {seed} step {step}: {room:?}"
                );
            }
        }
    }
}
