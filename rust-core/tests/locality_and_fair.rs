//! The `fair` job policy, the `delay` and `matchmaking` locality techniques and the `hot-queue`
//! guard, driven through the core as the shim drives it.

mod common;

use common::{add_node, core_with, execute, node_id, summary};
use locus_core::{Core, Decision, Event, Locality};

fn add_app(c: &mut Core, app: &str, submit_ms: u64, app_type: &str) {
    common::add_app_named(c, app, app, submit_ms, app_type, &[]);
}

/// (priority, resource_name, count) of 1 GB / 1 vcore containers.
fn set_asks(c: &mut Core, app: &str, rows: &[(i32, &str, u32)]) {
    common::set_small_asks(c, app, rows);
}

fn heartbeat_at(c: &mut Core, host: &str, free_gb: u64, now_ms: u64) -> Vec<Decision> {
    common::heartbeat_free(c, host, free_gb, free_gb as u32, now_ms)
}

fn heartbeat(c: &mut Core, host: &str, free_gb: u64) -> Vec<Decision> {
    heartbeat_at(c, host, free_gb, 1_000)
}

fn given_to(ds: &[Decision], app: &str) -> u32 {
    ds.iter().filter(|d| d.app == app).map(|d| d.count).sum()
}

// ---- fair ---------------------------------------------------------------------------------

#[test]
fn fair_gives_a_heartbeat_to_the_app_with_the_smallest_dominant_share() {
    for (policy, want_a, want_b) in [("fifo", 8, 0), ("fair", 2, 6)] {
        let mut c = core_with(&[("locus.policy", policy)]);
        add_node(&mut c, "h1", "/r1", 8, 8);
        add_node(&mut c, "h2", "/r1", 8, 8);
        add_app(&mut c, "a", 1, "SPARK");
        add_app(&mut c, "b", 2, "SPARK");
        set_asks(&mut c, "a", &[(1, "*", 4)]);
        let mut next = 0;
        let ds = heartbeat(&mut c, "h2", 8);
        execute(&mut c, &ds, &mut next);
        assert_eq!(given_to(&ds, "a"), 4);
        // a holds 4 of 16 GB; both now want plenty.
        set_asks(&mut c, "a", &[(1, "*", 10)]);
        set_asks(&mut c, "b", &[(1, "*", 10)]);
        let ds = heartbeat(&mut c, "h1", 8);
        assert_eq!(
            (given_to(&ds, "a"), given_to(&ds, "b")),
            (want_a, want_b),
            "{policy}: {:?}",
            summary(&ds)
        );
    }
}

#[test]
fn fair_serves_a_new_apps_am_before_busy_apps_take_more() {
    let mut c = core_with(&[("locus.policy", "fair")]);
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_app(&mut c, "busy", 1, "MAPREDUCE");
    set_asks(&mut c, "busy", &[(20, "*", 3)]);
    let mut next = 0;
    let ds = heartbeat(&mut c, "h1", 4);
    execute(&mut c, &ds, &mut next);
    set_asks(&mut c, "busy", &[(20, "*", 50)]);
    add_app(&mut c, "newcomer", 5, "MAPREDUCE");
    set_asks(&mut c, "newcomer", &[(0, "*", 1)]);
    let ds = heartbeat(&mut c, "h1", 1);
    assert_eq!(
        summary(&ds),
        vec![("newcomer".into(), Locality::OffSwitch, 1)]
    );
    assert_eq!(ds[0].priority, 0);
}

// ---- delay --------------------------------------------------------------------------------

/// 4 nodes, thresholds 0.5 → 2 missed nodes per level.
fn delay_cluster(locality: &str) -> Core {
    let mut c = core_with(&[
        ("locus.locality", locality),
        ("locus.delay.node-locality-threshold", "0.5"),
        ("locus.delay.rack-locality-threshold", "0.5"),
    ]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_node(&mut c, "h4", "/r2", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(&mut c, "mr", &[(20, "h1", 2), (20, "/r1", 2), (20, "*", 2)]);
    c
}

#[test]
fn delay_waits_a_fraction_of_the_cluster_per_level() {
    let mut c = delay_cluster("delay");
    // Two missed nodes at node level...
    assert!(heartbeat(&mut c, "h3", 8).is_empty());
    assert!(heartbeat(&mut c, "h4", 8).is_empty());
    // ...then rack-local is allowed, but h3 is off the rack: still nothing, a rack-level miss.
    assert!(heartbeat(&mut c, "h3", 8).is_empty());
    let ds = heartbeat(&mut c, "h2", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 2)]);

    // Without delay the first heartbeat anywhere takes the map off-switch.
    let mut c = delay_cluster("hadoop");
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::OffSwitch, 1)]);
}

