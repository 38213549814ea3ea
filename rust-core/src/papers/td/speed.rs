//! What makes TD fast on a large cluster, kept apart from the algorithm in [`super`]: node
//! numbers instead of host names, R_n cached per node, running totals of the status sets, and
//! the "from scratch" definitions each of those must agree with (tests compare them).

use std::collections::{BTreeMap, HashMap};

#[cfg(test)]
use super::TaskSource;
use super::{workload_from_scratch, JobStatus, TdJob, TdScheduler};
use crate::fast_hash::FastMap;

/// One rs_jn, plus the count being summed while [`TdScheduler::refresh_tasks`] reads new rows,
/// so that only the nodes whose count changed lose their cached R_n.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Rs {
    pub(super) count: u32,
    pub(super) reading: u32,
}

pub(super) fn rs_map(nodes: &mut NodeIds, on_node: HashMap<String, u32>) -> FastMap<NodeId, Rs> {
    on_node
        .into_iter()
        .map(|(n, count)| (nodes.intern(&n), Rs { count, reading: 0 }))
        .collect()
}

/// A node by number: rs_jn, R_n and the hot queue are looked up once per holder of a job on
/// every non-local pick, which with host names as keys meant hashing and comparing strings
/// tens of thousands of times per heartbeat on a large cluster.
pub(super) type NodeId = u32;

/// The node names this scheduler has been given, numbered in order of first appearance. Names
/// are never forgotten: they are the adapter's registered hosts (the core only interns hosts of
/// registered nodes), so there are as many as the cluster has had nodes.
#[derive(Debug, Clone, Default)]
pub(super) struct NodeIds {
    ids: HashMap<String, NodeId>,
    names: Vec<String>,
    /// Every numbered node in name order, and each node's place in it: GetNonHotspotNode breaks
    /// ties in R_n by name, and comparing the names themselves was 7 % of a 10,000-node
    /// simulation. Names numbered since the last [`rank_all`](Self::rank_all) are not yet in.
    by_name: Vec<NodeId>,
    rank: Vec<u32>,
    /// Our number for each number a caller of [`TdScheduler::refresh_tasks_numbered`] gave a
    /// name ([`UNNUMBERED`] where none yet): re-reading a job's rows after every pick of TD's
    /// own hashed each host name with SipHash (18 % of a 10,000-node simulation) although the
    /// caller had them numbered already.
    pub(super) by_caller: Vec<NodeId>,
}

pub(super) const UNNUMBERED: NodeId = NodeId::MAX;

/// The largest table of caller numbers TD keeps (4 MiB of `NodeId`s): well above the core's
/// name ids on any cluster (one per registered host and rack), far below what an arbitrary
/// `u32` key would size.
pub(super) const MAX_CALLER_KEYS: usize = 1 << 20;

impl NodeIds {
    pub(super) fn id(&self, name: &str) -> Option<NodeId> {
        self.ids.get(name).copied()
    }

    pub(super) fn intern(&mut self, name: &str) -> NodeId {
        if let Some(id) = self.id(name) {
            return id;
        }
        let id = self.names.len() as NodeId;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// [`intern`](Self::intern) for a name the caller numbers `key`. The caller's promises
    /// (one name per key, small keys) are checked rather than trusted: a key given to another
    /// name is re-interned by name, and a key at or past [`MAX_CALLER_KEYS`] is hashed by name
    /// every time instead of sizing the table, so no caller can make TD allocate by its key.
    pub(super) fn intern_numbered(&mut self, key: u32, name: &str) -> NodeId {
        let k = key as usize;
        if let Some(&id) = self.by_caller.get(k).filter(|&&id| id != UNNUMBERED) {
            if self.name(id) == name {
                return id;
            }
        }
        let id = self.intern(name);
        if k < MAX_CALLER_KEYS {
            if self.by_caller.len() <= k {
                self.by_caller.resize(k + 1, UNNUMBERED);
            }
            self.by_caller[k] = id;
        }
        id
    }

    pub(super) fn name(&self, id: NodeId) -> &str {
        &self.names[id as usize]
    }

    /// Brings `rank` up to every numbered name. The sort is stable and adaptive: the ranked
    /// prefix is one sorted run, so adding k names costs about k·log k comparisons plus one pass.
    pub(super) fn rank_all(&mut self) {
        if self.rank.len() == self.names.len() {
            return;
        }
        let names = &self.names;
        self.by_name
            .extend(self.rank.len() as NodeId..names.len() as NodeId);
        self.by_name
            .sort_by(|&a, &b| names[a as usize].cmp(&names[b as usize]));
        self.rank.resize(names.len(), 0);
        for (r, &n) in self.by_name.iter().enumerate() {
            self.rank[n as usize] = r as u32;
        }
    }

    /// Name order of two ranked nodes.
    pub(super) fn cmp_names(&self, a: NodeId, b: NodeId) -> std::cmp::Ordering {
        self.rank[a as usize].cmp(&self.rank[b as usize])
    }
}

/// What the status sets add up to, updated on every change of a job's status or j.occupied
/// (each equal to its `*_from_scratch` sum; tests compare the two).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Totals {
    /// D = Σ demand over S_adu ∪ S_tee.
    pub(super) demand: u64,
    /// How many jobs of S_adu ∪ S_tee demand each number of slots, for d_max.
    pub(super) demands: BTreeMap<u32, u32>,
    /// O_sen = Σ occupied over S_sen.
    pub(super) senile_occupied: u64,
    /// Senile jobs with nothing running, which the next status update retires.
    pub(super) senile_idle: usize,
}

