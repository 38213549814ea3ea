//! `locus.policy=capacity`: CapacityScheduler's queues as an operator sees them through the
//! containers each queue's applications get: a queue alone grows to its maximum-capacity and no
//! further, busy queues settle at their guarantees, applications inside a queue go first come
//! first served, and queues that are not configured are refused.

mod common;

use std::collections::BTreeMap;

use common::GB;
use locus_core::{Core, CoreError, Event};

const TWO_QUEUES: &str = "a:50:90,b:50:90";
const NODES: usize = 10;
/// Each node holds ten 1 GB containers: the cluster is 100 GB, so a container is 1 %.
const NODE_GB: u64 = 10;

fn host(i: usize) -> String {
    format!("h{i}")
}

/// The cluster as the RM sees it: which containers run where.
struct Cluster {
    running: Vec<(String, String, String)>,
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

    /// Every node heartbeats once with what it has free; the decisions are executed.
    fn round(&mut self, c: &mut Core) {
        self.now_ms += 1_000;
        for i in 0..NODES {
            let h = host(i);
            let used = self.running.iter().filter(|r| r.2 == h).count() as u64;
            let free = NODE_GB - used;
            let ds = common::heartbeat_free(c, &h, free, free as u32, self.now_ms);
            let ids = common::execute(c, &ds, &mut self.next_id);
            let mut ids = ids.into_iter();
            for d in &ds {
                for _ in 0..d.count {
                    let id = ids.next().expect("one id per container");
                    self.running.push((id, d.app.clone(), h.clone()));
                }
            }
        }
    }

    /// The `n` oldest containers of `app` finish.
    fn finish(&mut self, c: &mut Core, app: &str, n: usize) {
        let mut done = 0;
        let mut keep = Vec::new();
        for r in std::mem::take(&mut self.running) {
            if r.1 == app && done < n {
                common::release(c, &r.1, &r.0, &r.2, 1, 1);
                done += 1;
            } else {
                keep.push(r);
            }
        }
        self.running = keep;
    }

    fn held(&self, app: &str) -> usize {
        self.running.iter().filter(|r| r.1 == app).count()
    }
}

fn capacity_core(queues: &str) -> Core {
    common::core_with(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", queues),
    ])
}

/// A non-MapReduce app in `queue` asking `n` relaxable 1 GB containers.
fn app(c: &mut Core, id: &str, queue: &str, submit_ms: u64, n: u32) {
    common::add_app_in(c, id, queue, "u", id, submit_ms, "SPARK", &[]);
    common::set_small_asks(c, id, &[(1, "*", n)]);
}

fn queue_gb(c: &Core, queue: &str) -> u64 {
    c.state()
        .queues()
        .get(queue)
        .map_or(0, |q| q.used.memory_mb / GB)
}

#[test]
fn a_queue_alone_grows_to_its_maximum_capacity_and_no_further() {
    let mut c = capacity_core(TWO_QUEUES);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 200);
    for _ in 0..3 {
        cl.round(&mut c);
    }
    assert_eq!(cl.held("a1"), 90, "queue a holds 90 % of the cluster");
    assert_eq!(queue_gb(&c, "a"), 90);
    assert_eq!(c.queue_headroom_mb("a"), Some(0));

    // The idle tenth is b's as soon as it asks, whatever a still wants.
    app(&mut c, "b1", "b", 2, 200);
    cl.round(&mut c);
    assert_eq!(cl.held("b1"), 10);
}

#[test]
fn busy_queues_settle_at_their_guarantees() {
    let mut c = capacity_core(TWO_QUEUES);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 10_000);
    cl.round(&mut c);
    app(&mut c, "b1", "b", 2, 10_000);
    cl.round(&mut c);
    assert_eq!((cl.held("a1"), cl.held("b1")), (90, 10));
    // Containers of both queues finish steadily; each freed one goes to the less served queue.
    for _ in 0..20 {
        let (a, b) = (cl.held("a1"), cl.held("b1"));
        cl.finish(&mut c, "a1", a / 5);
        cl.finish(&mut c, "b1", b / 5);
        cl.round(&mut c);
    }
    assert_eq!(
        (queue_gb(&c, "a"), queue_gb(&c, "b")),
        (50, 50),
        "both queues busy: each gets its 50 %"
    );
}

