//! Liveness: a job that could run on an idle node gets a container within a bounded
//! number of heartbeats, whatever the layers, even while another job that cannot run (its map
//! is bigger than every node, or it insists on a host the cluster does not have) sits in front
//! of it. docs/design/liveness.md states the bound per layer and why.

mod common;

use common::{add_app_in, add_node_as, core_with, set_asks_rows, try_heartbeat, try_release, GB};
use locus_core::{Core, Decision, Resource};

/// A node of the test cluster: (host, rack, GB).
type NodeSpec = (&'static str, &'static str, u64);

fn add_nodes(c: &mut Core, nodes: &[NodeSpec]) {
    for &(host, rack, gb) in nodes {
        add_node_as(
            c,
            &format!("{host}:1"),
            host,
            rack,
            Resource::new(gb * GB, gb as u32),
        );
    }
}

fn add_mr(c: &mut Core, app: &str, submit_ms: u64) {
    add_app_in(c, app, "default", "u", app, submit_ms, "MAPREDUCE", &[]);
}

/// Blockers that can never run on the test clusters (hosts h1..h4 on /r1, /r2, at most 16 GB).
#[derive(Clone, Copy, Debug)]
enum Blocker {
    /// One 64 GB map, relaxable, with data on a host that is not in the cluster.
    TooBig,
    /// Eight 1 GB maps (a node's worth) that must run on host `h9`, which the cluster lacks.
    StrictHost,
}

fn add_blocker(c: &mut Core, app: &str, blocker: Blocker) {
    add_mr(c, app, 0);
    match blocker {
        Blocker::TooBig => set_asks_rows(
            c,
            app,
            &[
                (20, "h9", 1, 64, 1, true),
                (20, "/r9", 1, 64, 1, true),
                (20, "*", 1, 64, 1, true),
            ],
        ),
        Blocker::StrictHost => set_asks_rows(
            c,
            app,
            &[
                (20, "h9", 8, 1, 1, true),
                (20, "/r9", 8, 1, 1, false),
                (20, "*", 8, 1, 1, false),
            ],
        ),
    }
}

/// `maps` relaxable 1 GB maps whose data is on host h8 (rack /r8), so every node of the test
/// clusters can only run them non-locally.
fn add_runnable(c: &mut Core, app: &str, maps: u32) {
    add_mr(c, app, 1_000);
    set_asks_rows(
        c,
        app,
        &[
            (20, "h8", maps, 1, 1, true),
            (20, "/r8", maps, 1, 1, true),
            (20, "*", maps, 1, 1, true),
        ],
    );
}

/// Heartbeats every node idle once per round for `rounds` rounds, executing each decision and
/// releasing its containers at the end of the round (the nodes are idle at every heartbeat).
/// Returns, per round, the decisions made.
fn idle_rounds(c: &mut Core, nodes: &[NodeSpec], rounds: u32) -> Vec<Vec<Decision>> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for round in 1..=rounds {
        let now_ms = 1_000 * round as u64;
        let mut got = Vec::new();
        let mut running = Vec::new();
        for &(host, _, gb) in nodes {
            let node = format!("{host}:1");
            let ds = try_heartbeat(c, &node, Resource::new(gb * GB, gb as u32), now_ms).unwrap();
            for d in &ds {
                for _ in 0..d.count {
                    next += 1;
                    let id = format!("c{next}");
                    common::container_allocated(c, d, &id);
                    running.push((d.app.clone(), id, d.node.clone(), d.capability));
                }
            }
            got.extend(ds);
        }
        for (app, id, node, resource) in running {
            try_release(c, &app, &id, &node, resource).unwrap();
        }
        out.push(got);
    }
    out
}

/// The first round (1-based) in which `app` got a container, if any.
fn first_served(rounds: &[Vec<Decision>], app: &str) -> Option<usize> {
    rounds
        .iter()
        .position(|ds| ds.iter().any(|d| d.app == app && d.count > 0))
        .map(|i| i + 1)
}

const ONE_NODE: [NodeSpec; 1] = [("h1", "/r1", 8)];

#[test]
fn matchmaking_gives_its_non_local_map_to_a_job_that_can_use_it() {
    for policy in ["fifo", "fair", "capacity", "fresh", "mrosa"] {
        for blocker in [Blocker::TooBig, Blocker::StrictHost] {
            let mut c = core_with(&[("locus.policy", policy), ("locus.locality", "matchmaking")]);
            add_nodes(&mut c, &ONE_NODE);
            add_blocker(&mut c, "blocker", blocker);
            add_runnable(&mut c, "runnable", 1);
            let rounds = idle_rounds(&mut c, &ONE_NODE, 60);
            let served = first_served(&rounds, "runnable");
            // Matchmaking: a first miss idles the node, the second gives one non-local map.
            assert!(
                served.is_some_and(|r| r <= 2),
                "{policy}, {blocker:?}: the runnable job's map was first placed in round {served:?} of 60"
            );
            assert_eq!(first_served(&rounds, "blocker"), None);
        }
    }
}

#[test]
fn td_gives_a_pick_its_job_cannot_use_to_a_job_that_can() {
    // TD picks a job per free map slot; the strict job's eight maps (all on host h9, which the
    // cluster does not have) took every pick of every heartbeat.
    let mut c = core_with(&[("locus.policy", "td")]);
    add_nodes(&mut c, &ONE_NODE);
    add_mr(&mut c, "strict", 0);
    set_asks_rows(
        &mut c,
        "strict",
        &[
            (20, "h9", 8, 1, 1, true),
            (20, "/r9", 8, 1, 1, false),
            (20, "*", 8, 1, 1, false),
        ],
    );
    add_runnable(&mut c, "five", 5);
    let rounds = idle_rounds(&mut c, &ONE_NODE, 60);
    let served = first_served(&rounds, "five");
    let got: u32 = rounds
        .iter()
        .flatten()
        .filter(|d| d.app == "five")
        .map(|d| d.count)
        .sum();
    assert_eq!(
        (served, got),
        (Some(1), 5),
        "the five 1 GB maps: first ran in round {served:?}, {got} of 5 ran in 60 rounds"
    );
}

