//! The decision procedure run on each node heartbeat.
//!
//! Applications come in the job policy's order. Within one, scheduler keys go in YARN's order
//! (lower priority number first). For each key the procedure tries node-local, then rack-local,
//! then off-switch, with YARN's rules (LocalityAppPlacementAllocator, CapacityScheduler's
//! RegularContainerAllocator):
//! - node-local needs outstanding containers at the node's host, its rack and `*`;
//! - rack-local needs them at the rack and `*`, and the rack row must allow relaxing to it;
//!   a rack row with relax_locality=false ends the key on this node (nothing off-switch either);
//! - off-switch needs nothing left at the node's rack, `*` outstanding, and the `*` row must
//!   allow relaxing.
//!
//! A key that is allowed here but cannot get all it wants because the node is full, the
//! heartbeat's container budget is spent or the off-switch budget is spent ends the
//! application's turn on this node: lower priorities must not jump ahead of a higher one that
//! only waits for room. A key held back by its locality rules, the locality technique, the
//! hotspot guard, a slot cap or its queue's maximum-capacity does not: the next key may use the
//! node. Neither does a key whose
//! containers are bigger than the whole node (FairScheduler's hasContainerForNode): waiting
//! would not help.
//!
//! Liveness (docs/design/liveness.md): what a layer hands out on a heartbeat must reach a job that can
//! use it. Map slots a job policy picked for an app (TD, JoSS) that the app leaves unused on
//! this node pass to the next apps in the order, so a job whose maps cannot run here cannot
//! idle a slot another job could fill. A slot pool that holds no container may start one even
//! when its cap is below that container's size, so a split can never leave a phase that has
//! work without room for at least one container, and a capped pool keeps the room it frees for
//! the first key its cap alone held back (its waiter), so that room does not go back to whoever
//! ranks first at the node where a container ended. MapReduce AM containers together hold at most
//! the job policy's AM share of the cluster's memory (one may always start when none runs), so
//! AMs cannot fill the nodes ahead of the tasks they wait for.

use crate::config::{Config, LocalityKind};
use crate::layers::Layers;
use crate::policy::{locality_applies, JobPolicy};
use crate::protocol::{Decision, Locality, Resource};
use crate::state::app::{App, Arrival, SlotKind, TaskKind};
use crate::state::ask::{AskTable, SchedulerKey, ANY};
use crate::state::names::{NameId, ANY_ID};
use crate::state::node::Node;
use crate::state::{ClusterState, PoolWaiter};

/// What one heartbeat may still hand out.
#[derive(Debug, Clone, Copy)]
struct Budget {
    room: Resource,
    /// The node's total: an ask bigger than this can never run here, so it must not hold up
    /// the app's smaller asks on this node.
    node_capability: Resource,
    containers: u32,
    off_switch: u32,
}

/// A placement the procedure settled on for one key.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub locality: Locality,
    pub count: u32,
    pub capability: Resource,
}

/// Limits on one key that come from the policy layers.
pub struct KeyLimits<'a> {
    pub ceiling: Locality,
    /// Resource left in the key's slot pool, `None` when uncapped.
    pub slot_room: Option<Resource>,
    /// The key's pool holds no container (cluster-wide, this heartbeat included): one may start
    /// whatever the pool's room, so a cap below one container cannot stall a phase.
    pub slot_floor: bool,
    pub admit: &'a mut dyn FnMut(Locality) -> u32,
    /// Containers the job policy still allows this key on this node (`u32::MAX`: no limit),
    /// spent by what is placed.
    pub job_allowance: u32,
    /// Resource the job policy still lets the app take (its queue's maximum-capacity), `None`
    /// when unlimited; spent by what is placed.
    pub job_room: Option<Resource>,
}

