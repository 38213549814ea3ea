//! JoSS's task queues per datacenter and its two task assigners, TTA (Fig. 5) and JTA (Fig. 6).

use std::collections::VecDeque;
use std::sync::Arc;

use super::speed::{Index, Runs, MAX_BATCH};

/// The VPSs holding a replica of each block of one job, by VPS number (the topology's numbering,
/// see [`super::Topology::locate`]), blocks 0..m in order: one flat list for the whole job
/// instead of a list per block (a 65,536-block job's first heartbeat spent milliseconds
/// allocating, filling and freeing a list per block).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockHosts {
    /// Block b's replicas are `vps[starts[b]..starts[b + 1]]`.
    starts: Vec<u32>,
    vps: Vec<u32>,
}

impl BlockHosts {
    /// One list of VPS numbers per block, in block order.
    pub fn from_lists<L: IntoIterator<Item = u32>>(lists: impl IntoIterator<Item = L>) -> Self {
        let mut b = BlockHosts {
            starts: vec![0],
            vps: Vec::new(),
        };
        for list in lists {
            b.vps.extend(list);
            b.starts.push(b.vps.len() as u32);
        }
        b
    }

    /// Built from its parts: `starts` has one more entry than there are blocks, starts at 0,
    /// never decreases and ends at `vps.len()` (the callers in this module build it so).
    pub(crate) fn from_parts(starts: Vec<u32>, vps: Vec<u32>) -> Self {
        debug_assert!(starts.first() == Some(&0) && starts.last() == Some(&(vps.len() as u32)));
        BlockHosts { starts, vps }
    }

    /// m, the number of blocks.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The VPSs holding block `b` (empty for a block this does not have).
    pub fn of(&self, b: usize) -> &[u32] {
        match (self.starts.get(b), self.starts.get(b + 1)) {
            (Some(&lo), Some(&hi)) => self.vps.get(lo as usize..hi as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A job's id and its blocks' replicas, shared by all its map tasks.
#[derive(Debug)]
pub struct JobBlocks {
    pub id: String,
    pub hosts: BlockHosts,
}

impl JobBlocks {
    /// One map task per block, M_0..M_{m-1}.
    pub fn tasks(self: &Arc<Self>) -> impl Iterator<Item = MapTask> + '_ {
        (0..self.hosts.len() as u32).map(move |block| MapTask {
            job: self.clone(),
            block,
        })
    }
}

/// One map task M_i of a job: it processes block `block`, whose replicas sit on the VPSs
/// [`MapTask::replicas`] lists. The job's id and replica lists are shared by all its tasks.
#[derive(Clone)]
pub struct MapTask {
    job: Arc<JobBlocks>,
    pub block: u32,
}

impl MapTask {
    pub fn job(&self) -> &str {
        &self.job.id
    }

    /// VPS numbers of the hosts holding this task's block.
    pub fn replicas(&self) -> &[u32] {
        self.job.hosts.of(self.block as usize)
    }
}

impl PartialEq for MapTask {
    fn eq(&self, other: &Self) -> bool {
        self.block == other.block
            && self.job() == other.job()
            && self.replicas() == other.replicas()
    }
}

impl Eq for MapTask {}

impl std::fmt::Debug for MapTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapTask")
            .field("job", &self.job())
            .field("block", &self.block)
            .field("replicas", &self.replicas())
            .finish()
    }
}

/// One reduce task R_j of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReduceTask {
    pub job: String,
    pub index: u32,
}

/// JoSS-T assigns with TTA (fast: head task of each queue), JoSS-J with JTA (Hadoop FIFO with
/// locality inside each queue: better VPS-locality, slower).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assigner {
    Tta,
    Jta,
}

/// Where a map task's block is relative to the VPS that runs it (Section 1's three levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapLocality {
    Vps,
    Cen,
    OffCen,
}

/// Each VPS's datacenter, indexed by VPS number (the topology's numbering); a replica whose
/// number is past its end is on no VPS of the topology.
pub type VpsDatacenters<'a> = &'a [u32];

