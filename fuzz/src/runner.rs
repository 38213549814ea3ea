//! Runs a case against a fresh core: every action through the model with the invariants
//! checked after each, then the drain phase (no new work, every node heartbeats each round)
//! asserting that every application that could run gets a container within
//! [`LIVENESS_BOUND_ROUNDS`].

use std::collections::BTreeMap;

use crate::action::Case;
use crate::combos;
use crate::failure::Failure;
use crate::model::{app_id, Model};

/// Rounds (every node heartbeats once) an application that some node could serve may wait
/// for its next container during the drain. Generous on purpose: docs/liveness.md states each
/// policy's exact bound, far below this; a starvation is a wait that never ends.
pub const LIVENESS_BOUND_ROUNDS: u64 = 200;

/// What a passing case did, for the fuzz loop's summary.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub heartbeats: u64,
    pub allocations: u64,
}

pub fn run(case: &Case) -> Result<Outcome, Failure> {
    let all = combos::valid();
    let props = all[case.combo % all.len()].clone();
    let mut m = Model::new(props.clone()).map_err(|mut f| {
        f.layers = combos::describe(&props);
        f
    })?;
    let result = (|| {
        for (i, a) in case.actions.iter().enumerate() {
            m.apply(i, a)?;
        }
        if case.drain {
            drain(&mut m, case.actions.len())?;
        }
        Ok(())
    })();
    result.map_err(|mut f: Failure| {
        f.layers = combos::describe(&m.props);
        f
    })?;
    Ok(Outcome {
        heartbeats: m.round,
        allocations: m.allocated,
    })
}

fn drain(m: &mut Model, step: usize) -> Result<(), Failure> {
    let mut waiting: BTreeMap<u32, u64> = BTreeMap::new();
    let mut seen = m.allocations_of.clone();
    for _ in 0..=LIVENESS_BOUND_ROUNDS + 1 {
        let hosts: Vec<u32> = m.nodes.keys().copied().collect();
        for h in hosts {
            m.heartbeat(step, h)?;
            m.check_counters(step)?;
        }
        let apps: Vec<u32> = m.apps.keys().copied().collect();
        let mut anyone = false;
        for app in apps {
            let got = m.allocations_of.get(&app).copied().unwrap_or(0);
            let before = seen.insert(app, got).unwrap_or(0);
            if got > before || !m.can_run(app) {
                waiting.remove(&app);
                continue;
            }
            anyone = true;
            let w = waiting.entry(app).or_default();
            *w += 1;
            if *w > LIVENESS_BOUND_ROUNDS {
                let a = &m.apps[&app];
                return Err(Failure::new(
                    "starvation",
                    step,
                    format!(
                        "{} (queue {}) could run but got no container in {} rounds under {}; asks {:?}; nodes {:?}",
                        app_id(app),
                        a.queue,
                        LIVENESS_BOUND_ROUNDS,
                        combos::describe(&m.props),
                        a.asks.values().map(|r| (r.priority, r.allocation_request_id, &r.resource_name, r.count, r.capability, r.relax_locality)).collect::<Vec<_>>(),
                        m.nodes.iter().map(|(h, n)| (*h, n.capability, n.unallocated)).collect::<Vec<_>>(),
                    ),
                ));
            }
        }
        if !anyone {
            return Ok(());
        }
    }
    Ok(())
}