/// A MapReduce job with `maps` maps of `map_gb` and `reduces` 1 GB reduces outstanding at once
/// (slowstart 0), all relaxable at `*`.
fn add_job(c: &mut Core, app: &str, submit_ms: u64, maps: u32, map_gb: u64, reduces: u32) {
    add_mr(c, app, submit_ms);
    let mut rows = vec![(20, "*", maps, map_gb, 1, true)];
    if reduces > 0 {
        rows.push((10, "*", reduces, 1, 1, true));
    }
    set_asks_rows(c, app, &rows);
}

const BIG_AND_SMALL: [NodeSpec; 2] = [("h1", "/r1", 16), ("h2", "/r1", 8)];

#[test]
fn fresh_static_leaves_room_for_one_map_bigger_than_its_share() {
    let mut c = core_with(&[("locus.policy", "fifo"), ("locus.slots", "fresh-static")]);
    add_nodes(&mut c, &BIG_AND_SMALL);
    add_job(&mut c, "big-maps", 0, 2, 16, 0);
    let rounds = idle_rounds(&mut c, &BIG_AND_SMALL, 10);
    let served = first_served(&rounds, "big-maps");
    assert_eq!(
        served,
        Some(1),
        "a 16 GB map on an idle 16 GB node first ran in round {served:?}"
    );
}

#[test]
fn fresh_dynamic_runs_the_small_reduce_next_to_big_maps() {
    let mut c = core_with(&[("locus.policy", "fresh"), ("locus.slots", "fresh-dynamic")]);
    add_nodes(&mut c, &BIG_AND_SMALL);
    // 20 big maps keep the map phase going for the whole test; the reduce (slowstart 0) is
    // outstanding from the start, as MapReduce asks for it early.
    add_job(&mut c, "job", 0, 20, 16, 1);
    let rounds = idle_rounds(&mut c, &BIG_AND_SMALL, 60);
    let reduces: u32 = rounds
        .iter()
        .flatten()
        .filter(|d| d.priority == 10)
        .map(|d| d.count)
        .sum();
    let maps: u32 = rounds
        .iter()
        .flatten()
        .filter(|d| d.priority == 20)
        .map(|d| d.count)
        .sum();
    assert!(maps > 0, "no map ran");
    assert_eq!(
        reduces, 1,
        "the 1 GB reduce ran {reduces} times in 60 rounds ({maps} maps ran)"
    );
}

#[test]
fn fresh_admission_does_not_hold_a_slot_for_a_job_that_fits_no_node() {
    let mut c = core_with(&[("locus.policy", "fresh"), ("locus.fresh.k", "1")]);
    add_nodes(&mut c, &ONE_NODE);
    add_job(&mut c, "too-big", 0, 3, 64, 0);
    add_job(&mut c, "small", 1_000, 3, 1, 0);
    let rounds = idle_rounds(&mut c, &ONE_NODE, 60);
    let served = first_served(&rounds, "small");
    assert_eq!(
        served,
        Some(1),
        "the small job's maps first ran in round {served:?} of 60"
    );
}

/// FRESH judges whether a job's maps fit some node when the job asks; the cluster can change
/// after that. A job admitted while a big node was there (or before any node registered, as
/// after an RM restart) must leave admission control once its maps fit no node, or it holds
/// one of the `k` places and its own reduces wait for a map phase that never ends
/// (fuzz/findings/starvation-fresh-reduces-behind-unrunnable-maps.json).
#[test]
fn fresh_readmits_when_the_nodes_change_under_an_admitted_job() {
    const SMALL: [NodeSpec; 1] = [("h2", "/r1", 8)];
    // The 16 GB node leaves after the job with 16 GB maps was admitted.
    let mut c = core_with(&[("locus.policy", "fresh"), ("locus.fresh.k", "1")]);
    add_nodes(&mut c, &BIG_AND_SMALL);
    add_job(&mut c, "big", 0, 3, 16, 2);
    add_job(&mut c, "small", 1_000, 3, 1, 0);
    c.handle(locus_core::Event::NodeRemoved {
        node: "h1:1".into(),
    })
    .unwrap();
    let rounds = idle_rounds(&mut c, &SMALL, 30);
    let small = first_served(&rounds, "small");
    let reduces: u32 = rounds
        .iter()
        .flatten()
        .filter(|d| d.app == "big" && d.priority == 10)
        .map(|d| d.count)
        .sum();
    assert_eq!(
        (small, reduces),
        (Some(1), 2),
        "after the big node left: the small job first ran in round {small:?}, the big job ran {reduces} of its 2 reduces in 30 rounds"
    );

    // The job asked before any node registered; the only node that joins is too small.
    let mut c = core_with(&[("locus.policy", "fresh"), ("locus.slots", "fresh-static")]);
    add_job(&mut c, "big", 0, 3, 16, 2);
    add_nodes(&mut c, &SMALL);
    let rounds = idle_rounds(&mut c, &SMALL, 30);
    let reduces = first_served(&rounds, "big");
    assert_eq!(
        reduces,
        Some(1),
        "a job whose maps fit no node that joined later first ran a reduce in round {reduces:?} of 30"
    );
}

