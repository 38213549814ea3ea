//! The core driven as the shim drives it: events in, heartbeats stepped, decisions checked.

mod common;

use common::{add_node, core_with, node_id, props, summary, Row, GB};
use locus_core::{
    ContainerInfo, Core, CoreError, Decision, Event, Heartbeat, Locality, Resource, TaskKind,
};

fn core() -> Core {
    core_with(&[])
}

fn add_app(c: &mut Core, app: &str, submit_ms: u64, app_type: &str) {
    common::add_app_named(c, app, app, submit_ms, app_type, &[]);
}

fn asks(rows: &[Row]) -> Vec<locus_core::Ask> {
    common::asks(rows)
}

fn set_asks(c: &mut Core, app: &str, rows: &[Row]) {
    common::set_asks_rows(c, app, rows);
}

fn heartbeat(c: &mut Core, host: &str, free_gb: u64, free_vcores: u32) -> Vec<Decision> {
    common::heartbeat_free(c, host, free_gb, free_vcores, 1_000)
}

/// Executes decisions as the shim would: one `container_allocated` per container.
fn execute(c: &mut Core, decisions: &[Decision], next_id: &mut u32) {
    common::execute(c, decisions, next_id);
}

fn total(ds: &[Decision]) -> u32 {
    ds.iter().map(|d| d.count).sum()
}

#[test]
fn fifo_serves_earlier_submission_first_then_arrival_order() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 4, 4);
    // Arrives first but was submitted later.
    add_app(&mut c, "app_late", 200, "SPARK");
    add_app(&mut c, "app_early", 100, "SPARK");
    add_app(&mut c, "app_tie", 200, "SPARK");
    for app in ["app_late", "app_early", "app_tie"] {
        set_asks(&mut c, app, &[(1, "*", 3, 1, 1, true)]);
    }
    let ds = heartbeat(&mut c, "h1", 4, 4);
    assert_eq!(
        summary(&ds),
        vec![
            ("app_early".into(), Locality::OffSwitch, 3),
            ("app_late".into(), Locality::OffSwitch, 1)
        ]
    );
    let ds = heartbeat(&mut c, "h1", 4, 4);
    assert_eq!(
        summary(&ds),
        vec![
            ("app_late".into(), Locality::OffSwitch, 2),
            ("app_tie".into(), Locality::OffSwitch, 2)
        ]
    );
}

#[test]
fn node_local_then_rack_local_then_off_switch() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    // 5 maps: 1 has data on h1, 2 more on h2 (rack /r1), 2 anywhere.
    set_asks(
        &mut c,
        "mr",
        &[
            (20, "h1", 1, 1, 1, true),
            (20, "h2", 2, 1, 1, true),
            (20, "/r1", 3, 1, 1, true),
            (20, "*", 5, 1, 1, true),
        ],
    );
    let ds = heartbeat(&mut c, "h1", 8, 8);
    let names: Vec<(Locality, &str, u32)> = ds
        .iter()
        .map(|d| (d.locality, d.resource_name.as_str(), d.count))
        .collect();
    assert_eq!(
        names,
        vec![
            (Locality::NodeLocal, "h1", 1),
            (Locality::RackLocal, "/r1", 2),
            (Locality::OffSwitch, "*", 1)
        ]
    );
    assert!(ds.iter().all(|d| d.node == "h1:8041" && d.priority == 20));
    assert_eq!(c.stats().pending_containers, 1);
}

#[test]
fn node_local_needs_the_rack_row_as_yarn_counts() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    // The host row is left over but the rack row is spent: YARN would not place it node-local.
    set_asks(
        &mut c,
        "mr",
        &[(20, "h1", 2, 1, 1, true), (20, "*", 2, 1, 1, true)],
    );
    let ds = heartbeat(&mut c, "h1", 8, 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::OffSwitch, 1)]);
}

#[test]
fn off_switch_limit_per_heartbeat_and_setting() {
    for (setting, expected) in [(None, 1), (Some("3"), 3)] {
        let mut c = match setting {
            None => core(),
            Some(v) => core_with(&[("locus.off-switch-per-heartbeat", v)]),
        };
        add_node(&mut c, "h1", "/r1", 16, 16);
        add_node(&mut c, "h9", "/r9", 16, 16);
        add_app(&mut c, "mr", 1, "MAPREDUCE");
        add_app(&mut c, "mr2", 2, "MAPREDUCE");
        // Data lives on /r9 only, so h1 is off-switch for both apps.
        for app in ["mr", "mr2"] {
            set_asks(
                &mut c,
                app,
                &[
                    (20, "h9", 10, 1, 1, true),
                    (20, "/r9", 10, 1, 1, true),
                    (20, "*", 10, 1, 1, true),
                ],
            );
        }
        let ds = heartbeat(&mut c, "h1", 16, 16);
        assert_eq!(
            summary(&ds),
            vec![("mr".into(), Locality::OffSwitch, expected)],
            "limit {setting:?}"
        );
        // The limit is per heartbeat: the next one gives the next batch.
        let ds = heartbeat(&mut c, "h1", 16, 16);
        assert_eq!(total(&ds), expected);
    }
}

