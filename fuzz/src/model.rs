//! A model of the ResourceManager around the core: nodes with capacity and unallocated
//! resource, applications with their outstanding asks keyed by (priority,
//! allocation_request_id, resource_name), and containers. It executes each heartbeat's
//! decisions with the validation YARN (and java-shim's DecisionExecutor) applies, reports
//! `container_allocated` / `decision_rejected` / the new ask snapshot back, and releases
//! containers after a duration derived from their id. Invariants are checked after every step.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use locus_core::{
    Ask, ContainerInfo, Core, Decision, Event, Heartbeat, HeartbeatResponse, KeyPartition,
    Locality, Resource,
};

use locus_core::preemption::{IntraQueueOrder, IntraQueueSettings, PreemptionSettings};

use crate::action::{Action, IntraDraw};
use crate::combos::{self, Props};
use crate::failure::Failure;
use crate::rng::mix;

/// Outstanding asks of one application: (priority, allocation_request_id, resource_name).
pub type Key = (i32, i64);
type Rows = BTreeMap<(i32, i64, String), Ask>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotPool {
    Map,
    Reduce,
}

pub struct NodeM {
    pub rack: u32,
    pub capability: Resource,
    pub unallocated: Resource,
    /// Index into [`PARTITIONS`].
    pub label: u8,
}

/// The partitions a case may use: (name, exclusive). 0 is the default partition.
pub const PARTITIONS: [(&str, bool); 3] = [("", false), ("X", true), ("Y", false)];

/// Whether a key of partition `key` may run on a node of partition `node` (CapacityScheduler's
/// rule): its own partition, or a non-exclusive one lending to a default-partition key.
pub fn partition_serves(key: u8, node: u8) -> bool {
    let node = node.min(2) as usize;
    key as usize == node || (key == 0 && !PARTITIONS[node].0.is_empty() && !PARTITIONS[node].1)
}

pub struct AppM {
    pub queue: String,
    /// app_type MAPREDUCE: its priorities name map and reduce containers (the slot pools).
    pub mapreduce: bool,
    pub attempts: u32,
    pub live_attempt: bool,
    pub asks: Rows,
    /// The attempt's blacklist: hosts, and racks whose every host is on it.
    pub blacklist: (BTreeSet<u32>, BTreeSet<u32>),
    /// Keys asking for a partition other than the default one, as indices into [`PARTITIONS`].
    pub partitions: BTreeMap<Key, u8>,
}

impl AppM {
    fn blacklists(&self, host: u32, rack: u32) -> bool {
        self.blacklist.0.contains(&host) || self.blacklist.1.contains(&rack)
    }
}

pub struct ContM {
    pub id: String,
    pub app: u32,
    pub priority: i32,
    pub host: u32,
    pub resource: Resource,
    /// Heartbeat round after which it finishes.
    pub ends: u64,
}

pub fn node_id(host: u32) -> String {
    format!("h{host}:8041")
}
pub fn host_name(host: u32) -> String {
    format!("h{host}")
}
/// Racks numbered from [`TWO_LEVEL_RACKS`] are two-level locations (`/dcN/rR`, a datacenter
/// visible in the path, rust-core/src/topology.rs), the others one-level (`/rR`).
pub fn rack_name(rack: u32) -> String {
    if rack >= TWO_LEVEL_RACKS {
        format!("/dc{}/r{rack}", rack / 4)
    } else {
        format!("/r{rack}")
    }
}

/// The first rack number named as a two-level location by [`rack_name`].
pub const TWO_LEVEL_RACKS: u32 = 16;
pub fn app_id(app: u32) -> String {
    format!("application_1700000000000_{app:04}")
}

pub struct Model {
    pub core: Core,
    pub props: Props,
    pub nodes: BTreeMap<u32, NodeM>,
    pub apps: BTreeMap<u32, AppM>,
    pub containers: BTreeMap<u64, ContM>,
    next_container: u64,
    /// Heartbeats sent so far (the model's clock: 1 s each).
    pub round: u64,
    pub allocated: u64,
    /// Containers allocated per app since the drain phase began (liveness).
    pub allocations_of: BTreeMap<u32, u64>,
    /// The capacity queues' shares of partitions X and Y, when the case divides them (every
    /// reconfiguration to a capacity combination divides them alike).
    pub shares: Option<combos::PartitionShares>,
    /// An application was moved or the settings reloaded: running applications may then
    /// exceed a running-application limit (a move or a lowered limit stops nothing).
    parallel_unsteady: bool,
}

/// Runs a core call, turning a panic into a failure.
fn guarded<T>(step: usize, what: &str, f: impl FnOnce() -> T) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic".into());
        Failure::new("panic", step, format!("core panicked in {what}: {msg}"))
    })
}

fn mem(r: &Resource) -> u128 {
    r.memory_mb as u128
}

const TYPES: usize = 2 + locus_core::protocol::MAX_EXTRA_TYPES;

fn amounts(r: &Resource) -> [u128; TYPES] {
    let mut out = [0u128; TYPES];
    out[0] = r.memory_mb as u128;
    out[1] = r.vcores as u128;
    for (o, e) in out[2..].iter_mut().zip(&r.extra) {
        *o = *e as u128;
    }
    out
}

fn any_row(rows: &Rows, key: Key) -> Option<&Ask> {
    rows.get(&(key.0, key.1, "*".to_string()))
}

/// YARN's `canDelayTo`: a row that is absent or relaxes allows going below it.
fn can_delay_to(rows: &Rows, key: Key, name: &str) -> bool {
    rows.get(&(key.0, key.1, name.to_string()))
        .is_none_or(|a| a.relax_locality)
}

fn row_count(rows: &Rows, key: Key, name: &str) -> u32 {
    rows.get(&(key.0, key.1, name.to_string()))
        .map_or(0, |a| a.count)
}

impl Model {
    pub fn new(props: Props) -> Result<Model, Failure> {
        let core = guarded(0, "Core::new", || Core::new(&props))?
            .map_err(|e| Failure::new("refused_valid_config", 0, e.to_string()))?;
        Ok(Model {
            core,
            props,
            nodes: BTreeMap::new(),
            apps: BTreeMap::new(),
            containers: BTreeMap::new(),
            next_container: 1,
            round: 0,
            allocated: 0,
            allocations_of: BTreeMap::new(),
            shares: None,
            parallel_unsteady: false,
        })
    }

    fn send(&mut self, step: usize, event: Event) -> Result<(), Failure> {
        // Through the binary events frame, as the shim sends what the RM did: what the core
        // applies is what the frame carried, so a frame that loses a field fails here.
        let event = through_events_frame(step, event)?;
        let kind = event.kind();
        let shown = format!("{event:?}");
        match guarded(step, kind, || self.core.handle(event))? {
            Ok(()) => Ok(()),
            Err(e) => Err(Failure::new(
                "refused_valid_event",
                step,
                format!("{kind} refused: {e} (event {})", truncate(&shown, 300)),
            )),
        }
    }

    pub fn cluster_memory(&self) -> u128 {
        self.nodes.values().map(|n| mem(&n.capability)).sum()
    }

    /// Every type of the default partition (the nodes with no label): memory, vcores, then
    /// the extra types; the capacity queues' figures are of it, as CapacityScheduler's.
    fn default_amounts(&self) -> [u128; TYPES] {
        self.amounts_of(|n| n.label == 0)
    }

    fn amounts_of(&self, which: impl Fn(&NodeM) -> bool) -> [u128; TYPES] {
        let mut out = [0u128; TYPES];
        for n in self.nodes.values().filter(|n| which(n)) {
            for (o, a) in out.iter_mut().zip(amounts(&n.capability)) {
                *o += a;
            }
        }
        out
    }

    /// The case's divided partitions, when the combination in force divides them (the
    /// dominant-calculator combinations divide none).
    fn divided_shares(&self) -> Option<combos::PartitionShares> {
        self.shares
            .filter(|_| combos::is_capacity(&self.props) && !combos::is_dominant(&self.props))
    }

