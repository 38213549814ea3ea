//! `locus.policy=fresh`: FRESH's overall-fairness job choice (Algorithm 4) under its admission
//! control `k`, on the model of [`crate::papers::fresh::DynamicSlotConfigurator`].
//!
//! YARN mapping (docs/design/yarn-mapping.md):
//! - a MapReduce application joins FRESH's `J` when its AM first asks for maps or reduces (before
//!   that FRESH cannot know `n_m`); `n_m`, `n_r` = finished + running + outstanding containers of
//!   that kind, updated on every ask snapshot;
//! - only jobs in `M` may start maps and only jobs in `R` reduces (the paper's phases; this also
//!   holds back the reduces MapReduce asks for early, slowstart). Map re-runs after the map phase
//!   and reduces of a job the model already saw finish are never held back, so no job can be
//!   stranded by the model;
//! - the order: apps waiting for their AM container first (one small container each, and every
//!   job needs it) while AMs hold at most half the cluster's memory (FairScheduler's default
//!   `maxAMShare`; `k` already bounds how many jobs run, so CapacityScheduler's 10 % would
//!   only serialise jobs on small clusters), then the
//!   jobs of `M ∪ R` by least `r_i` (eq. 1), then AMs beyond the share, then everything else
//!   (generic applications, queued jobs) in submission order. `k` counts jobs, not memory: with
//!   every admitted AM first, a burst of submissions filled small nodes with AMs whose maps then
//!   never found room (docs/design/liveness.md);
//! - only asks some node can serve count (`placeable`): a map key bigger than every node or
//!   pinned to hosts the cluster does not have is not part of `n_m`, so the job's map phase ends
//!   with the maps that can run. A job none of whose maps any node can run stays out of the
//!   model (and out of the count that holds AMs back): admitting it would hold one of the `k`
//!   places for a job that cannot run anywhere, and with `k` = 1 block every other job
//!   (docs/design/liveness.md). It is scheduled like a generic application; its next ask snapshot or
//!   node change that lets a node run its maps brings it into the model;
//! - `t̄_m`, `t̄_r` before the job's first finished task: its profile (an earlier run with the same
//!   signature), else `locus.profile.default-map-secs` / `-reduce-secs`.
//!
//! The same model also drives `locus.slots=fresh-dynamic` ([`super::slots`]), which is why
//! it sits behind a shared handle.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::speed::PhaseMemo;
use crate::fast_hash::{FastMap, FastSet};
use crate::papers::fresh::{DynamicSlotConfigurator, JobPhase, SlotKind as FreshSlot};
use crate::policy::{JobPolicy, Observed};
use crate::profile::ProfileDefaults;
use crate::protocol::Resource;
use crate::state::app::{App, Arrival, TaskKind};
use crate::state::ask::AskTable;
use crate::state::container::Container;
use crate::state::node::Node;
use crate::state::ClusterState;

/// What an application's outstanding asks hold, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Outstanding {
    pub maps: u32,
    pub reduces: u32,
    pub am: u32,
    /// Size of one map (reduce) container, from the first key of that kind.
    pub map_size: Option<Resource>,
    pub reduce_size: Option<Resource>,
}

pub fn outstanding(app: &App) -> Outstanding {
    outstanding_where(app, |_, _| true)
}

/// [`outstanding`] of the keys some node of the cluster could ever serve
/// ([`ClusterState::can_ever_place`]): the work FRESH's admission and slot splits plan for. A
/// key no node can serve never starts a container, so a job counted with it would never leave
/// its map phase (holding one of the `k` places for good), and its size or count would shape
/// the split for work that cannot run (docs/design/liveness.md, "Blocker").
pub fn placeable(state: &ClusterState, app: &App) -> Outstanding {
    outstanding_where(app, |k, t| state.app_can_ever_place(app, k, t))
}

fn outstanding_where(
    app: &App,
    keep: impl Fn(&crate::state::ask::SchedulerKey, &AskTable) -> bool,
) -> Outstanding {
    let mut o = Outstanding::default();
    for (key, table) in app.asks.tables() {
        if !keep(key, table) {
            continue;
        }
        let n = table.outstanding();
        let size = table.row(crate::state::names::ANY_ID).map(|r| r.capability);
        match app.kind_of(key.priority) {
            k if k.is_map() => {
                o.maps = o.maps.saturating_add(n);
                o.map_size = o.map_size.or(size);
            }
            TaskKind::Reduce => {
                o.reduces = o.reduces.saturating_add(n);
                o.reduce_size = o.reduce_size.or(size);
            }
            TaskKind::ApplicationMaster => o.am = o.am.saturating_add(n),
            _ => {}
        }
    }
    o
}

