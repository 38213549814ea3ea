//! The queue tree of the operator's `capacity-scheduler.xml`, as the shim read it with
//! CapacityScheduler's own parser and hands it over in `locus.capacity.tree`: every queue with
//! its capacity and maximum-capacity in percent of its parent (or, in absolute mode, its
//! configured resources, from which [`AbsoluteCapacities`] derives the percentages for the
//! cluster of the moment), and each leaf's limits. Here it
//! is checked with CapacityScheduler's rules and flattened into leaves that carry their absolute
//! capacities and their ancestors' absolute maxima, which is all the policy needs.
//!
//! Errors name the `yarn.scheduler.capacity.<path>.<key>` the operator wrote, not the internal
//! key: that is the file they will open.
//!
//! With the legacy queue mode off (`vector`), every queue carries its capacity vectors
//! (`[memory=50%,vcores=2w]`, read by the shim with CapacityScheduler's parser), resolved against
//! the cluster as CapacityScheduler resolves them ([`AbsoluteCapacities`] again, vector mode).

use serde::Deserialize;

use super::capacity::{
    CapacityQueue, CapacityQueues, FairOrdering, ParentQueue, QueueState, UserLimit,
};
use super::dominant::Calculator;
use crate::error::CoreError;
use crate::protocol::Resource;

pub const CAPACITY_TREE: &str = "locus.capacity.tree";
/// The prefix of every CapacityScheduler key.
pub const CS_PREFIX: &str = "yarn.scheduler.capacity.";

/// A tree larger than this is refused: the policy walks it on every heartbeat.
pub const MAX_TREE_QUEUES: usize = 4096;
/// Deeper paths are refused (CapacityScheduler has no limit; no real tree comes close).
pub const MAX_TREE_DEPTH: usize = 32;
/// Capacities are floats; their sum may be off by rounding (33.33 × 3).
const SUM_TOLERANCE: f64 = 0.01;
/// Node partitions a file may divide among its queues; each queue keeps a share of each, read
/// on the heartbeats of that partition's nodes.
pub const MAX_TREE_PARTITIONS: usize = 64;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Tree {
    /// What the file asks for that Locus cannot do (the legacy auto-created queues, capacity
    /// modes mixed as CapacityScheduler refuses, vector entries of other resource types),
    /// found by the shim; refused here under every policy.
    #[serde(default)]
    refused: Option<Refused>,
    /// The legacy queue mode is off: every queue has capacity vectors, any mix allowed.
    #[serde(default)]
    vector: bool,
    /// `yarn.scheduler.capacity.maximum-applications`.
    maximum_applications: i64,
    /// The node partitions (labels) the file gives queues capacities in; a queue's share of
    /// each is in its entry's `partitions`.
    #[serde(default)]
    partitions: Vec<String>,
    /// `yarn.scheduler.capacity.resource-calculator`: `default` or `dominant`.
    #[serde(default)]
    resource_calculator: Calculator,
    /// `yarn.scheduler.capacity.user.max-parallel-apps`; `None`: not set (no limit).
    #[serde(default)]
    user_max_parallel_apps: Option<i64>,
    /// `yarn.scheduler.capacity.user.<name>.max-parallel-apps`, by user name.
    #[serde(default)]
    users_max_parallel_apps: std::collections::BTreeMap<String, i64>,
    queues: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Refused {
    key: String,
    message: String,
}

/// One queue as the file configures it (CapacityScheduler's getters, defaults applied).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    /// Percent of the parent.
    capacity: f64,
    /// Percent of the parent's maximum.
    maximum_capacity: f64,
    /// `None`: not set, inherited from the parent (root: RUNNING).
    #[serde(default)]
    state: Option<QueueState>,
    user_limit_factor: f64,
    minimum_user_limit_percent: f64,
    /// A fraction (0.1 = 10 %), as the file writes it.
    maximum_am_resource_percent: f64,
    /// -1: not set (the system-wide maximum times the queue's absolute capacity).
    maximum_applications: i64,
    /// `disable_preemption`; `None`: not set, inherited from the parent (root: false).
    #[serde(default)]
    disable_preemption: Option<bool>,
    /// `intra-queue-preemption.disable_preemption`; `None`: not set, inherited from the parent
    /// (root: false).
    #[serde(default)]
    intra_queue_disable_preemption: Option<bool>,
    /// `capacity=[memory=...,vcores=...]`: the queue's configured minimum (absolute mode; its
    /// `capacity` is then 0 and its percentages follow the cluster).
    #[serde(default)]
    minimum_resource: Option<Resource>,
    /// `maximum-capacity=[...]` in absolute mode; `None`: inherited from the parent.
    #[serde(default)]
    maximum_resource: Option<Resource>,
    /// The capacity vector (legacy queue mode off); a type it does not name gets nothing.
    #[serde(default)]
    capacity_vector: Option<Vector>,
    /// The maximum-capacity vector (legacy queue mode off), every type named.
    #[serde(default)]
    maximum_vector: Option<Vector>,
    /// A parent even with no children yet: one that creates its children on the fly
    /// (`auto-queue-creation-v2.enabled`), which CapacityScheduler never runs applications in.
    #[serde(default)]
    parent: bool,
    /// A leaf created on a submission (`auto-queue-creation-v2`): it leaves the tree when
    /// idle without being STOPPED first, as CapacityScheduler removes its dynamic queues.
    #[serde(default)]
    created: bool,
    /// A managed parent (`auto-create-child-queue.enabled`): CapacityScheduler's management
    /// policy gives its created leaves at most its guarantee, so their capacities may sum below
    /// 100 (never above).
    #[serde(default)]
    managed: bool,
    /// Per node partition of the tree's `partitions`: the queue's absolute capacity and
    /// absolute maximum-capacity there, in percent of the partition (CapacityScheduler's
    /// products down the path of `accessible-node-labels.<label>.capacity` and
    /// `.maximum-capacity`). A partition not listed: 0 and 0, as CapacityScheduler gives a
    /// queue in a partition it configures nothing for.
    #[serde(default)]
    partitions: std::collections::BTreeMap<String, [f64; 2]>,
    /// A leaf's `ordering-policy`: `fifo` (the default) or `fair`.
    #[serde(default)]
    ordering: Option<Ordering>,
    /// `ordering-policy.fair.enable-size-based-weight` of a fair leaf.
    #[serde(default)]
    size_based_weight: bool,
    /// `max-parallel-apps` as in force: the queue's own, else the file's
    /// `yarn.scheduler.capacity.max-parallel-apps`; `None`: neither is set (no limit).
    #[serde(default)]
    max_parallel_apps: Option<i64>,
}

/// How a leaf orders its applications (CapacityScheduler's `ordering-policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Ordering {
    Fifo,
    Fair,
}

/// How a capacity vector gives one resource type (CapacityScheduler's `ResourceUnitCapacityType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// Percent of the parent's effective minimum (maximum, for a maximum).
    Percentage,
    /// An amount (MB, vcores).
    Absolute,
    /// A share of what the siblings' percentages and amounts leave, by weight.
    Weight,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct VectorEntry {
    kind: Kind,
    value: f64,
}

/// One queue's vector for the resource types the core schedules.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Vector {
    #[serde(default)]
    memory: Option<VectorEntry>,
    #[serde(default)]
    vcores: Option<VectorEntry>,
}