// ---- the bound, for every accepted combination of layers --------------------------------

const FOUR_NODES: [NodeSpec; 4] = [
    ("h1", "/r1", 8),
    ("h2", "/r1", 8),
    ("h3", "/r2", 8),
    ("h4", "/r2", 8),
];

/// Heartbeats (of idle nodes, in turn, one node per heartbeat) until `app` got a container,
/// at most `max`.
fn heartbeats_until_served(c: &mut Core, nodes: &[NodeSpec], app: &str, max: u32) -> Option<u32> {
    let mut next = 0u32;
    for beat in 1..=max {
        let (host, _, gb) = nodes[(beat as usize - 1) % nodes.len()];
        let node = format!("{host}:1");
        let ds = try_heartbeat(
            c,
            &node,
            Resource::new(gb * GB, gb as u32),
            1_000 * beat as u64,
        )
        .unwrap();
        let mut served = false;
        for d in &ds {
            for _ in 0..d.count {
                next += 1;
                let id = format!("c{next}");
                common::container_allocated(c, d, &id);
                try_release(c, &d.app, &id, &d.node, d.capability).unwrap();
            }
            served |= d.app == app;
        }
        if served {
            return Some(beat);
        }
    }
    None
}

/// docs/design/liveness.md's bound for a map that is non-local on every node, in heartbeats of idle
/// nodes, with `n` nodes heartbeating in turn and delay's thresholds `t_node`, `t_rack`.
fn bound(locality: &str, n: u32, t_node: f64, t_rack: f64) -> u32 {
    match locality {
        "hadoop" => 1,
        // ceil(t_node·n) misses to relax to rack, ceil(t_rack·n) more to relax to any, then 1.
        // delay-room relaxes no later than delay: the same bound.
        "delay" | "delay-room" => {
            (t_node * n as f64).ceil() as u32 + (t_rack * n as f64).ceil() as u32 + 1
        }
        // The node's own first miss marks it; its second heartbeat gives the non-local map.
        "matchmaking" => n + 1,
        other => panic!("no bound for {other}"),
    }
}

#[test]
fn a_runnable_job_gets_a_container_within_the_bound_under_every_combination() {
    let _ = env_logger::builder().is_test(true).try_init();
    use locus_core::config::{HotspotKind, JobPolicyKind, LocalityKind, SlotsKind};
    let mut ran = 0;
    let mut late: Vec<String> = Vec::new();
    for policy in JobPolicyKind::ALLOWED {
        for locality in LocalityKind::ALLOWED {
            for hotspot in HotspotKind::ALLOWED {
                for slots in SlotsKind::ALLOWED.iter().copied().chain(["static:0.5"]) {
                    for blocker in [Blocker::TooBig, Blocker::StrictHost] {
                        let (slots, share) = match slots.split_once(':') {
                            Some((s, share)) => (s, share),
                            None => (slots, ""),
                        };
                        let settings = [
                            ("locus.policy", *policy),
                            ("locus.locality", *locality),
                            ("locus.hotspot", *hotspot),
                            ("locus.slots", slots),
                            ("locus.slots.map-share", share),
                        ];
                        let combo = format!("{settings:?} {blocker:?}");
                        let Ok(mut c) = Core::new(&common::props(&settings)) else {
                            continue;
                        };
                        add_nodes(&mut c, &FOUR_NODES);
                        add_blocker(&mut c, "blocker", blocker);
                        add_runnable(&mut c, "runnable", 3);
                        let limit = bound(locality, FOUR_NODES.len() as u32, 1.0, 1.0);
                        let got = heartbeats_until_served(&mut c, &FOUR_NODES, "runnable", 200);
                        if got.is_none_or(|b| b > limit) {
                            late.push(format!(
                                "{combo}: served after {got:?} heartbeats (bound {limit})"
                            ));
                        }
                        ran += 1;
                    }
                }
            }
        }
    }
    assert!(
        late.is_empty(),
        "{} of {ran} late:\n{}",
        late.len(),
        late.join("\n")
    );
    // 8 policies; TD and JoSS only with hadoop locality; fresh-dynamic only under fresh.
    assert!(ran >= 2 * 100, "ran {ran}");
}

// ---- a burst of submissions --------------------------------------------------------------

/// A stream of MapReduce jobs, each driven as its AM would: a 1.5 GB AM first; once it runs,
/// `maps` maps of `map_gb`; when they are done, `reduces` reduces of `reduce_gb`; then the AM
/// ends. Every task runs for one round.
#[derive(Clone, Copy)]
struct Shape {
    jobs: u32,
    /// Jobs submitted per round (0: all before the first round).
    per_round: u32,
    maps: u32,
    map_gb: u64,
    reduces: u32,
    reduce_gb: u64,
}