#[test]
fn one_heartbeat_of_a_big_node_is_split_between_hungry_queues_fifo_inside_each() {
    let mut c = capacity_core(TWO_QUEUES);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 30);
    app(&mut c, "b1", "b", 2, 100);
    app(&mut c, "a2", "a", 3, 100);
    // One node first: its ten containers alternate between the queues.
    let ds = common::heartbeat_free(&mut c, &host(0), NODE_GB, NODE_GB as u32, 1_000);
    let per_app = |app: &str| -> u32 { ds.iter().filter(|d| d.app == app).map(|d| d.count).sum() };
    assert_eq!((per_app("a1"), per_app("b1"), per_app("a2")), (5, 5, 0));
    common::execute(&mut c, &ds, &mut cl.next_id);
    for d in &ds {
        for _ in 0..d.count {
            cl.running.push((String::new(), d.app.clone(), host(0)));
        }
    }
    cl.round(&mut c);
    // Queue a's earlier app got all it asked for before the later one got anything.
    assert_eq!(cl.held("a1"), 30);
    assert_eq!(cl.held("a2"), 20);
    assert_eq!(cl.held("b1"), 50);
}

#[test]
fn a_later_apps_am_waits_behind_the_earlier_apps_of_its_queue() {
    let mut c = capacity_core(TWO_QUEUES);
    Cluster::new(&mut c);
    common::add_app_in(&mut c, "a1", "a", "u", "a1", 1, "MAPREDUCE", &[]);
    common::set_small_asks(&mut c, "a1", &[(20, "*", 100)]);
    app(&mut c, "b1", "b", 2, 100);
    common::add_app_in(&mut c, "a2", "a", "u", "a2", 3, "MAPREDUCE", &[]);
    common::set_small_asks(&mut c, "a2", &[(0, "*", 1)]);
    // LeafQueue a offers its half of the node to a1 first, and a1 can use all of it: a2's AM
    // waits, however little AM room the cluster holds.
    let ds = common::heartbeat_free(&mut c, &host(0), NODE_GB, NODE_GB as u32, 1_000);
    let per_app = |app: &str| -> u32 { ds.iter().filter(|d| d.app == app).map(|d| d.count).sum() };
    assert_eq!((per_app("a1"), per_app("b1"), per_app("a2")), (5, 5, 0));
}

#[test]
fn room_one_queue_cannot_use_goes_to_the_other_queue() {
    let mut c = capacity_core(TWO_QUEUES);
    Cluster::new(&mut c);
    // a1 wants only h5 (no relaxing): on h0 it can take nothing, however long it waits.
    common::add_app_in(&mut c, "a1", "a", "u", "a1", 1, "SPARK", &[]);
    common::set_asks_rows(
        &mut c,
        "a1",
        &[
            (1, "h5", 5, 1, 1, true),
            (1, "/r1", 5, 1, 1, false),
            (1, "*", 5, 1, 1, false),
        ],
    );
    app(&mut c, "b1", "b", 2, 100);
    // Queue a is first in line (both empty, a configured first) but cannot use h0, so every
    // container of h0 goes to b, as ParentQueue tries its next child when one assigns nothing.
    let ds = common::heartbeat_free(&mut c, &host(0), NODE_GB, NODE_GB as u32, 1_000);
    assert_eq!(
        common::summary(&ds),
        [("b1".to_string(), locus_core::Locality::OffSwitch, 10)]
    );
    // On h5 both queues get the node, a1 its five.
    let ds = common::heartbeat_free(&mut c, &host(5), NODE_GB, NODE_GB as u32, 1_000);
    let per_app = |app: &str| -> u32 { ds.iter().filter(|d| d.app == app).map(|d| d.count).sum() };
    assert_eq!((per_app("a1"), per_app("b1")), (5, 5));
}