impl Totals {
    /// Adds (`add`) or takes away a job's share, given its status and j.occupied.
    pub(super) fn count(&mut self, j: &TdJob, add: bool) {
        let step = |total: &mut u64, by: u64| *total = if add { *total + by } else { *total - by };
        match j.status {
            JobStatus::Adult | JobStatus::Teenaged => {
                step(&mut self.demand, j.demand as u64);
                let n = self.demands.entry(j.demand).or_insert(0);
                if add {
                    *n += 1;
                } else {
                    *n -= 1;
                    if *n == 0 {
                        self.demands.remove(&j.demand);
                    }
                }
            }
            JobStatus::Senile => {
                step(&mut self.senile_occupied, j.occupied as u64);
                if j.occupied == 0 {
                    self.senile_idle = if add {
                        self.senile_idle + 1
                    } else {
                        self.senile_idle - 1
                    };
                }
            }
            JobStatus::Waiting | JobStatus::Infantile | JobStatus::Finished => {}
        }
    }

    pub(super) fn max_demand(&self) -> Option<u32> {
        self.demands.last_key_value().map(|(&d, _)| d)
    }
}

impl TdScheduler {
    /// D, d_max, O_sen and the number of idle senile jobs summed over the status sets, ignoring
    /// the running totals: the values those must hold (tests compare the two).
    pub fn totals_from_scratch(&self) -> (u64, Option<u32>, u64, usize) {
        let sch = || {
            self.adult
                .iter()
                .chain(&self.teenaged)
                .filter_map(|id| self.jobs.get(id))
        };
        let sen = || self.senile.iter().filter_map(|id| self.jobs.get(id));
        (
            sch().map(|j| j.demand as u64).sum(),
            sch().map(|j| j.demand).max(),
            sen().map(|j| j.occupied as u64).sum(),
            sen().filter(|j| j.occupied == 0).count(),
        )
    }

    /// The running totals in the order of [`totals_from_scratch`](Self::totals_from_scratch).
    pub fn totals(&self) -> (u64, Option<u32>, u64, usize) {
        let t = &self.totals;
        (t.demand, t.max_demand(), t.senile_occupied, t.senile_idle)
    }

    /// R_n summed over S_adu, S_tee and S_inf in that order, ignoring what is cached: the value
    /// the cache must hold (tests compare the two).
    pub fn remaining_workload_from_scratch(&self, node: &str) -> f64 {
        match self.nodes.id(node) {
            Some(n) => {
                workload_from_scratch(&self.jobs, &self.adult, &self.teenaged, &self.infantile, n)
            }
            None => 0.0,
        }
    }

    /// The cached R_n of `node`, if it has one (for tests).
    pub fn cached_workload(&self, node: &str) -> Option<f64> {
        self.nodes
            .id(node)
            .and_then(|n| self.workload.get(n as usize).copied().flatten())
    }

    /// GetNonHotspotNode(j) by its definition, ignoring every cache (R_n, name ranks, the
    /// all-hot memo): the answer [`non_hotspot_source`](Self::non_hotspot_source) must give.
    #[cfg(test)]
    pub(super) fn non_hotspot_source_from_scratch(&self, job: &str) -> Option<TaskSource> {
        let j = self.jobs.get(job)?;
        let holders: Vec<NodeId> = j.holders().collect();
        if holders.is_empty() {
            return (j.remain > 0).then_some(TaskSource::Anywhere);
        }
        let workload =
            |n| workload_from_scratch(&self.jobs, &self.adult, &self.teenaged, &self.infantile, n);
        holders
            .into_iter()
            .filter(|&n| !self.hot.is_hot(n))
            .map(|n| (workload(n), n))
            .max_by(|(ra, a), (rb, b)| {
                ra.total_cmp(rb)
                    .then_with(|| self.nodes.name(*b).cmp(self.nodes.name(*a)))
            })
            .map(|(_, n)| TaskSource::Remote(self.nodes.name(n).to_string()))
    }
}

/// rs_jn of `j` set in place to the rows' sums (a node may appear in several); only the nodes
/// whose count changed lose their cached R_n, and nodes left with 0 are dropped.
pub(super) fn refresh_rs(
    j: &mut TdJob,
    workload: &mut [Option<f64>],
    rows: impl Iterator<Item = (NodeId, u32)>,
) {
    j.on_node.values_mut().for_each(|r| r.reading = 0);
    j.all_hot_until = None;
    for (node, count) in rows {
        let r = j.on_node.entry(node).or_default();
        r.reading = r.reading.saturating_add(count);
    }
    j.on_node.retain(|&n, r| {
        if r.count != r.reading {
            forget(workload, n);
            r.count = r.reading;
        }
        r.count > 0
    });
}

/// R_n from the cache, summed (and cached) when missing.
pub(super) fn workload_of(
    cache: &mut Vec<Option<f64>>,
    jobs: &FastMap<String, TdJob>,
    adult: &[String],
    teenaged: &[String],
    infantile: &Option<String>,
    node: NodeId,
) -> f64 {
    let i = node as usize;
    if let Some(Some(r)) = cache.get(i) {
        return *r;
    }
    let r = workload_from_scratch(jobs, adult, teenaged, infantile, node);
    if cache.len() <= i {
        cache.resize(i + 1, None);
    }
    cache[i] = Some(r);
    r
}

/// Drops a node's cached R_n.
pub(super) fn forget(cache: &mut [Option<f64>], node: NodeId) {
    if let Some(slot) = cache.get_mut(node as usize) {
        *slot = None;
    }
}
