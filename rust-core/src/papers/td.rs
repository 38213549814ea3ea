//! TD, the Throughput Driven task scheduler (Wang, Shen, Yu, Nie, Kou — IEEE BigData Congress
//! 2013), for job-intensive clusters: co-schedule as many jobs as their slot *demands* fit in T
//! slots, keep each between `L·demand` and `H·demand` slots, give local slots to I/O-bound jobs
//! (small `amt`) and non-local slots to CPU-bound ones (large `amt`), read non-local splits from
//! the busiest node that is not an actual hotspot, and let an *infantile* job soak up slots that
//! finishing (*senile*) jobs leave idle.
//!
//! [`TdScheduler`] keeps the job statuses, the occupied counts and the hot queue between calls;
//! the adapter calls [`TdScheduler::slot_freed`] once per free map slot (Algorithm 1's input: "an
//! empty slot s on node n; the last task of s belongs to job j"). See `docs/design/papers-td.md`.
//!
//! Files: this one is the algorithm; `speed` numbers the nodes, caches R_n and keeps running
//! totals, each checked against its definition; `hotspot` is the hot queue; `yarn` is the
//! adapter to the job-policy layer, `hot_queue` the hotspot guard built on the hot queue, and
//! `map_containers` the adapter's view of running map containers.

pub mod hot_queue;
mod hotspot;
mod map_containers;
mod speed;
pub mod yarn;

pub use hotspot::HotQueue;
use hotspot::NodeHotQueue;
use speed::{forget, refresh_rs, rs_map, workload_of, NodeId, NodeIds, Rs, Totals};

use std::collections::{HashMap, VecDeque};

use crate::error::CoreError;
use crate::fast_hash::{FastMap, FastSet};

/// The paper's defaults are L = 0.7 and H = 1.3 (Section V); θ, δ and ρ have none there.
#[derive(Debug, Clone, PartialEq)]
pub struct TdConfig {
    /// T: map slots in the cluster.
    pub total_slots: u32,
    /// L ∈ (0, 1): every co-scheduled job is kept at `occupied ≥ L·demand`.
    pub lower_bound: f64,
    /// H > 1: no job holds more than `H·demand` slots (capped further by formula (1)).
    pub upper_bound: f64,
    /// θ: concurrent non-local readers that make a node an actual hotspot.
    pub hotspot_readers: u32,
    /// δ: split (HDFS block) size in bytes.
    pub split_bytes: u64,
    /// ρ: a node's network I/O bandwidth in bytes per second.
    pub bandwidth_bytes_per_sec: f64,
}

impl TdConfig {
    /// Paper defaults for L and H; θ = 3, δ = 64 MiB (the paper's split size), ρ = 1 Gbit/s are ours.
    pub fn with_slots(total_slots: u32) -> Self {
        TdConfig {
            total_slots,
            lower_bound: 0.7,
            upper_bound: 1.3,
            hotspot_readers: 3,
            split_bytes: 64 << 20,
            bandwidth_bytes_per_sec: 125_000_000.0,
        }
    }

    /// The parameter out of the paper's range, if any; the configuration layer names the key
    /// it was read from.
    pub fn validate(&self) -> Result<(), TdParamError> {
        let bad = |param: TdParam, message: String| Err(TdParamError { param, message });
        if !(self.lower_bound > 0.0 && self.lower_bound < 1.0) {
            return bad(
                TdParam::LowerBound,
                format!("L must lie in (0, 1), got {}", self.lower_bound),
            );
        }
        if !(self.upper_bound > 1.0 && self.upper_bound.is_finite()) {
            return bad(
                TdParam::UpperBound,
                format!("H must be a finite number > 1, got {}", self.upper_bound),
            );
        }
        if self.hotspot_readers == 0 {
            return bad(TdParam::HotspotReaders, "θ must be at least 1".into());
        }
        if self.split_bytes == 0 {
            return bad(TdParam::SplitBytes, "δ must be positive".into());
        }
        if !(self.bandwidth_bytes_per_sec > 0.0 && self.bandwidth_bytes_per_sec.is_finite()) {
            return bad(
                TdParam::Bandwidth,
                format!(
                    "ρ must be a positive number, got {}",
                    self.bandwidth_bytes_per_sec
                ),
            );
        }
        Ok(())
    }
}

/// One of [`TdConfig`]'s parameters: L, H, θ, δ or ρ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TdParam {
    LowerBound,
    UpperBound,
    HotspotReaders,
    SplitBytes,
    Bandwidth,
}

/// A parameter outside the paper's range, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct TdParamError {
    pub param: TdParam,
    pub message: String,
}

impl std::fmt::Display for TdParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.param, self.message)
    }
}

impl std::error::Error for TdParamError {}

/// Formula (1): `H < (T − L·D)/d_max + L`. Above this, one job at `H·demand` would push the
/// others below `L·demand` and create sticky slots. `None` when nothing is co-scheduled.
pub fn upper_bound_limit(
    total_slots: u32,
    lower: f64,
    demand_sum: u64,
    max_demand: u32,
) -> Option<f64> {
    if max_demand == 0 {
        return None;
    }
    Some((total_slots as f64 - lower * demand_sum as f64) / max_demand as f64 + lower)
}

/// Figure 6. A job only moves left to right; the priority among processing jobs is
/// teenaged > adult > infantile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    Waiting,
    /// Scheduled only to fill idle slots; not held to L. At most one at a time.
    Infantile,
    /// Admitted but below `L·demand`: gets every freed slot first.
    Teenaged,
    /// Steady: `L·demand ≤ occupied ≤ H·demand`.
    Adult,
    /// No untreated tasks left, some still running.
    Senile,
    Finished,
}

/// Where the assigned map task reads its split from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskSource {
    /// A split stored on the slot's own node.
    Local,
    /// A non-local task reading from this node (chosen by `GetNonHotspotNode`).
    Remote(String),
    /// The job has untreated tasks but none with a known location (e.g. asks only at `*`).
    Anywhere,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdAssignment {
    pub job: String,
    pub source: TaskSource,
}

#[derive(Debug, Clone)]
struct TdJob {
    demand: u32,
    /// amt(j) default given at submission, replaced by the observed mean once tasks finish.
    default_amt: f64,
    observed_secs: f64,
    observed_tasks: u32,
    occupied: u32,
    /// j.remain: untreated map tasks.
    remain: u32,
    /// rs_jn: untreated tasks of the job whose split is stored on node n.
    on_node: FastMap<NodeId, Rs>,
    /// Set when GetNonHotspotNode found every node holding the job's tasks hot: they all stay
    /// hot while the hot queue's latest expiry is below this (the earliest
    /// [`cools_at`](NodeHotQueue::cools_at) among them) and rs_jn is untouched, so the answer
    /// stays "no node" without looking at them again. On a large cluster with few jobs, every
    /// idle slot asked this about every job whose holders were all serving θ readers: 290 M
    /// holders looked at in a 100-job, 10,000-node simulation. Cleared whenever rs_jn changes.
    all_hot_until: Option<f64>,
    status: JobStatus,
    /// Submission order, to keep sorts deterministic on equal amt.
    seq: u64,
}

impl TdJob {
    fn rs(&self, node: NodeId) -> u32 {
        self.on_node.get(&node).map_or(0, |r| r.count)
    }

    /// Nodes holding at least one untreated task of the job: the only ones its term of R_n
    /// touches (a count of 0 adds exactly 0.0).
    fn holders(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.on_node
            .iter()
            .filter(|(_, r)| r.count > 0)
            .map(|(&n, _)| n)
    }

    fn amt(&self) -> f64 {
        if self.observed_tasks > 0 {
            self.observed_secs / self.observed_tasks as f64
        } else {
            self.default_amt
        }
    }

    fn has_task_on(&self, node: Option<NodeId>) -> bool {
        self.remain > 0 && node.is_some_and(|n| self.rs(n) > 0)
    }

    fn below(&self, factor: f64) -> bool {
        (self.occupied as f64) < self.demand as f64 * factor
    }
}

