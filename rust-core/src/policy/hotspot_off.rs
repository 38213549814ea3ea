//! `off`: no hotspot guard; a node takes whatever fits.

use super::HotspotGuard;
use crate::protocol::Locality;
use crate::state::app::{App, TaskKind};
use crate::state::node::Node;
use crate::state::ClusterState;

pub struct NoHotspotGuard;

impl HotspotGuard for NoHotspotGuard {
    fn name(&self) -> &'static str {
        "off"
    }

    fn admit(&mut self, _: &ClusterState, _: &Node, _: &App, _: TaskKind, _: Locality) -> u32 {
        u32::MAX
    }
}
