//! The MapReduce ApplicationMaster's side of scheduling, as Hadoop 3.5's RMContainerAllocator
//! and its ScheduledRequests behave:
//! - every map asks for one container at each host holding its split, at each of those hosts'
//!   racks (once per rack) and at `*`, priority 20; a map re-run after its attempt was lost asks
//!   at `*` only, priority 5 (fast-fail);
//! - reduces ask at `*` only, priority 10, once the slow-start share of maps has completed;
//! - a granted map container goes to a map whose split is on the container's host, else on its
//!   rack, else to the first remaining map in request order (all containers of one allocate
//!   call go through the host pass, then the rack pass, then the rest);
//! - the AM keeps its own counts and, on each allocate call, sends the rows whose count changed
//!   (absolute values); the RM overwrites just those rows.

use std::collections::VecDeque;

use locus_core::fast_hash::FastMap;

pub const PRIORITY_AM: i32 = 0;
pub const PRIORITY_FAST_FAIL_MAP: i32 = 5;
pub const PRIORITY_REDUCE: i32 = 10;
pub const PRIORITY_MAP: i32 = 20;

/// A resource name of an ask row, by index into the cluster's nodes or racks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    Host(u32),
    Rack(u32),
    Any,
}

pub type RowKey = (i32, Loc);

/// Containers asked for per row, and the rows set since they were last taken. The AM and the
/// RM each keep one per job and change rows for every map asked for or granted: a hash map and
/// a list sorted once per allocate call cost a fraction of two ordered trees updated each time.
#[derive(Debug, Default)]
pub struct RowCounts {
    counts: FastMap<RowKey, u32>,
    /// May name a row more than once; [`take_changed`](Self::take_changed) sorts it out.
    changed: Vec<RowKey>,
}

impl RowCounts {
    pub fn get(&self, key: RowKey) -> u32 {
        self.counts.get(&key).copied().unwrap_or(0)
    }

    /// Sets a row (0 removes it) and marks it changed; returns the previous count.
    pub fn set(&mut self, key: RowKey, value: u32) -> u32 {
        self.changed.push(key);
        if value == 0 {
            self.counts.remove(&key).unwrap_or(0)
        } else {
            self.counts.insert(key, value).unwrap_or(0)
        }
    }

    /// The rows set since the last call, each once, in row order.
    pub fn take_changed(&mut self) -> Vec<RowKey> {
        let mut keys = std::mem::take(&mut self.changed);
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Rows with a count, in row order.
    pub fn rows(&self) -> Vec<(RowKey, u32)> {
        let mut rows: Vec<(RowKey, u32)> = self.counts.iter().map(|(&k, &v)| (k, v)).collect();
        rows.sort_unstable();
        rows
    }
}

/// A container the RM granted, as the AM sees it in an allocate response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Granted {
    pub container: u64,
    pub node: u32,
    pub rack: u32,
    pub priority: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assigned {
    Map(u32),
    Reduce(u32),
    /// Nothing left to run in it: the AM releases it.
    Release,
}

/// Where a map's split lives: replica hosts and their distinct racks.
#[derive(Debug, Clone, Default)]
pub struct SplitLocations {
    pub hosts: Vec<u32>,
    pub racks: Vec<u32>,
}

#[derive(Debug, Default)]
pub struct AmRequests {
    /// The AM's own outstanding counts per row, and the rows changed since the last allocate
    /// call.
    table: RowCounts,
    splits: Vec<SplitLocations>,
    /// Maps asked for at priority 20, in request order (ScheduledRequests.maps is a
    /// LinkedHashMap): (sequence number, map, time requested). An entry whose map no longer has
    /// that sequence number in `seq_of` was taken; it is dropped when it reaches the front.
    pending: VecDeque<(u64, u32, u64)>,
    /// Maps in `pending` still waiting.
    waiting: usize,
    seq_of: Vec<Option<u64>>,
    next_seq: u64,
    by_host: FastMap<u32, VecDeque<u32>>,
    by_rack: FastMap<u32, VecDeque<u32>>,
    failed: VecDeque<(u32, u64)>,
    reduces: VecDeque<u32>,
}

impl AmRequests {
    pub fn new(splits: Vec<SplitLocations>) -> AmRequests {
        let n = splits.len();
        AmRequests {
            splits,
            seq_of: vec![None; n],
            ..Default::default()
        }
    }