#[test]
fn delay_relaxes_to_off_switch_after_the_rack_threshold_and_never_holds_ams() {
    let mut c = delay_cluster("delay");
    add_app(&mut c, "am", 2, "MAPREDUCE");
    set_asks(&mut c, "am", &[(0, "*", 1)]);
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(
        summary(&ds),
        vec![("am".into(), Locality::OffSwitch, 1)],
        "AMs never wait"
    );
    assert!(heartbeat(&mut c, "h4", 8).is_empty());
    assert!(heartbeat(&mut c, "h3", 8).is_empty());
    assert!(heartbeat(&mut c, "h4", 8).is_empty());
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::OffSwitch, 1)]);
}

#[test]
fn delay_node_local_needs_no_wait() {
    let mut c = delay_cluster("delay");
    let ds = heartbeat(&mut c, "h1", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 2)]);
}

/// Locus's default settings (not `core_with`'s fifo + hadoop): two nodes on two racks and a
/// non-MapReduce app whose AM already runs on h2 and which asks for one 1 GB container on h1
/// (an executor with a preferred location, a DistributedShell `-placement` ask).
fn default_cluster_with_a_host_ask(app_type: &str) -> Core {
    let mut c = Core::new(&common::props(&[])).expect("default settings");
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r2", 8, 8);
    add_app(&mut c, "app", 1, app_type);
    set_asks(&mut c, "app", &[(0, "*", 1)]);
    let ds = heartbeat_at(&mut c, "h2", 8, 1_000);
    assert_eq!(
        summary(&ds),
        vec![("app".into(), Locality::OffSwitch, 1)],
        "the AM"
    );
    let mut next = 0;
    execute(&mut c, &ds, &mut next);
    set_asks(&mut c, "app", &[(1, "h1", 1), (1, "/r1", 1), (1, "*", 1)]);
    c
}

#[test]
fn delay_holds_any_apps_host_asks_for_their_host_under_the_default() {
    for app_type in ["YARN", "SPARK"] {
        let mut c = default_cluster_with_a_host_ask(app_type);
        let ds = heartbeat_at(&mut c, "h2", 7, 2_000);
        assert!(
            ds.is_empty(),
            "{app_type}: h2 (another rack) must not take the h1 ask off-switch on its first offer: {:?}",
            summary(&ds)
        );
        let ds = heartbeat_at(&mut c, "h1", 8, 2_100);
        assert_eq!(
            summary(&ds),
            vec![("app".into(), Locality::NodeLocal, 1)],
            "{app_type}"
        );
    }
}

#[test]
fn delay_serves_any_apps_host_ask_off_switch_within_the_bound_when_its_host_has_no_room() {
    // docs/design/liveness.md: delay's bound is ceil(t_node·N) + ceil(t_rack·N) heartbeats, then 1;
    // thresholds 1.0 on 2 nodes: 2 + 2 + 1.
    for app_type in ["YARN", "SPARK"] {
        let mut c = default_cluster_with_a_host_ask(app_type);
        let mut served = None;
        for i in 1..=5u64 {
            // h1 is full on every heartbeat: it never has room for the ask.
            assert!(heartbeat_at(&mut c, "h1", 0, 2_000 + 2 * i * 1_000).is_empty());
            let ds = heartbeat_at(&mut c, "h2", 7, 3_000 + 2 * i * 1_000);
            if !ds.is_empty() {
                assert_eq!(
                    summary(&ds),
                    vec![("app".into(), Locality::OffSwitch, 1)],
                    "{app_type}"
                );
                served = Some(i);
                break;
            }
        }
        assert_eq!(
            served,
            Some(5),
            "{app_type}: waits the thresholds, then is served off-switch"
        );
    }
}

#[test]
fn delay_keeps_any_apps_strict_host_asks_strict() {
    // relaxLocality=false at the rack and `*`: only h1 may run it, however long it waits.
    let mut c = default_cluster_with_a_host_ask("YARN");
    common::set_asks_rows(
        &mut c,
        "app",
        &[
            (1, "h1", 1, 1, 1, true),
            (1, "/r1", 1, 1, 1, false),
            (1, "*", 1, 1, 1, false),
        ],
    );
    for i in 1..=10u64 {
        assert!(heartbeat_at(&mut c, "h2", 7, 2_000 + i * 1_000).is_empty());
    }
    let ds = heartbeat_at(&mut c, "h1", 8, 20_000);
    assert_eq!(summary(&ds), vec![("app".into(), Locality::NodeLocal, 1)]);
}

// ---- matchmaking --------------------------------------------------------------------------

