//! `joss-t` / `joss-j`: JoSS (papers/joss.rs) as the job-level policy, with TTA or JTA.
//!
//! The datacenters are the nodes' datacenters (first component of a two-level network location,
//! or `locus.datacenter.mapping.file`), in name order; the VPSs are the hosts. A MapReduce job is
//! handed to JoSS's task scheduler (Fig. 4) when its first map asks arrive: one map task per
//! outstanding map, each with the hosts its block is on. YARN's asks give only per-host counts,
//! so the blocks are rebuilt from them: hosts in descending count order, each host added to the
//! tasks with the fewest replicas so far (which is exact for one replica per block and keeps every
//! host's count for more). The job's profile comes from the profile store (`locus.profile.store`):
//! a signature with a known filtering percentage is classified (policy A, B or C), an unknown one
//! goes through MQ_FIFO / RQ_FIFO.
//!
//! On a heartbeat every map container's worth of free room is one idle map slot: JoSS's assigner
//! (`assign_map`) names the job whose task it would start, and that job may take one map
//! container on this visit (the MapReduce AM then picks the actual split, preferring this host).
//! Reduces run only in the datacenter JoSS chose for them (cen_e; anywhere for a FIFO job): that
//! is JoSS's reduce-data locality. Maps the AM re-requests after JoSS dequeued them (failed or
//! killed attempts) are served FIFO after JoSS's picks. AMs and generic applications are never
//! held: apps waiting for their AM come first, every app follows in FIFO order for the rest.
//! Topology or profile changes rebuild JoSS's queues from the live jobs' outstanding asks.

use super::map_asks::{map_asks, map_demand};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::JobPolicy;
use crate::app::{App, Arrival};
use crate::error::CoreError;
use crate::fast_hash::FastMap;
use crate::node::Node;
use crate::papers::joss::{
    Assigner, JossConfig, JossJob, JossScheduler, Placement, Policy, ProfileStore, Topology,
};
use crate::protocol::Resource;
use crate::state::ClusterState;

const MAX_SLOTS_PER_HEARTBEAT: u32 = 256;
const DEFAULT_MAP: Resource = Resource {
    memory_mb: 1024,
    vcores: 1,
};

/// cen_1..cen_k with their hosts, as `Topology::new` takes them.
type Datacenters = Vec<(String, Vec<String>)>;

#[derive(Debug, Clone)]
struct Job {
    id: String,
    policy: Policy,
    /// cen_e; `None` for a job JoSS runs through the FIFO queues.
    reduces_at: Option<String>,
}

pub struct JossPolicy {
    assigner: Assigner,
    threshold: Option<f64>,
    js: Option<JossScheduler>,
    /// Datacenters (with their hosts) and profile store the scheduler was built from.
    built_for: Option<(Datacenters, ProfileStore)>,
    /// Node count at the last topology check.
    built_nodes: usize,
    jobs: BTreeMap<Arrival, Job>,
    /// `jobs` by application id, the name JoSS's assigner gives a task's job by.
    ids: FastMap<String, Arrival>,
    maps: FastMap<Arrival, u32>,
    reduce_ok: FastMap<Arrival, bool>,
    /// Map tasks JoSS still holds per job (kept in step with submit / assign / remove).
    queued: FastMap<Arrival, u32>,
}

impl JossPolicy {
    pub fn new(assigner: Assigner, threshold: Option<f64>) -> Self {
        JossPolicy {
            assigner,
            threshold,
            js: None,
            built_for: None,
            built_nodes: 0,
            jobs: BTreeMap::new(),
            ids: FastMap::default(),
            maps: FastMap::default(),
            reduce_ok: FastMap::default(),
            queued: FastMap::default(),
        }
    }

    /// The policy JoSS chose for an application (`None` until its maps were asked for).
    pub fn policy_of(&self, app: Arrival) -> Option<(Policy, Option<String>)> {
        self.jobs
            .get(&app)
            .map(|j| (j.policy, j.reduces_at.clone()))
    }
}

fn datacenters(state: &ClusterState) -> Datacenters {
    let mut by_dc: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for n in state.nodes() {
        by_dc
            .entry(n.datacenter.clone())
            .or_default()
            .push(n.host.clone());
    }
    by_dc
        .into_iter()
        .map(|(dc, mut hosts)| {
            hosts.sort();
            hosts.dedup();
            (dc, hosts)
        })
        .collect()
}

