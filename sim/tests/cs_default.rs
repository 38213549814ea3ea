//! `cs-default` against CapacityScheduler's contract (Hadoop 3.5 defaults): locality waits
//! counted in missed scheduling opportunities, the 10 % AM share, asynchronous scheduling.

use std::collections::BTreeMap;

use clap::Parser;
use locus_core::{Ask, Core, Decision, Event, Heartbeat, Locality, Resource};
use locus_sim::cluster::Cluster;
use locus_sim::cs_default;
use locus_sim::engine::{Engine, Raw};
use locus_sim::run::{self, Args};
use locus_sim::workload::{JobSpec, MapSpec, Workload};

const NODE: Resource = Resource {
    memory_mb: 4096,
    vcores: 8,
    extra: [0; locus_core::protocol::MAX_EXTRA_TYPES],
};

fn core_for(nodes: usize, racks: usize) -> (Core, Cluster) {
    let cluster = match Cluster::uniform(nodes, racks, 1, NODE) {
        Ok(c) => c,
        Err(e) => panic!("cluster: {e}"),
    };
    let mut props = cs_default::props();
    cs_default::fit_to_cluster(&mut props, nodes);
    let mut core = match Core::new(&props) {
        Ok(c) => c,
        Err(e) => panic!("cs-default's settings are refused by the core: {e}"),
    };
    for i in 0..nodes {
        send(
            &mut core,
            Event::NodeAdded {
                node: cluster.node_id(i),
                host: cluster.nodes[i].host.clone(),
                rack: cluster.racks[cluster.rack_of(i)].name.clone(),
                capability: NODE,
            },
        );
    }
    (core, cluster)
}

fn send(core: &mut Core, ev: Event) {
    if let Err(e) = core.handle(ev) {
        panic!("the core refused an event: {e}");
    }
}

fn ask(name: &str, count: u32) -> Ask {
    Ask {
        priority: 20,
        allocation_request_id: 0,
        resource_name: name.to_string(),
        capability: Resource::new(256, 1),
        count,
        relax_locality: true,
    }
}

/// A MapReduce job whose `maps` maps all read blocks on node 0 (replication 1).
fn job_on_node_zero(core: &mut Core, cluster: &Cluster, maps: u32) {
    let app = "application_1_0001".to_string();
    send(
        core,
        Event::AppAdded {
            app: app.clone(),
            queue: "default".into(),
            user: "u".into(),
            name: "n".into(),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: 0,
            priority: 0,
            recovered: false,
        },
    );
    send(
        core,
        Event::AttemptAdded {
            app: app.clone(),
            attempt: format!("{app}_000001"),
        },
    );
    let rack = cluster.racks[cluster.rack_of(0)].name.clone();
    send(
        core,
        Event::AsksUpdated {
            app,
            asks: vec![
                ask(&cluster.nodes[0].host, maps),
                ask(&rack, maps),
                ask("*", maps),
            ],
        },
    );
}

/// Offers `node` once; the decisions it got.
fn offer(core: &mut Core, cluster: &Cluster, node: usize, now_ms: u64) -> Vec<Decision> {
    let hb = Heartbeat {
        node: cluster.node_id(node),
        unallocated: NODE,
        now_ms,
        sweep: false,
        eager: false,
    };
    match core.heartbeat(&hb) {
        Ok(r) => r.decisions,
        Err(e) => panic!("heartbeat refused: {e}"),
    }
}

/// Offers the nodes `from` in turn until one gets a container; (misses before it, its locality).
fn misses_until_placed(
    core: &mut Core,
    cluster: &Cluster,
    from: &[usize],
    limit: usize,
) -> (usize, Locality) {
    for k in 0..limit {
        let n = from[k % from.len()];
        let got = offer(core, cluster, n, 1000 + k as u64);
        if let Some(d) = got.first() {
            return (k, d.locality);
        }
    }
    panic!("no container after {limit} offers");
}

/// node-locality-delay 40: a map that can only be node-local on node 0 is refused by 40 other
/// nodes of its rack and placed rack-local on the 41st (RegularContainerAllocator: rack-local
/// once the missed opportunities exceed the delay).
#[test]
fn a_map_waits_forty_missed_opportunities_before_going_rack_local() {
    let (mut core, cluster) = core_for(100, 2);
    job_on_node_zero(&mut core, &cluster, 200);
    let same_rack: Vec<usize> = (1..cluster.rack_nodes[0].len())
        .map(|i| cluster.rack_nodes[0][i])
        .collect();
    let (missed, level) = misses_until_placed(&mut core, &cluster, &same_rack, 500);
    assert_eq!(missed, 40, "misses before the first rack-local container");
    assert_eq!(level, Locality::RackLocal);
}

/// CapacityScheduler caps the delay at the cluster's node count: on the demo's 4 nodes a map
/// waits 4 opportunities, not 40.
#[test]
fn on_four_nodes_the_wait_is_four_opportunities() {
    let (mut core, cluster) = core_for(4, 2);
    job_on_node_zero(&mut core, &cluster, 8);
    let (missed, level) = misses_until_placed(&mut core, &cluster, &[1], 50);
    assert_eq!(missed, 4);
    assert_eq!(level, Locality::RackLocal);
}

