//! Running-application limits (`max-parallel-apps` of a queue, a parent, a user): an
//! application past a limit is held, its AM never offered a node, until a running one ends;
//! then the earliest held one runs (CapacityScheduler's `CSMaxRunningAppsEnforcer`).

mod common;

use common::{add_app_in, add_node, core_with, execute, heartbeat_free, set_asks_rows};
use locus_core::{Core, Event};

/// `root.p` (parent of `a` and `b`) and `c`; AM limits admit every AM here.
fn tree(a: &str, p: &str, users: &str) -> String {
    let entry = |path: &str, cap: u32, extra: &str| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1{extra}}}"#
        )
    };
    format!(
        r#"{{"maximum_applications":10000{users},"queues":[{},{},{},{},{}]}}"#,
        entry("root", 100, ""),
        entry("root.p", 50, p),
        entry("root.p.a", 50, a),
        entry("root.p.b", 50, ""),
        entry("root.c", 50, ""),
    )
}

fn limit(n: i64) -> String {
    format!(r#","max_parallel_apps":{n}"#)
}

fn cluster(policy: &str, tree: &str) -> Core {
    let mut c = core_with(&[("locus.policy", policy), ("locus.capacity.tree", tree)]);
    add_node(&mut c, "h0", "/r1", 64, 64);
    c
}

/// Submits `app` to `queue` for `user`, asking for its AM.
fn submit(c: &mut Core, app: &str, queue: &str, user: &str, at: u64) {
    add_app_in(c, app, queue, user, "j", at, "MAPREDUCE", &[]);
    set_asks_rows(c, app, &[(0, "*", 1, 1, 1, true)]);
}

/// The apps whose AM a few heartbeats start.
fn started(c: &mut Core, now: &mut u64, next: &mut u32) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..3 {
        *now += 1_000;
        let ds = heartbeat_free(c, "h0", 32, 32, *now);
        out.extend(ds.iter().filter(|d| d.priority == 0).map(|d| d.app.clone()));
        execute(c, &ds, next);
    }
    out.sort();
    out
}

fn end(c: &mut Core, app: &str) {
    c.handle(Event::AppRemoved { app: app.into() }).unwrap();
}

#[test]
fn a_queue_limit_holds_the_third_app_until_one_ends() {
    let mut c = cluster("capacity", &tree(&limit(2), "", ""));
    let (mut now, mut next) = (0, 0);
    for i in 1..=3 {
        submit(&mut c, &format!("app_{i}"), "a", "u", i);
    }
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_1", "app_2"]);
    assert_eq!(c.state().parallel().held_count(), 1);
    end(&mut c, "app_2");
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_3"]);
}

#[test]
fn a_parent_limit_counts_every_leaf_below_it() {
    let mut c = cluster("capacity", &tree("", &limit(2), ""));
    let (mut now, mut next) = (0, 0);
    submit(&mut c, "app_1", "a", "u", 1);
    submit(&mut c, "app_2", "b", "v", 2);
    submit(&mut c, "app_3", "a", "w", 3);
    submit(&mut c, "app_4", "b", "v", 4);
    submit(&mut c, "app_5", "c", "u", 5);
    assert_eq!(
        started(&mut c, &mut now, &mut next),
        ["app_1", "app_2", "app_5"],
        "the parent's third and fourth wait; c is outside it"
    );
    end(&mut c, "app_5");
    assert!(started(&mut c, &mut now, &mut next).is_empty());
    end(&mut c, "app_2");
    assert_eq!(
        started(&mut c, &mut now, &mut next),
        ["app_3"],
        "the earliest held, whatever its leaf"
    );
}

#[test]
fn a_user_limit_spans_queues_and_holds_only_that_user() {
    let users = r#","user_max_parallel_apps":5,"users_max_parallel_apps":{"alice":1}"#;
    let mut c = cluster("capacity", &tree("", "", users));
    let (mut now, mut next) = (0, 0);
    submit(&mut c, "app_1", "a", "alice", 1);
    submit(&mut c, "app_2", "c", "alice", 2);
    submit(&mut c, "app_3", "a", "bob", 3);
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_1", "app_3"]);
    end(&mut c, "app_1");
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_2"]);
}

