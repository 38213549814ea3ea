//! The messages the shim and the core exchange. They are the one contract between the
//! ResourceManager side (Java) and the core; JNI carries them as JSON, the simulator and the
//! tests pass them as values. Field names are snake_case in JSON.
//!
//! The model follows YuniKorn's: per-entity messages (node, application, ask, container);
//! an ask is an allocation without a node; a decision names the node. The shim keeps the RM's
//! own bookkeeping and tells the core what changed in the same call, so the core never holds a
//! second copy that could drift for long: every heartbeat carries the node's real unallocated
//! resource, and ask updates carry absolute counts (a full snapshot, or just the changed rows).

use serde::{Deserialize, Serialize};

/// How many resource types beyond memory and vcores a [`Resource`] carries: YARN's countable
/// types from resource-types.xml (`yarn.io/gpu`, `yarn.io/fpga`, site-defined ones), indexed in
/// the order the RM's `ResourceUtils` lists them after memory and vcores. A fixed array keeps
/// `Resource` `Copy` and the same size whatever an application sends; the shim stops the RM at
/// start naming `yarn.resource-types` when more types are defined, and the frames refuse a
/// resource listing more.
pub const MAX_EXTRA_TYPES: usize = 4;

/// Memory, CPU and the extra resource types, as YARN's `Resource` (memory in MiB). A type a
/// node or an ask does not name counts 0; placement checks every type, so a container needing
/// a GPU goes only where one is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Resource {
    pub memory_mb: u64,
    pub vcores: u32,
    /// The extra types' amounts, in the order the shim announced them; written in JSON as
    /// `extra` without its trailing zeros, and left out when all are zero.
    #[serde(
        default,
        skip_serializing_if = "extra_types::none",
        with = "extra_types"
    )]
    pub extra: [u64; MAX_EXTRA_TYPES],
}

impl Resource {
    pub const ZERO: Resource = Resource {
        memory_mb: 0,
        vcores: 0,
        extra: [0; MAX_EXTRA_TYPES],
    };

    pub fn new(memory_mb: u64, vcores: u32) -> Self {
        Resource {
            memory_mb,
            vcores,
            extra: [0; MAX_EXTRA_TYPES],
        }
    }

    /// `new` with the extra types' amounts (at most [`MAX_EXTRA_TYPES`]; more are a caller's
    /// bug, refused by the decoders before they get here).
    pub fn with_extra(memory_mb: u64, vcores: u32, extra: &[u64]) -> Self {
        let mut r = Resource::new(memory_mb, vcores);
        for (slot, v) in r.extra.iter_mut().zip(extra) {
            *slot = *v;
        }
        r
    }

    /// The extra types up to the last one not zero: what crosses the wire.
    pub fn extra_used(&self) -> &[u64] {
        let n = self
            .extra
            .iter()
            .rposition(|&v| v != 0)
            .map_or(0, |i| i + 1);
        &self.extra[..n]
    }

    /// True when `other` fits inside `self` in every type.
    pub fn fits(&self, other: &Resource) -> bool {
        other.memory_mb <= self.memory_mb
            && other.vcores <= self.vcores
            && self.extra.iter().zip(&other.extra).all(|(s, o)| o <= s)
    }

    pub fn saturating_sub(&self, other: &Resource) -> Resource {
        let mut extra = self.extra;
        for (e, o) in extra.iter_mut().zip(&other.extra) {
            *e = e.saturating_sub(*o);
        }
        Resource {
            memory_mb: self.memory_mb.saturating_sub(other.memory_mb),
            vcores: self.vcores.saturating_sub(other.vcores),
            extra,
        }
    }

    /// Saturating: sizes come from applications and node reports, and a sum that panicked
    /// (debug) or wrapped to a small number (release) would take the RM down or overcommit it.
    pub fn add(&self, other: &Resource) -> Resource {
        let mut extra = self.extra;
        for (e, o) in extra.iter_mut().zip(&other.extra) {
            *e = e.saturating_add(*o);
        }
        Resource {
            memory_mb: self.memory_mb.saturating_add(other.memory_mb),
            vcores: self.vcores.saturating_add(other.vcores),
            extra,
        }
    }