/// Map tasks of one job JoSS's queues hold at most. The AM sets the outstanding count (up to
/// 2^32-1, which once made this policy allocate 100 GB and abort the RM); a job's maps beyond it
/// are served FIFO after JoSS's picks, like re-executions. It is far above the papers' workloads
/// and the simulator's synthetic jobs (`--max-maps`, default 4,800); the blocks rebuilt when a
/// job is queued, and the queues' per-VPS indexes, are bounded by it.
pub const MAX_QUEUED_MAPS_PER_JOB: u32 = 65_536;

/// One replica list per map task, consistent with the per-host counts (see the module doc):
/// hosts in descending count order (ties by host), each added to the `count` blocks with the
/// fewest replicas so far, lowest index first. At most [`MAX_QUEUED_MAPS_PER_JOB`] blocks are
/// built.
///
/// Every host adds at most one replica per block, so replica counts differ by at most one and
/// the blocks with L + 1 replicas are always a prefix `0..a` of the index range: the blocks with
/// the fewest replicas, lowest index first, are `a, a+1, …` wrapping round to 0 once every
/// block has L + 1. Each host therefore deals its replicas round-robin from a cursor, O(Σ
/// count) with no sets or sorts of blocks (two ordered sets of block indexes made a 100k-map
/// job's first JoSS heartbeat cost tens of milliseconds on 5,000 hosts).
pub fn rebuild_blocks<H: Clone + Ord>(maps: u32, mut hosts: Vec<(H, u32)>) -> Vec<Vec<H>> {
    let n = maps.min(MAX_QUEUED_MAPS_PER_JOB) as usize;
    let mut blocks: Vec<Vec<H>> = vec![Vec::new(); n];
    if n == 0 {
        return blocks;
    }
    hosts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut next = 0;
    for (host, count) in hosts {
        // A host holds at most one replica of a block: a count above the blocks is capped.
        for _ in 0..(count as usize).min(n) {
            blocks[next].push(host.clone());
            next += 1;
            if next == n {
                next = 0;
            }
        }
    }
    blocks
}

impl JossPolicy {
    fn submit(
        &mut self,
        app: &App,
        state: &ClusterState,
    ) -> Result<Option<(Placement, u32)>, CoreError> {
        let Some(js) = self.js.as_mut() else {
            return Ok(None);
        };
        let (remain, hosts, _) = map_asks::<Vec<(String, u32)>>(state, app);
        if remain == 0 {
            return Ok(None);
        }
        // The profiles' key, which includes the user: another user's runs must not classify it.
        let signature = state.profiles().signature(app.arrival).unwrap_or_else(|| {
            crate::profile::job_signature(&app.user, &app.name, &app.app_type, "")
        });
        // One shared name per host, cloned into its blocks by reference count.
        let hosts: Vec<(Arc<str>, u32)> = hosts.into_iter().map(|(h, c)| (h.into(), c)).collect();
        let placement = js.submit(JossJob {
            id: app.id.clone(),
            signature,
            blocks: rebuild_blocks(remain, hosts),
            reduces: 0,
        })?;
        Ok(Some((placement, remain)))
    }

    fn record(&mut self, app: &App, placement: Placement, tasks: u32) {
        self.queued.insert(app.arrival, tasks);
        log::info!(
            "joss: {} queued by policy {:?} ({:?}): maps {:?}, reduces at {:?}",
            app.id,
            placement.policy,
            placement.class,
            placement.maps,
            placement.reduces_at
        );
        self.ids.insert(app.id.clone(), app.arrival);
        self.jobs.insert(
            app.arrival,
            Job {
                id: app.id.clone(),
                policy: placement.policy,
                reduces_at: placement.reduces_at,
            },
        );
    }