#[test]
fn an_app_naming_an_unconfigured_queue_is_refused_and_nothing_changes() {
    let mut c = capacity_core(TWO_QUEUES);
    let refused = c.handle(Event::AppAdded {
        app: "x1".into(),
        queue: "c".into(),
        user: "u".into(),
        name: "x".into(),
        app_type: "SPARK".into(),
        tags: vec![],
        submit_ms: 1,
        priority: 0,
        recovered: false,
    });
    match refused {
        Err(e @ CoreError::UnknownQueue { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("\"c\"") && text.contains("a, b") && text.contains("x1"),
                "{text}"
            );
        }
        other => panic!("expected UnknownQueue, got {other:?}"),
    }
    assert!(c.state().app_by_id("x1").is_none());
    assert!(c.state().queues().is_empty());

    // CapacityScheduler's full path names the same queue.
    common::add_app_in(&mut c, "a1", "root.a", "u", "a", 2, "SPARK", &[]);
    assert_eq!(
        c.state().app_by_id("a1").map(|a| a.queue.as_str()),
        Some("a")
    );
    let names: Vec<&str> = c
        .capacity_queues()
        .expect("capacity policy")
        .iter()
        .map(|q| q.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);

    // Other policies accept any queue name, as before.
    let mut fifo = common::core_with(&[("locus.policy", "fifo")]);
    common::add_app_in(&mut fifo, "x1", "c", "u", "x", 1, "SPARK", &[]);
    assert_eq!(
        fifo.state().app_by_id("x1").map(|a| a.queue.as_str()),
        Some("c")
    );
    assert!(fifo.capacity_queues().is_none());
}

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    common::props(pairs)
}

#[test]
fn reconfigured_queues_apply_to_running_apps_and_may_not_strand_any() {
    let mut c = capacity_core(TWO_QUEUES);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 10_000);
    cl.round(&mut c);
    assert_eq!(cl.held("a1"), 90);

    // A lower maximum for a: its apps keep what they hold but get nothing until below it.
    c.reconfigure(&props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "a:30:60,b:70"),
    ]))
    .unwrap();
    cl.finish(&mut c, "a1", 40);
    cl.round(&mut c);
    assert_eq!(cl.held("a1"), 60, "a refills only up to its new 60 %");

    // Dropping b is fine while b is empty; dropping a, which holds a1, is refused.
    let refused = c.reconfigure(&props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "b:100"),
    ]));
    match refused {
        Err(CoreError::Config { key, message }) => {
            assert_eq!(key, "locus.capacity.queues");
            assert!(message.contains("a (1 applications)"), "{message}");
        }
        other => panic!("expected a config error, got {other:?}"),
    }
    // Nothing changed: a still stops at 60 %.
    cl.finish(&mut c, "a1", 10);
    cl.round(&mut c);
    assert_eq!(cl.held("a1"), 60);
    c.reconfigure(&props(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "a:100"),
    ]))
    .unwrap();
    cl.round(&mut c);
    assert_eq!(cl.held("a1"), 100);

    // Switching a running cluster to capacity needs a queue for every running app.
    let mut fifo = common::core_with(&[("locus.policy", "fifo")]);
    common::add_app_in(&mut fifo, "d1", "default", "u", "d", 1, "SPARK", &[]);
    let err = fifo
        .reconfigure(&props(&[
            ("locus.policy", "capacity"),
            ("locus.capacity.queues", TWO_QUEUES),
        ]))
        .unwrap_err();
    assert!(
        err.to_string().contains("default (1 applications)"),
        "{err}"
    );
    assert_eq!(fifo.config().policy.as_str(), "fifo");
}

