//! `Core::offers`: several node heartbeats in one call (the shim's binary offers frame) decide
//! exactly what the same heartbeats one call each decide, and an unknown node in the batch
//! costs the other nodes nothing.

mod common;

use common::{add_node, core_with, node_id, set_small_asks, GB};
use locus_core::{offers, Core, Heartbeat, Resource};

/// The default policy (fsp + delay): delay counts every offer of the batch as an opportunity,
/// as it counts every single heartbeat.
fn cluster() -> Core {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", "delay")]);
    for (i, host) in ["h1", "h2", "h3", "h4"].iter().enumerate() {
        add_node(&mut c, host, if i < 2 { "/r1" } else { "/r2" }, 4, 4);
    }
    common::add_app_named(&mut c, "app_1", "a", 1, "MAPREDUCE", &[]);
    common::add_app_named(&mut c, "app_2", "b", 2, "MAPREDUCE", &[]);
    set_small_asks(
        &mut c,
        "app_1",
        &[(20, "h3", 3), (20, "/r2", 3), (20, "*", 5)],
    );
    set_small_asks(
        &mut c,
        "app_2",
        &[(20, "h1", 2), (20, "/r1", 2), (20, "*", 6)],
    );
    c
}

fn hb(host: &str, free_gb: u64, now_ms: u64) -> Heartbeat {
    Heartbeat {
        node: node_id(host),
        unallocated: Resource::new(free_gb * GB, free_gb as u32),
        now_ms,
        sweep: false,
        eager: false,
    }
}

#[test]
fn a_batch_decides_what_the_same_heartbeats_decide_one_by_one() {
    let rounds: Vec<Vec<Heartbeat>> = (0..4)
        .map(|r| {
            ["h2", "h1", "h4", "h3"]
                .iter()
                .map(|h| hb(h, 4, 1_000 * (r + 1)))
                .collect()
        })
        .collect();
    let mut single = cluster();
    let mut batched = cluster();
    for round in &rounds {
        let mut one_by_one = Vec::new();
        for h in round {
            one_by_one.extend(single.heartbeat(h).unwrap().decisions);
        }
        let got = batched.offers(round);
        assert!(got.refused.is_empty(), "{:?}", got.refused);
        assert_eq!(got.decisions, one_by_one);
    }
    assert!(
        single.stats().decided_containers > 0,
        "the rounds decided something"
    );
    let (s, b) = (single.stats(), batched.stats());
    assert_eq!(
        (s.heartbeats, s.decisions, s.decided_containers),
        (b.heartbeats, b.decisions, b.decided_containers)
    );
}

#[test]
fn an_unknown_node_is_refused_and_the_others_still_get_their_decisions() {
    let mut c = cluster();
    let got = c.offers(&[
        hb("h1", 4, 1_000),
        hb("ghost", 4, 1_000),
        hb("h3", 4, 1_000),
    ]);
    assert_eq!(got.refused.len(), 1);
    assert_eq!(got.refused[0].node, node_id("ghost"));
    assert!(
        got.refused[0].reason.contains("ghost"),
        "{}",
        got.refused[0].reason
    );
    let nodes: Vec<&str> = got.decisions.iter().map(|d| d.node.as_str()).collect();
    assert!(
        nodes.contains(&"h1:8041") && nodes.contains(&"h3:8041"),
        "{nodes:?}"
    );
}

#[test]
fn a_decoded_frame_is_the_batch() {
    let frame = offers::encode(
        1_000,
        &[
            ("h1:8041", Resource::new(4 * GB, 4)),
            ("h3:8041", Resource::new(4 * GB, 4)),
        ],
    );
    let batch = offers::decode(&frame).unwrap();
    let mut a = cluster();
    let mut b = cluster();
    assert_eq!(
        a.offers(&batch).decisions,
        b.offers(&[hb("h1", 4, 1_000), hb("h3", 4, 1_000)])
            .decisions
    );
}
