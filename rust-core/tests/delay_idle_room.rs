//! Delay scheduling's wait when the room a key declines goes unused (issue 9, the SLS tail).
//!
//! Zaharia et al.'s case for waiting is that a skipped node goes to another job meanwhile; the
//! wait restarts at every node-local container (FSAppAttempt's rule, the paper's `skipcount =
//! 0`). When a key's data hosts keep freeing one container at a time while other nodes report
//! room nobody takes, that restart kept the key waiting for ever: at the end of a saturated SLS
//! run a few large jobs ran only where their splits were while most of the cluster idled.

mod common;

use common::{
    add_app_named, add_node, core_with, execute, heartbeat_free, props, release, summary,
};
use locus_core::{Core, Decision, Locality};

fn heartbeat(c: &mut Core, host: &str, free_gb: u64) -> Vec<Decision> {
    heartbeat_free(c, host, free_gb, free_gb as u32, 1_000)
}

/// h1..h4 on one rack, 8 GB each; `policy` and `locality` with FairScheduler's thresholds (1.0:
/// 4 missed heartbeats per level). "mr" asks for 40 maps whose splits are all on h1 and fills h1 with 8
/// of them (node-local). Returns the core and the ids of mr's containers on h1.
fn hotspot(policy: &str, locality: &str) -> (Core, Vec<String>, u32) {
    hotspot_with(&[("locus.policy", policy), ("locus.locality", locality)])
}

fn hotspot_with(settings: &[(&str, &str)]) -> (Core, Vec<String>, u32) {
    let mut c = core_with(settings);
    for h in ["h1", "h2", "h3", "h4"] {
        add_node(&mut c, h, "/r1", 8, 8);
    }
    add_app_named(&mut c, "mr", "mr", 1, "MAPREDUCE", &[]);
    common::set_small_asks(
        &mut c,
        "mr",
        &[(20, "h1", 40), (20, "/r1", 40), (20, "*", 40)],
    );
    let ds = heartbeat(&mut c, "h1", 8);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 8)]);
    let mut next = 0;
    let on_h1 = execute(&mut c, &ds, &mut next);
    (c, on_h1, next)
}

/// One heartbeat interval: one of mr's maps on h1 ends and h1 takes the next one node-local;
/// then the idle nodes h2..h4 heartbeat with 8 GB free. Returns what the idle nodes were given,
/// each decision with the ids of its containers.
fn round(c: &mut Core, on_h1: &mut Vec<String>, next: &mut u32) -> Vec<(Decision, Vec<String>)> {
    let done = on_h1.remove(0);
    release(c, "mr", &done, "h1", 1, 1);
    let ds = heartbeat(c, "h1", 1);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 1)]);
    on_h1.extend(execute(c, &ds, next));
    let mut idle_nodes_got = Vec::new();
    for h in ["h2", "h3", "h4"] {
        for d in heartbeat(c, h, 8) {
            let ids = execute(c, std::slice::from_ref(&d), next);
            idle_nodes_got.push((d, ids));
        }
    }
    idle_nodes_got
}

fn decisions(got: &[(Decision, Vec<String>)]) -> Vec<Decision> {
    got.iter().map(|(d, _)| d.clone()).collect()
}

#[test]
fn a_key_whose_data_host_frees_one_container_at_a_time_does_not_idle_the_rest_of_the_cluster() {
    for locality in ["delay", "delay-room"] {
        let (mut c, mut on_h1, mut next) = hotspot("fsp", locality);
        let mut idle_heartbeats = 0;
        let mut taken = Vec::new();
        for _ in 0..10 {
            taken = decisions(&round(&mut c, &mut on_h1, &mut next));
            if !taken.is_empty() {
                break;
            }
            idle_heartbeats += 3;
        }
        // The threshold is 4 missed heartbeats. From the second round on each idle node's room
        // has gone unused a whole interval: 4 such misses are one threshold's worth, so the key
        // relaxes within the third round.
        assert!(
            !taken.is_empty() && idle_heartbeats <= 6,
            "{locality}: h2..h4 reported 8 GB each on {idle_heartbeats} heartbeats and got \
             nothing while mr waited with {} maps for h1 (one node-local container a round)",
            40 - 8 - idle_heartbeats / 3
        );
        assert!(
            taken.iter().all(|d| d.locality == Locality::RackLocal),
            "{locality}: {:?}",
            summary(&taken)
        );
    }
}

#[test]
fn the_wait_still_restarts_when_the_declined_room_goes_to_another_job() {
    // Zaharia et al.'s case: the node mr skips is taken by a job that can use it, so waiting for
    // h1 costs the cluster nothing and mr keeps its maps node-local, as before.
    // FIFO: mr, submitted first, is offered every node before "big", whose maps may run
    // anywhere and fill what mr skips.
    let (mut c, mut on_h1, mut next) = hotspot("fifo", "delay");
    add_app_named(&mut c, "big", "big", 1, "MAPREDUCE", &[]);
    common::set_small_asks(&mut c, "big", &[(20, "*", 1_000)]);
    for _ in 0..10 {
        let got = round(&mut c, &mut on_h1, &mut next);
        assert!(
            got.iter().all(|(d, _)| d.app == "big"),
            "mr left h1 although the room it skipped was used: {:?}",
            summary(&decisions(&got))
        );
        // big's containers end within the interval, so the other nodes report room again.
        for (d, ids) in &got {
            let host = d.node.split(':').next().unwrap();
            for id in ids {
                release(&mut c, "big", id, host, 1, 1);
            }
        }
    }
}

#[test]
fn with_idle_room_off_every_container_restarts_the_wait_as_in_fairscheduler() {
    // `locus.delay.idle-room=false`: FairScheduler's rule alone (the simulator's
    // CapacityScheduler model sets it): the idle nodes stay idle while h1 feeds mr.
    let (mut c, mut on_h1, mut next) = hotspot_with(&[
        ("locus.policy", "fsp"),
        ("locus.locality", "delay"),
        ("locus.delay.idle-room", "false"),
    ]);
    for i in 0..10 {
        let got = round(&mut c, &mut on_h1, &mut next);
        assert!(got.is_empty(), "round {i}: {:?}", summary(&decisions(&got)));
    }
    let err = Core::new(&props(&[("locus.delay.idle-room", "sometimes")]))
        .err()
        .expect("a value that is not true or false is refused");
    assert!(err.to_string().contains("locus.delay.idle-room"), "{err}");
}
