//! Inter-queue preemption through the core's API, as the shim drives it: a queue that grew into
//! another's guarantee is asked to give it back when the other asks, its newest containers are
//! marked first and killed once `max_wait_before_kill` has passed, and the freed room goes to the
//! queue that waited.

mod common;

use locus_core::preemption::PreemptionSettings;
use locus_core::Core;

const NODES: usize = 2;
const NODE_GB: u64 = 4;

fn host(i: usize) -> String {
    format!("h{i}")
}

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

    fn round(&mut self, c: &mut Core) {
        self.now_ms += 1_000;
        for i in 0..NODES {
            let h = host(i);
            let used = self.running.iter().filter(|r| r.2 == h).count() as u64;
            let free = NODE_GB - used;
            let ds = common::heartbeat_free(c, &h, free, free as u32, self.now_ms);
            let mut ids = common::execute(c, &ds, &mut self.next_id).into_iter();
            for d in &ds {
                for _ in 0..d.count {
                    self.running
                        .push((ids.next().unwrap(), d.app.clone(), h.clone()));
                }
            }
        }
    }

    /// The RM kills `ids` (the shim's preempted-container path ends in a release).
    fn kill(&mut self, c: &mut Core, ids: &[String]) {
        for id in ids {
            let i = self.running.iter().position(|r| &r.0 == id).unwrap();
            let (id, app, h) = self.running.remove(i);
            common::release(c, &app, &id, &h, 1, 1);
        }
    }

    fn held(&self, app: &str) -> usize {
        self.running.iter().filter(|r| r.1 == app).count()
    }

    /// The `n` containers of `app` started last, newest first.
    fn newest(&self, app: &str, n: usize) -> Vec<String> {
        let mut of_app: Vec<String> = self
            .running
            .iter()
            .filter(|r| r.1 == app)
            .map(|r| r.0.clone())
            .collect();
        of_app.reverse();
        of_app.truncate(n);
        of_app
    }
}

fn core() -> Core {
    common::core_with(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "a:50:100,b:50:100"),
    ])
}

fn app(c: &mut Core, id: &str, queue: &str, submit_ms: u64, n: u32) {
    common::add_app_in(c, id, queue, "u", id, submit_ms, "SPARK", &[]);
    common::set_small_asks(c, id, &[(1, "*", n)]);
}

fn settings() -> PreemptionSettings {
    PreemptionSettings {
        monitoring_interval_ms: 1000,
        max_wait_before_kill_ms: 3000,
        total_preemption_per_round: 1.0,
        natural_termination_factor: 1.0,
        ..PreemptionSettings::default()
    }
}

#[test]
fn a_queue_holding_anothers_guarantee_gives_it_back_after_the_wait() {
    let mut c = core();
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 100);
    cl.round(&mut c);
    assert_eq!(cl.held("a1"), 8, "a alone fills the cluster");
    let s = settings();
    assert!(
        c.preemption_round(cl.now_ms, &s).selected.is_empty(),
        "nobody else asks: nothing to take back"
    );

    app(&mut c, "b1", "b", 2, 3);
    let newest = cl.newest("a1", 3);
    let r = c.preemption_round(cl.now_ms, &s);
    assert_eq!(r.mark, newest, "a's newest containers are marked");
    assert!(r.kill.is_empty(), "and not killed before the wait");
    let r = c.preemption_round(cl.now_ms + 1000, &s);
    assert!(r.mark.is_empty() && r.kill.is_empty(), "marked once");
    let r = c.preemption_round(cl.now_ms + 3000, &s);
    assert_eq!(r.kill, newest, "killed once the wait is over");
    cl.kill(&mut c, &r.kill);
    cl.round(&mut c);
    assert_eq!((cl.held("a1"), cl.held("b1")), (5, 3));
    assert!(
        c.preemption_round(cl.now_ms, &s).selected.is_empty(),
        "b has what it asked for"
    );
}

#[test]
fn the_owner_of_a_guarantee_takes_back_no_more_than_it() {
    let mut c = core();
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 100);
    cl.round(&mut c);
    app(&mut c, "b1", "b", 2, 100);
    let s = settings();
    let r = c.preemption_round(cl.now_ms, &s);
    assert_eq!(r.mark.len(), 4, "b wants everything but is owed its 4 GB");
    let r = c.preemption_round(cl.now_ms + 3000, &s);
    cl.kill(&mut c, &r.kill);
    cl.round(&mut c);
    assert_eq!((cl.held("a1"), cl.held("b1")), (4, 4));
    assert!(c.preemption_round(cl.now_ms, &s).selected.is_empty());
}

