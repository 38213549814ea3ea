//! Inter-queue preemption under `locus.policy=capacity`: CapacityScheduler's
//! `ProportionalCapacityPreemptionPolicy` with its keys, decided here and carried out by the
//! shim (it marks the chosen containers through the RM, so their AMs hear of it first, and
//! kills them once `max_wait_before_kill` has passed).
//!
//! A round, memory only (CapacityScheduler's default calculator; under
//! `DominantResourceCalculator` every type, compared as that calculator does: [`dominant`]):
//! 1. Top-down over the queue tree, each parent's ideal share is split among its children: a
//!    child first keeps what it uses up to its guarantee (all it uses when its preemption is
//!    disabled), then what is left goes to children that want more (used + pending) in
//!    proportion to their guarantees, none past its maximum-capacity nor, for a leaf, past the
//!    larger of its guarantee and its use.
//! 2. A queue over its ideal share is asked to give back the excess (scaled down so one round
//!    never asks more than `total_preemption_per_round` of the cluster), and a leaf only once
//!    it is over its guarantee by more than `max_ignored_over_capacity`, and then only
//!    `natural_termination_factor` of it (the rest is expected to end by itself).
//! 3. In each leaf, in configured order: youngest application first, within it the lowest
//!    priority then the most recently started container; AM containers after every other.
//!    A container is taken only if neither its leaf nor any ancestor drops below its guarantee
//!    and it fits in what the round may still take.
//!
//! With `intra-queue-preemption.enabled`, the round then goes on within each leaf, with what is
//! left of its budget: CapacityScheduler's priority- and user-limit-based intra-queue
//! preemption ([`intra_queue`]).
//!
//! Size-based preemption (`locus.preemption.size-based`, under `fsp` and `fair`, where every
//! application runs in one queue): HFSP's (Pastorelli et al., IEEE BigData 2013) rule that the job
//! the size-based order serves gets its room back from jobs later in the order. A round
//! ([`select_by_order`]) gives each application, in the policy's order
//! ([`crate::policy::JobPolicy::entitlement_order`]), its entitlement of the cluster's memory:
//! under `fsp` all it asks for, each in turn, until the cluster is given out; under `fair` a
//! max-min fair share. An application is held back when it asks for more than it holds, its
//! entitlement is above what it holds, and no node's free room fits any container it asks
//! for; what the held-back applications lack (up to what they ask for) is taken from the
//! applications holding more than their entitlement, the latest in the order first, each
//! container only while its application keeps its entitlement: within one, containers already
//! marked first (so a mark matures into a kill), then the most recently started; never an AM
//! container; at most `total_preemption_per_round` of the cluster per round. Marks and kills
//! are the same as between queues, so an application held back is given room only when it was
//! still held back `max_wait_before_kill` after the first mark.
//!
//! Bound: a round between queues costs O(Q · 64 · C + N log N) for Q queues (at most
//! [`crate::policy::capacity_tree::MAX_TREE_QUEUES`]), C children of one parent (the
//! proportional split makes at most 64 passes per child: see `distribute`) and N containers the RM holds (each holds node memory, so N is
//! bounded by the cluster, not by anything an AM sends). The containers marked and not yet
//! killed are a subset of those, and forgotten 2 × `max_wait_before_kill` after their mark.
//! A size-based round costs O(A log A + R · V + M log M + N log N) for A applications (each
//! holds a container or was admitted by the AM limits), R ask rows (bounded per application by
//! `locus.app.max-ask-rows`), M nodes and V distinct vcores figures of their free room (at most
//! the largest node's vcores plus one).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::CoreError;
use crate::fast_hash::FastMap;
pub use crate::policy::ShareRule;

pub mod dominant;
pub mod intra_queue;
pub use intra_queue::{IntraQueueOrder, IntraQueueSettings};

pub const PREFIX: &str = "yarn.resourcemanager.monitor.capacity.preemption.";

/// The policy's keys (`yarn.resourcemanager.monitor.capacity.preemption.*`), CapacityScheduler's
/// defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreemptionSettings {
    pub monitoring_interval_ms: u64,
    pub max_wait_before_kill_ms: u64,
    pub total_preemption_per_round: f64,
    pub max_ignored_over_capacity: f64,
    pub natural_termination_factor: f64,
    pub observe_only: bool,
    /// `intra-queue-preemption.*`: within a leaf, between its applications and users.
    pub intra_queue: IntraQueueSettings,
}

impl Default for PreemptionSettings {
    fn default() -> Self {
        PreemptionSettings {
            monitoring_interval_ms: 3000,
            max_wait_before_kill_ms: 15000,
            total_preemption_per_round: 0.1,
            max_ignored_over_capacity: 0.1,
            natural_termination_factor: 0.2,
            observe_only: false,
            intra_queue: IntraQueueSettings::default(),
        }
    }
}

fn bad(key: &str, value: &str, allowed: &str) -> CoreError {
    CoreError::Config {
        key: format!("{PREFIX}{key}"),
        message: format!("invalid value {value:?}; allowed: {allowed}"),
    }
}

