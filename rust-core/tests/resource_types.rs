//! Resource types beyond memory and vcores (`yarn.io/gpu` as the shim's first extra type): a
//! container is placed only on a node where every type fits, under the default policy and under
//! `capacity`; an ask for more GPUs than any node has takes nothing and holds nothing back.

mod common;

use std::collections::BTreeMap;

use common::GB;
use locus_core::{Ask, Core, Decision, Event, Resource};

/// 8 GB, 8 vcores and `gpus` GPUs.
fn node(gpus: u64) -> Resource {
    Resource::with_extra(8 * GB, 8, &[gpus])
}

/// A node without GPUs (`plain`) and one with two (`gpu`), both empty.
fn cluster(c: &mut Core) {
    common::add_node_as(c, &common::node_id("plain"), "plain", "/r1", node(0));
    common::add_node_as(c, &common::node_id("gpu"), "gpu", "/r1", node(2));
}

fn add_app(c: &mut Core, app: &str, submit_ms: u64) {
    common::add_app_in(c, app, "default", "alice", app, submit_ms, "YARN", &[]);
}

/// `count` containers of 1 GB, 1 vcore and `gpus` GPUs, anywhere (DistributedShell's ask).
fn ask(c: &mut Core, app: &str, count: u32, gpus: u64) {
    common::set_asks_vec(
        c,
        app,
        vec![Ask {
            priority: 1,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability: Resource::with_extra(GB, 1, &[gpus]),
            count,
            relax_locality: true,
        }],
    );
}

fn beat(c: &mut Core, host: &str, free: Resource, now_ms: u64) -> Vec<Decision> {
    common::try_heartbeat(c, &common::node_id(host), free, now_ms).unwrap()
}

fn default_core() -> Core {
    Core::new(&BTreeMap::new()).expect("the default settings")
}

fn capacity_core() -> Core {
    Core::new(&common::props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "default:100"),
    ]))
    .expect("capacity settings")
}

/// The node without GPUs heartbeats first, every round, with all its room free: the GPU
/// container still goes to the GPU node, and only there.
fn gpu_ask_lands_on_the_gpu_node(mut c: Core) {
    cluster(&mut c);
    add_app(&mut c, "application_1_0001", 1);
    ask(&mut c, "application_1_0001", 1, 1);
    let mut placed = Vec::new();
    for round in 1..=5u64 {
        let on_plain = beat(&mut c, "plain", node(0), round * 1_000);
        assert!(
            on_plain.is_empty(),
            "a GPU container decided for the node without GPUs: {on_plain:?}"
        );
        placed.extend(beat(&mut c, "gpu", node(2), round * 1_000 + 1));
        if !placed.is_empty() {
            break;
        }
    }
    assert_eq!(placed.len(), 1, "{placed:?}");
    assert_eq!(placed[0].node, common::node_id("gpu"));
    assert_eq!(placed[0].capability.extra_used(), &[1]);
    let mut next = 0;
    common::execute(&mut c, &placed, &mut next);
    // Two GPUs, two containers of one each at most: a third waits however much memory is free.
    ask(&mut c, "application_1_0001", 3, 1);
    let d = beat(&mut c, "gpu", Resource::with_extra(7 * GB, 7, &[1]), 10_000);
    assert_eq!(d.iter().map(|d| d.count).sum::<u32>(), 1, "{d:?}");
}

#[test]
fn a_gpu_ask_lands_only_on_the_gpu_node_under_the_default_policy() {
    gpu_ask_lands_on_the_gpu_node(default_core());
}

#[test]
fn a_gpu_ask_lands_only_on_the_gpu_node_under_capacity() {
    gpu_ask_lands_on_the_gpu_node(capacity_core());
}

/// More GPUs than any node has: the key can never be placed, so it takes nothing and the
/// application submitted after it runs (the RM refuses such an ask once nodes registered; this
/// is the core's own guard for one that reached it first).
fn too_many_gpus_take_nothing_and_hold_nothing(mut c: Core) {
    cluster(&mut c);
    add_app(&mut c, "application_1_0001", 1);
    ask(&mut c, "application_1_0001", 1, 3);
    add_app(&mut c, "application_1_0002", 2);
    ask(&mut c, "application_1_0002", 1, 0);
    let mut placed = Vec::new();
    for round in 1..=5u64 {
        placed.extend(beat(&mut c, "gpu", node(2), round * 1_000));
        placed.extend(beat(&mut c, "plain", node(0), round * 1_000 + 1));
        if !placed.is_empty() {
            break;
        }
    }
    assert!(
        placed.iter().all(|d| d.app == "application_1_0002"),
        "{placed:?}"
    );
    assert_eq!(placed.iter().map(|d| d.count).sum::<u32>(), 1, "{placed:?}");
}