/// The TD scheduler's state: Q split into the status sets, and the hot queue.
#[derive(Debug, Clone)]
pub struct TdScheduler {
    cfg: TdConfig,
    /// By application id, which the ResourceManager assigns (so the fast hasher is safe): every
    /// status rule looks jobs up here, several times per freed slot.
    jobs: FastMap<String, TdJob>,
    waiting: VecDeque<String>,
    infantile: Option<String>,
    /// S_tee in the order jobs entered it ("the first job in S_tee").
    teenaged: Vec<String>,
    adult: Vec<String>,
    senile: Vec<String>,
    /// Keyed by our own node numbers.
    hot: NodeHotQueue,
    nodes: NodeIds,
    next_seq: u64,
    /// Jobs whose j.remain or rs_jn this module lowered itself (a committed task) since their
    /// last `set_tasks`: their counts no longer match the asks they were read from.
    counted_down: FastSet<String>,
    /// R_n of the nodes asked for since it last changed, each equal bit for bit to
    /// [`remaining_workload_from_scratch`](Self::remaining_workload_from_scratch): an entry is
    /// dropped whenever one of its terms could change (an rs_jn of that node, a job entering,
    /// leaving or moving within S_adu ∪ S_tee ∪ S_inf, an amt) and summed again, in the same
    /// order, when next asked for. Recomputing it for every holder of the job on every non-local
    /// pick was |holders|·|S'_sch| lookups: most of a 10,000-node simulation under TD.
    workload: Vec<Option<f64>>,
    /// S'_sch sorted by amt, until a job enters or leaves S_adu or an amt changes.
    by_amt: Option<Vec<String>>,
    /// D, d_max and O_sen kept as running totals: summing them over the status sets on every
    /// freed slot was a third of a 10,000-node simulation under TD.
    totals: Totals,
    /// Whether a committed non-local task's read is left to the caller
    /// ([`record_read`](Self::record_read)) instead of entering the hot queue at commit: in YARN
    /// a pick becomes a container only if the node's other checks (blacklist, partition, slot
    /// room) let it, and a read that never starts must not make its source hot.
    defer_reads: bool,
}

impl TdScheduler {
    pub fn new(cfg: TdConfig) -> Result<Self, CoreError> {
        cfg.validate()?;
        let hot = NodeHotQueue::new(
            cfg.hotspot_readers,
            cfg.split_bytes,
            cfg.bandwidth_bytes_per_sec,
        );
        Ok(TdScheduler {
            cfg,
            jobs: FastMap::default(),
            waiting: VecDeque::new(),
            infantile: None,
            teenaged: Vec::new(),
            adult: Vec::new(),
            senile: Vec::new(),
            hot,
            next_seq: 0,
            counted_down: FastSet::default(),
            workload: Vec::new(),
            nodes: NodeIds::default(),
            by_amt: None,
            totals: Totals::default(),
            defer_reads: false,
        })
    }

    /// Leaves committed non-local reads to [`record_read`](Self::record_read) (field docs).
    pub fn defer_reads(&mut self) {
        self.defer_reads = true;
    }

    /// A non-local read from `node` that started at `at_secs`, for the hot queue.
    pub fn record_read(&mut self, node: &str, at_secs: f64) {
        let id = self.nodes.intern(node);
        self.hot.record_read(id, at_secs);
    }

    pub fn config(&self) -> &TdConfig {
        &self.cfg
    }

    /// T changes as nodes join and leave.
    pub fn set_total_slots(&mut self, total_slots: u32) {
        self.cfg.total_slots = total_slots;
    }

    /// Appends a job to Q (status waiting). `demand` is j.demand (slots the job expects),
    /// `default_amt_secs` the per-job-type default of amt(j), `remain` its untreated map tasks and
    /// `on_node` how many of them have a split on each node.
    pub fn submit(
        &mut self,
        job: &str,
        demand: u32,
        default_amt_secs: f64,
        remain: u32,
        on_node: HashMap<String, u32>,
    ) -> Result<(), CoreError> {
        if self.jobs.contains_key(job) {
            return Err(CoreError::Protocol(format!(
                "TD: job {job} submitted twice"
            )));
        }
        if demand == 0 {
            return Err(CoreError::Protocol(format!(
                "TD: job {job} demands 0 slots; demand must be at least 1"
            )));
        }
        if !(default_amt_secs > 0.0 && default_amt_secs.is_finite()) {
            return Err(CoreError::Protocol(format!(
                "TD: job {job} has default map time {default_amt_secs}; it must be a positive number of seconds"
            )));
        }
        self.jobs.insert(
            job.to_string(),
            TdJob {
                demand,
                default_amt: default_amt_secs,
                observed_secs: 0.0,
                observed_tasks: 0,
                occupied: 0,
                remain,
                on_node: rs_map(&mut self.nodes, on_node),
                all_hot_until: None,
                status: JobStatus::Waiting,
                seq: self.next_seq,
            },
        );
        self.next_seq += 1;
        self.waiting.push_back(job.to_string());
        Ok(())
    }

