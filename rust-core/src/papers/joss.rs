//! JoSS, hybrid job-driven scheduling for virtual MapReduce clusters spread over k datacenters
//! (Lee, Lin, Yahyapour — IEEE TPDS 2016). A job JoSS has run before is classified by its
//! filtering percentage FP_J (map-output/map-input, Eq. (3), threshold td = k/(k−1), Eq. (8)) and
//! by its map count against the average datacenter size (Eq. (4)), and its tasks are queued by
//! policy A (small reduce-heavy: everything in the least-loaded datacenter), B (small map-heavy:
//! maps where their blocks are, reduces where most blocks are) or C (large: like B but in new
//! per-job queues). Unknown jobs run first through MQ_FIFO / RQ_FIFO, which is how their profile
//! gets learned. Free slots are filled by TTA or JTA (see [`queues`]). See `docs/design/papers-joss.md`.
//!
//! Files: this one is the algorithm; `queues` the task queues and the two assigners; `speed` the
//! queues' per-VPS and per-datacenter indexes that answer TTA's locality choice without a scan;
//! `yarn` the adapter to the job-policy layer.

pub mod queues;
mod speed;
pub mod yarn;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::error::CoreError;
use crate::fast_hash::FastMap;

pub use crate::profile::store::{
    JobObservation, JobProfile, JobSignature, ProfileKey, ProfileStore, Recorded,
};
pub use queues::{
    Assigner, BlockHosts, DatacenterQueues, JobBlocks, MapLocality, MapQueue, MapTask, ReduceTask,
};

/// Eq. (8): the td that makes "RH" exactly the jobs whose worst-case inter-datacenter traffic is
/// lower under policy A than under policy B (Eq. (7): FP_J > k/(k−1)). With one datacenter there
/// is no inter-datacenter traffic to save and no job is reduce-heavy.
pub fn best_threshold(datacenters: usize) -> f64 {
    if datacenters <= 1 {
        f64::INFINITY
    } else {
        datacenters as f64 / (datacenters as f64 - 1.0)
    }
}

/// Section 4.1's three job classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobClass {
    SmallMapHeavy,
    SmallReduceHeavy,
    Large,
}

/// Eq. (4) then Eq. (3): small when `m ≤ N_avg_VPS`; a small job is reduce-heavy when
/// `FP_J > td`. Large jobs are not split further (policy C serves both).
pub fn classify(
    maps: usize,
    filtering_percentage: f64,
    avg_vps_per_datacenter: f64,
    td: f64,
) -> JobClass {
    if maps as f64 > avg_vps_per_datacenter {
        JobClass::Large
    } else if filtering_percentage > td {
        JobClass::SmallReduceHeavy
    } else {
        JobClass::SmallMapHeavy
    }
}

/// Why JoSS cannot be built from what it was given.
#[derive(Debug, Clone, PartialEq)]
pub enum JossError {
    /// The datacenters cen_1..cen_k cannot be used as listed.
    Datacenters(String),
    /// td outside [0, ∞).
    Threshold(f64),
}

impl std::fmt::Display for JossError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JossError::Datacenters(m) => write!(f, "datacenters: {m}"),
            JossError::Threshold(t) => write!(f, "td must be a number ≥ 0, got {t}"),
        }
    }
}

impl std::error::Error for JossError {}

/// The datacenters cen_1..cen_k and the VPSs (YARN hosts) in each.
#[derive(Debug, Clone)]
pub struct Topology {
    names: Vec<String>,
    sizes: Vec<usize>,
    /// Each host's datacenter and VPS number (its place in the listing), for the queues' indexes.
    /// Keyed by the RM's node hosts (an AM's names are only looked up, never inserted), so the
    /// fast hasher.
    host_dc: FastMap<String, (usize, u32)>,
    /// Each VPS's datacenter, by VPS number: tasks name their replicas by VPS number.
    vps_dc: Vec<u32>,
}

