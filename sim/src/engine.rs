//! The discrete-event engine. It plays the ResourceManager (and the shim's bookkeeping), the
//! NodeManagers, HDFS and one MapReduce AM per job; every scheduling decision comes from the
//! core through the same messages the JNI bridge carries.
//!
//! Timing model (see docs/simulator.md):
//! - NodeManagers heartbeat every `heartbeat_ms`, staggered by node; a finished container is
//!   reported (and its resource freed) on its node's next heartbeat, as YARN does.
//! - An AM calls allocate every `am_heartbeat_ms` when it has something to say or to receive;
//!   granted containers reach it on that call, and its changed ask rows overwrite the RM's.
//! - A map reads its split from the closest live replica, then computes. All reads served by
//!   one node share its serving bandwidth equally (processor sharing): when a read starts or
//!   ends there, every read from that node is re-timed. Each read is also capped by the
//!   path's bandwidth (local disk, same rack, same datacenter, across datacenters).
//! - A reduce holds its container from the moment it starts; it copies its share of every
//!   map's output once all maps are done (path bandwidth, not shared), then computes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

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

/// Bandwidths in MB/s.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Bandwidths {
    pub disk: f64,
    pub rack: f64,
    pub datacenter: f64,
    pub remote: f64,
    /// What one node can serve to all its readers together.
    pub serve: f64,
}

