//! `locus.policy=capacity` under `yarn.scheduler.capacity.resource-calculator`: with
//! CapacityScheduler's `DominantResourceCalculator` (`"resource_calculator":"dominant"` in the
//! tree the shim hands over) a queue's maximum-capacity, the queue order and the user limits
//! compare every resource type, so vcore-heavy or GPU asks stop where CapacityScheduler stops
//! them; with the default calculator they compare memory only, as before.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::GB;
use locus_core::{Ask, Core, CoreError, Event, Resource};

/// Four nodes of 16 GB, 16 vcores and 4 GPUs: 64 GB, 64 vcores, 16 GPUs.
const NODES: usize = 4;

fn node() -> Resource {
    Resource::with_extra(16 * GB, 16, &[4])
}

/// (path, capacity, maximum-capacity, extra JSON fields).
type Q<'a> = (&'a str, f64, f64, &'a str);

fn tree(calculator: &str, queues: &[Q]) -> String {
    let entries: Vec<String> = queues
        .iter()
        .map(|(path, cap, max, extra)| {
            // Hadoop's defaults where the entry sets nothing else.
            let defaults = [
                r#","user_limit_factor":-1"#,
                r#","minimum_user_limit_percent":100"#,
                r#","maximum_am_resource_percent":1.0"#,
            ];
            let fields: String = defaults
                .iter()
                .filter(|d| !extra.contains(d.split(':').next().unwrap_or_default()))
                .copied()
                .collect();
            format!(
                r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max}{fields},"maximum_applications":-1{extra}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"maximum_applications":10000,"resource_calculator":"{calculator}","queues":[{}]}}"#,
        entries.join(",")
    )
}

fn core(calculator: &str, queues: &[Q]) -> Core {
    let t = tree(calculator, queues);
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &t)]);
    for i in 0..NODES {
        common::add_node_as(&mut c, &common::node_id(&host(i)), &host(i), "/r1", node());
    }
    c
}

/// a at most half the cluster, b all of it, each guaranteed half.
fn half_and_half(calculator: &str) -> Core {
    core(
        calculator,
        &[
            ROOT,
            ("root.a", 50.0, 50.0, ""),
            ("root.b", 50.0, 100.0, ""),
        ],
    )
}

fn host(i: usize) -> String {
    format!("h{i}")
}

static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// Every node heartbeats `rounds` times with what it has free; decisions are executed.
fn run(c: &mut Core, rounds: usize) {
    for r in 0..rounds {
        for i in 0..NODES {
            let free = c
                .state()
                .node(&common::node_id(&host(i)))
                .map_or(node(), |n| node().saturating_sub(&n.allocated));
            let ds =
                common::try_heartbeat(c, &common::node_id(&host(i)), free, (r as u64 + 1) * 1000)
                    .unwrap();
            let n = ds.iter().fold(0u32, |sum, d| sum + d.count);
            let mut next_id = NEXT_ID.fetch_add(n, Ordering::Relaxed);
            common::execute(c, &ds, &mut next_id);
        }
    }
}

fn add(c: &mut Core, id: &str, queue: &str, user: &str, submit_ms: u64) {
    common::add_app_in(c, id, queue, user, id, submit_ms, "SPARK", &[]);
}

/// `count` containers of `capability`, anywhere.
fn ask(c: &mut Core, app: &str, count: u32, capability: Resource) {
    common::set_asks_vec(
        c,
        app,
        vec![Ask {
            priority: 1,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability,
            count,
            relax_locality: true,
        }],
    );
}

fn containers(c: &Core, app: &str, each: Resource) -> u64 {
    let used = c.state().app_by_id(app).map_or(Resource::ZERO, |a| a.used);
    used.memory_mb / each.memory_mb
}

const ROOT: Q = ("root", 100.0, 100.0, "");

/// Queue a may hold half the cluster; its app asks 1 GB and 4 vcores per container.
fn vcore_heavy(calculator: &str) -> u64 {
    let mut c = half_and_half(calculator);
    let each = Resource::new(GB, 4);
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 100, each);
    run(&mut c, 3);
    containers(&c, "a1", each)
}

#[test]
fn vcores_bind_a_queues_maximum_under_the_dominant_calculator_only() {
    // Half the cluster's 64 vcores: 8 containers of 4, with 8 GB of its 32 GB used.
    assert_eq!(vcore_heavy("dominant"), 8);
    // Memory only: 32 GB would allow 32; the nodes' vcores stop it at 16.
    assert_eq!(vcore_heavy("default"), 16);
}

