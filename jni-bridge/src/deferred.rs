//! Events that no caller waits on, queued while another call holds the core.
//!
//! The scheduling thread holds the core's lock for a whole `offers` call (up to 32 nodes'
//! decisions). Without this queue the RM's dispatcher (a NODE_UPDATE reporting a finished
//! container) and allocate() (an AM releasing containers) would wait for that pass just to
//! tell the core what the RM has already done. Such an event now tries the lock; if the core
//! is busy it is queued here and the call returns. Every path to the core goes through
//! [`crate::handle::NativeScheduler::lock_core`], which applies the queue first, so no call
//! ever sees a core that is behind an event already reported, and events keep their order.
//!
//! Only kinds in [`DEFERRABLE`] are queued: their answer is "applied" or a refusal the shim
//! meets by resynchronising the core from the RM's bookkeeping, never a verdict a caller acts
//! on (an admission, a move, a priority, asks or their digest stay synchronous). A refusal of a
//! queued event is kept here and handed to the shim with the next deferrable call's answer.
//!
//! Bound: at most [`MAX_DEFERRED_EVENTS`] events wait; a call that would exceed it waits for the
//! lock instead (nothing is dropped). The queue empties at the start of every call that takes
//! the lock, so it only holds what arrives while one call runs.

use std::collections::VecDeque;

use locus_core::{Core, Event};
use parking_lot::Mutex;

use crate::error::{BridgeError, MAX_REPORTED_EVENTS};

/// The event kinds a caller may hand over without waiting for the answer.
pub const DEFERRABLE: &[&str] = &["container_released"];

/// Most events queued at once: ~200 bytes each, so under 1 MB per core. A pass of 32 nodes
/// lasts milliseconds; 4,096 completions within one is beyond any cluster Locus serves, and
/// when it happens the caller just waits as it did before the queue existed.
pub const MAX_DEFERRED_EVENTS: usize = 4096;

#[derive(Default)]
pub struct DeferredEvents {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Event>,
    /// Refusals of queued events not yet reported to the shim (the first few, named).
    refused: Vec<BridgeError>,
    /// Refusals beyond the named ones, counted.
    omitted: usize,
    /// Queued events applied since the last report.
    applied: usize,
    /// Since the core was created: events queued, refusals among them (for stats).
    total_queued: u64,
    total_refused: u64,
}

impl DeferredEvents {
    /// Queues `events` behind those already waiting, or gives them back when the queue would
    /// exceed [`MAX_DEFERRED_EVENTS`] (the caller then waits for the lock).
    pub fn push(&self, events: Vec<Event>) -> Result<(), Vec<Event>> {
        let mut state = self.state.lock();
        if state.queue.len() + events.len() > MAX_DEFERRED_EVENTS {
            return Err(events);
        }
        state.total_queued += events.len() as u64;
        state.queue.extend(events);
        Ok(())
    }

    /// Applies every queued event to `core` in order; the caller holds the core's lock. A
    /// panic in the core unwinds out of here and poisons the handle like any other call.
    pub fn drain_into(&self, core: &mut Core) {
        let queued = {
            let mut state = self.state.lock();
            if state.queue.is_empty() {
                return;
            }
            std::mem::take(&mut state.queue)
        };
        // Applied outside this queue's lock so callers may keep queueing meanwhile.
        let mut refused = Vec::new();
        let count = queued.len();
        for (index, event) in queued.into_iter().enumerate() {
            let kind = event.kind();
            if let Err(e) = core.handle(event) {
                refused.push(BridgeError::Event {
                    index,
                    kind: kind.to_string(),
                    source: Box::new(BridgeError::Core(e)),
                });
            }
        }
        let mut state = self.state.lock();
        state.applied += count;
        state.total_refused += refused.len() as u64;
        for e in refused {
            if state.refused.len() < MAX_REPORTED_EVENTS {
                state.refused.push(e);
            } else {
                state.omitted += 1;
            }
        }
    }

    /// The refusals of queued events since the last report, as one message naming each (by its
    /// index within the drain that applied it, and its type); `None` when there were none.
    pub fn take_report(&self) -> Option<String> {
        let mut state = self.state.lock();
        if state.refused.is_empty() && state.omitted == 0 {
            state.applied = 0;
            return None;
        }
        let refused = std::mem::take(&mut state.refused);
        let omitted = std::mem::take(&mut state.omitted);
        let total = std::mem::take(&mut state.applied);
        let err = BridgeError::Events {
            total,
            refused,
            omitted,
        };
        Some(format!("queued while the core was busy: {err}"))
    }

    /// Events waiting now, queued since creation, and refused among those.
    pub fn counts(&self) -> (usize, u64, u64) {
        let state = self.state.lock();
        (state.queue.len(), state.total_queued, state.total_refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn released(n: usize) -> Event {
        serde_json::from_str(&format!(
            r#"{{"type":"container_released","app":"application_1_0001","container":"container_1_0001_01_{n:06}","node":"h1:8041","resource":{{"memory_mb":1,"vcores":1}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn the_queue_is_bounded_and_a_full_one_gives_the_events_back() {
        let q = DeferredEvents::default();
        q.push((0..MAX_DEFERRED_EVENTS - 1).map(released).collect())
            .unwrap();
        let back = q.push(vec![released(1), released(2)]).unwrap_err();
        assert_eq!(
            back.len(),
            2,
            "nothing dropped: the caller applies them under the lock"
        );
        q.push(vec![released(3)]).unwrap();
        assert_eq!(
            q.counts(),
            (MAX_DEFERRED_EVENTS, MAX_DEFERRED_EVENTS as u64, 0)
        );
    }

    /// A refusal found while draining (on whatever call drained) is reported once, naming the
    /// event, to the next deferrable call; the events around it stay applied.
    #[test]
    fn a_refused_queued_event_is_reported_once() {
        let mut core = Core::new(&BTreeMap::new()).unwrap();
        let q = DeferredEvents::default();
        let node: Event = serde_json::from_str(
            r#"{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{"memory_mb":8192,"vcores":8}}"#,
        )
        .unwrap();
        // Kinds outside DEFERRABLE never reach the queue through the bridge; here they stand
        // for a refusal the core could give in the future.
        let refused: Event =
            serde_json::from_str(r#"{"type":"node_resource_updated","node":"ghost:1","capability":{"memory_mb":1,"vcores":1}}"#)
                .unwrap();
        q.push(vec![released(1), refused, node]).unwrap();
        assert_eq!(q.take_report(), None, "nothing drained yet");
        q.drain_into(&mut core);
        assert_eq!(
            core.stats().nodes,
            1,
            "the event after the refused one is applied"
        );
        let report = q.take_report().expect("the refusal is reported");
        assert!(
            report.starts_with("queued while the core was busy: 1 of 3 events rejected")
                && report.contains("event 1 (node_resource_updated)")
                && report.contains("ghost:1"),
            "{report}"
        );
        assert_eq!(q.take_report(), None, "reported once");
        assert_eq!(q.counts(), (0, 3, 1));
    }
}
