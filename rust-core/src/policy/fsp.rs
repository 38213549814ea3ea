//! `fsp`: size-based scheduling by virtual finish order, the Fair Sojourn Protocol (Friedman and
//! Henderson, SIGMETRICS 2003) as HFSP adapted it to Hadoop (Pastorelli et al., IEEE BigData 2013).
//!
//! Why: fair sharing is the right answer when jobs arrive over time with heavy-tailed sizes (small
//! jobs do not wait behind big ones), but when a batch is submitted at once it makes every job
//! finish near the end (n equal jobs: all finish at n·T under sharing, on average at (n+1)/2·T
//! one after another). FSP keeps a *virtual* processor-sharing system running beside the real
//! cluster and serves, in the real one, the job that would finish first in the virtual one. A
//! batch of equal jobs is then served one after another (FIFO's mean), a small job arriving
//! behind a big one overtakes it (fair's benefit), and a big job is never starved: its virtual
//! finish is fixed once its size is known, and every later arrival's lies after the virtual
//! clock, which only moves forward.
//!
//! The virtual system, in this core's units: work is a container's dominant resource in MB (its
//! memory, or its vcores at the cluster's memory per vcore when that is more) per container
//! placed, so a job's size is what it was given plus what it still asks for, both known to the
//! scheduler (HFSP estimates task durations from its first tasks; the core has no durations
//! before tasks end, so a container counts the same however long it runs). Every container
//! placed, for any job, is service the virtual system shares equally among the jobs still
//! unfinished in it: the virtual clock `v` (service per virtual job) grows by its work / (jobs
//! virtually active). A job entering at clock `v₀` with size `S` finishes virtually when the
//! clock reaches `v₀ + S`: that number is its place in the order (ties by submission, then
//! arrival). Sizes grow when an AM asks for more, which moves the job back, as HFSP's size
//! updates do; a job that was idle past its virtual finish and asks again re-enters at the
//! clock (an idle job earns no service under sharing, so it cannot bank credit).
//!
//! Each job takes all it can on its turn (as `fifo`); the jobs after it get the rest of the node.
//!
//! Only activated jobs are in the virtual system (`crate::schedule`'s activation, as
//! CapacityScheduler's active applications): a job whose AM the share cannot admit yet is not
//! ordered, so it gets its virtual start and counts among the jobs sharing the virtual service
//! from its activation on, as HFSP counts only the jobs the scheduler has admitted.
//!
//! Application priority (`yarn application -updatePriority`) comes first, as CapacityScheduler
//! compares it before anything else inside a queue; equal priorities (the default, 0) leave the
//! order to the rules here.
//!
//! Liveness: a job holding no container goes before every job that holds one (in submission
//! order among themselves), the property FairScheduler's smallest-share-first gives a job with a
//! share of 0. Without it, a cluster offered more work than it can run would keep a job that has
//! never run waiting forever behind smaller arrivals (under overload the virtual clock, split over
//! ever more jobs, slows down without bound). A MapReduce job holds its AM container, so this
//! changes nothing for jobs whose AM runs.
//!
//! AMs: one pool, CapacityScheduler's default `maximum-am-resource-percent` (10 % of the
//! cluster's memory, [`super::am_share::AM_SHARE`]) rather than FairScheduler's 50 %
//! ([`super::MAX_AM_SHARE`]), for every application type's AM ([`crate::state::app::App::kind_of`]).
//! A job waiting for its AM holds nothing, so it goes first while its AM fits in the share, one
//! AM always starting when none runs. With half the cluster, the demo's burst of six jobs started
//! all six AMs at once on an idle cluster and every job's JVMs then shared the machine's cores
//! (the demo's real jobs: 1.33x CapacityScheduler's mean turnaround, which admits three); a bound
//! that applied only while running jobs' tasks asked for the room (an earlier version) did not hold there,
//! since no task asks before the first AMs register.
//!
//! Beyond the share, up to the 50 % every policy keeps, an AM starts only while no admitted AM is
//! still starting (holds its AM and has asked for nothing else yet), one per heartbeat, and only
//! in room every job's tasks left on the node (it is offered the node after them). The share
//! alone cost the JoSS mixed workload 1.8x (15 admitted jobs in their last maps or reduces left
//! room idle while small arrivals waited for an AM, as under CapacityScheduler); letting AMs
//! beyond it go first took task room on FRESH's 10-node batches (up to 1.44x); the idle demo
//! cluster still starts its AMs in waves, each wave once the previous one's AMs have asked
//! (docs/results/default-policy.md "AMs beyond the share").