/// Runs `shape` on `nodes`; returns the round the last job finished in, or who was left.
fn drive(c: &mut Core, nodes: &[NodeSpec], shape: Shape, rounds: u32) -> Result<u32, String> {
    add_nodes(c, nodes);
    let am = locus_core::Ask {
        priority: 0,
        allocation_request_id: 0,
        resource_name: "*".into(),
        capability: Resource::new(1536, 1),
        count: 1,
        relax_locality: true,
    };
    let mut submitted = 0u32;
    let mut left: Vec<String> = Vec::new();
    // (app, container, node, resource, priority)
    let mut running: Vec<(String, String, String, Resource, i32)> = Vec::new();
    let mut done: std::collections::BTreeMap<(String, i32), u32> = Default::default();
    let mut next = 0u32;
    for round in 1..=rounds {
        let arrivals = if shape.per_round == 0 {
            shape.jobs
        } else {
            shape.per_round
        };
        for _ in 0..arrivals.min(shape.jobs - submitted) {
            let app = format!("job{submitted}");
            add_mr(c, &app, round as u64 * 1_000 + submitted as u64);
            common::set_asks_vec(c, &app, vec![am.clone()]);
            left.push(app);
            submitted += 1;
        }
        // Tasks started last round end now.
        let (ended, kept): (Vec<_>, Vec<_>) = running.into_iter().partition(|r| r.4 != 0);
        running = kept;
        for (app, id, node, res, priority) in ended {
            try_release(c, &app, &id, &node, res).unwrap();
            *done.entry((app, priority)).or_default() += 1;
        }
        for app in left.clone() {
            let maps_done = done.get(&(app.clone(), 20)).copied().unwrap_or(0);
            let reduces_done = done.get(&(app.clone(), 10)).copied().unwrap_or(0);
            if maps_done < shape.maps {
                continue;
            }
            if reduces_done < shape.reduces {
                if maps_done == shape.maps && reduces_done == 0 {
                    let pending = c
                        .state()
                        .app_by_id(&app)
                        .map_or(0, |a| a.asks.pending_containers());
                    if pending == 0 {
                        let rows = [(10, "*", shape.reduces, shape.reduce_gb, 1, true)];
                        set_asks_rows(c, &app, &rows);
                    }
                }
                continue;
            }
            let am = running.iter().position(|r| r.0 == app).unwrap();
            let (_, id, node, res, _) = running.remove(am);
            try_release(c, &app, &id, &node, res).unwrap();
            c.handle(locus_core::Event::AppRemoved { app: app.clone() })
                .unwrap();
            left.retain(|a| *a != app);
        }
        if left.is_empty() && submitted == shape.jobs {
            return Ok(round);
        }
        for &(host, _, gb) in nodes {
            let node = format!("{host}:1");
            let here = running.iter().filter(|r| r.2 == node);
            let (used, vcores) = here.fold((0, 0), |(m, v), r| (m + r.3.memory_mb, v + r.3.vcores));
            let free = Resource::new(gb * GB - used, gb as u32 - vcores);
            let ds = try_heartbeat(c, &node, free, 1_000 * round as u64).unwrap();
            for d in &ds {
                for _ in 0..d.count {
                    next += 1;
                    let id = format!("c{next}");
                    common::container_allocated(c, d, &id);
                    running.push((d.app.clone(), id, d.node.clone(), d.capability, d.priority));
                    if d.priority == 0 {
                        // The AM registers and asks for its maps.
                        let rows = [(20, "*", shape.maps, shape.map_gb, 1, true)];
                        set_asks_rows(c, &d.app, &rows);
                    }
                }
            }
        }
    }
    Err(format!(
        "{} jobs unfinished after {rounds} rounds: {left:?}",
        left.len()
    ))
}

fn burst(
    c: &mut Core,
    nodes: &[NodeSpec],
    jobs: u32,
    maps: u32,
    rounds: u32,
) -> Result<u32, String> {
    let shape = Shape {
        jobs,
        per_round: 0,
        maps,
        map_gb: 1,
        reduces: 0,
        reduce_gb: 1,
    };
    drive(c, nodes, shape, rounds)
}

/// The simulator's stall (`--workload synthetic --jobs 2000 --nodes 100 --mean-gap-ms 1000`
/// under mrosa: "no task started or finished for 3600 s of simulated time; 1691 jobs
/// unfinished") in small: 30 jobs submitted at once on two 8 GB nodes. A policy that starts
/// every waiting AM first fills the nodes with 1.5 GB AMs, and the 1 GB maps they ask for
/// never find room.
#[test]
fn a_burst_of_submissions_does_not_fill_the_cluster_with_ams() {
    let mut stalled = Vec::new();
    for policy in locus_core::config::JobPolicyKind::ALLOWED {
        let mut c = core_with(&[("locus.policy", policy)]);
        match burst(&mut c, &[("h1", "/r1", 8), ("h2", "/r1", 8)], 30, 4, 300) {
            Ok(round) => assert!(round <= 60, "{policy}: the burst took {round} rounds"),
            Err(e) => stalled.push(format!("{policy}: {e}")),
        }
    }
    assert!(stalled.is_empty(), "{}", stalled.join("\n"));
}

/// More work arriving than the cluster finishes: two jobs per round on four 8 GB nodes, each
/// with three 2 GB maps and two 4 GB reduces. Ordering AMs behind the tasks is not enough: the
/// AMs that came later still took every gap the 4 GB reduces could not use, until the nodes held
/// AMs and nothing else ("40 jobs unfinished after 400 rounds" under td, joss-t and joss-j,
/// 53 under fresh). The AM share bounds them.
#[test]
fn an_overloaded_stream_does_not_end_with_only_ams_running() {
    let nodes: [NodeSpec; 4] = [
        ("h1", "/r1", 8),
        ("h2", "/r1", 8),
        ("h3", "/r1", 8),
        ("h4", "/r1", 8),
    ];
    let shape = Shape {
        jobs: 60,
        per_round: 2,
        maps: 3,
        map_gb: 2,
        reduces: 2,
        reduce_gb: 4,
    };
    let mut stalled = Vec::new();
    for policy in locus_core::config::JobPolicyKind::ALLOWED {
        let mut c = core_with(&[("locus.policy", policy)]);
        match drive(&mut c, &nodes, shape, 400) {
            Ok(round) => assert!(round <= 120, "{policy}: the stream took {round} rounds"),
            Err(e) => stalled.push(format!("{policy}: {e}")),
        }
    }
    assert!(stalled.is_empty(), "{}", stalled.join("\n"));
}