impl Bandwidths {
    fn path(&self, d: Distance) -> f64 {
        match d {
            Distance::Node => self.disk,
            Distance::Rack => self.rack,
            Distance::Datacenter => self.datacenter,
            Distance::Remote => self.remote,
        }
    }
}

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
    /// When the live ReadDone event of this read fires.
    read_event_at: u64,
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
}

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
        let core = Core::new(&props).map_err(|e| format!("policy {label:?}: {e}"))?;
        let c: &Cluster = &w.cluster;
        let biggest = c.nodes.iter().fold(Resource::ZERO, |a, n| Resource {
            memory_mb: a.memory_mb.max(n.capability.memory_mb),
            vcores: a.vcores.max(n.capability.vcores),
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
        let mut last_report = Instant::now();
        let mut shown = false;
        while self.unfinished > 0 {
            let Some((at, ev)) = self.queue.pop() else {
                break;
            };
            self.now = at;
            self.raw.events += 1;
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

    fn submit(&mut self, j: u32) -> Result<(), String> {
        let spec = &self.w.jobs[j as usize];
        self.submitted += 1;
        self.active.insert(j);
        self.last_progress = self.now;
        let app = format!("application_1700000000000_{:04}", self.submitted);
        self.app_index.insert(app.clone(), j);
        let splits = self.split_locations(j);
        let job = &mut self.jobs[j as usize];
        job.app = app.clone();
        job.submitted = true;
        job.am = AmRequests::new(splits);
        let idle = TaskRt {
            source: NONE,
            ..Default::default()
        };
        job.maps = vec![idle.clone(); spec.maps.len()];
        job.reduces = vec![idle; spec.reduces.len()];
        self.send(Event::AppAdded {
            app: app.clone(),
            queue: self.raw.job_queues[j as usize].clone(),
            user: spec.user.clone(),
            name: spec.name.clone(),
            app_type: "MAPREDUCE".into(),
            tags: spec.tags.clone(),
            submit_ms: self.now,
            recovered: false,
        })?;
        self.new_attempt(j)
    }

    /// Where each map's split lives, as the AM learns it from the job's split file.
    fn split_locations(&self, j: u32) -> Vec<SplitLocations> {
        let c = &self.w.cluster;
        self.w.jobs[j as usize]
            .maps
            .iter()
            .map(|m| {
                let hosts: Vec<u32> = m.replicas.iter().map(|&n| n as u32).collect();
                let mut racks: Vec<u32> = m.replicas.iter().map(|&n| c.rack_of(n) as u32).collect();
                racks.sort_unstable();
                racks.dedup();
                SplitLocations { hosts, racks }
            })
            .collect()
    }

    /// A new attempt asks the RM for its AM container (priority 0, `*`).
    fn new_attempt(&mut self, j: u32) -> Result<(), String> {
        let job = &mut self.jobs[j as usize];
        job.attempt += 1;
        let ev = Event::AttemptAdded {
            app: job.app.clone(),
            attempt: format!("{}_{:06}", job.app, job.attempt),
        };
        self.send(ev)?;
        for (k, _) in self.jobs[j as usize].rm.rows() {
            self.set_rm_row(j, k, 0);
        }
        self.set_rm_row(j, (PRIORITY_AM, Loc::Any), 1);
        self.send_snapshot(j)
    }

    fn set_rm_row(&mut self, j: u32, key: RowKey, value: u32) {
        let old = self.jobs[j as usize].rm.set(key, value);
        if key.1 == Loc::Any {
            let was = self.pending_any;
            self.pending_any += value as i64 - old as i64;
            if was <= 0 && self.pending_any > 0 {
                for n in 0..self.nodes.len() as u32 {
                    self.arm(n);
                }
            }
        }
    }

    fn capability_of(&self, j: u32, priority: i32) -> Resource {
        let spec = &self.w.jobs[j as usize];
        match priority {
            PRIORITY_AM => spec.am,
            PRIORITY_REDUCE => spec.reduce,
            _ => spec.map,
        }
    }

    fn ask_row(&self, j: u32, (priority, loc): RowKey, count: u32) -> Ask {
        let c = &self.w.cluster;
        Ask {
            priority,
            allocation_request_id: 0,
            resource_name: match loc {
                Loc::Host(h) => c.nodes[h as usize].host.clone(),
                Loc::Rack(r) => c.racks[r as usize].name.clone(),
                Loc::Any => "*".to_string(),
            },
            capability: self.capability_of(j, priority),
            count,
            relax_locality: true,
        }
    }

    /// The whole table (`asks_updated`), used when an attempt starts: the core dropped the
    /// previous attempt's asks, so there is nothing to change rows of.
    fn send_snapshot(&mut self, j: u32) -> Result<(), String> {
        let job = &self.jobs[j as usize];
        let asks: Vec<Ask> = job
            .rm
            .rows()
            .into_iter()
            .map(|(key, count)| self.ask_row(j, key, count))
            .collect();
        let app = job.app.clone();
        self.jobs[j as usize].rm.take_changed();
        self.send(Event::AsksUpdated { app, asks })
    }

    /// Only the rows set since the last message (`asks_changed`), as the RM learns them from
    /// an allocate call or changes them when it creates containers.
    fn send_changes(&mut self, j: u32) -> Result<(), String> {
        let changed = self.jobs[j as usize].rm.take_changed();
        if changed.is_empty() {
            return Ok(());
        }
        let job = &self.jobs[j as usize];
        let asks: Vec<Ask> = changed
            .into_iter()
            .map(|key| self.ask_row(j, key, job.rm.get(key)))
            .collect();
        let app = job.app.clone();
        self.send_about(Event::AsksChanged { app, asks }, |e: &Self| {
            format!("asks_changed {}", e.jobs[j as usize].app)
        })
    }

    fn am_launched(&mut self, j: u32, attempt: u32) -> Result<(), String> {
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        if job.attempt != attempt || job.finished.is_some() || job.registered_at.is_some() {
            return Ok(());
        }
        job.registered_at = Some(now);
        for m in 0..job.maps.len() {
            if !job.maps[m].done && !job.maps[m].running {
                job.am.request_map(m as u32, now);
            }
        }
        if job.maps.is_empty() && job.reduces.is_empty() {
            return self.finish_job(j);
        }
        self.allocate(j)
    }

    /// What the RM reports as job `j`'s headroom: the cluster's free memory (a single-queue
    /// scheduler's answer, as the shim gives it), under `capacity` also no more than its queue
    /// may still take before its maximum-capacity, as CapacityScheduler reports it. Without
    /// that cap an AM whose reduces fill its queue would never preempt them for its maps.
    fn headroom_mb(&self, j: u32) -> i64 {
        let free = (self.cluster_mem - self.used_mem).max(0.0) as i64;
        match self.core.queue_headroom_mb(&self.raw.job_queues[j as usize]) {
            Some(queue) => free.min(queue as i64),
            None => free,
        }
    }

    /// RMContainerAllocator.preemptReducesIfNeeded + scheduleReduces, in memory (the default
    /// resource calculator's dimension).
    fn schedule_reduces(&mut self, j: u32) -> Result<(), String> {
        let now = self.now;
        let headroom = self.headroom_mb(j);
        let spec = &self.w.jobs[j as usize];
        let (map_mb, red_mb) = (
            spec.map.memory_mb.max(1) as i64,
            spec.reduce.memory_mb.max(1) as i64,
        );
        let job = &mut self.jobs[j as usize];
        if job.reduces.is_empty() {
            return Ok(());
        }
        let scheduled_maps = job.am.scheduled_maps() as i64;
        let (assigned_maps, assigned_reduces) = (job.run_maps as i64, job.run_reduces as i64);
        let limit = headroom + map_mb * assigned_maps + red_mb * assigned_reduces;
        if assigned_maps == 0 && scheduled_maps > 0 {
            let hanging_long = job
                .am
                .maps_requested_by(now.saturating_sub(UNCONDITIONAL_PREEMPT_MS))
                as i64;
            let room_for_map = (headroom - red_mb * job.am.scheduled_reduces() as i64) / map_mb > 0;
            let hanging = if now >= UNCONDITIONAL_PREEMPT_MS && hanging_long > 0 {
                hanging_long
            } else if !room_for_map {
                scheduled_maps
            } else {
                0
            };
            if hanging > 0 {
                while let Some(r) = job.am.remove_reduce() {
                    job.pending_reduces.push_back(r);
                }
                let one = (map_mb + red_mb - 1) / red_mb;
                let cap = ((limit as f64 * REDUCE_PREEMPTION_LIMIT) / red_mb as f64).ceil() as i64;
                let all = (map_mb * hanging + red_mb - 1) / red_mb;
                let to_preempt = one.max(cap).min(all);
                // Least progress first: reduces still waiting for maps, the latest started first.
                let mut running: Vec<(bool, Reverse<u64>, u32)> = (0..job.reduces.len() as u32)
                    .filter(|&r| job.reduces[r as usize].running)
                    .map(|r| {
                        let t = &job.reduces[r as usize];
                        (!t.waiting_shuffle, Reverse(t.start), r)
                    })
                    .collect();
                running.sort();
                for &(_, _, r) in running.iter().take(to_preempt.max(0) as usize) {
                    let t = TaskRef {
                        job: j,
                        reduce: true,
                        idx: r,
                    };
                    let cid = self.task(t).container;
                    self.kill_task(t);
                    self.raw.preempted_reduces += 1;
                    let job = &mut self.jobs[j as usize];
                    job.to_release.push(cid);
                    job.pending_reduces.push_back(r);
                }
                return Ok(());
            }
        }
        let job = &mut self.jobs[j as usize];
        if job.pending_reduces.is_empty() {
            return Ok(());
        }
        let total_maps = job.maps.len();
        if !job.reduce_started {
            if (job.maps_done as f64) < (self.cfg.slowstart * total_maps as f64).ceil() {
                return Ok(());
            }
            job.reduce_started = true;
        }
        if scheduled_maps == 0 {
            while let Some(r) = job.pending_reduces.pop_front() {
                job.am.request_reduce(r);
            }
            return Ok(());
        }
        let completed = if total_maps == 0 {
            1.0
        } else {
            job.maps_done as f64 / total_maps as f64
        };
        let scheduled_reduces = job.am.scheduled_reduces() as i64;
        let ideal_reduce = (limit as f64 * completed.min(REDUCE_RAMPUP_LIMIT)) as i64;
        let ideal_map = limit - ideal_reduce;
        let net_map = map_mb * (scheduled_maps + assigned_maps);
        let net_reduce = red_mb * (scheduled_reduces + assigned_reduces);
        let final_reduce = if ideal_map / map_mb >= scheduled_maps + assigned_maps {
            ideal_reduce + (ideal_map - net_map)
        } else {
            ideal_reduce
        };
        let ramp = (final_reduce - net_reduce) / red_mb;
        if ramp > 0 {
            for _ in 0..ramp.min(job.pending_reduces.len() as i64) {
                if let Some(r) = job.pending_reduces.pop_front() {
                    job.am.request_reduce(r);
                }
            }
        } else if ramp < 0 {
            for _ in 0..(-ramp).min(scheduled_reduces) {
                if let Some(r) = job.am.remove_reduce() {
                    job.pending_reduces.push_back(r);
                }
            }
        }
        Ok(())
    }

    /// One AM heartbeat (RMContainerAllocator.heartbeat): the allocate call carries the rows
    /// changed and the containers released since the previous call and returns the containers
    /// granted since; then the AM assigns them and recomputes its reduce schedule, whose changes
    /// go out on the next call.
    fn allocate(&mut self, j: u32) -> Result<(), String> {
        self.jobs[j as usize].allocate_at = None;
        if self.jobs[j as usize].finished.is_some() || self.jobs[j as usize].registered_at.is_none()
        {
            return Ok(());
        }
        for cid in std::mem::take(&mut self.jobs[j as usize].to_release) {
            self.release(cid)?;
        }
        let changes = self.jobs[j as usize].am.take_changes();
        if !changes.is_empty() {
            for (k, v) in changes {
                self.set_rm_row(j, k, v);
            }
            self.send_changes(j)?;
        }
        let granted = std::mem::take(&mut self.jobs[j as usize].new);
        let assigned = self.jobs[j as usize].am.assign(&granted);
        for (g, a) in assigned {
            match a {
                Assigned::Map(m) => self.start_task(
                    TaskRef {
                        job: j,
                        reduce: false,
                        idx: m,
                    },
                    g,
                ),
                Assigned::Reduce(r) => self.start_task(
                    TaskRef {
                        job: j,
                        reduce: true,
                        idx: r,
                    },
                    g,
                ),
                Assigned::Release => {
                    self.raw.unused_containers += 1;
                    self.jobs[j as usize].to_release.push(g.container)
                }
            }
        }
        self.schedule_reduces(j)?;
        let at = self.now + self.cfg.am_heartbeat_ms;
        self.jobs[j as usize].allocate_at = Some(at);
        self.push(at, Ev::Allocate(j));
        Ok(())
    }

    fn finish_job(&mut self, j: u32) -> Result<(), String> {
        self.jobs[j as usize].finished = Some(self.now);
        self.raw.finish_ms[j as usize] = Some(self.now);
        self.unfinished -= 1;
        self.active.remove(&j);
        let live: Vec<u64> = self.jobs[j as usize].containers.iter().copied().collect();
        for cid in live {
            self.release(cid)?;
        }
        for (k, _) in self.jobs[j as usize].rm.rows() {
            self.set_rm_row(j, k, 0);
        }
        let job = &self.jobs[j as usize];
        let (app, attempt) = (job.app.clone(), format!("{}_{:06}", job.app, job.attempt));
        self.send(Event::AttemptRemoved {
            app: app.clone(),
            attempt,
        })?;
        self.send(Event::AppRemoved { app })?;
        // Nothing reads a finished job's tables and tasks again (its late events stop at
        // `finished`): free them now rather than hold every job's until the run ends.
        let job = &mut self.jobs[j as usize];
        job.am = AmRequests::default();
        job.rm = RowCounts::default();
        job.maps = Vec::new();
        job.reduces = Vec::new();
        job.map_out = BTreeMap::new();
        Ok(())
    }

    // ---- containers ------------------------------------------------------------------------

    /// The RM frees a container and tells the core.
    fn release(&mut self, cid: u64) -> Result<(), String> {
        let c = &mut self.containers[cid as usize];
        if !c.live {
            return Ok(());
        }
        c.live = false;
        let (j, n, resource) = (c.job, c.node, c.resource);
        let node = &mut self.nodes[n as usize];
        node.used = node.used.saturating_sub(&resource);
        node.containers.remove(&cid);
        self.used_mem -= resource.memory_mb as f64;
        self.jobs[j as usize].containers.remove(&cid);
        let ev = Event::ContainerReleased {
            app: self.jobs[j as usize].app.clone(),
            container: format!("container_{cid}"),
            node: self.nodes[n as usize].id.clone(),
            resource,
        };
        self.send_about(ev, |_| format!("container_released container_{cid}"))
    }

    /// Resumes a parked node's heartbeats at its next beat after now.
    fn arm(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        if node.armed || !node.alive {
            return;
        }
        node.armed = true;
        let hb = self.cfg.heartbeat_ms;
        let next = if self.now < node.offset {
            node.offset
        } else {
            node.offset + ((self.now - node.offset) / hb + 1) * hb
        };
        self.push(next, Ev::Heartbeat(n));
    }

    fn heartbeat(&mut self, n: u32) -> Result<(), String> {
        if !self.nodes[n as usize].alive {
            return Ok(());
        }
        self.raw.heartbeats += 1;
        let done = std::mem::take(&mut self.nodes[n as usize].completed);
        for cid in done {
            self.release(cid)?;
        }
        if self.pending_any <= 0 {
            // Nothing is outstanding anywhere, so the core could not decide anything: park.
            self.nodes[n as usize].armed = false;
            return Ok(());
        }
        self.push(self.now + self.cfg.heartbeat_ms, Ev::Heartbeat(n));
        let node = &self.nodes[n as usize];
        let hb = Heartbeat {
            node: node.id.clone(),
            unallocated: node.cap.saturating_sub(&node.used),
            now_ms: self.now,
        };
        let t0 = Instant::now();
        let resp = self.core.heartbeat(&hb).map_err(|e| {
            err(
                format!("the heartbeat of {} at {} ms", hb.node, self.now),
                e,
            )
        })?;
        let spent = t0.elapsed().as_secs_f64();
        self.raw.decision_us.record(spent * 1e6);
        self.raw.core_heartbeat_s += spent;
        self.raw.core_heartbeats += 1;
        let mut dirty: Vec<u32> = Vec::new();
        for d in resp.decisions {
            self.raw.decisions += 1;
            if let Some(j) = self.execute(n, d)? {
                if !dirty.contains(&j) {
                    dirty.push(j);
                }
            }
        }
        for j in dirty {
            self.send_changes(j)?;
        }
        self.note_queue_peaks();
        Ok(())
    }

    fn note_queue_peaks(&mut self) {
        if self.core.capacity_queues().is_none() || self.cluster_mem <= 0.0 {
            return;
        }
        for (name, q) in self.core.state().queues().iter() {
            let share = q.used.memory_mb as f64 / self.cluster_mem;
            let peak = self.raw.queue_peak_share.entry(name.to_string()).or_default();
            *peak = peak.max(share);
        }
    }

    /// Validates and executes one decision as the shim does; returns the app whose asks changed.
    fn execute(&mut self, n: u32, d: Decision) -> Result<Option<u32>, String> {
        let c = &self.w.cluster;
        let j = self
            .app_index
            .get(&d.app)
            .copied()
            .filter(|&j| self.jobs[j as usize].finished.is_none());
        let node_id = &self.nodes[n as usize].id;
        let rack = c.rack_of(n as usize) as u32;
        let loc = if d.resource_name == "*" {
            Some(Loc::Any)
        } else if d.resource_name == c.nodes[n as usize].host {
            Some(Loc::Host(n))
        } else if d.resource_name == c.racks[rack as usize].name {
            Some(Loc::Rack(rack))
        } else {
            None
        };
        let problem = match (j, loc) {
            (None, _) => Some(format!("unknown or finished application {}", d.app)),
            _ if d.node != *node_id => Some(format!(
                "decision for node {} on the heartbeat of {node_id}",
                d.node
            )),
            (_, None) => Some(format!(
                "resource name {:?} is not node {node_id}'s host, rack or *",
                d.resource_name
            )),
            (Some(j), _) if d.capability != self.capability_of(j, d.priority) => Some(format!(
                "capability {:?} differs from the ask's",
                d.capability
            )),
            _ => None,
        };
        let (Some(j), Some(loc), None) = (j, loc, problem.clone()) else {
            self.raw.rejected += 1;
            let reason = problem.unwrap_or_default();
            self.send(Event::DecisionRejected {
                decision: d,
                executed: 0,
                reason,
            })?;
            return Ok(None);
        };
        let p = d.priority;
        let mut executed = 0;
        let mut reason = String::new();
        for _ in 0..d.count {
            let node = &self.nodes[n as usize];
            if !node.cap.saturating_sub(&node.used).fits(&d.capability) {
                reason = "node has no room left".into();
                break;
            }
            let rows = &self.jobs[j as usize].rm;
            let at = |k: Loc| rows.get((p, k));
            if at(loc) == 0 || at(Loc::Any) == 0 {
                reason = format!("no outstanding ask at priority {p}, {}", d.resource_name);
                break;
            }
            let dec: &[Loc] = match d.locality {
                Locality::NodeLocal => &[Loc::Host(n), Loc::Rack(rack), Loc::Any],
                Locality::RackLocal => &[Loc::Rack(rack), Loc::Any],
                Locality::OffSwitch => &[Loc::Any],
            };
            for &k in dec {
                let v = self.jobs[j as usize].rm.get((p, k));
                self.set_rm_row(j, (p, k), v.saturating_sub(1));
            }
            let cid = self.containers.len() as u64;
            self.containers.push(ContainerRt {
                job: j,
                node: n,
                resource: d.capability,
                live: true,
            });
            let node = &mut self.nodes[n as usize];
            node.used = node.used.add(&d.capability);
            node.containers.insert(cid);
            self.used_mem += d.capability.memory_mb as f64;
            self.jobs[j as usize].containers.insert(cid);
            let info = ContainerInfo {
                container: format!("container_{cid}"),
                app: d.app.clone(),
                node: d.node.clone(),
                priority: p,
                resource: d.capability,
            };
            self.send_about(
                Event::ContainerAllocated {
                    container: info,
                    locality: d.locality,
                    allocation_request_id: d.allocation_request_id,
                    recovered: false,
                },
                |_| format!("container_allocated container_{cid}"),
            )?;
            if p == PRIORITY_AM {
                let job = &mut self.jobs[j as usize];
                job.am_container = Some(cid);
                let attempt = job.attempt;
                self.push(self.now + self.cfg.am_launch_ms, Ev::AmLaunched(j, attempt));
            } else {
                self.jobs[j as usize].new.push(Granted {
                    container: cid,
                    node: n,
                    rack,
                    priority: p,
                });
            }
            executed += 1;
        }
        if executed < d.count {
            self.raw.rejected += 1;
            self.send(Event::DecisionRejected {
                decision: d,
                executed,
                reason,
            })?;
        }
        Ok(Some(j))
    }

    // ---- tasks -----------------------------------------------------------------------------

    fn task(&mut self, t: TaskRef) -> &mut TaskRt {
        let job = &mut self.jobs[t.job as usize];
        if t.reduce {
            &mut job.reduces[t.idx as usize]
        } else {
            &mut job.maps[t.idx as usize]
        }
    }

    fn bytes_per_ms(mb_per_s: f64) -> f64 {
        mb_per_s * MB / 1000.0
    }

    fn start_task(&mut self, t: TaskRef, g: Granted) {
        self.last_progress = self.now;
        self.raw.attempts += 1;
        let now = self.now;
        let job = &mut self.jobs[t.job as usize];
        job.running += 1;
        job.running_start_sum += now as f64;
        if t.reduce {
            job.run_reduces += 1;
        } else {
            job.run_maps += 1;
        }
        self.nodes[g.node as usize].tasks_run += 1;
        if self.price[g.node as usize].is_some() {
            self.raw.public_tasks += 1;
        }
        let task = self.task(t);
        task.attempt += 1;
        task.running = true;
        task.container = g.container;
        task.node = g.node;
        task.start = now;
        if t.reduce {
            self.running_reduces += 1;
            let maps_left = {
                let job = &self.jobs[t.job as usize];
                job.maps_done < job.maps.len()
            };
            if maps_left {
                self.task(t).waiting_shuffle = true;
            } else {
                self.start_shuffle(t);
            }
            return;
        }
        self.running_maps += 1;
        let spec = &self.w.jobs[t.job as usize].maps[t.idx as usize];
        let attempt = self.task(t).attempt;
        if let Some(ms) = spec.fixed_ms {
            self.push(now + ms, Ev::TaskDone(t, attempt));
            return;
        }
        if spec.input_bytes == 0 {
            self.push(now + self.cfg.task_overhead_ms, Ev::TaskDone(t, attempt));
            return;
        }
        let (source, level) = self.choose_source(&spec.replicas, g.node, NONE);
        self.raw.traffic.map_read(level, spec.input_bytes as f64);
        let bytes = spec.input_bytes as f64;
        let task = self.task(t);
        task.level = Some(level);
        task.remaining = bytes;
        task.rate = 0.0;
        task.version += 1;
        task.read_event_at = u64::MAX;
        task.last = now;
        task.reading = true;
        self.attach_read(t, source);
    }

    /// The closest live replica to `reader` (HDFS sorts replicas by network distance and
    /// shuffles equals); `NONE` with Remote distance when every replica is gone.
    fn choose_source(&mut self, replicas: &[usize], reader: u32, exclude: u32) -> (u32, Distance) {
        let c = &self.w.cluster;
        let mut best: Vec<u32> = Vec::new();
        let mut best_d = Distance::Remote;
        for &r in replicas {
            if r as u32 == exclude || !self.nodes[r].alive {
                continue;
            }
            let d = c.distance(r, reader as usize);
            if best.is_empty() || d < best_d {
                best.clear();
                best_d = d;
            }
            if d == best_d {
                best.push(r as u32);
            }
        }
        if best.is_empty() {
            return (NONE, Distance::Remote);
        }
        (best[self.rng.below(best.len())], best_d)
    }

    fn attach_read(&mut self, t: TaskRef, source: u32) {
        let reader_node = self.task(t).node;
        self.task(t).source = source;
        if source == NONE {
            // The data is gone from every live replica; model the read as a remote fetch
            // nobody else shares, so the job can still finish.
            let rate = Self::bytes_per_ms(self.cfg.bw.remote);
            let now = self.now;
            let task = self.task(t);
            task.rate = rate;
            task.version += 1;
            let (v, at) = (task.version, now + (task.remaining / rate).ceil() as u64);
            task.read_event_at = at;
            self.push(at, Ev::ReadDone(t, v));
            return;
        }
        let node = &mut self.nodes[source as usize];
        node.reads.push(t);
        if source != reader_node && node.remote_reads.start(self.cfg.hotspot_readers) {
            self.raw.hotspots.push(self.now);
        }
        self.retime_reads(source);
    }

    fn detach_read(&mut self, t: TaskRef) {
        let task = self.task(t);
        let (source, reader) = (task.source, task.node);
        task.reading = false;
        task.source = NONE;
        if source == NONE {
            return;
        }
        let node = &mut self.nodes[source as usize];
        if let Some(pos) = node.reads.iter().position(|&r| r == t) {
            node.reads.swap_remove(pos);
            if source != reader {
                node.remote_reads.end();
            }
        }
        self.retime_reads(source);
    }

    /// Processor sharing: every read served by `source` progresses at its old rate up to now,
    /// then continues at min(path bandwidth, serving bandwidth / readers).
    fn retime_reads(&mut self, source: u32) {
        let now = self.now;
        let readers = self.nodes[source as usize].reads.len();
        if readers == 0 {
            return;
        }
        let share = Self::bytes_per_ms(self.cfg.bw.serve) / readers as f64;
        // By index: the list stays put while its reads are re-timed (a copy of it per read
        // started or ended was an allocation each).
        for i in 0..readers {
            let r = self.nodes[source as usize].reads[i];
            let path = {
                let level = self.task(r).level.unwrap_or(Distance::Remote);
                Self::bytes_per_ms(self.cfg.bw.path(level))
            };
            let task = self.task(r);
            task.remaining = (task.remaining - task.rate * (now - task.last) as f64).max(0.0);
            task.last = now;
            task.rate = path.min(share);
            let at = now + (task.remaining / task.rate).ceil() as u64;
            // A later finish keeps the queued event, which re-times itself when it fires; only
            // an earlier one needs a new event. This keeps one live event per read instead of
            // one per change at a busy node.
            if at < task.read_event_at || task.read_event_at < now {
                task.version += 1;
                task.read_event_at = at;
                let v = task.version;
                self.push(at, Ev::ReadDone(r, v));
            }
        }
    }

    fn read_done(&mut self, t: TaskRef, version: u32) {
        if self.jobs[t.job as usize].finished.is_some() {
            return;
        }
        let now = self.now;
        let task = self.task(t);
        if !task.running || !task.reading || task.version != version {
            return;
        }
        task.remaining = (task.remaining - task.rate * (now - task.last) as f64).max(0.0);
        task.last = now;
        if task.remaining > task.rate * 0.5 {
            // The rate dropped since this event was queued.
            let at = now + (task.remaining / task.rate).ceil() as u64;
            task.read_event_at = at;
            self.push(at, Ev::ReadDone(t, version));
            return;
        }
        self.detach_read(t);
        let spec = &self.w.jobs[t.job as usize].maps[t.idx as usize];
        let compute = spec.input_bytes as f64 / Self::bytes_per_ms(self.cfg.map_mb_per_s);
        let attempt = self.task(t).attempt;
        self.push(
            self.now + compute.ceil() as u64 + self.cfg.task_overhead_ms,
            Ev::TaskDone(t, attempt),
        );
    }

    fn start_shuffle(&mut self, t: TaskRef) {
        let c = &self.w.cluster;
        let spec = &self.w.jobs[t.job as usize];
        let node = self.task(t).node;
        self.task(t).waiting_shuffle = false;
        let attempt = self.task(t).attempt;
        if let Some(ms) = spec.reduces[t.idx as usize].fixed_ms {
            self.push(self.now + ms, Ev::TaskDone(t, attempt));
            return;
        }
        let parts = spec.reduces.len().max(1) as f64;
        let mut copy_ms = 0.0;
        let mut input = 0.0;
        let outs: Vec<(u32, f64)> = self.jobs[t.job as usize]
            .map_out
            .iter()
            .map(|(&k, &v)| (k, v))
            .collect();
        for (src, bytes) in outs {
            let share = bytes / parts;
            let d = c.distance(src as usize, node as usize);
            copy_ms += share / Self::bytes_per_ms(self.cfg.bw.path(d));
            self.raw.traffic.shuffle(d, share);
            input += share;
        }
        let compute = (input + spec.output_bytes as f64 / parts)
            / Self::bytes_per_ms(self.cfg.reduce_mb_per_s);
        let at = self.now + (copy_ms + compute).ceil() as u64 + self.cfg.task_overhead_ms;
        self.push(at, Ev::TaskDone(t, attempt));
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

    fn kill_task(&mut self, t: TaskRef) {
        let now = self.now;
        let task = self.task(t);
        if !task.running {
            return;
        }
        let (reading, start, node) = (task.reading, task.start, task.node);
        if reading {
            self.detach_read(t);
        }
        self.charge(t.job, node, start);
        let task = self.task(t);
        task.running = false;
        task.waiting_shuffle = false;
        let job = &mut self.jobs[t.job as usize];
        job.running -= 1;
        job.running_start_sum -= start as f64;
        job.task_ms_done += (now - start) as f64;
        if t.reduce {
            job.run_reduces -= 1;
            self.running_reduces -= 1;
        } else {
            job.run_maps -= 1;
            self.running_maps -= 1;
        }
    }

    fn node_fail(&mut self, n: u32) -> Result<(), String> {
        if !self.nodes[n as usize].alive {
            return Ok(());
        }
        self.nodes[n as usize].alive = false;
        let id = self.nodes[n as usize].id.clone();
        self.send(Event::NodeRemoved { node: id })?;
        // The core dropped the node's containers with it; the sim forgets them the same way.
        let now = self.now;
        let lost: Vec<u64> = self.nodes[n as usize].containers.iter().copied().collect();
        let mut failed_ams: Vec<u32> = Vec::new();
        for cid in lost {
            let c = &mut self.containers[cid as usize];
            c.live = false;
            let (j, res) = (c.job, c.resource);
            self.used_mem -= res.memory_mb as f64;
            self.jobs[j as usize].containers.remove(&cid);
            if self.jobs[j as usize].finished.is_some() {
                continue;
            }
            if self.jobs[j as usize].am_container == Some(cid) {
                failed_ams.push(j);
                continue;
            }
            if let Some(t) = self.task_in(j, cid) {
                self.kill_task(t);
                self.raw.lost_tasks += 1;
                let job = &mut self.jobs[j as usize];
                // A failed reduce goes to the front of the pending reduces (fail fast); a
                // failed map asks again at the fast-fail priority.
                if t.reduce {
                    job.pending_reduces.push_front(t.idx);
                } else {
                    job.am.request_failed_map(t.idx, now);
                }
            }
        }
        let node = &mut self.nodes[n as usize];
        node.containers.clear();
        node.completed.clear();
        node.used = Resource::ZERO;
        // Finished maps whose output lived there run again while reduces still need it.
        for j in 0..self.jobs.len() as u32 {
            let job = &mut self.jobs[j as usize];
            if !job.submitted
                || job.finished.is_some()
                || job.reduces.is_empty()
                || job.reduces_done == job.reduces.len()
            {
                continue;
            }
            let rerun: Vec<u32> = (0..job.maps.len() as u32)
                .filter(|&m| job.maps[m as usize].done && job.maps[m as usize].node == n)
                .collect();
            if rerun.is_empty() {
                continue;
            }
            job.map_out.remove(&n);
            self.raw.lost_tasks += rerun.len() as u64;
            for m in rerun {
                job.maps[m as usize].done = false;
                job.maps_done -= 1;
                if job.registered_at.is_some() {
                    job.am.request_failed_map(m, now);
                }
            }
        }
        // Reads it served move to another replica.
        let readers = std::mem::take(&mut self.nodes[n as usize].reads);
        self.nodes[n as usize].remote_reads.clear();
        for r in readers {
            let now = self.now;
            let task = self.task(r);
            task.remaining = (task.remaining - task.rate * (now - task.last) as f64).max(0.0);
            task.last = now;
            task.source = NONE;
            let reader = task.node;
            let spec = &self.w.jobs[r.job as usize].maps[r.idx as usize];
            let (src, level) = self.choose_source(&spec.replicas, reader, n);
            self.task(r).level = Some(level);
            self.attach_read(r, src);
        }
        for j in failed_ams {
            self.am_failed(j)?;
        }
        Ok(())
    }

    fn task_in(&mut self, j: u32, cid: u64) -> Option<TaskRef> {
        let job = &self.jobs[j as usize];
        let m = job
            .maps
            .iter()
            .position(|t| t.running && t.container == cid);
        if let Some(m) = m {
            return Some(TaskRef {
                job: j,
                reduce: false,
                idx: m as u32,
            });
        }
        job.reduces
            .iter()
            .position(|t| t.running && t.container == cid)
            .map(|r| TaskRef {
                job: j,
                reduce: true,
                idx: r as u32,
            })
    }

    /// The AM's node died: the attempt ends with its containers; a new attempt recovers the
    /// finished tasks (MapReduce job recovery) and asks again for the rest.
    fn am_failed(&mut self, j: u32) -> Result<(), String> {
        let running: Vec<u64> = self.jobs[j as usize].containers.iter().copied().collect();
        for cid in running {
            if let Some(t) = self.task_in(j, cid) {
                self.kill_task(t);
            }
            self.release(cid)?;
        }
        let job = &mut self.jobs[j as usize];
        let attempt = format!("{}_{:06}", job.app, job.attempt);
        let app = job.app.clone();
        let locations = self.split_locations(j);
        let job = &mut self.jobs[j as usize];
        job.am = AmRequests::new(locations);
        job.registered_at = None;
        job.allocate_at = None;
        job.am_container = None;
        job.new.clear();
        job.to_release.clear();
        job.reduce_started = false;
        job.pending_reduces = (0..job.reduces.len() as u32)
            .filter(|&r| !job.reduces[r as usize].done)
            .collect();
        self.send(Event::AttemptRemoved { app, attempt })?;
        self.new_attempt(j)
    }

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
