//! MROSA (Mao, Li, Yan, Du: "Optimal Scheduling Algorithm of MapReduce Tasks Based on QoS in the
//! Hybrid Cloud"): jobs carry a deadline `D_i` and a budget `C_i`; they are served in the order of
//! eq. 8, each job's tasks go to private containers by an improved Max-Min (Algorithm I) as long
//! as they finish before the deadline, and the rest go to the cheapest public instance type that
//! still meets it (Algorithm II), or the job is rejected.
//!
//! Units: workloads in million instructions (MI), speeds in MI/s (MIPS), data in MB, bandwidth in
//! MB/s, times in seconds from "now", money in dollars. [`Mrosa`] keeps the private containers'
//! ready times (`Rft_j`) between heartbeats. See `docs/design/papers-mrosa.md` for the YARN mapping and
//! every departure from the paper.
//!
//! Files: this one is the algorithm; `yarn` the adapter to the job-policy layer; `speed` the
//! adapter's merge of the nodes' ready rooms, checked against sorting them all.

mod speed;
pub mod yarn;

use serde::{Deserialize, Serialize};
use std::fmt;

/// The weight `ρ` of the budget against the deadline in eq. 8. The paper gives no value.
pub const DEFAULT_RHO: f64 = 0.5;
/// `T_init` of Algorithm II: seconds until a requested public instance can run a task. The paper
/// gives no value; 30 s is a typical VM boot.
pub const DEFAULT_INIT_SECS: f64 = 30.0;

/// Every input MROSA refuses, naming the job, task, container or parameter at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum MrosaError {
    Parameter { name: &'static str, message: String },
    Job { job: String, message: String },
    Container { container: String, message: String },
    Instance { instance: String, message: String },
}

impl fmt::Display for MrosaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MrosaError::Parameter { name, message } => {
                write!(f, "MROSA parameter {name}: {message}")
            }
            MrosaError::Job { job, message } => write!(f, "MROSA job {job}: {message}"),
            MrosaError::Container { container, message } => {
                write!(f, "MROSA private container {container}: {message}")
            }
            MrosaError::Instance { instance, message } => {
                write!(f, "MROSA public instance type {instance}: {message}")
            }
        }
    }
}

impl std::error::Error for MrosaError {}

