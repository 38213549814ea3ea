//! Random cases: a small cluster on a few racks, MapReduce-shaped applications (AM at
//! priority 0, maps at 20 with host/rack/`*` rows, reduces at 10) and generic ones (several
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

/// A MapReduce AM's snapshot in one of its phases.
fn mapreduce_asks(rng: &mut Rng, seed: u64, app: u32) -> Vec<Ask> {
    let cap = capability(seed, app, 20, 0);
    match rng.below(3) {
        0 => vec![row(0, 0, "*".into(), Resource::new(1024, 1), 1, true)],
        1 => {
            let mut rows = Vec::new();
            let mut total = 0;
            for _ in 0..rng.range(1, 4) {
                let h = rng.below(MAX_HOSTS as u64) as u32;
                let n = rng.range(1, 5) as u32;
                total += n;
                rows.push(row(20, 0, format!("h{h}"), cap, n, true));
                rows.push(row(20, 0, format!("/r{}", rack_of(h)), cap, n, true));
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
            merged.push(row(20, 0, "*".into(), cap, total, true));
            merged
        }
        _ => vec![row(
            10,
            0,
            "*".into(),
            capability(seed, app, 10, 0),
            rng.range(1, 3) as u32,
            true,
        )],
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
                // A burst: every node heartbeats once, then an async sweep offers each again
                // (no draw from the generator, so the other actions of a seed stay as they were).
                for h in 0..MAX_HOSTS {
                    actions.push(Action::Heartbeat { host: h });
                }
                for h in 0..MAX_HOSTS {
                    actions.push(Action::Sweep { host: h });
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
