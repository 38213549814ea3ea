//! Random cases: a small cluster on a few racks, MapReduce-shaped applications (AM at
//! priority 0, maps at 20, 5 or 19 with host/rack/`*` rows, reduces at 10, maps no node can
//! run) and generic ones (several
//! allocation request ids, `relax_locality=false` rows, sizes that fit no node), snapshots and
//! deltas, attempts failing, nodes joining, leaving and resizing, hint tags, and layer
//! reconfiguration mid-run. Heartbeats dominate, as on a real cluster.
//!
//! A case is small (up to 8 hosts on 3 racks, 10 apps) or, for a share of the seeds, large:
//! up to 16 hosts of up to 48 GB on 4 racks, 16 apps, most jobs holding a key no node can
//! serve (1 TB with relax_locality=true, pinned to hosts or racks the cluster never has), and
//! generic applications asking at MapReduce's priorities too. A blocker beside satisfiable
//! work on a large idle cluster is what an outside run saw starving under capped slot pools.

use locus_core::{Ask, Resource};

use crate::action::{Action, Case, IntraDraw};
use crate::combos;
use crate::model::{rack_name, TWO_LEVEL_RACKS};
use crate::rng::{mix, Rng};

/// Hosts that never join: `relax_locality=false` rows on them (or on their racks) are asks no
/// node can serve. Far above every case's hosts, so no case's cluster has them.
const ABSENT_HOSTS: std::ops::Range<u32> = 100..104;
/// A rack no node of any case is on (racks are numbered below [`Shape::racks`] ≤ 4).
const ABSENT_RACK: u32 = 9;

/// The cluster and workload a case draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub hosts: u32,
    pub racks: u32,
    pub apps: u32,
    /// Largest node memory (MB).
    pub node_mb: u64,
    /// Out of 6: how many MapReduce map keys no node can ever serve.
    pub blockers_in_6: u64,
    /// Percent of generic keys no node can ever serve (too big, or pinned to absent hosts).
    pub generic_blockers: u64,
    /// The first rack's number: from [`TWO_LEVEL_RACKS`] on, racks are `/dcN/rR` locations.
    pub rack_base: u32,
}

impl Shape {
    pub const SMALL: Shape = Shape {
        hosts: 8,
        racks: 3,
        apps: 10,
        node_mb: 16384,
        blockers_in_6: 2,
        generic_blockers: 0,
        rack_base: 0,
    };
    pub const LARGE: Shape = Shape {
        hosts: 16,
        racks: 4,
        apps: 16,
        node_mb: 49152,
        blockers_in_6: 4,
        generic_blockers: 25,
        rack_base: 0,
    };
    /// A long case's cluster: 16 hosts on 8 racks in two datacenters (`/dc4/r16` ..
    /// `/dc5/r23`), most jobs holding keys no node can serve.
    pub const LONG: Shape = Shape {
        hosts: 16,
        racks: 8,
        apps: 24,
        node_mb: 49152,
        blockers_in_6: 3,
        generic_blockers: 25,
        rack_base: TWO_LEVEL_RACKS,
    };

    pub(crate) fn rack_of(&self, host: u32) -> u32 {
        self.rack_base + host % self.racks
    }
}

/// What the random cases are drawn from.
#[derive(Debug, Clone)]
pub struct Options {
    /// Percent of seeds whose case is [`Shape::LARGE`]; the others are [`Shape::SMALL`].
    pub large_percent: u64,
    /// Indexes into [`combos::valid`] a case starts with and reconfigures to; empty: every one.
    pub combos: Vec<usize>,
    /// Percent of seeds whose case is long ([`long_case`]): jobs through their whole life
    /// on [`Shape::LONG`], [`Options::long_steps`] actions.
    pub long_percent: u64,
    /// Actions of a long case.
    pub long_steps: usize,
    /// Percent of seeds whose case is a contention case
    /// ([`crate::contention::contention_case`]): one queue fills the cluster, the other asks,
    /// preemption rounds run.
    pub contention_percent: u64,
}

/// Actions of a long case unless told otherwise: the length of the outside run's sequences
/// (about 7,600 operations each).
pub const LONG_STEPS: usize = 6000;

impl Default for Options {
    fn default() -> Self {
        Options {
            large_percent: 25,
            combos: Vec::new(),
            long_percent: 0,
            long_steps: LONG_STEPS,
            contention_percent: 0,
        }
    }
}