fn non_negative(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// A machine's `Mips_j` and `Band_j` (an instance type or a private container): eqs. 2-4
/// divide by them, so each must be positive; `bad` names the machine.
fn check_speeds(
    mips: f64,
    band_mb_s: f64,
    bad: impl Fn(String) -> MrosaError,
) -> Result<(), MrosaError> {
    if !positive(mips) {
        return Err(bad(format!("MIPS must be positive, got {mips}")));
    }
    if !positive(band_mb_s) {
        return Err(bad(format!(
            "bandwidth must be positive, got {band_mb_s} MB/s"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Jobs and tasks (Section III-B-1)
// ---------------------------------------------------------------------------------------------

/// `m_ik = {mW_ik, mD_ik}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MapTask {
    /// `mW_ik`, MI.
    pub workload_mi: f64,
    /// `mD_ik`, MB.
    pub input_mb: f64,
}

/// `r_ik = {rW_ik, rD_ik}`, with what eqs. 1, 3 and 5 need to derive `rD_ik` and its transfer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReduceTask {
    /// `rW_ik`, MI.
    pub workload_mi: f64,
    /// `Σ_{u=1}^{γ} mD_iu`: the input of the maps whose output this reduce fetches, MB.
    pub map_input_mb: f64,
    /// `γ`: how many maps feed it.
    pub maps_fed: u32,
    /// `t_s`: its sort phase, seconds.
    pub sort_secs: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Map,
    Reduce,
}

/// A task of a job: `index` into its `maps` or `reduces`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TaskRef {
    pub kind: TaskKind,
    pub index: usize,
}

impl TaskRef {
    pub fn map(index: usize) -> Self {
        TaskRef {
            kind: TaskKind::Map,
            index,
        }
    }
    pub fn reduce(index: usize) -> Self {
        TaskRef {
            kind: TaskKind::Reduce,
            index,
        }
    }
}

/// `J_i` with its QoS constraints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MrosaJob {
    pub job: String,
    pub maps: Vec<MapTask>,
    pub reduces: Vec<ReduceTask>,
    /// `f` of eq. 1: map output size over map input size.
    pub output_ratio: f64,
    /// `D_i`: seconds from now.
    pub deadline_secs: f64,
    /// `C_i`: dollars; `None` = no budget (eq. 8's cost term is then 0 and Algorithm II never
    /// reports the budget as exceeded).
    pub budget: Option<f64>,
}

/// Eq. 8 from a job's total data (`Σ mD + Σ rD`, MB), `D_i` and `C_i`: lets a caller whose tasks
/// are all alike rank a job from its task counts without listing every task.
pub fn priority_of(total_data_mb: f64, deadline_secs: f64, budget: Option<f64>, rho: f64) -> f64 {
    let cost_term = budget.map_or(0.0, |c| rho / c);
    total_data_mb * (cost_term + (1.0 - rho) / deadline_secs)
}

impl MrosaJob {
    /// Eq. 1: `rD_ik = f · Σ_{u=1}^{w} mD_iu`.
    pub fn reduce_input_mb(&self, r: &ReduceTask) -> f64 {
        self.output_ratio * r.map_input_mb
    }

    /// `Σ_k mD_ik + Σ_k rD_ik`.
    pub fn total_data_mb(&self) -> f64 {
        self.maps.iter().map(|m| m.input_mb).sum::<f64>()
            + self
                .reduces
                .iter()
                .map(|r| self.reduce_input_mb(r))
                .sum::<f64>()
    }

    /// Eq. 8: `priority_i = (Σ mD_ik + Σ rD_ik) · (ρ/C_i + (1−ρ)/D_i)`; larger is served first.
    pub fn priority(&self, rho: f64) -> f64 {
        priority_of(self.total_data_mb(), self.deadline_secs, self.budget, rho)
    }

    fn err(&self, message: impl Into<String>) -> MrosaError {
        MrosaError::Job {
            job: self.job.clone(),
            message: message.into(),
        }
    }

    pub fn validate(&self) -> Result<(), MrosaError> {
        if !positive(self.deadline_secs) {
            return Err(self.err(format!(
                "deadline must be a positive number of seconds, got {}",
                self.deadline_secs
            )));
        }
        if let Some(c) = self.budget {
            if !positive(c) {
                return Err(self.err(format!("budget must be a positive amount, got {c}")));
            }
        }
        if !positive(self.output_ratio) {
            return Err(self.err(format!(
                "map output ratio f must be positive, got {}",
                self.output_ratio
            )));
        }
        for (k, m) in self.maps.iter().enumerate() {
            if !non_negative(m.workload_mi) || !non_negative(m.input_mb) {
                return Err(self.err(format!(
                    "map {k} has workload {} MI and input {} MB; both must be >= 0",
                    m.workload_mi, m.input_mb
                )));
            }
        }
        for (k, r) in self.reduces.iter().enumerate() {
            if !non_negative(r.workload_mi)
                || !non_negative(r.map_input_mb)
                || !non_negative(r.sort_secs)
            {
                return Err(self.err(format!(
                    "reduce {k} has a negative or non-finite workload, input or sort time"
                )));
            }
            if r.maps_fed == 0 && r.map_input_mb > 0.0 {
                return Err(self.err(format!(
                    "reduce {k} fetches {} MB from zero maps (γ must be >= 1)",
                    r.map_input_mb
                )));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Estimates (eqs. 2-7)
// ---------------------------------------------------------------------------------------------

/// Eq. 2: `mDtt = mD_ik / Band_j`.
pub fn map_transfer_secs(task: &MapTask, band_mb_s: f64) -> f64 {
    task.input_mb / band_mb_s
}

/// Eq. 3: `rDtt_ik = f · Σ_{u=1}^{γ} mD_iu / (γ · Band_j)`.
pub fn reduce_transfer_secs(task: &ReduceTask, output_ratio: f64, band_mb_s: f64) -> f64 {
    if task.maps_fed == 0 {
        return 0.0;
    }
    output_ratio * task.map_input_mb / (task.maps_fed as f64 * band_mb_s)
}

/// Eq. 4: `mEEt[i,k,j] = mW_ik / Mips_j + mD_ik / Band_j`.
pub fn map_eet(task: &MapTask, mips: f64, band_mb_s: f64) -> f64 {
    task.workload_mi / mips + map_transfer_secs(task, band_mb_s)
}

/// Eq. 5: `rEEt[i,k,j] = rW_ik / Mips_j + rDtt_ik + t_s`.
pub fn reduce_eet(task: &ReduceTask, output_ratio: f64, mips: f64, band_mb_s: f64) -> f64 {
    task.workload_mi / mips + reduce_transfer_secs(task, output_ratio, band_mb_s) + task.sort_secs
}

/// A public cloud instance type (`Container_j` of Section III-B-2 without `Rft_j`: a fresh
/// instance is created per task).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceType {
    pub provider: String,
    pub name: String,
    pub cores: u32,
    pub ram_gb: f64,
    /// `Mips_j`.
    pub mips: f64,
    /// `Band_j`, MB/s.
    pub band_mb_s: f64,
    /// The list price, $/s (TABLE IV).
    pub price_per_sec: f64,
    /// `Stg_j`, $/MB (0 when a catalog leaves it out).
    #[serde(default)]
    pub storage_per_mb: f64,
    /// `Cin_j`, $/MB (0 when a catalog leaves it out).
    #[serde(default)]
    pub transfer_in_per_mb: f64,
    /// `Cout_j`, $/MB (0 when a catalog leaves it out).
    #[serde(default)]
    pub transfer_out_per_mb: f64,
}

impl InstanceType {
    /// `Cost_j` of eqs. 6-7 per MI: the per-second price over the speed, so that
    /// `Cost_j · mW_ik` is the price of the seconds the task computes.
    pub fn cost_per_mi(&self) -> f64 {
        self.price_per_sec / self.mips
    }

    fn validate(&self) -> Result<(), MrosaError> {
        let bad = |m: String| MrosaError::Instance {
            instance: self.name.clone(),
            message: m,
        };
        check_speeds(self.mips, self.band_mb_s, bad)?;
        for (what, v) in [
            ("price", self.price_per_sec),
            ("storage cost", self.storage_per_mb),
            ("transfer-in cost", self.transfer_in_per_mb),
            ("transfer-out cost", self.transfer_out_per_mb),
        ] {
            if !non_negative(v) {
                return Err(bad(format!("{what} must be >= 0, got {v}")));
            }
        }
        Ok(())
    }
}

/// Eq. 6: `mCostF = Cost_j · mW_ik + Stg_j · mD_ik + mD_ik · (Cin_j + Cout_j)`.
pub fn map_cost(task: &MapTask, it: &InstanceType) -> f64 {
    it.cost_per_mi() * task.workload_mi
        + it.storage_per_mb * task.input_mb
        + task.input_mb * (it.transfer_in_per_mb + it.transfer_out_per_mb)
}

/// Eq. 7: `rCostF = Cost_j · rW_ik + Stg_j · rD_ik + rD_ik · (Cin_j + Cout_j)`.
pub fn reduce_cost(task: &ReduceTask, output_ratio: f64, it: &InstanceType) -> f64 {
    let rd = output_ratio * task.map_input_mb;
    it.cost_per_mi() * task.workload_mi
        + it.storage_per_mb * rd
        + rd * (it.transfer_in_per_mb + it.transfer_out_per_mb)
}

/// The paper's TABLE IV. MIPS is not in the table: we take one instruction per cycle per core
/// (`cores · GHz · 1000`); bandwidth Mbps / 8 = MB/s; prices ×10⁻⁶ $/s. Storage and transfer
/// prices are not given, so they are 0.
pub fn table_iv() -> Vec<InstanceType> {
    let rows: [(&str, &str, u32, f64, f64, f64, f64); 9] = [
        ("Microsoft Azure", "azure-2c", 2, 3.5, 10.0, 2.6, 28.0),
        ("Microsoft Azure", "azure-4c", 4, 7.0, 20.0, 2.6, 73.0),
        ("Microsoft Azure", "azure-8c", 8, 14.0, 30.0, 2.6, 228.0),
        ("Amazon EC2", "ec2-2c", 2, 8.0, 10.0, 2.4, 27.0),
        ("Amazon EC2", "ec2-4c", 4, 16.0, 30.0, 2.4, 65.0),
        ("Amazon EC2", "ec2-8c", 8, 32.0, 40.0, 2.4, 248.0),
        ("Ali Cloud", "ali-1c", 1, 1.0, 10.0, 2.6, 29.0),
        ("Ali Cloud", "ali-4c", 4, 8.0, 20.0, 2.6, 89.0),
        ("Ali Cloud", "ali-8c", 8, 16.0, 50.0, 2.6, 235.0),
    ];
    rows.iter()
        .map(
            |&(provider, name, cores, ram_gb, mbps, ghz, micro_dollars)| InstanceType {
                provider: provider.to_string(),
                name: name.to_string(),
                cores,
                ram_gb,
                mips: cores as f64 * ghz * 1000.0,
                band_mb_s: mbps / 8.0,
                price_per_sec: micro_dollars * 1e-6,
                storage_per_mb: 0.0,
                transfer_in_per_mb: 0.0,
                transfer_out_per_mb: 0.0,
            },
        )
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Algorithm I: private cloud scheduling
// ---------------------------------------------------------------------------------------------

/// A private container (APR): a YARN node's slot of the job's task size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrivateContainer {
    pub id: String,
    /// `Mips_j`.
    pub mips: f64,
    /// `Band_j`, MB/s.
    pub band_mb_s: f64,
    /// `Rft_j`: seconds from now until it is free.
    pub ready_in: f64,
}

impl PrivateContainer {
    pub fn new(id: impl Into<String>, mips: f64, band_mb_s: f64) -> Self {
        PrivateContainer {
            id: id.into(),
            mips,
            band_mb_s,
            ready_in: 0.0,
        }
    }

    fn validate(&self) -> Result<(), MrosaError> {
        let bad = |m: String| MrosaError::Container {
            container: self.id.clone(),
            message: m,
        };
        check_speeds(self.mips, self.band_mb_s, bad)?;
        if !non_negative(self.ready_in) {
            return Err(bad(format!(
                "ready time must be >= 0 s, got {}",
                self.ready_in
            )));
        }
        Ok(())
    }
}

/// A task placed on a private container, `start..finish` seconds from now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub task: TaskRef,
    pub container: String,
    pub start: f64,
    pub finish: f64,
}

/// Algorithm I's `⟨R_i, PRP_i⟩`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PrivatePlan {
    /// `R_i`.
    pub placements: Vec<Placement>,
    /// `PRP_i`: tasks that would miss the deadline on every private container.
    pub to_public: Vec<TaskRef>,
}

/// Line 2's order within one job: maps before reduces (a reduce consumes the maps' output), each
/// largest workload first (the "Max" of Max-Min); equal tasks keep their index order.
fn task_order(job: &MrosaJob) -> Vec<TaskRef> {
    let mut maps: Vec<usize> = (0..job.maps.len()).collect();
    maps.sort_by(|&a, &b| job.maps[b].workload_mi.total_cmp(&job.maps[a].workload_mi));
    let mut reduces: Vec<usize> = (0..job.reduces.len()).collect();
    reduces.sort_by(|&a, &b| {
        job.reduces[b]
            .workload_mi
            .total_cmp(&job.reduces[a].workload_mi)
    });
    maps.into_iter()
        .map(TaskRef::map)
        .chain(reduces.into_iter().map(TaskRef::reduce))
        .collect()
}

fn private_eet(job: &MrosaJob, task: TaskRef, c: &PrivateContainer) -> f64 {
    match task.kind {
        TaskKind::Map => map_eet(&job.maps[task.index], c.mips, c.band_mb_s),
        TaskKind::Reduce => reduce_eet(
            &job.reduces[task.index],
            job.output_ratio,
            c.mips,
            c.band_mb_s,
        ),
    }
}

/// Algorithm I on `containers` (their `ready_in` is updated for every placed task).
pub fn schedule_private(job: &MrosaJob, containers: &mut [PrivateContainer]) -> PrivatePlan {
    let mut plan = PrivatePlan::default();
    for task in task_order(job) {
        // Lines 4-17: the container where the task would finish first.
        let mut best: Option<(usize, f64)> = None;
        // Containers of one speed give the task one EET: computed again only when the speed
        // changes (a private cloud usually has one), which was most of a 1,024 × 1,024 plan.
        let mut eet: Option<((u64, u64), f64)> = None;
        for (j, c) in containers.iter().enumerate() {
            let speed = (c.mips.to_bits(), c.band_mb_s.to_bits());
            let e = match eet {
                Some((s, e)) if s == speed => e,
                _ => {
                    let e = private_eet(job, task, c);
                    eet = Some((speed, e));
                    e
                }
            };
            let fit = e + c.ready_in;
            if best.is_none_or(|(_, b)| fit < b) {
                best = Some((j, fit));
            }
        }
        match best {
            // Lines 18-22: keep it private only if it still meets D_i.
            Some((j, fit)) if fit <= job.deadline_secs => {
                let c = &mut containers[j];
                plan.placements.push(Placement {
                    task,
                    container: c.id.clone(),
                    start: c.ready_in,
                    finish: fit,
                });
                c.ready_in = fit;
            }
            // Line 20: Rft_j stays as it was (tmp).
            _ => plan.to_public.push(task),
        }
    }
    plan
}

// ---------------------------------------------------------------------------------------------
// Algorithm II: public cloud scheduling
// ---------------------------------------------------------------------------------------------

/// A task placed on a new public instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublicPlacement {
    pub task: TaskRef,
    pub instance_type: String,
    /// `T_task`, seconds after the instance is up.
    pub secs: f64,
    /// eq. 6 or 7.
    pub cost: f64,
}

/// Scale-out advice: request `count` instances of `instance_type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleOut {
    pub provider: String,
    pub instance_type: String,
    pub count: u32,
    pub estimated_cost: f64,
}

/// Algorithm II's answer for one job's `PRP_i`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PublicDecision {
    /// Lines 13-15 for every task, then lines 20-24: `within_budget` is `SumCost < C_i`.
    Placed {
        placements: Vec<PublicPlacement>,
        scale_out: Vec<ScaleOut>,
        total_cost: f64,
        within_budget: bool,
    },
    /// Line 17: no instance type runs `task` with `T_task + T_init < D_i`; the job cannot meet its
    /// deadline. `fastest_secs` is the best `T_task + T_init` on offer.
    Rejected { task: TaskRef, fastest_secs: f64 },
}

