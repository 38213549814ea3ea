//! Delay scheduling's level while the room a relaxed key declines goes unused (the SLS
//! tail; docs/results/sls.md "throughput at the saturating scale, the relaxed level kept").

mod common;

use common::{
    add_app_named, add_node, core_with, execute, heartbeat_free, release, set_small_asks, summary,
};
use locus_core::{Core, Decision, Locality};

fn hb(c: &mut Core, host: &str, gb: u64) -> Vec<Decision> {
    heartbeat_free(c, host, gb, gb as u32, 1_000)
}

/// h1 and h2 on /r1, h3 and h4 on /r2 (threshold 1.0: 4 misses per level). "mr" asks for 40
/// maps whose splits are all on h1 and fills h1 with 8 of them.
fn two_racks() -> (Core, Vec<String>, u32) {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", "delay")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_node(&mut c, "h2", "/r1", 8, 8);
    add_node(&mut c, "h3", "/r2", 8, 8);
    add_node(&mut c, "h4", "/r2", 8, 8);
    add_app_named(&mut c, "mr", "mr", 1, "MAPREDUCE", &[]);
    set_small_asks(
        &mut c,
        "mr",
        &[(20, "h1", 40), (20, "/r1", 40), (20, "*", 40)],
    );
    let mut next = 0;
    let ds = hb(&mut c, "h1", 8);
    let on_h1 = execute(&mut c, &ds, &mut next);
    assert_eq!(on_h1.len(), 8);
    (c, on_h1, next)
}

/// One of mr's maps on h1 ends; h1's heartbeat gives mr the room back, node-local.
fn h1_frees_one(c: &mut Core, on_h1: &mut Vec<String>, next: &mut u32) {
    let done = on_h1.remove(0);
    release(c, "mr", &done, "h1", 1, 1);
    let ds = hb(c, "h1", 1);
    assert_eq!(summary(&ds), vec![("mr".into(), Locality::NodeLocal, 1)]);
    on_h1.extend(execute(c, &ds, next));
}

/// The SLS tail after the idle count's fix (docs/results/sls.md "throughput at the saturating scale, the relaxed level kept"): a key relaxed by
/// the idle count was set back to node-local by the next container its data host freed, and
/// its idle count restarted, so it spent a whole threshold of idle misses waiting again before
/// each short spell at the looser level: with its data host freeing one container per interval,
/// it never left the host while the other rack idled.
#[test]
fn a_node_local_container_does_not_set_the_wait_back_while_declined_room_idles() {
    let (mut c, mut on_h1, mut next) = two_racks();
    let mut idle_heartbeats = 0;
    let mut taken = Vec::new();
    for _ in 0..12 {
        h1_frees_one(&mut c, &mut on_h1, &mut next);
        for h in ["h3", "h4"] {
            let ds = hb(&mut c, h, 8);
            execute(&mut c, &ds, &mut next);
            taken.extend(ds);
        }
        if !taken.is_empty() {
            break;
        }
        idle_heartbeats += 2;
    }
    // Node → rack after 4 idle misses (rounds 2 and 3), rack → any after 4 more (rounds 4 and
    // 5): h3 takes one of mr's maps off-switch in the sixth round.
    assert!(
        !taken.is_empty() && idle_heartbeats <= 10,
        "h3 and h4 reported 8 GB each on {idle_heartbeats} heartbeats and got nothing while mr \
         waited for h1 (one node-local container a round)"
    );
    assert!(
        taken.iter().all(|d| d.locality == Locality::OffSwitch),
        "{:?}",
        summary(&taken)
    );
}

/// The evidence that keeps a relaxed key relaxed is its own recent idle misses, not room some
/// node reported once: when the nodes it declined stop offering room (here they stop
/// heartbeating, as a lost NM does for the ten minutes before the RM expires it), a round of
/// the cluster's heartbeats later the next node-local container sets the key back to waiting
/// for its data, as FairScheduler's rule does.
#[test]
fn a_relaxed_key_goes_back_to_node_local_once_it_declines_no_idle_room_for_a_round() {
    let (mut c, mut on_h1, mut next) = two_racks();
    // Rounds 2 and 3 make 4 idle misses on h3 and h4: mr may go rack-local from round 4.
    for _ in 0..4 {
        h1_frees_one(&mut c, &mut on_h1, &mut next);
        for h in ["h3", "h4"] {
            let ds = hb(&mut c, h, 8);
            assert!(ds.is_empty(), "{h}: {:?}", summary(&ds));
        }
    }
    // h3 and h4 fall silent; h2 (mr's rack) is full. Two rounds of four heartbeats without an
    // idle miss of mr's, each with a node-local container on h1.
    for _ in 0..4 {
        h1_frees_one(&mut c, &mut on_h1, &mut next);
        assert!(hb(&mut c, "h2", 0).is_empty());
    }
    // mr waits for h1 again: h2's room is a first miss, not a rack-local container.
    let ds = hb(&mut c, "h2", 8);
    assert!(
        ds.is_empty(),
        "mr stayed relaxed on room h3 and h4 reported before they fell silent: {:?}",
        summary(&ds)
    );
}