/// Matchmaking's marker counts a node's local maps as work the node can take; a job policy or slot
/// layer can hold those maps back (here CapacityScheduler's maximum-capacity: the queue may hold
/// 4 GB and the local map wants 6 GB of the 8 GB node). Such maps must not keep the node from
/// ever missing, or no other job gets the non-local map the node owes after two misses
/// (the fuzzer's starvation, fuzz/findings/starvation-matchmaking-held-local-maps.json).
#[test]
fn matchmaking_local_maps_held_back_by_the_job_policy_do_not_starve_other_jobs() {
    for slots in ["static", "fresh-static"] {
        let mut c = core_with(&[
            ("locus.policy", "capacity"),
            ("locus.capacity.queues", "default:50:50,etl:50"),
            ("locus.locality", "matchmaking"),
            ("locus.slots", slots),
        ]);
        add_nodes(&mut c, &ONE_NODE);
        add_mr(&mut c, "held", 0);
        set_asks_rows(
            &mut c,
            "held",
            &[
                (20, "h1", 4, 6, 1, true),
                (20, "/r1", 4, 6, 1, true),
                (20, "*", 4, 6, 1, true),
            ],
        );
        add_runnable(&mut c, "runnable", 30);
        let rounds = idle_rounds(&mut c, &ONE_NODE, 60);
        let served = first_served(&rounds, "runnable");
        assert!(
            served.is_some_and(|r| r <= 2),
            "{slots}: the runnable job's map was first placed in round {served:?} of 60"
        );
        // While no local map can run there the node gives one non-local map at least every
        // second heartbeat (a heartbeat that ran nothing is a miss, the next gives the map).
        let got: u32 = rounds
            .iter()
            .flatten()
            .filter(|d| d.app == "runnable")
            .map(|d| d.count)
            .sum();
        assert!(
            got >= 29,
            "{slots}: the runnable job got {got} of its 30 maps in 60 rounds"
        );
        assert_eq!(first_served(&rounds, "held"), None);
    }
}

/// A core where node h1 (8 GB, /r1) holds the local maps of `held` back (its queue may hold 4 GB,
/// each map wants 6 GB), so matchmaking's first heartbeats of h1 are misses; `older` and `newer`
/// sit in the other queue, submitted in that order.
fn matchmaking_with_held_local_maps() -> Core {
    let mut c = core_with(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "default:50:50,etl:50"),
        ("locus.locality", "matchmaking"),
    ]);
    add_nodes(&mut c, &ONE_NODE);
    add_mr(&mut c, "held", 0);
    set_asks_rows(
        &mut c,
        "held",
        &[
            (20, "h1", 4, 6, 1, true),
            (20, "/r1", 4, 6, 1, true),
            (20, "*", 4, 6, 1, true),
        ],
    );
    add_app_in(&mut c, "older", "etl", "u", "older", 100, "MAPREDUCE", &[]);
    add_app_in(&mut c, "newer", "etl", "u", "newer", 200, "MAPREDUCE", &[]);
    c
}

fn heartbeat_h1(c: &mut Core, gb: u64, now_ms: u64, next: &mut u32) -> Vec<Decision> {
    let ds = try_heartbeat(c, "h1:1", Resource::new(gb * GB, gb as u32), now_ms).unwrap();
    for d in &ds {
        for _ in 0..d.count {
            *next += 1;
            common::container_allocated(c, d, &format!("c{next}"));
        }
    }
    ds
}

/// Until 4f5589e a node that owed a non-local map kept owing while a local map could
/// run on it, and an older job's non-local map took its one free slot at every heartbeat ahead
/// of the newer job's local map (the paper never gives a non-local task while a local one can run).
#[test]
fn matchmaking_runs_a_local_map_that_can_run_before_non_local_ones() {
    let mut c = matchmaking_with_held_local_maps();
    set_asks_rows(
        &mut c,
        "older",
        &[
            (20, "h8", 9, 1, 1, true),
            (20, "/r8", 9, 1, 1, true),
            (20, "*", 9, 1, 1, true),
        ],
    );
    let mut next = 0;
    // Two idle heartbeats: the held maps make the first a miss, the second gives `older` its
    // non-local map.
    for round in 1..=2 {
        heartbeat_h1(&mut c, 8, 1_000 * round, &mut next);
    }
    set_asks_rows(
        &mut c,
        "newer",
        &[
            (20, "h1", 1, 1, 1, true),
            (20, "/r1", 1, 1, 1, true),
            (20, "*", 1, 1, 1, true),
        ],
    );
    // Now h1 has room for one 1 GB map at each heartbeat.
    let mut got = Vec::new();
    for round in 3..=5 {
        got.push(heartbeat_h1(&mut c, 1, 1_000 * round, &mut next));
    }
    let served = got
        .iter()
        .position(|ds| ds.iter().any(|d| d.app == "newer"))
        .map(|i| i + 1);
    assert!(
        served.is_some_and(|h| h <= 2),
        "newer's local map first ran at heartbeat {served:?} of 3 with one slot: {got:?}"
    );
}

/// Nine maps of `gb` GB and `vcores` vcores each for `app`, whose data is on h8: h1 can run
/// them only non-locally.
fn maps_on_h8(c: &mut Core, app: &str, gb: u64, vcores: u32) {
    set_asks_rows(
        c,
        app,
        &[
            (20, "h8", 9, gb, vcores, true),
            (20, "/r8", 9, gb, vcores, true),
            (20, "*", 9, gb, vcores, true),
        ],
    );
}

