//! The default partition's queue figures are those of its own nodes (those with no label), as
//! CapacityScheduler measures them: a queue's maximum-capacity, guarantee and user limit there
//! are of the unlabelled nodes' memory, and only containers on those nodes count in it (one a
//! default-partition key borrowed a non-exclusive labelled node for counts in that node's
//! partition).

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::GB;
use locus_core::{Core, Event};

/// a (capacity 50, maximum `a_max`) and b (50, 100) share the default partition; the
/// non-exclusive `CORE` is given whole to b, as Amazon EMR gives it to its default queue.
fn tree(a_max: f64, a_factor: f64) -> String {
    let q = |path: &str, cap: f64, max: f64, factor: f64, core: &str| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max},"user_limit_factor":{factor},"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1,"partitions":{{{core}}}}}"#
        )
    };
    format!(
        r#"{{"maximum_applications":10000,"partitions":["CORE"],"queues":[{},{},{}]}}"#,
        q("root", 100.0, 100.0, 1.0, r#""CORE":[100,100]"#),
        q("root.a", 50.0, a_max, a_factor, r#""CORE":[0,0]"#),
        q("root.b", 50.0, 100.0, 1.0, r#""CORE":[100,100]"#),
    )
}

const PLAIN: [&str; 2] = ["plain0", "plain1"];
const CORE: [&str; 2] = ["core0", "core1"];

/// Two 8 GB nodes with no label and two 8 GB `CORE` nodes.
fn core(a_max: f64, a_factor: f64) -> Core {
    let t = tree(a_max, a_factor);
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &t)]);
    for h in PLAIN.iter().chain(&CORE) {
        common::add_node(&mut c, h, "/r1", 8, 8);
    }
    for h in CORE {
        c.handle(Event::NodePartition {
            node: common::node_id(h),
            partition: "CORE".into(),
            exclusive: false,
        })
        .unwrap();
    }
    c
}

static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// Each of `hosts` heartbeats `rounds` times with what it has free; decisions are executed.
fn run(c: &mut Core, hosts: &[&str], rounds: usize) -> Vec<locus_core::Decision> {
    let mut all = Vec::new();
    for r in 0..rounds {
        for h in hosts {
            let held = c
                .state()
                .node(&common::node_id(h))
                .map_or(0, |n| n.allocated.memory_mb / GB);
            let free = 8 - held;
            let ds = common::heartbeat_free(c, h, free, free as u32, (r as u64 + 1) * 1000);
            let n = ds.iter().fold(0u32, |sum, d| sum + d.count);
            let mut next = NEXT_ID.fetch_add(n, Ordering::Relaxed);
            common::execute(c, &ds, &mut next);
            all.extend(ds);
        }
    }
    all
}

/// An app of `user` in `queue` asking for `n` 1 GB default-partition containers.
fn hungry(c: &mut Core, id: &str, queue: &str, user: &str, n: u32) {
    common::add_app_in(c, id, queue, user, id, 1, "SPARK", &[]);
    common::set_small_asks(c, id, &[(1, "*", n)]);
}

/// GB `app` holds on `hosts`.
fn gb_on(c: &Core, app: &str, hosts: &[&str]) -> u64 {
    let ids: Vec<String> = hosts.iter().map(|h| common::node_id(h)).collect();
    c.state()
        .containers()
        .iter()
        .filter(|k| k.app == app && ids.contains(&k.node))
        .map(|k| k.resource.memory_mb / GB)
        .sum()
}

#[test]
fn a_queue_stops_at_its_maximum_of_the_unlabelled_nodes() {
    let mut c = core(50.0, 100.0);
    hungry(&mut c, "a1", "a", "alice", 30);
    run(&mut c, &PLAIN, 4);
    // 50 % of the 16 GB with no label, not of the 32 GB cluster (which is all of them).
    assert_eq!(gb_on(&c, "a1", &PLAIN), 8);
    hungry(&mut c, "b1", "b", "bob", 30);
    run(&mut c, &PLAIN, 4);
    assert_eq!(gb_on(&c, "b1", &PLAIN), 8);
    assert_eq!(gb_on(&c, "a1", &PLAIN), 8);
}

#[test]
fn a_user_limit_is_of_the_queues_guarantee_on_the_unlabelled_nodes() {
    let mut c = core(100.0, 1.0);
    hungry(&mut c, "a1", "a", "alice", 30);
    run(&mut c, &PLAIN, 4);
    // The guarantee is 50 % of 16 GB: 8 GB, and the one container past it.
    assert_eq!(gb_on(&c, "a1", &PLAIN), 9);
}

#[test]
fn borrowed_room_counts_in_its_partition_and_the_commit_ceiling_carries_it() {
    let mut c = core(50.0, 100.0);
    hungry(&mut c, "a1", "a", "alice", 30);
    run(&mut c, &PLAIN, 4);
    assert_eq!(gb_on(&c, "a1", &PLAIN), 8);
    // At its maximum of the default partition, a still borrows CORE's idle room: CS holds a
    // borrowing queue to the whole partition there.
    run(&mut c, &CORE, 6);
    let borrowed = gb_on(&c, "a1", &CORE);
    assert!(borrowed > 0, "a borrowed nothing of CORE");
    let q = c.state().queues().get("a").unwrap();
    assert_eq!(q.by_partition.get("CORE").memory_mb / GB, borrowed);
    // A container ends on a plain node: the next one there is re-checked against the
    // default maximum plus what a holds on CORE (the shim counts the whole queue).
    let k = c
        .state()
        .containers()
        .iter()
        .find(|k| k.app == "a1" && k.node == common::node_id("plain0"))
        .map(|k| k.id.clone())
        .unwrap();
    common::release(&mut c, "a1", &k, "plain0", 1, 1);
    let ds = run(&mut c, &PLAIN, 1);
    assert_eq!(ds.iter().map(|d| d.count).sum::<u32>(), 1);
    let limits = ds[0].limits.as_ref().expect("no commit ceilings");
    assert_eq!(limits.queue_max_mb, Some((8 + borrowed) * GB));
    assert_eq!(gb_on(&c, "a1", &PLAIN), 8);
}

#[test]
fn preemption_gives_back_a_guarantee_of_the_unlabelled_nodes_from_them_only() {
    let mut c = core(100.0, 100.0);
    hungry(&mut c, "a1", "a", "alice", 40);
    run(&mut c, &PLAIN, 8);
    run(&mut c, &CORE, 6);
    assert_eq!(gb_on(&c, "a1", &PLAIN), 16);
    let borrowed = gb_on(&c, "a1", &CORE);
    assert!(borrowed > 0, "a borrowed nothing of CORE");
    // b's guarantee is half the 16 GB with no label: a, holding all of them, gives 8 back.
    // (Of the 32 GB cluster, a would hold no more than its own 16 GB guarantee.)
    hungry(&mut c, "b1", "b", "bob", 8);
    let s = locus_core::preemption::PreemptionSettings {
        monitoring_interval_ms: 1000,
        max_wait_before_kill_ms: 3000,
        total_preemption_per_round: 1.0,
        natural_termination_factor: 1.0,
        ..Default::default()
    };
    let r = c.preemption_round(100_000, &s);
    let on_plain: Vec<String> = PLAIN.iter().map(|h| common::node_id(h)).collect();
    let taken: Vec<_> = c
        .state()
        .containers()
        .iter()
        .filter(|k| r.selected.contains(&k.id))
        .collect();
    assert_eq!(taken.len(), 8, "{:?}", r.selected);
    assert!(
        taken.iter().all(|k| on_plain.contains(&k.node)),
        "a container on a CORE node was taken for the default partition"
    );
}
