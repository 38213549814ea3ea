//! FRESH (Wang, Yao, Mao, Sheng, Mi: "Fair and Efficient Slot Configuration and Scheduling for
//! Hadoop Clusters"): how many of the cluster's slots should serve maps versus reduces, and which
//! job a freed slot should serve.
//!
//! Four pieces, each usable on its own by a layer adapter:
//! - [`jain_index`], [`resource_consumption`] and [`simulate_phase_fair`]: the paper's *overall
//!   fairness* (eq. 1 + Jain's index) and the per-phase fair-sharing baseline of its Section V-A
//!   example;
//! - [`static_slot_configuration`]: Algorithm 1, the makespan-optimal fixed map/reduce split
//!   from job profiles;
//! - [`DynamicSlotConfigurator`]: Algorithms 2-4 with the admission control `k`, kept between
//!   heartbeats; it learns the task-time averages from the task starts/finishes it is told;
//! - [`theorem1_eta`]: Theorem 1, the reduce slots released while the next job ends its map phase.
//!
//! The adapters are `yarn` (the job-policy layer) and `slots` (the slot layer); the answers they
//! remember between heartbeats, and when they forget them, are in `speed`.
//!
//! Times are seconds (`f64`), a workload is task-seconds (slot-seconds). See
//! `docs/design/papers-fresh.md` for the YARN mapping and every departure from the paper.

pub mod slots;
mod speed;
pub mod yarn;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use crate::fast_hash::FastMap;

/// Algorithm 3's progress threshold, the value of the paper's experiments (Section VI-A).
pub const DEFAULT_TAU1: f64 = 0.8;
/// Algorithm 3's ratio-difference threshold, the value of the paper's experiments.
pub const DEFAULT_TAU2: f64 = 0.6;

/// Below this a remaining workload counts as done: the fluid simulation subtracts floats.
const EPS: f64 = 1e-9;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotKind {
    Map,
    Reduce,
}

impl SlotKind {
    fn other(self) -> SlotKind {
        match self {
            SlotKind::Map => SlotKind::Reduce,
            SlotKind::Reduce => SlotKind::Map,
        }
    }
}

impl fmt::Display for SlotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SlotKind::Map => "map",
            SlotKind::Reduce => "reduce",
        })
    }
}

/// Every input FRESH refuses, naming the parameter, job or task at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum FreshError {
    Parameter {
        name: &'static str,
        message: String,
    },
    Job {
        job: String,
        message: String,
    },
    UnknownJob(String),
    Task {
        job: String,
        task: u64,
        message: String,
    },
}

impl fmt::Display for FreshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FreshError::Parameter { name, message } => {
                write!(f, "FRESH parameter {name}: {message}")
            }
            FreshError::Job { job, message } => write!(f, "FRESH job {job}: {message}"),
            FreshError::UnknownJob(job) => write!(f, "FRESH does not know job {job}"),
            FreshError::Task { job, task, message } => {
                write!(f, "FRESH job {job} task {task}: {message}")
            }
        }
    }
}

impl std::error::Error for FreshError {}

fn param(name: &'static str, message: impl Into<String>) -> FreshError {
    FreshError::Parameter {
        name,
        message: message.into(),
    }
}

fn job_err(job: &str, message: impl Into<String>) -> FreshError {
    FreshError::Job {
        job: job.to_string(),
        message: message.into(),
    }
}

fn check_secs(job: &str, what: &str, v: f64) -> Result<(), FreshError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(job_err(
            job,
            format!("{what} must be a positive number of seconds, got {v}"),
        ))
    }
}

fn argmin_by<T, F: Fn(&T) -> f64>(items: &[T], key: F) -> Option<usize> {
    // Strict `<` keeps the first of equals, i.e. the earliest admitted job.
    let mut best: Option<(usize, f64)> = None;
    for (i, item) in items.iter().enumerate() {
        let v = key(item);
        if best.is_none_or(|(_, b)| v < b) {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

// ---------------------------------------------------------------------------------------------
// Overall fairness (Section V-A)
// ---------------------------------------------------------------------------------------------

/// Jain's index `(Σx)² / (n·Σx²)`, in `[1/n, 1]`, higher is fairer. `None` for no values; all
/// zeros (nobody got anything) is perfectly even, 1.
pub fn jain_index(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let sum: f64 = values.iter().sum();
    let sq: f64 = values.iter().map(|v| v * v).sum();
    if sq <= 0.0 {
        return Some(1.0);
    }
    Some(sum * sum / (values.len() as f64 * sq))
}

/// One task of a job for eq. 1: when it started and, if it has, when it finished.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskSpan {
    pub start: f64,
    pub finish: Option<f64>,
}

/// Eq. 1: `r_i(T) = (Σ_j t_m[i,j] + Σ_j t_r[i,j]) / (T − T_i)`, running tasks counted up to `now`
/// (Algorithm 4 lines 6-11). A job that started at `now` has consumed nothing: 0.
pub fn resource_consumption(tasks: &[TaskSpan], job_start: f64, now: f64) -> f64 {
    consumption(tasks.iter().copied(), job_start, now)
}

/// [`resource_consumption`] over spans read in place (a job's task table, every heartbeat).
fn consumption(tasks: impl Iterator<Item = TaskSpan>, job_start: f64, now: f64) -> f64 {
    let total: f64 = tasks
        .map(|t| match t.finish {
            Some(f) => (f - t.start).max(0.0),
            None => (now - t.start).max(0.0),
        })
        .sum();
    let age = now - job_start;
    if age <= 0.0 {
        0.0
    } else {
        total / age
    }
}

/// The schedule of the Section V-A example: per-phase fair sharing of unit-time tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseFairTrace {
    /// `steps[t][i]`: slots job `i` holds during time unit `t` and of which kind (the paper's
    /// table, one column per time point).
    pub steps: Vec<Vec<Option<(u32, SlotKind)>>>,
    /// Slot-units each job consumed, map and reduce together.
    pub slot_units: Vec<u32>,
    /// Time units until the last job finished.
    pub makespan: u32,
}

impl PhaseFairTrace {
    /// Jain's index over eq. 1 at the makespan, all jobs having started at 0.
    pub fn overall_fairness(&self) -> Option<f64> {
        let r: Vec<f64> = self
            .slot_units
            .iter()
            .map(|&u| u as f64 / self.makespan.max(1) as f64)
            .collect();
        jain_index(&r)
    }
}

/// FAIR SCHEDULER as the paper describes it: map slots shared evenly among jobs in their map phase,
/// reduce slots among jobs whose maps are all done, every task one time unit, no admission limit.
/// `jobs[i] = (maps, reduces)`.
///
/// Slots are handed out one at a time to the job holding the fewest this time unit; ties go to the
/// job that has used the fewest slot-units of this phase so far, then to the earlier job. The paper
/// does not state a tie rule; this one reproduces its table exactly.
pub fn simulate_phase_fair(
    jobs: &[(u32, u32)],
    map_slots: u32,
    reduce_slots: u32,
) -> Result<PhaseFairTrace, FreshError> {
    if map_slots == 0 && jobs.iter().any(|j| j.0 > 0) {
        return Err(param(
            "map_slots",
            "must be at least 1 when a job has map tasks",
        ));
    }
    if reduce_slots == 0 && jobs.iter().any(|j| j.1 > 0) {
        return Err(param(
            "reduce_slots",
            "must be at least 1 when a job has reduce tasks",
        ));
    }
    let n = jobs.len();
    let mut left_m: Vec<u32> = jobs.iter().map(|j| j.0).collect();
    let mut left_r: Vec<u32> = jobs.iter().map(|j| j.1).collect();
    let mut used_m = vec![0u32; n];
    let mut used_r = vec![0u32; n];
    let mut steps = Vec::new();
    while left_m.iter().chain(left_r.iter()).any(|&x| x > 0) {
        // A job enters its reduce phase only at a time point after its last map finished.
        let in_map: Vec<usize> = (0..n).filter(|&i| left_m[i] > 0).collect();
        let in_reduce: Vec<usize> = (0..n)
            .filter(|&i| left_m[i] == 0 && left_r[i] > 0)
            .collect();
        let got_m = share(&in_map, map_slots, &left_m, &used_m);
        let got_r = share(&in_reduce, reduce_slots, &left_r, &used_r);
        let mut step = vec![None; n];
        for i in 0..n {
            if got_m[i] > 0 {
                step[i] = Some((got_m[i], SlotKind::Map));
                left_m[i] -= got_m[i];
                used_m[i] += got_m[i];
            } else if got_r[i] > 0 {
                step[i] = Some((got_r[i], SlotKind::Reduce));
                left_r[i] -= got_r[i];
                used_r[i] += got_r[i];
            }
        }
        steps.push(step);
    }
    let slot_units = (0..n).map(|i| used_m[i] + used_r[i]).collect();
    Ok(PhaseFairTrace {
        makespan: steps.len() as u32,
        steps,
        slot_units,
    })
}

fn share(active: &[usize], slots: u32, left: &[u32], used: &[u32]) -> Vec<u32> {
    let mut got = vec![0u32; left.len()];
    for _ in 0..slots {
        let pick = active
            .iter()
            .copied()
            .filter(|&i| got[i] < left[i])
            .min_by_key(|&i| (got[i], used[i], i));
        match pick {
            Some(i) => got[i] += 1,
            None => break,
        }
    }
    got
}

// ---------------------------------------------------------------------------------------------
// Static slot configuration (Section IV, Algorithm 1)
// ---------------------------------------------------------------------------------------------

/// A job's profile: task counts and average task times (`n_m(i)`, `n_r(i)`, `t̄_m(i)`, `t̄_r(i)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobProfile {
    pub job: String,
    pub maps: u32,
    pub reduces: u32,
    pub map_secs: f64,
    pub reduce_secs: f64,
}