/// Ten idle heartbeats of h1, each with one reduce of `stream` (ahead of `older` in the queue's
/// order, `gb` GB and `vcores` vcores) placed before the maps, released after the heartbeat when
/// `release`. Returns the first heartbeat (1-based) that ran a map of `older`, and every
/// heartbeat's decisions.
fn older_beside_a_reduce_stream(
    c: &mut Core,
    gb: u64,
    vcores: u32,
    release: bool,
) -> (Option<usize>, Vec<Vec<Decision>>) {
    add_app_in(c, "stream", "etl", "u", "stream", 50, "MAPREDUCE", &[]);
    let mut next = 0;
    let mut got = Vec::new();
    for round in 1..=10 {
        set_asks_rows(c, "stream", &[(10, "*", 1, gb, vcores, true)]);
        let ds = heartbeat_h1(c, 8, 1_000 * round, &mut next);
        if release {
            for d in ds.iter().filter(|d| d.app == "stream") {
                for n in (next + 1 - d.count)..=next {
                    try_release(c, "stream", &format!("c{n}"), "h1:1", d.capability).unwrap();
                }
            }
        }
        got.push(ds);
    }
    let served = got
        .iter()
        .position(|ds| ds.iter().any(|d| d.app == "older"))
        .map(|i| i + 1);
    (served, got)
}

/// Until e6c6a01 a heartbeat that placed anything was judged afresh, so a stream of
/// work no locality wait holds (reduces, AMs, asks on `*` only) placing on the node at every
/// heartbeat kept its held local maps counted and no job got the node's non-local map until
/// that stream ran out. Only maps placed there (local or not) count as the node's use now.
#[test]
fn matchmaking_work_on_star_only_does_not_keep_held_maps_counted() {
    let mut c = matchmaking_with_held_local_maps();
    maps_on_h8(&mut c, "older", 1, 1);
    // One 1 GB reduce at each heartbeat, leaving room.
    let (served, _) = older_beside_a_reduce_stream(&mut c, 1, 1, false);
    assert!(
        served.is_some_and(|h| h <= 3),
        "older's non-local map first ran at heartbeat {served:?} of 10 while `stream` placed at each"
    );
}

/// Until 76e5bda the miss needed room for a held map itself, so `*`-only work that left
/// less room than the held map but room for another job's map kept the held maps counted and
/// that job waiting. The room asked for now is the smallest map any job could run there.
#[test]
fn matchmaking_room_left_for_some_map_is_enough_for_a_miss() {
    let mut c = matchmaking_with_held_local_maps();
    maps_on_h8(&mut c, "older", 1, 1);
    // One 3 GB reduce at each heartbeat: 5 GB left, less than a held map.
    let (served, got) = older_beside_a_reduce_stream(&mut c, 3, 1, true);
    assert!(
        served.is_some_and(|h| h <= 3),
        "older's non-local map first ran at heartbeat {served:?} of 10: {got:?}"
    );
}

/// Until c5f212d the room asked for was the map with the least memory, whatever its
/// vcores, so room short of vcores for that map but enough for another job's was no miss.
#[test]
fn matchmaking_room_left_for_some_map_counts_vcores_too() {
    let mut c = matchmaking_with_held_local_maps();
    maps_on_h8(&mut c, "older", 2, 1);
    add_app_in(&mut c, "wide", "etl", "u", "wide", 150, "MAPREDUCE", &[]);
    maps_on_h8(&mut c, "wide", 1, 2);
    // A 3 GB, 7-vcore reduce at each heartbeat: 5 GB and 1 vcore left, room for `older`'s map
    // (2 GB, 1 vcore) but not for `wide`'s (1 GB, 2 vcores) or a held one.
    let (served, got) = older_beside_a_reduce_stream(&mut c, 3, 7, true);
    assert!(
        served.is_some_and(|h| h <= 3),
        "older's non-local map first ran at heartbeat {served:?} of 10: {got:?}"
    );
}

/// A job waiting for AM room is not activated (no policy orders it) until an AM finishes;
/// then it is activated and given its AM, under every job policy. Its asks stay outstanding
/// all along, so nothing but activation can hold it.
#[test]
fn a_job_waiting_for_am_room_starts_when_an_am_finishes() {
    let nodes: &[NodeSpec] = &[("h1", "/r1", 8)];
    for policy in [
        "fifo", "fair", "fsp", "capacity", "td", "joss-t", "joss-j", "fresh", "mrosa",
    ] {
        let mut c = core_with(&[("locus.policy", policy)]);
        add_nodes(&mut c, nodes);
        add_mr(&mut c, "first", 0);
        set_asks_rows(&mut c, "first", &[(0, "*", 1, 4, 1, true)]);
        add_mr(&mut c, "second", 1);
        set_asks_rows(&mut c, "second", &[(0, "*", 1, 4, 1, true)]);
        let node = "h1:1";
        let mut free = Resource::new(8 * GB, 8);
        let ds = try_heartbeat(&mut c, node, free, 1_000).unwrap();
        assert_eq!(ds.len(), 1, "{policy}: {ds:?}");
        assert_eq!(ds[0].app, "first", "{policy}");
        c.handle(common::allocated_event(&ds[0], "am_first"))
            .unwrap();
        free = Resource::new(4 * GB, 7);
        // The first job runs a map; the second's AM would take half the cluster in AMs.
        set_asks_rows(&mut c, "first", &[(20, "*", 1, 1, 1, true)]);
        for t in 0..5u64 {
            let ds = try_heartbeat(&mut c, node, free, 2_000 + t * 1_000).unwrap();
            assert!(ds.iter().all(|d| d.app != "second"), "{policy}: {ds:?}");
        }
        assert_eq!(c.stats().apps_awaiting_activation, 1, "{policy}");
        try_release(&mut c, "first", "am_first", node, Resource::new(4 * GB, 1)).unwrap();
        c.handle(locus_core::Event::AppRemoved {
            app: "first".into(),
        })
        .unwrap();
        free = Resource::new(8 * GB, 8);
        let mut started = None;
        for t in 0..20u64 {
            let ds = try_heartbeat(&mut c, node, free, 10_000 + t * 1_000).unwrap();
            if ds.iter().any(|d| d.app == "second" && d.priority == 0) {
                started = Some(t);
                break;
            }
        }
        assert!(
            started.is_some(),
            "{policy}: the waiting job never got its AM"
        );
        assert_eq!(c.stats().apps_awaiting_activation, 0, "{policy}");
    }
}

