//! `delay`: delay scheduling (Zaharia et al., EuroSys 2010) with the thresholds FairScheduler
//! ships (`yarn.scheduler.fair.locality.threshold.node` / `.rack`): a threshold is a *fraction
//! of the cluster size*, and a map key that has been offered `threshold × nodes` nodes in a row
//! without getting a container at its allowed level may relax one level (node → rack → any).
//!
//! As in FairScheduler's FSAppAttempt, the wait is per application and scheduler key; a container
//! at node or rack level sets the allowed level back to the level it got and restarts the count;
//! the count restarts when a level is relaxed, so rack → any needs the rack threshold's misses on
//! top of the node threshold's. Threshold 0 means no wait at that level.

use std::collections::HashMap;

use super::LocalityTechnique;
use crate::app::{App, Arrival};
use crate::ask::{AskTable, SchedulerKey};
use crate::node::Node;
use crate::protocol::Locality;
use crate::state::ClusterState;

#[derive(Debug, Clone, Copy)]
struct Wait {
    level: Locality,
    missed: u64,
}

pub struct DelayScheduling {
    node_threshold: f64,
    rack_threshold: f64,
    nodes: usize,
    waits: HashMap<(Arrival, SchedulerKey), Wait>,
}

impl DelayScheduling {
    pub fn new(node_threshold: f64, rack_threshold: f64) -> Self {
        DelayScheduling {
            node_threshold,
            rack_threshold,
            nodes: 0,
            waits: HashMap::new(),
        }
    }

    fn limit(&self, threshold: f64) -> u64 {
        (threshold * self.nodes as f64).ceil() as u64
    }
}

impl LocalityTechnique for DelayScheduling {
    fn name(&self) -> &'static str {
        "delay"
    }

    fn heartbeat(&mut self, state: &ClusterState, _: &Node, _: &[Arrival], _: u64) {
        self.nodes = state.node_count();
    }

    fn allowed(
        &mut self,
        app: &App,
        key: SchedulerKey,
        _: &AskTable,
        _: &Node,
        _: u64,
    ) -> Locality {
        let node_limit = self.limit(self.node_threshold);
        let rack_limit = self.limit(self.rack_threshold);
        let w = self.waits.entry((app.arrival, key)).or_insert(Wait {
            level: Locality::NodeLocal,
            missed: 0,
        });
        if w.level == Locality::NodeLocal && w.missed >= node_limit {
            w.level = Locality::RackLocal;
            w.missed = 0;
        }
        if w.level == Locality::RackLocal && w.missed >= rack_limit {
            w.level = Locality::OffSwitch;
            w.missed = 0;
        }
        w.level
    }

    fn offered(
        &mut self,
        app: Arrival,
        key: SchedulerKey,
        _: &Node,
        got: Option<Locality>,
        _: u64,
    ) {
        let Some(w) = self.waits.get_mut(&(app, key)) else {
            return;
        };
        match got {
            None => w.missed += 1,
            Some(Locality::OffSwitch) => w.missed = 0,
            Some(level) => {
                w.level = level;
                w.missed = 0;
            }
        }
    }

    fn app_removed(&mut self, app: Arrival) {
        self.waits.retain(|(a, _), _| *a != app);
    }
}
