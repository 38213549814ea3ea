//! Map containers as TD's heartbeats see them: which ran at the previous heartbeat, which of
//! those ended since (and on which node), and how many each application runs now.
//!
//! TD hands a slot freed by job j's map back to j (the sticky slot), so each heartbeat must know
//! the map containers that ended since the previous one. Comparing every heartbeat's full list
//! of containers with the last one cost O(containers), with a string copy each, per heartbeat;
//! here the core's container events keep the lists, and a heartbeat costs what changed. The
//! rule is the comparison's: a container counts as ended when it ran at the previous heartbeat
//! that asked and is gone now, whatever removed it (release, node loss); one that started and
//! ended between two such heartbeats is not seen.

use crate::fast_hash::FastMap;
use crate::state::app::Arrival;
use crate::state::container::Container;
use crate::state::ClusterState;

#[derive(Debug, Default)]
pub struct MapContainers {
    /// False until the first heartbeat read the state's containers (the policy may start on
    /// a running cluster, after a settings refresh).
    primed: bool,
    /// Map containers at the previous heartbeat: id → (node, app).
    seen: FastMap<String, (String, Arrival)>,
    /// `seen` per application.
    per_app: FastMap<Arrival, u32>,
    /// Map containers started since the previous heartbeat.
    started: FastMap<String, (String, Arrival)>,
    /// Containers of `seen` that ended since: (node, app).
    ended: Vec<(String, Arrival)>,
}

impl MapContainers {
    /// A container the core now holds (started or recovered).
    pub fn started(&mut self, state: &ClusterState, c: &Container) {
        if !c.kind.is_map() {
            return;
        }
        if let Some(app) = state.app_by_id(&c.app) {
            self.started
                .insert(c.id.clone(), (c.node.clone(), app.arrival));
        }
    }

    /// A container the core no longer holds (released, or lost with its node).
    pub fn finished(&mut self, c: &Container) {
        if self.started.remove(&c.id).is_some() {
            return;
        }
        if let Some((node, app)) = self.seen.remove(&c.id) {
            if let Some(n) = self.per_app.get_mut(&app) {
                *n -= 1;
                if *n == 0 {
                    self.per_app.remove(&app);
                }
            }
            self.ended.push((node, app));
        }
    }

    /// The application is gone with whatever containers it still had.
    pub fn app_removed(&mut self, app: Arrival) {
        if self.per_app.remove(&app).is_some() {
            self.seen.retain(|_, (_, a)| *a != app);
        }
        self.started.retain(|_, (_, a)| *a != app);
        self.ended.retain(|(_, a)| *a != app);
    }

    /// A heartbeat: the containers seen at the previous one that ended since, as (node, app),
    /// and the lists now hold the state's map containers.
    pub fn heartbeat(&mut self, state: &ClusterState) -> Vec<(String, Arrival)> {
        if !self.primed {
            self.primed = true;
            self.started.clear();
            self.ended.clear();
            for c in state.containers().iter() {
                if c.kind.is_map() {
                    if let Some(app) = state.app_by_id(&c.app) {
                        self.seen
                            .insert(c.id.clone(), (c.node.clone(), app.arrival));
                    }
                }
            }
            for (_, a) in self.seen.values() {
                *self.per_app.entry(*a).or_insert(0) += 1;
            }
            return Vec::new();
        }
        for (id, (node, app)) in self.started.drain() {
            *self.per_app.entry(app).or_insert(0) += 1;
            self.seen.insert(id, (node, app));
        }
        std::mem::take(&mut self.ended)
    }

    /// Map containers `app` runs, as of the last [`heartbeat`](Self::heartbeat).
    pub fn running(&self, app: Arrival) -> u32 {
        self.per_app.get(&app).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ContainerInfo, Resource};
    use crate::state::AppSpec;

    fn cluster() -> ClusterState {
        let mut s = ClusterState::default();
        for n in ["n1", "n2"] {
            s.add_node(n, n, "/r1", Resource::new(8192, 8));
        }
        for id in ["a", "b"] {
            s.add_app(AppSpec {
                id: id.into(),
                queue: "default".into(),
                user: "u".into(),
                name: id.into(),
                app_type: "MAPREDUCE".into(),
                tags: Vec::new(),
                submit_ms: 0,
                priority: 0,
            });
        }
        s
    }

    /// Starts container `id` of `app` on `node` at `priority` (20: a map, 10: a reduce).
    fn start(
        s: &mut ClusterState,
        m: &mut MapContainers,
        id: &str,
        app: &str,
        node: &str,
        priority: i32,
    ) {
        let info = ContainerInfo {
            container: id.into(),
            app: app.into(),
            node: node.into(),
            priority,
            resource: Resource::new(1024, 1),
        };
        s.container_allocated(&info, false).unwrap();
        m.started(s, s.containers().get(id).unwrap());
    }

    fn end(s: &mut ClusterState, m: &mut MapContainers, id: &str) {
        let c = s.container_released(id).unwrap();
        m.finished(&c);
    }

    #[test]
    fn a_heartbeat_sees_the_maps_that_ended_since_the_previous_one() {
        let mut s = cluster();
        let mut m = MapContainers::default();
        start(&mut s, &mut m, "c1", "a", "n1", 20);
        start(&mut s, &mut m, "c2", "a", "n2", 20);
        start(&mut s, &mut m, "r1", "b", "n1", 10);
        // The first heartbeat reads the state: nothing ended before it.
        assert!(m.heartbeat(&s).is_empty());
        let a = s.app_by_id("a").unwrap().arrival;
        let b = s.app_by_id("b").unwrap().arrival;
        assert_eq!(
            (m.running(a), m.running(b)),
            (2, 0),
            "reduces are not map slots"
        );
        end(&mut s, &mut m, "c1");
        end(&mut s, &mut m, "r1");
        // Started and ended between two heartbeats: never seen, so it freed nothing.
        start(&mut s, &mut m, "c3", "b", "n2", 20);
        end(&mut s, &mut m, "c3");
        start(&mut s, &mut m, "c4", "b", "n2", 20);
        assert_eq!(m.heartbeat(&s), vec![("n1".to_string(), a)]);
        assert_eq!((m.running(a), m.running(b)), (1, 1));
        assert!(m.heartbeat(&s).is_empty(), "an ended map is reported once");
        // A removed app takes its containers (and what it had ended) along.
        end(&mut s, &mut m, "c2");
        m.app_removed(a);
        s.remove_app("a");
        assert!(m.heartbeat(&s).is_empty());
        assert_eq!((m.running(a), m.running(b)), (0, 1));
    }
}