fn gpu_heavy(calculator: &str) -> u64 {
    let mut c = half_and_half(calculator);
    let each = Resource::with_extra(GB, 1, &[1]);
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 100, each);
    run(&mut c, 3);
    containers(&c, "a1", each)
}

#[test]
fn gpus_bind_a_queues_maximum_under_the_dominant_calculator_only() {
    // Half the cluster's 16 GPUs.
    assert_eq!(gpu_heavy("dominant"), 8);
    // Memory only: every GPU of the cluster.
    assert_eq!(gpu_heavy("default"), 16);
}

#[test]
fn a_parents_maximum_binds_in_vcores_too() {
    let mut c = core(
        "dominant",
        &[
            ROOT,
            ("root.p", 50.0, 25.0, ""),
            ("root.p.a", 100.0, 100.0, ""),
            ("root.b", 50.0, 100.0, ""),
        ],
    );
    let each = Resource::new(GB, 4);
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 100, each);
    run(&mut c, 3);
    // A quarter of 64 vcores.
    assert_eq!(containers(&c, "a1", each), 4);
}

/// Queue a holds 3 containers of 1 GB / 4 vcores, b one of 4 GB / 1 vcore; both ask one more
/// and a node has room for only one of them. Returns who got it.
fn next_to(calculator: &str) -> &'static str {
    let mut c = core(
        calculator,
        &[
            ROOT,
            ("root.a", 50.0, 100.0, ""),
            ("root.b", 50.0, 100.0, ""),
        ],
    );
    let (va, vb) = (Resource::new(GB, 4), Resource::new(4 * GB, 1));
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 3, va);
    add(&mut c, "b1", "b", "bob", 2);
    let beat = |c: &mut Core, at: usize, free: Resource, now: u64| {
        let ds = common::try_heartbeat(c, &common::node_id(&host(at)), free, now).unwrap();
        let n = ds.iter().fold(0u32, |sum, d| sum + d.count);
        let mut next_id = NEXT_ID.fetch_add(n, Ordering::Relaxed);
        common::execute(c, &ds, &mut next_id);
    };
    beat(&mut c, 0, node(), 1000);
    ask(&mut c, "b1", 1, vb);
    beat(&mut c, 0, node().saturating_sub(&va.times(3)), 2000);
    assert_eq!(containers(&c, "a1", va), 3);
    assert_eq!(containers(&c, "b1", vb), 1);
    ask(&mut c, "a1", 1, va);
    ask(&mut c, "b1", 1, vb);
    // Room for either one, not both.
    beat(&mut c, 1, Resource::with_extra(4 * GB, 4, &[4]), 3000);
    match (containers(&c, "a1", va), containers(&c, "b1", vb)) {
        (4, 1) => "a",
        (3, 2) => "b",
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn the_queue_order_follows_dominant_shares_under_the_dominant_calculator() {
    // a holds 3 GB (less memory than b's 4 GB) but 12 of 64 vcores (more than b's share).
    assert_eq!(next_to("dominant"), "b");
    assert_eq!(next_to("default"), "a");
}

fn user_limited(calculator: &str) -> u64 {
    let mut c = core(
        calculator,
        &[
            ROOT,
            ("root.a", 50.0, 100.0, r#","user_limit_factor":1"#),
            ("root.b", 50.0, 100.0, ""),
        ],
    );
    let each = Resource::new(GB, 4);
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 100, each);
    run(&mut c, 3);
    containers(&c, "a1", each)
}

#[test]
fn the_user_limit_compares_dominant_shares_under_the_dominant_calculator() {
    // alice's limit is the guarantee, 32 GB and 32 vcores; she starts containers while she
    // holds no more (8 GB / 32 vcores is not more), so a ninth.
    assert_eq!(user_limited("dominant"), 9);
    // Memory only: 16 GB of 32 when the nodes' vcores run out.
    assert_eq!(user_limited("default"), 16);
}

/// Queue a's absolute capacity and maximum are 32 GB and 8 vcores of the 64 GB, 64 vcores
/// cluster (b has the rest); its app asks 1 GB and 4 vcores per container.
fn absolute_vcore_heavy(calculator: &str) -> u64 {
    let r = |mb: u64, vcores: u32| format!(r#"{{"memory_mb":{mb},"vcores":{vcores}}}"#);
    let a = format!(
        r#","minimum_resource":{},"maximum_resource":{}"#,
        r(32 * GB, 8),
        r(32 * GB, 8)
    );
    let b = format!(r#","minimum_resource":{}"#, r(32 * GB, 56));
    let mut c = core(
        calculator,
        &[ROOT, ("root.a", 0.0, 100.0, &a), ("root.b", 0.0, 100.0, &b)],
    );
    let each = Resource::new(GB, 4);
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 100, each);
    run(&mut c, 3);
    containers(&c, "a1", each)
}

#[test]
fn absolute_capacities_bind_in_every_type_under_the_dominant_calculator() {
    // CapacityScheduler's effective maximum in vcores is the configured 8: two containers of
    // 4, though memory's share (half the cluster) would allow 32 vcores.
    assert_eq!(absolute_vcore_heavy("dominant"), 2);
    // Memory only: 32 GB would allow 32; the nodes' vcores stop it at 16.
    assert_eq!(absolute_vcore_heavy("default"), 16);
}

#[test]
fn dominant_with_divided_partitions_is_refused_naming_the_calculator() {
    let t = r#"{"maximum_applications":10000,"resource_calculator":"dominant","partitions":["x"],"queues":[{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1,"partitions":{"x":[100,100]}},{"path":"root.a","capacity":50,"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1,"partitions":{"x":[30,50]}},{"path":"root.b","capacity":50,"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1,"partitions":{"x":[70,100]}}]}"#;
    let err = Core::new(&common::props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.tree", t),
    ]))
    .err()
    .expect("refused");
    match err {
        CoreError::Config { key, message } => {
            assert_eq!(key, "yarn.scheduler.capacity.resource-calculator");
            assert!(message.contains("node partitions"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// Ten MapReduce applications in queue a, each AM asking 1 GB and 4 vcores: how many start.
fn ams_started(calculator: &str) -> usize {
    let mut c = core(
        calculator,
        &[
            ROOT,
            (
                "root.a",
                50.0,
                50.0,
                r#","maximum_am_resource_percent":0.25"#,
            ),
            ("root.b", 50.0, 100.0, ""),
        ],
    );
    let am = Resource::new(GB, 4);
    for i in 0..10 {
        let id = format!("m{i}");
        common::add_app_in(&mut c, &id, "a", "u", &id, i, "MAPREDUCE", &[]);
        common::set_asks_vec(
            &mut c,
            &id,
            vec![Ask {
                priority: 0,
                allocation_request_id: 0,
                resource_name: "*".into(),
                capability: am,
                count: 1,
                relax_locality: true,
            }],
        );
    }
    run(&mut c, 3);
    (0..10)
        .filter(|i| containers(&c, &format!("m{i}"), am) > 0)
        .count()
}

#[test]
fn the_am_limit_compares_every_type_under_the_dominant_calculator() {
    // a may use 32 GB and 32 vcores; a quarter of that is 8 GB and 8 vcores: two AMs of 4
    // vcores, where memory alone allows eight.
    assert_eq!(ams_started("dominant"), 2);
    assert_eq!(ams_started("default"), 8);
}

/// Queue a holds its 8 GPUs (half the cluster's 16); two GPU nodes it holds none on leave, so
/// it is past its maximum in GPUs alone. Returns the containers without GPUs it then gets.
fn after_the_cluster_shrank(calculator: &str) -> u64 {
    let mut c = half_and_half(calculator);
    let gpu = Resource::with_extra(GB, 1, &[4]);
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 2, gpu);
    run(&mut c, 2);
    assert_eq!(containers(&c, "a1", gpu), 2);
    let held: Vec<usize> = (0..NODES)
        .filter(|&i| {
            c.state()
                .node(&common::node_id(&host(i)))
                .is_some_and(|n| n.allocated.memory_mb > 0)
        })
        .collect();
    for i in (0..NODES).filter(|i| !held.contains(i)).take(2) {
        c.handle(Event::NodeRemoved {
            node: common::node_id(&host(i)),
        })
        .unwrap();
    }
    let plain = Resource::new(GB, 1);
    // Another user, whose user limit holds nothing back.
    add(&mut c, "a2", "a", "bob", 2);
    ask(&mut c, "a2", 10, plain);
    for r in 0..2 {
        for &i in &held {
            let free = c
                .state()
                .node(&common::node_id(&host(i)))
                .map_or(node(), |n| node().saturating_sub(&n.allocated));
            let ds = common::try_heartbeat(&mut c, &common::node_id(&host(i)), free, 10_000 + r)
                .unwrap();
            let n = ds.iter().fold(0u32, |sum, d| sum + d.count);
            let mut next_id = NEXT_ID.fetch_add(n, Ordering::Relaxed);
            common::execute(&mut c, &ds, &mut next_id);
        }
    }
    containers(&c, "a2", plain)
}

#[test]
fn a_queue_past_its_maximum_in_one_type_takes_nothing_under_the_dominant_calculator() {
    // CapacityScheduler commits a container only while the queue's usage with it fits its
    // maximum in every type: 8 GPUs held of a 4-GPU maximum fit nothing.
    assert_eq!(after_the_cluster_shrank("dominant"), 0);
    // Memory only: 2 GB held of a 16 GB maximum.
    assert!(after_the_cluster_shrank("default") > 0);
}

/// The ceilings a decision of queue a's app carries for the shim's re-check at commit.
fn commit_limits(calculator: &str) -> locus_core::protocol::CommitLimits {
    let mut c = core(
        calculator,
        &[
            ROOT,
            ("root.a", 50.0, 50.0, r#","user_limit_factor":1"#),
            ("root.b", 50.0, 100.0, ""),
        ],
    );
    add(&mut c, "a1", "a", "alice", 1);
    ask(&mut c, "a1", 1, Resource::new(GB, 4));
    let ds = common::try_heartbeat(&mut c, &common::node_id(&host(0)), node(), 1000).unwrap();
    ds[0]
        .limits
        .clone()
        .expect("capacity decisions carry their ceilings")
}

#[test]
fn commit_ceilings_never_refuse_what_the_dominant_rules_allow() {
    // a's maximum in both, and under the dominant calculator in every type (half of 64
    // vcores and 16 GPUs); the user limit, a dominant comparison, is no per-type ceiling and
    // is left to the decision.
    let dominant = commit_limits("dominant");
    assert_eq!(dominant.queue_max_mb, Some(32 * GB));
    assert_eq!(dominant.type_maxima, vec![32, 8, 0, 0, 0]);
    assert_eq!(dominant.user_limit_mb, None);
    let default = commit_limits("default");
    assert_eq!(default.queue_max_mb, Some(32 * GB));
    assert_eq!(default.user_limit_mb, Some(32 * GB));
    assert!(default.type_maxima.is_empty());
}

#[test]
fn a_user_limits_room_is_not_shaped_by_a_key_no_node_can_hold() {
    let mut c = core(
        "dominant",
        &[
            ROOT,
            ("root.a", 50.0, 90.0, ""),
            ("root.b", 50.0, 100.0, ""),
        ],
    );
    add(&mut c, "a1", "a", "alice", 1);
    let each = Resource::new(8 * GB, 2);
    let ask = |priority: i32, capability: Resource, count: u32| Ask {
        priority,
        allocation_request_id: 0,
        resource_name: "*".into(),
        capability,
        count,
        relax_locality: true,
    };
    // Its first key asks for more memory than the cluster has; the second fits.
    common::set_asks_vec(
        &mut c,
        "a1",
        vec![ask(1, Resource::new(1 << 30, 1), 1), ask(2, each, 3)],
    );
    run(&mut c, 2);
    assert_eq!(containers(&c, "a1", each), 3);
}

#[test]
fn a_user_within_its_limit_may_start_a_container_of_any_of_its_sizes() {
    // a's guarantee is a quarter and its user-limit-factor 1: alice's limit is 4 of the 16
    // GPUs.
    let mut c = core(
        "dominant",
        &[
            ROOT,
            ("root.a", 25.0, 100.0, r#","user_limit_factor":1"#),
            ("root.b", 75.0, 100.0, ""),
        ],
    );
    add(&mut c, "a1", "a", "alice", 1);
    let ask = |priority: i32, name: &str, capability: Resource, relax: bool| Ask {
        priority,
        allocation_request_id: 0,
        resource_name: name.into(),
        capability,
        count: if priority == 1 { 1 } else { 5 },
        relax_locality: relax,
    };
    // Its first key wants a host the cluster does not have (and nowhere else): it stays
    // pending, the first in line, and its size says nothing of the GPU key's.
    let small = Resource::new(GB, 1);
    common::set_asks_vec(
        &mut c,
        "a1",
        vec![
            ask(1, "*", small, false),
            ask(1, "/r9", small, false),
            ask(1, "h99", small, true),
            ask(2, "*", Resource::with_extra(GB, 1, &[3]), true),
        ],
    );
    run(&mut c, 3);
    // Holding 3 GPUs she is within the limit and starts a second; holding 6 she is past it.
    let gpus = c.state().app_by_id("a1").map_or(0, |a| a.used.extra[0]);
    assert_eq!(gpus, 6);
}
