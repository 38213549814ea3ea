//! Locality inside a partition: a key may run only on nodes of its partition (a default-partition
//! key also on a non-exclusive partition's nodes, never on an exclusive one), so its data counts
//! as local only where such a node is. Data on nodes outside the key's partition is data the key
//! can never be local to: no layer may wait for it, pick by it, or count those nodes as ones the
//! key could run on. Each scenario runs on an idle cluster under every layer combination the
//! settings accept, and the work that can run must get a container within a few rounds.

mod common;

use common::{add_app_in, add_node, node_id, props, set_asks_rows, Row, GB};
use locus_core::{Core, Decision, Event, Heartbeat, KeyPartition, Resource};

/// Rounds an idle cluster may take to start work that can run: every layer's wait on a quiet
/// cluster is a round or two (the fuzzer's `QUIET_BOUND_ROUNDS`).
const ROUNDS: u32 = 10;

/// (host, rack, GB, vcores)
type NodeSpec = (&'static str, &'static str, u64, u32);

/// Every combination of layers the settings accept, under both of delay's idle-room rules.
fn combinations() -> Vec<(String, Core)> {
    common::layer_combinations(("locus.capacity.queues", "default:60:90,etl:40:70"))
}

fn label(c: &mut Core, host: &str, partition: &str, exclusive: bool) {
    c.handle(Event::NodePartition {
        node: node_id(host),
        partition: partition.into(),
        exclusive,
    })
    .unwrap();
}

fn key_partition(c: &mut Core, app: &str, priority: i32, partition: &str) {
    c.handle(Event::KeyPartitions {
        app: app.into(),
        keys: vec![KeyPartition {
            priority,
            allocation_request_id: 0,
            partition: partition.into(),
        }],
    })
    .unwrap();
}

/// Heartbeats every node once per round with its whole capability free (containers end within
/// their round), executing the decisions. Returns the first round (1-based) in which `want`
/// held for a decision, or `None` within [`ROUNDS`]. `first` heartbeat once before round 1.
fn first_round(
    c: &mut Core,
    first: &[NodeSpec],
    nodes: &[NodeSpec],
    want: &mut dyn FnMut(&Decision) -> bool,
) -> Option<u32> {
    let sized = |specs: &[NodeSpec]| -> Vec<(&'static str, Resource)> {
        specs
            .iter()
            .map(|&(host, _, gb, vcores)| (host, Resource::new(gb * GB, vcores)))
            .collect()
    };
    first_round_sized(c, &sized(first), &sized(nodes), want)
}

/// [`first_round`] for nodes given by host and capability (GPUs and other types too).
fn first_round_sized(
    c: &mut Core,
    first: &[(&str, Resource)],
    nodes: &[(&str, Resource)],
    want: &mut dyn FnMut(&Decision) -> bool,
) -> Option<u32> {
    let mut clock = 1_000_000;
    let mut next = 0u64;
    let mut beat = |c: &mut Core, &(host, capability): &(&str, Resource), ran: &mut Vec<_>| {
        clock += 100;
        let ds = c
            .heartbeat(&Heartbeat {
                node: node_id(host),
                unallocated: capability,
                now_ms: clock,
                sweep: false,
                eager: false,
            })
            .unwrap()
            .decisions;
        for d in &ds {
            for _ in 0..d.count {
                next += 1;
                let id = format!("container_{next}");
                common::container_allocated(c, d, &id);
                ran.push((d.app.clone(), id, d.node.clone(), d.capability));
            }
        }
        ds
    };
    let mut ran = Vec::new();
    for spec in first {
        beat(c, spec, &mut ran);
    }
    for round in 1..=ROUNDS {
        for spec in nodes {
            let ds = beat(c, spec, &mut ran);
            // Every decision is shown to `want`, not only up to the first hit.
            if ds.iter().filter(|d| want(d)).count() > 0 {
                return Some(round);
            }
        }
        for (app, id, node, resource) in ran.drain(..) {
            common::try_release(c, &app, &id, &node, resource).unwrap();
        }
    }
    None
}