/// rack-locality-additional-delay -1: off-switch once the misses exceed min(nodes, outstanding
/// × locality wait factor), which is `nodes` for a job with at least `nodes` maps whose asks
/// span the cluster: offered only other-rack nodes, the map goes off-switch on offer 101.
#[test]
fn a_big_job_goes_off_switch_after_as_many_misses_as_nodes() {
    let (mut core, cluster) = core_for(100, 2);
    job_on_node_zero(&mut core, &cluster, 200);
    let other_rack = cluster.rack_nodes[1].clone();
    let (missed, level) = misses_until_placed(&mut core, &cluster, &other_rack, 500);
    assert_eq!(missed, 100);
    assert_eq!(level, Locality::OffSwitch);
}

fn small_jobs(n: usize, cluster: &Cluster) -> Vec<JobSpec> {
    (0..n)
        .map(|i| JobSpec {
            name: format!("j{i}"),
            queue: "default".into(),
            user: "u".into(),
            submit_ms: 0,
            maps: vec![MapSpec {
                input_bytes: 64 << 20,
                replicas: vec![i % cluster.nodes.len()],
                fixed_ms: None,
            }],
            reduces: vec![],
            shuffle_bytes: 0,
            output_bytes: 0,
            am: Resource::new(512, 1),
            map: Resource::new(256, 1),
            reduce: Resource::new(256, 1),
            tags: vec![],
        })
        .collect()
}

fn run_policy(w: &Workload, extra: &[&str], policy: &str) -> Raw {
    let mut argv = vec!["locus-sim", "--no-progress", "--policy", policy];
    argv.extend_from_slice(extra);
    let args = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => panic!("{e}"),
    };
    let cfg = match run::config(&args, &w.cluster) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let (label, mut props) = match run::policies(&args) {
        Ok(mut p) => p.remove(0),
        Err(e) => panic!("{e}"),
    };
    cs_default::fit_to_cluster(&mut props, w.cluster.nodes.len());
    let engine = match Engine::new(w, &cfg, &label, props) {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    match engine.run() {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

/// The most AMs alive at once: each AM holds its container from its grant to its job's end.
fn peak_ams(raw: &Raw) -> usize {
    let mut edges: Vec<(u64, i32)> = Vec::new();
    for (s, f) in raw.am_start_ms.iter().zip(&raw.finish_ms) {
        if let (Some(s), Some(f)) = (s, f) {
            edges.push((*s, 1));
            edges.push((*f, -1));
        }
    }
    edges.sort_by_key(|&(t, d)| (t, d));
    let (mut now, mut peak) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    peak as usize
}

/// maximum-am-resource-percent 0.1 of 4 x 4096 MB is 1638 MB: three 512 MB AMs, so a burst of
/// twelve jobs runs three at a time. Plain `capacity` (the shortcut's half-cluster AM share)
/// starts them all, so the measurement can tell the two apart.
#[test]
fn a_burst_runs_at_most_a_tenth_of_the_cluster_in_ams() {
    let cluster = match Cluster::uniform(4, 2, 1, NODE) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let w = Workload {
        name: "burst".into(),
        jobs: small_jobs(12, &cluster),
        cluster,
    };
    let cs = run_policy(&w, &[], cs_default::NAME);
    assert_eq!(cs.finished, 12);
    assert_eq!(peak_ams(&cs), 3, "AM starts: {:?}", cs.am_start_ms);
    let half = run_policy(&w, &[], "capacity");
    assert_eq!(half.finished, 12);
    assert!(
        peak_ams(&half) > 3,
        "capacity's AMs: {:?}",
        half.am_start_ms
    );
}

/// Asynchronous scheduling: a job submitted between two node heartbeats gets its AM container
/// within the scheduling thread's 5 ms, not at the next heartbeat (here 10 s away).
#[test]
fn asynchronous_scheduling_places_a_new_ask_without_waiting_for_a_heartbeat() {
    let cluster = match Cluster::uniform(4, 2, 1, NODE) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let mut jobs = small_jobs(1, &cluster);
    jobs[0].submit_ms = 12_345;
    let w = Workload {
        name: "one".into(),
        jobs,
        cluster,
    };
    let slow = ["--heartbeat-ms", "10000"];
    let cs = run_policy(&w, &slow, cs_default::NAME);
    assert_eq!(
        cs.am_start_ms[0],
        Some(12_345 + locus_sim::engine::ASYNC_INTERVAL_MS)
    );
    let sync = run_policy(&w, &slow, "capacity");
    // the 4 nodes beat at 0, 2.5, 5 and 7.5 s past each 10 s: the next after 12.345 s is 12.5 s
    assert_eq!(sync.am_start_ms[0], Some(12_500));
    assert!(cs.finish_ms[0] < sync.finish_ms[0]);
}

/// The baseline is a `--policy` item like any other and reports CapacityScheduler's settings
/// with its run.
#[test]
fn cs_default_is_selectable_and_records_what_it_stands_for() {
    let o = match run::run(&match Args::try_parse_from([
        "locus-sim",
        "--no-progress",
        "--fb-bins",
        "3",
        "--nodes",
        "8",
        "--racks",
        "2",
        "--policy",
        "fifo,cs-default",
    ]) {
        Ok(a) => a,
        Err(e) => panic!("{e}"),
    }) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let raw = &o.raws[1];
    assert_eq!(raw.label, "cs-default");
    assert_eq!(raw.finished, raw.jobs);
    let p: &BTreeMap<String, String> = &raw.props;
    assert_eq!(p["locus.policy"], "capacity");
    assert_eq!(p["yarn.scheduler.capacity.node-locality-delay"], "40");
    assert_eq!(p[cs_default::ASYNC_SCHEDULING], "true");
}
