//! What each entry point does, minus JNI: JSON in, core call, JSON out. Everything here is
//! plain Rust so `cargo test -p locus-jni` covers it without a JVM.

use std::collections::{BTreeMap, VecDeque};

use locus_core::config::SideFiles;
use locus_core::frame::{self, FrameRefused};
use locus_core::{Core, Event, Heartbeat};
use parking_lot::Mutex;
use serde_json::Value;

use crate::error::{BridgeError, MAX_REPORTED_EVENTS};
use crate::handle;

/// `{"locus.policy":"fifo", ...}` → settings map. Values must be strings because they come
/// from Hadoop's `Configuration`; anything else is a shim bug worth naming.
pub fn parse_properties(json: &str) -> Result<BTreeMap<String, String>, BridgeError> {
    let value: Value = serde_json::from_str(json).map_err(|e| BridgeError::BadJson {
        what: "properties JSON",
        detail: e.to_string(),
    })?;
    let Value::Object(map) = value else {
        return Err(BridgeError::BadJson {
            what: "properties JSON",
            detail: format!(
                "expected an object of string to string, got {}",
                kind_of(&value)
            ),
        });
    };
    let mut props = BTreeMap::new();
    for (key, v) in map {
        match v {
            Value::String(s) => {
                props.insert(key, s);
            }
            other => {
                return Err(BridgeError::BadJson {
                    what: "properties JSON",
                    detail: format!("value of {key} must be a string, got {}", kind_of(&other)),
                })
            }
        }
    }
    Ok(props)
}

/// Set by the shim, in the properties of a core it opens to replace the one it closed
/// (`CoreLink`): that core's handle. The new core takes over what the closed one parsed from
/// its side files instead of reading them again ([`locus_core::side_files`]).
pub const REBUILD_OF: &str = "rebuild.of";

/// Closed cores kept at most in [`RETIRED`]: one per scheduler in a process is all a rebuild
/// needs; the bound keeps a process that opens and closes many cores (tests) from holding
/// their stores.
const MAX_RETIRED: usize = 4;

/// What the cores closed last parsed from their side files, by handle, oldest first: kept for
/// the core rebuilt in the place of each, which takes it.
static RETIRED: Mutex<VecDeque<(i64, SideFiles)>> = Mutex::new(VecDeque::new());

pub fn create(properties_json: &str) -> Result<i64, BridgeError> {
    let mut props = parse_properties(properties_json)?;
    let carried = match props.remove(REBUILD_OF) {
        Some(of) => {
            let of = of.trim().parse::<i64>().ok();
            let mut retired = RETIRED.lock();
            match retired.iter().position(|(h, _)| Some(*h) == of) {
                Some(i) => retired.remove(i).map(|(_, side)| side).unwrap_or_default(),
                None => SideFiles::default(),
            }
        }
        None => SideFiles::default(),
    };
    let core = Core::rebuilt(&props, carried)?;
    Ok(handle::register(core))
}

pub fn reconfigure(h: i64, properties_json: &str) -> Result<(), BridgeError> {
    let props = parse_properties(properties_json)?;
    handle::with_scheduler(h, |s| {
        let mut core = s.lock_core()?;
        core.reconfigure(&props)?;
        s.settings_changed(&core);
        Ok(())
    })
}

/// Applies a JSON array of events in order. A bad or refused event does not stop the batch:
/// the shim has already changed the RM's bookkeeping for every event in it, so each good one
/// is applied and the error afterwards names every refused one by index and type.
///
/// Returns the applications whose `asks_digest` differed from the core's (each once): the shim
/// owes each an `asks_updated` snapshot.
pub fn events(h: i64, events_json: &str) -> Result<Vec<String>, BridgeError> {
    apply_events(h, decode_events(events_json)?)
}

/// As [`events`], the batch a binary events frame (`locus_core::events_frame`) carries: a
/// malformed frame is refused whole, a JSON record that is no event is refused alone.
pub fn events_frame(h: i64, frame: &[u8]) -> Result<Vec<String>, BridgeError> {
    apply_events(h, decode_events_frame(frame)?)
}

fn apply_events(h: i64, decoded: Decoded) -> Result<Vec<String>, BridgeError> {
    handle::with_scheduler(h, |s| apply(&mut *s.lock_core()?, decoded))
}

fn decode_events_frame(frame: &[u8]) -> Result<Decoded, BridgeError> {
    let records = locus_core::events_frame::decode(frame).map_err(BridgeError::BadEventsFrame)?;
    Ok(records
        .into_iter()
        .map(|r| match r {
            Ok(event) => (String::new(), Ok(event)),
            Err(detail) => ("JSON record".to_string(), Err(detail)),
        })
        .collect())
}

/// An event batch as decoded before taking the core's lock, so heartbeats on other threads
/// wait only for the core's own work: each event with the sender's type tag (empty when the
/// whole batch decoded at once) or why it did not decode.
type Decoded = Vec<(String, Result<Event, String>)>;

fn decode_events(events_json: &str) -> Result<Decoded, BridgeError> {
    // Fast path: a well-formed batch decodes in one typed pass (about half the cost of going
    // through `Value`). Only a batch with a bad event takes the slow path that finds its index.
    if let Ok(batch) = serde_json::from_str::<Vec<Event>>(events_json) {
        return Ok(batch.into_iter().map(|e| (String::new(), Ok(e))).collect());
    }
    let value: Value = serde_json::from_str(events_json).map_err(|e| BridgeError::BadJson {
        what: "events JSON",
        detail: e.to_string(),
    })?;
    let Value::Array(items) = value else {
        return Err(BridgeError::BadJson {
            what: "events JSON",
            detail: format!("expected an array of events, got {}", kind_of(&value)),
        });
    };
    // A bad event stays in the list as an error, reported after the rest.
    Ok(items
        .into_iter()
        .map(|item| {
            // The tag is the sender's text: only its start goes into an error message.
            let kind: String = item
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("no type")
                .chars()
                .take(64)
                .collect();
            (
                kind,
                serde_json::from_value(item).map_err(|e| e.to_string()),
            )
        })
        .collect())
}

