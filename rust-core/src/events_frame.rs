//! The binary events frame: what the RM did with the core's decisions and with its containers,
//! sent by the shim (`EventsFrame.java`) after every executed batch and every completed
//! container, instead of a JSON array built as a tree of objects per call
//! (`contract/wire.json` defines the layout, `tests/contract.rs` checks it).
//!
//! The hot kinds have fixed records: `container_allocated`, `container_released`,
//! `decision_rejected`, `asks_digest`. Any other event may ride in the same frame as one JSON
//! record, so a batch that needs a rare event (an `asks_updated` snapshot a drift owes) keeps
//! its order and its single call. Little-endian:
//!
//! ```text
//! header (8 bytes): u32 magic 0x3145_534C (the bytes "LSE1"), u32 E, records
//! then E records, each a u8 kind and its fields; a text is u16 L + L bytes UTF-8:
//!   1 container_allocated: app, container, node (texts), i32 priority,
//!     i64 allocation_request_id, i64 memory_mb, i32 vcores, u8 locality, u8 recovered (0/1),
//!     extra types
//!   2 container_released: app, container, node (texts), i64 memory_mb, i32 vcores, extra types
//!   3 decision_rejected: app, node, resource_name (texts), i32 priority,
//!     i64 allocation_request_id, u8 locality, u32 count, i64 memory_mb, i32 vcores,
//!     u32 executed, reason (text), extra types
//!   (extra types: u8 K, at most `MAX_EXTRA_TYPES`, then K i64 >= 0, the resource's types
//!   beyond memory and vcores, last in the record)
//!   4 asks_digest: app (text), i64 digest
//!   5 one event as JSON: u32 L + L bytes UTF-8
//! ```
//!
//! Locality codes are the decisions frame's (0 node_local, 1 rack_local, 2 off_switch). Texts
//! are bounded by their u16 length, JSON records by the frame; the record count is checked
//! against the bytes left (every record takes at least [`MIN_RECORD_BYTES`]) before anything is
//! reserved for it. A malformed frame is refused whole; a JSON record that is well framed but
//! not an event is that record's refusal alone, as in a JSON batch.

use crate::decisions_frame::locality_of;
use crate::frame::{FrameError, Reader};
use crate::protocol::{ContainerInfo, Decision, Event, Locality, Resource};

pub const MAGIC: u32 = 0x3145_534C;
pub const HEADER_BYTES: usize = 8;
pub const KIND_CONTAINER_ALLOCATED: u8 = 1;
pub const KIND_CONTAINER_RELEASED: u8 = 2;
pub const KIND_DECISION_REJECTED: u8 = 3;
pub const KIND_ASKS_DIGEST: u8 = 4;
pub const KIND_JSON: u8 = 5;
/// The smallest record: a kind byte and a JSON record's length (an empty text is refused).
pub const MIN_RECORD_BYTES: usize = 5;

/// One record as decoded: the event, or why a JSON record is not one (its refusal alone).
pub type Record = Result<Event, String>;

/// Every record of a frame, in order.
pub fn decode(bytes: &[u8]) -> Result<Vec<Record>, FrameError> {
    let mut r = Reader { bytes, at: 0 };
    r.magic(MAGIC, "an events frame")?;
    let count = r.u32("record count")? as usize;
    let left = bytes.len() - r.at;
    if count > left / MIN_RECORD_BYTES {
        return r.fail(format!(
            "{count} records announced, but {left} bytes left hold at most {}",
            left / MIN_RECORD_BYTES
        ));
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        out.push(record(&mut r, i)?);
    }
    if r.at != bytes.len() {
        return r.fail(format!(
            "{} bytes after the last record",
            bytes.len() - r.at
        ));
    }
    Ok(out)
}