pub(crate) fn row(
    priority: i32,
    arid: i64,
    name: String,
    cap: Resource,
    count: u32,
    relax: bool,
) -> Ask {
    Ask {
        priority,
        allocation_request_id: arid,
        resource_name: name,
        capability: cap,
        count,
        relax_locality: relax,
    }
}

/// One capability per scheduler key of a case, as a real AM keeps (a key is one container
/// size); 3% of keys want more than any node has.
fn capability(seed: u64, app: u32, priority: i32, arid: i64) -> Resource {
    let mut rng = Rng::new(mix(&[seed, app as u64, priority as u64, arid as u64]));
    let mem = *rng.pick(&[256u64, 512, 1024, 1024, 2048, 3072, 4096, 8192]);
    let mem = if rng.chance(3) { 64 * 1024 } else { mem };
    with_gpus(
        Resource::new(mem, rng.range(1, 3) as u32),
        &[seed, app as u64, priority as u64, arid as u64],
    )
}

/// `r` with GPUs (the core's first type beyond memory and vcores) on one key in ten, one in
/// ten of those more than any node has; drawn apart from the other draws, so a seed's other
/// figures stay what they were.
fn with_gpus(mut r: Resource, key: &[u64]) -> Resource {
    let mut parts = key.to_vec();
    parts.push(0x6770);
    let mut rng = Rng::new(mix(&parts));
    if rng.chance(10) {
        r.extra[0] = if rng.chance(10) { 8 } else { rng.range(1, 2) };
    }
    r
}

/// A node's GPUs: a quarter of the nodes have one to four. Drawn apart, as [`with_gpus`].
fn node_gpus(seed: u64, host: u32, at: usize) -> u64 {
    let mut rng = Rng::new(mix(&[seed, host as u64, at as u64, 0x6770]));
    if rng.chance(25) {
        rng.range(1, 4)
    } else {
        0
    }
}

/// What one key of a case can be served by, the key's own like its size, so every snapshot
/// and delta of the key agrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Hosts of the cluster, relaxing to their racks and `*`.
    Cluster,
    /// 1 TB, relax_locality=true: bigger than every node.
    Huge,
    /// Pinned (relax_locality=false at the rack and `*`) to hosts that never join.
    AbsentHosts,
    /// Hosts that never join on a rack no node is on, relax_locality=false at `*` only.
    AbsentRack,
}

fn reach(seed: u64, app: u32, priority: i32, arid: i64, in_6: u64) -> Reach {
    let r = mix(&[seed, app as u64, priority as u64, arid as u64, 0xb10c]);
    if r % 6 >= in_6 {
        return Reach::Cluster;
    }
    match (r / 6) % 3 {
        0 => Reach::Huge,
        1 => Reach::AbsentHosts,
        _ => Reach::AbsentRack,
    }
}

/// The rows of `n` containers at (`priority`, `arid`) on hosts drawn from the key's reach, with
/// their racks and `*`.
fn located_rows(
    rng: &mut Rng,
    shape: &Shape,
    priority: i32,
    arid: i64,
    cap: Resource,
    reach: Reach,
) -> Vec<Ask> {
    let (cap, hosts) = match reach {
        Reach::Huge => (Resource::new(1 << 20, 1), 0..shape.hosts),
        Reach::Cluster => (cap, 0..shape.hosts),
        Reach::AbsentHosts | Reach::AbsentRack => (cap, ABSENT_HOSTS),
    };
    let rack_of = |h: u32| {
        if reach == Reach::AbsentRack {
            ABSENT_RACK
        } else {
            shape.rack_of(h)
        }
    };
    let rack_relax = reach != Reach::AbsentHosts;
    let any_relax = matches!(reach, Reach::Cluster | Reach::Huge);
    let mut rows = Vec::new();
    let mut total = 0;
    for _ in 0..rng.range(1, 4) {
        let h = rng.range(hosts.start as u64, hosts.end as u64 - 1) as u32;
        let n = rng.range(1, 5) as u32;
        total += n;
        rows.push(row(priority, arid, format!("h{h}"), cap, n, true));
        rows.push(row(
            priority,
            arid,
            rack_name(rack_of(h)),
            cap,
            n,
            rack_relax,
        ));
    }
    // Collapse duplicates (a host or rack named twice), as the AM's table does.
    rows.sort_by(|a, b| a.resource_name.cmp(&b.resource_name));
    let mut merged: Vec<Ask> = Vec::new();
    for r in rows {
        match merged.last_mut() {
            Some(m) if m.resource_name == r.resource_name => m.count += r.count,
            _ => merged.push(r),
        }
    }
    merged.push(row(priority, arid, "*".into(), cap, total, any_relax));
    merged
}

