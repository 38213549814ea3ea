//! The core's side of the shim-core contract checked against its one definition,
//! `contract/wire.json`: every frame's magic, codes and fixed sizes, and the bytes each encoder
//! writes, compared with bytes built from the spec's field lists alone. The shim's
//! `ContractTest.java` checks the Java side against the same file, so a layout changed on one
//! side only fails one of them.

use locus_core::protocol::{
    Ask, CommitLimits, ContainerInfo, Decision, Event, Heartbeat, Locality, OffersResponse,
    RefusedOffer, Resource, MAX_EXTRA_TYPES,
};
use locus_core::{decisions_frame, events_frame, frame, offers};
use serde_json::{json, Value};

fn spec() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/wire.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn code(spec: &Value, table: &str, name: &str) -> u64 {
    spec["codes"][table][name]
        .as_u64()
        .unwrap_or_else(|| panic!("the spec has no code {table}.{name}"))
}

fn limit(spec: &Value, name: &str) -> usize {
    spec["limits"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("the spec has no limit {name}")) as usize
}

/// A frame's magic as the u32 its four ASCII bytes make when read little-endian.
fn magic(spec: &Value, frame: &str) -> u32 {
    let text = spec["frames"][frame]["magic"].as_str().unwrap();
    let bytes: [u8; 4] = text.as_bytes().try_into().unwrap();
    u32::from_le_bytes(bytes)
}

fn fields(layout: &Value) -> Vec<(&str, &str)> {
    layout
        .as_array()
        .unwrap_or_else(|| panic!("not a field list: {layout}"))
        .iter()
        .map(|f| (f[0].as_str().unwrap(), f[1].as_str().unwrap()))
        .collect()
}

/// The bytes a layout takes whatever its texts and lists hold (their length prefixes count).
fn fixed_bytes(layout: &Value) -> usize {
    fields(layout)
        .iter()
        .map(|(_, ty)| match *ty {
            "u8" | "list8_i64" => 1,
            "u16" | "str16" => 2,
            "u32" | "i32" | "str32" => 4,
            "i64" => 8,
            "utf8" => 0,
            other => panic!("the spec's type {other} is not one this test knows"),
        })
        .sum()
}

/// Writes `values` (field name to number, text or list of numbers) in `layout`'s order and
/// widths: the frame as the spec alone defines it.
fn write(out: &mut Vec<u8>, layout: &Value, values: &Value) {
    for (name, ty) in fields(layout) {
        let v = &values[name];
        assert!(!v.is_null(), "the sample has no field {name}");
        let int = |lo: i128, hi: i128| -> i128 {
            let n = v
                .as_i64()
                .map(i128::from)
                .or_else(|| v.as_u64().map(i128::from))
                .unwrap_or_else(|| panic!("{name} is no integer: {v}"));
            assert!((lo..=hi).contains(&n), "{name} = {n} does not fit a {ty}");
            n
        };
        let text = || v.as_str().unwrap_or_else(|| panic!("{name} is no text"));
        match ty {
            "u8" => out.push(int(0, u8::MAX as i128) as u8),
            "u16" => out.extend((int(0, u16::MAX as i128) as u16).to_le_bytes()),
            "u32" => out.extend((int(0, u32::MAX as i128) as u32).to_le_bytes()),
            "i32" => out.extend((int(i32::MIN as i128, i32::MAX as i128) as i32).to_le_bytes()),
            "i64" => out.extend((int(i64::MIN as i128, i64::MAX as i128) as i64).to_le_bytes()),
            "utf8" => out.extend(text().as_bytes()),
            "str16" => {
                out.extend((text().len() as u16).to_le_bytes());
                out.extend(text().as_bytes());
            }
            "str32" => {
                out.extend((text().len() as u32).to_le_bytes());
                out.extend(text().as_bytes());
            }
            "list8_i64" => {
                let items = v.as_array().unwrap();
                out.push(items.len() as u8);
                for i in items {
                    out.extend(i.as_i64().unwrap().to_le_bytes());
                }
            }
            other => panic!("the spec's type {other} is not one this test knows"),
        }
    }
}

