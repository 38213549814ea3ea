//! Under `locus.scheduling.mode=async` the shim's scheduling thread offers every live node with
//! room on every sweep, many times per heartbeat interval, besides each node's own heartbeat
//! (SchedulingLoop). A scheduling opportunity in the papers is a heartbeat: delay scheduling's
//! wait is `threshold × nodes` of them, matchmaking's markers one per node per heartbeat. A
//! sweep's offer (the offers frame's kind byte, `Heartbeat::sweep`) may place what the key is
//! already allowed, but must not run the wait down, or a key gives up its locality within
//! milliseconds of sweeps, before its data's node has heartbeated even once.

mod common;

use common::{add_app_named, add_node, core_with, node_id, set_small_asks, GB};
use locus_core::{offers, Core, Decision, Locality, Resource};

/// h1 and h2 in /r1, h3 in /r2; one MapReduce job with one map whose split lives on h2.
fn cluster(locality: &str) -> Core {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", locality)]);
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_node(&mut c, "h2", "/r1", 4, 4);
    add_node(&mut c, "h3", "/r2", 4, 4);
    add_app_named(&mut c, "app_1", "wordcount", 1, "MAPREDUCE", &[]);
    set_small_asks(
        &mut c,
        "app_1",
        &[(20, "h2", 1), (20, "/r1", 1), (20, "*", 1)],
    );
    c
}

/// Offers `hosts` (each with 4 GB free) through the binary offers frame, as the shim does; `sweep`
/// marks them as an async sweep's offers rather than the nodes' heartbeats.
fn offer(c: &mut Core, hosts: &[&str], sweep: bool, now_ms: u64) -> Vec<Decision> {
    offer_with_room(c, hosts, 4, sweep, now_ms)
}

fn placed(ds: &[Decision]) -> Vec<(String, Locality)> {
    ds.iter().map(|d| (d.node.clone(), d.locality)).collect()
}

#[test]
fn delay_keeps_waiting_for_the_splits_node_through_sweeps_of_other_nodes() {
    let mut c = cluster("delay");
    // 200 sweeps 5 ms apart: one second of async scheduling, less than one heartbeat interval,
    // so h2 has not heartbeated yet. Three heartbeats (threshold 1.0 x 3 nodes) would relax it.
    for sweep in 0..200u64 {
        let got = offer(&mut c, &["h1", "h3"], true, 5 * sweep);
        assert!(
            got.is_empty(),
            "sweep {sweep} placed the h2 map elsewhere before h2 heartbeated: {:?}",
            placed(&got)
        );
    }
    // A sweep offer of the split's own node places it node-local at once.
    let got = offer(&mut c, &["h2"], true, 1_000);
    assert_eq!(placed(&got), vec![(node_id("h2"), Locality::NodeLocal)]);
}

#[test]
fn delay_relaxes_after_the_threshold_in_heartbeats_and_a_sweep_then_places_at_that_level() {
    let mut c = cluster("delay");
    let mut now = 0;
    // h2 never has room. Heartbeats of h1 and h3 are the opportunities the map misses; the
    // sweeps in between are not.
    for round in 0..2u64 {
        now = 1_000 * (round + 1);
        assert!(
            offer(&mut c, &["h1"], false, now).is_empty(),
            "heartbeat {round}"
        );
        for s in 1..50 {
            let got = offer(&mut c, &["h1", "h3"], true, now + 5 * s);
            assert!(
                got.is_empty(),
                "round {round} sweep {s}: {:?}",
                placed(&got)
            );
        }
    }
    // The third missed heartbeat: the wait is over (node threshold 1.0 x 3 nodes).
    assert!(offer(&mut c, &["h3"], false, now + 500).is_empty());
    // The next offer, a sweep, may place at the level the wait reached: rack-local on h1.
    let got = offer(&mut c, &["h1"], true, now + 505);
    assert_eq!(placed(&got), vec![(node_id("h1"), Locality::RackLocal)]);
}

#[test]
fn matchmaking_markers_advance_on_heartbeats_only() {
    let mut c = cluster("matchmaking");
    for sweep in 0..200u64 {
        let got = offer(&mut c, &["h1", "h3"], true, 5 * sweep);
        assert!(
            got.is_empty(),
            "sweep {sweep} gave h1 or h3 the non-local map before either missed a heartbeat: {:?}",
            placed(&got)
        );
    }
    // h1's first heartbeat marks it; its second in a row gives it one non-local map.
    assert!(offer(&mut c, &["h1"], false, 1_000).is_empty());
    let got = offer(&mut c, &["h1"], false, 2_000);
    assert_eq!(placed(&got), vec![(node_id("h1"), Locality::RackLocal)]);
}

