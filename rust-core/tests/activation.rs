//! Activation (docs/operator/scheduling.md): an application whose AM the AM bound cannot admit
//! now is not ordered by any policy until its AM fits, as CapacityScheduler keeps such
//! applications pending and orders only activated ones. So the work of a node offer follows
//! the activated applications, not the ones waiting.

mod common;

use common::{
    add_app_in, add_node, core_with, execute, heartbeat_free, node_id, set_asks_rows, GB,
};
use locus_core::{ContainerInfo, Core, Event, Locality, Resource};

const NODES: usize = 10;
/// 10 nodes of 32 GB: 32 running AMs of 5 GB hold half the cluster, every policy's AM bound
/// (fsp's 10 % share and its stretch to half, the queue's 10 %, the others' half).
const RUNNING: usize = 32;
const AM_GB: u64 = 5;

/// One queue whose `maximum-applications` admits every job of these tests.
const TREE: &str = r#"{"maximum_applications":100000,"queues":[{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.1,"maximum_applications":-1},{"path":"root.default","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.1,"maximum_applications":-1}]}"#;

fn app(i: usize) -> String {
    format!("application_1_{i:06}")
}

/// `RUNNING` jobs whose AMs run and whose maps keep asking, then `waiting` jobs asking only
/// for their 1 GB AM, which the AM bound does not admit.
fn cluster(policy: &str, waiting: usize) -> Core {
    let mut c = core_with(&[("locus.policy", policy), ("locus.capacity.tree", TREE)]);
    for n in 0..NODES {
        add_node(&mut c, &format!("h{n}"), "/r1", 32, 32);
    }
    for i in 0..RUNNING {
        add_app_in(
            &mut c,
            &app(i),
            "default",
            &format!("u{}", i % 5),
            "j",
            i as u64,
            "MAPREDUCE",
            &[],
        );
        c.handle(Event::ContainerAllocated {
            container: ContainerInfo {
                container: format!("container_am_{i}"),
                app: app(i),
                node: node_id(&format!("h{}", i % NODES)),
                priority: 0,
                resource: Resource::new(AM_GB * GB, 1),
            },
            locality: Locality::OffSwitch,
            allocation_request_id: 0,
            recovered: true,
        })
        .unwrap();
        set_asks_rows(&mut c, &app(i), &[(20, "*", 1000, 1, 1, true)]);
    }
    for i in RUNNING..RUNNING + waiting {
        add_app_in(
            &mut c,
            &app(i),
            "default",
            &format!("u{}", i % 5),
            "j",
            i as u64,
            "MAPREDUCE",
            &[],
        );
        set_asks_rows(&mut c, &app(i), &[(0, "*", 1, 1, 1, true)]);
    }
    c
}

/// The apps a policy may order on an offer: with 10,000 jobs waiting for an AM slot, the
/// same as with 10 (the running jobs, plus at most the few the AM bound's exceptions admit).
#[test]
fn the_apps_an_offer_orders_do_not_grow_with_apps_waiting_for_an_am() {
    for policy in [
        "fsp", "fair", "fifo", "capacity", "td", "joss-t", "fresh", "mrosa",
    ] {
        let mut seen = Vec::new();
        for waiting in [10usize, 10_000] {
            let mut c = cluster(policy, waiting);
            let ds = heartbeat_free(&mut c, "h0", 4, 4, 1_000);
            assert!(
                !ds.is_empty(),
                "{policy}: the running jobs' maps take the room"
            );
            let pending = c.state().pending_apps_by_submission().count();
            let s = c.stats();
            assert!(
                pending <= RUNNING + 2,
                "{policy}, {waiting} waiting: {pending} apps may be ordered"
            );
            assert!(
                s.apps_awaiting_activation as usize >= waiting - 2,
                "{policy}: {} of {waiting} wait for activation",
                s.apps_awaiting_activation
            );
            seen.push((pending, s.ordered_apps));
        }
        assert_eq!(
            seen[0], seen[1],
            "{policy}: the offer's work grew with the waiting apps"
        );
    }
}

/// An app whose AM runs is activated whatever the AM room, a recovered one included: its
/// maps are offered the node while the AM share is full and thousands wait.
#[test]
fn an_app_whose_am_runs_is_activated() {
    let mut c = cluster("fsp", 100);
    let late = app(RUNNING + 100);
    add_app_in(
        &mut c,
        &late,
        "default",
        "u9",
        "j",
        10_000,
        "MAPREDUCE",
        &[],
    );
    c.handle(Event::ContainerAllocated {
        container: ContainerInfo {
            container: "container_late_am".into(),
            app: late.clone(),
            node: node_id("h1"),
            priority: 0,
            resource: Resource::new(GB, 1),
        },
        locality: Locality::OffSwitch,
        allocation_request_id: 0,
        recovered: true,
    })
    .unwrap();
    set_asks_rows(&mut c, &late, &[(20, "*", 1, 1, 1, true)]);
    let arrival = c.state().app_by_id(&late).unwrap().arrival;
    let mut got = false;
    for n in 0..NODES {
        let ds = heartbeat_free(&mut c, &format!("h{n}"), 32, 32, 1_000 + n as u64);
        assert!(c.state().is_activated(arrival));
        got |= ds.iter().any(|d| d.app == late);
    }
    assert!(got, "the recovered job's map was never offered a node");
}

/// Apps are activated in FIFO order, one per free AM slot, not all at once: a finished AM
/// lets exactly the next waiting job start.
#[test]
fn a_finished_am_activates_the_next_job_in_submission_order() {
    let mut c = cluster("fsp", 50);
    // The running jobs are in their last tasks (they ask for nothing more) and job 0 ends.
    for i in 1..RUNNING {
        c.handle(Event::AsksUpdated {
            app: app(i),
            asks: vec![],
        })
        .unwrap();
    }
    c.handle(Event::AppRemoved { app: app(0) }).unwrap();
    let mut next = 0u32;
    let mut started = Vec::new();
    for n in 0..NODES {
        let ds = heartbeat_free(&mut c, &format!("h{n}"), 8, 8, 2_000 + n as u64);
        started.extend(ds.iter().filter(|d| d.priority == 0).map(|d| d.app.clone()));
        execute(&mut c, &ds, &mut next);
    }
    assert_eq!(
        started,
        vec![app(RUNNING)],
        "one AM slot freed: the first waiting job"
    );
    assert_eq!(c.stats().apps_awaiting_activation, 49);
}
