//! Every combination of layers the settings accept runs a small mixed workload to the end:
//! MapReduce jobs (AM, then maps with block locations, then reduces) next to a generic
//! application, on two racks, with containers finishing after a few heartbeats. No job, AM or
//! generic container may starve under any accepted combination, in either scheduling mode (under
//! `async` each round's heartbeats are followed by sweeps offering every node with room, which
//! are not scheduling opportunities); refused combinations must be refused with a config error
//! naming the setting.

mod common;

use std::collections::BTreeMap;

use common::GB;
use locus_core::config::{HotspotKind, JobPolicyKind, LocalityKind, SchedulingModeKind};
use locus_core::{Ask, Core, CoreError, Event, Heartbeat, Resource};
/// Sweeps over every node with room after each round's heartbeats, in `async` mode.
const SWEEPS: u64 = 3;
const HOSTS: [(&str, &str); 4] = [("h1", "/r1"), ("h2", "/r1"), ("h3", "/r2"), ("h4", "/r2")];

fn ask(priority: i32, name: &str, count: u32) -> Ask {
    Ask {
        priority,
        allocation_request_id: 0,
        resource_name: name.into(),
        capability: Resource::new(GB, 1),
        count,
        relax_locality: true,
    }
}

/// The phase a MapReduce job's AM would be in, and its next full ask snapshot.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Phase {
    Am,
    Maps,
    Reduces,
    Done,
}

fn snapshot(phase: Phase, data_host: &str, data_rack: &str) -> Vec<Ask> {
    match phase {
        Phase::Am => vec![ask(0, "*", 1)],
        Phase::Maps => vec![
            ask(20, data_host, 6),
            ask(20, data_rack, 6),
            ask(20, "*", 6),
        ],
        Phase::Reduces => vec![ask(10, "*", 2)],
        Phase::Done => vec![],
    }
}

struct Running {
    id: String,
    app: String,
    node: String,
    resource: Resource,
    ends: u32,
}

/// Runs the workload; returns the round it finished in, or an error describing who starved.
fn run(c: &mut Core) -> Result<u32, String> {
    for (host, rack) in HOSTS {
        common::add_node_as(
            c,
            &format!("{host}:1"),
            host,
            rack,
            Resource::new(4 * GB, 4),
        );
    }
    let jobs = [
        ("mr1", "h1", "/r1"),
        ("mr2", "h3", "/r2"),
        ("mr3", "h2", "/r1"),
    ];
    let mut phase: BTreeMap<&str, Phase> = BTreeMap::new();
    for (i, (app, host, rack)) in jobs.iter().enumerate() {
        let name = format!("job{i}");
        common::add_app_in(c, app, "default", "u", &name, i as u64, "MAPREDUCE", &[]);
        phase.insert(app, Phase::Am);
        common::set_asks_vec(c, app, snapshot(Phase::Am, host, rack));
    }
    // Its own queue: under `capacity` the queues' limits then take part; other policies only
    // track the name.
    common::add_app_in(c, "spark", "etl", "u", "etl", 10, "SPARK", &[]);
    let spark_asks = vec![ask(1, "h4", 3), ask(1, "/r2", 3), ask(1, "*", 3)];
    common::set_asks_vec(c, "spark", spark_asks);

    let mut running: Vec<Running> = Vec::new();
    let mut next = 0;
    for round in 1..=120u32 {
        let now_ms = round as u64 * 1_000;
        // Finished containers first, as the RM reports them before the heartbeat.
        let (done, still): (Vec<_>, Vec<_>) = running.into_iter().partition(|r| r.ends <= round);
        running = still;
        for r in done {
            common::try_release(c, &r.app, &r.id, &r.node, r.resource)
                .map_err(|e| e.to_string())?;
        }
        let sweeps = match c.config().scheduling_mode() {
            SchedulingModeKind::Async => SWEEPS,
            _ => 0,
        };
        for (pass, (host, _)) in (0..=sweeps).flat_map(|pass| HOSTS.iter().map(move |h| (pass, *h)))
        {
            let node = format!("{host}:1");
            let used: u64 = running
                .iter()
                .filter(|r| r.node == node)
                .map(|r| r.resource.memory_mb)
                .sum();
            let free = 4 * GB - used;
            if pass > 0 && free == 0 {
                continue;
            }
            let unallocated = Resource::new(free, (free / GB) as u32);
            let hb = Heartbeat {
                node: node.clone(),
                unallocated,
                now_ms: now_ms + 5 * pass,
                sweep: pass > 0,
                eager: false,
            };
            let ds = c.heartbeat(&hb).map_err(|e| e.to_string())?.decisions;
            for d in ds {
                for _ in 0..d.count {
                    next += 1;
                    let id = format!("c{next}");
                    common::try_container_allocated(c, &d, &id).map_err(|e| e.to_string())?;
                    // The AM runs for the whole job; tasks for 3 rounds.
                    let ends = if d.priority == 0 { u32::MAX } else { round + 3 };
                    running.push(Running {
                        id,
                        app: d.app.clone(),
                        node: d.node.clone(),
                        resource: d.capability,
                        ends,
                    });
                }
            }
        }
        // Each AM moves on once nothing of its phase is outstanding or running.
        for (app, host, rack) in jobs {
            let p = phase[app];
            let pending = c
                .state()
                .app_by_id(app)
                .map_or(0, |a| a.asks.pending_containers());
            let tasks_running = running.iter().any(|r| r.app == app && r.ends != u32::MAX);
            if pending > 0 || tasks_running || p == Phase::Done {
                continue;
            }
            let next_phase = match p {
                Phase::Am => Phase::Maps,
                Phase::Maps => Phase::Reduces,
                Phase::Reduces | Phase::Done => Phase::Done,
            };
            phase.insert(app, next_phase);
            common::set_asks_vec(c, app, snapshot(next_phase, host, rack));
            if next_phase == Phase::Done {
                running.retain(|r| r.app != app);
                c.handle(Event::AppRemoved { app: app.into() }).unwrap();
            }
        }
        let spark_done = c
            .state()
            .app_by_id("spark")
            .is_some_and(|a| !a.asks.has_pending());
        if spark_done && phase.values().all(|p| *p == Phase::Done) {
            return Ok(round);
        }
    }
    let spark = c
        .state()
        .app_by_id("spark")
        .map_or(0, |a| a.asks.pending_containers());
    Err(format!(
        "not finished after 120 rounds: phases {phase:?}, spark pending {spark}"
    ))
}