impl Vector {
    fn get(&self, r: usize) -> Option<VectorEntry> {
        if r == 0 {
            self.memory
        } else {
            self.vcores
        }
    }
}

/// CapacityScheduler's default `yarn.scheduler.capacity.maximum-applications`.
pub const DEFAULT_MAXIMUM_APPLICATIONS: u32 = 10_000;

/// The application counts the RM holds at most outside a leaf's own limits, as CapacityScheduler
/// computes them: the system-wide `maximum-applications` under every policy, and the limits of
/// the one queue every application runs in outside `capacity` (CapacityScheduler's `root.default`
/// given the whole cluster, with that queue's keys when the file configures it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubmissionLimits {
    pub system: u32,
    pub one_queue: u32,
    pub one_queue_per_user: u32,
}

impl Default for SubmissionLimits {
    fn default() -> Self {
        SubmissionLimits {
            system: DEFAULT_MAXIMUM_APPLICATIONS,
            one_queue: DEFAULT_MAXIMUM_APPLICATIONS,
            one_queue_per_user: DEFAULT_MAXIMUM_APPLICATIONS,
        }
    }
}

/// A leaf's per-user maximum, CapacityScheduler's `updateMaxAppsPerUser`: the queue's maximum
/// scaled by minimum-user-limit-percent and user-limit-factor, never above it (a negative
/// factor: no per-user scaling).
fn per_user_maximum(maximum: u32, user_limit_factor: f64, minimum_user_limit_percent: f64) -> u32 {
    if user_limit_factor < 0.0 {
        return maximum;
    }
    let f = maximum as f64 * (minimum_user_limit_percent / 100.0) * user_limit_factor;
    f.min(maximum as f64) as u32
}

/// A leaf's maximum-applications: its own key, else the system-wide maximum times its absolute
/// capacity (percent).
fn queue_maximum(configured: i64, system: i64, absolute_capacity: f64) -> u32 {
    let m = if configured >= 0 {
        configured
    } else {
        (system as f64 * absolute_capacity / 100.0) as i64
    };
    m.clamp(0, u32::MAX as i64) as u32
}

/// The limits of [`SubmissionLimits`] from the shim's tree (`None`: no file, CapacityScheduler's
/// defaults). What the file asks for that only `capacity` would refuse does not matter here.
pub fn submission_limits(value: Option<&str>) -> Result<SubmissionLimits, CoreError> {
    let Some(value) = value else {
        return Ok(SubmissionLimits::default());
    };
    let tree: Tree = serde_json::from_str(value).map_err(|e| CoreError::Config {
        key: CAPACITY_TREE.to_string(),
        message: format!(
            "is set by the Locus shim from capacity-scheduler.xml and is not meant to be written by hand: {e}"
        ),
    })?;
    let system = tree.maximum_applications.clamp(0, u32::MAX as i64);
    let (one_queue, one_queue_per_user) =
        match tree.queues.iter().find(|e| e.path == "root.default") {
            Some(e) => {
                let m = queue_maximum(e.maximum_applications, system, 100.0);
                (
                    m,
                    per_user_maximum(m, e.user_limit_factor, e.minimum_user_limit_percent),
                )
            }
            None => (system as u32, system as u32),
        };
    Ok(SubmissionLimits {
        system: system as u32,
        one_queue,
        one_queue_per_user,
    })
}

/// The running-application limits of the file ([`crate::state::parallel`]) whatever the
/// policy: `queues_in_force` when the file's queues are the ones applications run in
/// (`capacity`), else every application counts against the limits of `root` and, when the file
/// has one leaf, of every queue (all on the path of the one queue applications run in). A
/// negative limit is refused naming its key.
pub fn parallel_limits(
    value: Option<&str>,
    queues_in_force: bool,
) -> Result<crate::state::parallel::ParallelLimits, CoreError> {
    use crate::state::parallel::{ParallelLimits, QueueLimit};
    let Some(value) = value else {
        return Ok(ParallelLimits::default());
    };
    let tree = read(value)?;
    let limit = |key: String, v: i64| -> Result<u32, CoreError> {
        if v < 0 {
            return Err(CoreError::Config {
                key,
                message: format!("{v} is negative; give how many applications may run at once"),
            });
        }
        Ok(v.min(u32::MAX as i64) as u32)
    };
    let parents: std::collections::HashSet<&str> = tree
        .queues
        .iter()
        .filter_map(|e| parent_of(&e.path))
        .collect();
    let leaves = tree
        .queues
        .iter()
        .filter(|e| !parents.contains(e.path.as_str()) && !e.parent)
        .count();
    let mut out = ParallelLimits {
        one_queue: !queues_in_force,
        ..Default::default()
    };
    for e in &tree.queues {
        let Some(v) = e.max_parallel_apps else {
            continue;
        };
        let l = limit(format!("{CS_PREFIX}{}.max-parallel-apps", e.path), v)?;
        if queues_in_force || e.path == "root" || leaves == 1 {
            out.queues.push(QueueLimit {
                path: e.path.clone(),
                limit: l,
            });
        }
    }
    if queues_in_force {
        for e in &tree.queues {
            if !parents.contains(e.path.as_str()) && !e.parent {
                out.leaf_paths
                    .insert(short_name(&e.path).to_string(), e.path.clone());
            }
        }
    }
    if let Some(v) = tree.user_max_parallel_apps {
        out.user_default = Some(limit(format!("{CS_PREFIX}user.max-parallel-apps"), v)?);
    }
    for (user, v) in &tree.users_max_parallel_apps {
        let l = limit(format!("{CS_PREFIX}user.{user}.max-parallel-apps"), *v)?;
        out.users.insert(user.clone(), l);
    }
    Ok(out)
}

fn bad(path: &str, key: &str, message: String) -> CoreError {
    CoreError::Config {
        key: format!("{CS_PREFIX}{path}.{key}"),
        message,
    }
}

fn parent_of(path: &str) -> Option<&str> {
    path.rfind('.').map(|i| &path[..i])
}

