//! The four policy layers, each chosen by one `locus.*` setting and independent of the others:
//!
//! | layer | setting | question it answers |
//! | --- | --- | --- |
//! | [`JobPolicy`] | `locus.policy` | which job is offered a node's free capacity first |
//! | [`LocalityTechnique`] | `locus.locality` | how far from its data a task may run right now |
//! | [`HotspotGuard`] | `locus.hotspot` | how many containers a node may still take this heartbeat |
//! | [`SlotConfigurator`] | `locus.slots` | how much of the cluster map and reduce containers may hold |
//!
//! The core runs the decision procedure ([`crate::schedule`]) and asks the layers; the layers
//! only read state. YARN's counting rules (rows, relax_locality, fit) are enforced by the
//! procedure whatever the layers say, so no layer can make the core emit an impossible decision.

pub(crate) mod am_share;
pub mod capacity;
pub mod capacity_tree;
mod delay;
pub mod dominant;
mod fair;
mod fifo;
mod fsp;
mod hadoop;
mod hotspot_off;
pub(crate) mod map_asks;
pub(crate) mod static_slots;

use crate::protocol::{CommitLimits, Locality, Resource};
use crate::state::app::{App, Arrival, SlotKind, TaskKind};
use crate::state::ask::{AskTable, SchedulerKey};
use crate::state::container::Container;
use crate::state::node::Node;
use crate::state::ClusterState;

pub use capacity::{CapacityPolicy, CapacityQueue, CapacityQueues, ParentQueue, QueueState};
pub use delay::DelayScheduling;
pub use fair::{dominant_share, Fair};
pub use fifo::Fifo;
pub use fsp::{Fsp, AM_STARTING_MS};
pub use hadoop::HadoopLocality;
pub use hotspot_off::NoHotspotGuard;
pub use static_slots::StaticSlots;

/// FairScheduler's default `maxAMShare`, the AM bound of every policy.
pub const MAX_AM_SHARE: f64 = 0.5;

/// Memory a set of applications' AMs may hold together, and what they hold now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmPool {
    /// Tells pools apart within one heartbeat (a policy's own numbering; 0 = the cluster).
    pub key: u32,
    pub cap_mb: u64,
    pub used_mb: u64,
    /// For a pool that spans queues: AM memory the app's own queue holds. CapacityScheduler
    /// starts one AM in a queue whose AMs hold nothing whatever its AM limit, so such an AM may
    /// start beyond the pool's cap. `None`: the pool is one queue's (its `used_mb` says it).
    pub queue_used_mb: Option<u64>,
    /// The most AMs may hold beyond `cap_mb`, reached one AM per heartbeat and only by an AM
    /// that does not fit under `cap_mb` (0: nothing beyond). `fsp` lets one more start while no
    /// admitted AM is still starting.
    pub stretch_mb: u64,
    /// Under CapacityScheduler's dominant resource calculator, the cap and what the pool's AMs
    /// hold in every type: an AM starts only while the AMs with it fit the cap in each
    /// (`fitsIn(amIfStarted, amLimit)`), besides the memory rule above. `None`: memory only.
    pub types: Option<AmTypes>,
}

/// An AM pool's cap and usage in every resource type ([`AmPool::types`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmTypes {
    pub cap: Resource,
    pub used: Resource,
}

/// AM memory `app`'s queue holds or has been decided for ([`AmPool::queue_used_mb`]).
pub fn queue_am_mb(state: &ClusterState, app: &App) -> u64 {
    state
        .queues()
        .get(&app.queue)
        .map_or(0, |q| q.am_used.memory_mb)
        .saturating_add(state.queue_am_in_flight_mb(&app.queue))
}

/// `share` (0..=1) of `mb`, rounded down.
pub fn share_of(mb: u64, share: f64) -> u64 {
    (mb as f64 * share) as u64
}

/// Job-level policy: the order in which applications are offered a heartbeating node.
pub trait JobPolicy: Send {
    fn name(&self) -> &'static str;