#[test]
fn bad_queue_lists_are_refused_naming_the_key() {
    for (value, expect) in [
        ("a:50,b:40", "sum to 90"),
        ("a:50:90,a:50:90", "listed twice"),
        ("a:50:40,b:50", "below its capacity"),
        ("a:50:101,b:50", "maximum-capacity"),
        ("root.a:100", "contains '.'"),
        ("a:-5,b:105", "capacity"),
    ] {
        let err = Core::new(&props(&[
            ("locus.policy", "capacity"),
            ("locus.capacity.queues", value),
        ]))
        .err()
        .unwrap_or_else(|| panic!("{value:?} accepted"));
        match err {
            CoreError::Config { key, message } => {
                assert_eq!(key, "locus.capacity.queues", "{value}");
                assert!(message.contains(expect), "{value}: {message}");
                assert!(
                    message.contains("name:capacity[:maximum-capacity]"),
                    "{message}"
                );
            }
            other => panic!("{value}: {other:?}"),
        }
    }
}

/// One MapReduce job or generic app of [`same_decisions_as_fifo`]'s workload.
struct Job {
    id: &'static str,
    app_type: &'static str,
    submit_ms: u64,
    /// Round it is submitted in.
    round: u32,
    /// Hosts holding its input blocks and how many: one map per block.
    blocks: &'static [(&'static str, u32)],
    reduces: u32,
}

const JOBS: [Job; 5] = [
    Job {
        id: "mr1",
        app_type: "MAPREDUCE",
        submit_ms: 1,
        round: 0,
        blocks: &[("h0", 12), ("h1", 10), ("h4", 2)],
        reduces: 2,
    },
    Job {
        id: "mr2",
        app_type: "MAPREDUCE",
        submit_ms: 2,
        round: 0,
        blocks: &[("h3", 14), ("h5", 3)],
        reduces: 3,
    },
    Job {
        id: "sp1",
        app_type: "SPARK",
        submit_ms: 3,
        round: 1,
        blocks: &[],
        reduces: 0,
    },
    Job {
        id: "mr3",
        app_type: "MAPREDUCE",
        submit_ms: 4,
        round: 2,
        blocks: &[("h1", 9), ("h4", 6), ("h2", 1)],
        reduces: 2,
    },
    Job {
        id: "mr4",
        app_type: "MAPREDUCE",
        submit_ms: 5,
        round: 3,
        blocks: &[("h5", 8), ("h2", 2)],
        reduces: 1,
    },
];

const TWIN_HOSTS: [(&str, &str); 6] = [
    ("h0", "/r1"),
    ("h1", "/r1"),
    ("h2", "/r1"),
    ("h3", "/r2"),
    ("h4", "/r2"),
    ("h5", "/r2"),
];
const TWIN_NODE_GB: u64 = 6;

fn rack_of(host: &str) -> &'static str {
    TWIN_HOSTS
        .iter()
        .find(|(h, _)| *h == host)
        .map(|(_, r)| *r)
        .unwrap_or("/r?")
}

fn sized(priority: i32, name: &str, count: u32, gb: u64) -> locus_core::Ask {
    locus_core::Ask {
        priority,
        allocation_request_id: 0,
        resource_name: name.into(),
        capability: locus_core::Resource::new(gb * GB, 1),
        count,
        relax_locality: true,
    }
}