#[test]
fn star_only_asks_do_not_starve_behind_the_off_switch_limit() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h9", "/r9", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    add_app(&mut c, "spark", 2, "SPARK");
    set_asks(
        &mut c,
        "mr",
        &[
            (20, "h9", 100, 1, 1, true),
            (20, "/r9", 100, 1, 1, true),
            (20, "*", 100, 1, 1, true),
        ],
    );
    set_asks(&mut c, "spark", &[(1, "*", 4, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 8, 8);
    // MapReduce takes its one off-switch map; the Spark executors name no place, so they give
    // up no locality and fill the node in the same heartbeat.
    assert_eq!(
        summary(&ds),
        vec![
            ("mr".into(), Locality::OffSwitch, 1),
            ("spark".into(), Locality::OffSwitch, 4)
        ]
    );
}

#[test]
fn fills_a_node_by_memory_and_by_vcores() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "mem", 1, "YARN");
    set_asks(&mut c, "mem", &[(1, "*", 10, 2, 1, true)]);
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 8)), 4, "8 GB / 2 GB");

    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "cpu", 1, "YARN");
    set_asks(&mut c, "cpu", &[(1, "*", 10, 1, 3, true)]);
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 8)), 2, "8 vcores / 3");
    // The heartbeat's unallocated, not the capability, is what counts.
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 5)), 1);
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 2)), 0);
}

#[test]
fn never_more_than_outstanding() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 64, 64);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 2, 1, 1, true)]);
    assert_eq!(total(&heartbeat(&mut c, "h1", 64, 64)), 2);
    assert!(heartbeat(&mut c, "h1", 64, 64).is_empty());
}

#[test]
fn assign_multiple_false_gives_one_container_per_heartbeat() {
    let mut c = core_with(&[("locus.assign-multiple", "false")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    add_app(&mut c, "b", 2, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 1, 1, 1, true)]);
    set_asks(&mut c, "b", &[(1, "*", 5, 1, 1, true)]);
    assert_eq!(
        summary(&heartbeat(&mut c, "h1", 8, 8)),
        vec![("a".into(), Locality::OffSwitch, 1)]
    );
    assert_eq!(
        summary(&heartbeat(&mut c, "h1", 8, 8)),
        vec![("b".into(), Locality::OffSwitch, 1)]
    );
}

#[test]
fn priorities_in_ascending_number_and_mapreduce_kinds() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_app(&mut c, "mr", 1, "mapreduce");
    set_asks(
        &mut c,
        "mr",
        &[
            (20, "*", 4, 1, 1, true),
            (10, "*", 2, 1, 1, true),
            (0, "*", 1, 1, 1, true),
        ],
    );
    let ds = heartbeat(&mut c, "h1", 4, 4);
    let prios: Vec<(i32, u32)> = ds.iter().map(|d| (d.priority, d.count)).collect();
    assert_eq!(prios, vec![(0, 1), (10, 2), (20, 1)]);
    let app = c.state().app_by_id("mr").unwrap();
    assert_eq!(app.kind_of(0), TaskKind::ApplicationMaster);
    assert_eq!(app.kind_of(10), TaskKind::Reduce);
    assert_eq!(app.kind_of(20), TaskKind::Map);
    assert_eq!(
        c.state().app_by_id("mr").map(|a| a.kind_of(5)),
        Some(TaskKind::FastFailMap)
    );
}

#[test]
fn a_higher_priority_waiting_for_room_holds_back_lower_ones_but_not_other_apps() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    add_app(&mut c, "b", 2, "YARN");
    // a's priority-1 container (4 GB) does not fit the 3 GB left; its 1 GB priority-2 ones
    // must not jump ahead, but b may use the node.
    set_asks(
        &mut c,
        "a",
        &[(1, "*", 1, 4, 1, true), (2, "*", 5, 1, 1, true)],
    );
    set_asks(&mut c, "b", &[(1, "*", 2, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 3, 8);
    assert_eq!(summary(&ds), vec![("b".into(), Locality::OffSwitch, 2)]);
    // An ask bigger than the whole node can never run there and holds nothing back.
    set_asks(
        &mut c,
        "a",
        &[(1, "*", 1, 16, 1, true), (2, "*", 5, 1, 1, true)],
    );
    let ds = heartbeat(&mut c, "h1", 3, 8);
    assert_eq!(summary(&ds), vec![("a".into(), Locality::OffSwitch, 3)]);
}

#[test]
fn relax_locality_false_on_rack_and_star_keeps_containers_on_named_hosts() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "strict", 1, "YARN");
    // AMRMClient's shape for "only on h1": rack and * rows with relax_locality=false.
    set_asks(
        &mut c,
        "strict",
        &[
            (1, "h1", 2, 1, 1, true),
            (1, "/r1", 2, 1, 1, false),
            (1, "*", 2, 1, 1, false),
        ],
    );
    assert!(
        heartbeat(&mut c, "h2", 8, 8).is_empty(),
        "no rack-local on h2"
    );
    assert!(
        heartbeat(&mut c, "h3", 8, 8).is_empty(),
        "no off-switch on h3"
    );
    assert_eq!(
        summary(&heartbeat(&mut c, "h1", 8, 8)),
        vec![("strict".into(), Locality::NodeLocal, 2)]
    );
}