fn mm_cluster(policy: &str) -> Core {
    let mut c = core_with(&[("locus.policy", policy), ("locus.locality", "matchmaking")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r1", 8, 8);
    c
}

#[test]
fn matchmaking_first_miss_idles_second_miss_gives_one_non_local_map() {
    let mut c = mm_cluster("fifo");
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(&mut c, "mr", &[(20, "h3", 6), (20, "/r1", 6), (20, "*", 6)]);
    assert!(
        heartbeat(&mut c, "h1", 8).is_empty(),
        "first miss: the node is marked, gets nothing"
    );
    // Second miss in a row: exactly one non-local map although 8 fit and the rack row has 6.
    let ds = heartbeat(&mut c, "h1", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 1)]);
    // The data node fills up with local maps.
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 5)]);
}

#[test]
fn matchmaking_resets_every_marker_when_a_job_arrives() {
    let mut c = mm_cluster("fifo");
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(&mut c, "mr", &[(20, "h3", 6), (20, "/r1", 6), (20, "*", 6)]);
    assert!(heartbeat(&mut c, "h1", 8).is_empty());
    add_app(&mut c, "other", 2, "MAPREDUCE");
    set_asks(
        &mut c,
        "other",
        &[(20, "h3", 1), (20, "/r1", 1), (20, "*", 1)],
    );
    assert!(
        heartbeat(&mut c, "h1", 8).is_empty(),
        "after the arrival h1's miss is a first miss again"
    );
    assert_eq!(heartbeat(&mut c, "h1", 8).len(), 1);
}

#[test]
fn matchmaking_relaxes_the_job_order_for_local_maps_under_fifo_and_fair() {
    for policy in ["fifo", "fair"] {
        let mut c = mm_cluster(policy);
        add_app(&mut c, "head", 1, "MAPREDUCE");
        add_app(&mut c, "second", 2, "MAPREDUCE");
        set_asks(
            &mut c,
            "head",
            &[(20, "h3", 4), (20, "/r1", 4), (20, "*", 4)],
        );
        set_asks(
            &mut c,
            "second",
            &[(20, "h2", 2), (20, "/r1", 2), (20, "*", 2)],
        );
        let ds = heartbeat(&mut c, "h2", 8);
        assert_eq!(
            summary(&ds),
            vec![("second".into(), Locality::NodeLocal, 2)],
            "{policy}: the head job has nothing local on h2 and must not take it non-locally"
        );
        // h2 ran out of local work mid-heartbeat: marked, so the next visit is a second miss.
        let ds = heartbeat(&mut c, "h2", 6);
        assert_eq!(
            summary(&ds),
            vec![("head".into(), Locality::RackLocal, 1)],
            "{policy}"
        );
    }
}

#[test]
fn matchmaking_never_holds_ams_or_star_asks_and_marks_for_any_apps_located_tasks() {
    let mut c = mm_cluster("fifo");
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(
        &mut c,
        "mr",
        &[(0, "*", 1), (20, "h3", 3), (20, "/r1", 3), (20, "*", 3)],
    );
    add_app(&mut c, "spark", 2, "SPARK");
    set_asks(&mut c, "spark", &[(1, "h3", 2), (1, "/r1", 2), (1, "*", 2)]);
    add_app(&mut c, "dshell", 3, "YARN");
    set_asks(&mut c, "dshell", &[(1, "*", 2)]);
    let ds = heartbeat(&mut c, "h1", 8);
    assert_eq!(given_to(&ds, "mr"), 1, "{:?}", summary(&ds));
    assert_eq!(ds[0].priority, 0, "the AM is never held");
    assert_eq!(
        given_to(&ds, "spark"),
        0,
        "the executors' data is on h3: h1's first miss gives them nothing, as to maps"
    );
    assert_eq!(
        given_to(&ds, "dshell"),
        2,
        "asks at `*` only are never held"
    );
    // Second miss: one non-local task, to the first job in the order.
    let ds = heartbeat(&mut c, "h1", 5);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 1)]);
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(
        summary(&ds),
        vec![
            ("mr".into(), Locality::NodeLocal, 2),
            ("spark".into(), Locality::NodeLocal, 2)
        ]
    );
}

// ---- hot queue ----------------------------------------------------------------------------