    /// `self` times `n`, saturating (a decision's containers together).
    pub fn times(&self, n: u64) -> Resource {
        let mut extra = self.extra;
        for e in extra.iter_mut() {
            *e = e.saturating_mul(n);
        }
        Resource {
            memory_mb: self.memory_mb.saturating_mul(n),
            vcores: self.vcores.saturating_mul(n.min(u32::MAX as u64) as u32),
            extra,
        }
    }

    /// How many containers of size `each` fit in `self` (0 for a zero-sized `each`, which YARN
    /// normalises away before it reaches a scheduler).
    pub fn count_fitting(&self, each: &Resource) -> u32 {
        if each.memory_mb == 0 && each.vcores == 0 && each.extra_used().is_empty() {
            return 0;
        }
        // A zero dimension does not limit the count.
        let by_mem = self
            .memory_mb
            .checked_div(each.memory_mb)
            .unwrap_or(u64::MAX);
        let by_cpu = self
            .vcores
            .checked_div(each.vcores)
            .map_or(u64::MAX, u64::from);
        let by_extra = self
            .extra
            .iter()
            .zip(&each.extra)
            .map(|(s, e)| s.checked_div(*e).unwrap_or(u64::MAX))
            .min()
            .unwrap_or(u64::MAX);
        by_mem.min(by_cpu).min(by_extra).min(u32::MAX as u64) as u32
    }
}

/// `Resource::extra` in JSON: an array without trailing zeros, at most [`MAX_EXTRA_TYPES`]
/// long (a longer one is refused, naming the bound).
mod extra_types {
    use super::MAX_EXTRA_TYPES;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn none(extra: &[u64; MAX_EXTRA_TYPES]) -> bool {
        extra.iter().all(|&v| v == 0)
    }

    pub fn serialize<S: Serializer>(
        extra: &[u64; MAX_EXTRA_TYPES],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let n = extra.iter().rposition(|&v| v != 0).map_or(0, |i| i + 1);
        s.collect_seq(&extra[..n])
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<[u64; MAX_EXTRA_TYPES], D::Error> {
        let v = Vec::<u64>::deserialize(d)?;
        if v.len() > MAX_EXTRA_TYPES {
            return Err(serde::de::Error::custom(format!(
                "extra lists {} resource types; at most {MAX_EXTRA_TYPES} beyond memory and vcores",
                v.len()
            )));
        }
        let mut out = [0; MAX_EXTRA_TYPES];
        out[..v.len()].copy_from_slice(&v);
        Ok(out)
    }
}

/// YARN's locality levels (`NodeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Locality {
    NodeLocal,
    RackLocal,
    OffSwitch,
}

/// One row of an application's outstanding asks, exactly as YARN's `ResourceRequest` reports it:
/// `resource_name` is a host name, a rack (network location, e.g. `/dc1/rack2`) or `*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ask {
    pub priority: i32,
    /// YARN's allocation request id (0 for the MapReduce AM); part of the scheduler key.
    #[serde(default)]
    pub allocation_request_id: i64,
    pub resource_name: String,
    pub capability: Resource,
    pub count: u32,
    #[serde(default = "default_true")]
    pub relax_locality: bool,
}

fn default_true() -> bool {
    true
}

/// An [`Ask`] whose resource name is borrowed: from a binary asks frame's bytes, or from an
/// owned `Ask`. The core checks and applies rows in this form, so a 5,000-row frame costs no
/// `String` per row; only a name the core must keep (a host no node has carried yet) is copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskRef<'a> {
    pub priority: i32,
    pub allocation_request_id: i64,
    pub resource_name: &'a str,
    pub capability: Resource,
    pub count: u32,
    pub relax_locality: bool,
    /// The name as the id the core published for it (a numbered row of an asks frame:
    /// `resource_name` is then empty); [`AskRef::BY_NAME`] for a row that names it in text. A
    /// plain `u32`, not an `Option`: that kept the row at 56 bytes, and a 5,000-row frame's
    /// rows by name were measurably slower to check at 64 (benches/asks_frame.rs).
    pub name_id: u32,
}

impl Ask {
    pub fn view(&self) -> AskRef<'_> {
        AskRef {
            priority: self.priority,
            allocation_request_id: self.allocation_request_id,
            resource_name: &self.resource_name,
            capability: self.capability,
            count: self.count,
            relax_locality: self.relax_locality,
            name_id: AskRef::BY_NAME,
        }
    }
}