fn record(r: &mut Reader, i: usize) -> Result<Record, FrameError> {
    let kind = r.u8("record kind")?;
    Ok(Ok(match kind {
        KIND_CONTAINER_ALLOCATED => {
            let (app, container, node) = (text(r, "app")?, text(r, "container")?, text(r, "node")?);
            let priority = r.i32("priority")?;
            let allocation_request_id = r.i64("allocation_request_id")?;
            let mut resource = resource(r, i)?;
            let locality = locality(r, i)?;
            let recovered = match r.u8("recovered")? {
                0 => false,
                1 => true,
                other => {
                    r.at -= 1;
                    return r.fail(format!("record {i}: recovered is {other}, not 0 or 1"));
                }
            };
            resource.extra = r.extra(EXTRA)?;
            Event::ContainerAllocated {
                container: ContainerInfo {
                    container,
                    app,
                    node,
                    priority,
                    resource,
                },
                locality,
                allocation_request_id,
                recovered,
            }
        }
        KIND_CONTAINER_RELEASED => {
            let (app, container, node) = (text(r, "app")?, text(r, "container")?, text(r, "node")?);
            let mut resource = resource(r, i)?;
            resource.extra = r.extra(EXTRA)?;
            Event::ContainerReleased {
                app,
                container,
                node,
                resource,
            }
        }
        KIND_DECISION_REJECTED => {
            let (app, node) = (text(r, "app")?, text(r, "node")?);
            let resource_name = text(r, "resource_name")?;
            let priority = r.i32("priority")?;
            let allocation_request_id = r.i64("allocation_request_id")?;
            let locality = locality(r, i)?;
            let count = r.u32("count")?;
            let mut capability = resource(r, i)?;
            let executed = r.u32("executed")?;
            let reason = text(r, "reason")?;
            capability.extra = r.extra(EXTRA)?;
            Event::DecisionRejected {
                decision: Decision {
                    app,
                    priority,
                    allocation_request_id,
                    resource_name,
                    node,
                    locality,
                    count,
                    capability,
                    limits: None,
                },
                executed,
                reason,
            }
        }
        KIND_ASKS_DIGEST => {
            let app = text(r, "app")?;
            let digest = r.i64("digest")?;
            Event::AsksDigest { app, digest }
        }
        KIND_JSON => {
            let len = r.u32("JSON length")? as usize;
            if len == 0 {
                r.at -= 4;
                return r.fail(format!("record {i}: empty JSON event"));
            }
            let json = r.text(len, "JSON event")?;
            return Ok(serde_json::from_str::<Event>(json).map_err(|e| e.to_string()));
        }
        other => {
            r.at -= 1;
            return r.fail(format!("record {i}: kind {other} (1 to 5)"));
        }
    }))
}

/// What a record's extra resource types are called in a refusal.
const EXTRA: &str = "extra resource types";

fn text(r: &mut Reader, what: &str) -> Result<String, FrameError> {
    let len = r.u16(what)? as usize;
    Ok(r.text(len, what)?.to_string())
}

fn resource(r: &mut Reader, i: usize) -> Result<Resource, FrameError> {
    let memory_mb = r.i64("memory_mb")?;
    let vcores = r.i32("vcores")?;
    if memory_mb < 0 || vcores < 0 {
        r.at -= 12;
        return r.fail(format!(
            "record {i}: resource of {memory_mb} MB, {vcores} vcores must not be negative"
        ));
    }
    Ok(Resource::new(memory_mb as u64, vcores as u32))
}

fn locality(r: &mut Reader, i: usize) -> Result<Locality, FrameError> {
    let code = r.u8("locality")?;
    locality_of(code).map_or_else(
        || {
            r.at -= 1;
            r.fail(format!(
                "record {i}: locality {code} (0 node_local, 1 rack_local, 2 off_switch)"
            ))
        },
        Ok,
    )
}

/// Writes `events` as a frame: the hot kinds as records, every other kind as JSON (the shim's
/// writer in Rust: tests, benches and the fuzzer). Texts over 65,535 bytes go as JSON too.
pub fn encode(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + events.len() * 96);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&(events.len() as u32).to_le_bytes());
    for e in events {
        let start = out.len();
        if !record_of(&mut out, e) {
            out.truncate(start);
            let json = serde_json::to_string(e).unwrap_or_default();
            out.push(KIND_JSON);
            out.extend_from_slice(&(json.len() as u32).to_le_bytes());
            out.extend_from_slice(json.as_bytes());
        }
    }
    out
}