/// Where two byte strings first differ, for a failure that says which field moved.
fn assert_bytes(what: &str, got: &[u8], expected: &[u8]) {
    if got != expected {
        let at = got
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(expected.len()));
        panic!(
            "{what}: the encoder's bytes differ from contract/wire.json's at byte {at} \
             ({} bytes written, {} specified)\n got      {got:?}\n expected {expected:?}",
            got.len(),
            expected.len()
        );
    }
}

#[test]
fn magics_codes_limits_and_fixed_sizes_are_the_specs() {
    let s = spec();
    assert_eq!(frame::MAGIC, magic(&s, "asks"));
    assert_eq!(offers::MAGIC, magic(&s, "offers"));
    assert_eq!(decisions_frame::MAGIC, magic(&s, "decisions"));
    assert_eq!(events_frame::MAGIC, magic(&s, "events"));

    let asks = &s["frames"]["asks"];
    assert_eq!(frame::HEADER_BYTES, fixed_bytes(&asks["header"]));
    assert_eq!(frame::ROW_FIXED_BYTES, fixed_bytes(&asks["row"]));
    // A numbered row's id replaces the name's bytes: the fixed part is the same.
    assert_eq!(
        frame::ROW_FIXED_BYTES + 4,
        fixed_bytes(&asks["numbered_row"])
    );
    let o = &s["frames"]["offers"];
    assert_eq!(offers::HEADER_BYTES, fixed_bytes(&o["header"]));
    assert_eq!(offers::NODE_FIXED_BYTES, fixed_bytes(&o["node"]));
    let d = &s["frames"]["decisions"];
    assert_eq!(decisions_frame::HEADER_BYTES, fixed_bytes(&d["header"]));
    assert_eq!(
        decisions_frame::DECISION_FIXED_BYTES,
        fixed_bytes(&d["decision"])
    );
    assert_eq!(
        decisions_frame::REFUSED_FIXED_BYTES,
        fixed_bytes(&d["refused"])
    );
    let e = &s["frames"]["events"];
    assert_eq!(events_frame::HEADER_BYTES, fixed_bytes(&e["header"]));
    let smallest = e["records"]
        .as_object()
        .unwrap()
        .values()
        .map(fixed_bytes)
        .min()
        .unwrap();
    assert_eq!(events_frame::MIN_RECORD_BYTES, smallest);

    assert_eq!(
        frame::KIND_CHANGED as u64,
        code(&s, "asks_kind", "asks_changed")
    );
    assert_eq!(
        frame::KIND_SNAPSHOT as u64,
        code(&s, "asks_kind", "asks_updated")
    );
    assert_eq!(frame::FLAG_DIGEST as u64, code(&s, "asks_flag", "digest"));
    assert_eq!(
        frame::FLAG_NAME_IDS as u64,
        code(&s, "asks_flag", "name_ids")
    );
    assert_eq!(
        offers::KIND_HEARTBEAT as u64,
        code(&s, "offer_kind", "heartbeat")
    );
    assert_eq!(offers::KIND_SWEEP as u64, code(&s, "offer_kind", "sweep"));
    assert_eq!(offers::KIND_EAGER as u64, code(&s, "offer_kind", "eager"));
    let records = [
        (
            "container_allocated",
            events_frame::KIND_CONTAINER_ALLOCATED,
        ),
        ("container_released", events_frame::KIND_CONTAINER_RELEASED),
        ("decision_rejected", events_frame::KIND_DECISION_REJECTED),
        ("asks_digest", events_frame::KIND_ASKS_DIGEST),
        ("json", events_frame::KIND_JSON),
    ];
    assert_eq!(
        s["codes"]["event_record"].as_object().unwrap().len(),
        records.len()
    );
    for (name, kind) in records {
        assert_eq!(kind as u64, code(&s, "event_record", name), "{name}");
        assert!(e["records"][name].is_array(), "no layout for record {name}");
    }
    let localities = s["codes"]["locality"].as_object().unwrap();
    assert_eq!(localities.len(), 3);
    for (name, c) in localities {
        let l: Locality = serde_json::from_value(json!(name)).unwrap();
        assert_eq!(
            decisions_frame::locality_code(l) as u64,
            c.as_u64().unwrap()
        );
        assert_eq!(
            decisions_frame::locality_of(c.as_u64().unwrap() as u8),
            Some(l)
        );
    }

    assert_eq!(frame::MAX_APP_BYTES, limit(&s, "app_id_bytes"));
    assert_eq!(
        locus_core::state::ask::MAX_NAME_BYTES,
        limit(&s, "name_bytes")
    );
    assert_eq!(decisions_frame::MAX_REASON_BYTES, limit(&s, "reason_bytes"));
    assert_eq!(decisions_frame::MAX_ANCESTORS, limit(&s, "ancestors"));
    assert_eq!(u16::MAX as usize, limit(&s, "text_bytes"));
    assert_eq!(MAX_EXTRA_TYPES, limit(&s, "extra_types"));
}