#[test]
fn an_ask_for_more_gpus_than_any_node_takes_nothing_under_the_default_policy() {
    too_many_gpus_take_nothing_and_hold_nothing(default_core());
}

#[test]
fn an_ask_for_more_gpus_than_any_node_takes_nothing_under_capacity() {
    too_many_gpus_take_nothing_and_hold_nothing(capacity_core());
}

/// The types cross in JSON as `extra`, and a node's capability keeps them: a node re-sized to
/// no GPUs no longer takes a GPU container.
#[test]
fn a_node_resized_without_gpus_takes_no_gpu_container() {
    let mut c = default_core();
    cluster(&mut c);
    let json = r#"{"type":"node_resource_updated","node":"gpu:8041",
        "capability":{"memory_mb":8192,"vcores":8}}"#;
    c.handle(serde_json::from_str::<Event>(json).unwrap())
        .unwrap();
    add_app(&mut c, "application_1_0001", 1);
    ask(&mut c, "application_1_0001", 1, 1);
    for round in 1..=3u64 {
        assert!(beat(&mut c, "gpu", node(0), round * 1_000).is_empty());
        assert!(beat(&mut c, "plain", node(0), round * 1_000 + 1).is_empty());
    }
    let json = r#"{"type":"node_resource_updated","node":"gpu:8041",
        "capability":{"memory_mb":8192,"vcores":8,"extra":[1]}}"#;
    c.handle(serde_json::from_str::<Event>(json).unwrap())
        .unwrap();
    let d = beat(&mut c, "gpu", node(1), 10_000);
    assert_eq!(d.len(), 1, "{d:?}");
}

/// Five nodes without GPUs and `gpu` (8 GB, 8 vcores, 3 GPUs) on its own rack; thresholds 0.5.
/// An app's key asks one container of `size` with its data on `h0`, a node without GPUs. Every
/// node heartbeats each round, idle; returns the round the key got its container in.
fn rounds_to_place_off_its_data(size: Resource, small: Resource) -> Option<u64> {
    let mut c = Core::new(&common::props(&[
        ("locus.policy", "fifo"),
        ("locus.locality", "delay"),
        ("locus.delay.node-locality-threshold", "0.5"),
        ("locus.delay.rack-locality-threshold", "0.5"),
    ]))
    .expect("delay settings");
    let hosts = ["h0", "h1", "h2", "h3", "h4", "gpu"];
    for h in &hosts[..5] {
        common::add_node_as(&mut c, &common::node_id(h), h, "/r0", small);
    }
    common::add_node_as(&mut c, &common::node_id("gpu"), "gpu", "/r1", node(3));
    add_app(&mut c, "application_1_0001", 1);
    let row = |name: &str| Ask {
        priority: 1,
        allocation_request_id: 0,
        resource_name: name.into(),
        capability: size,
        count: 1,
        relax_locality: true,
    };
    common::set_asks_vec(
        &mut c,
        "application_1_0001",
        vec![row("*"), row("/r0"), row("h0")],
    );
    for round in 1..=20u64 {
        for h in hosts {
            let free = if h == "gpu" { node(3) } else { small };
            let d = beat(&mut c, h, free, round * 1_000);
            if !d.is_empty() {
                assert_eq!(d[0].node, common::node_id("gpu"), "{d:?}");
                return Some(round);
            }
        }
    }
    None
}

/// Delay scheduling's thresholds count the nodes a key may run on: one node of six fits a key
/// asking 2 GPUs, so it misses one opportunity per round, and ceil(0.5 x 1) misses per level
/// relax it (3 rounds), not ceil(0.5 x 6) (7 rounds while every node idles). Every resource
/// type counts alike: a 6 GB key that only the same node fits (the others have 4 GB) waits as
/// long.
#[test]
fn a_key_only_gpu_nodes_fit_waits_for_its_data_in_opportunities_it_is_offered() {
    let gpu =
        rounds_to_place_off_its_data(Resource::with_extra(GB, 1, &[2]), Resource::new(16 * GB, 8));
    let memory = rounds_to_place_off_its_data(Resource::new(6 * GB, 1), Resource::new(4 * GB, 8));
    assert_eq!(
        (gpu, memory),
        (Some(3), Some(3)),
        "rounds until the key got its container on the only node it fits (GPUs, memory)"
    );
}
