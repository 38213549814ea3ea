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

use crate::policy::map_asks::{map_demand, map_host_rows, servable_map_size};
use std::collections::BTreeMap;

use crate::error::CoreError;
use crate::fast_hash::FastMap;
use crate::papers::joss::{
    Assigner, BlockHosts, JossConfig, JossJob, JossScheduler, Placement, Policy, ProfileStore,
    Topology,
};
use crate::policy::JobPolicy;
use crate::protocol::Resource;
use crate::state::app::{App, Arrival, TaskKind};
use crate::state::names::ANY_ID;
use crate::state::node::{partition_serves, Node};
use crate::state::ClusterState;

const MAX_SLOTS_PER_HEARTBEAT: u32 = 256;
const DEFAULT_MAP: Resource = Resource {
    memory_mb: 1024,
    vcores: 1,
    extra: [0; crate::protocol::MAX_EXTRA_TYPES],
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
    /// The profile store the scheduler was built from (its datacenters are its topology's).
    built_for: Option<ProfileStore>,
    /// Node count at the last topology check.
    built_nodes: usize,
    jobs: BTreeMap<Arrival, Job>,
    /// `jobs` by application id, the name JoSS's assigner gives a task's job by.
    ids: FastMap<String, Arrival>,
    maps: FastMap<Arrival, u32>,
    reduce_ok: FastMap<Arrival, bool>,
    /// Map tasks JoSS still holds per job (kept in step with submit / assign / remove).
    queued: FastMap<Arrival, u32>,
    /// The distinct node sizes (with their partitions) of each datacenter, as of
    /// [`ClusterState::nodes_version`].
    dc_shapes: (u64, BTreeMap<String, Vec<DcShape>>),
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
            dc_shapes: (u64::MAX, BTreeMap::new()),
        }
    }

    /// The policy JoSS chose for an application (`None` until its maps were asked for).
    pub fn policy_of(&self, app: Arrival) -> Option<(Policy, Option<String>)> {
        self.jobs
            .get(&app)
            .map(|j| (j.policy, j.reduces_at.clone()))
    }
}

/// Whether some node of datacenter `dc` could hold every reduce `app` asks for (its size, a node
/// the reduce's partition may use, and not a node the app blacklists). Reduces bound to a datacenter that cannot hold them would
/// wait forever: the binding is a locality preference, and a place no node can serve is a
/// blocker's (docs/design/liveness.md), so such reduces run wherever they fit.
fn dc_holds_reduces(state: &ClusterState, shapes: &[DcShape], app: &App, dc: &str) -> bool {
    app.asks
        .tables()
        .filter(|(key, _)| app.kind_of(key.priority) == TaskKind::Reduce)
        .filter_map(|(key, table)| {
            let partition = app.partitions.of(key);
            table
                .row(ANY_ID)
                .filter(|r| r.count > 0)
                .map(|r| (partition, r))
        })
        .all(|(partition, r)| {
            if app.blacklist.is_empty() {
                shapes.iter().any(|(p, exclusive, s)| {
                    partition_serves(p, *exclusive, partition) && s.fits(&r.capability)
                })
            } else {
                state.nodes().any(|n| {
                    n.datacenter == dc
                        && n.serves(partition)
                        && !app.blacklist.excludes(&n.host, &n.rack)
                        && n.capability.fits(&r.capability)
                })
            }
        })
}

/// A node size in a datacenter, with the node's partition and whether it is exclusive.
type DcShape = (String, bool, Resource);

fn datacenters(state: &ClusterState) -> Datacenters {
    let mut by_dc: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in state.nodes() {
        by_dc
            .entry(n.datacenter.as_str())
            .or_default()
            .push(n.host.as_str());
    }
    by_dc
        .into_iter()
        .map(|(dc, mut hosts)| {
            hosts.sort_unstable();
            hosts.dedup();
            (
                dc.to_string(),
                hosts.into_iter().map(str::to_string).collect(),
            )
        })
        .collect()
}

/// Whether `t` is what `Topology::new(datacenters(state))` would build: every node's host in
/// its node's datacenter, and no other host. Answered from the nodes, without building the
/// lists (they copy every host name).
fn topology_matches(t: &Topology, state: &ClusterState) -> bool {
    let mut seen = vec![false; t.vps_datacenters().len()];
    let mut distinct = 0;
    for n in state.nodes() {
        let Some((vps, c)) = t.locate(&n.host) else {
            return false;
        };
        if t.name(c as usize) != Some(n.datacenter.as_str()) {
            return false;
        }
        if let Some(s) = seen.get_mut(vps as usize) {
            if !std::mem::replace(s, true) {
                distinct += 1;
            }
        }
    }
    distinct == seen.len()
}

