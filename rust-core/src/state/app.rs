//! Applications as the core sees them, and what their containers are for.

use std::cmp::Reverse;
use std::collections::HashSet;

use crate::protocol::Resource;
use crate::state::ask::{AppAsks, SchedulerKey};

/// An application's arrival number: unique for the core's lifetime, never reused, so policies
/// can hold on to it across heartbeats while the app string id stays in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arrival(pub u64);

/// An application's place in the FIFO order that `fifo`, `capacity` (inside a queue) and the
/// FIFO tie-breaks of the other policies follow: higher YARN application priority first, then
/// earlier submission, then earlier arrival. CapacityScheduler's FIFO ordering policy compares
/// the same way (priority, then submission), so `yarn application -updatePriority` reorders
/// pending applications as an operator expects. A total order: arrivals are unique.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FifoKey {
    priority: Reverse<i32>,
    submit_ms: u64,
    pub arrival: Arrival,
}

/// What a container at a given priority is for. Only MapReduce's AM gives its priorities a
/// fixed meaning (RMContainerAllocator's PRIORITY_* constants); other frameworks' containers
/// are `Generic`, apart from their AM ([`App::kind_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskKind {
    /// Priority 0: the ApplicationMaster container (a non-MapReduce application's only while it
    /// holds nothing: [`App::kind_of`]).
    ApplicationMaster,
    /// Priority 5: a map re-run after a fetch failure.
    FastFailMap,
    /// Priority 10.
    Reduce,
    /// Priority 19: a map that may run as an opportunistic container.
    OpportunisticMap,
    /// Priority 20.
    Map,
    /// Any other priority, or a non-MapReduce application's container other than its AM.
    Generic,
}

impl TaskKind {
    pub fn classify(is_mapreduce: bool, priority: i32) -> TaskKind {
        if !is_mapreduce {
            return TaskKind::Generic;
        }
        match priority {
            0 => TaskKind::ApplicationMaster,
            5 => TaskKind::FastFailMap,
            10 => TaskKind::Reduce,
            19 => TaskKind::OpportunisticMap,
            20 => TaskKind::Map,
            _ => TaskKind::Generic,
        }
    }

    pub fn is_map(self) -> bool {
        matches!(
            self,
            TaskKind::Map | TaskKind::FastFailMap | TaskKind::OpportunisticMap
        )
    }

    /// Whether a locality technique may hold this kind of container back for a node nearer
    /// the data its asks name: any task (a MapReduce map, a Spark executor with preferred
    /// locations, a Tez task, a DistributedShell container placed on a host), as
    /// CapacityScheduler and FairScheduler delay every application's located asks. Not an AM:
    /// nothing of its job runs before it, and the AM share's "one may always start" must not
    /// wait behind a locality count. Not a MapReduce reduce: it reads every map's output, so
    /// no node holds its data (MapReduce asks for reduces at `*` only).
    pub fn waits_for_locality(self) -> bool {
        !matches!(self, TaskKind::ApplicationMaster | TaskKind::Reduce)
    }

    /// The slot pool a container of this kind counts against, if any.
    pub fn slot(self) -> Option<SlotKind> {
        if self.is_map() {
            Some(SlotKind::Map)
        } else if self == TaskKind::Reduce {
            Some(SlotKind::Reduce)
        } else {
            None
        }
    }
}

/// Hadoop 1's two slot pools, which a slot configurator may cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlotKind {
    Map,
    Reduce,
}

/// The priority the RM asks for every application's AM container at (`RMAppAttemptImpl`'s
/// `AM_CONTAINER_PRIORITY`), whatever the application's type.
pub const AM_PRIORITY: i32 = 0;

/// Places (host names and rack paths) one application's blacklist may hold in the core; the
/// shim sends no more (docs/operator/limits.md), and the core refuses a list over it.
pub const MAX_BLACKLIST_PLACES: usize = 4096;

/// The places the RM will not put an application's containers on, as its `AppSchedulingInfo`
/// holds them: the AM's own blacklist, or the system's while the AM container is awaited.
/// Hashed with std's keyed hasher: the names are the AM's choice.
#[derive(Debug, Clone, Default)]
pub struct Blacklist {
    places: HashSet<String>,
}

impl Blacklist {
    /// At most [`MAX_BLACKLIST_PLACES`] places, else the error names the count.
    pub fn new(places: Vec<String>) -> Result<Blacklist, String> {
        if places.len() > MAX_BLACKLIST_PLACES {
            return Err(format!(
                "{} blacklisted places, over the {MAX_BLACKLIST_PLACES} the core keeps per application",
                places.len()
            ));
        }
        Ok(Blacklist {
            places: places.into_iter().collect(),
        })
    }

    /// Whether a node on `host` in `rack` is blacklisted (the node itself or its rack).
    pub fn excludes(&self, host: &str, rack: &str) -> bool {
        !self.places.is_empty() && (self.places.contains(host) || self.places.contains(rack))
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }
}

/// True for app_type MAPREDUCE in any case, as YARN reports it.
pub fn is_mapreduce(app_type: &str) -> bool {
    app_type.eq_ignore_ascii_case("MAPREDUCE")
}