    /// Applications to offer `node` to, most deserving first. Apps left out get nothing on
    /// this heartbeat; apps with nothing outstanding may be left out.
    fn order(&mut self, state: &ClusterState, node: &Node, now_ms: u64) -> Vec<Arrival>;

    /// True when `order` is always exactly the apps with outstanding asks in FIFO order
    /// ([`ClusterState::pending_apps_by_submission`]). The heartbeat then walks that index
    /// itself and stops when the node is full, instead of listing every waiting app first:
    /// with thousands of jobs waiting, the list was most of a heartbeat's cost. Such a policy
    /// leaves `map_limit` unlimited: the walk passes over apps the room cannot fit unasked.
    fn order_is_pending_by_submission(&self) -> bool {
        false
    }

    /// Containers `app` may take each time it comes up in `order` (an order may list an app
    /// several times, e.g. fair sharing one container at a time).
    fn turn_limit(&mut self, _app: Arrival) -> u32 {
        u32::MAX
    }

    /// Map containers `app` may take on its visit (policies that decide map slots one by one,
    /// like TD; other containers are not limited by this).
    fn map_limit(&mut self, _app: Arrival) -> u32 {
        u32::MAX
    }

    /// Reduce containers `app` may take on its visit to this node (JoSS keeps reduces in the
    /// datacenter it chose for them).
    fn reduce_limit(&mut self, _app: Arrival) -> u32 {
        u32::MAX
    }

    /// The AM bound `app`'s AM falls under (one AM may always start in a pool, or a queue, whose
    /// AMs hold nothing); `None`: no bound. An AM holds its container for its job's whole life: without a
    /// bound, a burst of submissions fills the nodes with AMs whose tasks never find room
    /// (docs/design/liveness.md). Default: one pool, [`MAX_AM_SHARE`] of the cluster's memory.
    fn am_pool(&self, state: &ClusterState, app: &App) -> Option<AmPool> {
        Some(AmPool {
            key: 0,
            cap_mb: share_of(state.capacity().memory_mb, MAX_AM_SHARE),
            used_mb: state.am_used().memory_mb,
            queue_used_mb: Some(queue_am_mb(state, app)),
            stretch_mb: 0,
            types: None,
        })
    }

    /// Apps wait for activation: bring what [`Self::am_pool`] and [`Self::am_user_limit`] read
    /// up to date with `state` (called before they are asked, only while apps wait).
    fn prepare_activation(&mut self, _state: &ClusterState, _now_ms: u64) {}

    /// The per-user AM bound `app`'s AM falls under, if the policy keeps one (CapacityScheduler's
    /// user AM limit): (a number telling users apart, the most the user's AMs may hold, what they
    /// hold). Read when apps are activated; `admit` enforces it at placement.
    fn am_user_limit(&self, _state: &ClusterState, _app: &App) -> Option<(usize, u64, u64)> {
        None
    }

    /// The user AM bound of [`Self::am_user_limit`] in every resource type, for a policy that
    /// compares them all (CapacityScheduler's dominant calculator): (the most, what the user's
    /// AMs hold). `None`: memory only.
    fn am_user_limit_types(&self, _app: &App) -> Option<(Resource, Resource)> {
        None
    }

    /// Off-switch containers per heartbeat when the policy decides non-locality itself (TD,
    /// JoSS pick a job per slot, local or not); `None`: `locus.off-switch-per-heartbeat`.
    fn off_switch_limit(&self) -> Option<u32> {
        None
    }

    /// The application is gone; drop anything kept about it.
    fn app_removed(&mut self, _app: Arrival) {}

    /// Containers of `kind` `app` may take on `node` during this heartbeat (`u32::MAX`: no
    /// limit; 0 holds the key back without ending the app's turn).
    fn admit(&mut self, _state: &ClusterState, _node: &Node, _app: &App, _kind: TaskKind) -> u32 {
        u32::MAX
    }

    /// Resource `app` may still be given on this heartbeat over all its keys, spent by what is
    /// placed (`None`: no limit), asked as the procedure comes to `key`. Capacity queues'
    /// maximum-capacity; like a slot cap it holds back only keys that do not fit, not the app's
    /// smaller ones.
    fn room(&mut self, _state: &ClusterState, _app: &App, _key: SchedulerKey) -> Option<Resource> {
        None
    }