#[test]
fn hot_queue_keeps_non_local_readers_off_a_hot_host_until_the_tuple_expires() {
    // θ = 1, δ = 1000 bytes, ρ = 100 bytes/s: a read lives θ·δ/ρ = 10 s.
    let mut c = core_with(&[
        ("locus.hotspot", "hot-queue"),
        ("locus.td.hotspot-readers", "1"),
        ("locus.td.split-bytes", "1000"),
        ("locus.td.bandwidth", "100"),
    ]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r2", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(&mut c, "mr", &[(20, "h1", 4), (20, "/r1", 4), (20, "*", 4)]);
    let mut next = 0;
    let ds = heartbeat_at(&mut c, "h2", 8, 1_000);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::OffSwitch, 1)]);
    execute(&mut c, &ds, &mut next);
    // The AM gave the container the map whose block is on h1: h1's count drops.
    set_asks(&mut c, "mr", &[(20, "h1", 3), (20, "/r1", 3), (20, "*", 3)]);
    assert!(
        heartbeat_at(&mut c, "h3", 8, 2_000).is_empty(),
        "h1 has θ = 1 live reader"
    );
    assert!(heartbeat_at(&mut c, "h3", 8, 10_999).is_empty());
    // The guard never holds node-local work on the hot host itself.
    let ds = heartbeat_at(&mut c, "h1", 1, 5_000);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 1)]);
    let ds = heartbeat_at(&mut c, "h3", 8, 11_000);
    assert_eq!(
        summary(&ds),
        vec![("mr".into(), Locality::OffSwitch, 1)],
        "tuple expired at t + θδ/ρ"
    );
}

#[test]
fn hot_queue_admits_readers_of_cold_hosts_and_never_holds_other_containers() {
    let mut c = core_with(&[
        ("locus.hotspot", "hot-queue"),
        ("locus.td.hotspot-readers", "1"),
        ("locus.td.split-bytes", "1000"),
        ("locus.td.bandwidth", "100"),
        ("locus.off-switch-per-heartbeat", "10"),
    ]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h4", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r2", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(
        &mut c,
        "mr",
        &[(20, "h1", 2), (20, "h4", 2), (20, "/r1", 4), (20, "*", 4)],
    );
    let mut next = 0;
    let ds = heartbeat_at(&mut c, "h2", 1, 1_000);
    execute(&mut c, &ds, &mut next);
    set_asks(
        &mut c,
        "mr",
        &[(20, "h1", 1), (20, "h4", 2), (20, "/r1", 3), (20, "*", 3)],
    );
    add_app(&mut c, "am", 2, "MAPREDUCE");
    set_asks(&mut c, "am", &[(0, "*", 1)]);
    // h1 is hot, h4 is not: one more non-local reader is admitted (one per cold host).
    let ds = heartbeat_at(&mut c, "h2", 8, 2_000);
    assert_eq!(given_to(&ds, "mr"), 1, "{:?}", summary(&ds));
    assert_eq!(given_to(&ds, "am"), 1);
}

#[test]
fn matchmaking_node_that_leaves_and_returns_starts_unmarked() {
    let mut c = mm_cluster("fifo");
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(&mut c, "mr", &[(20, "h3", 6), (20, "/r1", 6), (20, "*", 6)]);
    assert!(heartbeat(&mut c, "h1", 8).is_empty(), "first miss marks h1");
    c.handle(Event::NodeRemoved {
        node: node_id("h1"),
    })
    .unwrap();
    assert!(heartbeat(&mut c, "h2", 8).is_empty(), "h2's first miss");
    add_node(&mut c, "h1", "/r1", 8, 8);
    assert!(
        heartbeat(&mut c, "h1", 8).is_empty(),
        "the re-registered h1 lost its marker: a first miss again, not a non-local task"
    );
}

#[test]
fn hot_queue_does_not_mistake_dropped_asks_for_reads() {
    let mut c = core_with(&[
        ("locus.hotspot", "hot-queue"),
        ("locus.td.hotspot-readers", "1"),
        ("locus.td.split-bytes", "1000"),
        ("locus.td.bandwidth", "100"),
    ]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r2", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_app(&mut c, "mr", 1, "MAPREDUCE");
    set_asks(
        &mut c,
        "mr",
        &[
            (20, "h1", 4),
            (20, "h3", 4),
            (20, "/r1", 4),
            (20, "/r2", 4),
            (20, "*", 8),
        ],
    );
    let mut next = 0;
    let ds = heartbeat_at(&mut c, "h2", 1, 1_000);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 1)]);
    execute(&mut c, &ds, &mut next);
    // The AM reads that split from h3 (its count drops by one)... and cancels h1's four maps at
    // once (e.g. they were speculative): one non-local container is one read, not five.
    set_asks(&mut c, "mr", &[(20, "h3", 3), (20, "/r2", 3), (20, "*", 3)]);
    add_app(&mut c, "other", 2, "MAPREDUCE");
    set_asks(
        &mut c,
        "other",
        &[(20, "h1", 1), (20, "/r1", 1), (20, "*", 1)],
    );
    let ds = heartbeat_at(&mut c, "h2", 8, 2_000);
    assert_eq!(
        given_to(&ds, "other"),
        1,
        "h1 must not look hot: {:?}",
        summary(&ds)
    );
}