#[test]
fn observe_only_chooses_but_marks_nothing() {
    let mut c = core();
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 100);
    cl.round(&mut c);
    app(&mut c, "b1", "b", 2, 2);
    let s = PreemptionSettings {
        observe_only: true,
        ..settings()
    };
    let r = c.preemption_round(cl.now_ms, &s);
    assert_eq!(r.selected.len(), 2);
    assert!(r.mark.is_empty() && r.kill.is_empty());
    let r = c.preemption_round(cl.now_ms + 10_000, &s);
    assert!(r.kill.is_empty(), "never killed");
}

#[test]
fn other_policies_preempt_nothing() {
    let mut c = common::core_with(&[("locus.policy", "fifo")]);
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 100);
    cl.round(&mut c);
    app(&mut c, "b1", "b", 2, 2);
    assert!(c
        .preemption_round(cl.now_ms, &settings())
        .selected
        .is_empty());
}

/// Containers the core decided but the RM has not created yet count in a queue's use; a round
/// taken between the decision and its confirmation must still see a queue that asks for more
/// room than exists and an idle other queue as nothing to take back.
#[test]
fn decisions_in_flight_make_nothing_to_take_back_without_another_queues_ask() {
    let mut c = core();
    let mut cl = Cluster::new(&mut c);
    app(&mut c, "a1", "a", 1, 100);
    cl.round(&mut c);
    let s = settings();
    // Free one container, then let a heartbeat decide it again without executing it.
    let victim = cl.newest("a1", 1);
    cl.kill(&mut c, &victim);
    cl.now_ms += 1_000;
    let h = cl.running.iter().fold(vec![0u64; NODES], |mut v, r| {
        v[r.2[1..].parse::<usize>().unwrap()] += 1;
        v
    });
    let i = h.iter().position(|&u| u < NODE_GB).unwrap();
    let ds = common::heartbeat_free(&mut c, &host(i), 1, 1, cl.now_ms);
    assert_eq!(ds.iter().map(|d| d.count).sum::<u32>(), 1, "{ds:?}");
    for now in [cl.now_ms, cl.now_ms + 500, cl.now_ms + 4_000] {
        let r = c.preemption_round(now, &s);
        assert!(
            r.selected.is_empty() && r.mark.is_empty() && r.kill.is_empty(),
            "only a asks; nothing to take back at {now}: {r:?}"
        );
    }
}

/// A round between a batch of offers and the next heartbeat sees each queue's containers
/// once: the decisions the batch made are created by then, and counting them again as still
/// in flight made a queue holding just its guarantee look over it, so a round took it below.
#[test]
fn a_round_after_a_batch_of_offers_counts_its_containers_once() {
    let mut c = core();
    let mut cl = Cluster::new(&mut c);
    // a asks for its guarantee (4 of the 8 GB); one batch offers both nodes, the first node's
    // decisions still in flight while the second is offered, all executed after the batch.
    app(&mut c, "a1", "a", 1, 4);
    cl.now_ms += 1_000;
    let offers: Vec<locus_core::Heartbeat> = (0..NODES)
        .map(|i| locus_core::Heartbeat {
            node: common::node_id(&host(i)),
            unallocated: locus_core::Resource::new(NODE_GB * common::GB, NODE_GB as u32),
            now_ms: cl.now_ms,
            sweep: false,
            eager: false,
        })
        .collect();
    let ds = c.offers(&offers).decisions;
    let ids = common::execute(&mut c, &ds, &mut cl.next_id);
    assert_eq!(ids.len(), 4, "{ds:?}");
    // b asks for 4 GB: the 4 GB a leaves free are b's without taking anything from a.
    app(&mut c, "b1", "b", 2, 4);
    let r = c.preemption_round(cl.now_ms, &settings());
    assert!(
        r.selected.is_empty(),
        "a holds 4 GB, its guarantee; the round chose {:?} of it",
        r.selected
    );
}