    /// The ceilings [`Self::room`] held `app` to on this heartbeat, for the shim to re-check
    /// when it commits the app's decisions for a key of `partition` (`None`: the policy keeps
    /// no queue limits). The same figures `room` used, so the commit applies no second formula.
    fn commit_limits(&self, _app: &App, _partition: &str) -> Option<CommitLimits> {
        None
    }

    /// The heartbeat's walk now places keys of `partition` (the node's own first, then, on a
    /// non-exclusive partition's node, the default partition's borrowing its idle room): what
    /// [`Self::room`] answers from here on is that partition's.
    fn partition_pass(&mut self, _partition: &str) {}

    /// `count` containers of `capability` were placed for `app` on this heartbeat.
    fn placed(&mut self, _app: Arrival, _kind: TaskKind, _count: u32, _capability: Resource) {}

    /// Something changed in the cluster (after the state applied it).
    fn observe(&mut self, _state: &ClusterState, _what: &Observed<'_>) {}

    /// What the policy wants the operator to know (`Stats`).
    fn report(&self) -> PolicyReport {
        PolicyReport::default()
    }

    /// For size-based preemption (`locus.preemption.size-based`): every application that holds
    /// a container or may be given one now, most entitled first, and how that order shares the
    /// cluster. `None`: the policy takes nothing back.
    fn entitlement_order(&self, _state: &ClusterState) -> Option<(Vec<Arrival>, ShareRule)> {
        None
    }
}

/// How a policy's order of applications shares the cluster's memory, for size-based
/// preemption ([`JobPolicy::entitlement_order`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareRule {
    /// Each application in turn may hold all it asks for, before the next one gets anything
    /// (`fsp` serves the job that would finish first in its virtual system).
    InOrder,
    /// Max-min fair shares: room is split equally, an application asking for less than its
    /// part leaving the rest to the others (`fair`).
    Equal,
}

