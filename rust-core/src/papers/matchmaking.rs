//! Matchmaking (He, Lu, Swanson 2011): a per-node *locality marker* gives every node one
//! heartbeat interval to grab a local map task before any node is handed a non-local one.
//!
//! The technique sits under any job order (FIFO, fair): the caller passes the jobs already in the
//! order its job-level policy wants, and [`Matchmaker::assign`] decides which of them the node gets
//! and whether each task is local. See `docs/design/papers-matchmaking.md` for the YARN mapping and for
//! why this follows the paper's prose rather than its printed Algorithm 1.

pub mod yarn;

use std::collections::HashMap;

/// What one job offers the heartbeating node, in the caller's job order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapDemand {
    pub job: String,
    /// Unassigned map tasks whose input has a replica on the heartbeating node
    /// (in YARN: the job's outstanding map asks at this node's host name).
    pub local: u32,
    /// All unassigned map tasks of the job, local or not.
    pub pending: u32,
}

impl MapDemand {
    pub fn new(job: impl Into<String>, local: u32, pending: u32) -> Self {
        MapDemand {
            job: job.into(),
            local,
            pending,
        }
    }
}

/// One map task the node should run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchAssignment {
    pub job: String,
    pub local: bool,
}

/// The scheduler-wide marker table. Keep one per cluster and call it on every heartbeat.
#[derive(Debug, Default, Clone)]
pub struct Matchmaker {
    /// `LocalityMarker[i]` of Algorithm 1: absent = `null`, `Some(0)` = marked (missed once),
    /// `Some(n)` = n local tasks taken since the marker was last cleared or set to 0.
    markers: HashMap<String, u32>,
}

impl Matchmaker {
    pub fn new() -> Self {
        Matchmaker::default()
    }

    /// The node's marker: `None` is the paper's `null`, `Some(0)` a marked node.
    pub fn marker(&self, node: &str) -> Option<u32> {
        self.markers.get(node).copied()
    }

    /// Algorithm 2: a new job may hold local tasks for nodes that were marked, so every node
    /// gets a fresh chance to find local work before anyone runs a non-local task.
    pub fn job_added(&mut self) {
        self.markers.clear();
    }

    /// Marks `node` as a miss would (marker 0), for a heartbeat whose local tasks turned out not
    /// to run there (the YARN adapter judges that after the walk: policy/matchmaking.rs).
    pub fn mark(&mut self, node: &str) {
        self.markers.insert(node.to_string(), 0);
    }

    /// A node that left the cluster must not keep a marker a re-registered node would inherit.
    pub fn node_removed(&mut self, node: &str) {
        self.markers.remove(node);
    }

