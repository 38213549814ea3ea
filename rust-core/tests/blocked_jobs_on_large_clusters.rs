//! Liveness on a large idle cluster crowded with jobs no node can serve, under the policies
//! that pick jobs per slot or admit them (fresh, td, joss-*) with capped slot pools, and slot
//! caps in vcores when one heartbeat could place several multi-vcore maps.
//! docs/design/liveness.md: a blocker shapes no slot split and holds no admission place.

mod common;

use common::{add_app_in, add_node_as, props, set_asks_rows, try_heartbeat, try_release, Row, GB};
use locus_core::{Core, Decision, Resource};

/// (host, rack, GB, vcores)
type NodeSpec = (&'static str, &'static str, u64, u32);

/// 13 nodes, 491 GB, on two racks.
const THIRTEEN: [NodeSpec; 13] = [
    ("h0", "/r0", 48, 32),
    ("h1", "/r1", 48, 32),
    ("h2", "/r0", 48, 16),
    ("h3", "/r1", 48, 16),
    ("h4", "/r0", 48, 32),
    ("h5", "/r1", 48, 32),
    ("h6", "/r0", 48, 16),
    ("h7", "/r1", 48, 16),
    ("h8", "/r0", 32, 16),
    ("h9", "/r1", 32, 16),
    ("h10", "/r0", 32, 16),
    ("h11", "/r1", 8, 8),
    ("h12", "/r0", 3, 4),
];

fn core(policy: &str, slots: &str) -> Core {
    let mut pairs = vec![("locus.policy", policy)];
    match slots.split_once(':') {
        Some((s, share)) => {
            pairs.push(("locus.slots", s));
            pairs.push(("locus.slots.map-share", share));
        }
        None => pairs.push(("locus.slots", slots)),
    }
    Core::new(&props(&pairs)).expect("valid settings")
}

fn add_nodes(c: &mut Core, nodes: &[NodeSpec]) {
    for &(host, rack, gb, vcores) in nodes {
        add_node_as(
            c,
            &format!("{host}:1"),
            host,
            rack,
            Resource::new(gb * GB, vcores),
        );
    }
}

fn add_mr(c: &mut Core, app: &str, submit_ms: u64) {
    add_app_in(c, app, "default", "u", app, submit_ms, "MAPREDUCE", &[]);
}

/// A running container: (app, id, node, resource).
type Running = (String, String, String, Resource);

/// Heartbeats every node once per round, executing each decision; containers of apps in
/// `keep` stay running (their AMs), the others end at the end of their round. Returns, per
/// round, the decisions made.
fn rounds(
    c: &mut Core,
    nodes: &[NodeSpec],
    n: u32,
    clock: &mut u64,
    kept: &mut Vec<Running>,
    keep: &dyn Fn(&Decision) -> bool,
) -> Vec<Vec<Decision>> {
    let mut out = Vec::new();
    for _ in 0..n {
        *clock += 1_000;
        let mut got = Vec::new();
        let mut ending = Vec::new();
        for &(host, _, gb, vcores) in nodes {
            let node = format!("{host}:1");
            let used = kept
                .iter()
                .filter(|k| k.2 == node)
                .fold(Resource::ZERO, |s, k| {
                    Resource::new(s.memory_mb + k.3.memory_mb, s.vcores + k.3.vcores)
                });
            let free = Resource::new(
                gb * GB - used.memory_mb.min(gb * GB),
                vcores - used.vcores.min(vcores),
            );
            let ds = try_heartbeat(c, &node, free, *clock).unwrap();
            for d in &ds {
                for _ in 0..d.count {
                    let id = format!(
                        "c{}",
                        *clock * 100 + got.len() as u64 + ending.len() as u64 + kept.len() as u64
                    );
                    common::container_allocated(c, d, &id);
                    let r = (d.app.clone(), id, d.node.clone(), d.capability);
                    if keep(d) {
                        kept.push(r);
                    } else {
                        ending.push(r);
                    }
                }
            }
            got.extend(ds);
        }
        for (app, id, node, resource) in ending {
            try_release(c, &app, &id, &node, resource).unwrap();
        }
        out.push(got);
    }
    out
}