    /// Applies one action; an action about something absent is skipped.
    pub fn apply(&mut self, step: usize, action: &Action) -> Result<(), Failure> {
        match action {
            Action::AddNode {
                host,
                rack,
                memory_mb,
                vcores,
                gpus,
            } => {
                if self.nodes.contains_key(host) {
                    return Ok(());
                }
                let capability = Resource::with_extra(*memory_mb, *vcores, &[*gpus]);
                self.send(
                    step,
                    Event::NodeAdded {
                        node: node_id(*host),
                        host: host_name(*host),
                        rack: rack_name(*rack),
                        capability,
                    },
                )?;
                self.nodes.insert(
                    *host,
                    NodeM {
                        rack: *rack,
                        capability,
                        unallocated: capability,
                        label: 0,
                    },
                );
            }
            Action::RemoveNode { host } => {
                if !self.nodes.contains_key(host) {
                    return Ok(());
                }
                self.send(
                    step,
                    Event::NodeRemoved {
                        node: node_id(*host),
                    },
                )?;
                self.nodes.remove(host);
                self.containers.retain(|_, c| c.host != *host);
            }
            Action::ResizeNode {
                host,
                memory_mb,
                vcores,
                gpus,
            } => {
                if !self.nodes.contains_key(host) {
                    return Ok(());
                }
                let capability = Resource::with_extra(*memory_mb, *vcores, &[*gpus]);
                self.send(
                    step,
                    Event::NodeResourceUpdated {
                        node: node_id(*host),
                        capability,
                    },
                )?;
                self.nodes.get_mut(host).expect("checked above").capability = capability;
                self.refresh_unallocated(*host);
            }
            Action::AddApp {
                app,
                queue,
                app_type,
                tags,
            } => {
                if self.apps.contains_key(app) {
                    return Ok(());
                }
                self.send(
                    step,
                    Event::AppAdded {
                        app: app_id(*app),
                        queue: queue.clone(),
                        user: format!("user{}", app % 3),
                        name: format!("job{}", app % 5),
                        app_type: app_type.clone(),
                        tags: tags.clone(),
                        submit_ms: self.round * 1000,
                        priority: 0,
                        recovered: false,
                    },
                )?;
                self.apps.insert(
                    *app,
                    AppM {
                        queue: queue.clone(),
                        mapreduce: app_type.eq_ignore_ascii_case("MAPREDUCE"),
                        attempts: 0,
                        live_attempt: false,
                        asks: Rows::new(),
                        blacklist: Default::default(),
                        partitions: BTreeMap::new(),
                    },
                );
            }
            Action::RemoveApp { app } => {
                if !self.apps.contains_key(app) {
                    return Ok(());
                }
                self.send(step, Event::AppRemoved { app: app_id(*app) })?;
                self.apps.remove(app);
                self.release_where(|c| c.app == *app);
            }
            Action::AddAttempt { app } => {
                let Some(a) = self.apps.get_mut(app) else {
                    return Ok(());
                };
                if a.live_attempt {
                    return Ok(());
                }
                a.attempts += 1;
                a.live_attempt = true;
                let attempt = format!("appattempt_1700000000000_{app:04}_{:06}", a.attempts);
                self.send(
                    step,
                    Event::AttemptAdded {
                        app: app_id(*app),
                        attempt,
                    },
                )?;
            }
            Action::RemoveAttempt { app } => {
                let Some(a) = self.apps.get(app) else {
                    return Ok(());
                };
                if !a.live_attempt {
                    return Ok(());
                }
                let attempt = format!("appattempt_1700000000000_{app:04}_{:06}", a.attempts);
                // The RM kills the attempt's containers and the shim reports each.
                let ids: Vec<u64> = self
                    .containers
                    .iter()
                    .filter(|(_, c)| c.app == *app)
                    .map(|(k, _)| *k)
                    .collect();
                for k in ids {
                    self.release(step, k)?;
                }
                self.send(
                    step,
                    Event::AttemptRemoved {
                        app: app_id(*app),
                        attempt,
                    },
                )?;
                let a = self.apps.get_mut(app).expect("checked above");
                a.live_attempt = false;
                a.asks.clear();
                // A new attempt starts with an empty blacklist, as the RM's does.
                a.blacklist = Default::default();
            }
            Action::Snapshot { app, asks } => {
                let Some(a) = self.apps.get(app) else {
                    return Ok(());
                };
                if !a.live_attempt {
                    return Ok(());
                }
                self.send(
                    step,
                    Event::AsksUpdated {
                        app: app_id(*app),
                        asks: asks.clone(),
                    },
                )?;
                let a = self.apps.get_mut(app).expect("checked above");
                a.asks.clear();
                for r in asks.iter().filter(|r| r.count > 0) {
                    a.asks.insert(
                        (r.priority, r.allocation_request_id, r.resource_name.clone()),
                        r.clone(),
                    );
                }
            }
            Action::Change { app, asks } => {
                let Some(a) = self.apps.get(app) else {
                    return Ok(());
                };
                if !a.live_attempt {
                    return Ok(());
                }
                self.send(
                    step,
                    Event::AsksChanged {
                        app: app_id(*app),
                        asks: asks.clone(),
                    },
                )?;
                let a = self.apps.get_mut(app).expect("checked above");
                for r in asks {
                    let k = (r.priority, r.allocation_request_id, r.resource_name.clone());
                    if r.count == 0 {
                        a.asks.remove(&k);
                    } else {
                        a.asks.insert(k, r.clone());
                    }
                }
            }
            Action::SetPriority { app, priority } => {
                if !self.apps.contains_key(app) {
                    return Ok(());
                }
                self.send(
                    step,
                    Event::AppPriorityChanged {
                        app: app_id(*app),
                        priority: *priority,
                    },
                )?;
            }
            Action::Move { app, queue } => {
                let Some(a) = self.apps.get(app) else {
                    return Ok(());
                };
                if a.queue == *queue {
                    return Ok(());
                }
                self.parallel_unsteady = true;
                let event = through_events_frame(
                    step,
                    Event::AppMoved {
                        app: app_id(*app),
                        queue: queue.clone(),
                    },
                )?;
                match guarded(step, "app_moved", || self.core.handle(event))? {
                    Ok(()) => {
                        self.apps.get_mut(app).expect("checked above").queue = queue.clone();
                    }
                    // Only a queue's application limit may refuse a move to a configured queue.
                    Err(locus_core::CoreError::QueueRefused(_)) => {}
                    Err(e) => {
                        return Err(Failure::new(
                            "refused_valid_event",
                            step,
                            format!("app_moved of {} to {queue} refused: {e}", app_id(*app)),
                        ))
                    }
                }
            }
            Action::Blacklist { app, hosts, racks } => {
                let Some(a) = self.apps.get(app) else {
                    return Ok(());
                };
                if !a.live_attempt {
                    return Ok(());
                }
                let places = hosts
                    .iter()
                    .map(|h| host_name(*h))
                    .chain(racks.iter().map(|r| rack_name(*r)))
                    .collect();
                self.send(
                    step,
                    Event::AppBlacklist {
                        app: app_id(*app),
                        places,
                    },
                )?;
                let a = self.apps.get_mut(app).expect("checked above");
                a.blacklist = (
                    hosts.iter().copied().collect(),
                    racks.iter().copied().collect(),
                );
            }
            Action::Label { host, label } => {
                if !self.nodes.contains_key(host) {
                    return Ok(());
                }
                let (partition, exclusive) = PARTITIONS[(*label).min(2) as usize];
                self.send(
                    step,
                    Event::NodePartition {
                        node: node_id(*host),
                        partition: partition.into(),
                        exclusive,
                    },
                )?;
                self.nodes.get_mut(host).expect("checked above").label = (*label).min(2);
            }
            Action::KeyPartition {
                app,
                priority,
                label,
            } => {
                let Some(a) = self.apps.get_mut(app) else {
                    return Ok(());
                };
                if *label == 0 {
                    a.partitions.remove(&(*priority, 0));
                } else {
                    a.partitions.insert((*priority, 0), (*label).min(2));
                }
                let keys = a
                    .partitions
                    .iter()
                    .map(|(k, l)| KeyPartition {
                        priority: k.0,
                        allocation_request_id: k.1,
                        partition: PARTITIONS[*l as usize].0.into(),
                    })
                    .collect();
                self.send(
                    step,
                    Event::KeyPartitions {
                        app: app_id(*app),
                        keys,
                    },
                )?;
            }
            Action::Heartbeat { host } => {
                if self.nodes.contains_key(host) {
                    self.heartbeat(step, *host)?;
                }
            }
            Action::Sweep { host } => {
                if self.nodes.contains_key(host) {
                    self.offer(step, *host, true)?;
                }
            }
            Action::Offers { hosts } => self.offers(step, hosts)?,
            Action::PreemptionRound {
                total_percent,
                factor_percent,
                wait_rounds,
                intra,
            } => self.preemption_round(
                step,
                *total_percent,
                *factor_percent,
                *wait_rounds,
                intra.as_ref(),
            )?,
            Action::Reconfigure { combo } => {
                let all = combos::valid();
                let mut props = all[combo % all.len()].clone();
                if let Some(s) = &self.shares {
                    props = combos::with_partition_shares(props, s);
                }
                self.parallel_unsteady = true;
                let r = guarded(step, "reconfigure", || self.core.reconfigure(&props))?;
                r.map_err(|e| {
                    Failure::new(
                        "refused_valid_config",
                        step,
                        format!("reconfigure to {} refused: {e}", combos::describe(&props)),
                    )
                })?;
                self.props = props;
            }
        }
        self.check_counters(step)
    }

