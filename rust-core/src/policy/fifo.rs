//! `fifo`: Hadoop's classic order. Applications by submit time (then arrival), each served in
//! full before the next is offered anything.

use super::JobPolicy;
use crate::state::app::Arrival;
use crate::state::node::Node;
use crate::state::ClusterState;

pub struct Fifo;

impl JobPolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn order(&mut self, state: &ClusterState, _node: &Node, _now_ms: u64) -> Vec<Arrival> {
        state
            .pending_apps_by_submission()
            .map(|a| a.arrival)
            .collect()
    }

    fn order_is_pending_by_submission(&self) -> bool {
        true
    }
}
