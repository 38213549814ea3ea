//! The discrete-event engine. It plays the ResourceManager (and the shim's bookkeeping), the
//! NodeManagers, HDFS and one MapReduce AM per job; every scheduling decision comes from the
//! core through the same messages the JNI bridge carries.
//!
//! Timing model (see docs/design/simulator.md):
//! - NodeManagers heartbeat every `heartbeat_ms`, staggered by node; a finished container is
//!   reported (and its resource freed) on its node's next heartbeat, as YARN does.
//! - An AM calls allocate every `am_heartbeat_ms` when it has something to say or to receive;
//!   granted containers reach it on that call, and its changed ask rows overwrite the RM's.
//! - A map reads its split from the closest live replica, then computes. The read shares the
//!   serving node's disk, both nodes' NICs and, across racks, both uplinks with every other
//!   read on them (processor sharing per link, `network`): when a read starts or ends, the
//!   reads on its links are re-timed. Each read is also capped by one stream's bandwidth.
//! - A reduce holds its container from the moment it starts; it copies its share of every
//!   map's output once all maps are done (path bandwidth, not shared), then computes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

use locus_core::preemption::PreemptionSettings;
use locus_core::{Ask, ContainerInfo, Core, Decision, Event, Heartbeat, Locality, Resource};

use crate::am::{
    AmRequests, Assigned, Granted, Loc, RowCounts, RowKey, SplitLocations, PRIORITY_AM,
    PRIORITY_REDUCE,
};
use crate::cluster::{Cluster, Distance};
use crate::metrics::{LogHistogram, NonLocalReaders, Traffic};
use crate::queue::EventQueue;
use crate::rng::Rng;
use crate::workload::{Workload, MB};

mod data;
mod faults;
mod mr_am;
mod network;
mod node_side;

pub use network::{Bandwidths, Uplink};

#[derive(Debug, Clone)]
pub struct SimConfig {
    pub heartbeat_ms: u64,
    pub am_heartbeat_ms: u64,
    pub am_launch_ms: u64,
    pub task_overhead_ms: u64,
    pub slowstart: f64,
    pub map_mb_per_s: f64,
    pub reduce_mb_per_s: f64,
    pub bw: Bandwidths,
    pub hotspot_readers: u32,
    /// (node index, time) of NodeManager failures.
    pub failures: Vec<(usize, u64)>,
    pub sample_ms: u64,
    /// Give up when nothing started or finished for this long while work is outstanding.
    pub stall_ms: u64,
    pub progress: bool,
    pub seed: u64,
    pub queue_assignment: QueueAssignment,
    /// The RM's preemption rounds (its scheduling monitor), run every `monitoring_interval_ms`
    /// when the core's settings take room back (`locus.preemption.size-based`).
    pub preemption: PreemptionSettings,
}

/// Which queue a job is submitted to when the core enforces queues (`locus.policy=capacity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueAssignment {
    /// The policy's configured queues in turn, by submission order (FRESH: "we separate jobs
    /// equally to these queues").
    RoundRobin,
    /// The workload's own queue (an SLS trace's `job.queue.name`), which must be configured.
    Workload,
}