use std::cmp::Reverse;

/// How long an AM counts as still starting after it was given its container, if it asks for
/// nothing else (docs/results/default-policy.md "AMs beyond the share"): about three times the demo's
/// measured AM launch, container grant to registration, 18.3 s median on two real cores
/// (sim/src/suite.rs), so a slow launch still holds the next wave back, while an AM that asks
/// for nothing (an uber job, an idle Spark session, an unmanaged AM) stops holding every AM
/// beyond the share back for its whole life.
pub const AM_STARTING_MS: u64 = 60_000;
use std::collections::HashMap;

use super::am_share::AM_SHARE;
use super::{share_of, AmPool, JobPolicy, ShareRule, MAX_AM_SHARE};
use crate::protocol::Resource;
use crate::state::app::{App, Arrival, TaskKind};
use crate::state::names::ANY_ID;
use crate::state::node::Node;
use crate::state::ClusterState;

#[derive(Default)]
pub struct Fsp {
    /// Virtual service each job still active in the virtual system has received.
    clock: f64,
    /// Jobs active in the virtual system at the last order, at least 1.
    active: usize,
    /// The cluster's capacity at the last order, to size what is placed.
    total: Resource,
    /// Counts orders, to tell the jobs pending in this one.
    generation: u64,
    jobs: HashMap<Arrival, VirtualJob>,
    /// Apps given their AM that have asked for nothing else yet (and hold nothing else), with
    /// when the AM was given (the RM clock of the heartbeat); at most [`AM_STARTING_MS`].
    starting: HashMap<Arrival, u64>,
    /// The RM clock of the last order.
    now_ms: u64,
}

struct VirtualJob {
    /// The virtual clock when the job first asked for something.
    entered: f64,
    /// Work of every container placed for it so far.
    served: f64,
    /// The work of what it still asks for, at the last order.
    pending: f64,
    /// The last order that saw it pending.
    seen: u64,
}

impl VirtualJob {
    fn finish(&self) -> f64 {
        self.entered + self.served + self.pending
    }
}

/// A container's work: its memory, or its vcores at the cluster's memory per vcore when that is
/// more (the dominant resource, in MB). Not a share of the cluster, so a size does not change when
/// nodes register or leave (at RM start a container placed with 1 of 100 nodes up would otherwise
/// count 100 times).
fn work(capability: Resource, total: Resource) -> f64 {
    let mem = capability.memory_mb as f64;
    if total.vcores == 0 {
        return mem;
    }
    let mb_per_vcore = total.memory_mb as f64 / total.vcores as f64;
    mem.max(capability.vcores as f64 * mb_per_vcore)
}

/// Work of every container `app` still asks for (the `*` row of each key counts a key's
/// outstanding containers).
fn pending_work(app: &App, total: Resource) -> f64 {
    app.asks
        .tables()
        .filter(|(key, _)| sized(app.kind_of(key.priority)))
        .filter_map(|(_, t)| t.row(ANY_ID))
        .map(|row| row.count as f64 * work(row.capability, total))
        .sum()
}

/// Whether containers of `kind` count in a job's size. A MapReduce job's reduces do not: its AM
/// asks for them only after slow-start, and counting them then would move a job whose maps are
/// nearly done behind a bigger job whose reduces are not asked for yet, interleaving the two as
/// fair sharing does. HFSP sizes the map and reduce phases separately for the same reason; here
/// the reduces follow their job's place, which its map phase earned.
fn sized(kind: TaskKind) -> bool {
    kind != TaskKind::Reduce
}

