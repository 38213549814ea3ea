//! Random cases: a small cluster on a few racks, MapReduce-shaped applications (AM at
//! priority 0, maps at 20, 5 or 19 with host/rack/`*` rows, reduces at 10, maps no node can
//! run) and generic ones (several
//! allocation request ids, `relax_locality=false` rows, sizes that fit no node), snapshots and
//! deltas, attempts failing, nodes joining, leaving and resizing, hint tags, and layer
//! reconfiguration mid-run. Heartbeats dominate, as on a real cluster.

use locus_core::{Ask, Resource};

use crate::action::{Action, Case};
use crate::combos;
use crate::rng::{mix, Rng};

const MAX_HOSTS: u32 = 8;
const MAX_RACKS: u32 = 3;
const MAX_APPS: u32 = 10;

fn rack_of(host: u32) -> u32 {
    host % MAX_RACKS
}

fn row(priority: i32, arid: i64, name: String, cap: Resource, count: u32, relax: bool) -> Ask {
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
    Resource::new(mem, rng.range(1, 3) as u32)
}

/// The rows of `n` maps at `priority` on hosts drawn from `hosts`, with their racks and `*`.
/// `pinned`: relax_locality=false on the rack and `*` rows (the maps may run on the named hosts
/// only).
fn map_rows(
    rng: &mut Rng,
    priority: i32,
    cap: Resource,
    hosts: std::ops::Range<u32>,
    pinned: bool,
) -> Vec<Ask> {
    let mut rows = Vec::new();
    let mut total = 0;
    for _ in 0..rng.range(1, 4) {
        let h = rng.range(hosts.start as u64, hosts.end as u64 - 1) as u32;
        let n = rng.range(1, 5) as u32;
        total += n;
        rows.push(row(priority, 0, format!("h{h}"), cap, n, true));
        rows.push(row(
            priority,
            0,
            format!("/r{}", rack_of(h)),
            cap,
            n,
            !pinned,
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
    merged.push(row(priority, 0, "*".into(), cap, total, !pinned));
    merged
}

/// A MapReduce AM's snapshot in one of its phases: its AM, maps (at 20, or a re-run's 5 or
/// 19), reduces, or maps and reduces together (reduces are asked once enough maps end,
/// `mapreduce.job.reduce.slowstart.completedmaps`). A third of the map keys no node can ever
/// run: a size beyond every node, or pinned to hosts without a NodeManager; the job's other
/// keys, its reduces and other jobs' containers can, and must not wait for them
/// (docs/design/liveness.md, "Blocker").
fn mapreduce_asks(rng: &mut Rng, seed: u64, app: u32) -> Vec<Ask> {
    let priority = *rng.pick(&[20, 20, 20, 5, 19]);
    // Whether this map key is a blocker is the key's, like its size, so every snapshot and
    // delta of the key agrees: a third are, half of them too big, half pinned to absent hosts.
    let blocker = mix(&[seed, app as u64, priority as u64, 0xb10c]) % 6;
    let (cap, hosts, pinned) = match blocker {
        0 => (Resource::new(1 << 20, 1), 0..MAX_HOSTS, false),
        1 => (
            capability(seed, app, priority, 0),
            MAX_HOSTS..MAX_HOSTS + 4,
            true,
        ),
        _ => (capability(seed, app, priority, 0), 0..MAX_HOSTS, false),
    };
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
        1 => map_rows(rng, priority, cap, hosts, pinned),
        2 => vec![reduces(rng)],
        _ => {
            let mut rows = map_rows(rng, priority, cap, hosts, pinned);
            rows.push(reduces(rng));
            rows
        }
    }
}

/// A generic application's rows: one or more allocation request ids, some pinned.
fn generic_asks(rng: &mut Rng, seed: u64, app: u32) -> Vec<Ask> {
    let mut rows = Vec::new();
    for arid in 0..rng.range(1, 3) as i64 {
        let prio = rng.range(1, 5) as i32;
        let cap = capability(seed, app, prio, arid);
        let n = rng.range(1, 4) as u32;
        if rng.chance(40) {
            let h = rng.below(MAX_HOSTS as u64) as u32;
            let pinned = rng.chance(50);
            rows.push(row(prio, arid, format!("h{h}"), cap, n, true));
            rows.push(row(
                prio,
                arid,
                format!("/r{}", rack_of(h)),
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

fn node_size(rng: &mut Rng) -> (u64, u32) {
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

/// One random case of `steps` actions.
pub fn case(seed: u64, steps: usize) -> Case {
    let mut rng = Rng::new(seed);
    let combos = combos::valid().len();
    let combo = rng.below(combos as u64) as usize;
    let mut actions = Vec::new();
    // A cluster to start with, so most cases schedule something.
    for host in 0..rng.range(2, MAX_HOSTS as u64) as u32 {
        let (m, v) = node_size(&mut rng);
        actions.push(Action::AddNode {
            host,
            rack: rack_of(host),
            memory_mb: m,
            vcores: v,
        });
    }
    // Which apps the case has added, so most actions name a live one (an action about an
    // absent app is skipped by the model and only wastes a step).
    let mut live: Vec<u32> = Vec::new();
    while actions.len() < steps {
        let app = if !live.is_empty() && rng.chance(85) {
            *rng.pick(&live)
        } else {
            rng.below(MAX_APPS as u64) as u32
        };
        let host = rng.below(MAX_HOSTS as u64) as u32;
        let mapreduce = app % 2 == 0;
        let a = match rng.below(100) {
            0..=47 => Action::Heartbeat { host },
            48..=49 => {
                // Mostly a host or two, now and then every host: the core must decide
                // nothing for the app there, and the drain counts no wait on them.
                let hosts = if rng.chance(10) {
                    (0..MAX_HOSTS).collect()
                } else {
                    (0..rng.below(3))
                        .map(|_| rng.below(MAX_HOSTS as u64) as u32)
                        .collect()
                };
                let racks = if rng.chance(20) {
                    vec![rack_of(host)]
                } else {
                    Vec::new()
                };
                Action::Blacklist { app, hosts, racks }
            }
            50..=59 => Action::Snapshot {
                app,
                asks: if mapreduce {
                    mapreduce_asks(&mut rng, seed, app)
                } else {
                    generic_asks(&mut rng, seed, app)
                },
            },
            60..=64 => {
                let mut asks = if mapreduce {
                    mapreduce_asks(&mut rng, seed, app)
                } else {
                    generic_asks(&mut rng, seed, app)
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
                let (m, v) = node_size(&mut rng);
                Action::AddNode {
                    host,
                    rack: rack_of(host),
                    memory_mb: m,
                    vcores: v,
                }
            }
            90..=91 => Action::RemoveNode { host },
            92..=94 => {
                let (m, v) = node_size(&mut rng);
                Action::ResizeNode {
                    host,
                    memory_mb: m,
                    vcores: v,
                }
            }
            95..=96 => Action::Reconfigure {
                combo: rng.below(combos as u64) as usize,
            },
            _ => {
                // A burst: every node heartbeats once, one by one or in one batch of offers
                // executed after the batch, then an async sweep offers each again.
                if rng.chance(50) {
                    actions.push(Action::Offers {
                        hosts: (0..MAX_HOSTS).collect(),
                    });
                } else {
                    for h in 0..MAX_HOSTS {
                        actions.push(Action::Heartbeat { host: h });
                    }
                }
                for h in 0..MAX_HOSTS {
                    actions.push(Action::Sweep { host: h });
                }
                if rng.chance(40) {
                    actions.push(Action::PreemptionRound {
                        total_percent: rng.range(1, 100) as u32,
                        factor_percent: rng.range(1, 100) as u32,
                        wait_rounds: rng.range(0, 5) as u32,
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