impl std::str::FromStr for QueueAssignment {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "round-robin" => Ok(QueueAssignment::RoundRobin),
            "workload" => Ok(QueueAssignment::Workload),
            other => Err(format!(
                "--queue-assignment {other:?}: allowed round-robin, workload"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct TaskRef {
    job: u32,
    reduce: bool,
    idx: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Submit(u32),
    Heartbeat(u32),
    AmLaunched(u32, u32),
    Allocate(u32),
    ReadDone(TaskRef, u32),
    TaskDone(TaskRef, u32),
    NodeFail(u32),
    Sample,
    /// A walk of the asynchronous scheduling thread over every node.
    Pass,
    /// A preemption round of the RM's scheduling monitor.
    Preempt,
}

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct NodeRt {
    id: String,
    cap: Resource,
    used: Resource,
    alive: bool,
    /// Finished containers the NodeManager reports on its next heartbeat.
    completed: Vec<u64>,
    containers: BTreeSet<u64>,
    /// Reads this node serves.
    reads: Vec<TaskRef>,
    remote_reads: NonLocalReaders,
    tasks_run: u32,
    /// Heartbeat phase: this node beats at offset + k * heartbeat_ms.
    offset: u64,
    /// False while parked: nothing is outstanding and nothing to report, so its heartbeats
    /// could not change anything and are not simulated until there is.
    armed: bool,
}

#[derive(Debug, Clone)]
struct ContainerRt {
    job: u32,
    node: u32,
    resource: Resource,
    live: bool,
}

#[derive(Debug, Clone, Default)]
struct TaskRt {
    attempt: u32,
    running: bool,
    done: bool,
    container: u64,
    node: u32,
    start: u64,
    end: u64,
    source: u32,
    level: Option<Distance>,
    reading: bool,
    remaining: f64,
    rate: f64,
    last: u64,
    version: u32,
    /// When the live ReadDone event of this read fires (while it is on no link).
    read_event_at: u64,
    /// The read's slot in `links` while it is reading.
    read: u32,
    waiting_shuffle: bool,
}

struct JobRt {
    app: String,
    submitted: bool,
    finished: Option<u64>,
    attempt: u32,
    am_container: Option<u64>,
    registered_at: Option<u64>,
    am: AmRequests,
    /// The RM's ask rows, with the rows set since the core last heard of them.
    rm: RowCounts,
    maps: Vec<TaskRt>,
    reduces: Vec<TaskRt>,
    maps_done: usize,
    reduces_done: usize,
    /// Reduces not yet asked for (RMContainerAllocator.pendingReduces).
    pending_reduces: VecDeque<u32>,
    /// Slow start reached.
    reduce_started: bool,
    /// Containers the AM gives back on its next allocate call.
    to_release: Vec<u64>,
    run_maps: usize,
    run_reduces: usize,
    new: Vec<Granted>,
    allocate_at: Option<u64>,
    map_out: BTreeMap<u32, f64>,
    containers: BTreeSet<u64>,
    total_input: f64,
    task_ms_done: f64,
    running: u64,
    running_start_sum: f64,
}

/// Everything a run measured; `report` turns it into tables, JSON and charts.
#[derive(Debug, Clone, Default)]
pub struct Raw {
    pub label: String,
    pub props: BTreeMap<String, String>,
    pub jobs: usize,
    pub finished: usize,
    pub submit_ms: Vec<u64>,
    pub finish_ms: Vec<Option<u64>>,
    /// Per job: when its (last) AM container was granted.
    pub am_start_ms: Vec<Option<u64>>,
    /// Per job: map attempts that read their input at each distance (`Distance::index`), as
    /// the job's DATA_LOCAL_MAPS / RACK_LOCAL_MAPS / OTHER_LOCAL_MAPS counters count them.
    pub job_map_levels: Vec<[u32; 4]>,
    pub traffic: Traffic,
    pub map_response_ms: Vec<f64>,
    pub hotspots: Vec<u64>,
    pub node_tasks: Vec<u32>,
    /// Whether the run knew which nodes are public and their prices (`Engine::price_public_nodes`).
    pub public_priced: bool,
    /// Task attempts started on public nodes.
    pub public_tasks: u64,
    /// Per job: public cost in dollars, `metrics::attempt_cost` summed over its attempts.
    pub job_public_cost: Vec<f64>,
    pub fairness: Vec<f64>,
    /// (time, running maps, running reduces, used share of cluster memory)
    pub timeline: Vec<(u64, u32, u32, f64)>,
    pub end_ms: u64,
    pub events: u64,
    pub heartbeats: u64,
    pub core_heartbeats: u64,
    pub decisions: u64,
    pub rejected: u64,
    pub core_node_local: u64,
    pub core_rack_local: u64,
    pub core_off_switch: u64,
    pub decision_us: LogHistogram,
    /// Wall time inside the core: heartbeats, ask messages (asks_updated/asks_changed), all other events.
    pub core_heartbeat_s: f64,
    pub core_snapshot_s: f64,
    pub core_event_s: f64,
    pub snapshots: u64,
    /// Task attempts started (maps and reduces, re-runs included).
    pub attempts: u64,
    /// Containers the AM got but had no task for, and gave back.
    pub unused_containers: u64,
    /// Reduces the AM killed to make room for maps (reduce preemption).
    pub preempted_reduces: u64,
    /// Running tasks killed and finished maps lost by node failures.
    pub lost_tasks: u64,
    /// Containers killed by preemption rounds (their tasks run again).
    pub preempted_containers: u64,
    /// Task time those containers had run, lost with them.
    pub preempted_work_ms: u64,
    pub snapshot_rows: u64,
    pub wall_s: f64,
    pub stalled: Option<String>,
    /// The queue each job was submitted to.
    pub job_queues: Vec<String>,
    /// Under `capacity`: the largest share of the cluster's memory each queue held after any
    /// heartbeat.
    pub queue_peak_share: BTreeMap<String, f64>,
}

pub struct Engine<'w> {
    w: &'w Workload,
    cfg: &'w SimConfig,
    core: Core,
    queue: EventQueue<Ev>,
    now: u64,
    rng: Rng,
    nodes: Vec<NodeRt>,
    containers: Vec<ContainerRt>,
    jobs: Vec<JobRt>,
    app_index: BTreeMap<String, u32>,
    pending_any: i64,
    running_maps: u32,
    running_reduces: u32,
    unfinished: usize,
    submitted: usize,
    /// Submitted and not finished, for the fairness samples.
    active: BTreeSet<u32>,
    last_progress: u64,
    raw: Raw,
    cluster_mem: f64,
    used_mem: f64,
    /// Per node: its price in $/s when it is a public node.
    price: Vec<Option<f64>>,
    /// The run's properties set [`ASYNC_SCHEDULING`]: new asks are tried on every node by a
    /// pass ([`Ev::Pass`]) instead of waiting for node heartbeats.
    async_scheduling: bool,
    pass_pending: bool,
    pass_start: usize,
    /// The smallest container any job asks for: a pass skips nodes without room for it.
    smallest: Resource,
    /// The disks, NICs and rack uplinks input reads share.
    links: network::Links,
}

/// A run property (not a `locus.*` key: the core ignores it) that turns on the approximation
/// of CapacityScheduler's asynchronous scheduling, `cs-default`'s; "true" or absent.
pub const ASYNC_SCHEDULING: &str = "yarn.scheduler.capacity.schedule-asynchronously.enable";
/// CapacityScheduler's `schedule-asynchronously.scheduling-interval-ms` default: how long after
/// an ask arrives the scheduling thread's next walk over the nodes starts, at the latest.
pub const ASYNC_INTERVAL_MS: u64 = 5;

/// MapReduce AM settings that are not worth a flag (Hadoop's defaults).
const REDUCE_RAMPUP_LIMIT: f64 = 0.5;
const REDUCE_PREEMPTION_LIMIT: f64 = 0.5;
const UNCONDITIONAL_PREEMPT_MS: u64 = 300_000;

fn err(what: impl std::fmt::Display, e: impl std::fmt::Display) -> String {
    format!("the core rejected {what}: {e}")
}

/// The queue each job is submitted to: under `capacity` with round-robin, the configured queues
/// in turn by submission order (ties by workload order); otherwise the workload's.
fn job_queues(w: &Workload, core: &Core, how: QueueAssignment) -> Vec<String> {
    let mut out: Vec<String> = w.jobs.iter().map(|j| j.queue.clone()).collect();
    let Some(queues) = core.capacity_queues() else {
        return out;
    };
    if how == QueueAssignment::RoundRobin && !queues.is_empty() {
        let mut by_submission: Vec<usize> = (0..w.jobs.len()).collect();
        by_submission.sort_by_key(|&i| (w.jobs[i].submit_ms, i));
        for (k, i) in by_submission.into_iter().enumerate() {
            out[i] = queues[k % queues.len()].name.clone();
        }
    }
    out
}

impl<'w> Engine<'w> {
    pub fn new(
        w: &'w Workload,
        cfg: &'w SimConfig,
        label: &str,
        mut props: BTreeMap<String, String>,
    ) -> Result<Engine<'w>, String> {
        // The simulated submitters are the operator's own workload: their deadline, budget and
        // demand tags count unless the run sets locus.hints.trusted itself.
        props
            .entry(locus_core::config::HINTS_TRUSTED.to_string())
            .or_insert_with(|| "*".to_string());
        // The per-application ask limits' defaults fit a cluster of about 7,000 hosts; the
        // operator of a larger one raises them, as the simulated one does unless the run sets
        // them: every host and rack named, at two map priorities.
        let names = (2 * w.cluster.nodes.len() + 64)
            .max(locus_core::state::ask::DEFAULT_MAX_RESOURCE_NAMES);
        let rows = (2 * names).max(locus_core::state::ask::DEFAULT_MAX_ASK_ROWS);
        props
            .entry(locus_core::config::APP_MAX_RESOURCE_NAMES.to_string())
            .or_insert_with(|| names.to_string());
        props
            .entry(locus_core::config::APP_MAX_ASK_ROWS.to_string())
            .or_insert_with(|| rows.to_string());
        let core = Core::new(&props).map_err(|e| format!("policy {label:?}: {e}"))?;
        let async_scheduling = match props.get(ASYNC_SCHEDULING).map(String::as_str) {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(format!(
                    "policy {label:?}: {ASYNC_SCHEDULING}={other:?}; allowed: true, false"
                ))
            }
        };
        let c: &Cluster = &w.cluster;
        let biggest = c.nodes.iter().fold(Resource::ZERO, |a, n| {
            Resource::new(
                a.memory_mb.max(n.capability.memory_mb),
                a.vcores.max(n.capability.vcores),
            )
        });
        for j in &w.jobs {
            for (what, r) in [("AM", j.am), ("map", j.map), ("reduce", j.reduce)] {
                if !biggest.fits(&r) {
                    return Err(format!(
                        "job {}: its {what} container ({} MB, {} vcores) is bigger than any node ({} MB, {} vcores)",
                        j.name, r.memory_mb, r.vcores, biggest.memory_mb, biggest.vcores
                    ));
                }
            }
        }
        for &(n, _) in &cfg.failures {
            if n >= c.nodes.len() {
                return Err(format!(
                    "--fail-node-at names node {} but the cluster has {} nodes",
                    n + 1,
                    c.nodes.len()
                ));
            }
        }
        let nodes = (0..c.nodes.len())
            .map(|i| NodeRt {
                id: c.node_id(i),
                cap: c.nodes[i].capability,
                used: Resource::ZERO,
                alive: true,
                completed: Vec::new(),
                containers: BTreeSet::new(),
                reads: Vec::new(),
                remote_reads: NonLocalReaders::default(),
                tasks_run: 0,
                offset: (i as u64 * cfg.heartbeat_ms) / c.nodes.len() as u64,
                armed: true,
            })
            .collect();
        let jobs = w
            .jobs
            .iter()
            .map(|j| {
                // The AM's tables and the task list are built at submission and dropped when
                // the job ends, so a run holds them for the running jobs only.
                JobRt {
                    app: String::new(),
                    submitted: false,
                    finished: None,
                    attempt: 0,
                    am_container: None,
                    registered_at: None,
                    am: AmRequests::default(),
                    rm: RowCounts::default(),
                    maps: Vec::new(),
                    reduces: Vec::new(),
                    maps_done: 0,
                    reduces_done: 0,
                    pending_reduces: (0..j.reduces.len() as u32).collect(),
                    reduce_started: false,
                    to_release: Vec::new(),
                    run_maps: 0,
                    run_reduces: 0,
                    new: Vec::new(),
                    allocate_at: None,
                    map_out: BTreeMap::new(),
                    containers: BTreeSet::new(),
                    total_input: j.maps.iter().map(|m| m.input_bytes as f64).sum(),
                    task_ms_done: 0.0,
                    running: 0,
                    running_start_sum: 0.0,
                }
            })
            .collect();
        let cluster_mem = c.nodes.iter().map(|n| n.capability.memory_mb as f64).sum();
        let raw = Raw {
            label: label.to_string(),
            props,
            jobs: w.jobs.len(),
            submit_ms: w.jobs.iter().map(|j| j.submit_ms).collect(),
            finish_ms: vec![None; w.jobs.len()],
            am_start_ms: vec![None; w.jobs.len()],
            job_map_levels: vec![[0; 4]; w.jobs.len()],
            job_public_cost: vec![0.0; w.jobs.len()],
            job_queues: job_queues(w, &core, cfg.queue_assignment),
            ..Default::default()
        };
        Ok(Engine {
            w,
            cfg,
            core,
            queue: EventQueue::default(),
            now: 0,
            rng: Rng::new(cfg.seed ^ 0x5EED_5EED_5EED),
            nodes,
            containers: Vec::new(),
            jobs,
            app_index: BTreeMap::new(),
            pending_any: 0,
            running_maps: 0,
            running_reduces: 0,
            unfinished: w.jobs.len(),
            submitted: 0,
            active: BTreeSet::new(),
            last_progress: 0,
            raw,
            cluster_mem,
            used_mem: 0.0,
            price: vec![None; c.nodes.len()],
            async_scheduling,
            pass_pending: false,
            pass_start: 0,
            smallest: w
                .jobs
                .iter()
                .flat_map(|j| [j.am, j.map, j.reduce])
                .reduce(|a, b| Resource::new(a.memory_mb.min(b.memory_mb), a.vcores.min(b.vcores)))
                .unwrap_or(Resource::ZERO),
            links: network::Links::new(c, &cfg.bw),
        })
    }

