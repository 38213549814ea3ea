//! Cluster nodes (NodeManagers) as the core sees them.

use crate::protocol::Resource;
use crate::state::names::NameId;

#[derive(Debug, Clone)]
pub struct Node {
    /// YARN NodeId, `host:port`: what heartbeats and decisions name.
    pub id: String,
    /// The host name node-local asks use.
    pub host: String,
    /// The RM-resolved network location; rack asks use exactly this string.
    pub rack: String,
    /// `host` and `rack` interned, for the heartbeat's ask lookups.
    pub host_id: NameId,
    pub rack_id: NameId,
    pub datacenter: String,
    pub capability: Resource,
    /// As of the last heartbeat (the RM's truth); capability before the first one.
    pub unallocated: Resource,
    /// Resource of the containers the core knows run here.
    pub allocated: Resource,
    pub running: u32,
    pub last_heartbeat_ms: Option<u64>,
    /// The node heartbeated since an offer of it last walked the apps. A heartbeat is the
    /// scheduling opportunity (delay's misses, matchmaking's markers); it is taken by the first
    /// offer that can place anything, the heartbeat itself or, when that found the node full,
    /// the async sweep that finds the room freed after it (`schedule::assign`).
    pub opportunity: bool,
    /// The node's partition (its YARN node label); empty for the default partition.
    pub partition: String,
    /// Whether `partition` is exclusive: its room goes only to asks for it. A non-exclusive
    /// partition lends room its own asks leave idle to default-partition asks, as
    /// CapacityScheduler does (`schedule::assign`).
    pub exclusive: bool,
}

impl Node {
    /// In a non-exclusive partition: lends idle room to default-partition keys.
    pub fn lends(&self) -> bool {
        !self.partition.is_empty() && !self.exclusive
    }

    /// Whether a key asking for `partition` may run here: a labelled key only on its own
    /// partition's nodes; a default-partition key on any node but an exclusive partition's.
    pub fn serves(&self, partition: &str) -> bool {
        partition_serves(&self.partition, self.exclusive, partition)
    }
}

/// [`Node::serves`] for a node of `node_partition` (`exclusive` or not).
pub fn partition_serves(node_partition: &str, exclusive: bool, partition: &str) -> bool {
    if partition.is_empty() {
        !exclusive
    } else {
        node_partition == partition
    }
}