#[test]
fn relax_locality_false_on_star_keeps_containers_in_named_rack() {
    let mut c = core();
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "rack", 1, "YARN");
    set_asks(
        &mut c,
        "rack",
        &[
            (1, "/r1", 2, 1, 1, true),
            (1, "*", 2, 1, 1, false),
            (3, "*", 1, 1, 1, true),
        ],
    );
    // h3 is off-switch for priority 1, which may not relax there; priority 3 may use h3.
    let ds = heartbeat(&mut c, "h3", 8, 8);
    assert_eq!(
        ds.iter().map(|d| (d.priority, d.count)).collect::<Vec<_>>(),
        vec![(3, 1)]
    );
    let ds = heartbeat(&mut c, "h2", 8, 8);
    assert_eq!(summary(&ds), vec![("rack".into(), Locality::RackLocal, 2)]);
}

#[test]
fn rejected_decision_is_offered_again() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 3, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 8, 8);
    assert_eq!(total(&ds), 3);
    assert!(heartbeat(&mut c, "h1", 8, 8).is_empty(), "all handed out");
    // The shim created one and could not create the other two.
    let mut ids = 0;
    let one = Decision {
        count: 1,
        ..ds[0].clone()
    };
    execute(&mut c, &[one], &mut ids);
    c.handle(Event::DecisionRejected {
        decision: ds[0].clone(),
        executed: 1,
        reason: "node full".into(),
    })
    .unwrap();
    let s = c.stats();
    assert_eq!(
        (
            s.rejected,
            s.rejected_containers,
            s.allocations,
            s.in_flight
        ),
        (1, 2, 1, 0)
    );
    let again = heartbeat(&mut c, "h1", 8, 8);
    assert_eq!(
        total(&again),
        2,
        "the two rejected containers are offered again"
    );
}

/// A node removed before the RM executed its decisions (the shim held them in a pass): their
/// containers go back to the asks at once, exactly once whatever the shim reports afterwards,
/// and the RM's digest then agrees with the core's (no drift, no snapshot). Before the
/// fix `forget_node` dropped them, the shim's rejection found nothing to give back, and only
/// the digest's drift (a whole snapshot) brought the asks back.
#[test]
fn a_removed_nodes_unexecuted_decisions_go_back_to_the_asks_once() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 3, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h2", 8, 8);
    assert_eq!(total(&ds), 3);
    assert_eq!(c.stats().pending_containers, 0);
    c.handle(Event::NodeRemoved {
        node: node_id("h2"),
    })
    .unwrap();
    let s = c.stats();
    assert_eq!(
        (s.pending_containers, s.in_flight),
        (3, 0),
        "given back when the node left"
    );
    // The shim then finds the node gone and reports each decision rejected.
    for d in &ds {
        c.handle(Event::DecisionRejected {
            decision: d.clone(),
            executed: 0,
            reason: "node h2:8041 is not registered with the ResourceManager".into(),
        })
        .unwrap();
    }
    assert_eq!(c.stats().pending_containers, 3, "not given back twice");
    // The RM still holds the three asks: its digest is the core's.
    let rm = locus_core::digest::of_totals([(
        locus_core::state::ask::SchedulerKey {
            priority: 1,
            allocation_request_id: 0,
        },
        3,
    )]);
    c.handle(Event::AsksDigest {
        app: "a".into(),
        digest: rm,
    })
    .unwrap();
    assert!(c.take_drifted().is_empty(), "no drift, no snapshot");
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 8)), 3);
}

/// The node left and came back under the same id before the shim reported the decision it could
/// not execute there: the rejection finds nothing in flight (the containers went back when the
/// node left), so it gives nothing back again and makes the app sit out nothing on the node
/// that came back.
#[test]
fn a_rejection_for_a_node_that_came_back_sets_no_pause_and_gives_nothing_twice() {
    let mut c = core();
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 3, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h2", 8, 8);
    assert_eq!(total(&ds), 3);
    c.handle(Event::NodeRemoved {
        node: node_id("h2"),
    })
    .unwrap();
    add_node(&mut c, "h2", "/r1", 8, 8);
    for d in &ds {
        c.handle(Event::DecisionRejected {
            decision: d.clone(),
            executed: 0,
            reason: "node h2:8041 re-registered with the ResourceManager since the core decided"
                .into(),
        })
        .unwrap();
    }
    assert_eq!(c.stats().pending_containers, 3);
    assert_eq!(
        total(&heartbeat(&mut c, "h2", 8, 8)),
        3,
        "the app does not sit out the node that came back"
    );
}