fn ask(name: &str, priority: i32, count: u32, relax: bool) -> Ask {
    Ask {
        priority,
        allocation_request_id: -7,
        resource_name: name.into(),
        capability: Resource::new(3072, 2),
        count,
        relax_locality: relax,
    }
}

fn row_values(a: &Ask) -> Value {
    json!({
        "priority": a.priority, "allocation_request_id": a.allocation_request_id,
        "memory_mb": a.capability.memory_mb, "vcores": a.capability.vcores, "count": a.count,
        "relax_locality": a.relax_locality as u8, "resource_name": a.resource_name,
        "extra": a.capability.extra_used(),
    })
}

#[test]
fn asks_frames_are_written_and_read_as_specified() {
    let s = spec();
    let f = &s["frames"]["asks"];
    let app = "application_1700000000000_0042";
    let mut gpu = ask("*", -1, 0, true);
    gpu.capability = Resource::with_extra(3072, 2, &[0, 2]);
    let rows = [ask("h1.example", 20, 2, false), gpu];

    // By name, with a digest.
    let got = frame::encode(frame::KIND_SNAPSHOT as u8, app, &rows, Some(-99));
    let mut expected = Vec::new();
    let header = json!({
        "magic": magic(&s, "asks"), "kind": code(&s, "asks_kind", "asks_updated"),
        "flags": code(&s, "asks_flag", "digest"), "app_len": app.len(), "rows": rows.len(),
        "digest": -99,
    });
    write(&mut expected, &f["header"], &header);
    write(&mut expected, &f["app"], &json!({ "app": app }));
    for r in &rows {
        write(&mut expected, &f["row"], &row_values(r));
    }
    assert_bytes("asks frame by name", &got, &expected);
    let back = frame::decode_view(&expected).unwrap();
    assert!(back.snapshot);
    assert_eq!(back.digest, Some(-99));
    assert_eq!(
        back.rows.iter().map(|r| r.to_ask()).collect::<Vec<_>>(),
        rows
    );

    // Numbered, without a digest: the second row's name crosses as its id.
    let epoch = 0x1234_5678_9abc_def0_i64;
    let id = 5_u32;
    let got = frame::encode_numbered(
        frame::KIND_CHANGED as u8,
        app,
        &rows,
        None,
        Some(epoch),
        |n| (n == "*").then_some(id),
    );
    let mut expected = Vec::new();
    let header = json!({
        "magic": magic(&s, "asks"), "kind": code(&s, "asks_kind", "asks_changed"),
        "flags": code(&s, "asks_flag", "name_ids"), "app_len": app.len(), "rows": rows.len(),
        "digest": 0,
    });
    write(&mut expected, &f["header"], &header);
    write(&mut expected, &f["app"], &json!({ "app": app }));
    write(&mut expected, &f["epoch"], &json!({ "names_epoch": epoch }));
    write(&mut expected, &f["row"], &row_values(&rows[0]));
    let mut numbered = row_values(&rows[1]);
    numbered["name_len"] = json!(0);
    numbered["name_id"] = json!(id);
    write(&mut expected, &f["numbered_row"], &numbered);
    assert_bytes("asks frame numbered", &got, &expected);
    let back = frame::decode_view(&expected).unwrap();
    assert_eq!(back.names_epoch, Some(epoch));
    assert_eq!(back.rows[1].name_id, id);
}

