//! `capacity`: YARN CapacityScheduler's queues, from the operator's capacity-scheduler.xml.
//!
//! Each queue is guaranteed a share of the cluster (`capacity`) and may grow into idle room up
//! to a hard limit (`maximum-capacity`), both in percent of the cluster's memory (with labelled
//! nodes, of the default partition's: the nodes with no label, as CapacityScheduler measures
//! it; a labelled partition's keys follow its own figures), because the
//! default resource calculator compares memory only (with `DominantResourceCalculator`, of
//! every resource type: see below). The rule, as CapacityScheduler's
//! ParentQueue and LeafQueue apply it:
//! - each container of a heartbeat goes to the least served queue, the one whose used memory is
//!   the smallest share of its guarantee (ties: the larger guarantee, then the order the queues
//!   are configured in); queues are re-sorted after every container, so one big node is split
//!   between hungry queues;
//! - a queue whose next container would take it past its maximum-capacity is skipped;
//! - inside a queue, applications go in submission order (LeafQueue's FIFO ordering policy),
//!   the first that can use the node getting it; under `ordering-policy=fair` by the memory
//!   they hold, re-sorted after each container ([`FairOrdering`]).
//!
//! A queue alone (the default `default:100`, or any configuration in which only one queue has
//! applications with outstanding asks on this heartbeat) has no one to share the node with:
//! ParentQueue hands every container to it, and its LeafQueue walks its applications from the
//! first each time (assign-multiple calls the root again after every container), so the first
//! application keeps the node while it can use it and a later one gets only what it cannot use.
//! That is `fifo` exactly, and `order` then lists the queue's applications once each in
//! submission order with no turn limit: the same decisions as `fifo`, the same once-per-heartbeat
//! locality bookkeeping.
//!
//! With two or more hungry queues `order` predicts the sequence container by container, as
//! `fair` does, and lists each app once per container it should get (`turn_limit` 1), then every
//! app again, queues least served first, with no turn limit: room a predicted app could not use
//! (a locality wait, a slot cap) goes to the first app that can use it, as ParentQueue tries
//! its next queue and LeafQueue its next app when one assigns nothing. (One container each in
//! that pass left the rest of the node idle, which CapacityScheduler never does.) Where several
//! apps could use that room, the first takes all of it while ParentQueue would still alternate
//! between queues: the prediction cannot know which apps will be held back. And an app listed
//! several times is offered the node several times in one heartbeat, so under `delay` its
//! waiting located key counts several missed nodes per heartbeat (as under `fair`).
//!
//! Applications waiting for their ApplicationMaster take their place in their queue's line like
//! any other (its container is the one the prediction charges them), as in a LeafQueue: unlike
//! TD and JoSS, which pick only map (and reduce) slots and so put such apps first within the AM
//! share ([`super::am_share`]), this policy orders every container itself. Putting them first
//! too would, in one queue, alone make it differ from `fifo` (see docs/design/yarn-mapping.md).
//!
//! The maximum-capacity is not left to `order`: `room` gives each app its queue's memory left
//! under the limit, spent by `placed`, and the decision procedure never places past it.
//!
//! The queues are the leaves of the operator's `capacity-scheduler.xml` (any depth,
//! [`super::capacity_tree`]) or of the `locus.capacity.queues` shortcut (one level). Besides the
//! order above, the policy enforces what a LeafQueue does: no leaf and no ancestor past its
//! maximum-capacity (`room`), the user limit of a leaf (`room`, computed in `CapacityPolicy::measure`),
//! and a leaf's maximum-am-resource-percent ([`JobPolicy::am_pool`]; the shortcut keeps half the
//! queue's guarantee). Siblings are not compared level by level as ParentQueue does: every leaf
//! is compared by its used memory over its absolute guarantee.
//!
//! Under `DominantResourceCalculator` ([`super::dominant`]) the same rules hold in every
//! resource type, as CapacityScheduler applies them with it: a queue's usage with a container
//! must fit its and its ancestors' maxima in each type (`room` is a resource of every type,
//! nothing once the queue is past a maximum in any), queues are served by the dominant share of
//! what they hold over their guarantee's, the user limit is a resource a user may start
//! containers under while it holds no more by dominant shares, and the AM limits hold in every
//! type. The memory figures are kept alongside for the AM pools' memory rule.
//!
//! Not modelled (an operator relying on them should know): the per-user AM limit, AM limits for
//! non-MapReduce AMs, reservations and preemption.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::dominant::{self, Calculator};
use super::{share_of, AmPool, AmTypes, JobPolicy, MAX_AM_SHARE};
use crate::error::CoreError;
use crate::protocol::{CommitLimits, Resource, MAX_TYPE_MAXIMA};
use crate::state::app::{App, Arrival, TaskKind};
use crate::state::ask::SchedulerKey;
use crate::state::node::Node;
use crate::state::ClusterState;

pub const CAPACITY_QUEUES: &str = "locus.capacity.queues";

/// Bounds the prediction on huge nodes with tiny asks; the trailing pass still covers them.
const MAX_PREDICTED: usize = 4096;

/// Capacities are floats; their sum may be off by rounding (33.33 × 3).
const SUM_TOLERANCE: f64 = 0.01;
/// A queue's configured state: a STOPPED queue takes no new applications; those it holds
/// finish (CapacityScheduler's `yarn.scheduler.capacity.<path>.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum QueueState {
    Running,
    Stopped,
}

/// CapacityScheduler's bound on one user's share of a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UserLimit {
    /// A user may hold at most this multiple of the queue's guarantee; -1: up to its maximum.
    pub user_limit_factor: f64,
    /// With n active users each may hold at least max(1/n, this / 100) of the queue.
    pub minimum_user_limit_percent: f64,
}

/// A leaf queue: the queues applications run in. `capacity` and `maximum_capacity` are in
/// percent of the default partition (CapacityScheduler's absolute figures).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapacityQueue {
    /// The short name applications may name (unique among leaves).
    pub name: String,
    /// The full path, `root.<parent>...<name>`.
    pub path: String,
    pub capacity: f64,
    pub maximum_capacity: f64,
    /// `None`: no per-user bound (the `locus.capacity.queues` shortcut).
    pub user_limit: Option<UserLimit>,
    /// The share of the queue's usable memory its AMs may hold (a fraction).
    pub maximum_am_resource_percent: f64,
    /// Applications the queue holds at most (`None`: no bound).
    pub maximum_applications: Option<u32>,
    pub maximum_applications_per_user: Option<u32>,
    pub state: QueueState,
    /// `disable_preemption` as in force (inherited from the parents when not set).
    #[serde(skip)]
    pub disable_preemption: bool,
    /// `intra-queue-preemption.disable_preemption` as in force (inherited likewise).
    #[serde(skip)]
    pub intra_queue_disable_preemption: bool,
    /// Indices into [`CapacityQueues::parents`], nearest first; root is never listed (its
    /// maximum is the cluster).
    #[serde(skip)]
    pub ancestors: Vec<usize>,
    /// Created on a submission under a parent that allows it; removable once idle.
    #[serde(skip)]
    pub created: bool,
    /// Per partition of [`CapacityQueues::partitions`]: the absolute capacity and maximum
    /// capacity in it, in percent of the partition.
    #[serde(skip)]
    pub partition_shares: Vec<(f64, f64)>,
    /// `ordering-policy=fair`: the queue's applications take turns by the memory they hold
    /// (CapacityScheduler's FairOrderingPolicy); `None`: FIFO, by priority then submission.
    #[serde(skip)]
    pub fair: Option<FairOrdering>,
}

/// A leaf's `ordering-policy=fair`, as CapacityScheduler's FairOrderingPolicy orders its
/// applications: least memory held first (divided by log2(1 + demand) with
/// `ordering-policy.fair.enable-size-based-weight`, demand being what is held plus what is
/// asked), then the earlier start, then one that still asks before one that does not, then
/// submission order. Application priorities do not enter it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FairOrdering {
    pub size_based_weight: bool,
}

impl FairOrdering {
    /// The magnitude apps are ordered by.
    fn magnitude(self, used_mb: u64, demand_mb: u64) -> f64 {
        let used = used_mb as f64;
        if self.size_based_weight && used != 0.0 {
            let weight = (demand_mb as f64).ln_1p() / std::f64::consts::LN_2;
            if weight != 0.0 {
                return used / weight;
            }
        }
        used
    }

    /// Whether `a` goes before `b`.
    fn before(self, a: &Candidate, b: &Candidate) -> bool {
        let (ma, mb) = (
            self.magnitude(a.used_mb, a.demand_mb()),
            self.magnitude(b.used_mb, b.demand_mb()),
        );
        if ma != mb {
            return ma < mb;
        }
        if a.start_ms != b.start_ms {
            return a.start_ms < b.start_ms;
        }
        let (ask_a, ask_b) = (a.pending_mb > 0, b.pending_mb > 0);
        if ask_a != ask_b {
            return ask_a;
        }
        a.arrival < b.arrival
    }
}

