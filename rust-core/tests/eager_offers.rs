//! Under `heartbeat` mode the shim's scheduling thread also offers live nodes with room when
//! asks arrive or containers are released, marked as eager offers (the offers frame's kind 2,
//! `Heartbeat::eager`): they place only the keys that gain nothing from waiting for a node's
//! heartbeat (an ask naming no host or rack, or a key whose locality wait already let it go
//! anywhere), and they are not scheduling opportunities, so a map still waiting for its data
//! is left to the heartbeats that count its wait.

mod common;

use common::{add_app_named, add_node, core_with, node_id, set_small_asks, GB};
use locus_core::{offers, Core, Decision, Locality, Resource};

/// h1 and h2 in /r1, h3 in /r2; a MapReduce job whose one map's split lives on h2, and a
/// DistributedShell-like app asking for one container anywhere.
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

/// Offers `hosts` (4 GB free each) through the binary offers frame with offer kind `kind`.
fn offer(c: &mut Core, hosts: &[&str], kind: u8, now_ms: u64) -> Vec<Decision> {
    let ids: Vec<String> = hosts.iter().map(|h| node_id(h)).collect();
    let marked: Vec<(&str, Resource, u8)> = ids
        .iter()
        .map(|id| (id.as_str(), Resource::new(4 * GB, 4), kind))
        .collect();
    let batch = offers::decode(&offers::encode_kinds(now_ms, &marked)).expect("valid frame");
    let got = c.offers(&batch);
    assert!(got.refused.is_empty(), "{:?}", got.refused);
    got.decisions
}

fn placed(ds: &[Decision]) -> Vec<(String, String, Locality)> {
    ds.iter()
        .map(|d| (d.app.clone(), d.node.clone(), d.locality))
        .collect()
}

#[test]
fn an_eager_offer_places_an_ask_naming_no_host_and_not_a_map_in_its_wait() {
    for locality in ["delay", "matchmaking", "hadoop"] {
        let mut c = cluster(locality);
        add_app_named(&mut c, "app_2", "shell", 2, "YARN", &[]);
        set_small_asks(&mut c, "app_2", &[(1, "*", 1)]);
        let got = offer(&mut c, &["h1", "h2", "h3"], offers::KIND_EAGER, 1_000);
        assert_eq!(
            placed(&got),
            vec![("app_2".into(), node_id("h1"), Locality::OffSwitch)],
            "{locality}: the eager offer must place the ask naming no host, and only it"
        );
        // The map waits for a heartbeat, even of its own split's node.
        let got = offer(&mut c, &["h2"], offers::KIND_EAGER, 1_005);
        assert!(got.is_empty(), "{locality}: {:?}", placed(&got));
        let got = offer(&mut c, &["h2"], offers::KIND_HEARTBEAT, 2_000);
        assert_eq!(
            placed(&got),
            vec![("app_1".into(), node_id("h2"), Locality::NodeLocal)],
            "{locality}"
        );
    }
}

#[test]
fn eager_offers_do_not_run_the_wait_down_and_place_a_key_once_it_is_relaxed() {
    let mut c = cluster("delay");
    // 200 eager offers of the nodes not holding the split: not opportunities, nothing placed.
    for s in 0..200u64 {
        let got = offer(&mut c, &["h1", "h3"], offers::KIND_EAGER, 5 * s);
        assert!(got.is_empty(), "eager offer {s}: {:?}", placed(&got));
    }
    // Three missed heartbeats of h3 (node threshold 1.0 x 3 nodes) let the map go rack-local,
    // which is still a wait: h1's eager offer leaves it.
    for beat in 1..=3u64 {
        assert!(offer(&mut c, &["h3"], offers::KIND_HEARTBEAT, 1_000 * beat).is_empty());
    }
    let got = offer(&mut c, &["h1"], offers::KIND_EAGER, 3_005);
    assert!(got.is_empty(), "rack-local is a wait: {:?}", placed(&got));
    // Three more missed heartbeats of h3 (rack threshold) and nothing is left to wait for: the
    // next eager offer places the map off its rack.
    for beat in 4..=6u64 {
        assert!(offer(&mut c, &["h3"], offers::KIND_HEARTBEAT, 1_000 * beat).is_empty());
    }
    let got = offer(&mut c, &["h3"], offers::KIND_EAGER, 6_005);
    assert_eq!(
        placed(&got),
        vec![("app_1".into(), node_id("h3"), Locality::OffSwitch)]
    );
}