/// One map-task queue, FIFO, with Hadoop's FIFO-with-locality choice ([`MapQueue::take`])
/// answered from per-VPS and per-datacenter indexes kept as tasks are queued and taken, not by
/// scanning the queue: a scan of a 65,536-task queue per idle slot made a JoSS heartbeat cost
/// 20-25 ms on 5,000 hosts.
///
/// Taken tasks leave a hole that the front skips; the indexes list sequence numbers in queue
/// order and drop taken ones when they reach their front. A job's tasks are queued together
/// (each queue gets a job's tasks in one push), so the first live task an index lists for a
/// VPS is the head job's whenever the head job has one there.
#[derive(Debug, Clone, Default)]
pub struct MapQueue {
    /// Tasks in queue order, `None` once taken; `slots[0]` has sequence number `base`.
    slots: VecDeque<Option<MapTask>>,
    base: u64,
    live: usize,
    /// Sequence numbers of the tasks with a replica on each VPS, ascending.
    by_vps: Index,
    /// Same per datacenter.
    by_dc: Index,
}

impl MapQueue {
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The queued tasks, head first.
    pub fn iter(&self) -> impl Iterator<Item = &MapTask> {
        self.slots.iter().flatten()
    }

    pub fn front(&self) -> Option<&MapTask> {
        self.iter().next()
    }

    /// Queues `tasks` at the end, in order; `vps_dc` places their replicas.
    pub fn extend(&mut self, tasks: impl IntoIterator<Item = MapTask>, vps_dc: VpsDatacenters) {
        let start = self.slots.len();
        self.slots.extend(tasks.into_iter().map(Some));
        let end = self.slots.len();
        self.live += end - start;
        let datacenters = vps_dc.iter().max().map_or(0, |&d| d as usize + 1);
        let mut lo = start;
        while lo < end {
            let hi = end.min(lo + MAX_BATCH);
            let mut by_vps = Runs::new(vps_dc.len());
            let mut by_dc = Runs::new(datacenters);
            for (off, t) in self.slots.range(lo..hi).flatten().enumerate() {
                let off = off as u32;
                for &v in t.replicas() {
                    // A task is listed once per VPS and once per datacenter however many of its
                    // replicas are there; a replica on no VPS of the topology is not listed.
                    let Some(&dc) = vps_dc.get(v as usize) else {
                        continue;
                    };
                    if by_vps.add(v, off) {
                        by_dc.add(dc, off);
                    }
                }
            }
            let (first_seq, end_seq) = (self.base + lo as u64, self.base + hi as u64);
            by_vps.finish(&mut self.by_vps, first_seq, end_seq);
            by_dc.finish(&mut self.by_dc, first_seq, end_seq);
            lo = hi;
        }
    }

    /// TTA: the head task.
    pub fn pop_front(&mut self) -> Option<MapTask> {
        let seq = self.head()?;
        self.take_seq(seq)
    }

    /// Hadoop's FIFO map choice inside this queue for a VPS (`vps`, in datacenter `dc`): the
    /// head task's job goes first; among its tasks take a VPS-local one, else a
    /// datacenter-local one, else the head task.
    pub fn take(&mut self, vps: Option<u32>, dc: Option<u32>) -> Option<MapTask> {
        let head = self.head()?;
        let pick = self
            .first_of_head_job(head, vps, true)
            .or_else(|| self.first_of_head_job(head, dc, false))
            .unwrap_or(head);
        self.take_seq(pick)
    }

    /// Drops every queued task of `job`; rebuilds the queue when holes outnumber tasks, so a
    /// long-lived head job does not keep the holes of every job killed behind it.
    pub fn remove_job(&mut self, job: &str, vps_dc: VpsDatacenters) {
        for slot in self.slots.iter_mut() {
            if slot.as_ref().is_some_and(|t| t.job() == job) {
                *slot = None;
                self.live -= 1;
            }
        }
        if self.slots.len() > 2 * self.live + 64 {
            let tasks: Vec<MapTask> = std::mem::take(&mut self.slots)
                .into_iter()
                .flatten()
                .collect();
            let base = self.base;
            *self = MapQueue {
                base,
                ..MapQueue::default()
            };
            self.extend(tasks, vps_dc);
        } else {
            self.trim();
        }
    }