/// An application the shim rejected on a node (blacklisted there, say) sits out the node's next
/// heartbeat (docs: crate::state::rejections). Sweeps come every few milliseconds: if each counted as
/// that heartbeat, the app would be planned on the node again at once, rejected again, sweep
/// after sweep.
#[test]
fn a_rejected_app_sits_out_sweeps_until_the_nodes_next_heartbeat() {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", "delay")]);
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_app_named(&mut c, "app_1", "svc", 1, "YARN", &[]);
    set_small_asks(&mut c, "app_1", &[(1, "*", 1)]);
    let ds = offer(&mut c, &["h1"], false, 1_000);
    assert_eq!(ds.len(), 1);
    c.handle(locus_core::Event::DecisionRejected {
        decision: ds[0].clone(),
        executed: 0,
        reason: "node blacklisted for the app".into(),
    })
    .unwrap();
    for s in 1..50u64 {
        let got = offer(&mut c, &["h1"], true, 1_000 + 5 * s);
        assert!(
            got.is_empty(),
            "sweep {s} planned the rejected app on h1 again: {:?}",
            placed(&got)
        );
    }
    // Its next heartbeat is the one it sits out; the one after offers it again.
    assert!(offer(&mut c, &["h1"], false, 2_000).is_empty());
    assert_eq!(offer(&mut c, &["h1"], false, 3_000).len(), 1);
}

/// As [`offer`], with `free_gb` free on each node.
fn offer_with_room(
    c: &mut Core,
    hosts: &[&str],
    free_gb: u64,
    sweep: bool,
    now_ms: u64,
) -> Vec<Decision> {
    let ids: Vec<String> = hosts.iter().map(|h| node_id(h)).collect();
    let marked: Vec<(&str, Resource, bool)> = ids
        .iter()
        .map(|id| {
            (
                id.as_str(),
                Resource::new(free_gb * GB, free_gb as u32),
                sweep,
            )
        })
        .collect();
    let batch = offers::decode(&offers::encode_marked(now_ms, &marked)).expect("valid frame");
    let got = c.offers(&batch);
    assert!(got.refused.is_empty(), "{:?}", got.refused);
    got.decisions
}

/// On a busy async cluster room is found by sweeps: a container ends (an AM's release, a kill,
/// a completion the loop sees before the node's heartbeat) and the next sweep fills it, so the
/// node's own heartbeat finds it full. A heartbeat that finds no room walks no app; if only
/// such offers counted, the map waiting for h2 (always full) would miss nothing, never relax,
/// and watch the other app take every container (measured: "heartbeat-only: (true,
/// 199); sweeps: (false, 200)"). A node's heartbeat is the opportunity; the first offer of the
/// node that can place anything after it, heartbeat or sweep, is where it is missed.
#[test]
fn a_heartbeat_that_finds_the_node_full_is_missed_at_the_next_sweep_with_room() {
    for locality in ["delay", "matchmaking"] {
        let mut c = cluster(locality);
        add_app_named(&mut c, "app_2", "backlog", 2, "YARN", &[]);
        set_small_asks(&mut c, "app_2", &[(1, "*", 100_000)]);
        let mut map_placed = None;
        for round in 0..100u64 {
            let now = 1_000 * (round + 1);
            let got = offer_with_room(&mut c, &["h1", "h3"], 1, true, now);
            if got.iter().any(|d| d.app == "app_1") {
                map_placed = Some(round);
                break;
            }
            assert!(
                offer_with_room(&mut c, &["h1", "h2", "h3"], 0, false, now + 500).is_empty(),
                "{locality}: a full node placed something"
            );
        }
        assert!(
            map_placed.is_some(),
            "{locality}: the map waiting for h2 was never placed in 100 heartbeat intervals of \
             sweeps finding room on h1 and h3"
        );
    }
}

/// A heartbeat that found room and nothing waiting was an opportunity nobody missed: an ask
/// that arrives after it must not be charged for it at the next sweep (the shim's
/// SchedulingLoopTest caught the first version of the fix above doing so: the map was placed
/// away from h2 by sweeps before any node heartbeated after it asked).
#[test]
fn a_heartbeat_before_anything_waits_is_not_missed_by_later_asks() {
    let mut c = core_with(&[
        ("locus.policy", "fsp"),
        ("locus.locality", "delay"),
        ("locus.delay.node-locality-threshold", "0.3"),
    ]);
    add_node(&mut c, "h1", "/r1", 4, 4);
    add_node(&mut c, "h2", "/r1", 4, 4);
    add_node(&mut c, "h3", "/r2", 4, 4);
    assert!(offer(&mut c, &["h1", "h3"], false, 1_000).is_empty());
    add_app_named(&mut c, "app_1", "wordcount", 1, "MAPREDUCE", &[]);
    set_small_asks(
        &mut c,
        "app_1",
        &[(20, "h2", 1), (20, "/r1", 1), (20, "*", 1)],
    );
    for s in 1..50u64 {
        let got = offer(&mut c, &["h1", "h3"], true, 1_000 + 5 * s);
        assert!(got.is_empty(), "sweep {s}: {:?}", placed(&got));
    }
    // One heartbeat after the ask is the one missed opportunity the threshold allows.
    assert!(offer(&mut c, &["h1"], false, 2_000).is_empty());
    assert_eq!(offer(&mut c, &["h1"], true, 2_005).len(), 1);
}
