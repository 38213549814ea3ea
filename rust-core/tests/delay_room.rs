//! `delay-room`: delay scheduling that waits only while a node holding the map's data has room
//! (docs/results/default-policy.md "A wait that pays").

mod common;

use common::{
    add_app_named, add_node, core_with, execute, heartbeat_free, set_small_asks, summary,
};
use locus_core::{Core, Decision, Locality};

fn heartbeat(c: &mut Core, host: &str, free_gb: u64) -> Vec<Decision> {
    heartbeat_free(c, host, free_gb, free_gb as u32, 1_000)
}

/// 4 nodes on one rack (FRESH's and MROSA's clusters), FairScheduler's thresholds (1.0: 4
/// misses per level). h1, where the map's blocks are, reports `h1_free_gb` before the job asks.
fn one_rack(locality: &str, h1_free_gb: u64) -> Core {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", locality)]);
    for h in ["h1", "h2", "h3", "h4"] {
        add_node(&mut c, h, "/r1", 8, 8);
    }
    assert!(heartbeat(&mut c, "h1", h1_free_gb).is_empty());
    add_app_named(&mut c, "mr", "mr", 1, "MAPREDUCE", &[]);
    set_small_asks(&mut c, "mr", &[(20, "h1", 2), (20, "/r1", 2), (20, "*", 2)]);
    c
}

#[test]
fn a_job_alone_whose_data_node_is_full_is_not_made_to_wait() {
    // Plain delay leaves h3 idle for the node threshold although h1 has no room: the wait is
    // for a container to end.
    let mut c = one_rack("delay", 0);
    assert!(heartbeat(&mut c, "h3", 8).is_empty());

    let mut c = one_rack("delay-room", 0);
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 2)]);
}

#[test]
fn a_job_whose_data_node_has_room_waits_for_its_heartbeat() {
    let mut c = one_rack("delay-room", 8);
    assert!(heartbeat(&mut c, "h3", 8).is_empty());
    let ds = heartbeat(&mut c, "h1", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 2)]);
}

#[test]
fn the_wait_resumes_when_the_data_node_reports_room_again() {
    let mut c = one_rack("delay-room", 0);
    // h1 full: mr takes h3 rack-local (one map fits the 1 GB there).
    let ds = heartbeat(&mut c, "h3", 1);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 1)]);
    execute(&mut c, &ds, &mut 0);
    // h1 reports room while mr asks for nothing...
    set_small_asks(&mut c, "mr", &[]);
    assert!(heartbeat(&mut c, "h1", 8).is_empty());
    // ...so mr's next map skips h4 to wait for h1: a rack-local container taken because no
    // data node had room does not end the node-level wait.
    set_small_asks(&mut c, "mr", &[(20, "h1", 1), (20, "/r1", 1), (20, "*", 1)]);
    assert!(heartbeat(&mut c, "h4", 8).is_empty());
    let ds = heartbeat(&mut c, "h1", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 1)]);
}

#[test]
fn the_cross_rack_wait_holds_while_a_node_in_the_data_rack_has_room() {
    // Data on h1 (full) in rack r1 where h2 has room; an idle node h3 on r2: the map waits for
    // h2 (rack-local) rather than read across racks.
    let mut c = core_with(&[("locus.locality", "delay-room")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_node(&mut c, "h4", "/r2", 8, 8);
    assert!(heartbeat(&mut c, "h1", 0).is_empty());
    assert!(heartbeat(&mut c, "h2", 8).is_empty());
    add_app_named(&mut c, "mr", "mr", 1, "MAPREDUCE", &[]);
    set_small_asks(&mut c, "mr", &[(20, "h1", 2), (20, "/r1", 2), (20, "*", 2)]);
    assert!(heartbeat(&mut c, "h3", 8).is_empty());
    let ds = heartbeat(&mut c, "h2", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 2)]);

    // The data rack full as well: nothing to wait for, the map reads across racks now.
    let mut c = core_with(&[("locus.locality", "delay-room")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    assert!(heartbeat(&mut c, "h1", 0).is_empty());
    assert!(heartbeat(&mut c, "h2", 0).is_empty());
    add_app_named(&mut c, "mr", "mr", 1, "MAPREDUCE", &[]);
    set_small_asks(&mut c, "mr", &[(20, "h1", 2), (20, "/r1", 2), (20, "*", 2)]);
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::OffSwitch, 1)]);
}

#[test]
fn a_wait_on_a_data_node_with_room_is_still_bounded_by_the_threshold() {
    // h1 keeps reporting room that never reaches mr (it reports it only to the technique):
    // after the node threshold's misses the key relaxes as delay's does.
    let mut c = one_rack("delay-room", 8);
    for _ in 0..4 {
        assert!(heartbeat(&mut c, "h3", 8).is_empty());
    }
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 2)]);
}

#[test]
fn only_the_maps_a_data_node_cannot_take_soon_go_elsewhere() {
    // h1 has room for one of mr's three maps: that one waits for h1, two take h3 now.
    let mut c = one_rack("delay-room", 1);
    set_small_asks(&mut c, "mr", &[(20, "h1", 3), (20, "/r1", 3), (20, "*", 3)]);
    let ds = heartbeat(&mut c, "h3", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::RackLocal, 2)]);
    execute(&mut c, &ds, &mut 0);
    let ds = heartbeat(&mut c, "h1", 1);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 1)]);
}