/// Plans one key on one node: pure YARN counting, no state changes. Returns the placements and
/// whether the app's turn on this node ends here.
fn plan_key(
    table: &AskTable,
    host: NameId,
    rack: NameId,
    budget: &mut Budget,
    limits: &mut KeyLimits<'_>,
) -> (Vec<Placement>, bool) {
    let mut out = Vec::new();
    let mut any = table.outstanding();
    let mut at_rack = table.count(rack);
    let at_host = table.count(host);
    let mut stop = false;
    let locality_free = table.locality_free();

    let mut place = |locality: Locality,
                     want: u32,
                     capability: Resource,
                     budget: &mut Budget,
                     out: &mut Vec<Placement>|
     -> u32 {
        if want == 0 || !budget.node_capability.fits(&capability) {
            return 0;
        }
        let off_budget = if locality == Locality::OffSwitch && !locality_free {
            budget.off_switch
        } else {
            u32::MAX
        };
        let heartbeat = budget
            .room
            .count_fitting(&capability)
            .min(budget.containers)
            .min(off_budget);
        let mut slot = limits
            .slot_room
            .map_or(u32::MAX, |r| r.count_fitting(&capability));
        if slot == 0 && limits.slot_floor {
            slot = 1;
        }
        let job_room = limits
            .job_room
            .map_or(u32::MAX, |r| r.count_fitting(&capability));
        let policy = slot
            .min(job_room)
            .min((limits.admit)(locality))
            .min(limits.job_allowance);
        let n = want.min(heartbeat).min(policy);
        if n < want {
            // The node or heartbeat binding ends the app's turn; a policy cap only this key's.
            if heartbeat <= policy {
                stop = true;
            }
        }
        if n > 0 {
            let total = capability.times(n as u64);
            budget.room = budget.room.saturating_sub(&total);
            budget.containers -= n;
            if off_budget != u32::MAX {
                budget.off_switch -= n;
            }
            if let Some(r) = limits.slot_room.as_mut() {
                *r = r.saturating_sub(&total);
            }
            limits.slot_floor = false;
            if let Some(r) = limits.job_room.as_mut() {
                *r = r.saturating_sub(&total);
            }
            if limits.job_allowance != u32::MAX {
                limits.job_allowance -= n;
            }
            out.push(Placement {
                locality,
                count: n,
                capability,
            });
        }
        n
    };

    if any == 0 {
        return (out, false);
    }
    if at_host > 0 && at_rack > 0 {
        if let Some(row) = table.row(host) {
            let n = place(
                Locality::NodeLocal,
                at_host.min(at_rack).min(any),
                row.capability,
                budget,
                &mut out,
            );
            any -= n;
            at_rack -= n;
        }
    }
    if any > 0 && at_rack > 0 {
        if !table.may_relax_to(rack) || limits.ceiling < Locality::RackLocal {
            return (out, stop);
        }
        if let Some(row) = table.row(rack) {
            let n = place(
                Locality::RackLocal,
                at_rack.min(any),
                row.capability,
                budget,
                &mut out,
            );
            any -= n;
            at_rack -= n;
        }
    }
    if any > 0
        && at_rack == 0
        && table.may_relax_to(ANY_ID)
        && limits.ceiling == Locality::OffSwitch
    {
        if let Some(row) = table.row(ANY_ID) {
            place(Locality::OffSwitch, any, row.capability, budget, &mut out);
        }
    }
    (out, stop)
}

/// Whether a key gains nothing from waiting for a node's heartbeat, so that an eager offer
/// ([`crate::Heartbeat::eager`]) may place it: it names no host or rack (`held_for_locality`
/// false: an AM, a reduce, an executor without preferences), or a locality wait already let
/// it go anywhere (`ceiling` off-switch under `delay`, `delay-room` or `matchmaking`). Under
/// `hadoop` locality a key that names hosts is not relaxed by any wait: the papers' policies
/// that run it are defined per heartbeat, so it keeps to heartbeats.
fn gains_nothing(cfg: &Config, held_for_locality: bool, ceiling: Locality) -> bool {
    !held_for_locality || (cfg.locality != LocalityKind::Hadoop && ceiling == Locality::OffSwitch)
}

/// Runs the procedure for a heartbeat of `node` (or, `sweep`, an async sweep's offer of it: the
/// same procedure, but not a scheduling opportunity for the locality layer) with `unallocated`
/// free, leaving out the apps `sitting_out` (see [`crate::state::rejections`]); applies the decisions
/// to the asks (as YARN would once they execute) and returns them. `eager` (a sweep's offer
/// under `heartbeat` mode, [`crate::Heartbeat::eager`]) places only the keys [`gains_nothing`]
/// from waiting.
#[allow(clippy::too_many_arguments)]
pub fn assign(
    state: &mut ClusterState,
    layers: &mut Layers,
    cfg: &Config,
    node: &Node,
    unallocated: Resource,
    now_ms: u64,
    sweep: bool,
    eager: bool,
    sitting_out: &[Arrival],
) -> Vec<Decision> {
    let sweep = sweep || eager;
    layers.locality.offer_started(sweep);
    let decisions = assign_node(
        state,
        layers,
        cfg,
        node,
        unallocated,
        now_ms,
        sweep,
        eager,
        sitting_out,
    );
    let placed = decisions.iter().fold(Resource::ZERO, |sum, d| {
        sum.add(&d.capability.times(d.count as u64))
    });
    layers
        .locality
        .settled(node, unallocated, unallocated.saturating_sub(&placed));
    decisions
}