/// Two scheduler keys at one priority (YARN's allocation_request_id): the shim creates a
/// container for one decision and rejects the other, and the rejected key must come back.
#[test]
fn a_container_confirms_the_decision_of_its_own_allocation_request_id() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    let mut rows = asks(&[(5, "*", 1, 1, 1, true), (5, "*", 1, 1, 1, true)]);
    rows[0].allocation_request_id = 1;
    rows[1].allocation_request_id = 2;
    common::set_asks_vec(&mut c, "a", rows);
    let ds = heartbeat(&mut c, "h1", 8, 8);
    assert_eq!(total(&ds), 2, "{ds:?}");
    let first = ds
        .iter()
        .find(|d| d.allocation_request_id == 1)
        .unwrap()
        .clone();
    let second = ds
        .iter()
        .find(|d| d.allocation_request_id == 2)
        .unwrap()
        .clone();
    // The RM created the container of request 2 and could not create request 1's.
    let mut ids = 0;
    execute(&mut c, &[second], &mut ids);
    c.handle(Event::DecisionRejected {
        decision: first,
        executed: 0,
        reason: "node full".into(),
    })
    .unwrap();
    assert_eq!(c.stats().in_flight, 0, "both decisions settled");
    // h1 is the node the rejection happened on (the app sits out its next heartbeat there).
    add_node(&mut c, "h2", "/r1", 8, 8);
    let again = heartbeat(&mut c, "h2", 8, 8);
    assert_eq!(
        again
            .iter()
            .map(|d| (d.allocation_request_id, d.count))
            .collect::<Vec<_>>(),
        vec![(1, 1)],
        "request 1 is offered again, request 2 is not: {again:?}"
    );
}

#[test]
fn rejection_after_a_fresh_snapshot_does_not_double_count() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 2, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 8, 8);
    assert_eq!(total(&ds), 2);
    let mut ids = 0;
    execute(
        &mut c,
        &[Decision {
            count: 1,
            ..ds[0].clone()
        }],
        &mut ids,
    );
    // The RM's snapshot after executing one: one left (the unexecuted one is still in it).
    set_asks(&mut c, "a", &[(1, "*", 1, 1, 1, true)]);
    assert_eq!(
        c.stats().pending_containers,
        0,
        "the unexecuted container is still assumed taken"
    );
    c.handle(Event::DecisionRejected {
        decision: ds[0].clone(),
        executed: 1,
        reason: "x".into(),
    })
    .unwrap();
    assert_eq!(c.stats().pending_containers, 1);
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 8)), 1);
}

#[test]
fn rejection_claiming_more_executed_than_decided_is_a_protocol_error() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 2, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 8, 8);
    let err = c
        .handle(Event::DecisionRejected {
            decision: ds[0].clone(),
            executed: 5,
            reason: "x".into(),
        })
        .unwrap_err();
    assert!(
        matches!(err, CoreError::Protocol(ref m) if m.contains("a priority 1")),
        "{err}"
    );
}

#[test]
fn node_removal_forgets_the_node_and_its_containers() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 2, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 8, 8);
    let mut ids = 0;
    execute(&mut c, &ds, &mut ids);
    assert_eq!(c.stats().running_containers, 2);
    c.handle(Event::NodeRemoved {
        node: node_id("h1"),
    })
    .unwrap();
    let s = c.stats();
    assert_eq!((s.nodes, s.running_containers), (1, 0));
    assert_eq!(c.state().app_by_id("a").unwrap().used, Resource::ZERO);
    // The RM's kill notices for its containers come afterwards and are harmless.
    c.handle(Event::ContainerReleased {
        app: "a".into(),
        container: "container_1".into(),
        node: node_id("h1"),
        resource: Resource::new(GB, 1),
    })
    .unwrap();
    let err = c
        .heartbeat(&Heartbeat {
            node: node_id("h1"),
            unallocated: Resource::new(GB, 1),
            now_ms: 2,
            sweep: false,
            eager: false,
        })
        .unwrap_err();
    assert_eq!(err, CoreError::UnknownNode(node_id("h1")));
    // Removing it again is ignored, not an error.
    c.handle(Event::NodeRemoved {
        node: node_id("h1"),
    })
    .unwrap();
    assert_eq!(c.stats().ignored_events, 2);
}

#[test]
fn app_removal_hands_the_node_to_the_next_app() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_app(&mut c, "a", 1, "YARN");
    add_app(&mut c, "b", 2, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 9, 1, 1, true)]);
    set_asks(&mut c, "b", &[(1, "*", 9, 1, 1, true)]);
    let ds = heartbeat(&mut c, "h1", 4, 4);
    let mut ids = 0;
    execute(&mut c, &ds, &mut ids);
    assert_eq!(
        c.state().queues().get("default").map(|q| q.running),
        Some(4)
    );
    c.handle(Event::AppRemoved { app: "a".into() }).unwrap();
    assert_eq!(c.stats().apps, 1);
    assert_eq!(
        c.state().node(&node_id("h1")).unwrap().allocated,
        Resource::ZERO
    );
    assert_eq!(
        summary(&heartbeat(&mut c, "h1", 4, 4)),
        vec![("b".into(), Locality::OffSwitch, 4)]
    );
    let err = c
        .handle(Event::AsksUpdated {
            app: "a".into(),
            asks: vec![],
        })
        .unwrap_err();
    assert_eq!(err, CoreError::UnknownApp("a".into()));
}

#[test]
fn attempt_removal_drops_the_asks() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_app(&mut c, "a", 1, "YARN");
    c.handle(Event::AttemptAdded {
        app: "a".into(),
        attempt: "appattempt_1".into(),
    })
    .unwrap();
    set_asks(&mut c, "a", &[(1, "*", 9, 1, 1, true)]);
    c.handle(Event::AttemptRemoved {
        app: "a".into(),
        attempt: "appattempt_1".into(),
    })
    .unwrap();
    assert!(heartbeat(&mut c, "h1", 4, 4).is_empty());
}

