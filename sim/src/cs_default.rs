//! `cs-default`: a baseline modelled on Hadoop 3.5's CapacityScheduler as installed (the
//! `capacity-scheduler.xml` Hadoop ships plus the code defaults it leaves alone), built from the
//! core's own pieces so the comparison runs the same decision procedure as every other policy.
//!
//! | CapacityScheduler default | how the run gets it |
//! | --- | --- |
//! | one queue `root.default`, capacity and maximum-capacity 100, user-limit-factor 1, minimum-user-limit-percent 100 | `locus.policy=capacity` with that tree in `locus.capacity.tree` (the form the shim hands over from the file): alone in its queue, applications go in submission order (LeafQueue's FIFO ordering policy; the simulator submits every job at priority 0, so priority never reorders) |
//! | `maximum-am-resource-percent` 0.1 | the tree's leaf: AMs may hold 10 % of the queue's usable memory, one AM always admitted when none runs (LeafQueue's activation rule) |
//! | `node-locality-delay` 40 | `delay`'s node threshold: a map key goes rack-local after min(40, nodes) missed opportunities (RegularContainerAllocator caps the delay at the node count) |
//! | `rack-locality-additional-delay` -1 | `delay`'s rack threshold: off-switch once nodes opportunities were missed since the key's last node- or rack-local container, the "locality wait factor" bound for a job whose blocks cover the cluster (see below) |
//! | missed opportunities reset at every container (`SchedulerApplicationAttempt.resetSchedulingOpportunities`) | `locus.delay.idle-room=false`: `delay`'s count of misses on idle room, which a container does not restart, is off |
//! | `per-node-heartbeat.maximum-offswitch-assignments` 1, multiple assignments on | the core's defaults (`locus.off-switch-per-heartbeat` 1, `locus.assign-multiple` true) |
//! | `schedule-asynchronously.enable` true | the engine's passes ([`ASYNC_SCHEDULING`]): an ask reaching the RM is tried on every node with room 5 ms later (the thread's default interval), not only at each node's next heartbeat |
//!
//! Where the pieces differ from CapacityScheduler (docs/results/sim-validation.md says what it costs):
//! - With `rack-locality-additional-delay` -1, CS allows off-switch once the missed
//!   opportunities exceed min(nodes, outstanding containers × min((hosts and racks asked − 1) /
//!   nodes, 1)): a job's last few maps go off-switch sooner than its first. `delay` has one
//!   fixed count, set here to that bound's value for a job with at least `nodes` maps left whose
//!   blocks span the cluster.
//! - CS resets the count after a rack-local container (`rack-locality-full-reset` true), so the
//!   next map waits the full node delay again; `delay` stays at rack level after one.
//! - The asynchronous thread walks the nodes every 5 ms for ever, so a waiting key's misses pile
//!   up in milliseconds; here they pile up on node heartbeats and on the passes new asks start.
//!   With `nodes` ≤ 40 both relax in well under a heartbeat interval of wall time.

use std::collections::BTreeMap;

use locus_core::config::{
    CAPACITY_TREE, DELAY_IDLE_ROOM, DELAY_NODE_THRESHOLD, DELAY_RACK_THRESHOLD, LOCALITY, POLICY,
};

pub use crate::engine::ASYNC_SCHEDULING;

/// The `--policy` item that selects this baseline.
pub const NAME: &str = "cs-default";

/// `yarn.scheduler.capacity.node-locality-delay`, CapacitySchedulerConfiguration's default and
/// the shipped capacity-scheduler.xml's value.
pub const NODE_LOCALITY_DELAY: u64 = 40;
/// `yarn.scheduler.capacity.maximum-am-resource-percent` as shipped.
pub const MAXIMUM_AM_RESOURCE_PERCENT: f64 = 0.1;
/// `yarn.scheduler.capacity.maximum-applications` as shipped.
pub const MAXIMUM_APPLICATIONS: u64 = 10_000;

const CS: &str = "yarn.scheduler.capacity.";

