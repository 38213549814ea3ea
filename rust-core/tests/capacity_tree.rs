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