impl PreemptionSettings {
    /// Reads the keys present in `props` (full names); others keep their defaults. A key under
    /// the prefix this policy does not know (reserved-container, queue-priority, ...) is
    /// refused unless it is set to `false`, so an operator never believes a setting is in force
    /// that is not. `yarn.scheduler.minimum-allocation-mb`, when present, is the RM's minimum
    /// allocation the user limits of intra-queue preemption are rounded to.
    pub fn parse(props: &BTreeMap<String, String>) -> Result<PreemptionSettings, CoreError> {
        let mut s = PreemptionSettings::default();
        if let Some(v) = props.get(intra_queue::MINIMUM_ALLOCATION_KEY) {
            s.intra_queue.minimum_allocation_mb = match v.trim().parse::<u64>() {
                Ok(x) if x > 0 => x,
                _ => {
                    return Err(CoreError::Config {
                        key: intra_queue::MINIMUM_ALLOCATION_KEY.into(),
                        message: format!("invalid value {v:?}; allowed: megabytes above 0"),
                    })
                }
            };
        }
        for (key, value) in props {
            let Some(name) = key.strip_prefix(PREFIX) else {
                continue;
            };
            let v = value.trim();
            match name {
                "monitoring_interval" => {
                    s.monitoring_interval_ms = match v.parse::<u64>() {
                        Ok(x) if x > 0 => x,
                        _ => return Err(bad(name, v, "milliseconds above 0")),
                    }
                }
                "max_wait_before_kill" => {
                    s.max_wait_before_kill_ms = v
                        .parse::<u64>()
                        .map_err(|_| bad(name, v, "milliseconds, 0 or more"))?
                }
                "total_preemption_per_round" => {
                    s.total_preemption_per_round = match v.parse::<f64>() {
                        Ok(x) if x > 0.0 && x.is_finite() => x,
                        _ => return Err(bad(name, v, "a fraction of the cluster above 0")),
                    }
                }
                "max_ignored_over_capacity" => {
                    s.max_ignored_over_capacity = match v.parse::<f64>() {
                        Ok(x) if x >= 0.0 && x.is_finite() => x,
                        _ => return Err(bad(name, v, "a fraction, 0 or more")),
                    }
                }
                "natural_termination_factor" => {
                    s.natural_termination_factor = match v.parse::<f64>() {
                        Ok(x) if x > 0.0 && x.is_finite() => x,
                        _ => return Err(bad(name, v, "a fraction above 0")),
                    }
                }
                "observe_only" => {
                    s.observe_only = match v.to_ascii_lowercase().as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err(bad(name, v, "true or false")),
                    }
                }
                _ if name.starts_with(intra_queue::KEY_PREFIX) => {
                    s.intra_queue.read(name, v)?;
                }
                // Off is what Locus does anyway (CapacityScheduler's defaults for these).
                _ if v.eq_ignore_ascii_case("false") => {}
                _ => {
                    return Err(CoreError::Config {
                        key: key.clone(),
                        message: "Locus's preemption policy does not honour this key (it \
                                  preempts between and within queues only: no \
                                  reserved-container or queue-priority preemption)"
                            .into(),
                    })
                }
            }
        }
        Ok(s)
    }
}

/// One queue of the tree a round works on; `parent` is listed before it, root is entry 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeQueue {
    pub parent: Option<usize>,
    pub guaranteed_mb: u64,
    pub maximum_mb: u64,
    /// Leaves: what their containers hold. Parents: filled in from their children.
    pub used_mb: u64,
    /// Leaves: what their applications ask for and do not hold yet.
    pub pending_mb: u64,
    /// `disable_preemption` as in force for this queue (inherited already).
    pub disable_preemption: bool,
}

/// A running container as a round sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Index of its leaf in the tree.
    pub queue: usize,
    /// Its application's submission order (larger: younger).
    pub app_order: u64,
    /// YARN's container priority (larger number: lower priority).
    pub priority: i32,
    /// Start order (larger: started later).
    pub started: u64,
    pub am: bool,
    pub mb: u64,
}

/// Per queue (tree index): the ideal share and what the round asks back.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub ideal_mb: Vec<u64>,
    pub to_obtain_mb: Vec<u64>,
}

/// Steps 1 and 2: what each queue should hold and what each leaf is asked to give back.
pub fn plan(queues: &[TreeQueue], cluster_mb: u64, s: &PreemptionSettings) -> Plan {
    let n = queues.len();
    let mut used = vec![0u64; n];
    let mut pending = vec![0u64; n];
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, q) in queues.iter().enumerate() {
        if let Some(p) = q.parent {
            kids[p].push(i);
        }
    }
    // Bottom-up sums (children are listed after their parent).
    for i in (0..n).rev() {
        if kids[i].is_empty() {
            used[i] = queues[i].used_mb;
            pending[i] = queues[i].pending_mb;
        }
        if let Some(p) = queues[i].parent {
            used[p] = used[p].saturating_add(used[i]);
            pending[p] = pending[p].saturating_add(pending[i]);
        }
    }
    // What above its guarantee a queue may not lose: a leaf whose preemption is disabled keeps
    // all of it; a parent keeps what its children cannot give.
    let mut untouchable = vec![0u64; n];
    let mut preemptable = vec![0u64; n];
    for i in (0..n).rev() {
        let extra = used[i].saturating_sub(queues[i].guaranteed_mb);
        if kids[i].is_empty() {
            if queues[i].disable_preemption {
                untouchable[i] = extra;
            } else {
                preemptable[i] = extra;
            }
        } else {
            let from_kids: u64 = kids[i].iter().map(|&k| preemptable[k]).sum();
            preemptable[i] = extra.min(from_kids);
            untouchable[i] = extra - preemptable[i];
        }
    }
    let allowed = (cluster_mb as f64 * s.total_preemption_per_round).floor() as u64;
    let mut ideal = vec![0u64; n];
    let mut to_be_preempted = vec![0u64; n];
    if n > 0 {
        // The root's guarantee: its partition's memory (the budget above is of the cluster,
        // as CapacityScheduler's).
        ideal[0] = queues[0].guaranteed_mb;
    }
    for p in 0..n {
        if kids[p].is_empty() {
            continue;
        }
        distribute(
            &kids[p],
            ideal[p],
            queues,
            &used,
            &pending,
            &untouchable,
            &kids,
            &mut ideal,
        );
        let needed: u64 = kids[p]
            .iter()
            .map(|&k| used[k].saturating_sub(ideal[k]))
            .sum();
        let scale = if needed > allowed {
            allowed as f64 / needed as f64
        } else {
            1.0
        };
        for &k in &kids[p] {
            let keep = ideal[k].max(
                used[k]
                    .saturating_add(pending[k])
                    .min(queues[k].guaranteed_mb),
            );
            to_be_preempted[k] = (used[k].saturating_sub(keep) as f64 * scale).floor() as u64;
        }
    }
    let mut to_obtain = vec![0u64; n];
    for i in 0..n {
        if !kids[i].is_empty() || queues[i].disable_preemption || to_be_preempted[i] == 0 {
            continue;
        }
        let threshold = queues[i].guaranteed_mb as f64 * (1.0 + s.max_ignored_over_capacity);
        if used[i] as f64 > threshold {
            to_obtain[i] = (to_be_preempted[i] as f64 * s.natural_termination_factor).ceil() as u64;
        }
    }
    Plan {
        ideal_mb: ideal,
        to_obtain_mb: to_obtain,
    }
}