#[test]
fn recovered_containers_are_counted_apart_and_hold_resource() {
    let mut c = core_with(&[("locus.slots.map-share", "0.5")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    let info = ContainerInfo {
        container: "container_e1_0001_01_000002".into(),
        app: "mr".into(),
        node: node_id("h1"),
        priority: 20,
        resource: Resource::new(2 * GB, 1),
    };
    c.handle(Event::ContainerAllocated {
        container: info.clone(),
        locality: Locality::NodeLocal,
        allocation_request_id: 0,
        recovered: true,
    })
    .unwrap();
    // Replayed: no double counting.
    c.handle(Event::ContainerAllocated {
        container: info.clone(),
        locality: Locality::NodeLocal,
        allocation_request_id: 0,
        recovered: true,
    })
    .unwrap();
    let s = c.stats();
    assert_eq!(
        (
            s.recovered,
            s.allocations,
            s.node_local,
            s.running_containers
        ),
        (1, 0, 0, 1)
    );
    let app = c.state().app_by_id("mr").unwrap();
    assert_eq!((app.used, app.running), (Resource::new(2 * GB, 1), 1));
    assert_eq!(
        c.state().slot_used(locus_core::SlotKind::Map),
        Resource::new(2 * GB, 1)
    );
    // Maps may hold 4 GB of the 8: the recovered one already holds 2.
    set_asks(&mut c, "mr", &[(20, "*", 5, 1, 1, true)]);
    assert_eq!(total(&heartbeat(&mut c, "h1", 6, 7)), 2);
    c.handle(Event::ContainerReleased {
        app: "mr".into(),
        container: info.container.clone(),
        node: node_id("h1"),
        resource: info.resource,
    })
    .unwrap();
    assert_eq!(c.stats().running_containers, 0);
    let err = c
        .handle(Event::ContainerAllocated {
            container: ContainerInfo {
                app: "nope".into(),
                ..info.clone()
            },
            locality: Locality::NodeLocal,
            allocation_request_id: 0,
            recovered: true,
        })
        .unwrap_err();
    assert_eq!(err, CoreError::UnknownApp("nope".into()));
}

#[test]
fn static_slot_share_caps_maps_and_leaves_room_for_reduces() {
    let mut c = core_with(&[("locus.slots.map-share", "0.25")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    add_app(&mut c, "other", 2, "SPARK");
    // Maps at priority 20 may hold 4 GB of 16; reduces (priority 10) 12 GB.
    set_asks(
        &mut c,
        "mr",
        &[(10, "*", 1, 1, 1, true), (20, "*", 20, 1, 1, true)],
    );
    set_asks(&mut c, "other", &[(1, "*", 20, 1, 1, true)]);
    let mut ids = 0;
    let ds = heartbeat(&mut c, "h1", 8, 8);
    let prios: Vec<(String, i32, u32)> = ds
        .iter()
        .map(|d| (d.app.clone(), d.priority, d.count))
        .collect();
    assert_eq!(
        prios,
        vec![
            ("mr".into(), 10, 1),
            ("mr".into(), 20, 4),
            ("other".into(), 1, 3)
        ]
    );
    execute(&mut c, &ds, &mut ids);
    let ds = heartbeat(&mut c, "h2", 8, 8);
    assert_eq!(
        summary(&ds),
        vec![("other".into(), Locality::OffSwitch, 8)],
        "map share used up"
    );
}

#[test]
fn in_flight_decision_is_not_offered_twice_across_a_snapshot() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(
        &mut c,
        "a",
        &[(1, "*", 3, 1, 1, true), (2, "*", 1, 1, 1, true)],
    );
    let ds = heartbeat(&mut c, "h1", 8, 8);
    assert_eq!(total(&ds), 4);
    // The shim executes the priority-1 decision and sends the RM's snapshot, taken before it
    // executed the priority-2 one.
    let mut ids = 0;
    execute(&mut c, &ds[..1], &mut ids);
    set_asks(&mut c, "a", &[(2, "*", 1, 1, 1, true)]);
    assert!(
        heartbeat(&mut c, "h2", 8, 8).is_empty(),
        "priority 2 is still in flight"
    );
}

#[test]
fn errors_name_the_culprit() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "app_9", 1, "YARN");
    let err = c
        .heartbeat(&Heartbeat {
            node: "ghost:1".into(),
            unallocated: Resource::new(1, 1),
            now_ms: 0,
            sweep: false,
            eager: false,
        })
        .unwrap_err();
    assert_eq!(err, CoreError::UnknownNode("ghost:1".into()));
    let err = c.handle(Event::AsksUpdated {
        app: "app_x".into(),
        asks: asks(&[(1, "*", 1, 1, 1, true)]),
    });
    assert_eq!(err.unwrap_err(), CoreError::UnknownApp("app_x".into()));
    let err = c
        .handle(Event::AsksUpdated {
            app: "app_9".into(),
            asks: asks(&[(-2, "*", 1, 1, 1, true)]),
        })
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("app_9") && err.contains("priority -2"),
        "{err}"
    );
    let err = c
        .handle(Event::AsksUpdated {
            app: "app_9".into(),
            asks: asks(&[(4, "*", 1, 0, 0, true)]),
        })
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("app_9") && err.contains("priority 4") && err.contains("zero"),
        "{err}"
    );
    // A bad snapshot leaves the previous asks alone.
    set_asks(&mut c, "app_9", &[(1, "*", 1, 1, 1, true)]);
    let _ = c.handle(Event::AsksUpdated {
        app: "app_9".into(),
        asks: asks(&[(-1, "*", 1, 1, 1, true)]),
    });
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 8)), 1);
    let err = c.handle(Event::NodeResourceUpdated {
        node: "ghost:1".into(),
        capability: Resource::ZERO,
    });
    assert_eq!(err.unwrap_err(), CoreError::UnknownNode("ghost:1".into()));
}

