//! Contention cases: one queue fills the cluster, the other then asks, and preemption rounds
//! run between heartbeats, so a round has something to take back. The random cases rarely
//! reach that state (a queue over its guarantee while another waits); here the containers'
//! shapes are drawn so either memory, vcores or GPUs run out first, which under the dominant
//! calculator decides what a round weighs.

use locus_core::Resource;

use crate::action::{Action, Case, IntraDraw};
use crate::combos;
use crate::gen::{row, Options, Shape};
use crate::rng::{mix, Rng};

/// Rounds of heartbeats and preemption rounds after the second queue asks.
const ROUNDS: u32 = 12;

/// A contention case for `seed`, on one of `opts.combos` (`capacity` ones first: others take
/// nothing in a round).
pub fn contention_case(seed: u64, opts: &Options) -> Case {
    let mut rng = Rng::new(mix(&[seed, 0xc0e7, 1]));
    let all: Vec<usize> = if opts.combos.is_empty() {
        (0..combos::valid().len()).collect()
    } else {
        opts.combos.clone()
    };
    let capacity: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| combos::is_capacity(&combos::valid()[i]))
        .collect();
    let combo = *rng.pick(if capacity.is_empty() { &all } else { &capacity });
    let shape = Shape::SMALL;
    let mut actions = Vec::new();
    let hosts = rng.range(2, 5) as u32;
    let gpus = *rng.pick(&[0u64, 0, 2, 4]);
    let (memory_mb, vcores) = (
        *rng.pick(&[8192u64, 16384, 32768]),
        *rng.pick(&[8u32, 16, 32, 48]),
    );
    for host in 0..hosts {
        actions.push(Action::AddNode {
            host,
            rack: shape.rack_of(host),
            memory_mb,
            vcores,
            gpus,
        });
    }
    let queues = if rng.chance(50) {
        ["default", "etl"]
    } else {
        ["etl", "default"]
    };
    let heartbeats = |actions: &mut Vec<Action>, n: u32| {
        for _ in 0..n {
            for host in 0..hosts {
                actions.push(Action::Heartbeat { host });
            }
        }
    };
    // The first queue's application fills the cluster; the second's then asks.
    for (app, queue) in queues.iter().enumerate() {
        let app = app as u32;
        actions.push(Action::AddApp {
            app,
            queue: (*queue).into(),
            app_type: "SPARK".into(),
            tags: Vec::new(),
        });
        actions.push(Action::AddAttempt { app });
        actions.push(Action::Snapshot {
            app,
            asks: vec![row(0, 0, "*".into(), Resource::new(1024, 1), 1, true)],
        });
        heartbeats(&mut actions, 2);
        let mut each = Resource::new(
            *rng.pick(&[512u64, 1024, 2048]),
            *rng.pick(&[1u32, 2, 4, 8]),
        );
        if gpus > 0 && rng.chance(30) {
            each.extra[0] = 1;
        }
        let count = if app == 0 {
            500
        } else {
            rng.range(1, 60) as u32
        };
        actions.push(Action::Snapshot {
            app,
            asks: vec![row(20, 0, "*".into(), each, count, true)],
        });
        heartbeats(&mut actions, if app == 0 { 8 } else { 1 });
    }
    let mut draws = Rng::new(mix(&[seed, 0xc0e7, 2]));
    for _ in 0..ROUNDS {
        actions.push(Action::PreemptionRound {
            total_percent: draws.range(5, 100) as u32,
            factor_percent: draws.range(10, 100) as u32,
            wait_rounds: draws.range(0, 2) as u32,
            intra: IntraDraw::draw(&mut draws),
        });
        heartbeats(&mut actions, 1);
    }
    Case {
        seed,
        combo,
        actions,
        drain: true,
    }
}