impl JobProfile {
    pub fn new(
        job: impl Into<String>,
        maps: u32,
        reduces: u32,
        map_secs: f64,
        reduce_secs: f64,
    ) -> Self {
        JobProfile {
            job: job.into(),
            maps,
            reduces,
            map_secs,
            reduce_secs,
        }
    }

    /// `w_m(i) = n_m(i) · t̄_m(i)` (Algorithm 1 line 4).
    pub fn map_workload(&self) -> f64 {
        self.maps as f64 * self.map_secs
    }

    /// `w_r(i) = n_r(i) · t̄_r(i)` (Algorithm 1 line 4).
    pub fn reduce_workload(&self) -> f64 {
        self.reduces as f64 * self.reduce_secs
    }

    fn validate(&self) -> Result<(), FreshError> {
        check_secs(&self.job, "average map task time", self.map_secs)?;
        check_secs(&self.job, "average reduce task time", self.reduce_secs)
    }
}

/// Algorithm 1's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StaticPlan {
    /// `Opt_SM`.
    pub map_slots: u32,
    pub reduce_slots: u32,
    /// `Opt_MS`, in the profiles' seconds.
    pub makespan: f64,
    /// The estimated makespan of every `s_m` tried, `None` where the batch cannot finish
    /// (no reduce slot left for a job with reduce work).
    pub makespans: Vec<(u32, Option<f64>)>,
}

/// Algorithm 1: try every `s_m` in `1..=S` and keep the one whose estimated makespan is least
/// (the first of equals). Jobs are admitted in slice order, at most `k` per phase.
pub fn static_slot_configuration(
    jobs: &[JobProfile],
    total_slots: u32,
    k: u32,
) -> Result<StaticPlan, FreshError> {
    if total_slots == 0 {
        return Err(param("total_slots", "the cluster needs at least one slot"));
    }
    let mut best: Option<(u32, f64)> = None;
    let mut makespans = Vec::with_capacity(total_slots as usize);
    for s_m in 1..=total_slots {
        let t = static_makespan(jobs, s_m, total_slots - s_m, k)?;
        makespans.push((s_m, t));
        if let Some(t) = t {
            // Line 22: strict `<`, so the smallest s_m wins a tie.
            if best.is_none_or(|(_, b)| t < b) {
                best = Some((s_m, t));
            }
        }
    }
    match best {
        Some((s_m, t)) => Ok(StaticPlan {
            map_slots: s_m,
            reduce_slots: total_slots - s_m,
            makespan: t,
            makespans,
        }),
        None => Err(param(
            "total_slots",
            format!("{total_slots} slot(s) cannot serve both map and reduce work"),
        )),
    }
}

/// Lines 2-21 of Algorithm 1 for one `(s_m, s_r)`: the estimated makespan of the batch when map
/// (reduce) slots are shared evenly among the jobs in their map (reduce) phase. `None` when
/// some phase has work but no slot.
pub fn static_makespan(
    jobs: &[JobProfile],
    map_slots: u32,
    reduce_slots: u32,
    k: u32,
) -> Result<Option<f64>, FreshError> {
    if k == 0 {
        return Err(param("k", "admission control needs k >= 1"));
    }
    for j in jobs {
        j.validate()?;
    }
    let n = jobs.len();
    let (s_m, s_r) = (map_slots as f64, reduce_slots as f64);
    let k = k as usize;
    // W_i: remaining workload of the current phase (lines 3-5).
    let mut w: Vec<f64> = jobs.iter().map(JobProfile::map_workload).collect();
    // Line 6.
    let mut in_map: Vec<usize> = (0..n.min(k)).collect();
    let mut next = in_map.len();
    let mut in_reduce: Vec<usize> = Vec::new();
    let mut waiting: VecDeque<usize> = VecDeque::new();
    let mut t = 0.0;
    let time_left = |set: &[usize], w: &[f64], slots: f64| -> Option<(usize, f64)> {
        let u = argmin_by(set, |&i| w[i])?;
        let rem = w[set[u]];
        let dt = if rem <= EPS {
            0.0
        } else if slots <= 0.0 {
            f64::INFINITY
        } else {
            rem / (slots / set.len() as f64)
        };
        Some((u, dt))
    };
    // Line 7.
    while !in_map.is_empty() || !in_reduce.is_empty() {
        // Lines 8-9: c_m = s_m/|M|, c_r = s_r/|R|.
        let c_m = if in_map.is_empty() {
            0.0
        } else {
            s_m / in_map.len() as f64
        };
        let c_r = if in_reduce.is_empty() {
            0.0
        } else {
            s_r / in_reduce.len() as f64
        };
        let map_next = time_left(&in_map, &w, s_m);
        let red_next = time_left(&in_reduce, &w, s_r);
        let tu = map_next.map_or(f64::INFINITY, |x| x.1);
        let tv = red_next.map_or(f64::INFINITY, |x| x.1);
        if tu.is_infinite() && tv.is_infinite() {
            return Ok(None);
        }
        if tu < tv {
            // Lines 11-16: J_u ends its map phase.
            let u = in_map.remove(map_next.map(|x| x.0).unwrap_or(0));
            t += tu;
            deduct(&in_map, &mut w, tu * c_m);
            deduct(&in_reduce, &mut w, tu * c_r);
            w[u] = jobs[u].reduce_workload();
            if next < n {
                w[next] = jobs[next].map_workload();
                in_map.push(next);
                next += 1;
            }
            if in_reduce.len() < k {
                in_reduce.push(u);
            } else {
                waiting.push_back(u);
            }
        } else {
            // Lines 18-21: J_v ends its reduce phase.
            in_reduce.remove(red_next.map(|x| x.0).unwrap_or(0));
            t += tv;
            deduct(&in_reduce, &mut w, tv * c_r);
            deduct(&in_map, &mut w, tv * c_m);
            if let Some(x) = waiting.pop_front() {
                in_reduce.push(x);
            }
        }
    }
    Ok(Some(t))
}