    /// Sequence number of the head task.
    fn head(&mut self) -> Option<u64> {
        self.trim();
        (self.live > 0).then_some(self.base)
    }

    fn task(&self, seq: u64) -> Option<&MapTask> {
        let i = seq.checked_sub(self.base)?;
        self.slots.get(usize::try_from(i).ok()?)?.as_ref()
    }

    /// The first live task one index lists for `at`, if it is of the head task's job.
    fn first_of_head_job(&mut self, head: u64, at: Option<u32>, vps: bool) -> Option<u64> {
        let at = at?;
        let MapQueue {
            slots,
            base,
            by_vps,
            by_dc,
            ..
        } = self;
        let index = if vps { by_vps } else { by_dc };
        let live = |seq: u64| {
            let i = seq.checked_sub(*base).and_then(|i| usize::try_from(i).ok());
            i.and_then(|i| slots.get(i)).is_some_and(Option::is_some)
        };
        // Taken tasks are dropped from the index once they reach its front.
        let first = index.first_live(at, live)?;
        (self.task(first)?.job() == self.task(head)?.job()).then_some(first)
    }

    fn take_seq(&mut self, seq: u64) -> Option<MapTask> {
        let i = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        let task = self.slots.get_mut(i)?.take()?;
        self.live -= 1;
        self.trim();
        Some(task)
    }

    /// Drops the holes at the front and the index batches behind them; an empty queue forgets
    /// its indexes.
    fn trim(&mut self) {
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        if self.live == 0 {
            self.by_vps.clear();
            self.by_dc.clear();
        } else {
            self.by_vps.drop_before(self.base);
            self.by_dc.drop_before(self.base);
        }
    }
}

/// The queues of one datacenter cen_c.
#[derive(Debug, Clone)]
pub struct DatacenterQueues {
    /// `maps[0]` is the permanent MQ_{c,0} (small jobs); `maps[p]`, p ≥ 1, one queue per large job.
    maps: Vec<MapQueue>,
    /// Same layout for RQ_{c,·}.
    reduces: Vec<VecDeque<ReduceTask>>,
    /// I_map and I_red of Figs. 5/6, kept between calls so the round-robin actually rotates.
    i_map: usize,
    i_red: usize,
}

impl Default for DatacenterQueues {
    fn default() -> Self {
        DatacenterQueues {
            maps: vec![MapQueue::default()],
            reduces: vec![VecDeque::new()],
            i_map: 0,
            i_red: 0,
        }
    }
}