/// A MapReduce AM's snapshot in one of its phases: its AM, maps (at 20, or a re-run's 5 or
/// 19), reduces, or maps and reduces together (reduces are asked once enough maps end,
/// `mapreduce.job.reduce.slowstart.completedmaps`). Some map keys no node can ever run
/// ([`Shape::blockers_in_6`]): a size beyond every node, or pinned to hosts or a rack without a
/// NodeManager; the job's other keys, its reduces and other jobs' containers can, and must not
/// wait for them (docs/design/liveness.md, "Blocker").
fn mapreduce_asks(rng: &mut Rng, shape: &Shape, seed: u64, app: u32) -> Vec<Ask> {
    let priority = *rng.pick(&[20, 20, 20, 5, 19]);
    let reach = reach(seed, app, priority, 0, shape.blockers_in_6);
    let cap = capability(seed, app, priority, 0);
    let reduces = |rng: &mut Rng| {
        row(
            10,
            0,
            "*".into(),
            capability(seed, app, 10, 0),
            rng.range(1, 3) as u32,
            true,
        )
    };
    match rng.below(4) {
        0 => vec![row(0, 0, "*".into(), Resource::new(1024, 1), 1, true)],
        1 => located_rows(rng, shape, priority, 0, cap, reach),
        2 => vec![reduces(rng)],
        _ => {
            let mut rows = located_rows(rng, shape, priority, 0, cap, reach);
            rows.push(reduces(rng));
            rows
        }
    }
}

/// A generic application's rows: one or more allocation request ids, some pinned; in a large
/// case also at MapReduce's priorities (a generic application's keys there are tasks like any
/// other), and some keys no node can serve.
fn generic_asks(rng: &mut Rng, shape: &Shape, seed: u64, app: u32) -> Vec<Ask> {
    let mut rows = Vec::new();
    for arid in 0..rng.range(1, 3) as i64 {
        let prio = if shape.generic_blockers > 0 && rng.chance(30) {
            *rng.pick(&[5, 10, 19, 20])
        } else {
            rng.range(1, 5) as i32
        };
        let cap = capability(seed, app, prio, arid);
        let n = rng.range(1, 4) as u32;
        let blocker = mix(&[seed, app as u64, prio as u64, arid as u64, 0x9e7]) % 100;
        if blocker < shape.generic_blockers {
            let r = match blocker % 3 {
                0 => Reach::Huge,
                1 => Reach::AbsentHosts,
                _ => Reach::AbsentRack,
            };
            rows.extend(located_rows(rng, shape, prio, arid, cap, r));
        } else if rng.chance(40) {
            let h = rng.below(shape.hosts as u64) as u32;
            let pinned = rng.chance(50);
            rows.push(row(prio, arid, format!("h{h}"), cap, n, true));
            rows.push(row(
                prio,
                arid,
                rack_name(shape.rack_of(h)),
                cap,
                n,
                !pinned,
            ));
            rows.push(row(prio, arid, "*".into(), cap, n, !pinned));
        } else {
            rows.push(row(prio, arid, "*".into(), cap, n, true));
        }
    }
    rows
}

fn node_size(rng: &mut Rng, shape: &Shape) -> (u64, u32) {
    if shape.node_mb > 16384 && rng.chance(50) {
        return (*rng.pick(&[32768u64, 49152]), *rng.pick(&[16u32, 32]));
    }
    (
        *rng.pick(&[4096u64, 8192, 16384]),
        *rng.pick(&[4u32, 8, 16]),
    )
}

fn tags(rng: &mut Rng) -> Vec<String> {
    let mut t = Vec::new();
    if rng.chance(30) {
        t.push(format!("locus.deadline={}", rng.range(60, 3600)));
    }
    if rng.chance(20) {
        t.push(format!("locus.budget=0.{}", rng.range(1, 99)));
    }
    t
}

