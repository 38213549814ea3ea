//! `locus.policy=capacity` with the queue tree of a `capacity-scheduler.xml` (as the shim hands it
//! over in `locus.capacity.tree`): what an operator relies on from CapacityScheduler holds in the
//! containers each application gets: a parent's maximum-capacity bounds its leaves together, a
//! user cannot grow past the user limit, a queue's AMs stay within maximum-am-resource-percent,
//! STOPPED queues and full queues refuse submissions with CapacityScheduler's messages, and a
//! refresh cannot delete a queue that is not stopped.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::GB;
use locus_core::{Core, CoreError, Event};

const NODES: usize = 10;
/// Each node holds ten 1 GB containers: the cluster is 100 GB, so a container is 1 %.
const NODE_GB: u64 = 10;

/// One queue of the tree: (path, capacity, maximum-capacity, extra JSON fields).
type Q<'a> = (&'a str, f64, f64, &'a str);

fn tree(queues: &[Q]) -> String {
    let entries: Vec<String> = queues
        .iter()
        .map(|(path, cap, max, extra)| {
            let mut fields = vec![
                format!(r#""path":"{path}""#),
                format!(r#""capacity":{cap}"#),
                format!(r#""maximum_capacity":{max}"#),
                r#""user_limit_factor":-1"#.to_string(),
                r#""minimum_user_limit_percent":100"#.to_string(),
                r#""maximum_am_resource_percent":1.0"#.to_string(),
                r#""maximum_applications":-1"#.to_string(),
            ];
            for extra in extra.split(',').filter(|e| !e.is_empty()) {
                let (k, _) = extra.split_once(':').expect("key:value");
                fields.retain(|f| !f.starts_with(&format!("{k}:")));
                fields.push(extra.to_string());
            }
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    format!(
        r#"{{"maximum_applications":10000,"queues":[{}]}}"#,
        entries.join(",")
    )
}

fn tree_core(queues: &[Q]) -> Core {
    let t = tree(queues);
    common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &t)])
}

fn host(i: usize) -> String {
    format!("h{i}")
}

fn add_nodes(c: &mut Core) {
    for i in 0..NODES {
        common::add_node(c, &host(i), "/r1", NODE_GB, NODE_GB as u32);
    }
}

/// Container ids, unique across a test binary's cores. The tests run on parallel threads: each
/// batch reserves its ids with one `fetch_add`. (A load, then a store of the advanced value, let
/// another test's store move the counter back, so a core was handed an id it already held and
/// took the container for a replayed event: about 1 run of the file in 12 failed.)
static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// Every node heartbeats `rounds` times with what it has free; decisions are executed.
fn run(c: &mut Core, rounds: usize) {
    for r in 0..rounds {
        for i in 0..NODES {
            let held = c
                .state()
                .node(&common::node_id(&host(i)))
                .map_or(0, |n| n.allocated.memory_mb / GB);
            let free = NODE_GB - held;
            let ds = common::heartbeat_free(c, &host(i), free, free as u32, (r as u64 + 1) * 1000);
            let n = ds.iter().fold(0u32, |sum, d| sum + d.count);
            let mut next_id = NEXT_ID.fetch_add(n, Ordering::Relaxed);
            common::execute(c, &ds, &mut next_id);
        }
    }
}

fn app_gb(c: &Core, app: &str) -> u64 {
    c.state()
        .app_by_id(app)
        .map_or(0, |a| a.used.memory_mb / GB)
}

fn add(c: &mut Core, id: &str, queue: &str, user: &str, submit_ms: u64) -> Result<(), CoreError> {
    c.handle(Event::AppAdded {
        app: id.into(),
        queue: queue.into(),
        user: user.into(),
        name: id.into(),
        app_type: "SPARK".into(),
        tags: vec![],
        submit_ms,
        priority: 0,
        recovered: false,
    })
}

fn hungry(c: &mut Core, id: &str, queue: &str, user: &str, submit_ms: u64, n: u32) {
    add(c, id, queue, user, submit_ms).unwrap();
    common::set_small_asks(c, id, &[(1, "*", n)]);
}

const ROOT: Q = ("root", 100.0, 100.0, "");

#[test]
fn a_parents_maximum_capacity_bounds_its_leaves_together() {
    let mut c = tree_core(&[
        ROOT,
        ("root.eng", 50.0, 60.0, ""),
        ("root.eng.etl", 50.0, 100.0, ""),
        ("root.eng.adhoc", 50.0, 100.0, ""),
        ("root.ops", 50.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    hungry(&mut c, "e1", "etl", "u", 1, 200);
    hungry(&mut c, "d1", "root.eng.adhoc", "u", 2, 200);
    run(&mut c, 3);
    // etl and adhoc may each reach 60 % of the cluster (100 % of eng's 60 %), but eng holds at
    // most 60 % for both together, with the cluster's other 40 % idle.
    assert_eq!(app_gb(&c, "e1") + app_gb(&c, "d1"), 60);
    assert_eq!(c.queue_headroom_mb("etl").map(|m| m / GB), Some(0));
    // ops gets the rest as soon as it asks.
    hungry(&mut c, "o1", "ops", "u", 3, 200);
    run(&mut c, 1);
    assert_eq!(app_gb(&c, "o1"), 40);
}

#[test]
fn a_single_user_stops_at_the_user_limit_factor_times_the_guarantee() {
    let mut c = tree_core(&[
        ROOT,
        ("root.a", 30.0, 100.0, r#""user_limit_factor":1"#),
        ("root.b", 70.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    hungry(&mut c, "a1", "a", "alice", 1, 200);
    hungry(&mut c, "a2", "a", "alice", 2, 200);
    run(&mut c, 3);
    // Queue a could grow to the whole idle cluster, but alice may hold at most its 30 %
    // guarantee (plus the one container CapacityScheduler gives a user still at the limit).
    assert_eq!(app_gb(&c, "a1") + app_gb(&c, "a2"), 31);
    // Another user is not held back by alice's limit.
    hungry(&mut c, "a3", "a", "bob", 3, 20);
    run(&mut c, 1);
    assert_eq!(app_gb(&c, "a3"), 20);
}

#[test]
fn a_queues_ams_stay_within_its_maximum_am_resource_percent() {
    let mut c = tree_core(&[
        ROOT,
        ("root.a", 50.0, 50.0, r#""maximum_am_resource_percent":0.1"#),
        ("root.b", 50.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    for i in 0..10 {
        let id = format!("m{i}");
        c.handle(Event::AppAdded {
            app: id.clone(),
            queue: "a".into(),
            user: "u".into(),
            name: id.clone(),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: i,
            priority: 0,
            recovered: false,
        })
        .unwrap();
        common::set_small_asks(&mut c, &id, &[(0, "*", 1)]);
    }
    run(&mut c, 2);
    // 10 % of the queue's 50 GB: five 1 GB AMs, the other five wait.
    let started = (0..10).filter(|i| app_gb(&c, &format!("m{i}")) > 0).count();
    assert_eq!(started, 5);
}

#[test]
fn stopped_and_full_queues_refuse_with_capacity_schedulers_messages() {
    let mut c = tree_core(&[
        ROOT,
        ("root.a", 50.0, 100.0, r#""maximum_applications":2"#),
        ("root.b", 50.0, 100.0, r#""state":"STOPPED""#),
    ]);
    let e = add(&mut c, "app_1", "b", "u", 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Queue root.b is STOPPED. Cannot accept submission of application: app_1"
    );
    // An application recovered after a restart was admitted before: it is not refused.
    c.handle(Event::AppAdded {
        app: "app_0".into(),
        queue: "b".into(),
        user: "u".into(),
        name: "x".into(),
        app_type: "SPARK".into(),
        tags: vec![],
        submit_ms: 0,
        priority: 0,
        recovered: true,
    })
    .unwrap();
    add(&mut c, "app_2", "a", "u", 2).unwrap();
    add(&mut c, "app_3", "a", "v", 3).unwrap();
    let e = add(&mut c, "app_4", "a", "w", 4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Queue root.a already has 2 applications, cannot accept submission of application: app_4"
    );
    // The same application added again (a repeated event) is not a new submission.
    add(&mut c, "app_3", "a", "v", 3).unwrap();
}

#[test]
fn a_user_at_the_queues_per_user_maximum_is_refused() {
    // 10 applications, minimum-user-limit-percent 50, factor 1: 5 per user.
    let mut c = tree_core(&[
        ROOT,
        (
            "root.a",
            100.0,
            100.0,
            r#""maximum_applications":10,"minimum_user_limit_percent":50,"user_limit_factor":1"#,
        ),
    ]);
    for i in 0..5 {
        add(&mut c, &format!("app_{i}"), "a", "alice", i).unwrap();
    }
    let e = add(&mut c, "app_5", "a", "alice", 5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Queue root.a already has 5 applications from user alice cannot accept submission of application: app_5"
    );
    add(&mut c, "app_6", "a", "bob", 6).unwrap();
}

#[test]
fn a_refresh_cannot_delete_a_queue_until_it_is_stopped_and_drained() {
    let two = [
        ROOT,
        ("root.a", 50.0, 100.0, ""),
        ("root.b", 50.0, 100.0, ""),
    ];
    let mut c = tree_core(&two);
    add(&mut c, "app_1", "b", "u", 1).unwrap();
    let only_a = tree(&[ROOT, ("root.a", 100.0, 100.0, "")]);
    let props =
        |t: &str| common::props(&[("locus.policy", "capacity"), ("locus.capacity.tree", t)]);
    let e = c.reconfigure(&props(&only_a)).unwrap_err();
    assert!(
        e.to_string().contains(
            "root.b cannot be deleted from the capacity scheduler configuration, as the queue is not yet in stopped state. Current State : RUNNING"
        ),
        "{e}"
    );
    // Stopping it is allowed; its application keeps running, new ones are refused.
    let stopped = tree(&[
        ROOT,
        ("root.a", 50.0, 100.0, ""),
        ("root.b", 50.0, 100.0, r#""state":"STOPPED""#),
    ]);
    c.reconfigure(&props(&stopped)).unwrap();
    assert!(c.state().app_by_id("app_1").is_some());
    assert!(add(&mut c, "app_2", "b", "u", 2).is_err());
    let e = c.reconfigure(&props(&only_a)).unwrap_err();
    assert!(e.to_string().contains("Current State : DRAINING"), "{e}");
    // Once drained it may go.
    c.handle(Event::AppRemoved {
        app: "app_1".into(),
    })
    .unwrap();
    c.reconfigure(&props(&only_a)).unwrap();
    assert_eq!(c.capacity_queues().map(|q| q.len()), Some(1));
}

#[test]
fn the_shortcut_replaces_the_files_queues_and_other_policies_ignore_them() {
    let t = tree(&[ROOT, ("root.x", 100.0, 100.0, "")]);
    let c = common::core_with(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.tree", &t),
        ("locus.capacity.queues", "a:50,b:50"),
    ]);
    let names: Vec<&str> = c
        .capacity_queues()
        .unwrap()
        .iter()
        .map(|q| q.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert!(c.config().capacity_file_ignored.is_some());
    let fair = common::core_with(&[("locus.policy", "fair"), ("locus.capacity.tree", &t)]);
    assert!(fair.capacity_queues().is_none());
}

fn add_mr(c: &mut Core, id: &str, queue: &str, user: &str, submit_ms: u64) {
    c.handle(Event::AppAdded {
        app: id.into(),
        queue: queue.into(),
        user: user.into(),
        name: id.into(),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms,
        priority: 0,
        recovered: false,
    })
    .unwrap();
    common::set_small_asks(c, id, &[(0, "*", 1)]);
}

#[test]
fn a_users_ams_stay_within_the_user_am_limit() {
    let mut c = tree_core(&[
        ROOT,
        (
            "root.a",
            50.0,
            100.0,
            r#""maximum_am_resource_percent":0.1,"user_limit_factor":1"#,
        ),
        ("root.b", 50.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    for i in 0..10 {
        add_mr(&mut c, &format!("alice{i}"), "a", "alice", i);
    }
    run(&mut c, 2);
    // The queue's AMs may hold 10 % of what it may use (the whole idle cluster): 10 GB. One
    // user's, as CapacityScheduler computes the user AM limit: 10 % of the queue's 50 GB
    // guarantee times the user-limit-factor (1) and max(minimum-user-limit-percent, 1 / active
    // users) = 1: 5 GB, five 1 GB AMs.
    let started = |c: &Core, who: &str| {
        (0..10)
            .filter(|i| app_gb(c, &format!("{who}{i}")) > 0)
            .count()
    };
    assert_eq!(started(&c, "alice"), 5, "alice's AMs");
    // bob has his own 5 GB, which the queue's 10 GB still holds.
    for i in 0..10 {
        add_mr(&mut c, &format!("bob{i}"), "a", "bob", 100 + i);
    }
    run(&mut c, 2);
    assert_eq!(started(&c, "bob"), 5, "bob's AMs");
    assert_eq!(started(&c, "alice"), 5, "alice's AMs");
}

#[test]
fn the_first_am_of_a_queue_starts_even_above_the_user_am_limit() {
    let mut c = tree_core(&[
        ROOT,
        (
            "root.a",
            10.0,
            100.0,
            r#""maximum_am_resource_percent":0.05,"user_limit_factor":1"#,
        ),
        ("root.b", 90.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    for i in 0..3 {
        add_mr(&mut c, &format!("u{i}"), "a", "u", i);
    }
    run(&mut c, 2);
    // 5 % of 10 GB is 0.5 GB, below one 1 GB AM: CapacityScheduler still starts one.
    let started = (0..3).filter(|i| app_gb(&c, &format!("u{i}")) > 0).count();
    assert_eq!(started, 1);
}

#[test]
fn a_users_am_limit_holds_across_a_batch_of_node_offers() {
    // The shim offers up to 32 nodes per core call and creates the containers after the batch:
    // AMs decided on earlier nodes count against the user's AM limit on later ones.
    let mut c = tree_core(&[
        ROOT,
        (
            "root.a",
            50.0,
            100.0,
            r#""maximum_am_resource_percent":0.1,"user_limit_factor":1"#,
        ),
        ("root.b", 50.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    for i in 0..10 {
        add_mr(&mut c, &format!("alice{i}"), "a", "alice", i);
    }
    let mut ams = 0;
    for i in 0..NODES {
        let ds = common::heartbeat_free(&mut c, &host(i), NODE_GB, NODE_GB as u32, 1_000);
        ams += ds.iter().map(|d| d.count).sum::<u32>();
    }
    // alice's user AM limit is 5 GB (a_users_ams_stay_within_the_user_am_limit): five 1 GB AMs.
    assert_eq!(ams, 5, "AMs decided in one batch");
}

#[test]
fn what_locus_cannot_run_is_refused_under_every_policy() {
    let t = r#"{"refused":{"key":"yarn.scheduler.capacity.root.a.capacity","message":"is [memory=1024]: absolute"},"maximum_applications":1,"queues":[]}"#;
    for policy in ["capacity", "fsp", "fair", "fifo"] {
        let e = Core::new(&common::props(&[
            ("locus.policy", policy),
            ("locus.capacity.tree", t),
            ("locus.capacity.ignore-file", "true"),
        ]))
        .err()
        .expect("refused");
        assert!(
            e.to_string()
                .contains("yarn.scheduler.capacity.root.a.capacity"),
            "{policy}: {e}"
        );
    }
}

/// Each decision carries the ceilings the policy held its app to, for the shim to re-check at
/// commit: the leaf's maximum, each parent's (the leaf's parent first) and the user limit, in
/// MB of the cluster the core measured; outside `capacity`, none.
#[test]
fn decisions_carry_the_queue_and_user_ceilings_they_were_made_under() {
    let mut c = tree_core(&[
        ROOT,
        ("root.eng", 50.0, 60.0, ""),
        ("root.eng.etl", 50.0, 80.0, r#""user_limit_factor":1"#),
        ("root.eng.adhoc", 50.0, 100.0, ""),
        ("root.ops", 50.0, 100.0, ""),
    ]);
    add_nodes(&mut c);
    hungry(&mut c, "e1", "etl", "alice", 1, 3);
    let ds = common::heartbeat_free(&mut c, &host(0), NODE_GB, NODE_GB as u32, 1000);
    assert!(!ds.is_empty());
    let cluster_mb = NODES as u64 * NODE_GB * GB;
    for d in &ds {
        let l = d.limits.as_ref().expect("capacity decisions carry limits");
        // etl: 80 % of eng's 60 %, eng: 60 % of the cluster.
        assert_eq!(l.queue_max_mb, Some(cluster_mb * 48 / 100));
        assert_eq!(l.ancestor_max_mb, vec![cluster_mb * 60 / 100]);
        // alice alone in etl: its guarantee (25 % of the cluster) times user-limit-factor 1.
        assert_eq!(l.user_limit_mb, Some(cluster_mb * 25 / 100));
    }

    let mut fifo = common::core_with(&[("locus.policy", "fifo")]);
    common::add_node(&mut fifo, "h1", "/r1", 8, 8);
    common::add_app_named(&mut fifo, "f1", "f1", 1, "SPARK", &[]);
    common::set_small_asks(&mut fifo, "f1", &[(1, "*", 2)]);
    let ds = common::heartbeat_free(&mut fifo, "h1", 8, 8, 1000);
    assert!(!ds.is_empty() && ds.iter().all(|d| d.limits.is_none()));
}

fn moved(c: &mut Core, id: &str, queue: &str) -> Result<(), CoreError> {
    c.handle(Event::AppMoved {
        app: id.into(),
        queue: queue.into(),
    })
}

#[test]
fn a_move_is_refused_by_the_targets_maximum_applications_and_per_user_maximum() {
    // a holds 2 applications; b 6, 2 per user (minimum-user-limit-percent 100, factor 1/3).
    let mut c = tree_core(&[
        ROOT,
        ("root.a", 50.0, 100.0, r#""maximum_applications":2"#),
        (
            "root.b",
            50.0,
            100.0,
            r#""maximum_applications":6,"user_limit_factor":0.34"#,
        ),
    ]);
    add(&mut c, "app_1", "a", "bob", 1).unwrap();
    add(&mut c, "app_2", "a", "carol", 2).unwrap();
    add(&mut c, "app_3", "b", "dave", 3).unwrap();
    let e = moved(&mut c, "app_3", "a").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Queue root.a already has 2 applications, cannot accept submission of application: app_3"
    );
    assert_eq!(c.state().app_by_id("app_3").unwrap().queue, "b");
    // alice holds two in b; a third of hers, in a, may not join them.
    add(&mut c, "app_4", "b", "alice", 4).unwrap();
    add(&mut c, "app_5", "b", "alice", 5).unwrap();
    c.handle(Event::AppRemoved {
        app: "app_2".into(),
    })
    .unwrap();
    add(&mut c, "app_6", "a", "alice", 6).unwrap();
    let e = moved(&mut c, "app_6", "b").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Queue root.b already has 2 applications from user alice cannot accept submission of application: app_6"
    );
    assert_eq!(c.state().app_by_id("app_6").unwrap().queue, "a");
    // A move within the limits, and a move to the queue the app is in, go through.
    moved(&mut c, "app_1", "b").unwrap();
    moved(&mut c, "app_1", "b").unwrap();
    assert_eq!(c.state().app_by_id("app_1").unwrap().queue, "b");
}

/// A core under `policy` with the tree's system-wide maximum and `root.default`'s keys.
fn policy_core(policy: &str, system: u32, default_extra: &str) -> Core {
    let t = tree(&[ROOT, ("root.default", 100.0, 100.0, default_extra)]).replace(
        r#""maximum_applications":10000,"queues""#,
        &format!(r#""maximum_applications":{system},"queues""#),
    );
    common::core_with(&[("locus.policy", policy), ("locus.capacity.tree", &t)])
}

#[test]
fn every_policy_refuses_past_the_system_wide_maximum_applications() {
    for policy in [
        "fifo", "fair", "fsp", "capacity", "td", "joss-t", "fresh", "mrosa",
    ] {
        let mut c = policy_core(policy, 3, "");
        for i in 0..3 {
            add(&mut c, &format!("app_{i}"), "default", "alice", i).unwrap();
        }
        let e = add(&mut c, "app_3", "default", "bob", 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Maximum system application limit reached,cannot accept submission of application: app_3",
            "{policy}"
        );
        // Repeated and recovered applications were admitted before.
        add(&mut c, "app_2", "default", "alice", 2).unwrap();
        c.handle(Event::AppRemoved {
            app: "app_0".into(),
        })
        .unwrap();
        add(&mut c, "app_3", "default", "bob", 3).unwrap();
    }
}

#[test]
fn outside_capacity_the_one_queue_has_root_defaults_limits() {
    // root.default's own maximum (4) and per user (minimum-user-limit-percent 50, factor 1: 2).
    for policy in ["fifo", "fair", "fsp", "td", "fresh"] {
        let mut c = policy_core(
            policy,
            10_000,
            r#""maximum_applications":4,"minimum_user_limit_percent":50,"user_limit_factor":1"#,
        );
        add(&mut c, "app_0", "default", "alice", 0).unwrap();
        add(&mut c, "app_1", "default", "alice", 1).unwrap();
        let e = add(&mut c, "app_2", "default", "alice", 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Queue root.default already has 2 applications from user alice cannot accept submission of application: app_2",
            "{policy}"
        );
        add(&mut c, "app_3", "default", "bob", 3).unwrap();
        add(&mut c, "app_4", "default", "carol", 4).unwrap();
        let e = add(&mut c, "app_5", "default", "dave", 5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Queue root.default already has 4 applications, cannot accept submission of application: app_5",
            "{policy}"
        );
    }
}

#[test]
fn a_single_queue_policy_over_several_leaves_needs_the_opt_in() {
    let t = tree(&[
        ROOT,
        ("root.a", 50.0, 100.0, ""),
        ("root.b", 50.0, 100.0, ""),
    ]);
    let e = Core::new(&common::props(&[
        ("locus.policy", "fsp"),
        ("locus.capacity.tree", &t),
    ]))
    .err()
    .expect("refused");
    assert!(e.to_string().contains("locus.policy"), "{e}");
    assert!(e.to_string().contains("2 leaf queues"), "{e}");
    let c = common::core_with(&[
        ("locus.policy", "fsp"),
        ("locus.capacity.tree", &t),
        ("locus.capacity.ignore-file", "true"),
    ]);
    assert!(c.capacity_queues().is_none());
    assert!(c.config().capacity_file_ignored.is_some());
    // One leaf: the same queue either way.
    let one = tree(&[ROOT, ("root.default", 100.0, 100.0, "")]);
    common::core_with(&[("locus.policy", "fsp"), ("locus.capacity.tree", &one)]);
}

#[test]
fn hadoops_default_maximum_holds_under_the_default_policy() {
    // No capacity-scheduler.xml: CapacityScheduler's 10,000 for the system and its one queue.
    let mut c = Core::new(&common::props(&[])).unwrap();
    for i in 0..10_000u64 {
        add(&mut c, &format!("app_{i}"), "default", "alice", i).unwrap();
    }
    let e = add(&mut c, "app_10000", "default", "alice", 10_000).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Maximum system application limit reached,cannot accept submission of application: app_10000"
    );
}

/// `intra-queue-preemption.disable_preemption` as CapacityScheduler reads it: inherited like
/// `disable_preemption`, and independent of it.
#[test]
fn intra_queue_disable_preemption_is_inherited() {
    let c = tree_core(&[
        ("root", 100.0, 100.0, ""),
        (
            "root.batch",
            50.0,
            100.0,
            r#""intra_queue_disable_preemption":true"#,
        ),
        ("root.batch.a", 50.0, 100.0, ""),
        (
            "root.batch.b",
            50.0,
            100.0,
            r#""intra_queue_disable_preemption":false"#,
        ),
        ("root.c", 50.0, 100.0, ""),
    ]);
    let off: Vec<(&str, bool, bool)> = c
        .capacity_queues()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q.name.as_str(),
                q.intra_queue_disable_preemption,
                q.disable_preemption,
            )
        })
        .collect();
    assert_eq!(
        off,
        vec![("a", true, false), ("b", false, false), ("c", false, false)]
    );
}

/// `disable_preemption` as CapacityScheduler reads it: set on a parent, its leaves inherit it
/// unless they say otherwise; the queues that keep it lose nothing to a round.
#[test]
fn disable_preemption_is_inherited_and_keeps_a_queue_whole() {
    use locus_core::preemption::PreemptionSettings;
    let mut c = tree_core(&[
        ("root", 100.0, 100.0, ""),
        ("root.batch", 50.0, 100.0, r#""disable_preemption":true"#),
        ("root.batch.a", 50.0, 100.0, ""),
        ("root.batch.b", 50.0, 100.0, r#""disable_preemption":false"#),
        ("root.c", 50.0, 100.0, ""),
    ]);
    let leaves = c.capacity_queues().unwrap();
    let off: Vec<(&str, bool)> = leaves
        .iter()
        .map(|q| (q.name.as_str(), q.disable_preemption))
        .collect();
    assert_eq!(off, vec![("a", true), ("b", false), ("c", false)]);
    add_nodes(&mut c);
    // a and b fill the cluster (50 GB each); then c asks for its guarantee.
    common::add_app_in(&mut c, "a1", "a", "u", "a1", 1, "SPARK", &[]);
    common::set_small_asks(&mut c, "a1", &[(1, "*", 50)]);
    common::add_app_in(&mut c, "b1", "b", "u", "b1", 2, "SPARK", &[]);
    common::set_small_asks(&mut c, "b1", &[(1, "*", 50)]);
    run(&mut c, 3);
    common::add_app_in(&mut c, "c1", "c", "u", "c1", 3, "SPARK", &[]);
    common::set_small_asks(&mut c, "c1", &[(1, "*", 50)]);
    let s = PreemptionSettings {
        total_preemption_per_round: 1.0,
        natural_termination_factor: 1.0,
        ..PreemptionSettings::default()
    };
    let r = c.preemption_round(10_000, &s);
    let apps: Vec<String> = r
        .mark
        .iter()
        .map(|id| c.state().containers().get(id).unwrap().app.clone())
        .collect();
    let b_gb = c.state().queues().get("b").unwrap().used.memory_mb / GB;
    assert!(b_gb > 25, "b grew past its guarantee ({b_gb} GB)");
    assert_eq!(
        apps.len() as u64,
        b_gb - 25,
        "b gives back what it holds above its 25 GB guarantee"
    );
    assert!(
        apps.iter().all(|a| a == "b1"),
        "a keeps all it holds: {apps:?}"
    );
}
/// A file in absolute mode as the shim hands it over: a [10 GB, 12 vcores] up to [20 GB, 20]
/// with a1 [4 GB, 4] up to [8 GB, 8] and a2 [6 GB, 8]; b [6 GB, 4]. Capacities are 0 and
/// maxima 100 until the core derives them from the cluster.
fn absolute_tree() -> String {
    let q = |path: &str, extra: &str| {
        format!(
            r#"{{"path":"{path}","capacity":{},"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1{extra}}}"#,
            if path == "root" { 100 } else { 0 }
        )
    };
    let r = |mb: u64, vcores: u32| format!(r#"{{"memory_mb":{mb},"vcores":{vcores}}}"#);
    let entries = [
        q("root", ""),
        q(
            "root.a",
            &format!(
                r#","minimum_resource":{},"maximum_resource":{}"#,
                r(10240, 12),
                r(20480, 20)
            ),
        ),
        q(
            "root.a.a1",
            &format!(
                r#","minimum_resource":{},"maximum_resource":{}"#,
                r(4096, 4),
                r(8192, 8)
            ),
        ),
        q(
            "root.a.a2",
            &format!(r#","minimum_resource":{}"#, r(6144, 8)),
        ),
        q("root.b", &format!(r#","minimum_resource":{}"#, r(6144, 4))),
    ];
    format!(
        r#"{{"maximum_applications":10000,"queues":[{}]}}"#,
        entries.join(",")
    )
}

/// (capacity, maximum-capacity) in percent of the cluster, of a leaf or a parent.
fn figures(c: &Core, path: &str) -> (f64, f64) {
    if let Some(q) = c
        .capacity_queues()
        .expect("capacity")
        .iter()
        .find(|q| q.path == path)
    {
        return (q.capacity, q.maximum_capacity);
    }
    let p = c
        .config()
        .capacity
        .parents()
        .iter()
        .find(|p| p.path == path)
        .expect(path);
    (p.capacity, p.maximum_capacity)
}

fn assert_figures(c: &Core, path: &str, capacity: f64, maximum: f64) {
    let (cap, max) = figures(c, path);
    assert!(
        (cap - capacity).abs() < 1e-3 && (max - maximum).abs() < 1e-3,
        "{path}: {cap} (max {max}), expected {capacity} (max {maximum})"
    );
}

/// The figures CapacityScheduler reports for the same file and cluster (AbsoluteModeTest
/// compares them through REST): shares of the cluster derived from the configured resources,
/// again as nodes join and leave, scaled down when the cluster is smaller than the minimums.
#[test]
fn absolute_capacities_follow_the_cluster_as_nodes_join_and_leave() {
    let t = absolute_tree();
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &t)]);
    // No node yet: CapacityScheduler's system-wide maximum until the cluster has resources.
    let a1 = |c: &Core| c.capacity_queues().unwrap()[0].clone();
    assert_eq!(a1(&c).maximum_applications, Some(10_000));

    common::add_node(&mut c, "h1", "/r1", 16, 16);
    // a: 10 of 16 GB, up to all of it (its 20 GB maximum is above the cluster); a1: 4 of a's
    // 10 GB, up to 8 GB; a2 inherits a's 20 GB maximum, 125 % of the cluster.
    assert_figures(&c, "root.a", 62.5, 100.0);
    assert_figures(&c, "root.a.a1", 25.0, 50.0);
    assert_figures(&c, "root.a.a2", 37.5, 125.0);
    assert_figures(&c, "root.b", 37.5, 100.0);
    assert_eq!(a1(&c).maximum_applications, Some(2_500));

    // a1 stops at its 8 GB maximum with half the node idle.
    hungry(&mut c, "x", "a1", "u", 1, 20);
    let mut next_id = NEXT_ID.fetch_add(64, Ordering::Relaxed);
    for r in 0..10u64 {
        let held = c
            .state()
            .node(&common::node_id("h1"))
            .map_or(0, |n| n.allocated.memory_mb / GB);
        let ds = common::heartbeat_free(&mut c, "h1", 16 - held, 16 - held as u32, (r + 1) * 1000);
        common::execute(&mut c, &ds, &mut next_id);
    }
    assert_eq!(app_gb(&c, "x"), 8);
    assert_eq!(c.queue_headroom_mb("a1"), Some(0));

    common::add_node(&mut c, "h2", "/r1", 8, 8);
    // 24 GB: a's 20 GB maximum now binds.
    assert_figures(&c, "root.a", 100.0 * 10.0 / 24.0, 100.0 * 20.0 / 24.0);
    assert_figures(&c, "root.a.a1", 100.0 * 4.0 / 24.0, 100.0 * 8.0 / 24.0);
    assert_figures(&c, "root.b", 25.0, 100.0);

    c.handle(Event::NodeRemoved {
        node: common::node_id("h1"),
    })
    .unwrap();
    // 8 GB for 16 GB of minimums: every minimum is halved, the shares stay; a1's 8 GB maximum
    // is the whole cluster.
    assert_figures(&c, "root.a", 62.5, 100.0);
    assert_figures(&c, "root.a.a1", 25.0, 100.0);
    assert_figures(&c, "root.a.a2", 37.5, 250.0);
    assert_figures(&c, "root.b", 37.5, 100.0);
}