/// A MapReduce AM's map ask: a row per host and rack holding blocks, and `*`.
fn map_asks(blocks: &[(&str, u32)]) -> Vec<locus_core::Ask> {
    let mut racks: BTreeMap<&str, u32> = BTreeMap::new();
    for (h, n) in blocks {
        *racks.entry(rack_of(h)).or_default() += n;
    }
    let mut asks: Vec<_> = blocks.iter().map(|(h, n)| sized(20, h, *n, 1)).collect();
    asks.extend(racks.iter().map(|(r, n)| sized(20, r, *n, 1)));
    asks.push(sized(20, "*", blocks.iter().map(|b| b.1).sum(), 1));
    asks
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Stage {
    Waiting,
    Am,
    Maps,
    Reduces,
    Done,
}

struct Task {
    id: String,
    app: String,
    node: String,
    gb: u64,
    priority: i32,
    ends: u32,
}

/// Two cores fed the same messages: every heartbeat's decisions must match, and both cores
/// are then told the same containers were allocated.
struct Twins {
    fifo: Core,
    capacity: Core,
    label: String,
}

impl Twins {
    fn handle(&mut self, e: Event) {
        self.fifo.handle(e.clone()).unwrap();
        self.capacity.handle(e).unwrap();
    }
}

/// Runs the workload to its end on both cores, asserting identical decisions; returns each
/// heartbeat's decisions (for the caller to check the scenario exercised what it should).
fn run_twins(t: &mut Twins) -> Vec<Vec<locus_core::Decision>> {
    for (h, r) in TWIN_HOSTS {
        let e = Event::NodeAdded {
            node: common::node_id(h),
            host: h.into(),
            rack: r.into(),
            capability: locus_core::Resource::new(TWIN_NODE_GB * GB, TWIN_NODE_GB as u32),
        };
        t.handle(e);
    }
    let mut stage: BTreeMap<&str, Stage> = JOBS.iter().map(|j| (j.id, Stage::Waiting)).collect();
    let mut running: Vec<Task> = Vec::new();
    let mut all = Vec::new();
    let mut next_id = 0u32;
    for round in 0..60u32 {
        // The cluster's side of the round: finished containers, new jobs, AMs' new asks.
        let (done, keep): (Vec<Task>, Vec<Task>) =
            running.into_iter().partition(|r| r.ends <= round);
        running = keep;
        for r in done {
            t.handle(Event::ContainerReleased {
                app: r.app,
                container: r.id,
                node: r.node,
                resource: locus_core::Resource::new(r.gb * GB, 1),
            });
        }
        for j in &JOBS {
            let held = |p: i32| {
                running
                    .iter()
                    .filter(|r| r.app == j.id && r.priority == p)
                    .count()
            };
            let now = stage[j.id];
            let next = match now {
                Stage::Waiting if j.round == round => {
                    t.handle(Event::AppAdded {
                        app: j.id.into(),
                        queue: "default".into(),
                        user: "u".into(),
                        name: j.id.into(),
                        app_type: j.app_type.into(),
                        tags: vec![],
                        submit_ms: j.submit_ms,
                        priority: 0,
                        recovered: false,
                    });
                    let first = if j.app_type == "MAPREDUCE" {
                        vec![sized(0, "*", 1, 1)]
                    } else {
                        vec![sized(1, "*", 7, 2)]
                    };
                    t.handle(Event::AsksUpdated {
                        app: j.id.into(),
                        asks: first,
                    });
                    Stage::Am
                }
                Stage::Am if j.app_type == "SPARK" && all_given(&t.fifo, j.id) && held(1) == 0 => {
                    Stage::Done
                }
                Stage::Am if j.app_type == "MAPREDUCE" && held(0) == 1 => {
                    t.handle(Event::AsksUpdated {
                        app: j.id.into(),
                        asks: map_asks(j.blocks),
                    });
                    Stage::Maps
                }
                Stage::Maps if all_given(&t.fifo, j.id) && held(20) == 0 => {
                    let asks = vec![sized(10, "*", j.reduces, 2)];
                    t.handle(Event::AsksUpdated {
                        app: j.id.into(),
                        asks,
                    });
                    Stage::Reduces
                }
                Stage::Reduces if all_given(&t.fifo, j.id) && held(10) == 0 => Stage::Done,
                s => s,
            };
            if next == Stage::Done && now != Stage::Done {
                for r in running.iter().filter(|r| r.app == j.id) {
                    t.handle(Event::ContainerReleased {
                        app: r.app.clone(),
                        container: r.id.clone(),
                        node: r.node.clone(),
                        resource: locus_core::Resource::new(r.gb * GB, 1),
                    });
                }
                running.retain(|r| r.app != j.id);
                t.handle(Event::AppRemoved { app: j.id.into() });
            }
            stage.insert(j.id, next);
        }
        if stage.values().all(|s| *s == Stage::Done) {
            return all;
        }

        for (h, _) in TWIN_HOSTS {
            let node = common::node_id(h);
            let used: u64 = running
                .iter()
                .filter(|r| r.node == node)
                .map(|r| r.gb)
                .sum();
            let free = locus_core::Resource::new(
                (TWIN_NODE_GB * GB).saturating_sub(used * GB),
                (TWIN_NODE_GB - used) as u32,
            );
            let now_ms = 1_000 * round as u64 + 10;
            let beat = |c: &mut Core| {
                c.heartbeat(&locus_core::Heartbeat {
                    node: node.clone(),
                    unallocated: free,
                    now_ms,
                    sweep: false,
                    eager: false,
                })
                .unwrap()
                .decisions
            };
            let want = beat(&mut t.fifo);
            // The same decisions; capacity's also carry the queue limits to re-check at commit.
            let got: Vec<_> = beat(&mut t.capacity)
                .into_iter()
                .map(|mut d| {
                    assert!(d.limits.is_some(), "{d:?}");
                    d.limits = None;
                    d
                })
                .collect();
            assert_eq!(
                got, want,
                "{}: round {round}, heartbeat of {h}: capacity (left) differs from fifo (right)",
                t.label
            );
            for d in &want {
                for _ in 0..d.count {
                    next_id += 1;
                    let id = format!("container_{next_id}");
                    t.handle(common::allocated_event(d, &id));
                    let lasts = match d.priority {
                        0 => 1_000,
                        20 => 2,
                        _ => 3,
                    };
                    running.push(Task {
                        id,
                        app: d.app.clone(),
                        node: d.node.clone(),
                        gb: d.capability.memory_mb / GB,
                        priority: d.priority,
                        ends: round + lasts,
                    });
                }
            }
            all.push(want);
        }
    }
    panic!(
        "{}: the workload did not finish in 60 rounds: {stage:?}",
        t.label
    );
}

/// Nothing left outstanding for `app`.
fn all_given(c: &Core, app: &str) -> bool {
    c.state()
        .app_by_id(app)
        .is_some_and(|a| !a.asks.has_pending())
}

#[test]
fn one_queue_of_the_whole_cluster_decides_as_fifo() {
    // LeafQueue alone under root hands the node to its apps in submission order, the first
    // keeping it while it can use it: exactly `fifo`, whatever the locality technique.
    for locality in ["hadoop", "delay", "matchmaking"] {
        for queues in ["", "default:100"] {
            let settings = |policy| {
                common::core_with(&[
                    ("locus.policy", policy),
                    ("locus.locality", locality),
                    ("locus.delay.node-locality-threshold", "0.5"),
                    ("locus.delay.rack-locality-threshold", "0.5"),
                    (
                        "locus.capacity.queues",
                        if policy == "capacity" { queues } else { "" },
                    ),
                ])
            };
            let mut t = Twins {
                fifo: settings("fifo"),
                capacity: settings("capacity"),
                label: format!("locality={locality} queues={queues:?}"),
            };
            let all = run_twins(&mut t);
            // The workload must have made the policies choose: several apps wanting the same
            // node in one heartbeat, and maps placed at more than one locality level.
            let shared = all.iter().filter(|beat| {
                let apps: std::collections::BTreeSet<&str> =
                    beat.iter().map(|d| d.app.as_str()).collect();
                apps.len() >= 2
            });
            assert!(
                shared.count() >= 3,
                "{}: too few heartbeats shared between apps",
                t.label
            );
            let levels: std::collections::BTreeSet<_> = all
                .iter()
                .flatten()
                .filter(|d| d.priority == 20)
                .map(|d| d.locality)
                .collect();
            assert!(levels.len() >= 2, "{}: maps only at {levels:?}", t.label);
        }
    }
}

#[test]
fn an_app_re_added_under_another_queue_takes_its_usage_with_it() {
    // CapacityScheduler's moveApplication moves the app's usage to the target queue; the old
    // queue must not keep phantom usage, and the new one must not exceed its maximum-capacity
    // because the core forgot what the app already holds.
    let mut c = capacity_core(TWO_QUEUES);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 60);
    cl.round(&mut c);
    assert_eq!(cl.held("a1"), 60);
    assert_eq!((queue_gb(&c, "a"), queue_gb(&c, "b")), (60, 0));

    // Re-added (RM recovery replay, or a move) under b: its 60 GB go with it.
    common::add_app_in(&mut c, "a1", "b", "u", "a1", 1, "SPARK", &[]);
    assert_eq!(
        (queue_gb(&c, "a"), queue_gb(&c, "b")),
        (0, 60),
        "usage follows the application to its new queue"
    );
    assert_eq!(c.queue_headroom_mb("b"), Some(30 * GB));

    // b may now grow only to its 90 %: 30 more, whatever a1 still asks.
    common::set_small_asks(&mut c, "a1", &[(1, "*", 100)]);
    for _ in 0..3 {
        cl.round(&mut c);
    }
    assert_eq!(cl.held("a1"), 90, "queue b stops at its maximum-capacity");
    assert_eq!(queue_gb(&c, "b"), 90);

    // Its containers finishing give the memory back to b, and a has nothing to give back.
    cl.finish(&mut c, "a1", 90);
    assert_eq!((queue_gb(&c, "a"), queue_gb(&c, "b")), (0, 0));
    assert_eq!(c.state().queues().get("a"), None, "queue a holds nothing");
}