/// A long case's tags: besides [`tags`], most jobs describe themselves (`locus.fp=`,
/// `locus.input-type=`, which count for every user), so the jobs that come back under the same
/// name are classified by JoSS and profiled as the same job.
fn long_tags(rng: &mut Rng, app: u32) -> Vec<String> {
    let mut t = tags(rng);
    if rng.chance(80) {
        // Per job name (the model names app N `job{N % 5}`), so a profile's runs agree.
        t.push(format!(
            "locus.fp={}",
            ["0.2", "0.6", "1.5", "3", "0.9"][app as usize % 5]
        ));
        t.push(format!(
            "locus.input-type={}",
            ["web", "text"][app as usize % 2]
        ));
    }
    t
}

/// One random case of `steps` actions, drawn from every combination and both shapes.
pub fn case(seed: u64, steps: usize) -> Case {
    case_with(seed, steps, &Options::default())
}

/// One random case of `steps` actions, drawn as `opts` says.
pub fn case_with(seed: u64, steps: usize, opts: &Options) -> Case {
    // Its own draw, so the other cases of a seed stay what they were without long cases.
    if mix(&[seed, 0x10c6]) % 100 < opts.long_percent {
        return long_case(seed, opts.long_steps, opts);
    }
    if mix(&[seed, 0xc0e7]) % 100 < opts.contention_percent {
        return crate::contention::contention_case(seed, opts);
    }
    let mut rng = Rng::new(seed);
    let all: Vec<usize> = if opts.combos.is_empty() {
        (0..combos::valid().len()).collect()
    } else {
        opts.combos.clone()
    };
    let combo = *rng.pick(&all);
    let shape = if rng.chance(opts.large_percent) {
        Shape::LARGE
    } else {
        Shape::SMALL
    };
    let hosts = shape.hosts;
    let mut actions = Vec::new();
    // A cluster to start with, so most cases schedule something.
    for host in 0..rng.range(2, hosts as u64) as u32 {
        let (m, v) = node_size(&mut rng, &shape);
        actions.push(Action::AddNode {
            host,
            rack: shape.rack_of(host),
            memory_mb: m,
            vcores: v,
            gpus: node_gpus(seed, host, actions.len()),
        });
    }
    // Which apps the case has added, so most actions name a live one (an action about an
    // absent app is skipped by the model and only wastes a step).
    let mut live: Vec<u32> = Vec::new();
    // Node labels and labelled keys come from their own stream, so the other actions of a
    // seed stay what they were before partitions existed (the case only ends earlier).
    let mut labels = Rng::new(mix(&[seed, 0x1abe1]));
    while actions.len() < steps {
        if labels.chance(4) {
            actions.push(if labels.chance(50) {
                Action::Label {
                    host: labels.below(hosts as u64) as u32,
                    label: labels.below(3) as u8,
                }
            } else {
                Action::KeyPartition {
                    app: if live.is_empty() {
                        labels.below(shape.apps as u64) as u32
                    } else {
                        *labels.pick(&live)
                    },
                    priority: *labels.pick(&[0, 1, 5, 10, 20]),
                    label: labels.below(3) as u8,
                }
            });
            continue;
        }
        let app = if !live.is_empty() && rng.chance(85) {
            *rng.pick(&live)
        } else {
            rng.below(shape.apps as u64) as u32
        };
        let host = rng.below(hosts as u64) as u32;
        let mapreduce = app % 2 == 0;
        let a = match rng.below(100) {
            0..=47 => Action::Heartbeat { host },
            48..=49 => {
                // Mostly a host or two, now and then every host: the core must decide
                // nothing for the app there, and the drain counts no wait on them.
                let hosts = if rng.chance(10) {
                    (0..hosts).collect()
                } else {
                    (0..rng.below(3))
                        .map(|_| rng.below(hosts as u64) as u32)
                        .collect()
                };
                let racks = if rng.chance(20) {
                    vec![shape.rack_of(host)]
                } else {
                    Vec::new()
                };
                Action::Blacklist { app, hosts, racks }
            }
            50..=59 => Action::Snapshot {
                app,
                asks: if mapreduce {
                    mapreduce_asks(&mut rng, &shape, seed, app)
                } else {
                    generic_asks(&mut rng, &shape, seed, app)
                },
            },
            60..=64 => {
                let mut asks = if mapreduce {
                    mapreduce_asks(&mut rng, &shape, seed, app)
                } else {
                    generic_asks(&mut rng, &shape, seed, app)
                };
                for r in asks.iter_mut() {
                    if rng.chance(20) {
                        r.count = 0;
                    }
                }
                Action::Change { app, asks }
            }
            65..=72 => {
                if !live.contains(&app) {
                    live.push(app);
                }
                actions.push(Action::AddApp {
                    app,
                    queue: if rng.chance(60) {
                        "default".into()
                    } else {
                        "etl".into()
                    },
                    app_type: if mapreduce {
                        "MAPREDUCE".into()
                    } else {
                        "SPARK".into()
                    },
                    tags: tags(&mut rng),
                });
                Action::AddAttempt { app }
            }
            73..=80 => Action::AddAttempt { app },
            81..=82 => Action::RemoveAttempt { app },
            83..=85 => {
                live.retain(|a| *a != app);
                Action::RemoveApp { app }
            }
            86..=89 => {
                let (m, v) = node_size(&mut rng, &shape);
                Action::AddNode {
                    host,
                    rack: shape.rack_of(host),
                    memory_mb: m,
                    vcores: v,
                    gpus: node_gpus(seed, host, actions.len()),
                }
            }
            90..=91 => Action::RemoveNode { host },
            92..=94 => {
                let (m, v) = node_size(&mut rng, &shape);
                Action::ResizeNode {
                    host,
                    memory_mb: m,
                    vcores: v,
                    gpus: node_gpus(seed, host, actions.len()),
                }
            }
            95..=96 => Action::Reconfigure {
                combo: *rng.pick(&all),
            },
            _ => {
                // A burst: every node heartbeats once, one by one or in one batch of offers
                // executed after the batch, then an async sweep offers each again.
                if rng.chance(50) {
                    actions.push(Action::Offers {
                        hosts: (0..hosts).collect(),
                    });
                } else {
                    for h in 0..hosts {
                        actions.push(Action::Heartbeat { host: h });
                    }
                }
                for h in 0..hosts {
                    actions.push(Action::Sweep { host: h });
                }
                if rng.chance(40) {
                    actions.push(Action::PreemptionRound {
                        total_percent: rng.range(1, 100) as u32,
                        factor_percent: rng.range(1, 100) as u32,
                        wait_rounds: rng.range(0, 5) as u32,
                        // Its own draw: the rest of the case stays what it was.
                        intra: IntraDraw::draw(&mut Rng::new(mix(&[
                            seed,
                            actions.len() as u64,
                            0x1a7,
                        ]))),
                    });
                }
                continue;
            }
        };
        actions.push(a);
    }
    Case {
        seed,
        combo,
        actions,
        drain: true,
    }
}

