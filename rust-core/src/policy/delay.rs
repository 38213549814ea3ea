//! `delay`: delay scheduling (Zaharia et al., EuroSys 2010) with the thresholds FairScheduler
//! ships (`yarn.scheduler.fair.locality.threshold.node` / `.rack`): a threshold is a *fraction
//! of the cluster size*, and a key that has been offered `threshold × nodes` nodes in a row
//! without getting a container at its allowed level may relax one level (node → rack → any).
//! As in both Hadoop schedulers, that is any application's task key whose asks name a host or
//! rack (a MapReduce map, a Spark executor with preferred locations, a DistributedShell
//! placement: [`super::locality_applies`]), not only MapReduce maps; the papers say "map" for
//! the task whose data it waits for.
//!
//! As in FairScheduler's FSAppAttempt, the wait is per application and scheduler key; a container
//! at node or rack level sets the allowed level back to the level it got and restarts the count;
//! the count restarts when a level is relaxed, so rack → any needs the rack threshold's misses on
//! top of the node threshold's. Threshold 0 means no wait at that level.
//!
//! **Room left idle.** Zaharia et al.'s case for the wait is that it costs the cluster almost
//! nothing: the node a job skips goes to another job meanwhile, and a node holding the job's
//! data frees a slot soon. Restarting the count at every container (the paper's `skipcount =
//! 0` on a local launch, FSAppAttempt's reset) rests on both. It fails when the key's data hosts
//! are full and free one container at a time while other nodes report room nobody takes: each
//! container restarts the count before it reaches the threshold, so the key runs only where its
//! data is while the rest of the cluster idles, for as long as its data hosts have work (the
//! end of a saturated SLS run: docs/results/sls.md "the saturating scale's lost throughput was room idling at the tail"). So a miss on a node whose room went
//! unused at its previous heartbeat and, fitting the key, is still unused at the end of this
//! one, with no offer in between placing anything there or finding the node full (nobody in
//! the order took it for a whole interval, under `async` sweeps included), also counts apart, and a container
//! does not restart that count: the key relaxes after the threshold of misses in a row or after
//! the threshold of such idle misses since its level last changed, whichever comes first.
//! "Two heartbeats in a row" is the Matchmaking paper's rule for the same waste (a node that
//! found no local task a whole heartbeat interval later takes a non-local one, "to avoid
//! wasting computing resources"): room idle at one heartbeat only may be taken at the next by
//! a key whose data is there. Skipped room another job takes is the paper's case and waits as
//! before; the threshold is the same number of scheduling opportunities, so no setting is
//! added. Spark made the same correction to its delay scheduling (SPARK-18886, Spark 3.1: the
//! locality wait restarts on a launch only if the task set declined no offered resources).
//!
//! For the same reason a container does not set a relaxed key's level back while the key is
//! still declining room that goes unused. FSAppAttempt and the paper return a key to node-local
//! at its next node-local container, on the premise that its data hosts now give it slots soon.
//! A node-local container says nothing about the room the key declines elsewhere: while the key
//! itself had an idle miss (above) within the last round of the cluster's heartbeats (as many
//! heartbeats as the cluster has nodes, the thresholds' unit), the container leaves its level,
//! and its idle count, which runs since the level last changed, goes on. Without that, a key
//! whose data host freed a container every interval went back to node-local at once, restarted
//! its idle count, and waited a whole threshold of idle misses again before each short spell at
//! the looser level (the SLS tail of docs/results/sls.md "throughput at the saturating scale, the relaxed level kept"). The evidence is the key's own:
//! room other keys cannot take (a cap, a partition) or a node that stopped heartbeating does
//! not keep it relaxed, and once a round passes without such a miss the next node-local
//! container sets the level back as FairScheduler does. Spark's correction is close in shape:
//! its locality level and wait are reset by a launch only when the task set declined no offer
//! for locality since (SPARK-18886).
//!
//! With node partitions (YARN node labels) a key is offered only the nodes it may run on (its
//! partition's; a default-partition key's, every node but an exclusive partition's), so its
//! thresholds are fractions of those nodes, and `delay-room` below counts room only on them:
//! room on a data node of another partition is room the key can never take. Likewise a key is
//! offered only nodes its container fits in every resource type (memory, vcores, GPUs and the
//! other types): a key asking 2 GPUs on a cluster where one node of six has them misses one
//! opportunity per round, and a threshold counted in all six nodes kept it waiting six rounds
//! per level while every node idled. Its thresholds count the nodes it fits.
//!
//! Where a remote read costs more than an idle slot (a network-bound cluster), waiting with
//! idle room can still pay: `locus.delay.idle-room=false` keeps FairScheduler's rule alone, and
//! the simulator's CapacityScheduler model (`cs-default`) sets it, as CapacityScheduler resets
//! its missed opportunities at every container (docs/results/default-policy.md "Room left idle").
//!
//! A scheduling opportunity is a node's *heartbeat*, in both `locus.scheduling.mode`s. Under
//! `async` the shim also offers every live node with room on every sweep (milliseconds apart);
//! those offers (`Heartbeat::sweep`) place what a key's level already allows (node-local at once
//! when its split's node has room) but are not misses, so a key waits about `threshold`
//! heartbeat intervals for its data whichever mode runs, as the paper's wait is meant: long
//! enough for every node to have heartbeated. Counting sweeps gave locality up within a few
//! sweeps, before the data's node heartbeated once (tests/async_opportunities.rs). A wait in
//! milliseconds (FairScheduler's continuous scheduling) was the other way: it needs a setting
//! in time units that the paper's fraction-of-the-cluster thresholds do not have, and would
//! make the simulator's heartbeat-driven results depend on a second clock.
//!
//! `delay-room` (the same struct, `room_aware`) waits only while waiting pays. Zaharia et al.'s
//! case for waiting is that a local slot comes soon: a job skipped on one node is offered a
//! node holding its data shortly after, and a skipped node goes to another job meanwhile. What
//! the scheduler can see of "soon" without any constant is whether a node holding the data has
//! room right now: it heartbeats within one interval and takes the map locally. When none has,
//! the local slot must first be released by a running container, after an unknown time, and the
//! skipped node is not free either: under a size-based or FIFO order it goes to the jobs behind,
//! whose maps then start (and whose reduces, past slow-start, hold containers), delaying the
//! job in front; on a small cluster nobody takes it and it idles. So a key waits for a
//! node-local container only while one of its data hosts has room, and for a rack-local one
//! only while a node in one of its data racks has room; otherwise it takes what this node
//! offers. The FairScheduler thresholds still bound each wait (a data node with room may keep
//! going to other jobs). What is compared against is measured, not configured: the room each
//! node reported left at its latest heartbeat (docs/results/default-policy.md "A wait that pays").

