//! `locus.policy=mrosa`: MROSA's deadline/budget scheduling (Mao et al.) on
//! [`crate::papers::mrosa`], for a cluster whose nodes are partly a private cloud and partly
//! public-cloud instances.
//!
//! YARN mapping (docs/design/yarn-mapping.md):
//! - private cloud = nodes not listed in `locus.mrosa.public.file`; public pool = the listed
//!   nodes (instance type, $/s, MIPS, MB/s) plus the `*` lines: instance types not running
//!   yet, usable after `locus.mrosa.init-secs` (T_init);
//! - a job's `D_i` and `C_i` come from its `locus.deadline=` (seconds after submission) and
//!   `locus.budget=` tags; its tasks are its outstanding map and reduce containers, each
//!   estimated from the job's profile (`mW` = task seconds × `locus.mrosa.private.mips` minus
//!   the input transfer, `mD` = `locus.mrosa.split-mb`, `f` = the job's FP);
//! - private containers = room for one container of the jobs' size on each private node, ready
//!   now if free, else when the container running there is expected to end (its start + the
//!   job's average task time); public rooms likewise on each running public node, a busy one
//!   ready when its task's estimate on that instance type (eqs. 4-5) runs out;
//! - on each heartbeat the plan (eq. 8 order, Algorithm I, then Algorithm II over the running
//!   public rooms, one task per room, the wait for a busy room in T_init's place) is made for
//!   the current state. A private node serves the deadline jobs in eq. 8 order, then the others
//!   in submission order: with one private speed, improved Max-Min's earliest-finishing
//!   container for the next task is the room that is free now, i.e. the heartbeating node.
//!   Private nodes are work-conserving: of a job's tasks they leave out only the late ones a
//!   free public room is waiting for; a late task planned behind a busy public room, or with no
//!   running room at all, runs on a free private container (docs/design/papers-mrosa.md, departure
//!   15). A public node takes, per job, only the late tasks Algorithm II gave its instance type;
//!   jobs without a deadline never run there. AM containers and non-MapReduce applications are
//!   never held back (on any node);
//! - late tasks no running public room finishes before the deadline go to Algorithm II over the
//!   startable types with T_init: its answer is scale-out advice (type, count, cost), or, when
//!   no type meets the deadline, the job is flagged (log once + `Stats`), and what fits
//!   privately still runs.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::fast_hash::FastSet;
use crate::papers::fresh::yarn::outstanding;
use crate::papers::mrosa::{
    map_eet, priority_of, reduce_eet, schedule_private, schedule_public, schedule_running,
    InstanceType, MapTask, MrosaJob, PrivateContainer, PublicDecision, PublicSlot, ReduceTask,
    TaskKind as MTask, TaskRef, DEFAULT_INIT_SECS, DEFAULT_RHO,
};
use crate::policy::{FlaggedJob, JobPolicy, PolicyReport, ScaleOutAdvice};
use crate::profile::ProfileDefaults;
use crate::protocol::Resource;
use crate::state::app::{App, Arrival, TaskKind};
use crate::state::node::Node;
use crate::state::ClusterState;

use super::speed::earliest_rooms;

/// Tasks one plan looks at, the most urgent jobs' first: Algorithm I costs tasks × containers, so
/// this bounds a plan to about a million steps; the rest are planned as these are served.
const MAX_TASKS_PER_PLAN: usize = 1_024;
/// Plans are remade at least this often (RM clock), and whenever the deadline jobs change.
const REPLAN_MS: u64 = 1_000;

/// The public pool of `locus.mrosa.public.file`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PublicPool {
    /// Running public nodes by host.
    pub nodes: BTreeMap<String, InstanceType>,
    /// Instance types that can be started.
    pub startable: Vec<InstanceType>,
}