impl Topology {
    /// `datacenters` in cen_1..cen_k order (the order breaks ties, as "the first largest set").
    pub fn new(datacenters: Vec<(String, Vec<String>)>) -> Result<Self, JossError> {
        let cfg_err = JossError::Datacenters;
        if datacenters.is_empty() {
            return Err(cfg_err("no datacenter configured".into()));
        }
        let mut names = Vec::new();
        let mut sizes = Vec::new();
        let mut host_dc = FastMap::default();
        let mut vps_dc = Vec::new();
        for (c, (name, hosts)) in datacenters.into_iter().enumerate() {
            if names.contains(&name) {
                return Err(cfg_err(format!("datacenter {name} listed twice")));
            }
            if hosts.is_empty() {
                return Err(cfg_err(format!("datacenter {name} has no hosts")));
            }
            sizes.push(hosts.len());
            for h in hosts {
                match host_dc.get(&h) {
                    Some(&(prev, _)) if prev != c => {
                        return Err(cfg_err(format!(
                            "host {h} is in both {} and {name}",
                            names[prev]
                        )));
                    }
                    Some(_) => {}
                    None => {
                        let vps = host_dc.len() as u32;
                        host_dc.insert(h, (c, vps));
                        vps_dc.push(c as u32);
                    }
                }
            }
            names.push(name);
        }
        Ok(Topology {
            names,
            sizes,
            host_dc,
            vps_dc,
        })
    }

    /// k.
    pub fn datacenters(&self) -> usize {
        self.names.len()
    }

    pub fn name(&self, c: usize) -> Option<&str> {
        self.names.get(c).map(String::as_str)
    }

    /// Name of an index this module produced itself (always in range).
    fn label(&self, c: usize) -> String {
        self.names.get(c).cloned().unwrap_or_default()
    }

    /// N_avg_VPS = Σ N_VPS,c / k.
    pub fn avg_vps(&self) -> f64 {
        self.sizes.iter().sum::<usize>() as f64 / self.names.len() as f64
    }

    pub fn datacenter_of(&self, host: &str) -> Option<usize> {
        self.host_dc.get(host).map(|&(c, _)| c)
    }

    /// `host`'s (VPS number, datacenter number), the queues' index keys.
    pub fn locate(&self, host: &str) -> Option<(u32, u32)> {
        self.host_dc.get(host).map(|&(c, vps)| (vps, c as u32))
    }

    /// Each VPS's datacenter, by VPS number.
    pub fn vps_datacenters(&self) -> &[u32] {
        &self.vps_dc
    }

    /// The blocks of a job from the names of the hosts holding each block; a name that is no
    /// VPS of this topology is left out (no VPS can be local to it).
    pub fn blocks<'a, L: IntoIterator<Item = &'a str>>(
        &self,
        lists: impl IntoIterator<Item = L>,
    ) -> BlockHosts {
        BlockHosts::from_lists(lists.into_iter().map(|l| {
            l.into_iter()
                .filter_map(|h| self.locate(h).map(|(v, _)| v))
                .collect::<Vec<_>>()
        }))
    }

    /// Where a map task's block is relative to `host` (Eqs. (9)-(11) count these); a host no
    /// datacenter lists is off-Cen for every task.
    pub fn map_locality(&self, task: &MapTask, host: &str) -> MapLocality {
        let Some((vps, dc)) = self.locate(host) else {
            return MapLocality::OffCen;
        };
        if task.replicas().contains(&vps) {
            MapLocality::Vps
        } else if task
            .replicas()
            .iter()
            .any(|&r| self.vps_dc.get(r as usize) == Some(&dc))
        {
            MapLocality::Cen
        } else {
            MapLocality::OffCen
        }
    }
}

/// A submitted job as JoSS sees it.
#[derive(Debug, Clone)]
pub struct JossJob {
    pub id: String,
    pub signature: JobSignature,
    /// One entry per map task M_i: the VPSs holding a replica of block B_i
    /// ([`Topology::blocks`] makes them from host names).
    pub blocks: BlockHosts,
    /// r, the number of reduce tasks.
    pub reduces: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Unknown signature: MQ_FIFO / RQ_FIFO (Fig. 4 lines 4-6).
    Fifo,
    A,
    B,
    C,
}

/// Where the task scheduler (Fig. 4) put a job's tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub policy: Policy,
    pub class: Option<JobClass>,
    /// (datacenter, block indices) in the order the map tasks were queued.
    pub maps: Vec<(String, Vec<u32>)>,
    /// Datacenter whose reduce queue got the job's reduces; None for the FIFO queue.
    pub reduces_at: Option<String>,
}

#[derive(Debug, Clone)]
pub struct JossConfig {
    /// td; None means Eq. (8)'s k/(k−1).
    pub threshold: Option<f64>,
    /// TTA = JoSS-T, JTA = JoSS-J.
    pub assigner: Assigner,
}

impl Default for JossConfig {
    fn default() -> Self {
        JossConfig {
            threshold: None,
            assigner: Assigner::Tta,
        }
    }
}

