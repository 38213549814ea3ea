//! Asks frames whose rows name hosts and racks by the ids the core published
//! (`Core::name_ids`, `frame::FLAG_NAME_IDS`): applied exactly as the same rows by name; an id
//! the core never gave, one whose nodes are gone, or one numbered by another core (a rebuild)
//! is refused naming the application and row, with nothing applied.

mod common;

use std::collections::BTreeMap;

use common::{core_with, GB};
use locus_core::frame::{self, KIND_CHANGED, KIND_SNAPSHOT};
use locus_core::{Core, Event};

const APP: &str = "application_1_0001";

fn core() -> Core {
    let mut c = core_with(&[]);
    for h in ["h1", "h2", "h3"] {
        common::add_node(&mut c, h, "/r1", 8, 8);
    }
    common::add_app_named(&mut c, APP, APP, 1, "MAPREDUCE", &[]);
    c
}

/// (priority, name, count) rows of 1 GB.
fn rows(r: &[(i32, &str, u32)]) -> Vec<locus_core::Ask> {
    let full: Vec<common::Row> = r.iter().map(|&(p, n, c)| (p, n, c, 1, 1, true)).collect();
    common::asks(&full)
}

/// The frame the shim writes: every name the core published sent as its id.
fn numbered(c: &Core, kind: u8, r: &[(i32, &str, u32)]) -> Vec<u8> {
    let asks = rows(r);
    let names: Vec<&str> = asks.iter().map(|a| a.resource_name.as_str()).collect();
    let (epoch, ids) = c.name_ids(names.iter().copied());
    let by_name: BTreeMap<&str, Option<u32>> = names.iter().copied().zip(ids).collect();
    frame::encode_numbered(kind, APP, &asks, None, Some(epoch), |n| {
        by_name.get(n).copied().flatten()
    })
}