fn short_name(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// What the file asks for that Locus cannot do, refused whatever the policy (a file whose
/// queues would be dropped must not start silently), else how many leaf queues it defines.
pub fn leaves_or_refusal(value: &str) -> Result<usize, CoreError> {
    let tree = read(value)?;
    if let Some(r) = tree.refused {
        return Err(CoreError::Config {
            key: r.key,
            message: r.message,
        });
    }
    let parents: std::collections::HashSet<&str> = tree
        .queues
        .iter()
        .filter_map(|e| parent_of(&e.path))
        .collect();
    Ok(tree
        .queues
        .iter()
        .filter(|e| !parents.contains(e.path.as_str()))
        .count())
}

fn read(value: &str) -> Result<Tree, CoreError> {
    serde_json::from_str(value).map_err(|e| CoreError::Config {
        key: CAPACITY_TREE.to_string(),
        message: format!(
            "is set by the Locus shim from capacity-scheduler.xml and is not meant to be written by hand: {e}"
        ),
    })
}

/// Parses and checks the shim's JSON; every error names the file's key.
pub fn parse(value: &str) -> Result<CapacityQueues, CoreError> {
    let tree = read(value)?;
    if let Some(r) = tree.refused {
        return Err(CoreError::Config {
            key: r.key,
            message: r.message,
        });
    }
    if tree.queues.len() > MAX_TREE_QUEUES {
        return Err(CoreError::Config {
            key: format!("{CS_PREFIX}root.queues"),
            message: format!(
                "{} queues configured; Locus schedules at most {MAX_TREE_QUEUES}",
                tree.queues.len()
            ),
        });
    }
    if tree.partitions.len() > MAX_TREE_PARTITIONS {
        return Err(CoreError::Config {
            key: format!("{CS_PREFIX}root.accessible-node-labels"),
            message: format!(
                "capacities in {} node partitions configured; Locus divides at most {MAX_TREE_PARTITIONS}",
                tree.partitions.len()
            ),
        });
    }
    let entries = &tree.queues;
    for e in entries {
        for (label, [cap, max]) in &e.partitions {
            if !tree.partitions.contains(label) {
                return Err(bad(
                    &e.path,
                    &format!("accessible-node-labels.{label}.capacity"),
                    "names a partition the tree does not list".into(),
                ));
            }
            for (v, what) in [(cap, "capacity"), (max, "maximum-capacity")] {
                if !(0.0..=100.0).contains(v) {
                    return Err(bad(
                        &e.path,
                        &format!("accessible-node-labels.{label}.{what}"),
                        format!("{v} is not a percentage from 0 to 100"),
                    ));
                }
            }
        }
    }
    let shares_of = |e: &Entry| -> Vec<(f64, f64)> {
        tree.partitions
            .iter()
            .map(|p| e.partitions.get(p).map_or((0.0, 0.0), |[c, m]| (*c, *m)))
            .collect()
    };
    if entries.first().map(|e| e.path.as_str()) != Some("root") {
        return Err(CoreError::Config {
            key: CAPACITY_TREE.to_string(),
            message: "the tree must start with root".into(),
        });
    }
    // Checks each entry's own values and finds its parent (listed before it).
    let mut parent: Vec<Option<usize>> = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if e.path.split('.').count() > MAX_TREE_DEPTH {
            return Err(bad(
                &e.path,
                "queues",
                format!("deeper than {MAX_TREE_DEPTH} levels"),
            ));
        }
        if entries[..i].iter().any(|o| o.path == e.path) {
            return Err(bad(&e.path, "queues", "queue listed twice".into()));
        }
        let p = match parent_of(&e.path) {
            None if i == 0 => None,
            None => return Err(bad(&e.path, "queues", "queue outside root".into())),
            Some(pp) => match entries[..i].iter().position(|o| o.path == pp) {
                Some(j) => Some(j),
                None => return Err(bad(&e.path, "queues", format!("parent {pp} not listed"))),
            },
        };
        parent.push(p);
        if !(0.0..=100.0).contains(&e.capacity) {
            return Err(bad(
                &e.path,
                "capacity",
                format!("{} is not a percentage from 0 to 100", e.capacity),
            ));
        }
        // A maximum below the capacity (or the share a weight gives) is not checked, as
        // CapacityScheduler's legacy mode does not check it: the queue keeps its guarantee on
        // paper and never grows past its maximum.
        if !(0.0..=100.0).contains(&e.maximum_capacity) {
            return Err(bad(
                &e.path,
                "maximum-capacity",
                format!("{} is not a percentage from 0 to 100", e.maximum_capacity),
            ));
        }
        if !(e.user_limit_factor > 0.0 || e.user_limit_factor == -1.0) {
            return Err(bad(
                &e.path,
                "user-limit-factor",
                format!(
                    "{} is neither above 0 nor -1 (no limit)",
                    e.user_limit_factor
                ),
            ));
        }
        if !(e.minimum_user_limit_percent > 0.0 && e.minimum_user_limit_percent <= 100.0) {
            return Err(bad(
                &e.path,
                "minimum-user-limit-percent",
                format!(
                    "{} is not above 0 and at most 100",
                    e.minimum_user_limit_percent
                ),
            ));
        }
        if !(0.0..=1.0).contains(&e.maximum_am_resource_percent) {
            return Err(bad(
                &e.path,
                "maximum-am-resource-percent",
                format!(
                    "{} is not a fraction from 0 to 1",
                    e.maximum_am_resource_percent
                ),
            ));
        }
    }
    let mut kids_of: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    for (c, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            kids_of[*p].push(c);
        }
    }
    if tree.vector {
        for e in entries.iter().skip(1) {
            let Some(max) = e.maximum_vector else {
                return Err(bad(&e.path, "maximum-capacity", "no maximum vector".into()));
            };
            let cap = e.capacity_vector.unwrap_or_default();
            for r in 0..2 {
                if max.get(r).is_none() {
                    return Err(bad(
                        &e.path,
                        "maximum-capacity",
                        "a resource type missing".into(),
                    ));
                }
                if cap.get(r).is_some() && max.get(r).map(|m| m.kind) == Some(Kind::Weight) {
                    return Err(bad(
                        &e.path,
                        "maximum-capacity",
                        "a weight is no maximum (CapacityScheduler refuses it too)".into(),
                    ));
                }
            }
        }
    }
    for (i, e) in entries.iter().enumerate() {
        let kids = &kids_of[i];
        if kids.is_empty() || tree.vector {
            // With the legacy queue mode off CapacityScheduler allows every mix and checks no sum.
            continue;
        }
        let absolute = kids
            .iter()
            .filter(|&&c| entries[c].minimum_resource.is_some())
            .count();
        if absolute > 0 || (i != 0 && e.minimum_resource.is_some()) {
            // The shim refuses these mixes with CapacityScheduler's words; a hand-made tree
            // is refused here.
            if absolute < kids.len() || (i != 0 && e.minimum_resource.is_none()) {
                return Err(bad(
                    &e.path,
                    "queues",
                    format!(
                        "{} and its children must all use absolute resources",
                        e.path
                    ),
                ));
            }
            let sum: u64 = kids
                .iter()
                .filter_map(|&c| entries[c].minimum_resource)
                .map(|r| r.memory_mb)
                .sum();
            if let Some(own) = e.minimum_resource {
                if own.memory_mb < sum {
                    return Err(bad(
                        &e.path,
                        "capacity",
                        format!("{} MB is less than its children's {sum} MB", own.memory_mb),
                    ));
                }
            }
            continue;
        }
        let sum: f64 = kids.iter().map(|&c| entries[c].capacity).sum();
        let off = if e.managed {
            sum - 100.0 > SUM_TOLERANCE
        } else {
            (sum - 100.0).abs() > SUM_TOLERANCE
        };
        if off {
            return Err(bad(
                &e.path,
                "queues",
                format!(
                    "the capacities of {}'s children sum to {sum}, not 100",
                    e.path
                ),
            ));
        }
    }
    let system_max_apps = tree.maximum_applications.max(0);
    let mut abs_cap = vec![0.0f64; entries.len()];
    let mut abs_max = vec![0.0f64; entries.len()];
    let mut state = vec![QueueState::Running; entries.len()];
    let mut no_preemption = vec![false; entries.len()];
    let mut no_intra = vec![false; entries.len()];
    let mut parents = Vec::new();
    let mut parent_slot = vec![usize::MAX; entries.len()];
    let mut leaves: Vec<CapacityQueue> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let (pcap, pmax, pstate) = match parent[i] {
            Some(p) => (abs_cap[p], abs_max[p], state[p]),
            None => (100.0, 100.0, QueueState::Running),
        };
        if i == 0 {
            abs_cap[i] = 100.0;
            abs_max[i] = 100.0;
        } else {
            abs_cap[i] = pcap * e.capacity / 100.0;
            abs_max[i] = pmax * e.maximum_capacity / 100.0;
        }
        // A queue under a stopped parent is stopped whatever it says (CapacityScheduler will not
        // run a child of a stopped parent).
        state[i] = match (pstate, e.state) {
            (QueueState::Stopped, _) => QueueState::Stopped,
            (_, Some(s)) => s,
            (_, None) => pstate,
        };
        no_preemption[i] = e
            .disable_preemption
            .unwrap_or_else(|| parent[i].is_some_and(|p| no_preemption[p]));
        no_intra[i] = e
            .intra_queue_disable_preemption
            .unwrap_or_else(|| parent[i].is_some_and(|p| no_intra[p]));
        let mut ancestors = Vec::new();
        let mut p = parent[i];
        while let Some(j) = p {
            if j != 0 {
                ancestors.push(parent_slot[j]);
            }
            p = parent[j];
        }
        if !kids_of[i].is_empty() || (i != 0 && e.parent) {
            if i != 0 {
                parent_slot[i] = parents.len();
                parents.push(ParentQueue {
                    path: e.path.clone(),
                    capacity: abs_cap[i],
                    maximum_capacity: abs_max[i],
                    disable_preemption: no_preemption[i],
                    partition_shares: shares_of(e),
                });
            }
            continue;
        }
        if i == 0 {
            return Err(bad("root", "queues", "root has no queues".into()));
        }
        let name = short_name(&e.path);
        if let Some(other) = leaves.iter().find(|l| l.name == name) {
            return Err(bad(
                parent_of(&e.path).unwrap_or("root"),
                "queues",
                format!(
                    "leaf queue {} has the same name as {}; Locus needs leaf queue names to be unique (applications name leaves by their short name)",
                    e.path, other.path
                ),
            ));
        }
        let maximum_applications =
            queue_maximum(e.maximum_applications, system_max_apps, abs_cap[i]);
        let per_user = per_user_maximum(
            maximum_applications,
            e.user_limit_factor,
            e.minimum_user_limit_percent,
        );
        leaves.push(CapacityQueue {
            name: name.to_string(),
            path: e.path.clone(),
            capacity: abs_cap[i],
            maximum_capacity: abs_max[i],
            user_limit: Some(UserLimit {
                user_limit_factor: e.user_limit_factor,
                minimum_user_limit_percent: e.minimum_user_limit_percent,
            }),
            maximum_am_resource_percent: e.maximum_am_resource_percent,
            maximum_applications: Some(maximum_applications),
            maximum_applications_per_user: Some(per_user),
            state: state[i],
            disable_preemption: no_preemption[i],
            intra_queue_disable_preemption: no_intra[i],
            ancestors,
            created: e.created,
            partition_shares: shares_of(e),
            fair: (e.ordering == Some(Ordering::Fair)).then_some(FairOrdering {
                size_based_weight: e.size_based_weight,
            }),
        });
    }
    let mut configured_maximum = vec![1.0f32; entries.len()];
    for (i, e) in entries.iter().enumerate().skip(1) {
        configured_maximum[i] =
            configured_maximum[parent[i].unwrap_or(0)] * (e.maximum_capacity as f32 / 100.0);
    }
    let absolute =
        (tree.vector || entries.iter().any(|e| e.minimum_resource.is_some())).then(|| {
            let nodes = entries
                .iter()
                .enumerate()
                .map(|(i, e)| AbsoluteNode {
                    parent: parent[i],
                    minimum: e.minimum_resource.unwrap_or(Resource::ZERO),
                    maximum: e.maximum_resource,
                    slot: if i == 0 {
                        Slot::Root
                    } else if kids_of[i].is_empty() && !e.parent {
                        Slot::Leaf(
                            leaves
                                .iter()
                                .position(|l| l.path == e.path)
                                .unwrap_or(usize::MAX),
                        )
                    } else {
                        Slot::Parent(parent_slot[i])
                    },
                    maximum_applications: e.maximum_applications,
                    capacity_vector: e.capacity_vector.unwrap_or_default(),
                    maximum_vector: e.maximum_vector.unwrap_or_default(),
                    configured_absolute_maximum: configured_maximum[i],
                })
                .collect();
            AbsoluteCapacities::new(nodes, system_max_apps, tree.vector)
        });
    if tree.resource_calculator == Calculator::Dominant {
        // A queue's share of a partition is memory's; under the dominant calculator
        // CapacityScheduler derives it per type, which is not done here. (Absolute and vector
        // modes' effective resources are per type: `CapacityQueues::guarantee`.)
        let what = (!tree.partitions.is_empty())
            .then_some("node partitions with capacities (accessible-node-labels.<label>.capacity)");
        if let Some(what) = what {
            return Err(CoreError::Config {
                key: format!("{CS_PREFIX}resource-calculator"),
                message: format!(
                    "is org.apache.hadoop.yarn.util.resource.DominantResourceCalculator and the file uses {what}; Locus compares every resource type under that calculator only without divided partitions. Divide no partition among queues, or use the DefaultResourceCalculator"
                ),
            });
        }
    }
    let mut queues = CapacityQueues::from_tree(leaves, parents)?;
    queues.partitions = tree.partitions.clone();
    queues.calculator = tree.resource_calculator;
    if let Some(a) = absolute {
        queues.set_absolute(a);
        // CapacityScheduler's figures before any node registered.
        queues.set_cluster(Resource::ZERO);
    }
    Ok(queues)
}

