//! Node partitions (YARN node labels): a key asking for partition L is placed only on L's
//! nodes; a default-partition key on default-partition nodes, and on a non-exclusive
//! partition's nodes only when that partition's own keys leave the room idle and the key has
//! missed a round of its offers, one per node it may run on and fits (CapacityScheduler's
//! rule, counted in the offers the key gets); an exclusive partition's nodes run only their
//! own keys.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::*;
use locus_core::{Core, CoreError, Event, KeyPartition};

fn add_app(c: &mut Core, app: &str, submit_ms: u64) {
    add_app_named(c, app, app, submit_ms, "SPARK", &[]);
}

fn label(c: &mut Core, host: &str, partition: &str, exclusive: bool) {
    c.handle(Event::NodePartition {
        node: node_id(host),
        partition: partition.into(),
        exclusive,
    })
    .unwrap();
}

fn key_partition(c: &mut Core, app: &str, priority: i32, partition: &str) {
    c.handle(Event::KeyPartitions {
        app: app.into(),
        keys: vec![KeyPartition {
            priority,
            allocation_request_id: 0,
            partition: partition.into(),
        }],
    })
    .unwrap();
}

/// The apps decided for on a heartbeat of `host` with 8 GB free, the decisions executed.
fn apps_on(c: &mut Core, host: &str) -> Vec<String> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let ds = heartbeat_free(c, host, 8, 8, 1_000);
    let mut next = NEXT.fetch_add(100, Ordering::Relaxed);
    execute(c, &ds, &mut next);
    ds.into_iter().map(|d| d.app).collect()
}

#[test]
fn a_labelled_key_is_placed_only_on_its_partition() {
    let mut c = core_with(&[]);
    add_node(&mut c, "plain", "/r1", 8, 8);
    add_node(&mut c, "core", "/r1", 8, 8);
    label(&mut c, "core", "CORE", false);
    add_app(&mut c, "am", 1);
    set_asks_rows(&mut c, "am", &[(1, "*", 1, 1, 1, true)]);
    key_partition(&mut c, "am", 1, "CORE");
    assert!(
        apps_on(&mut c, "plain").is_empty(),
        "a CORE ask was placed on a default-partition node"
    );
    assert_eq!(apps_on(&mut c, "core"), vec!["am".to_string()]);
}

#[test]
fn an_exclusive_partition_runs_no_default_partition_work() {
    let mut c = core_with(&[]);
    add_node(&mut c, "gpu", "/r1", 8, 8);
    add_node(&mut c, "plain", "/r1", 8, 8);
    label(&mut c, "gpu", "GPU", true);
    add_app(&mut c, "app", 1);
    set_asks_rows(&mut c, "app", &[(1, "*", 4, 1, 1, true)]);
    for _ in 0..10 {
        assert!(
            apps_on(&mut c, "gpu").is_empty(),
            "default-partition work ran on an exclusive partition's node"
        );
    }
    assert_eq!(apps_on(&mut c, "plain").len(), 1);
}

#[test]
fn a_non_exclusive_partition_lends_only_idle_room_after_missed_offers() {
    let mut c = core_with(&[]);
    add_node(&mut c, "core", "/r1", 8, 8);
    add_node(&mut c, "plain", "/r1", 8, 8);
    label(&mut c, "core", "CORE", false);
    add_app(&mut c, "tasks", 1);
    add_app(&mut c, "labelled", 2);
    set_asks_rows(&mut c, "tasks", &[(1, "*", 20, 1, 1, true)]);
    set_asks_rows(&mut c, "labelled", &[(1, "*", 1, 1, 1, true)]);
    key_partition(&mut c, "labelled", 1, "CORE");
    // The partition's own key goes first, even behind an earlier default-partition app.
    assert_eq!(apps_on(&mut c, "core"), vec!["labelled".to_string()]);
    // Idle now, but the default key has missed one offer, fewer than the 2 nodes it fits.
    assert!(
        apps_on(&mut c, "core").is_empty(),
        "borrowed after one missed offer"
    );
    assert_eq!(apps_on(&mut c, "core"), vec!["tasks".to_string()]);
    // Placing on its own partition starts the count over.
    assert_eq!(apps_on(&mut c, "plain"), vec!["tasks".to_string()]);
    assert!(
        apps_on(&mut c, "core").is_empty(),
        "borrowed right after placing at home"
    );
}

#[test]
fn no_am_is_placed_on_borrowed_room() {
    let mut c = core_with(&[]);
    add_node(&mut c, "core", "/r1", 8, 8);
    label(&mut c, "core", "CORE", false);
    add_app_named(&mut c, "job", "job", 1, "MAPREDUCE", &[]);
    set_asks_rows(&mut c, "job", &[(0, "*", 1, 1, 1, true)]);
    for _ in 0..5 {
        assert!(apps_on(&mut c, "core").is_empty(), "an AM borrowed room");
    }
}

#[test]
fn relabelling_a_node_moves_it_between_partitions() {
    let mut c = core_with(&[]);
    add_node(&mut c, "n", "/r1", 8, 8);
    add_app(&mut c, "app", 1);
    set_asks_rows(&mut c, "app", &[(1, "*", 2, 1, 1, true)]);
    key_partition(&mut c, "app", 1, "CORE");
    assert!(apps_on(&mut c, "n").is_empty());
    label(&mut c, "n", "CORE", true);
    assert_eq!(apps_on(&mut c, "n"), vec!["app".to_string()]);
    label(&mut c, "n", "", false);
    assert!(apps_on(&mut c, "n").is_empty());
}

#[test]
fn bad_partition_messages_are_refused_naming_the_culprit() {
    let mut c = core_with(&[]);
    add_app(&mut c, "app", 1);
    assert!(matches!(
        c.handle(Event::NodePartition {
            node: "ghost:1".into(),
            partition: "X".into(),
            exclusive: true,
        }),
        Err(CoreError::UnknownNode(_))
    ));
    let long = (0..=locus_core::MAX_KEY_PARTITIONS as i32)
        .map(|priority| KeyPartition {
            priority,
            allocation_request_id: 0,
            partition: "X".into(),
        })
        .collect();
    let err = c
        .handle(Event::KeyPartitions {
            app: "app".into(),
            keys: long,
        })
        .unwrap_err();
    assert!(err.to_string().contains("key_partitions for app"), "{err}");
}
