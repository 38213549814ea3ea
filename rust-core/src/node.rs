//! Cluster nodes (NodeManagers) as the core sees them.

use crate::names::NameId;
use crate::protocol::Resource;

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
}
