//! `fair`: YARN FairScheduler's sharing inside one queue, with the DRF comparator.
//!
//! The rule: of the applications with something outstanding, the next container goes to the one
//! with the smallest *dominant share* — max(memory used / cluster memory, vcores used / cluster
//! vcores) — ties to the FIFO order (higher application priority, earlier submission, earlier
//! arrival; FairScheduler itself ignores application priority there). FairScheduler re-sorts
//! after every container it hands out, so one heartbeat of a big node is spread over the apps;
//! `order` reproduces that by water-filling the node's free room one container at a time (each app
//! is charged the size of the container its first pending key asks for) and listing the app once
//! per container it should get, each visit limited to one container by `turn_limit`. The apps
//! follow once more afterwards, so room a predicted app could not use (locality wait, slot cap)
//! still goes to someone.
//!
//! AM containers may hold at most half the cluster's memory (FairScheduler's default
//! `maxAMShare` 0.5, here of the one queue = the cluster; [`super::JobPolicy::am_share`]).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{JobPolicy, ShareRule};
use crate::protocol::Resource;
use crate::state::app::{App, Arrival, FifoKey};
use crate::state::node::Node;
use crate::state::ClusterState;

/// Bounds the water-filling on huge nodes with tiny asks; the trailing pass still covers them.
const MAX_PREDICTED: usize = 4096;

pub struct Fair;

/// max(memory share, vcores share) of `used` in `total`; 0 for an empty cluster.
pub fn dominant_share(used: Resource, total: Resource) -> f64 {
    let mem = if total.memory_mb == 0 {
        0.0
    } else {
        used.memory_mb as f64 / total.memory_mb as f64
    };
    let cpu = if total.vcores == 0 {
        0.0
    } else {
        used.vcores as f64 / total.vcores as f64
    };
    mem.max(cpu)
}

struct Candidate {
    arrival: Arrival,
    /// The FIFO order (application priority, submission) that breaks ties between equal shares.
    fifo: FifoKey,
    used: Resource,
    /// `used`'s dominant share, kept with it so a comparison does not divide.
    share: f64,
    next: Resource,
    left: u64,
}

fn candidate(app: &App, total: Resource) -> Option<Candidate> {
    let key = app.asks.next_pending_key(None)?;
    let table = app.asks.table(&key)?;
    let next = table.row(crate::state::names::ANY_ID)?.capability;
    Some(Candidate {
        arrival: app.arrival,
        fifo: app.fifo_key(),
        used: app.used,
        share: dominant_share(app.used, total),
        next,
        left: app.asks.pending_containers(),
    })
}

/// FairScheduler's order: smaller dominant share, then the FIFO order (higher application
/// priority, earlier submission, earlier arrival: a total order, arrivals are unique).
fn better(a: &Candidate, b: &Candidate) -> Ordering {
    a.share.total_cmp(&b.share).then(a.fifo.cmp(&b.fifo))
}

/// A candidate's place in the water-filling heap: its [`better`] fields and its index.
struct Turn {
    share: f64,
    fifo: FifoKey,
    index: usize,
}

impl Turn {
    fn of(c: &Candidate, index: usize) -> Turn {
        Turn {
            share: c.share,
            fifo: c.fifo,
            index,
        }
    }
}

impl Ord for Turn {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap pops its greatest, water-filling wants the smallest share.
        other
            .share
            .total_cmp(&self.share)
            .then(other.fifo.cmp(&self.fifo))
    }
}

impl PartialOrd for Turn {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Turn {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Turn {}

impl JobPolicy for Fair {
    fn name(&self) -> &'static str {
        "fair"
    }

    fn order(&mut self, state: &ClusterState, node: &Node, _now_ms: u64) -> Vec<Arrival> {
        let total = state.capacity();
        let mut cands: Vec<Candidate> = state
            .pending_apps_by_submission()
            .filter_map(|a| candidate(a, total))
            .collect();
        cands.sort_by(better);
        let trailing: Vec<Arrival> = cands.iter().map(|c| c.arrival).collect();
        // Water-filling, one container at a time, to the smallest share among the apps whose
        // next container still fits: a heap rather than a scan of every app per container.
        // Room only shrinks, so an app that does not fit now never will on this heartbeat.
        let mut heap: BinaryHeap<Turn> = cands
            .iter()
            .enumerate()
            .map(|(i, c)| Turn::of(c, i))
            .collect();
        let mut room = node.unallocated;
        let mut out = Vec::new();
        while out.len() < MAX_PREDICTED {
            let Some(Turn { index, .. }) = heap.pop() else {
                break;
            };
            let c = &mut cands[index];
            if c.left == 0 || !room.fits(&c.next) {
                continue;
            }
            room = room.saturating_sub(&c.next);
            c.used = c.used.add(&c.next);
            c.share = dominant_share(c.used, total);
            c.left -= 1;
            out.push(c.arrival);
            if c.left > 0 {
                heap.push(Turn::of(c, index));
            }
        }
        out.extend(trailing);
        out
    }

    fn turn_limit(&mut self, _app: Arrival) -> u32 {
        1
    }

    /// FairScheduler's order over every application holding or asking for room: the smallest
    /// dominant share first, so the ones latest hold the most.
    fn entitlement_order(&self, state: &ClusterState) -> Option<(Vec<Arrival>, ShareRule)> {
        let total = state.capacity();
        let mut ranked: Vec<(f64, FifoKey)> = state
            .apps()
            .filter(|a| {
                a.used != Resource::ZERO
                    || (a.asks.pending_containers() > 0 && state.is_activated(a.arrival))
            })
            .map(|a| (dominant_share(a.used, total), a.fifo_key()))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        Some((
            ranked.into_iter().map(|(_, k)| k.arrival).collect(),
            ShareRule::Equal,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominant_share_is_the_larger_dimension() {
        let total = Resource::new(100_000, 100);
        assert_eq!(dominant_share(Resource::new(10_000, 50), total), 0.5);
        assert_eq!(dominant_share(Resource::new(30_000, 1), total), 0.3);
        assert_eq!(dominant_share(Resource::new(1, 1), Resource::ZERO), 0.0);
    }
}