    /// One more (`up`) or one fewer container at a row. Takes the table rather than `self` so
    /// callers can walk a split's locations without copying them.
    fn bump(table: &mut RowCounts, key: RowKey, up: bool) {
        let c = table.get(key);
        table.set(
            key,
            if up {
                c.saturating_add(1)
            } else {
                c.saturating_sub(1)
            },
        );
    }

    fn bump_any(&mut self, priority: i32, up: bool) {
        Self::bump(&mut self.table, (priority, Loc::Any), up);
    }

    /// Drops taken maps from the front of `pending`.
    fn skip_taken(&mut self) {
        while let Some(&(seq, m, _)) = self.pending.front() {
            if self.seq_of[m as usize] == Some(seq) {
                break;
            }
            self.pending.pop_front();
        }
    }

    /// Asks for map `m` at its split's hosts, racks and `*` (priority 20).
    pub fn request_map(&mut self, m: u32, now: u64) {
        if self.seq_of[m as usize].is_some() {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.pending.push_back((seq, m, now));
        self.waiting += 1;
        self.seq_of[m as usize] = Some(seq);
        let split = &self.splits[m as usize];
        for &h in &split.hosts {
            self.by_host.entry(h).or_default().push_back(m);
            Self::bump(&mut self.table, (PRIORITY_MAP, Loc::Host(h)), true);
        }
        for &r in &split.racks {
            self.by_rack.entry(r).or_default().push_back(m);
            Self::bump(&mut self.table, (PRIORITY_MAP, Loc::Rack(r)), true);
        }
        self.bump_any(PRIORITY_MAP, true);
    }

    /// Asks again for a map whose attempt was lost (priority 5, `*` only).
    pub fn request_failed_map(&mut self, m: u32, now: u64) {
        self.failed.push_back((m, now));
        self.bump_any(PRIORITY_FAST_FAIL_MAP, true);
    }

    pub fn request_reduce(&mut self, r: u32) {
        self.reduces.push_back(r);
        self.bump_any(PRIORITY_REDUCE, true);
    }

    /// ScheduledRequests.maps.size(): maps asked for and not yet given a container.
    pub fn scheduled_maps(&self) -> usize {
        self.waiting + self.failed.len()
    }

    pub fn scheduled_reduces(&self) -> usize {
        self.reduces.len()
    }

    /// Takes back the most recently scheduled reduce request (rampDownReduces).
    pub fn remove_reduce(&mut self) -> Option<u32> {
        let r = self.reduces.pop_back()?;
        self.bump_any(PRIORITY_REDUCE, false);
        Some(r)
    }

    /// Map requests made at or before `cutoff` (getNumHangingRequests).
    pub fn maps_requested_by(&self, cutoff: u64) -> usize {
        let regular = self
            .pending
            .iter()
            .filter(|&&(seq, m, _)| self.seq_of[m as usize] == Some(seq))
            .take_while(|&&(_, _, t)| t <= cutoff)
            .count();
        regular + self.failed.iter().filter(|(_, t)| *t <= cutoff).count()
    }

    /// Removes map `m` from the priority-20 requests, as decContainerReq does for its hosts,
    /// racks and `*`.
    fn take_map(&mut self, m: u32) -> bool {
        if self.seq_of[m as usize].take().is_none() {
            return false;
        }
        self.waiting -= 1;
        let split = &self.splits[m as usize];
        for &h in &split.hosts {
            Self::bump(&mut self.table, (PRIORITY_MAP, Loc::Host(h)), false);
        }
        for &r in &split.racks {
            Self::bump(&mut self.table, (PRIORITY_MAP, Loc::Rack(r)), false);
        }
        self.bump_any(PRIORITY_MAP, false);
        self.skip_taken();
        true
    }

    fn pop_from(queue: Option<&mut VecDeque<u32>>, seq_of: &[Option<u64>]) -> Option<u32> {
        let q = queue?;
        while let Some(m) = q.pop_front() {
            if seq_of[m as usize].is_some() {
                return Some(m);
            }
        }
        None
    }

    /// Matches one allocate response's containers to tasks.
    pub fn assign(&mut self, granted: &[Granted]) -> Vec<(Granted, Assigned)> {
        let mut out: Vec<Option<Assigned>> = vec![None; granted.len()];
        let mut maps: Vec<usize> = Vec::new();
        for (i, g) in granted.iter().enumerate() {
            match g.priority {
                PRIORITY_FAST_FAIL_MAP => {
                    out[i] = Some(match self.failed.pop_front() {
                        Some((m, _)) => {
                            self.bump_any(PRIORITY_FAST_FAIL_MAP, false);
                            Assigned::Map(m)
                        }
                        None => Assigned::Release,
                    })
                }
                PRIORITY_REDUCE => {
                    out[i] = Some(match self.reduces.pop_front() {
                        Some(r) => {
                            self.bump_any(PRIORITY_REDUCE, false);
                            Assigned::Reduce(r)
                        }
                        None => Assigned::Release,
                    })
                }
                PRIORITY_MAP => maps.push(i),
                _ => out[i] = Some(Assigned::Release),
            }
        }
        // Host pass, then rack pass, then whatever is first in request order.
        for pass in 0..3 {
            for &i in &maps {
                if out[i].is_some() {
                    continue;
                }
                let g = granted[i];
                let m = match pass {
                    0 => Self::pop_from(self.by_host.get_mut(&g.node), &self.seq_of),
                    1 => Self::pop_from(self.by_rack.get_mut(&g.rack), &self.seq_of),
                    _ => self.pending.front().map(|&(_, m, _)| m),
                };
                if let Some(m) = m {
                    self.take_map(m);
                    out[i] = Some(Assigned::Map(m));
                }
            }
        }
        granted
            .iter()
            .zip(out)
            .map(|(g, a)| (*g, a.unwrap_or(Assigned::Release)))
            .collect()
    }

    /// Rows changed since the last call, with their current counts; clears the change set.
    pub fn take_changes(&mut self) -> Vec<(RowKey, u32)> {
        self.table
            .take_changed()
            .into_iter()
            .map(|k| (k, self.table.get(k)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn split(hosts: &[u32], racks: &[u32]) -> SplitLocations {
        SplitLocations {
            hosts: hosts.to_vec(),
            racks: racks.to_vec(),
        }
    }

    fn g(container: u64, node: u32, rack: u32) -> Granted {
        Granted {
            container,
            node,
            rack,
            priority: PRIORITY_MAP,
        }
    }

    /// Nodes 0,1 on rack 0; nodes 2,3 on rack 1; node 4 on rack 2.
    fn three_maps() -> AmRequests {
        let mut am = AmRequests::new(vec![
            split(&[0], &[0]),
            split(&[2], &[1]),
            split(&[3], &[1]),
        ]);
        for m in 0..3 {
            am.request_map(m, 0);
        }
        am
    }

    #[test]
    fn host_local_map_wins_over_request_order() {
        let mut am = three_maps();
        let out = am.assign(&[g(1, 3, 1)]);
        assert_eq!(
            out[0].1,
            Assigned::Map(2),
            "the container on node 3 runs the map whose split is on node 3"
        );
    }

    #[test]
    fn rack_local_map_wins_over_request_order_when_no_host_match() {
        let mut am = three_maps();
        // node 1 holds no split; rack 0 holds map 0's
        assert_eq!(am.assign(&[g(1, 1, 0)])[0].1, Assigned::Map(0));
        let mut am = three_maps();
        // node 2 holds map 1's split, so rack 1's other map (2) is left for later
        assert_eq!(am.assign(&[g(1, 2, 1)])[0].1, Assigned::Map(1));
        // another container on rack 1 but not on node 3 still gets map 2 rack-locally
        assert_eq!(am.assign(&[g(2, 2, 1)])[0].1, Assigned::Map(2));
    }

    #[test]
    fn off_switch_takes_the_first_remaining_map() {
        let mut am = three_maps();
        assert_eq!(am.assign(&[g(1, 4, 2)])[0].1, Assigned::Map(0));
        assert_eq!(am.assign(&[g(2, 4, 2)])[0].1, Assigned::Map(1));
        assert_eq!(am.assign(&[g(3, 4, 2)])[0].1, Assigned::Map(2));
        assert_eq!(
            am.assign(&[g(4, 4, 2)])[0].1,
            Assigned::Release,
            "nothing left: released"
        );
    }

    #[test]
    fn host_pass_runs_over_all_containers_before_the_rack_pass() {
        let mut am = three_maps();
        // the first container (node 1, rack 0) would take map 0 rack-locally; the second (node 0)
        // is host-local for map 0, and the host pass comes first for every container
        let out = am.assign(&[g(1, 1, 0), g(2, 0, 0)]);
        assert_eq!(out[1].1, Assigned::Map(0));
        assert_eq!(
            out[0].1,
            Assigned::Map(1),
            "no host or rack match left: first remaining"
        );
    }

    #[test]
    fn maps_taken_out_of_order_leave_the_waiting_ones_in_request_order() {
        let mut am = AmRequests::new(vec![
            split(&[0], &[0]),
            split(&[2], &[1]),
            split(&[3], &[1]),
        ]);
        for (m, at) in [(0, 0), (1, 10), (2, 20)] {
            am.request_map(m, at);
        }
        // Node 2 holds map 1's split: the middle request goes first.
        assert_eq!(am.assign(&[g(1, 2, 1)])[0].1, Assigned::Map(1));
        assert_eq!(am.scheduled_maps(), 2);
        assert_eq!(
            am.maps_requested_by(10),
            1,
            "map 0 waits since 0; map 1 is running"
        );
        assert_eq!(am.maps_requested_by(20), 2);
        // Off-switch containers take the remaining maps in request order.
        assert_eq!(am.assign(&[g(2, 4, 2)])[0].1, Assigned::Map(0));
        assert_eq!(am.assign(&[g(3, 4, 2)])[0].1, Assigned::Map(2));
        assert_eq!(
            (am.scheduled_maps(), am.maps_requested_by(u64::MAX)),
            (0, 0)
        );
    }

    #[test]
    fn asks_count_hosts_racks_once_and_any() {
        let mut am = AmRequests::new(vec![split(&[0, 1, 2], &[0, 1]), split(&[2], &[1])]);
        am.request_map(0, 0);
        am.request_map(1, 0);
        let changes: BTreeMap<RowKey, u32> = am.take_changes().into_iter().collect();
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Host(2))], 2);
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Rack(1))], 2);
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Rack(0))], 1);
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Any)], 2);
        // the grant lands on node 2: host-local for map 0 (first in request order at node 2)
        assert_eq!(am.assign(&[g(9, 2, 1)])[0].1, Assigned::Map(0));
        let changes: BTreeMap<RowKey, u32> = am.take_changes().into_iter().collect();
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Host(0))], 0);
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Host(2))], 1);
        assert_eq!(changes[&(PRIORITY_MAP, Loc::Any)], 1);
    }

    #[test]
    fn reduce_and_fast_fail_containers_go_to_their_own_queues() {
        let mut am = three_maps();
        am.request_reduce(0);
        am.request_failed_map(1, 0);
        let out = am.assign(&[
            Granted {
                container: 1,
                node: 4,
                rack: 2,
                priority: PRIORITY_REDUCE,
            },
            Granted {
                container: 2,
                node: 4,
                rack: 2,
                priority: PRIORITY_FAST_FAIL_MAP,
            },
            Granted {
                container: 3,
                node: 4,
                rack: 2,
                priority: PRIORITY_REDUCE,
            },
        ]);
        assert_eq!(out[0].1, Assigned::Reduce(0));
        assert_eq!(out[1].1, Assigned::Map(1));
        assert_eq!(out[2].1, Assigned::Release);
    }
}