use std::collections::HashMap;

use super::LocalityTechnique;
use crate::protocol::{Locality, Resource};
use crate::state::app::{App, Arrival};
use crate::state::ask::{AskTable, SchedulerKey};
use crate::state::names::{NameId, ANY_ID};
use crate::state::node::Node;
use crate::state::ClusterState;

/// A node's partition and whether it is exclusive: room there waits only keys it serves.
type Partition = (String, bool);

fn serves((partition, exclusive): &Partition, key: &str) -> bool {
    crate::state::node::partition_serves(partition, *exclusive, key)
}

fn partition_of(node: &Node) -> Partition {
    (node.partition.clone(), node.exclusive)
}

#[derive(Debug, Clone, Copy)]
struct Wait {
    level: Locality,
    /// Heartbeats missed in a row: a container restarts the count (FSAppAttempt's rule).
    missed: u64,
    /// Heartbeats missed at this level on a node whose room, fitting the key, nobody took at
    /// this heartbeat or the one before: only a relaxation restarts this count (module docs,
    /// "Room left idle").
    idle: u64,
    /// The heartbeat (of [`DelayScheduling::beats`]) of the key's latest idle miss: within a
    /// round of the cluster's heartbeats, a more local container leaves a relaxed level alone.
    idle_at: Option<u64>,
}