/// A parent queue below root, with its absolute capacity and maximum-capacity (percent of
/// the cluster): each bounds what its leaves hold together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParentQueue {
    pub path: String,
    pub capacity: f64,
    pub maximum_capacity: f64,
    #[serde(skip)]
    pub disable_preemption: bool,
    /// As [`CapacityQueue::partition_shares`].
    #[serde(skip)]
    pub partition_shares: Vec<(f64, f64)>,
}

/// The leaves applications run in, in configured order, and the parents above them.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityQueues {
    pub(super) queues: Vec<CapacityQueue>,
    pub(super) parents: Vec<ParentQueue>,
    /// True when read from capacity-scheduler.xml (CapacityScheduler's removal rules, AM limit
    /// of the queue's usable memory); false for the `locus.capacity.queues` shortcut.
    from_file: bool,
    /// A file in absolute mode: the configured resources the percentages above are derived
    /// from, again whenever the cluster changes ([`CapacityQueues::set_cluster`]).
    pub(super) absolute: Option<super::capacity_tree::AbsoluteCapacities>,
    /// The node partitions the file divides among its queues (at most
    /// [`super::capacity_tree::MAX_TREE_PARTITIONS`]): on a node of one of them, a key of that
    /// partition is placed under each queue's share of it instead of its cluster share. Other
    /// partitions are shared whole by the queues that may use them.
    pub(super) partitions: Vec<String>,
    /// `resource-calculator`: with the dominant one, queue maxima, the queue order and user
    /// limits compare every resource type, as CapacityScheduler's do.
    pub(super) calculator: Calculator,
}

/// The shortcut's AM bound: half the queue's guarantee, as before the file was read.
fn shortcut_queue(name: &str, capacity: f64, maximum_capacity: f64) -> CapacityQueue {
    CapacityQueue {
        name: name.to_string(),
        path: format!("root.{name}"),
        capacity,
        maximum_capacity,
        user_limit: None,
        maximum_am_resource_percent: MAX_AM_SHARE,
        maximum_applications: None,
        maximum_applications_per_user: None,
        state: QueueState::Running,
        disable_preemption: false,
        intra_queue_disable_preemption: false,
        ancestors: Vec::new(),
        created: false,
        partition_shares: Vec::new(),
        fair: None,
    }
}

impl CapacityQueues {
    /// Queues without a maximum-applications of their own (the shortcut's) take
    /// CapacityScheduler's: the system-wide maximum times their capacity, for every user alike
    /// (its default user-limit-factor and minimum-user-limit-percent leave a user the queue's).
    pub fn default_application_limits(&mut self, system: u32) {
        for q in &mut self.queues {
            if q.maximum_applications.is_none() {
                let m = (system as f64 * q.capacity / 100.0) as u32;
                q.maximum_applications = Some(m);
                q.maximum_applications_per_user = Some(m);
            }
        }
    }
}

impl Default for CapacityQueues {
    /// CapacityScheduler's stock configuration: one queue `default` with the whole cluster.
    fn default() -> Self {
        CapacityQueues {
            queues: vec![shortcut_queue("default", 100.0, 100.0)],
            parents: Vec::new(),
            from_file: false,
            absolute: None,
            partitions: Vec::new(),
            calculator: Calculator::Default,
        }
    }
}

const ALLOWED: &str = "a comma list of name:capacity[:maximum-capacity] in percent of the cluster, e.g. a:50:90,b:50:90; capacities sum to 100, each above 0 and at most 100, maximum-capacity (default 100) from the capacity to 100; names non-empty, unique, without ':', ',' or '.'";

fn bad(value: &str, why: String) -> CoreError {
    CoreError::Config {
        key: CAPACITY_QUEUES.to_string(),
        message: format!("invalid value {value:?}: {why}; allowed: {ALLOWED}"),
    }
}

fn percent(value: &str, queue: &str, what: &str, text: &str) -> Result<f64, CoreError> {
    match text.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 100.0 => Ok(x),
        _ => Err(bad(
            value,
            format!(
                "queue {queue:?} has {what} {:?}, not a number above 0 and at most 100",
                text.trim()
            ),
        )),
    }
}

impl CapacityQueues {
    pub fn parse(value: &str) -> Result<CapacityQueues, CoreError> {
        let mut queues: Vec<CapacityQueue> = Vec::new();
        for item in value.split(',') {
            let parts: Vec<&str> = item.split(':').collect();
            let name = parts[0].trim();
            if name.is_empty() {
                return Err(bad(
                    value,
                    format!("item {:?} has no queue name", item.trim()),
                ));
            }
            if name.contains('.') {
                return Err(bad(value, format!("queue name {name:?} contains '.'")));
            }
            if !(2..=3).contains(&parts.len()) {
                return Err(bad(
                    value,
                    format!(
                        "item {:?} is not name:capacity[:maximum-capacity]",
                        item.trim()
                    ),
                ));
            }
            if queues.iter().any(|q| q.name == name) {
                return Err(bad(value, format!("queue {name:?} is listed twice")));
            }
            let capacity = percent(value, name, "capacity", parts[1])?;
            let maximum_capacity = match parts.get(2) {
                Some(text) => percent(value, name, "maximum-capacity", text)?,
                None => 100.0,
            };
            if maximum_capacity < capacity {
                return Err(bad(
                    value,
                    format!("queue {name:?} has maximum-capacity {maximum_capacity} below its capacity {capacity}"),
                ));
            }
            queues.push(shortcut_queue(name, capacity, maximum_capacity));
        }
        let sum: f64 = queues.iter().map(|q| q.capacity).sum();
        if (sum - 100.0).abs() > SUM_TOLERANCE {
            return Err(bad(value, format!("the capacities sum to {sum}, not 100")));
        }
        Ok(CapacityQueues {
            queues,
            parents: Vec::new(),
            from_file: false,
            absolute: None,
            partitions: Vec::new(),
            calculator: Calculator::Default,
        })
    }

    /// The tree read from capacity-scheduler.xml ([`super::capacity_tree`]).
    pub(crate) fn from_tree(
        queues: Vec<CapacityQueue>,
        parents: Vec<ParentQueue>,
    ) -> Result<CapacityQueues, CoreError> {
        Ok(CapacityQueues {
            queues,
            parents,
            from_file: true,
            absolute: None,
            partitions: Vec::new(),
            calculator: Calculator::Default,
        })
    }

    pub fn queues(&self) -> &[CapacityQueue] {
        &self.queues
    }

    pub fn parents(&self) -> &[ParentQueue] {
        &self.parents
    }

    pub fn from_file(&self) -> bool {
        self.from_file
    }

    pub fn calculator(&self) -> Calculator {
        self.calculator
    }

    /// The index of `partition` among those the file divides; `None` for the default
    /// partition and for one it does not divide.
    pub fn partition_index(&self, partition: &str) -> Option<usize> {
        if partition.is_empty() {
            return None;
        }
        self.partitions.iter().position(|p| p == partition)
    }

    /// Leaf `i`'s ancestors below root, nearest first.
    pub fn ancestor_paths(&self, i: usize) -> Vec<&str> {
        self.queues[i]
            .ancestors
            .iter()
            .map(|&p| self.parents[p].path.as_str())
            .collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.queues.iter().map(|q| q.name.clone()).collect()
    }

    /// The queue an application names: its short name or CapacityScheduler's full path
    /// `root.<name>`.
    pub fn index_of(&self, queue: &str) -> Option<usize> {
        // By short name or by full path only: `root.etl` is not `root.eng.etl`, as in
        // CapacityScheduler.
        self.queues
            .iter()
            .position(|q| q.name == queue || q.path == queue)
    }

    /// The configured name for what an application names, `None` when it is not configured.
    pub fn resolve(&self, queue: &str) -> Option<&str> {
        self.index_of(queue).map(|i| self.queues[i].name.as_str())
    }

    /// Memory queue `i` may hold at most, of a cluster with `cluster_mb`.
    pub fn maximum_mb(&self, i: usize, cluster_mb: u64) -> u64 {
        percent_of(cluster_mb, self.queues[i].maximum_capacity)
    }

    /// What leaf `i` may still take before it or one of its ancestors reaches its
    /// maximum-capacity, with `leaf_used` memory held by each leaf.
    pub fn room_mb(&self, i: usize, cluster_mb: u64, leaf_used: &[u64]) -> u64 {
        let mut room = self.maximum_mb(i, cluster_mb).saturating_sub(leaf_used[i]);
        for &p in &self.queues[i].ancestors {
            let used = self.parent_used_mb(p, leaf_used);
            let max = percent_of(cluster_mb, self.parents[p].maximum_capacity);
            room = room.min(max.saturating_sub(used));
        }
        room
    }

    /// Every type queue `i` may hold at most, of `cluster`: CapacityScheduler's effective
    /// maximum resource, its maximum-capacity of each type in percentage and weight modes.
    pub fn maximum(&self, i: usize, cluster: &Resource) -> Resource {
        let max = self.queues[i].maximum_capacity;
        let by_share = dominant::map(cluster, |v| percent_of(v, max));
        effective(
            by_share,
            self.absolute.as_ref().and_then(|a| a.leaf_maximum(i)),
        )
    }