/// DeductWorkload of Algorithm 1.
fn deduct(set: &[usize], w: &mut [f64], amount: f64) {
    for &i in set {
        w[i] = (w[i] - amount).max(0.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Dynamic slot configuration (Section V-B/C, Algorithms 2-4, Theorem 1)
// ---------------------------------------------------------------------------------------------

/// Theorem 1: `η = (√(m_a² + 4·c·w'_m(a)) − m_a) / (2·c·r)` with `c = θ_cur / (2·r·k)`, the number
/// of reduce slots released while job `a` finishes its remaining map workload `w'_m(a)`
/// (slot-seconds) on its `m_a` map slots, one reduce task ending every `r` seconds.
///
/// With `θ_cur = 0` job `a` gains no slots and `η = w'_m(a) / (m_a·r)`; infinite when it also
/// holds none.
pub fn theorem1_eta(w_rem_a: f64, m_a: f64, theta_cur: f64, r: f64, k: f64) -> f64 {
    if w_rem_a <= 0.0 {
        return 0.0;
    }
    // Reduces that end "every 0 s" free unboundedly many slots; the caller caps by S.
    if r.is_nan() || r <= 0.0 {
        return f64::INFINITY;
    }
    let c = theta_cur / (2.0 * r * k.max(1.0));
    if c <= 0.0 {
        return if m_a > 0.0 {
            w_rem_a / (m_a * r)
        } else {
            f64::INFINITY
        };
    }
    ((m_a * m_a + 4.0 * c * w_rem_a).sqrt() - m_a) / (2.0 * c * r)
}

/// `S`, `k`, `τ1`, `τ2` of Section V.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FreshParams {
    pub total_slots: u32,
    pub k: u32,
    pub tau1: f64,
    pub tau2: f64,
}

impl FreshParams {
    /// The paper's thresholds (`τ1 = 0.8`, `τ2 = 0.6`).
    pub fn new(total_slots: u32, k: u32) -> Result<Self, FreshError> {
        FreshParams {
            total_slots,
            k,
            tau1: DEFAULT_TAU1,
            tau2: DEFAULT_TAU2,
        }
        .validated()
    }

    pub fn validated(self) -> Result<Self, FreshError> {
        if self.total_slots == 0 {
            return Err(param("total_slots", "the cluster needs at least one slot"));
        }
        if self.k == 0 {
            return Err(param("k", "admission control needs k >= 1"));
        }
        if !(self.tau1.is_finite() && (0.0..=1.0).contains(&self.tau1)) {
            return Err(param(
                "tau1",
                format!("is a map-progress fraction in [0, 1], got {}", self.tau1),
            ));
        }
        if !(self.tau2.is_finite() && self.tau2 >= 0.0) {
            return Err(param(
                "tau2",
                format!("is a non-negative relative difference, got {}", self.tau2),
            ));
        }
        Ok(self)
    }
}

/// Where a job stands under admission control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobPhase {
    /// Submitted, not yet admitted to the map phase (waits in `J`).
    Queued,
    /// In `M`.
    Map,
    /// In `R'`: maps done, `R` full.
    ReduceWaiting,
    /// In `R`.
    Reduce,
    Done,
}

#[derive(Debug, Clone)]
struct DynTask {
    kind: SlotKind,
    span: TaskSpan,
}

#[derive(Debug, Clone)]
struct DynJob {
    maps: u32,
    reduces: u32,
    est_map_secs: f64,
    est_reduce_secs: f64,
    done_maps: u32,
    done_reduces: u32,
    map_secs_sum: f64,
    reduce_secs_sum: f64,
    running_maps: u32,
    running_reduces: u32,
    tasks: BTreeMap<u64, DynTask>,
    /// `T_i`: when the job was admitted to its map phase.
    start: Option<f64>,
    phase: JobPhase,
}

impl DynJob {
    /// `t̄_m(i)`: the mean of finished maps, the submitted estimate until one finished.
    fn avg_map(&self) -> f64 {
        if self.done_maps > 0 {
            self.map_secs_sum / self.done_maps as f64
        } else {
            self.est_map_secs
        }
    }

    fn avg_reduce(&self) -> f64 {
        if self.done_reduces > 0 {
            self.reduce_secs_sum / self.done_reduces as f64
        } else {
            self.est_reduce_secs
        }
    }

    /// `w'_m(i) = n'_m(i) · t̄_m(i)`, `n'_m` counting every map not yet finished.
    fn rem_map_work(&self) -> f64 {
        (self.maps - self.done_maps) as f64 * self.avg_map()
    }

    fn rem_reduce_work(&self) -> f64 {
        (self.reduces - self.done_reduces) as f64 * self.avg_reduce()
    }

    fn unscheduled(&self, kind: SlotKind) -> u32 {
        match kind {
            SlotKind::Map => self.maps - self.done_maps - self.running_maps,
            SlotKind::Reduce => self.reduces - self.done_reduces - self.running_reduces,
        }
    }
}

/// How Algorithm 3 reached its answer, for logs and tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpSmTrace {
    /// `θ_cur = RW_m / (RW_m + RW_r)` (line 1).
    pub theta_cur: f64,
    /// `J_a`, the job of `M` with the least remaining map workload (line 2).
    pub job_a: Option<String>,
    /// Line 3's progress of `J_a` (finished maps / maps).
    pub progress_a: Option<f64>,
    /// Lines 6-8, when `J_a` passed `τ1`.
    pub theta_exp: Option<f64>,
    /// Line 9 (Theorem 1).
    pub eta: Option<f64>,
    /// Line 10: `s'_m = s_m + θ_cur·η`, capped at `S`.
    pub predicted_map_slots: Option<f64>,
    /// True when line 11's test chose `θ_exp`.
    pub used_expected: bool,
    /// `expSm`.
    pub expected_map_slots: f64,
}

/// FRESH's dynamic model, kept between heartbeats. Tell it about jobs ([`submit`]), task starts
/// and finishes; ask it what a freed slot should become ([`configure_free_slot`], Algorithm 2) and
/// which job it should serve ([`choose_job`], Algorithm 4).
///
/// A "slot" is one container of the job's map or reduce size; the busy map (reduce) slots are the
/// running map (reduce) tasks it was told about.
///
/// [`submit`]: DynamicSlotConfigurator::submit
/// [`configure_free_slot`]: DynamicSlotConfigurator::configure_free_slot
/// [`choose_job`]: DynamicSlotConfigurator::choose_job
#[derive(Debug, Clone)]
pub struct DynamicSlotConfigurator {
    params: FreshParams,
    /// By id; looked up for every app on every heartbeat, never walked.
    jobs: FastMap<String, DynJob>,
    /// `J`: submitted, not admitted, in submission order.
    queued: VecDeque<String>,
    /// `M`, in admission order.
    map_set: Vec<String>,
    /// `R`, in entry order.
    reduce_set: Vec<String>,
    /// `R'`.
    reduce_waiting: VecDeque<String>,
    busy_map: u32,
    busy_reduce: u32,
}

impl DynamicSlotConfigurator {
    pub fn new(params: FreshParams) -> Result<Self, FreshError> {
        Ok(DynamicSlotConfigurator {
            params: params.validated()?,
            jobs: FastMap::default(),
            queued: VecDeque::new(),
            map_set: Vec::new(),
            reduce_set: Vec::new(),
            reduce_waiting: VecDeque::new(),
            busy_map: 0,
            busy_reduce: 0,
        })
    }

    pub fn params(&self) -> FreshParams {
        self.params
    }

    /// A model whose parameters are forced into range (`k ≥ 1`, `τ1 ∈ [0, 1]`, `τ2 ≥ 0`, `S = 1`
    /// until [`set_total_slots`](Self::set_total_slots)): for adapters whose settings were
    /// validated already and that must not fail inside the ResourceManager.
    pub fn clamped(k: u32, tau1: f64, tau2: f64) -> Self {
        let finite = |v: f64, d: f64| if v.is_finite() { v } else { d };
        DynamicSlotConfigurator {
            params: FreshParams {
                total_slots: 1,
                k: k.max(1),
                tau1: finite(tau1, DEFAULT_TAU1).clamp(0.0, 1.0),
                tau2: finite(tau2, DEFAULT_TAU2).max(0.0),
            },
            jobs: FastMap::default(),
            queued: VecDeque::new(),
            map_set: Vec::new(),
            reduce_set: Vec::new(),
            reduce_waiting: VecDeque::new(),
            busy_map: 0,
            busy_reduce: 0,
        }
    }

    /// The cluster grew or shrank (nodes added/removed): `S` follows it.
    pub fn set_total_slots(&mut self, total_slots: u32) -> Result<(), FreshError> {
        self.params = FreshParams {
            total_slots,
            ..self.params
        }
        .validated()?;
        Ok(())
    }

    /// A job joins `J` with its task counts and prior task-time estimates (a hint or a default);
    /// it is admitted to `M` at once if fewer than `k` jobs are in their map phase.
    pub fn submit(
        &mut self,
        job: &str,
        maps: u32,
        reduces: u32,
        est_map_secs: f64,
        est_reduce_secs: f64,
        now: f64,
    ) -> Result<(), FreshError> {
        if self.jobs.contains_key(job) {
            return Err(job_err(job, "submitted twice"));
        }
        check_secs(job, "estimated map task time", est_map_secs)?;
        check_secs(job, "estimated reduce task time", est_reduce_secs)?;
        self.jobs.insert(
            job.to_string(),
            DynJob {
                maps,
                reduces,
                est_map_secs,
                est_reduce_secs,
                done_maps: 0,
                done_reduces: 0,
                map_secs_sum: 0.0,
                reduce_secs_sum: 0.0,
                running_maps: 0,
                running_reduces: 0,
                tasks: BTreeMap::new(),
                start: None,
                phase: JobPhase::Queued,
            },
        );
        self.queued.push_back(job.to_string());
        self.settle(now);
        Ok(())
    }

    /// A job left (finished, killed): drop it and its slots, admitting the next ones.
    pub fn remove(&mut self, job: &str, now: f64) -> Result<(), FreshError> {
        let j = self
            .jobs
            .remove(job)
            .ok_or_else(|| FreshError::UnknownJob(job.to_string()))?;
        self.busy_map -= j.running_maps;
        self.busy_reduce -= j.running_reduces;
        self.queued.retain(|x| x != job);
        self.map_set.retain(|x| x != job);
        self.reduce_set.retain(|x| x != job);
        self.reduce_waiting.retain(|x| x != job);
        self.settle(now);
        Ok(())
    }