    /// Refreshes j.remain and rs_jn from the job's outstanding asks. A processing job left with
    /// nothing untreated becomes senile (Algorithm 1 lines 27-28).
    pub fn set_tasks(
        &mut self,
        job: &str,
        remain: u32,
        on_node: HashMap<String, u32>,
    ) -> Result<(), CoreError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| CoreError::UnknownApp(job.to_string()))?;
        let old = std::mem::replace(&mut j.on_node, rs_map(&mut self.nodes, on_node));
        j.all_hot_until = None;
        for n in old
            .iter()
            .filter(|(_, r)| r.count > 0)
            .map(|(&n, _)| n)
            .chain(j.holders())
        {
            forget(&mut self.workload, n);
        }
        self.counted_down.remove(job);
        self.set_remain(job, remain)
    }

    /// [`set_tasks`](Self::set_tasks) from per-node rows (a node may appear in several, their
    /// counts add up), updating rs_jn in place: no node name is copied unless it is new to the
    /// job. Re-reading a 5,000-host job's asks into a fresh map after every task TD committed
    /// copied and freed 5,000 names per heartbeat (1.3 ms, and 15-109 ms when the allocator
    /// consolidated the freed memory). Nodes left with 0 are dropped, as a count of 0 and no
    /// entry mean the same to every rule.
    pub fn refresh_tasks<'n>(
        &mut self,
        job: &str,
        remain: u32,
        on_node: impl IntoIterator<Item = (&'n str, u32)>,
    ) -> Result<(), CoreError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| CoreError::UnknownApp(job.to_string()))?;
        let nodes = &mut self.nodes;
        refresh_rs(
            j,
            &mut self.workload,
            on_node.into_iter().map(|(n, c)| (nodes.intern(n), c)),
        );
        self.counted_down.remove(job);
        self.set_remain(job, remain)
    }

    /// [`refresh_tasks`](Self::refresh_tasks) from rows `(key, node, count)` where `key` is the
    /// caller's number for the node: always the same for the same name, and small, as TD keeps
    /// a table up to the largest key it was given (the adapter passes the core's name ids,
    /// which only node registrations create).
    pub fn refresh_tasks_numbered<'n>(
        &mut self,
        job: &str,
        remain: u32,
        on_node: impl IntoIterator<Item = (u32, &'n str, u32)>,
    ) -> Result<(), CoreError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| CoreError::UnknownApp(job.to_string()))?;
        let nodes = &mut self.nodes;
        refresh_rs(
            j,
            &mut self.workload,
            on_node
                .into_iter()
                .map(|(k, n, c)| (nodes.intern_numbered(k, n), c)),
        );
        self.counted_down.remove(job);
        self.set_remain(job, remain)
    }

    /// [`set_tasks`](Self::set_tasks) keeping rs_jn: for a caller that knows the job's asks did
    /// not change since its last `set_tasks` and [`counted_down`](Self::counted_down) is false,
    /// so rs_jn already holds what it would pass.
    pub fn set_remain(&mut self, job: &str, remain: u32) -> Result<(), CoreError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| CoreError::UnknownApp(job.to_string()))?;
        j.remain = remain;
        let (status, low) = (j.status, j.below(self.cfg.lower_bound));
        if remain == 0 {
            self.make_senile(job);
        } else if matches!(status, JobStatus::Senile | JobStatus::Finished) {
            // Tasks came back (a failed attempt re-queued, or an assignment the cluster never
            // carried out): the job was admitted once, so it rejoins the co-scheduled set
            // rather than idling forever with work left. Not in the paper, whose tasks never
            // return.
            self.place(
                job,
                if low {
                    JobStatus::Teenaged
                } else {
                    JobStatus::Adult
                },
            );
        }
        Ok(())
    }

    /// Overrides j.occupied, e.g. with the containers recovered after an RM restart.
    pub fn set_occupied(&mut self, job: &str, occupied: u32) -> Result<(), CoreError> {
        self.recount(job, |j| j.occupied = occupied)
            .ok_or_else(|| CoreError::UnknownApp(job.to_string()))?;
        self.settle_teenaged(job);
        Ok(())
    }

    /// One finished map task's run time; amt(j) becomes the mean of all observed tasks.
    pub fn observe_map_time(&mut self, job: &str, secs: f64) -> Result<(), CoreError> {
        if !(secs >= 0.0 && secs.is_finite()) {
            return Err(CoreError::Protocol(format!(
                "TD: job {job} reported map time {secs}"
            )));
        }
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| CoreError::UnknownApp(job.to_string()))?;
        j.observed_secs += secs;
        j.observed_tasks += 1;
        self.forget_terms_of(job);
        Ok(())
    }

    /// True when this module lowered the job's j.remain or rs_jn since its last `set_tasks`.
    pub fn counted_down(&self, job: &str) -> bool {
        self.counted_down.contains(job)
    }

    /// Forgets a killed or removed job wherever it is.
    pub fn remove_job(&mut self, job: &str) {
        self.forget_terms_of(job);
        if let Some(j) = self.jobs.remove(job) {
            self.totals.count(&j, false);
        }
        self.counted_down.remove(job);
        self.waiting.retain(|j| j != job);
        self.teenaged.retain(|j| j != job);
        self.adult.retain(|j| j != job);
        self.senile.retain(|j| j != job);
        if self.infantile.as_deref() == Some(job) {
            self.infantile = None;
        }
    }

    pub fn status(&self, job: &str) -> Option<JobStatus> {
        self.jobs.get(job).map(|j| j.status)
    }

    /// j.remain as this module holds it (counted down by its own picks).
    pub fn remain(&self, job: &str) -> Option<u32> {
        self.jobs.get(job).map(|j| j.remain)
    }

    pub fn occupied(&self, job: &str) -> Option<u32> {
        self.jobs.get(job).map(|j| j.occupied)
    }

    pub fn amt(&self, job: &str) -> Option<f64> {
        self.jobs.get(job).map(TdJob::amt)
    }

    /// D = Σ demand over S_adu ∪ S_tee (Section IV-B's redefinition).
    pub fn co_scheduled_demand(&self) -> u64 {
        self.totals.demand
    }

    /// O_sen = Σ occupied over S_sen.
    pub fn senile_occupied(&self) -> u64 {
        self.totals.senile_occupied
    }

    /// Formula (1) for the current S'_sch (adult and teenaged jobs).
    pub fn upper_bound_limit(&self) -> Option<f64> {
        let dmax = self.totals.max_demand();
        upper_bound_limit(
            self.cfg.total_slots,
            self.cfg.lower_bound,
            self.co_scheduled_demand(),
            dmax.unwrap_or(0),
        )
    }

    /// Changes a job through `change`, keeping its share of the running totals right. `None`
    /// when the job is unknown.
    fn recount<R>(&mut self, job: &str, change: impl FnOnce(&mut TdJob) -> R) -> Option<R> {
        let j = self.jobs.get_mut(job)?;
        self.totals.count(j, false);
        let r = change(j);
        self.totals.count(j, true);
        Some(r)
    }

    /// The H actually applied: the configured H, lowered to formula (1)'s limit when that is smaller
    /// ("given a user defined L, the scheduler can compute H according to S'_sch").
    pub fn effective_upper_bound(&self) -> f64 {
        match self.upper_bound_limit() {
            Some(limit) if limit < self.cfg.upper_bound => limit.max(1.0),
            _ => self.cfg.upper_bound,
        }
    }

    /// S'_sch: adult jobs in ascending amt(j) — I/O-bound first, CPU-bound last.
    pub fn adults_by_amt(&self) -> Vec<String> {
        match &self.by_amt {
            Some(order) => order.clone(),
            None => self.sort_adults(),
        }
    }

    fn sort_adults(&self) -> Vec<String> {
        let mut ids: Vec<&String> = self
            .adult
            .iter()
            .filter(|id| self.jobs.contains_key(*id))
            .collect();
        ids.sort_by(|a, b| {
            let (ja, jb) = (&self.jobs[*a], &self.jobs[*b]);
            ja.amt().total_cmp(&jb.amt()).then(ja.seq.cmp(&jb.seq))
        });
        ids.into_iter().cloned().collect()
    }

    /// R_n = Σ_{j ∈ S'_sch} amt(j)·rs_jn, the node's remaining untreated workload (potential hotspot).
    /// The infantile job is counted too: its splits are read from the same disks.
    pub fn remaining_workload(&mut self, node: &str) -> f64 {
        match self.nodes.id(node) {
            Some(n) => workload_of(
                &mut self.workload,
                &self.jobs,
                &self.adult,
                &self.teenaged,
                &self.infantile,
                n,
            ),
            None => 0.0,
        }
    }

    /// A term amt(j)·rs_jn of every node holding tasks of `job` may change (its status, its
    /// place in a status set, or its amt changes): those nodes' R_n are summed again. S'_sch's
    /// order is sorted again too.
    fn forget_terms_of(&mut self, job: &str) {
        self.by_amt = None;
        if let Some(j) = self.jobs.get(job) {
            for n in j.holders() {
                forget(&mut self.workload, n);
            }
        }
    }

    /// count_n of the hot queue's statistical table (for metrics and tests).
    pub fn live_reads(&self, node: &str) -> u32 {
        self.nodes.id(node).map_or(0, |n| self.hot.live_reads(n))
    }

    /// Algorithm 1: a slot on `node` is free at `now_secs`; `last_job` ran its previous task
    /// (None for a slot that never ran one). Returns the task to start, or None to leave it idle.
    pub fn slot_freed(
        &mut self,
        now_secs: f64,
        node: &str,
        last_job: Option<&str>,
    ) -> Option<TdAssignment> {
        self.hot.expire(now_secs);
        let here = self.nodes.id(node);
        let last = last_job.filter(|j| self.jobs.contains_key(*j));
        if let Some(j) = last {
            // line 1
            self.recount(j, |job| job.occupied = job.occupied.saturating_sub(1));
            // lines 2-4: the sticky slot — a job that just fell below L·demand keeps the slot,
            // local or not.
            let sticky = self.jobs.get(j).is_some_and(|job| {
                matches!(job.status, JobStatus::Adult | JobStatus::Teenaged)
                    && job.below(self.cfg.lower_bound)
            });
            if sticky {
                if let Some(a) = self.assign_specific(j, here) {
                    return Some(self.commit(now_secs, here, a));
                }
            }
            // lines 6-8
            if self
                .jobs
                .get(j)
                .is_some_and(|job| job.status == JobStatus::Senile && job.occupied == 0)
            {
                self.finish(j);
            }
        }
        // lines 9-18
        self.update_statuses();
        // lines 19-23
        let mut pick = None;
        if let Some(first) = self.teenaged.first().cloned() {
            pick = self.assign_specific(&first, here);
        }
        if pick.is_none() {
            pick = self.assign_task(here);
        }
        // lines 24-28
        pick.map(|a| self.commit(now_secs, here, a))
    }

    /// Algorithm 1 lines 9-18, one step: graduate the infantile job by formula (3), or if there is
    /// none, admit the first waiting job as infantile by formula (2). Also retires jobs whose
    /// last task ended outside a `slot_freed` call (see docs).
    pub fn update_statuses(&mut self) {
        if self.totals.senile_idle > 0 {
            let done: Vec<String> = self
                .senile
                .iter()
                .filter(|id| self.jobs.get(*id).is_some_and(|j| j.occupied == 0))
                .cloned()
                .collect();
            for id in done {
                self.finish(&id);
            }
        }
        let t = self.cfg.total_slots as u64;
        let base = self.senile_occupied() + self.co_scheduled_demand();
        if let Some(inf) = self.infantile.clone() {
            let Some(job) = self.jobs.get(&inf) else {
                self.infantile = None;
                return;
            };
            // formula (3): O_sen + D + j_i.demand ≤ T
            if base + job.demand as u64 <= t {
                let status = if job.below(self.cfg.lower_bound) {
                    JobStatus::Teenaged
                } else {
                    JobStatus::Adult
                };
                self.infantile = None;
                self.place(&inf, status);
            }
        } else if base < t {
            // formula (2): S_inf = ∅ and O_sen + D < T
            if let Some(next) = self.waiting.pop_front() {
                self.infantile = Some(next.clone());
                self.place(&next, JobStatus::Infantile);
                if self.jobs.get(&next).is_some_and(|j| j.remain == 0) {
                    self.make_senile(&next);
                }
            }
        }
    }

    /// Algorithm 2: AssignTask(n, s).
    fn assign_task(&mut self, node: Option<NodeId>) -> Option<TdAssignment> {
        let order = match self.by_amt.take() {
            Some(order) => order,
            None => self.sort_adults(),
        };
        let a = self.assign_task_in(&order, node);
        self.by_amt = Some(order);
        a
    }

    /// Algorithm 2 over `order`, S'_sch in ascending amt(j).
    fn assign_task_in(&mut self, order: &[String], node: Option<NodeId>) -> Option<TdAssignment> {
        let h = self.effective_upper_bound();
        // lines 1-5: the I/O-bound end of S'_sch gets local slots first
        for id in order {
            let j = &self.jobs[id];
            if j.has_task_on(node) && j.below(h) {
                return Some(TdAssignment {
                    job: id.clone(),
                    source: TaskSource::Local,
                });
            }
        }
        // lines 6-8
        let inf = self
            .infantile
            .clone()
            .filter(|id| self.jobs.contains_key(id));
        if let Some(id) = &inf {
            let j = &self.jobs[id];
            if j.has_task_on(node) && j.below(h) {
                return Some(TdAssignment {
                    job: id.clone(),
                    source: TaskSource::Local,
                });
            }
        }
        // lines 9-13: the CPU-bound end suffers least from a remote read
        for id in order.iter().rev() {
            let j = &self.jobs[id];
            if j.remain > 0 && j.below(h) {
                if let Some(source) = self.non_hotspot_source(id) {
                    return Some(TdAssignment {
                        job: id.clone(),
                        source,
                    });
                }
            }
        }
        // lines 14-16: no H check here in the paper either
        let id = inf?;
        let source = self.non_hotspot_source(&id)?;
        Some(TdAssignment { job: id, source })
    }

    /// Algorithm 3: AssignTask_SpecificJob(j, n, s).
    fn assign_specific(&mut self, job: &str, node: Option<NodeId>) -> Option<TdAssignment> {
        let j = self.jobs.get(job)?;
        if j.remain == 0 {
            return None;
        }
        if j.has_task_on(node) {
            return Some(TdAssignment {
                job: job.to_string(),
                source: TaskSource::Local,
            });
        }
        let source = self.non_hotspot_source(job)?;
        Some(TdAssignment {
            job: job.to_string(),
            source,
        })
    }

    /// GetNonHotspotNode(j), Section IV-A-2: among the nodes holding untreated tasks of j, drop
    /// those with θ live connections, then take the one with the largest R_n.
    fn non_hotspot_source(&mut self, job: &str) -> Option<TaskSource> {
        let j = self.jobs.get(job)?;
        if j.all_hot_until
            .is_some_and(|until| self.hot.latest_expiry() < until)
        {
            return None;
        }
        self.nodes.rank_all();
        let mut holders = j.holders().peekable();
        if holders.peek().is_none() {
            return (j.remain > 0).then_some(TaskSource::Anywhere);
        }
        let (jobs, adult, teenaged, infantile) =
            (&self.jobs, &self.adult, &self.teenaged, &self.infantile);
        let (hot, cache, nodes) = (&self.hot, &mut self.workload, &self.nodes);
        // The largest R_n among the holders that are not hot, ties to the smaller node name so
        // runs are reproducible. The hot queue is asked only about a holder that would beat the
        // best so far: the order is total, so skipping the others cannot change the result.
        // While nothing qualifies, every holder beats and is asked: `cools` then ends as the
        // earliest time any holder may cool.
        let mut best: Option<(f64, NodeId)> = None;
        let mut cools = f64::INFINITY;
        for n in holders {
            let r = workload_of(cache, jobs, adult, teenaged, infantile, n);
            let beats = best.is_none_or(|(rb, nb)| {
                r.total_cmp(&rb).then_with(|| nodes.cmp_names(nb, n)) == std::cmp::Ordering::Greater
            });
            if beats {
                if !hot.is_hot(n) {
                    best = Some((r, n));
                } else if let Some(at) = hot.cools_at(n) {
                    cools = cools.min(at);
                }
            }
        }
        match best {
            Some((_, n)) => Some(TaskSource::Remote(nodes.name(n).to_string())),
            None => {
                if let Some(j) = self.jobs.get_mut(job) {
                    j.all_hot_until = Some(cools);
                }
                None
            }
        }
    }

    /// Algorithm 1 lines 24-28 plus the hot-queue tuple for a non-local read.
    fn commit(&mut self, now_secs: f64, node: Option<NodeId>, a: TdAssignment) -> TdAssignment {
        // rs_jn drops on the node whose split is consumed; the adapter's next set_tasks corrects
        // the counts of the split's other replicas.
        let consumed = match &a.source {
            TaskSource::Local => node,
            TaskSource::Remote(src) => {
                let src = self.nodes.intern(src);
                if !self.defer_reads {
                    self.hot.record_read(src, now_secs);
                }
                Some(src)
            }
            TaskSource::Anywhere => None,
        };
        self.recount(&a.job, |j| j.occupied += 1);
        if let Some(j) = self.jobs.get_mut(&a.job) {
            if !self.counted_down.contains(&a.job) {
                self.counted_down.insert(a.job.clone());
            }
            j.remain = j.remain.saturating_sub(1);
            j.all_hot_until = None;
            if let Some((n, r)) = consumed.and_then(|n| j.on_node.get_mut(&n).map(|r| (n, r))) {
                if r.count > 0 {
                    r.count -= 1;
                    forget(&mut self.workload, n);
                }
            }
        }
        self.settle_teenaged(&a.job);
        if self.jobs.get(&a.job).is_some_and(|j| j.remain == 0) {
            self.make_senile(&a.job);
        }
        a
    }

    /// Lines 25-26: a teenaged job that reached L·demand becomes adult.
    fn settle_teenaged(&mut self, job: &str) {
        let grown = self
            .jobs
            .get(job)
            .is_some_and(|j| j.status == JobStatus::Teenaged && !j.below(self.cfg.lower_bound));
        if grown {
            self.place(job, JobStatus::Adult);
        }
    }

    fn make_senile(&mut self, job: &str) {
        let processing = self.jobs.get(job).is_some_and(|j| {
            matches!(
                j.status,
                JobStatus::Infantile | JobStatus::Teenaged | JobStatus::Adult
            )
        });
        if processing {
            self.place(job, JobStatus::Senile);
        }
    }

    fn finish(&mut self, job: &str) {
        self.place(job, JobStatus::Finished);
    }

    /// Moves a job into exactly one status set.
    fn place(&mut self, job: &str, status: JobStatus) {
        self.forget_terms_of(job);
        self.teenaged.retain(|j| j != job);
        self.adult.retain(|j| j != job);
        self.senile.retain(|j| j != job);
        if status != JobStatus::Infantile && self.infantile.as_deref() == Some(job) {
            self.infantile = None;
        }
        match status {
            JobStatus::Teenaged => self.teenaged.push(job.to_string()),
            JobStatus::Adult => self.adult.push(job.to_string()),
            JobStatus::Senile => self.senile.push(job.to_string()),
            JobStatus::Waiting | JobStatus::Infantile | JobStatus::Finished => {}
        }
        self.recount(job, |j| j.status = status);
    }
}