/// The queue tree of the shipped capacity-scheduler.xml, in the `locus.capacity.tree` form.
pub fn tree_json() -> String {
    let queue = |path: &str| {
        serde_json::json!({
            "path": path,
            "capacity": 100.0,
            "maximum_capacity": 100.0,
            "state": "RUNNING",
            "user_limit_factor": 1.0,
            "minimum_user_limit_percent": 100.0,
            "maximum_am_resource_percent": MAXIMUM_AM_RESOURCE_PERCENT,
            "maximum_applications": -1,
        })
    };
    serde_json::json!({
        "maximum_applications": MAXIMUM_APPLICATIONS,
        "queues": [queue("root"), queue("root.default")],
    })
    .to_string()
}

/// The run's properties before the cluster is known: the core's settings and, under
/// CapacityScheduler's own names (which the core ignores), the defaults they stand for.
pub fn props() -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    p.insert(POLICY.to_string(), "capacity".to_string());
    p.insert(CAPACITY_TREE.to_string(), tree_json());
    p.insert(LOCALITY.to_string(), "delay".to_string());
    p.insert(DELAY_IDLE_ROOM.to_string(), "false".to_string());
    p.insert(
        format!("{CS}node-locality-delay"),
        NODE_LOCALITY_DELAY.to_string(),
    );
    p.insert(
        format!("{CS}rack-locality-additional-delay"),
        "-1".to_string(),
    );
    p.insert(
        format!("{CS}maximum-am-resource-percent"),
        MAXIMUM_AM_RESOURCE_PERCENT.to_string(),
    );
    p.insert(ASYNC_SCHEDULING.to_string(), "true".to_string());
    p
}

/// Missed opportunities (node → rack, then rack → off-switch counted after that) for a cluster
/// of `nodes`: min(40, nodes), then the rest of `nodes`.
pub fn opportunities(nodes: usize) -> (u64, u64) {
    let nodes = nodes as u64;
    let node = NODE_LOCALITY_DELAY.min(nodes);
    (node, nodes - node)
}

/// `delay` counts `ceil(threshold × nodes)` misses; a threshold half an opportunity below
/// `count / nodes` gives exactly `count` whatever the float rounding.
fn threshold(count: u64, nodes: usize) -> String {
    if count == 0 || nodes == 0 {
        "0".to_string()
    } else {
        format!("{}", (count as f64 - 0.5) / nodes as f64)
    }
}

/// Sets `delay`'s thresholds for `nodes` unless the run set them itself; only for runs that
/// carry this baseline's properties.
pub fn fit_to_cluster(props: &mut BTreeMap<String, String>, nodes: usize) {
    if !props.contains_key(&format!("{CS}node-locality-delay")) {
        return;
    }
    let (node, rack) = opportunities(nodes);
    props
        .entry(DELAY_NODE_THRESHOLD.to_string())
        .or_insert_with(|| threshold(node, nodes));
    props
        .entry(DELAY_RACK_THRESHOLD.to_string())
        .or_insert_with(|| threshold(rack, nodes));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thresholds must make the core count exactly the intended misses: `ceil` of a float
    /// product that lands a hair above an integer would add one (40 / 600 × 600).
    #[test]
    fn thresholds_give_exact_counts_on_any_cluster_size() {
        for nodes in [1usize, 3, 4, 39, 40, 41, 100, 600, 10_000] {
            let mut p = props();
            fit_to_cluster(&mut p, nodes);
            let (node, rack) = opportunities(nodes);
            for (key, want) in [(DELAY_NODE_THRESHOLD, node), (DELAY_RACK_THRESHOLD, rack)] {
                let t: f64 = p[key].parse().unwrap_or(f64::NAN);
                assert_eq!(
                    (t * nodes as f64).ceil() as u64,
                    want,
                    "{key} on {nodes} nodes"
                );
                assert!(
                    (0.0..=10.0).contains(&t),
                    "{key} {t} is outside delay's range"
                );
            }
            assert_eq!(
                node + rack,
                nodes as u64,
                "off-switch after `nodes` misses in all"
            );
        }
    }

    #[test]
    fn a_run_that_sets_its_own_threshold_keeps_it() {
        let mut p = props();
        p.insert(DELAY_NODE_THRESHOLD.to_string(), "0".to_string());
        fit_to_cluster(&mut p, 100);
        assert_eq!(p[DELAY_NODE_THRESHOLD], "0");
        let mut other = BTreeMap::new();
        fit_to_cluster(&mut other, 100);
        assert!(other.is_empty(), "only cs-default runs get thresholds");
    }
}
