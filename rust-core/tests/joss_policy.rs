//! `joss-t` / `joss-j` driven through the core: three datacenters from two-level network
//! locations, job profiles from the profile store, maps and reduces kept where JoSS queued them.

mod common;

use common::{core_with, set_small_asks as set_asks};
use locus_core::papers::joss::{JobObservation, ProfileStore};
use locus_core::profile::{job_signature, store_to_json};
use locus_core::{Core, Decision, Event, Locality};

/// A profile store where "grep" filters (FP 0.5, map-heavy) and "join" expands (FP 3,
/// reduce-heavy), written to a file the core reads at start.
fn store_file(tag: &str) -> String {
    let mut store = ProfileStore::new();
    for (name, input, output) in [("grep", 100, 50), ("join", 100, 300)] {
        let mut run = JobObservation::default();
        run.map_finished(10_000, input, output);
        // Profiles are the submitting user's own (common::add_app_named submits as alice).
        store.record_run(job_signature("alice", name, "MAPREDUCE", ""), &run);
    }
    let path = std::env::temp_dir().join(format!("locus-joss-{}-{tag}.json", std::process::id()));
    std::fs::write(&path, store_to_json(&store).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

fn cluster(policy: &str, tag: &str) -> Core {
    let store = store_file(tag);
    let mut c = core_with(&[("locus.policy", policy), ("locus.profile.store", &store)]);
    for (host, rack) in [
        ("a1", "/cen1/r1"),
        ("a2", "/cen1/r1"),
        ("b1", "/cen2/r1"),
        ("b2", "/cen2/r1"),
        ("c1", "/cen3/r1"),
        ("c2", "/cen3/r1"),
    ] {
        common::add_node(&mut c, host, rack, 8, 8);
    }
    c
}

fn add_job(c: &mut Core, app: &str, name: &str, submit_ms: u64) {
    common::add_app_named(c, app, name, submit_ms, "MAPREDUCE", &[]);
}

fn heartbeat(c: &mut Core, host: &str) -> Vec<Decision> {
    common::heartbeat_free(c, host, 8, 8, 1_000)
}

fn got(ds: &[Decision], priority: i32) -> Vec<(Locality, u32)> {
    ds.iter()
        .filter(|d| d.priority == priority)
        .map(|d| (d.locality, d.count))
        .collect()
}

/// Two maps with their blocks on b1 (datacenter cen2).
const MAPS_ON_B1: &[(i32, &str, u32)] = &[(20, "b1", 2), (20, "/cen2/r1", 2), (20, "*", 2)];

#[test]
fn unknown_job_goes_through_the_fifo_queues_and_runs_anywhere() {
    for policy in ["joss-t", "joss-j"] {
        let mut c = cluster(policy, &format!("unknown-{policy}"));
        add_job(&mut c, "app_1", "never-seen", 1);
        set_asks(&mut c, "app_1", MAPS_ON_B1);
        // FIFO with locality: no VPS- or datacenter-local task here, so the head tasks, both of
        // them (JoSS has no one-off-switch-per-heartbeat rule).
        assert_eq!(
            got(&heartbeat(&mut c, "c1"), 20),
            vec![(Locality::OffSwitch, 2)],
            "{policy}"
        );
        set_asks(&mut c, "app_1", &[(10, "*", 2)]);
        assert_eq!(
            got(&heartbeat(&mut c, "a1"), 10),
            vec![(Locality::OffSwitch, 2)],
            "{policy}"
        );
    }
}

#[test]
fn small_map_heavy_job_runs_in_the_datacenter_holding_its_blocks_policy_b() {
    for policy in ["joss-t", "joss-j"] {
        let mut c = cluster(policy, &format!("b-{policy}"));
        add_job(&mut c, "app_1", "grep", 1);
        set_asks(&mut c, "app_1", MAPS_ON_B1);
        assert!(
            got(&heartbeat(&mut c, "c1"), 20).is_empty(),
            "{policy}: cen3 holds no block"
        );
        assert!(
            got(&heartbeat(&mut c, "a1"), 20).is_empty(),
            "{policy}: cen1 holds no block"
        );
        // Both tasks are in cen2's queue: b2 takes them datacenter-local (rack /cen2/r1).
        assert_eq!(
            got(&heartbeat(&mut c, "b2"), 20),
            vec![(Locality::RackLocal, 2)],
            "{policy}"
        );
        // Reduces stay in cen_e = cen2 (reduce-data locality).
        set_asks(&mut c, "app_1", &[(10, "*", 2)]);
        assert!(got(&heartbeat(&mut c, "c2"), 10).is_empty(), "{policy}");
        assert_eq!(
            got(&heartbeat(&mut c, "b1"), 10),
            vec![(Locality::OffSwitch, 2)],
            "{policy}"
        );
    }
}

#[test]
fn small_reduce_heavy_job_goes_to_the_least_loaded_datacenter_policy_a() {
    let mut c = cluster("joss-t", "a");
    // A map-heavy job first loads cen2's queues with 2 tasks...
    add_job(&mut c, "app_1", "grep", 1);
    set_asks(&mut c, "app_1", MAPS_ON_B1);
    assert!(heartbeat(&mut c, "c1").is_empty());
    // ...so the reduce-heavy job (FP 3 > td = 3/2) goes whole to cen1 (fewest unprocessed,
    // first on ties), although its blocks are on b1 too.
    add_job(&mut c, "app_2", "join", 2);
    set_asks(&mut c, "app_2", MAPS_ON_B1);
    let ds = heartbeat(&mut c, "c2");
    assert!(ds.iter().all(|d| d.app != "app_2"), "{ds:?}");
    let ds = heartbeat(&mut c, "a2");
    let app2: Vec<_> = ds
        .iter()
        .filter(|d| d.app == "app_2")
        .map(|d| (d.locality, d.count))
        .collect();
    assert_eq!(
        app2,
        vec![(Locality::OffSwitch, 2)],
        "both of its maps run in cen1"
    );
}

#[test]
fn generic_apps_and_ams_are_never_held_by_joss() {
    let mut c = cluster("joss-j", "generic");
    add_job(&mut c, "app_1", "grep", 1);
    set_asks(&mut c, "app_1", &[(0, "*", 1)]);
    c.handle(Event::AppAdded {
        app: "spark".into(),
        queue: "default".into(),
        user: "bob".into(),
        name: "etl".into(),
        app_type: "SPARK".into(),
        tags: vec![],
        submit_ms: 2,
        priority: 0,
        recovered: false,
    })
    .unwrap();
    set_asks(&mut c, "spark", &[(1, "*", 3)]);
    let ds = heartbeat(&mut c, "c1");
    let apps: Vec<(&str, u32)> = ds.iter().map(|d| (d.app.as_str(), d.count)).collect();
    assert_eq!(apps, vec![("app_1", 1), ("spark", 3)]);
}