    /// Marks public nodes with their price in $/s (one entry per cluster node, `None` =
    /// private), so the run counts the tasks they run and what those cost.
    pub fn price_public_nodes(mut self, price: Vec<Option<f64>>) -> Result<Self, String> {
        if price.len() != self.nodes.len() {
            return Err(format!(
                "{} node prices for {} nodes",
                price.len(),
                self.nodes.len()
            ));
        }
        self.price = price;
        self.raw.public_priced = true;
        Ok(self)
    }

    /// An attempt ended (finished or killed) on `node` after running since `start`.
    fn charge(&mut self, job: u32, node: u32, start: u64) {
        let secs = (self.now - start) as f64 / 1000.0;
        self.raw.job_public_cost[job as usize] +=
            crate::metrics::attempt_cost(secs, self.price[node as usize]);
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.queue.push(at, ev);
    }

    /// Hands the core an event; on refusal the error names the event and its subject.
    fn send(&mut self, ev: Event) -> Result<(), String> {
        let what = match &ev {
            Event::NodeAdded { node, .. } => format!("node_added {node}"),
            Event::NodeRemoved { node } => format!("node_removed {node}"),
            Event::AppAdded { app, .. } => format!("app_added {app}"),
            Event::AppRemoved { app } => format!("app_removed {app}"),
            Event::AttemptAdded { app, .. } => format!("attempt_added {app}"),
            Event::AttemptRemoved { app, .. } => format!("attempt_removed {app}"),
            Event::AsksUpdated { app, .. } => format!("asks_updated {app}"),
            Event::AsksChanged { app, .. } => format!("asks_changed {app}"),
            Event::ContainerAllocated { container, .. } => {
                format!("container_allocated {}", container.container)
            }
            Event::ContainerReleased { container, .. } => format!("container_released {container}"),
            other => format!("{other:?}"),
        };
        self.send_about(ev, |_| what)
    }