impl AskRef<'_> {
    /// `name_id` of a row that names its resource in text (no id is ever this).
    pub const BY_NAME: u32 = u32::MAX;

    /// The id the row names its resource by, if it is a numbered row.
    pub fn numbered(&self) -> Option<u32> {
        (self.name_id != Self::BY_NAME).then_some(self.name_id)
    }

    pub fn to_ask(&self) -> Ask {
        Ask {
            priority: self.priority,
            allocation_request_id: self.allocation_request_id,
            resource_name: self.resource_name.to_string(),
            capability: self.capability,
            count: self.count,
            relax_locality: self.relax_locality,
        }
    }
}

/// One scheduler key's partition in a [`Event::KeyPartitions`] list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyPartition {
    pub priority: i32,
    #[serde(default)]
    pub allocation_request_id: i64,
    pub partition: String,
}

/// A container the RM holds for an application.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerInfo {
    pub container: String,
    pub app: String,
    pub node: String,
    pub priority: i32,
    pub resource: Resource,
}

/// Everything except heartbeats. Tagged with `"type"` in JSON, e.g.
/// `{"type":"node_added","node":"h1:8041","host":"h1","rack":"/rack1","capability":{...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// `node` is the NodeId (`host:port`); `rack` the RM-resolved network location.
    NodeAdded {
        node: String,
        host: String,
        rack: String,
        capability: Resource,
    },
    NodeRemoved {
        node: String,
    },
    NodeResourceUpdated {
        node: String,
        capability: Resource,
    },
    /// The node's partition (YARN node label; empty: the default partition) and whether that
    /// partition is exclusive, after `node_added` for a labelled node and whenever the RM's
    /// labels change (`rmadmin -replaceLabelsOnNode`). A node never named here is in the
    /// default partition.
    NodePartition {
        node: String,
        partition: String,
        #[serde(default)]
        exclusive: bool,
    },
    AppAdded {
        app: String,
        queue: String,
        user: String,
        #[serde(default)]
        name: String,
        /// `MAPREDUCE`, `SPARK`, `TEZ`, `YARN`, ...; MapReduce priorities are only trusted for
        /// applications of type MAPREDUCE.
        #[serde(default)]
        app_type: String,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default)]
        submit_ms: u64,
        /// YARN's application priority as the RM settled it at submission
        /// (`checkAndGetApplicationPriority`): higher is served first among the apps a policy
        /// keeps in FIFO order. 0, YARN's default, when absent.
        #[serde(default)]
        priority: i32,
        /// Re-added after an RM restart or in a core rebuild: admitted before, so a queue that
        /// is now STOPPED or full does not refuse it (CapacityScheduler recovers such apps too).
        #[serde(default)]
        recovered: bool,
    },
    /// `yarn application -updatePriority`: the app takes its new place in the FIFO order at
    /// the next heartbeat.
    AppPriorityChanged {
        app: String,
        priority: i32,
    },
    /// moveApplication: the app and what it holds (used, AM used, running containers) now count
    /// in `queue`; its outstanding asks are served as the new queue's.
    AppMoved {
        app: String,
        queue: String,
    },
    /// The places (host names, rack paths) the RM will not put `app`'s containers on, as its
    /// `AppSchedulingInfo` holds them now (the AM's blacklist, or the system's while the AM
    /// container is awaited); replaces the previous list. At most
    /// [`crate::state::app::MAX_BLACKLIST_PLACES`]; refused (the previous list stays) when longer.
    AppBlacklist {
        app: String,
        places: Vec<String>,
    },
    AppRemoved {
        app: String,
    },
    /// The scheduler keys of `app` whose asks want a partition other than the default one,
    /// as the RM holds them (the label expression of the key's `*` row); replaces the previous
    /// list, keys not named want the default partition. At most
    /// [`crate::state::app::MAX_KEY_PARTITIONS`]; refused (the previous list stays) when longer.
    KeyPartitions {
        app: String,
        keys: Vec<KeyPartition>,
    },
    AttemptAdded {
        app: String,
        attempt: String,
    },
    /// The attempt's asks are gone; its containers are released through `ContainerReleased`.
    AttemptRemoved {
        app: String,
        attempt: String,
    },
    /// Full snapshot of the application's outstanding asks (rows with count 0 may be omitted).
    AsksUpdated {
        app: String,
        asks: Vec<Ask>,
    },
    /// Only the rows that changed, as YARN's allocate call sends them: each row SETS the
    /// outstanding count at (priority, allocation_request_id, resource_name), count 0 removes
    /// the row, rows not named keep theirs. Absolute values, so a repeated row cannot drift.
    AsksChanged {
        app: String,
        asks: Vec<Ask>,
    },
    /// The digest of the RM's asks for `app` (see `digest`), sent after each change and after
    /// executed decisions. The core compares it with its own (decisions not yet executed added
    /// back); a mismatch names the app in the answer to the `events` call, and the shim then
    /// sends an `asks_updated` snapshot. Signed because Java's `long` carries it.
    AsksDigest {
        app: String,
        digest: i64,
    },
    /// A container the RM created, either from a core decision or recovered after an RM restart.
    ContainerAllocated {
        #[serde(flatten)]
        container: ContainerInfo,
        locality: Locality,
        /// The allocation request id of the ask the container was made for (YARN's
        /// `Container.getAllocationRequestId`); with the priority it names the scheduler key,
        /// so the core confirms the decision of that key and not another one at the priority.
        #[serde(default)]
        allocation_request_id: i64,
        /// True when the RM recovered it from a NodeManager report after a restart.
        #[serde(default)]
        recovered: bool,
    },
    /// Completed, killed, expired or released: the resource is free again.
    ContainerReleased {
        app: String,
        container: String,
        node: String,
        resource: Resource,
    },
    /// The shim could not execute (part of) a decision; `executed` containers were created.
    DecisionRejected {
        decision: Decision,
        executed: u32,
        reason: String,
    },
}

