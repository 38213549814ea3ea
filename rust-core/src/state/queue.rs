//! Queues by name. FIFO treats the cluster as one logical queue; the names are still tracked so
//! usage can be reported per queue and later job policies (fair) can share between them.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::protocol::Resource;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Queue {
    pub apps: u32,
    pub used: Resource,
    pub running: u32,
    /// The part of `used` held by ApplicationMaster containers (a queue's AM bound).
    pub am_used: Resource,
    /// The part of `used` on labelled nodes, per partition (the node's partition, as
    /// CapacityScheduler charges a container, a lent one included): one entry per partition
    /// the queue holds something in, so at most the cluster's partitions.
    #[serde(skip)]
    pub by_partition: PartitionUse,
}

/// Resource held per node partition (labelled ones only; the default partition's is the
/// rest). A few entries: at most the partitions the cluster's nodes are in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartitionUse(Vec<(String, Resource)>);

impl PartitionUse {
    pub fn get(&self, partition: &str) -> Resource {
        self.0
            .iter()
            .find(|(p, _)| p == partition)
            .map_or(Resource::ZERO, |(_, r)| *r)
    }

    pub fn add(&mut self, partition: &str, r: &Resource) {
        if partition.is_empty() {
            return;
        }
        match self.0.iter_mut().find(|(p, _)| p == partition) {
            Some((_, u)) => *u = crate::state::plus(*u, r),
            None => self.0.push((partition.to_string(), *r)),
        }
    }

    pub fn sub(&mut self, partition: &str, r: &Resource) {
        if let Some(i) = self.0.iter().position(|(p, _)| p == partition) {
            let left = self.0[i].1.saturating_sub(r);
            if left == Resource::ZERO {
                self.0.swap_remove(i);
            } else {
                self.0[i].1 = left;
            }
        }
    }

    /// What is held on labelled nodes, every partition together.
    pub fn total(&self) -> Resource {
        self.0
            .iter()
            .fold(Resource::ZERO, |sum, (_, r)| crate::state::plus(sum, r))
    }

    /// The part of `used` (which this splits) held in `partition`: for the default partition
    /// (""), what is not on a labelled node.
    pub fn of(&self, used: &Resource, partition: &str) -> Resource {
        if partition.is_empty() {
            used.saturating_sub(&self.total())
        } else {
            self.get(partition)
        }
    }

    pub fn add_all(&mut self, other: &PartitionUse) {
        for (p, r) in &other.0 {
            self.add(p, r);
        }
    }

    pub fn sub_all(&mut self, other: &PartitionUse) {
        for (p, r) in &other.0 {
            self.sub(p, r);
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Queues {
    by_name: BTreeMap<String, Queue>,
}

impl Queues {
    pub fn get(&self, name: &str) -> Option<&Queue> {
        self.by_name.get(name)
    }

    pub fn app_joined(&mut self, name: &str) {
        self.by_name.entry(name.to_string()).or_default().apps += 1;
    }

    /// Forgets the queue once it has no apps, so the count reflects live queues.
    pub fn app_left(&mut self, name: &str) {
        if let Some(q) = self.by_name.get_mut(name) {
            q.apps = q.apps.saturating_sub(1);
            if q.apps == 0 && q.running == 0 {
                self.by_name.remove(name);
            }
        }
    }

    /// An application filed again under another queue (a re-added app, CapacityScheduler's
    /// moveApplication): what it holds moves with it, or the old queue would keep phantom usage
    /// forever and the new one could grow past its maximum-capacity.
    pub fn app_moved(
        &mut self,
        from: &str,
        to: &str,
        used: &Resource,
        am_used: &Resource,
        running: u32,
        by_partition: &PartitionUse,
    ) {
        let q = self.by_name.entry(to.to_string()).or_default();
        q.apps += 1;
        q.by_partition.add_all(by_partition);
        q.used = crate::state::plus(q.used, used);
        q.am_used = crate::state::plus(q.am_used, am_used);
        q.running += running;
        if let Some(q) = self.by_name.get_mut(from) {
            q.by_partition.sub_all(by_partition);
            q.used = q.used.saturating_sub(used);
            q.am_used = q.am_used.saturating_sub(am_used);
            q.running = q.running.saturating_sub(running);
        }
        self.app_left(from);
    }

    pub fn container_started(&mut self, name: &str, r: &Resource, am: bool, partition: &str) {
        let q = self.by_name.entry(name.to_string()).or_default();
        q.by_partition.add(partition, r);
        q.used = crate::state::plus(q.used, r);
        if am {
            q.am_used = crate::state::plus(q.am_used, r);
        }
        q.running += 1;
    }

    pub fn container_finished(&mut self, name: &str, r: &Resource, am: bool, partition: &str) {
        if let Some(q) = self.by_name.get_mut(name) {
            q.by_partition.sub(partition, r);
            q.used = q.used.saturating_sub(r);
            if am {
                q.am_used = q.am_used.saturating_sub(r);
            }
            q.running = q.running.saturating_sub(1);
            if q.apps == 0 && q.running == 0 {
                self.by_name.remove(name);
            }
        }
    }

    /// A node holding `r` for the queue moved from partition `from` to `to`
    /// (`rmadmin -replaceLabelsOnNode`): CapacityScheduler moves its containers' usage too.
    pub fn container_relabelled(&mut self, name: &str, r: &Resource, from: &str, to: &str) {
        if let Some(q) = self.by_name.get_mut(name) {
            q.by_partition.sub(from, r);
            q.by_partition.add(to, r);
        }
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Queue)> {
        self.by_name.iter().map(|(n, q)| (n.as_str(), q))
    }
}