    /// Rebuilds JoSS when the datacenters changed, or when a job is to be queued and the profiles
    /// changed since the last build (classification happens only at submission); then queues the
    /// new jobs. The cheap checks run on every heartbeat, the full comparison only when they fire.
    fn sync(&mut self, state: &ClusterState, node: &Node) {
        let topo_moved = match (&self.js, &self.built_for) {
            (Some(js), Some(_)) => {
                let t = js.topology();
                let here = t.datacenter_of(&node.host).and_then(|c| t.name(c));
                state.node_count() != self.built_nodes || here != Some(node.datacenter.as_str())
            }
            _ => true,
        };
        let newcomers = state
            .apps()
            .any(|a| a.is_mapreduce && !self.jobs.contains_key(&a.arrival) && map_demand(a).0 > 0);
        let store = state.profiles().store();
        let stale = match &self.built_for {
            Some((t, s)) => (topo_moved && *t != datacenters(state)) || (newcomers && s != store),
            None => true,
        };
        if stale {
            let topo = datacenters(state);
            if topo.is_empty() {
                return;
            }
            let cfg = JossConfig {
                threshold: self.threshold,
                assigner: self.assigner,
            };
            match Topology::new(topo.clone())
                .and_then(|t| JossScheduler::new(t, cfg, store.clone()))
            {
                Ok(js) => {
                    self.js = Some(js);
                    self.built_for = Some((topo, store.clone()));
                    self.built_nodes = state.node_count();
                    // The live jobs are queued again, in arrival order, from what they still need.
                    self.jobs.clear();
                    self.ids.clear();
                    self.queued.clear();
                }
                Err(e) => {
                    log::warn!("joss: cannot build the scheduler: {e}");
                    return;
                }
            }
        } else if topo_moved {
            // Same datacenters after all (e.g. a node re-registered): remember the count.
            self.built_nodes = state.node_count();
        }
        if !newcomers && !stale {
            return;
        }
        for app in state.apps() {
            if !app.is_mapreduce || self.jobs.contains_key(&app.arrival) {
                continue;
            }
            match self.submit(app, state) {
                Ok(Some((p, tasks))) => self.record(app, p, tasks),
                Ok(None) => {}
                Err(e) => log::warn!("joss: {}: {e}", app.id),
            }
        }
    }
}