impl Event {
    /// The event's `type` tag as it appears in JSON, for messages naming a refused event.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::NodeAdded { .. } => "node_added",
            Event::NodeRemoved { .. } => "node_removed",
            Event::NodeResourceUpdated { .. } => "node_resource_updated",
            Event::AppAdded { .. } => "app_added",
            Event::AppPriorityChanged { .. } => "app_priority_changed",
            Event::AppMoved { .. } => "app_moved",
            Event::AppBlacklist { .. } => "app_blacklist",
            Event::AppRemoved { .. } => "app_removed",
            Event::NodePartition { .. } => "node_partition",
            Event::KeyPartitions { .. } => "key_partitions",
            Event::AttemptAdded { .. } => "attempt_added",
            Event::AttemptRemoved { .. } => "attempt_removed",
            Event::AsksUpdated { .. } => "asks_updated",
            Event::AsksChanged { .. } => "asks_changed",
            Event::AsksDigest { .. } => "asks_digest",
            Event::ContainerAllocated { .. } => "container_allocated",
            Event::ContainerReleased { .. } => "container_released",
            Event::DecisionRejected { .. } => "decision_rejected",
        }
    }
}

/// A node heartbeat: the node's real unallocated resource after the RM processed the
/// heartbeat's container statuses. `now_ms` is the RM clock (simulated time in the simulator).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    pub node: String,
    pub unallocated: Resource,
    pub now_ms: u64,
    /// True for an extra offer of the node by an asynchronous sweep (`locus.scheduling.mode`
    /// `async`), false for the node's own heartbeat. The node is decided the same way either
    /// way, but only a heartbeat is a *scheduling opportunity* for the locality layers: delay
    /// scheduling's and matchmaking's waits are counted in heartbeats (one per node per
    /// interval), so a sweep that offers every node every few milliseconds must not run them
    /// down (docs/results/default-policy.md, "Delay under async scheduling").
    #[serde(default)]
    pub sweep: bool,
    /// True (with `sweep`) for a sweep's offer under `heartbeat` mode: it places only the keys
    /// that gain nothing from waiting for a heartbeat, those that name no host or rack (an AM,
    /// a reduce, an executor without preferences) and those the locality wait already let go
    /// anywhere. Such a key would take the next heartbeat of any node with room anyway; the
    /// keys still waiting for their data are left to the heartbeats that count their wait.
    #[serde(default)]
    pub eager: bool,
}

/// "Give `app` up to `count` containers of `capability` for the ask at (`priority`,
/// `resource_name`) on `node`." The shim validates it against the node's unallocated resource
/// and the app's outstanding asks before executing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub app: String,
    pub priority: i32,
    #[serde(default)]
    pub allocation_request_id: i64,
    pub resource_name: String,
    pub node: String,
    pub locality: Locality,
    pub count: u32,
    pub capability: Resource,
    /// The queue limits the decision was made under, for the shim to re-check at commit
    /// (`None`: the policy keeps none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<CommitLimits>,
}

