//! Size-based preemption (`locus.preemption.size-based`) through the core's API, as the shim
//! drives it: under `fsp` (and `fair`) a small job that arrives while big jobs hold the cluster
//! gets room back from the job latest in the order, marked first and killed once
//! `max_wait_before_kill` has passed; AM containers are never taken; with the key off nothing is.

mod common;

use locus_core::preemption::PreemptionSettings;
use locus_core::Core;

const NODES: usize = 2;
/// 32 GB in all: CapacityScheduler's AM share (10 %) starts three 1 GB AMs.
const NODE_GB: u64 = 16;

fn host(i: usize) -> String {
    format!("h{i}")
}

/// The RM's side: which container runs where, for which application, and the clock.
struct Cluster {
    /// (container, app, host, is the app's AM)
    running: Vec<(String, String, String, bool)>,
    next_id: u32,
    now_ms: u64,
}

impl Cluster {
    fn new(c: &mut Core) -> Cluster {
        for i in 0..NODES {
            common::add_node(c, &host(i), "/r1", NODE_GB, NODE_GB as u32);
        }
        Cluster {
            running: Vec::new(),
            next_id: 0,
            now_ms: 0,
        }
    }

    /// One heartbeat of every node, a second apart from the last round.
    fn beat(&mut self, c: &mut Core) {
        self.now_ms += 1_000;
        for i in 0..NODES {
            let h = host(i);
            let used = self.running.iter().filter(|r| r.2 == h).count() as u64;
            let free = NODE_GB - used;
            let ds = common::heartbeat_free(c, &h, free, free as u32, self.now_ms);
            let mut ids = common::execute(c, &ds, &mut self.next_id).into_iter();
            for d in &ds {
                for _ in 0..d.count {
                    self.running.push((
                        ids.next().unwrap(),
                        d.app.clone(),
                        h.clone(),
                        d.priority == 0,
                    ));
                }
            }
        }
    }

    /// The RM kills `ids` (the shim's preempted-container path ends in a release).
    fn kill(&mut self, c: &mut Core, ids: &[String]) {
        for id in ids {
            let i = self.running.iter().position(|r| &r.0 == id).unwrap();
            let (id, app, h, _) = self.running.remove(i);
            common::release(c, &app, &id, &h, 1, 1);
        }
    }

    fn held(&self, app: &str) -> usize {
        self.running.iter().filter(|r| r.1 == app).count()
    }

    fn app_of(&self, id: &str) -> &str {
        &self.running.iter().find(|r| r.0 == id).unwrap().1
    }

    fn is_am(&self, id: &str) -> bool {
        self.running.iter().find(|r| r.0 == id).unwrap().3
    }
}

fn core(policy: &str, on: bool) -> Core {
    common::core_with(&[
        ("locus.policy", policy),
        ("locus.locality", "hadoop"),
        (
            "locus.preemption.size-based",
            if on { "true" } else { "false" },
        ),
    ])
}

/// A job of `n` 1 GB tasks that runs its own AM in a 1 GB container first (a Spark-style app:
/// priority 0 while it runs nothing is its AM).
fn job(c: &mut Core, cl: &mut Cluster, id: &str, submit_ms: u64, n: u32) {
    common::add_app_in(c, id, "default", "u", id, submit_ms, "SPARK", &[]);
    common::set_small_asks(c, id, &[(0, "*", 1)]);
    cl.beat(c);
    common::set_small_asks(c, id, &[(1, "*", n)]);
}

fn settings() -> PreemptionSettings {
    PreemptionSettings {
        monitoring_interval_ms: 1000,
        max_wait_before_kill_ms: 3000,
        total_preemption_per_round: 0.25,
        ..PreemptionSettings::default()
    }
}

/// Runs rounds (with node heartbeats between them) until `small` holds `want` containers or
/// `rounds` have passed; the rounds it took, or `None`.
fn rounds_until(
    c: &mut Core,
    cl: &mut Cluster,
    small: &str,
    want: usize,
    rounds: usize,
) -> Option<usize> {
    let s = settings();
    for k in 1..=rounds {
        let r = c.preemption_round(cl.now_ms, &s);
        for id in r.selected.iter() {
            assert!(!cl.is_am(id), "{id}, an AM container, chosen");
            assert_ne!(cl.app_of(id), small, "the job held back lost {id}");
        }
        cl.kill(c, &r.kill);
        cl.beat(c);
        if cl.held(small) >= want {
            return Some(k);
        }
    }
    None
}

/// Two big jobs fill the cluster; a 3-task job arrives.
fn small_behind_big(policy: &str, on: bool) -> (Core, Cluster) {
    let mut c = core(policy, on);
    let mut cl = Cluster::new(&mut c);
    // big1 is the smaller: ahead of big2 in the virtual finish order.
    job(&mut c, &mut cl, "big1", 1, 20);
    job(&mut c, &mut cl, "big2", 2, 100);
    cl.beat(&mut c);
    cl.beat(&mut c);
    assert_eq!(
        cl.held("big1") + cl.held("big2"),
        2 * NODE_GB as usize,
        "the big jobs fill the cluster"
    );
    common::add_app_in(&mut c, "small", "default", "u", "small", 50, "SPARK", &[]);
    common::set_small_asks(&mut c, "small", &[(0, "*", 1)]);
    cl.beat(&mut c);
    (c, cl)
}