/// Appends `e`'s fixed record; false when it has none (or a text too long for one).
fn record_of(out: &mut Vec<u8>, e: &Event) -> bool {
    use crate::decisions_frame::locality_code;
    let put = |out: &mut Vec<u8>, s: &str| -> bool {
        let Ok(len) = u16::try_from(s.len()) else {
            return false;
        };
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        true
    };
    let res = |out: &mut Vec<u8>, r: &Resource| {
        out.extend_from_slice(&(r.memory_mb.min(i64::MAX as u64) as i64).to_le_bytes());
        out.extend_from_slice(&(r.vcores.min(i32::MAX as u32) as i32).to_le_bytes());
    };
    match e {
        Event::ContainerAllocated {
            container: c,
            locality,
            allocation_request_id,
            recovered,
        } => {
            out.push(KIND_CONTAINER_ALLOCATED);
            if !(put(out, &c.app) && put(out, &c.container) && put(out, &c.node)) {
                return false;
            }
            out.extend_from_slice(&c.priority.to_le_bytes());
            out.extend_from_slice(&allocation_request_id.to_le_bytes());
            res(out, &c.resource);
            out.push(locality_code(*locality));
            out.push(u8::from(*recovered));
            crate::frame::put_extra(out, &c.resource);
        }
        Event::ContainerReleased {
            app,
            container,
            node,
            resource,
        } => {
            out.push(KIND_CONTAINER_RELEASED);
            if !(put(out, app) && put(out, container) && put(out, node)) {
                return false;
            }
            res(out, resource);
            crate::frame::put_extra(out, resource);
        }
        Event::DecisionRejected {
            decision: d,
            executed,
            reason,
        } => {
            out.push(KIND_DECISION_REJECTED);
            if !(put(out, &d.app) && put(out, &d.node) && put(out, &d.resource_name)) {
                return false;
            }
            out.extend_from_slice(&d.priority.to_le_bytes());
            out.extend_from_slice(&d.allocation_request_id.to_le_bytes());
            out.push(locality_code(d.locality));
            out.extend_from_slice(&d.count.to_le_bytes());
            res(out, &d.capability);
            out.extend_from_slice(&executed.to_le_bytes());
            if !put(out, reason) {
                return false;
            }
            crate::frame::put_extra(out, &d.capability);
        }
        Event::AsksDigest { app, digest } => {
            out.push(KIND_ASKS_DIGEST);
            if !put(out, app) {
                return false;
            }
            out.extend_from_slice(&digest.to_le_bytes());
        }
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<Event> {
        let decision = Decision {
            app: "application_1_0001".into(),
            priority: 20,
            allocation_request_id: 3,
            resource_name: "/rack1".into(),
            node: "h1:8041".into(),
            locality: Locality::RackLocal,
            count: 2,
            capability: Resource::with_extra(1024, 1, &[0, 2]),
            limits: None,
        };
        vec![
            Event::ContainerAllocated {
                container: ContainerInfo {
                    container: "container_1_0001_01_000002".into(),
                    app: "application_1_0001".into(),
                    node: "h1:8041".into(),
                    priority: 20,
                    resource: Resource::with_extra(1024, 1, &[1]),
                },
                locality: Locality::NodeLocal,
                allocation_request_id: -1,
                recovered: true,
            },
            Event::ContainerReleased {
                app: "application_1_0001".into(),
                container: "container_1_0001_01_000002".into(),
                node: "h1:8041".into(),
                resource: Resource::new(1024, 1),
            },
            Event::DecisionRejected {
                decision,
                executed: 1,
                reason: "node h1:8041 has <memory:0, vCores:0> unallocated".into(),
            },
            Event::AsksDigest {
                app: "application_1_0001".into(),
                digest: i64::MIN + 5,
            },
            Event::AppRemoved {
                app: "application_1_0001".into(),
            },
        ]
    }

    #[test]
    fn every_kind_round_trips_in_order_and_rare_kinds_ride_as_json() {
        let events = every_kind();
        let frame = encode(&events);
        let back: Vec<Event> = decode(&frame)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(back, events);
        // Only the last went as JSON.
        assert_eq!(frame.windows(7).filter(|w| *w == b"\"type\":").count(), 1);
    }

    #[test]
    fn a_json_record_that_is_no_event_is_its_own_refusal() {
        let mut frame = encode(&every_kind()[..1]);
        frame[4..8].copy_from_slice(&2u32.to_le_bytes());
        let json = br#"{"type":"no_such"}"#;
        frame.push(KIND_JSON);
        frame.extend_from_slice(&(json.len() as u32).to_le_bytes());
        frame.extend_from_slice(json);
        let records = decode(&frame).unwrap();
        assert!(records[0].is_ok());
        assert!(
            records[1].as_ref().unwrap_err().contains("no_such"),
            "{records:?}"
        );
    }

    #[test]
    fn every_truncation_garbage_and_a_huge_count_are_refused() {
        let frame = encode(&every_kind());
        for cut in 0..frame.len() {
            assert!(decode(&frame[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = frame.clone();
        long.push(0);
        assert!(decode(&long)
            .unwrap_err()
            .what
            .contains("after the last record"));
        let mut huge = frame.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&huge)
            .unwrap_err()
            .what
            .contains("records announced"));
        let mut kind = frame.clone();
        kind[HEADER_BYTES] = 9;
        let err = decode(&kind).unwrap_err();
        assert_eq!(err.offset, HEADER_BYTES);
        assert!(err.what.contains("kind 9"), "{err}");
        // Random bytes after a valid header never panic.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            let mut f = frame.clone();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = HEADER_BYTES + (seed as usize) % (f.len() - HEADER_BYTES);
            f[at] = (seed >> 32) as u8;
            let _ = decode(&f);
        }
    }

    #[test]
    fn a_negative_resource_names_its_record() {
        let mut frame = encode(&every_kind()[1..2]);
        // Memory and vcores, then the extra types' count byte (none).
        let at = frame.len() - 13;
        frame[at..at + 8].copy_from_slice(&(-5i64).to_le_bytes());
        let err = decode(&frame).unwrap_err();
        assert_eq!(err.offset, at);
        assert!(err.what.contains("record 0: resource of -5 MB"), "{err}");
    }
}