/// Splits `total` among `children` (CapacityScheduler's fixpoint over normalized guarantees).
#[allow(clippy::too_many_arguments)]
fn distribute(
    children: &[usize],
    total: u64,
    queues: &[TreeQueue],
    used: &[u64],
    pending: &[u64],
    untouchable: &[u64],
    kids: &[Vec<usize>],
    ideal: &mut [u64],
) {
    let mut unassigned = total;
    let mut wanting: Vec<usize> = Vec::with_capacity(children.len());
    for &c in children {
        let g = queues[c].guaranteed_mb;
        let init = if used[c] > g {
            g.saturating_add(untouchable[c])
        } else {
            used[c]
        };
        ideal[c] = init;
        unassigned = unassigned.saturating_sub(init);
        if init < used[c].saturating_add(pending[c]) {
            wanting.push(c);
        }
    }
    // Each pass offers the most underserved children (least ideal share per unit of
    // guarantee) their part of what is left; the offers shrink geometrically and are at least
    // 1 MB, so the passes are capped at 64 per child (a u64 of MB halves to 0 in 64 steps).
    let max_passes = children.len().saturating_mul(64).max(64);
    let ratio = |c: usize, ideal: &[u64]| -> f64 {
        let g = queues[c].guaranteed_mb;
        if g == 0 {
            f64::INFINITY
        } else {
            ideal[c] as f64 / g as f64
        }
    };
    for _ in 0..max_passes {
        if wanting.is_empty() || unassigned == 0 {
            break;
        }
        let total_g: u64 = wanting.iter().map(|&c| queues[c].guaranteed_mb).sum();
        let least = wanting
            .iter()
            .map(|&c| ratio(c, ideal))
            .fold(f64::INFINITY, f64::min);
        let snapshot = unassigned;
        let mut satisfied = Vec::new();
        for &c in &wanting {
            if unassigned == 0 || ratio(c, ideal) > least {
                continue;
            }
            let share = if total_g == 0 {
                1.0 / wanting.len() as f64
            } else {
                queues[c].guaranteed_mb as f64 / total_g as f64
            };
            let offer = ((snapshot as f64 * share).ceil() as u64).clamp(1, unassigned);
            let mut room = queues[c]
                .maximum_mb
                .saturating_sub(ideal[c])
                .min(used[c].saturating_add(pending[c]).saturating_sub(ideal[c]));
            if kids[c].is_empty() {
                // A leaf is not given room to grow past its guarantee at another's expense.
                room = room.min(
                    queues[c]
                        .guaranteed_mb
                        .max(used[c])
                        .saturating_sub(ideal[c]),
                );
            }
            let accepted = offer.min(room);
            ideal[c] += accepted;
            unassigned -= accepted;
            if accepted >= room {
                satisfied.push(c);
            }
        }
        wanting.retain(|c| !satisfied.contains(c));
    }
}

/// The order a round takes containers in: queue by queue, AM containers after every other,
/// then the youngest application, its lowest priority, its most recently started container.
pub(crate) fn taking_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    a.queue
        .cmp(&b.queue)
        .then(a.am.cmp(&b.am))
        .then(b.app_order.cmp(&a.app_order))
        .then(b.priority.cmp(&a.priority))
        .then(b.started.cmp(&a.started))
}

/// The most memory one round takes: `total_preemption_per_round` of the cluster.
pub fn round_budget(cluster_mb: u64, s: &PreemptionSettings) -> u64 {
    (cluster_mb as f64 * s.total_preemption_per_round).floor() as u64
}

/// Step 3: the containers a round takes, as indices into `containers`, in the order taken.
pub fn select(
    queues: &[TreeQueue],
    containers: &[Candidate],
    cluster_mb: u64,
    s: &PreemptionSettings,
) -> Vec<usize> {
    let plan = plan(queues, cluster_mb, s);
    let n = queues.len();
    let mut is_parent = vec![false; n];
    for q in queues {
        if let Some(p) = q.parent {
            is_parent[p] = true;
        }
    }
    // Leaves carry their own use; a parent's is its children's.
    let mut used = vec![0u64; n];
    for i in (0..n).rev() {
        if !is_parent[i] {
            used[i] = used[i].saturating_add(queues[i].used_mb);
        }
        if let Some(p) = queues[i].parent {
            used[p] = used[p].saturating_add(used[i]);
        }
    }
    let mut budget = round_budget(cluster_mb, s);
    let mut to_obtain = plan.to_obtain_mb;
    let mut order: Vec<usize> = (0..containers.len())
        .filter(|&i| to_obtain.get(containers[i].queue).copied().unwrap_or(0) > 0)
        .collect();
    order.sort_by(|&x, &y| taking_order(&containers[x], &containers[y]));
    let mut taken = Vec::new();
    for i in order {
        let c = &containers[i];
        if to_obtain[c.queue] == 0 || c.mb > budget || c.mb == 0 {
            continue;
        }
        // Neither the leaf nor any ancestor below root may go under its guarantee.
        let mut q = Some(c.queue);
        let mut keeps = true;
        while let Some(x) = q {
            if x != 0 && used[x].saturating_sub(c.mb) < queues[x].guaranteed_mb || used[x] < c.mb {
                keeps = false;
                break;
            }
            q = queues[x].parent;
        }
        if !keeps {
            continue;
        }
        let mut q = Some(c.queue);
        while let Some(x) = q {
            used[x] -= c.mb;
            q = queues[x].parent;
        }
        to_obtain[c.queue] = to_obtain[c.queue].saturating_sub(c.mb);
        budget -= c.mb;
        taken.push(i);
    }
    taken
}

/// An application as a size-based round sees it, in the policy's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Entitled {
    /// Memory its containers hold.
    pub used_mb: u64,
    /// Memory it asks for and does not hold.
    pub pending_mb: u64,
    /// No node's free room fits any container it asks for.
    pub held_back: bool,
}

/// A running container as a size-based round sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// Index of its application in the order.
    pub app: usize,
    /// Start order (larger: started later).
    pub started: u64,
    pub am: bool,
    pub mb: u64,
    /// Marked by an earlier round and not killed yet.
    pub marked: bool,
}

/// What each application of `apps` (in the policy's order) is entitled to hold of `cluster_mb`.
pub fn entitlements(apps: &[Entitled], cluster_mb: u64, rule: ShareRule) -> Vec<u64> {
    let demand = |a: &Entitled| a.used_mb.saturating_add(a.pending_mb);
    let mut out = vec![0u64; apps.len()];
    let mut left = cluster_mb;
    match rule {
        ShareRule::InOrder => {
            for (i, a) in apps.iter().enumerate() {
                out[i] = demand(a).min(left);
                left -= out[i];
            }
        }
        ShareRule::Equal => {
            // Smallest demand first: each takes at most an equal part of what is left.
            let mut by_demand: Vec<usize> = (0..apps.len()).collect();
            by_demand.sort_by_key(|&i| (demand(&apps[i]), i));
            let mut count = by_demand.len() as u64;
            for i in by_demand {
                let part = left / count.max(1);
                out[i] = demand(&apps[i]).min(part);
                left -= out[i];
                count -= 1;
            }
        }
    }
    out
}