/// Where a queue of the file sits among the policy's leaves and parents.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Root,
    Leaf(usize),
    Parent(usize),
}

#[derive(Debug, Clone, PartialEq)]
struct AbsoluteNode {
    parent: Option<usize>,
    /// The configured minimum (root: none).
    minimum: Resource,
    /// The configured maximum, after CapacityScheduler's inheritance of the parent's.
    maximum: Option<Resource>,
    slot: Slot,
    maximum_applications: i64,
    /// Vector mode: the capacity vector (root: none; it is the cluster).
    capacity_vector: Vector,
    /// Vector mode: the maximum vector.
    maximum_vector: Vector,
    /// Vector mode: the product of the configured maximum percentages down from root, the
    /// absolute maximum while the parent's maximum is empty.
    configured_absolute_maximum: f32,
}

/// A file in absolute mode (`capacity=[memory=...,vcores=...]`): the configured resources of
/// every queue, from which each queue's share of the cluster is derived whenever the cluster's
/// resource changes, as CapacityScheduler's legacy queue mode derives it
/// (`AbstractCSQueue#updateEffectiveResources`, `AbstractParentQueue#recalculateEffectiveMinRatio`)
/// with its default resource calculator, which compares memory only:
/// - root's effective minimum and maximum are the cluster;
/// - a parent whose effective minimum (root: the cluster, unless empty) has less memory than
///   its children's minimums together scales each child's minimum down, every resource type
///   by its own ratio (effective over the children's sum), in floats as CS does;
/// - a queue's effective maximum is its configured maximum or, when the parent's configured
///   (else effective) maximum has less memory, the parent's;
/// - capacity is the effective minimum's memory over the parent's, maximum-capacity the same
///   of the maxima, and the absolute figures are the products down from root.
///
/// Figures are kept in `f32`, as CS keeps them, so its truncations are reproduced.
#[derive(Debug, Clone, PartialEq)]
pub struct AbsoluteCapacities {
    nodes: Vec<AbsoluteNode>,
    /// The legacy queue mode is off: the nodes' vectors decide ([`Self::compute_vectors`]).
    vector: bool,
    /// Children of each node, in configured order.
    kids: Vec<Vec<usize>>,
    system_maximum_applications: i64,
    /// The cluster the figures below are for; `None` before the first computation.
    cluster: Option<Resource>,
    effective_minimum: Vec<Resource>,
    effective_maximum: Vec<Resource>,
    absolute_capacity: Vec<f32>,
    absolute_maximum: Vec<f32>,
    /// The node of each of the policy's leaves and parents (set with the tree).
    leaf_node: Vec<usize>,
    parent_node: Vec<usize>,
}