/// Algorithm II: for each task of `to_public`, the lowest-cost instance type (eq. 6/7) among those
/// with `T_task + T_init < D_i` (eq. 4/5); the first cheaper-or-equal type in `catalog` order wins
/// a tie. A task reference outside the job is refused.
pub fn schedule_public(
    job: &MrosaJob,
    to_public: &[TaskRef],
    catalog: &[InstanceType],
    init_secs: f64,
) -> Result<PublicDecision, MrosaError> {
    for t in to_public {
        let n = match t.kind {
            TaskKind::Map => job.maps.len(),
            TaskKind::Reduce => job.reduces.len(),
        };
        if t.index >= n {
            return Err(job.err(format!("has no {:?} task {} (it has {n})", t.kind, t.index)));
        }
    }
    let mut placements = Vec::new();
    let mut sum_cost = 0.0;
    for &task in to_public {
        let mut best: Option<(usize, f64, f64)> = None;
        let mut fastest = f64::INFINITY;
        for (j, it) in catalog.iter().enumerate() {
            // Lines 4-10.
            let (cost, secs) = match task.kind {
                TaskKind::Map => {
                    let m = &job.maps[task.index];
                    (map_cost(m, it), map_eet(m, it.mips, it.band_mb_s))
                }
                TaskKind::Reduce => {
                    let r = &job.reduces[task.index];
                    (
                        reduce_cost(r, job.output_ratio, it),
                        reduce_eet(r, job.output_ratio, it.mips, it.band_mb_s),
                    )
                }
            };
            fastest = fastest.min(secs + init_secs);
            // Line 12.
            if secs + init_secs < job.deadline_secs && best.is_none_or(|(_, c, _)| cost < c) {
                best = Some((j, cost, secs));
            }
        }
        match best {
            Some((j, cost, secs)) => {
                sum_cost += cost;
                placements.push(PublicPlacement {
                    task,
                    instance_type: catalog[j].name.clone(),
                    secs,
                    cost,
                });
            }
            None => {
                return Ok(PublicDecision::Rejected {
                    task,
                    fastest_secs: fastest,
                })
            }
        }
    }
    let mut scale_out: Vec<ScaleOut> = Vec::new();
    for p in &placements {
        match scale_out
            .iter_mut()
            .find(|s| s.instance_type == p.instance_type)
        {
            Some(s) => {
                s.count += 1;
                s.estimated_cost += p.cost;
            }
            None => {
                let provider = catalog
                    .iter()
                    .find(|it| it.name == p.instance_type)
                    .map_or(String::new(), |it| it.provider.clone());
                scale_out.push(ScaleOut {
                    provider,
                    instance_type: p.instance_type.clone(),
                    count: 1,
                    estimated_cost: p.cost,
                });
            }
        }
    }
    let within_budget = job.budget.is_none_or(|c| sum_cost < c);
    Ok(PublicDecision::Placed {
        placements,
        scale_out,
        total_cost: sum_cost,
        within_budget,
    })
}