    fn release_where(&mut self, f: impl Fn(&ContM) -> bool) {
        let gone: Vec<u64> = self
            .containers
            .iter()
            .filter(|(_, c)| f(c))
            .map(|(k, _)| *k)
            .collect();
        for k in gone {
            let c = self.containers.remove(&k).expect("listed");
            self.refresh_unallocated(c.host);
        }
    }

    /// A node's unallocated resource is its capability less its containers (none below zero),
    /// as the RM's SchedulerNode keeps it. Derived rather than adjusted: a node shrunk below
    /// what runs on it would otherwise lose the difference for good when those containers end,
    /// and report less room than it has while idle.
    fn refresh_unallocated(&mut self, host: u32) {
        let Some(n) = self.nodes.get(&host) else {
            return;
        };
        let used = self
            .containers
            .values()
            .filter(|c| c.host == host)
            .fold(Resource::ZERO, |u, c| u.add(&c.resource));
        let unallocated = n.capability.saturating_sub(&used);
        self.nodes.get_mut(&host).expect("checked").unallocated = unallocated;
    }

    /// One preemption round. Each container is chosen at most once and is one the RM runs;
    /// marks and kills are among the chosen and never both; the round takes no more than
    /// `total_preemption_per_round` of the cluster; under `capacity` no queue is left below
    /// its guarantee by what is taken between queues (under the dominant calculator: no type
    /// past its part of the cluster, the guarantee compared by dominant share, and nothing
    /// taken within a queue, which the shim refuses there), and what is taken within a queue is no AM
    /// container, within `max-allowable-limit` of its guarantee (one container over at most)
    /// and, under `userlimit_first`, leaves no user at or below its user limit; under
    /// size-based preemption no AM container is taken, and under the other policies nothing
    /// is taken. Kills are carried out.
    pub fn preemption_round(
        &mut self,
        step: usize,
        total_percent: u32,
        factor_percent: u32,
        wait_rounds: u32,
        intra: Option<&IntraDraw>,
    ) -> Result<(), Failure> {
        let mut s = PreemptionSettings {
            monitoring_interval_ms: 1000,
            max_wait_before_kill_ms: wait_rounds as u64 * 1000,
            total_preemption_per_round: total_percent.max(1) as f64 / 100.0,
            natural_termination_factor: factor_percent.max(1) as f64 / 100.0,
            ..PreemptionSettings::default()
        };
        // The shim refuses intra-queue preemption under the dominant calculator at start.
        let intra = intra.filter(|_| !combos::is_dominant(&self.props));
        if let Some(d) = intra {
            s.intra_queue = IntraQueueSettings {
                enabled: true,
                minimum_threshold: d.threshold_percent as f64 / 100.0,
                max_allowable_limit: d.allowable_percent as f64 / 100.0,
                order: if d.priority_first {
                    IntraQueueOrder::PriorityFirst
                } else {
                    IntraQueueOrder::UserlimitFirst
                },
                ..IntraQueueSettings::default()
            };
        }
        let now = self.round * 1000;
        let r = guarded(step, "preemption_round", || {
            self.core.preemption_round(now, &s)
        })?;
        let fail = |what: &str, msg: String| Err(Failure::new(what, step, msg));
        let by_id: BTreeMap<&str, (u64, &ContM)> = self
            .containers
            .iter()
            .map(|(k, c)| (c.id.as_str(), (*k, c)))
            .collect();
        let mut chosen = BTreeSet::new();
        for id in &r.selected {
            if !chosen.insert(id.as_str()) {
                return fail("preempted_twice", format!("{id} chosen twice in one round"));
            }
            if !by_id.contains_key(id.as_str()) {
                return fail("preempted_unknown", format!("{id} chosen but not running"));
            }
        }
        for id in r.mark.iter().chain(r.kill.iter()) {
            if !chosen.contains(id.as_str()) {
                return fail(
                    "preempted_unchosen",
                    format!("{id} marked or killed unchosen"),
                );
            }
        }
        if let Some(id) = r.mark.iter().find(|id| r.kill.contains(id)) {
            return fail("preempted_twice", format!("{id} both marked and killed"));
        }
        let mut within = BTreeSet::new();
        for id in &r.intra_queue {
            if !chosen.contains(id.as_str()) || !within.insert(id.as_str()) {
                return fail(
                    "preempted_twice",
                    format!("{id} chosen within a queue but not once among the chosen"),
                );
            }
        }
        if !r.intra_queue.is_empty() && !s.intra_queue.enabled {
            return fail(
                "preempted_within_queue_unasked",
                format!(
                    "{:?} chosen within queues, which the round did not enable",
                    r.intra_queue
                ),
            );
        }
        self.check_within_queues(step, &r.intra_queue, &s)?;
        let cluster = self.cluster_memory();
        let taken_total: u128 = r
            .selected
            .iter()
            .map(|id| mem(&by_id[id.as_str()].1.resource))
            .sum();
        if taken_total > (cluster as f64 * s.total_preemption_per_round).floor() as u128 {
            return fail(
                "preempted_over_round_budget",
                format!("{taken_total} MB taken of {cluster} MB at {total_percent}%"),
            );
        }
        if combos::is_size_based(&self.props) {
            // Size-based rounds: never an AM container (as the core's state knows them, the
            // same record the shim's diagnostics read).
            let state = self.core.state();
            if let Some(id) = r
                .selected
                .iter()
                .find(|id| state.containers().iter().any(|c| &c.id == *id && c.is_am()))
            {
                return fail("preempted_am", format!("{id}, an AM container, chosen"));
            }
        } else if !combos::is_capacity(&self.props) {
            if !r.selected.is_empty() {
                return fail(
                    "preempted_without_queues",
                    format!("{} chosen outside capacity", r.selected.len()),
                );
            }
        } else if combos::is_dominant(&self.props) {
            self.check_dominant_round(step, &r.selected, &within, s.total_preemption_per_round)?;
        } else {
            // The round weighs the default partition: its nodes' memory and containers.
            let unlabelled = |c: &ContM| self.nodes.get(&c.host).is_some_and(|n| n.label == 0);
            if let Some(id) = r
                .selected
                .iter()
                .find(|id| !unlabelled(by_id[id.as_str()].1))
            {
                return fail(
                    "preempted_outside_default_partition",
                    format!("{id}, on a labelled node, chosen"),
                );
            }
            let cluster = self.partition_memory(0);
            for (q, cap) in combos::QUEUE_GUARANTEES {
                let in_q = |c: &ContM| self.apps.get(&c.app).is_some_and(|a| a.queue == q);
                let used: u128 = self
                    .containers
                    .values()
                    .filter(|c| in_q(c) && unlabelled(c))
                    .map(|c| mem(&c.resource))
                    .sum();
                // Only what goes to another queue: room taken within one stays in it.
                let taken: u128 = r
                    .selected
                    .iter()
                    .filter(|id| !within.contains(id.as_str()))
                    .map(|id| by_id[id.as_str()].1)
                    .filter(|c| in_q(c))
                    .map(|c| mem(&c.resource))
                    .sum();
                let guarantee = (cluster as f64 * cap as f64 / 100.0).floor() as u128;
                if taken > 0 && used - taken < guarantee {
                    return fail(
                        "preempted_below_guarantee",
                        format!(
                            "queue {q} uses {used} MB, {taken} MB taken, guarantee {guarantee} MB"
                        ),
                    );
                }
            }
        }
        let kills: Vec<u64> = r.kill.iter().map(|id| by_id[id.as_str()].0).collect();
        for k in kills {
            self.release(step, k)?;
        }
        Ok(())
    }