/// CapacityScheduler's `divideSafelyAsFloat` with an infinite result taken as 0.
fn ratio(a: u64, b: u64) -> f32 {
    if a == 0 && b == 0 {
        return 0.0;
    }
    let r = a as f32 / b as f32;
    if r.is_infinite() {
        0.0
    } else {
        r
    }
}

impl AbsoluteCapacities {
    fn new(mut nodes: Vec<AbsoluteNode>, system_maximum_applications: i64, vector: bool) -> Self {
        let n = nodes.len();
        let mut kids = vec![Vec::new(); n];
        for i in 0..n {
            if let Some(p) = nodes[i].parent {
                kids[p].push(i);
                // AbstractCSQueue#updateConfigurableResourceLimits: a queue with a minimum and
                // no maximum takes its parent's configured maximum.
                if nodes[i].maximum.is_none() && nodes[i].minimum.memory_mb > 0 {
                    nodes[i].maximum = nodes[p].maximum;
                }
            }
        }
        AbsoluteCapacities {
            nodes,
            vector,
            kids,
            system_maximum_applications,
            cluster: None,
            effective_minimum: vec![Resource::ZERO; n],
            effective_maximum: vec![Resource::ZERO; n],
            absolute_capacity: vec![0.0; n],
            absolute_maximum: vec![0.0; n],
            leaf_node: Vec::new(),
            parent_node: Vec::new(),
        }
    }

    /// Recomputes every queue's figures for `cluster`; false when they are already for it.
    fn compute(&mut self, cluster: Resource) -> bool {
        if self.cluster == Some(cluster) {
            return false;
        }
        self.cluster = Some(cluster);
        if self.vector {
            self.compute_vectors(cluster);
            return true;
        }
        let n = self.nodes.len();
        // Per node: the ratio its children's minimums are scaled by, per resource type.
        let mut scale: Vec<(Option<f32>, Option<f32>)> = vec![(None, None); n];
        for i in 0..n {
            match self.nodes[i].parent {
                None => {
                    self.effective_minimum[i] = cluster;
                    self.effective_maximum[i] = cluster;
                    self.absolute_capacity[i] = 1.0;
                    self.absolute_maximum[i] = 1.0;
                }
                Some(p) => {
                    let node = &self.nodes[i];
                    let (rm, rv) = scale[p];
                    let min = Resource {
                        memory_mb: rm.map_or(node.minimum.memory_mb, |r| {
                            (node.minimum.memory_mb as f32 * r) as u64
                        }),
                        vcores: rv.map_or(node.minimum.vcores, |r| {
                            (node.minimum.vcores as f32 * r) as u32
                        }),
                        extra: node.minimum.extra,
                    };
                    let parent_max = self.nodes[p].maximum.unwrap_or(self.effective_maximum[p]);
                    let max = match node.maximum {
                        Some(m) if m.memory_mb <= parent_max.memory_mb => m,
                        _ => parent_max,
                    };
                    self.effective_minimum[i] = min;
                    self.effective_maximum[i] = max;
                    let capacity = ratio(min.memory_mb, self.effective_minimum[p].memory_mb);
                    let maximum = ratio(max.memory_mb, self.effective_maximum[p].memory_mb);
                    self.absolute_capacity[i] = capacity * self.absolute_capacity[p];
                    self.absolute_maximum[i] = maximum * self.absolute_maximum[p];
                }
            }
            if self.kids[i].is_empty() {
                continue;
            }
            let sum = self.kids[i].iter().fold(Resource::ZERO, |s, &c| Resource {
                memory_mb: s.memory_mb + self.nodes[c].minimum.memory_mb,
                vcores: s.vcores + self.nodes[c].minimum.vcores,
                extra: s.add(&self.nodes[c].minimum).extra,
            });
            let own = self.effective_minimum[i];
            let short = if i == 0 {
                own != Resource::ZERO && own.memory_mb < sum.memory_mb
            } else {
                own.memory_mb < sum.memory_mb
            };
            if short {
                scale[i] = (
                    (sum.memory_mb != 0).then(|| own.memory_mb as f32 / sum.memory_mb as f32),
                    (sum.vcores != 0).then(|| own.vcores as f32 / sum.vcores as f32),
                );
            }
        }
        true
    }
}

/// Java's `Math.min` of doubles: NaN if either is.
fn java_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// Java's `Math.round` of a double, as a double: NaN gives 0.
fn java_round(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        (x + 0.5).floor()
    }
}

const PRECEDENCE: [Kind; 3] = [Kind::Absolute, Kind::Percentage, Kind::Weight];

impl AbsoluteCapacities {
    /// CapacityScheduler's `CapacitySchedulerQueueCapacityHandler` with the legacy queue mode
    /// off, in its doubles and roundings so its effective resources are reproduced to the unit:
    /// root's effective minimum and maximum are the cluster; then under each parent, per
    /// resource type (memory, then vcores) and per kind (absolute, percentage, weight), each
    /// child in order (`ResourceCalculationDriver`):
    /// - absolute: its amount, times what the earlier kinds left of the parent's minimum over
    ///   that minimum, times the parent's scale-down ratio when the absolute children together
    ///   ask for more than the parent's minimum;
    /// - percentage: the percentage of what the earlier kinds left;
    /// - weight: its share of the siblings' weights of what the earlier kinds left (all of it
    ///   when it is the only weight);
    /// - the maximum: an amount, or a percentage of the parent's maximum; none (0) is the
    ///   parent's, and it never exceeds the parent's;
    /// - the minimum is floored (weights rounded), at most the maximum and what the siblings
    ///   before it left; no memory means no other resource either.
    ///
    /// Capacity and maximum-capacity are then the effective resources' memory over the parent's
    /// (CS's default calculator), the absolute figures their products down from root.
    fn compute_vectors(&mut self, cluster: Resource) {
        let n = self.nodes.len();
        let c = [cluster.memory_mb as f64, cluster.vcores as f64];
        let mut min = vec![[0u64; 2]; n];
        let mut max = vec![[0u64; 2]; n];
        for i in 0..n {
            match self.nodes[i].parent {
                None => {
                    min[i] = [cluster.memory_mb, cluster.vcores as u64];
                    max[i] = min[i];
                    self.absolute_capacity[i] = 1.0;
                    self.absolute_maximum[i] = 1.0;
                }
                Some(p) => {
                    let capacity = ratio(min[i][0], min[p][0]);
                    let maximum = ratio(max[i][0], max[p][0]);
                    self.absolute_capacity[i] = capacity * self.absolute_capacity[p];
                    self.absolute_maximum[i] = if maximum > 0.0 {
                        maximum * self.absolute_maximum[p]
                    } else {
                        self.nodes[i].configured_absolute_maximum
                    };
                }
            }
            self.effective_minimum[i] =
                Resource::new(min[i][0], min[i][1].min(u32::MAX as u64) as u32);
            self.effective_maximum[i] =
                Resource::new(max[i][0], max[i][1].min(u32::MAX as u64) as u32);
            if !self.kids[i].is_empty() {
                self.resolve_children(i, &c, &mut min, &mut max);
            }
        }
    }