/// A MapReduce job's maps are labelled with the partition of one node while their data sits on
/// a node of the default partition: no node their data is on may run them, so they are not
/// local anywhere. TD's picks followed the data (a pick on the data's node, where the maps may
/// not run) and never gave them the labelled node.
#[test]
fn maps_labelled_with_a_partition_their_data_is_not_in_still_run() {
    const NODES: [NodeSpec; 4] = [
        ("h1", "/r1", 8, 16),
        ("h3", "/r0", 8, 4),
        ("h6", "/r0", 8, 4),
        ("h7", "/r1", 8, 4),
    ];
    let maps: [Row; 4] = [
        (20, "h1", 4, 0, 1, true),
        (20, "/r1", 4, 0, 1, true),
        (20, "*", 4, 0, 1, true),
        (10, "*", 2, 4, 2, true),
    ];
    let mut failed = Vec::new();
    for (combo, mut c) in combinations() {
        for &(host, rack, gb, vcores) in &NODES {
            add_node(&mut c, host, rack, gb, vcores);
        }
        label(&mut c, "h7", "Y", false);
        add_app_in(&mut c, "job", "etl", "u", "job", 1, "MAPREDUCE", &[]);
        key_partition(&mut c, "job", 20, "Y");
        // 512 MB maps: the rows' memory is in GB, so set them as asks directly.
        let mut asks = common::asks(&maps);
        for a in asks.iter_mut().filter(|a| a.priority == 20) {
            a.capability = Resource::new(512, 1);
        }
        common::set_asks_vec(&mut c, "job", asks);
        // A default-partition node heartbeats first: no map of the job may run there.
        let got = first_round(&mut c, &NODES[1..2], &NODES, &mut |d| {
            d.app == "job" && d.priority == 20
        });
        if got.is_none() {
            failed.push(combo);
        }
    }
    assert!(
        failed.is_empty(),
        "the Y maps (data on h1, default partition) got nothing in {ROUNDS} rounds under {} \
         combinations, e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(4)]
    );
}

/// The only node is in an exclusive partition; a job's maps ask for the default partition (so
/// no node can ever run them) and its reduces for the node's partition. The maps are a blocker:
/// nothing may wait for them, and the reduces must run on the node.
#[test]
fn default_partition_maps_on_a_cluster_of_one_exclusive_partition_block_nothing() {
    const NODES: [NodeSpec; 1] = [("h7", "/r1", 16, 4)];
    let rows: [Row; 8] = [
        (20, "h2", 4, 1, 1, true),
        (20, "h6", 10, 1, 1, true),
        (20, "h7", 2, 1, 1, true),
        (20, "/r0", 10, 1, 1, true),
        (20, "/r1", 2, 1, 1, true),
        (20, "/r2", 4, 1, 1, true),
        (20, "*", 16, 1, 1, true),
        (10, "*", 2, 1, 2, true),
    ];
    let mut failed = Vec::new();
    for (combo, mut c) in combinations() {
        for &(host, rack, gb, vcores) in &NODES {
            add_node(&mut c, host, rack, gb, vcores);
        }
        add_app_in(&mut c, "job", "etl", "u", "job", 1, "MAPREDUCE", &[]);
        key_partition(&mut c, "job", 10, "X");
        set_asks_rows(&mut c, "job", &rows);
        label(&mut c, "h7", "X", true);
        let mut placed_maps = false;
        let got = first_round(&mut c, &[], &NODES, &mut |d| {
            placed_maps |= d.priority == 20;
            d.app == "job" && d.priority == 10
        });
        assert!(!placed_maps, "{combo}: a default-partition map ran on X");
        if got.is_none() {
            failed.push(combo);
        }
    }
    assert!(
        failed.is_empty(),
        "the X reduces got nothing in {ROUNDS} rounds on the idle X node under {} combinations, \
         e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(4)]
    );
}