/// Room for one task on a public instance that is already running (not in the paper, whose
/// Algorithm II creates a new instance per task): `ready_in` seconds until the room is free.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublicSlot {
    pub id: String,
    pub instance: InstanceType,
    pub ready_in: f64,
}

/// A task placed on a running instance's room, `start..finish` seconds from now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunningPlacement {
    pub task: TaskRef,
    pub slot: String,
    pub instance_type: String,
    pub start: f64,
    pub finish: f64,
    /// eq. 6 or 7.
    pub cost: f64,
}

/// Algorithm II over the rooms of running instances: what [`schedule_running`] placed and the
/// tasks no room finishes before `D_i`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunningPlan {
    pub placements: Vec<RunningPlacement>,
    pub unplaced: Vec<TaskRef>,
}

/// Algorithm II on instances that already run, each room taking one task at a time: for each
/// task of `to_public`, the lowest-cost room (eq. 6/7) among those where it ends before `D_i`,
/// with the time until the room is free in the place of `T_init` (`ready_in + T_task < D_i`);
/// equal costs go to the earlier finish, then to the first room. The room's `ready_in` moves to
/// the task's finish, as Algorithm I moves `Rft_j`. A task no room finishes in time is
/// `unplaced` (the caller may ask [`schedule_public`] about new instances for it). A task
/// reference outside the job is refused.
pub fn schedule_running(
    job: &MrosaJob,
    to_public: &[TaskRef],
    slots: &mut [PublicSlot],
) -> Result<RunningPlan, MrosaError> {
    for t in to_public {
        let n = match t.kind {
            TaskKind::Map => job.maps.len(),
            TaskKind::Reduce => job.reduces.len(),
        };
        if t.index >= n {
            return Err(job.err(format!("has no {:?} task {} (it has {n})", t.kind, t.index)));
        }
    }
    for s in slots.iter() {
        s.instance.validate()?;
        if !non_negative(s.ready_in) {
            return Err(MrosaError::Instance {
                instance: s.id.clone(),
                message: format!("ready time must be >= 0 s, got {}", s.ready_in),
            });
        }
    }
    let mut plan = RunningPlan::default();
    for &task in to_public {
        let mut best: Option<(usize, f64, f64)> = None;
        for (j, s) in slots.iter().enumerate() {
            let (cost, secs) = match task.kind {
                TaskKind::Map => {
                    let m = &job.maps[task.index];
                    (
                        map_cost(m, &s.instance),
                        map_eet(m, s.instance.mips, s.instance.band_mb_s),
                    )
                }
                TaskKind::Reduce => {
                    let r = &job.reduces[task.index];
                    (
                        reduce_cost(r, job.output_ratio, &s.instance),
                        reduce_eet(r, job.output_ratio, s.instance.mips, s.instance.band_mb_s),
                    )
                }
            };
            let finish = s.ready_in + secs;
            if finish < job.deadline_secs
                && best.is_none_or(|(_, c, f)| cost < c || (cost == c && finish < f))
            {
                best = Some((j, cost, finish));
            }
        }
        match best {
            Some((j, cost, finish)) => {
                let s = &mut slots[j];
                plan.placements.push(RunningPlacement {
                    task,
                    slot: s.id.clone(),
                    instance_type: s.instance.name.clone(),
                    start: s.ready_in,
                    finish,
                    cost,
                });
                s.ready_in = finish;
            }
            None => plan.unplaced.push(task),
        }
    }
    Ok(plan)
}