/// An app's waits, one per scheduler key it was offered a node for. Keys are the AM's own
/// (priority, allocation request id): an AM that asks each container under a new id would add
/// one per container for its whole life, so the waits of keys it no longer asks for are swept
/// whenever the map doubles past [`SWEEP_FLOOR`]: at most twice its live keys (themselves
/// bounded by `locus.app.max-ask-rows`) plus the floor, at an amortised O(1) per new key.
#[derive(Debug, Default)]
struct AppWaits {
    keys: HashMap<SchedulerKey, Wait>,
    sweep_at: usize,
}

/// Below this many waits an app's are never swept: a MapReduce job has at most three keys that
/// wait (maps at priorities 20, 19 and 5), so its waits, and the simulator's results, never are.
const SWEEP_FLOOR: usize = 16;

pub struct DelayScheduling {
    node_threshold: f64,
    rack_threshold: f64,
    nodes: usize,
    /// Today's nodes by kind (partition and capability, [`ClusterState::node_kinds`]) and the
    /// `nodes_version` they were read at: a key is offered only the nodes it may run on, those
    /// of its partition that it fits in every resource type, so its thresholds count those.
    kinds: Vec<(Partition, Resource, usize)>,
    kinds_version: Option<u64>,
    waits: HashMap<Arrival, AppWaits>,
    /// `delay-room`: wait only while a node holding the data has room.
    room_aware: bool,
    /// The hosts that had room left after their latest heartbeat: their rack, the room and the
    /// node's partition. At most one entry per host (host and rack ids are node names, not
    /// application input); forgotten when the node is removed.
    room: HashMap<NameId, (NameId, Resource, Partition)>,
    /// Per rack and partition, the sum of its hosts' entries in `room` (some room only).
    rack_room: HashMap<(NameId, Partition), Resource>,
    /// The non-local cap `allowed` computed for the key it was last asked about.
    non_local: u32,
    /// Whether the current offer is a node's heartbeat, i.e. a scheduling opportunity a key
    /// misses when it gets nothing; false for an async sweep's offer (module docs).
    opportunity: bool,
    /// The container size of the key `allowed` was last asked about.
    asked: Resource,
    /// The keys that missed the current heartbeat, with their container size: at `settled`,
    /// those the room left would have fitted declined room that went unused. At most one entry
    /// per time an app is listed in the heartbeat's order (`fair` and `capacity` may list one
    /// several times, as they count `missed`); emptied at every offer's end.
    held: Vec<(Arrival, SchedulerKey, Resource)>,
    /// Whether the offer under way is a heartbeat this technique was told of (`heartbeat`
    /// with `sweep` false); cleared at `settled`.
    in_heartbeat: bool,
    /// Hosts whose room went unused at their latest heartbeat, with that room; an offer that
    /// placed something there or found the host full, and the node's removal, forget the entry
    /// (at most one per host; host ids are node names, not application input).
    unused: HashMap<NameId, Resource>,
    /// `locus.delay.idle-room`: whether idle misses count (module docs, "Room left idle").
    idle_room: bool,
    /// Node heartbeats seen, full ones included, sweeps not ([`LocalityTechnique::offer_started`]):
    /// the clock of [`Wait::idle_at`].
    beats: u64,
}

impl DelayScheduling {
    pub fn new(node_threshold: f64, rack_threshold: f64) -> Self {
        DelayScheduling {
            node_threshold,
            rack_threshold,
            nodes: 0,
            kinds: Vec::new(),
            kinds_version: None,
            waits: HashMap::new(),
            room_aware: false,
            room: HashMap::new(),
            rack_room: HashMap::new(),
            non_local: u32::MAX,
            opportunity: true,
            asked: Resource::ZERO,
            held: Vec::new(),
            in_heartbeat: false,
            unused: HashMap::new(),
            idle_room: true,
            beats: 0,
        }
    }