/// Memory of the app's AM container ask (0 if it has none).
fn am_size(app: &App) -> u64 {
    app.asks
        .tables()
        .filter(|(k, _)| app.kind_of(k.priority) == TaskKind::ApplicationMaster)
        .filter_map(|(_, t)| t.row(crate::state::names::ANY_ID))
        .map(|r| r.capability.memory_mb)
        .next()
        .unwrap_or(0)
}

/// FRESH's settings (`locus.fresh.*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreshSettings {
    pub k: u32,
    pub tau1: f64,
    pub tau2: f64,
}

impl Default for FreshSettings {
    fn default() -> Self {
        FreshSettings {
            // The paper gives no default (it evaluates 1, 3, 5, 10, half, all). With 3, jobs
            // smaller than a third of the cluster leave slots idle (simulated: makespan +45%
            // on a 30-job batch); 10 matched or beat FIFO and Fair on the simulator's workloads.
            k: 10,
            tau1: crate::papers::fresh::DEFAULT_TAU1,
            tau2: crate::papers::fresh::DEFAULT_TAU2,
        }
    }
}

/// Tasks of a job the model was told about: containers that started before the job joined the
/// model (a policy switched at runtime, a job's first maps) or that the model refused (a map re-run
/// after the map phase) are left out, so `n_m` = these + outstanding and the model's phases end
/// when its own tasks do.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    running_maps: u32,
    running_reduces: u32,
    done_maps: u32,
    done_reduces: u32,
}

/// The model plus what the adapter needs to feed it from YARN's events.
pub struct FreshModel {
    model: DynamicSlotConfigurator,
    /// Phases looked up since the model last changed.
    phases: PhaseMemo,
    /// Applications the model knows, by their YARN id.
    jobs: FastMap<Arrival, String>,
    /// MapReduce applications kept out of the model because no node can run any of their
    /// maps.
    unrunnable: FastSet<Arrival>,
    /// The `nodes_version` the jobs' runnability (in the model or in `unrunnable`) was last
    /// judged at: a node leaving or shrinking can strand an admitted job's maps, and a node
    /// joining can make an unrunnable job's maps fit.
    judged_nodes: u64,
    counts: FastMap<Arrival, Counts>,
    /// Containers reported to the model as tasks (others: re-runs the model refuses).
    tasks: FastMap<String, (Arrival, u64)>,
    next_task: u64,
    default_map_secs: f64,
    default_reduce_secs: f64,
    /// Size of one map / reduce container the last time a job asked; `S` is counted in these.
    pub map_size: Option<Resource>,
    pub reduce_size: Option<Resource>,
}

pub type SharedFresh = Arc<Mutex<FreshModel>>;

