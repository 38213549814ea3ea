//! Decision time per node heartbeat under the default policy while thousands of applications
//! wait for an AM slot: 100 nodes of 32 GB, their 10 % AM share (320 GB) held by 320 running
//! MapReduce jobs whose maps keep asking, and 1,000, 10,000 or 30,000 more jobs submitted, each
//! asking only for its 1 GB AM, which the share does not let start.
//!
//! Each heartbeat offers a node 4 GB: the running jobs' maps take it. Outside the timed part
//! the decisions are executed as the shim would (`container_allocated`), the containers
//! released and the jobs' map asks sent again, so every iteration sees the same state. The
//! time is the thread's CPU time (the wall clock where there is none), so a loaded machine's
//! other work does not count.
//! `yarn.scheduler.capacity.maximum-applications` is raised to 100,000 so every job is admitted.
//! Figures: docs/results/2026-11-29-waiting-apps.md.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

#[path = "common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_time;
use locus_core::{Ask, ContainerInfo, Core, Event, Heartbeat, Locality, Resource};

const NODES: usize = 100;
const NODE_GB: u64 = 32;
/// 10 % of the cluster's memory in 1 GB AMs: the share is full.
const RUNNING: usize = 320;
const GB: u64 = 1024;

fn node(i: usize) -> String {
    format!("node{i:03}:8041")
}

fn app_id(a: usize) -> String {
    format!("application_1700000000000_{a:06}")
}

fn add_app(core: &mut Core, a: usize) {
    core.handle(Event::AppAdded {
        app: app_id(a),
        queue: "default".into(),
        user: format!("user{}", a % 50),
        name: format!("job {a}"),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms: a as u64,
        priority: 0,
        recovered: false,
    })
    .expect("app");
}

fn ask(priority: i32, count: u32) -> Vec<Ask> {
    vec![Ask {
        priority,
        allocation_request_id: 0,
        resource_name: "*".into(),
        capability: Resource::new(GB, 1),
        count,
        relax_locality: true,
    }]
}

fn maps() -> Vec<Ask> {
    ask(20, 10_000)
}

/// capacity-scheduler.xml's one queue, with `yarn.scheduler.capacity.maximum-applications`
/// raised above the 10,000 default so every job is admitted.
const TREE: &str = r#"{"maximum_applications":100000,"queues":[{"path":"root","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.1,"maximum_applications":-1},{"path":"root.default","capacity":100,"maximum_capacity":100,"user_limit_factor":1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.1,"maximum_applications":-1}]}"#;

fn build(waiting: usize) -> Core {
    let settings = BTreeMap::from([("locus.capacity.tree".to_string(), TREE.to_string())]);
    let mut core = Core::new(&settings).expect("default policy");
    for i in 0..NODES {
        core.handle(Event::NodeAdded {
            node: node(i),
            host: node(i).replace(":8041", ""),
            rack: "/rack0".into(),
            capability: Resource::new(NODE_GB * GB, 32),
        })
        .expect("node");
    }
    for a in 0..RUNNING {
        add_app(&mut core, a);
        core.handle(Event::ContainerAllocated {
            container: ContainerInfo {
                container: format!("container_am_{a}"),
                app: app_id(a),
                node: node(a % NODES),
                priority: 0,
                resource: Resource::new(GB, 1),
            },
            locality: Locality::OffSwitch,
            allocation_request_id: 0,
            recovered: true,
        })
        .expect("am");
        core.handle(Event::AsksUpdated {
            app: app_id(a),
            asks: maps(),
        })
        .expect("maps");
    }
    for a in RUNNING..RUNNING + waiting {
        add_app(&mut core, a);
        core.handle(Event::AsksUpdated {
            app: app_id(a),
            asks: ask(0, 1),
        })
        .expect("am ask");
    }
    core
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("heartbeat_100_nodes_waiting_apps");
    let mut next_container = 0u64;
    for waiting in [1_000usize, 10_000, 30_000] {
        let mut core = build(waiting);
        let mut i = 0usize;
        let mut now = 0u64;
        group.bench_function(BenchmarkId::from_parameter(waiting), |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    i = (i + 1) % NODES;
                    now += 100;
                    let hb = Heartbeat {
                        node: node(i),
                        unallocated: Resource::new(4 * GB, 4),
                        now_ms: now,
                        sweep: false,
                        eager: false,
                    };
                    let (cpu, wall) = (cpu_time(), Instant::now());
                    let resp = core.heartbeat(&hb).expect("heartbeat");
                    timed += match (cpu, cpu_time()) {
                        (Some(a), Some(b)) => b.saturating_sub(a),
                        _ => wall.elapsed(),
                    };
                    let mut touched = BTreeMap::new();
                    for d in resp.decisions {
                        assert_eq!(d.priority, 20, "only the running jobs' maps get room");
                        for _ in 0..d.count {
                            next_container += 1;
                            let container = format!("container_{next_container}");
                            core.handle(Event::ContainerAllocated {
                                container: ContainerInfo {
                                    container: container.clone(),
                                    app: d.app.clone(),
                                    node: d.node.clone(),
                                    priority: d.priority,
                                    resource: d.capability,
                                },
                                locality: d.locality,
                                allocation_request_id: d.allocation_request_id,
                                recovered: false,
                            })
                            .expect("allocated");
                            core.handle(Event::ContainerReleased {
                                app: d.app.clone(),
                                container,
                                node: d.node.clone(),
                                resource: d.capability,
                            })
                            .expect("released");
                        }
                        touched.insert(d.app.clone(), ());
                    }
                    for app in touched.into_keys() {
                        core.handle(Event::AsksUpdated { app, asks: maps() })
                            .expect("snapshot");
                    }
                }
                timed
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