/// Events whose answer no caller waits on (kinds in [`crate::deferred::DEFERRABLE`]): applied
/// now when the core is free, else queued and applied, in order, before the core's next call
/// (see [`crate::deferred`]). Never waits for another call's hold of the core unless the queue
/// is full. A refusal of this batch applied now fails the call as [`events`] does; refusals of
/// events queued earlier come back as `Some(message)` on the next call that succeeds.
///
/// No native calls it: the shim sends deferrable events only as frames
/// ([`events_frame_deferrable`]). Kept for the bridge's tests and the deferral benchmark
/// (`benches/deferred_events.rs`), whose JSON batches stay readable.
pub fn events_deferrable(h: i64, events_json: &str) -> Result<Option<String>, BridgeError> {
    defer_events(h, decode_events(events_json)?)
}

/// Events whose answer no caller waits on (kinds in [`crate::deferred::DEFERRABLE`]), the batch
/// of a binary events frame (see [`events_frame`]): applied now when the core is free, else
/// queued and applied, in order, before the core's next call (see [`crate::deferred`]). Never
/// waits for another call's hold of the core unless the queue is full. A refusal of this batch
/// applied now fails the call as [`events`] does; refusals of events queued earlier come back
/// as `Some(message)` on the next call that succeeds.
pub fn events_frame_deferrable(h: i64, frame: &[u8]) -> Result<Option<String>, BridgeError> {
    defer_events(h, decode_events_frame(frame)?)
}

fn defer_events(h: i64, decoded: Decoded) -> Result<Option<String>, BridgeError> {
    // Checked before anything is applied: an event whose answer a caller needs (a drift, an
    // admission verdict) must not vanish into the queue.
    for (index, (kind, event)) in decoded.iter().enumerate() {
        if let Ok(event) = event {
            if !crate::deferred::DEFERRABLE.contains(&event.kind()) {
                let kind = if kind.is_empty() {
                    event.kind().to_string()
                } else {
                    kind.clone()
                };
                return Err(BridgeError::NotDeferrable { index, kind });
            }
        }
    }
    handle::with_scheduler_without_waiting(h, |s| {
        if decoded.iter().any(|(_, e)| e.is_err()) {
            // A malformed batch is the shim's bug: answered now, naming each bad event, with
            // the good ones applied (no drift can come of deferrable kinds).
            apply(&mut *s.lock_core()?, decoded)?;
            return Ok(s.deferred().take_report());
        }
        let events: Vec<Event> = decoded.into_iter().filter_map(|(_, e)| e.ok()).collect();
        let mut core = match s.try_lock_core()? {
            Some(core) => core,
            None => match s.deferred().push(events) {
                Ok(()) => return Ok(s.deferred().take_report()),
                // Queue full: wait for the lock; nothing is dropped.
                Err(events) => return apply_now(s, &mut *s.lock_core()?, events),
            },
        };
        apply_now(s, &mut core, events)
    })
}

fn apply_now(
    s: &handle::NativeScheduler,
    core: &mut Core,
    events: Vec<Event>,
) -> Result<Option<String>, BridgeError> {
    apply(
        core,
        events.into_iter().map(|e| (String::new(), Ok(e))).collect(),
    )?;
    Ok(s.deferred().take_report())
}

/// What an asks frame taught (`Core::learned_ids`): (row of the frame, id) of waiting names
/// the shim may send as ids from now on.
pub type Taught = Vec<(u32, u32)>;

/// One binary asks frame (`locus_core::frame`: the rows an AM's allocate() set, or a snapshot,
/// and the RM's digest), applied like the same events in JSON. A malformed frame is refused
/// whole. Returns the drifted applications as [`events`] does, and what the frame taught.
pub fn asks_frame(h: i64, frame: &[u8]) -> Result<(Vec<String>, Taught), BridgeError> {
    handle::with_scheduler(h, |s| {
        // Decoded in place (the rows' names stay in the frame's bytes, no String per row) and
        // before the core's lock; a frame over the row limit is refused from its header, as
        // the core refuses it, before anything is reserved for its rows.
        let decoded = match frame::decode_view_within(frame, s.ask_row_limit()) {
            Ok(decoded) => decoded,
            Err(FrameRefused::Malformed(e)) => return Err(BridgeError::BadFrame(e)),
            Err(FrameRefused::OverLimit { snapshot, error }) => {
                return Err(BridgeError::Event {
                    index: 0,
                    kind: rows_event(snapshot).to_string(),
                    source: Box::new(BridgeError::Core(error)),
                })
            }
        };
        let mut core = s.lock_core()?;
        let kinds = [rows_event(decoded.snapshot), "asks_digest"];
        let outcomes = core.handle_asks_frame(&decoded);
        let total = outcomes.len();
        let mut refused: Vec<BridgeError> = outcomes
            .into_iter()
            .enumerate()
            .filter_map(|(index, r)| {
                r.err().map(|e| BridgeError::Event {
                    index,
                    kind: kinds[index].to_string(),
                    source: Box::new(BridgeError::Core(e)),
                })
            })
            .collect();
        // As `apply`: a drift found alongside a refusal is not kept for a later call.
        let drifted = core.take_drifted();
        match refused.len() {
            0 => Ok((drifted, core.learned_ids().to_vec())),
            1 => Err(refused.remove(0)),
            _ => Err(BridgeError::Events {
                total,
                refused,
                omitted: 0,
            }),
        }
    })
}

/// The event an asks frame's rows stand for, as a refusal names it.
fn rows_event(snapshot: bool) -> &'static str {
    if snapshot {
        "asks_updated"
    } else {
        "asks_changed"
    }
}

