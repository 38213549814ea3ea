//! JoSS's task queues per datacenter and its two task assigners, TTA (Fig. 5) and JTA (Fig. 6).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::fast_hash::FastMap;

/// One map task M_i of a job: it processes block `block`, whose replicas sit on these VPSs.
/// Names are shared (`Arc<str>`): a 65,536-block job names each of its few thousand hosts and
/// its own id in every task, and copying those strings per task was most of the cost of
/// queueing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapTask {
    pub job: Arc<str>,
    pub block: u32,
    pub replicas: Vec<Arc<str>>,
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

/// Where a replica host is: (VPS number, datacenter number), as the topology numbers them;
/// `None` for a host no datacenter lists (no VPS can be local to it).
pub type Locate<'a> = &'a dyn Fn(&str) -> Option<(u32, u32)>;

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
    by_vps: FastMap<u32, VecDeque<u64>>,
    /// Same per datacenter.
    by_dc: FastMap<u32, VecDeque<u64>>,
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

    /// Queues `tasks` at the end, in order.
    pub fn extend(&mut self, tasks: impl IntoIterator<Item = MapTask>, locate: Locate) {
        let tasks = tasks.into_iter();
        self.slots.reserve(tasks.size_hint().0);
        for t in tasks {
            let seq = self.base + self.slots.len() as u64;
            let mut dcs: [Option<u32>; 4] = [None; 4];
            let mut extra: Vec<u32> = Vec::new();
            for r in &t.replicas {
                let Some((vps, dc)) = locate(r) else {
                    continue;
                };
                let list = self.by_vps.entry(vps).or_default();
                if list.back() != Some(&seq) {
                    list.push_back(seq);
                }
                // A task is listed once per datacenter however many replicas it has there.
                if dcs.contains(&Some(dc)) || extra.contains(&dc) {
                    continue;
                }
                match dcs.iter_mut().find(|d| d.is_none()) {
                    Some(free) => *free = Some(dc),
                    None => extra.push(dc),
                }
                self.by_dc.entry(dc).or_default().push_back(seq);
            }
            self.slots.push_back(Some(t));
            self.live += 1;
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
        let pick =
            self.first_of_head_job(head, vps, true).or_else(|| self.first_of_head_job(head, dc, false)).unwrap_or(head);
        self.take_seq(pick)
    }

    /// Drops every queued task of `job`; rebuilds the queue when holes outnumber tasks, so a
    /// long-lived head job does not keep the holes of every job killed behind it.
    pub fn remove_job(&mut self, job: &str, locate: Locate) {
        for slot in self.slots.iter_mut() {
            if slot.as_ref().is_some_and(|t| &*t.job == job) {
                *slot = None;
                self.live -= 1;
            }
        }
        if self.slots.len() > 2 * self.live + 64 {
            let tasks: Vec<MapTask> = std::mem::take(&mut self.slots).into_iter().flatten().collect();
            let base = self.base;
            *self = MapQueue { base, ..MapQueue::default() };
            self.extend(tasks, locate);
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
        let index = if vps { &mut self.by_vps } else { &mut self.by_dc };
        let list = index.get_mut(&at)?;
        // Taken tasks are dropped from the index once they reach its front.
        while let Some(&seq) = list.front() {
            let i = seq.checked_sub(self.base).and_then(|i| usize::try_from(i).ok());
            if i.and_then(|i| self.slots.get(i)).is_some_and(Option::is_some) {
                break;
            }
            list.pop_front();
        }
        let Some(&first) = list.front() else {
            index.remove(&at);
            return None;
        };
        let head_job = &self.task(head)?.job;
        (self.task(first)?.job == *head_job).then_some(first)
    }

    fn take_seq(&mut self, seq: u64) -> Option<MapTask> {
        let i = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        let task = self.slots.get_mut(i)?.take()?;
        self.live -= 1;
        self.trim();
        Some(task)
    }

    /// Drops the holes at the front; an empty queue forgets its indexes.
    fn trim(&mut self) {
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        if self.live == 0 {
            self.by_vps.clear();
            self.by_dc.clear();
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
        DatacenterQueues { maps: vec![MapQueue::default()], reduces: vec![VecDeque::new()], i_map: 0, i_red: 0 }
    }
}

impl DatacenterQueues {
    /// Policy A's "amount of unprocessed tasks": everything queued here, maps and reduces.
    pub fn unprocessed(&self) -> usize {
        self.maps.iter().map(MapQueue::len).sum::<usize>() + self.reduces.iter().map(VecDeque::len).sum::<usize>()
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

    pub fn push_permanent_maps(&mut self, tasks: impl IntoIterator<Item = MapTask>, locate: Locate) {
        self.maps[0].extend(tasks, locate);
    }

    pub fn push_permanent_reduces(&mut self, tasks: impl IntoIterator<Item = ReduceTask>) {
        self.reduces[0].extend(tasks);
    }

    /// "Generate a new map-task queue MQ_{d,p+1}" (Fig. 4 line 25); returns p+1.
    pub fn new_map_queue(&mut self, tasks: impl IntoIterator<Item = MapTask>, locate: Locate) -> usize {
        let mut q = MapQueue::default();
        q.extend(tasks, locate);
        self.maps.push(q);
        self.maps.len() - 1
    }

    /// Appends to an existing per-job queue (used for a large job's unlocated blocks).
    pub fn extend_map_queue(&mut self, p: usize, tasks: impl IntoIterator<Item = MapTask>, locate: Locate) {
        if let Some(q) = self.maps.get_mut(p) {
            q.extend(tasks, locate);
        }
    }

    /// Fig. 4 line 38: RQ_{e,q+1}.
    pub fn new_reduce_queue(&mut self, tasks: impl IntoIterator<Item = ReduceTask>) -> usize {
        self.reduces.push(tasks.into_iter().collect());
        self.reduces.len() - 1
    }

    /// Figs. 5/6 lines 10-13: visit this datacenter's map queues round-robin from I_map; TTA takes
    /// the visited queue's head task, JTA applies Hadoop FIFO with locality inside it, for the
    /// VPS `vps` in datacenter `dc` (see [`Locate`]).
    pub fn next_map(&mut self, assigner: Assigner, vps: Option<u32>, dc: Option<u32>) -> Option<MapTask> {
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
    pub fn remove_job(&mut self, job: &str, locate: Locate) {
        for q in &mut self.maps {
            q.remove_job(job, locate);
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

    fn map(job: &str, block: u32, replicas: &[&str]) -> MapTask {
        MapTask { job: job.into(), block, replicas: replicas.iter().map(|&r| r.into()).collect() }
    }

    /// Hosts `dc<d>-<x>`: VPS number from the whole name's bytes, datacenter d. Hosts named
    /// otherwise are in no datacenter.
    fn locate(host: &str) -> Option<(u32, u32)> {
        let dc = host.strip_prefix("dc")?.split('-').next()?.parse().ok()?;
        Some((host.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32)), dc))
    }

    fn queue(tasks: Vec<MapTask>) -> MapQueue {
        let mut q = MapQueue::default();
        q.extend(tasks, &locate);
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
        let head_job = queue.front()?.job.clone();
        let dc = locate(node).map(|a| a.1);
        let same_dc = |r: &str| dc.is_some() && locate(r).map(|a| a.1) == dc;
        let mine = |t: &&MapTask| t.job == head_job;
        let pick = queue
            .iter()
            .position(|t| mine(&t) && t.replicas.iter().any(|r| &**r == node))
            .or_else(|| queue.iter().position(|t| mine(&t) && t.replicas.iter().any(|r| same_dc(r))))
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
        assert_eq!((&*t.job, t.block), ("head", 0), "off-Cen head task before the next job's local one");
        assert_eq!(take_at(&mut q, "dc1-a").unwrap().job, "later".into());
        assert!(take_at(&mut q, "dc1-a").is_none());
    }

    /// The indexes give the scan's picks whatever the queue, the takers and the jobs removed on
    /// the way (which also exercises the rebuild after many holes).
    #[test]
    fn indexed_picks_match_the_scan() {
        let mut seed = 5u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let hosts: Vec<String> =
            (0..12).map(|h| format!("dc{}-h{h}", h % 3)).chain(["elsewhere".to_string()]).collect();
        for round in 0..300 {
            let mut fast = MapQueue::default();
            let mut slow: VecDeque<MapTask> = VecDeque::new();
            let mut jobs = 0;
            for _ in 0..200 {
                match next(10) {
                    0 | 1 => {
                        jobs += 1;
                        let job = format!("j{jobs}");
                        let tasks: Vec<MapTask> = (0..next(30))
                            .map(|b| MapTask {
                                job: job.as_str().into(),
                                block: b as u32,
                                replicas: (0..next(4))
                                    .map(|_| hosts[next(hosts.len() as u64) as usize].as_str().into())
                                    .collect(),
                            })
                            .collect();
                        slow.extend(tasks.iter().cloned());
                        fast.extend(tasks, &locate);
                    }
                    2 if jobs > 0 => {
                        let job = format!("j{}", 1 + next(jobs));
                        slow.retain(|t| *t.job != *job);
                        fast.remove_job(&job, &locate);
                    }
                    3 => assert_eq!(fast.pop_front(), slow.pop_front(), "round {round}"),
                    _ => {
                        let node = &hosts[next(hosts.len() as u64 - 1) as usize];
                        assert_eq!(take_at(&mut fast, node), take_by_scan(&mut slow, node), "round {round} at {node}");
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
        dc.push_permanent_maps([map("s", 0, &[]), map("s", 1, &[])], &locate);
        dc.new_map_queue([map("big", 0, &[])], &locate);
        dc.new_map_queue([map("huge", 0, &[]), map("huge", 1, &[])], &locate);
        let order: Vec<_> = std::iter::from_fn(|| dc.next_map(Assigner::Tta, None, None))
            .map(|t| format!("{}{}", t.job, t.block))
            .collect();
        assert_eq!(order, vec!["s0", "big0", "huge0", "s1", "huge1"]);
        assert_eq!(dc.map_queue_count(), 1, "only the permanent queue remains");
    }

    #[test]
    fn reduce_queues_rotate_too() {
        let mut dc = DatacenterQueues::default();
        let r = |job: &str, index| ReduceTask { job: job.into(), index };
        dc.push_permanent_reduces([r("s", 0), r("s", 1)]);
        dc.new_reduce_queue([r("big", 0), r("big", 1)]);
        let order: Vec<_> = std::iter::from_fn(|| dc.next_reduce()).map(|t| format!("{}{}", t.job, t.index)).collect();
        assert_eq!(order, vec!["s0", "big0", "s1", "big1"]);
    }

    #[test]
    fn removing_a_job_empties_its_queues() {
        let mut dc = DatacenterQueues::default();
        dc.push_permanent_maps([map("s", 0, &[]), map("k", 0, &[])], &locate);
        dc.new_map_queue([map("k", 1, &[])], &locate);
        dc.new_reduce_queue([ReduceTask { job: "k".into(), index: 0 }]);
        dc.remove_job("k", &locate);
        assert_eq!(dc.unprocessed(), 1);
        assert_eq!(dc.map_queue_count(), 1);
        assert_eq!(dc.reduce_queue_count(), 1);
    }
}