/// A poisoned lock only means another thread panicked mid-update; the model is still the best
/// there is, and the RM must keep scheduling.
pub fn lock(m: &SharedFresh) -> MutexGuard<'_, FreshModel> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl FreshModel {
    pub fn shared(s: &FreshSettings, defaults: &ProfileDefaults) -> SharedFresh {
        let model = DynamicSlotConfigurator::clamped(s.k, s.tau1, s.tau2);
        Arc::new(Mutex::new(FreshModel {
            model,
            phases: PhaseMemo::default(),
            jobs: FastMap::default(),
            unrunnable: FastSet::default(),
            judged_nodes: 0,
            counts: FastMap::default(),
            tasks: FastMap::default(),
            next_task: 0,
            default_map_secs: defaults.map_secs,
            default_reduce_secs: defaults.reduce_secs,
            map_size: None,
            reduce_size: None,
        }))
    }

    pub fn job(&self, app: Arrival) -> Option<&str> {
        self.jobs.get(&app).map(String::as_str)
    }

    pub fn phase(&self, app: Arrival) -> Option<JobPhase> {
        self.phases.get(app, || {
            self.jobs.get(&app).and_then(|j| self.model.phase(j))
        })
    }

    /// The model, to read. It changes only through this type's methods, which keep `phases`
    /// in step.
    pub fn model(&self) -> &DynamicSlotConfigurator {
        &self.model
    }

    /// `S` in slots of the jobs' container size (the larger of map and reduce), at least 1.
    pub fn sync_total_slots(&mut self, capacity: Resource) -> u32 {
        let size = match (self.map_size, self.reduce_size) {
            (Some(m), Some(r)) => {
                Resource::new(m.memory_mb.max(r.memory_mb), m.vcores.max(r.vcores))
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => Resource::new(1024, 1),
        };
        let s = capacity.count_fitting(&size).max(1);
        if s != self.model.params().total_slots {
            self.phases.forget();
            if let Err(e) = self.model.set_total_slots(s) {
                log::warn!("FRESH: cannot set S = {s}: {e}");
            }
        }
        s
    }

    pub fn observe(&mut self, state: &ClusterState, what: &Observed<'_>) {
        self.phases.forget();
        let now = state.clock_ms() as f64 / 1000.0;
        match what {
            Observed::AsksUpdated(app) if app.is_mapreduce => self.asks_updated(state, app, now),
            Observed::AppRemoved(arrival) => {
                if let Some(job) = self.jobs.remove(arrival) {
                    if let Err(e) = self.model.remove(&job, now) {
                        log::debug!("FRESH: {e}");
                    }
                }
                self.counts.remove(arrival);
                self.unrunnable.remove(arrival);
                self.tasks.retain(|_, (a, _)| a != arrival);
            }
            Observed::ContainerStarted(c) => self.started(state, c, now),
            Observed::ContainerFinished(c) => self.finished(state, c, now),
            _ => {}
        }
    }

    /// Judges every MapReduce job's runnability again when the nodes changed since the last
    /// judgement. Admission was judged against the nodes of the job's last ask snapshot; a job
    /// admitted while a big enough node was there (or before any node registered) would
    /// otherwise keep one of the `k` places, and its reduces would wait for a map phase that
    /// cannot end (docs/design/liveness.md). One pass over the MapReduce jobs per node change.
    pub fn judge_on_node_change(&mut self, state: &ClusterState) {
        if self.judged_nodes == state.nodes_version() {
            return;
        }
        self.judged_nodes = state.nodes_version();
        let now = state.clock_ms() as f64 / 1000.0;
        let judged: Vec<&App> = state
            .apps()
            .filter(|a| {
                a.is_mapreduce
                    && (self.jobs.contains_key(&a.arrival) || self.unrunnable.contains(&a.arrival))
            })
            .collect();
        for app in judged {
            self.asks_updated(state, app, now);
        }
        self.phases.forget();
    }

    fn asks_updated(&mut self, state: &ClusterState, app: &App, now: f64) {
        // No node yet (an RM restart re-registers them after the apps): nothing to judge by.
        let o = if state.node_count() == 0 {
            outstanding(app)
        } else {
            placeable(state, app)
        };
        let runnable = o.maps > 0 || outstanding(app).maps == 0;
        if !runnable {
            if self.unrunnable.insert(app.arrival) {
                log::warn!(
                    "FRESH: no node can run job {}'s maps; it stays out of admission control",
                    app.id
                );
            }
            if let Some(job) = self.jobs.remove(&app.arrival) {
                if let Err(e) = self.model.remove(&job, now) {
                    log::debug!("FRESH: {e}");
                }
                self.counts.remove(&app.arrival);
                self.tasks.retain(|_, (a, _)| *a != app.arrival);
            }
            return;
        }
        self.unrunnable.remove(&app.arrival);
        self.map_size = o.map_size.or(self.map_size);
        self.reduce_size = o.reduce_size.or(self.reduce_size);
        let c = self.counts.get(&app.arrival).copied().unwrap_or_default();
        // The outstanding counts are the AM's: the sums saturate rather than wrap.
        let maps = c
            .done_maps
            .saturating_add(c.running_maps)
            .saturating_add(o.maps);
        let reduces = c
            .done_reduces
            .saturating_add(c.running_reduces)
            .saturating_add(o.reduces);
        match self.jobs.get(&app.arrival) {
            Some(job) => {
                if let Err(e) = self.model.set_task_counts(job, maps, reduces, now) {
                    // A map re-run after the map phase: the model keeps its counts, the re-run
                    // is scheduled outside it.
                    log::debug!("FRESH: {e}");
                }
            }
            None if maps > 0 || reduces > 0 => {
                let est = state.profiles().estimate(app.arrival);
                let map_secs = est
                    .avg_map_ms
                    .map_or(self.default_map_secs, |ms| (ms / 1000.0).max(0.001));
                let reduce_secs = est
                    .avg_reduce_ms
                    .map_or(self.default_reduce_secs, |ms| (ms / 1000.0).max(0.001));
                match self
                    .model
                    .submit(&app.id, maps, reduces, map_secs, reduce_secs, now)
                {
                    Ok(()) => {
                        self.jobs.insert(app.arrival, app.id.clone());
                        log::info!(
                            "FRESH: job {} joins with {maps} maps, {reduces} reduces, estimates {map_secs:.1} s / {reduce_secs:.1} s, phase {:?}",
                            app.id,
                            self.model.phase(&app.id)
                        );
                    }
                    Err(e) => log::warn!("FRESH: {e}"),
                }
            }
            None => {}
        }
    }

    fn started(&mut self, state: &ClusterState, c: &Container, now: f64) {
        let Some(app) = state.app_by_id(&c.app) else {
            return;
        };
        let slot = match c.kind.slot() {
            Some(crate::state::app::SlotKind::Map) => FreshSlot::Map,
            Some(crate::state::app::SlotKind::Reduce) => FreshSlot::Reduce,
            None => return,
        };
        let Some(job) = self.jobs.get(&app.arrival) else {
            return;
        };
        let task = self.next_task;
        self.next_task += 1;
        match self.model.task_started(job, task, slot, now) {
            Ok(()) => {
                self.tasks.insert(c.id.clone(), (app.arrival, task));
                let counts = self.counts.entry(app.arrival).or_default();
                match slot {
                    FreshSlot::Map => counts.running_maps += 1,
                    FreshSlot::Reduce => counts.running_reduces += 1,
                }
            }
            Err(e) => log::debug!("FRESH: container {} outside the model: {e}", c.id),
        }
    }

    fn finished(&mut self, _state: &ClusterState, c: &Container, now: f64) {
        let Some((arrival, task)) = self.tasks.remove(&c.id) else {
            return;
        };
        if let Some(counts) = self.counts.get_mut(&arrival) {
            if c.kind.is_map() {
                counts.running_maps = counts.running_maps.saturating_sub(1);
                counts.done_maps += 1;
            } else if c.kind == TaskKind::Reduce {
                counts.running_reduces = counts.running_reduces.saturating_sub(1);
                counts.done_reduces += 1;
            }
        }
        let Some(job) = self.jobs.get(&arrival) else {
            return;
        };
        if let Err(e) = self.model.task_finished(job, task, now) {
            log::debug!("FRESH: {e}");
        }
    }

    /// A new MapReduce job waits in `J` before its AM starts: on YARN an AM holds its container
    /// for the whole wait, and FRESH would not admit the job sooner. Its AM may start while fewer
    /// than `k` jobs are in their map phase, waiting in `J`, or starting (AM running, maps not
    /// asked yet). Jobs leave the map phase as their maps end, so the AM waits, never starves.
    /// `started` is [`FreshModel::starting`], `placed_now` the AMs placed on this heartbeat.
    pub fn am_may_start(&self, started: usize, placed_now: usize) -> bool {
        self.model.map_set().len() + self.model.queued_len() + started + placed_now
            < self.model.params().k as usize
    }

    /// MapReduce applications whose AM runs but that have not asked for tasks yet.
    pub fn starting(&self, state: &ClusterState) -> usize {
        state
            .apps()
            .filter(|a| {
                a.is_mapreduce
                    && a.running > 0
                    && !self.jobs.contains_key(&a.arrival)
                    && !self.unrunnable.contains(&a.arrival)
            })
            .count()
    }

    /// Whether FRESH's phases let `app` start a container of `kind` now.
    pub fn allows(&self, app: &App, kind: TaskKind) -> bool {
        let Some(phase) = self.phase(app.arrival) else {
            return true;
        };
        if kind.is_map() {
            phase != JobPhase::Queued
        } else if kind == TaskKind::Reduce {
            !matches!(
                phase,
                JobPhase::Queued | JobPhase::Map | JobPhase::ReduceWaiting
            )
        } else {
            true
        }
    }
}