impl PublicPool {
    /// The pool a listing describes, or why a line of it (`source` names the listing) is refused.
    pub fn parse(text: &str, source: &str) -> Result<PublicPool, String> {
        let mut pool = PublicPool::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |why: String| {
                format!(
                    "{source} line {}: {why} (expected \"host type price-per-sec mips mb-per-sec\" or \"* type price-per-sec mips mb-per-sec [provider]\"): {raw:?}",
                    i + 1
                )
            };
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 5 || (f[0] != "*" && f.len() != 5) {
                return Err(bad(format!("{} fields", f.len())));
            }
            let num = |s: &str, what: &str, positive: bool| -> Result<f64, String> {
                match s.parse::<f64>() {
                    Ok(x) if x.is_finite() && (x > 0.0 || (!positive && x == 0.0)) => Ok(x),
                    _ => Err(bad(format!(
                        "{what} {s:?} is not a {} number",
                        if positive { "positive" } else { "non-negative" }
                    ))),
                }
            };
            let it = InstanceType {
                provider: if f.len() > 5 {
                    f[5..].join(" ")
                } else {
                    "public".into()
                },
                name: f[1].to_string(),
                cores: 0,
                ram_gb: 0.0,
                price_per_sec: num(f[2], "price", false)?,
                mips: num(f[3], "MIPS", true)?,
                band_mb_s: num(f[4], "bandwidth", true)?,
                storage_per_mb: 0.0,
                transfer_in_per_mb: 0.0,
                transfer_out_per_mb: 0.0,
            };
            if f[0] == "*" {
                if pool.startable.iter().any(|t| t.name == it.name) {
                    return Err(bad(format!("instance type {} listed twice", it.name)));
                }
                pool.startable.push(it);
            } else if pool.nodes.insert(f[0].to_string(), it).is_some() {
                return Err(bad(format!("host {} listed twice", f[0])));
            }
        }
        Ok(pool)
    }
}

/// `locus.mrosa.*`.
#[derive(Debug, Clone, PartialEq)]
pub struct MrosaSettings {
    pub public_file: Option<PathBuf>,
    pub pool: PublicPool,
    pub rho: f64,
    pub init_secs: f64,
    pub private_mips: f64,
    pub private_band_mb_s: f64,
    pub split_mb: f64,
}

impl Default for MrosaSettings {
    fn default() -> Self {
        MrosaSettings {
            public_file: None,
            pool: PublicPool::default(),
            rho: DEFAULT_RHO,
            init_secs: DEFAULT_INIT_SECS,
            private_mips: 2_600.0,
            private_band_mb_s: 125.0,
            split_mb: 128.0,
        }
    }
}

/// One job's map and reduce in the model's terms (every map alike, every reduce alike).
struct TaskModel {
    map: MapTask,
    reduce: ReduceTask,
    /// `f`.
    output_ratio: f64,
    /// Done, running and outstanding.
    total_maps: u32,
    total_reduces: u32,
}

struct JobInput {
    arrival: Arrival,
    job: MrosaJob,
    /// Eq. 8 on the whole job (every map and reduce, done or not) and its `D_i`: fixed for the
    /// job's life, as in the paper, where a job is ranked once on arrival.
    priority: f64,
    /// Outstanding (maps, reduces); `job` lists at most MAX_TASKS_PER_PLAN of each.
    outstanding: (u32, u32),
}

pub struct MrosaPolicy {
    s: MrosaSettings,
    default_map_secs: f64,
    default_reduce_secs: f64,
    /// Per (app, is_map, instance type): late tasks the plan gave the running public nodes of
    /// that type, spent as they are placed.
    public_allow: HashMap<(Arrival, bool, String), u32>,
    /// Per (app, is_map): tasks a deadline job may still start on private nodes when the running
    /// public pool takes its late ones (absent: no limit).
    private_allow: HashMap<(Arrival, bool), u32>,
    /// The heartbeating node's instance type when it is public.
    node_type: Option<String>,
    /// Deadline jobs in eq. 8 order as of the last plan.
    order: Vec<Arrival>,
    /// When the last plan was made and for which jobs.
    planned: Option<(u64, Vec<Arrival>)>,
    flagged: BTreeMap<Arrival, FlaggedJob>,
    advice: BTreeMap<Arrival, Vec<ScaleOutAdvice>>,
    flagged_total: u64,
}

/// One node's rooms for a container of the plan's size, in the order they become ready.
struct NodeRooms<'s> {
    node: &'s Node,
    /// Rooms listed (at most the plan's task count).
    rooms: u32,
    /// The first `free` rooms are free now.
    free: u32,
    /// Seconds until each task container there ends, ascending.
    busy: Vec<f64>,
    /// Wait for a room whose container end is not known.
    unknown_secs: f64,
}