    /// A round between queues under the dominant calculator (`chosen`, all running; `within`
    /// those taken within a queue): no type past `total` of the cluster's, and no queue left
    /// below its guarantee by CapacityScheduler's comparison under that calculator (shares of
    /// each type sorted, largest first).
    fn check_dominant_round(
        &self,
        step: usize,
        chosen: &[String],
        within: &BTreeSet<&str>,
        total: f64,
    ) -> Result<(), Failure> {
        use locus_core::policy::dominant;
        // The default partition, as the round weighs it: its nodes and their containers.
        let cluster = self
            .nodes
            .values()
            .filter(|n| n.label == 0)
            .fold(Resource::ZERO, |sum, n| sum.add(&n.capability));
        let unlabelled = |c: &ContM| self.nodes.get(&c.host).is_some_and(|n| n.label == 0);
        let by_id: BTreeMap<&str, &ContM> = self
            .containers
            .values()
            .map(|c| (c.id.as_str(), c))
            .collect();
        if let Some(id) = chosen
            .iter()
            .find(|id| by_id.get(id.as_str()).is_some_and(|c| !unlabelled(c)))
        {
            return Err(Failure::new(
                "preempted_outside_default_partition",
                step,
                format!("{id}, on a labelled node, chosen"),
            ));
        }
        let taken_all = chosen
            .iter()
            .filter_map(|id| by_id.get(id.as_str()))
            .fold(Resource::ZERO, |sum, c| sum.add(&c.resource));
        let budget = dominant::map(&cluster, |v| (v as f64 * total).floor() as u64);
        if !budget.fits(&taken_all) {
            return Err(Failure::new(
                "preempted_over_round_budget",
                step,
                format!("{taken_all:?} taken of {cluster:?} at {total}, past it in some type"),
            ));
        }
        for (q, cap) in combos::QUEUE_GUARANTEES {
            let in_q = |c: &ContM| self.apps.get(&c.app).is_some_and(|a| a.queue == q);
            let used = self
                .containers
                .values()
                .filter(|c| in_q(c) && unlabelled(c))
                .fold(Resource::ZERO, |sum, c| sum.add(&c.resource));
            let taken = chosen
                .iter()
                .filter(|id| !within.contains(id.as_str()))
                .filter_map(|id| by_id.get(id.as_str()))
                .filter(|c| in_q(c))
                .fold(Resource::ZERO, |sum, c| sum.add(&c.resource));
            let guarantee =
                dominant::map(&cluster, |v| (v as f64 * cap as f64 / 100.0).floor() as u64);
            let left = used.saturating_sub(&taken);
            if taken != Resource::ZERO && dominant::compare(&cluster, &left, &guarantee).is_lt() {
                return Err(Failure::new(
                    "preempted_below_guarantee",
                    step,
                    format!(
                        "queue {q} holds {used:?}, {taken:?} taken, guarantee {guarantee:?} by dominant share"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// What intra-queue preemption took (`ids`, all running): no AM container; per queue
    /// within `max-allowable-limit` of its guarantee but for the last container; under
    /// `userlimit_first` no user left at or below its user limit (CapacityScheduler's, for all
    /// the queue's users; the capacity combinations set no per-user bound, so none is).
    fn check_within_queues(
        &self,
        step: usize,
        ids: &[String],
        s: &PreemptionSettings,
    ) -> Result<(), Failure> {
        if ids.is_empty() {
            return Ok(());
        }
        let fail = |what: &str, msg: String| Err(Failure::new(what, step, msg));
        let state = self.core.state();
        let of = |id: &str| self.containers.values().find(|c| c.id == id);
        if let Some(id) = ids
            .iter()
            .find(|id| state.containers().iter().any(|c| &c.id == *id && c.is_am()))
        {
            return fail(
                "preempted_am",
                format!("{id}, an AM container, chosen within its queue"),
            );
        }
        // The queues' figures are of the default partition, as the round weighs them.
        let cluster = self.partition_memory(0) as u64;
        let user = |app: u32| format!("user{}", app % 3);
        for (q, cap) in combos::QUEUE_GUARANTEES {
            let in_q = |c: &&ContM| self.apps.get(&c.app).is_some_and(|a| a.queue == q);
            let taken: Vec<&ContM> = ids
                .iter()
                .filter_map(|id| of(id.as_str()))
                .filter(in_q)
                .collect();
            if taken.is_empty() {
                continue;
            }
            let guarantee = (cluster as f64 * cap as f64 / 100.0).floor() as u64;
            let allowable = (guarantee as f64 * s.intra_queue.max_allowable_limit) as u128;
            let sum: u128 = taken.iter().map(|c| mem(&c.resource)).sum();
            let largest = taken.iter().map(|c| mem(&c.resource)).max().unwrap_or(0);
            if sum > 0 && sum - largest >= allowable.max(1) {
                return fail(
                    "preempted_over_intra_queue_limit",
                    format!("{sum} MB taken within queue {q}, limit {allowable} MB"),
                );
            }
            if s.intra_queue.order != IntraQueueOrder::UserlimitFirst {
                continue;
            }
            let held: Vec<&ContM> = self
                .containers
                .values()
                .filter(in_q)
                .filter(|c| self.nodes.get(&c.host).is_some_and(|n| n.label == 0))
                .collect();
            let users: BTreeSet<String> = self
                .apps
                .iter()
                .filter(|(_, a)| a.queue == q)
                .map(|(&app, _)| user(app))
                .collect();
            let used_q: u64 = held.iter().map(|c| c.resource.memory_mb).sum();
            let (_, max) = combos::QUEUE_MAXIMA
                .iter()
                .copied()
                .find(|(n, _)| *n == q)
                .expect("every queue has a maximum");
            let limit = locus_core::preemption::intra_queue::user_limit_mb(
                guarantee,
                (cluster as f64 * max as f64 / 100.0).floor() as u64,
                used_q,
                users.len(),
                None,
                s.intra_queue.minimum_allocation_mb,
            );
            for u in users {
                let used: u64 = held
                    .iter()
                    .filter(|c| user(c.app) == u)
                    .map(|c| c.resource.memory_mb)
                    .sum();
                let lost: u64 = taken
                    .iter()
                    .filter(|c| user(c.app) == u)
                    .map(|c| c.resource.memory_mb)
                    .sum();
                if lost > 0 && used - lost <= limit {
                    return fail(
                        "preempted_below_user_limit",
                        format!(
                            "{u} in queue {q} holds {used} MB, {lost} MB taken within the \
                             queue, user limit {limit} MB"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// Whether a node runs no container of any application.
    pub fn idle(&self, host: u32) -> bool {
        !self.containers.values().any(|c| c.host == host)
    }

    fn release(&mut self, step: usize, k: u64) -> Result<(), Failure> {
        let Some(c) = self.containers.remove(&k) else {
            return Ok(());
        };
        self.refresh_unallocated(c.host);
        self.send(
            step,
            Event::ContainerReleased {
                app: app_id(c.app),
                container: c.id,
                node: node_id(c.host),
                resource: c.resource,
            },
        )
    }

    /// One node heartbeat: finished containers released, decisions checked, then executed.
    pub fn heartbeat(&mut self, step: usize, host: u32) -> Result<(), Failure> {
        self.round += 1;
        let due: Vec<u64> = self
            .containers
            .iter()
            .filter(|(_, c)| c.host == host && c.ends <= self.round)
            .map(|(k, _)| *k)
            .collect();
        for k in due {
            self.release(step, k)?;
        }
        self.offer(step, host, false)
    }

    /// The core decides `host` on its unallocated room (a heartbeat, or an async sweep's offer
    /// within the same round), the decisions are checked, then executed.
    fn offer(&mut self, step: usize, host: u32, sweep: bool) -> Result<(), Failure> {
        let unallocated = self.nodes[&host].unallocated;
        let hb = Heartbeat {
            node: node_id(host),
            unallocated,
            now_ms: self.round * 1000 + if sweep { 5 } else { 0 },
            sweep,
            // Every other sweep is heartbeat mode's eager offer: the same checks hold for it.
            eager: sweep && step % 2 == 1,
        };
        let resp = match guarded(step, "heartbeat", || self.core.heartbeat(&hb))? {
            Ok(r) => r,
            Err(e) => {
                return Err(Failure::new(
                    "refused_valid_event",
                    step,
                    format!("heartbeat refused: {e}"),
                ))
            }
        };
        let resp = through_decisions_frame(step, &hb, resp)?;
        self.check_decisions(step, host, unallocated, &resp)?;
        let before = [SlotPool::Map, SlotPool::Reduce].map(|p| self.slot_used(p));
        let placed = [SlotPool::Map, SlotPool::Reduce].map(|p| {
            resp.decisions
                .iter()
                .filter(|d| self.slot_of(&d.app, d.priority) == Some(p))
                .map(|d| d.count)
                .sum::<u32>()
        });
        let labelled = self.labelled_allocations(&resp);
        let borrowed = self.borrowed(&resp);
        let queues = self.execute(step, host, resp)?;
        let queues = self.given_unlabelled(host, queues);
        self.check_slot_caps(step, before, placed)?;
        self.check_queue_maxima(step, &queues)?;
        self.check_partition_maxima(step, &labelled, &borrowed)
    }

    /// The queues whose default-partition maximum an allocation on `host` is judged by: all
    /// given one when `host` has no label. On a labelled node a partition's keys are held to
    /// the queue's maximum there ([`Self::check_partition_maxima`]), and a default-partition
    /// key borrowing the room to none (CapacityScheduler holds it to the whole partition).
    fn given_unlabelled(&self, host: u32, queues: Vec<String>) -> Vec<String> {
        if self.nodes.get(&host).is_some_and(|n| n.label == 0) {
            queues
        } else {
            Vec::new()
        }
    }

    /// The (queue, partition label, MB) of each decision of a response on a labelled node:
    /// MB is what a default-partition key borrowed there (0 for the partition's own keys).
    fn borrowed(&self, resp: &HeartbeatResponse) -> Vec<(String, u8, u128)> {
        let mut out = Vec::new();
        for d in &resp.decisions {
            let Some((_, a)) = self.apps.iter().find(|(i, _)| app_id(**i) == d.app) else {
                continue;
            };
            let key = (d.priority, d.allocation_request_id);
            let node = self.nodes.iter().find(|(h, _)| node_id(**h) == d.node);
            let Some((_, n)) = node else { continue };
            if n.label != 0 && a.partitions.get(&key).copied().unwrap_or(0) == 0 {
                out.push((
                    a.queue.clone(),
                    n.label,
                    mem(&d.capability) * d.count as u128,
                ));
            }
        }
        out
    }

    /// The (queue, partition label) pairs a response places keys of a labelled partition for.
    fn labelled_allocations(&self, resp: &HeartbeatResponse) -> Vec<(String, u8)> {
        let mut out = Vec::new();
        for d in &resp.decisions {
            let Some((_, a)) = self.apps.iter().find(|(i, _)| app_id(**i) == d.app) else {
                continue;
            };
            let label = a
                .partitions
                .get(&(d.priority, d.allocation_request_id))
                .copied()
                .unwrap_or(0);
            if label != 0 {
                out.push((a.queue.clone(), label));
            }
        }
        out
    }

    /// Memory of the partition of label `label`'s nodes.
    fn partition_memory(&self, label: u8) -> u128 {
        self.nodes
            .values()
            .filter(|n| n.label == label)
            .map(|n| mem(&n.capability))
            .sum()
    }

    /// Under capacity with divided partitions, a queue given a container for a key of a
    /// labelled partition holds no more on that partition's nodes than its maximum there
    /// (containers a default-partition key borrowed count too, as CapacityScheduler charges a
    /// node's partition; only allocations are judged). Room borrowed in the same response
    /// (`borrowed`) is left out: a node places its partition's keys first, then lends what is
    /// left, which CapacityScheduler holds to the whole partition, not to the queue's maximum.
    fn check_partition_maxima(
        &self,
        step: usize,
        labelled: &[(String, u8)],
        borrowed: &[(String, u8, u128)],
    ) -> Result<(), Failure> {
        let Some(shares) = self.divided_shares() else {
            return Ok(());
        };
        for (q, label) in labelled {
            let Some(max) = shares.maximum(q, *label) else {
                continue;
            };
            let size = self.partition_memory(*label);
            let used: u128 = self
                .containers
                .values()
                .filter(|c| self.apps.get(&c.app).is_some_and(|a| &a.queue == q))
                .filter(|c| self.nodes.get(&c.host).is_some_and(|n| n.label == *label))
                .map(|c| mem(&c.resource))
                .sum();
            let lent: u128 = borrowed
                .iter()
                .filter(|(bq, bl, _)| bq == q && bl == label)
                .map(|(_, _, mb)| mb)
                .sum();
            let used = used.saturating_sub(lent);
            if used * 100 > max as u128 * size {
                return Err(Failure::new(
                    "partition_maximum_exceeded",
                    step,
                    format!(
                        "queue {q} holds {used} MB of partition {:?}'s {size} MB, maximum {max}%",
                        PARTITIONS[*label as usize].0
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The slot pool a container of `app` at `priority` counts against (MapReduce's map
    /// priorities 5, 19, 20 and reduce priority 10), as the core classifies it.
    fn slot_of(&self, app: &str, priority: i32) -> Option<SlotPool> {
        let (_, a) = self.apps.iter().find(|(i, _)| app_id(**i) == app)?;
        if !a.mapreduce {
            return None;
        }
        match priority {
            5 | 19 | 20 => Some(SlotPool::Map),
            10 => Some(SlotPool::Reduce),
            _ => None,
        }
    }

    fn slot_used(&self, pool: SlotPool) -> Resource {
        self.containers
            .values()
            .filter(|c| self.slot_of(&app_id(c.app), c.priority) == Some(pool))
            .fold(Resource::ZERO, |u, c| u.add(&c.resource))
    }

    /// Under `static` with `locus.slots.map-share` = s, map containers hold at most s of the
    /// cluster's memory and vcores and reduces at most 1 - s (rounded down), except that a
    /// pool holding nothing may start one container (docs/design/liveness.md item 5). Judged on a
    /// heartbeat that placed containers in the pool, over all of its placements together.
    fn check_slot_caps(
        &self,
        step: usize,
        before: [Resource; 2],
        placed: [u32; 2],
    ) -> Result<(), Failure> {
        let Some(share) = combos::map_share(&self.props) else {
            return Ok(());
        };
        let capacity = self
            .nodes
            .values()
            .fold(Resource::ZERO, |t, n| t.add(&n.capability));
        for (i, pool) in [SlotPool::Map, SlotPool::Reduce].into_iter().enumerate() {
            if placed[i] == 0 || (before[i] == Resource::ZERO && placed[i] == 1) {
                continue;
            }
            let s = if pool == SlotPool::Map {
                share
            } else {
                1.0 - share
            };
            let mut cap = Resource::new(
                (capacity.memory_mb as f64 * s).floor() as u64,
                (capacity.vcores as f64 * s).floor() as u32,
            );
            // The pools split memory and vcores; the other types are not pooled.
            cap.extra = [u64::MAX; locus_core::protocol::MAX_EXTRA_TYPES];
            let used = self.slot_used(pool);
            if !cap.fits(&used) {
                return Err(Failure::new(
                    "slot_cap_exceeded",
                    step,
                    format!(
                        "{pool:?} pool holds {used:?} against a cap of {cap:?} after one heartbeat or batch of offers placed {} of its containers (it held {:?} before)",
                        placed[i], before[i]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The heartbeats of `hosts` (those the model has, each once) in one `Core::offers` batch:
    /// each node's finished containers are released at its heartbeat, and the batch's
    /// decisions are executed only once the core has decided them all. Each node's decisions
    /// are checked against the model as the nodes before it in the batch left it (the core
    /// took its asks after theirs), then executed; the slot pools and, under `capacity`, the
    /// queues' maxima over the whole batch.
    fn offers(&mut self, step: usize, hosts: &[u32]) -> Result<(), Failure> {
        let mut batch: Vec<(u32, Heartbeat)> = Vec::new();
        for &host in hosts {
            if !self.nodes.contains_key(&host) || batch.iter().any(|(h, _)| *h == host) {
                continue;
            }
            self.round += 1;
            let due: Vec<u64> = self
                .containers
                .iter()
                .filter(|(_, c)| c.host == host && c.ends <= self.round)
                .map(|(k, _)| *k)
                .collect();
            for k in due {
                self.release(step, k)?;
            }
            let hb = Heartbeat {
                node: node_id(host),
                unallocated: self.nodes[&host].unallocated,
                now_ms: self.round * 1000,
                sweep: false,
                eager: false,
            };
            batch.push((host, hb));
        }
        let offered: Vec<Heartbeat> = batch.iter().map(|(_, hb)| hb.clone()).collect();
        let out = guarded(step, "offers", || self.core.offers(&offered))?;
        if let Some(r) = out.refused.first() {
            return Err(Failure::new(
                "refused_valid_event",
                step,
                format!("offer of {} refused: {}", r.node, r.reason),
            ));
        }
        let before = [SlotPool::Map, SlotPool::Reduce].map(|p| self.slot_used(p));
        let mut placed = [0u32; 2];
        let mut queues = Vec::new();
        let mut labelled = Vec::new();
        let mut borrowed = Vec::new();
        for (host, hb) in &batch {
            let resp = HeartbeatResponse {
                decisions: out
                    .decisions
                    .iter()
                    .filter(|d| d.node == hb.node)
                    .cloned()
                    .collect(),
            };
            let resp = through_decisions_frame(step, hb, resp)?;
            self.check_decisions(step, *host, hb.unallocated, &resp)?;
            for d in &resp.decisions {
                match self.slot_of(&d.app, d.priority) {
                    Some(SlotPool::Map) => placed[0] += d.count,
                    Some(SlotPool::Reduce) => placed[1] += d.count,
                    None => {}
                }
            }
            labelled.extend(self.labelled_allocations(&resp));
            borrowed.extend(self.borrowed(&resp));
            let given = self.execute(step, *host, resp)?;
            queues.extend(self.given_unlabelled(*host, given));
        }
        self.check_slot_caps(step, before, placed)?;
        self.check_queue_maxima(step, &queues)?;
        self.check_partition_maxima(step, &labelled, &borrowed)
    }

    /// The decisions of one heartbeat against the model before any is executed.
    fn check_decisions(
        &self,
        step: usize,
        host: u32,
        unallocated: Resource,
        resp: &HeartbeatResponse,
    ) -> Result<(), Failure> {
        let node = &self.nodes[&host];
        let (mut m, mut v) = (0u128, 0u128);
        let mut extra = [0u128; locus_core::protocol::MAX_EXTRA_TYPES];
        let mut per_row: BTreeMap<(u32, i32, i64, String), u64> = BTreeMap::new();
        let mut off_switch = 0u64;
        for d in &resp.decisions {
            let shown = || format!("{d:?}");
            let state = self.core.state();
            if state
                .app_by_id(&d.app)
                .is_some_and(|a| state.parallel().is_held(a.arrival))
            {
                return Err(Failure::new("decision_for_held_app", step, shown()));
            }
            m += d.count as u128 * d.capability.memory_mb as u128;
            v += d.count as u128 * d.capability.vcores as u128;
            for (sum, each) in extra.iter_mut().zip(&d.capability.extra) {
                *sum += d.count as u128 * *each as u128;
            }
            if d.node != node_id(host) {
                return Err(Failure::new("decision_for_other_node", step, shown()));
            }
            if d.count == 0 {
                return Err(Failure::new("decision_for_zero_containers", step, shown()));
            }
            let Some((&app, a)) = self.apps.iter().find(|(i, _)| app_id(**i) == d.app) else {
                return Err(Failure::new("decision_for_unknown_app", step, shown()));
            };
            if !a.live_attempt {
                return Err(Failure::new(
                    "decision_for_unknown_app",
                    step,
                    format!("no attempt: {}", shown()),
                ));
            }
            if a.blacklists(host, node.rack) {
                return Err(Failure::new(
                    "decision_for_blacklisted_node",
                    step,
                    format!("blacklist {:?}: {}", a.blacklist, shown()),
                ));
            }
            let expected = match d.locality {
                Locality::NodeLocal => host_name(host),
                Locality::RackLocal => rack_name(node.rack),
                Locality::OffSwitch => "*".to_string(),
            };
            if d.resource_name != expected {
                return Err(Failure::new(
                    "decision_names_wrong_row",
                    step,
                    format!("expected {expected}: {}", shown()),
                ));
            }
            let key = (d.priority, d.allocation_request_id);
            let wants = a.partitions.get(&key).copied().unwrap_or(0);
            if !partition_serves(wants, node.label) {
                return Err(Failure::new(
                    "decision_outside_its_partition",
                    step,
                    format!(
                        "key wants partition {:?}, node is in {:?}: {}",
                        PARTITIONS[wants as usize],
                        PARTITIONS[node.label as usize],
                        shown()
                    ),
                ));
            }
            let Some(any) = any_row(&a.asks, key) else {
                return Err(Failure::new(
                    "decision_beyond_outstanding_asks",
                    step,
                    format!("no * row: {}", shown()),
                ));
            };
            if any.capability != d.capability {
                return Err(Failure::new(
                    "decision_capability_differs",
                    step,
                    format!("ask wants {:?}: {}", any.capability, shown()),
                ));
            }
            let relax_ok = match d.locality {
                Locality::NodeLocal => true,
                Locality::RackLocal => can_delay_to(&a.asks, key, &rack_name(node.rack)),
                Locality::OffSwitch => {
                    // The rack row as this heartbeat's earlier decisions left it.
                    let rack = rack_name(node.rack);
                    let used = per_row
                        .get(&(app, key.0, key.1, rack.clone()))
                        .copied()
                        .unwrap_or(0);
                    let left = (row_count(&a.asks, key, &rack) as u64).saturating_sub(used);
                    can_delay_to(&a.asks, key, "*")
                        && (left == 0 || can_delay_to(&a.asks, key, &rack))
                }
            };
            if !relax_ok {
                return Err(Failure::new(
                    "decision_ignores_relax_locality",
                    step,
                    shown(),
                ));
            }
            // A key whose host and rack rows this heartbeat's earlier decisions used up names
            // no place any more: its off-switch containers are locality-free and not limited.
            let named = a.asks.iter().any(|((p, r, n), row)| {
                (*p, *r) == key
                    && n != "*"
                    && row.count as u64
                        > per_row.get(&(app, *p, *r, n.clone())).copied().unwrap_or(0)
            });
            if d.locality == Locality::OffSwitch && named {
                off_switch += d.count as u64;
            }
            // YARN consumes the host, rack and `*` rows for a node-local container, rack and
            // `*` for a rack-local one, `*` alone off-switch; each must have enough.
            for row in consumed_rows(d.locality, host, node.rack) {
                *per_row.entry((app, key.0, key.1, row)).or_default() += d.count as u64;
            }
        }
        if m > mem(&unallocated)
            || v > unallocated.vcores as u128
            || extra
                .iter()
                .zip(&unallocated.extra)
                .any(|(want, free)| *want > *free as u128)
        {
            return Err(Failure::new(
                "decision_beyond_free_resource",
                step,
                format!(
                    "node {} has {unallocated:?}, decisions want {m} MB {v} vcores {extra:?} of the other types: {:?}",
                    node_id(host),
                    resp.decisions
                ),
            ));
        }
        for ((app, p, r, name), n) in &per_row {
            let have = row_count(&self.apps[app].asks, (*p, *r), name) as u64;
            if *n > have {
                return Err(Failure::new(
                    "decision_beyond_outstanding_asks",
                    step,
                    format!(
                        "{} at ({p},{r},{name}) has {have}, decided {n}",
                        app_id(*app)
                    ),
                ));
            }
        }
        let limit = combos::off_switch_limit(&self.props) as u64;
        if off_switch > limit {
            return Err(Failure::new(
                "off_switch_limit_exceeded",
                step,
                format!(
                    "{off_switch} off-switch containers in one heartbeat, limit {limit}: {:?}",
                    resp.decisions
                ),
            ));
        }
        Ok(())
    }

    /// Executes decisions as the shim does: each container re-validated against the node and
    /// the ask it consumes; what cannot be done is rejected back to the core.
    fn execute(
        &mut self,
        step: usize,
        host: u32,
        resp: HeartbeatResponse,
    ) -> Result<Vec<String>, Failure> {
        let rack = self.nodes[&host].rack;
        let mut touched = Vec::new();
        for d in resp.decisions {
            let app = self
                .apps
                .iter()
                .find(|(i, _)| app_id(**i) == d.app)
                .map(|(i, _)| *i);
            let mut executed = 0u32;
            let mut reason = String::new();
            if let Some(app) = app {
                while executed < d.count {
                    match self.allocate_one(step, host, rack, app, &d) {
                        Ok(()) => executed += 1,
                        Err(Some(f)) => return Err(f),
                        Err(None) => {
                            reason = "the node or the ask no longer has room".into();
                            break;
                        }
                    }
                }
                touched.push(app);
            } else {
                reason = "unknown application".into();
            }
            if executed < d.count {
                self.send(
                    step,
                    Event::DecisionRejected {
                        decision: d,
                        executed,
                        reason,
                    },
                )?;
            }
        }
        touched.sort_unstable();
        touched.dedup();
        let mut queues = Vec::new();
        for app in touched {
            let asks: Vec<Ask> = self.apps[&app].asks.values().cloned().collect();
            queues.push(self.apps[&app].queue.clone());
            self.send(
                step,
                Event::AsksUpdated {
                    app: app_id(app),
                    asks,
                },
            )?;
        }
        Ok(queues)
    }

    fn allocate_one(
        &mut self,
        step: usize,
        host: u32,
        rack: u32,
        app: u32,
        d: &Decision,
    ) -> Result<(), Option<Failure>> {
        let key = (d.priority, d.allocation_request_id);
        let a = &self.apps[&app];
        let node = &self.nodes[&host];
        let rack_n = rack_name(rack);
        let host_n = host_name(host);
        let ok = a.live_attempt
            && row_count(&a.asks, key, "*") > 0
            && node.unallocated.fits(&d.capability)
            && match d.locality {
                Locality::NodeLocal => {
                    row_count(&a.asks, key, &host_n) > 0 && row_count(&a.asks, key, &rack_n) > 0
                }
                Locality::RackLocal => {
                    row_count(&a.asks, key, &rack_n) > 0 && can_delay_to(&a.asks, key, &rack_n)
                }
                Locality::OffSwitch => can_delay_to(&a.asks, key, "*"),
            };
        if !ok {
            return Err(None);
        }
        let names = consumed_rows(d.locality, host, rack);
        let a = self.apps.get_mut(&app).expect("checked");
        for n in names {
            let k = (key.0, key.1, n);
            if let Some(r) = a.asks.get_mut(&k) {
                r.count -= 1;
                if r.count == 0 {
                    a.asks.remove(&k);
                }
            }
        }
        let n = self.next_container;
        self.next_container += 1;
        let id = format!("container_1700000000000_{app:04}_01_{n:06}");
        let duration = 1 + mix(&[n, app as u64]) % 12;
        self.containers.insert(
            n,
            ContM {
                id: id.clone(),
                app,
                priority: d.priority,
                host,
                resource: d.capability,
                ends: self.round + duration * 4,
            },
        );
        self.refresh_unallocated(host);
        self.allocated += 1;
        *self.allocations_of.entry(app).or_default() += 1;
        self.send(
            step,
            Event::ContainerAllocated {
                container: ContainerInfo {
                    container: id,
                    app: app_id(app),
                    node: node_id(host),
                    priority: d.priority,
                    resource: d.capability,
                },
                locality: d.locality,
                allocation_request_id: d.allocation_request_id,
                recovered: false,
            },
        )
        .map_err(Some)
    }

    /// Under capacity, a queue an allocation on a node with no label just went to stays
    /// within its maximum-capacity of the default partition: what it holds on the nodes with
    /// no label, of their memory (nodes leaving or being labelled may shrink the partition
    /// under a queue; only allocations are judged).
    fn check_queue_maxima(&self, step: usize, queues: &[String]) -> Result<(), Failure> {
        if !combos::is_capacity(&self.props) {
            return Ok(());
        }
        let cluster = self.partition_memory(0);
        let here = |c: &&ContM| self.nodes.get(&c.host).is_some_and(|n| n.label == 0);
        for (q, max) in combos::QUEUE_MAXIMA {
            if !queues.iter().any(|x| x == q) {
                continue;
            }
            let used: u128 = self
                .containers
                .values()
                .filter(|c| self.apps.get(&c.app).is_some_and(|a| a.queue == q))
                .filter(here)
                .map(|c| mem(&c.resource))
                .sum();
            if used * 100 > max as u128 * cluster {
                return Err(Failure::new(
                    "queue_maximum_exceeded",
                    step,
                    format!(
                        "queue {q} uses {used} MB of a {cluster} MB default partition, maximum {max}%"
                    ),
                ));
            }
            if !combos::is_dominant(&self.props) {
                continue;
            }
            // DominantResourceCalculator: CapacityScheduler's commit fits the queue's usage in
            // its maximum in every type.
            let used = self
                .containers
                .values()
                .filter(|c| self.apps.get(&c.app).is_some_and(|a| a.queue == q))
                .filter(here)
                .fold([0u128; TYPES], |mut sum, c| {
                    for (s, a) in sum.iter_mut().zip(amounts(&c.resource)) {
                        *s += a;
                    }
                    sum
                });
            let total = self.default_amounts();
            if let Some(t) = (0..TYPES).find(|&t| used[t] * 100 > max as u128 * total[t]) {
                return Err(Failure::new(
                    "queue_maximum_exceeded",
                    step,
                    format!(
                        "queue {q} holds {:?} of a default partition of {total:?} (memory, vcores, extra types), maximum {max}% in every type under the dominant calculator; type {t} is past it",
                        used
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The core's counters against the model's own bookkeeping.
    pub fn check_counters(&self, step: usize) -> Result<(), Failure> {
        let s = guarded(step, "stats", || self.core.stats())?;
        let pending: u64 = self
            .apps
            .values()
            .filter(|a| a.live_attempt)
            .flat_map(|a| a.asks.iter())
            .filter(|((_, _, n), _)| n == "*")
            .map(|(_, a)| a.count as u64)
            .sum();
        let checks = [
            ("nodes", s.nodes, self.nodes.len() as u64),
            ("apps", s.apps, self.apps.len() as u64),
            (
                "running_containers",
                s.running_containers,
                self.containers.len() as u64,
            ),
            ("allocations", s.allocations, self.allocated),
            ("in_flight", s.in_flight, 0),
            ("pending_containers", s.pending_containers, pending),
        ];
        for (name, core, model) in checks {
            if core != model {
                return Err(Failure::new(
                    "counter_mismatch",
                    step,
                    format!("stats.{name} is {core}, the model has {model}"),
                ));
            }
        }
        self.check_parallel(step)
    }

    /// The running-application limits in force (those of the case's capacity tree).
    fn parallel_limits(&self) -> Option<combos::ParallelLimits> {
        self.divided_shares().map(|s| s.2)
    }

    /// Whether the core holds `app` back by a running-application limit.
    pub fn held(&self, app: u32) -> bool {
        let state = self.core.state();
        state
            .app_by_id(&app_id(app))
            .is_some_and(|a| state.parallel().is_held(a.arrival))
    }

    /// An application is held only while a limit on its way is full (with nothing held, its
    /// queue, root and its user have room); without a move or a reload since the start, no
    /// limit is exceeded by the applications that run.
    fn check_parallel(&self, step: usize) -> Result<(), Failure> {
        let user = |app: u32| format!("user{}", app % 3);
        let Some(limits) = self.parallel_limits() else {
            return match self.apps.keys().find(|a| self.held(**a)) {
                Some(a) => Err(Failure::new(
                    "held_without_limits",
                    step,
                    format!(
                        "{} is held with no running-application limit in force",
                        app_id(*a)
                    ),
                )),
                None => Ok(()),
            };
        };
        let runs: Vec<u32> = self
            .apps
            .keys()
            .copied()
            .filter(|a| !self.held(*a))
            .collect();
        let in_queue = |q: &str| runs.iter().filter(|a| self.apps[a].queue == q).count() as u32;
        let of_user = |u: &str| runs.iter().filter(|a| user(**a) == u).count() as u32;
        let full = |count: u32, limit: Option<u32>| limit.is_some_and(|l| count >= l);
        for (&app, a) in &self.apps {
            let u = user(app);
            let counts = [
                (runs.len() as u32, limits.root, "root".to_string()),
                (in_queue(&a.queue), limits.queue(&a.queue), a.queue.clone()),
                (of_user(&u), limits.user(&u), u.clone()),
            ];
            if self.held(app) && !counts.iter().any(|(c, l, _)| full(*c, *l)) {
                return Err(Failure::new(
                    "held_with_room",
                    step,
                    format!(
                        "{} is held though root, queue {} and {u} have room ({counts:?})",
                        app_id(app),
                        a.queue
                    ),
                ));
            }
            if !self.parallel_unsteady {
                if let Some((c, l, who)) = counts.iter().find(|(c, l, _)| l.is_some_and(|l| *c > l))
                {
                    return Err(Failure::new(
                        "parallel_limit_exceeded",
                        step,
                        format!("{c} applications run in {who}, whose limit is {l:?}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Ends every application that is done (no container, nothing asked), as its AM would
    /// unregister, while some application is held: what lets held ones run in the drain.
    pub fn end_done_while_held(&mut self, step: usize) -> Result<(), Failure> {
        if !self.apps.keys().any(|a| self.held(*a)) {
            return Ok(());
        }
        let done: Vec<u32> = self
            .apps
            .iter()
            .filter(|(app, a)| {
                !self.held(**app)
                    && !self.containers.values().any(|c| c.app == **app)
                    && a.asks
                        .iter()
                        .all(|((_, _, n), r)| n != "*" || r.count == 0 || !a.live_attempt)
            })
            .map(|(app, _)| *app)
            .collect();
        for app in done {
            self.apply(step, &Action::RemoveApp { app })?;
        }
        Ok(())
    }

    /// True when some key of `app` has outstanding containers one of today's nodes could hold
    /// (capability, locality rules, and under capacity the queue's maximum).
    pub fn can_run(&self, app: u32) -> bool {
        // A held application waits for running ones to end (`check_parallel` judges the wait).
        !self.held(app) && self.nodes.keys().any(|h| self.can_run_on(app, *h))
    }

    /// True when some key of `app` has outstanding containers node `host` could hold.
    pub fn can_run_on(&self, app: u32, host: u32) -> bool {
        let a = &self.apps[&app];
        let Some(n) = self.nodes.get(&host) else {
            return false;
        };
        if !a.live_attempt || a.blacklists(host, n.rack) {
            return false;
        }
        // The queue's maximum of the default partition bounds the nodes with no label; on a
        // labelled one its keys are held to the partition's figures below, and a borrowing
        // default-partition key to none.
        let cluster = self.partition_memory(0);
        let unlabelled = n.label == 0;
        let max = combos::QUEUE_MAXIMA
            .iter()
            .find(|(q, _)| *q == a.queue)
            .map_or(100, |(_, m)| *m) as u128;
        a.asks
            .iter()
            .filter(|((_, _, n), _)| n == "*")
            .any(|((p, r, _), any)| {
                let key = (*p, *r);
                if combos::is_capacity(&self.props)
                    && unlabelled
                    && mem(&any.capability) * 100 > max * cluster
                {
                    return false;
                }
                // Under the dominant calculator every type of the ask must fit the maximum.
                if combos::is_dominant(&self.props)
                    && unlabelled
                    && amounts(&any.capability)
                        .iter()
                        .zip(self.default_amounts())
                        .any(|(a, c)| a * 100 > max * c)
                {
                    return false;
                }
                let wants = a.partitions.get(&key).copied().unwrap_or(0);
                if let Some(m) = self
                    .divided_shares()
                    .and_then(|s| s.maximum(&a.queue, wants))
                {
                    if mem(&any.capability) * 100 > m as u128 * self.partition_memory(wants) {
                        return false;
                    }
                }
                // A borrowed room never takes an AM (priority 0 here, to be safe).
                let lent = wants != n.label;
                n.capability.fits(&any.capability)
                    && partition_serves(wants, n.label)
                    && !(lent && *p == 0)
                    && serves(&a.asks, key, &host_name(host), &rack_name(n.rack))
            })
    }
}

/// CapacityScheduler's RegularContainerAllocator: a rack row with outstanding containers and
/// relax_locality=false skips the key on that rack's nodes (no rack-local, no off-switch).
fn pinned_to_rack(rows: &Rows, key: Key, rack: &str) -> bool {
    row_count(rows, key, rack) > 0 && !can_delay_to(rows, key, rack)
}

/// Whether a node (by host and rack name) can ever serve the key under YARN's rules.
fn serves(rows: &Rows, key: Key, host: &str, rack: &str) -> bool {
    let node_local = row_count(rows, key, host) > 0 && row_count(rows, key, rack) > 0;
    let rack_local = row_count(rows, key, rack) > 0 && can_delay_to(rows, key, rack);
    let off_switch = !pinned_to_rack(rows, key, rack) && can_delay_to(rows, key, "*");
    node_local || rack_local || off_switch
}

/// The rows one container at `locality` on `host` consumes (YARN's
/// LocalityAppPlacementAllocator): all must be outstanding for the allocation to be valid.
fn consumed_rows(locality: Locality, host: u32, rack: u32) -> Vec<String> {
    match locality {
        Locality::NodeLocal => vec![host_name(host), rack_name(rack), "*".into()],
        Locality::RackLocal => vec![rack_name(rack), "*".into()],
        Locality::OffSwitch => vec!["*".into()],
    }
}

pub fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// `event` written as the shim's events frame and read back as the bridge reads it.
fn through_events_frame(step: usize, event: Event) -> Result<Event, Failure> {
    let frame = locus_core::events_frame::encode(std::slice::from_ref(&event));
    let fail = |what: String| Failure::new("frame", step, what);
    match locus_core::events_frame::decode(&frame) {
        Ok(mut records) if records.len() == 1 => match records.remove(0) {
            Ok(back) if back == event => Ok(back),
            Ok(back) => Err(fail(format!(
                "events frame changed {event:?} into {back:?}"
            ))),
            Err(e) => Err(fail(format!("events frame refused {event:?}: {e}"))),
        },
        Ok(records) => Err(fail(format!(
            "events frame of one event read as {}",
            records.len()
        ))),
        Err(e) => Err(fail(format!("events frame of {event:?} malformed: {e}"))),
    }
}

/// The core's answer to `hb` written as its decisions frame and read back as the shim reads it.
fn through_decisions_frame(
    step: usize,
    hb: &Heartbeat,
    resp: HeartbeatResponse,
) -> Result<HeartbeatResponse, Failure> {
    let answer = locus_core::OffersResponse {
        decisions: resp.decisions,
        refused: Vec::new(),
    };
    let offered = std::slice::from_ref(hb);
    let fail = |what: String| Failure::new("frame", step, what);
    let frame = locus_core::decisions_frame::encode(offered, &answer)
        .map_err(|e| fail(format!("decisions frame not written: {e}")))?;
    let back = locus_core::decisions_frame::decode(&frame, offered)
        .map_err(|e| fail(format!("decisions frame malformed: {e}")))?;
    if back != answer {
        return Err(fail(format!(
            "decisions frame changed {answer:?} into {back:?}"
        )));
    }
    Ok(HeartbeatResponse {
        decisions: back.decisions,
    })
}