    /// The job's task counts changed: in YARN the ResourceManager learns them from the AM's asks
    /// (finished + running + outstanding), so they can grow after submission.
    pub fn set_task_counts(
        &mut self,
        job: &str,
        maps: u32,
        reduces: u32,
        now: f64,
    ) -> Result<(), FreshError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| FreshError::UnknownJob(job.to_string()))?;
        let (min_m, min_r) = (
            j.done_maps + j.running_maps,
            j.done_reduces + j.running_reduces,
        );
        if maps < min_m || reduces < min_r {
            return Err(job_err(
                job,
                format!("cannot have {maps} maps and {reduces} reduces when {min_m} maps and {min_r} reduces already started"),
            ));
        }
        if j.phase != JobPhase::Queued && j.phase != JobPhase::Map && maps != j.maps {
            return Err(job_err(
                job,
                format!(
                    "map count changed to {maps} after the map phase ended with {}",
                    j.maps
                ),
            ));
        }
        j.maps = maps;
        j.reduces = reduces;
        self.settle(now);
        Ok(())
    }

    /// A task of `job` started in a slot of `kind` (the adapter executed our choice, or another
    /// layer's). Only a job in `M` may start maps and only a job in `R` reduces.
    pub fn task_started(
        &mut self,
        job: &str,
        task: u64,
        kind: SlotKind,
        now: f64,
    ) -> Result<(), FreshError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| FreshError::UnknownJob(job.to_string()))?;
        let allowed = match kind {
            SlotKind::Map => j.phase == JobPhase::Map,
            SlotKind::Reduce => j.phase == JobPhase::Reduce,
        };
        if !allowed {
            return Err(FreshError::Task {
                job: job.into(),
                task,
                message: format!("cannot start a {kind} task while the job is {:?}", j.phase),
            });
        }
        if j.tasks.contains_key(&task) {
            return Err(FreshError::Task {
                job: job.into(),
                task,
                message: "started twice".into(),
            });
        }
        if j.unscheduled(kind) == 0 {
            return Err(FreshError::Task {
                job: job.into(),
                task,
                message: format!("the job has no {kind} task left to start"),
            });
        }
        j.tasks.insert(
            task,
            DynTask {
                kind,
                span: TaskSpan {
                    start: now,
                    finish: None,
                },
            },
        );
        match kind {
            SlotKind::Map => {
                j.running_maps += 1;
                self.busy_map += 1;
            }
            SlotKind::Reduce => {
                j.running_reduces += 1;
                self.busy_reduce += 1;
            }
        }
        Ok(())
    }

    /// Algorithm 2 lines 1-4: a task finished; update `t̄`, `n'`, `w'` (and so `RW_m`/`RW_r`),
    /// then move jobs between `J`, `M`, `R'` and `R`.
    pub fn task_finished(&mut self, job: &str, task: u64, now: f64) -> Result<(), FreshError> {
        let j = self
            .jobs
            .get_mut(job)
            .ok_or_else(|| FreshError::UnknownJob(job.to_string()))?;
        let t = j.tasks.get_mut(&task).ok_or_else(|| FreshError::Task {
            job: job.into(),
            task,
            message: "finished but never started".into(),
        })?;
        if t.span.finish.is_some() {
            return Err(FreshError::Task {
                job: job.into(),
                task,
                message: "finished twice".into(),
            });
        }
        t.span.finish = Some(now);
        let took = (now - t.span.start).max(0.0);
        match t.kind {
            SlotKind::Map => {
                j.running_maps -= 1;
                j.done_maps += 1;
                j.map_secs_sum += took;
                self.busy_map -= 1;
            }
            SlotKind::Reduce => {
                j.running_reduces -= 1;
                j.done_reduces += 1;
                j.reduce_secs_sum += took;
                self.busy_reduce -= 1;
            }
        }
        self.settle(now);
        Ok(())
    }

    /// Moves every job whose phase is over and admits from `J` and `R'` while `M`/`R` have room.
    fn settle(&mut self, now: f64) {
        loop {
            let mut changed = false;
            while self.map_set.len() < self.params.k as usize {
                let Some(id) = self.queued.pop_front() else {
                    break;
                };
                if let Some(j) = self.jobs.get_mut(&id) {
                    j.phase = JobPhase::Map;
                    j.start = Some(now);
                    self.map_set.push(id);
                    changed = true;
                }
            }
            let finished_maps: Vec<String> = self
                .map_set
                .iter()
                .filter(|id| self.jobs.get(*id).is_some_and(|j| j.done_maps >= j.maps))
                .cloned()
                .collect();
            for id in finished_maps {
                self.map_set.retain(|x| *x != id);
                self.reduce_waiting.push_back(id.clone());
                if let Some(j) = self.jobs.get_mut(&id) {
                    j.phase = JobPhase::ReduceWaiting;
                }
                changed = true;
            }
            let finished: Vec<String> = self
                .reduce_set
                .iter()
                .filter(|id| {
                    self.jobs
                        .get(*id)
                        .is_some_and(|j| j.done_reduces >= j.reduces)
                })
                .cloned()
                .collect();
            for id in finished {
                self.reduce_set.retain(|x| *x != id);
                if let Some(j) = self.jobs.get_mut(&id) {
                    j.phase = JobPhase::Done;
                }
                changed = true;
            }
            while self.reduce_set.len() < self.params.k as usize {
                let Some(id) = self.reduce_waiting.pop_front() else {
                    break;
                };
                if let Some(j) = self.jobs.get_mut(&id) {
                    j.phase = JobPhase::Reduce;
                    self.reduce_set.push(id);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    pub fn phase(&self, job: &str) -> Option<JobPhase> {
        self.jobs.get(job).map(|j| j.phase)
    }

    /// `M`, in admission order.
    pub fn map_set(&self) -> &[String] {
        &self.map_set
    }

    /// `R`.
    pub fn reduce_set(&self) -> &[String] {
        &self.reduce_set
    }

    /// `R'`.
    pub fn reduce_waiting(&self) -> Vec<String> {
        self.reduce_waiting.iter().cloned().collect()
    }

    /// `J` (not yet admitted).
    pub fn queued(&self) -> Vec<String> {
        self.queued.iter().cloned().collect()
    }

    /// |`J`|, without copying it.
    pub fn queued_len(&self) -> usize {
        self.queued.len()
    }

    /// Busy map and reduce slots (`s_m`, `s_r` of Algorithm 2).
    pub fn busy_slots(&self) -> (u32, u32) {
        (self.busy_map, self.busy_reduce)
    }

    /// `t̄_m(i)`, `t̄_r(i)` as currently learned.
    pub fn avg_task_secs(&self, job: &str) -> Option<(f64, f64)> {
        self.jobs.get(job).map(|j| (j.avg_map(), j.avg_reduce()))
    }

    /// `w'_m(i)`, `w'_r(i)`.
    pub fn remaining_workload(&self, job: &str) -> Option<(f64, f64)> {
        self.jobs
            .get(job)
            .map(|j| (j.rem_map_work(), j.rem_reduce_work()))
    }

    /// `RW_m = Σ_{i∈M} w'_m(i)`.
    pub fn rw_m(&self) -> f64 {
        self.map_set
            .iter()
            .filter_map(|id| self.jobs.get(id))
            .map(DynJob::rem_map_work)
            .sum()
    }

    /// `RW_r = Σ_{i∈R∪R'} w'_r(i)`.
    pub fn rw_r(&self) -> f64 {
        self.reduce_set
            .iter()
            .chain(self.reduce_waiting.iter())
            .filter_map(|id| self.jobs.get(id))
            .map(DynJob::rem_reduce_work)
            .sum()
    }

    /// Theorem 1's `r`: seconds between reduce completions, from the running reduce tasks each
    /// ending once per its job's `t̄_r`. `None` when no reduce runs (no reduce slot will free up).
    pub fn reduce_completion_interval(&self) -> Option<f64> {
        let rate: f64 = self
            .reduce_set
            .iter()
            .filter_map(|id| self.jobs.get(id))
            .map(|j| j.running_reduces as f64 / j.avg_reduce())
            .sum();
        if rate > 0.0 {
            Some(1.0 / rate)
        } else {
            None
        }
    }

    /// Algorithm 3 (`CalExpSm`): the expected number of map slots.
    pub fn expected_map_slots(&self) -> f64 {
        self.cal_exp_sm().expected_map_slots
    }

    /// Algorithm 3 with its intermediate values.
    pub fn cal_exp_sm(&self) -> ExpSmTrace {
        let s = self.params.total_slots as f64;
        let (rw_m, rw_r) = (self.rw_m(), self.rw_r());
        // Line 1; with no work left at all there is nothing to split.
        let theta_cur = if rw_m + rw_r > 0.0 {
            rw_m / (rw_m + rw_r)
        } else {
            0.0
        };
        let mut trace = ExpSmTrace {
            theta_cur,
            job_a: None,
            progress_a: None,
            theta_exp: None,
            eta: None,
            predicted_map_slots: None,
            used_expected: false,
            expected_map_slots: theta_cur * s,
        };
        // Line 2.
        let Some(ai) = argmin_by(&self.map_set, |id| {
            self.jobs
                .get(id)
                .map_or(f64::INFINITY, DynJob::rem_map_work)
        }) else {
            return trace;
        };
        let a_id = &self.map_set[ai];
        let Some(a) = self.jobs.get(a_id) else {
            return trace;
        };
        let progress = if a.maps == 0 {
            1.0
        } else {
            a.done_maps as f64 / a.maps as f64
        };
        trace.job_a = Some(a_id.clone());
        trace.progress_a = Some(progress);
        // Line 3.
        if progress < self.params.tau1 {
            return trace;
        }
        // Lines 6-8; `k` is the number of jobs actually in M (= k on a busy cluster).
        let k = self.map_set.len() as f64;
        let w_b = self
            .queued
            .front()
            .and_then(|id| self.jobs.get(id))
            .map_or(0.0, |b| b.maps as f64 * b.avg_map());
        let rw_m2 = (rw_m - a.rem_map_work() * k + w_b).max(0.0);
        let rw_r2 = rw_r + a.reduces as f64 * a.avg_reduce();
        let theta_exp = if rw_m2 + rw_r2 > 0.0 {
            rw_m2 / (rw_m2 + rw_r2)
        } else {
            theta_cur
        };
        // Line 9.
        let eta = match self.reduce_completion_interval() {
            Some(r) => theorem1_eta(a.rem_map_work(), a.running_maps as f64, theta_cur, r, k),
            None => 0.0,
        };
        // Line 10.
        let s_m2 = (self.busy_map as f64 + theta_cur * eta).min(s);
        // Line 11 (relative difference, see docs/design/papers-fresh.md).
        let diff = if theta_exp > 0.0 {
            (s_m2 / s - theta_exp).abs() / theta_exp
        } else if s_m2 > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        trace.theta_exp = Some(theta_exp);
        trace.eta = Some(eta);
        trace.predicted_map_slots = Some(s_m2);
        if diff > self.params.tau2 {
            trace.used_expected = true;
            trace.expected_map_slots = theta_exp * s;
        }
        trace
    }

    /// Algorithm 2 lines 5-7: the kind a freed slot becomes. The freed slot is not counted in
    /// `s_m` (it holds no task while it is being configured).
    pub fn configure_free_slot(&self) -> SlotKind {
        if self.expected_map_slots() > self.busy_map as f64 {
            SlotKind::Map
        } else {
            SlotKind::Reduce
        }
    }

    /// Eq. 1 for one job at `now` (0 before it is admitted).
    pub fn resource_consumption(&self, job: &str, now: f64) -> Option<f64> {
        let j = self.jobs.get(job)?;
        Some(j.start.map_or(0.0, |s| {
            consumption(j.tasks.values().map(|t| t.span), s, now)
        }))
    }

    /// Jain's index over eq. 1 of the active jobs (`M ∪ R ∪ R'`) at `now`.
    pub fn overall_fairness(&self, now: f64) -> Option<f64> {
        let r: Vec<f64> = self
            .map_set
            .iter()
            .chain(self.reduce_set.iter())
            .chain(self.reduce_waiting.iter())
            .filter_map(|id| self.resource_consumption(id, now))
            .collect();
        jain_index(&r)
    }

    /// Algorithm 4: among `M` (map slot) or `R` (reduce slot) the job with the least `r_i`
    /// (eq. 1) that still has a task of that kind to start; earlier admitted jobs win ties.
    pub fn choose_job(&self, kind: SlotKind, now: f64) -> Option<String> {
        let candidates: Vec<&String> = match kind {
            SlotKind::Map => self.map_set.iter(),
            SlotKind::Reduce => self.reduce_set.iter(),
        }
        .filter(|id| self.jobs.get(*id).is_some_and(|j| j.unscheduled(kind) > 0))
        .collect();
        let best = argmin_by(&candidates, |id| {
            self.resource_consumption(id, now).unwrap_or(f64::INFINITY)
        })?;
        Some(candidates[best].clone())
    }

    /// Algorithms 2 and 4 together for one freed slot. When no candidate of the configured kind
    /// has a task to start, the slot serves the other kind rather than idle (the paper is silent).
    pub fn next_assignment(&self, now: f64) -> Option<(SlotKind, String)> {
        let kind = self.configure_free_slot();
        self.choose_job(kind, now).map(|j| (kind, j)).or_else(|| {
            self.choose_job(kind.other(), now)
                .map(|j| (kind.other(), j))
        })
    }

    /// [`next_assignment`](Self::next_assignment) for `free` slots freed at the same instant (one
    /// heartbeat), each choice counted as a started task before the next is made, so the
    /// map/reduce split follows `expSm` across them. Nothing is recorded: report the containers
    /// actually started with [`task_started`](Self::task_started).
    pub fn plan_free_slots(&self, free: u32, now: f64) -> Vec<(SlotKind, String)> {
        let mut sim = self.clone();
        let mut out = Vec::new();
        for i in 0..free {
            let Some((kind, job)) = sim.next_assignment(now) else {
                break;
            };
            // Ids from the top of the range cannot collide with container ids the adapter uses.
            if sim
                .task_started(&job, u64::MAX - i as u64, kind, now)
                .is_err()
            {
                break;
            }
            out.push((kind, job));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    // ---- Section V-A example and eq. 1 ----

    #[test]
    fn fairness_example_reproduces_the_papers_table_and_11_7_10_slot_units() {
        let trace = simulate_phase_fair(&[(2, 9), (3, 4), (7, 3)], 4, 4).unwrap();
        use SlotKind::{Map as M, Reduce as R};
        let table = [
            [
                Some((2, M)),
                Some((4, R)),
                Some((2, R)),
                Some((1, R)),
                Some((2, R)),
            ],
            [
                Some((1, M)),
                Some((2, M)),
                Some((2, R)),
                Some((1, R)),
                Some((1, R)),
            ],
            [
                Some((1, M)),
                Some((2, M)),
                Some((4, M)),
                Some((2, R)),
                Some((1, R)),
            ],
        ];
        assert_eq!(trace.makespan, 5);
        for (job, row) in table.iter().enumerate() {
            for (t, cell) in row.iter().enumerate() {
                assert_eq!(trace.steps[t][job], *cell, "job J{} at time {t}", job + 1);
            }
        }
        assert_eq!(trace.slot_units, vec![11, 7, 10]);
        // r = 11/5, 7/5, 10/5 → (28)² / (3 · 270).
        assert!(close(trace.overall_fairness().unwrap(), 784.0 / 810.0));
    }

    #[test]
    fn phase_fair_refuses_a_phase_without_slots() {
        let err = simulate_phase_fair(&[(1, 1)], 2, 0).unwrap_err();
        assert!(err.to_string().contains("reduce_slots"), "{err}");
    }

    #[test]
    fn jain_index_is_one_when_even_and_one_over_n_when_one_job_takes_all() {
        assert!(close(jain_index(&[2.0, 2.0, 2.0]).unwrap(), 1.0));
        assert!(close(jain_index(&[5.0, 0.0, 0.0, 0.0]).unwrap(), 0.25));
        assert!(close(jain_index(&[1.0, 3.0]).unwrap(), 16.0 / 20.0));
        assert_eq!(jain_index(&[]), None);
    }

    #[test]
    fn eq1_counts_finished_tasks_whole_and_running_tasks_up_to_now() {
        let tasks = [
            TaskSpan {
                start: 10.0,
                finish: Some(14.0),
            },
            TaskSpan {
                start: 12.0,
                finish: None,
            },
            TaskSpan {
                start: 11.0,
                finish: Some(12.0),
            },
        ];
        // (4 + 8 + 1) / (20 - 10)
        assert!(close(resource_consumption(&tasks, 10.0, 20.0), 1.3));
        assert_eq!(resource_consumption(&[], 20.0, 20.0), 0.0);
    }

    // ---- Algorithm 1 ----

    fn p(maps: u32, reduces: u32, tm: f64, tr: f64) -> JobProfile {
        JobProfile::new("j", maps, reduces, tm, tr)
    }

    #[test]
    fn algorithm1_single_balanced_job_splits_slots_evenly() {
        // makespan(s_m) = 4/s_m + 4/(4 - s_m): 5.33, 4, 5.33, infeasible.
        let plan = static_slot_configuration(&[p(4, 4, 1.0, 1.0)], 4, 1).unwrap();
        assert_eq!((plan.map_slots, plan.reduce_slots), (2, 2));
        assert!(close(plan.makespan, 4.0));
        assert!(close(plan.makespans[0].1.unwrap(), 4.0 + 4.0 / 3.0));
        assert_eq!(plan.makespans[3], (4, None));
    }

    #[test]
    fn algorithm1_pipelines_two_jobs_under_k_1() {
        // s_m = 2: J1 maps 0-2, J1 reduces 2-4 while J2 maps 2-4, J2 reduces 4-6.
        // s_m = 3: J2's maps end at 2.67 but R is full until J1's reduces end at 5.33 (R').
        let jobs = [p(4, 4, 1.0, 1.0), p(4, 4, 1.0, 1.0)];
        let plan = static_slot_configuration(&jobs, 4, 1).unwrap();
        assert_eq!(plan.map_slots, 2);
        assert!(close(plan.makespan, 6.0));
        assert!(close(plan.makespans[2].1.unwrap(), 4.0 / 3.0 + 4.0 + 4.0));
    }

    #[test]
    fn algorithm1_gives_a_reduce_heavy_batch_more_reduce_slots() {
        let jobs = [p(2, 20, 1.0, 3.0), p(2, 20, 1.0, 3.0), p(2, 20, 1.0, 3.0)];
        let plan = static_slot_configuration(&jobs, 10, 3).unwrap();
        assert!(plan.reduce_slots > plan.map_slots, "{plan:?}");
    }

    /// The same fluid model as Algorithm 1, integrated in small time steps instead of jumping
    /// from event to event: each job of M gets s_m/|M| slots, each of R s_r/|R|.
    fn stepped_makespan(jobs: &[JobProfile], s_m: u32, s_r: u32, k: usize) -> Option<f64> {
        let dt = 1e-3;
        let n = jobs.len();
        let mut w: Vec<f64> = jobs.iter().map(|j| j.map_workload()).collect();
        let mut m: Vec<usize> = (0..n.min(k)).collect();
        let mut next = m.len();
        let mut r: Vec<usize> = vec![];
        let mut wait: VecDeque<usize> = VecDeque::new();
        let mut t = 0.0;
        while !m.is_empty() || !r.is_empty() {
            if t > 1e5 {
                return None;
            }
            // transitions at this instant
            let mut moved = true;
            while moved {
                moved = false;
                if let Some(pos) = r.iter().position(|&i| w[i] <= 1e-12) {
                    r.remove(pos);
                    if let Some(x) = wait.pop_front() {
                        r.push(x);
                    }
                    moved = true;
                    continue;
                }
                if let Some(pos) = m.iter().position(|&i| w[i] <= 1e-12) {
                    let u = m.remove(pos);
                    w[u] = jobs[u].reduce_workload();
                    if next < n {
                        w[next] = jobs[next].map_workload();
                        m.push(next);
                        next += 1;
                    }
                    if r.len() < k {
                        r.push(u);
                    } else {
                        wait.push_back(u);
                    }
                    moved = true;
                }
            }
            if m.is_empty() && r.is_empty() {
                break;
            }
            let cm = if m.is_empty() {
                0.0
            } else {
                s_m as f64 / m.len() as f64
            };
            let cr = if r.is_empty() {
                0.0
            } else {
                s_r as f64 / r.len() as f64
            };
            if cm == 0.0 && cr == 0.0 {
                return None;
            }
            // advance one step, landing exactly on the next completion inside it
            let mut step: f64 = dt;
            for &i in &m {
                if cm > 0.0 {
                    step = step.min(w[i] / cm);
                }
            }
            for &i in &r {
                if cr > 0.0 {
                    step = step.min(w[i] / cr);
                }
            }
            for &i in &m {
                w[i] = (w[i] - step * cm).max(0.0);
            }
            for &i in &r {
                w[i] = (w[i] - step * cr).max(0.0);
            }
            t += step;
        }
        Some(t)
    }

    #[test]
    fn algorithm1_matches_a_brute_force_search_on_small_batches() {
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut rnd = |lo: u32, hi: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            lo + (seed % (hi - lo + 1) as u64) as u32
        };
        for case in 0..40 {
            let n = rnd(1, 5) as usize;
            let jobs: Vec<JobProfile> = (0..n)
                .map(|i| {
                    JobProfile::new(
                        format!("j{i}"),
                        rnd(1, 12),
                        rnd(0, 12),
                        rnd(1, 6) as f64,
                        rnd(1, 9) as f64,
                    )
                })
                .collect();
            let s = rnd(2, 9);
            let k = rnd(1, 3);
            let plan = static_slot_configuration(&jobs, s, k).unwrap();
            let brute: Vec<Option<f64>> = (1..=s)
                .map(|sm| stepped_makespan(&jobs, sm, s - sm, k as usize))
                .collect();
            let best = brute
                .iter()
                .flatten()
                .cloned()
                .fold(f64::INFINITY, f64::min);
            let chosen = brute[(plan.map_slots - 1) as usize].unwrap();
            assert!(
                chosen <= best + 1e-6,
                "case {case}: Algorithm 1 chose s_m={} ({chosen}) but brute force finds {best}; {jobs:?} S={s} k={k}",
                plan.map_slots
            );
            for (sm, t) in &plan.makespans {
                match (t, brute[(*sm - 1) as usize]) {
                    (Some(a), Some(b)) => {
                        assert!((a - b).abs() < 1e-6, "case {case} s_m={sm}: {a} vs {b}")
                    }
                    (None, None) => {}
                    other => panic!("case {case} s_m={sm}: feasibility differs {other:?}"),
                }
            }
        }
    }

    #[test]
    fn algorithm1_names_the_bad_profile_and_parameter() {
        let err = static_slot_configuration(&[JobProfile::new("job_7", 3, 3, -1.0, 1.0)], 4, 1)
            .unwrap_err();
        assert!(err.to_string().contains("job_7"), "{err}");
        let err = static_slot_configuration(&[p(1, 1, 1.0, 1.0)], 4, 0).unwrap_err();
        assert!(err.to_string().contains('k'), "{err}");
        let err = static_slot_configuration(&[p(1, 1, 1.0, 1.0)], 1, 1).unwrap_err();
        assert!(err.to_string().contains("total_slots"), "{err}");
    }

    // ---- Theorem 1 ----

    #[test]
    fn theorem1_eta_solves_the_papers_fixed_point() {
        // c = 0.5 / (2·1·1) = 0.25; (√(1 + 4·0.25·8) − 1) / (2·0.25·1) = (3 − 1) / 0.5 = 4.
        assert!(close(theorem1_eta(8.0, 1.0, 0.5, 1.0, 1.0), 4.0));
        // x = η·r must satisfy x = w / (x·θ/(2rk) + m_a).
        let (w, m, th, r, k) = (12.0, 2.0, 0.5, 1.5, 2.0);
        let x = theorem1_eta(w, m, th, r, k) * r;
        assert!(close(x, w / (x * th / (2.0 * r * k) + m)));
        // no growth: x = w / m_a.
        assert!(close(theorem1_eta(6.0, 3.0, 0.0, 0.5, 1.0), 4.0));
        assert_eq!(theorem1_eta(0.0, 3.0, 0.5, 0.5, 1.0), 0.0);
        assert_eq!(theorem1_eta(6.0, 3.0, 0.5, 0.0, 1.0), f64::INFINITY);
    }

    // ---- Algorithms 2-4 ----

    fn conf(s: u32, k: u32) -> DynamicSlotConfigurator {
        DynamicSlotConfigurator::new(FreshParams::new(s, k).unwrap()).unwrap()
    }

    #[test]
    fn admission_control_keeps_k_jobs_per_phase() {
        let mut c = conf(4, 1);
        c.submit("A", 1, 1, 1.0, 1.0, 0.0).unwrap();
        c.submit("B", 1, 1, 1.0, 1.0, 0.0).unwrap();
        c.submit("C", 1, 1, 1.0, 1.0, 0.0).unwrap();
        assert_eq!(c.map_set(), ["A"]);
        assert_eq!(c.queued(), ["B", "C"]);
        let err = c.task_started("B", 1, SlotKind::Map, 0.0).unwrap_err();
        assert!(err.to_string().contains("job B"), "{err}");
        c.task_started("A", 1, SlotKind::Map, 0.0).unwrap();
        c.task_finished("A", 1, 1.0).unwrap();
        assert_eq!(c.reduce_set(), ["A"]);
        assert_eq!(c.map_set(), ["B"]);
        c.task_started("B", 2, SlotKind::Map, 1.0).unwrap();
        c.task_finished("B", 2, 2.0).unwrap();
        // R holds A (k = 1): B waits in R' and cannot start reduces.
        assert_eq!(c.reduce_waiting(), ["B"]);
        assert_eq!(c.phase("B"), Some(JobPhase::ReduceWaiting));
        assert!(c.task_started("B", 3, SlotKind::Reduce, 2.0).is_err());
        assert_eq!(c.map_set(), ["C"]);
        c.task_started("A", 4, SlotKind::Reduce, 2.0).unwrap();
        c.task_finished("A", 4, 3.0).unwrap();
        assert_eq!(c.phase("A"), Some(JobPhase::Done));
        assert_eq!(c.reduce_set(), ["B"]);
        assert!(c.reduce_waiting().is_empty());
    }

    #[test]
    fn task_events_are_validated_naming_job_and_task() {
        let mut c = conf(4, 2);
        assert!(c
            .submit("A", 1, 1, 0.0, 1.0, 0.0)
            .unwrap_err()
            .to_string()
            .contains("job A"));
        c.submit("A", 1, 1, 1.0, 1.0, 0.0).unwrap();
        assert!(c.submit("A", 1, 1, 1.0, 1.0, 0.0).is_err());
        c.task_started("A", 9, SlotKind::Map, 0.0).unwrap();
        let err = c.task_started("A", 10, SlotKind::Map, 0.0).unwrap_err();
        assert!(err.to_string().contains("task 10"), "{err}");
        assert!(c
            .task_finished("A", 11, 1.0)
            .unwrap_err()
            .to_string()
            .contains("task 11"));
        assert!(matches!(
            c.task_finished("Z", 9, 1.0),
            Err(FreshError::UnknownJob(_))
        ));
        c.task_finished("A", 9, 1.0).unwrap();
        assert!(c.task_finished("A", 9, 1.0).is_err());
    }

    #[test]
    fn task_counts_learned_from_asks_can_grow_but_not_below_started_tasks() {
        let mut c = conf(4, 1);
        c.submit("A", 1, 0, 1.0, 1.0, 0.0).unwrap();
        c.task_started("A", 1, SlotKind::Map, 0.0).unwrap();
        c.set_task_counts("A", 3, 2, 0.0).unwrap();
        assert_eq!(c.remaining_workload("A"), Some((3.0, 2.0)));
        assert!(c
            .set_task_counts("A", 0, 2, 0.0)
            .unwrap_err()
            .to_string()
            .contains("job A"));
        c.task_started("A", 2, SlotKind::Map, 0.0).unwrap();
        c.task_started("A", 3, SlotKind::Map, 0.0).unwrap();
        for t in 1..=3 {
            c.task_finished("A", t, 1.0).unwrap();
        }
        assert_eq!(c.phase("A"), Some(JobPhase::Reduce));
        assert!(c.set_task_counts("A", 4, 2, 1.0).is_err());
        // A job whose reduces turn out to be none is done once its maps are.
        c.set_task_counts("A", 3, 0, 1.0).unwrap();
        assert_eq!(c.phase("A"), Some(JobPhase::Done));
    }

    #[test]
    fn task_times_are_learned_from_finished_tasks() {
        let mut c = conf(4, 1);
        c.submit("A", 4, 2, 10.0, 20.0, 0.0).unwrap();
        assert_eq!(c.remaining_workload("A"), Some((40.0, 40.0)));
        c.task_started("A", 1, SlotKind::Map, 0.0).unwrap();
        c.task_started("A", 2, SlotKind::Map, 0.0).unwrap();
        c.task_finished("A", 1, 3.0).unwrap();
        c.task_finished("A", 2, 5.0).unwrap();
        assert_eq!(c.avg_task_secs("A"), Some((4.0, 20.0)));
        // n'_m = 2 maps left at t̄_m = 4.
        assert_eq!(c.remaining_workload("A"), Some((8.0, 40.0)));
        assert!(close(c.rw_m(), 8.0));
        assert!(close(c.rw_r(), 0.0));
    }

    #[test]
    fn cal_exp_sm_returns_theta_cur_times_s_below_tau1() {
        let mut c = conf(10, 2);
        c.submit("A", 10, 10, 1.0, 1.0, 0.0).unwrap();
        c.submit("B", 20, 2, 1.0, 1.0, 0.0).unwrap();
        for t in 0..5 {
            c.task_started("A", t, SlotKind::Map, 0.0).unwrap();
        }
        for t in 0..4 {
            c.task_finished("A", t, 1.0).unwrap();
        }
        // A: 6 maps left, progress 0.4 < τ1; RW_m = 6 + 20, RW_r = 0.
        let tr = c.cal_exp_sm();
        assert_eq!(tr.job_a.as_deref(), Some("A"));
        assert!(close(tr.progress_a.unwrap(), 0.4));
        assert!(tr.theta_exp.is_none());
        assert!(close(tr.expected_map_slots, 10.0));
        assert_eq!(c.configure_free_slot(), SlotKind::Map);
    }

    /// A (2 maps, 20 reduces) is in R with 5 reduces running (t̄_r = 2 s); B (10 maps, 10 reduces)
    /// is in M with 8 maps done and 2 running; C (10 maps, 1 reduce) waits in J. k = 1, S = 10.
    fn near_map_end() -> DynamicSlotConfigurator {
        let mut c = conf(10, 1);
        c.submit("A", 2, 20, 1.0, 2.0, 0.0).unwrap();
        c.submit("B", 10, 10, 1.0, 1.0, 0.0).unwrap();
        c.submit("C", 10, 1, 1.0, 1.0, 0.0).unwrap();
        c.task_started("A", 0, SlotKind::Map, 0.0).unwrap();
        c.task_started("A", 1, SlotKind::Map, 0.0).unwrap();
        c.task_finished("A", 0, 1.0).unwrap();
        c.task_finished("A", 1, 1.0).unwrap();
        assert_eq!(c.map_set(), ["B"]);
        for t in 10..15 {
            c.task_started("A", t, SlotKind::Reduce, 1.0).unwrap();
        }
        for t in 20..25 {
            c.task_started("B", t, SlotKind::Map, 1.0).unwrap();
        }
        for t in 20..25 {
            c.task_finished("B", t, 2.0).unwrap();
        }
        for t in 25..28 {
            c.task_started("B", t, SlotKind::Map, 2.0).unwrap();
        }
        for t in 25..28 {
            c.task_finished("B", t, 3.0).unwrap();
        }
        for t in 10..15 {
            c.task_finished("A", t, 3.0).unwrap();
        }
        for t in 15..20 {
            c.task_started("A", t, SlotKind::Reduce, 3.0).unwrap();
        }
        c.task_started("B", 28, SlotKind::Map, 3.0).unwrap();
        c.task_started("B", 29, SlotKind::Map, 3.0).unwrap();
        c
    }

    #[test]
    fn cal_exp_sm_keeps_theta_cur_when_the_predicted_ratio_is_close() {
        let c = near_map_end();
        // RW_m = 2·1, RW_r = 15·2 → θ_cur = 2/32. RW'_m = 2 − 2·1 + 10, RW'_r = 30 + 10 → θ_exp = 0.2.
        // r = 1/(5/2) = 0.4, c = 0.0625/0.8, η = (√(4 + 4c·2) − 2)/(2c·0.4) ≈ 2.4093,
        // s'_m = 2 + θ_cur·η ≈ 2.1506 → |0.21506 − 0.2|/0.2 ≈ 0.075 ≤ τ2.
        let tr = c.cal_exp_sm();
        assert_eq!(tr.job_a.as_deref(), Some("B"));
        assert!(close(tr.theta_cur, 0.0625));
        assert!(close(tr.theta_exp.unwrap(), 0.2));
        assert!(close(c.reduce_completion_interval().unwrap(), 0.4));
        let cc = 0.0625 / 0.8;
        let eta = ((4.0f64 + 4.0 * cc * 2.0).sqrt() - 2.0) / (2.0 * cc * 0.4);
        assert!(close(tr.eta.unwrap(), eta));
        assert!((eta - 2.4093).abs() < 1e-4);
        assert!(close(tr.predicted_map_slots.unwrap(), 2.0 + 0.0625 * eta));
        assert!(!tr.used_expected);
        assert!(close(tr.expected_map_slots, 0.625));
        // 0.625 expected map slots, 2 busy: the freed slot serves reduces.
        assert_eq!(c.configure_free_slot(), SlotKind::Reduce);
    }

    #[test]
    fn cal_exp_sm_switches_to_theta_exp_before_a_sudden_reduce_surge() {
        // A alone in M (k = 1) with 16 of 20 maps done and 4 running; its 40 reduces are about
        // to arrive while B (10 maps) waits. θ_cur = 1 would keep every freed slot a map slot.
        let mut c = conf(10, 1);
        c.submit("A", 20, 40, 1.0, 1.0, 0.0).unwrap();
        c.submit("B", 10, 1, 1.0, 1.0, 0.0).unwrap();
        for t in 0..10 {
            c.task_started("A", t, SlotKind::Map, 0.0).unwrap();
        }
        for t in 0..10 {
            c.task_finished("A", t, 1.0).unwrap();
        }
        for t in 10..20 {
            c.task_started("A", t, SlotKind::Map, 1.0).unwrap();
        }
        for t in 10..16 {
            c.task_finished("A", t, 2.0).unwrap();
        }
        let tr = c.cal_exp_sm();
        // RW'_m = 4 − 4 + 10, RW'_r = 0 + 40 → θ_exp = 0.2; no reduce runs → η = 0, s'_m = 4;
        // |0.4 − 0.2| / 0.2 = 1 > τ2.
        assert!(close(tr.theta_cur, 1.0));
        assert!(close(tr.progress_a.unwrap(), 0.8));
        assert!(close(tr.theta_exp.unwrap(), 0.2));
        assert_eq!(tr.eta, Some(0.0));
        assert!(tr.used_expected);
        assert!(close(tr.expected_map_slots, 2.0));
        assert_eq!(c.configure_free_slot(), SlotKind::Reduce);
        // With a laxer τ2 the same state keeps θ_cur.
        let mut lax = c.clone();
        lax.params.tau2 = 1.5;
        assert!(close(lax.expected_map_slots(), 10.0));
        assert_eq!(lax.configure_free_slot(), SlotKind::Map);
    }

    #[test]
    fn one_heartbeat_with_several_free_slots_splits_them_by_exp_sm() {
        let mut c = conf(4, 1);
        c.submit("A", 2, 4, 1.0, 1.0, 0.0).unwrap();
        c.submit("B", 10, 1, 1.0, 1.0, 0.0).unwrap();
        for t in 0..2 {
            c.task_started("A", t, SlotKind::Map, 0.0).unwrap();
        }
        for t in 0..2 {
            c.task_finished("A", t, 1.0).unwrap();
        }
        // RW_m = 10 (B), RW_r = 4 (A) → expSm = 4 · 10/14 ≈ 2.86: three map slots, then reduce.
        assert!(close(c.expected_map_slots(), 40.0 / 14.0));
        let plan = c.plan_free_slots(4, 1.0);
        let kinds: Vec<(SlotKind, &str)> = plan.iter().map(|(k, j)| (*k, j.as_str())).collect();
        use SlotKind::{Map, Reduce};
        assert_eq!(
            kinds,
            vec![(Map, "B"), (Map, "B"), (Map, "B"), (Reduce, "A")]
        );
        // Planning recorded nothing.
        assert_eq!(c.busy_slots(), (0, 0));
    }

    #[test]
    fn algorithm4_picks_the_job_with_the_least_resource_consumption() {
        let mut c = conf(8, 3);
        c.submit("A", 10, 1, 1.0, 1.0, 0.0).unwrap();
        c.submit("B", 10, 1, 1.0, 1.0, 0.0).unwrap();
        c.submit("C", 1, 1, 1.0, 1.0, 5.0).unwrap();
        // A: 3 running since 0; B: 1 running since 2; C: admitted at 5, 1 running since 5.
        for t in 0..3 {
            c.task_started("A", t, SlotKind::Map, 0.0).unwrap();
        }
        c.task_started("B", 10, SlotKind::Map, 2.0).unwrap();
        c.task_started("C", 20, SlotKind::Map, 5.0).unwrap();
        // now = 10: r_A = 30/10, r_B = 8/10, r_C = 5/5.
        assert!(close(c.resource_consumption("A", 10.0).unwrap(), 3.0));
        assert!(close(c.resource_consumption("B", 10.0).unwrap(), 0.8));
        assert!(close(c.resource_consumption("C", 10.0).unwrap(), 1.0));
        assert_eq!(c.choose_job(SlotKind::Map, 10.0).as_deref(), Some("B"));
        // C has no map left to start, so it is never chosen even when its r is least.
        assert_eq!(c.choose_job(SlotKind::Map, 5.0).as_deref(), Some("B"));
        assert_eq!(c.choose_job(SlotKind::Reduce, 10.0), None);
        let f = c.overall_fairness(10.0).unwrap();
        assert!(close(f, (4.8f64).powi(2) / (3.0 * (9.0 + 0.64 + 1.0))));
    }

    /// Runs a batch on `s` slots; every freed slot asks FRESH (Algorithms 2-4) what to run.
    /// Task times are exact per job. Returns (makespan, per-job finish, per-job busy seconds).
    fn run_dynamic(jobs: &[(u32, u32, f64, f64)], s: u32, k: u32) -> (f64, Vec<f64>, Vec<f64>) {
        let mut c = conf(s, k);
        let names: Vec<String> = (0..jobs.len()).map(|i| format!("J{}", i + 1)).collect();
        for (i, j) in jobs.iter().enumerate() {
            c.submit(&names[i], j.0, j.1, j.2, j.3, 0.0).unwrap();
        }
        let mut running: Vec<(f64, usize, u64)> = vec![];
        let mut free = s;
        let mut now = 0.0;
        let mut next_id = 0u64;
        let mut finish = vec![0.0; jobs.len()];
        let mut busy = vec![0.0; jobs.len()];
        loop {
            while free > 0 {
                let Some((kind, job)) = c.next_assignment(now) else {
                    break;
                };
                let i = names.iter().position(|n| *n == job).unwrap();
                c.task_started(&job, next_id, kind, now).unwrap();
                let d = if kind == SlotKind::Map {
                    jobs[i].2
                } else {
                    jobs[i].3
                };
                running.push((now + d, i, next_id));
                busy[i] += d;
                next_id += 1;
                free -= 1;
                assert!(c.map_set().len() <= k as usize && c.reduce_set().len() <= k as usize);
            }
            if running.is_empty() {
                break;
            }
            running.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (t, i, id) = running.remove(0);
            now = t;
            c.task_finished(&names[i], id, now).unwrap();
            free += 1;
            finish[i] = now;
        }
        for n in &names {
            assert_eq!(c.phase(n), Some(JobPhase::Done), "{n} never finished");
        }
        (now, finish, busy)
    }

    #[test]
    fn dynamic_configuration_beats_per_phase_fair_sharing_on_the_papers_example() {
        let jobs = [(2, 9, 1.0, 1.0), (3, 4, 1.0, 1.0), (7, 3, 1.0, 1.0)];
        let fair = simulate_phase_fair(&[(2, 9), (3, 4), (7, 3)], 4, 4).unwrap();
        let (makespan, _, busy) = run_dynamic(&jobs, 8, 3);
        // 28 unit tasks on 8 slots cannot end before 4; fixed 4 + 4 slots need 5.
        assert_eq!(fair.makespan, 5);
        assert_eq!(makespan, 4.0);
        assert_eq!(busy, vec![11.0, 7.0, 10.0]);
        // k = 1 serialises the jobs: never more than one per phase, and still all finish.
        let (serial, _, _) = run_dynamic(&jobs, 8, 1);
        assert!(serial >= makespan);
    }

    /// The baseline FRESH is measured against: fixed `s_m` map and `s_r` reduce slots, each freed
    /// slot going to the job of its phase with the fewest running tasks (FAIR SCHEDULER), the same
    /// admission control. Returns the makespan.
    fn run_static_fair(jobs: &[(u32, u32, f64, f64)], s_m: u32, s_r: u32, k: u32) -> f64 {
        let mut c = conf(s_m + s_r, k);
        let names: Vec<String> = (0..jobs.len()).map(|i| format!("J{}", i + 1)).collect();
        for (i, j) in jobs.iter().enumerate() {
            c.submit(&names[i], j.0, j.1, j.2, j.3, 0.0).unwrap();
        }
        let mut running: Vec<(f64, usize, u64, SlotKind)> = vec![];
        let mut free = [s_m, s_r];
        let mut now = 0.0;
        let mut next_id = 0u64;
        loop {
            for (slot, kind) in [(0, SlotKind::Map), (1, SlotKind::Reduce)] {
                while free[slot] > 0 {
                    let set = if kind == SlotKind::Map {
                        c.map_set().to_vec()
                    } else {
                        c.reduce_set().to_vec()
                    };
                    let pick = set
                        .iter()
                        .filter(|id| c.jobs[*id].unscheduled(kind) > 0)
                        .min_by_key(|id| {
                            if kind == SlotKind::Map {
                                c.jobs[*id].running_maps
                            } else {
                                c.jobs[*id].running_reduces
                            }
                        })
                        .cloned();
                    let Some(job) = pick else { break };
                    let i = names.iter().position(|n| *n == job).unwrap();
                    c.task_started(&job, next_id, kind, now).unwrap();
                    let d = if kind == SlotKind::Map {
                        jobs[i].2
                    } else {
                        jobs[i].3
                    };
                    running.push((now + d, i, next_id, kind));
                    next_id += 1;
                    free[slot] -= 1;
                }
            }
            if running.is_empty() {
                break;
            }
            running.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (t, i, id, kind) = running.remove(0);
            now = t;
            c.task_finished(&names[i], id, now).unwrap();
            free[if kind == SlotKind::Map { 0 } else { 1 }] += 1;
        }
        for n in &names {
            assert_eq!(c.phase(n), Some(JobPhase::Done), "{n} never finished");
        }
        now
    }

    #[test]
    fn dynamic_configuration_beats_every_static_fair_split_on_mixed_batches() {
        // Map-heavy and reduce-heavy jobs alternating (the paper's Sets D/E in miniature).
        let batches: [&[(u32, u32, f64, f64)]; 2] = [
            &[
                (20, 2, 2.0, 1.0),
                (4, 30, 1.0, 3.0),
                (20, 2, 2.0, 1.0),
                (4, 30, 1.0, 3.0),
            ],
            &[
                (40, 4, 2.0, 2.0),
                (40, 4, 2.0, 2.0),
                (40, 4, 2.0, 2.0),
                (8, 40, 1.0, 2.0),
                (8, 40, 1.0, 2.0),
                (8, 40, 1.0, 2.0),
            ],
        ];
        for (b, batch) in batches.iter().enumerate() {
            for k in 1..=3 {
                let (dynamic, _, _) = run_dynamic(batch, 8, k);
                let best_static = (1..8)
                    .map(|sm| run_static_fair(batch, sm, 8 - sm, k))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    dynamic < best_static,
                    "batch {b} k={k}: FRESH {dynamic} vs best static Fair {best_static}"
                );
            }
        }
    }
}