    /// `false`: FairScheduler's rule alone, every container restarts the wait
    /// (`locus.delay.idle-room`).
    pub fn counting_idle_room(self, idle_room: bool) -> Self {
        DelayScheduling { idle_room, ..self }
    }

    /// `delay-room` (module docs).
    pub fn room_aware(node_threshold: f64, rack_threshold: f64) -> Self {
        DelayScheduling {
            room_aware: true,
            ..DelayScheduling::new(node_threshold, rack_threshold)
        }
    }

    /// Of `table`'s outstanding containers, how many (up to `want`) the hosts holding their data
    /// (other than `node`) had room for at their latest heartbeat. Walks the smaller of the
    /// key's rows and the hosts with room, and stops once `want` fit.
    /// Hosts of another partition than `partition` (the key's) do not count: the key may not
    /// run there.
    fn fit_on_data_hosts(&self, table: &AskTable, node: &Node, want: u32, partition: &str) -> u32 {
        let fit = |host: NameId, row: &crate::state::ask::Row| -> u32 {
            if host == node.host_id || row.count == 0 {
                return 0;
            }
            self.room
                .get(&host)
                .filter(|(_, _, p)| serves(p, partition))
                .map_or(0, |(_, room, _)| {
                    room.count_fitting(&row.capability).min(row.count)
                })
        };
        let mut sum = 0u32;
        let mut add = |n: u32| {
            sum = sum.saturating_add(n);
            sum >= want
        };
        // A map iterator's lower size hint is the exact row count.
        if self.room.len() < table.rows().size_hint().0 {
            let _ = self
                .room
                .keys()
                .any(|host| table.row(*host).is_some_and(|row| add(fit(*host, row))));
        } else {
            let _ = table
                .wanted_locations()
                .any(|(host, row)| add(fit(host, row)));
        }
        sum.min(want)
    }

    /// The same for the racks holding the data, from each rack's summed room (other than
    /// `node`'s; a sum may count a container split over two hosts, so it errs toward waiting).
    fn fit_in_data_racks(&self, table: &AskTable, node: &Node, want: u32, partition: &str) -> u32 {
        let mut sum = 0u32;
        for ((rack, place), total) in &self.rack_room {
            if !serves(place, partition) {
                continue;
            }
            let Some(row) = table.row(*rack).filter(|row| row.count > 0) else {
                continue;
            };
            let mut room = *total;
            if let Some((r, own, p)) = self.room.get(&node.host_id) {
                if r == rack && p == place {
                    room = room.saturating_sub(own);
                }
            }
            sum = sum.saturating_add(room.count_fitting(&row.capability).min(row.count));
            if sum >= want {
                return want;
            }
        }
        sum
    }

    /// Drops `node`'s entry in `room` and its share of its rack's sum.
    fn forget_room(&mut self, node: &Node) {
        if let Some((rack, old, place)) = self.room.remove(&node.host_id) {
            let at = (rack, place);
            if let Some(total) = self.rack_room.get_mut(&at) {
                *total = total.saturating_sub(&old);
                if *total == Resource::ZERO {
                    self.rack_room.remove(&at);
                }
            }
        }
    }

    fn limit(&self, threshold: f64, nodes: usize) -> u64 {
        (threshold * nodes as f64).ceil() as u64
    }
}