#[test]
fn offers_frames_are_written_and_read_as_specified() {
    let s = spec();
    let f = &s["frames"]["offers"];
    let nodes = [
        ("h1:8041", Resource::new(8192, 8), "heartbeat"),
        ("h2.example:45454", Resource::new(0, 0), "sweep"),
        ("h3:1", Resource::with_extra(1 << 40, 96, &[8]), "eager"),
    ];
    let kinds: Vec<(&str, Resource, u8)> = nodes
        .iter()
        .map(|(n, r, k)| (*n, *r, code(&s, "offer_kind", k) as u8))
        .collect();
    let got = offers::encode_kinds(1_700_000_000_123, &kinds);
    let mut expected = Vec::new();
    let header = json!({"magic": magic(&s, "offers"), "nodes": 3, "now_ms": 1_700_000_000_123_i64});
    write(&mut expected, &f["header"], &header);
    for (node, r, kind) in &nodes {
        let values = json!({
            "memory_mb": r.memory_mb, "vcores": r.vcores,
            "offer_kind": code(&s, "offer_kind", kind), "node": node,
            "extra": r.extra_used(),
        });
        write(&mut expected, &f["node"], &values);
    }
    assert_bytes("offers frame", &got, &expected);
    let back = offers::decode(&expected).unwrap();
    let read: Vec<(bool, bool)> = back.iter().map(|h| (h.sweep, h.eager)).collect();
    assert_eq!(read, [(false, false), (true, false), (true, true)]);
    assert_eq!(back[2].unallocated, nodes[2].1);
}

fn offered(node: &str) -> Heartbeat {
    Heartbeat {
        node: node.into(),
        unallocated: Resource::new(8192, 8),
        now_ms: 5,
        sweep: false,
        eager: false,
    }
}

#[test]
fn decisions_frames_are_written_and_read_as_specified() {
    let s = spec();
    let f = &s["frames"]["decisions"];
    let batch = [offered("h1:1"), offered("h2:1"), offered("h3:1")];
    let decision = |node: &str, locality, limits| Decision {
        app: "application_1_0001".into(),
        priority: 10,
        allocation_request_id: 4,
        resource_name: "/rack-a".into(),
        node: node.into(),
        locality,
        count: 3,
        capability: Resource::with_extra(2048, 1, &[1]),
        limits,
    };
    let limits = CommitLimits {
        queue_max_mb: Some(1 << 20),
        ancestor_max_mb: vec![4096, 8192],
        user_limit_mb: None,
        type_maxima: vec![8, 1, 0, 0, 0, 16, 2, 0, 0, 0, 32, 4, 0, 0, 0],
    };
    let response = OffersResponse {
        decisions: vec![
            decision("h1:1", Locality::RackLocal, Some(limits)),
            decision("h3:1", Locality::OffSwitch, None),
        ],
        refused: vec![RefusedOffer {
            node: "h2:1".into(),
            reason: "node h2:1 is unknown".into(),
        }],
    };
    let got = decisions_frame::encode(&batch, &response).unwrap();
    let mut expected = Vec::new();
    let header = json!({"magic": magic(&s, "decisions"), "decisions": 2, "refused": 1});
    write(&mut expected, &f["header"], &header);
    for (index, d) in [(0, &response.decisions[0]), (2, &response.decisions[1])] {
        let l = d.limits.clone().unwrap_or_default();
        let locality = serde_json::to_value(d.locality).unwrap();
        let values = json!({
            "node_index": index, "locality": code(&s, "locality", locality.as_str().unwrap()),
            "priority": d.priority, "allocation_request_id": d.allocation_request_id,
            "count": d.count, "memory_mb": d.capability.memory_mb, "vcores": d.capability.vcores,
            "app": d.app, "resource_name": d.resource_name,
            "queue_max_mb": l.queue_max_mb.map_or(-1, |m| m as i64),
            "user_limit_mb": l.user_limit_mb.map_or(-1, |m| m as i64),
            "ancestor_max_mb": l.ancestor_max_mb,
            "extra": d.capability.extra_used(),
            "type_maxima": l.type_maxima,
        });
        write(&mut expected, &f["decision"], &values);
    }
    let refused = json!({"node_index": 1, "reason": "node h2:1 is unknown"});
    write(&mut expected, &f["refused"], &refused);
    assert_bytes("decisions frame", &got, &expected);
    assert_eq!(
        decisions_frame::decode(&expected, &batch).unwrap(),
        response
    );
}