/// A Spark key labelled with the partition of one node on rack /r1 names a host and rack of the
/// default partition (/r0) as its data. No node of its partition is there: the key is never
/// local, so it must not wait for locality (delay's threshold counted in the whole cluster's
/// nodes, offered only on its partition's node; delay-room waiting for room on h4 the key may
/// not use).
#[test]
fn a_labelled_key_whose_data_is_outside_its_partition_does_not_wait_for_it() {
    const NODES: [NodeSpec; 11] = [
        ("h0", "/r0", 32, 16),
        ("h1", "/r1", 32, 16),
        ("h2", "/r2", 16, 8),
        ("h3", "/r3", 4, 8),
        ("h4", "/r0", 32, 16),
        ("h8", "/r0", 32, 16),
        ("h9", "/r1", 4, 16),
        ("h10", "/r2", 16, 4),
        ("h11", "/r3", 8, 16),
        ("h12", "/r0", 32, 32),
        ("h13", "/r1", 48, 16),
    ];
    let rows: [Row; 3] = [
        (10, "h4", 3, 8, 3, true),
        (10, "/r0", 3, 8, 3, true),
        (10, "*", 3, 8, 3, true),
    ];
    let mut failed = Vec::new();
    for (combo, mut c) in combinations() {
        for &(host, rack, gb, vcores) in &NODES {
            add_node(&mut c, host, rack, gb, vcores);
        }
        label(&mut c, "h1", "Y", false);
        add_app_in(&mut c, "spark", "etl", "u", "spark", 1, "SPARK", &[]);
        key_partition(&mut c, "spark", 10, "Y");
        set_asks_rows(&mut c, "spark", &rows);
        let got = first_round(&mut c, &[], &NODES, &mut |d| d.app == "spark");
        if got.is_none() {
            failed.push(combo);
        }
    }
    assert!(
        failed.is_empty(),
        "the Y executors (data on h4, /r0) got nothing in {ROUNDS} rounds under {} combinations, \
         e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(4)]
    );
}