impl NodeRooms<'_> {
    /// Seconds until room `i` is free: never less than room `i - 1`'s (0 for the free ones,
    /// then the ascending ends, the last repeated), which [`earliest_rooms`] relies on.
    fn ready(&self, i: u32) -> f64 {
        if i < self.free {
            return 0.0;
        }
        let k = (i - self.free) as usize;
        self.busy
            .get(k)
            .or(self.busy.last())
            .copied()
            .unwrap_or(self.unknown_secs)
    }

    fn name(&self, i: u32) -> String {
        format!("{}#{i}", self.node.id)
    }
}

impl MrosaPolicy {
    pub fn new(s: &MrosaSettings, defaults: &ProfileDefaults) -> Self {
        MrosaPolicy {
            s: s.clone(),
            default_map_secs: defaults.map_secs,
            default_reduce_secs: defaults.reduce_secs,
            public_allow: HashMap::new(),
            private_allow: HashMap::new(),
            node_type: None,
            order: Vec::new(),
            planned: None,
            flagged: BTreeMap::new(),
            advice: BTreeMap::new(),
            flagged_total: 0,
        }
    }

    /// The job's map and reduce task as the model sees them, from its profile: `mW` = task
    /// seconds × the private MIPS minus the input transfer, `mD` = the split size, `f` = its FP.
    fn task_model(&self, state: &ClusterState, app: &App) -> TaskModel {
        let o = outstanding(app);
        let est = state.profiles().estimate(app.arrival);
        let map_secs = est
            .avg_map_ms
            .map_or(self.default_map_secs, |ms| ms / 1000.0);
        let reduce_secs = est
            .avg_reduce_ms
            .map_or(self.default_reduce_secs, |ms| ms / 1000.0);
        let f = est.fp.unwrap_or(1.0);
        let (mips, band, split) = (
            self.s.private_mips,
            self.s.private_band_mb_s,
            self.s.split_mb,
        );
        // Observed times include reading the input; the paper's workload does not.
        let map_mi = ((map_secs - split / band).max(0.001)) * mips;
        // Saturating: the AM sets `o.maps` (up to 2^32-1).
        let total_maps = u32::try_from(est.maps_done)
            .unwrap_or(u32::MAX)
            .saturating_add(est.maps_running)
            .saturating_add(o.maps)
            .max(1);
        let reduce_mi = ((reduce_secs - f * split / band).max(0.001)) * mips;
        TaskModel {
            map: MapTask {
                workload_mi: map_mi,
                input_mb: split,
            },
            reduce: ReduceTask {
                workload_mi: reduce_mi,
                map_input_mb: total_maps as f64 * split,
                maps_fed: total_maps,
                sort_secs: 0.0,
            },
            output_ratio: f,
            total_maps,
            total_reduces: u32::try_from(est.reduces_done)
                .unwrap_or(u32::MAX)
                .saturating_add(est.reduces_running)
                .saturating_add(o.reduces),
        }
    }

    fn job_input(&self, state: &ClusterState, app: &App, now_secs: f64) -> Option<JobInput> {
        let hints = state.profiles().hints(app.arrival)?;
        let deadline = hints.deadline_secs?;
        let o = outstanding(app);
        if o.maps == 0 && o.reduces == 0 {
            return None;
        }
        let TaskModel {
            map,
            reduce,
            output_ratio: f,
            total_maps,
            total_reduces,
        } = self.task_model(state, app);
        // The AM sets the outstanding counts (up to 2^32-1): the plan lists at most
        // MAX_TASKS_PER_PLAN tasks of any job (it cannot look at more), the rest stay counts.
        let maps = vec![map; (o.maps as usize).min(MAX_TASKS_PER_PLAN)];
        let reduces = vec![reduce; (o.reduces as usize).min(MAX_TASKS_PER_PLAN)];
        let due = app.submit_ms as f64 / 1000.0 + deadline;
        let job = MrosaJob {
            job: app.id.clone(),
            maps,
            reduces,
            output_ratio: f,
            // Already late: as urgent as it gets, and nothing will meet it.
            deadline_secs: (due - now_secs).max(0.001),
            budget: hints.budget,
        };
        // Ranking by what is still outstanding put a job behind the others as soon as it made
        // progress: the jobs took turns, every job's reduces sat in containers waiting for maps
        // starved by the next "largest" job, and MROSA finished experiment 1 a third later than
        // FIFO. The paper ranks the job, not its remainder. Its maps (reduces) are all alike,
        // so eq. 8's data sum is a product of counts.
        let whole_data_mb =
            total_maps as f64 * map.input_mb + total_reduces as f64 * (f * reduce.map_input_mb);
        Some(JobInput {
            arrival: app.arrival,
            priority: priority_of(whole_data_mb, deadline.max(0.001), hints.budget, self.s.rho),
            job,
            outstanding: (o.maps, o.reduces),
        })
    }

