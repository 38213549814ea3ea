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
    common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.queues", queues)])
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
    });
    match refused {
        Err(e @ CoreError::UnknownQueue { .. }) => {
            let text = e.to_string();
            assert!(text.contains("\"c\"") && text.contains("a, b") && text.contains("x1"), "{text}");
        }
        other => panic!("expected UnknownQueue, got {other:?}"),
    }
    assert!(c.state().app_by_id("x1").is_none());
    assert!(c.state().queues().is_empty());

    // CapacityScheduler's full path names the same queue.
    common::add_app_in(&mut c, "a1", "root.a", "u", "a", 2, "SPARK", &[]);
    assert_eq!(c.state().app_by_id("a1").map(|a| a.queue.as_str()), Some("a"));
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
    assert_eq!(fifo.state().app_by_id("x1").map(|a| a.queue.as_str()), Some("c"));
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
    assert!(err.to_string().contains("default (1 applications)"), "{err}");
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
                assert!(message.contains("name:capacity[:maximum-capacity]"), "{message}");
            }
            other => panic!("{value}: {other:?}"),
        }
    }
}