/// Heartbeats `nodes` in turn for `rounds` rounds as the RM does: a node's containers that have
/// run `life` rounds end at its own heartbeat, just before it is offered, and its room is what
/// its running containers leave. Returns, per round, the decisions made.
fn rounds_with_running(
    c: &mut Core,
    nodes: &[NodeSpec],
    rounds: u32,
    life: u32,
) -> Vec<Vec<Decision>> {
    let mut out = Vec::new();
    let mut next = 0u32;
    // (app, container, node, resource, round it ends)
    let mut running: Vec<(String, String, String, Resource, u32)> = Vec::new();
    for round in 1..=rounds {
        let mut got = Vec::new();
        for &(host, _, gb) in nodes {
            let node = format!("{host}:1");
            let (done, keep): (Vec<_>, Vec<_>) = running
                .into_iter()
                .partition(|(_, _, n, _, end)| *n == node && *end <= round);
            running = keep;
            for (app, id, n, resource, _) in done {
                try_release(c, &app, &id, &n, resource).unwrap();
            }
            let used = running
                .iter()
                .filter(|(_, _, n, _, _)| *n == node)
                .fold(Resource::ZERO, |u, r| {
                    Resource::new(u.memory_mb + r.3.memory_mb, u.vcores + r.3.vcores)
                });
            let free = Resource::new(gb * GB - used.memory_mb, gb as u32 - used.vcores);
            let ds = try_heartbeat(c, &node, free, 1_000 * round as u64).unwrap();
            for d in &ds {
                for _ in 0..d.count {
                    next += 1;
                    let id = format!("c{next}");
                    common::container_allocated(c, d, &id);
                    running.push((
                        d.app.clone(),
                        id,
                        d.node.clone(),
                        d.capability,
                        round + life,
                    ));
                }
            }
            got.extend(ds);
        }
        out.push(got);
    }
    out
}

