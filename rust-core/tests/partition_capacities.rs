//! Queues dividing a node partition (`accessible-node-labels.<label>.capacity` and
//! `.maximum-capacity`, handed over in `locus.capacity.tree` as absolute shares): a key of the
//! partition is placed under the queue's share of that partition's nodes, never past its
//! maximum there, with the user limit computed from the queue's guarantee there, as
//! CapacityScheduler places it. Running containers move with their node's partition.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::GB;
use locus_core::{Core, CoreError, Event, KeyPartition};

/// a and b share the default partition 50/50 and partition x 30/70, a at most 50 % of x;
/// `a_factor` is a's user-limit-factor.
fn tree(a_factor: f64) -> String {
    let q = |path: &str, cap: f64, max: f64, factor: f64, x: &str| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max},"user_limit_factor":{factor},"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1,"partitions":{{{x}}}}}"#
        )
    };
    format!(
        r#"{{"maximum_applications":10000,"partitions":["x"],"queues":[{},{},{}]}}"#,
        q("root", 100.0, 100.0, 1.0, r#""x":[100,100]"#),
        q("root.a", 50.0, 100.0, a_factor, r#""x":[30,50]"#),
        q("root.b", 50.0, 100.0, 1.0, r#""x":[70,100]"#),
    )
}

fn core(a_factor: f64) -> Core {
    let t = tree(a_factor);
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &t)]);
    common::add_node(&mut c, "plain", "/r1", 8, 8);
    for h in ["x0", "x1"] {
        common::add_node(&mut c, h, "/r1", 10, 10);
        c.handle(Event::NodePartition {
            node: common::node_id(h),
            partition: "x".into(),
            exclusive: true,
        })
        .unwrap();
    }
    c
}

static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// Every node heartbeats `rounds` times with what it has free; decisions are executed.
fn run(c: &mut Core, rounds: usize) {
    for r in 0..rounds {
        for (h, gb) in [("plain", 8), ("x0", 10), ("x1", 10)] {
            let held = c
                .state()
                .node(&common::node_id(h))
                .map_or(0, |n| n.allocated.memory_mb / GB);
            let free = gb - held;
            let ds = common::heartbeat_free(c, h, free, free as u32, (r as u64 + 1) * 1000);
            let n = ds.iter().fold(0u32, |sum, d| sum + d.count);
            let mut next = NEXT_ID.fetch_add(n, Ordering::Relaxed);
            common::execute(c, &ds, &mut next);
        }
    }
}

fn add(c: &mut Core, id: &str, queue: &str, user: &str) -> Result<(), CoreError> {
    c.handle(Event::AppAdded {
        app: id.into(),
        queue: queue.into(),
        user: user.into(),
        name: id.into(),
        app_type: "SPARK".into(),
        tags: vec![],
        submit_ms: 1,
        priority: 0,
        recovered: false,
    })
}

/// An app of `user` in `queue` asking for `n` 1 GB containers in partition x.
fn hungry_in_x(c: &mut Core, id: &str, queue: &str, user: &str, n: u32) {
    add(c, id, queue, user).unwrap();
    common::set_small_asks(c, id, &[(1, "*", n)]);
    c.handle(Event::KeyPartitions {
        app: id.into(),
        keys: vec![KeyPartition {
            priority: 1,
            allocation_request_id: 0,
            partition: "x".into(),
        }],
    })
    .unwrap();
}

fn gb_in_x(c: &Core, app: &str) -> u64 {
    c.state()
        .app_by_id(app)
        .map_or(0, |a| a.used_by_partition.get("x").memory_mb / GB)
}

#[test]
fn a_queue_stops_at_its_maximum_in_the_partition() {
    let mut c = core(5.0);
    hungry_in_x(&mut c, "a1", "a", "alice", 30);
    run(&mut c, 4);
    // 50 % of x's 20 GB, though x has room left and the cluster-wide maximum is 100 %.
    assert_eq!(gb_in_x(&c, "a1"), 10);
    hungry_in_x(&mut c, "b1", "b", "bob", 30);
    run(&mut c, 4);
    assert_eq!(gb_in_x(&c, "b1"), 10);
    assert_eq!(gb_in_x(&c, "a1"), 10);
}

#[test]
fn a_user_stops_at_the_limit_its_queues_share_of_the_partition_gives() {
    let mut c = core(1.0);
    hungry_in_x(&mut c, "a1", "a", "alice", 30);
    run(&mut c, 4);
    // The guarantee in x is 30 % of 20 GB: 6 GB, and the one container past it.
    assert_eq!(gb_in_x(&c, "a1"), 7);
    // Another user of a is not held back by alice's limit, only by a's maximum.
    hungry_in_x(&mut c, "a2", "a", "carol", 30);
    run(&mut c, 4);
    assert_eq!(gb_in_x(&c, "a2"), 3);
}

#[test]
fn a_relabelled_node_takes_its_containers_usage_to_its_new_partition() {
    let mut c = core(5.0);
    hungry_in_x(&mut c, "a1", "a", "alice", 30);
    run(&mut c, 4);
    let on_x1 = c
        .state()
        .node(&common::node_id("x1"))
        .map_or(0, |n| n.allocated.memory_mb / GB);
    assert!(on_x1 > 0, "nothing on x1 to move");
    c.handle(Event::NodePartition {
        node: common::node_id("x1"),
        partition: String::new(),
        exclusive: false,
    })
    .unwrap();
    let q = c.state().queues().get("a").unwrap();
    assert_eq!(q.by_partition.get("x").memory_mb / GB, 10 - on_x1);
    // x is 10 GB now: a's maximum there is 5 GB.
    run(&mut c, 2);
    assert_eq!(gb_in_x(&c, "a1"), (10 - on_x1).max(5));
}

#[test]
fn shares_outside_the_listed_partitions_or_percentages_name_the_key() {
    let bad = tree(1.0).replace(r#""x":[30,50]"#, r#""y":[30,50]"#);
    let e = Core::new(&common::props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.tree", &bad),
    ]))
    .err()
    .expect("a share of an unlisted partition was accepted");
    assert!(
        e.to_string()
            .contains("yarn.scheduler.capacity.root.a.accessible-node-labels.y.capacity"),
        "{e}"
    );
    let bad = tree(1.0).replace(r#""x":[30,50]"#, r#""x":[30,150]"#);
    let e = Core::new(&common::props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.tree", &bad),
    ]))
    .err()
    .expect("a maximum of 150 % was accepted");
    assert!(
        e.to_string()
            .contains("root.a.accessible-node-labels.x.maximum-capacity"),
        "{e}"
    );
}