/// Applies decoded events in order under one lock; events that failed to decode or that the
/// core refuses are skipped and reported together at the end.
/// The caller holds the lock for the whole batch: the shim sends a batch for one RM event, and
/// another thread's heartbeat should not see half of it.
fn apply(core: &mut Core, decoded: Decoded) -> Result<Vec<String>, BridgeError> {
    let total = decoded.len();
    // A bad event must not cost the good ones after it (a container_allocated behind a
    // refused asks_updated would otherwise be lost): apply every event, report every refusal.
    let mut refused = Vec::new();
    let mut omitted = 0usize;
    let mut refuse = |e: BridgeError| {
        if refused.len() < MAX_REPORTED_EVENTS {
            refused.push(e);
        } else {
            omitted += 1;
        }
    };
    for (index, (kind, event)) in decoded.into_iter().enumerate() {
        let event = match event {
            Ok(event) => event,
            Err(detail) => {
                let source = Box::new(BridgeError::BadJson {
                    what: "event",
                    detail,
                });
                refuse(BridgeError::Event {
                    index,
                    kind,
                    source,
                });
                continue;
            }
        };
        // The tag is a constant: naming it must not cost a re-encoding of every event.
        let tag = event.kind();
        if let Err(e) = core.handle(event) {
            let kind = if kind.is_empty() {
                tag.to_string()
            } else {
                kind
            };
            refuse(BridgeError::Event {
                index,
                kind,
                source: Box::new(BridgeError::Core(e)),
            });
        }
    }
    // Taken on every outcome: a drift found in a batch that also had a refusal is not kept
    // for a later call (the shim re-sends the snapshots of a refused batch anyway).
    let drifted = core.take_drifted();
    match (refused.len(), omitted) {
        (0, _) => Ok(drifted),
        (1, 0) => Err(refused.remove(0)),
        _ => Err(BridgeError::Events {
            total,
            refused,
            omitted,
        }),
    }
}

/// Node heartbeat → `HeartbeatResponse` JSON. No native calls it: the shim offers nodes in
/// offers frames ([`offers`]). Kept for the fuzzer's hostile mode (`fuzz/src/hostile.rs`), the
/// bridge's tests and `examples/ops_bench.rs`, which drive the bridge's error paths with JSON.
pub fn heartbeat(h: i64, heartbeat_json: &str) -> Result<String, BridgeError> {
    let hb: Heartbeat = serde_json::from_str(heartbeat_json).map_err(|e| BridgeError::BadJson {
        what: "heartbeat JSON",
        detail: e.to_string(),
    })?;
    let response = handle::with_scheduler(h, |s| Ok(s.lock_core()?.heartbeat(&hb)?))?;
    to_json(&response, "heartbeat response")
}

/// One binary offers frame (`locus_core::offers`: the nodes of a scheduling pass with their
/// unallocated resources) decided under one lock. `None` when no node got a decision and none
/// was refused (most offers of a pass), else the answer as a decisions frame
/// (`locus_core::decisions_frame`), each decision naming its node by its place in `frame`.
pub fn offers(h: i64, frame: &[u8]) -> Result<Option<Vec<u8>>, BridgeError> {
    let batch = locus_core::offers::decode(frame).map_err(BridgeError::BadOffersFrame)?;
    let response = handle::with_scheduler(h, |s| Ok(s.lock_core()?.offers(&batch)))?;
    if response.decisions.is_empty() && response.refused.is_empty() {
        return Ok(None);
    }
    locus_core::decisions_frame::encode(&batch, &response)
        .map(Some)
        .map_err(|e| BridgeError::BadAnswer(e.0))
}

/// The core's counters plus the bridge's own: `deferred_events` (events queued because a call
/// held the core, since it was created) and `deferred_events_refused` (refused among them).
/// The ids the core published for `names_json` (a JSON array of host and rack names of nodes
/// the RM has), for the shim to send instead of the names in asks frames:
/// `{"epoch":E,"ids":[id or null, ...]}` in the array's order; null for a name no live node
/// carries. Work and answer are proportional to the array the shim sent.
pub fn name_ids(h: i64, names_json: &str) -> Result<String, BridgeError> {
    let names: Vec<String> =
        serde_json::from_str(names_json).map_err(|e| BridgeError::BadJson {
            what: "names JSON",
            detail: e.to_string(),
        })?;
    let (epoch, ids) = handle::with_scheduler(h, |s| {
        Ok(s.lock_core()?.name_ids(names.iter().map(String::as_str)))
    })?;
    Ok(serde_json::json!({ "epoch": epoch, "ids": ids }).to_string())
}

pub fn stats(h: i64) -> Result<String, BridgeError> {
    let (stats, (_, queued, refused)) =
        handle::with_scheduler(h, |s| Ok((s.lock_core()?.stats(), s.deferred().counts())))?;
    let mut value = serde_json::to_value(&stats).map_err(|e| BridgeError::BadJson {
        what: "stats",
        detail: e.to_string(),
    })?;
    if let Value::Object(fields) = &mut value {
        fields.insert("deferred_events".into(), queued.into());
        fields.insert("deferred_events_refused".into(), refused.into());
    }
    to_json(&value, "stats")
}