#[derive(Debug, Clone)]
pub struct App {
    /// YARN's application id, e.g. `application_1700000000000_0001`.
    pub id: String,
    pub arrival: Arrival,
    pub queue: String,
    pub user: String,
    pub name: String,
    pub app_type: String,
    pub tags: Vec<String>,
    pub submit_ms: u64,
    /// YARN's application priority (not a container priority): higher is served first among
    /// applications a policy keeps in FIFO order. Whatever the RM settled on at submission or
    /// at `updateApplicationPriority` (capped by the cluster's maximum there).
    pub priority: i32,
    pub is_mapreduce: bool,
    pub attempt: Option<String>,
    pub asks: AppAsks,
    /// Changes (to a value never used before) whenever `asks` may have changed, so a policy can
    /// keep what it derived from them until then.
    pub asks_version: u64,
    /// Resource of the containers the RM holds for the app.
    pub used: Resource,
    /// The part of `used` held by its ApplicationMaster containers.
    pub am_used: Resource,
    /// The part of `used` on labelled nodes, per partition (user limits per partition).
    pub used_by_partition: crate::state::queue::PartitionUse,
    pub running: u32,
    /// Nodes and racks the RM will not place the app on; the core decides none there.
    pub blacklist: Blacklist,
    /// The partitions (node labels) of its scheduler keys that ask for one; the others ask
    /// for the default partition.
    pub partitions: KeyPartitions,
    /// Offers each default-partition key has had since it last placed on a default-partition
    /// node (CapacityScheduler's missed non-partitioned opportunities): it borrows a
    /// non-exclusive partition's room only after a round of them (as many as the nodes it may
    /// run on and fits, `schedule::lend_threshold`). At most
    /// [`MAX_KEY_PARTITIONS`] keys; when full it starts over, which only delays a loan.
    pub lend_misses: std::collections::HashMap<SchedulerKey, u32>,
}

/// Scheduler keys the RM holds under a node label expression (its `*` row's, as
/// `AppSchedulingInfo` keeps it: the ask's own, else the application's, else the queue's
/// `default-node-label-expression`).
pub const MAX_KEY_PARTITIONS: usize = 4096;

/// The partition each labelled scheduler key of an application asks for; a key not listed
/// asks for the default partition (""). Replaced whole by `key_partitions`.
#[derive(Debug, Clone, Default)]
pub struct KeyPartitions {
    keys: Vec<(SchedulerKey, String)>,
}

impl KeyPartitions {
    /// At most [`MAX_KEY_PARTITIONS`] keys, else the error names the count. Entries naming the
    /// default partition are dropped; a key named twice keeps its last partition.
    pub fn new(entries: Vec<(SchedulerKey, String)>) -> Result<KeyPartitions, String> {
        if entries.len() > MAX_KEY_PARTITIONS {
            return Err(format!(
                "{} labelled scheduler keys, over the {MAX_KEY_PARTITIONS} the core keeps per application",
                entries.len()
            ));
        }
        let mut keys: Vec<(SchedulerKey, String)> = Vec::with_capacity(entries.len());
        for (key, partition) in entries {
            keys.retain(|(k, _)| *k != key);
            if !partition.is_empty() {
                keys.push((key, partition));
            }
        }
        keys.sort_by_key(|(k, _)| *k);
        Ok(KeyPartitions { keys })
    }

    /// The partition `key` asks for ("" for the default partition).
    pub fn of(&self, key: &SchedulerKey) -> &str {
        self.keys
            .binary_search_by_key(key, |(k, _)| *k)
            .map_or("", |i| self.keys[i].1.as_str())
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl App {
    /// Counts an offer to a default-partition key; returns the count.
    pub fn missed_default_offer(&mut self, key: SchedulerKey) -> u32 {
        if self.lend_misses.len() >= MAX_KEY_PARTITIONS && !self.lend_misses.contains_key(&key) {
            self.lend_misses.clear();
        }
        let n = self.lend_misses.entry(key).or_insert(0);
        *n = n.saturating_add(1);
        *n
    }

    /// What a container of `priority` is for. An application of any type that holds no container
    /// is waiting for its AM: the RM asks for every AM at [`AM_PRIORITY`], and nothing else can
    /// be asked before an AM runs. So a non-MapReduce application's first priority-0 container
    /// is its AM, held by the AM limits like MapReduce's, as CapacityScheduler holds every
    /// application's AM; its later ones are `Generic`.
    pub fn kind_of(&self, priority: i32) -> TaskKind {
        if !self.is_mapreduce && priority == AM_PRIORITY && self.running == 0 {
            return TaskKind::ApplicationMaster;
        }
        TaskKind::classify(self.is_mapreduce, priority)
    }

    pub fn fifo_key(&self) -> FifoKey {
        FifoKey {
            priority: Reverse(self.priority),
            submit_ms: self.submit_ms,
            arrival: self.arrival,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapreduce_priorities_are_classified() {
        assert!(is_mapreduce("mapreduce") && is_mapreduce("MAPREDUCE") && !is_mapreduce("SPARK"));
        assert_eq!(TaskKind::classify(true, 0), TaskKind::ApplicationMaster);
        assert_eq!(TaskKind::classify(true, 5), TaskKind::FastFailMap);
        assert_eq!(TaskKind::classify(true, 10), TaskKind::Reduce);
        assert_eq!(TaskKind::classify(true, 19), TaskKind::OpportunisticMap);
        assert_eq!(TaskKind::classify(true, 20), TaskKind::Map);
        assert_eq!(TaskKind::classify(true, 7), TaskKind::Generic);
        assert_eq!(TaskKind::classify(false, 20), TaskKind::Generic);
        assert_eq!(TaskKind::Map.slot(), Some(SlotKind::Map));
        assert_eq!(TaskKind::Reduce.slot(), Some(SlotKind::Reduce));
        assert_eq!(TaskKind::ApplicationMaster.slot(), None);
    }
}