/// A MapReduce app in `queue` that so far asks only for its 1 GB AM (priority 0).
fn mr_am(c: &mut Core, id: &str, queue: &str, submit_ms: u64) {
    common::add_app_in(c, id, queue, "u", id, submit_ms, "MAPREDUCE", &[]);
    common::set_small_asks(c, id, &[(0, "*", 1)]);
}

#[test]
fn one_queues_waiting_ams_do_not_hold_back_another_queues_am() {
    // The AM bound is a queue's, as CapacityScheduler's maximum-am-resource-percent is: a burst
    // of submissions to queue a fills a's AM share, and b's first AM still starts on the free
    // half of the cluster. With one cluster-wide AM share, b's AM waited behind a's 50 AMs.
    let mut c = capacity_core(TWO_QUEUES);
    let mut cl = Cluster::new(&mut c);
    for i in 0..50 {
        mr_am(&mut c, &format!("a{i}"), "a", 1 + i);
    }
    for _ in 0..3 {
        cl.round(&mut c);
    }
    mr_am(&mut c, "b0", "b", 100);
    for _ in 0..5 {
        cl.round(&mut c);
    }
    assert_eq!(
        cl.held("b0"),
        1,
        "queue b's AM starts although a's AMs fill a's share"
    );
    let a_ams: usize = (0..50).map(|i| cl.held(&format!("a{i}"))).sum();
    assert!(
        a_ams < 50,
        "queue a's AMs are bounded by its own share, got {a_ams}"
    );
}