/// The memory ceilings a decision was made under, as the policy computed them for its
/// heartbeat: the shim commits a container only while the leaf, each ancestor and the user
/// hold no more than these with it (the user, as CapacityScheduler's `LeafQueue.accept`: no
/// more than the limit before it). Absolute megabytes; `None` is no ceiling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitLimits {
    pub queue_max_mb: Option<u64>,
    /// The parent queues below root, the leaf's parent first.
    #[serde(default)]
    pub ancestor_max_mb: Vec<u64>,
    pub user_limit_mb: Option<u64>,
    /// Under `DominantResourceCalculator`, the maxima in the other types: [`TYPE_STRIDE`]
    /// figures (vcores, then each extra type) for the leaf, then as many for each ancestor of
    /// `ancestor_max_mb` in its order, at most [`MAX_TYPE_MAXIMA`] figures (the deepest
    /// ancestors past that are re-checked in memory only). Empty: memory only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub type_maxima: Vec<u64>,
}

/// Figures per queue in [`CommitLimits::type_maxima`]: vcores and the extra types.
pub const TYPE_STRIDE: usize = 1 + MAX_EXTRA_TYPES;
/// The most figures [`CommitLimits::type_maxima`] holds (a `list8_i64` in the frame): whole
/// queues only.
pub const MAX_TYPE_MAXIMA: usize = 255 / TYPE_STRIDE * TYPE_STRIDE;

/// What a heartbeat returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeartbeatResponse {
    pub decisions: Vec<Decision>,
}

/// A node of an offers batch the core could not decide for (an unknown node), with why. The
/// other nodes of the batch are decided as usual.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedOffer {
    pub node: String,
    pub reason: String,
}

/// What an offers batch (`offers::decode`) returns: every offered node's decisions, in the
/// order the nodes were offered, and the nodes refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OffersResponse {
    pub decisions: Vec<Decision>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedOffer>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes come from applications and node reports: a sum of two must not panic (debug) or
    /// wrap to a small number (release).
    #[test]
    fn sums_of_huge_resources_saturate() {
        let huge = Resource::new(u64::MAX - 1, u32::MAX - 1);
        assert_eq!(
            huge.add(&Resource::new(10, 10)),
            Resource::new(u64::MAX, u32::MAX)
        );
        assert_eq!(
            Resource::new(1, 2).add(&Resource::new(3, 4)),
            Resource::new(4, 6)
        );
    }

    /// A node without the type holds no container that needs it, and the count of containers
    /// that fit is bounded by every type.
    #[test]
    fn extra_types_take_part_in_fit_and_count() {
        let gpu_node = Resource::with_extra(8192, 8, &[2]);
        let plain_node = Resource::new(8192, 8);
        let gpu_ask = Resource::with_extra(1024, 1, &[1]);
        assert!(gpu_node.fits(&gpu_ask));
        assert!(!plain_node.fits(&gpu_ask));
        assert_eq!(gpu_node.count_fitting(&gpu_ask), 2);
        assert_eq!(plain_node.count_fitting(&gpu_ask), 0);
        assert_eq!(gpu_node.saturating_sub(&gpu_ask).extra_used(), &[1]);
        assert_eq!(gpu_ask.times(3).extra_used(), &[3]);
    }

    /// JSON without extra types is what it was; with them, `extra` lists them up to the last
    /// one not zero, and a list longer than the bound is refused.
    #[test]
    fn extra_types_in_json() {
        let plain = serde_json::to_string(&Resource::new(1, 2)).unwrap();
        assert_eq!(plain, r#"{"memory_mb":1,"vcores":2}"#);
        let gpu = Resource::with_extra(1, 2, &[0, 3]);
        let text = serde_json::to_string(&gpu).unwrap();
        assert_eq!(text, r#"{"memory_mb":1,"vcores":2,"extra":[0,3]}"#);
        assert_eq!(serde_json::from_str::<Resource>(&text).unwrap(), gpu);
        let err =
            serde_json::from_str::<Resource>(r#"{"memory_mb":1,"vcores":2,"extra":[1,1,1,1,1]}"#)
                .unwrap_err()
                .to_string();
        assert!(err.contains("at most 4"), "{err}");
    }
}