#[allow(clippy::too_many_arguments)]
fn assign_node(
    state: &mut ClusterState,
    layers: &mut Layers,
    cfg: &Config,
    node: &Node,
    unallocated: Resource,
    now_ms: u64,
    sweep: bool,
    eager: bool,
    sitting_out: &[Arrival],
) -> Vec<Decision> {
    let mut budget = Budget {
        room: unallocated,
        node_capability: node.capability,
        containers: if cfg.assign_multiple { u32::MAX } else { 1 },
        off_switch: layers
            .job
            .off_switch_limit()
            .unwrap_or(cfg.off_switch_per_heartbeat),
    };
    let mut decisions = Vec::new();
    if budget.room == Resource::ZERO {
        return decisions;
    }
    // A nearly full node is the common heartbeat on a busy cluster: answer it without asking
    // the policies or walking any app's rows.
    state.sync_pending();
    activate(state, layers.job.as_mut(), now_ms);
    state.note_ordered(0);
    if !state.any_pending_might_fit(&budget.room) {
        // The node had room and nothing waiting could use it: the heartbeat is an opportunity
        // nobody missed, and must not count against asks that arrive later. Only a heartbeat
        // that found the node full (above) stays for the sweep that finds its room. An eager
        // offer leaves it to the node's next heartbeat, as `heartbeat` mode always did.
        if !eager {
            state.take_opportunity(&node.id);
        }
        return decisions;
    }
    // Under FIFO the order is the pending index itself: walk it lazily, so a heartbeat that
    // fills the node early does not first list every waiting app.
    let lazy = layers.job.order_is_pending_by_submission() && !layers.locality.reads_order();
    let order = if lazy {
        Vec::new()
    } else {
        layers.job.order(state, node, now_ms)
    };
    state.note_ordered(order.len());
    // The node's heartbeat is the opportunity, missed here or at the first sweep after it that
    // finds room: under async a sweep fills freed room before the heartbeat sees it, and a wait
    // counted only on heartbeats that find room would never end (tests/async_opportunities.rs).
    // An eager offer places no key that waits, so it must not spend a heartbeat's opportunity
    // either: only a full async sweep stands in for the heartbeat that found the node full.
    let opportunity = !eager && state.take_opportunity(&node.id);
    layers
        .locality
        .heartbeat(state, node, &order, now_ms, sweep && !opportunity);
    layers.hotspot.heartbeat(state, node, now_ms);
    let mut slot_room = [None, None];
    let mut slot_floor = [false, false];
    for (i, slot) in [SlotKind::Map, SlotKind::Reduce].into_iter().enumerate() {
        slot_room[i] = layers
            .slots
            .cap(state, slot, now_ms)
            .map(|cap| cap.saturating_sub(&state.slot_used(slot)));
        slot_floor[i] = state.slot_used(slot) == Resource::ZERO;
    }
    // A pool's waiter ends with its key, its app, the node it waits at, or the pool's cap.
    for (i, waiter) in state.pool_waiters.iter_mut().enumerate() {
        if slot_room[i].is_none() {
            *waiter = None;
        }
    }
    state.drop_stale_pool_waiters();
    // Whether this node's pool waiters were found held back by their pool alone again.
    let mut confirmed = [false, false];
    let slot_index = |kind: TaskKind| match kind.slot() {
        Some(SlotKind::Map) => Some(0),
        Some(SlotKind::Reduce) => Some(1),
        None => None,
    };

    // Map picks earlier apps in the order left unused on this node (see the module docs).
    let mut spare_maps: u32 = 0;
    // AM memory placed on this heartbeat, per AM pool (few: the cluster, or one per queue).
    let mut am_placed: Vec<(u32, u64)> = Vec::new();
    // The same in every type, for pools that compare them all (`AmPool::types`).
    let mut am_placed_types: Vec<(u32, Resource)> = Vec::new();
    // Queues that started an AM on this heartbeat, for pools that span queues (one AM at most
    // goes past such a pool's cap per queue whose AMs hold nothing).
    let mut am_queues: Vec<String> = Vec::new();
    // CapacityScheduler's two passes over a labelled node: the keys of the node's partition
    // first; then, on a non-exclusive partition where they placed nothing, the default
    // partition's keys borrow its idle room. A node of the default partition serves only
    // default-partition keys, an exclusive partition's node only its own.
    let mut partition = node.partition.as_str();
    layers.job.partition_pass(partition);
    let mut listed = order.iter().copied();
    // The walk changes asks (`record`) but not the pending index, which only `sync_pending`
    // above brings up to date: the lazy walk sees the same apps `order` would have listed.
    let mut cursor = None;
    loop {
        // Before the search: a full node would otherwise have the lazy walk scan every app left.
        if budget.containers == 0 || budget.room == Resource::ZERO {
            break;
        }
        let next = if lazy {
            // Apps whose floor the room is below are passed over in one search: they would
            // only `continue` below, and an order that is the pending index picks no maps
            // (`map_limit` unlimited), so there is no spare to carry.
            cursor = state.next_pending_fitting(cursor, &budget.room);
            cursor.map(|k| k.arrival)
        } else {
            listed.next()
        };
        let Some(arrival) = next else {
            if !partition.is_empty() && node.lends() && decisions.is_empty() {
                partition = "";
                layers.job.partition_pass(partition);
                listed = order.iter().copied();
                cursor = None;
                spare_maps = 0;
                continue;
            }
            break;
        };
        let lending = partition != node.partition;
        // A node the app blacklisted is passed over as the RM would refuse it
        // (`SchedulerAppUtils.isPlaceBlacklisted`: the node's host, then its rack).
        if sitting_out.contains(&arrival)
            || !state.app(arrival).is_some_and(|a| {
                a.asks.might_fit(&budget.room) && !a.blacklist.excludes(&node.host, &node.rack)
            })
        {
            let picked = layers.job.map_limit(arrival);
            if picked != u32::MAX {
                spare_maps = spare_maps.saturating_add(picked);
            }
            continue;
        }
        let mut turn_left = layers.job.turn_limit(arrival);
        let map_limit = layers.job.map_limit(arrival);
        let mut maps_left = if map_limit == u32::MAX {
            u32::MAX
        } else {
            map_limit.saturating_add(std::mem::take(&mut spare_maps))
        };
        let mut reduces_left = layers.job.reduce_limit(arrival);
        let mut after = None;
        while let Some(key) = state
            .app(arrival)
            .and_then(|a| a.asks.next_pending_key(after))
        {
            if turn_left == 0 {
                break;
            }
            after = Some(key);
            if partition.is_empty() && state.lends() {
                if let Some(a) = state
                    .app_counters_mut(arrival)
                    .filter(|a| a.partitions.of(&key).is_empty())
                {
                    a.missed_default_offer(key);
                }
            }
            let (placements, stop, kind, waiter_update) = {
                let Some(app) = state.app(arrival) else { break };
                let Some(table) = app.asks.table(&key) else {
                    continue;
                };
                if app.partitions.of(&key) != partition {
                    continue;
                }
                let kind = app.kind_of(key.priority);
                if lending
                    && (kind == TaskKind::ApplicationMaster
                        || app.lend_misses.get(&key).copied().unwrap_or(0)
                            < lend_threshold(state, table))
                {
                    // As CapacityScheduler: no AM on borrowed room (taking it back would
                    // kill a job), and a default-partition key borrows only after a round of
                    // the offers it gets, so it prefers its own nodes.
                    continue;
                }
                let held_for_locality = locality_applies(state, app, key, kind, table);
                let ceiling = if held_for_locality {
                    layers.locality.allowed(app, key, table, node, now_ms)
                } else {
                    Locality::OffSwitch
                };
                if eager && !gains_nothing(cfg, held_for_locality, ceiling) {
                    continue;
                }
                let mut non_local_left = if held_for_locality {
                    layers.locality.non_local_cap(app, key, node)
                } else {
                    u32::MAX
                };
                let mut job_allowance = layers.job.admit(state, node, app, kind);
                let am_pool = if kind == TaskKind::ApplicationMaster {
                    layers.job.am_pool(state, app)
                } else {
                    None
                };
                if let (Some(pool), Some(row)) = (am_pool, table.row(ANY_ID)) {
                    let placed = am_placed
                        .iter()
                        .find(|(k, _)| *k == pool.key)
                        .map_or(0, |(_, mb)| *mb);
                    let used = pool.used_mb.saturating_add(placed);
                    let size = row.capability.memory_mb.max(1);
                    let mut fit =
                        (pool.cap_mb.saturating_sub(used) / size).min(u32::MAX as u64) as u32;
                    if let Some(t) = pool.types {
                        let placed = am_placed_types
                            .iter()
                            .find(|(k, _)| *k == pool.key)
                            .map_or(Resource::ZERO, |(_, r)| *r);
                        let left = t.cap.saturating_sub(&t.used.add(&placed));
                        fit = fit.min(left.count_fitting(&row.capability));
                    }
                    let queue_idle =
                        pool.queue_used_mb == Some(0) && !am_queues.contains(&app.queue);
                    let beyond =
                        fit == 0 && placed == 0 && used.saturating_add(size) <= pool.stretch_mb;
                    let fit = if used == 0 || queue_idle || beyond {
                        fit.max(1)
                    } else {
                        fit
                    };
                    job_allowance = job_allowance.min(fit);
                }
                let job_room = layers.job.room(state, app, key);
                let hotspot = &mut layers.hotspot;
                let state_ref: &ClusterState = state;
                // The non-local quota is spent by what is admitted, not what is placed: a key
                // that gets fewer than admitted has met a harder limit and its turn is over.
                let mut admit = |loc: Locality| {
                    let n = hotspot.admit(state_ref, node, app, kind, loc);
                    if loc == Locality::NodeLocal {
                        return n;
                    }
                    if non_local_left == u32::MAX {
                        return n;
                    }
                    let n = n.min(non_local_left);
                    non_local_left -= n;
                    n
                };
                // Every other key sees its pool's room less the waiter's container, and
                // only the waiter may start a container in an empty pool.
                let pool = slot_index(kind);
                let waiter = pool.and_then(|i| state_ref.pool_waiters[i].as_ref());
                let is_waiter = waiter.is_some_and(|w| w.arrival == arrival && w.key == key);
                let (key_slot_room, key_slot_floor) = match (waiter, pool) {
                    (Some(w), Some(i)) if !is_waiter => {
                        (slot_room[i].map(|r| r.saturating_sub(&w.size)), false)
                    }
                    _ => (
                        pool.and_then(|i| slot_room[i]),
                        pool.is_some_and(|i| slot_floor[i]),
                    ),
                };
                let any_size = table.row(ANY_ID).map(|r| r.capability);
                let room_at_key = budget.room;
                let mut limits = KeyLimits {
                    ceiling,
                    slot_room: key_slot_room,
                    slot_floor: key_slot_floor,
                    admit: &mut admit,
                    job_allowance,
                    job_room,
                };
                // The job policy's turn limit acts like the heartbeat's container budget: when
                // it binds, the app's visit ends, as when the node is full.
                // A map or reduce limit binds only that pool's keys: the app's others may still run.
                let heartbeat_containers = budget.containers;
                let map_cap = match kind.slot() {
                    Some(SlotKind::Map) => maps_left,
                    Some(SlotKind::Reduce) => reduces_left,
                    None => u32::MAX,
                };
                budget.containers = heartbeat_containers.min(turn_left).min(map_cap);
                let map_bound = map_cap < heartbeat_containers.min(turn_left);
                let before = budget.containers;
                let (placements, mut stop) =
                    plan_key(table, node.host_id, node.rack_id, &mut budget, &mut limits);
                // Held back by its pool alone: the node has room for it and every other
                // limit lets it place here, as a plan of the key without the cap shows (the
                // plan changes nothing; `admit` only spends this key's own quota). Not under a
                // policy that picks the pool's jobs per node (TD, JoSS): its picks say which
                // job a freed slot goes to, and a waiter would hold them back elsewhere.
                let pool_held = placements.is_empty()
                    && !sweep
                    && map_cap == u32::MAX
                    && !key_slot_floor
                    && any_size.is_some_and(|size| {
                        room_at_key.fits(&size)
                            && key_slot_room.is_some_and(|r| r.count_fitting(&size) == 0)
                    })
                    && {
                        let mut trial_budget = budget;
                        let mut trial = KeyLimits {
                            ceiling: limits.ceiling,
                            slot_room: None,
                            slot_floor: false,
                            admit: &mut *limits.admit,
                            job_allowance: limits.job_allowance,
                            job_room: limits.job_room,
                        };
                        !plan_key(
                            table,
                            node.host_id,
                            node.rack_id,
                            &mut trial_budget,
                            &mut trial,
                        )
                        .0
                        .is_empty()
                    };
                let used = before - budget.containers;
                if map_bound && budget.containers == 0 {
                    stop = false;
                }
                turn_left = turn_left.saturating_sub(used);
                if let Some(pool) = am_pool {
                    let mb = placements.iter().fold(0u64, |sum, p| {
                        sum.saturating_add(p.capability.memory_mb.saturating_mul(p.count as u64))
                    });
                    match am_placed.iter_mut().find(|(k, _)| *k == pool.key) {
                        Some((_, placed)) => *placed = placed.saturating_add(mb),
                        None => am_placed.push((pool.key, mb)),
                    }
                    if pool.types.is_some() {
                        let all = placed_total(&placements);
                        match am_placed_types.iter_mut().find(|(k, _)| *k == pool.key) {
                            Some((_, placed)) => *placed = placed.add(&all),
                            None => am_placed_types.push((pool.key, all)),
                        }
                    }
                    if mb > 0 && pool.queue_used_mb.is_some() && !am_queues.contains(&app.queue) {
                        am_queues.push(app.queue.clone());
                    }
                }
                match kind.slot() {
                    Some(SlotKind::Map) => maps_left = maps_left.saturating_sub(used),
                    Some(SlotKind::Reduce) => reduces_left = reduces_left.saturating_sub(used),
                    None => {}
                }
                budget.containers = heartbeat_containers - used;
                if let Some(i) = pool {
                    // The pool's own room, not the key's (which left out the waiter's).
                    if let Some(r) = slot_room[i].as_mut() {
                        *r = r.saturating_sub(&placed_total(&placements));
                    }
                    if !placements.is_empty() {
                        slot_floor[i] = false;
                    }
                }
                let waiter_update = pool.zip(any_size).map(|(i, size)| PoolVisit {
                    pool: i,
                    is_waiter,
                    held: pool_held,
                    placed: !placements.is_empty(),
                    size,
                });
                if held_for_locality {
                    let got = placements.iter().map(|p| p.locality).min();
                    layers.locality.offered(arrival, key, node, got, now_ms);
                }
                (placements, stop, kind, waiter_update)
            };
            if let Some(visit) = waiter_update {
                if visit.update_waiter(state, arrival, key, &node.id) {
                    confirmed[visit.pool] = true;
                }
            }
            if !placements.is_empty() && node.partition.is_empty() && state.lends() {
                if let Some(a) = state.app_counters_mut(arrival) {
                    a.lend_misses.remove(&key);
                }
            }
            record(
                state,
                layers,
                arrival,
                key,
                kind,
                node,
                &placements,
                &mut decisions,
            );
            if stop || budget.containers == 0 {
                break;
            }
        }
        if map_limit != u32::MAX {
            spare_maps = maps_left;
        }
    }
    // A waiter its own node's heartbeat no longer finds held back by its pool alone (it fits
    // no more, another limit holds it, it was not reached) stops waiting: a pool is kept only
    // for a container that could start now, so the other pool's work cannot deadlock it.
    if !sweep {
        for (i, waiter) in state.pool_waiters.iter_mut().enumerate() {
            if !confirmed[i] && waiter.as_ref().is_some_and(|w| w.node == node.id) {
                *waiter = None;
            }
        }
    }
    decisions
}