    /// [`send`](Self::send) for the events of every container and allocate call: `what` names
    /// the event only when the core refuses it, since formatting it for each of millions of
    /// events that pass cost more than some of the core's own work.
    fn send_about(&mut self, ev: Event, what: impl FnOnce(&Self) -> String) -> Result<(), String> {
        if let Event::AsksUpdated { asks, .. } | Event::AsksChanged { asks, .. } = &ev {
            self.raw.snapshots += 1;
            self.raw.snapshot_rows += asks.len() as u64;
        }
        let snapshot = matches!(ev, Event::AsksUpdated { .. } | Event::AsksChanged { .. });
        let t0 = Instant::now();
        let result = self.core.handle(ev);
        let spent = t0.elapsed().as_secs_f64();
        if snapshot {
            self.raw.core_snapshot_s += spent;
        } else {
            self.raw.core_event_s += spent;
        }
        result.map_err(|e| err(format!("{} at {} ms", what(self), self.now), e))
    }

    pub fn run(mut self) -> Result<Raw, String> {
        let started = Instant::now();
        let c = &self.w.cluster;
        for i in 0..c.nodes.len() {
            let ev = Event::NodeAdded {
                node: self.nodes[i].id.clone(),
                host: c.nodes[i].host.clone(),
                rack: c.racks[c.rack_of(i)].name.clone(),
                capability: self.nodes[i].cap,
            };
            self.send(ev)?;
            // Staggered so the cluster's heartbeats are spread over the interval, as real
            // NodeManagers started at different moments are.
            let offset = self.nodes[i].offset;
            self.push(offset, Ev::Heartbeat(i as u32));
        }
        for (j, spec) in self.w.jobs.iter().enumerate() {
            self.push(spec.submit_ms, Ev::Submit(j as u32));
        }
        for &(n, at) in &self.cfg.failures {
            self.push(at, Ev::NodeFail(n as u32));
        }
        self.push(0, Ev::Sample);
        if self.core.config().preemption_size_based {
            self.push(self.cfg.preemption.monitoring_interval_ms, Ev::Preempt);
        }
        let mut last_report = Instant::now();
        let mut shown = false;
        while self.unfinished > 0 {
            let Some((at, ev)) = self.queue.pop() else {
                break;
            };
            self.now = at;
            self.raw.events += 1;
            self.fetch_ahead();
            match ev {
                Ev::Submit(j) => self.submit(j)?,
                Ev::Heartbeat(n) => self.heartbeat(n)?,
                Ev::AmLaunched(j, a) => self.am_launched(j, a)?,
                Ev::Allocate(j) => {
                    // Only the heartbeat chain of the current attempt counts.
                    if self.jobs[j as usize].allocate_at == Some(at) {
                        self.allocate(j)?
                    }
                }
                Ev::ReadDone(t, v) => self.read_done(t, v),
                Ev::TaskDone(t, a) => self.task_done(t, a)?,
                Ev::NodeFail(n) => self.node_fail(n)?,
                Ev::Sample => self.sample(),
                Ev::Pass => self.pass()?,
                Ev::Preempt => self.preemption_round()?,
            }
            if self.raw.events.is_multiple_of(65_536) {
                if self.now.saturating_sub(self.last_progress) > self.cfg.stall_ms
                    && self.submitted == self.raw.jobs
                {
                    let waiting: Vec<&str> = self
                        .jobs
                        .iter()
                        .filter(|j| j.finished.is_none())
                        .take(5)
                        .map(|j| j.app.as_str())
                        .collect();
                    self.raw.stalled = Some(format!(
                        "no task started or finished for {} s of simulated time; {} jobs unfinished (first: {})",
                        self.cfg.stall_ms / 1000,
                        self.unfinished,
                        waiting.join(", ")
                    ));
                    break;
                }
                if self.cfg.progress
                    && last_report.elapsed().as_millis() >= 250
                    && started.elapsed().as_secs_f64() > 2.0
                {
                    last_report = Instant::now();
                    shown = true;
                    let done = self.raw.jobs - self.unfinished;
                    let width = 30;
                    let fill = done * width / self.raw.jobs.max(1);
                    eprint!(
                        "\r{:<16} [{}{}] {done}/{} jobs, sim {} s, {:.1} M events ",
                        self.raw.label,
                        "#".repeat(fill),
                        " ".repeat(width - fill),
                        self.raw.jobs,
                        self.now / 1000,
                        self.raw.events as f64 / 1e6
                    );
                }
            }
        }
        if shown {
            eprintln!();
        }
        self.sample();
        let stats = self.core.stats();
        self.raw.core_node_local = stats.node_local;
        self.raw.core_rack_local = stats.rack_local;
        self.raw.core_off_switch = stats.off_switch;
        self.raw.end_ms = self.now;
        self.raw.finished = self.raw.jobs - self.unfinished;
        self.raw.node_tasks = self.nodes.iter().map(|n| n.tasks_run).collect();
        self.raw.wall_s = started.elapsed().as_secs_f64();
        Ok(self.raw)
    }