#[test]
fn under_fsp_a_small_job_behind_big_ones_gets_its_room_back_in_bounded_rounds() {
    let (mut c, mut cl) = small_behind_big("fsp", true);
    // Its AM: marked in the first round, killed max_wait_before_kill (3 rounds) later.
    let k = rounds_until(&mut c, &mut cl, "small", 1, 6).expect("the small job's AM starts");
    assert!(k <= 5, "{k} rounds");
    common::set_small_asks(&mut c, "small", &[(1, "*", 3)]);
    let k = rounds_until(&mut c, &mut cl, "small", 4, 6).expect("its three tasks start");
    assert!(k <= 5, "{k} rounds");
    // Nothing more is taken once it has what it asked for.
    let r = c.preemption_round(cl.now_ms + 10_000, &settings());
    assert!(r.selected.is_empty(), "{:?}", r.selected);
}

#[test]
fn under_fsp_the_room_comes_from_the_job_latest_in_the_order() {
    let (mut c, cl) = small_behind_big("fsp", true);
    let r = c.preemption_round(cl.now_ms, &settings());
    assert!(!r.selected.is_empty());
    for id in &r.selected {
        assert_eq!(cl.app_of(id), "big2", "{id}");
    }
}

#[test]
fn with_the_key_off_nothing_is_taken_and_the_small_job_waits() {
    let (mut c, mut cl) = small_behind_big("fsp", false);
    assert_eq!(rounds_until(&mut c, &mut cl, "small", 1, 8), None);
    assert_eq!(cl.held("small"), 0);
}

#[test]
fn under_fair_a_new_job_gets_its_fair_share_back() {
    let (mut c, mut cl) = small_behind_big("fair", true);
    rounds_until(&mut c, &mut cl, "small", 1, 6).expect("its AM starts");
    common::set_small_asks(&mut c, "small", &[(1, "*", 10)]);
    // Three jobs on 8 GB: a fair share of 2 GB (2 containers; 8/3 rounded down per job).
    rounds_until(&mut c, &mut cl, "small", 2, 12).expect("its fair share");
    // The big jobs keep theirs: each still holds at least its share.
    assert!(cl.held("big1") >= 2 && cl.held("big2") >= 2);
}

#[test]
fn am_containers_are_never_taken_even_when_nothing_else_is_left() {
    let mut c = core("fsp", true);
    let mut cl = Cluster::new(&mut c);
    job(&mut c, &mut cl, "big", 1, 100);
    cl.beat(&mut c);
    assert_eq!(cl.held("big"), 2 * NODE_GB as usize);
    common::add_app_in(&mut c, "small", "default", "u", "small", 50, "SPARK", &[]);
    common::set_small_asks(&mut c, "small", &[(0, "*", 1)]);
    rounds_until(&mut c, &mut cl, "small", 1, 6).expect("its AM starts");
    // It asks for the rest of the cluster, still less than the big job has left: every task of
    // the big job is taken, never its AM.
    common::set_small_asks(&mut c, "small", &[(1, "*", 2 * NODE_GB as u32 - 1)]);
    rounds_until(&mut c, &mut cl, "small", 2 * NODE_GB as usize - 1, 40)
        .expect("all but the big job's AM");
    assert_eq!(cl.held("big"), 1);
    assert!(cl.running.iter().any(|r| r.1 == "big" && r.3));
    let r = c.preemption_round(cl.now_ms + 100_000, &settings());
    assert!(r.selected.is_empty(), "{:?}", r.selected);
}

#[test]
fn the_key_is_refused_outside_fsp_and_fair_naming_it() {
    for policy in ["capacity", "fifo", "td"] {
        let mut p = common::props(&[
            ("locus.policy", policy),
            ("locus.preemption.size-based", "true"),
        ]);
        if policy == "capacity" {
            p.insert("locus.capacity.queues".into(), "a:50:100,b:50:100".into());
        }
        let e = Core::new(&p).err().expect(policy).to_string();
        assert!(e.contains("locus.preemption.size-based"), "{policy}: {e}");
    }
    let p = common::props(&[("locus.preemption.size-based", "maybe")]);
    let e = Core::new(&p).err().expect("a bad value").to_string();
    assert!(
        e.contains("locus.preemption.size-based") && e.contains("maybe"),
        "{e}"
    );
}

#[test]
fn under_capacity_a_round_still_keeps_every_queue_at_its_guarantee() {
    // The key cannot be on there; the queues' own rounds run as before: a fills the cluster,
    // b asks for more than its guarantee, and a is taken down to its half, no further.
    let mut c = common::core_with(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "a:50:100,b:50:100"),
    ]);
    let mut cl = Cluster::new(&mut c);
    common::add_app_in(&mut c, "a1", "a", "u", "a1", 1, "SPARK", &[]);
    common::set_small_asks(&mut c, "a1", &[(1, "*", 100)]);
    cl.beat(&mut c);
    assert_eq!(cl.held("a1"), 2 * NODE_GB as usize);
    common::add_app_in(&mut c, "b1", "b", "u", "b1", 2, "SPARK", &[]);
    common::set_small_asks(&mut c, "b1", &[(1, "*", 100)]);
    let s = PreemptionSettings {
        total_preemption_per_round: 1.0,
        natural_termination_factor: 1.0,
        ..settings()
    };
    for k in 0..20 {
        let r = c.preemption_round(cl.now_ms + k * 1000, &s);
        cl.kill(&mut c, &r.kill);
        cl.beat(&mut c);
    }
    assert_eq!(cl.held("a1"), NODE_GB as usize, "a keeps its guarantee");
    assert_eq!(cl.held("b1"), NODE_GB as usize);
}