fn workload_from_scratch(
    jobs: &FastMap<String, TdJob>,
    adult: &[String],
    teenaged: &[String],
    infantile: &Option<String>,
    node: NodeId,
) -> f64 {
    adult
        .iter()
        .chain(teenaged)
        .chain(infantile.iter())
        .filter_map(|id| jobs.get(id))
        .map(|j| j.amt() * j.rs(node) as f64)
        // From +0.0, not `sum()`'s -0.0: a job with no task on the node then adds exactly
        // nothing, so the cache need not forget nodes it holds no task on. The sums differ only
        // in the sign of a zero R_n, and `sum()` gave -0.0 only while S'_sch and S_inf were
        // empty, when nothing asks for R_n: picks are unchanged.
        .fold(0.0, |sum, term| sum + term)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(rows: &[(&str, u32)]) -> HashMap<String, u32> {
        rows.iter().map(|&(n, c)| (n.to_string(), c)).collect()
    }

    fn settle(td: &mut TdScheduler) {
        for _ in 0..50 {
            td.update_statuses();
        }
    }

    /// Figure 3(a): T = 1000, five jobs with their demands and amt.
    fn figure3() -> TdScheduler {
        let mut td = TdScheduler::new(TdConfig::with_slots(1000)).unwrap();
        td.submit("j1", 200, 23.0, 200, nodes(&[("n3", 14)]))
            .unwrap();
        td.submit("j2", 300, 4.0, 300, nodes(&[("n3", 17)]))
            .unwrap();
        td.submit("j3", 100, 10.0, 100, nodes(&[("n4", 5)]))
            .unwrap();
        td.submit("j4", 350, 5.0, 350, nodes(&[("n4", 9)])).unwrap();
        td.submit("j5", 350, 7.0, 350, nodes(&[("n2", 27)]))
            .unwrap();
        settle(&mut td);
        td
    }

    fn make_adult(td: &mut TdScheduler, occupied: &[(&str, u32)]) {
        for &(j, o) in occupied {
            td.set_occupied(j, o).unwrap();
        }
    }

    #[test]
    fn a_senile_or_finished_job_whose_tasks_return_rejoins_the_co_scheduled_set() {
        let mut td = TdScheduler::new(TdConfig::with_slots(10)).unwrap();
        td.submit("j", 4, 5.0, 1, nodes(&[("n1", 1)])).unwrap();
        settle(&mut td);
        assert_eq!(td.status("j"), Some(JobStatus::Teenaged));
        td.set_tasks("j", 0, HashMap::new()).unwrap();
        assert_eq!(td.status("j"), Some(JobStatus::Senile));
        td.set_tasks("j", 2, nodes(&[("n1", 2)])).unwrap();
        assert_eq!(td.status("j"), Some(JobStatus::Teenaged));
        td.set_tasks("j", 0, HashMap::new()).unwrap();
        settle(&mut td);
        assert_eq!(td.status("j"), Some(JobStatus::Finished));
        td.set_tasks("j", 1, HashMap::new()).unwrap();
        assert_eq!(td.status("j"), Some(JobStatus::Teenaged));
        assert_eq!(
            td.slot_freed(1.0, "n2", None).map(|a| a.job),
            Some("j".to_string())
        );
    }

    #[test]
    fn a_committed_task_marks_the_counts_stale_until_they_are_read_again() {
        let mut td = figure3();
        make_adult(
            &mut td,
            &[("j1", 140), ("j2", 210), ("j3", 70), ("j4", 245)],
        );
        // set_remain keeps rs_jn: j2 still has its 17 tasks on n3 and takes n3's slot locally.
        td.set_remain("j2", 300).unwrap();
        assert!(!td.counted_down("j2"));
        let a = td.slot_freed(0.0, "n3", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "j2".into(),
                source: TaskSource::Local
            }
        );
        // TD took one off j2's remain and rs_jn itself: the adapter must read the asks again.
        assert!(td.counted_down("j2") && !td.counted_down("j1"));
        td.set_tasks("j2", 299, nodes(&[("n3", 16)])).unwrap();
        assert!(!td.counted_down("j2"));
    }

    /// `refresh_tasks` and `refresh_tasks_numbered` leave every job where `set_tasks` with the
    /// summed map would, whatever the rows (repeated nodes, zero counts), the commits TD made
    /// in between, and whatever numbers the caller gives (huge ones, one for several names).
    #[test]
    fn refreshing_in_place_matches_setting_a_fresh_map() {
        let mut seed = 11u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let names: Vec<String> = (0..8).map(|n| format!("n{n}")).collect();
        for round in 0..200 {
            let mut fresh = TdScheduler::new(TdConfig::with_slots(20)).unwrap();
            for j in ["a", "b"] {
                fresh
                    .submit(
                        j,
                        1 + next(6) as u32,
                        1.0 + next(5) as f64,
                        next(30) as u32,
                        HashMap::new(),
                    )
                    .unwrap();
            }
            let mut in_place = fresh.clone();
            // the caller's own numbers, unrelated to TD's order of first appearance
            let mut numbered = fresh.clone();
            let key = |n: &str| 20 - n[1..].parse::<u32>().unwrap() * 2;
            // a caller breaking both promises: keys near u32::MAX, and one key for four names
            let mut broken = fresh.clone();
            let broken_key = |n: &str| match n[1..].parse::<u32>().unwrap() {
                i @ 0..=3 => u32::MAX - i,
                _ => 3,
            };
            for step in 0..40 {
                let job = ["a", "b"][next(2) as usize];
                match next(3) {
                    0 => {
                        let rows: Vec<(&str, u32)> = (0..next(10))
                            .map(|_| (names[next(8) as usize].as_str(), next(4) as u32))
                            .collect();
                        let mut summed: HashMap<String, u32> = HashMap::new();
                        for &(n, c) in &rows {
                            *summed.entry(n.to_string()).or_insert(0) += c;
                        }
                        let remain = next(20) as u32;
                        fresh.set_tasks(job, remain, summed).unwrap();
                        numbered
                            .refresh_tasks_numbered(
                                job,
                                remain,
                                rows.iter().map(|&(n, c)| (key(n), n, c)),
                            )
                            .unwrap();
                        broken
                            .refresh_tasks_numbered(
                                job,
                                remain,
                                rows.iter().map(|&(n, c)| (broken_key(n), n, c)),
                            )
                            .unwrap();
                        in_place.refresh_tasks(job, remain, rows).unwrap();
                    }
                    1 => {
                        let o = next(8) as u32;
                        fresh.set_occupied(job, o).unwrap();
                        in_place.set_occupied(job, o).unwrap();
                        numbered.set_occupied(job, o).unwrap();
                        broken.set_occupied(job, o).unwrap();
                    }
                    _ => {
                        let node = &names[next(8) as usize];
                        let now = step as f64;
                        let pick = fresh.slot_freed(now, node, Some(job));
                        assert_eq!(
                            pick,
                            in_place.slot_freed(now, node, Some(job)),
                            "round {round} step {step}"
                        );
                        assert_eq!(
                            pick,
                            numbered.slot_freed(now, node, Some(job)),
                            "round {round} step {step}"
                        );
                        assert_eq!(
                            pick,
                            broken.slot_freed(now, node, Some(job)),
                            "round {round} step {step}"
                        );
                    }
                }
                for j in ["a", "b"] {
                    let live = |td: &TdScheduler| -> Vec<(String, u32)> {
                        let mut v: Vec<(String, u32)> = td.jobs[j]
                            .on_node
                            .iter()
                            .filter(|(_, r)| r.count > 0)
                            .map(|(&n, r)| (td.nodes.name(n).to_string(), r.count))
                            .collect();
                        v.sort();
                        v
                    };
                    assert_eq!(live(&fresh), live(&in_place), "round {round} step {step}");
                    assert_eq!(live(&fresh), live(&numbered), "round {round} step {step}");
                    assert_eq!(live(&fresh), live(&broken), "round {round} step {step}");
                    for td in [&in_place, &numbered, &broken] {
                        assert_eq!(fresh.status(j), td.status(j));
                        assert_eq!(fresh.counted_down(j), td.counted_down(j));
                    }
                }
            }
            assert!(
                broken.nodes.by_caller.len() <= 4,
                "a table sized by a caller's key: {}",
                broken.nodes.by_caller.len()
            );
        }
    }

    /// The cached R_n of every node equals the sum from scratch, bit for bit, whatever happens
    /// in between: jobs submitted, re-read (whole or in place), counted down by picks, moved
    /// between statuses, given new map times, removed. A stale entry would change which node a
    /// non-local task reads from.
    #[test]
    fn cached_remaining_workload_matches_the_sum_from_scratch() {
        let mut seed = 29u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let names: Vec<String> = (0..10).map(|n| format!("n{n}")).collect();
        let jobs = ["a", "b", "c", "d", "e"];
        for round in 0..300 {
            let mut td = TdScheduler::new(TdConfig::with_slots(4 + next(30) as u32)).unwrap();
            let mut step = 0;
            let mut check = |td: &mut TdScheduler, what: &str| {
                for n in &names {
                    let scratch = td.remaining_workload_from_scratch(n);
                    if let Some(cached) = td.cached_workload(n) {
                        assert_eq!(cached.to_bits(), scratch.to_bits(), "round {round} step {step} after {what}: R_{n} cached {cached}, from scratch {scratch}");
                    }
                    assert_eq!(td.remaining_workload(n).to_bits(), scratch.to_bits());
                }
                step += 1;
            };
            for _ in 0..60 {
                let job = jobs[next(jobs.len() as u64) as usize];
                let rows = |next: &mut dyn FnMut(u64) -> u64| -> Vec<(&str, u32)> {
                    (0..next(12))
                        .map(|_| (names[next(10) as usize].as_str(), next(5) as u32))
                        .collect()
                };
                let known = td.status(job).is_some();
                match next(9) {
                    _ if !known => {
                        let on: HashMap<String, u32> = rows(&mut next)
                            .into_iter()
                            .map(|(n, c)| (n.to_string(), c))
                            .collect();
                        // amt with a fraction, so that the order of the sum shows in its rounding
                        let amt = 0.5 + next(50) as f64 / 7.0;
                        td.submit(job, 1 + next(8) as u32, amt, next(20) as u32, on)
                            .unwrap();
                        check(&mut td, "submit");
                    }
                    0 => {
                        let on: HashMap<String, u32> = rows(&mut next)
                            .into_iter()
                            .map(|(n, c)| (n.to_string(), c))
                            .collect();
                        td.set_tasks(job, next(20) as u32, on).unwrap();
                        check(&mut td, "set_tasks");
                    }
                    1 => {
                        let r = rows(&mut next);
                        td.refresh_tasks(job, next(20) as u32, r).unwrap();
                        check(&mut td, "refresh_tasks");
                    }
                    2 => {
                        td.set_occupied(job, next(10) as u32).unwrap();
                        check(&mut td, "set_occupied");
                    }
                    3 => {
                        td.observe_map_time(job, next(40) as f64 / 3.0).unwrap();
                        check(&mut td, "observe_map_time");
                    }
                    4 if next(4) == 0 => {
                        td.remove_job(job);
                        check(&mut td, "remove_job");
                    }
                    5 => {
                        td.update_statuses();
                        check(&mut td, "update_statuses");
                    }
                    _ => {
                        let node = &names[next(10) as usize];
                        let last = (next(2) == 0).then_some(job);
                        td.slot_freed(next(100) as f64 / 4.0, node, last);
                        check(&mut td, "slot_freed");
                    }
                }
            }
        }
    }

    /// GetNonHotspotNode with its memo of jobs whose holders are all hot answers as the
    /// definition does after every event: reads recorded and expiring (θ of 1 or 2, time
    /// mostly moving on, sometimes back), rs_jn re-read or counted down by picks, jobs moving
    /// between statuses and removed. A memo kept too long leaves slots idle that a node could
    /// serve; one dropped too early only costs time.
    #[test]
    fn remembered_all_hot_jobs_get_the_same_source_as_from_scratch() {
        let mut seed = 61u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let names: Vec<String> = (0..6).map(|n| format!("n{n}")).collect();
        let jobs = ["a", "b", "c", "d"];
        let (mut memo_hits, mut none_answers, mut remote_answers) = (0, 0, 0);
        for round in 0..300 {
            let mut cfg = TdConfig::with_slots(4 + next(20) as u32);
            cfg.hotspot_readers = 1 + next(2) as u32;
            // θ·δ/ρ = θ·2 s
            cfg.split_bytes = 2_000_000;
            cfg.bandwidth_bytes_per_sec = 1_000_000.0;
            let mut td = TdScheduler::new(cfg).unwrap();
            let mut now = 0.0;
            for step in 0..80 {
                let job = jobs[next(jobs.len() as u64) as usize];
                let rows = |next: &mut dyn FnMut(u64) -> u64| -> Vec<(&str, u32)> {
                    (0..next(5))
                        .map(|_| (names[next(6) as usize].as_str(), 1 + next(3) as u32))
                        .collect()
                };
                let what = match next(8) {
                    _ if td.status(job).is_none() => {
                        let on: HashMap<String, u32> = rows(&mut next)
                            .into_iter()
                            .map(|(n, c)| (n.to_string(), c))
                            .collect();
                        td.submit(
                            job,
                            1 + next(4) as u32,
                            1.0 + next(9) as f64,
                            1 + next(12) as u32,
                            on,
                        )
                        .unwrap();
                        "submit"
                    }
                    0 => {
                        let r = rows(&mut next);
                        td.refresh_tasks(job, next(12) as u32, r).unwrap();
                        "refresh_tasks"
                    }
                    1 if next(3) == 0 => {
                        let on: HashMap<String, u32> = rows(&mut next)
                            .into_iter()
                            .map(|(n, c)| (n.to_string(), c))
                            .collect();
                        td.set_tasks(job, next(12) as u32, on).unwrap();
                        "set_tasks"
                    }
                    2 => {
                        td.set_occupied(job, next(3) as u32).unwrap();
                        "set_occupied"
                    }
                    3 if next(6) == 0 => {
                        td.remove_job(job);
                        "remove_job"
                    }
                    _ => {
                        now += if next(10) == 0 {
                            -(next(3) as f64)
                        } else {
                            next(7) as f64 / 4.0
                        };
                        // a node the jobs hold no task on, so every pick but a sticky or
                        // teenaged local one asks GetNonHotspotNode
                        let node = if next(2) == 0 {
                            "elsewhere"
                        } else {
                            names[next(6) as usize].as_str()
                        };
                        let last = (next(2) == 0).then_some(job);
                        td.slot_freed(now, node, last);
                        "slot_freed"
                    }
                };
                for j in jobs {
                    let memo = td.jobs.get(j).and_then(|x| x.all_hot_until);
                    let scratch = td.non_hotspot_source_from_scratch(j);
                    let got = td.non_hotspot_source(j);
                    assert_eq!(
                        got, scratch,
                        "round {round} step {step} after {what}: job {j} (memo {memo:?})"
                    );
                    if memo.is_some_and(|until| td.hot.latest_expiry() < until) {
                        memo_hits += 1;
                    }
                    match got {
                        None if td.jobs.contains_key(j) => none_answers += 1,
                        Some(TaskSource::Remote(_)) => remote_answers += 1,
                        _ => {}
                    }
                }
            }
        }
        // the sequences exercise the memo, and both answers
        assert!(
            memo_hits > 1_000 && none_answers > 1_000 && remote_answers > 1_000,
            "{memo_hits} {none_answers} {remote_answers}"
        );
    }

    /// D, d_max, O_sen and the count of idle senile jobs, kept as running totals, equal their
    /// sums over the status sets after every event: jobs submitted, re-read, given slots by picks,
    /// losing them as slots free, overridden, moved between statuses, removed. A wrong total
    /// would change formula (1)'s H and when formulas (2) and (3) admit and graduate jobs.
    #[test]
    fn running_totals_match_the_sums_from_scratch() {
        let mut seed = 43u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let names: Vec<String> = (0..6).map(|n| format!("n{n}")).collect();
        let jobs = ["a", "b", "c", "d", "e", "f"];
        for round in 0..300 {
            let mut td = TdScheduler::new(TdConfig::with_slots(4 + next(30) as u32)).unwrap();
            for step in 0..80 {
                let job = jobs[next(jobs.len() as u64) as usize];
                let rows: Vec<(&str, u32)> = (0..next(6))
                    .map(|_| (names[next(6) as usize].as_str(), next(4) as u32))
                    .collect();
                let what = match next(8) {
                    _ if td.status(job).is_none() => {
                        let on = rows.iter().map(|&(n, c)| (n.to_string(), c)).collect();
                        td.submit(
                            job,
                            1 + next(8) as u32,
                            1.0 + next(9) as f64,
                            next(12) as u32,
                            on,
                        )
                        .unwrap();
                        "submit"
                    }
                    0 => {
                        td.refresh_tasks(job, next(12) as u32, rows).unwrap();
                        "refresh_tasks"
                    }
                    1 => {
                        td.set_remain(job, next(3) as u32).unwrap();
                        "set_remain"
                    }
                    2 => {
                        td.set_occupied(job, next(10) as u32).unwrap();
                        "set_occupied"
                    }
                    3 if next(4) == 0 => {
                        td.remove_job(job);
                        "remove_job"
                    }
                    4 => {
                        td.update_statuses();
                        "update_statuses"
                    }
                    _ => {
                        let node = &names[next(6) as usize];
                        let last = (next(3) > 0).then_some(job);
                        td.slot_freed(step as f64, node, last);
                        "slot_freed"
                    }
                };
                assert_eq!(
                    td.totals(),
                    td.totals_from_scratch(),
                    "round {round} step {step} after {what}"
                );
                // The TD policy skips giving a job the j.remain and j.occupied it already holds:
                // that must change nothing, for any job, whatever the statuses.
                for j in jobs {
                    let (Some(remain), Some(occupied)) = (td.remain(j), td.occupied(j)) else {
                        continue;
                    };
                    let mut again = td.clone();
                    again.set_remain(j, remain).unwrap();
                    again.set_occupied(j, occupied).unwrap();
                    for k in jobs {
                        assert_eq!(
                            again.status(k),
                            td.status(k),
                            "round {round} step {step} after {what}: {j} given its own counts"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn formula_1_gives_the_papers_1_66() {
        let h = upper_bound_limit(1000, 0.7, 950, 350).unwrap();
        assert_eq!(format!("{h:.2}"), "1.66");
        assert!(h > 1.3, "the paper's default H = 1.3 is below the limit");
    }

    #[test]
    fn figure3_first_four_jobs_are_co_scheduled_and_the_fifth_only_fills_idle_slots() {
        let td = figure3();
        for j in ["j1", "j2", "j3", "j4"] {
            assert_eq!(td.status(j), Some(JobStatus::Teenaged), "{j}");
        }
        // O_sen + D = 950 < 1000 admits j5 by formula (2); 950 + 350 > 1000 keeps it infantile by (3)
        assert_eq!(td.status("j5"), Some(JobStatus::Infantile));
        assert_eq!(td.co_scheduled_demand(), 950);
        assert_eq!(format!("{:.2}", td.upper_bound_limit().unwrap()), "1.66");
        assert_eq!(td.effective_upper_bound(), 1.3);
    }

    #[test]
    fn figure3_local_slot_goes_to_the_io_bound_job_and_remote_slot_to_the_cpu_bound_job() {
        let mut td = figure3();
        make_adult(
            &mut td,
            &[("j1", 140), ("j2", 210), ("j3", 70), ("j4", 245)],
        );
        assert_eq!(
            td.adults_by_amt(),
            vec!["j2", "j4", "j3", "j1"],
            "S'_sch in ascending amt"
        );
        // n3 holds tasks of j1 and j2: the former job in S'_sch, j2, gets the local slot
        let a = td.slot_freed(0.0, "n3", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "j2".into(),
                source: TaskSource::Local
            }
        );
        // n1 holds nothing: the latter job, j1, runs non-locally, reading from n3
        let a = td.slot_freed(0.0, "n1", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "j1".into(),
                source: TaskSource::Remote("n3".into())
            }
        );
        assert_eq!(td.occupied("j1"), Some(141));
        assert_eq!(td.occupied("j2"), Some(211));
    }

    #[test]
    fn a_job_at_its_upper_bound_gets_no_more_slots() {
        let mut td = figure3();
        // j2 holds H·demand = 1.3·300 = 390 slots
        make_adult(
            &mut td,
            &[("j1", 140), ("j2", 390), ("j3", 70), ("j4", 245)],
        );
        let a = td.slot_freed(0.0, "n3", None).unwrap();
        assert_eq!(
            a.job, "j1",
            "j2 is capped, j1 is the next job with a task on n3"
        );
        assert_eq!(a.source, TaskSource::Local);
    }

    #[test]
    fn teenaged_jobs_take_freed_slots_first() {
        let mut td = figure3();
        // all four are teenaged; the first to enter S_tee (j1) gets the slot although j2 also
        // has a local task here and is I/O-bound
        let a = td.slot_freed(0.0, "n3", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "j1".into(),
                source: TaskSource::Local
            }
        );
    }

    #[test]
    fn teenaged_job_becomes_adult_at_l_times_demand() {
        let mut td = TdScheduler::new(TdConfig::with_slots(20)).unwrap();
        td.submit("j", 10, 5.0, 50, nodes(&[("n1", 50)])).unwrap();
        settle(&mut td);
        assert_eq!(td.status("j"), Some(JobStatus::Teenaged));
        for _ in 0..6 {
            td.slot_freed(0.0, "n1", None).unwrap();
        }
        assert_eq!(td.status("j"), Some(JobStatus::Teenaged), "6 < 0.7·10");
        td.slot_freed(0.0, "n1", None).unwrap();
        assert_eq!(td.status("j"), Some(JobStatus::Adult), "7 ≥ 0.7·10");
    }

    /// Figure 4: demand 100, L = 0.7, a task of j finishes at occupied 70 → 69 < 70, so the slot
    /// must run j again even though the node has no split of j.
    #[test]
    fn sticky_slot_keeps_a_job_at_its_lower_bound() {
        let mut td = TdScheduler::new(TdConfig::with_slots(200)).unwrap();
        td.submit("cpu", 100, 40.0, 500, nodes(&[("far", 500)]))
            .unwrap();
        td.submit("io", 80, 5.0, 500, nodes(&[("s", 500)])).unwrap();
        settle(&mut td);
        make_adult(&mut td, &[("cpu", 70), ("io", 60)]);
        let a = td.slot_freed(0.0, "s", Some("cpu")).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "cpu".into(),
                source: TaskSource::Remote("far".into())
            }
        );
        assert_eq!(td.occupied("cpu"), Some(70));

        // one slot more and the job can let the slot go to the local I/O job
        td.set_occupied("cpu", 71).unwrap();
        let a = td.slot_freed(1.0, "s", Some("cpu")).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "io".into(),
                source: TaskSource::Local
            }
        );
        assert_eq!(td.occupied("cpu"), Some(70));
    }

    #[test]
    fn senile_job_finishes_when_its_last_task_ends() {
        let mut td = TdScheduler::new(TdConfig::with_slots(10)).unwrap();
        td.submit("j", 2, 5.0, 1, nodes(&[("n1", 1)])).unwrap();
        settle(&mut td);
        let a = td.slot_freed(0.0, "n1", None).unwrap();
        assert_eq!(a.job, "j");
        assert_eq!(
            td.status("j"),
            Some(JobStatus::Senile),
            "remain == 0 with one task running"
        );
        assert_eq!(td.slot_freed(1.0, "n1", Some("j")), None);
        assert_eq!(td.status("j"), Some(JobStatus::Finished));
    }

    /// Figure 5: j1 (demand 400) is senile with 150 tasks running; j2..j4 (demand 600 in total)
    /// can hold at most 780 slots, so 70 slots would idle. Formula (2) lets the next job in.
    #[test]
    fn infantile_job_fills_slots_a_senile_job_leaves_idle() {
        let mut td = TdScheduler::new(TdConfig::with_slots(1000)).unwrap();
        td.submit("j1", 400, 10.0, 400, nodes(&[("a", 400)]))
            .unwrap();
        td.submit("j2", 200, 10.0, 900, nodes(&[("b", 900)]))
            .unwrap();
        td.submit("j3", 200, 10.0, 900, nodes(&[("b", 900)]))
            .unwrap();
        td.submit("j4", 200, 10.0, 900, nodes(&[("b", 900)]))
            .unwrap();
        td.submit("j5", 300, 10.0, 900, nodes(&[("c", 900)]))
            .unwrap();
        settle(&mut td);
        assert_eq!(
            td.status("j5"),
            Some(JobStatus::Waiting),
            "D = 1000 leaves no room"
        );

        make_adult(
            &mut td,
            &[("j1", 150), ("j2", 260), ("j3", 260), ("j4", 260)],
        );
        td.set_tasks("j1", 0, HashMap::new()).unwrap();
        assert_eq!(td.status("j1"), Some(JobStatus::Senile));
        td.update_statuses();
        assert_eq!(
            td.status("j5"),
            Some(JobStatus::Infantile),
            "O_sen + D = 750 < 1000"
        );
        td.update_statuses();
        assert_eq!(
            td.status("j5"),
            Some(JobStatus::Infantile),
            "750 + 300 > 1000"
        );

        // every co-scheduled job is at H·demand: the idle slots go to the infantile job
        let a = td.slot_freed(0.0, "c", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "j5".into(),
                source: TaskSource::Local
            }
        );
        let a = td.slot_freed(0.0, "b", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "j5".into(),
                source: TaskSource::Remote("c".into())
            }
        );

        // as j1's tasks drain, formula (3) holds (100 + 600 + 300 ≤ 1000) and j5 is promoted
        td.set_occupied("j1", 100).unwrap();
        td.update_statuses();
        assert_eq!(
            td.status("j5"),
            Some(JobStatus::Teenaged),
            "2 slots < 0.7·300"
        );
    }

    /// One job walks the whole of Figure 6 driven only by freed slots: it waits while A fills
    /// T, turns infantile by formula (2) once A is senile, is promoted by formula (3), becomes
    /// adult at L·demand, senile when its last task starts and finished when that task ends.
    #[test]
    fn job_lifecycle_follows_formulas_2_and_3_and_algorithm_1() {
        use JobStatus::*;
        let mut td = TdScheduler::new(TdConfig::with_slots(4)).unwrap();
        td.submit("A", 4, 10.0, 4, nodes(&[("n1", 4)])).unwrap();
        td.submit("B", 2, 10.0, 3, nodes(&[("n2", 3)])).unwrap();
        let mut seen = vec![td.status("B").unwrap()];
        let mut note = |td: &TdScheduler| {
            let s = td.status("B").unwrap();
            if seen.last() != Some(&s) {
                seen.push(s);
            }
        };
        for _ in 0..4 {
            assert_eq!(td.slot_freed(0.0, "n1", None).unwrap().job, "A");
            note(&td);
        }
        assert_eq!(td.status("A"), Some(Senile));
        assert_eq!(
            td.status("B"),
            Some(Waiting),
            "D = 4 = T until A turned senile"
        );

        // O_sen + D = 3 < 4: B is infantile and takes the slot non-locally
        let a = td.slot_freed(1.0, "n1", Some("A")).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "B".into(),
                source: TaskSource::Remote("n2".into())
            }
        );
        assert_eq!(td.status("B"), Some(Infantile));
        note(&td);
        // O_sen + D + 2 = 2 + 0 + 2 ≤ 4: promoted to teenaged (1 < 0.7·2), then adult at 2 slots
        let a = td.slot_freed(2.0, "n2", Some("A")).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "B".into(),
                source: TaskSource::Local
            }
        );
        note(&td);
        assert_eq!(td.status("B"), Some(Adult));
        td.slot_freed(3.0, "n2", Some("A")).unwrap();
        note(&td);
        assert_eq!(td.status("B"), Some(Senile));
        assert_eq!(td.slot_freed(4.0, "n2", Some("A")), None);
        assert_eq!(td.status("A"), Some(Finished));
        for t in 5..8 {
            assert_eq!(td.slot_freed(t as f64, "n2", Some("B")), None);
            note(&td);
        }
        assert_eq!(seen, vec![Waiting, Infantile, Adult, Senile, Finished]);
        assert_eq!(td.occupied("B"), Some(0));
    }

    #[test]
    fn remote_reads_avoid_nodes_with_theta_live_connections() {
        let mut cfg = TdConfig::with_slots(100);
        cfg.hotspot_readers = 1;
        cfg.split_bytes = 100;
        cfg.bandwidth_bytes_per_sec = 10.0; // window θ·δ/ρ = 10 s
        let mut td = TdScheduler::new(cfg).unwrap();
        td.submit("cpu", 10, 30.0, 20, nodes(&[("busy", 15), ("quiet", 5)]))
            .unwrap();
        settle(&mut td);
        td.set_occupied("cpu", 7).unwrap();
        let src = |a: Option<TdAssignment>| a.map(|a| a.source);
        // most remaining workload first
        assert_eq!(
            src(td.slot_freed(0.0, "x", None)),
            Some(TaskSource::Remote("busy".into()))
        );
        // "busy" now serves θ = 1 reader: the next reader goes elsewhere
        assert_eq!(
            src(td.slot_freed(1.0, "y", None)),
            Some(TaskSource::Remote("quiet".into()))
        );
        // both are hot: the slot stays idle rather than create a hotspot
        assert_eq!(td.slot_freed(2.0, "z", None), None);
        // the first read is overdue at 0 + 10 s
        assert_eq!(
            src(td.slot_freed(10.0, "z", None)),
            Some(TaskSource::Remote("busy".into()))
        );
    }

    #[test]
    fn remote_source_is_the_node_with_most_remaining_workload_across_jobs() {
        let mut td = TdScheduler::new(TdConfig::with_slots(100)).unwrap();
        // R_a = 10·1 + 4·5 = 30, R_b = 10·2 = 20: although b holds more of x's tasks, a is fuller
        td.submit("x", 10, 10.0, 3, nodes(&[("a", 1), ("b", 2)]))
            .unwrap();
        td.submit("y", 10, 4.0, 5, nodes(&[("a", 5)])).unwrap();
        settle(&mut td);
        make_adult(&mut td, &[("x", 7), ("y", 13)]); // y is at H·demand
        assert_eq!(td.remaining_workload("a"), 30.0);
        assert_eq!(td.remaining_workload("b"), 20.0);
        let a = td.slot_freed(0.0, "elsewhere", None).unwrap();
        assert_eq!(
            a,
            TdAssignment {
                job: "x".into(),
                source: TaskSource::Remote("a".into())
            }
        );
    }

    /// Equal R_n goes to the node whose name sorts first, whatever order the names were first
    /// seen in, also for a name first seen after earlier picks.
    #[test]
    fn equal_remaining_workload_goes_to_the_smaller_node_name() {
        let mut td = TdScheduler::new(TdConfig::with_slots(100)).unwrap();
        td.submit("x", 10, 10.0, 6, nodes(&[("n9", 2), ("n5", 2), ("n7", 2)]))
            .unwrap();
        settle(&mut td);
        make_adult(&mut td, &[("x", 7)]);
        let remote =
            |td: &mut TdScheduler| match td.slot_freed(0.0, "elsewhere", None).map(|a| a.source) {
                Some(TaskSource::Remote(n)) => n,
                other => panic!("expected a remote read, got {other:?}"),
            };
        assert_eq!(remote(&mut td), "n5");
        // n5 now holds 1: n7 and n9 tie at 2, then a newly seen n0 ties with them.
        assert_eq!(remote(&mut td), "n7");
        td.refresh_tasks("x", 6, [("n9", 2), ("n0", 2), ("n7", 2)])
            .unwrap();
        assert_eq!(remote(&mut td), "n0");
    }

    #[test]
    fn observed_map_times_reorder_the_jobs() {
        let mut td = TdScheduler::new(TdConfig::with_slots(100)).unwrap();
        td.submit("p", 10, 5.0, 50, HashMap::new()).unwrap();
        td.submit("q", 10, 8.0, 50, HashMap::new()).unwrap();
        settle(&mut td);
        make_adult(&mut td, &[("p", 7), ("q", 7)]);
        assert_eq!(td.adults_by_amt(), vec!["p", "q"]);
        td.observe_map_time("p", 20.0).unwrap();
        td.observe_map_time("p", 30.0).unwrap();
        assert_eq!(td.amt("p"), Some(25.0));
        assert_eq!(td.adults_by_amt(), vec!["q", "p"]);
    }

    #[test]
    fn bad_settings_and_bad_jobs_are_refused_by_name() {
        let mut cfg = TdConfig::with_slots(10);
        cfg.lower_bound = 1.2;
        let err = cfg.validate().unwrap_err();
        assert_eq!(err.param, TdParam::LowerBound);
        assert_eq!(err.message, "L must lie in (0, 1), got 1.2");
        assert!(TdScheduler::new(cfg).is_err());
        let mut cfg = TdConfig::with_slots(10);
        cfg.upper_bound = 0.9;
        assert_eq!(cfg.validate().unwrap_err().param, TdParam::UpperBound);
        assert!(TdScheduler::new(cfg).is_err());

        let mut td = TdScheduler::new(TdConfig::with_slots(10)).unwrap();
        let err = td.submit("zero", 0, 1.0, 1, HashMap::new()).unwrap_err();
        assert!(err.to_string().contains("zero"), "{err}");
        assert_eq!(
            td.set_tasks("ghost", 1, HashMap::new()),
            Err(CoreError::UnknownApp("ghost".into()))
        );
        td.submit("j", 1, 1.0, 1, HashMap::new()).unwrap();
        assert!(td.submit("j", 1, 1.0, 1, HashMap::new()).is_err());
    }
}