#[test]
fn config_errors_name_the_key_and_reconfigure_is_all_or_nothing() {
    let Err(CoreError::Config { key, message }) = Core::new(&props(&[("locus.policy", "lottery")]))
    else {
        panic!("an unknown policy was accepted")
    };
    assert_eq!(key, "locus.policy");
    assert!(message.contains("allowed: fifo"), "{message}");
    let Err(CoreError::Config { key, .. }) = Core::new(&props(&[("locus.bogus", "1")])) else {
        panic!("unknown key accepted")
    };
    assert_eq!(key, "locus.bogus");

    let mut c = core_with(&[("locus.off-switch-per-heartbeat", "2")]);
    let bad = props(&[
        ("locus.off-switch-per-heartbeat", "5"),
        ("locus.assign-multiple", "maybe"),
    ]);
    let err = c.reconfigure(&bad).unwrap_err();
    assert!(matches!(err, CoreError::Config { ref key, .. } if key == "locus.assign-multiple"));
    assert_eq!(c.config().off_switch_per_heartbeat, 2, "nothing changed");
    c.reconfigure(&props(&[("locus.off-switch-per-heartbeat", "5")]))
        .unwrap();
    assert_eq!(c.config().off_switch_per_heartbeat, 5);
}

#[test]
fn duplicate_adds_update_in_place() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "first", 5, "YARN");
    add_app(&mut c, "second", 6, "YARN");
    set_asks(&mut c, "first", &[(1, "*", 8, 1, 1, true)]);
    set_asks(&mut c, "second", &[(1, "*", 8, 1, 1, true)]);
    // Re-registration with a new rack and capability; re-added app keeps its asks and place.
    add_node(&mut c, "h1", "/dc2/r7", 4, 4);
    add_app(&mut c, "first", 5, "MAPREDUCE");
    let s = c.stats();
    assert_eq!((s.nodes, s.apps, s.pending_containers), (1, 2, 16));
    let n = c.state().node(&node_id("h1")).unwrap();
    assert_eq!(
        (n.rack.as_str(), n.datacenter.as_str(), n.capability),
        ("/dc2/r7", "dc2", Resource::new(4 * GB, 4))
    );
    assert_eq!(c.state().capacity(), Resource::new(4 * GB, 4));
    assert!(c.state().app_by_id("first").unwrap().is_mapreduce);
    assert_eq!(
        summary(&heartbeat(&mut c, "h1", 4, 4)),
        vec![("first".into(), Locality::OffSwitch, 4)]
    );
}

#[test]
fn datacenters_from_location_or_mapping_file() {
    let path = std::env::temp_dir().join(format!("locus-dc-{}.txt", std::process::id()));
    std::fs::write(&path, "# tenant view\nvps1 east\n").unwrap();
    let mut c = core_with(&[("locus.datacenter.mapping.file", path.to_str().unwrap())]);
    add_node(&mut c, "vps1", "/rack1", 8, 8);
    add_node(&mut c, "vps2", "/rack1", 8, 8);
    add_node(&mut c, "h3", "/dc9/rack1", 8, 8);
    let dc = |c: &Core, host: &str| c.state().node(&node_id(host)).unwrap().datacenter.clone();
    assert_eq!(
        (dc(&c, "vps1"), dc(&c, "vps2"), dc(&c, "h3")),
        ("east".into(), "default".into(), "dc9".into())
    );
    // A refreshed mapping re-resolves nodes already known.
    std::fs::write(&path, "vps2 west\n").unwrap();
    c.reconfigure(&props(&[(
        "locus.datacenter.mapping.file",
        path.to_str().unwrap(),
    )]))
    .unwrap();
    assert_eq!(
        (dc(&c, "vps1"), dc(&c, "vps2")),
        ("default".into(), "west".into())
    );
    std::fs::write(&path, "vps2 west extra\n").unwrap();
    let err = c
        .reconfigure(&props(&[(
            "locus.datacenter.mapping.file",
            path.to_str().unwrap(),
        )]))
        .unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
    assert_eq!(dc(&c, "vps2"), "west", "a broken file changes nothing");
    std::fs::remove_file(&path).ok();
}