pub struct FreshPolicy {
    model: SharedFresh,
    /// MapReduce AMs placed on this heartbeat (the state counts them only once executed).
    ams_placed: usize,
    /// [`FreshModel::starting`] for this heartbeat, counted at its first waiting AM: nothing
    /// it counts changes during a heartbeat, and counting it for each waiting AM walked every
    /// app once per app.
    starting: Option<usize>,
}

impl FreshPolicy {
    pub fn new(model: SharedFresh) -> Self {
        FreshPolicy {
            model,
            ams_placed: 0,
            starting: None,
        }
    }
}

impl JobPolicy for FreshPolicy {
    fn name(&self) -> &'static str {
        "fresh"
    }

    fn order(&mut self, state: &ClusterState, _node: &Node, now_ms: u64) -> Vec<Arrival> {
        self.ams_placed = 0;
        self.starting = None;
        let mut m = lock(&self.model);
        m.judge_on_node_change(state);
        let now = now_ms as f64 / 1000.0;
        let mut am_first = Vec::new();
        // Waiting AMs beyond the AM share: after the admitted jobs' tasks, so AMs cannot take
        // the room those tasks need (docs/design/liveness.md).
        let mut am_later = Vec::new();
        let am_limit = (state.capacity().memory_mb as f64 * crate::policy::MAX_AM_SHARE) as u64;
        let mut am_used = state.am_used().memory_mb;
        let mut fresh: Vec<(f64, usize, Arrival)> = Vec::new();
        let mut rest = Vec::new();
        let active: BTreeMap<&str, usize> = m
            .model
            .map_set()
            .iter()
            .chain(m.model.reduce_set().iter())
            .enumerate()
            .map(|(i, j)| (j.as_str(), i))
            .collect();
        // Whether no AM may start on this heartbeat, worked out at the first app waiting for one.
        let mut ams_closed: Option<bool> = None;
        for app in state.pending_apps_by_submission() {
            let waiting_for_am = app.is_mapreduce && app.running == 0 && outstanding(app).am > 0;
            if waiting_for_am {
                // FRESH's admission keeps most jobs of a busy cluster waiting for their AM. While
                // no AM may start, such a job that asks for nothing else gets nothing here (admit
                // holds its AM back, and placing no AM cannot reopen admission this heartbeat):
                // offering it the node anyway walked every waiting job on every heartbeat.
                let closed = *ams_closed.get_or_insert_with(|| {
                    let starting = *self.starting.get_or_insert_with(|| m.starting(state));
                    !m.am_may_start(starting, 0)
                });
                let only_am = app
                    .asks
                    .pending_keys()
                    .all(|k| app.kind_of(k.priority) == TaskKind::ApplicationMaster);
                if !(closed && only_am && m.job(app.arrival).is_none()) {
                    let size = am_size(app);
                    if am_used == 0 || am_used.saturating_add(size) <= am_limit {
                        am_used = am_used.saturating_add(size);
                        am_first.push(app.arrival);
                    } else {
                        am_later.push(app.arrival);
                    }
                }
                continue;
            }
            match m
                .job(app.arrival)
                .and_then(|j| active.get(j).map(|i| (j, *i)))
            {
                Some((job, i)) => {
                    let r = m
                        .model
                        .resource_consumption(job, now)
                        .unwrap_or(f64::INFINITY);
                    fresh.push((r, i, app.arrival));
                }
                None => rest.push(app.arrival),
            }
        }
        // Algorithm 4: least r_i first; the earlier admitted job wins a tie.
        fresh.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        am_first
            .into_iter()
            .chain(fresh.into_iter().map(|(_, _, a)| a))
            .chain(am_later)
            .chain(rest)
            .collect()
    }

    fn admit(&mut self, state: &ClusterState, _node: &Node, app: &App, kind: TaskKind) -> u32 {
        let m = lock(&self.model);
        let am_waits = app.is_mapreduce
            && kind == TaskKind::ApplicationMaster
            && m.job(app.arrival).is_none()
            && app.running == 0
            && !m.am_may_start(
                *self.starting.get_or_insert_with(|| m.starting(state)),
                self.ams_placed,
            );
        if !am_waits && m.allows(app, kind) {
            u32::MAX
        } else {
            0
        }
    }

    fn placed(&mut self, _app: Arrival, kind: TaskKind, count: u32, _capability: Resource) {
        if kind == TaskKind::ApplicationMaster {
            self.ams_placed += count as usize;
        }
    }

    fn observe(&mut self, state: &ClusterState, what: &Observed<'_>) {
        lock(&self.model).observe(state, what);
    }
}
