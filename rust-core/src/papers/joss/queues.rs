//! JoSS's task queues per datacenter and its two task assigners, TTA (Fig. 5) and JTA (Fig. 6).

use std::collections::VecDeque;

/// One map task M_i of a job: it processes block `block`, whose replicas sit on these VPSs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapTask {
    pub job: String,
    pub block: u32,
    pub replicas: Vec<String>,
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

/// Hadoop's FIFO map choice inside one queue: the head task's job goes first; among its tasks
/// take a VPS-local one, else a datacenter-local one, else the head task.
/// `same_dc` tells whether a replica host is in the requesting VPS's datacenter.
pub fn take_fifo_with_locality(
    queue: &mut VecDeque<MapTask>,
    node: &str,
    same_dc: &dyn Fn(&str) -> bool,
) -> Option<MapTask> {
    let head_job = queue.front()?.job.clone();
    // One pass for both choices, stopping at the first VPS-local task (two passes over a
    // 65,536-task queue were most of a JoSS heartbeat).
    let mut dc_local = None;
    for (i, t) in queue.iter().enumerate() {
        if t.job != head_job {
            continue;
        }
        if t.replicas.iter().any(|r| r == node) {
            return queue.remove(i);
        }
        if dc_local.is_none() && t.replicas.iter().any(|r| same_dc(r)) {
            dc_local = Some(i);
        }
    }
    queue.remove(dc_local.unwrap_or(0))
}

/// The queues of one datacenter cen_c.
#[derive(Debug, Clone)]
pub struct DatacenterQueues {
    /// `maps[0]` is the permanent MQ_{c,0} (small jobs); `maps[p]`, p ≥ 1, one queue per large job.
    maps: Vec<VecDeque<MapTask>>,
    /// Same layout for RQ_{c,·}.
    reduces: Vec<VecDeque<ReduceTask>>,
    /// I_map and I_red of Figs. 5/6, kept between calls so the round-robin actually rotates.
    i_map: usize,
    i_red: usize,
}

impl Default for DatacenterQueues {
    fn default() -> Self {
        DatacenterQueues { maps: vec![VecDeque::new()], reduces: vec![VecDeque::new()], i_map: 0, i_red: 0 }
    }
}

impl DatacenterQueues {
    /// Policy A's "amount of unprocessed tasks": everything queued here, maps and reduces.
    pub fn unprocessed(&self) -> usize {
        self.maps.iter().map(VecDeque::len).sum::<usize>() + self.reduces.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Number of map-task queues, the permanent one included.
    pub fn map_queue_count(&self) -> usize {
        self.maps.len()
    }

    pub fn reduce_queue_count(&self) -> usize {
        self.reduces.len()
    }

    /// Contents of MQ_{c,p}, head first.
    pub fn map_queue(&self, p: usize) -> Option<&VecDeque<MapTask>> {
        self.maps.get(p)
    }

    pub fn reduce_queue(&self, p: usize) -> Option<&VecDeque<ReduceTask>> {
        self.reduces.get(p)
    }

    pub fn push_permanent_maps(&mut self, tasks: impl IntoIterator<Item = MapTask>) {
        self.maps[0].extend(tasks);
    }

    pub fn push_permanent_reduces(&mut self, tasks: impl IntoIterator<Item = ReduceTask>) {
        self.reduces[0].extend(tasks);
    }

    /// "Generate a new map-task queue MQ_{d,p+1}" (Fig. 4 line 25); returns p+1.
    pub fn new_map_queue(&mut self, tasks: impl IntoIterator<Item = MapTask>) -> usize {
        self.maps.push(tasks.into_iter().collect());
        self.maps.len() - 1
    }

    /// Appends to an existing per-job queue (used for a large job's unlocated blocks).
    pub fn extend_map_queue(&mut self, p: usize, tasks: impl IntoIterator<Item = MapTask>) {
        if let Some(q) = self.maps.get_mut(p) {
            q.extend(tasks);
        }
    }

    /// Fig. 4 line 38: RQ_{e,q+1}.
    pub fn new_reduce_queue(&mut self, tasks: impl IntoIterator<Item = ReduceTask>) -> usize {
        self.reduces.push(tasks.into_iter().collect());
        self.reduces.len() - 1
    }

    /// Figs. 5/6 lines 10-13: visit this datacenter's map queues round-robin from I_map; TTA takes
    /// the visited queue's head task, JTA applies Hadoop FIFO with locality inside it.
    pub fn next_map(&mut self, assigner: Assigner, node: &str, same_dc: &dyn Fn(&str) -> bool) -> Option<MapTask> {
        let n = self.maps.len();
        for step in 0..n {
            let i = (self.i_map + step) % n;
            let task = match assigner {
                Assigner::Tta => self.maps[i].pop_front(),
                Assigner::Jta => take_fifo_with_locality(&mut self.maps[i], node, same_dc),
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
    pub fn remove_job(&mut self, job: &str) {
        for q in &mut self.maps {
            q.retain(|t| t.job != job);
        }
        for q in &mut self.reduces {
            q.retain(|t| t.job != job);
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
        MapTask { job: job.into(), block, replicas: replicas.iter().map(|r| r.to_string()).collect() }
    }

    fn in_dc1(host: &str) -> bool {
        host.starts_with("dc1-")
    }

    #[test]
    fn fifo_with_locality_prefers_vps_then_datacenter_then_head_but_never_a_later_job() {
        let mut q: VecDeque<MapTask> = vec![
            map("head", 0, &["dc2-a"]),
            map("head", 1, &["dc1-b"]),
            map("head", 2, &["dc1-a"]),
            map("later", 0, &["dc1-a"]),
        ]
        .into();
        assert_eq!(take_fifo_with_locality(&mut q, "dc1-a", &in_dc1).unwrap().block, 2, "VPS-local");
        assert_eq!(take_fifo_with_locality(&mut q, "dc1-a", &in_dc1).unwrap().block, 1, "Cen-local");
        let t = take_fifo_with_locality(&mut q, "dc1-a", &in_dc1).unwrap();
        assert_eq!((t.job.as_str(), t.block), ("head", 0), "off-Cen head task before the next job's local one");
        assert_eq!(take_fifo_with_locality(&mut q, "dc1-a", &in_dc1).unwrap().job, "later");
        assert!(take_fifo_with_locality(&mut q, "dc1-a", &in_dc1).is_none());
    }

    #[test]
    fn map_queues_rotate_and_drained_job_queues_leave_the_rotation() {
        let mut dc = DatacenterQueues::default();
        dc.push_permanent_maps([map("s", 0, &[]), map("s", 1, &[])]);
        dc.new_map_queue([map("big", 0, &[])]);
        dc.new_map_queue([map("huge", 0, &[]), map("huge", 1, &[])]);
        let order: Vec<_> = std::iter::from_fn(|| dc.next_map(Assigner::Tta, "x", &|_| false))
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
        dc.push_permanent_maps([map("s", 0, &[]), map("k", 0, &[])]);
        dc.new_map_queue([map("k", 1, &[])]);
        dc.new_reduce_queue([ReduceTask { job: "k".into(), index: 0 }]);
        dc.remove_job("k");
        assert_eq!(dc.unprocessed(), 1);
        assert_eq!(dc.map_queue_count(), 1);
        assert_eq!(dc.reduce_queue_count(), 1);
    }
}