#[test]
fn stats_count_confirmed_allocations_by_locality() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(
        &mut c,
        "mr",
        &[
            (20, "h1", 2, 1, 1, true),
            (20, "/r1", 3, 1, 1, true),
            (20, "*", 4, 1, 1, true),
        ],
    );
    let mut ids = 0;
    for host in ["h1", "h2", "h3"] {
        let ds = heartbeat(&mut c, host, 8, 8);
        execute(&mut c, &ds, &mut ids);
    }
    let s = c.stats();
    assert_eq!(
        (s.node_local, s.rack_local, s.off_switch, s.allocations),
        (2, 1, 1, 4)
    );
    assert_eq!(
        (s.heartbeats, s.decisions, s.decided_containers, s.in_flight),
        (3, 3, 4, 0)
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["policy"], "fifo");
    assert_eq!(json["node_local"], 2);
}

#[test]
fn a_decision_the_shim_never_settles_is_dropped_after_a_grace_heartbeat() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "a", 1, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 2, 1, 1, true)]);
    assert_eq!(total(&heartbeat(&mut c, "h1", 1, 1)), 1);
    // Neither container_allocated nor decision_rejected arrives.
    heartbeat(&mut c, "h1", 0, 0);
    assert_eq!(c.stats().in_flight, 1, "one heartbeat of grace");
    heartbeat(&mut c, "h1", 0, 0);
    let s = c.stats();
    assert_eq!((s.in_flight, s.lost_decisions), (0, 1));
    // The RM still wants 2: a lost decision must not keep lowering later snapshots.
    set_asks(&mut c, "a", &[(1, "*", 2, 1, 1, true)]);
    assert_eq!(total(&heartbeat(&mut c, "h1", 8, 8)), 2);
}

#[test]
fn events_and_heartbeats_as_json_from_the_shim() {
    let mut c = core();
    let events = r#"[
        {"type":"node_added","node":"h1:8041","host":"h1","rack":"/dc1/rack1","capability":{"memory_mb":8192,"vcores":8}},
        {"type":"app_added","app":"application_1_0001","queue":"default","user":"bob","app_type":"MAPREDUCE","submit_ms":5},
        {"type":"attempt_added","app":"application_1_0001","attempt":"appattempt_1_0001_000001"},
        {"type":"asks_updated","app":"application_1_0001","asks":[
            {"priority":0,"resource_name":"*","capability":{"memory_mb":1536,"vcores":1},"count":1}]}
    ]"#;
    let events: Vec<Event> = serde_json::from_str(events).unwrap();
    for e in events {
        c.handle(e).unwrap();
    }
    let hb: Heartbeat = serde_json::from_str(
        r#"{"node":"h1:8041","unallocated":{"memory_mb":8192,"vcores":8},"now_ms":9}"#,
    )
    .unwrap();
    let resp = c.heartbeat(&hb).unwrap();
    let json = serde_json::to_value(&resp).unwrap();
    assert_eq!(json["decisions"][0]["app"], "application_1_0001");
    assert_eq!(json["decisions"][0]["locality"], "off_switch");
    assert_eq!(json["decisions"][0]["resource_name"], "*");
    assert_eq!(json["decisions"][0]["count"], 1);
    let allocated: Event = serde_json::from_str(
        r#"{"type":"container_allocated","container":"container_1_0001_01_000001","app":"application_1_0001",
            "node":"h1:8041","priority":0,"resource":{"memory_mb":1536,"vcores":1},"locality":"off_switch"}"#,
    )
    .unwrap();
    c.handle(allocated).unwrap();
    let s = c.stats();
    assert_eq!(
        (
            s.allocations,
            s.off_switch,
            s.in_flight,
            s.running_containers
        ),
        (1, 1, 0, 1)
    );
    assert_eq!(c.state().node("h1:8041").unwrap().datacenter, "dc1");
}

#[test]
fn an_app_the_shim_keeps_rejecting_on_a_node_backs_off_there() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_node(&mut c, "h2", "/r1", 4, 4);
    add_app(&mut c, "a", 1, "YARN");
    add_app(&mut c, "b", 2, "YARN");
    set_asks(&mut c, "a", &[(1, "*", 50, 1, 1, true)]);
    set_asks(&mut c, "b", &[(1, "*", 50, 1, 1, true)]);
    let mut ids = 0;
    // h1 is blacklisted for a: the shim rejects a's decisions there without executing any.
    let reject_a = |c: &mut Core, ds: &[Decision]| {
        for d in ds.iter().filter(|d| d.app == "a") {
            c.handle(Event::DecisionRejected {
                decision: d.clone(),
                executed: 0,
                reason: "node is blacklisted for application a".into(),
            })
            .unwrap();
        }
    };
    let mut owners = Vec::new();
    for _ in 0..8 {
        let ds = heartbeat(&mut c, "h1", 4, 4);
        owners.push(ds.first().map(|d| d.app.clone()).unwrap_or_default());
        reject_a(&mut c, &ds);
    }
    // a is tried, sits out 1, tried, sits out 2, tried, sits out 4 ...
    assert_eq!(owners, ["a", "b", "a", "b", "b", "a", "b", "b"]);
    assert_eq!(c.stats().backed_off, 1);
    // Elsewhere a is unaffected, and a container on h1 clears the back-off.
    assert_eq!(
        summary(&heartbeat(&mut c, "h2", 4, 4)),
        vec![("a".into(), Locality::OffSwitch, 4)]
    );
    let ds = vec![Decision {
        app: "a".into(),
        priority: 1,
        allocation_request_id: 0,
        resource_name: "*".into(),
        node: node_id("h1"),
        locality: Locality::OffSwitch,
        count: 1,
        capability: Resource::new(GB, 1),
        limits: None,
    }];
    execute(&mut c, &ds, &mut ids);
    assert_eq!(c.stats().backed_off, 0);
}