fn apply(c: &mut Core, f: &[u8]) -> Result<(), String> {
    let view = frame::decode_view(f).map_err(|e| e.to_string())?;
    for outcome in c.handle_asks_frame(&view) {
        outcome.map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The app's rows as the core holds them, by name: (priority, name) → count.
fn held(c: &Core) -> BTreeMap<(i32, String), u32> {
    let s = c.state();
    let a = s.app_by_id(APP).unwrap();
    let mut out = BTreeMap::new();
    for (key, t) in a.asks.tables() {
        for (id, row) in t.rows() {
            out.insert((key.priority, s.names().name(id).to_string()), row.count);
        }
    }
    for (key, name, row) in a.asks.waiting_rows() {
        out.insert((key.priority, name.to_string()), row.count);
    }
    out
}

#[test]
fn numbered_rows_apply_as_the_same_rows_by_name() {
    let r = [
        (1, "h1", 2),
        (1, "h2", 1),
        (1, "ghost", 4),
        (1, "/r1", 3),
        (1, "*", 7),
    ];
    let (mut by_id, mut by_name) = (core(), core());
    let f = numbered(&by_id, KIND_SNAPSHOT, &r);
    let plain = frame::encode(KIND_SNAPSHOT, APP, &rows(&r), None);
    let numbered_rows = frame::decode_view(&f)
        .unwrap()
        .rows
        .iter()
        .filter(|r| r.numbered().is_some())
        .count();
    assert_eq!(
        numbered_rows, 3,
        "h1, h2 and /r1 go as ids; ghost and * by name"
    );
    apply(&mut by_id, &f).unwrap();
    apply(&mut by_name, &plain).unwrap();
    assert_eq!(held(&by_id), held(&by_name));
    // A change, numbered again: h1 to 0 removes its row, ghost (no node) stays by name.
    let change = [(1, "h1", 0), (1, "h3", 5), (1, "ghost", 1), (1, "*", 6)];
    let f = numbered(&by_id, KIND_CHANGED, &change);
    apply(&mut by_id, &f).unwrap();
    apply(
        &mut by_name,
        &frame::encode(KIND_CHANGED, APP, &rows(&change), None),
    )
    .unwrap();
    assert_eq!(held(&by_id), held(&by_name));
    assert_eq!(held(&by_id).get(&(1, "h3".into())), Some(&5));
    // And the core decides on them: h3's heartbeat places node-local there.
    let d = common::heartbeat_free(&mut by_id, "h3", 8, 8, 1_000);
    assert!(d.iter().any(|d| d.node == common::node_id("h3")), "{d:?}");
    // Only hosts and racks of live nodes are published; `*` and ghost are not.
    let (_, ids) = by_id.name_ids(["h1", "/r1", "*", "ghost"]);
    assert!(ids[0].is_some() && ids[1].is_some() && ids[2].is_none() && ids[3].is_none());
    let _ = GB;
}

#[test]
fn an_id_the_core_never_gave_is_refused_naming_app_and_row() {
    let mut c = core();
    let f = numbered(&c, KIND_SNAPSHOT, &[(1, "h1", 1), (1, "*", 1)]);
    apply(&mut c, &f).unwrap();
    let before = held(&c);
    let (epoch, _) = c.name_ids([]);
    let bad = frame::encode_numbered(
        KIND_CHANGED,
        APP,
        &rows(&[(1, "h2", 3), (1, "h9", 2), (1, "*", 5)]),
        None,
        Some(epoch),
        |n| match n {
            "h2" => c.name_ids([n]).1[0],
            "h9" => Some(40_000),
            _ => None,
        },
    );
    let err = apply(&mut c, &bad).unwrap_err();
    assert!(
        err.contains(APP) && err.contains("row 1") && err.contains("id 40000"),
        "{err}"
    );
    assert_eq!(held(&c), before, "nothing of the frame applied");
}

#[test]
fn a_removed_nodes_id_is_refused_and_a_readded_node_is_published_again() {
    let mut c = core();
    let (_, ids) = c.name_ids(["h2"]);
    let h2 = ids[0].expect("h2 published");
    let f = numbered(&c, KIND_SNAPSHOT, &[(1, "h2", 1), (1, "*", 1)]);
    c.handle(Event::NodeRemoved {
        node: common::node_id("h2"),
    })
    .unwrap();
    assert_eq!(c.name_ids(["h2"]).1, vec![None], "gone with its node");
    let err = apply(&mut c, &f).unwrap_err();
    assert!(
        err.contains(APP) && err.contains("row 0") && err.contains(&format!("id {h2}")),
        "{err}"
    );
    assert!(held(&c).is_empty(), "nothing applied");
    // By name the same rows are taken (a name no node carries now is still a row).
    apply(
        &mut c,
        &frame::encode(
            KIND_SNAPSHOT,
            APP,
            &rows(&[(1, "h2", 1), (1, "*", 1)]),
            None,
        ),
    )
    .unwrap();
    assert_eq!(held(&c).get(&(1, "h2".into())), Some(&1));
    // Re-added, the host has its id back (names are never renumbered within a core).
    common::add_node(&mut c, "h2", "/r1", 8, 8);
    assert_eq!(c.name_ids(["h2"]).1, vec![Some(h2)]);
    apply(&mut c, &f).unwrap();
}

/// Two NodeManagers on one host: the host stays published until the last one goes.
#[test]
fn a_host_stays_published_while_any_of_its_nodes_lives() {
    let mut c = core();
    common::add_node_as(
        &mut c,
        "h1:9999",
        "h1",
        "/r1",
        locus_core::Resource::new(8 * GB, 8),
    );
    c.handle(Event::NodeRemoved {
        node: common::node_id("h1"),
    })
    .unwrap();
    assert!(c.name_ids(["h1"]).1[0].is_some());
    c.handle(Event::NodeRemoved {
        node: "h1:9999".into(),
    })
    .unwrap();
    assert_eq!(c.name_ids(["h1"]).1, vec![None]);
}

/// After a rebuild the new core numbers its names afresh: a frame numbered by the old one is
/// refused whole, even where the ids happen to exist in the new core.
#[test]
fn ids_of_a_replaced_core_are_refused() {
    let old = core();
    let f = numbered(&old, KIND_SNAPSHOT, &[(1, "h1", 1), (1, "*", 1)]);
    let mut new = core();
    let (new_epoch, ids) = new.name_ids(["h1"]);
    assert!(ids[0].is_some(), "h1 has an id in the new core too");
    assert_ne!(old.name_ids([]).0, new_epoch);
    let err = apply(&mut new, &f).unwrap_err();
    assert!(err.contains(APP) && err.contains("epoch"), "{err}");
    assert!(held(&new).is_empty());
    let f = numbered(&new, KIND_SNAPSHOT, &[(1, "h1", 1), (1, "*", 1)]);
    apply(&mut new, &f).unwrap();
    assert_eq!(held(&new).len(), 2);
}

/// The same published name as an id and by name in one frame is one row twice: refused.
#[test]
fn a_row_by_id_and_by_name_in_one_frame_is_named_twice() {
    let mut c = core();
    let (epoch, ids) = c.name_ids(["h1"]);
    let mut asks = rows(&[(1, "h1", 1), (1, "*", 2)]);
    asks.push(rows(&[(1, "h1", 2)]).remove(0));
    // Numbers only the first "h1" row.
    let first = std::cell::Cell::new(true);
    let f = frame::encode_numbered(KIND_SNAPSHOT, APP, &asks, None, Some(epoch), |n| {
        (n == "h1" && first.replace(false)).then_some(ids[0].unwrap())
    });
    let err = apply(&mut c, &f).unwrap_err();
    assert!(
        err.contains("appears twice") && err.contains("\"h1\""),
        "{err}"
    );
}

/// A frame written with a table that numbers none of its rows (the shim's table before any
/// node was added, or another core's) carries nothing to misread: applied, whatever its epoch.
/// (It was refused whole, so an application submitted before the first node registered never
/// had its asks taken: SchedulingLoopTest, "expected ALLOCATED but was SCHEDULED".)
#[test]
fn a_flagged_frame_without_numbered_rows_is_applied_whatever_its_epoch() {
    let mut c = core();
    let (epoch, _) = c.name_ids([]);
    let f = frame::encode_numbered(
        KIND_SNAPSHOT,
        APP,
        &rows(&[(1, "h1", 1), (1, "*", 1)]),
        None,
        Some(epoch.wrapping_add(1)),
        |_| None,
    );
    apply(&mut c, &f).unwrap();
    assert_eq!(held(&c).len(), 2);
}