/// Map tasks of one job JoSS's queues hold at most. The AM sets the outstanding count (up to
/// 2^32-1, which once made this policy allocate 100 GB and abort the RM); a job's maps beyond it
/// are served FIFO after JoSS's picks, like re-executions. It is far above the papers' workloads
/// and the simulator's synthetic jobs (`--max-maps`, default 4,800); the blocks rebuilt when a
/// job is queued, and the queues' per-VPS indexes, are bounded by it.
pub const MAX_QUEUED_MAPS_PER_JOB: u32 = 65_536;

/// Replicas a rebuilt block holds at most. The per-host counts are the AM's: 8,191 hosts each
/// wanted by every map would deal 537 M replicas over the 65,536 queued blocks. Above HDFS's
/// usual replication (3) and what a 3-replica job of up to 8 / 3 × 65,536 (174,762) maps leaves
/// per queued block; the hosts wanted by the fewest maps are the ones left out. With 16, a job
/// naming its 5,000 hosts with counts of 2^32-1 made a first heartbeat of 8-24 ms on the CPU.
pub const MAX_REPLICAS_PER_BLOCK: u32 = 8;

/// The VPS list of each map task, consistent with the per-host counts (see the module doc):
/// hosts (name, VPS number if the topology has it, count) in descending count order (ties by
/// name), each added to the `count` blocks with the fewest replicas so far, lowest index first.
/// At most [`MAX_QUEUED_MAPS_PER_JOB`] blocks of at most [`MAX_REPLICAS_PER_BLOCK`] replicas are
/// built. A host no VPS has takes its place in the deal but is no replica.
///
/// Every host adds at most one replica per block, so replica counts differ by at most one and
/// the blocks with L + 1 replicas are always a prefix `0..a` of the index range: the blocks with
/// the fewest replicas, lowest index first, are `a, a+1, …` wrapping round to 0 once every
/// block has L + 1. The hosts therefore deal their replicas round-robin: the k-th replica dealt
/// goes to block k mod m, as its (k div m)-th, so where it lands in one flat list is known
/// before the deal and the lists are filled in place, O(Σ count), nothing grown or sorted per
/// block.
pub fn rebuild_blocks<H: Ord>(maps: u32, mut hosts: Vec<(H, Option<u32>, u32)>) -> BlockHosts {
    let n = maps.min(MAX_QUEUED_MAPS_PER_JOB) as usize;
    if n == 0 {
        return BlockHosts::default();
    }
    hosts.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    // A host holds at most one replica of a block: a count above the blocks is capped.
    let total = hosts
        .iter()
        .fold(0usize, |sum, h| sum.saturating_add((h.2 as usize).min(n)))
        .min(n * MAX_REPLICAS_PER_BLOCK as usize);
    let (rounds, longer) = (total / n, total % n);
    // Blocks 0..longer hold rounds + 1 replicas, the rest rounds. Fits u32: total ≤ 2^20.
    let starts: Vec<u32> = (0..=n)
        .map(|b| (b * rounds + b.min(longer)) as u32)
        .collect();
    const NO_VPS: u32 = u32::MAX;
    let mut vps = vec![NO_VPS; total];
    let (mut block, mut round, mut dealt) = (0usize, 0usize, 0usize);
    let mut unknown = false;
    'deal: for (_, at, count) in &hosts {
        unknown |= at.is_none();
        for _ in 0..(*count as usize).min(n) {
            if dealt == total {
                break 'deal;
            }
            if let Some(slot) = vps.get_mut(starts[block] as usize + round) {
                *slot = at.unwrap_or(NO_VPS);
            }
            dealt += 1;
            block += 1;
            if block == n {
                block = 0;
                round += 1;
            }
        }
    }
    if !unknown {
        return BlockHosts::from_parts(starts, vps);
    }
    BlockHosts::from_lists(starts.windows(2).map(|w| {
        vps[w[0] as usize..w[1] as usize]
            .iter()
            .copied()
            .filter(|&v| v != NO_VPS)
    }))
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
        let (remain, _) = map_demand(app);
        if remain == 0 {
            return Ok(None);
        }
        // The per-host counts, borrowed, one entry per host summed over the map priorities
        // (saturating: the counts are the AM's), each host located once.
        let mut rows: Vec<(&str, u32)> = map_host_rows(state, app).collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
        rows.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = kept.1.saturating_add(later.1);
            }
            same
        });
        let topology = js.topology();
        let hosts: Vec<(&str, Option<u32>, u32)> = rows
            .into_iter()
            .map(|(h, c)| (h, topology.locate(h).map(|(vps, _)| vps), c))
            .collect();
        // The datacenters where one of the job's maps fits some node: JoSS queues its tasks
        // nowhere else.
        let usable: Option<Vec<bool>> = servable_map_size(state, app).map(|size| {
            let mut usable = vec![false; topology.datacenters()];
            for n in state.nodes().filter(|n| n.capability.fits(&size)) {
                if let Some(u) = topology
                    .datacenter_of(&n.host)
                    .and_then(|c| usable.get_mut(c))
                {
                    *u = true;
                }
            }
            usable
        });
        let blocks = rebuild_blocks(remain, hosts);
        // The profiles' key, which includes the user: another user's runs must not classify it.
        let signature = state.profiles().signature(app.arrival).unwrap_or_else(|| {
            crate::profile::job_signature(&app.user, &app.name, &app.app_type, "")
        });
        let placement = js.submit_within(
            JossJob {
                id: app.id.clone(),
                signature,
                blocks,
                reduces: 0,
            },
            usable.as_deref(),
        )?;
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
        let stale = match (&self.js, &self.built_for) {
            (Some(js), Some(s)) => {
                (topo_moved && !topology_matches(js.topology(), state)) || (newcomers && s != store)
            }
            _ => true,
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
            match Topology::new(topo).and_then(|t| JossScheduler::new(t, cfg, store.clone())) {
                Ok(js) => {
                    self.js = Some(js);
                    self.built_for = Some(store.clone());
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
            let (remain, _) = map_demand(app);
            let size = servable_map_size(state, app);
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
                let Some(&arrival) = self.ids.get(task.job()) else {
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
        if self.dc_shapes.0 != state.nodes_version() {
            let mut shapes: BTreeMap<String, Vec<DcShape>> = BTreeMap::new();
            for n in state.nodes() {
                let list = shapes.entry(n.datacenter.clone()).or_default();
                if !list
                    .iter()
                    .any(|(p, e, s)| *p == n.partition && *e == n.exclusive && *s == n.capability)
                {
                    list.push((n.partition.clone(), n.exclusive, n.capability));
                }
            }
            self.dc_shapes = (state.nodes_version(), shapes);
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
                }) if *dc != node.datacenter => {
                    let shapes = self.dc_shapes.1.get(dc).map_or(&[][..], Vec::as_slice);
                    !dc_holds_reduces(state, shapes, app, dc)
                }
                _ => true,
            };
            self.reduce_ok.insert(app.arrival, ok);
        }
        crate::policy::am_share::order_around(state, picks)
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

    /// The blocks as lists of host names (`h<vps>`).
    fn named(blocks: &BlockHosts) -> Vec<Vec<String>> {
        (0..blocks.len())
            .map(|b| blocks.of(b).iter().map(|v| format!("h{v}")).collect())
            .collect()
    }

    #[test]
    fn rebuilt_blocks_keep_every_hosts_count() {
        let blocks = rebuild_blocks(
            3,
            vec![("a", Some(0), 3), ("b", Some(1), 2), ("c", Some(2), 1)],
        );
        assert_eq!(blocks.len(), 3);
        for (vps, count) in [(0, 3), (1, 2), (2, 1)] {
            let holding = (0..3).filter(|&b| blocks.of(b).contains(&vps)).count();
            assert_eq!(holding, count);
        }
        assert!((0..3).all(|b| blocks.of(b).len() == 2));
        // More replicas than blocks for one host cannot happen in YARN; it is capped, not a panic.
        assert_eq!(
            named(&rebuild_blocks(1, vec![("a", Some(0), 5)])),
            vec![vec!["h0".to_string()]]
        );
    }

    /// The per-host sort the round-robin deal replaces (as did two ordered sets of blocks
    /// before): each host on the `count` blocks with the fewest replicas, lowest index first.
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

    /// The deal as the previous version made it: a list of names per block, grown one push at
    /// a time from a round-robin cursor.
    fn rebuild_by_dealing_names(maps: u32, mut hosts: Vec<(String, u32)>) -> Vec<Vec<String>> {
        let n = maps as usize;
        let mut blocks: Vec<Vec<String>> = vec![Vec::new(); n];
        if n == 0 {
            return blocks;
        }
        hosts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut next = 0;
        for (host, count) in hosts {
            for _ in 0..(count as usize).min(n) {
                blocks[next].push(host.clone());
                next = (next + 1) % n;
            }
        }
        blocks
    }

    /// The flat deal over VPS numbers gives both older builds' blocks (capped at
    /// [`MAX_REPLICAS_PER_BLOCK`], hosts no VPS has left out) on random counts, names and
    /// unknown hosts.
    #[test]
    fn rebuilt_blocks_match_the_per_host_sort_and_the_old_deal() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let cap = MAX_REPLICAS_PER_BLOCK as usize;
        for round in 0..800 {
            // Mostly small cases, some with many hosts dealing round the blocks several times
            // (past the replica cap when the blocks are few).
            let maps = if round % 5 == 0 { next(300) } else { next(40) } as u32;
            let hosts = if round % 5 == 0 { next(60) } else { next(12) };
            // Host h is VPS h, or (one in five) a host no VPS has, named `x<h>`.
            let hosts: Vec<(String, Option<u32>, u32)> = (0..hosts)
                .map(|h| {
                    let count = next(maps as u64 + 3) as u32;
                    if next(5) == 0 {
                        (format!("x{h}"), None, count)
                    } else {
                        (format!("h{h}"), Some(h as u32), count)
                    }
                })
                .collect();
            let by_name: Vec<(String, u32)> =
                hosts.iter().map(|(h, _, c)| (h.clone(), *c)).collect();
            let known = |blocks: Vec<Vec<String>>| -> Vec<Vec<String>> {
                blocks
                    .into_iter()
                    .map(|b| {
                        b.into_iter()
                            .take(cap)
                            .filter(|h| h.starts_with('h'))
                            .collect()
                    })
                    .collect()
            };
            let new = named(&rebuild_blocks(maps, hosts.clone()));
            assert_eq!(
                new,
                known(rebuild_by_dealing_names(maps, by_name.clone())),
                "{maps} {hosts:?}"
            );
            if hosts.iter().map(|h| h.2.min(maps) as usize).sum::<usize>() <= cap * maps as usize {
                assert_eq!(
                    new,
                    known(rebuild_by_sorting(maps, by_name)),
                    "{maps} {hosts:?}"
                );
            }
        }
    }

    #[test]
    fn rebuilt_blocks_are_bounded_whatever_the_count() {
        let blocks = rebuild_blocks(u32::MAX, vec![("a", Some(0), u32::MAX), ("b", Some(1), 3)]);
        assert_eq!(blocks.len(), MAX_QUEUED_MAPS_PER_JOB as usize);
        assert!((0..blocks.len()).all(|b| blocks.of(b).first() == Some(&0)));
        assert_eq!(
            (0..blocks.len())
                .filter(|&b| blocks.of(b).len() == 2)
                .count(),
            3
        );
    }

    /// Every host of a hostile AM's asks wanting every one of 2^32-1 maps: the blocks are capped
    /// at 65,536, and their replicas must be too (8,191 such hosts dealt whole made 537 M
    /// replicas, gigabytes, in one heartbeat under the core lock).
    #[test]
    fn rebuilt_blocks_hold_a_bounded_number_of_replicas() {
        let hosts: Vec<(String, Option<u32>, u32)> = (0..100)
            .map(|h| (format!("h{h:03}"), Some(h), u32::MAX))
            .collect();
        let blocks = rebuild_blocks(u32::MAX, hosts);
        let most = (0..blocks.len()).map(|b| blocks.of(b).len()).max();
        assert_eq!(
            most,
            Some(MAX_REPLICAS_PER_BLOCK as usize),
            "a block's replicas"
        );
        // The hosts wanted by the most maps (here: first by name) are the ones dealt.
        assert_eq!(
            blocks.of(0),
            (0..MAX_REPLICAS_PER_BLOCK).collect::<Vec<u32>>()
        );
    }
}