/// The containers a size-based round takes, as indices into `containers`, in the order taken
/// (module docs).
pub fn select_by_order(
    apps: &[Entitled],
    containers: &[Held],
    cluster_mb: u64,
    rule: ShareRule,
    s: &PreemptionSettings,
) -> Vec<usize> {
    let ent = entitlements(apps, cluster_mb, rule);
    let mut need: u64 = apps
        .iter()
        .zip(&ent)
        .filter(|(a, _)| a.held_back && a.pending_mb > 0)
        .map(|(a, &e)| e.saturating_sub(a.used_mb).min(a.pending_mb))
        .fold(0u64, u64::saturating_add);
    if need == 0 {
        return Vec::new();
    }
    let mut budget = (cluster_mb as f64 * s.total_preemption_per_round).floor() as u64;
    let mut used: Vec<u64> = apps.iter().map(|a| a.used_mb).collect();
    let mut order: Vec<usize> = (0..containers.len())
        .filter(|&i| {
            let c = &containers[i];
            !c.am && c.mb > 0 && c.app < apps.len() && used[c.app] > ent[c.app]
        })
        .collect();
    // The latest application first; within one, a marked container first, then the youngest.
    order.sort_by(|&x, &y| {
        let (a, b) = (&containers[x], &containers[y]);
        b.app
            .cmp(&a.app)
            .then(b.marked.cmp(&a.marked))
            .then(b.started.cmp(&a.started))
    });
    let mut taken = Vec::new();
    for i in order {
        if need == 0 {
            break;
        }
        let c = &containers[i];
        if c.mb > budget || used[c.app] < ent[c.app].saturating_add(c.mb) {
            continue;
        }
        used[c.app] -= c.mb;
        budget -= c.mb;
        need = need.saturating_sub(c.mb);
        taken.push(i);
    }
    taken
}

/// What a round asks the shim to do.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoundOutcome {
    /// Containers to mark for preemption now (their AMs hear of it in the next allocate).
    pub mark: Vec<String>,
    /// Containers marked at least `max_wait_before_kill` ago and still chosen: to kill.
    pub kill: Vec<String>,
    /// Every container this round chose, marked earlier or not (with `observe_only`, what
    /// would have been preempted).
    pub selected: Vec<String>,
    /// Those of `selected` chosen within their queue (intra-queue preemption), after the
    /// others.
    pub intra_queue: Vec<String>,
    pub observe_only: bool,
}

/// The marks between rounds: container id → when it was first marked.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    first_marked: FastMap<String, u64>,
}

impl Marks {
    /// CapacityScheduler's bookkeeping: a chosen container is marked once; chosen again once
    /// `max_wait_before_kill` has passed since, it is killed; a mark not renewed for twice that
    /// long is forgotten.
    pub fn apply(
        &mut self,
        chosen: Vec<String>,
        now_ms: u64,
        s: &PreemptionSettings,
    ) -> RoundOutcome {
        let mut out = RoundOutcome {
            observe_only: s.observe_only,
            ..RoundOutcome::default()
        };
        if s.observe_only {
            out.selected = chosen;
            return out;
        }
        for id in &chosen {
            match self.first_marked.get(id) {
                Some(&at) if at.saturating_add(s.max_wait_before_kill_ms) <= now_ms => {
                    self.first_marked.remove(id);
                    out.kill.push(id.clone());
                }
                Some(_) => {}
                None => {
                    self.first_marked.insert(id.clone(), now_ms);
                    out.mark.push(id.clone());
                }
            }
        }
        let stale = s.max_wait_before_kill_ms.saturating_mul(2);
        self.first_marked
            .retain(|_, at| at.saturating_add(stale) >= now_ms);
        out.selected = chosen;
        out
    }

    pub fn len(&self) -> usize {
        self.first_marked.len()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.first_marked.contains_key(id)
    }

    pub fn is_empty(&self) -> bool {
        self.first_marked.is_empty()
    }
}

/// `percent` % of `mb`, rounded down (CapacityScheduler's absolute capacities of memory).
fn percent_of(mb: u64, percent: f64) -> u64 {
    (mb as f64 * percent / 100.0).floor() as u64
}

/// Memory an application asks for and does not hold yet (its `*` rows).
fn pending_mb(app: &crate::state::app::App) -> u64 {
    app.asks
        .tables()
        .filter(|(k, _)| app.partitions.of(k).is_empty())
        .filter_map(|(_, t)| t.row(crate::state::names::ANY_ID))
        .map(|r| r.capability.memory_mb.saturating_mul(r.count as u64))
        .fold(0u64, u64::saturating_add)
}

/// The tree and the running containers (with their ids) a round works on.
pub type PreemptionView = (Vec<TreeQueue>, Vec<(String, Candidate)>);

/// The applications in order, their running containers (with their ids) and the share rule a
/// size-based round works on.
pub type SizeBasedView = (Vec<Entitled>, Vec<(String, Held)>, ShareRule);