/// The task scheduler (Fig. 4) and task assigner (Fig. 5 or 6), with every queue and the
/// profile store kept between heartbeats.
#[derive(Debug, Clone)]
pub struct JossScheduler {
    topology: Topology,
    td: f64,
    assigner: Assigner,
    profiles: ProfileStore,
    dcs: Vec<DatacenterQueues>,
    mq_fifo: MapQueue,
    rq_fifo: VecDeque<ReduceTask>,
    jobs: HashSet<String>,
}

impl JossScheduler {
    pub fn new(
        topology: Topology,
        cfg: JossConfig,
        profiles: ProfileStore,
    ) -> Result<Self, JossError> {
        let td = match cfg.threshold {
            None => best_threshold(topology.datacenters()),
            Some(t) if t >= 0.0 && !t.is_nan() => t,
            Some(t) => return Err(JossError::Threshold(t)),
        };
        let dcs = vec![DatacenterQueues::default(); topology.datacenters()];
        Ok(JossScheduler {
            topology,
            td,
            assigner: cfg.assigner,
            profiles,
            dcs,
            mq_fifo: MapQueue::default(),
            rq_fifo: VecDeque::new(),
            jobs: HashSet::new(),
        })
    }

    pub fn threshold(&self) -> f64 {
        self.td
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    pub fn profiles(&self) -> &ProfileStore {
        &self.profiles
    }

    /// A finished job's measurements; the next job with this signature is classified from them.
    pub fn record_completed_job(&mut self, sig: JobSignature, run: &JobObservation) {
        self.profiles.record_run(sig, run);
    }

    /// The queues of datacenter c.
    pub fn datacenter_queues(&self, c: usize) -> Option<&DatacenterQueues> {
        self.dcs.get(c)
    }

    pub fn fifo_map_queue(&self) -> &MapQueue {
        &self.mq_fifo
    }

    pub fn fifo_reduce_queue(&self) -> &VecDeque<ReduceTask> {
        &self.rq_fifo
    }

    /// The task scheduler, Fig. 4.
    pub fn submit(&mut self, job: JossJob) -> Result<Placement, CoreError> {
        self.submit_within(job, None)
    }

    /// Fig. 4 over the datacenters `usable` marks (by datacenter number; None: every one). A
    /// datacenter where none of the job's tasks can ever run (its nodes are all too small) is
    /// a blocker's place (docs/design/liveness.md): its replicas count for nothing and policy A
    /// does not choose it; with no usable datacenter the job goes FIFO.
    pub fn submit_within(
        &mut self,
        job: JossJob,
        usable: Option<&[bool]>,
    ) -> Result<Placement, CoreError> {
        let ok = |c: usize| usable.is_none_or(|u| u.get(c).copied().unwrap_or(false));
        if !self.jobs.insert(job.id.clone()) {
            return Err(CoreError::Protocol(format!(
                "JoSS: job {} submitted twice",
                job.id
            )));
        }
        let id = job.id.clone();
        let reduces = (0..job.reduces).map(move |i| ReduceTask {
            job: id.clone(),
            index: i,
        });
        let blocks = Arc::new(JobBlocks {
            id: job.id,
            hosts: job.blocks,
        });
        let maps: Vec<MapTask> = blocks.tasks().collect();
        let vps_dc = self.topology.vps_datacenters();

        // lines 1-6
        let Some(fp) = self
            .profiles
            .known(job.signature)
            .and_then(JobProfile::filtering_percentage)
        else {
            self.mq_fifo.extend(maps, vps_dc);
            self.rq_fifo.extend(reduces);
            return Ok(Placement {
                policy: Policy::Fifo,
                class: None,
                maps: Vec::new(),
                reduces_at: None,
            });
        };
        let class = classify(maps.len(), fp, self.topology.avg_vps(), self.td);

        let w = (0..self.dcs.len())
            .filter(|&c| ok(c))
            .min_by_key(|&c| self.dcs[c].unprocessed());
        let Some(w) = w else {
            self.mq_fifo.extend(maps, vps_dc);
            self.rq_fifo.extend(reduces);
            return Ok(Placement {
                policy: Policy::Fifo,
                class: Some(class),
                maps: Vec::new(),
                reduces_at: None,
            });
        };
        if class == JobClass::SmallReduceHeavy {
            // lines 8-12, policy A
            let blocks = maps.iter().map(|t| t.block).collect();
            self.dcs[w].push_permanent_maps(maps, vps_dc);
            self.dcs[w].push_permanent_reduces(reduces);
            let name = self.topology.label(w);
            return Ok(Placement {
                policy: Policy::A,
                class: Some(class),
                maps: vec![(name.clone(), blocks)],
                reduces_at: Some(name),
            });
        }

        // lines 14-40, policies B and C
        let large = class == JobClass::Large;
        let k = self.dcs.len();
        let mut held: Vec<Vec<u32>> = vec![Vec::new(); k];
        for t in &maps {
            for &r in t.replicas() {
                if let Some(&c) = vps_dc.get(r as usize).filter(|&&c| ok(c as usize)) {
                    let c = c as usize;
                    // Tasks come in block order, so a repeat can only be the last entry (a scan
                    // of the whole list made a 100k-map job quadratic).
                    if held[c].last() != Some(&t.block) {
                        held[c].push(t.block);
                    }
                }
            }
        }
        // A job none of whose blocks has a replica in a usable datacenter (its data is on hosts
        // outside the cluster, or only where none of its maps fits) has no locality to keep and
        // no cen_e: its maps go to MQ_FIFO, as an unknown job's do.
        let maps = if held.iter().all(Vec::is_empty) {
            self.mq_fifo.extend(maps, vps_dc);
            Vec::new()
        } else {
            maps
        };
        // line 32: cen_e from the unique-block counts before any block is handed out
        let e = first_largest(&held);
        // Blocks are numbered 0..m in order, so a task's block is its index here.
        let mut by_block: Vec<Option<MapTask>> = maps.into_iter().map(Some).collect();
        let mut placed = Vec::new();
        let mut queue_of: HashMap<usize, usize> = HashMap::new();
        loop {
            let d = first_largest(&held);
            let chosen = std::mem::take(&mut held[d]);
            if chosen.is_empty() {
                break;
            }
            let tasks: Vec<MapTask> = chosen
                .iter()
                .filter_map(|&b| by_block.get_mut(b as usize).and_then(Option::take))
                .collect();
            for l in held.iter_mut() {
                l.retain(|&b| by_block.get(b as usize).is_some_and(Option::is_some));
            }
            if large {
                queue_of.insert(d, self.dcs[d].new_map_queue(tasks, vps_dc));
            } else {
                self.dcs[d].push_permanent_maps(tasks, vps_dc);
            }
            placed.push((self.topology.label(d), chosen));
        }
        // Some blocks without a replica in any known datacenter would make Fig. 4's loop spin
        // forever; they go with the reduces, to cen_e (a datacenter holding the job's other blocks).
        let unlocated: Vec<MapTask> = by_block.into_iter().flatten().collect();
        if !unlocated.is_empty() {
            let blocks: Vec<u32> = unlocated.iter().map(|t| t.block).collect();
            match (large, queue_of.get(&e)) {
                (false, _) => self.dcs[e].push_permanent_maps(unlocated, vps_dc),
                (true, Some(&p)) => self.dcs[e].extend_map_queue(p, unlocated, vps_dc),
                (true, None) => {
                    self.dcs[e].new_map_queue(unlocated, vps_dc);
                }
            }
            placed.push((self.topology.label(e), blocks));
        }
        if large {
            self.dcs[e].new_reduce_queue(reduces);
        } else {
            self.dcs[e].push_permanent_reduces(reduces);
        }
        Ok(Placement {
            policy: if large { Policy::C } else { Policy::B },
            class: Some(class),
            maps: placed,
            reduces_at: Some(self.topology.label(e)),
        })
    }

    /// An idle map slot on `host` (TTA Fig. 5 / JTA Fig. 6, lines 5-13): MQ_FIFO first, by Hadoop
    /// FIFO; then this datacenter's map queues in turn.
    pub fn assign_map(&mut self, host: &str) -> Result<Option<MapTask>, CoreError> {
        let (vps, c) = self
            .topology
            .locate(host)
            .ok_or_else(|| CoreError::UnknownNode(host.to_string()))?;
        if let Some(t) = self.mq_fifo.take(Some(vps), Some(c)) {
            return Ok(Some(t));
        }
        Ok(self.dcs[c as usize].next_map(self.assigner, Some(vps), Some(c)))
    }

    /// An idle reduce slot on `host` (lines 14-22): RQ_FIFO's head first, then this datacenter's
    /// reduce queues in turn.
    pub fn assign_reduce(&mut self, host: &str) -> Result<Option<ReduceTask>, CoreError> {
        let c = self
            .topology
            .datacenter_of(host)
            .ok_or_else(|| CoreError::UnknownNode(host.to_string()))?;
        if let Some(t) = self.rq_fifo.pop_front() {
            return Ok(Some(t));
        }
        Ok(self.dcs[c].next_reduce())
    }

    /// A killed or finished job's leftover queued tasks go away.
    pub fn remove_job(&mut self, job: &str) {
        self.jobs.remove(job);
        let vps_dc = self.topology.vps_datacenters();
        self.mq_fifo.remove_job(job, vps_dc);
        self.rq_fifo.retain(|t| t.job != job);
        for dc in &mut self.dcs {
            dc.remove_job(job, vps_dc);
        }
    }
}

/// "The first largest set among L_1..L_k" (Fig. 4 line 18).
fn first_largest(sets: &[Vec<u32>]) -> usize {
    let mut best = 0;
    for (c, s) in sets.iter().enumerate() {
        if s.len() > sets[best].len() {
            best = c;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k datacenters named cen1.., each with `per_dc` hosts named cen<c>-v<l>.
    fn topology(k: usize, per_dc: usize) -> Topology {
        Topology::new(
            (1..=k)
                .map(|c| {
                    (
                        format!("cen{c}"),
                        (1..=per_dc).map(|l| format!("cen{c}-v{l}")).collect(),
                    )
                })
                .collect(),
        )
        .unwrap()
    }

    fn known(store: &mut ProfileStore, name: &str, fp: f64) -> JobSignature {
        let sig = JobSignature::new(name, "MAPREDUCE", "web");
        let mut run = JobObservation::default();
        run.map_finished(1000, 1000, (fp * 1000.0).round() as u64);
        store.record_run(sig, &run);
        sig
    }

    fn hosts<T: From<&'static str>>(list: &[&'static str]) -> Vec<T> {
        list.iter().map(|&h| h.into()).collect()
    }

    /// Fig. 3: job Y, six blocks with two replicas each over three datacenters. cen_2 holds
    /// B1, B2, B3, B5; after those are taken cen_1 still holds B4 and cen_3 holds B4 and B6.
    fn job_y(s: &JossScheduler, sig: JobSignature) -> JossJob {
        JossJob {
            id: "Y".into(),
            signature: sig,
            blocks: on(
                s,
                vec![
                    hosts(&["cen1-v1", "cen2-v1"]), // B1
                    hosts(&["cen2-v2", "cen3-v1"]), // B2
                    hosts(&["cen1-v2", "cen2-v3"]), // B3
                    hosts(&["cen1-v3", "cen3-v2"]), // B4
                    hosts(&["cen2-v4", "cen3-v3"]), // B5
                    hosts(&["cen3-v4", "cen3-v5"]), // B6
                ],
            ),
            reduces: 2,
        }
    }

    /// Blocks from the names of their hosts, as `s`'s topology numbers them.
    fn on(s: &JossScheduler, lists: Vec<Vec<&str>>) -> BlockHosts {
        s.topology().blocks(lists)
    }

    fn blocks_in(q: &MapQueue) -> Vec<u32> {
        q.iter().map(|t| t.block).collect()
    }

    #[test]
    fn best_threshold_is_k_over_k_minus_1() {
        assert_eq!(best_threshold(2), 2.0);
        assert_eq!(best_threshold(3), 1.5);
        assert_eq!(best_threshold(5), 1.25);
        assert!(best_threshold(1).is_infinite());
        let s = JossScheduler::new(topology(2, 15), JossConfig::default(), ProfileStore::new())
            .unwrap();
        assert_eq!(s.threshold(), 2.0);
    }

    /// Table 5 on the paper's cluster (k = 2, 15 VPSs each, td = 2): only Permu is reduce-heavy.
    #[test]
    fn table5_benchmarks_split_into_map_heavy_and_reduce_heavy() {
        let (avg, td) = (topology(2, 15).avg_vps(), best_threshold(2));
        assert_eq!(avg, 15.0);
        for (name, fp) in [("WC", 1.039), ("SC", 0.569), ("II", 1.166), ("Grep", 0.10)] {
            assert_eq!(classify(8, fp, avg, td), JobClass::SmallMapHeavy, "{name}");
        }
        assert_eq!(
            classify(8, 3.0, avg, td),
            JobClass::SmallReduceHeavy,
            "Permu"
        );
        // a 12 GB job of 128 MB blocks (96 maps) is large whatever its FP
        assert_eq!(classify(96, 3.0, avg, td), JobClass::Large);
        assert_eq!(classify(96, 0.1, avg, td), JobClass::Large);
    }

    #[test]
    fn small_means_at_most_the_average_datacenter_size() {
        let avg = Topology::new(vec![
            ("a".into(), hosts(&["a1", "a2", "a3", "a4"])),
            ("b".into(), hosts(&["b1", "b2"])),
        ])
        .unwrap()
        .avg_vps();
        assert_eq!(avg, 3.0);
        assert_eq!(classify(3, 0.5, avg, 2.0), JobClass::SmallMapHeavy);
        assert_eq!(classify(4, 0.5, avg, 2.0), JobClass::Large);
    }

    #[test]
    fn figure3_policy_b_queues_four_maps_at_cen2_two_at_cen3_and_reduces_at_cen2() {
        let mut store = ProfileStore::new();
        let sig = known(&mut store, "Y", 0.5);
        // 6 VPSs per datacenter: 6 maps ≤ N_avg_VPS, so Y is small; FP 0.5 ≤ 1.5, so map-heavy
        let mut s = JossScheduler::new(topology(3, 6), JossConfig::default(), store).unwrap();
        let p = s.submit(job_y(&s, sig)).unwrap();
        assert_eq!(p.policy, Policy::B);
        assert_eq!(p.class, Some(JobClass::SmallMapHeavy));
        assert_eq!(
            p.maps,
            vec![
                ("cen2".to_string(), vec![0, 1, 2, 4]),
                ("cen3".to_string(), vec![3, 5])
            ]
        );
        assert_eq!(p.reduces_at.as_deref(), Some("cen2"));
        let q = |c: usize| s.datacenter_queues(c).unwrap();
        assert_eq!(blocks_in(q(1).map_queue(0).unwrap()), vec![0, 1, 2, 4]);
        assert_eq!(blocks_in(q(2).map_queue(0).unwrap()), vec![3, 5]);
        assert_eq!(q(0).unprocessed(), 0);
        assert_eq!(q(1).reduce_queue(0).unwrap().len(), 2);
        assert_eq!(q(1).map_queue_count(), 1, "no extra queue for a small job");
    }

    #[test]
    fn figure3_as_a_large_job_goes_to_new_per_job_queues_policy_c() {
        let mut store = ProfileStore::new();
        let sig = known(&mut store, "Y", 0.5);
        // 5 VPSs per datacenter: 6 maps > N_avg_VPS = 5
        let mut s = JossScheduler::new(topology(3, 5), JossConfig::default(), store).unwrap();
        let p = s.submit(job_y(&s, sig)).unwrap();
        assert_eq!(p.policy, Policy::C);
        assert_eq!(p.class, Some(JobClass::Large));
        assert_eq!(
            p.maps,
            vec![
                ("cen2".to_string(), vec![0, 1, 2, 4]),
                ("cen3".to_string(), vec![3, 5])
            ]
        );
        let q = |c: usize| s.datacenter_queues(c).unwrap();
        assert_eq!(q(1).map_queue_count(), 2);
        assert!(
            q(1).map_queue(0).unwrap().is_empty(),
            "MQ_{{2,0}} is reserved for small jobs"
        );
        assert_eq!(blocks_in(q(1).map_queue(1).unwrap()), vec![0, 1, 2, 4]);
        assert_eq!(blocks_in(q(2).map_queue(1).unwrap()), vec![3, 5]);
        assert_eq!(q(1).reduce_queue_count(), 2);
        assert_eq!(q(1).reduce_queue(1).unwrap().len(), 2);
    }

    #[test]
    fn policy_a_sends_a_small_reduce_heavy_job_to_the_least_loaded_datacenter() {
        let mut store = ProfileStore::new();
        let mh = known(&mut store, "wc", 1.0);
        let rh = known(&mut store, "permu", 3.0);
        let mut s = JossScheduler::new(topology(3, 6), JossConfig::default(), store).unwrap();
        // load cen1 with 3 tasks and cen2 with 2 (one map, one reduce); cen3 stays empty
        s.submit(JossJob {
            id: "a".into(),
            signature: mh,
            blocks: on(&s, vec![hosts(&["cen1-v1"]); 2]),
            reduces: 1,
        })
        .unwrap();
        s.submit(JossJob {
            id: "b".into(),
            signature: mh,
            blocks: on(&s, vec![hosts(&["cen2-v1"])]),
            reduces: 1,
        })
        .unwrap();
        let p = s
            .submit(JossJob {
                id: "p".into(),
                signature: rh,
                // its blocks live in cen1, but reduce-data locality wins for an RH job
                blocks: on(&s, vec![hosts(&["cen1-v1"]), hosts(&["cen1-v2"])]),
                reduces: 1,
            })
            .unwrap();
        assert_eq!(p.policy, Policy::A);
        assert_eq!(p.maps, vec![("cen3".to_string(), vec![0, 1])]);
        assert_eq!(p.reduces_at.as_deref(), Some("cen3"));
        assert_eq!(s.datacenter_queues(2).unwrap().unprocessed(), 3);
    }

    #[test]
    fn unknown_job_runs_through_the_fifo_queues_first_and_is_classified_next_time() {
        let mut s =
            JossScheduler::new(topology(2, 4), JossConfig::default(), ProfileStore::new()).unwrap();
        let sig = JobSignature::new("new job", "MAPREDUCE", "text");
        let first = JossJob {
            id: "n1".into(),
            signature: sig,
            blocks: on(&s, vec![hosts(&["cen2-v1"]); 2]),
            reduces: 1,
        };
        let p = s.submit(first.clone()).unwrap();
        assert_eq!(p.policy, Policy::Fifo);
        assert_eq!(s.fifo_map_queue().len(), 2);
        assert_eq!(s.fifo_reduce_queue().len(), 1);

        // a known small MH job queued at cen1 must wait behind the FIFO queue
        let mut store_run = JobObservation::default();
        store_run.map_finished(1, 10, 5);
        s.record_completed_job(JobSignature::new("old", "MAPREDUCE", "text"), &store_run);
        let old = JossJob {
            id: "o".into(),
            signature: JobSignature::new("old", "MAPREDUCE", "text"),
            blocks: on(&s, vec![hosts(&["cen1-v1"])]),
            reduces: 1,
        };
        assert_eq!(s.submit(old).unwrap().policy, Policy::B);
        assert_eq!(s.assign_map("cen1-v1").unwrap().unwrap().job(), "n1");
        assert_eq!(s.assign_map("cen1-v1").unwrap().unwrap().job(), "n1");
        assert_eq!(s.assign_map("cen1-v1").unwrap().unwrap().job(), "o");
        assert_eq!(s.assign_reduce("cen1-v1").unwrap().unwrap().job, "n1");
        assert_eq!(s.assign_reduce("cen1-v1").unwrap().unwrap().job, "o");

        // learned: the same signature is now placed by policy B near its blocks
        let mut run = JobObservation::default();
        run.map_finished(900, 100, 40);
        s.record_completed_job(sig, &run);
        let again = JossJob {
            id: "n2".into(),
            ..first
        };
        let p = s.submit(again).unwrap();
        assert_eq!(p.policy, Policy::B);
        assert_eq!(p.maps, vec![("cen2".to_string(), vec![0, 1])]);
    }

    /// TTA hands out the head task of each queue in turn; JTA walks the queues in the same turn
    /// but picks, inside each, the head job's task whose block is on the VPS.
    #[test]
    fn tta_takes_queue_heads_round_robin_while_jta_prefers_vps_local_tasks() {
        let run = |assigner: Assigner| {
            let mut store = ProfileStore::new();
            let mh = known(&mut store, "wc", 1.0);
            let cfg = JossConfig {
                threshold: None,
                assigner,
            };
            let mut s = JossScheduler::new(topology(2, 2), cfg, store).unwrap();
            // small job: 2 blocks, both in cen1 (one per VPS) → MQ_{1,0}
            s.submit(JossJob {
                id: "small".into(),
                signature: mh,
                blocks: on(&s, vec![hosts(&["cen1-v2"]), hosts(&["cen1-v1"])]),
                reduces: 0,
            })
            .unwrap();
            // large job: 3 blocks in cen1 → its own queue MQ_{1,1}
            s.submit(JossJob {
                id: "large".into(),
                signature: mh,
                blocks: on(
                    &s,
                    vec![
                        hosts(&["cen1-v2"]),
                        hosts(&["cen1-v2"]),
                        hosts(&["cen1-v1"]),
                    ],
                ),
                reduces: 0,
            })
            .unwrap();
            let mut got = Vec::new();
            while let Some(t) = s.assign_map("cen1-v1").unwrap() {
                let loc = s.topology().map_locality(&t, "cen1-v1");
                got.push((format!("{}{}", t.job(), t.block), loc));
            }
            got
        };
        use MapLocality::*;
        assert_eq!(
            run(Assigner::Tta),
            vec![
                ("small0".into(), Cen),
                ("large0".into(), Cen),
                ("small1".into(), Vps),
                ("large1".into(), Cen),
                ("large2".into(), Vps)
            ]
        );
        assert_eq!(
            run(Assigner::Jta),
            vec![
                ("small1".into(), Vps),
                ("large2".into(), Vps),
                ("small0".into(), Cen),
                ("large0".into(), Cen),
                ("large1".into(), Cen)
            ]
        );
    }

    #[test]
    fn a_vps_only_takes_tasks_queued_for_its_own_datacenter() {
        let mut store = ProfileStore::new();
        let mh = known(&mut store, "wc", 1.0);
        let mut s = JossScheduler::new(topology(2, 2), JossConfig::default(), store).unwrap();
        s.submit(JossJob {
            id: "j".into(),
            signature: mh,
            blocks: on(&s, vec![hosts(&["cen2-v1"])]),
            reduces: 1,
        })
        .unwrap();
        assert_eq!(s.assign_map("cen1-v1").unwrap(), None);
        assert_eq!(s.assign_reduce("cen1-v1").unwrap(), None);
        assert_eq!(
            s.assign_map("cen2-v2")
                .unwrap()
                .map(|t| t.job().to_string()),
            Some("j".into())
        );
        assert_eq!(
            s.assign_reduce("cen2-v2").unwrap().map(|t| t.job),
            Some("j".into())
        );
    }

    #[test]
    fn blocks_without_a_known_location_follow_the_reduces() {
        let mut store = ProfileStore::new();
        let mh = known(&mut store, "wc", 1.0);
        let mut s = JossScheduler::new(topology(2, 4), JossConfig::default(), store).unwrap();
        let p = s
            .submit(JossJob {
                id: "j".into(),
                signature: mh,
                blocks: on(&s, vec![hosts(&["cen2-v1"]), hosts(&["nowhere"]), vec![]]),
                reduces: 1,
            })
            .unwrap();
        assert_eq!(
            p.maps,
            vec![
                ("cen2".to_string(), vec![0]),
                ("cen2".to_string(), vec![1, 2])
            ]
        );
    }

    #[test]
    fn bad_topology_and_bad_input_are_refused_by_name() {
        let err = Topology::new(vec![
            ("a".into(), hosts(&["h1"])),
            ("b".into(), hosts(&["h1"])),
        ])
        .unwrap_err();
        assert!(err.to_string().contains("h1"), "{err}");
        assert_eq!(
            Topology::new(vec![]).unwrap_err(),
            JossError::Datacenters("no datacenter configured".into())
        );
        assert!(Topology::new(vec![("a".into(), vec![])])
            .unwrap_err()
            .to_string()
            .contains("a has no hosts"));
        let cfg = JossConfig {
            threshold: Some(-1.0),
            assigner: Assigner::Tta,
        };
        assert_eq!(
            JossScheduler::new(topology(2, 2), cfg, ProfileStore::new()).unwrap_err(),
            JossError::Threshold(-1.0)
        );

        let mut s =
            JossScheduler::new(topology(2, 2), JossConfig::default(), ProfileStore::new()).unwrap();
        assert_eq!(
            s.assign_map("stranger"),
            Err(CoreError::UnknownNode("stranger".into()))
        );
        let j = JossJob {
            id: "j".into(),
            signature: JobSignature(1),
            blocks: BlockHosts::default(),
            reduces: 0,
        };
        s.submit(j.clone()).unwrap();
        assert!(s
            .submit(j)
            .unwrap_err()
            .to_string()
            .contains("j submitted twice"));
    }

    #[test]
    fn removed_job_leaves_no_queued_tasks() {
        let mut store = ProfileStore::new();
        let mh = known(&mut store, "wc", 1.0);
        let mut s = JossScheduler::new(topology(2, 1), JossConfig::default(), store).unwrap();
        s.submit(JossJob {
            id: "big".into(),
            signature: mh,
            blocks: on(&s, vec![hosts(&["cen1-v1"]); 3]),
            reduces: 1,
        })
        .unwrap();
        s.submit(JossJob {
            id: "new".into(),
            signature: JobSignature(7),
            blocks: on(&s, vec![hosts(&["cen1-v1"])]),
            reduces: 1,
        })
        .unwrap();
        s.remove_job("big");
        s.remove_job("new");
        assert_eq!(s.assign_map("cen1-v1").unwrap(), None);
        assert_eq!(s.assign_reduce("cen1-v1").unwrap(), None);
        assert_eq!(s.datacenter_queues(0).unwrap().map_queue_count(), 1);
    }
}