impl LocalityTechnique for DelayScheduling {
    fn name(&self) -> &'static str {
        if self.room_aware {
            "delay-room"
        } else {
            "delay"
        }
    }

    fn offer_started(&mut self, sweep: bool) {
        // Every node heartbeat, full ones included: a round is one per node, whatever room.
        if !sweep {
            self.beats = self.beats.wrapping_add(1);
        }
    }

    fn heartbeat(&mut self, state: &ClusterState, _: &Node, _: &[Arrival], _: u64, sweep: bool) {
        self.nodes = state.node_count();
        if self.kinds_version != Some(state.nodes_version()) {
            self.kinds = state
                .node_kinds()
                .into_iter()
                .map(|(p, exclusive, capability, n)| ((p, exclusive), capability, n))
                .collect();
            self.kinds_version = Some(state.nodes_version());
        }
        self.opportunity = !sweep;
        self.in_heartbeat = !sweep;
        self.held.clear();
    }

    fn allowed(
        &mut self,
        app: &App,
        key: SchedulerKey,
        table: &AskTable,
        node: &Node,
        _: u64,
    ) -> Locality {
        let partition = app.partitions.of(&key);
        self.asked = table
            .row(ANY_ID)
            .or_else(|| table.rows().next().map(|(_, row)| row))
            .map_or(Resource::ZERO, |row| row.capability);
        let asked = self.asked;
        let nodes = self
            .kinds
            .iter()
            .filter(|(place, capability, _)| serves(place, partition) && capability.fits(&asked))
            .fold(0usize, |sum, (_, _, n)| sum.saturating_add(*n));
        let node_limit = self.limit(self.node_threshold, nodes);
        let rack_limit = self.limit(self.rack_threshold, nodes);
        let waits = self.waits.entry(app.arrival).or_default();
        if !waits.keys.contains_key(&key) && waits.keys.len() >= waits.sweep_at.max(SWEEP_FLOOR) {
            waits.keys.retain(|k, _| app.asks.table(k).is_some());
            waits.sweep_at = 2 * waits.keys.len();
        }
        let w = waits.keys.entry(key).or_insert(Wait {
            level: Locality::NodeLocal,
            missed: 0,
            idle: 0,
            idle_at: None,
        });
        if w.level == Locality::NodeLocal && w.missed.max(w.idle) >= node_limit {
            w.level = Locality::RackLocal;
            w.missed = 0;
            w.idle = 0;
        }
        if w.level == Locality::RackLocal && w.missed.max(w.idle) >= rack_limit {
            w.level = Locality::OffSwitch;
            w.missed = 0;
            w.idle = 0;
        }
        let mut level = w.level;
        self.non_local = u32::MAX;
        if self.room_aware && level < Locality::OffSwitch {
            // What the data's nodes and racks can take within a heartbeat interval waits for
            // them; the rest would wait for containers to end, and takes this node now.
            let outstanding = table.outstanding();
            let rack_excess = outstanding.saturating_sub(self.fit_in_data_racks(
                table,
                node,
                outstanding,
                partition,
            ));
            if level == Locality::NodeLocal {
                let excess = outstanding.saturating_sub(self.fit_on_data_hosts(
                    table,
                    node,
                    outstanding,
                    partition,
                ));
                if excess > 0 {
                    level = Locality::RackLocal;
                    self.non_local = excess;
                }
            }
            // Off-switch containers are one per heartbeat already
            // (`locus.off-switch-per-heartbeat`).
            if level == Locality::RackLocal && rack_excess > 0 {
                level = Locality::OffSwitch;
            }
        }
        level
    }

    fn non_local_cap(&mut self, _: &App, _: SchedulerKey, _: &Node) -> u32 {
        self.non_local
    }

    fn settled(&mut self, node: &Node, room_before: Resource, room_left: Resource) {
        // Room unused at two heartbeats of the node in a row: every key has had a whole
        // interval to find it (module docs, "Room left idle"). Any offer that placed something
        // or found the node full, a sweep's or a heartbeat's that walked no app, breaks the run.
        let in_heartbeat = std::mem::take(&mut self.in_heartbeat);
        let idle_before = if !self.idle_room {
            false
        } else if room_left == Resource::ZERO || room_left != room_before {
            self.unused.remove(&node.host_id);
            false
        } else if in_heartbeat {
            self.unused.insert(node.host_id, room_left).is_some()
        } else {
            false
        };
        for (app, key, size) in self.held.drain(..) {
            if idle_before && room_left.fits(&size) {
                if let Some(w) = self.waits.get_mut(&app).and_then(|a| a.keys.get_mut(&key)) {
                    w.idle += 1;
                    w.idle_at = Some(self.beats);
                }
            }
        }
        if !self.room_aware {
            return;
        }
        // A host whose rack or partition changed (a re-registered or relabelled node) is
        // filed under the new one.
        self.forget_room(node);
        if room_left != Resource::ZERO {
            let place = partition_of(node);
            self.room
                .insert(node.host_id, (node.rack_id, room_left, place.clone()));
            let total = self
                .rack_room
                .entry((node.rack_id, place))
                .or_insert(Resource::ZERO);
            *total = total.add(&room_left);
        }
    }

    fn offered(
        &mut self,
        app: Arrival,
        key: SchedulerKey,
        _: &Node,
        got: Option<Locality>,
        _: u64,
    ) {
        let (beats, round) = (self.beats, self.nodes as u64);
        let Some(w) = self.waits.get_mut(&app).and_then(|a| a.keys.get_mut(&key)) else {
            return;
        };
        match got {
            // Only a heartbeat is an opportunity missed; a sweep's offer places at the level
            // the key already has and leaves the count alone.
            None if self.opportunity => {
                w.missed += 1;
                self.held.push((app, key, self.asked));
            }
            None => {}
            Some(Locality::OffSwitch) => w.missed = 0,
            Some(level) => {
                // A level `delay-room` relaxed to because no data node had room is not one the
                // wait reached: the key keeps its own level.
                let now = if self.room_aware {
                    w.level.min(level)
                } else {
                    level
                };
                w.missed = 0;
                // A container does not set a relaxed key back while the key had an idle miss
                // within the last round of heartbeats (module docs, "Room left idle"); the idle
                // count runs since the level last changed.
                let idled_lately = w.idle_at.is_some_and(|at| beats.wrapping_sub(at) <= round);
                if now != w.level && !(now < w.level && idled_lately) {
                    w.level = now;
                    w.idle = 0;
                }
            }
        }
    }

    fn app_removed(&mut self, app: Arrival) {
        self.waits.remove(&app);
    }

    fn node_removed(&mut self, node: &Node) {
        // A node that re-registers starts a new run of idle heartbeats, and a key must not wait
        // for room a node that left reported.
        self.unused.remove(&node.host_id);
        self.forget_room(node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Ask;
    use crate::state::test_spec;

    fn located(id: i64, count: u32) -> Vec<Ask> {
        ["h1", "/r1", "*"]
            .iter()
            .map(|name| Ask {
                priority: 1,
                allocation_request_id: id,
                resource_name: (*name).into(),
                capability: Resource::new(1024, 1),
                count,
                relax_locality: true,
            })
            .collect()
    }

    /// A long-running service AM that asks every replacement container under a fresh
    /// allocation request id (YARN services, DistributedShell with placement) must not grow
    /// the technique's memory by one wait per key it ever asked for.
    #[test]
    fn waits_of_keys_an_app_no_longer_asks_for_do_not_accumulate() {
        let mut s = ClusterState::default();
        s.add_node("h1:1", "h1", "/r1", Resource::new(8192, 8));
        s.add_node("h2:1", "h2", "/r2", Resource::new(8192, 8));
        let mut spec = test_spec("svc", 0);
        spec.app_type = "YARN".into();
        s.add_app(spec);
        let mut delay = DelayScheduling::new(1.0, 1.0);
        let h2 = s.node("h2:1").unwrap().clone();
        for id in 0..10_000i64 {
            s.replace_asks("svc", located(id, 1)).unwrap();
            let app = s.app_by_id("svc").unwrap();
            let key = SchedulerKey {
                priority: 1,
                allocation_request_id: id,
            };
            let table = app.asks.table(&key).unwrap();
            delay.allowed(app, key, table, &h2, 0);
            delay.offered(app.arrival, key, &h2, None, 0);
        }
        let kept: usize = delay.waits.values().map(|w| w.keys.len()).sum();
        assert!(
            kept <= 2 * SWEEP_FLOOR,
            "{kept} waits kept for an app asking under one key"
        );
    }
}