/// The offers a default-partition key misses before it may borrow a non-exclusive partition's
/// idle room: one round of the offers it is given, i.e. the nodes it may run on (the default
/// partition's and the lending ones) that its container fits in every resource type.
/// CapacityScheduler counts a key's offer on every node with room for the minimum allocation
/// and waits for as many as the cluster has nodes, about one round of the cluster's
/// heartbeats; here a node too small for the key passes its application over uncounted, so
/// the cluster's node count would stretch that round to many: a key only lending nodes fit
/// (two GPUs where only a labelled node has them) missed one offer per round per such node,
/// and waited as many rounds as the cluster has nodes for room nothing else could give it.
fn lend_threshold(state: &ClusterState, table: &AskTable) -> u32 {
    let size = table
        .row(ANY_ID)
        .or_else(|| table.rows().next().map(|(_, row)| row))
        .map_or(Resource::ZERO, |row| row.capability);
    u32::try_from(state.nodes_fitting("", &size))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// Memory of the AM `app` waits for (0: its first pending ask is not an AM).
fn am_ask_mb(app: &App) -> u64 {
    am_ask(app).memory_mb
}

/// Every type of `app`'s AM ask (zero without one).
fn am_ask(app: &App) -> Resource {
    app.asks
        .next_pending_key(None)
        .filter(|key| app.kind_of(key.priority) == TaskKind::ApplicationMaster)
        .and_then(|key| app.asks.table(&key))
        .and_then(|t| t.row(ANY_ID))
        .map_or(Resource::ZERO, |r| r.capability)
}

/// Activates apps waiting for their AM, each queue's in FIFO order, while the job policy's AM
/// bound ([`JobPolicy::am_pool`]) has room for their AM (CapacityScheduler's
/// `activateApplications`). Only activated apps are in the pending index every policy orders,
/// so a heartbeat's cost does not grow with the apps that wait. The room counts the AMs that
/// run or are decided and those of activated apps still waiting for theirs, with the same
/// exceptions the procedure makes (one AM when the pool, or the app's queue, holds none; one
/// within the pool's stretch when nothing activated waits). A queue whose head does not fit
/// stops there: activation never overtakes in FIFO order within a queue; a user over the
/// policy's user AM limit ([`JobPolicy::am_user_limit`]) stops only that user's. The work per
/// offer is one look at the head of each (queue, user) with waiting apps plus the apps
/// activated, whatever the number waiting.
pub(crate) fn activate(state: &mut ClusterState, job: &mut dyn JobPolicy, now_ms: u64) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if state.awaiting_count() == 0 {
        return;
    }
    job.prepare_activation(state, now_ms);
    // AM memory activated apps will still take, per AM pool, per queue and per user.
    let mut pools: Vec<(u32, u64)> = Vec::new();
    let mut queues: Vec<(String, u64)> = Vec::new();
    let mut users: Vec<(usize, u64)> = Vec::new();
    // The same in every type, for the pools and users whose bounds compare them all.
    let mut pools_types: Vec<(u32, Resource)> = Vec::new();
    let mut users_types: Vec<(usize, Resource)> = Vec::new();
    fn add<K: PartialEq>(v: &mut Vec<(K, u64)>, k: K, mb: u64) {
        match v.iter_mut().find(|(q, _)| *q == k) {
            Some((_, sum)) => *sum = sum.saturating_add(mb),
            None => v.push((k, mb)),
        }
    }
    fn add_types<K: PartialEq>(v: &mut Vec<(K, Resource)>, k: K, r: Resource) {
        match v.iter_mut().find(|(q, _)| *q == k) {
            Some((_, sum)) => *sum = sum.add(&r),
            None => v.push((k, r)),
        }
    }
    fn get_types<K: PartialEq>(v: &[(K, Resource)], k: &K) -> Resource {
        v.iter()
            .find(|(q, _)| q == k)
            .map_or(Resource::ZERO, |(_, r)| *r)
    }
    fn get<K: PartialEq>(v: &[(K, u64)], k: &K) -> Option<u64> {
        v.iter().find(|(q, _)| q == k).map(|(_, mb)| *mb)
    }
    let reserving = state.reserving();
    // An AM no node can hold holds no room: it would keep every app behind it waiting.
    let largest = if reserving.is_empty() {
        0
    } else {
        state
            .nodes()
            .map(|n| n.capability.memory_mb)
            .max()
            .unwrap_or(0)
    };
    for arrival in reserving {
        let Some(app) = state.app(arrival) else {
            continue;
        };
        let mb = am_ask_mb(app);
        if mb > largest {
            continue;
        }
        let ask = am_ask(app);
        if let Some(pool) = job.am_pool(state, app) {
            add(&mut pools, pool.key, mb);
            add_types(&mut pools_types, pool.key, ask);
        }
        if let Some((user, _, _)) = job.am_user_limit(state, app) {
            add(&mut users, user, mb);
            add_types(&mut users_types, user, ask);
        }
        add(&mut queues, app.queue.clone(), mb);
    }
    // Each (queue, user)'s head, earliest first; a group that activates its head offers its next.
    let mut heads: BinaryHeap<Reverse<(crate::state::app::FifoKey, (String, String))>> = state
        .awaiting_heads()
        .map(|(g, k)| Reverse((k, g.clone())))
        .collect();
    let mut full_queues: Vec<String> = Vec::new();
    while let Some(Reverse((key, group))) = heads.pop() {
        if full_queues.contains(&group.0) {
            continue;
        }
        let Some(app) = state.app(key.arrival) else {
            continue;
        };
        let size = am_ask_mb(app);
        let ask = am_ask(app);
        let pool = job.am_pool(state, app);
        let mut pool_empty = true;
        if let Some(pool) = pool {
            let reserved = get(&pools, &pool.key);
            let used = pool.used_mb.saturating_add(reserved.unwrap_or(0));
            pool_empty = used == 0;
            let queue_idle = pool
                .queue_used_mb
                .is_some_and(|q| q == 0 && get(&queues, &group.0).is_none());
            let after = used.saturating_add(size);
            let fits_types = pool.types.is_none_or(|t| {
                let reserved = get_types(&pools_types, &pool.key);
                t.cap.fits(&t.used.add(&reserved).add(&ask))
            });
            let fits = (after <= pool.cap_mb && fits_types)
                || used == 0
                || queue_idle
                || (reserved.is_none() && after <= pool.stretch_mb);
            if !fits {
                // The queue's AM room is spent: none of its apps may overtake this one.
                full_queues.push(group.0);
                continue;
            }
        }
        let user = job.am_user_limit(state, app);
        if let Some((u, limit, used)) = user {
            let over_types = job.am_user_limit_types(app).is_some_and(|(limit, used)| {
                !limit.fits(&used.add(&get_types(&users_types, &u)).add(&ask))
            });
            let used = used.saturating_add(get(&users, &u).unwrap_or(0));
            if (used.saturating_add(size) > limit || over_types) && !pool_empty {
                // Only this user's apps wait; the queue's others may go on (as CapacityScheduler
                // skips a user over its AM limit).
                continue;
            }
            add(&mut users, u, size);
            add_types(&mut users_types, u, ask);
        }
        if let Some(pool) = pool {
            add(&mut pools, pool.key, size);
            add_types(&mut pools_types, pool.key, ask);
        }
        add(&mut queues, group.0.clone(), size);
        let next = state.awaiting_next(&group, key);
        state.activate(key.arrival);
        if let Some(next) = next {
            heads.push(Reverse((next, group)));
        }
    }
}