    /// Every type parent `p` may hold at most, of `cluster`.
    pub fn parent_maximum(&self, p: usize, cluster: &Resource) -> Resource {
        let max = self.parents[p].maximum_capacity;
        let by_share = dominant::map(cluster, |v| percent_of(v, max));
        effective(
            by_share,
            self.absolute.as_ref().and_then(|a| a.parent_maximum(p)),
        )
    }

    /// Parent `p`'s guarantee in every type, of `cluster`, as [`Self::guarantee`].
    pub fn parent_guarantee(&self, p: usize, cluster: &Resource) -> Resource {
        let c = self.parents[p].capacity;
        let by_share = dominant::map(cluster, |v| percent_of(v, c));
        effective(
            by_share,
            self.absolute.as_ref().and_then(|a| a.parent_minimum(p)),
        )
    }

    /// Queue `i`'s guarantee in every type, of `cluster`: CapacityScheduler's effective
    /// minimum resource, its capacity of each type in percentage and weight modes.
    pub fn guarantee(&self, i: usize, cluster: &Resource) -> Resource {
        let c = self.queues[i].capacity;
        let by_share = dominant::map(cluster, |v| percent_of(v, c));
        effective(
            by_share,
            self.absolute.as_ref().and_then(|a| a.leaf_minimum(i)),
        )
    }

    /// What leaf `i` may still take in every type before it or one of its ancestors reaches its
    /// maximum, with `leaf_used` held by each leaf.
    pub fn room(&self, i: usize, cluster: &Resource, leaf_used: &[Resource]) -> Resource {
        let mut room = dominant::left(&self.maximum(i, cluster), &leaf_used[i]);
        for &p in &self.queues[i].ancestors {
            let used = self
                .queues
                .iter()
                .zip(leaf_used)
                .filter(|(q, _)| q.ancestors.contains(&p))
                .fold(Resource::ZERO, |sum, (_, u)| sum.add(u));
            let left = dominant::left(&self.parent_maximum(p, cluster), &used);
            room = dominant::per_type_min(&room, &left);
        }
        room
    }

    /// Memory held by the leaves under parent `p`.
    fn parent_used_mb(&self, p: usize, leaf_used: &[u64]) -> u64 {
        self.queues
            .iter()
            .zip(leaf_used)
            .filter(|(q, _)| q.ancestors.contains(&p))
            .fold(0u64, |sum, (_, u)| sum.saturating_add(*u))
    }

    /// Memory each configured queue holds in `state`, counting the containers decided for it
    /// and not yet created: the RM executes a batch of node offers only after the whole batch,
    /// and a queue's maximum must hold across it. Apps filed under `root.<name>` before the
    /// policy became `capacity` count for `<name>`.
    pub fn used_mb(&self, state: &ClusterState) -> Vec<u64> {
        let mut used = vec![0u64; self.queues.len()];
        for (name, q) in state.queues().iter() {
            if let Some(i) = self.index_of(name) {
                used[i] = used[i].saturating_add(q.used.memory_mb);
            }
        }
        for u in state.in_flight() {
            if let Some(i) = self.index_of(&u.queue) {
                used[i] = used[i].saturating_add(u.resource.memory_mb);
            }
        }
        used
    }

    /// Every type each configured queue holds in the default partition: on the nodes with no
    /// label, counting the containers decided there and not yet created, as [`Self::used_mb`]
    /// counts the whole cluster. CapacityScheduler charges a container to its node's
    /// partition, so one a default-partition key borrowed a labelled node for is not here.
    pub fn default_used(&self, state: &ClusterState) -> Vec<Resource> {
        let mut used = vec![Resource::ZERO; self.queues.len()];
        for (name, q) in state.queues().iter() {
            if let Some(i) = self.index_of(name) {
                used[i] = used[i].add(&q.by_partition.of(&q.used, ""));
            }
        }
        for u in state.in_flight().iter().filter(|u| u.partition.is_empty()) {
            if let Some(i) = self.index_of(&u.queue) {
                used[i] = used[i].add(&u.resource);
            }
        }
        used
    }

    /// Memory each configured queue holds in the default partition ([`Self::default_used`]).
    pub fn default_used_mb(&self, state: &ClusterState) -> Vec<u64> {
        self.default_used(state)
            .iter()
            .map(|r| r.memory_mb)
            .collect()
    }

    /// Every type each configured queue holds in `state`, counted as [`Self::used_mb`].
    pub fn used(&self, state: &ClusterState) -> Vec<Resource> {
        let mut used = vec![Resource::ZERO; self.queues.len()];
        for (name, q) in state.queues().iter() {
            if let Some(i) = self.index_of(name) {
                used[i] = used[i].add(&q.used);
            }
        }
        for u in state.in_flight() {
            if let Some(i) = self.index_of(&u.queue) {
                used[i] = used[i].add(&u.resource);
            }
        }
        used
    }
}

/// CapacityScheduler's user limit under the dominant calculator, every type at once: the
/// memory formula of [`user_limit_mb`] with its `max` and `min` taken by DRC's comparison,
/// which keeps one whole side (UsersManager#computeUserLimit): `current` is the guarantee
/// unless the leaf holds at least as much, `share` the larger of `current / active` (rounded
/// up) and `current · minimum-user-limit-percent / 100`, the limit the smaller of `share` and
/// `guarantee · user-limit-factor` (the maximum for a factor of -1).
pub(crate) fn user_limit(
    cluster: &Resource,
    guarantee: Resource,
    used: Resource,
    maximum: Resource,
    active: u32,
    limit: UserLimit,
) -> Resource {
    let current = if dominant::compare(cluster, &used, &guarantee).is_lt() {
        guarantee
    } else {
        used
    };
    let users = active.max(1) as u64;
    let per_user = dominant::map(&current, |v| v.div_ceil(users));
    let minimum = dominant::map(&current, |v| {
        (v as f64 * limit.minimum_user_limit_percent / 100.0) as u64
    });
    let share = dominant::max(cluster, per_user, minimum);
    let most = if limit.user_limit_factor < 0.0 {
        maximum
    } else {
        dominant::map(&guarantee, |v| (v as f64 * limit.user_limit_factor) as u64)
    };
    dominant::min(cluster, share, most)
}

/// CapacityScheduler's user limit in a leaf guaranteed `guarantee` MB (of the cluster, or of a
/// partition) holding `used` with at most `maximum`:
/// `min(max(current / active, current · minimum-user-limit-percent / 100),
/// guarantee · user-limit-factor)`, `current` the guarantee or what the leaf holds once past
/// it, a factor of -1 meaning the maximum.
fn user_limit_mb(guarantee: u64, used: u64, maximum: u64, active: u32, limit: UserLimit) -> u64 {
    let current = guarantee.max(used);
    let users = active.max(1) as u64;
    let share = current
        .div_ceil(users)
        .max((current as f64 * limit.minimum_user_limit_percent / 100.0) as u64);
    let most = if limit.user_limit_factor < 0.0 {
        maximum
    } else {
        (guarantee as f64 * limit.user_limit_factor) as u64
    };
    share.min(most)
}

/// `percent` % of `mb`, rounded down.
/// In absolute and vector modes, the effective resource CapacityScheduler derives per type
/// (memory and vcores, the types those modes name), the other types by the share; else the
/// share's figures.
fn effective(by_share: Resource, derived: Option<Resource>) -> Resource {
    match derived {
        Some(d) => Resource {
            memory_mb: d.memory_mb,
            vcores: d.vcores,
            extra: by_share.extra,
        },
        None => by_share,
    }
}

fn percent_of(mb: u64, percent: f64) -> u64 {
    (mb as f64 * percent / 100.0).floor() as u64
}

/// An application's place in its queue's line for the prediction.
struct Candidate {
    arrival: Arrival,
    /// The container its first pending key asks for.
    next: Resource,
    left: u64,
    /// Memory the app holds, with what this heartbeat's prediction gave it.
    used_mb: u64,
    /// Memory its asks still want, less what the prediction gave.
    pending_mb: u64,
    /// When it was submitted (its place among equals under fair ordering).
    start_ms: u64,
}

impl Candidate {
    fn demand_mb(&self) -> u64 {
        self.used_mb.saturating_add(self.pending_mb)
    }

    /// The prediction gave it one more container.
    fn took_one(&mut self) {
        self.left -= 1;
        self.used_mb = self.used_mb.saturating_add(self.next.memory_mb);
        self.pending_mb = self.pending_mb.saturating_sub(self.next.memory_mb);
    }
}

fn candidate(app: &App) -> Option<Candidate> {
    candidate_in(app, None)
}

/// The app's place in line for keys of `partition` (`None`: any key): its first pending key
/// there.
fn candidate_in(app: &App, partition: Option<&str>) -> Option<Candidate> {
    let mut key = app.asks.next_pending_key(None)?;
    if let Some(p) = partition {
        // Bounded by the app's scheduler keys (`locus.app.*`).
        while app.partitions.of(&key) != p {
            key = app.asks.next_pending_key(Some(key))?;
        }
    }
    let next = app
        .asks
        .table(&key)?
        .row(crate::state::names::ANY_ID)?
        .capability;
    Some(Candidate {
        arrival: app.arrival,
        next,
        left: app.asks.pending_containers(),
        used_mb: app.used.memory_mb,
        // Filled in only where a fair queue orders by it (`pending_mb`).
        pending_mb: 0,
        start_ms: app.submit_ms,
    })
}

