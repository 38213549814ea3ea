//! The `td` job policy driven through the core: TD's bounds and job statuses decide who gets
//! map containers; everything that is not a map is served FIFO and never waits for TD.

mod common;

use std::collections::BTreeMap;

use common::{core_with, execute, GB};
use locus_core::{Core, Decision, Event, Locality, Resource};

/// The tests' submitter `alice` may use the priority hints (`locus.demand=`).
const TRUSTED: (&str, &str) = ("locus.hints.trusted", "alice");

fn add_node(c: &mut Core, host: &str, mem_gb: u64) {
    common::add_node(c, host, "/r1", mem_gb, mem_gb as u32);
}

fn add_app(c: &mut Core, app: &str, submit_ms: u64, app_type: &str, tags: &[&str]) {
    common::add_app_named(c, app, app, submit_ms, app_type, tags);
}

fn set_asks(c: &mut Core, app: &str, rows: &[(i32, &str, u32)]) {
    common::set_small_asks(c, app, rows);
}

fn heartbeat(c: &mut Core, host: &str, free_gb: u64, now_ms: u64) -> Vec<Decision> {
    common::heartbeat_free(c, host, free_gb, free_gb as u32, now_ms)
}

fn maps_of(ds: &[Decision], app: &str) -> u32 {
    ds.iter()
        .filter(|d| d.app == app && d.priority == 20)
        .map(|d| d.count)
        .sum()
}

#[test]
fn td_keeps_a_job_below_h_times_its_demand_and_generic_apps_get_the_rest() {
    for (policy, want_maps) in [("fifo", 4), ("td", 3)] {
        let mut c = core_with(&[("locus.policy", policy), TRUSTED]);
        add_node(&mut c, "h1", 4);
        add_node(&mut c, "h2", 4);
        // demand 2, H = 1.3: at most 2.6 → 3 map containers.
        add_app(&mut c, "mr", 1, "MAPREDUCE", &["locus.demand=2"]);
        set_asks(&mut c, "mr", &[(20, "*", 10)]);
        add_app(&mut c, "spark", 2, "SPARK", &[]);
        set_asks(&mut c, "spark", &[(1, "*", 10)]);
        let ds = heartbeat(&mut c, "h1", 4, 1_000);
        assert_eq!(maps_of(&ds, "mr"), want_maps, "{policy}: {ds:?}");
        let spark: u32 = ds
            .iter()
            .filter(|d| d.app == "spark")
            .map(|d| d.count)
            .sum();
        assert_eq!(
            spark,
            4 - want_maps,
            "{policy}: the room TD leaves goes to the generic app"
        );
    }
}

#[test]
fn td_takes_a_demand_tag_only_from_a_trusted_submitter() {
    // demand 2 caps the job at 3 map containers (H = 1.3); untrusted, the tag is ignored and
    // TD uses the job's map count (10, capped at T = 4): the node's 4 slots.
    for (trusted, want_maps) in [
        (None, 4),
        (Some("bob"), 4),
        (Some("alice"), 3),
        (Some("*"), 3),
    ] {
        let mut settings = vec![("locus.policy", "td")];
        settings.extend(trusted.map(|t| ("locus.hints.trusted", t)));
        let mut c = core_with(&settings);
        add_node(&mut c, "h1", 4);
        add_app(&mut c, "mr", 1, "MAPREDUCE", &["locus.demand=2"]);
        set_asks(&mut c, "mr", &[(20, "*", 10)]);
        let ds = heartbeat(&mut c, "h1", 4, 1_000);
        assert_eq!(maps_of(&ds, "mr"), want_maps, "trusted={trusted:?}: {ds:?}");
    }
    // Trust given or taken at a refresh applies to the running job.
    let mut c = core_with(&[("locus.policy", "td")]);
    add_node(&mut c, "h1", 4);
    add_app(&mut c, "mr", 1, "MAPREDUCE", &["locus.demand=2"]);
    set_asks(&mut c, "mr", &[(20, "*", 10)]);
    c.reconfigure(&common::props(&[("locus.policy", "td"), TRUSTED]))
        .unwrap();
    assert_eq!(maps_of(&heartbeat(&mut c, "h1", 4, 1_000), "mr"), 3);
}