    /// Room for one container of `size` on each node `want` keeps, per node in node-id order:
    /// the first `free` rooms are free now, the others wait for the task containers there to
    /// end (start + the job's average task time), earliest first. At most `limit` rooms per node.
    fn rooms<'s>(
        &self,
        state: &'s ClusterState,
        size: Resource,
        now_ms: u64,
        limit: usize,
        want: impl Fn(&Node) -> bool,
    ) -> Vec<NodeRooms<'s>> {
        let mut ends: HashMap<&str, Vec<f64>> = HashMap::new();
        // AMs and other applications' containers hold their room for an unknown time: that
        // room is no container for MROSA.
        let mut held: HashMap<&str, Resource> = HashMap::new();
        for c in state.containers().iter() {
            if c.kind.slot().is_none() {
                let h = held.entry(c.node.as_str()).or_default();
                *h = h.add(&c.resource);
                continue;
            }
            let Some(app) = state.app_by_id(&c.app) else {
                continue;
            };
            let public = if self.s.pool.nodes.is_empty() {
                None
            } else {
                state
                    .node(&c.node)
                    .and_then(|n| self.s.pool.nodes.get(&n.host))
            };
            let avg = match public {
                // The profile's averages are mostly private runs; a public instance runs the
                // task at its own speed (eqs. 4-5).
                Some(it) => {
                    let m = self.task_model(state, app);
                    1000.0
                        * if c.kind.is_map() {
                            map_eet(&m.map, it.mips, it.band_mb_s)
                        } else {
                            reduce_eet(&m.reduce, m.output_ratio, it.mips, it.band_mb_s)
                        }
                }
                None => {
                    let est = state.profiles().estimate(app.arrival);
                    if c.kind.is_map() {
                        est.avg_map_ms.unwrap_or(self.default_map_secs * 1000.0)
                    } else {
                        est.avg_reduce_ms
                            .unwrap_or(self.default_reduce_secs * 1000.0)
                    }
                }
            };
            let started = state.profiles().started_ms(&c.id).unwrap_or(now_ms);
            let left = (started as f64 + avg - now_ms as f64).max(0.0) / 1000.0;
            ends.entry(c.node.as_str()).or_default().push(left);
        }
        let mut nodes: Vec<&Node> = state.nodes().filter(|n| want(n)).collect();
        // Node ids are unique: an unstable sort gives the same order, faster.
        nodes.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        nodes
            .into_iter()
            .map(|n| {
                let slots = n
                    .capability
                    .saturating_sub(held.get(n.id.as_str()).unwrap_or(&Resource::ZERO))
                    .count_fitting(&size);
                // Another node's heartbeat figure predates what was placed on it since: the
                // core's own sum of its containers is newer.
                let free = n
                    .unallocated
                    .count_fitting(&size)
                    .min(
                        n.capability
                            .saturating_sub(&n.allocated)
                            .count_fitting(&size),
                    )
                    .min(slots);
                let mut busy = ends.remove(n.id.as_str()).unwrap_or_default();
                busy.sort_by(|a, b| a.total_cmp(b));
                NodeRooms {
                    node: n,
                    rooms: slots.min(u32::try_from(limit).unwrap_or(u32::MAX)),
                    free,
                    busy,
                    unknown_secs: self.default_map_secs,
                }
            })
            .collect()
    }

    /// Private containers (`Rft_j` = when the room frees). Only the `limit` earliest-ready are
    /// kept: with one private speed every task's earliest-finishing container is the
    /// earliest-ready one, so `limit` tasks never use others. They are taken by merging the
    /// nodes' rooms (each node's are in ready order) rather than by listing and sorting every
    /// room of every node: 5,000 nodes hold 160,000 rooms, each formatted as a name, which was
    /// most of an 84-117 ms plan for a 1,024-task job; the merge names only the rooms kept.
    fn private_containers(
        &self,
        state: &ClusterState,
        size: Resource,
        now_ms: u64,
        limit: usize,
    ) -> Vec<PrivateContainer> {
        let nodes = self.rooms(state, size, now_ms, limit, |n| {
            !self.s.pool.nodes.contains_key(&n.host)
        });
        earliest_rooms(
            nodes.len(),
            |p| nodes[p].rooms,
            |p, i| nodes[p].ready(i),
            limit.max(1),
        )
        .into_iter()
        .map(|(n, i)| {
            let mut c = PrivateContainer::new(
                nodes[n].name(i),
                self.s.private_mips,
                self.s.private_band_mb_s,
            );
            c.ready_in = nodes[n].ready(i);
            c
        })
        .collect()
    }

    /// The running public instances' rooms, each with its node's instance type.
    fn public_slots(
        &self,
        state: &ClusterState,
        size: Resource,
        now_ms: u64,
        limit: usize,
    ) -> Vec<PublicSlot> {
        if self.s.pool.nodes.is_empty() {
            return Vec::new();
        }
        self.rooms(state, size, now_ms, limit, |n| {
            self.s.pool.nodes.contains_key(&n.host)
        })
        .iter()
        .filter_map(|n| Some((n, self.s.pool.nodes.get(&n.node.host)?)))
        .flat_map(|(n, instance)| {
            (0..n.rooms).map(move |i| PublicSlot {
                id: n.name(i),
                instance: instance.clone(),
                ready_in: n.ready(i),
            })
        })
        .collect()
    }

    /// Deadline jobs with something outstanding, in submission order: a change replans at once.
    fn deadline_jobs_now(&self, state: &ClusterState) -> Vec<Arrival> {
        state
            .pending_apps_by_submission()
            .filter(|a| a.is_mapreduce)
            .filter(|a| {
                state
                    .profiles()
                    .hints(a.arrival)
                    .is_some_and(|h| h.deadline_secs.is_some())
            })
            .filter(|a| {
                let o = outstanding(a);
                o.maps > 0 || o.reduces > 0
            })
            .map(|a| a.arrival)
            .collect()
    }

    /// The whole model (eq. 8, Algorithm I, Algorithm II), at most once per second of RM clock
    /// or when the deadline jobs change; between plans the public allowances are spent.
    fn replan(&mut self, state: &ClusterState, jobs_now: Vec<Arrival>, now_ms: u64) {
        self.public_allow.clear();
        self.private_allow.clear();
        self.order.clear();
        self.planned = Some((now_ms, jobs_now.clone()));
        let now_secs = now_ms as f64 / 1000.0;
        let mut inputs: Vec<(f64, JobInput)> = jobs_now
            .iter()
            .filter_map(|&a| state.app(a))
            .filter_map(|a| self.job_input(state, a, now_secs))
            .map(|i| (i.priority, i))
            .collect();
        if inputs.is_empty() {
            return;
        }
        // Eq. 8 on the whole jobs, before the plan's task budget trims them.
        inputs.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.order = inputs.iter().map(|(_, i)| i.arrival).collect();
        let mut budget = MAX_TASKS_PER_PLAN;
        let mut unplanned: HashMap<Arrival, (u32, u32)> = HashMap::new();
        for (_, i) in inputs.iter_mut() {
            let (m, r) = i.outstanding;
            let maps = i.job.maps.len().min(budget);
            i.job.maps.truncate(maps);
            budget -= maps;
            let reduces = i.job.reduces.len().min(budget);
            i.job.reduces.truncate(reduces);
            budget -= reduces;
            unplanned.insert(i.arrival, (m - maps as u32, r - reduces as u32));
        }
        inputs.retain(|(_, i)| !i.job.maps.is_empty() || !i.job.reduces.is_empty());
        let size = inputs
            .iter()
            .filter_map(|(_, i)| state.app(i.arrival))
            .filter_map(|a| outstanding(a).map_size)
            .fold(None, |acc: Option<Resource>, s| {
                Some(acc.map_or(s, |z| {
                    Resource::new(z.memory_mb.max(s.memory_mb), z.vcores.max(s.vcores))
                }))
            })
            .unwrap_or(Resource::new(1024, 1));
        let tasks: usize = inputs
            .iter()
            .map(|(_, i)| i.job.maps.len() + i.job.reduces.len())
            .sum();
        let mut containers = self.private_containers(state, size, now_ms, tasks);
        let mut slots = self.public_slots(state, size, now_ms, tasks);
        // Eq. 8 order (of the whole jobs, as they are served): Algorithm I over the private
        // containers, then Algorithm II over the running instances' rooms (no T_init: they are
        // up; a busy room counts its wait instead), each job's reservations seen by the next.
        for (_, input) in &inputs {
            let (arrival, job) = (input.arrival, &input.job);
            if let Err(e) = job.validate() {
                log::warn!(
                    "MROSA: no plan for {} ({e}); it uses private nodes only",
                    job.job
                );
                continue;
            }
            let private = schedule_private(job, &mut containers);
            if private.to_public.is_empty() {
                self.advice.remove(&arrival);
                self.flagged.remove(&arrival);
                continue;
            }
            let running = match schedule_running(job, &private.to_public, &mut slots) {
                Ok(r) => r,
                Err(e) => {
                    log::warn!(
                        "MROSA: no public plan for {} ({e}); it uses private nodes only",
                        job.job
                    );
                    continue;
                }
            };
            // Algorithm I says which tasks are late; it is no cap on a private container that
            // would otherwise stay idle. Only the late tasks a free public room is waiting for
            // are kept off the private nodes (they start there on its next heartbeat). One
            // planned behind a busy room, or with no running room at all (advice only), runs
            // privately as soon as a private room is free, even when the estimates say the busy
            // room would finish it sooner: those estimates are what made it late (a job's first
            // reduces are priced at the default reduce time), and the paper wants as many tasks
            // as possible in the private cloud.
            let mut held = [0u32; 2];
            for p in &running.placements {
                let is_map = p.task.kind == MTask::Map;
                *self
                    .public_allow
                    .entry((arrival, is_map, p.instance_type.clone()))
                    .or_default() += 1;
                if p.start == 0.0 {
                    held[usize::from(!is_map)] += 1;
                }
            }
            let (um, ur) = unplanned.get(&arrival).copied().unwrap_or((0, 0));
            let outstanding = [
                (job.maps.len() as u32).saturating_add(um),
                (job.reduces.len() as u32).saturating_add(ur),
            ];
            for (k, is_map) in [(0, true), (1, false)] {
                if held[k] > 0 {
                    self.private_allow
                        .insert((arrival, is_map), outstanding[k].saturating_sub(held[k]));
                }
            }
            if running.unplaced.is_empty() {
                self.advice.remove(&arrival);
                self.flagged.remove(&arrival);
            } else {
                self.scale_out(arrival, job, &running.unplaced);
            }
        }
    }

    /// Late tasks no running instance finishes in time: Algorithm II over the startable types.
    fn scale_out(&mut self, arrival: Arrival, job: &MrosaJob, late: &[TaskRef]) {
        match schedule_public(job, late, &self.s.pool.startable, self.s.init_secs) {
            Ok(PublicDecision::Placed {
                scale_out,
                within_budget,
                ..
            }) => {
                self.flagged.remove(&arrival);
                let advice: Vec<ScaleOutAdvice> = scale_out
                    .into_iter()
                    .map(|s| ScaleOutAdvice {
                        app: job.job.clone(),
                        provider: s.provider,
                        instance_type: s.instance_type,
                        count: s.count,
                        estimated_cost: s.estimated_cost,
                        within_budget,
                    })
                    .collect();
                if self.advice.get(&arrival) != Some(&advice) {
                    for a in &advice {
                        log::warn!(
                            "MROSA: job {} misses its deadline on this cluster; advice: start {} x {} ({}), estimated cost ${:.6}{}",
                            a.app,
                            a.count,
                            a.instance_type,
                            a.provider,
                            a.estimated_cost,
                            if a.within_budget { "" } else { ", over the job's budget" }
                        );
                    }
                    self.advice.insert(arrival, advice);
                }
            }
            Ok(PublicDecision::Rejected { task, fastest_secs }) => {
                self.advice.remove(&arrival);
                if !self.flagged.contains_key(&arrival) {
                    let reason = format!(
                        "{:?} task {} needs {:.1} s even on the fastest public instance type (with T_init), the deadline is in {:.1} s",
                        task.kind, task.index, fastest_secs, job.deadline_secs
                    );
                    log::warn!("MROSA: job {} cannot meet its deadline: {reason}; it runs on private nodes only", job.job);
                    self.flagged_total += 1;
                    self.flagged.insert(
                        arrival,
                        FlaggedJob {
                            app: job.job.clone(),
                            reason,
                        },
                    );
                }
            }
            Err(e) => log::warn!("MROSA: {e}"),
        }
    }
}