    // ---- jobs and the AM -------------------------------------------------------------------

    fn task(&mut self, t: TaskRef) -> &mut TaskRt {
        let job = &mut self.jobs[t.job as usize];
        if t.reduce {
            &mut job.reduces[t.idx as usize]
        } else {
            &mut job.maps[t.idx as usize]
        }
    }

    fn task_done(&mut self, t: TaskRef, attempt: u32) -> Result<(), String> {
        if self.jobs[t.job as usize].finished.is_some() {
            return Ok(());
        }
        let now = self.now;
        let task = self.task(t);
        if !task.running || task.attempt != attempt {
            return Ok(());
        }
        task.running = false;
        task.done = true;
        task.end = now;
        let (node, cid, start) = (task.node, task.container, task.start);
        self.last_progress = now;
        self.nodes[node as usize].completed.push(cid);
        self.charge(t.job, node, start);
        self.arm(node);
        let job = &mut self.jobs[t.job as usize];
        job.running -= 1;
        job.running_start_sum -= start as f64;
        job.task_ms_done += (now - start) as f64;
        if t.reduce {
            self.running_reduces -= 1;
            job.run_reduces -= 1;
            job.reduces_done += 1;
        } else {
            self.running_maps -= 1;
            job.run_maps -= 1;
            self.raw.map_response_ms.push((now - start) as f64);
            let spec = &self.w.jobs[t.job as usize];
            let share = if job.total_input > 0.0 {
                spec.maps[t.idx as usize].input_bytes as f64 / job.total_input
            } else {
                1.0 / spec.maps.len() as f64
            };
            *job.map_out.entry(node).or_insert(0.0) += spec.shuffle_bytes as f64 * share;
            job.maps_done += 1;
            if job.maps_done == job.maps.len() {
                let waiting: Vec<u32> = (0..job.reduces.len() as u32)
                    .filter(|&r| {
                        job.reduces[r as usize].running && job.reduces[r as usize].waiting_shuffle
                    })
                    .collect();
                for r in waiting {
                    self.start_shuffle(TaskRef {
                        job: t.job,
                        reduce: true,
                        idx: r,
                    });
                }
            }
        }
        let job = &self.jobs[t.job as usize];
        if job.maps_done == job.maps.len() && job.reduces_done == job.reduces.len() {
            self.finish_job(t.job)?;
        }
        Ok(())
    }

    // ---- failures --------------------------------------------------------------------------

    fn sample(&mut self) {
        let now = self.now;
        let share = if self.cluster_mem > 0.0 {
            self.used_mem / self.cluster_mem
        } else {
            0.0
        };
        self.raw
            .timeline
            .push((now, self.running_maps, self.running_reduces, share));
        let usage: Vec<f64> = self
            .active
            .iter()
            .map(|&i| {
                let (i, j) = (i as usize, &self.jobs[i as usize]);
                let used = j.task_ms_done + j.running as f64 * now as f64 - j.running_start_sum;
                crate::metrics::fresh_usage(used, now as f64, self.w.jobs[i].submit_ms as f64)
            })
            .collect();
        if usage.len() >= 2 {
            if let Some(f) = crate::metrics::jain(&usage) {
                self.raw.fairness.push(f);
            }
        }
        if self.unfinished > 0 {
            self.push(now + self.cfg.sample_ms, Ev::Sample);
        }
    }
}