/// Under `locus.policy=capacity`, the configured queues as a JSON array of
/// `{"name","capacity","maximum_capacity"}` (percent of the cluster's memory, in the order
/// configured); `None` under every other policy, where the shim keeps its single queue.
pub fn capacity_queues(h: i64) -> Result<Option<String>, BridgeError> {
    handle::with_scheduler(h, |s| {
        s.lock_core()?
            .capacity_queues()
            .map(|q| to_json(&q, "capacity queues"))
            .transpose()
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PreemptionRequest {
    /// The RM's clock.
    now_ms: u64,
    /// The `yarn.resourcemanager.monitor.capacity.preemption.*` keys the RM has, as strings.
    settings: BTreeMap<String, String>,
    /// Only check the settings: the answer is them with defaults applied; the core is not
    /// touched.
    #[serde(default)]
    check_only: bool,
}

/// One preemption round (`locus_core::preemption`): the answer is the round's outcome as JSON
/// (`mark`, `kill`, `selected` and `intra_queue` container ids, `observe_only`), or the settings in force for a
/// `check_only` request. A bad setting is refused naming its key.
pub fn preemption_round(h: i64, request_json: &str) -> Result<String, BridgeError> {
    let request: PreemptionRequest =
        serde_json::from_str(request_json).map_err(|e| BridgeError::BadJson {
            what: "preemption request JSON",
            detail: e.to_string(),
        })?;
    let settings = locus_core::preemption::PreemptionSettings::parse(&request.settings)?;
    if request.check_only {
        return to_json(&settings, "preemption settings");
    }
    let outcome = handle::with_scheduler(h, |s| {
        Ok(s.lock_core()?.preemption_round(request.now_ms, &settings))
    })?;
    to_json(&outcome, "preemption round")
}

/// Frees the core; what it parsed from its side files is kept for a core rebuilt in its place
/// (see [`create`]).
pub fn close(h: i64) -> Result<(), BridgeError> {
    let side = handle::close(h)?.into_side_files();
    let mut retired = RETIRED.lock();
    // A handle's address may be reused by a later core: its newest close is the one kept.
    retired.retain(|(closed, _)| *closed != h);
    if !side.is_empty() {
        if retired.len() == MAX_RETIRED {
            retired.pop_front();
        }
        retired.push_back((h, side));
    }
    Ok(())
}

/// Test support only (`CoreFaults.injectPanic`, `test-hooks` builds): a core panic on demand.
#[cfg(any(test, feature = "test-hooks"))]
pub fn inject_panic_for_tests(h: i64, message: &str) -> Result<(), BridgeError> {
    handle::inject_panic_for_tests(h, message)
}

fn to_json<T: serde::Serialize>(value: &T, what: &'static str) -> Result<String, BridgeError> {
    serde_json::to_string(value).map_err(|e| BridgeError::BadJson {
        what,
        detail: e.to_string(),
    })
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_must_be_an_object_of_strings() {
        let props = parse_properties(r#"{"locus.policy":"fifo","locus.x":"1"}"#).unwrap();
        assert_eq!(props.get("locus.policy").map(String::as_str), Some("fifo"));

        let err = parse_properties(r#"{"locus.policy":3}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("locus.policy") && err.contains("must be a string"),
            "{err}"
        );

        let err = parse_properties("[1]").unwrap_err().to_string();
        assert!(err.contains("expected an object"), "{err}");

        let err = parse_properties("{not json").unwrap_err().to_string();
        assert!(err.starts_with("malformed properties JSON"), "{err}");
    }

    #[test]
    fn bad_event_is_named_by_index_and_type() {
        let h = create("{}").unwrap();
        let batch = r#"[
            {"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1",
             "capability":{"memory_mb":8192,"vcores":8}},
            {"type":"node_added","node":"h2:8041"}
        ]"#;
        let err = events(h, batch).unwrap_err().to_string();
        assert!(err.starts_with("event 1 (node_added) rejected:"), "{err}");
        assert!(err.contains("host"), "names the missing field: {err}");

        let err = events(h, r#"[{"type":"node_exploded"}]"#)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("event 0 (node_exploded)"), "{err}");

        let err = events(h, r#"{"type":"node_removed","node":"h1"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected an array"), "{err}");
        close(h).unwrap();
    }

    #[test]
    fn an_event_the_core_refuses_is_named_by_index_and_type() {
        let h = create("{}").unwrap();
        let batch = r#"[
            {"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1",
             "capability":{"memory_mb":8192,"vcores":8}},
            {"type":"asks_updated","app":"application_9_0001","asks":[]}
        ]"#;
        let err = events(h, batch).unwrap_err().to_string();
        assert!(err.starts_with("event 1 (asks_updated) rejected:"), "{err}");
        assert!(err.contains("application_9_0001"), "{err}");
        close(h).unwrap();
    }

    #[test]
    fn offers_decide_a_batch_and_name_a_bad_frame() {
        use locus_core::Resource;
        let h = create("{}").unwrap();
        let added = r#"[{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{"memory_mb":8192,"vcores":8}}]"#;
        events(h, added).unwrap();
        let idle = locus_core::offers::encode(1, &[("h1:8041", Resource::new(8192, 8))]);
        assert_eq!(offers(h, &idle).unwrap(), None, "no asks, nothing to say");
        let ghost = locus_core::offers::encode(
            1,
            &[
                ("h1:8041", Resource::new(8192, 8)),
                ("ghost:1", Resource::new(1, 1)),
            ],
        );
        let answer = offers(h, &ghost).unwrap().expect("the refusal is reported");
        let batch = locus_core::offers::decode(&ghost).unwrap();
        let parsed = locus_core::decisions_frame::decode(&answer, &batch).unwrap();
        assert_eq!(parsed.refused.len(), 1, "{parsed:?}");
        assert_eq!(parsed.refused[0].node, "ghost:1");
        let err = offers(h, &idle[..idle.len() - 1]).unwrap_err().to_string();
        assert!(err.starts_with("malformed offers frame at byte"), "{err}");
        let stats: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert_eq!(stats["heartbeats"], 2, "{stats}");
        close(h).unwrap();
    }

    /// A node with one app asking for one 1 GB container anywhere, and the offer of that node.
    fn one_ask_on_h1() -> (i64, Vec<u8>) {
        let h = create("{}").unwrap();
        let setup = r#"[{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{"memory_mb":8192,"vcores":8}},
            {"type":"app_added","app":"application_1_0001","queue":"default","user":"u"},
            {"type":"asks_updated","app":"application_1_0001","asks":[{"priority":1,"resource_name":"*","capability":{"memory_mb":1024,"vcores":1},"count":1,"relax_locality":true}]}]"#;
        events(h, setup).unwrap();
        let offer =
            locus_core::offers::encode(1, &[("h1:8041", locus_core::Resource::new(8192, 8))]);
        (h, offer)
    }

    #[test]
    fn a_decision_executed_and_confirmed_by_frames_leaves_nothing_in_flight() {
        use locus_core::events_frame;
        let (h, offer) = one_ask_on_h1();
        let answer = offers(h, &offer).unwrap().expect("a decision");
        let batch = locus_core::offers::decode(&offer).unwrap();
        let decided = locus_core::decisions_frame::decode(&answer, &batch).unwrap();
        assert_eq!(decided.decisions.len(), 1, "{decided:?}");
        let d = &decided.decisions[0];
        assert_eq!((d.node.as_str(), d.count), ("h1:8041", 1));
        let allocated = locus_core::Event::ContainerAllocated {
            container: locus_core::ContainerInfo {
                container: "container_1_0001_01_000001".into(),
                app: d.app.clone(),
                node: d.node.clone(),
                priority: d.priority,
                resource: d.capability,
            },
            locality: d.locality,
            allocation_request_id: d.allocation_request_id,
            recovered: false,
        };
        let digest = locus_core::Event::AsksDigest {
            app: d.app.clone(),
            digest: 12345,
        };
        let drifted = events_frame(h, &events_frame::encode(&[allocated, digest])).unwrap();
        let after: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert_eq!(
            (
                after["in_flight"].as_u64(),
                after["running_containers"].as_u64()
            ),
            (Some(0), Some(1)),
            "{after}"
        );
        // Not the digest of the core's (now empty) table: the core names the app it owes a
        // snapshot, as from a JSON batch.
        assert_eq!(drifted, vec!["application_1_0001".to_string()]);

        let released = locus_core::Event::ContainerReleased {
            app: d.app.clone(),
            container: "container_1_0001_01_000001".into(),
            node: d.node.clone(),
            resource: d.capability,
        };
        assert_eq!(
            events_frame_deferrable(h, &events_frame::encode(&[released])).unwrap(),
            None
        );
        assert_eq!(running(h), 0);
        close(h).unwrap();
    }

    #[test]
    fn a_bad_events_frame_is_refused_whole_and_a_bad_json_record_alone() {
        use locus_core::events_frame;
        let (h, _) = one_ask_on_h1();
        let removed = locus_core::Event::AppRemoved {
            app: "application_1_0001".into(),
        };
        let frame = events_frame::encode(&[removed]);
        let err = events_frame(h, &frame[..frame.len() - 1])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("malformed events frame at byte"), "{err}");
        let apps = |h| serde_json::from_str::<Value>(&stats(h).unwrap()).unwrap()["apps"].clone();
        assert_eq!(apps(h), 1, "nothing of a malformed frame is applied");

        // A well-framed JSON record that is no event: refused by index, the rest applied.
        let mut two = frame.clone();
        two[4..8].copy_from_slice(&2u32.to_le_bytes());
        let junk = br#"{"type":"nonsense"}"#;
        two.push(events_frame::KIND_JSON);
        two.extend_from_slice(&(junk.len() as u32).to_le_bytes());
        two.extend_from_slice(junk);
        let err = events_frame(h, &two).unwrap_err().to_string();
        assert!(
            err.starts_with("event 1 (JSON record) rejected: malformed event"),
            "{err}"
        );
        assert_eq!(apps(h), 0, "the good record before it was applied");

        // Only deferrable kinds may be queued, in a frame as in JSON.
        let err = events_frame_deferrable(h, &frame).unwrap_err().to_string();
        assert!(
            err.starts_with("event 0 (app_removed) cannot be queued"),
            "{err}"
        );
        close(h).unwrap();
    }

    #[test]
    fn heartbeat_round_trips_json() {
        let h = create("{}").unwrap();
        let out = heartbeat(
            h,
            r#"{"node":"h1:8041","unallocated":{"memory_mb":0,"vcores":0},"now_ms":1}"#,
        );
        // Whatever the core decides, the answer is a HeartbeatResponse or a named core error.
        match out {
            Ok(json) => {
                let parsed: locus_core::HeartbeatResponse = serde_json::from_str(&json).unwrap();
                assert!(parsed.decisions.is_empty(), "no room, no decisions: {json}");
            }
            Err(e) => assert!(e.to_string().contains("h1:8041"), "{e}"),
        }
        let err = heartbeat(h, r#"{"node":"h1:8041"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("malformed heartbeat JSON") && err.contains("unallocated"),
            "{err}"
        );
        let stats: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert!(stats.is_object());
        close(h).unwrap();
        assert!(matches!(stats_err(h), BridgeError::InvalidHandle(_)));
    }

    fn stats_err(h: i64) -> BridgeError {
        stats(h).unwrap_err()
    }

    #[test]
    fn capacity_queues_follow_the_policy_across_reconfiguration() {
        let h = create("{}").unwrap();
        assert_eq!(
            capacity_queues(h).unwrap(),
            None,
            "fifo has no capacity queues"
        );

        // A refused reconfiguration leaves the shim's view where it was.
        reconfigure(
            h,
            r#"{"locus.policy":"capacity","locus.capacity.queues":"a:50,b:40"}"#,
        )
        .unwrap_err();
        assert_eq!(capacity_queues(h).unwrap(), None);
        reconfigure(
            h,
            r#"{"locus.policy":"capacity","locus.capacity.queues":"a:50:90,b:50"}"#,
        )
        .unwrap();
        let json = capacity_queues(h).unwrap().expect("queues under capacity");
        let queues: Value = serde_json::from_str(&json).unwrap();
        // What the shim reads of each leaf (the core sends its limits too).
        let seen: Vec<Value> = queues
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                serde_json::json!([
                    q["name"],
                    q["path"],
                    q["capacity"],
                    q["maximum_capacity"],
                    q["state"]
                ])
            })
            .collect();
        assert_eq!(
            seen,
            [
                serde_json::json!(["a", "root.a", 50.0, 90.0, "RUNNING"]),
                serde_json::json!(["b", "root.b", 50.0, 100.0, "RUNNING"])
            ]
        );

        reconfigure(h, r#"{"locus.policy":"fair"}"#).unwrap();
        assert_eq!(capacity_queues(h).unwrap(), None);
        close(h).unwrap();
        assert!(matches!(
            capacity_queues(h),
            Err(BridgeError::InvalidHandle(_))
        ));
    }

    #[test]
    fn good_events_around_a_bad_one_stay_applied() {
        let h = create("{}").unwrap();
        let batch = r#"[
            {"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1",
             "capability":{"memory_mb":8192,"vcores":8}},
            {"type":"bogus"},
            {"type":"node_added","node":"h2:8041","host":"h2","rack":"/r1",
             "capability":{"memory_mb":8192,"vcores":8}},
            {"type":"node_removed","node":"h9:8041"},
            {"type":"asks_updated","app":"application_0_0009","asks":[]}
        ]"#;
        let err = events(h, batch).unwrap_err().to_string();
        assert!(err.contains("event 1 (bogus)"), "{err}");
        assert!(
            err.contains("event 4 (asks_updated)") && err.contains("application_0_0009"),
            "{err}"
        );
        let stats: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert_eq!(
            stats.get("nodes").and_then(Value::as_u64),
            Some(2),
            "{stats}"
        );
        close(h).unwrap();
    }

    /// Drift between the RM's asks and the core's is found by the digest, and only there: a
    /// matching digest names nothing, a different one names the app once per call, and the
    /// snapshot the shim then sends makes them agree again.
    #[test]
    fn a_different_asks_digest_names_the_app_until_a_snapshot_mends_it() {
        use locus_core::digest::of_totals;
        use locus_core::state::ask::SchedulerKey;
        let key = SchedulerKey {
            priority: 20,
            allocation_request_id: 0,
        };
        let h = create("{}").unwrap();
        let app = "application_1_0001";
        let row = |name: &str, count: u32| {
            format!(
                r#"{{"priority":20,"allocation_request_id":0,"resource_name":"{name}","capability":{{"memory_mb":1024,"vcores":1}},"count":{count},"relax_locality":true}}"#
            )
        };
        let setup = format!(
            r#"[{{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{{"memory_mb":8192,"vcores":8}}}},
               {{"type":"app_added","app":"{app}","queue":"default","user":"u"}},
               {{"type":"attempt_added","app":"{app}","attempt":"appattempt_1_0001_000001"}},
               {{"type":"asks_changed","app":"{app}","asks":[{},{},{}]}}]"#,
            row("h1", 2),
            row("/r1", 2),
            row("*", 2)
        );
        assert!(events(h, &setup).unwrap().is_empty());
        let check = |t: u64| {
            format!(
                r#"{{"type":"asks_digest","app":"{app}","digest":{}}}"#,
                of_totals([(key, t)])
            )
        };
        let digest = |t: u64| format!("[{}]", check(t));
        assert_eq!(events(h, &digest(2)).unwrap(), Vec::<String>::new());
        // The RM holds 5 where the core holds 2: named once, however often the batch says so.
        let twice = format!("[{},{}]", check(5), check(5));
        assert_eq!(events(h, &twice).unwrap(), vec![app.to_string()]);
        let snapshot = format!(
            r#"[{{"type":"asks_updated","app":"{app}","asks":[{}]}}]"#,
            row("*", 5)
        );
        assert!(events(h, &snapshot).unwrap().is_empty());
        assert!(events(h, &digest(5)).unwrap().is_empty());
        let stats: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert_eq!(stats["asks_drifts"], 1, "{stats}");

        // A decision the shim has not executed yet is still in the RM's asks: no drift.
        let hb = heartbeat(
            h,
            r#"{"node":"h1:8041","unallocated":{"memory_mb":8192,"vcores":8},"now_ms":1}"#,
        )
        .unwrap();
        let decided: locus_core::HeartbeatResponse = serde_json::from_str(&hb).unwrap();
        assert!(!decided.decisions.is_empty(), "{hb}");
        assert!(events(h, &digest(5)).unwrap().is_empty());
        let err = events(
            h,
            r#"[{"type":"asks_digest","app":"application_9_0009","digest":1}]"#,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("application_9_0009"), "{err}");
        close(h).unwrap();
    }

    /// A frame over `locus.app.max-ask-rows` is refused from its header in the words the core
    /// uses, as an event of the application, and the limit read there follows a reconfigure
    /// (a stale one would refuse what the core now takes, or reserve what it would refuse).
    #[test]
    fn an_asks_frame_over_the_row_limit_is_the_applications_refusal() {
        use locus_core::frame::{encode, KIND_SNAPSHOT};
        use locus_core::{Ask, Resource};
        let h = create(r#"{"locus.app.max-ask-rows":"100"}"#).unwrap();
        let app = "application_1_0003";
        events(
            h,
            &format!(
                r#"[{{"type":"app_added","app":"{app}","queue":"default","user":"u"}},
                   {{"type":"attempt_added","app":"{app}","attempt":"appattempt_1_0003_000001"}}]"#
            ),
        )
        .unwrap();
        let rows: Vec<Ask> = (0..101)
            .map(|i| Ask {
                priority: 20,
                allocation_request_id: 0,
                resource_name: if i == 0 { "*".into() } else { format!("h{i}") },
                capability: Resource::new(1024, 1),
                count: 1,
                relax_locality: true,
            })
            .collect();
        let f = encode(KIND_SNAPSHOT, app, &rows, None);
        let err = asks_frame(h, &f).unwrap_err().to_string();
        assert!(
            err.contains("asks_updated")
                && err.contains(&format!(
                    "application {app}: ask update refused, 101 rows in one message, over locus.app.max-ask-rows = 100"
                )),
            "{err}"
        );
        let limit = |h| {
            let s: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
            s["max_ask_rows"].as_u64().unwrap()
        };
        assert_eq!(limit(h), 100);
        reconfigure(h, r#"{"locus.app.max-ask-rows":"101"}"#).unwrap();
        assert_eq!(limit(h), 101);
        assert!(asks_frame(h, &f).unwrap().0.is_empty());
        close(h).unwrap();
    }

    #[test]
    fn an_asks_frame_applies_like_its_json_and_a_bad_one_changes_nothing() {
        use locus_core::frame::{encode, KIND_CHANGED};
        use locus_core::{Ask, Resource};
        let h = create("{}").unwrap();
        let app = "application_1_0002";
        events(
            h,
            &format!(
                r#"[{{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{{"memory_mb":8192,"vcores":8}}}},
                   {{"type":"app_added","app":"{app}","queue":"default","user":"u"}},
                   {{"type":"attempt_added","app":"{app}","attempt":"appattempt_1_0002_000001"}}]"#
            ),
        )
        .unwrap();
        let row = |name: &str, count| Ask {
            priority: 20,
            allocation_request_id: 0,
            resource_name: name.into(),
            capability: Resource::new(1024, 1),
            count,
            relax_locality: true,
        };
        let key = locus_core::state::ask::SchedulerKey {
            priority: 20,
            allocation_request_id: 0,
        };
        let rows = [row("h1", 3), row("/r1", 3), row("*", 3)];
        let good = encode(
            KIND_CHANGED,
            app,
            &rows,
            Some(locus_core::digest::of_totals([(key, 3)])),
        );
        assert!(asks_frame(h, &good).unwrap().0.is_empty());
        let pending = |h| {
            let s: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
            s["pending_containers"].as_u64().unwrap()
        };
        assert_eq!(pending(h), 3);
        // A digest that differs names the app, as in JSON.
        let drift = encode(KIND_CHANGED, app, &rows[2..], Some(1));
        assert_eq!(asks_frame(h, &drift).unwrap().0, vec![app.to_string()]);

        let mut bad = encode(KIND_CHANGED, app, &[row("*", 9)], None);
        // The row's name, `*`: the last such byte, as the fields after it are small numbers.
        let name = bad.iter().rposition(|&b| b == b'*').unwrap();
        bad[name] = 0xff;
        let err = asks_frame(h, &bad).unwrap_err().to_string();
        assert!(
            err.starts_with("malformed asks frame at byte") && err.contains("not UTF-8"),
            "{err}"
        );
        let err = asks_frame(h, &bad[..10]).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        assert_eq!(pending(h), 3, "a refused frame changes nothing");
        let err = asks_frame(h, &encode(KIND_CHANGED, "application_9_9", &rows, None)).unwrap_err();
        assert!(err.to_string().contains("application_9_9"), "{err}");
        close(h).unwrap();
        assert!(matches!(
            asks_frame(h, &good),
            Err(BridgeError::InvalidHandle(_))
        ));
    }

    /// The ids the core publishes answer the names asked, in order; a numbered frame built from
    /// them applies; malformed names JSON and a closed handle are errors, not panics.
    #[test]
    fn name_ids_answer_the_names_asked_and_number_a_frame() {
        use locus_core::frame::{encode_numbered, KIND_SNAPSHOT};
        use locus_core::{Ask, Resource};
        let h = create("{}").unwrap();
        let app = "application_1_0003";
        events(
            h,
            &format!(
                r#"[{{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{{"memory_mb":8192,"vcores":8}}}},
                   {{"type":"app_added","app":"{app}","queue":"default","user":"u"}},
                   {{"type":"attempt_added","app":"{app}","attempt":"appattempt_1_0003_000001"}}]"#
            ),
        )
        .unwrap();
        let answer: Value =
            serde_json::from_str(&name_ids(h, r#"["ghost","h1"]"#).unwrap()).unwrap();
        assert!(answer["ids"][0].is_null(), "{answer}");
        let id = answer["ids"][1].as_u64().expect("h1 numbered") as u32;
        let epoch = answer["epoch"].as_i64().expect("epoch");
        let row = |name: &str| Ask {
            priority: 20,
            allocation_request_id: 0,
            resource_name: name.into(),
            capability: Resource::new(1024, 1),
            count: 2,
            relax_locality: true,
        };
        let f = encode_numbered(
            KIND_SNAPSHOT,
            app,
            &[row("h1"), row("*")],
            None,
            Some(epoch),
            |n| (n == "h1").then_some(id),
        );
        assert!(asks_frame(h, &f).unwrap().0.is_empty());
        let err = name_ids(h, r#"{"not":"an array"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("names JSON"), "{err}");
        close(h).unwrap();
        assert!(matches!(
            name_ids(h, "[]"),
            Err(BridgeError::InvalidHandle(_))
        ));
    }

    /// A cluster with one running container, and the release of it, as the shim sends them.
    fn one_running_container() -> (i64, String) {
        let h = create("{}").unwrap();
        let app = "application_1_0003";
        let container = "container_1_0003_01_000002";
        let setup = format!(
            r#"[{{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1","capability":{{"memory_mb":8192,"vcores":8}}}},
               {{"type":"app_added","app":"{app}","queue":"default","user":"u"}},
               {{"type":"attempt_added","app":"{app}","attempt":"appattempt_1_0003_000001"}},
               {{"type":"container_allocated","container":"{container}","app":"{app}","node":"h1:8041","priority":20,
                 "allocation_request_id":0,"resource":{{"memory_mb":1024,"vcores":1}},"locality":"off_switch","recovered":true}}]"#
        );
        assert!(events(h, &setup).unwrap().is_empty());
        assert_eq!(running(h), 1);
        let released = format!(
            r#"[{{"type":"container_released","app":"{app}","container":"{container}","node":"h1:8041","resource":{{"memory_mb":1024,"vcores":1}}}}]"#
        );
        (h, released)
    }

    fn running(h: i64) -> u64 {
        let s: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        s["running_containers"].as_u64().unwrap()
    }

    /// The RM's dispatcher (a NODE_UPDATE reporting a finished container) and
    /// allocate() (an AM releasing one) must not wait for a scheduling pass holding the core.
    #[test]
    fn a_released_container_does_not_wait_for_a_pass_holding_the_core() {
        use std::sync::mpsc;
        use std::time::Duration;
        let (h, released) = one_running_container();
        let (held_tx, held_rx) = mpsc::channel();
        let (end_tx, end_rx) = mpsc::channel::<()>();
        let pass = std::thread::spawn(move || {
            handle::hold_core_for_tests(h, || {
                held_tx.send(()).unwrap();
                end_rx.recv().unwrap();
                Ok(())
            })
        });
        held_rx.recv().unwrap();
        let (done_tx, done_rx) = mpsc::channel();
        let dispatcher = std::thread::spawn(move || {
            done_tx.send(events_deferrable(h, &released)).unwrap();
        });
        // Ordering, not timing: the answer must arrive while the pass still holds the core. The
        // timeout only turns a call stuck behind the pass into a failure instead of a hang.
        let answer = done_rx.recv_timeout(Duration::from_secs(30));
        end_tx.send(()).unwrap();
        pass.join().unwrap().unwrap();
        dispatcher.join().unwrap();
        let answer = answer.expect("container_released waited for the pass holding the core");
        assert_eq!(answer.unwrap(), None, "nothing refused");
        // Queued, then applied before the next call (here stats) saw the core.
        assert_eq!(running(h), 0);
        close(h).unwrap();
    }

    #[test]
    fn a_release_on_a_free_core_is_applied_at_once_and_the_queue_empties_on_every_path() {
        let (h, released) = one_running_container();
        assert_eq!(events_deferrable(h, &released).unwrap(), None);
        let counts = |h| handle::with_scheduler(h, |s| Ok(s.deferred().counts())).unwrap();
        assert_eq!(counts(h), (0, 0, 0), "a free core takes the event itself");
        assert_eq!(running(h), 0);
        close(h).unwrap();

        // Queued behind a held core, applied by whichever call comes next: a heartbeat here.
        let (h, released) = one_running_container();
        handle::hold_core_for_tests(h, || {
            assert_eq!(events_deferrable(h, &released).unwrap(), None);
            Ok(())
        })
        .unwrap();
        assert_eq!(counts(h), (1, 1, 0));
        heartbeat(
            h,
            r#"{"node":"h1:8041","unallocated":{"memory_mb":8192,"vcores":8},"now_ms":1}"#,
        )
        .unwrap();
        assert_eq!(counts(h), (0, 1, 0));
        assert_eq!(running(h), 0);
        let stats: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert_eq!(stats["deferred_events"], 1, "{stats}");
        assert_eq!(stats["deferred_events_refused"], 0, "{stats}");
        close(h).unwrap();
    }

    #[test]
    fn an_event_whose_answer_is_needed_is_never_queued() {
        let h = create("{}").unwrap();
        let batch =
            r#"[{"type":"app_added","app":"application_1_0004","queue":"default","user":"u"}]"#;
        let err = events_deferrable(h, batch).unwrap_err().to_string();
        assert!(
            err.starts_with("event 0 (app_added) cannot be queued: its answer is needed"),
            "{err}"
        );
        let stats: Value = serde_json::from_str(&stats(h).unwrap()).unwrap();
        assert_eq!(stats["apps"], 0, "nothing of the batch applied: {stats}");
        // A malformed one is answered now, naming the culprit, as by `events`.
        let err = events_deferrable(h, r#"[{"type":"container_released","app":"a"}]"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("event 0 (container_released) rejected:"),
            "{err}"
        );
        close(h).unwrap();
    }

    /// A panic poisons the handle with its queue: later releases are refused (the shim rebuilds
    /// and replays the RM's bookkeeping into a new handle, whose queue is empty), never queued.
    #[test]
    fn a_poisoned_core_queues_nothing_and_its_queue_dies_with_it() {
        crate::guard::install_panic_hook();
        let (h, released) = one_running_container();
        handle::hold_core_for_tests(h, || {
            assert_eq!(events_deferrable(h, &released).unwrap(), None);
            Ok(())
        })
        .unwrap();
        // The panic comes after the drain (inject_panic takes the lock as every call does).
        assert!(matches!(
            inject_panic_for_tests(h, "core bug"),
            Err(BridgeError::Poisoned { .. })
        ));
        let err = events_deferrable(h, &released).unwrap_err();
        assert!(matches!(err, BridgeError::Poisoned { .. }), "{err}");
        close(h).unwrap();
        let fresh = create("{}").unwrap();
        let counts = handle::with_scheduler(fresh, |s| Ok(s.deferred().counts())).unwrap();
        assert_eq!(counts, (0, 0, 0));
        close(fresh).unwrap();
    }

    #[test]
    fn a_core_rebuilt_in_the_place_of_a_closed_one_reads_none_of_its_side_files() {
        let dir = std::env::temp_dir().join(format!("locus-jni-rebuild-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let mapping = dir.join("mapping.txt");
        std::fs::write(&mapping, "h1 east\n").unwrap();
        let store = dir.join("profiles.json");
        let settings = serde_json::json!({
            "locus.datacenter.mapping.file": mapping,
            "locus.profile.store": store,
        });
        let old = create(&settings.to_string()).unwrap();
        close(old).unwrap();
        // Both files become unreadable (a directory in the place of each).
        std::fs::remove_file(&mapping).unwrap();
        std::fs::create_dir(&mapping).unwrap();
        std::fs::create_dir(&store).unwrap();

        let start = create(&settings.to_string()).unwrap_err().to_string();
        assert!(start.contains("cannot read"), "{start}");
        let mut rebuild = settings.clone();
        rebuild[REBUILD_OF] = old.to_string().into();
        let fresh = create(&rebuild.to_string());
        assert!(
            fresh.is_ok(),
            "the rebuild re-read an unreadable file: {}",
            fresh.unwrap_err()
        );
        let fresh = fresh.unwrap();
        events(
            fresh,
            r#"[{"type":"node_added","node":"h1:8041","host":"h1","rack":"/r1",
                 "capability":{"memory_mb":8192,"vcores":8}}]"#,
        )
        .unwrap();
        close(fresh).unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }
}