/// Changes a policy with a model between heartbeats may follow. Times are the state's clock.
pub enum Observed<'a> {
    AppAdded(&'a App),
    AppRemoved(Arrival),
    /// A new ask snapshot, or a new blacklist (which nodes the asks may use).
    AsksUpdated(&'a App),
    /// The RM created the container (not for recovered ones).
    ContainerStarted(&'a Container),
    /// The RM recovered a running container after a restart (its start time is unknown).
    ContainerRecovered(&'a Container),
    /// Released, or lost with its node.
    ContainerFinished(&'a Container),
}

/// Jobs a policy flagged and advice for the operator (MROSA's scale-out).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PolicyReport {
    pub flagged_jobs: Vec<FlaggedJob>,
    /// Jobs flagged since the core started.
    pub flagged_total: u64,
    pub scale_out: Vec<ScaleOutAdvice>,
}

/// Scale-out advice for the operator: start `count` instances of `instance_type`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScaleOutAdvice {
    pub app: String,
    pub provider: String,
    pub instance_type: String,
    pub count: u32,
    /// Dollars (MROSA's eqs. 6-7).
    pub estimated_cost: f64,
    /// `SumCost < C_i` (true without a budget).
    pub within_budget: bool,
}

/// A job no public instance type can finish before its deadline.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FlaggedJob {
    pub app: String,
    pub reason: String,
}

/// Whether the locality technique decides how far from its data `table`'s key may run: a
/// task that may wait for locality ([`TaskKind::waits_for_locality`]: any application's tasks,
/// not AMs or MapReduce reduces) whose asks name a host or rack. A key asking for `*` only
/// has no data to wait for and is never held, nor is a key none of whose hosts and racks has a
/// node of the partition it asks for (`ClusterState::data_in_partition`): it may run only in
/// that partition, so it is local nowhere and waiting gains it nothing.
pub fn locality_applies(
    state: &ClusterState,
    app: &App,
    key: SchedulerKey,
    kind: TaskKind,
    table: &AskTable,
) -> bool {
    kind.waits_for_locality()
        && !table.locality_free()
        && state.data_in_partition(app.partitions.of(&key), table)
}

/// Locality technique: the loosest locality a key may take on a node now. The core asks only
/// for keys [`locality_applies`] to (every application type's tasks with host or rack rows);
/// AMs, MapReduce reduces and asks that name only `*` are never held back, so they cannot
/// starve behind a locality wait.
pub trait LocalityTechnique: Send {
    fn name(&self) -> &'static str;

    /// Every offer of a node, before anything else, even one that finds the node full or with no
    /// room a pending ask could use (which reach no other method but `settled`). `sweep` as
    /// below. Delay's clock of heartbeats (its "round of the cluster's heartbeats").
    fn offer_started(&mut self, _sweep: bool) {}

    /// Start of an offer of `node` to the apps in `order`. `sweep`: the offer is an async
    /// sweep's, not the node's heartbeat ([`crate::Heartbeat::sweep`]); it is not a scheduling
    /// opportunity, so a technique that counts opportunities (delay's misses, matchmaking's
    /// markers) lets it place only what its count already allows and does not advance the count.
    fn heartbeat(
        &mut self,
        _state: &ClusterState,
        _node: &Node,
        _order: &[Arrival],
        _now_ms: u64,
        _sweep: bool,
    ) {
    }

    /// Whether `heartbeat` reads its `order`; when not, a policy whose order is the pending
    /// index (see [`JobPolicy::order_is_pending_by_submission`]) passes an empty one.
    fn reads_order(&self) -> bool {
        false
    }

    /// Most non-local (rack-local or off-switch) containers the key may take on `node` now.
    fn non_local_cap(&mut self, _app: &App, _key: SchedulerKey, _node: &Node) -> u32 {
        u32::MAX
    }

    fn allowed(
        &mut self,
        app: &App,
        key: SchedulerKey,
        table: &AskTable,
        node: &Node,
        now_ms: u64,
    ) -> Locality;

    /// After the key was offered `node`: the best locality it got there, `None` if nothing.
    fn offered(
        &mut self,
        _app: Arrival,
        _key: SchedulerKey,
        _node: &Node,
        _got: Option<Locality>,
        _now_ms: u64,
    ) {
    }

    fn app_removed(&mut self, _app: Arrival) {}

    /// `node` left the cluster (the RM removed it; it may register again later).
    fn node_removed(&mut self, _node: &Node) {}

    /// End of an offer of `node` (a heartbeat or a sweep's, also one that placed nothing), with
    /// `room_before` free at its start and `room_left` unused at its end.
    fn settled(&mut self, _node: &Node, _room_before: Resource, _room_left: Resource) {}
}

/// Hotspot guard: how many more containers of this kind and locality `node` may take on this
/// heartbeat (`u32::MAX`: no limit).
pub trait HotspotGuard: Send {
    fn name(&self) -> &'static str;

    /// Start of a heartbeat of `node` (the guard's clock).
    fn heartbeat(&mut self, _state: &ClusterState, _node: &Node, _now_ms: u64) {}

    fn admit(
        &mut self,
        state: &ClusterState,
        node: &Node,
        app: &App,
        kind: TaskKind,
        locality: Locality,
    ) -> u32;

    /// Containers were placed (so a guard can count them).
    fn placed(
        &mut self,
        _node: &Node,
        _app: &App,
        _kind: TaskKind,
        _locality: Locality,
        _count: u32,
    ) {
    }
}

/// Slot configurator: the most resource containers of one pool may hold cluster-wide
/// (`None`: no cap). Containers outside both pools (AMs, generic) are never capped.
pub trait SlotConfigurator: Send {
    fn name(&self) -> &'static str;

    fn cap(&mut self, state: &ClusterState, slot: SlotKind, now_ms: u64) -> Option<Resource>;

    /// See [`JobPolicy::observe`].
    fn observe(&mut self, _state: &ClusterState, _what: &Observed<'_>) {}
}
