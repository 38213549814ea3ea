//! YARN application priority (`mapreduce.job.priority`, `yarn application -updatePriority`) and
//! moveApplication as a user sees them: the higher-priority pending application gets the next
//! containers under every policy that keeps a FIFO order, an update reorders apps already
//! waiting, and a moved application takes what it holds to its new queue.

mod common;

use common::GB;
use locus_core::{Core, CoreError, Event, Resource};

fn add_app(c: &mut Core, app: &str, queue: &str, submit_ms: u64, priority: i32) {
    c.handle(Event::AppAdded {
        app: app.into(),
        queue: queue.into(),
        user: "alice".into(),
        name: app.into(),
        app_type: "YARN".into(),
        tags: vec![],
        submit_ms,
        priority,
        recovered: false,
    })
    .unwrap();
}

fn set_priority(c: &mut Core, app: &str, priority: i32) {
    c.handle(Event::AppPriorityChanged {
        app: app.into(),
        priority,
    })
    .unwrap();
}

/// Two apps that each want four 1 GB containers, `early` submitted before `late`; one node.
fn two_waiting(policy: &str, early_priority: i32, late_priority: i32) -> Core {
    let mut c = if policy == "capacity" {
        common::core_with(&[
            ("locus.policy", "capacity"),
            ("locus.capacity.queues", "a:50:100,b:50:100"),
        ])
    } else {
        common::core_with(&[("locus.policy", policy)])
    };
    common::add_node(&mut c, "h1", "/r1", 8, 8);
    let queue = if policy == "capacity" { "a" } else { "default" };
    add_app(&mut c, "early", queue, 1_000, early_priority);
    add_app(&mut c, "late", queue, 2_000, late_priority);
    common::set_small_asks(&mut c, "early", &[(1, "*", 4)]);
    common::set_small_asks(&mut c, "late", &[(1, "*", 4)]);
    c
}

/// Containers each app gets from one heartbeat with room for `free_gb` of them.
fn first_served(c: &mut Core, free_gb: u64) -> Vec<(String, u32)> {
    let ds = common::heartbeat_free(c, "h1", free_gb, free_gb as u32, 10_000);
    ds.iter().map(|d| (d.app.clone(), d.count)).collect()
}

/// Policies whose order puts application priority first (fsp, the default, is not FIFO but
/// compares priority before its size order, as CapacityScheduler does inside a queue).
const FIFO_POLICIES: [&str; 3] = ["fifo", "capacity", "fsp"];

#[test]
fn equal_priorities_keep_submission_order() {
    for policy in FIFO_POLICIES {
        let mut c = two_waiting(policy, 0, 0);
        assert_eq!(
            first_served(&mut c, 2),
            vec![("early".to_string(), 2)],
            "{policy}"
        );
    }
}

#[test]
fn a_higher_priority_at_submission_goes_first() {
    for policy in FIFO_POLICIES {
        let mut c = two_waiting(policy, 0, 5);
        assert_eq!(
            first_served(&mut c, 2),
            vec![("late".to_string(), 2)],
            "{policy}"
        );
        assert_eq!(c.state().app_by_id("late").unwrap().priority, 5);
    }
}

#[test]
fn a_priority_update_reorders_waiting_apps() {
    for policy in FIFO_POLICIES {
        let mut c = two_waiting(policy, 0, 0);
        // A heartbeat with no room: both apps are in the pending index already.
        assert!(first_served(&mut c, 0).is_empty());
        set_priority(&mut c, "late", 10);
        assert_eq!(
            first_served(&mut c, 2),
            vec![("late".to_string(), 2)],
            "{policy}: the raised app is served first"
        );
        // Lowered again below the other: the other one is first again.
        set_priority(&mut c, "late", -1);
        assert_eq!(
            first_served(&mut c, 1),
            vec![("early".to_string(), 1)],
            "{policy}"
        );
    }
}

/// `fair` orders by share; between apps with equal shares its tie-break is the FIFO order, so
/// priority decides there too.
#[test]
fn fair_breaks_share_ties_by_priority() {
    let mut c = two_waiting("fair", 0, 0);
    assert_eq!(first_served(&mut c, 1), vec![("early".to_string(), 1)]);
    let mut c = two_waiting("fair", 0, 0);
    set_priority(&mut c, "late", 3);
    assert_eq!(first_served(&mut c, 1), vec![("late".to_string(), 1)]);
}

#[test]
fn a_replayed_app_added_carries_the_current_priority() {
    let mut c = two_waiting("fifo", 0, 0);
    // RM recovery and core rebuilds replay app_added with the priority the RM holds now.
    add_app(&mut c, "late", "default", 2_000, 7);
    assert_eq!(first_served(&mut c, 1), vec![("late".to_string(), 1)]);
}

#[test]
fn priority_of_an_unknown_app_is_refused() {
    let mut c = two_waiting("fifo", 0, 0);
    let r = c.handle(Event::AppPriorityChanged {
        app: "ghost".into(),
        priority: 1,
    });
    assert!(
        matches!(r, Err(CoreError::UnknownApp(ref a)) if a == "ghost"),
        "{r:?}"
    );
}