impl DatacenterQueues {
    /// Policy A's "amount of unprocessed tasks": everything queued here, maps and reduces.
    pub fn unprocessed(&self) -> usize {
        self.maps.iter().map(MapQueue::len).sum::<usize>()
            + self.reduces.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Number of map-task queues, the permanent one included.
    pub fn map_queue_count(&self) -> usize {
        self.maps.len()
    }

    pub fn reduce_queue_count(&self) -> usize {
        self.reduces.len()
    }

    /// Contents of MQ_{c,p}, head first.
    pub fn map_queue(&self, p: usize) -> Option<&MapQueue> {
        self.maps.get(p)
    }

    pub fn reduce_queue(&self, p: usize) -> Option<&VecDeque<ReduceTask>> {
        self.reduces.get(p)
    }

    pub fn push_permanent_maps(
        &mut self,
        tasks: impl IntoIterator<Item = MapTask>,
        vps_dc: VpsDatacenters,
    ) {
        self.maps[0].extend(tasks, vps_dc);
    }

    pub fn push_permanent_reduces(&mut self, tasks: impl IntoIterator<Item = ReduceTask>) {
        self.reduces[0].extend(tasks);
    }

    /// "Generate a new map-task queue MQ_{d,p+1}" (Fig. 4 line 25); returns p+1.
    pub fn new_map_queue(
        &mut self,
        tasks: impl IntoIterator<Item = MapTask>,
        vps_dc: VpsDatacenters,
    ) -> usize {
        let mut q = MapQueue::default();
        q.extend(tasks, vps_dc);
        self.maps.push(q);
        self.maps.len() - 1
    }

    /// Appends to an existing per-job queue (used for a large job's unlocated blocks).
    pub fn extend_map_queue(
        &mut self,
        p: usize,
        tasks: impl IntoIterator<Item = MapTask>,
        vps_dc: VpsDatacenters,
    ) {
        if let Some(q) = self.maps.get_mut(p) {
            q.extend(tasks, vps_dc);
        }
    }

    /// Fig. 4 line 38: RQ_{e,q+1}.
    pub fn new_reduce_queue(&mut self, tasks: impl IntoIterator<Item = ReduceTask>) -> usize {
        self.reduces.push(tasks.into_iter().collect());
        self.reduces.len() - 1
    }

    /// Figs. 5/6 lines 10-13: visit this datacenter's map queues round-robin from I_map; TTA takes
    /// the visited queue's head task, JTA applies Hadoop FIFO with locality inside it, for the
    /// VPS `vps` in datacenter `dc`.
    pub fn next_map(
        &mut self,
        assigner: Assigner,
        vps: Option<u32>,
        dc: Option<u32>,
    ) -> Option<MapTask> {
        let n = self.maps.len();
        for step in 0..n {
            let i = (self.i_map + step) % n;
            let task = match assigner {
                Assigner::Tta => self.maps[i].pop_front(),
                Assigner::Jta => self.maps[i].take(vps, dc),
            };
            if let Some(task) = task {
                self.i_map = i + 1;
                if i > 0 && self.maps[i].is_empty() {
                    // a drained per-job queue leaves the rotation; the next queue slides into i
                    self.maps.remove(i);
                    self.i_map = i;
                }
                self.i_map %= self.maps.len();
                return Some(task);
            }
        }
        None
    }

    /// Figs. 5/6 lines 19-22 (TTA and JTA alike): the head reduce task of the next queue in turn.
    pub fn next_reduce(&mut self) -> Option<ReduceTask> {
        let n = self.reduces.len();
        for step in 0..n {
            let i = (self.i_red + step) % n;
            if let Some(task) = self.reduces[i].pop_front() {
                self.i_red = i + 1;
                if i > 0 && self.reduces[i].is_empty() {
                    self.reduces.remove(i);
                    self.i_red = i;
                }
                self.i_red %= self.reduces.len();
                return Some(task);
            }
        }
        None
    }

    /// Drops every queued task of a killed job (and its now empty per-job queues).
    pub fn remove_job(&mut self, job: &str, vps_dc: VpsDatacenters) {
        for q in &mut self.maps {
            q.remove_job(job, vps_dc);
        }
        for q in &mut self.reduces {
            q.retain(|t| &*t.job != job);
        }
        let mut p = 0;
        self.maps.retain(|q| {
            p += 1;
            p == 1 || !q.is_empty()
        });
        let mut p = 0;
        self.reduces.retain(|q| {
            p += 1;
            p == 1 || !q.is_empty()
        });
        self.i_map %= self.maps.len();
        self.i_red %= self.reduces.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The VPSs of the tests' topology, numbered by their place here: `dc<d>-<x>` is in
    /// datacenter d.
    const HOSTS: [&str; 15] = [
        "dc0-h0", "dc1-h1", "dc2-h2", "dc0-h3", "dc1-h4", "dc2-h5", "dc0-h6", "dc1-h7", "dc2-h8",
        "dc0-h9", "dc1-h10", "dc2-h11", "dc1-a", "dc1-b", "dc2-a",
    ];
    const VPS_DC: [u32; 15] = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 1, 1, 2];
    /// Any other host: on no VPS of the topology.
    const NOWHERE: u32 = 99;

    /// A host's VPS number and datacenter.
    fn locate(host: &str) -> Option<(u32, u32)> {
        let v = HOSTS.iter().position(|&h| h == host)?;
        Some((v as u32, VPS_DC[v]))
    }

    fn vps(host: &str) -> u32 {
        locate(host).map_or(NOWHERE, |a| a.0)
    }

    /// Task `block` of `job`, its block on `replicas`.
    fn map(job: &str, block: u32, replicas: &[&str]) -> MapTask {
        let lists = (0..=block).map(|b| {
            if b == block {
                replicas.iter().map(|&r| vps(r)).collect()
            } else {
                vec![]
            }
        });
        let job = Arc::new(JobBlocks {
            id: job.into(),
            hosts: BlockHosts::from_lists(lists),
        });
        MapTask { job, block }
    }

    fn queue(tasks: Vec<MapTask>) -> MapQueue {
        let mut q = MapQueue::default();
        q.extend(tasks, &VPS_DC);
        q
    }

    fn take_at(q: &mut MapQueue, host: &str) -> Option<MapTask> {
        let at = locate(host);
        q.take(at.map(|a| a.0), at.map(|a| a.1))
    }

    /// The scan [`MapQueue::take`] replaces, as Hadoop's FIFO with locality reads: the head
    /// task's job first; among its tasks the first VPS-local one, else the first
    /// datacenter-local one, else the head task.
    fn take_by_scan(queue: &mut VecDeque<MapTask>, node: &str) -> Option<MapTask> {
        let head_job = queue.front()?.job().to_string();
        let (v, dc) = locate(node).map_or((None, None), |(v, dc)| (Some(v), Some(dc)));
        let same_dc = |r: u32| dc.is_some() && VPS_DC.get(r as usize).copied() == dc;
        let mine = |t: &&MapTask| t.job() == head_job;
        let pick = queue
            .iter()
            .position(|t| mine(&t) && t.replicas().iter().any(|&r| Some(r) == v))
            .or_else(|| {
                queue
                    .iter()
                    .position(|t| mine(&t) && t.replicas().iter().any(|&r| same_dc(r)))
            })
            .unwrap_or(0);
        queue.remove(pick)
    }

    #[test]
    fn fifo_with_locality_prefers_vps_then_datacenter_then_head_but_never_a_later_job() {
        let mut q = queue(vec![
            map("head", 0, &["dc2-a"]),
            map("head", 1, &["dc1-b"]),
            map("head", 2, &["dc1-a"]),
            map("later", 0, &["dc1-a"]),
        ]);
        assert_eq!(take_at(&mut q, "dc1-a").unwrap().block, 2, "VPS-local");
        assert_eq!(take_at(&mut q, "dc1-a").unwrap().block, 1, "Cen-local");
        let t = take_at(&mut q, "dc1-a").unwrap();
        assert_eq!(
            (t.job(), t.block),
            ("head", 0),
            "off-Cen head task before the next job's local one"
        );
        assert_eq!(take_at(&mut q, "dc1-a").unwrap().job(), "later");
        assert!(take_at(&mut q, "dc1-a").is_none());
    }

    /// The indexes give the scan's picks whatever the queue, the takers and the jobs removed on
    /// the way (which also exercises the rebuild after many holes).
    #[test]
    fn indexed_picks_match_the_scan() {
        let mut seed = 5u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let hosts: Vec<&str> = HOSTS[..12].iter().copied().chain(["elsewhere"]).collect();
        for round in 0..300 {
            let mut fast = MapQueue::default();
            let mut slow: VecDeque<MapTask> = VecDeque::new();
            let mut jobs = 0;
            for _ in 0..200 {
                match next(10) {
                    0 | 1 => {
                        jobs += 1;
                        // Some jobs large enough that the batches hold many tasks per VPS.
                        let blocks = if next(4) == 0 { next(300) } else { next(30) };
                        let lists: Vec<Vec<u32>> = (0..blocks)
                            .map(|_| {
                                (0..next(5))
                                    .map(|_| vps(hosts[next(hosts.len() as u64) as usize]))
                                    .collect()
                            })
                            .collect();
                        let job = Arc::new(JobBlocks {
                            id: format!("j{jobs}"),
                            hosts: BlockHosts::from_lists(lists),
                        });
                        let tasks: Vec<MapTask> = job.tasks().collect();
                        slow.extend(tasks.iter().cloned());
                        fast.extend(tasks, &VPS_DC);
                    }
                    2 if jobs > 0 => {
                        let job = format!("j{}", 1 + next(jobs));
                        slow.retain(|t| t.job() != job);
                        fast.remove_job(&job, &VPS_DC);
                    }
                    3 => assert_eq!(fast.pop_front(), slow.pop_front(), "round {round}"),
                    _ => {
                        let node = hosts[next(hosts.len() as u64 - 1) as usize];
                        assert_eq!(
                            take_at(&mut fast, node),
                            take_by_scan(&mut slow, node),
                            "round {round} at {node}"
                        );
                    }
                }
                assert_eq!(fast.len(), slow.len());
                assert!(fast.iter().eq(slow.iter()));
            }
        }
    }

    #[test]
    fn map_queues_rotate_and_drained_job_queues_leave_the_rotation() {
        let mut dc = DatacenterQueues::default();
        dc.push_permanent_maps([map("s", 0, &[]), map("s", 1, &[])], &VPS_DC);
        dc.new_map_queue([map("big", 0, &[])], &VPS_DC);
        dc.new_map_queue([map("huge", 0, &[]), map("huge", 1, &[])], &VPS_DC);
        let order: Vec<_> = std::iter::from_fn(|| dc.next_map(Assigner::Tta, None, None))
            .map(|t| format!("{}{}", t.job(), t.block))
            .collect();
        assert_eq!(order, vec!["s0", "big0", "huge0", "s1", "huge1"]);
        assert_eq!(dc.map_queue_count(), 1, "only the permanent queue remains");
    }

    #[test]
    fn reduce_queues_rotate_too() {
        let mut dc = DatacenterQueues::default();
        let r = |job: &str, index| ReduceTask {
            job: job.into(),
            index,
        };
        dc.push_permanent_reduces([r("s", 0), r("s", 1)]);
        dc.new_reduce_queue([r("big", 0), r("big", 1)]);
        let order: Vec<_> = std::iter::from_fn(|| dc.next_reduce())
            .map(|t| format!("{}{}", t.job, t.index))
            .collect();
        assert_eq!(order, vec!["s0", "big0", "s1", "big1"]);
    }

    #[test]
    fn removing_a_job_empties_its_queues() {
        let mut dc = DatacenterQueues::default();
        dc.push_permanent_maps([map("s", 0, &[]), map("k", 0, &[])], &VPS_DC);
        dc.new_map_queue([map("k", 1, &[])], &VPS_DC);
        dc.new_reduce_queue([ReduceTask {
            job: "k".into(),
            index: 0,
        }]);
        dc.remove_job("k", &VPS_DC);
        assert_eq!(dc.unprocessed(), 1);
        assert_eq!(dc.map_queue_count(), 1);
        assert_eq!(dc.reduce_queue_count(), 1);
    }

    /// A queue that never drains, fed jobs whose replicas are on VPSs that never ask it (another
    /// datacenter's), keeps an index no larger than its live tasks' chunks plus one per key.
    #[test]
    fn index_of_a_never_drained_queue_stays_bounded_by_its_live_tasks() {
        let mut q = MapQueue::default();
        // Replicas on every dc2 VPS; only dc0 VPSs ask.
        let far: Vec<&str> = HOSTS
            .iter()
            .copied()
            .filter(|h| h.starts_with("dc2"))
            .collect();
        q.extend((0..3).map(|b| map("j0", b, &far)), &VPS_DC);
        for j in 1..2000 {
            q.extend((0..3).map(|b| map(&format!("j{j}"), b, &far)), &VPS_DC);
            for _ in 0..3 {
                assert!(take_at(&mut q, "dc0-h0").is_some());
            }
            assert_eq!(q.len(), 3, "one job always queued");
            let keys = VPS_DC.len() + 3;
            for index in [&q.by_vps, &q.by_dc] {
                let (all, live) = (index.chunk_count(), index.live_chunk_count());
                assert!(
                    all <= live + keys,
                    "after {j} jobs: {all} chunks listed, {live} of live batches"
                );
            }
        }
    }
}