#[test]
fn events_frames_are_written_and_read_as_specified() {
    let s = spec();
    let f = &s["frames"]["events"];
    let rare = Event::NodeRemoved {
        node: "h9:1".into(),
    };
    let events = vec![
        Event::ContainerAllocated {
            container: ContainerInfo {
                container: "container_1_0001_01_000002".into(),
                app: "application_1_0001".into(),
                node: "h1:1".into(),
                priority: 20,
                resource: Resource::new(1024, 1),
            },
            locality: Locality::NodeLocal,
            allocation_request_id: 6,
            recovered: true,
        },
        Event::ContainerReleased {
            app: "application_1_0001".into(),
            container: "container_1_0001_01_000003".into(),
            node: "h2:1".into(),
            resource: Resource::with_extra(512, 2, &[0, 0, 3]),
        },
        Event::DecisionRejected {
            decision: Decision {
                app: "application_1_0002".into(),
                priority: 5,
                allocation_request_id: -1,
                resource_name: "*".into(),
                node: "h3:1".into(),
                locality: Locality::OffSwitch,
                count: 4,
                capability: Resource::new(4096, 3),
                limits: None,
            },
            executed: 1,
            reason: "queue full".into(),
        },
        Event::AsksDigest {
            app: "application_1_0002".into(),
            digest: i64::MIN,
        },
        rare.clone(),
    ];
    let got = events_frame::encode(&events);
    let mut expected = Vec::new();
    let header = json!({"magic": magic(&s, "events"), "records": events.len()});
    write(&mut expected, &f["header"], &header);
    let kind = |name: &str| code(&s, "event_record", name);
    let records: [(&str, Value); 5] = [
        (
            "container_allocated",
            json!({
                "kind": kind("container_allocated"), "app": "application_1_0001",
                "container": "container_1_0001_01_000002", "node": "h1:1", "priority": 20,
                "allocation_request_id": 6, "memory_mb": 1024, "vcores": 1,
                "locality": code(&s, "locality", "node_local"), "recovered": 1, "extra": [],
            }),
        ),
        (
            "container_released",
            json!({
                "kind": kind("container_released"), "app": "application_1_0001",
                "container": "container_1_0001_01_000003", "node": "h2:1",
                "memory_mb": 512, "vcores": 2, "extra": [0, 0, 3],
            }),
        ),
        (
            "decision_rejected",
            json!({
                "kind": kind("decision_rejected"), "app": "application_1_0002", "node": "h3:1",
                "resource_name": "*", "priority": 5, "allocation_request_id": -1,
                "locality": code(&s, "locality", "off_switch"), "count": 4, "memory_mb": 4096,
                "vcores": 3, "executed": 1, "reason": "queue full", "extra": [],
            }),
        ),
        (
            "asks_digest",
            json!({"kind": kind("asks_digest"), "app": "application_1_0002", "digest": i64::MIN}),
        ),
        (
            "json",
            json!({"kind": kind("json"), "event": serde_json::to_string(&rare).unwrap()}),
        ),
    ];
    for (name, values) in &records {
        write(&mut expected, &f["records"][name], values);
    }
    assert_bytes("events frame", &got, &expected);
    let back: Vec<Event> = events_frame::decode(&expected)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, events);
}

/// Whether `v` is a JSON value of the spec's type `ty` (without its `?`).
fn is_of(v: &Value, ty: &str) -> bool {
    match ty {
        "str" => v.is_string(),
        "int" => v.is_i64() || v.is_u64(),
        "bool" => v.is_boolean(),
        "strs" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        "resource" => v.as_object().is_some_and(|o| {
            let extra = o.get("extra").map_or(Some(true), |e| {
                e.as_array().map(|a| {
                    !a.is_empty() && a.len() <= MAX_EXTRA_TYPES && a.iter().all(Value::is_u64)
                })
            });
            o.len() == 2 + usize::from(o.contains_key("extra"))
                && o["memory_mb"].is_u64()
                && o["vcores"].is_u64()
                && extra == Some(true)
        }),
        "locality" => v
            .as_str()
            .is_some_and(|l| serde_json::from_value::<Locality>(json!(l)).is_ok()),
        other => panic!("the spec's JSON type {other} is not one this test knows"),
    }
}