/// Node offers the RM executes only after the whole batch (`Core::offers`, the shim's scheduling
/// thread) keep a queue within its maximum-capacity and a user within its limit: containers
/// decided for one node of the batch and not yet created count against the queue and the user
/// when the next node is offered, as they count against the AM share.
#[test]
fn a_batch_of_offers_keeps_a_queue_and_a_user_within_their_limits() {
    let offers = || -> Vec<locus_core::Heartbeat> {
        (0..NODES)
            .map(|i| locus_core::Heartbeat {
                node: common::node_id(&host(i)),
                unallocated: locus_core::Resource::new(NODE_GB * GB, NODE_GB as u32),
                now_ms: 1_000,
                sweep: false,
                eager: false,
            })
            .collect()
    };
    let decided_gb = |out: &locus_core::OffersResponse, app: &str| -> u64 {
        out.decisions
            .iter()
            .filter(|d| d.app == app)
            .map(|d| d.capability.memory_mb * d.count as u64)
            .sum::<u64>()
            / GB
    };
    // Queue a may hold 30 of the 100 GB.
    let mut c = capacity_core("a:30:30,b:70:100");
    Cluster::new(&mut c);
    app(&mut c, "a1", "a", 0, 100);
    let out = c.offers(&offers());
    let gb = decided_gb(&out, "a1");
    assert!(
        gb <= 30,
        "one batch of {NODES} offers decided {gb} GB for queue a, whose maximum is 30 GB"
    );

    // One user in a queue whose user-limit-factor keeps it to the 20 GB guarantee.
    let q = |path: &str, cap: u32, factor: i32| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":100,"user_limit_factor":{factor},"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1}}"#
        )
    };
    let tree = format!(
        r#"{{"maximum_applications":10000,"queues":[{},{},{}]}}"#,
        q("root", 100, -1),
        q("root.a", 20, 1),
        q("root.b", 80, -1)
    );
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)]);
    Cluster::new(&mut c);
    app(&mut c, "u1", "a", 0, 100);
    let out = c.offers(&offers());
    let gb = decided_gb(&out, "u1");
    assert!(
        gb <= 21,
        "one batch of {NODES} offers decided {gb} GB for a user limited to 20 GB (one more container past it)"
    );
}