/// fuzz/findings/starvation-fair-delay-room-fresh-static-pool.json: a map pool with room
/// for one map of `first` (3 GB of a 4 GB pool) frees only at the heartbeat of the node that map
/// ran on, where `first`, holding nothing at that instant, ties with `second` and wins on
/// submission order; at the other node's heartbeats `second` ranks first but its 4 GB map does
/// not fit the 1 GB the pool has left. `second` waited for the whole of `first`'s map phase
/// with node h2 idle throughout.
#[test]
fn a_slot_pool_freed_at_one_node_goes_to_the_job_it_held_back_at_another() {
    const TWO_4GB: [NodeSpec; 2] = [("h1", "/r1", 4), ("h2", "/r2", 4)];
    let mut failed = Vec::new();
    for policy in ["fair", "fsp"] {
        for slots in [
            &[("locus.slots", "fresh-static")][..],
            &[("locus.slots", "static"), ("locus.slots.map-share", "0.5")][..],
        ] {
            let mut props = vec![("locus.policy", policy)];
            props.extend_from_slice(slots);
            let mut c = core_with(&props);
            add_nodes(&mut c, &TWO_4GB);
            add_job(&mut c, "first", 0, 30, 3, 0);
            add_job(&mut c, "second", 1_000, 2, 4, 0);
            let rounds = rounds_with_running(&mut c, &TWO_4GB, 40, 3);
            let served = first_served(&rounds, "second");
            // The pool's one map ends within `life` rounds; its room must then reach `second`.
            if served.is_none_or(|r| r > 5) {
                failed.push(format!(
            "{policy} {slots:?}: second's 4 GB map was first placed in round {served:?} of 40; first got {} maps",
            rounds.iter().flatten().filter(|d| d.app == "first").map(|d| d.count).sum::<u32>()
        ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The room a pool keeps for the key it held back (the previous test) is released when that
/// key's node leaves: nothing would heartbeat there to end the wait, and a key that can run
/// only there would keep the pool's room from every other job for good.
#[test]
fn a_slot_pool_waiter_ends_when_its_node_leaves() {
    let mut c = core_with(&[
        ("locus.policy", "fair"),
        ("locus.slots", "static"),
        ("locus.slots.map-share", "0.5"),
    ]);
    let three = [("h1", "/r1", 4), ("h2", "/r2", 4), ("h3", "/r3", 4)];
    add_nodes(&mut c, &three);
    add_job(&mut c, "first", 0, 30, 3, 0);
    add_mr(&mut c, "second", 1_000);
    set_asks_rows(
        &mut c,
        "second",
        &[
            (20, "h2", 2, 4, 1, true),
            (20, "/r2", 2, 4, 1, false),
            (20, "*", 2, 4, 1, false),
        ],
    );
    let full = Resource::new(4 * GB, 4);
    // h1: `first`'s 3 GB map takes 3 of the pool's 6 GB; h2: `second`'s 4 GB map, which can
    // run only there, is held back by the pool alone, so the pool keeps room for it.
    let ds = try_heartbeat(&mut c, "h1:1", full, 1_000).unwrap();
    assert!(
        ds.len() == 1 && ds[0].app == "first" && ds[0].count == 1,
        "{ds:?}"
    );
    common::container_allocated(&mut c, &ds[0], "c1");
    let ds = try_heartbeat(&mut c, "h2:1", full, 1_000).unwrap();
    assert!(ds.is_empty(), "the pool has 3 GB left: {ds:?}");
    // h2 leaves and h4 of the same size joins: the pool's cap stays 6 GB, 3 GB of it free.
    c.handle(locus_core::Event::NodeRemoved {
        node: "h2:1".into(),
    })
    .unwrap();
    add_nodes(&mut c, &[("h4", "/r3", 4)]);
    let ds = try_heartbeat(&mut c, "h3:1", full, 2_000).unwrap();
    assert!(
        ds.iter().any(|d| d.app == "first"),
        "with h2 gone, `first`'s 3 GB map did not get the pool's 3 GB free on h3: {ds:?}"
    );
}

/// Maps no node can serve (pinned to a host the cluster lacks, or bigger than every node) are
/// blockers even inside a job that has other work: FRESH must neither admit a job on them (it
/// would hold one of the `k` places, and its reduces would wait for a map phase that cannot
/// end) nor count them in a job's map phase or in a slot split
/// (fuzz/findings/starvation-fresh-*-pinned-maps*.json).
#[test]
fn fresh_does_not_wait_for_maps_no_node_can_serve() {
    let mut failed = Vec::new();
    for slots in ["static", "fresh-static", "fresh-dynamic"] {
        // Every map strict on the absent host h9; its 1 GB reduces can run anywhere.
        let mut c = core_with(&[("locus.policy", "fresh"), ("locus.slots", slots)]);
        add_nodes(&mut c, &ONE_NODE);
        add_mr(&mut c, "pinned", 0);
        set_asks_rows(
            &mut c,
            "pinned",
            &[
                (20, "h9", 8, 1, 1, true),
                (20, "/r1", 8, 1, 1, false),
                (20, "*", 8, 1, 1, false),
                (10, "*", 3, 1, 1, true),
            ],
        );
        let rounds = idle_rounds(&mut c, &ONE_NODE, 20);
        let served = first_served(&rounds, "pinned");
        if served.is_none_or(|r| r > 2) {
            failed.push(format!(
                "{slots}, maps pinned to h9: the reduces first ran in round {served:?} of 20"
            ));
        }

        // Two 1 GB re-run maps that can run, and 1 TB maps that cannot: the map phase ends
        // with the two, then the reduces run.
        let mut c = core_with(&[("locus.policy", "fresh"), ("locus.slots", slots)]);
        add_nodes(&mut c, &ONE_NODE);
        add_mr(&mut c, "mixed", 0);
        set_asks_rows(
            &mut c,
            "mixed",
            &[
                (5, "*", 2, 1, 1, true),
                (20, "*", 4, 1024, 1, true),
                (10, "*", 3, 1, 1, true),
            ],
        );
        let rounds = idle_rounds(&mut c, &ONE_NODE, 20);
        let reduce = rounds
            .iter()
            .position(|ds| ds.iter().any(|d| d.app == "mixed" && d.priority == 10))
            .map(|i| i + 1);
        if reduce.is_none_or(|r| r > 4) {
            failed.push(format!(
                "{slots}, 1 TB maps beside two that fit: the reduces first ran in round {reduce:?} of 20"
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Maps whose only nodes the job blacklists are blockers for that job as much as maps no node
/// can hold: the RM refuses the job every container there. FRESH must not admit the job on
/// them nor let them shape a slot split, or the job's reduces, which fit a node it does not
/// blacklist, wait for a map phase that cannot start; and a blacklist that changes after the
/// asks is judged again (fuzz/findings/starvation-fresh-maps-only-on-blacklisted-nodes.json).
#[test]
fn fresh_does_not_wait_for_maps_only_blacklisted_nodes_can_serve() {
    // 8 GB maps fit only h7 (rack /r1, blacklisted); the 4 GB / 3 vcore reduces fit h2.
    const NODES: [NodeSpec; 2] = [("h2", "/r2", 4), ("h7", "/r1", 8)];
    let blacklist = |c: &mut Core| {
        c.handle(locus_core::Event::AppBlacklist {
            app: "job".into(),
            places: vec!["/r1".into()],
        })
        .unwrap();
    };
    let mut failed = Vec::new();
    for slots in ["static", "fresh-static", "fresh-dynamic"] {
        for blacklist_first in [true, false] {
            let mut c = core_with(&[
                ("locus.policy", "fresh"),
                ("locus.locality", "matchmaking"),
                ("locus.slots", slots),
            ]);
            add_nodes(&mut c, &NODES);
            add_mr(&mut c, "job", 0);
            if blacklist_first {
                blacklist(&mut c);
            }
            set_asks_rows(
                &mut c,
                "job",
                &[
                    (19, "h7", 5, 8, 1, true),
                    (19, "/r1", 5, 8, 1, true),
                    (19, "*", 11, 8, 1, true),
                    (10, "*", 3, 4, 3, true),
                ],
            );
            if !blacklist_first {
                blacklist(&mut c);
            }
            let rounds = idle_rounds(&mut c, &NODES, 20);
            let served = first_served(&rounds, "job");
            if served.is_none_or(|r| r > 2) {
                let when = if blacklist_first { "before" } else { "after" };
                failed.push(format!(
                    "{slots}, blacklist {when} the asks: the reduces first ran in round {served:?} of 20"
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