// Intra-queue preemption: one leaf holding the whole cluster, two applications in it.

/// One leaf, `root.default`, of the whole cluster: one user may hold all of it
/// (`user-limit-factor` 1) and, with several users, each is owed `mulp` percent of it.
fn one_leaf_core(mulp: u32, leaf_extra: &str) -> Core {
    let tree = format!(
        r#"{{"maximum_applications":10000,"queues":[{root},{leaf}]}}"#,
        root = r#"{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1}"#,
        leaf = format!(
            r#"{{"path":"root.default","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":{mulp},"maximum_am_resource_percent":1.0,"maximum_applications":-1{leaf_extra}}}"#
        ),
    );
    common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)])
}

fn app_of(c: &mut Core, id: &str, user: &str, priority: i32, submit_ms: u64, n: u32) {
    c.handle(locus_core::Event::AppAdded {
        app: id.into(),
        queue: "default".into(),
        user: user.into(),
        name: id.into(),
        app_type: "SPARK".into(),
        tags: vec![],
        submit_ms,
        priority,
        recovered: false,
    })
    .unwrap();
    common::set_small_asks(c, id, &[(1, "*", n)]);
}

/// The keys as an operator sets them, read as the shim hands them over.
fn intra_settings(pairs: &[(&str, &str)]) -> PreemptionSettings {
    let mut props: std::collections::BTreeMap<String, String> = [
        ("monitoring_interval", "1000"),
        ("max_wait_before_kill", "3000"),
        ("total_preemption_per_round", "1.0"),
        ("intra-queue-preemption.enabled", "true"),
        ("intra-queue-preemption.max-allowable-limit", "1.0"),
    ]
    .iter()
    .map(|(k, v)| {
        (
            format!("{}{k}", locus_core::preemption::PREFIX),
            v.to_string(),
        )
    })
    .collect();
    for (k, v) in pairs {
        props.insert(
            format!("{}{k}", locus_core::preemption::PREFIX),
            v.to_string(),
        );
    }
    PreemptionSettings::parse(&props).expect("CapacityScheduler's keys are accepted")
}

/// Marks, waits, kills what the round chose and lets the heartbeats place the freed room.
fn preempt_and_place(c: &mut Core, cl: &mut Cluster, s: &PreemptionSettings) -> Vec<String> {
    let first = c.preemption_round(cl.now_ms, s);
    let r = c.preemption_round(cl.now_ms + s.max_wait_before_kill_ms, s);
    assert_eq!(
        r.kill, first.selected,
        "what was chosen is killed after the wait"
    );
    cl.kill(c, &r.kill);
    cl.round(c);
    r.kill
}

/// Two users, each owed the whole queue (`minimum-user-limit-percent` 100): user1's
/// low-priority application fills it, then user2's high-priority one asks. user2 has room under
/// its limit, so the leaf wants more, and `priority_first` takes from the lower priority.
#[test]
fn a_starved_higher_priority_application_takes_from_a_lower_priority_one() {
    let mut c = one_leaf_core(100, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "low", "user1", 0, 1, 100);
    cl.round(&mut c);
    assert_eq!(
        cl.held("low"),
        8,
        "the low-priority application fills the queue"
    );
    app_of(&mut c, "high", "user2", 5, 2, 2);
    let s = intra_settings(&[(
        "intra-queue-preemption.preemption-order-policy",
        "priority_first",
    )]);
    let newest = cl.newest("low", 2);
    let r = c.preemption_round(cl.now_ms, &s);
    assert_eq!(
        r.mark, newest,
        "the low-priority application's newest containers"
    );
    assert_eq!(r.intra_queue, newest, "chosen within the queue");
    let killed = preempt_and_place(&mut c, &mut cl, &s);
    assert_eq!(killed, newest);
    assert_eq!((cl.held("low"), cl.held("high")), (6, 2));
    assert!(
        c.preemption_round(cl.now_ms, &s).selected.is_empty(),
        "the high-priority application holds what it asked for"
    );
}