/// Where an app stands in the order, before its virtual finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Turn {
    /// Holds no container: waits for its AM (bounded by the AM pool) or asks unmanaged.
    HoldsNothing,
    BySize,
    /// Waits for an AM that does not fit in the AM share: after every job's tasks.
    BeyondShare,
}

/// Memory of the AM `app` waits for (0: it waits for none).
fn am_ask_mb(app: &App) -> u64 {
    app.asks
        .next_pending_key(None)
        .filter(|key| app.kind_of(key.priority) == TaskKind::ApplicationMaster)
        .and_then(|key| app.asks.table(&key))
        .and_then(|t| t.row(ANY_ID))
        .map_or(0, |r| r.capability.memory_mb)
}

impl Fsp {
    pub fn new() -> Fsp {
        Fsp {
            active: 1,
            ..Fsp::default()
        }
    }
}

impl Fsp {
    /// An AM still starting holds its container (or is being given it) and nothing else; one
    /// that was refused asks for it again and still counts (for at most AM_STARTING_MS).
    /// One that asked for nothing within AM_STARTING_MS is not starting but idle; one that asks
    /// for anything else has started (as `order` finds it).
    fn prune_starting(&mut self, state: &ClusterState, now_ms: u64) {
        self.starting.retain(|a, since| {
            now_ms.saturating_sub(*since) < AM_STARTING_MS
                && state.app(*a).is_some_and(|app| {
                    app.used == app.am_used
                        && !app
                            .asks
                            .pending_keys()
                            .any(|key| app.kind_of(key.priority) != TaskKind::ApplicationMaster)
                })
        });
    }
}