#[test]
fn every_accepted_combination_runs_the_workload_to_the_end() {
    let _ = env_logger::builder().is_test(true).try_init();
    let mut ran = 0;
    let mut refused = 0;
    // Both of delay's rules for a container after idle misses (locus.delay.idle-room).
    for (mode, idle_room) in [
        ("heartbeat", "true"),
        ("async", "true"),
        ("heartbeat", "false"),
        ("async", "false"),
    ] {
        for policy in JobPolicyKind::ALLOWED {
            for locality in LocalityKind::ALLOWED {
                for hotspot in HotspotKind::ALLOWED {
                    let mut props: BTreeMap<String, String> = [
                        ("locus.scheduling.mode", mode),
                        ("locus.policy", *policy),
                        ("locus.locality", *locality),
                        ("locus.hotspot", *hotspot),
                        // Short non-local reads so the hot queue cools down within the run.
                        ("locus.td.split-bytes", "1000"),
                        ("locus.td.bandwidth", "1000"),
                        ("locus.delay.node-locality-threshold", "0.5"),
                        ("locus.delay.rack-locality-threshold", "0.5"),
                        ("locus.delay.idle-room", idle_room),
                    ]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                    if *policy == "capacity" {
                        // Two queues below the whole cluster each, so neither alone may take it all.
                        props.insert(
                            "locus.capacity.queues".into(),
                            "default:60:90,etl:40:80".into(),
                        );
                    }
                    let combo = format!(
                        "mode={mode} idle-room={idle_room} policy={policy} locality={locality} \
                         hotspot={hotspot}"
                    );
                    let mut c = match Core::new(&props) {
                        Ok(c) => c,
                        Err(CoreError::Config { key, message }) => {
                            assert!(key.starts_with("locus."), "{combo}: {key}: {message}");
                            refused += 1;
                            continue;
                        }
                        Err(e) => panic!("{combo}: {e}"),
                    };
                    if let Err(e) = run(&mut c) {
                        panic!("{combo}: {e}");
                    }
                    ran += 1;
                }
            }
        }
    }
    // 7 policies before capacity ran 30 combinations; capacity adds its 6; in both modes, under
    // both idle-room rules.
    assert!(ran >= 144, "ran {ran}, refused {refused}");
}
