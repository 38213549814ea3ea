//! The simulated cluster: nodes with resources, racks and datacenters, named as the RM would
//! name them so the core sees the same strings it sees behind a real ResourceManager.

use locus_core::Resource;

/// How far apart two nodes are, as HDFS's network topology ranks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distance {
    Node,
    Rack,
    Datacenter,
    Remote,
}

impl Distance {
    pub const ALL: [Distance; 4] = [
        Distance::Node,
        Distance::Rack,
        Distance::Datacenter,
        Distance::Remote,
    ];

    pub fn index(self) -> usize {
        self as usize
    }
}

#[derive(Debug, Clone)]
pub struct NodeSpec {
    pub host: String,
    pub rack: usize,
    pub capability: Resource,
}

#[derive(Debug, Clone)]
pub struct RackSpec {
    /// The RM's network location: `/rack01`, or `/dc1/rack01` with several datacenters.
    pub name: String,
    pub dc: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Cluster {
    pub nodes: Vec<NodeSpec>,
    pub racks: Vec<RackSpec>,
    pub dc_count: usize,
    pub rack_nodes: Vec<Vec<usize>>,
}

impl Cluster {
    /// `nodes` spread evenly over `racks`, racks spread evenly over `dcs` (rack r in dc r*dcs/racks).
    pub fn uniform(
        nodes: usize,
        racks: usize,
        dcs: usize,
        capability: Resource,
    ) -> Result<Cluster, String> {
        if nodes == 0 {
            return Err("--nodes must be at least 1".into());
        }
        if racks == 0 || racks > nodes {
            return Err(format!(
                "--racks {racks} must be between 1 and the node count {nodes}"
            ));
        }
        if dcs == 0 || dcs > racks {
            return Err(format!(
                "--datacenters {dcs} must be between 1 and the rack count {racks}"
            ));
        }
        if capability.memory_mb == 0 || capability.vcores == 0 {
            return Err("--node-memory-mb and --node-vcores must be positive".into());
        }
        let width = nodes.to_string().len().max(3);
        let mut c = Cluster {
            dc_count: dcs,
            ..Default::default()
        };
        for r in 0..racks {
            let dc = r * dcs / racks;
            let name = if dcs > 1 {
                format!("/dc{}/rack{:02}", dc + 1, r + 1)
            } else {
                format!("/rack{:02}", r + 1)
            };
            c.racks.push(RackSpec { name, dc });
            c.rack_nodes.push(Vec::new());
        }
        for i in 0..nodes {
            let rack = i * racks / nodes;
            c.nodes.push(NodeSpec {
                host: format!("node{:0width$}", i + 1),
                rack,
                capability,
            });
            c.rack_nodes[rack].push(i);
        }
        Ok(c)
    }

    /// From `(network location, host)` pairs, as an SLS trace or a topology file names them.
    /// A location with two components (`/dc1/rack1`) names the datacenter.
    pub fn from_locations(
        hosts: &[(String, String)],
        capability: Resource,
    ) -> Result<Cluster, String> {
        let mut c = Cluster::default();
        let mut dcs: Vec<String> = Vec::new();
        for (loc, host) in hosts {
            if host.is_empty() || !loc.starts_with('/') {
                return Err(format!(
                    "bad node location {loc:?} for host {host:?}: expected /rack or /dc/rack"
                ));
            }
            let parts: Vec<&str> = loc.trim_start_matches('/').split('/').collect();
            let dc_name = if parts.len() >= 2 {
                parts[0].to_string()
            } else {
                String::new()
            };
            let dc = match dcs.iter().position(|d| *d == dc_name) {
                Some(i) => i,
                None => {
                    dcs.push(dc_name);
                    dcs.len() - 1
                }
            };
            let rack = match c.racks.iter().position(|r| r.name == *loc) {
                Some(i) => i,
                None => {
                    c.racks.push(RackSpec {
                        name: loc.clone(),
                        dc,
                    });
                    c.rack_nodes.push(Vec::new());
                    c.racks.len() - 1
                }
            };
            if c.nodes.iter().any(|n| n.host == *host) {
                continue;
            }
            c.rack_nodes[rack].push(c.nodes.len());
            c.nodes.push(NodeSpec {
                host: host.clone(),
                rack,
                capability,
            });
        }
        c.dc_count = dcs.len().max(1);
        if c.nodes.is_empty() {
            return Err("no nodes".into());
        }
        Ok(c)
    }

    pub fn node_id(&self, n: usize) -> String {
        format!("{}:8041", self.nodes[n].host)
    }

    pub fn rack_of(&self, n: usize) -> usize {
        self.nodes[n].rack
    }

    pub fn dc_of(&self, n: usize) -> usize {
        self.racks[self.nodes[n].rack].dc
    }

    pub fn distance(&self, a: usize, b: usize) -> Distance {
        if a == b {
            Distance::Node
        } else if self.rack_of(a) == self.rack_of(b) {
            Distance::Rack
        } else if self.dc_of(a) == self.dc_of(b) {
            Distance::Datacenter
        } else {
            Distance::Remote
        }
    }
}