    /// Algorithm 1, as described in Section III's prose: fill `free_slots` with local map tasks,
    /// relaxing the job order; on the first miss in a row mark the node and stop; on the second
    /// miss in a row give it exactly one non-local task from the first job that has any.
    pub fn assign(
        &mut self,
        node: &str,
        free_slots: u32,
        jobs: &[MapDemand],
    ) -> Vec<MatchAssignment> {
        let mut left: Vec<(u32, u32)> = jobs.iter().map(|j| (j.local, j.pending)).collect();
        let mut out = Vec::new();
        let mut slots = free_slots;
        while slots > 0 {
            let previous = self.marker(node);
            let local_job = left
                .iter()
                .position(|&(local, pending)| local > 0 && pending > 0);
            if let Some(idx) = local_job {
                left[idx].0 -= 1;
                left[idx].1 -= 1;
                slots -= 1;
                out.push(MatchAssignment {
                    job: jobs[idx].job.clone(),
                    local: true,
                });
                self.markers
                    .insert(node.to_string(), previous.map_or(1, |m| m + 1));
                continue;
            }
            if previous == Some(0) {
                // Second miss in a row: every node has had a heartbeat interval to grab its local
                // tasks, so idling this one any longer would only waste the slot. The marker stays
                // 0 so the node keeps receiving (one) non-local task per heartbeat until it finds
                // local work again.
                if let Some(idx) = left.iter().position(|&(_, pending)| pending > 0) {
                    out.push(MatchAssignment {
                        job: jobs[idx].job.clone(),
                        local: false,
                    });
                }
            } else {
                self.markers.insert(node.to_string(), 0);
            }
            break;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(rows: &[(&str, u32, u32)]) -> Vec<MapDemand> {
        rows.iter()
            .map(|&(j, l, p)| MapDemand::new(j, l, p))
            .collect()
    }

    #[test]
    fn first_miss_marks_the_node_and_gives_it_nothing() {
        let mut mm = Matchmaker::new();
        let got = mm.assign("n1", 2, &jobs(&[("j1", 0, 5)]));
        assert!(
            got.is_empty(),
            "a node that just missed must wait one interval, got {got:?}"
        );
        assert_eq!(mm.marker("n1"), Some(0));
    }

    #[test]
    fn second_miss_in_a_row_gives_exactly_one_non_local_task_from_the_first_job() {
        let mut mm = Matchmaker::new();
        let queue = jobs(&[("j1", 0, 0), ("j2", 0, 3), ("j3", 0, 9)]);
        assert!(mm.assign("n1", 4, &queue).is_empty());
        let got = mm.assign("n1", 4, &queue);
        assert_eq!(
            got,
            vec![MatchAssignment {
                job: "j2".into(),
                local: false
            }]
        );
        // still no local work: one more non-local task per heartbeat, never more
        assert_eq!(mm.assign("n1", 4, &queue).len(), 1);
        assert_eq!(mm.marker("n1"), Some(0));
    }

    #[test]
    fn local_tasks_fill_the_node_and_count_up_the_marker() {
        let mut mm = Matchmaker::new();
        let queue = jobs(&[("j1", 2, 2), ("j2", 5, 5)]);
        let got = mm.assign("n1", 3, &queue);
        let names: Vec<_> = got.iter().map(|a| (a.job.as_str(), a.local)).collect();
        assert_eq!(names, vec![("j1", true), ("j1", true), ("j2", true)]);
        assert_eq!(
            mm.marker("n1"),
            Some(3),
            "null -> 1 on the first local task, then += 1"
        );
    }

    #[test]
    fn job_order_is_relaxed_for_local_tasks() {
        let mut mm = Matchmaker::new();
        let got = mm.assign("n1", 1, &jobs(&[("head", 0, 10), ("second", 1, 1)]));
        assert_eq!(
            got,
            vec![MatchAssignment {
                job: "second".into(),
                local: true
            }]
        );
    }

    #[test]
    fn running_out_of_local_tasks_mid_heartbeat_marks_without_a_non_local_task() {
        let mut mm = Matchmaker::new();
        let got = mm.assign("n1", 3, &jobs(&[("j1", 1, 4)]));
        assert_eq!(
            got,
            vec![MatchAssignment {
                job: "j1".into(),
                local: true
            }]
        );
        assert_eq!(mm.marker("n1"), Some(0));
    }

    #[test]
    fn a_local_task_after_a_miss_restarts_the_miss_count() {
        let mut mm = Matchmaker::new();
        assert!(mm.assign("n1", 1, &jobs(&[("j1", 0, 4)])).is_empty());
        let got = mm.assign("n1", 1, &jobs(&[("j1", 1, 4)]));
        assert_eq!(
            got,
            vec![MatchAssignment {
                job: "j1".into(),
                local: true
            }]
        );
        assert_eq!(
            mm.marker("n1"),
            Some(1),
            "a marked node that finds local work goes 0 -> 1"
        );
        // the next miss is a first miss again: no non-local task
        assert!(mm.assign("n1", 1, &jobs(&[("j1", 0, 3)])).is_empty());
        assert_eq!(mm.marker("n1"), Some(0));
    }

    #[test]
    fn a_new_job_clears_every_marker() {
        let mut mm = Matchmaker::new();
        let queue = jobs(&[("j1", 0, 4)]);
        assert!(mm.assign("n1", 1, &queue).is_empty());
        assert!(mm.assign("n2", 1, &queue).is_empty());
        mm.job_added();
        assert_eq!(mm.marker("n1"), None);
        assert_eq!(mm.marker("n2"), None);
        // n1 would have had its non-local task now; after the reset it has to wait again
        assert!(mm.assign("n1", 1, &queue).is_empty());
    }

    #[test]
    fn removed_node_comes_back_unmarked() {
        let mut mm = Matchmaker::new();
        assert!(mm.assign("n1", 1, &jobs(&[("j1", 0, 4)])).is_empty());
        mm.node_removed("n1");
        assert_eq!(mm.marker("n1"), None);
    }

    #[test]
    fn no_pending_work_assigns_nothing_even_when_marked() {
        let mut mm = Matchmaker::new();
        assert!(mm.assign("n1", 2, &[]).is_empty());
        assert!(mm.assign("n1", 2, &jobs(&[("done", 0, 0)])).is_empty());
    }

    /// Section II-A's example: a 5-map job on a cluster where most nodes hold none of its blocks
    /// and heartbeat first. Plain FIFO would hand the early nodes non-local tasks; with markers the
    /// data-holding nodes get every map.
    #[test]
    fn small_job_on_a_large_cluster_runs_all_maps_locally() {
        let nodes: Vec<String> = (0..20).map(|i| format!("n{i}")).collect();
        // blocks of the 5 maps live on n15..n19 (one map each, a single replica for clarity)
        let mut local: HashMap<String, u32> = nodes.iter().map(|n| (n.clone(), 0)).collect();
        for n in &nodes[15..] {
            local.insert(n.clone(), 1);
        }
        let mut pending = 5u32;
        let mut mm = Matchmaker::new();
        mm.job_added();
        let (mut local_runs, mut remote_runs) = (0, 0);
        for _round in 0..3 {
            for n in &nodes {
                let demand = [MapDemand::new("small", local[n], pending)];
                for a in mm.assign(n, 2, &demand) {
                    pending -= 1;
                    if a.local {
                        local_runs += 1;
                        *local.get_mut(n).unwrap() -= 1;
                    } else {
                        remote_runs += 1;
                    }
                }
            }
        }
        assert_eq!((local_runs, remote_runs), (5, 0));
    }
}