/// A tree of one leaf `root.q` holding the whole cluster, with `extra` in the leaf's entry.
fn one_leaf_tree(extra: &str) -> String {
    let q = |path: &str, more: &str| {
        format!(
            r#"{{"path":"{path}","capacity":100,"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1{more}}}"#
        )
    };
    format!(
        r#"{{"maximum_applications":10000,"queues":[{},{}]}}"#,
        q("root", ""),
        q("root.q", extra)
    )
}

/// `ordering-policy=fair`: the leaf's apps take turns by the memory they hold (the earlier
/// app first among equals), where FIFO hands the earlier app all it asks for first; a later
/// app holding less goes ahead of an earlier one holding more.
#[test]
fn a_fair_leaf_shares_a_heartbeat_between_its_apps_by_the_memory_they_hold() {
    let split = |extra: &str| -> (u32, u32) {
        let tree = one_leaf_tree(extra);
        let mut c =
            common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)]);
        let mut cl = Cluster::new(&mut c);
        app(&mut c, "early", "q", 1, 100);
        app(&mut c, "late", "q", 2, 100);
        let ds = common::heartbeat_free(&mut c, &host(0), NODE_GB, NODE_GB as u32, 1_000);
        common::execute(&mut c, &ds, &mut cl.next_id);
        let per_app =
            |app: &str| -> u32 { ds.iter().filter(|d| d.app == app).map(|d| d.count).sum() };
        (per_app("early"), per_app("late"))
    };
    assert_eq!(split(""), (10, 0), "FIFO: the earlier app first");
    assert_eq!(split(r#","ordering":"fifo""#), (10, 0));
    assert_eq!(split(r#","ordering":"fair""#), (5, 5), "fair: turns");

    // The earlier app already holds 4 GB: the later one is served until it holds as much.
    let tree = one_leaf_tree(r#","ordering":"fair""#);
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)]);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "early", "q", 1, 4);
    let ds = common::heartbeat_free(&mut c, &host(0), 4, 4, 1_000);
    common::execute(&mut c, &ds, &mut cl.next_id);
    common::set_small_asks(&mut c, "early", &[(1, "*", 100)]);
    app(&mut c, "late", "q", 2, 100);
    let ds = common::heartbeat_free(&mut c, &host(1), 6, 6, 2_000);
    let per_app = |app: &str| -> u32 { ds.iter().filter(|d| d.app == app).map(|d| d.count).sum() };
    assert_eq!((per_app("early"), per_app("late")), (1, 5));
}