impl crate::core::Core {
    /// The queue tree and the running containers as a round sees them; `None` outside
    /// `locus.policy=capacity` (every application is in one queue: nothing to take back).
    pub fn preemption_view(&self) -> Option<PreemptionView> {
        let cq = self.capacity_queues()?;
        let queues = &self.config().capacity;
        let state = self.state();
        // The default partition, as the queues' figures are of it: its nodes' memory, what
        // the queues hold and ask for there, and the containers on its nodes (a labelled
        // partition is held whole by one leaf when the monitor runs).
        let cluster = state.partition_capacity("").memory_mb;
        let parents = queues.parents();
        // Tree: root, the parents shallowest first, then the leaves.
        let mut by_depth: Vec<usize> = (0..parents.len()).collect();
        by_depth.sort_by_key(|&p| (parents[p].path.matches('.').count(), p));
        let mut slot_of_parent = vec![0usize; parents.len()];
        for (k, &p) in by_depth.iter().enumerate() {
            slot_of_parent[p] = k + 1;
        }
        let mut parent_of_parent = vec![0usize; parents.len()];
        for leaf in cq {
            for (j, &a) in leaf.ancestors.iter().enumerate() {
                parent_of_parent[a] = leaf
                    .ancestors
                    .get(j + 1)
                    .map_or(0, |&up| slot_of_parent[up]);
            }
        }
        let mut tree = Vec::with_capacity(1 + parents.len() + cq.len());
        tree.push(TreeQueue {
            parent: None,
            guaranteed_mb: cluster,
            maximum_mb: cluster,
            used_mb: 0,
            pending_mb: 0,
            disable_preemption: false,
        });
        for &p in &by_depth {
            tree.push(TreeQueue {
                parent: Some(parent_of_parent[p]),
                guaranteed_mb: percent_of(cluster, parents[p].capacity),
                maximum_mb: percent_of(cluster, parents[p].maximum_capacity),
                used_mb: 0,
                pending_mb: 0,
                disable_preemption: parents[p].disable_preemption,
            });
        }
        let first_leaf = tree.len();
        let used = queues.default_used_mb(state);
        for (i, leaf) in cq.iter().enumerate() {
            tree.push(TreeQueue {
                parent: Some(leaf.ancestors.first().map_or(0, |&p| slot_of_parent[p])),
                guaranteed_mb: percent_of(cluster, leaf.capacity),
                maximum_mb: percent_of(cluster, leaf.maximum_capacity),
                used_mb: used[i],
                pending_mb: 0,
                disable_preemption: leaf.disable_preemption,
            });
        }
        // As CapacityScheduler's leaf pending (`getTotalPendingResourcesConsideringUserLimit`
        // walks the activated applications only): what an application the AM limits hold back
        // asks for cannot run on room preemption frees, so it takes nothing back.
        for app in state.apps().filter(|a| state.is_activated(a.arrival)) {
            if let Some(i) = queues.index_of(&app.queue) {
                let q = &mut tree[first_leaf + i];
                q.pending_mb = q.pending_mb.saturating_add(pending_mb(app));
            }
        }
        let mut candidates = Vec::with_capacity(state.containers().len());
        for c in state.containers().iter() {
            let Some(app) = state.app_by_id(&c.app) else {
                continue;
            };
            let Some(i) = queues.index_of(&app.queue) else {
                continue;
            };
            if state.node(&c.node).is_some_and(|n| !n.partition.is_empty()) {
                continue;
            }
            candidates.push((
                c.id.clone(),
                Candidate {
                    queue: first_leaf + i,
                    app_order: app.arrival.0,
                    priority: c.priority,
                    started: c.started,
                    am: c.is_am(),
                    mb: c.resource.memory_mb,
                },
            ));
        }
        Some((tree, candidates))
    }

    /// Whether `capacity` runs under `DominantResourceCalculator`: its rounds between queues
    /// then weigh every type ([`dominant`]).
    fn dominant_calculator(&self) -> bool {
        self.capacity_queues().is_some()
            && self.config().capacity.calculator() == crate::policy::dominant::Calculator::Dominant
    }

    /// One preemption round at `now_ms` (the RM's clock): what to mark and what to kill.
    pub fn preemption_round(&mut self, now_ms: u64, s: &PreemptionSettings) -> RoundOutcome {
        // A batch of offers ended with its decisions in flight; they may be containers now.
        self.sync_in_flight();
        // Which applications are activated decides what counts as pending: activate those the
        // AM limits admit now, as CapacityScheduler does when an attempt is added or a
        // container ends, not only at a heartbeat with room.
        if self.capacity_queues().is_some() {
            self.sync_pending_and_activate(now_ms);
        }
        let mut within = Vec::new();
        let chosen = match self.preemption_view() {
            Some((tree, candidates)) if self.dominant_calculator() => {
                // Between queues only: intra-queue preemption weighs memory alone, so the
                // shim refuses it with this calculator at start.
                let only: Vec<Candidate> = candidates.iter().map(|(_, c)| c.clone()).collect();
                // The default partition the figures are of: shares compare within it, and the
                // round's part is of it too (of the whole cluster without labelled nodes).
                let cluster = self.state().partition_capacity("");
                let (typed, sizes) = self.typed_preemption_view(&tree).unwrap_or_default();
                dominant::select(&typed, &only, &sizes, &cluster, s)
                    .into_iter()
                    .map(|i| candidates[i].0.clone())
                    .collect()
            }
            Some((mut tree, candidates)) => {
                let cluster = self.state().capacity().memory_mb;
                let only: Vec<Candidate> = candidates.iter().map(|(_, c)| c.clone()).collect();
                let (leaves, jobs) = self.intra_queue_view(&tree);
                intra_queue::cap_pending_by_user_limits(
                    &mut tree,
                    &leaves,
                    &jobs,
                    s.intra_queue.minimum_allocation_mb,
                );
                let mut taken = select(&tree, &only, cluster, s);
                if s.intra_queue.enabled {
                    let spent: u64 = taken.iter().map(|&i| only[i].mb).sum();
                    let budget = round_budget(cluster, s).saturating_sub(spent);
                    let plan = plan(&tree, cluster, s);
                    let view = intra_queue::View {
                        tree: &tree,
                        plan: &plan,
                        containers: &only,
                        leaves: &leaves,
                        jobs: &jobs,
                    };
                    let more = intra_queue::select(&view, &taken, budget, &s.intra_queue);
                    within = more.iter().map(|&i| candidates[i].0.clone()).collect();
                    taken.extend(more);
                }
                taken.into_iter().map(|i| candidates[i].0.clone()).collect()
            }
            None => self.size_based_choice(s, now_ms),
        };
        let mut out = self.preemption_marks.apply(chosen, now_ms, s);
        out.intra_queue = within;
        out
    }