/// Resource of `placements` together.
fn placed_total(placements: &[Placement]) -> Resource {
    placements.iter().fold(Resource::ZERO, |sum, p| {
        sum.add(&p.capability.times(p.count as u64))
    })
}

/// One key's visit, as it concerns its slot pool's waiter.
struct PoolVisit {
    pool: usize,
    is_waiter: bool,
    /// Held back on this node by the pool's cap alone.
    held: bool,
    placed: bool,
    size: Resource,
}

impl PoolVisit {
    /// Ends, keeps or starts the pool's waiter after the visit of `key` of `arrival` at
    /// `node`. True when this node's waiter was found held back by the pool alone again.
    fn update_waiter(
        &self,
        state: &mut ClusterState,
        arrival: Arrival,
        key: SchedulerKey,
        node: &str,
    ) -> bool {
        let waiter = &mut state.pool_waiters[self.pool];
        let at_node = waiter.as_ref().is_some_and(|w| w.node == node);
        if self.is_waiter {
            if self.placed || (at_node && !self.held) {
                *waiter = None;
                return false;
            }
            return at_node && self.held;
        }
        if self.held && waiter.is_none() {
            *waiter = Some(PoolWaiter {
                arrival,
                key,
                size: self.size,
                node: node.to_string(),
            });
            return true;
        }
        false
    }
}