// ---------------------------------------------------------------------------------------------
// The whole model (Fig. 1)
// ---------------------------------------------------------------------------------------------

/// One job's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobPlan {
    pub job: String,
    /// Eq. 8.
    pub priority: f64,
    pub private: Vec<Placement>,
    /// `None` when every task fits the private cloud before the deadline.
    pub public: Option<PublicDecision>,
}

impl JobPlan {
    /// The job cannot meet its deadline even with public instances.
    pub fn rejected(&self) -> bool {
        matches!(self.public, Some(PublicDecision::Rejected { .. }))
    }

    /// Scale-out advice, empty when none is needed (or the job was rejected).
    pub fn scale_out(&self) -> &[ScaleOut] {
        match &self.public {
            Some(PublicDecision::Placed { scale_out, .. }) => scale_out,
            _ => &[],
        }
    }
}

/// MROSA's scheduler state: the private containers with their ready times, the public catalog,
/// `ρ` and `T_init`. Call [`Mrosa::elapse`] as time passes and [`Mrosa::plan`] with the waiting jobs.
#[derive(Debug, Clone)]
pub struct Mrosa {
    containers: Vec<PrivateContainer>,
    catalog: Vec<InstanceType>,
    rho: f64,
    init_secs: f64,
}

impl Mrosa {
    pub fn new(
        containers: Vec<PrivateContainer>,
        catalog: Vec<InstanceType>,
        rho: f64,
        init_secs: f64,
    ) -> Result<Self, MrosaError> {
        if !(rho.is_finite() && (0.0..=1.0).contains(&rho)) {
            return Err(MrosaError::Parameter {
                name: "rho",
                message: format!("is a weight in [0, 1], got {rho}"),
            });
        }
        if !non_negative(init_secs) {
            return Err(MrosaError::Parameter {
                name: "init_secs",
                message: format!("must be >= 0 s, got {init_secs}"),
            });
        }
        for c in &containers {
            c.validate()?;
        }
        for it in &catalog {
            it.validate()?;
        }
        Ok(Mrosa {
            containers,
            catalog,
            rho,
            init_secs,
        })
    }

    pub fn containers(&self) -> &[PrivateContainer] {
        &self.containers
    }

    /// `secs` seconds passed: every container is that much closer to free.
    pub fn elapse(&mut self, secs: f64) {
        for c in &mut self.containers {
            c.ready_in = (c.ready_in - secs).max(0.0);
        }
    }

    /// A container's real ready time became known (a task finished early or late).
    pub fn set_ready_in(&mut self, container: &str, secs: f64) -> Result<(), MrosaError> {
        if !non_negative(secs) {
            return Err(MrosaError::Container {
                container: container.to_string(),
                message: format!("ready time must be >= 0 s, got {secs}"),
            });
        }
        let c = self
            .containers
            .iter_mut()
            .find(|c| c.id == container)
            .ok_or_else(|| MrosaError::Container {
                container: container.to_string(),
                message: "unknown".into(),
            })?;
        c.ready_in = secs;
        Ok(())
    }

    /// [`plan`](Self::plan) without reserving anything: what MROSA would do now.
    pub fn preview(&self, jobs: &[MrosaJob]) -> Result<Vec<JobPlan>, MrosaError> {
        self.clone().plan(jobs)
    }