/// At equal priorities the older application keeps what it holds under `priority_first` too:
/// what makes the high-priority application take from the other is its priority.
#[test]
fn at_equal_priorities_priority_first_takes_nothing() {
    let mut c = one_leaf_core(100, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "low", "user1", 0, 1, 100);
    cl.round(&mut c);
    app_of(&mut c, "high", "user2", 0, 2, 2);
    let s = intra_settings(&[(
        "intra-queue-preemption.preemption-order-policy",
        "priority_first",
    )]);
    assert!(c.preemption_round(cl.now_ms, &s).selected.is_empty());
}

/// One user holding its whole user limit: CapacityScheduler's round between queues counts
/// none of the leaf's asks as pending (they are bounded by the user's headroom, none), so its
/// intra-queue selector never looks within the leaf, and the user's higher-priority
/// application waits even under `priority_first`.
#[test]
fn one_user_at_its_limit_is_not_preempted_for_its_own_higher_priority_application() {
    let mut c = one_leaf_core(100, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "low", "u", 0, 1, 100);
    cl.round(&mut c);
    assert_eq!(cl.held("low"), 8);
    app_of(&mut c, "high", "u", 5, 2, 2);
    let s = intra_settings(&[(
        "intra-queue-preemption.preemption-order-policy",
        "priority_first",
    )]);
    let r = c.preemption_round(cl.now_ms, &s);
    assert!(r.selected.is_empty(), "{r:?}");
}

/// Under `userlimit_first` (the default) one user within its user limit is not preempted for
/// its own higher-priority application, as under CapacityScheduler.
#[test]
fn userlimit_first_keeps_a_user_within_its_limit_whole() {
    let mut c = one_leaf_core(100, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "low", "u", 0, 1, 100);
    cl.round(&mut c);
    app_of(&mut c, "high", "u", 5, 2, 2);
    let s = intra_settings(&[]);
    assert!(c.preemption_round(cl.now_ms, &s).selected.is_empty());
}

#[test]
fn a_user_below_its_user_limit_takes_from_a_user_above_theirs() {
    // Two users, each owed half the queue: a user limit of 5 GB (half of the 8 GB queue plus
    // one minimum allocation, rounded up).
    let mut c = one_leaf_core(50, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "big", "user1", 0, 1, 100);
    cl.round(&mut c);
    assert_eq!(cl.held("big"), 8);
    app_of(&mut c, "small", "user2", 0, 2, 4);
    let s = intra_settings(&[]);
    let newest = cl.newest("big", 2);
    let killed = preempt_and_place(&mut c, &mut cl, &s);
    assert_eq!(killed, newest, "user1's newest containers");
    assert_eq!((cl.held("big"), cl.held("small")), (6, 2));
    // user1 is one minimum allocation over its limit: userlimit_first leaves it that margin.
    let r = c.preemption_round(cl.now_ms, &s);
    assert!(r.selected.is_empty(), "{r:?}");
}

