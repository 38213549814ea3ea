//! Numbered waiting names: a host row whose host no node carries (a MapReduce split on a host
//! without a NodeManager) is given an id by the core when a numbered frame of this core sets it
//! (`Core::learned_ids`), and later frames may carry that id instead of the name. The id is the
//! application's own and never comes to mean another name: freed with the name's last row, the
//! name adopted by a node, or the application's asks replaced by a snapshot, it is refused
//! naming the application and row, with nothing applied (the shim then re-sends by name).

mod common;

use std::collections::{BTreeMap, HashMap};

use common::core_with;
use locus_core::frame::{self, KIND_CHANGED, KIND_SNAPSHOT};
use locus_core::Core;

const APP: &str = "application_1_0001";

fn core() -> Core {
    let mut c = core_with(&[]);
    common::add_node(&mut c, "h1", "/r1", 8, 8);
    common::add_app_named(&mut c, APP, APP, 1, "MAPREDUCE", &[]);
    c
}

fn rows(r: &[(i32, &str, u32)]) -> Vec<locus_core::Ask> {
    let full: Vec<common::Row> = r.iter().map(|&(p, n, c)| (p, n, c, 1, 1, true)).collect();
    common::asks(&full)
}

/// The shim's table of one attempt: what the core taught it, by name.
type Table = HashMap<String, u32>;

/// Writes `r` numbered with this core's epoch: live hosts by their published ids, waiting
/// names by `table`, the rest by name.
fn frame_of(c: &Core, kind: u8, r: &[(i32, &str, u32)], table: &Table) -> Vec<u8> {
    let asks = rows(r);
    let names: Vec<&str> = asks.iter().map(|a| a.resource_name.as_str()).collect();
    let (epoch, ids) = c.name_ids(names.iter().copied());
    let published: BTreeMap<&str, Option<u32>> = names.iter().copied().zip(ids).collect();
    frame::encode_numbered(kind, APP, &asks, None, Some(epoch), |n| {
        published
            .get(n)
            .copied()
            .flatten()
            .or_else(|| table.get(n).copied())
    })
}

/// Applies `f`; on success the shim's table learns what the core answered.
fn apply(c: &mut Core, f: &[u8], table: &mut Table) -> Result<(), String> {
    let view = frame::decode_view(f).map_err(|e| e.to_string())?;
    for outcome in c.handle_asks_frame(&view) {
        outcome.map_err(|e| e.to_string())?;
    }
    for &(row, id) in c.learned_ids() {
        table.insert(view.rows[row as usize].resource_name.to_string(), id);
    }
    Ok(())
}

/// Writes `r` as [`frame_of`] does and applies it; returns what the core taught.
fn send(c: &mut Core, kind: u8, r: &[(i32, &str, u32)], table: &Table) -> Result<Table, String> {
    let f = frame_of(c, kind, r, table);
    let mut learned = Table::new();
    apply(c, &f, &mut learned)?;
    Ok(learned)
}

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

fn numbered_rows(f: &[u8]) -> usize {
    frame::decode_view(f)
        .unwrap()
        .rows
        .iter()
        .filter(|r| r.numbered().is_some())
        .count()
}

#[test]
fn waiting_names_are_learned_and_then_cross_as_ids() {
    let mut c = core();
    let mut t = Table::new();
    let r = [(1, "h1", 1), (1, "g1", 2), (1, "g2", 3), (1, "*", 6)];
    send(&mut c, KIND_SNAPSHOT, &r, &t)
        .map(|l| t.extend(l))
        .unwrap();
    assert_eq!(
        t.keys()
            .map(String::as_str)
            .collect::<std::collections::BTreeSet<_>>(),
        ["g1", "g2"].into(),
        "only the waiting names are taught (h1 is published, * is neither)"
    );
    let mut by_name = core();
    apply(
        &mut by_name,
        &frame::encode(KIND_SNAPSHOT, APP, &rows(&r), None),
        &mut Table::new(),
    )
    .unwrap();
    let change = [(1, "g1", 5), (1, "g2", 0), (1, "*", 5)];
    let f = frame_of(&c, KIND_CHANGED, &change, &t);
    assert_eq!(numbered_rows(&f), 2, "g1 and g2 go as ids");
    apply(&mut c, &f, &mut t).unwrap();
    assert!(c.learned_ids().is_empty(), "nothing new to teach");
    apply(
        &mut by_name,
        &frame::encode(KIND_CHANGED, APP, &rows(&change), None),
        &mut Table::new(),
    )
    .unwrap();
    assert_eq!(held(&c), held(&by_name));
    assert_eq!(held(&c).get(&(1, "g1".into())), Some(&5));
    // A frame by name (unnumbered) teaches nothing: its epoch is unknown to the shim.
    apply(
        &mut c,
        &frame::encode(KIND_CHANGED, APP, &rows(&[(1, "g3", 1)]), None),
        &mut t,
    )
    .unwrap();
    assert!(c.learned_ids().is_empty());
}