#[allow(clippy::too_many_arguments)]
fn record(
    state: &mut ClusterState,
    layers: &mut Layers,
    arrival: Arrival,
    key: SchedulerKey,
    kind: TaskKind,
    node: &Node,
    placements: &[Placement],
    decisions: &mut Vec<Decision>,
) {
    if placements.is_empty() {
        return;
    }
    if let Some(app) = state.app(arrival) {
        for p in placements {
            layers.hotspot.placed(node, app, kind, p.locality, p.count);
            layers.job.placed(arrival, kind, p.count, p.capability);
        }
    }
    let Some(app) = state.app_mut(arrival) else {
        return;
    };
    for p in placements {
        app.asks
            .consume(&key, p.locality, node.host_id, node.rack_id, p.count);
        let resource_name = match p.locality {
            Locality::NodeLocal => node.host.clone(),
            Locality::RackLocal => node.rack.clone(),
            Locality::OffSwitch => ANY.to_string(),
        };
        log::debug!(
            "decide {} x{} {:?} for {} priority {} on {} ({})",
            p.count,
            p.capability.memory_mb,
            p.locality,
            app.id,
            key.priority,
            node.id,
            resource_name
        );
        // Fair sharing visits an app once per container; one decision per run keeps the
        // shim's work (and the in-flight table) per key, not per container.
        if let Some(last) = decisions.last_mut() {
            if last.app == app.id
                && last.priority == key.priority
                && last.allocation_request_id == key.allocation_request_id
                && last.locality == p.locality
                && last.capability == p.capability
                && last.resource_name == resource_name
                && last.node == node.id
            {
                last.count += p.count;
                continue;
            }
        }
        decisions.push(Decision {
            app: app.id.clone(),
            priority: key.priority,
            allocation_request_id: key.allocation_request_id,
            resource_name,
            node: node.id.clone(),
            locality: p.locality,
            count: p.count,
            capability: p.capability,
            limits: None,
        });
    }
}