    /// `ResourceCalculationDriver#calculateResources` for the children of `p`.
    fn resolve_children(&self, p: usize, c: &[f64; 2], min: &mut [[u64; 2]], max: &mut [[u64; 2]]) {
        let kids = &self.kids[p];
        let pmin = [min[p][0] as f64, min[p][1] as f64];
        let pmax = [max[p][0] as f64, max[p][1] as f64];
        let mut overall = pmin;
        let mut batch = pmin;
        // The scale-down ratio of the absolute children; `None`: 1 for every type.
        let mut normalized: Option<[f64; 2]> = None;
        for r in 0..2 {
            let named =
                self.nodes[p].parent.is_none() || self.nodes[p].capacity_vector.get(r).is_some();
            if !named {
                continue;
            }
            let mut sum: i64 = 0;
            for &k in kids {
                if let Some(e) = self.nodes[k].capacity_vector.get(r) {
                    if e.kind == Kind::Absolute {
                        // Java's `long += double`.
                        sum = (sum as f64 + e.value) as i64;
                    }
                }
            }
            if sum == 0 {
                continue;
            }
            let numerator = if (min[p][r] as i64) < sum {
                min[p][r] as f32
            } else {
                sum as f32
            };
            normalized.get_or_insert([0.0; 2])[r] = (numerator / sum as f32) as f64;
        }
        let mut weights = [0.0f64; 2];
        for &k in kids {
            for (r, w) in weights.iter_mut().enumerate() {
                if let Some(e) = self.nodes[k].capacity_vector.get(r) {
                    if e.kind == Kind::Weight {
                        *w += e.value;
                    }
                }
            }
        }
        for r in 0..2 {
            for kind in PRECEDENCE {
                let mut used = 0.0f64;
                for &k in kids {
                    let Some(e) = self.nodes[k].capacity_vector.get(r) else {
                        continue;
                    };
                    if e.kind != kind {
                        continue;
                    }
                    let remaining_ratio = batch[r] / pmin[r];
                    let mut lo = match kind {
                        Kind::Absolute => {
                            normalized.map_or(1.0, |n| n[r]) * remaining_ratio * e.value
                        }
                        Kind::Percentage => {
                            let parent_absolute = pmin[r] / c[r];
                            c[r] * (parent_absolute * remaining_ratio * e.value / 100.0)
                        }
                        Kind::Weight => {
                            let normalized_weight = e.value / weights[r];
                            if normalized_weight == 1.0 {
                                batch[r]
                            } else {
                                let parent_absolute = pmin[r] / c[r];
                                c[r] * (parent_absolute * remaining_ratio * normalized_weight)
                            }
                        }
                    };
                    let m = self.nodes[k].maximum_vector.get(r).unwrap_or(VectorEntry {
                        kind: Kind::Absolute,
                        value: 0.0,
                    });
                    let mut hi = match m.kind {
                        Kind::Percentage => {
                            let parent_absolute_max = pmax[r] / c[r];
                            c[r] * (parent_absolute_max * m.value / 100.0)
                        }
                        // A weight maximum is refused when the tree is read.
                        _ => m.value,
                    };
                    lo = if kind == Kind::Weight {
                        java_round(lo)
                    } else {
                        lo.floor()
                    };
                    hi = if m.kind == Kind::Weight {
                        java_round(hi)
                    } else {
                        hi.floor()
                    };
                    if r != 0 && min[k][0] == 0 {
                        lo = 0.0;
                    }
                    hi = if hi == 0.0 {
                        pmax[r]
                    } else {
                        java_min(hi, pmax[r])
                    };
                    if hi < lo {
                        lo = hi;
                    }
                    if lo > overall[r] {
                        lo = overall[r];
                    }
                    min[k][r] = lo as u64;
                    max[k][r] = hi as u64;
                    overall[r] -= lo;
                    used += lo;
                }
                batch[r] -= used;
            }
        }
    }
}

impl AbsoluteCapacities {
    /// The node of the policy's leaf `l` or parent `p`.
    fn node_of(&self, slot: Slot) -> Option<usize> {
        match slot {
            Slot::Leaf(l) => self.leaf_node.get(l).copied(),
            Slot::Parent(p) => self.parent_node.get(p).copied(),
            Slot::Root => Some(0),
        }
        .filter(|&n| n < self.nodes.len())
    }

    /// Leaf `l`'s effective minimum resource for the cluster last computed (`None` before
    /// any).
    pub fn leaf_minimum(&self, l: usize) -> Option<Resource> {
        self.cluster?;
        self.node_of(Slot::Leaf(l))
            .map(|n| self.effective_minimum[n])
    }

    /// Leaf `l`'s effective maximum resource, as [`Self::leaf_minimum`].
    pub fn leaf_maximum(&self, l: usize) -> Option<Resource> {
        self.cluster?;
        self.node_of(Slot::Leaf(l))
            .map(|n| self.effective_maximum[n])
    }

    /// Parent `p`'s effective minimum resource, as [`Self::leaf_minimum`].
    pub fn parent_minimum(&self, p: usize) -> Option<Resource> {
        self.cluster?;
        self.node_of(Slot::Parent(p))
            .map(|n| self.effective_minimum[n])
    }

    /// Parent `p`'s effective maximum resource, as [`Self::leaf_minimum`].
    pub fn parent_maximum(&self, p: usize) -> Option<Resource> {
        self.cluster?;
        self.node_of(Slot::Parent(p))
            .map(|n| self.effective_maximum[n])
    }
}

impl CapacityQueues {
    fn set_absolute(&mut self, mut a: AbsoluteCapacities) {
        a.leaf_node = vec![usize::MAX; self.queues.len()];
        a.parent_node = vec![usize::MAX; self.parents.len()];
        for (n, node) in a.nodes.iter().enumerate() {
            match node.slot {
                Slot::Leaf(l) if l < a.leaf_node.len() => a.leaf_node[l] = n,
                Slot::Parent(p) if p < a.parent_node.len() => a.parent_node[p] = n,
                _ => {}
            }
        }
        self.absolute = Some(a);
    }