/// The events that cross as JSON are the spec's, field for field: the core writes every field
/// of each with the spec's type, reads one without a field the spec marks optional, and refuses
/// one without any other field or with a field the spec does not name.
#[test]
fn json_events_are_the_specs() {
    let s = spec();
    let kinds = s["json_events"]["kinds"].as_object().unwrap();
    let resource = Resource::new(1024, 1);
    let gpus = Resource::with_extra(1024, 1, &[2]);
    let samples = vec![
        Event::NodeAdded {
            node: "h1:1".into(),
            host: "h1".into(),
            rack: "/r".into(),
            capability: gpus,
        },
        Event::NodeRemoved {
            node: "h1:1".into(),
        },
        Event::NodeResourceUpdated {
            node: "h1:1".into(),
            capability: resource,
        },
        Event::AppAdded {
            app: "a".into(),
            queue: "q".into(),
            user: "u".into(),
            name: "n".into(),
            app_type: "MAPREDUCE".into(),
            tags: vec!["t".into()],
            submit_ms: 5,
            priority: 1,
            recovered: true,
        },
        Event::AppPriorityChanged {
            app: "a".into(),
            priority: 2,
        },
        Event::AppMoved {
            app: "a".into(),
            queue: "q".into(),
        },
        Event::AppBlacklist {
            app: "a".into(),
            places: vec!["h1".into()],
        },
        Event::AppRemoved { app: "a".into() },
        Event::AttemptAdded {
            app: "a".into(),
            attempt: "t".into(),
        },
        Event::AttemptRemoved {
            app: "a".into(),
            attempt: "t".into(),
        },
        Event::AsksDigest {
            app: "a".into(),
            digest: -3,
        },
        Event::ContainerAllocated {
            container: ContainerInfo {
                container: "c".into(),
                app: "a".into(),
                node: "h1:1".into(),
                priority: 1,
                resource,
            },
            locality: Locality::RackLocal,
            allocation_request_id: 4,
            recovered: false,
        },
        Event::ContainerReleased {
            app: "a".into(),
            container: "c".into(),
            node: "h1:1".into(),
            resource,
        },
    ];
    assert_eq!(
        samples.len(),
        kinds.len(),
        "a sample for every kind of the spec"
    );
    for event in samples {
        let kind = event.kind();
        let fields = kinds[kind]
            .as_object()
            .unwrap_or_else(|| panic!("{kind} is not in the spec's json_events"));
        let written = serde_json::to_value(&event).unwrap();
        let written = written.as_object().unwrap();
        assert_eq!(written["type"], json!(kind));
        assert_eq!(
            written.len() - 1,
            fields.len(),
            "{kind}: the core writes {:?}",
            written.keys().collect::<Vec<_>>()
        );
        for (name, ty) in fields {
            let ty = ty.as_str().unwrap();
            let v = written
                .get(name)
                .unwrap_or_else(|| panic!("{kind}: the core writes no {name}"));
            assert!(
                is_of(v, ty.trim_end_matches('?')),
                "{kind}.{name} = {v}, not {ty}"
            );
            let mut without = written.clone();
            without.remove(name);
            let read = serde_json::from_value::<Event>(Value::Object(without));
            assert_eq!(
                read.is_ok(),
                ty.ends_with('?'),
                "{kind} without {name}: {read:?}"
            );
        }
        let mut extra = written.clone();
        extra.insert("unnamed".into(), json!(1));
        assert!(serde_json::from_value::<Event>(Value::Object(extra)).is_err());
    }
    for framed in ["asks_updated", "asks_changed"] {
        assert!(
            !kinds.contains_key(framed),
            "{framed} crosses in asks frames"
        );
    }
}
