//! Decision time per node heartbeat on a 1,000-node / 200-application state whose asks look
//! like MapReduce maps: each map names the three hosts holding its block replicas (two on one
//! rack, one on another, as HDFS places them), their racks, and `*`.
//!
//! `fill`: a heartbeat with room for 8 containers on a rotating node. Outside the timed part
//! the decisions are executed as the shim would (`container_allocated`), the containers
//! released and the app's original asks snapshot sent again, so every iteration sees the same
//! state.
//! `full_node`: a heartbeat whose free resource fits no ask (most heartbeats on a busy
//! cluster): answered from each app's smallest-ask floor without walking any rows.
//! `scan`: the worst case. Every map is strict (relax_locality=false on its racks and `*`) and
//! the heartbeating node holds no replica, so the procedure looks at every app's every key
//! and decides nothing.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use locus_core::{Ask, ContainerInfo, Core, Event, Heartbeat, Resource};

const NODES: usize = 1_000;
const RACKS: usize = 25;
const APPS: usize = 200;
const MAPS_PER_APP: usize = 60;
const GB: u64 = 1024;

/// Deterministic xorshift so runs are comparable without a `rand` dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }
}

fn host(i: usize) -> String {
    format!("node{i:04}")
}

fn rack_of(i: usize) -> String {
    if i >= NODES {
        return "/dc9/rack99".into();
    }
    let r = i % RACKS;
    format!("/dc{}/rack{r:02}", r % 2)
}

/// Nodes with no replicas, in a rack of their own, for the `scan` case.
const EMPTY_NODES: usize = 10;

fn build(strict: bool) -> (Core, BTreeMap<String, Vec<Ask>>) {
    let mut snapshots = BTreeMap::new();
    let mut core = Core::new(&BTreeMap::new()).expect("default settings");
    for i in 0..NODES + EMPTY_NODES {
        core.handle(Event::NodeAdded {
            node: format!("{}:8041", host(i)),
            host: host(i),
            rack: rack_of(i),
            capability: Resource::new(64 * GB, 32),
        })
        .expect("node");
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for a in 0..APPS {
        let app = format!("application_1700000000000_{a:04}");
        core.handle(Event::AppAdded {
            app: app.clone(),
            queue: "default".into(),
            user: "bench".into(),
            name: format!("wordcount {a}"),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: a as u64,
            priority: 0,
            recovered: false,
        })
        .expect("app");
        let mut rows: BTreeMap<String, u32> = BTreeMap::new();
        for _ in 0..MAPS_PER_APP {
            let first = rng.next(NODES);
            // Second replica on the same rack, third on another rack.
            let same_rack = (first + RACKS * (1 + rng.next(NODES / RACKS - 1))) % NODES;
            let other = (first + 1 + rng.next(RACKS - 1)) % NODES;
            let mut racks = Vec::new();
            for n in [first, same_rack, other] {
                *rows.entry(host(n)).or_default() += 1;
                if !racks.contains(&rack_of(n)) {
                    racks.push(rack_of(n));
                }
            }
            for r in racks {
                *rows.entry(r).or_default() += 1;
            }
        }
        rows.insert("*".into(), MAPS_PER_APP as u32);
        let map = |name: String, count: u32| Ask {
            priority: 20,
            allocation_request_id: 0,
            relax_locality: !(strict && (name == "*" || name.starts_with('/'))),
            resource_name: name,
            capability: Resource::new(2 * GB, 1),
            count,
        };
        let mut asks: Vec<Ask> = rows.into_iter().map(|(n, c)| map(n, c)).collect();
        asks.push(Ask {
            priority: 10,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability: Resource::new(3 * GB, 1),
            count: 0,
            relax_locality: true,
        });
        snapshots.insert(app.clone(), asks.clone());
        core.handle(Event::AsksUpdated { app, asks }).expect("asks");
    }
    (core, snapshots)
}

fn bench(c: &mut Criterion) {
    let (mut core, snapshots) = build(false);
    let mut next_container = 0u64;
    let mut group = c.benchmark_group("heartbeat_1000_nodes_200_apps");
    let mut i = 0usize;
    group.bench_function("fill", |b| {
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            for _ in 0..iters {
                i = (i + 1) % NODES;
                let hb = Heartbeat {
                    node: format!("{}:8041", host(i)),
                    unallocated: Resource::new(16 * GB, 8),
                    now_ms: i as u64,
                    sweep: false,
                    eager: false,
                };
                let start = Instant::now();
                let resp = core.heartbeat(&hb).expect("heartbeat");
                timed += start.elapsed();
                let mut touched = BTreeMap::new();
                for d in resp.decisions {
                    for _ in 0..d.count {
                        next_container += 1;
                        let container = format!("container_{next_container}");
                        let info = ContainerInfo {
                            container: container.clone(),
                            app: d.app.clone(),
                            node: d.node.clone(),
                            priority: d.priority,
                            resource: d.capability,
                        };
                        core.handle(Event::ContainerAllocated {
                            container: info,
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
                    let asks = snapshots.get(&app).cloned().unwrap_or_default();
                    core.handle(Event::AsksUpdated { app, asks })
                        .expect("snapshot");
                }
            }
            timed
        })
    });
    group.bench_function("full_node", |b| {
        b.iter(|| {
            i = (i + 1) % NODES;
            let hb = Heartbeat {
                node: format!("{}:8041", host(i)),
                unallocated: Resource::new(GB, 8),
                now_ms: i as u64,
                sweep: false,
                eager: false,
            };
            let resp = core.heartbeat(&hb).expect("heartbeat");
            assert!(resp.decisions.is_empty());
        })
    });
    let (mut strict, _) = build(true);
    group.bench_function("scan", |b| {
        b.iter(|| {
            i = (i + 1) % EMPTY_NODES;
            let hb = Heartbeat {
                node: format!("{}:8041", host(NODES + i)),
                unallocated: Resource::new(64 * GB, 32),
                now_ms: i as u64,
                sweep: false,
                eager: false,
            };
            let resp = strict.heartbeat(&hb).expect("heartbeat");
            assert!(resp.decisions.is_empty());
        })
    });
    group.finish();
    let s = core.stats();
    assert_eq!(
        s.pending_containers,
        (APPS * MAPS_PER_APP) as u64,
        "every iteration was undone"
    );
    assert_eq!((s.running_containers, s.in_flight, s.backed_off), (0, 0, 0));
    println!(
        "checked: {} heartbeats, {} containers decided ({} node-local, {} rack-local, {} off-switch)",
        s.heartbeats, s.decided_containers, s.node_local, s.rack_local, s.off_switch
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