    /// The applications in the job policy's order and their running containers, as a
    /// size-based round sees them; `None` when `locus.preemption.size-based` is off or the
    /// policy has no such order.
    pub fn size_based_view(&self) -> Option<SizeBasedView> {
        if !self.config().preemption_size_based {
            return None;
        }
        let state = self.state();
        let (order, rule) = self.layers.job.entitlement_order(state)?;
        let mut index: FastMap<crate::state::app::Arrival, usize> = FastMap::default();
        // The nodes' free room reduced to the points no other node's room covers (most memory
        // first, each with more vcores than any before it): at most one per distinct vcores
        // figure, so checking a container size costs that, not the node count.
        let mut frontier: Vec<(u64, u32)> = state
            .nodes()
            .map(|n| (n.unallocated.memory_mb, n.unallocated.vcores))
            .collect();
        frontier.sort_unstable_by(|a, b| b.cmp(a));
        let mut most_vcores = None;
        frontier.retain(|&(_, v)| {
            let keep = most_vcores.is_none_or(|m| v > m);
            if keep {
                most_vcores = Some(v);
            }
            keep
        });
        let mut apps = Vec::with_capacity(order.len());
        for arrival in order {
            let Some(app) = state.app(arrival) else {
                continue;
            };
            if index.contains_key(&arrival) {
                continue;
            }
            let mut outstanding = app
                .asks
                .tables()
                .filter_map(|(_, t)| t.row(crate::state::names::ANY_ID))
                .filter(|r| r.count > 0)
                .map(|r| r.capability)
                .peekable();
            let held_back = outstanding.peek().is_some()
                && !outstanding.any(|size| {
                    frontier
                        .iter()
                        .any(|&(m, v)| m >= size.memory_mb && v >= size.vcores)
                });
            index.insert(arrival, apps.len());
            apps.push(Entitled {
                used_mb: app.used.memory_mb,
                pending_mb: pending_mb(app),
                held_back,
            });
        }
        let mut held = Vec::with_capacity(state.containers().len());
        for c in state.containers().iter() {
            let Some(&i) = state.app_by_id(&c.app).and_then(|a| index.get(&a.arrival)) else {
                continue;
            };
            held.push((
                c.id.clone(),
                Held {
                    app: i,
                    started: c.started,
                    am: c.is_am(),
                    mb: c.resource.memory_mb,
                    marked: self.preemption_marks.contains(&c.id),
                },
            ));
        }
        Some((apps, held, rule))
    }

