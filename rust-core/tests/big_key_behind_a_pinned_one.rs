//! An app whose first key can run nowhere (its rack and off-switch rows forbid relaxing, and no
//! node is where it may go) and whose later key asks for one container as big as the biggest
//! node. CapacityScheduler skips the pinned key (PRIORITY_SKIPPED) and gives the later key the
//! node: a user at or below its user limit gets one more container of whatever size. Each shape
//! runs on an idle cluster under every layer combination the settings accept, and the big key
//! must get a container within a few rounds.

mod common;

use common::{add_app_in, add_node, node_id, Row, GB};
use locus_core::{Core, Decision, Heartbeat};

/// Rounds an idle cluster may take to start work that can run (the fuzzer's
/// `QUIET_BOUND_ROUNDS`).
const ROUNDS: u32 = 10;

/// (host, rack, GB, vcores)
type NodeSpec = (&'static str, &'static str, u64, u32);

/// A 4 GB node on /r2, where the pinned key's rack row is, and an 8 GB node on /r1: 12 GB, so
/// the default queue's guarantee (60 %) and user limit are 7.2 GB, below the 8 GB container,
/// and its maximum (90 %) is above it.
const NODES: [NodeSpec; 2] = [("h2", "/r2", 4, 16), ("h4", "/r1", 8, 16)];

/// root.default (60 %, at most 90 %) and root.etl (40 %, at most 70 %) with CapacityScheduler's
/// default user limit (user-limit-factor 1, minimum-user-limit-percent 100): one user may hold
/// the queue's guarantee, and one container more.
fn tree() -> String {
    let q = |path: &str, cap: u32, max: u32| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max},"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.1,"maximum_applications":-1}}"#
        )
    };
    format!(
        r#"{{"maximum_applications":10000,"queues":[{},{},{}]}}"#,
        q("root", 100, 100),
        q("root.default", 60, 90),
        q("root.etl", 40, 70)
    )
}

/// Every combination of layers the settings accept, under both of delay's idle-room rules.
fn combinations() -> Vec<(String, Core)> {
    common::layer_combinations(("locus.capacity.tree", &tree()))
}

/// Heartbeats every node once per round with its whole capability free (containers end within
/// their round), executing the decisions. Returns the first round (1-based) in which `want`
/// held for a decision, or `None` within [`ROUNDS`].
fn first_round(c: &mut Core, want: &mut dyn FnMut(&Decision) -> bool) -> Option<u32> {
    let mut clock = 1_000_000;
    let mut next = 0u64;
    for round in 1..=ROUNDS {
        let mut ran = Vec::new();
        let mut hit = false;
        for &(host, _, gb, vcores) in &NODES {
            clock += 100;
            let ds = c
                .heartbeat(&Heartbeat {
                    node: node_id(host),
                    unallocated: locus_core::Resource::new(gb * GB, vcores),
                    now_ms: clock,
                    sweep: false,
                    eager: false,
                })
                .unwrap()
                .decisions;
            for d in &ds {
                hit |= want(d);
                for _ in 0..d.count {
                    next += 1;
                    let id = format!("container_{next}");
                    common::container_allocated(c, d, &id);
                    ran.push((d.app.clone(), id, d.node.clone(), d.capability));
                }
            }
        }
        if hit {
            return Some(round);
        }
        for (app, id, node, resource) in ran {
            common::try_release(c, &app, &id, &node, resource).unwrap();
        }
    }
    None
}

/// The pinned key asks 256 MB containers on /r2 (h2's rack) and at `*`, neither relaxing, and
/// on h5, a host no node is on; the later key asks two 8 GB containers anywhere. Only h4 holds
/// one. As a Spark app (generic tasks) and as a MapReduce job (the pinned key its failed maps'
/// priority, the big one its reduces').
#[test]
fn a_big_key_behind_a_key_that_can_run_nowhere_still_runs() {
    let mut failed = Vec::new();
    for (app_type, pinned, big) in [("SPARK", 1, 4), ("MAPREDUCE", 5, 10)] {
        let rows: [Row; 4] = [
            (pinned, "h5", 2, 0, 3, true),
            (pinned, "/r2", 2, 0, 3, false),
            (pinned, "*", 2, 0, 3, false),
            (big, "*", 2, 8, 2, true),
        ];
        for (combo, mut c) in combinations() {
            add_node(&mut c, NODES[0].0, NODES[0].1, NODES[0].2, NODES[0].3);
            add_app_in(&mut c, "app", "default", "u", "app", 1, app_type, &[]);
            c.handle(locus_core::Event::AttemptAdded {
                app: "app".into(),
                attempt: "appattempt_app_000001".into(),
            })
            .unwrap();
            add_node(&mut c, NODES[1].0, NODES[1].1, NODES[1].2, NODES[1].3);
            // 256 MB pinned containers: the rows' memory is in GB, so set them as asks directly.
            let mut asks = common::asks(&rows);
            for a in asks.iter_mut() {
                if a.priority == pinned {
                    a.capability = locus_core::Resource::new(256, 3);
                } else {
                    a.allocation_request_id = 1;
                }
            }
            common::set_asks_vec(&mut c, "app", asks);
            let got = first_round(&mut c, &mut |d| d.app == "app" && d.priority == big);
            if got.is_none() {
                failed.push(format!("{app_type}: {combo}"));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "the 8 GB key got nothing in {ROUNDS} rounds on the idle 8 GB node under {} \
         combinations, e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(4)]
    );
}