/// Where a long case's job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Am,
    Maps,
    MapsAndReduces,
    Reduces,
}

/// A long case's job: a fresh application id each (ids are never reused, so apps finish and
/// new ones arrive for the whole case), names repeating so profiles are learned.
struct Job {
    app: u32,
    mapreduce: bool,
    phase: Phase,
}

/// A long case's key size: up to 4 vcores (several multi-vcore maps against a pool's vcores
/// cap), and most jobs' reduces 1 GB / 1 vcore.
fn long_capability(seed: u64, app: u32, priority: i32, arid: i64) -> Resource {
    let mut rng = Rng::new(mix(&[
        seed,
        app as u64,
        priority as u64,
        arid as u64,
        0x10c6,
    ]));
    if priority == 10 && rng.chance(66) {
        return Resource::new(1024, 1);
    }
    let mem = *rng.pick(&[512u64, 1024, 1024, 2048, 3072, 4096, 8192]);
    with_gpus(
        Resource::new(mem, rng.range(1, 4) as u32),
        &[seed, app as u64, priority as u64, arid as u64, 0x10c6],
    )
}

/// A long case's MapReduce snapshot in `phase`: maps at 20, 19 or 5 (half of the map keys
/// ones no node can serve), reduces at 10.
fn long_mapreduce_asks(
    rng: &mut Rng,
    shape: &Shape,
    seed: u64,
    app: u32,
    phase: Phase,
) -> Vec<Ask> {
    let maps = |rng: &mut Rng| {
        let mut rows = Vec::new();
        for priority in [20, 19, 5] {
            if priority == 20 || rng.chance(25) {
                let reach = reach(seed, app, priority, 0, shape.blockers_in_6);
                let cap = long_capability(seed, app, priority, 0);
                rows.extend(located_rows(rng, shape, priority, 0, cap, reach));
            }
        }
        rows
    };
    let reduces = |rng: &mut Rng| {
        row(
            10,
            0,
            "*".into(),
            long_capability(seed, app, 10, 0),
            rng.range(1, 3) as u32,
            true,
        )
    };
    match phase {
        Phase::Am => vec![row(0, 0, "*".into(), Resource::new(1024, 1), 1, true)],
        Phase::Maps => maps(rng),
        Phase::MapsAndReduces => {
            let mut rows = maps(rng);
            rows.push(reduces(rng));
            rows
        }
        Phase::Reduces => vec![reduces(rng)],
    }
}

