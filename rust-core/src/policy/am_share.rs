//! Which applications may start their ApplicationMaster ahead of the job policy's own choice.
//!
//! TD and JoSS only decide map (and JoSS reduce) slots; a job they have never seen cannot enter
//! their queues until its AM runs and asks for maps. So applications waiting for their AM go
//! first — but only while AM containers hold less than CapacityScheduler's default
//! `maximum-am-resource-percent` (10 %) of the cluster's memory. Without that bound, a burst of
//! submissions starts every AM at once and the AMs fill the cluster while their maps wait (seen
//! in the simulator: 100 Facebook jobs ran 4× slower). Beyond it, AMs wait in submission order
//! behind the policy's picks, as under FIFO.

use crate::fast_hash::FastSet;

use crate::state::app::{Arrival, TaskKind};
use crate::state::ClusterState;

/// CapacityScheduler's `yarn.scheduler.capacity.maximum-am-resource-percent` default (Hadoop's
/// shipped `capacity-scheduler.xml` and `CapacitySchedulerConfiguration`'s code default). `fsp`
/// uses it as its AM pool's cap, the bound itself rather than an order.
pub const AM_SHARE: f64 = 0.1;

/// Applications whose next pending container is their AM, in submission order, as many as fit
/// in the AM share (at least one when no AM runs, so a single job on a small cluster starts).
pub fn am_first(state: &ClusterState) -> Vec<Arrival> {
    let limit = (state.capacity().memory_mb as f64 * AM_SHARE) as u64;
    let mut used: u64 = state.am_used().memory_mb;
    let mut out = Vec::new();
    // Only apps with outstanding asks can wait for an AM: the pending index, in the same order.
    for app in state.pending_apps_by_submission() {
        let Some(key) = app.asks.next_pending_key(None) else {
            continue;
        };
        if app.kind_of(key.priority) != TaskKind::ApplicationMaster {
            continue;
        }
        let size = app
            .asks
            .table(&key)
            .and_then(|t| t.row(crate::state::names::ANY_ID))
            .map_or(0, |r| r.capability.memory_mb);
        // Saturating: AM sizes are whatever the submitter asked for.
        let after = used.saturating_add(size);
        if used > 0 && after > limit {
            break;
        }
        used = after;
        out.push(app.arrival);
    }
    out
}

/// The order TD and JoSS offer a node in: apps waiting for their AM ([`am_first`]), then the
/// policy's `picks` in order, then every other app with pending asks in submission order (their
/// AMs and reduces, and generic apps). Each app appears once.
pub fn order_around(
    state: &ClusterState,
    picks: impl IntoIterator<Item = Arrival>,
) -> Vec<Arrival> {
    let mut order = am_first(state);
    // A set, not `Vec::contains`: this runs on every heartbeat, over every app with asks.
    let mut listed: FastSet<Arrival> = order.iter().copied().collect();
    for a in picks {
        if listed.insert(a) {
            order.push(a);
        }
    }
    order.extend(
        state
            .pending_apps_by_submission()
            .filter(|a| !listed.contains(&a.arrival))
            .map(|a| a.arrival),
    );
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Ask, ContainerInfo, Resource};

    use crate::state::test_spec as spec;

    /// A running AM near u64::MAX MiB plus another AM ask of that size: the AM share sum must
    /// saturate (and keep the second AM out), not panic inside the ResourceManager.
    #[test]
    fn huge_am_sizes_do_not_overflow_the_share() {
        let mut s = ClusterState::default();
        s.add_node("h1:1", "h1", "/r1", Resource::new(u64::MAX, u32::MAX));
        s.add_app(spec("a1", 1));
        s.add_app(spec("a2", 2));
        s.container_allocated(
            &ContainerInfo {
                container: "c1".into(),
                app: "a1".into(),
                node: "h1:1".into(),
                priority: 0,
                resource: Resource::new(u64::MAX / 2, 1),
            },
            false,
        )
        .unwrap();
        let ask = Ask {
            priority: 0,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability: Resource::new(u64::MAX - 1, 1),
            count: 1,
            relax_locality: true,
        };
        s.replace_asks("a2", vec![ask]).unwrap();
        s.sync_pending();
        assert!(am_first(&s).is_empty());
    }
}