    /// Eq. 8 order (highest first; equal priorities keep the given order), then Algorithm I and,
    /// for what did not fit, Algorithm II, job by job. Private placements of a rejected job are
    /// kept: the job is flagged, what runs of it privately still runs. The private placements are
    /// reserved (`Rft_j` moves on), so plan a job once, when it arrives or its tasks change.
    pub fn plan(&mut self, jobs: &[MrosaJob]) -> Result<Vec<JobPlan>, MrosaError> {
        for j in jobs {
            j.validate()?;
        }
        let mut order: Vec<(usize, f64)> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (i, j.priority(self.rho)))
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut out = Vec::with_capacity(jobs.len());
        for (i, priority) in order {
            let job = &jobs[i];
            let private = schedule_private(job, &mut self.containers);
            let public = if private.to_public.is_empty() {
                None
            } else {
                Some(schedule_public(
                    job,
                    &private.to_public,
                    &self.catalog,
                    self.init_secs,
                )?)
            };
            out.push(JobPlan {
                job: job.job.clone(),
                priority,
                private: private.placements,
                public,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * (1.0 + a.abs().max(b.abs()))
    }

    fn job(
        name: &str,
        maps: Vec<MapTask>,
        reduces: Vec<ReduceTask>,
        deadline: f64,
        budget: Option<f64>,
    ) -> MrosaJob {
        MrosaJob {
            job: name.into(),
            maps,
            reduces,
            output_ratio: 0.5,
            deadline_secs: deadline,
            budget,
        }
    }

    fn m(w: f64, d: f64) -> MapTask {
        MapTask {
            workload_mi: w,
            input_mb: d,
        }
    }

    fn r(w: f64, input: f64, gamma: u32, sort: f64) -> ReduceTask {
        ReduceTask {
            workload_mi: w,
            map_input_mb: input,
            maps_fed: gamma,
            sort_secs: sort,
        }
    }

    fn it(name: &str) -> InstanceType {
        table_iv().into_iter().find(|i| i.name == name).unwrap()
    }

    #[test]
    fn eq8_orders_jobs_by_data_over_budget_and_deadline() {
        // Σ data · (ρ/C + (1−ρ)/D), ρ = 0.5:
        // small-tight 100 · (5 + 0.05) = 505; big-lax 1000 · (0.5 + 0.0005) = 500.5;
        // mid 400 · (0.5 + 0.005) = 202.
        let big = job("big-lax", vec![m(1.0, 1000.0)], vec![], 1000.0, Some(1.0));
        let small = job("small-tight", vec![m(1.0, 100.0)], vec![], 10.0, Some(0.1));
        let mid = job(
            "mid",
            vec![m(1.0, 200.0)],
            vec![r(1.0, 400.0, 2, 0.0)],
            100.0,
            Some(1.0),
        );
        assert!(close(mid.total_data_mb(), 400.0));
        assert!(close(small.priority(0.5), 505.0));
        assert!(close(big.priority(0.5), 500.5));
        assert!(close(mid.priority(0.5), 202.0));
        let mut s = Mrosa::new(
            vec![PrivateContainer::new("n1", 1e6, 1e6)],
            table_iv(),
            0.5,
            0.0,
        )
        .unwrap();
        let order: Vec<String> = s
            .plan(&[mid.clone(), big.clone(), small.clone()])
            .unwrap()
            .into_iter()
            .map(|p| p.job)
            .collect();
        assert_eq!(order, ["small-tight", "big-lax", "mid"]);
        // ρ = 0 ranks by deadline alone: 100/10, 400/100, 1000/1000.
        let mut s = Mrosa::new(
            vec![PrivateContainer::new("n1", 1e6, 1e6)],
            table_iv(),
            0.0,
            0.0,
        )
        .unwrap();
        let order: Vec<String> = s
            .plan(&[big, mid, small])
            .unwrap()
            .into_iter()
            .map(|p| p.job)
            .collect();
        assert_eq!(order, ["small-tight", "mid", "big-lax"]);
    }

    #[test]
    fn eqs_2_to_5_estimate_execution_time() {
        // 10000 MI at 1000 MIPS + 100 MB at 50 MB/s.
        assert!(close(map_eet(&m(10000.0, 100.0), 1000.0, 50.0), 12.0));
        assert!(close(map_transfer_secs(&m(0.0, 100.0), 50.0), 2.0));
        // rD = 0.5 · 400 = 200 MB, fetched from γ = 4 maps: 200 / (4 · 50) = 1 s.
        let red = r(5000.0, 400.0, 4, 3.0);
        assert!(close(reduce_transfer_secs(&red, 0.5, 50.0), 1.0));
        assert!(close(reduce_eet(&red, 0.5, 1000.0, 50.0), 5.0 + 1.0 + 3.0));
    }

    #[test]
    fn eqs_6_and_7_price_compute_storage_and_transfer() {
        let x = InstanceType {
            provider: "p".into(),
            name: "x".into(),
            cores: 1,
            ram_gb: 1.0,
            mips: 2000.0,
            band_mb_s: 10.0,
            price_per_sec: 0.002,
            storage_per_mb: 0.0001,
            transfer_in_per_mb: 0.00002,
            transfer_out_per_mb: 0.00003,
        };
        // Cost_j = 0.002 / 2000 $/MI; 4000 MI → 0.004; 100 MB · (0.0001 + 0.00005) = 0.015.
        assert!(close(x.cost_per_mi(), 1e-6));
        assert!(close(map_cost(&m(4000.0, 100.0), &x), 0.004 + 0.015));
        // rD = 0.5 · 200 = 100 MB.
        assert!(close(
            reduce_cost(&r(4000.0, 200.0, 2, 0.0), 0.5, &x),
            0.004 + 0.015
        ));
        // TABLE IV ec2-4c: 4 cores · 2.4 GHz, 30 Mbps, 65 µ$/s.
        let e = it("ec2-4c");
        assert!(close(e.mips, 9600.0));
        assert!(close(e.band_mb_s, 3.75));
        assert!(close(map_cost(&m(48000.0, 128.0), &e), 65e-6 * 5.0));
        assert_eq!(table_iv().len(), 9);
    }

    fn two_nodes() -> Vec<PrivateContainer> {
        vec![
            PrivateContainer::new("n1", 1000.0, 100.0),
            PrivateContainer::new("n2", 500.0, 100.0),
        ]
    }

    #[test]
    fn algorithm1_places_on_earliest_finish_and_sends_late_tasks_public() {
        // Maps take 11 s on n1, 21 s on n2. Deadline 30:
        // map0 → n1 (11), map1 → n2 (21 < 22), map2 → n1 (22), map3 would end at 33 → public;
        // reduce: 5 + 200/(4·100) + 1 = 6.5 s on n1 → 28.5 ≤ 30.
        let j = job(
            "j",
            vec![m(10000.0, 100.0); 4],
            vec![r(5000.0, 400.0, 4, 1.0)],
            30.0,
            None,
        );
        let mut nodes = two_nodes();
        let plan = schedule_private(&j, &mut nodes);
        let got: Vec<(TaskRef, &str, f64)> = plan
            .placements
            .iter()
            .map(|p| (p.task, p.container.as_str(), p.finish))
            .collect();
        assert_eq!(
            got,
            vec![
                (TaskRef::map(0), "n1", 11.0),
                (TaskRef::map(1), "n2", 21.0),
                (TaskRef::map(2), "n1", 22.0),
                (TaskRef::reduce(0), "n1", 28.5)
            ]
        );
        assert_eq!(plan.to_public, vec![TaskRef::map(3)]);
        // The task sent public did not keep n1 busy (line 20 restores Rft_j).
        assert_eq!(nodes[0].ready_in, 28.5);
        assert_eq!(nodes[1].ready_in, 21.0);
    }

    #[test]
    fn algorithm1_takes_the_largest_task_first() {
        let j = job(
            "j",
            vec![m(1000.0, 0.0), m(9000.0, 0.0)],
            vec![],
            100.0,
            None,
        );
        let mut nodes = vec![
            PrivateContainer::new("fast", 1000.0, 100.0),
            PrivateContainer::new("slow", 100.0, 100.0),
        ];
        let plan = schedule_private(&j, &mut nodes);
        // Max-Min: map1 (9 s on fast) first, then map0: fast 9+1 = 10 < slow 10? equal → fast.
        assert_eq!(plan.placements[0].task, TaskRef::map(1));
        assert_eq!(plan.placements[0].container, "fast");
        assert_eq!(plan.placements[1].finish, 10.0);
    }

    /// A 128 MB map of 48000 MI on TABLE IV (T = compute + transfer, cost = price · compute):
    /// azure-2c 111.6 s 258 µ$, azure-4c 55.8 s 337, azure-8c 36.4 s 526, ec2-2c 112.4 s 270,
    /// ec2-4c 39.1 s 325, ec2-8c 28.1 s 620, ali-1c 120.9 s 535, ali-4c 55.8 s 411, ali-8c 22.8 s 542.
    fn big_map() -> MapTask {
        m(48000.0, 128.0)
    }

    fn placed(d: PublicDecision) -> (Vec<PublicPlacement>, Vec<ScaleOut>, f64, bool) {
        match d {
            PublicDecision::Placed {
                placements,
                scale_out,
                total_cost,
                within_budget,
            } => (placements, scale_out, total_cost, within_budget),
            other => panic!("expected a placement, got {other:?}"),
        }
    }

    #[test]
    fn algorithm2_picks_the_cheapest_table_iv_type_that_meets_the_deadline() {
        let cat = table_iv();
        let cases = [
            (200.0, "azure-2c", 28e-6 * 48000.0 / 5200.0),
            (60.0, "ec2-4c", 65e-6 * 5.0),
            (40.0, "ali-8c", 235e-6 * 48000.0 / 20800.0),
        ];
        for (deadline, want, cost) in cases {
            let j = job("j", vec![big_map()], vec![], deadline, None);
            let (p, _, total, ok) =
                placed(schedule_public(&j, &[TaskRef::map(0)], &cat, 10.0).unwrap());
            assert_eq!(p[0].instance_type, want, "deadline {deadline}");
            assert!(close(total, cost), "deadline {deadline}: {total} vs {cost}");
            assert!(ok);
        }
    }

    #[test]
    fn algorithm2_rejects_the_job_when_no_type_meets_the_deadline() {
        let j = job("j", vec![big_map()], vec![], 30.0, None);
        match schedule_public(&j, &[TaskRef::map(0)], &table_iv(), 10.0).unwrap() {
            PublicDecision::Rejected { task, fastest_secs } => {
                assert_eq!(task, TaskRef::map(0));
                // ali-8c: 48000/20800 + 128/6.25 + 10
                assert!(close(fastest_secs, 48000.0 / 20800.0 + 20.48 + 10.0));
            }
            other => panic!("{other:?}"),
        }
        // The deadline test is strict: T_task + T_init == D_i is too late.
        let exact = 48000.0 / 20800.0 + 20.48 + 10.0;
        let j = job("j", vec![big_map()], vec![], exact, None);
        assert!(matches!(
            schedule_public(&j, &[TaskRef::map(0)], &table_iv(), 10.0).unwrap(),
            PublicDecision::Rejected { .. }
        ));
    }

    #[test]
    fn algorithm2_scale_out_advice_counts_instances_and_checks_the_budget() {
        let cat = table_iv();
        let tasks = [TaskRef::map(0), TaskRef::map(1), TaskRef::map(2)];
        let j = job("j", vec![big_map(); 3], vec![], 60.0, Some(1000e-6));
        let (_, advice, total, ok) = placed(schedule_public(&j, &tasks, &cat, 10.0).unwrap());
        assert_eq!(advice.len(), 1);
        assert_eq!(
            (
                advice[0].provider.as_str(),
                advice[0].instance_type.as_str(),
                advice[0].count
            ),
            ("Amazon EC2", "ec2-4c", 3)
        );
        assert!(close(advice[0].estimated_cost, 975e-6));
        assert!(close(total, 975e-6));
        assert!(ok);
        let tight = MrosaJob {
            budget: Some(900e-6),
            ..j
        };
        let (_, _, _, ok) = placed(schedule_public(&tight, &tasks, &cat, 10.0).unwrap());
        assert!(!ok, "975 µ$ exceeds a 900 µ$ budget");
    }

    #[test]
    fn running_instances_take_one_task_per_room_and_only_in_time() {
        // One ec2-4c room (big map: 39.1 s, 325 µ$) and one ali-8c room (22.8 s, 542 µ$),
        // D = 45: the first map goes to the cheaper ec2-4c room; a second there would end at
        // 78.2 s, so it takes the dearer ali-8c room (22.8 s); a third would end at 45.6 s there.
        let cat = table_iv();
        let ty = |n: &str| cat.iter().find(|t| t.name == n).unwrap().clone();
        let mut slots = vec![
            PublicSlot {
                id: "a#0".into(),
                instance: ty("ali-8c"),
                ready_in: 0.0,
            },
            PublicSlot {
                id: "e#0".into(),
                instance: ty("ec2-4c"),
                ready_in: 0.0,
            },
        ];
        let j = job("j", vec![big_map(); 3], vec![], 45.0, None);
        let tasks = [TaskRef::map(0), TaskRef::map(1), TaskRef::map(2)];
        let plan = schedule_running(&j, &tasks, &mut slots).unwrap();
        let rooms: Vec<&str> = plan.placements.iter().map(|p| p.slot.as_str()).collect();
        assert_eq!(rooms, ["e#0", "a#0"]);
        assert!(close(
            plan.placements[0].finish,
            48000.0 / 9600.0 + 128.0 / 3.75
        ));
        assert!(close(plan.placements[0].cost, 65e-6 * 5.0));
        assert_eq!(plan.unplaced, vec![TaskRef::map(2)]);
        assert!(close(slots[1].ready_in, plan.placements[0].finish));
        // A busy room counts its wait like T_init: ec2-4c free in 5 s ends the map at 44.1 s, in
        // 6 s at 45.1 s (too late).
        let mut slots = vec![PublicSlot {
            id: "e#0".into(),
            instance: ty("ec2-4c"),
            ready_in: 5.0,
        }];
        let plan = schedule_running(&j, &tasks[..1], &mut slots).unwrap();
        assert_eq!(plan.placements[0].start, 5.0);
        let mut slots = vec![PublicSlot {
            id: "e#0".into(),
            instance: ty("ec2-4c"),
            ready_in: 6.0,
        }];
        let plan = schedule_running(&j, &tasks[..1], &mut slots).unwrap();
        assert!(plan.placements.is_empty());
        assert_eq!(plan.unplaced, vec![TaskRef::map(0)]);
        assert!(schedule_running(&j, &[TaskRef::reduce(0)], &mut slots).is_err());
    }

    #[test]
    fn plan_serves_the_higher_priority_job_privately_and_scales_out_the_other() {
        // One private container that runs a 128 MB map in 48000/9600 + 128/64 = 7 s.
        let node = PrivateContainer::new("n1", 9600.0, 64.0);
        let urgent = job("urgent", vec![big_map(); 2], vec![], 60.0, Some(1.0));
        let lax = job("lax", vec![big_map(); 2], vec![], 90.0, Some(1.0));
        let mut s = Mrosa::new(vec![node], table_iv(), DEFAULT_RHO, 10.0).unwrap();
        // fill the node until 50 s: urgent's maps end at 57 (ok) and 64 (> 60, public);
        // lax's would end at 64+7 = 71 and 78 (ok, D = 90).
        s.set_ready_in("n1", 50.0).unwrap();
        let preview = s.preview(&[lax.clone(), urgent.clone()]).unwrap();
        assert_eq!(s.containers()[0].ready_in, 50.0);
        let plans = s.plan(&[lax, urgent]).unwrap();
        assert_eq!(plans, preview);
        assert_eq!(plans[0].job, "urgent");
        assert_eq!(plans[0].private.len(), 1);
        assert_eq!(plans[0].private[0].finish, 57.0);
        assert_eq!(plans[0].scale_out()[0].instance_type, "ec2-4c");
        assert!(!plans[0].rejected());
        assert_eq!(plans[1].job, "lax");
        assert_eq!(
            plans[1]
                .private
                .iter()
                .map(|p| p.finish)
                .collect::<Vec<_>>(),
            vec![64.0, 71.0]
        );
        assert!(plans[1].public.is_none());
        assert_eq!(s.containers()[0].ready_in, 71.0);
        s.elapse(30.0);
        assert_eq!(s.containers()[0].ready_in, 41.0);
    }

    #[test]
    fn plan_flags_a_job_no_cloud_can_finish_in_time() {
        let mut s = Mrosa::new(
            vec![PrivateContainer::new("n1", 100.0, 1.0)],
            table_iv(),
            DEFAULT_RHO,
            DEFAULT_INIT_SECS,
        )
        .unwrap();
        let plans = s
            .plan(&[job("hopeless", vec![big_map()], vec![], 20.0, None)])
            .unwrap();
        assert!(plans[0].rejected());
        assert!(plans[0].scale_out().is_empty());
        assert_eq!(s.containers()[0].ready_in, 0.0);
    }

    #[test]
    fn a_catalog_can_be_configured_as_json() {
        let json = serde_json::to_string(&table_iv()).unwrap();
        let back: Vec<InstanceType> = serde_json::from_str(&json).unwrap();
        for (a, b) in back.iter().zip(table_iv().iter()) {
            assert_eq!(
                (&a.name, a.cores, a.mips, a.band_mb_s),
                (&b.name, b.cores, b.mips, b.band_mb_s)
            );
            assert!(close(a.price_per_sec, b.price_per_sec));
        }
        assert_eq!(back.len(), 9);
        let one: Vec<InstanceType> = serde_json::from_str(
            r#"[{"provider":"lab","name":"big","cores":16,"ram_gb":64,"mips":40000,"band_mb_s":100,"price_per_sec":0.0005}]"#,
        )
        .unwrap();
        assert_eq!(one[0].storage_per_mb, 0.0);
        let e = serde_json::from_str::<Vec<InstanceType>>(r#"[{"provider":"lab","name":"big"}]"#)
            .unwrap_err();
        assert!(e.to_string().contains("cores"), "{e}");
        let e = Mrosa::new(
            vec![],
            vec![InstanceType {
                mips: 0.0,
                ..one[0].clone()
            }],
            0.5,
            0.0,
        )
        .unwrap_err();
        assert!(e.to_string().contains("big"), "{e}");
    }

    #[test]
    fn bad_input_names_the_culprit() {
        let e = Mrosa::new(vec![], table_iv(), 1.5, 0.0).unwrap_err();
        assert!(e.to_string().contains("rho"), "{e}");
        let e = Mrosa::new(
            vec![PrivateContainer::new("node-7:1", 0.0, 1.0)],
            table_iv(),
            0.5,
            0.0,
        )
        .unwrap_err();
        assert!(e.to_string().contains("node-7:1"), "{e}");
        let e = Mrosa::new(
            vec![PrivateContainer::new("node-8:1", 1.0, f64::NAN)],
            table_iv(),
            0.5,
            0.0,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("node-8:1") && e.to_string().contains("bandwidth"),
            "{e}"
        );
        let slow = InstanceType {
            band_mb_s: 0.0,
            ..it("ec2-2c")
        };
        let e = Mrosa::new(vec![], vec![slow], 0.5, 0.0).unwrap_err();
        assert!(
            e.to_string().contains("ec2-2c") && e.to_string().contains("bandwidth"),
            "{e}"
        );
        let mut s = Mrosa::new(vec![], table_iv(), 0.5, 0.0).unwrap();
        let e = s
            .plan(&[job("app_42", vec![], vec![], 0.0, None)])
            .unwrap_err();
        assert!(
            e.to_string().contains("app_42") && e.to_string().contains("deadline"),
            "{e}"
        );
        let e = s
            .plan(&[job(
                "app_43",
                vec![],
                vec![r(1.0, 10.0, 0, 0.0)],
                10.0,
                None,
            )])
            .unwrap_err();
        assert!(
            e.to_string().contains("app_43") && e.to_string().contains("reduce 0"),
            "{e}"
        );
        let e = s
            .plan(&[job("app_44", vec![], vec![], 10.0, Some(-1.0))])
            .unwrap_err();
        assert!(e.to_string().contains("budget"), "{e}");
        assert!(s
            .set_ready_in("ghost", 1.0)
            .unwrap_err()
            .to_string()
            .contains("ghost"));
        let j = job("app_45", vec![big_map()], vec![], 10.0, None);
        let e = schedule_public(&j, &[TaskRef::reduce(0)], &table_iv(), 0.0).unwrap_err();
        assert!(
            e.to_string().contains("app_45") && e.to_string().contains("Reduce task 0"),
            "{e}"
        );
    }
}
