//! Decisions handed to the shim and not yet confirmed.
//!
//! The core takes a decision's containers off the app's asks as soon as it emits it, as YARN's
//! own scheduler does, so the next heartbeat cannot hand the same ask out twice. The shim then
//! either creates the containers (`container_allocated`, followed by the app's `asks_digest`,
//! which counts unconfirmed decisions back in: `digest::expected`) or reports
//! `decision_rejected`. Keeping the unconfirmed part lets the core
//! (a) give rejected containers back to the asks so they are offered again and (b) re-apply
//! the not-yet-executed part of a decision onto a new snapshot, which the RM took before
//! executing it.

use crate::protocol::{Decision, Locality, Resource};
use crate::state::app::{SlotKind, TaskKind};
use crate::state::ask::SchedulerKey;
use crate::state::names::NameId;

#[derive(Debug, Clone)]
struct Entry {
    decision: Decision,
    host: NameId,
    rack: NameId,
    /// Containers of the decision the shim has neither created nor rejected.
    unconfirmed: u32,
    /// Set at the node's next heartbeat; the one after that drops the entry.
    stale: bool,
    /// The containers are ApplicationMasters: until settled they count against the AM share.
    am: bool,
    /// The slot pool the containers count against until settled, if any.
    slot: Option<SlotKind>,
}

/// Asks to give back or take again: (key, locality, host, rack, containers).
pub type AskChange = (SchedulerKey, Locality, NameId, NameId, u32);

#[derive(Debug, Default)]
pub struct InFlight {
    entries: Vec<Entry>,
}

impl InFlight {
    pub fn add(&mut self, decision: &Decision, host: NameId, rack: NameId, kind: TaskKind) {
        self.entries.push(Entry {
            am: kind == TaskKind::ApplicationMaster,
            slot: kind.slot(),
            unconfirmed: decision.count,
            decision: decision.clone(),
            host,
            rack,
            stale: false,
        });
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// One container of a matching decision was created. False when none matches (a recovered
    /// container, or one whose decision a snapshot already settled).
    /// The key is the whole scheduler key: two asks at one priority with different allocation
    /// request ids are different decisions, and confirming the wrong one would leave the other
    /// unconfirmed (re-applied to every snapshot) and this one unable to give its rejected
    /// containers back.
    pub fn confirm(
        &mut self,
        app: &str,
        node: &str,
        key: SchedulerKey,
        locality: Locality,
    ) -> bool {
        let Some(i) = self.entries.iter().position(|e| {
            e.decision.app == app
                && e.decision.node == node
                && key_of(&e.decision) == key
                && e.decision.locality == locality
                && e.unconfirmed > 0
        }) else {
            return false;
        };
        self.entries[i].unconfirmed -= 1;
        if self.entries[i].unconfirmed == 0 {
            self.entries.remove(i);
        }
        true
    }

    /// The shim executed only `executed` containers of `decision`: the rest goes back to the
    /// asks. `None` when no such decision is unconfirmed.
    pub fn reject(&mut self, decision: &Decision, executed: u32) -> Option<AskChange> {
        let i = self
            .entries
            .iter()
            .position(|e| same_decision(&e.decision, decision))?;
        let e = self.entries.remove(i);
        let back = decision.count.saturating_sub(executed).min(e.unconfirmed);
        Some((
            key_of(&e.decision),
            e.decision.locality,
            e.host,
            e.rack,
            back,
        ))
    }

    /// A new snapshot of `app`'s asks arrived: the unconfirmed parts of its decisions must be
    /// taken off it again.
    pub fn unconfirmed_of(&self, app: &str) -> Vec<AskChange> {
        self.entries
            .iter()
            .filter(|e| e.decision.app == app && e.unconfirmed > 0)
            .map(|e| {
                (
                    key_of(&e.decision),
                    e.decision.locality,
                    e.host,
                    e.rack,
                    e.unconfirmed,
                )
            })
            .collect()
    }

    /// The containers decided and not yet settled: (app, their resource, whether they are AMs,
    /// the node).
    pub fn unconfirmed(&self) -> impl Iterator<Item = (&str, Resource, bool, &str)> + '_ {
        self.entries.iter().filter(|e| e.unconfirmed > 0).map(|e| {
            let c = e.decision.capability;
            let n = e.unconfirmed;
            (
                e.decision.app.as_str(),
                c.times(n as u64),
                e.am,
                e.decision.node.as_str(),
            )
        })
    }

    /// Map and reduce containers decided and not yet created or refused, per slot pool (map,
    /// reduce): a pool's cap must hold across a batch of node offers the RM executes only after
    /// the batch, as the AM share does.
    pub fn unconfirmed_slots(&self) -> [Resource; 2] {
        let mut out = [Resource::ZERO; 2];
        for e in self.entries.iter().filter(|e| e.unconfirmed > 0) {
            let i = match e.slot {
                Some(SlotKind::Map) => 0,
                Some(SlotKind::Reduce) => 1,
                None => continue,
            };
            let c = e.decision.capability;
            let n = e.unconfirmed;
            out[i] = out[i].add(&c.times(n as u64));
        }
        out
    }

    /// Called on each heartbeat of `node`. The shim settles a heartbeat's decisions before the
    /// node's next one, so a decision still unsettled two heartbeats later was lost; dropping
    /// it stops it from being re-applied to every later snapshot of its app (the asks would
    /// stay too low for good). One heartbeat of grace keeps drivers that step heartbeats
    /// ahead of executing decisions (simulators, tests) exact. Returns how many were dropped.
    pub fn expire_node(&mut self, node: &str) -> usize {
        let before = self.entries.len();
        self.entries.retain(|e| e.decision.node != node || !e.stale);
        for e in self.entries.iter_mut().filter(|e| e.decision.node == node) {
            e.stale = true;
        }
        before - self.entries.len()
    }

    /// The node is gone; its decisions will never be executed (the shim executes a batch under
    /// the RM's scheduler lock, which the node's removal also takes, so what it had executed
    /// was confirmed before the removal arrived). Returns each app's unconfirmed containers, for
    /// the asks: a `decision_rejected` that follows finds no entry and gives nothing back twice.
    pub fn forget_node(&mut self, node: &str) -> Vec<(String, AskChange)> {
        let mut back = Vec::new();
        self.entries.retain(|e| {
            if e.decision.node != node {
                return true;
            }
            if e.unconfirmed > 0 {
                back.push((
                    e.decision.app.clone(),
                    (
                        key_of(&e.decision),
                        e.decision.locality,
                        e.host,
                        e.rack,
                        e.unconfirmed,
                    ),
                ));
            }
            false
        });
        back
    }

    pub fn forget_app(&mut self, app: &str) {
        self.entries.retain(|e| e.decision.app != app);
    }
}

fn key_of(d: &Decision) -> SchedulerKey {
    SchedulerKey {
        priority: d.priority,
        allocation_request_id: d.allocation_request_id,
    }
}

fn same_decision(a: &Decision, b: &Decision) -> bool {
    a.app == b.app
        && a.node == b.node
        && a.priority == b.priority
        && a.allocation_request_id == b.allocation_request_id
        && a.resource_name == b.resource_name
        && a.locality == b.locality
}