#[test]
fn intra_queue_preemption_is_off_unless_enabled_and_where_a_queue_disables_it() {
    for (extra, s) in [
        ("", PreemptionSettings::default()),
        (
            r#","intra_queue_disable_preemption":true"#,
            intra_settings(&[]),
        ),
        (r#","disable_preemption":true"#, intra_settings(&[])),
    ] {
        let mut c = one_leaf_core(50, extra);
        let mut cl = Cluster::new(&mut c);
        app_of(&mut c, "big", "user1", 0, 1, 100);
        cl.round(&mut c);
        app_of(&mut c, "small", "user2", 0, 2, 4);
        let s = PreemptionSettings {
            total_preemption_per_round: 1.0,
            ..s
        };
        assert!(
            c.preemption_round(cl.now_ms, &s).selected.is_empty(),
            "{extra} {s:?}"
        );
    }
}

#[test]
fn a_queue_below_the_minimum_threshold_and_the_rounds_budget_bound_a_round() {
    let mut c = one_leaf_core(50, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "big", "user1", 0, 1, 3);
    cl.round(&mut c);
    app_of(&mut c, "small", "user2", 0, 2, 4);
    // 3 of 8 GB used: under the default threshold of half the guarantee, and the rest is free.
    assert!(c
        .preemption_round(cl.now_ms, &intra_settings(&[]))
        .selected
        .is_empty());

    let mut c = one_leaf_core(50, "");
    let mut cl = Cluster::new(&mut c);
    app_of(&mut c, "big", "user1", 0, 1, 100);
    cl.round(&mut c);
    app_of(&mut c, "small", "user2", 0, 2, 4);
    // One 1 GB container per round (an eighth of the cluster), at most a fifth of the queue.
    let s = intra_settings(&[("total_preemption_per_round", "0.125")]);
    assert_eq!(c.preemption_round(cl.now_ms, &s).selected.len(), 1);
    // A tenth of the queue is less than a container: one is taken while any need is left, as
    // under CapacityScheduler; none when nothing may be taken.
    let s = intra_settings(&[("intra-queue-preemption.max-allowable-limit", "0.1")]);
    assert_eq!(c.preemption_round(cl.now_ms, &s).selected.len(), 1);
    let s = intra_settings(&[("intra-queue-preemption.max-allowable-limit", "0")]);
    assert!(c.preemption_round(cl.now_ms, &s).selected.is_empty());
}

#[test]
fn bad_intra_queue_values_are_refused_naming_the_key() {
    for (k, v) in [
        ("intra-queue-preemption.enabled", "yes"),
        (
            "intra-queue-preemption.preemption-order-policy",
            "fairness_first",
        ),
        ("intra-queue-preemption.max-allowable-limit", "-1"),
        ("intra-queue-preemption.minimum-threshold", "half"),
    ] {
        let props: std::collections::BTreeMap<String, String> = [(
            format!("{}{k}", locus_core::preemption::PREFIX),
            v.to_string(),
        )]
        .into_iter()
        .collect();
        let e = PreemptionSettings::parse(&props).unwrap_err().to_string();
        assert!(e.contains(k) && e.contains(v), "{e}");
    }
}

/// Queues `a` and `b`, half the cluster each, either may grow to all of it; `b`'s one user may
/// hold `b_user_limit_factor` of `b`'s guarantee, `a`'s may hold the whole cluster.
fn two_queue_core_with_user_limit(b_user_limit_factor: f64) -> Core {
    let queue = |path: &str, ulf: f64| {
        format!(
            r#"{{"path":"{path}","capacity":50,"maximum_capacity":100,"user_limit_factor":{ulf},"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1}}"#
        )
    };
    let tree = format!(
        r#"{{"maximum_applications":10000,"queues":[{root},{a},{b}]}}"#,
        root = r#"{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1}"#,
        a = queue("root.a", 2.0),
        b = queue("root.b", b_user_limit_factor),
    );
    common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)])
}

/// CapacityScheduler counts a leaf's pending only up to each asking user's headroom under its
/// user limit (`getTotalPendingResourcesConsideringUserLimit`): a queue below its guarantee
/// whose only user is at its limit could not use what preemption would free, so another
/// queue's containers are not taken for it. With the user's limit at the whole guarantee the
/// same queue does take back what it is owed, so the case can fail.
#[test]
fn a_queue_whose_asking_user_is_at_its_user_limit_takes_nothing_back() {
    for (factor, taken) in [(0.5, 0), (1.0, 2)] {
        let mut c = two_queue_core_with_user_limit(factor);
        let mut cl = Cluster::new(&mut c);
        app(&mut c, "b1", "b", 1, 2);
        cl.round(&mut c);
        app(&mut c, "a1", "a", 2, 100);
        cl.round(&mut c);
        cl.round(&mut c);
        assert_eq!(
            (cl.held("b1"), cl.held("a1")),
            (2, 6),
            "a fills what b left"
        );
        // b's user now asks for more: with factor 0.5 it is at its limit (half of b's 4 GB).
        common::set_small_asks(&mut c, "b1", &[(1, "*", 8)]);
        let r = c.preemption_round(cl.now_ms, &settings());
        assert_eq!(
            r.selected.len(),
            taken,
            "user-limit-factor {factor}: containers taken from a for b: {:?}",
            r.selected
        );
    }
}

/// Queues `a` and `b`, half the cluster each; `a` may grow to all of it, `b` not beyond its
/// half, so `b`'s AMs may hold `b_am_percent` of its guarantee whatever `a` holds.
fn two_queue_core_with_am_limit(b_am_percent: f64) -> Core {
    let queue = |path: &str, max: u32, am: f64| {
        format!(
            r#"{{"path":"{path}","capacity":50,"maximum_capacity":{max},"user_limit_factor":2,"minimum_user_limit_percent":100,"maximum_am_resource_percent":{am},"maximum_applications":-1}}"#
        )
    };
    let tree = format!(
        r#"{{"maximum_applications":10000,"queues":[{root},{a},{b}]}}"#,
        root = r#"{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1}"#,
        a = queue("root.a", 100, 1.0),
        b = queue("root.b", 50, b_am_percent),
    );
    common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)])
}