/// JoSS binds a classified job's reduces to one datacenter (its data's, cen_e). A returning
/// job's maps read data in dcA while its reduces are labelled with a partition whose only node
/// is in dcB: dcA holds no node the reduces may run on, so the binding must not keep them
/// there.
#[test]
fn joss_reduces_of_a_partition_outside_their_datacenter_still_run() {
    const NODES: [NodeSpec; 3] = [
        ("a1", "/dcA/r1", 8, 8),
        ("a2", "/dcA/r1", 8, 8),
        ("b1", "/dcB/r2", 48, 16),
    ];
    let tags = ["locus.fp=3", "locus.input-type=web"];
    let mut failed = Vec::new();
    for policy in ["joss-t", "joss-j"] {
        for exclusive in [true, false] {
            let mut c = Core::new(&props(&[
                ("locus.policy", policy),
                ("locus.slots", "static"),
            ]))
            .expect("valid settings");
            for &(host, rack, gb, vcores) in &NODES {
                add_node(&mut c, host, rack, gb, vcores);
            }
            let maps: Vec<Row> = vec![
                (20, "a1", 2, 1, 1, true),
                (20, "/dcA/r1", 2, 1, 1, true),
                (20, "*", 2, 1, 1, true),
            ];
            // A first run teaches the profile JoSS classifies the second one by.
            add_app_in(&mut c, "first", "default", "u", "wc", 0, "MAPREDUCE", &tags);
            let mut first = maps.clone();
            first.push((10, "*", 1, 1, 1, true));
            set_asks_rows(&mut c, "first", &first);
            first_round(&mut c, &[], &NODES, &mut |_| false);
            c.handle(Event::AppRemoved {
                app: "first".into(),
            })
            .unwrap();
            label(&mut c, "b1", "Y", exclusive);
            add_app_in(&mut c, "again", "default", "u", "wc", 1, "MAPREDUCE", &tags);
            key_partition(&mut c, "again", 10, "Y");
            let mut again = maps.clone();
            again.push((10, "*", 2, 1, 1, true));
            set_asks_rows(&mut c, "again", &again);
            let got = first_round(&mut c, &[], &NODES, &mut |d| {
                d.app == "again" && d.priority == 10
            });
            if got.is_none() {
                failed.push(format!(
                    "{policy}, Y exclusive={exclusive}: ({:?})",
                    c.stats().policy
                ));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "the Y reduces got nothing in {ROUNDS} rounds: {failed:#?}"
    );
}

/// (host, rack, capability) of a node that may have GPUs.
type SizedNode = (&'static str, &'static str, Resource);

/// A default-partition key that only labelled nodes fit (2 GPUs; 9 GB in memory alone): the
/// nodes it may use are a non-exclusive partition's, lent to it, and its data is on a host
/// that is not in the cluster and on /r0, a rack of default nodes too small for it. The other
/// node that fits it is either exclusive (it must never take the key) or lends too. Nothing in
/// the default partition can ever hold the key, so there is nothing to prefer over the loan:
/// under every layer combination it runs on a lent node within a few rounds of the idle
/// cluster.
#[test]
fn a_default_key_only_lent_nodes_fit_gets_one_of_them() {
    let gpus = |gb: u64, vcores: u32, gpus: u64| Resource::with_extra(gb * GB, vcores, &[gpus]);
    let nodes: [SizedNode; 10] = [
        ("h0", "/r0", gpus(4, 16, 0)),
        ("h1", "/r1", gpus(8, 8, 4)),
        ("h4", "/r0", gpus(8, 16, 1)),
        ("h5", "/r1", gpus(32, 16, 0)),
        ("h6", "/r2", gpus(4, 8, 1)),
        ("h7", "/r3", gpus(4, 8, 0)),
        ("h8", "/r0", gpus(32, 32, 0)),
        ("h9", "/r1", gpus(48, 16, 4)),
        ("h10", "/r2", gpus(48, 16, 0)),
        ("h11", "/r3", gpus(8, 16, 0)),
    ];
    // The memory shape: the lent node is the only default-usable one with 9 GB or more.
    let mut by_memory = nodes;
    for (host, _, capability) in by_memory.iter_mut() {
        *capability = match *host {
            "h1" => gpus(12, 8, 0),
            "h9" => gpus(48, 16, 0),
            _ => gpus(capability.memory_mb.min(8 * GB) / GB, capability.vcores, 0),
        };
    }
    let shapes = [
        ("2 GPUs", &nodes, gpus(8, 2, 2)),
        ("9 GB", &by_memory, Resource::new(9 * GB, 2)),
    ];
    let mut failed = Vec::new();
    for (shape, nodes, size) in shapes {
        for (app_type, h9_exclusive) in [
            ("SPARK", true),
            ("MAPREDUCE", true),
            ("SPARK", false),
            ("MAPREDUCE", false),
        ] {
            // A MapReduce job's maps (priority 20) carry the data; a Spark executor key any.
            let priority = if app_type == "MAPREDUCE" { 20 } else { 3 };
            for (combo, mut c) in combinations() {
                for &(host, rack, capability) in nodes.iter() {
                    common::add_node_as(&mut c, &node_id(host), host, rack, capability);
                }
                if h9_exclusive {
                    label(&mut c, "h9", "X", true);
                } else {
                    label(&mut c, "h9", "Y", false);
                }
                label(&mut c, "h1", "Y", false);
                add_app_in(&mut c, "app", "etl", "u", "app", 1, app_type, &[]);
                c.handle(Event::AttemptAdded {
                    app: "app".into(),
                    attempt: "appattempt_app_1".into(),
                })
                .unwrap();
                let asks = ["h12", "/r0", "*"]
                    .iter()
                    .map(|name| locus_core::Ask {
                        priority,
                        allocation_request_id: 0,
                        resource_name: (*name).into(),
                        capability: size,
                        count: 4,
                        relax_locality: true,
                    })
                    .collect();
                common::set_asks_vec(&mut c, "app", asks);
                let beats: Vec<(&str, Resource)> = nodes.iter().map(|&(h, _, r)| (h, r)).collect();
                let mut on_x = false;
                let got = first_round_sized(&mut c, &[], &beats, &mut |d| {
                    on_x |= d.node == node_id("h9");
                    d.app == "app"
                });
                assert!(
                    !(on_x && h9_exclusive),
                    "{combo}: a default-partition key ran on exclusive h9"
                );
                if got.is_none() {
                    let h9 = if h9_exclusive { "X" } else { "Y" };
                    failed.push(format!("{shape} {app_type}, h9 in {h9}: {combo}"));
                }
            }
        }
    }
    assert!(
        failed.is_empty(),
        "a default-partition key only lent nodes fit got nothing in {ROUNDS} rounds under {} \
         combinations, e.g. {:#?}",
        failed.len(),
        &failed[..failed.len().min(6)]
    );
}