#[test]
fn td_infantile_job_only_fills_slots_the_co_scheduled_job_cannot_use() {
    let mut c = core_with(&[("locus.policy", "td"), TRUSTED]);
    add_node(&mut c, "h1", 4);
    add_node(&mut c, "h2", 4);
    // T = 8. a (demand 5) is co-scheduled; b (demand 4) would push D to 9 > T: it stays
    // infantile and gets only what a may not take (H·5 = 6.5 → a stops at 7).
    add_app(&mut c, "a", 1, "MAPREDUCE", &["locus.demand=5"]);
    add_app(&mut c, "b", 2, "MAPREDUCE", &["locus.demand=4"]);
    set_asks(&mut c, "a", &[(20, "*", 10)]);
    set_asks(&mut c, "b", &[(20, "*", 10)]);
    let mut next = 0;
    let mut all = Vec::new();
    for (host, t) in [("h1", 1_000), ("h2", 2_000)] {
        let ds = heartbeat(&mut c, host, 4, t);
        execute(&mut c, &ds, &mut next);
        all.extend(ds);
    }
    assert_eq!((maps_of(&all, "a"), maps_of(&all, "b")), (7, 1), "{all:?}");
}

#[test]
fn td_never_holds_ams_or_reduces() {
    let mut c = core_with(&[("locus.policy", "td"), TRUSTED]);
    add_node(&mut c, "h1", 4);
    add_app(&mut c, "a", 1, "MAPREDUCE", &["locus.demand=1"]);
    set_asks(
        &mut c,
        "a",
        &[(10, "*", 2), (20, "h1", 5), (20, "/r1", 5), (20, "*", 5)],
    );
    add_app(&mut c, "b", 2, "MAPREDUCE", &[]);
    set_asks(&mut c, "b", &[(0, "*", 1)]);
    let ds = heartbeat(&mut c, "h1", 4, 1_000);
    let got: Vec<(String, i32, Locality, u32)> = ds
        .iter()
        .map(|d| (d.app.clone(), d.priority, d.locality, d.count))
        .collect();
    assert_eq!(
        got,
        vec![
            ("b".into(), 0, Locality::OffSwitch, 1),
            ("a".into(), 10, Locality::OffSwitch, 2),
            ("a".into(), 20, Locality::NodeLocal, 1)
        ]
    );
}

#[test]
fn td_bad_demand_tag_is_ignored_and_the_job_still_runs() {
    let mut c = core_with(&[("locus.policy", "td"), TRUSTED]);
    add_node(&mut c, "h1", 4);
    add_app(&mut c, "a", 1, "MAPREDUCE", &["locus.demand=lots"]);
    set_asks(&mut c, "a", &[(20, "*", 2)]);
    let ds = heartbeat(&mut c, "h1", 4, 1_000);
    assert_eq!(
        maps_of(&ds, "a"),
        2,
        "demand falls back to the job's map count"
    );
}