/// A long case: 13 to 16 nodes of up to 48 GB on two-level racks, jobs arriving for the whole
/// case and going through their life (AM, maps, maps with reduces, reduces, finished), at
/// most [`Shape::apps`] at once, many holding keys no node can serve beside satisfiable
/// reduces; application priorities changed, apps moved between queues, attempts retried,
/// now and then a node change or a reconfiguration. State builds up as on a long-lived
/// cluster: many finished apps, profiles learned, slot splits adapted, queues of asks no node
/// can serve.
pub fn long_case(seed: u64, steps: usize, opts: &Options) -> Case {
    let mut rng = Rng::new(mix(&[seed, 0x10c6, 1]));
    let all: Vec<usize> = if opts.combos.is_empty() {
        (0..combos::valid().len()).collect()
    } else {
        opts.combos.clone()
    };
    let combo = *rng.pick(&all);
    let shape = Shape::LONG;
    let hosts = shape.hosts;
    let mut actions = Vec::new();
    let mut present: Vec<u32> = (0..rng.range(13, hosts as u64) as u32).collect();
    // In a third of the cases the second datacenter has only small nodes: JoSS may bind a
    // job's reduces (or place its maps) where none of them fits.
    let small_dc = rng.chance(33);
    let node_size = |rng: &mut Rng, shape: &Shape, host: u32| {
        if small_dc && rack_name(shape.rack_of(host)).starts_with("/dc5/") {
            (*rng.pick(&[3072u64, 4096]), *rng.pick(&[2u32, 4]))
        } else {
            node_size(rng, shape)
        }
    };
    for &host in &present {
        let (m, v) = node_size(&mut rng, &shape, host);
        actions.push(Action::AddNode {
            host,
            rack: shape.rack_of(host),
            memory_mb: m,
            vcores: v,
            gpus: node_gpus(seed, host, actions.len()),
        });
    }
    let mut jobs: Vec<Job> = Vec::new();
    let mut next_app = 0u32;
    let asks_of = |rng: &mut Rng, j: &Job| {
        if j.mapreduce {
            long_mapreduce_asks(rng, &shape, seed, j.app, j.phase)
        } else if j.phase == Phase::Am {
            vec![row(0, 0, "*".into(), Resource::new(1024, 1), 1, true)]
        } else {
            generic_asks(rng, &shape, seed, j.app)
        }
    };
    while actions.len() < steps {
        let host = *rng.pick(&present);
        let roll = rng.below(1000);
        match roll {
            0..=399 => actions.push(Action::Heartbeat { host }),
            400..=429 => {
                if rng.chance(50) {
                    actions.push(Action::Offers {
                        hosts: present.clone(),
                    });
                } else {
                    for &h in &present {
                        actions.push(Action::Heartbeat { host: h });
                    }
                }
                if rng.chance(30) {
                    for &h in &present {
                        actions.push(Action::Sweep { host: h });
                    }
                }
                if rng.chance(20) {
                    actions.push(Action::PreemptionRound {
                        total_percent: rng.range(1, 100) as u32,
                        factor_percent: rng.range(1, 100) as u32,
                        wait_rounds: rng.range(0, 5) as u32,
                        // Its own draw: the rest of the case stays what it was.
                        intra: IntraDraw::draw(&mut Rng::new(mix(&[
                            seed,
                            actions.len() as u64,
                            0x1a7,
                        ]))),
                    });
                }
            }
            430..=499 if jobs.len() < shape.apps as usize => {
                let app = next_app;
                next_app += 1;
                let mapreduce = rng.chance(75);
                actions.push(Action::AddApp {
                    app,
                    queue: if rng.chance(60) { "default" } else { "etl" }.into(),
                    app_type: if mapreduce { "MAPREDUCE" } else { "SPARK" }.into(),
                    tags: long_tags(&mut rng, app),
                });
                actions.push(Action::AddAttempt { app });
                let j = Job {
                    app,
                    mapreduce,
                    phase: Phase::Am,
                };
                actions.push(Action::Snapshot {
                    app,
                    asks: asks_of(&mut rng, &j),
                });
                jobs.push(j);
            }
            500..=669 if !jobs.is_empty() => {
                // The next phase (or new counts in this one).
                let i = rng.below(jobs.len() as u64) as usize;
                if rng.chance(70) {
                    jobs[i].phase = match jobs[i].phase {
                        Phase::Am => Phase::Maps,
                        Phase::Maps => Phase::MapsAndReduces,
                        _ => Phase::Reduces,
                    };
                }
                let asks = asks_of(&mut rng, &jobs[i]);
                actions.push(Action::Snapshot {
                    app: jobs[i].app,
                    asks,
                });
            }
            670..=719 if !jobs.is_empty() => {
                let j = &jobs[rng.below(jobs.len() as u64) as usize];
                let mut asks = asks_of(&mut rng, j);
                for r in asks.iter_mut() {
                    if rng.chance(20) {
                        r.count = 0;
                    }
                }
                actions.push(Action::Change { app: j.app, asks });
            }
            720..=769 if !jobs.is_empty() => {
                // A job finishes: mostly one in its reduces.
                let i = rng.below(jobs.len() as u64) as usize;
                if jobs[i].phase == Phase::Reduces || rng.chance(30) {
                    actions.push(Action::RemoveApp { app: jobs[i].app });
                    jobs.swap_remove(i);
                }
            }
            770..=799 if !jobs.is_empty() => {
                let app = jobs[rng.below(jobs.len() as u64) as usize].app;
                actions.push(Action::SetPriority {
                    app,
                    priority: rng.range(0, 5) as i32,
                });
            }
            800..=829 if !jobs.is_empty() => {
                let app = jobs[rng.below(jobs.len() as u64) as usize].app;
                actions.push(Action::Move {
                    app,
                    queue: if rng.chance(50) { "default" } else { "etl" }.into(),
                });
            }
            830..=844 if !jobs.is_empty() => {
                // The attempt fails and the RM starts another: it asks for its AM again.
                let i = rng.below(jobs.len() as u64) as usize;
                let app = jobs[i].app;
                actions.push(Action::RemoveAttempt { app });
                actions.push(Action::AddAttempt { app });
                jobs[i].phase = Phase::Am;
                let asks = asks_of(&mut rng, &jobs[i]);
                actions.push(Action::Snapshot { app, asks });
            }
            845..=859 if !jobs.is_empty() => {
                let app = jobs[rng.below(jobs.len() as u64) as usize].app;
                let hosts = (0..rng.below(3))
                    .map(|_| rng.below(hosts as u64) as u32)
                    .collect();
                let racks = if rng.chance(20) {
                    vec![shape.rack_of(host)]
                } else {
                    Vec::new()
                };
                actions.push(Action::Blacklist { app, hosts, racks });
            }
            860..=874 => {
                // A node leaves, joins or is resized; the cluster keeps 13 or more.
                let absent: Vec<u32> = (0..hosts).filter(|h| !present.contains(h)).collect();
                if !absent.is_empty() && (present.len() <= 13 || rng.chance(50)) {
                    let host = *rng.pick(&absent);
                    let (m, v) = node_size(&mut rng, &shape, host);
                    present.push(host);
                    actions.push(Action::AddNode {
                        host,
                        rack: shape.rack_of(host),
                        memory_mb: m,
                        vcores: v,
                        gpus: node_gpus(seed, host, actions.len()),
                    });
                } else if present.len() > 13 && rng.chance(50) {
                    present.retain(|h| *h != host);
                    actions.push(Action::RemoveNode { host });
                } else {
                    let (m, v) = node_size(&mut rng, &shape, host);
                    actions.push(Action::ResizeNode {
                        host,
                        memory_mb: m,
                        vcores: v,
                        gpus: node_gpus(seed, host, actions.len()),
                    });
                }
            }
            875..=877 => actions.push(Action::Reconfigure {
                combo: *rng.pick(&all),
            }),
            _ => actions.push(Action::Heartbeat { host }),
        }
    }
    Case {
        seed,
        combo,
        actions,
        drain: true,
    }
}