/// The name's last row withdrawn frees its slot: the id is refused from then on, also once
/// another name took the slot, and never means that other name.
#[test]
fn a_freed_slots_id_is_refused_and_never_names_the_next_name() {
    let mut c = core();
    let mut t = Table::new();
    send(&mut c, KIND_SNAPSHOT, &[(1, "g1", 2), (1, "*", 2)], &t)
        .map(|l| t.extend(l))
        .unwrap();
    let old = t.clone();
    let f = frame_of(&c, KIND_CHANGED, &[(1, "g1", 0), (1, "*", 0)], &t);
    apply(&mut c, &f, &mut t).unwrap();
    assert!(held(&c).is_empty());
    let again = frame_of(&c, KIND_CHANGED, &[(1, "g1", 4), (1, "*", 4)], &old);
    let err = apply(&mut c, &again, &mut t).unwrap_err();
    assert!(
        err.contains(APP) && err.contains("row 0") && err.contains("waiting"),
        "{err}"
    );
    assert!(held(&c).is_empty(), "nothing applied");
    // Another name takes the freed slot; the old id still is not its.
    let mut t2 = Table::new();
    send(&mut c, KIND_CHANGED, &[(1, "g2", 1), (1, "*", 1)], &t2)
        .map(|l| t2.extend(l))
        .unwrap();
    assert_ne!(t2["g2"], old["g1"], "a new name gets a new id");
    let err = apply(&mut c, &again, &mut t).unwrap_err();
    assert!(err.contains("row 0"), "{err}");
    assert_eq!(held(&c).get(&(1, "g2".into())), Some(&1));
    assert_eq!(held(&c).len(), 2, "g1 was not set under g2's slot");
    // By name the row is taken, and taught afresh.
    let mut fresh = Table::new();
    send(&mut c, KIND_CHANGED, &[(1, "g1", 4), (1, "*", 5)], &fresh)
        .map(|l| fresh.extend(l))
        .unwrap();
    assert!(fresh.contains_key("g1") && fresh["g1"] != old["g1"]);
}

/// A node registering on a waiting name adopts its rows: the waiting id is refused after.
#[test]
fn an_adopted_names_waiting_id_is_refused() {
    let mut c = core();
    let mut t = Table::new();
    send(&mut c, KIND_SNAPSHOT, &[(1, "g1", 2), (1, "*", 2)], &t)
        .map(|l| t.extend(l))
        .unwrap();
    let stale = frame::encode_numbered(
        KIND_CHANGED,
        APP,
        &rows(&[(1, "g1", 1)]),
        None,
        Some(c.name_ids([]).0),
        |n| t.get(n).copied(),
    );
    common::add_node(&mut c, "g1", "/r1", 8, 8);
    let before = held(&c);
    let err = apply(&mut c, &stale, &mut t).unwrap_err();
    assert!(err.contains("row 0"), "{err}");
    assert_eq!(held(&c), before);
}

/// A snapshot replaces the application's asks: ids from before it are refused (they named the
/// old table's slots), the snapshot teaches the new ones, and a snapshot carrying a waiting id
/// is refused (it has no table to read it against).
#[test]
fn a_snapshot_ends_the_ids_before_it_and_teaches_new_ones() {
    let mut c = core();
    let mut t = Table::new();
    let r = [(1, "g1", 2), (1, "*", 2)];
    send(&mut c, KIND_SNAPSHOT, &r, &t)
        .map(|l| t.extend(l))
        .unwrap();
    let before = t.clone();
    let err = send(&mut c, KIND_SNAPSHOT, &r, &before)
        .map(|l| t.extend(l))
        .unwrap_err();
    assert!(err.contains("row 0") && err.contains("waiting"), "{err}");
    let mut after = Table::new();
    send(&mut c, KIND_SNAPSHOT, &r, &after)
        .map(|l| after.extend(l))
        .unwrap();
    assert_ne!(after["g1"], before["g1"]);
    let err = send(&mut c, KIND_CHANGED, &[(1, "g1", 3)], &before)
        .map(|l| t.extend(l))
        .unwrap_err();
    assert!(err.contains("row 0"), "{err}");
    send(&mut c, KIND_CHANGED, &[(1, "g1", 3), (1, "*", 3)], &after)
        .map(|l| after.extend(l))
        .unwrap();
    assert_eq!(held(&c).get(&(1, "g1".into())), Some(&3));
}