/// `line` in fair order.
fn sort_fair(line: &mut [Candidate], fair: FairOrdering) {
    line.sort_by(|a, b| {
        if fair.before(a, b) {
            std::cmp::Ordering::Less
        } else if fair.before(b, a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
}

/// Memory the app's asks still want: each pending key's outstanding containers times its
/// size. Bounded by the app's scheduler keys (`locus.app.*`).
fn pending_mb(app: &App) -> u64 {
    app.asks
        .tables()
        .filter(|(_, t)| t.outstanding() > 0)
        .filter_map(|(_, t)| {
            let size = t.row(crate::state::names::ANY_ID)?.capability.memory_mb;
            Some((t.outstanding() as u64).saturating_mul(size))
        })
        .fold(0u64, u64::saturating_add)
}

/// The capabilities of the app's pending keys that fit in `room` in every type: the first's
/// (else the first pending key's), and each type's largest amount among them. Bounded by the
/// app's scheduler keys (`locus.app.*`).
fn placeable(app: &App, room: &Resource) -> (Resource, Resource) {
    let mut first = None;
    let mut largest = Resource::ZERO;
    let mut key = app.asks.next_pending_key(None);
    while let Some(k) = key {
        let capability = app
            .asks
            .table(&k)
            .and_then(|t| t.row(crate::state::names::ANY_ID))
            .map(|r| r.capability);
        if let Some(c) = capability.filter(|c| room.fits(c)) {
            first.get_or_insert(c);
            largest = dominant::zip(&largest, &c, u64::max);
        }
        key = app.asks.next_pending_key(Some(k));
    }
    let first = first
        .or_else(|| candidate(app).map(|c| c.next))
        .unwrap_or(Resource::ZERO);
    (first, largest)
}

/// One user's standing in one leaf on this heartbeat.
struct UserSlot {
    /// Memory held in the default partition, and the user limit there.
    used_mb: u64,
    limit_mb: u64,
    /// Memory held on labelled nodes (the commit re-checks what the user holds everywhere).
    outside_mb: u64,
    /// Memory the user's MapReduce AMs hold in the leaf, and may hold (the user AM limit).
    am_used_mb: u64,
    am_limit_mb: u64,
}

pub struct CapacityPolicy {
    queues: CapacityQueues,
    /// Memory each leaf holds in the default partition on this heartbeat: the state's count
    /// when `order` ran, plus what was placed since on nodes with no label (the RM confirms
    /// those only after the heartbeat). The default partition's figures are those of its own
    /// nodes, as CapacityScheduler's: its size, what queues hold there, their maxima.
    used_mb: Vec<u64>,
    /// The same for each parent queue below root (the sum of its leaves).
    parent_used_mb: Vec<u64>,
    maximum_mb: Vec<u64>,
    parent_maximum_mb: Vec<u64>,
    /// Memory each leaf and each parent holds on labelled nodes when `order` ran: the commit
    /// re-checks what a queue holds everywhere, so its ceilings carry this on top.
    outside_mb: Vec<u64>,
    parent_outside_mb: Vec<u64>,
    /// Whether the heartbeat's node has a label: a key placed there is held to that
    /// partition's figures (a divided one's), or to none (a default-partition key borrowing
    /// the room, which CapacityScheduler bounds by the whole partition, and the keys of a
    /// partition the file does not divide, shared whole).
    node_labelled: bool,
    /// The queue of each app `order` listed.
    app_queue: HashMap<Arrival, usize>,
    /// Each listed app's user in its leaf (index into `users`), for leaves with a user limit.
    app_user: HashMap<Arrival, usize>,
    users: Vec<UserSlot>,
    /// Memory each leaf's MapReduce AMs hold on this heartbeat (placed ones included), for
    /// CapacityScheduler's rule that a queue running no AM may always start one.
    am_used_mb: Vec<u64>,
    /// The only queue with outstanding asks on this heartbeat, whose apps `order` listed as
    /// `fifo` does (`None`: queues share the node).
    alone: Option<usize>,
    /// Visits `order` predicted one container for, per app, not yet taken; the app's visits
    /// after those (the trailing pass) are unlimited.
    predicted: HashMap<Arrival, u32>,
    /// Active users per leaf, and each user slot's leaf, as `measure` counted them.
    active: Vec<u32>,
    user_leaf: Vec<usize>,
    /// The divided partition of the node on this heartbeat (an index into the file's
    /// partitions), and whether the walk now places that partition's keys (`partition_pass`).
    node_partition: Option<usize>,
    in_partition: bool,
    /// The figures of `node_partition`, as the fields above for the cluster.
    part: PartitionFigures,
    /// Under the dominant calculator, the cluster's figures in every type, which then decide
    /// the queue order, the maxima and the user limits (`None`: the default calculator, memory
    /// only). The memory figures above are kept for the AM limits.
    types: Option<TypeFigures>,
}

/// The cluster's figures in every resource type, for the dominant calculator.
#[derive(Default)]
struct TypeFigures {
    cluster: Resource,
    used: Vec<Resource>,
    parent_used: Vec<Resource>,
    maximum: Vec<Resource>,
    /// Per leaf, its guarantee in every type ([`CapacityQueues::guarantee`]).
    guarantee: Vec<Resource>,
    /// Per leaf and per parent, what it holds on labelled nodes (outside the default
    /// partition these figures are of), for the shim's re-check of whole usage.
    outside: Vec<Resource>,
    parent_outside: Vec<Resource>,
    parent_maximum: Vec<Resource>,
    /// Per user slot (as `CapacityPolicy::users`): what the user holds in its leaf, and limit.
    user_used: Vec<Resource>,
    user_limit: Vec<Resource>,
    /// Per user slot: what the user's MapReduce AMs hold in the leaf, and may hold.
    user_am_used: Vec<Resource>,
    user_am_limit: Vec<Resource>,
}

impl TypeFigures {
    /// What leaf `i` may still take in each type under its own and its ancestors' maxima, with
    /// `used` per leaf and `parent_used` per parent.
    fn room(
        &self,
        queues: &CapacityQueues,
        i: usize,
        used: &[Resource],
        parent_used: &[Resource],
    ) -> Resource {
        let mut room = dominant::left(&self.maximum[i], &used[i]);
        for &p in &queues.queues[i].ancestors {
            let left = dominant::left(&self.parent_maximum[p], &parent_used[p]);
            room = dominant::per_type_min(&room, &left);
        }
        room
    }
}

/// One partition's figures on a heartbeat of one of its nodes: CapacityScheduler limits a key
/// of a partition by the queue's share of that partition's nodes and what the queue (and the
/// user) hold there.
#[derive(Default)]
struct PartitionFigures {
    capacity: Vec<f64>,
    used_mb: Vec<u64>,
    parent_used_mb: Vec<u64>,
    maximum_mb: Vec<u64>,
    parent_maximum_mb: Vec<u64>,
    /// Per user slot (as `CapacityPolicy::users`): memory held in the partition, and limit.
    user_used_mb: Vec<u64>,
    user_limit_mb: Vec<u64>,
}

impl CapacityPolicy {
    pub fn new(queues: &CapacityQueues) -> CapacityPolicy {
        let n = queues.queues.len();
        let p = queues.parents.len();
        CapacityPolicy {
            queues: queues.clone(),
            used_mb: vec![0; n],
            parent_used_mb: vec![0; p],
            maximum_mb: vec![0; n],
            parent_maximum_mb: vec![0; p],
            outside_mb: vec![0; n],
            parent_outside_mb: vec![0; p],
            node_labelled: false,
            app_queue: HashMap::new(),
            app_user: HashMap::new(),
            users: Vec::new(),
            am_used_mb: vec![0; n],
            alone: None,
            predicted: HashMap::new(),
            active: vec![0; n],
            user_leaf: Vec::new(),
            node_partition: None,
            in_partition: false,
            part: PartitionFigures::default(),
            types: (queues.calculator == Calculator::Dominant).then(TypeFigures::default),
        }
    }

    /// True when queue `a` is served less than queue `b` with `used` memory each (or, under
    /// the dominant calculator, `used_types` of every type): a smaller share of its guarantee,
    /// then the larger guarantee, then the earlier configured. A queue guaranteed nothing
    /// (capacity 0, allowed by CapacityScheduler) counts as served once it holds anything.
    fn before(&self, a: usize, b: usize, used: &[u64], used_types: Option<&[Resource]>) -> bool {
        // In a divided partition, the shares of that partition (CapacityScheduler sorts the
        // queues per partition).
        let cap = |i: usize| match self.node_partition {
            Some(_) => self.part.capacity[i],
            None => self.queues.queues[i].capacity,
        };
        let (ca, cb) = (cap(a), cap(b));
        // used / (cluster · capacity / 100): the cluster's size is common to both sides. Under
        // the dominant calculator CapacityScheduler's used capacity is the dominant share of
        // what the queue holds over that of its guarantee (`Resources.divide`): in percentage
        // and weight modes a guarantee's largest share of the cluster is its capacity in every
        // type; in absolute and vector modes its own.
        let share = |i: usize, capacity: f64| match (used_types, &self.types) {
            (Some(u), Some(t)) => {
                let held = dominant::dominant_share(&t.cluster, &u[i]);
                let guaranteed = match (&self.queues.absolute, self.node_partition) {
                    (Some(_), None) => {
                        100.0 * dominant::dominant_share(&t.cluster, &t.guarantee[i])
                    }
                    _ => capacity,
                };
                held / guaranteed.max(1e-9)
            }
            _ => used[i] as f64 / capacity.max(1e-9),
        };
        let ra = share(a, ca);
        let rb = share(b, cb);
        ra.total_cmp(&rb)
            .then(cb.total_cmp(&ca))
            .then(a.cmp(&b))
            .is_lt()
    }

    /// What leaf `i` may still take in the node's divided partition under its own and its
    /// ancestors' maximum there.
    fn partition_room(&self, i: usize, used: &[u64], parent_used: &[u64]) -> u64 {
        let mut room = self.part.maximum_mb[i].saturating_sub(used[i]);
        for &p in &self.queues.queues[i].ancestors {
            room = room.min(self.part.parent_maximum_mb[p].saturating_sub(parent_used[p]));
        }
        room
    }

    /// The figures of divided partition `k` for a heartbeat of one of its nodes, as `measure`
    /// takes the cluster's: each leaf's and parent's memory there (containers on its nodes,
    /// decided ones included) and maximum, and each user's memory there and limit, with the
    /// leaf's guarantee in the partition in place of its cluster guarantee.
    fn measure_partition(&mut self, state: &ClusterState, k: usize) {
        let n = self.queues.queues.len();
        let name = self.queues.partitions[k].as_str();
        let size_mb = state.partition_capacity(name).memory_mb;
        let f = &mut self.part;
        f.capacity = self
            .queues
            .queues
            .iter()
            .map(|q| q.partition_shares[k].0)
            .collect();
        f.used_mb = vec![0; n];
        for (queue, q) in state.queues().iter() {
            if let Some(i) = self.queues.index_of(queue) {
                f.used_mb[i] = f.used_mb[i].saturating_add(q.by_partition.get(name).memory_mb);
            }
        }
        let mut decided_mb: HashMap<Arrival, u64> = HashMap::new();
        for u in state.in_flight().iter().filter(|u| u.partition == name) {
            if let Some(i) = self.queues.index_of(&u.queue) {
                f.used_mb[i] = f.used_mb[i].saturating_add(u.resource.memory_mb);
            }
            let mb = decided_mb.entry(u.app).or_insert(0);
            *mb = mb.saturating_add(u.resource.memory_mb);
        }
        f.maximum_mb = self
            .queues
            .queues
            .iter()
            .map(|q| percent_of(size_mb, q.partition_shares[k].1))
            .collect();
        f.parent_maximum_mb = self
            .queues
            .parents
            .iter()
            .map(|p| percent_of(size_mb, p.partition_shares[k].1))
            .collect();
        f.parent_used_mb = vec![0; self.queues.parents.len()];
        for (i, q) in self.queues.queues.iter().enumerate() {
            for &p in &q.ancestors {
                f.parent_used_mb[p] = f.parent_used_mb[p].saturating_add(f.used_mb[i]);
            }
        }
        f.user_used_mb = vec![0; self.users.len()];
        f.user_limit_mb = vec![0; self.users.len()];
        if self.users.is_empty() {
            return;
        }
        for app in state.apps() {
            if let Some(&slot) = self.app_user.get(&app.arrival) {
                let decided = decided_mb.get(&app.arrival).copied().unwrap_or(0);
                f.user_used_mb[slot] = f.user_used_mb[slot]
                    .saturating_add(app.used_by_partition.get(name).memory_mb)
                    .saturating_add(decided);
            }
        }
        for slot in 0..self.users.len() {
            let i = self.user_leaf[slot];
            let q = &self.queues.queues[i];
            let Some(limit) = q.user_limit else { continue };
            let guarantee = percent_of(size_mb, f.capacity[i]);
            f.user_limit_mb[slot] = user_limit_mb(
                guarantee,
                f.used_mb[i],
                f.maximum_mb[i],
                self.active[i],
                limit,
            );
        }
    }

    fn queue_of(&self, app: &App) -> Option<usize> {
        self.app_queue
            .get(&app.arrival)
            .copied()
            .or_else(|| self.queues.index_of(&app.queue))
    }

    /// What leaf `i` may still take under its own and its ancestors' maximum-capacity, with
    /// `used` per leaf and `parent_used` per parent.
    fn queue_room(&self, i: usize, used: &[u64], parent_used: &[u64]) -> u64 {
        let mut room = self.maximum_mb[i].saturating_sub(used[i]);
        for &p in &self.queues.queues[i].ancestors {
            room = room.min(self.parent_maximum_mb[p].saturating_sub(parent_used[p]));
        }
        room
    }

    /// The queue holding every app with outstanding asks, `None` when two queues have some (or
    /// no app has any).
    fn only_hungry_queue(&self, state: &ClusterState) -> Option<usize> {
        if self.queues.queues.len() == 1 {
            return Some(0);
        }
        let mut seen = None;
        for app in state.pending_apps_by_submission() {
            let Some(i) = self.queues.index_of(&app.queue) else {
                continue;
            };
            match seen {
                None => seen = Some(i),
                Some(j) if j != i => return None,
                Some(_) => {}
            }
        }
        seen
    }

    /// Every leaf's and parent's usage, and each user's usage and limit in leaves that have
    /// a user limit, as CapacityScheduler computes it for the leaf:
    /// `limit = min(max(current / active, current · minimum-user-limit-percent / 100),
    /// guarantee · user-limit-factor)` where `current` is the queue's guarantee, or what it
    /// holds once past it, `active` the users with outstanding asks there (at least 1), and a
    /// factor of -1 means the queue's maximum instead.
    fn measure(&mut self, state: &ClusterState) {
        let n = self.queues.queues.len();
        // The default partition's own nodes, as CapacityScheduler's label manager measures
        // it: labelled nodes are other partitions' (the whole cluster while none is).
        let cluster = state.partition_capacity("");
        self.queues.set_cluster(cluster);
        let cluster_mb = cluster.memory_mb;
        let used = self.queues.default_used(state);
        self.used_mb = used.iter().map(|r| r.memory_mb).collect();
        // What each queue holds on labelled nodes: all it holds, less the default partition's.
        let outside: Vec<Resource> = self
            .queues
            .used(state)
            .iter()
            .zip(&used)
            .map(|(all, here)| all.saturating_sub(here))
            .collect();
        self.outside_mb = outside.iter().map(|r| r.memory_mb).collect();
        for i in 0..n {
            self.maximum_mb[i] = self.queues.maximum_mb(i, cluster_mb);
        }
        self.parent_used_mb.iter_mut().for_each(|u| *u = 0);
        self.parent_outside_mb.iter_mut().for_each(|u| *u = 0);
        for (i, q) in self.queues.queues.iter().enumerate() {
            for &p in &q.ancestors {
                self.parent_used_mb[p] = self.parent_used_mb[p].saturating_add(self.used_mb[i]);
                self.parent_outside_mb[p] =
                    self.parent_outside_mb[p].saturating_add(self.outside_mb[i]);
            }
        }
        for (p, parent) in self.queues.parents.iter().enumerate() {
            self.parent_maximum_mb[p] = percent_of(cluster_mb, parent.maximum_capacity);
        }
        if let Some(t) = self.types.as_mut() {
            t.cluster = cluster;
            t.outside = outside;
            t.used = used;
            t.maximum = (0..n).map(|i| self.queues.maximum(i, &cluster)).collect();
            t.guarantee = (0..n).map(|i| self.queues.guarantee(i, &cluster)).collect();
            t.parent_maximum = (0..self.queues.parents.len())
                .map(|p| self.queues.parent_maximum(p, &cluster))
                .collect();
            t.parent_used = vec![Resource::ZERO; self.queues.parents.len()];
            t.parent_outside = vec![Resource::ZERO; self.queues.parents.len()];
            for (i, q) in self.queues.queues.iter().enumerate() {
                for &p in &q.ancestors {
                    t.parent_used[p] = t.parent_used[p].add(&t.used[i]);
                    t.parent_outside[p] = t.parent_outside[p].add(&t.outside[i]);
                }
            }
            t.user_used.clear();
            t.user_limit.clear();
            t.user_am_used.clear();
            t.user_am_limit.clear();
        }
        self.app_user.clear();
        self.users.clear();
        self.user_leaf.clear();
        if self.queues.queues.iter().all(|q| q.user_limit.is_none()) {
            return;
        }
        self.am_used_mb.iter_mut().for_each(|u| *u = 0);
        for (name, q) in state.queues().iter() {
            if let Some(i) = self.queues.index_of(name) {
                self.am_used_mb[i] = self.am_used_mb[i]
                    .saturating_add(q.am_used.memory_mb)
                    .saturating_add(state.queue_am_in_flight_mb(name));
            }
        }
        // Users are keyed by (leaf, name) for this heartbeat only; std's hasher is keyed, so
        // submitted user names cannot pick the buckets.
        let mut slot_of: HashMap<(usize, &str), usize> = HashMap::new();
        // Containers decided for an app and not yet created count as its user's, as they count
        // for its queue (`CapacityQueues::used_mb`); one pass over the in-flight decisions.
        // Only those on nodes with no label count in the default partition (`outside`: the
        // others).
        let mut decided_mb: HashMap<Arrival, u64> = HashMap::new();
        let mut outside_mb: HashMap<Arrival, u64> = HashMap::new();
        let mut decided: HashMap<Arrival, Resource> = HashMap::new();
        let mut decided_am: HashMap<Arrival, Resource> = HashMap::new();
        for f in state.in_flight() {
            let here = f.partition.is_empty();
            let mb = if here {
                decided_mb.entry(f.app).or_insert(0)
            } else {
                outside_mb.entry(f.app).or_insert(0)
            };
            *mb = mb.saturating_add(f.resource.memory_mb);
            if self.types.is_some() {
                if here {
                    let r = decided.entry(f.app).or_insert(Resource::ZERO);
                    *r = r.add(&f.resource);
                }
                if f.am {
                    let r = decided_am.entry(f.app).or_insert(Resource::ZERO);
                    *r = r.add(&f.resource);
                }
            }
        }
        let mut active: Vec<u32> = vec![0; n];
        for app in state.apps() {
            let Some(i) = self.queues.index_of(&app.queue) else {
                continue;
            };
            if self.queues.queues[i].user_limit.is_none() {
                continue;
            }
            let slot = *slot_of.entry((i, app.user.as_str())).or_insert_with(|| {
                self.users.push(UserSlot {
                    used_mb: 0,
                    limit_mb: 0,
                    outside_mb: 0,
                    am_used_mb: 0,
                    am_limit_mb: 0,
                });
                self.user_leaf.push(i);
                if let Some(t) = self.types.as_mut() {
                    t.user_used.push(Resource::ZERO);
                    t.user_limit.push(Resource::ZERO);
                    t.user_am_used.push(Resource::ZERO);
                    t.user_am_limit.push(Resource::ZERO);
                }
                self.users.len() - 1
            });
            let held = app.used_by_partition.of(&app.used, "");
            if let Some(t) = self.types.as_mut() {
                let d = decided.get(&app.arrival).copied().unwrap_or(Resource::ZERO);
                t.user_used[slot] = t.user_used[slot].add(&held).add(&d);
                let d = decided_am
                    .get(&app.arrival)
                    .copied()
                    .unwrap_or(Resource::ZERO);
                t.user_am_used[slot] = t.user_am_used[slot].add(&app.am_used).add(&d);
            }
            let u = &mut self.users[slot];
            let decided = decided_mb.get(&app.arrival).copied().unwrap_or(0);
            u.used_mb = u
                .used_mb
                .saturating_add(held.memory_mb)
                .saturating_add(decided);
            let elsewhere = app.used.memory_mb.saturating_sub(held.memory_mb);
            u.outside_mb = u
                .outside_mb
                .saturating_add(elsewhere)
                .saturating_add(outside_mb.get(&app.arrival).copied().unwrap_or(0));
            u.am_used_mb = u
                .am_used_mb
                .saturating_add(app.am_used.memory_mb)
                .saturating_add(state.app_am_in_flight_mb(app.arrival));
            self.app_user.insert(app.arrival, slot);
        }
        let mut counted: HashMap<usize, ()> = HashMap::new();
        // A user whose apps only wait for activation is active too: CapacityScheduler counts a
        // user once an app of theirs asks for anything, its AM included.
        for app in state
            .pending_apps_by_submission()
            .chain(state.awaiting_apps())
        {
            if let Some(&slot) = self.app_user.get(&app.arrival) {
                if counted.insert(slot, ()).is_none() {
                    if let Some(i) = self.queues.index_of(&app.queue) {
                        active[i] += 1;
                    }
                }
            }
        }
        for (&(i, _), &slot) in &slot_of {
            let q = &self.queues.queues[i];
            let Some(limit) = q.user_limit else { continue };
            let guarantee = percent_of(cluster_mb, q.capacity);
            let users = active[i].max(1) as u64;
            self.users[slot].limit_mb = user_limit_mb(
                guarantee,
                self.used_mb[i],
                self.maximum_mb[i],
                active[i],
                limit,
            );
            // The user AM limit, a part of the user limit as CapacityScheduler takes it: the
            // queue's AM share of its guarantee (not what it may use), times the user's share
            // max(minimum-user-limit-percent, 1 / active users) and the user-limit-factor (a
            // factor of -1: the queue's AM share of its guarantee), never above the queue's AM
            // limit. AM limits are not kept per partition: an AM may ask for a labelled one,
            // so they are of the whole cluster.
            let am_guarantee = percent_of(state.capacity().memory_mb, q.capacity);
            let am_share = am_guarantee as f64 * q.maximum_am_resource_percent;
            let user_share = (limit.minimum_user_limit_percent / 100.0)
                .max(1.0 / users as f64)
                .min(1.0);
            let am_limit = if limit.user_limit_factor < 0.0 {
                am_share
            } else {
                am_share * user_share * limit.user_limit_factor
            };
            self.users[slot].am_limit_mb = (am_limit as u64).min(self.queue_am_cap_mb(state, i));
            if self.types.is_some() {
                let queue_am = self.queue_am_cap(state, i);
                let Some(t) = self.types.as_mut() else {
                    continue;
                };
                let guarantee = t.guarantee[i];
                t.user_limit[slot] = user_limit(
                    &t.cluster,
                    guarantee,
                    t.used[i],
                    t.maximum[i],
                    active[i],
                    limit,
                );
                // The memory formula above in every type, the smaller of it and the queue's AM
                // limit by the dominant comparison (AbstractLeafQueue#getUserAMResourceLimit).
                let pct = q.maximum_am_resource_percent;
                let factor = if limit.user_limit_factor < 0.0 {
                    1.0
                } else {
                    user_share * limit.user_limit_factor
                };
                let am_guarantee = self.queues.guarantee(i, &state.capacity());
                let user_am = dominant::map(&am_guarantee, |v| (v as f64 * pct * factor) as u64);
                t.user_am_limit[slot] = dominant::min(&t.cluster, user_am, queue_am);
            }
        }
        self.active = active;
    }

    /// What leaf `i`'s AMs may hold: its maximum-am-resource-percent of the larger of its
    /// guarantee and what it may hold now under its and its ancestors' maxima. (The
    /// `locus.capacity.queues` shortcut keeps half the queue's guarantee.)
    /// [`Self::queue_am_cap_mb`] in every type, under the dominant calculator: the usable
    /// resource is what the queue may hold now when its guarantee fits in that, else the
    /// guarantee (AbstractLeafQueue#calculateAndGetAMResourceLimitPerPartition).
    fn queue_am_cap(&self, state: &ClusterState, i: usize) -> Resource {
        let q = &self.queues.queues[i];
        let cluster = state.capacity();
        let guaranteed = self.queues.guarantee(i, &cluster);
        let usable = if self.queues.from_file {
            let used = self.queues.used(state);
            let limit = used[i].add(&self.queues.room(i, &cluster, &used));
            if limit.fits(&guaranteed) {
                limit
            } else {
                guaranteed
            }
        } else {
            guaranteed
        };
        let pct = q.maximum_am_resource_percent;
        dominant::map(&usable, |v| share_of(v, pct))
    }

    /// What leaf `i`'s AMs hold in every type (decided ones included).
    fn queue_am_used(&self, state: &ClusterState, i: usize) -> Resource {
        let held = state
            .queues()
            .iter()
            .filter(|(name, _)| self.queues.index_of(name) == Some(i))
            .fold(Resource::ZERO, |sum, (_, q)| sum.add(&q.am_used));
        state
            .in_flight()
            .iter()
            .filter(|u| u.am && self.queues.index_of(&u.queue) == Some(i))
            .fold(held, |sum, u| sum.add(&u.resource))
    }

    fn queue_am_cap_mb(&self, state: &ClusterState, i: usize) -> u64 {
        let q = &self.queues.queues[i];
        let cluster_mb = state.capacity().memory_mb;
        let guaranteed = percent_of(cluster_mb, q.capacity);
        let usable = if self.queues.from_file {
            let used = self.queues.used_mb(state);
            let limit = used[i].saturating_add(self.queues.room_mb(i, cluster_mb, &used));
            guaranteed.max(limit)
        } else {
            guaranteed
        };
        share_of(usable, q.maximum_am_resource_percent)
    }
}

impl JobPolicy for CapacityPolicy {
    fn name(&self) -> &'static str {
        "capacity"
    }

    fn order(&mut self, state: &ClusterState, node: &Node, _now_ms: u64) -> Vec<Arrival> {
        let n = self.queues.queues.len();
        self.measure(state);
        self.node_partition = self.queues.partition_index(&node.partition);
        self.in_partition = self.node_partition.is_some();
        self.node_labelled = !node.partition.is_empty();
        if let Some(k) = self.node_partition {
            self.measure_partition(state, k);
        }
        self.app_queue.clear();
        self.predicted.clear();
        self.alone = self
            .only_hungry_queue(state)
            // A fair queue re-sorts its apps after every container: the general walk below.
            .filter(|&i| self.queues.queues[i].fair.is_none());
        if self.alone.is_some() {
            // ParentQueue has no one to share the node with: the LeafQueue hands it to its apps
            // in submission order, and each keeps it while it can use it (assign-multiple
            // re-walks the queue from its first app after every container).
            return state
                .pending_apps_by_submission()
                .map(|a| a.arrival)
                .collect();
        }
        let mut lines: Vec<Vec<Candidate>> = (0..n).map(|_| Vec::new()).collect();
        for app in state.pending_apps_by_submission() {
            // Core refuses apps of unconfigured queues and reconfigurations that would strand
            // one, so an app outside every queue cannot be here.
            let Some(i) = self.queues.index_of(&app.queue) else {
                continue;
            };
            self.app_queue.insert(app.arrival, i);
            let partition = self.node_partition.map(|_| node.partition.as_str());
            let fair = self.queues.queues[i].fair.is_some();
            if let Some(mut c) = candidate_in(app, partition) {
                if fair {
                    c.pending_mb = pending_mb(app);
                }
                lines[i].push(c);
            } else if partition.is_some() {
                // Listed for the default partition's pass that may borrow the node's room,
                // with nothing predicted in the node's own.
                if let Some(mut c) = candidate(app) {
                    c.left = 0;
                    lines[i].push(c);
                }
            }
        }
        for (i, line) in lines.iter_mut().enumerate() {
            if let Some(f) = self.queues.queues[i].fair {
                sort_fair(line, f);
            }
        }

        let (mut used, mut parent_used) = match self.node_partition {
            Some(_) => (self.part.used_mb.clone(), self.part.parent_used_mb.clone()),
            None => (self.used_mb.clone(), self.parent_used_mb.clone()),
        };
        let mut used_types = self
            .types
            .as_ref()
            .map(|t| (t.used.clone(), t.parent_used.clone()));
        let mut room = node.unallocated;
        let mut out = Vec::new();

        // One container at a time to the least served queue that may still grow, as the
        // ParentQueue re-sorts its children after each assignment.
        let mut head = vec![0usize; n];
        while out.len() < MAX_PREDICTED {
            let mut best: Option<usize> = None;
            for i in 0..n {
                let line = &lines[i];
                // Room only shrinks during the heartbeat: an app whose next container does not
                // fit now never will, and the queue's next app in line gets its turn.
                while head[i] < line.len()
                    && (line[head[i]].left == 0 || !room.fits(&line[head[i]].next))
                {
                    head[i] += 1;
                }
                let Some(c) = line.get(head[i]) else { continue };
                let fits = match (&self.types, &used_types) {
                    // A partition the file does not divide is shared whole.
                    _ if self.node_labelled && self.node_partition.is_none() => true,
                    (Some(t), Some((u, pu))) => t.room(&self.queues, i, u, pu).fits(&c.next),
                    _ => {
                        let room = match self.node_partition {
                            Some(_) => self.partition_room(i, &used, &parent_used),
                            None => self.queue_room(i, &used, &parent_used),
                        };
                        c.next.memory_mb <= room
                    }
                };
                if !fits {
                    continue;
                }
                let typed = used_types.as_ref().map(|(u, _)| u.as_slice());
                if best.is_none_or(|b| self.before(i, b, &used, typed)) {
                    best = Some(i);
                }
            }
            let Some(i) = best else { break };
            let c = &mut lines[i][head[i]];
            room = room.saturating_sub(&c.next);
            used[i] += c.next.memory_mb;
            for &p in &self.queues.queues[i].ancestors {
                parent_used[p] += c.next.memory_mb;
            }
            if let Some((u, pu)) = used_types.as_mut() {
                u[i] = u[i].add(&c.next);
                for &p in &self.queues.queues[i].ancestors {
                    pu[p] = pu[p].add(&c.next);
                }
            }
            c.took_one();
            out.push(c.arrival);
            if let Some(f) = self.queues.queues[i].fair {
                // Its share grew: back to its place in fair order, among the apps that may
                // still take one (those before the head never will this heartbeat).
                let line = &mut lines[i];
                let mut k = head[i];
                while k + 1 < line.len() && f.before(&line[k + 1], &line[k]) {
                    line.swap(k, k + 1);
                    k += 1;
                }
            }
        }

        for a in &out {
            *self.predicted.entry(*a).or_default() += 1;
        }
        let mut by_service: Vec<usize> = (0..n).collect();
        let typed = used_types.as_ref().map(|(u, _)| u.as_slice());
        by_service.sort_by(|&a, &b| {
            if self.before(a, b, &used, typed) {
                std::cmp::Ordering::Less
            } else if self.before(b, a, &used, typed) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        for i in by_service {
            out.extend(lines[i].iter().map(|c| c.arrival));
        }
        out
    }

    fn turn_limit(&mut self, app: Arrival) -> u32 {
        // The procedure asks at each visit it makes, in `order`'s order, and skips an app only
        // for good (sitting out, or nothing left that fits the shrinking room), so an app's
        // first visits asked about are its predicted ones.
        match self.predicted.get_mut(&app) {
            Some(left) if *left > 0 => {
                *left -= 1;
                1
            }
            _ => u32::MAX,
        }
    }

    /// The queue's room under its own and its ancestors' maximum-capacity and, in a leaf with a
    /// user limit, the user's: CapacityScheduler gives a user a container while what the user
    /// holds is at most the limit, so a user below it may take one more container of `key`'s
    /// size, even past the limit. (The size of the app's first pending key instead held back a
    /// bigger later key for good whenever the first could run nowhere.)
    fn room(&mut self, _state: &ClusterState, app: &App, key: SchedulerKey) -> Option<Resource> {
        let i = self.queue_of(app)?;
        let partition = self.node_partition.filter(|_| self.in_partition);
        if self.node_labelled && partition.is_none() {
            // A default-partition key borrowing a labelled node: CapacityScheduler holds
            // every queue to the whole partition there (what the node has free already
            // bounds), and its user limit, capped by the partition, binds only with a
            // minimum-user-limit-percent below 100. A partition the file does not divide is
            // shared whole.
            return None;
        }
        if let Some(t) = &self.types {
            // Every type under the maxima, and what the user may still start: CapacityScheduler
            // lets a user start a container while what it holds is not greater than its limit
            // by the dominant comparison, whatever the container's size. The room is one
            // resource for every key of the app: exactly the containers of its first placeable
            // size the rule allows, and in each type what is left under the limit plus the
            // largest placeable container's amount, so any one of its keys may start while the
            // user is within the limit and keys of other sizes are held to it type by type (a
            // holding within the limit in every type is within it by the dominant comparison
            // too).
            let mut room = t.room(&self.queues, i, &t.used, &t.parent_used);
            if let Some(&slot) = self.app_user.get(&app.arrival) {
                let (used, limit) = (&t.user_used[slot], &t.user_limit[slot]);
                let (next, largest) = placeable(app, &room);
                let k = dominant::starts_under(&t.cluster, used, limit, &next);
                let user_room = if k == 0 {
                    Resource::ZERO
                } else {
                    let each = limit.saturating_sub(used).add(&largest);
                    dominant::zip(&next.times(k), &each, u64::max)
                };
                room = dominant::per_type_min(&room, &user_room);
            }
            return Some(room);
        }
        let mut mb = match partition {
            Some(_) => self.partition_room(i, &self.part.used_mb, &self.part.parent_used_mb),
            None => self.queue_room(i, &self.used_mb, &self.parent_used_mb),
        };
        if let Some(&slot) = self.app_user.get(&app.arrival) {
            let (used, limit) = match partition {
                Some(_) => (self.part.user_used_mb[slot], self.part.user_limit_mb[slot]),
                None => (self.users[slot].used_mb, self.users[slot].limit_mb),
            };
            let user_room = if used > limit {
                0
            } else {
                let next = app
                    .asks
                    .table(&key)
                    .and_then(|t| t.row(crate::state::names::ANY_ID))
                    .map_or(0, |r| r.capability.memory_mb);
                (limit - used).saturating_add(next)
            };
            mb = mb.min(user_room);
        }
        Some(Resource {
            memory_mb: mb,
            // Queue limits compare memory, as the default resource calculator does.
            vcores: u32::MAX,
            extra: [u64::MAX; crate::protocol::MAX_EXTRA_TYPES],
        })
    }

    /// The leaf's and its ancestors' maxima and the user's limit as [`Self::measure`] computed
    /// them for this heartbeat.
    /// (Capped at what a Java `long` holds, as the frame carries them: a ceiling that high
    /// binds nothing a real cluster holds.)
    ///
    /// A key of a divided partition gets none: the shim re-checks against what a queue holds
    /// in the whole cluster, and the partition's ceilings are the core's alone.
    ///
    /// Under the dominant calculator the maxima the decision was held to go in every type
    /// (`type_maxima`), and the user limit is left out: it compares dominant shares, which no
    /// per-type ceiling expresses, and one would refuse containers the rule allows.
    fn commit_limits(&self, app: &App, partition: &str) -> Option<CommitLimits> {
        if self.node_labelled || self.queues.partition_index(partition).is_some() {
            return None;
        }
        let i = self.queue_of(app)?;
        // The shim counts what a queue holds everywhere: the default partition's ceiling
        // plus what the queue held on labelled nodes when the decision was made.
        let cap = |mb: u64, outside: u64| mb.saturating_add(outside).min(i64::MAX as u64);
        let type_maxima = self.types.as_ref().map_or_else(Vec::new, |t| {
            let ancestors = self.queues.queues[i]
                .ancestors
                .iter()
                .map(|&p| t.parent_maximum[p].add(&t.parent_outside[p]));
            std::iter::once(t.maximum[i].add(&t.outside[i]))
                .chain(ancestors)
                .flat_map(|r| std::iter::once(r.vcores as u64).chain(r.extra))
                .map(|v| cap(v, 0))
                .take(MAX_TYPE_MAXIMA)
                .collect()
        });
        Some(CommitLimits {
            queue_max_mb: Some(cap(self.maximum_mb[i], self.outside_mb[i])),
            ancestor_max_mb: self.queues.queues[i]
                .ancestors
                .iter()
                .map(|&p| cap(self.parent_maximum_mb[p], self.parent_outside_mb[p]))
                .collect(),
            user_limit_mb: self
                .app_user
                .get(&app.arrival)
                .filter(|_| self.types.is_none())
                .map(|&slot| cap(self.users[slot].limit_mb, self.users[slot].outside_mb)),
            type_maxima,
        })
    }

    /// A queue's AMs are bounded by its own maximum-am-resource-percent, as in
    /// CapacityScheduler: of the queue's usable memory, the larger of its guarantee and what it
    /// may hold now under its and its ancestors' maxima. (The `locus.capacity.queues` shortcut
    /// keeps half the queue's guarantee.) One cluster-wide bound let a burst of submissions to
    /// one queue hold back every other queue's first AM with half the cluster idle. An app
    /// outside the configured queues keeps the cluster-wide bound.
    fn am_pool(&self, state: &ClusterState, app: &App) -> Option<AmPool> {
        let Some(i) = self.queue_of(app) else {
            return Some(AmPool {
                key: 0,
                cap_mb: share_of(state.capacity().memory_mb, MAX_AM_SHARE),
                used_mb: state.am_used().memory_mb,
                queue_used_mb: Some(super::queue_am_mb(state, app)),
                stretch_mb: 0,
                types: None,
            });
        };
        let used_mb = state
            .queues()
            .iter()
            .filter(|(name, _)| self.queues.index_of(name) == Some(i))
            .fold(0u64, |sum, (name, q)| {
                sum.saturating_add(q.am_used.memory_mb)
                    .saturating_add(state.queue_am_in_flight_mb(name))
            });
        Some(AmPool {
            key: i as u32 + 1,
            cap_mb: self.queue_am_cap_mb(state, i),
            used_mb,
            queue_used_mb: None,
            stretch_mb: 0,
            types: self.types.as_ref().map(|_| AmTypes {
                cap: self.queue_am_cap(state, i),
                used: self.queue_am_used(state, i),
            }),
        })
    }

    fn prepare_activation(&mut self, state: &ClusterState, _now_ms: u64) {
        self.measure(state);
    }

    fn partition_pass(&mut self, partition: &str) {
        self.in_partition =
            self.node_partition.is_some() && self.queues.partition_index(partition).is_some();
    }

    /// As measured by `prepare_activation` (or the last order).
    fn am_user_limit(&self, _state: &ClusterState, app: &App) -> Option<(usize, u64, u64)> {
        let &slot = self.app_user.get(&app.arrival)?;
        let u = &self.users[slot];
        Some((slot, u.am_limit_mb, u.am_used_mb))
    }

    fn am_user_limit_types(&self, app: &App) -> Option<(Resource, Resource)> {
        let t = self.types.as_ref()?;
        let &slot = self.app_user.get(&app.arrival)?;
        Some((t.user_am_limit[slot], t.user_am_used[slot]))
    }

    /// MapReduce AMs of a user in a leaf with a user limit: as many as fit under the user AM
    /// limit ([`Self::measure`]); one in a queue whose AMs hold nothing, as CapacityScheduler
    /// starts one application in a queue whose AM limit is too small for it.
    fn admit(&mut self, _state: &ClusterState, _node: &Node, app: &App, kind: TaskKind) -> u32 {
        if kind != TaskKind::ApplicationMaster {
            return u32::MAX;
        }
        let (Some(&slot), Some(i)) = (self.app_user.get(&app.arrival), self.queue_of(app)) else {
            return u32::MAX;
        };
        let size = candidate(app).map_or(1, |c| c.next.memory_mb.max(1));
        let u = &self.users[slot];
        let mut fit =
            (u.am_limit_mb.saturating_sub(u.am_used_mb) / size).min(u32::MAX as u64) as u32;
        if let (Some(t), Some(c)) = (&self.types, candidate(app)) {
            let left = t.user_am_limit[slot].saturating_sub(&t.user_am_used[slot]);
            fit = fit.min(left.count_fitting(&c.next));
        }
        if self.am_used_mb[i] == 0 {
            fit.max(1)
        } else {
            fit
        }
    }

    fn placed(&mut self, app: Arrival, kind: TaskKind, count: u32, capability: Resource) {
        let mb = capability.memory_mb.saturating_mul(count as u64);
        let queue = self.app_queue.get(&app).copied().or(self.alone);
        // A labelled node's partition holds it, not the default one.
        let here = !self.node_labelled;
        if let Some(t) = self.types.as_mut() {
            let all = capability.times(count as u64);
            if let Some(i) = queue.filter(|_| here) {
                t.used[i] = t.used[i].add(&all);
                for &p in &self.queues.queues[i].ancestors {
                    t.parent_used[p] = t.parent_used[p].add(&all);
                }
            }
            if let Some(&slot) = self.app_user.get(&app) {
                if here {
                    t.user_used[slot] = t.user_used[slot].add(&all);
                }
                if kind == TaskKind::ApplicationMaster {
                    t.user_am_used[slot] = t.user_am_used[slot].add(&all);
                }
            }
        }
        if let Some(i) = queue.filter(|_| here) {
            self.used_mb[i] = self.used_mb[i].saturating_add(mb);
            for &p in &self.queues.queues[i].ancestors {
                self.parent_used_mb[p] = self.parent_used_mb[p].saturating_add(mb);
            }
        }
        if self.node_partition.is_some() {
            // The node's partition holds it, whichever partition's key it was (a lent one too,
            // as CapacityScheduler charges the node's partition).
            let f = &mut self.part;
            if let Some(i) = queue {
                f.used_mb[i] = f.used_mb[i].saturating_add(mb);
                for &p in &self.queues.queues[i].ancestors {
                    f.parent_used_mb[p] = f.parent_used_mb[p].saturating_add(mb);
                }
            }
            if let Some(&slot) = self.app_user.get(&app) {
                f.user_used_mb[slot] = f.user_used_mb[slot].saturating_add(mb);
            }
        }
        if let Some(&slot) = self.app_user.get(&app) {
            let u = &mut self.users[slot];
            if here {
                u.used_mb = u.used_mb.saturating_add(mb);
            }
            if kind == TaskKind::ApplicationMaster {
                u.am_used_mb = u.am_used_mb.saturating_add(mb);
                if let Some(i) = queue {
                    self.am_used_mb[i] = self.am_used_mb[i].saturating_add(mb);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(value: &str) -> String {
        match CapacityQueues::parse(value) {
            Err(CoreError::Config { key, message }) => {
                assert_eq!(key, CAPACITY_QUEUES);
                message
            }
            other => panic!("{value:?}: expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn queues_parse_with_default_maximum_and_root_paths() {
        let q = CapacityQueues::parse(" a:50:90 , b:50").unwrap();
        assert_eq!(q.names(), vec!["a", "b"]);
        assert_eq!(q.queues()[0].maximum_capacity, 90.0);
        assert_eq!(q.queues()[1].maximum_capacity, 100.0);
        assert_eq!(q.resolve("root.b"), Some("b"));
        assert_eq!(q.resolve("c"), None);
        assert_eq!(q.maximum_mb(0, 10_000), 9_000);
        let thirds = CapacityQueues::parse("x:33.33,y:33.33,z:33.34").unwrap();
        assert_eq!(thirds.queues().len(), 3);
        assert_eq!(CapacityQueues::default().names(), vec!["default"]);
    }

    #[test]
    fn bad_queue_lists_name_the_problem() {
        assert!(
            err("a:50,b:40").contains("sum to 90"),
            "{}",
            err("a:50,b:40")
        );
        assert!(err("a:50,a:50").contains("listed twice"));
        assert!(err("a.b:100").contains("contains '.'"));
        assert!(err(":100").contains("no queue name"));
        assert!(err("a:0,b:100").contains("capacity \"0\""));
        assert!(err("a:50:40,b:50").contains("below its capacity"));
        assert!(err("a:50:120,b:50").contains("maximum-capacity \"120\""));
        assert!(err("a:50:90:1,b:50").contains("not name:capacity"));
        assert!(err("a").contains("not name:capacity"));
        assert!(err("a:lots").contains("a:50:90,b:50:90"));
    }
}