/// The indexes of [`combos::valid`] whose policy is one of `policies` and whose slot layer is
/// one of `slots` (an empty list allows any); `static:0.5` names `static` with
/// `locus.slots.map-share=0.5`, `static` alone the one without.
pub fn select_combos(policies: &[String], slots: &[String]) -> Vec<usize> {
    combos::valid()
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            let policy = p.get("locus.policy").map(String::as_str).unwrap_or("");
            let mut slot = p.get("locus.slots").cloned().unwrap_or_default();
            if let Some(share) = p.get(combos::MAP_SHARE) {
                slot = format!("{slot}:{share}");
            }
            (policies.is_empty() || policies.iter().any(|x| x == policy))
                && (slots.is_empty() || slots.iter().any(|x| *x == slot))
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_names_only_the_chosen_layers() {
        let picked = select_combos(
            &["td".into()],
            &["static:0.5".into(), "fresh-dynamic".into()],
        );
        assert!(!picked.is_empty());
        let all = combos::valid();
        for i in &picked {
            let p = &all[*i];
            assert_eq!(p["locus.policy"], "td");
            assert!(
                combos::map_share(p) == Some(0.5) || p["locus.slots"] == "fresh-dynamic",
                "{}",
                combos::describe(p)
            );
        }
        let opts = Options {
            large_percent: 100,
            combos: picked.clone(),
            ..Options::default()
        };
        for seed in 0..20 {
            let c = case_with(seed, 100, &opts);
            assert!(picked.contains(&c.combo));
            assert!(c.actions.iter().all(|a| match a {
                Action::Reconfigure { combo } => picked.contains(combo),
                _ => true,
            }));
        }
    }

    #[test]
    fn large_cases_hold_keys_no_node_can_serve_beside_satisfiable_ones() {
        let opts = Options {
            large_percent: 100,
            combos: Vec::new(),
            ..Options::default()
        };
        let (mut huge, mut absent, mut hosts) = (0, 0, 0);
        for seed in 0..20 {
            for a in &case_with(seed, 400, &opts).actions {
                match a {
                    Action::Snapshot { asks, .. } | Action::Change { asks, .. } => {
                        huge += asks
                            .iter()
                            .filter(|r| r.capability.memory_mb >= 1 << 20)
                            .count();
                        absent += asks
                            .iter()
                            .filter(|r| {
                                r.resource_name == format!("/r{ABSENT_RACK}")
                                    || r.resource_name == format!("h{}", ABSENT_HOSTS.start)
                            })
                            .count();
                    }
                    Action::AddNode { host, .. } => hosts = hosts.max(*host + 1),
                    _ => {}
                }
            }
        }
        assert!(huge > 0 && absent > 0, "huge {huge}, absent {absent}");
        assert!(hosts > Shape::SMALL.hosts, "largest host h{}", hosts - 1);
    }

    #[test]
    fn long_cases_run_many_jobs_through_their_life_on_a_large_two_level_cluster() {
        let opts = Options {
            long_percent: 100,
            ..Options::default()
        };
        let c = case_with(3, 400, &opts);
        assert_eq!(c, long_case(3, LONG_STEPS, &opts));
        assert!(c.actions.len() >= LONG_STEPS);
        let count = |f: &dyn Fn(&Action) -> bool| c.actions.iter().filter(|a| f(a)).count();
        let nodes =
            count(&|a| matches!(a, Action::AddNode { rack, .. } if *rack >= TWO_LEVEL_RACKS));
        let apps = count(&|a| matches!(a, Action::AddApp { .. }));
        let finished = count(&|a| matches!(a, Action::RemoveApp { .. }));
        let priorities = count(&|a| matches!(a, Action::SetPriority { .. }));
        let moves = count(&|a| matches!(a, Action::Move { .. }));
        let reduces = count(&|a| {
            matches!(a, Action::Snapshot { asks, .. }
                if asks.iter().any(|r| r.priority == 10 && r.capability == Resource::new(1024, 1)))
        });
        let blocked = count(&|a| {
            matches!(a, Action::Snapshot { asks, .. }
                if asks.iter().any(|r| r.capability.memory_mb >= 1 << 20 || !r.relax_locality))
        });
        assert!(nodes >= 13, "{nodes} nodes on two-level racks");
        assert!(apps > 2 * Shape::LONG.apps as usize, "{apps} apps");
        assert!(finished > Shape::LONG.apps as usize, "{finished} finished");
        assert!(
            priorities > 10 && moves > 10,
            "{priorities} priority changes, {moves} moves"
        );
        assert!(
            reduces > 10 && blocked > 10,
            "{reduces} 1 GB reduce asks, {blocked} with blockers"
        );
    }
}