    /// In absolute mode, re-derives every queue's share of `cluster` (and the leaves'
    /// maximum-applications, CS's system-wide maximum times the absolute capacity once the
    /// cluster has resources) when it changed; percentage and weight trees are left as they are.
    pub fn set_cluster(&mut self, cluster: Resource) {
        let Some(a) = self.absolute.as_mut() else {
            return;
        };
        if !a.compute(cluster) {
            return;
        }
        for (i, node) in a.nodes.iter().enumerate() {
            let capacity = a.absolute_capacity[i] as f64 * 100.0;
            let maximum = a.absolute_maximum[i] as f64 * 100.0;
            match node.slot {
                Slot::Root => {}
                Slot::Parent(p) => {
                    if let Some(q) = self.parents.get_mut(p) {
                        q.capacity = capacity;
                        q.maximum_capacity = maximum;
                    }
                }
                Slot::Leaf(l) => {
                    let Some(q) = self.queues.get_mut(l) else {
                        continue;
                    };
                    q.capacity = capacity;
                    q.maximum_capacity = maximum;
                    if node.maximum_applications < 0 {
                        let m = if cluster == Resource::ZERO {
                            a.system_maximum_applications.clamp(0, u32::MAX as i64) as u32
                        } else {
                            (a.system_maximum_applications as f32 * a.absolute_capacity[i]) as u32
                        };
                        q.maximum_applications = Some(m);
                        if let Some(u) = q.user_limit {
                            q.maximum_applications_per_user = Some(per_user_maximum(
                                m,
                                u.user_limit_factor,
                                u.minimum_user_limit_percent,
                            ));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn entry(path: &str, cap: f64, max: f64) -> String {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max},"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.1,"maximum_applications":-1}}"#
        )
    }

    fn tree(entries: &[String]) -> String {
        format!(
            r#"{{"maximum_applications":10000,"queues":[{}]}}"#,
            entries.join(",")
        )
    }

    fn err_key(value: &str) -> (String, String) {
        match parse(value) {
            Err(CoreError::Config { key, message }) => (key, message),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn three_levels_flatten_into_leaves_with_absolute_figures() {
        let q = parse(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.eng", 60.0, 80.0),
            entry("root.eng.etl", 50.0, 100.0),
            entry("root.eng.adhoc", 50.0, 50.0),
            entry("root.ops", 40.0, 100.0),
        ]))
        .unwrap();
        assert_eq!(q.names(), vec!["etl", "adhoc", "ops"]);
        let etl = &q.queues()[0];
        assert_eq!(etl.path, "root.eng.etl");
        assert!((etl.capacity - 30.0).abs() < 1e-9 && (etl.maximum_capacity - 80.0).abs() < 1e-9);
        let adhoc = &q.queues()[1];
        assert!((adhoc.maximum_capacity - 40.0).abs() < 1e-9);
        // 10000 × 30 % = 3000; the per-user share with limit 100 % and factor 1 is all of it.
        assert_eq!(etl.maximum_applications, Some(3000));
        assert_eq!(q.resolve("root.eng.etl"), Some("etl"));
        assert_eq!(q.resolve("etl"), Some("etl"));
        assert_eq!(q.resolve("eng"), None, "a parent takes no applications");
        assert_eq!(q.resolve("root.etl"), None, "a wrong path is not the leaf");
        assert_eq!(q.parents().len(), 1);
        assert_eq!(q.ancestor_paths(0), vec!["root.eng"]);
    }

    #[test]
    fn a_parent_that_creates_its_children_is_no_leaf_while_it_has_none() {
        let users = entry("root.users", 50.0, 100.0).replacen('{', r#"{"parent":true,"#, 1);
        let q = parse(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.default", 50.0, 100.0),
            users,
        ]))
        .unwrap();
        assert_eq!(q.names(), vec!["default".to_string()]);
        assert_eq!(q.parents().len(), 1);
        assert_eq!(q.parents()[0].path, "root.users");
        assert!((q.parents()[0].capacity - 50.0).abs() < 1e-9);
    }

    #[test]
    fn a_managed_parents_leaves_may_leave_part_of_its_guarantee_but_never_exceed_it() {
        let managed =
            |cap: f64| entry("root.users", cap, 100.0).replacen('{', r#"{"managed":true,"#, 1);
        let q = parse(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.default", 50.0, 100.0),
            managed(50.0),
            entry("root.users.alice", 40.0, 100.0),
            entry("root.users.bob", 0.0, 100.0),
        ]))
        .unwrap();
        assert_eq!(q.names(), vec!["default", "alice", "bob"]);
        assert!((q.queues()[1].capacity - 20.0).abs() < 1e-9);
        let over = parse(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.default", 50.0, 100.0),
            managed(50.0),
            entry("root.users.alice", 60.0, 100.0),
            entry("root.users.bob", 60.0, 100.0),
        ]))
        .unwrap_err();
        assert!(over.to_string().contains("sum to 120"), "{over}");
        let unmanaged = parse(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.default", 50.0, 100.0),
            entry("root.users", 50.0, 100.0),
            entry("root.users.alice", 40.0, 100.0),
        ]))
        .unwrap_err();
        assert!(unmanaged.to_string().contains("sum to 40"), "{unmanaged}");
    }

    #[test]
    fn stopped_parents_stop_their_children() {
        let mut eng = entry("root.eng", 60.0, 100.0);
        eng.insert_str(eng.len() - 1, r#","state":"STOPPED""#);
        let q = parse(&tree(&[
            entry("root", 100.0, 100.0),
            eng,
            entry("root.eng.etl", 100.0, 100.0),
            entry("root.ops", 40.0, 100.0),
        ]))
        .unwrap();
        assert_eq!(q.queues()[0].state, QueueState::Stopped);
        assert_eq!(q.queues()[1].state, QueueState::Running);
    }

    #[test]
    fn bad_trees_name_the_file_key() {
        let (key, msg) = err_key(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.a", 50.0, 100.0),
            entry("root.b", 40.0, 100.0),
        ]));
        assert_eq!(key, "yarn.scheduler.capacity.root.queues");
        assert!(msg.contains("sum to 90"), "{msg}");
        let (key, _) = err_key(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.a", 50.0, 140.0),
            entry("root.b", 50.0, 100.0),
        ]));
        assert_eq!(key, "yarn.scheduler.capacity.root.a.maximum-capacity");
        let (key, msg) = err_key(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.a", 50.0, 100.0),
            entry("root.a.x", 100.0, 100.0),
            entry("root.b", 50.0, 100.0),
            entry("root.b.x", 100.0, 100.0),
        ]));
        assert_eq!(key, "yarn.scheduler.capacity.root.b.queues");
        assert!(msg.contains("root.a.x"), "{msg}");
        let (key, msg) = err_key(
            r#"{"refused":{"key":"yarn.scheduler.capacity.root.a.capacity","message":"= [memory=1024]: absolute"},"maximum_applications":1,"queues":[]}"#,
        );
        assert_eq!(key, "yarn.scheduler.capacity.root.a.capacity");
        assert!(msg.contains("absolute"), "{msg}");
        let (key, _) = err_key("{not json");
        assert_eq!(key, CAPACITY_TREE);
    }

    #[test]
    fn a_maximum_below_the_capacity_is_kept_as_capacity_scheduler_keeps_it() {
        let q = parse(&tree(&[
            entry("root", 100.0, 100.0),
            entry("root.a", 50.0, 30.0),
            entry("root.b", 50.0, 100.0),
            entry("root.b.b1", 75.0, 40.0),
            entry("root.b.b2", 25.0, 100.0),
        ]))
        .unwrap();
        let a = &q.queues()[0];
        assert!((a.capacity - 50.0).abs() < 1e-9 && (a.maximum_capacity - 30.0).abs() < 1e-9);
        let b1 = &q.queues()[1];
        assert!((b1.capacity - 37.5).abs() < 1e-9 && (b1.maximum_capacity - 40.0).abs() < 1e-9);
        // The maximum bounds what the queue may take, whatever its guarantee says.
        assert_eq!(q.room_mb(0, 10_000, &[0, 0, 0]), 3_000);
    }

    fn absolute_entry(path: &str, mb: u64) -> String {
        let mut e = entry(path, 0.0, 100.0);
        e.insert_str(
            e.len() - 1,
            &format!(r#","minimum_resource":{{"memory_mb":{mb},"vcores":1}}"#),
        );
        e
    }

    #[test]
    fn absolute_trees_keep_each_family_in_one_mode_within_its_parent() {
        let (key, msg) = err_key(&tree(&[
            entry("root", 100.0, 100.0),
            absolute_entry("root.a", 4096),
            entry("root.a.x", 50.0, 100.0),
            entry("root.a.y", 50.0, 100.0),
        ]));
        assert_eq!(key, "yarn.scheduler.capacity.root.a.queues");
        assert!(msg.contains("absolute"), "{msg}");
        let (key, _) = err_key(&tree(&[
            entry("root", 100.0, 100.0),
            absolute_entry("root.a", 1024),
            absolute_entry("root.a.x", 1024),
            absolute_entry("root.a.y", 1024),
        ]));
        assert_eq!(key, "yarn.scheduler.capacity.root.a.capacity");
        let q = parse(&tree(&[
            entry("root", 100.0, 100.0),
            absolute_entry("root.a", 2048),
            absolute_entry("root.a.x", 1024),
            absolute_entry("root.a.y", 1024),
        ]))
        .unwrap();
        assert_eq!(q.queues().len(), 2);
    }

    /// A vector-mode entry: `cap` and `max` are `memory,vcores` pairs such as `50%`, `2w`,
    /// `6144` (`-` for a capacity that names no type).
    fn vector_entry(path: &str, cap: (&str, &str), max: (&str, &str)) -> String {
        fn one(v: &str) -> String {
            let (kind, value) = if let Some(p) = v.strip_suffix('%') {
                ("percentage", p)
            } else if let Some(w) = v.strip_suffix('w') {
                ("weight", w)
            } else {
                ("absolute", v)
            };
            format!(r#"{{"kind":"{kind}","value":{value}}}"#)
        }
        let pair = |(m, v): (&str, &str)| {
            if m == "-" {
                "{}".to_string()
            } else {
                format!(r#"{{"memory":{},"vcores":{}}}"#, one(m), one(v))
            }
        };
        let mut e = entry(path, 0.0, 100.0);
        e.insert_str(
            e.len() - 1,
            &format!(
                r#","capacity_vector":{},"maximum_vector":{}"#,
                pair(cap),
                pair(max)
            ),
        );
        e
    }

    fn vector_tree(entries: &[String]) -> String {
        format!(
            r#"{{"vector":true,"maximum_applications":10000,"queues":[{}]}}"#,
            entries.join(",")
        )
    }

    fn effective(q: &CapacityQueues, path: &str) -> (Resource, Resource, f32, f32) {
        let a = q.absolute.as_ref().expect("vector mode");
        let i = (0..a.nodes.len())
            .find(|&i| match a.nodes[i].slot {
                Slot::Leaf(l) => q.queues[l].path == path,
                Slot::Parent(p) => q.parents[p].path == path,
                Slot::Root => path == "root",
            })
            .expect("queue");
        (
            a.effective_minimum[i],
            a.effective_maximum[i],
            a.absolute_capacity[i],
            a.absolute_maximum[i],
        )
    }

    fn res(memory_mb: u64, vcores: u32) -> Resource {
        Resource::new(memory_mb, vcores)
    }

    /// CapacityScheduler's ResourceCalculationDriver worked by hand on one file: per type,
    /// absolute amounts first, then percentages of what they left, then weights sharing the
    /// rest; absolute children scaled down when their parent is too small.
    #[test]
    fn capacity_vectors_resolve_as_capacity_scheduler_resolves_them() {
        let mut q = parse(&vector_tree(&[
            vector_entry("root", ("100%", "100%"), ("100%", "100%")),
            vector_entry("root.a", ("50%", "2w"), ("75%", "100%")),
            vector_entry("root.a.a1", ("6144", "1w"), ("8192", "50%")),
            vector_entry("root.a.a2", ("1w", "1w"), ("0", "0")),
            vector_entry("root.b", ("1w", "4"), ("0", "0")),
            vector_entry("root.c", ("25%", "25%"), ("0", "0")),
        ]))
        .unwrap();
        assert_eq!(q.names(), vec!["a1", "a2", "b", "c"]);
        q.set_cluster(res(16 * 1024, 16));
        // Memory: a 50 %, c 25 %, b's weight the rest. Vcores: b 4, c 25 % of the 12 left, a's
        // weight the 9 left.
        assert_eq!(effective(&q, "root.a").0, res(8192, 9));
        assert_eq!(effective(&q, "root.a").1, res(12288, 16));
        assert_eq!(effective(&q, "root.b").0, res(4096, 4));
        assert_eq!(effective(&q, "root.c").0, res(4096, 3));
        // a1 6 GB of a's 8; a2's weight the 2 GB left; vcores 1w each of a's 9 (4.5 rounded),
        // a2 held to the 4 left.
        let (min, max, abs, abs_max) = effective(&q, "root.a.a1");
        assert_eq!((min, max), (res(6144, 5), res(8192, 8)));
        assert!((abs - 0.375).abs() < 1e-6 && (abs_max - 0.5).abs() < 1e-6);
        assert_eq!(effective(&q, "root.a.a2").0, res(2048, 4));
        assert!((q.queues()[0].capacity - 37.5).abs() < 1e-4);
        assert!((q.queues()[0].maximum_capacity - 50.0).abs() < 1e-4);
        // 8 GB: a's 4 GB is less than a1's 6 GB, so a1 is scaled to 4 GB and a2 gets none.
        q.set_cluster(res(8 * 1024, 8));
        assert_eq!(effective(&q, "root.a").0, res(4096, 3));
        assert_eq!(effective(&q, "root.a.a1").0, res(4096, 2));
        assert_eq!(effective(&q, "root.a.a2").0, res(0, 0));
        assert_eq!(effective(&q, "root.a.a2").1, res(6144, 8));
    }

    #[test]
    fn vector_trees_check_no_sums_but_refuse_a_weight_maximum() {
        parse(&vector_tree(&[
            vector_entry("root", ("100%", "100%"), ("100%", "100%")),
            vector_entry("root.a", ("60%", "60%"), ("0", "0")),
            vector_entry("root.b", ("60%", "60%"), ("0", "0")),
        ]))
        .expect("CapacityScheduler allows percentages above 100 with the legacy mode off");
        let (key, _) = err_key(&vector_tree(&[
            vector_entry("root", ("100%", "100%"), ("100%", "100%")),
            vector_entry("root.a", ("1w", "1w"), ("2w", "100%")),
            vector_entry("root.b", ("1w", "1w"), ("0", "0")),
        ]));
        assert_eq!(key, "yarn.scheduler.capacity.root.a.maximum-capacity");
    }
}