/// CapacityScheduler counts a leaf's pending over its activated applications only
/// (`getTotalPendingResourcesConsideringUserLimit` walks `getApplications()`, not the pending
/// ones): an application its queue's `maximum-am-resource-percent` holds back cannot run
/// whatever preemption frees, so nothing is taken from another queue for it. `b`'s first
/// application runs its 1 GB AM and asks nothing more; its second asks only for its AM, which
/// b's AM limit (a quarter of b's 4 GB) does not admit. With the limit at all of b's guarantee
/// the second is activated and b takes back a container, so the case can fail.
#[test]
fn an_application_its_queues_am_limit_holds_back_takes_nothing_back() {
    for (am_percent, taken) in [(0.25, 0), (1.0, 1)] {
        let mut c = two_queue_core_with_am_limit(am_percent);
        let mut cl = Cluster::new(&mut c);
        common::add_app_in(&mut c, "b1", "b", "u", "b1", 1, "SPARK", &[]);
        common::set_small_asks(&mut c, "b1", &[(0, "*", 1)]);
        cl.round(&mut c);
        assert_eq!(cl.held("b1"), 1, "b1's AM runs");
        common::set_small_asks(&mut c, "b1", &[]);
        app(&mut c, "a1", "a", 2, 100);
        for _ in 0..4 {
            cl.round(&mut c);
        }
        assert_eq!(cl.held("a1"), 7, "a fills what b left");
        common::add_app_in(&mut c, "b2", "b", "u", "b2", 3, "SPARK", &[]);
        common::set_small_asks(&mut c, "b2", &[(0, "*", 1)]);
        let r = c.preemption_round(cl.now_ms, &settings());
        assert_eq!(
            r.selected.len(),
            taken,
            "b's maximum-am-resource-percent {am_percent}: containers taken from a for b2's AM: \
             {:?}",
            r.selected
        );
    }
}

/// Within a queue too, a leaf wants more only for activated applications (CapacityScheduler
/// looks within the queues its round between queues found underserved, by the same pending):
/// one leaf of the whole cluster, full with a low-priority application of one user, and a
/// high-priority application of another user asking only for its AM, which the leaf's
/// `maximum-am-resource-percent` (one 1 GB AM) holds back: nothing is taken within the queue.
/// With the limit at the whole leaf the AM is admitted and a container is taken for it.
#[test]
fn intra_queue_preemption_takes_nothing_for_an_application_its_am_limit_holds_back() {
    for (am_percent, taken) in [(0.125, 0), (1.0, 1)] {
        let leaf = |path: &str| {
            format!(
                r#"{{"path":"{path}","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":{am_percent},"maximum_applications":-1}}"#
            )
        };
        let tree = format!(
            r#"{{"maximum_applications":10000,"queues":[{},{}]}}"#,
            leaf("root"),
            leaf("root.default")
        );
        let mut c =
            common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)]);
        let mut cl = Cluster::new(&mut c);
        app_of(&mut c, "low", "user1", 0, 1, 0);
        common::set_small_asks(&mut c, "low", &[(0, "*", 1)]);
        cl.round(&mut c);
        common::set_small_asks(&mut c, "low", &[(1, "*", 7)]);
        for _ in 0..4 {
            cl.round(&mut c);
        }
        assert_eq!(cl.held("low"), 8, "low fills the cluster");
        app_of(&mut c, "high", "user2", 10, 2, 0);
        common::set_small_asks(&mut c, "high", &[(0, "*", 1)]);
        let s = intra_settings(&[(
            "intra-queue-preemption.preemption-order-policy",
            "priority_first",
        )]);
        let r = c.preemption_round(cl.now_ms, &s);
        assert_eq!(
            (r.selected.len(), r.intra_queue.len()),
            (taken, taken),
            "maximum-am-resource-percent {am_percent}: taken for high's AM: {:?}",
            r.selected
        );
    }
}