fn capacity_core() -> (Core, u32) {
    let mut c = common::core_with(&[
        ("locus.policy", "capacity"),
        ("locus.capacity.queues", "a:50:60,b:50:60"),
    ]);
    for i in 0..10 {
        common::add_node(&mut c, &format!("h{i}"), "/r1", 10, 10);
    }
    // MapReduce, so its priority-0 container counts as its AM.
    c.handle(Event::AppAdded {
        app: "app".into(),
        queue: "a".into(),
        user: "alice".into(),
        name: "app".into(),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms: 1,
        priority: 0,
        recovered: false,
    })
    .unwrap();
    common::set_small_asks(&mut c, "app", &[(0, "*", 1)]);
    let mut next = 0;
    let ds = common::heartbeat_free(&mut c, "h0", 10, 10, 1_000);
    common::execute(&mut c, &ds, &mut next);
    common::set_small_asks(&mut c, "app", &[(20, "*", 12)]);
    for i in 1..4 {
        let ds = common::heartbeat_free(&mut c, &format!("h{i}"), 10, 10, 2_000);
        common::execute(&mut c, &ds, &mut next);
    }
    (c, next)
}

#[test]
fn a_moved_app_takes_its_usage_to_the_new_queue() {
    let (mut c, _) = capacity_core();
    // 1 AM + 12 maps of 1 GB would be 13 GB; queue a may hold 60 GB, so all 13 run.
    let held = c.state().app_by_id("app").unwrap().used;
    assert_eq!(held, Resource::new(13 * GB, 13));
    assert_eq!(c.queue_headroom_mb("a"), Some(60 * GB - 13 * GB));
    c.handle(Event::AppMoved {
        app: "app".into(),
        queue: "root.b".into(),
    })
    .unwrap();
    let app = c.state().app_by_id("app").unwrap();
    assert_eq!(app.queue, "b", "filed under the configured name");
    assert!(c.state().queues().get("a").is_none(), "a keeps nothing");
    let b = c.state().queues().get("b").unwrap();
    assert_eq!((b.apps, b.running), (1, 13));
    assert_eq!(b.used, Resource::new(13 * GB, 13));
    assert_eq!(b.am_used, Resource::new(GB, 1));
    assert_eq!(c.queue_headroom_mb("a"), Some(60 * GB));
    assert_eq!(c.queue_headroom_mb("b"), Some(60 * GB - 13 * GB));
}

#[test]
fn a_moved_app_is_served_and_released_as_the_new_queues() {
    let (mut c, mut next) = capacity_core();
    c.handle(Event::AppMoved {
        app: "app".into(),
        queue: "b".into(),
    })
    .unwrap();
    // New pending containers are charged to b: b may hold 60 GB, so 47 more of 1 GB fit.
    common::set_small_asks(&mut c, "app", &[(20, "*", 100)]);
    let mut got = 0;
    for i in 4..10 {
        let ds = common::heartbeat_free(&mut c, &format!("h{i}"), 10, 10, 3_000);
        got += common::execute(&mut c, &ds, &mut next).len();
    }
    assert_eq!(got, 47, "b's maximum-capacity bounds the moved app");
    assert_eq!(c.queue_headroom_mb("b"), Some(0));
    // Releases after the move come out of b, and nothing is left behind anywhere.
    let ids: Vec<String> = c
        .state()
        .containers()
        .iter()
        .map(|c| (c.id.clone(), c.node.clone()))
        .map(|(id, node)| format!("{id} {node}"))
        .collect();
    for entry in ids {
        let (id, node) = entry.split_once(' ').unwrap();
        c.handle(Event::ContainerReleased {
            app: "app".into(),
            container: id.into(),
            node: node.into(),
            resource: Resource::new(GB, 1),
        })
        .unwrap();
    }
    let b = c.state().queues().get("b").unwrap();
    assert_eq!(
        (b.apps, b.running, b.used, b.am_used),
        (1, 0, Resource::ZERO, Resource::ZERO)
    );
    assert!(c.state().queues().get("a").is_none());
}

#[test]
fn moves_to_unknown_queues_or_of_unknown_apps_change_nothing() {
    let (mut c, _) = capacity_core();
    let r = c.handle(Event::AppMoved {
        app: "app".into(),
        queue: "c".into(),
    });
    assert!(matches!(r, Err(CoreError::UnknownQueue { .. })), "{r:?}");
    assert_eq!(c.state().app_by_id("app").unwrap().queue, "a");
    assert_eq!(c.state().queues().get("a").unwrap().running, 13);
    let r = c.handle(Event::AppMoved {
        app: "ghost".into(),
        queue: "b".into(),
    });
    assert!(
        matches!(r, Err(CoreError::UnknownApp(ref a)) if a == "ghost"),
        "{r:?}"
    );
    assert!(c.state().queues().get("b").is_none());
}