impl JobPolicy for Fsp {
    fn name(&self) -> &'static str {
        "fsp"
    }

    fn order(&mut self, state: &ClusterState, _node: &Node, now_ms: u64) -> Vec<Arrival> {
        self.now_ms = now_ms;
        self.total = state.capacity();
        self.generation = self.generation.wrapping_add(1);
        let clock = self.clock;
        let mut order: Vec<(Reverse<i32>, Turn, f64, u64, Arrival)> = Vec::new();
        let am_cap = share_of(self.total.memory_mb, AM_SHARE);
        let mut am_mb = state.am_used().memory_mb;
        for app in state.pending_apps_by_submission() {
            let pending = pending_work(app, self.total);
            let job = self.jobs.entry(app.arrival).or_insert(VirtualJob {
                entered: clock,
                served: 0.0,
                pending: 0.0,
                seen: 0,
            });
            if job.pending == 0.0 && pending > 0.0 && job.entered + job.served <= clock {
                // Idle since its virtual finish (a session that asks in waves): processor sharing
                // gives an idle job no service, so it comes back as a new job of what it asks now
                // instead of spending credit banked while it asked for nothing.
                job.entered = clock - job.served;
            }
            job.pending = pending;
            job.seen = self.generation;
            if !self.starting.is_empty()
                && app
                    .asks
                    .tables()
                    .any(|(key, _)| app.kind_of(key.priority) != TaskKind::ApplicationMaster)
            {
                self.starting.remove(&app.arrival);
            }
            let turn = if app.used != Resource::ZERO {
                Turn::BySize
            } else {
                // Beyond the share an AM only takes room every job's tasks left on this node.
                let am = am_ask_mb(app);
                if am > 0 && am_mb > 0 && am_mb.saturating_add(am) > am_cap {
                    Turn::BeyondShare
                } else {
                    am_mb = am_mb.saturating_add(am);
                    Turn::HoldsNothing
                }
            };
            // Only jobs that hold something are ordered by size; the others by submission.
            let finish = if turn == Turn::BySize {
                job.finish()
            } else {
                0.0
            };
            order.push((
                Reverse(app.priority),
                turn,
                finish,
                app.submit_ms,
                app.arrival,
            ));
        }
        // A job with nothing pending keeps the size it reached: its asks were consumed by the
        // placements counted in `served`.
        let generation = self.generation;
        for job in self.jobs.values_mut() {
            if job.seen != generation {
                job.pending = 0.0;
            }
        }
        self.prune_starting(state, now_ms);
        self.active = self
            .jobs
            .values()
            .filter(|j| j.finish() > self.clock)
            .count()
            .max(1);
        order.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.total_cmp(&b.2))
                .then(a.3.cmp(&b.3))
                .then(a.4.cmp(&b.4))
        });
        order.into_iter().map(|(_, _, _, _, a)| a).collect()
    }

    /// Whether an AM may start beyond the share depends on the AMs still starting.
    fn prepare_activation(&mut self, state: &ClusterState, now_ms: u64) {
        self.prune_starting(state, now_ms);
    }

    /// CapacityScheduler's default AM share (module docs). Beyond it, up to every policy's half,
    /// one AM at a time while no admitted AM is still starting.
    fn am_pool(&self, state: &ClusterState, app: &App) -> Option<AmPool> {
        let memory = state.capacity().memory_mb;
        Some(AmPool {
            key: 0,
            cap_mb: share_of(memory, AM_SHARE),
            used_mb: state.am_used().memory_mb,
            queue_used_mb: Some(super::queue_am_mb(state, app)),
            stretch_mb: if self.starting.is_empty() {
                share_of(memory, MAX_AM_SHARE)
            } else {
                0
            },
            types: None,
        })
    }

    fn placed(&mut self, app: Arrival, kind: TaskKind, count: u32, capability: Resource) {
        if kind == TaskKind::ApplicationMaster {
            self.starting.insert(app, self.now_ms);
        } else {
            self.starting.remove(&app);
        }
        let w = count as f64 * work(capability, self.total);
        if sized(kind) {
            if let Some(job) = self.jobs.get_mut(&app) {
                job.served += w;
            }
        }
        // Every container is service the virtual system hands out, reduces included.
        self.clock += w / self.active as f64;
    }

    fn app_removed(&mut self, app: Arrival) {
        self.jobs.remove(&app);
        self.starting.remove(&app);
    }

    /// The order `order` serves, read from the virtual system without advancing it, with the
    /// applications that hold containers and ask for nothing among them (they are where room
    /// comes back from). A job waiting for an AM beyond the share is left out: room taken back
    /// for it would not start it.
    fn entitlement_order(&self, state: &ClusterState) -> Option<(Vec<Arrival>, ShareRule)> {
        let total = state.capacity();
        let am_cap = share_of(total.memory_mb, AM_SHARE);
        let mut am_mb = state.am_used().memory_mb;
        let mut ranked: Vec<(Reverse<i32>, Turn, f64, u64, Arrival)> = Vec::new();
        let mut listed = std::collections::HashSet::new();
        let finish = |app: &App| match self.jobs.get(&app.arrival) {
            Some(job) if job.seen != 0 => job.entered + job.served + pending_work(app, total),
            _ => self.clock + pending_work(app, total),
        };
        for app in state.pending_apps_by_submission() {
            let turn = if app.used != Resource::ZERO {
                Turn::BySize
            } else if !state.is_activated(app.arrival) {
                continue;
            } else {
                let am = am_ask_mb(app);
                if am > 0 && am_mb > 0 && am_mb.saturating_add(am) > am_cap {
                    continue;
                }
                am_mb = am_mb.saturating_add(am);
                Turn::HoldsNothing
            };
            let f = if turn == Turn::BySize {
                finish(app)
            } else {
                0.0
            };
            listed.insert(app.arrival);
            ranked.push((Reverse(app.priority), turn, f, app.submit_ms, app.arrival));
        }
        for app in state.apps() {
            if app.used == Resource::ZERO || listed.contains(&app.arrival) {
                continue;
            }
            ranked.push((
                Reverse(app.priority),
                Turn::BySize,
                finish(app),
                app.submit_ms,
                app.arrival,
            ));
        }
        ranked.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.total_cmp(&b.2))
                .then(a.3.cmp(&b.3))
                .then(a.4.cmp(&b.4))
        });
        Some((
            ranked.into_iter().map(|(_, _, _, _, a)| a).collect(),
            ShareRule::InOrder,
        ))
    }
}