impl JobPolicy for MrosaPolicy {
    fn name(&self) -> &'static str {
        "mrosa"
    }

    fn order(&mut self, state: &ClusterState, node: &Node, now_ms: u64) -> Vec<Arrival> {
        let jobs_now = self.deadline_jobs_now(state);
        let stale = match &self.planned {
            Some((at, jobs)) => {
                now_ms.saturating_sub(*at) >= REPLAN_MS || now_ms < *at || *jobs != jobs_now
            }
            None => true,
        };
        if stale {
            self.replan(state, jobs_now, now_ms);
        }
        self.node_type = self.s.pool.nodes.get(&node.host).map(|t| t.name.clone());
        // AMs go first only within the AM share (as under TD and JoSS): with every waiting AM
        // first, a burst of submissions filled the cluster with AMs whose maps then found no
        // room, and nothing ran again (docs/design/liveness.md). AMs beyond it wait in submission order.
        let am_first = crate::policy::am_share::am_first(state);
        let first: FastSet<Arrival> = am_first.iter().copied().collect();
        let mut rest = Vec::new();
        // Sets, not `Vec::contains`: with thousands of jobs a scan per job made every heartbeat
        // quadratic in them.
        let planned: FastSet<Arrival> = self.order.iter().copied().collect();
        for app in state.pending_apps_by_submission() {
            if !first.contains(&app.arrival) && !planned.contains(&app.arrival) {
                rest.push(app.arrival);
            }
        }
        let mut order = am_first;
        order.extend(self.order.iter().filter(|a| !first.contains(a)));
        order.extend(rest);
        order
    }

    fn admit(&mut self, _state: &ClusterState, _node: &Node, app: &App, kind: TaskKind) -> u32 {
        if !app.is_mapreduce || kind.slot().is_none() {
            return u32::MAX;
        }
        match &self.node_type {
            None => self
                .private_allow
                .get(&(app.arrival, kind.is_map()))
                .copied()
                .unwrap_or(u32::MAX),
            Some(t) => self
                .public_allow
                .get(&(app.arrival, kind.is_map(), t.clone()))
                .copied()
                .unwrap_or(0),
        }
    }

    fn placed(&mut self, app: Arrival, kind: TaskKind, count: u32, _capability: Resource) {
        let left = match &self.node_type {
            Some(t) => self.public_allow.get_mut(&(app, kind.is_map(), t.clone())),
            None => self.private_allow.get_mut(&(app, kind.is_map())),
        };
        if let Some(n) = left {
            *n = n.saturating_sub(count);
        }
    }

    fn app_removed(&mut self, app: Arrival) {
        self.flagged.remove(&app);
        self.advice.remove(&app);
    }

    fn report(&self) -> PolicyReport {
        PolicyReport {
            flagged_jobs: self.flagged.values().cloned().collect(),
            flagged_total: self.flagged_total,
            scale_out: self.advice.values().flatten().cloned().collect(),
        }
    }
}