/// A slot pool's cap holds over a batch of node offers the RM executes only after the batch
/// (`Core::offers`), as the AM share does: maps decided for one node and not yet created count
/// against the pool when the next node is offered. Each heartbeat of the batch saw the pool as
/// the last executed containers left it, so every node of a batch could fill it again (and
/// start a container in it as if it were empty).
#[test]
fn a_slot_pool_cap_counts_decisions_not_yet_executed() {
    let mut c = core_with(&[("locus.slots.map-share", "0.5")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    // Maps of 2 GB and 2 vcores; the pool holds 8 GB and 8 vcores of the 16 / 16.
    set_asks(&mut c, "mr", &[(20, "*", 12, 2, 2, true)]);
    let offer = |host: &str| locus_core::Heartbeat {
        node: node_id(host),
        unallocated: Resource::new(8 * GB, 8),
        now_ms: 1_000,
        sweep: false,
        eager: false,
    };
    let out = c.offers(&[offer("h1"), offer("h2")]);
    let mut maps = Resource::ZERO;
    for d in &out.decisions {
        maps = maps.add(&Resource::new(
            d.capability.memory_mb * d.count as u64,
            d.capability.vcores * d.count,
        ));
    }
    assert_eq!(
        maps,
        Resource::new(8 * GB, 8),
        "one batch of two offers decided {maps:?} of maps against a pool of 8 GB / 8 vcores: {:?}",
        out.decisions
    );
}

/// An application's blacklist (`app_blacklist`) keeps the core from deciding for it on a
/// blacklisted node or on any node of a blacklisted rack; others' decisions are unaffected, and
/// taking a place off the list gives the app that node again.
#[test]
fn a_blacklisted_node_or_rack_gets_no_decisions_for_the_app() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r2", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "app", 1, "SPARK");
    add_app(&mut c, "other", 2, "SPARK");
    set_asks(&mut c, "app", &[(1, "*", 3, 1, 1, true)]);
    set_asks(&mut c, "other", &[(1, "*", 1, 1, 1, true)]);
    c.handle(Event::AppBlacklist {
        app: "app".into(),
        places: vec!["h1".into(), "/r2".into()],
    })
    .unwrap();
    for host in ["h1", "h2", "h3"] {
        for d in heartbeat(&mut c, host, 8, 8) {
            assert_eq!(d.app, "other", "decided {d:?} on blacklisted {host}");
        }
    }
    assert_eq!(c.stats().in_flight, 1, "other's container only");
    c.handle(Event::AppBlacklist {
        app: "app".into(),
        places: vec!["h1".into()],
    })
    .unwrap();
    assert!(heartbeat(&mut c, "h1", 8, 8).is_empty());
    let ds = heartbeat(&mut c, "h2", 8, 8);
    assert_eq!(summary(&ds), vec![("app".into(), Locality::OffSwitch, 3)]);

    // A list over the bound is refused, naming the app; the previous list stays.
    let long: Vec<String> = (0..=locus_core::MAX_BLACKLIST_PLACES)
        .map(|i| format!("x{i}"))
        .collect();
    let err = c
        .handle(Event::AppBlacklist {
            app: "app".into(),
            places: long,
        })
        .unwrap_err();
    assert!(err.to_string().contains("app_blacklist for app"), "{err}");
    assert!(matches!(
        c.handle(Event::AppBlacklist {
            app: "ghost".into(),
            places: vec![]
        }),
        Err(CoreError::UnknownApp(_))
    ));
}

/// A blacklist belongs to its attempt: `attempt_removed` forgets it, as the RM's next attempt
/// starts with its own.
#[test]
fn an_attempts_blacklist_ends_with_it() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app(&mut c, "app", 1, "SPARK");
    c.handle(Event::AttemptAdded {
        app: "app".into(),
        attempt: "appattempt_1_0001_000001".into(),
    })
    .unwrap();
    set_asks(&mut c, "app", &[(1, "*", 1, 1, 1, true)]);
    c.handle(Event::AppBlacklist {
        app: "app".into(),
        places: vec!["h1".into()],
    })
    .unwrap();
    assert!(heartbeat(&mut c, "h1", 8, 8).is_empty());
    c.handle(Event::AttemptRemoved {
        app: "app".into(),
        attempt: "appattempt_1_0001_000001".into(),
    })
    .unwrap();
    c.handle(Event::AttemptAdded {
        app: "app".into(),
        attempt: "appattempt_1_0001_000002".into(),
    })
    .unwrap();
    set_asks(&mut c, "app", &[(1, "*", 1, 1, 1, true)]);
    assert_eq!(
        summary(&heartbeat(&mut c, "h1", 8, 8)),
        vec![("app".into(), Locality::OffSwitch, 1)]
    );
}