#[test]
fn td_bounds_are_validated_by_name() {
    let props: BTreeMap<String, String> = [("locus.policy", "td"), ("locus.td.lower-bound", "1.5")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let err = Core::new(&props)
        .err()
        .expect("L = 1.5 accepted")
        .to_string();
    assert!(
        err.contains("locus.td.lower-bound") && err.contains("(0, 1)"),
        "{err}"
    );
}

#[test]
fn waiting_ams_go_first_only_up_to_a_tenth_of_the_cluster() {
    let mut c = core_with(&[("locus.policy", "td"), TRUSTED]);
    add_node(&mut c, "h1", 8);
    add_node(&mut c, "h2", 8);
    add_app(&mut c, "big", 1, "MAPREDUCE", &["locus.demand=16"]);
    set_asks(&mut c, "big", &[(20, "*", 40)]);
    for i in 0..5 {
        let app = format!("late{i}");
        add_app(&mut c, &app, 10 + i, "MAPREDUCE", &[]);
        set_asks(&mut c, &app, &[(0, "*", 1)]);
    }
    // 10 % of 16 GB: one 1 GB AM goes ahead of TD's picks; the others wait behind them.
    let ds = heartbeat(&mut c, "h1", 8, 1_000);
    let ams: u32 = ds.iter().filter(|d| d.priority == 0).map(|d| d.count).sum();
    assert_eq!((ams, maps_of(&ds, "big")), (1, 7), "{ds:?}");
    let mut next = 0;
    execute(&mut c, &ds, &mut next);
    // With one AM running, the share is used up: the next heartbeat's room goes to TD first.
    let ds = heartbeat(&mut c, "h2", 8, 2_000);
    let ams: u32 = ds.iter().filter(|d| d.priority == 0).map(|d| d.count).sum();
    assert_eq!((ams, maps_of(&ds, "big")), (0, 8), "{ds:?}");
}

#[test]
fn td_sticky_slot_stays_with_the_job_that_fell_below_its_lower_bound() {
    let mut c = core_with(&[("locus.policy", "td"), TRUSTED]);
    add_node(&mut c, "h1", 4);
    add_node(&mut c, "h2", 4);
    // T = 8; a and b (demand 4 each) are both co-scheduled; L·demand = 2.8.
    add_app(&mut c, "a", 1, "MAPREDUCE", &["locus.demand=4"]);
    add_app(&mut c, "b", 2, "MAPREDUCE", &["locus.demand=4"]);
    set_asks(&mut c, "a", &[(20, "*", 20)]);
    set_asks(&mut c, "b", &[(20, "*", 20)]);
    let mut next = 0;
    let ds1 = heartbeat(&mut c, "h1", 4, 1_000);
    let ids1 = execute(&mut c, &ds1, &mut next);
    let ds2 = heartbeat(&mut c, "h2", 4, 2_000);
    execute(&mut c, &ds2, &mut next);
    let (a, b) = (
        maps_of(&ds1, "a") + maps_of(&ds2, "a"),
        maps_of(&ds1, "b") + maps_of(&ds2, "b"),
    );
    assert_eq!((a, b), (3, 5), "{ds1:?} {ds2:?}");
    // One of a's maps on h1 ends: a drops to 2 < 2.8, so h1's freed slot sticks to a, although
    // Algorithm 2 alone would hand a non-local slot to the CPU-bound end of S'_sch (b).
    let a_on_h1 = ds1.iter().position(|d| d.app == "a").expect("a ran on h1");
    let first_a: u32 = ds1[..a_on_h1].iter().map(|d| d.count).sum();
    let container = ids1[first_a as usize].clone();
    c.handle(Event::ContainerReleased {
        app: "a".into(),
        container,
        node: "h1:8041".into(),
        resource: Resource::new(GB, 1),
    })
    .unwrap();
    let ds = heartbeat(&mut c, "h1", 1, 3_000);
    assert_eq!((maps_of(&ds, "a"), maps_of(&ds, "b")), (1, 0), "{ds:?}");
}

#[test]
fn switching_to_td_at_refresh_applies_it_and_a_refused_combination_changes_nothing() {
    let mut c = core_with(&[TRUSTED]);
    add_node(&mut c, "h1", 4);
    add_node(&mut c, "h2", 4);
    add_app(&mut c, "mr", 1, "MAPREDUCE", &["locus.demand=2"]);
    set_asks(&mut c, "mr", &[(20, "*", 10)]);
    let props = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let err = c
        .reconfigure(&props(&[
            ("locus.policy", "td"),
            ("locus.locality", "matchmaking"),
            TRUSTED,
        ]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("locus.locality"), "{err}");
    assert_eq!(c.stats().policy, "fifo");
    c.reconfigure(&props(&[("locus.policy", "td"), TRUSTED]))
        .unwrap();
    assert_eq!(c.stats().policy, "td");
    let ds = heartbeat(&mut c, "h1", 4, 1_000);
    assert_eq!(
        maps_of(&ds, "mr"),
        3,
        "TD's H·demand bound now applies: {ds:?}"
    );
}