/// The blocked jobs' map rows: 1 TB relaxable maps, or maps pinned (relax_locality=false at
/// the rack and `*`) to hosts no NodeManager runs on.
fn blocked_maps(i: usize) -> Vec<Row<'static>> {
    const ABSENT: [&str; 4] = ["h100", "h101", "h102", "h103"];
    let host = ABSENT[i % ABSENT.len()];
    let prio = [20, 19, 5][i % 3];
    if i % 2 == 0 {
        vec![
            (prio, host, 4, 1024, 1, true),
            (prio, "/r0", 4, 1024, 1, true),
            (prio, "*", 4, 1024, 1, true),
        ]
    } else {
        vec![
            (prio, host, 3, 2, 1, true),
            (prio, "/r1", 3, 2, 1, false),
            (prio, "*", 3, 2, 1, false),
        ]
    }
}

/// FRESH, TD and JoSS with every capped slot layer: an app's three 1 GB reduces (priority 10)
/// on 13 idle nodes, while eight other jobs (AMs running) hold only maps no node can serve,
/// some of them beside reduces of their own. The reduces must run at once: a blocker takes
/// no pick, no admission place and no share of a slot split.
#[test]
fn reduces_run_on_a_large_idle_cluster_beside_jobs_no_node_can_serve() {
    let mut failed = Vec::new();
    for policy in ["fresh", "td", "joss-t", "joss-j"] {
        for slots in ["static:0.5", "fresh-static", "fresh-dynamic"] {
            if slots == "fresh-dynamic" && policy != "fresh" {
                continue;
            }
            for history in [false, true] {
                let mut c = core(policy, slots);
                add_nodes(&mut c, &THIRTEEN);
                let mut clock = 0;
                let mut kept = Vec::new();
                let is_am = |d: &Decision| d.priority == 0;
                // Every job's AM first, kept running, as on a real cluster.
                let jobs: Vec<String> = (0..8).map(|i| format!("blocked{i}")).collect();
                for (i, j) in jobs.iter().enumerate() {
                    add_mr(&mut c, j, i as u64);
                    set_asks_rows(&mut c, j, &[(0, "*", 1, 1, 1, true)]);
                }
                add_mr(&mut c, "reducer", 100);
                set_asks_rows(&mut c, "reducer", &[(0, "*", 1, 1, 1, true)]);
                rounds(&mut c, &THIRTEEN, 3, &mut clock, &mut kept, &is_am);
                let ams = kept.len();
                if history {
                    // The reducer's maps ran and ended before its reduces were asked.
                    set_asks_rows(
                        &mut c,
                        "reducer",
                        &[
                            (20, "h3", 6, 1, 1, true),
                            (20, "/r1", 6, 1, 1, true),
                            (20, "*", 6, 1, 1, true),
                        ],
                    );
                    rounds(&mut c, &THIRTEEN, 3, &mut clock, &mut kept, &is_am);
                }
                for (i, j) in jobs.iter().enumerate() {
                    let mut rows = blocked_maps(i);
                    if i % 3 == 1 {
                        rows.push((10, "*", 2, 1, 1, true));
                    }
                    set_asks_rows(&mut c, j, &rows);
                }
                set_asks_rows(&mut c, "reducer", &[(10, "*", 3, 1, 1, true)]);
                let got = rounds(&mut c, &THIRTEEN, 100, &mut clock, &mut kept, &is_am);
                let first = got
                    .iter()
                    .position(|ds| ds.iter().any(|d| d.app == "reducer" && d.priority == 10))
                    .map(|r| r + 1);
                let blocked: u32 = got
                    .iter()
                    .flatten()
                    .filter(|d| d.app != "reducer" && d.priority != 10)
                    .map(|d| d.count)
                    .sum();
                if ams != 9 || blocked > 0 || first.is_none_or(|r| r > 2) {
                    failed.push(format!(
                        "{policy} + {slots}{}: {ams} AMs running; the reduces first ran in round {first:?} of 100; {blocked} containers for blocked maps",
                        if history { ", maps ran before" } else { "" }
                    ));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// A static map pool capped in vcores: maps hold 29 of its 32 vcores, and one heartbeat is
/// offered two maps (4 and 2 vcores, priorities 19 and 5, of two jobs) that fit the node's
/// room but not both the pool's: at most the 2 vcore one may start.
#[test]
fn one_heartbeat_keeps_a_vcore_capped_map_pool_within_its_cap() {
    // 2 nodes of 64 GB / 32 vcores: map-share 0.5 caps maps at 64 GB and 32 vcores.
    const NODES: [NodeSpec; 2] = [("h0", "/r0", 64, 32), ("h1", "/r0", 64, 32)];
    let mut failed = Vec::new();
    for policy in [
        "fifo", "fair", "fsp", "capacity", "fresh", "td", "joss-t", "joss-j", "mrosa",
    ] {
        for order in [false, true] {
            let mut c = core(policy, "static:0.5");
            add_nodes(&mut c, &NODES);
            let mut clock = 0;
            let mut kept = Vec::new();
            let keep = |_: &Decision| true;
            // One job's maps take 29 vcores on h1 (1 GB each), held running.
            add_mr(&mut c, "filler", 0);
            set_asks_rows(&mut c, "filler", &[(20, "*", 29, 1, 1, true)]);
            for _ in 0..40 {
                rounds(&mut c, &NODES[1..], 1, &mut clock, &mut kept, &keep);
                if kept.iter().map(|k| k.3.vcores).sum::<u32>() >= 29 {
                    break;
                }
            }
            let held: u32 = kept.iter().map(|k| k.3.vcores).sum();
            let (a, b) = if order {
                ("big", "small")
            } else {
                ("small", "big")
            };
            add_mr(&mut c, a, 10);
            add_mr(&mut c, b, 11);
            let rows = |name: &str| -> Vec<Row<'static>> {
                if name == "big" {
                    vec![(19, "*", 1, 2, 4, true)]
                } else {
                    vec![(5, "*", 1, 2, 2, true)]
                }
            };
            set_asks_rows(&mut c, a, &rows(a));
            set_asks_rows(&mut c, b, &rows(b));
            let got = rounds(&mut c, &NODES[..1], 1, &mut clock, &mut kept, &keep);
            let placed: u32 = got[0]
                .iter()
                .filter(|d| d.app == "big" || d.app == "small")
                .map(|d| d.count * d.capability.vcores)
                .sum();
            if held + placed > 32 {
                failed.push(format!(
                    "{policy} (big asked {}): {held} vcores of maps running, one heartbeat placed {placed} more against a cap of 32: {:?}",
                    if order { "first" } else { "second" },
                    got[0].iter().map(|d| (&d.app, d.priority, d.count, d.capability)).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// dcA: two 4 GB nodes holding a job's data; dcB: one 48 GB node.
const SMALL_DC_BIG_NODE: [NodeSpec; 3] = [
    ("a1", "/dcA/r1", 4, 4),
    ("a2", "/dcA/r1", 4, 4),
    ("b1", "/dcB/r2", 48, 16),
];

/// A recurring job on [`SMALL_DC_BIG_NODE`]: a first run with `first` asks teaches its profile
/// (filtering percentage 3: reduce-heavy) and is removed after 30 rounds; the job comes back as
/// "again" with `again` asks. Returns the decisions of the second run's 30 rounds.
fn returning_job(
    c: &mut Core,
    first: &[Row<'static>],
    again: &[Row<'static>],
) -> Vec<Vec<Decision>> {
    let tags = ["locus.fp=3", "locus.input-type=web"];
    let (mut clock, mut kept) = (0, Vec::new());
    let none = |_: &Decision| false;
    let mut got = Vec::new();
    for (run, (app, rows)) in [("first", first), ("again", again)].into_iter().enumerate() {
        add_app_in(c, app, "default", "u", "wc", run as u64, "MAPREDUCE", &tags);
        set_asks_rows(c, app, rows);
        got = rounds(c, &SMALL_DC_BIG_NODE, 30, &mut clock, &mut kept, &none);
        if run == 0 {
            c.handle(locus_core::Event::AppRemoved { app: app.into() })
                .unwrap();
        }
    }
    got
}

/// JoSS binds a classified job's reduces to one datacenter (cen_e, or policy A's least loaded
/// one). When no node of that datacenter can ever hold a reduce (its nodes are all smaller),
/// the reduces must still run on a node that can: a datacenter that cannot serve them is a
/// blocker's place, not a wait.
#[test]
fn joss_reduces_bound_to_a_datacenter_that_cannot_hold_them_still_run() {
    let mut failed = Vec::new();
    for policy in ["joss-t", "joss-j"] {
        for maps in [1, 3] {
            let mut c = core(policy, "static");
            add_nodes(&mut c, &SMALL_DC_BIG_NODE);
            let first: Vec<Row> = vec![
                (20, "a1", maps, 1, 1, true),
                (20, "/dcA/r1", maps, 1, 1, true),
                (20, "*", maps, 1, 1, true),
            ];
            let mut again = first.clone();
            again.push((10, "*", 2, 8, 1, true));
            let got = returning_job(&mut c, &first, &again);
            let maps_ran: u32 = got
                .iter()
                .flatten()
                .filter(|d| d.priority == 20)
                .map(|d| d.count)
                .sum();
            let first = got
                .iter()
                .position(|ds| ds.iter().any(|d| d.priority == 10))
                .map(|r| r + 1);
            if maps_ran != maps || first.is_none_or(|r| r > 3) {
                failed.push(format!(
                    "{policy}, {maps} maps: {maps_ran} maps ran; the 8 GB reduces first ran in round {first:?} of 30 ({:?})",
                    c.stats().policy
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// JoSS queues a job's map tasks at the datacenter holding their data (Fig. 4). When no node of
/// that datacenter can ever hold one of the job's maps (its nodes are all smaller), the maps
/// must still run on a node that can: the data's datacenter is then a blocker's place, as for
/// the reduces above (fuzz/findings/starvation-joss-maps-queued-at-a-datacenter-of-small-nodes.json).
#[test]
fn joss_maps_whose_data_sits_on_nodes_too_small_for_them_still_run() {
    let mut failed = Vec::new();
    for policy in ["joss-t", "joss-j"] {
        for slots in ["static", "fresh-static"] {
            for maps in [1, 3] {
                let mut c = core(policy, slots);
                add_nodes(&mut c, &SMALL_DC_BIG_NODE);
                // The first run is small enough for dcA; the second asks 8 GB maps over the
                // same data.
                let rows = |gb: u64| -> Vec<Row<'static>> {
                    ["a1", "a2", "/dcA/r1", "*"]
                        .into_iter()
                        .map(|at| (20, at, maps, gb, 1, true))
                        .collect()
                };
                let got = returning_job(&mut c, &rows(1), &rows(8));
                let first = got
                    .iter()
                    .position(|ds| ds.iter().any(|d| d.app == "again"))
                    .map(|r| r + 1);
                if first.is_none_or(|r| r > 3) {
                    failed.push(format!(
                        "{policy} {slots}, {maps} maps: the 8 GB maps first ran in round {first:?} of 30 ({:?})",
                        c.stats().policy
                    ));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// TD and JoSS count a node's idle map slots in the smallest map container; a blocker's map
/// (1 GB but 4 vcores, pinned to a rack no node is on) must not be that size: on a 2-vcore
/// node it counted no slot, so no job got a pick and another job's 4 GB / 2 vcore maps, which
/// fit the node exactly, never ran (fuzz/findings/starvation-joss-slots-sized-by-a-blocker.json).
#[test]
fn a_map_no_node_can_serve_does_not_size_the_picking_policies_slots() {
    const NODE: [NodeSpec; 1] = [("h4", "/dc5/r20", 4, 2)];
    let mut failed = Vec::new();
    for policy in ["td", "joss-t", "joss-j"] {
        let mut c = core(policy, "static");
        add_nodes(&mut c, &NODE);
        add_mr(&mut c, "blocked", 0);
        set_asks_rows(
            &mut c,
            "blocked",
            &[
                (20, "h100", 6, 1, 4, true),
                (20, "/r9", 6, 1, 4, true),
                (20, "*", 6, 1, 4, false),
            ],
        );
        add_mr(&mut c, "fits", 1);
        set_asks_rows(
            &mut c,
            "fits",
            &[
                (20, "h1", 3, 4, 2, true),
                (20, "/dc4/r16", 3, 4, 2, true),
                (20, "*", 3, 4, 2, true),
            ],
        );
        let (mut clock, mut kept) = (0, Vec::new());
        let got = rounds(&mut c, &NODE, 10, &mut clock, &mut kept, &|_: &Decision| {
            false
        });
        let first = got
            .iter()
            .position(|ds| ds.iter().any(|d| d.app == "fits"))
            .map(|r| r + 1);
        if first.is_none_or(|r| r > 2) {
            failed.push(format!(
                "{policy}: the 4 GB / 2 vcore maps first ran in round {first:?} of 10"
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