impl JobPolicy for JossPolicy {
    fn name(&self) -> &'static str {
        match self.assigner {
            Assigner::Tta => "joss-t",
            Assigner::Jta => "joss-j",
        }
    }

    fn order(&mut self, state: &ClusterState, node: &Node, _now_ms: u64) -> Vec<Arrival> {
        self.sync(state, node);
        self.maps.clear();
        self.reduce_ok.clear();
        let mut outstanding: FastMap<Arrival, u32> = FastMap::default();
        let mut each: Option<Resource> = None;
        for app in state.apps().filter(|a| a.is_mapreduce) {
            let (remain, size) = map_demand(app);
            outstanding.insert(app.arrival, remain);
            if let Some(s) = size {
                if each.is_none_or(|m| s.memory_mb < m.memory_mb) {
                    each = Some(s);
                }
            }
        }
        let slots = node
            .unallocated
            .count_fitting(&each.unwrap_or(DEFAULT_MAP))
            .min(MAX_SLOTS_PER_HEARTBEAT);
        let mut picks: Vec<Arrival> = Vec::new();
        if let Some(js) = self.js.as_mut() {
            let mut given = 0;
            while given < slots {
                let task = match js.assign_map(&node.host) {
                    Ok(Some(t)) => t,
                    Ok(None) => break,
                    Err(e) => {
                        log::warn!("joss: {e}");
                        break;
                    }
                };
                let Some(&arrival) = self.ids.get(&*task.job) else {
                    continue;
                };
                if let Some(q) = self.queued.get_mut(&arrival) {
                    *q = q.saturating_sub(1);
                }
                let wants = outstanding.get(&arrival).copied().unwrap_or(0);
                let n = self.maps.entry(arrival).or_insert(0);
                // A task the AM no longer asks for (its job shrank) just leaves the queue.
                if *n < wants {
                    *n += 1;
                    given += 1;
                    if *n == 1 {
                        picks.push(arrival);
                    }
                }
            }
        }
        // Maps beyond what JoSS holds (re-executions, jobs JoSS could not queue) go FIFO.
        for app in state.apps().filter(|a| a.is_mapreduce) {
            let wants = outstanding.get(&app.arrival).copied().unwrap_or(0);
            let held = self.queued.get(&app.arrival).copied().unwrap_or(0);
            let picked = self.maps.get(&app.arrival).copied().unwrap_or(0);
            let extra = wants.saturating_sub(held + picked);
            if extra > 0 {
                *self.maps.entry(app.arrival).or_insert(0) += extra;
            }
            let ok = match self.jobs.get(&app.arrival) {
                Some(Job {
                    reduces_at: Some(dc),
                    ..
                }) => *dc == node.datacenter,
                _ => true,
            };
            self.reduce_ok.insert(app.arrival, ok);
        }
        super::am_share::order_around(state, picks)
    }

    fn map_limit(&mut self, app: Arrival) -> u32 {
        self.maps.get(&app).copied().unwrap_or(0)
    }

    /// JoSS's assigners start a datacenter- or off-datacenter task in a slot whenever no better
    /// one is queued; a per-heartbeat off-switch limit would leave those picks idle.
    fn off_switch_limit(&self) -> Option<u32> {
        Some(u32::MAX)
    }

    fn reduce_limit(&mut self, app: Arrival) -> u32 {
        if self.reduce_ok.get(&app).copied().unwrap_or(true) {
            u32::MAX
        } else {
            0
        }
    }

    fn app_removed(&mut self, app: Arrival) {
        self.queued.remove(&app);
        if let Some(job) = self.jobs.remove(&app) {
            self.ids.remove(&job.id);
            if let Some(js) = self.js.as_mut() {
                js.remove_job(&job.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebuilt_blocks_keep_every_hosts_count() {
        let blocks = rebuild_blocks(
            3,
            vec![
                ("a".to_string(), 3),
                ("b".to_string(), 2),
                ("c".to_string(), 1),
            ],
        );
        assert_eq!(blocks.len(), 3);
        for (host, count) in [("a", 3), ("b", 2), ("c", 1)] {
            assert_eq!(
                blocks
                    .iter()
                    .filter(|b| b.iter().any(|h| h == host))
                    .count(),
                count
            );
        }
        assert!(blocks.iter().all(|b| b.len() == 2));
        // More replicas than blocks for one host cannot happen in YARN; it is capped, not a panic.
        assert_eq!(
            rebuild_blocks(1, vec![("a".to_string(), 5)]),
            vec![vec!["a".to_string()]]
        );
    }

    /// The per-host sort the round-robin deal replaces (as did two ordered sets of blocks before): each host on the `count` blocks with the
    /// fewest replicas, lowest index first.
    fn rebuild_by_sorting(maps: u32, mut hosts: Vec<(String, u32)>) -> Vec<Vec<String>> {
        let mut blocks: Vec<Vec<String>> = vec![Vec::new(); maps as usize];
        hosts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (host, count) in hosts {
            let mut idx: Vec<usize> = (0..blocks.len()).collect();
            idx.sort_by_key(|&i| (blocks[i].len(), i));
            for i in idx.into_iter().take(count as usize) {
                blocks[i].push(host.clone());
            }
        }
        blocks
    }

    #[test]
    fn rebuilt_blocks_match_the_per_host_sort() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for round in 0..600 {
            // Mostly small cases, some with many hosts dealing round the blocks several times.
            let maps = if round % 5 == 0 { next(300) } else { next(40) } as u32;
            let hosts: Vec<(String, u32)> = (0..if round % 5 == 0 { next(60) } else { next(12) })
                .map(|h| (format!("h{h}"), next(maps as u64 + 3) as u32))
                .collect();
            assert_eq!(
                rebuild_blocks(maps, hosts.clone()),
                rebuild_by_sorting(maps, hosts.clone()),
                "{maps} {hosts:?}"
            );
        }
    }

    #[test]
    fn rebuilt_blocks_are_bounded_whatever_the_count() {
        let blocks = rebuild_blocks(
            u32::MAX,
            vec![("a".to_string(), u32::MAX), ("b".to_string(), 3)],
        );
        assert_eq!(blocks.len(), MAX_QUEUED_MAPS_PER_JOB as usize);
        assert!(blocks
            .iter()
            .all(|b| b.first().map(String::as_str) == Some("a")));
        assert_eq!(blocks.iter().filter(|b| b.len() == 2).count(), 3);
    }
}