#[test]
fn a_refresh_raising_a_limit_releases_and_lowering_one_stops_nothing() {
    let mut c = cluster("capacity", &tree(&limit(2), "", ""));
    let (mut now, mut next) = (0, 0);
    for i in 1..=4 {
        submit(&mut c, &format!("app_{i}"), "a", "u", i);
    }
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_1", "app_2"]);
    let props =
        |t: &str| common::props(&[("locus.policy", "capacity"), ("locus.capacity.tree", t)]);
    c.reconfigure(&props(&tree(&limit(3), "", ""))).unwrap();
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_3"]);
    c.reconfigure(&props(&tree(&limit(1), "", ""))).unwrap();
    assert_eq!(c.state().parallel().running_in("root.p.a"), Some(3));
    end(&mut c, "app_1");
    end(&mut c, "app_2");
    assert!(
        started(&mut c, &mut now, &mut next).is_empty(),
        "one still runs: at the lowered limit"
    );
    end(&mut c, "app_3");
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_4"]);
}

/// A one-leaf file under a single-queue policy: `root.default`'s limit holds the one queue.
#[test]
fn a_single_queue_policy_honours_the_one_queues_limit() {
    let t = format!(
        r#"{{"maximum_applications":10000,"queues":[{{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.5,"maximum_applications":-1}},{{"path":"root.default","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.5,"maximum_applications":-1{}}}]}}"#,
        limit(1)
    );
    for policy in ["fsp", "fifo", "fair"] {
        let mut c = cluster(policy, &t);
        let (mut now, mut next) = (0, 0);
        submit(&mut c, "app_1", "default", "u", 1);
        submit(&mut c, "app_2", "default", "v", 2);
        assert_eq!(started(&mut c, &mut now, &mut next), ["app_1"], "{policy}");
        end(&mut c, "app_1");
        assert_eq!(started(&mut c, &mut now, &mut next), ["app_2"], "{policy}");
    }
}

#[test]
fn a_negative_limit_is_refused_naming_its_key() {
    let t = tree(&limit(-1), "", "");
    let err = Core::new(&common::props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.tree", &t),
    ]))
    .err()
    .expect("refused")
    .to_string();
    assert!(
        err.contains("yarn.scheduler.capacity.root.p.a.max-parallel-apps"),
        "{err}"
    );
}

/// A move counts the application in its new queue: a held one moved where there is room runs,
/// a running one moved into a full queue keeps running and holds the next submission there.
#[test]
fn a_moved_application_counts_in_its_new_queue() {
    let mut c = cluster("capacity", &tree(&limit(1), "", ""));
    let (mut now, mut next) = (0, 0);
    submit(&mut c, "app_1", "a", "u", 1);
    submit(&mut c, "app_2", "a", "u", 2);
    submit(&mut c, "app_3", "c", "u", 3);
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_1", "app_3"]);
    c.handle(Event::AppMoved {
        app: "app_2".into(),
        queue: "b".into(),
    })
    .unwrap();
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_2"]);
    end(&mut c, "app_1");
    c.handle(Event::AppMoved {
        app: "app_3".into(),
        queue: "a".into(),
    })
    .unwrap();
    submit(&mut c, "app_4", "a", "u", 4);
    assert!(started(&mut c, &mut now, &mut next).is_empty());
    assert_eq!(c.state().parallel().running_in("root.p.a"), Some(1));
}

/// An application whose containers are recovered after a restart runs whatever the limit (it
/// counts, above the limit if need be), as its work is already running.
#[test]
fn a_recovered_application_runs_above_the_limit() {
    let mut c = cluster("capacity", &tree(&limit(1), "", ""));
    let (mut now, mut next) = (0, 0);
    submit(&mut c, "app_1", "a", "u", 1);
    assert_eq!(started(&mut c, &mut now, &mut next), ["app_1"]);
    add_app_in(&mut c, "app_2", "a", "u", "j", 2, "MAPREDUCE", &[]);
    let arrival = c.state().app_by_id("app_2").unwrap().arrival;
    assert!(c.state().parallel().is_held(arrival));
    c.handle(Event::ContainerAllocated {
        container: locus_core::ContainerInfo {
            container: "container_recovered_am".into(),
            app: "app_2".into(),
            node: common::node_id("h0"),
            priority: 0,
            resource: locus_core::Resource::new(common::GB, 1),
        },
        locality: locus_core::Locality::OffSwitch,
        allocation_request_id: 0,
        recovered: true,
    })
    .unwrap();
    assert!(!c.state().parallel().is_held(arrival));
    assert_eq!(c.state().parallel().running_in("root.p.a"), Some(2));
}