    fn size_based_choice(&mut self, s: &PreemptionSettings, now_ms: u64) -> Vec<String> {
        if !self.config().preemption_size_based {
            return Vec::new();
        }
        // Applications are otherwise activated on a heartbeat with room, which a full cluster
        // never sends: one waiting for its AM would never be held back, only never admitted.
        self.sync_pending_and_activate(now_ms);
        let Some((apps, held, rule)) = self.size_based_view() else {
            return Vec::new();
        };
        let cluster = self.state().capacity().memory_mb;
        let only: Vec<Held> = held.iter().map(|(_, c)| c.clone()).collect();
        select_by_order(&apps, &only, cluster, rule, s)
            .into_iter()
            .map(|i| held[i].0.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1024;

    fn leaf(parent: usize, g: u64, max: u64, used: u64, pending: u64) -> TreeQueue {
        TreeQueue {
            parent: Some(parent),
            guaranteed_mb: g,
            maximum_mb: max,
            used_mb: used,
            pending_mb: pending,
            disable_preemption: false,
        }
    }

    fn root(cluster: u64) -> TreeQueue {
        TreeQueue {
            parent: None,
            guaranteed_mb: cluster,
            maximum_mb: cluster,
            used_mb: 0,
            pending_mb: 0,
            disable_preemption: false,
        }
    }

    fn all_in(s: &mut PreemptionSettings) {
        s.total_preemption_per_round = 1.0;
        s.natural_termination_factor = 1.0;
    }

    fn tasks(queue: usize, app: u64, n: u64, first_start: u64) -> Vec<Candidate> {
        (0..n)
            .map(|i| Candidate {
                queue,
                app_order: app,
                priority: 20,
                started: first_start + i,
                am: false,
                mb: GB,
            })
            .collect()
    }

    fn am(queue: usize, app: u64, started: u64) -> Candidate {
        Candidate {
            queue,
            app_order: app,
            priority: 0,
            started,
            am: true,
            mb: GB,
        }
    }

    #[test]
    fn a_queue_over_its_guarantee_gives_back_what_another_asks_for() {
        let cluster = 8 * GB;
        let q = vec![
            root(cluster),
            leaf(0, 4 * GB, cluster, 8 * GB, 0),
            leaf(0, 4 * GB, cluster, 0, 3 * GB),
        ];
        let mut c = vec![am(1, 1, 0)];
        c.extend(tasks(1, 1, 7, 1));
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        let taken = select(&q, &c, cluster, &s);
        // The three most recently started tasks, newest first; never the AM.
        assert_eq!(taken, vec![7, 6, 5]);
    }

    #[test]
    fn never_below_a_guarantee_and_am_containers_go_last() {
        let cluster = 8 * GB;
        // b asks for the whole cluster: a keeps its 4 GB guarantee whatever b wants.
        let q = vec![
            root(cluster),
            leaf(0, 4 * GB, cluster, 6 * GB, 0),
            leaf(0, 4 * GB, cluster, 2 * GB, 20 * GB),
        ];
        let mut c = vec![am(1, 1, 0), am(1, 2, 1)];
        c.extend(tasks(1, 1, 2, 2));
        c.extend(tasks(1, 2, 2, 4));
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        let taken = select(&q, &c, cluster, &s);
        // The younger app's two tasks, newest first; then a is at its guarantee.
        assert_eq!(taken, vec![5, 4]);
    }

    #[test]
    fn am_containers_are_taken_when_nothing_else_is_left() {
        let cluster = 8 * GB;
        let q = vec![
            root(cluster),
            leaf(0, 2 * GB, cluster, 6 * GB, 0),
            leaf(0, 6 * GB, cluster, 2 * GB, 20 * GB),
        ];
        let c = vec![
            am(1, 1, 0),
            am(1, 2, 1),
            am(1, 3, 2),
            Candidate {
                priority: 20,
                am: false,
                ..am(1, 1, 3)
            },
            am(1, 4, 4),
            am(1, 5, 5),
        ];
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        let taken = select(&q, &c, cluster, &s);
        assert_eq!(taken[0], 3, "the one task first");
        assert_eq!(
            &taken[1..],
            &[5, 4, 2],
            "then the youngest apps' AMs, down to the guarantee"
        );
    }

    #[test]
    fn lower_priority_containers_go_before_higher_ones() {
        let cluster = 8 * GB;
        let q = vec![
            root(cluster),
            leaf(0, 4 * GB, cluster, 8 * GB, 0),
            leaf(0, 4 * GB, cluster, 0, GB),
        ];
        let mut c = tasks(1, 1, 8, 0);
        c[0].priority = 30; // oldest, but the lowest priority
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        assert_eq!(select(&q, &c, cluster, &s), vec![0]);
    }

    #[test]
    fn nothing_is_taken_from_a_queue_within_its_guarantee_or_without_demand() {
        let cluster = 8 * GB;
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        // Nobody waits.
        let q = vec![
            root(cluster),
            leaf(0, 4 * GB, cluster, 8 * GB, 0),
            leaf(0, 4 * GB, cluster, 0, 0),
        ];
        assert!(select(&q, &tasks(1, 1, 8, 0), cluster, &s).is_empty());
        // b waits, but b already holds its guarantee and a is within its own.
        let q = vec![
            root(cluster),
            leaf(0, 4 * GB, cluster, 4 * GB, 0),
            leaf(0, 4 * GB, cluster, 4 * GB, 4 * GB),
        ];
        let mut c = tasks(1, 1, 4, 0);
        c.extend(tasks(2, 2, 4, 4));
        assert!(select(&q, &c, cluster, &s).is_empty());
    }

    #[test]
    fn disable_preemption_keeps_a_queue_whole() {
        let cluster = 8 * GB;
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        let mut q = vec![
            root(cluster),
            leaf(0, 4 * GB, cluster, 8 * GB, 0),
            leaf(0, 4 * GB, cluster, 0, 4 * GB),
        ];
        q[1].disable_preemption = true;
        assert!(select(&q, &tasks(1, 1, 8, 0), cluster, &s).is_empty());
    }

    #[test]
    fn ancestors_count_a_parent_within_its_guarantee_keeps_its_leaves() {
        // root → p (50 %) → a (25 %), b (25 %); c (50 %) under root.
        let cluster = 8 * GB;
        let mut s = PreemptionSettings::default();
        all_in(&mut s);
        let q = vec![
            root(cluster),
            TreeQueue {
                parent: Some(0),
                guaranteed_mb: 4 * GB,
                maximum_mb: cluster,
                used_mb: 0,
                pending_mb: 0,
                disable_preemption: false,
            },
            leaf(1, 2 * GB, cluster, 4 * GB, 0),
            leaf(1, 2 * GB, cluster, 0, 0),
            leaf(0, 4 * GB, cluster, 4 * GB, 4 * GB),
        ];
        let mut c = tasks(2, 1, 4, 0);
        c.extend(tasks(4, 2, 4, 4));
        // a is over its own guarantee, but p is within its: c may not take from a.
        assert!(select(&q, &c, cluster, &s).is_empty());
        // With c idle and asking, p over its guarantee gives back, from a.
        let mut q2 = q.clone();
        q2[2].used_mb = 6 * GB;
        q2[4].used_mb = 2 * GB;
        let mut c = tasks(2, 1, 6, 0);
        c.extend(tasks(4, 2, 2, 6));
        let taken = select(&q2, &c, cluster, &s);
        assert_eq!(taken, vec![5, 4]);
    }

    #[test]
    fn a_round_takes_no_more_than_total_preemption_per_round() {
        let cluster = 20 * GB;
        let q = vec![
            root(cluster),
            leaf(0, 10 * GB, cluster, 20 * GB, 0),
            leaf(0, 10 * GB, cluster, 0, 10 * GB),
        ];
        let s = PreemptionSettings {
            natural_termination_factor: 1.0,
            total_preemption_per_round: 0.1, // 2 GB of 20
            ..PreemptionSettings::default()
        };
        assert_eq!(select(&q, &tasks(1, 1, 20, 0), cluster, &s).len(), 2);
    }

    #[test]
    fn natural_termination_factor_and_max_ignored_over_capacity_damp_a_round() {
        let cluster = 20 * GB;
        let mut s = PreemptionSettings {
            total_preemption_per_round: 1.0,
            natural_termination_factor: 0.2,
            ..PreemptionSettings::default()
        };
        let q = vec![
            root(cluster),
            leaf(0, 10 * GB, cluster, 20 * GB, 0),
            leaf(0, 10 * GB, cluster, 0, 10 * GB),
        ];
        // 10 GB over, a fifth of it per round.
        assert_eq!(select(&q, &tasks(1, 1, 20, 0), cluster, &s).len(), 2);
        // Within max_ignored_over_capacity of its guarantee: left alone.
        s.max_ignored_over_capacity = 1.5;
        assert!(select(&q, &tasks(1, 1, 20, 0), cluster, &s).is_empty());
    }

    fn entitled(used_gb: u64, pending_gb: u64, held_back: bool) -> Entitled {
        Entitled {
            used_mb: used_gb * GB,
            pending_mb: pending_gb * GB,
            held_back,
        }
    }

    fn held(app: usize, n: u64, first_start: u64) -> Vec<Held> {
        (0..n)
            .map(|i| Held {
                app,
                started: first_start + i,
                am: false,
                mb: GB,
                marked: false,
            })
            .collect()
    }

    #[test]
    fn entitlements_in_order_and_max_min_fair() {
        let apps = vec![
            entitled(0, 3, true),
            entitled(4, 10, false),
            entitled(4, 0, false),
        ];
        let e = entitlements(&apps, 8 * GB, ShareRule::InOrder);
        assert_eq!(e, vec![3 * GB, 5 * GB, 0]);
        // Max-min: the smallest demand (1 GB) whole, equal parts of the rest to the others.
        let mut apps = apps;
        apps[0].pending_mb = GB;
        let e = entitlements(&apps, 8 * GB, ShareRule::Equal);
        assert_eq!(e, vec![GB, GB * 7 / 2, GB * 7 / 2]);
    }

    #[test]
    fn in_order_the_latest_application_gives_back_first_youngest_first() {
        let apps = vec![
            entitled(0, 2, true),
            entitled(4, 10, false),
            entitled(4, 10, false),
        ];
        let mut c = held(1, 4, 0);
        c.extend(held(2, 4, 4));
        let s = PreemptionSettings {
            total_preemption_per_round: 1.0,
            ..PreemptionSettings::default()
        };
        assert_eq!(
            select_by_order(&apps, &c, 8 * GB, ShareRule::InOrder, &s),
            vec![7, 6]
        );
        // Not held back (room fits its next container somewhere): nothing.
        let mut free = apps.clone();
        free[0].held_back = false;
        assert!(select_by_order(&free, &c, 8 * GB, ShareRule::InOrder, &s).is_empty());
    }

    #[test]
    fn a_round_stays_within_its_budget_and_keeps_each_victims_entitlement() {
        let apps = vec![entitled(0, 8, true), entitled(8, 0, false)];
        let c = held(1, 8, 0);
        let s = PreemptionSettings {
            total_preemption_per_round: 0.25,
            ..PreemptionSettings::default()
        };
        assert_eq!(
            select_by_order(&apps, &c, 8 * GB, ShareRule::InOrder, &s).len(),
            2
        );
        // Under fair the victim keeps its half however much the other asks for.
        let s = PreemptionSettings {
            total_preemption_per_round: 1.0,
            ..PreemptionSettings::default()
        };
        assert_eq!(
            select_by_order(&apps, &c, 8 * GB, ShareRule::Equal, &s),
            vec![7, 6, 5, 4]
        );
    }

    #[test]
    fn am_containers_are_never_taken_and_marked_ones_go_first() {
        let apps = vec![entitled(0, 4, true), entitled(4, 0, false)];
        let mut c = held(1, 4, 0);
        c[0].am = true;
        c[1].marked = true;
        let s = PreemptionSettings {
            total_preemption_per_round: 1.0,
            ..PreemptionSettings::default()
        };
        let taken = select_by_order(&apps, &c, 4 * GB, ShareRule::InOrder, &s);
        assert_eq!(
            taken,
            vec![1, 3, 2],
            "the marked one, then the youngest; not the AM"
        );
    }

    #[test]
    fn marks_then_kills_after_the_wait_and_forgets_stale_marks() {
        let s = PreemptionSettings {
            max_wait_before_kill_ms: 3000,
            ..PreemptionSettings::default()
        };
        let mut m = Marks::default();
        let ids = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let r = m.apply(ids(&["c1", "c2"]), 1000, &s);
        assert_eq!(r.mark, ids(&["c1", "c2"]));
        assert!(r.kill.is_empty());
        let r = m.apply(ids(&["c1", "c2"]), 2000, &s);
        assert!(
            r.mark.is_empty() && r.kill.is_empty(),
            "marked once, not again"
        );
        let r = m.apply(ids(&["c1"]), 4000, &s);
        assert_eq!(r.kill, ids(&["c1"]));
        // c2 was not chosen again; its mark is forgotten after twice the wait.
        m.apply(Vec::new(), 7001, &s);
        assert!(m.is_empty());
        let r = m.apply(ids(&["c2"]), 7002, &s);
        assert_eq!(r.mark, ids(&["c2"]), "a fresh mark, not a kill");
    }

    #[test]
    fn observe_only_marks_nothing() {
        let s = PreemptionSettings {
            observe_only: true,
            ..PreemptionSettings::default()
        };
        let mut m = Marks::default();
        let r = m.apply(vec!["c1".into()], 0, &s);
        assert!(r.mark.is_empty() && r.kill.is_empty());
        assert_eq!(r.selected, vec!["c1".to_string()]);
        assert!(m.is_empty());
    }

    #[test]
    fn settings_parse_with_cs_defaults_and_name_a_bad_key() {
        let mut p = BTreeMap::new();
        assert_eq!(
            PreemptionSettings::parse(&p).unwrap(),
            PreemptionSettings::default()
        );
        p.insert(format!("{PREFIX}monitoring_interval"), "1000".into());
        p.insert(format!("{PREFIX}max_wait_before_kill"), " 3000 ".into());
        p.insert(format!("{PREFIX}observe_only"), "TRUE".into());
        let s = PreemptionSettings::parse(&p).unwrap();
        assert_eq!(
            (
                s.monitoring_interval_ms,
                s.max_wait_before_kill_ms,
                s.observe_only
            ),
            (1000, 3000, true)
        );
        p.insert(format!("{PREFIX}total_preemption_per_round"), "lots".into());
        let e = PreemptionSettings::parse(&p).unwrap_err().to_string();
        assert!(
            e.contains("total_preemption_per_round") && e.contains("lots"),
            "{e}"
        );
        let mut p = BTreeMap::new();
        p.insert(
            format!("{PREFIX}select_on_reserved_containers"),
            "true".into(),
        );
        let e = PreemptionSettings::parse(&p).unwrap_err().to_string();
        assert!(e.contains("select_on_reserved_containers"), "{e}");
    }

    #[test]
    fn intra_queue_keys_parse_with_cs_defaults() {
        let mut p = BTreeMap::new();
        let s = PreemptionSettings::parse(&p).unwrap().intra_queue;
        assert_eq!(s, IntraQueueSettings::default());
        assert!(!s.enabled);
        assert_eq!(
            (s.minimum_threshold, s.max_allowable_limit, s.order),
            (0.5, 0.2, IntraQueueOrder::UserlimitFirst)
        );
        p.insert(
            format!("{PREFIX}intra-queue-preemption.enabled"),
            "TRUE".into(),
        );
        p.insert(
            format!("{PREFIX}intra-queue-preemption.preemption-order-policy"),
            "PRIORITY_FIRST".into(),
        );
        p.insert(
            format!("{PREFIX}intra-queue-preemption.minimum-threshold"),
            "0.3".into(),
        );
        p.insert(
            format!("{PREFIX}intra-queue-preemption.max-allowable-limit"),
            "0.4".into(),
        );
        p.insert(intra_queue::MINIMUM_ALLOCATION_KEY.into(), "512".into());
        let s = PreemptionSettings::parse(&p).unwrap().intra_queue;
        assert_eq!(
            s,
            IntraQueueSettings {
                enabled: true,
                minimum_threshold: 0.3,
                max_allowable_limit: 0.4,
                order: IntraQueueOrder::PriorityFirst,
                minimum_allocation_mb: 512,
            }
        );
    }

    #[test]
    fn user_limits_for_all_users_as_capacity_scheduler_computes_them() {
        use crate::policy::capacity::UserLimit;
        let ul = |ulf: f64, mulp: f64| {
            Some(UserLimit {
                user_limit_factor: ulf,
                minimum_user_limit_percent: mulp,
            })
        };
        // Queue at its guarantee (8 GB): its use plus one minimum allocation, split.
        assert_eq!(
            intra_queue::user_limit_mb(8 * GB, 8 * GB, 8 * GB, 2, ul(1.0, 50.0), GB),
            5 * GB
        );
        // Below its guarantee: the guarantee, split; minimum-user-limit-percent binds first.
        assert_eq!(
            intra_queue::user_limit_mb(8 * GB, 8 * GB, 2 * GB, 4, ul(1.0, 50.0), GB),
            4 * GB
        );
        assert_eq!(
            intra_queue::user_limit_mb(8 * GB, 8 * GB, 2 * GB, 4, ul(1.0, 25.0), GB),
            2 * GB
        );
        // One user: at most user-limit-factor times the guarantee, or the maximum with -1.
        assert_eq!(
            intra_queue::user_limit_mb(4 * GB, 8 * GB, 6 * GB, 1, ul(1.0, 100.0), GB),
            4 * GB
        );
        assert_eq!(
            intra_queue::user_limit_mb(4 * GB, 8 * GB, 6 * GB, 1, ul(-1.0, 100.0), GB),
            7 * GB
        );
        // No per-user bound: never binds.
        assert!(intra_queue::user_limit_mb(4 * GB, 8 * GB, 6 * GB, 1, None, GB) > 1 << 40);
    }
}