/// Ids are per application and read in the table of the frame's application: an id that
/// application was never given is refused. (Another application's ids are numbered from the same
/// start, so one of them may name a slot here; the shim never sends one, its tables being per
/// attempt.)
#[test]
fn an_id_the_application_was_never_given_is_refused() {
    let mut c = core();
    const OTHER: &str = "application_1_0002";
    common::add_app_named(&mut c, OTHER, OTHER, 1, "MAPREDUCE", &[]);
    let mut t = Table::new();
    send(&mut c, KIND_SNAPSHOT, &[(1, "g1", 2), (1, "*", 2)], &t)
        .map(|l| t.extend(l))
        .unwrap();
    let f = frame::encode_numbered(
        KIND_CHANGED,
        OTHER,
        &rows(&[(1, "g1", 1), (1, "*", 1)]),
        None,
        Some(c.name_ids([]).0),
        |n| t.get(n).copied(),
    );
    let view = frame::decode_view(&f).unwrap();
    let out = c.handle_asks_frame(&view);
    let err = out[0].as_ref().unwrap_err().to_string();
    assert!(err.contains(OTHER) && err.contains("row 0"), "{err}");
}

/// After a rebuild the new core's epoch differs: a frame with waiting ids of the old core is
/// refused whole by the existing epoch check.
#[test]
fn waiting_ids_of_a_replaced_core_are_refused() {
    let mut old = core();
    let mut t = Table::new();
    let r = [(1, "g1", 2), (1, "*", 2)];
    send(&mut old, KIND_SNAPSHOT, &r, &t)
        .map(|l| t.extend(l))
        .unwrap();
    let f = frame_of(&old, KIND_CHANGED, &r, &t);
    let mut new = core();
    apply(
        &mut new,
        &frame::encode(KIND_SNAPSHOT, APP, &rows(&r), None),
        &mut Table::new(),
    )
    .unwrap();
    let err = apply(&mut new, &f, &mut t).unwrap_err();
    assert!(err.contains("epoch"), "{err}");
}

/// What the core teaches is bounded by the frame's rows and by the application's own bound of
/// distinct names: an AM naming 10,000 hosts in turn never has more ids live than names held.
#[test]
fn ids_taught_are_bounded_by_the_frame_and_the_names_held() {
    let mut c = core();
    let mut t = Table::new();
    let mut live = 0usize;
    for round in 0..10 {
        let names: Vec<String> = (0..1_000).map(|i| format!("g{round}-{i}")).collect();
        let mut r: Vec<(i32, &str, u32)> = names.iter().map(|n| (1, n.as_str(), 1)).collect();
        r.push((1, "*", 1_000));
        let f = frame_of(&c, KIND_SNAPSHOT, &r, &t);
        apply(&mut c, &f, &mut t).unwrap();
        assert!(c.learned_ids().len() <= r.len());
        live = c.learned_ids().len();
    }
    assert_eq!(live, 1_000, "each snapshot teaches its own names");
    // Ten rounds of 1,000 names taught 10,000 ids, of which only the last round's are good.
    let (epoch, _) = c.name_ids([]);
    let stale: Vec<&String> = t.keys().filter(|n| n.starts_with("g0-")).take(1).collect();
    let f = frame::encode_numbered(
        KIND_CHANGED,
        APP,
        &rows(&[(1, stale[0].as_str(), 2)]),
        None,
        Some(epoch),
        |n| t.get(n).copied(),
    );
    assert!(apply(&mut c, &f, &mut t).is_err());
}

/// A new attempt starts with no asks, but its application's ids go on from where the last
/// attempt's stopped (until cf8dfce the counter restarted at 0, so an id of the old
/// attempt's table named the new attempt's first waiting name).
#[test]
fn an_earlier_attempts_ids_never_name_a_later_attempts_rows() {
    use locus_core::Event;
    let mut c = core();
    let mut old = Table::new();
    send(&mut c, KIND_SNAPSHOT, &[(1, "g1", 2), (1, "*", 2)], &old)
        .map(|l| old.extend(l))
        .unwrap();
    c.handle(Event::AttemptRemoved {
        app: APP.into(),
        attempt: "appattempt_1_0001_000001".into(),
    })
    .unwrap();
    c.handle(Event::AttemptAdded {
        app: APP.into(),
        attempt: "appattempt_1_0001_000002".into(),
    })
    .unwrap();
    let mut new = Table::new();
    send(&mut c, KIND_SNAPSHOT, &[(1, "g2", 2), (1, "*", 2)], &new)
        .map(|l| new.extend(l))
        .unwrap();
    assert_ne!(
        old["g1"], new["g2"],
        "the new attempt's g2 got the old attempt's id for g1"
    );
    // A frame written from the old attempt's table is refused, not applied to g2.
    let f = frame_of(&c, KIND_CHANGED, &[(1, "g1", 5), (1, "*", 5)], &old);
    assert!(apply(&mut c, &f, &mut Table::new()).is_err());
    assert_eq!(held(&c).get(&(1, "g2".into())), Some(&2));
}
