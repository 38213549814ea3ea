//! Runs a case against a fresh core: every action through the model with the invariants
//! checked after each, then the drain phase (no new work, every node heartbeats each round)
//! asserting that every application that could run gets a container within
//! [`LIVENESS_BOUND_ROUNDS`].

use std::collections::BTreeMap;

use crate::action::Case;
use crate::combos;
use crate::failure::Failure;
use crate::model::{app_id, Model};

/// Rounds (every node heartbeats once) with an idle node that could serve it that an
/// application may go without a container during the drain. Generous on purpose:
/// docs/design/liveness.md states each policy's exact bound in heartbeats of idle nodes, far below
/// this; a starvation is a wait that never ends.
///
/// Only rounds in which such a node ran nothing at all after its heartbeat count: waiting
/// behind a job the policy ranks higher, a full slot pool, the AM share or FRESH's admission
/// is waiting for running work, which ends (docs/design/liveness.md, "Bound"). The drain adds no work,
/// so that wait is finite; [`drain`] runs until it has settled, and any application that could
/// run is then served on an idle node or reported here.
pub const LIVENESS_BOUND_ROUNDS: u64 = 200;

/// Rounds of a quiet cluster (no container ran anywhere after the round, so nothing was placed
/// in it and no work holds anything) that an application that could run may go without a
/// container. On a quiet cluster no wait behind running work applies: every layer's bound
/// (docs/design/liveness.md) is a heartbeat or two of each node, the locality waits
/// (`delay`: ceil(t·N) heartbeats per level; matchmaking: N + 1) at most two rounds each.
pub const QUIET_BOUND_ROUNDS: u64 = 10;

/// The longest a container of the model runs, in heartbeats (model.rs: 4..48).
const LONGEST_CONTAINER: u64 = 48;

/// What a passing case did, for the fuzz loop's summary.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub heartbeats: u64,
    pub allocations: u64,
}

pub fn run(case: &Case) -> Result<Outcome, Failure> {
    run_observed(case, &mut |_| {})
}

/// As [`run`], showing `observe` the model after every action and every drain round (what a
/// test measures of the cases it runs).
pub fn run_observed(case: &Case, observe: &mut dyn FnMut(&Model)) -> Result<Outcome, Failure> {
    let all = combos::valid();
    let shares = combos::PartitionShares::draw(case.seed);
    let props = combos::with_partition_shares(all[case.combo % all.len()].clone(), &shares);
    let mut m = Model::new(props.clone()).map_err(|mut f| {
        f.layers = combos::describe(&props);
        f
    })?;
    m.shares = Some(shares);
    let result = (|| {
        for (i, a) in case.actions.iter().enumerate() {
            m.apply(i, a)?;
            observe(&m);
        }
        if case.drain {
            drain(&mut m, case.actions.len(), observe)?;
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

fn drain(m: &mut Model, step: usize, observe: &mut dyn FnMut(&Model)) -> Result<(), Failure> {
    let mut waiting: BTreeMap<u32, u64> = BTreeMap::new();
    let mut quiet: BTreeMap<u32, u64> = BTreeMap::new();
    let mut seen = m.allocations_of.clone();
    // Every outstanding container is placed at most once and ends within LONGEST_CONTAINER
    // heartbeats (at most as many rounds), one after another at worst: past this the drain has
    // not settled though nothing new arrives, a wait that never ends.
    let pending: u64 = m
        .apps
        .values()
        .flat_map(|a| a.asks.iter())
        .filter(|((_, _, n), _)| n == "*")
        .map(|(_, a)| a.count as u64)
        .fold(0u64, u64::saturating_add);
    let work = pending.saturating_add(m.containers.len() as u64 + 1);
    let limit = LIVENESS_BOUND_ROUNDS + work.saturating_mul(LONGEST_CONTAINER).min(1_000_000);
    for _ in 0..limit {
        let hosts: Vec<u32> = m.nodes.keys().copied().collect();
        let mut idle = Vec::new();
        for h in hosts {
            m.heartbeat(step, h)?;
            m.check_counters(step)?;
            if m.idle(h) {
                idle.push(h);
            }
        }
        if crate::combos::is_size_based(&m.props) {
            // Liveness with the rounds running: what they take must not keep anyone waiting.
            m.preemption_round(step, 25, 100, 2, None)?;
        }
        observe(m);
        // Held applications run once others end: the done ones end here.
        m.end_done_while_held(step)?;
        let apps: Vec<u32> = m.apps.keys().copied().collect();
        let mut anyone = false;
        for app in apps {
            let got = m.allocations_of.get(&app).copied().unwrap_or(0);
            let before = seen.insert(app, got).unwrap_or(0);
            if got > before || !m.can_run(app) {
                waiting.remove(&app);
                quiet.remove(&app);
                continue;
            }
            if m.containers.is_empty() {
                let q = quiet.entry(app).or_default();
                *q += 1;
                if *q > QUIET_BOUND_ROUNDS {
                    return Err(starved(
                        m,
                        step,
                        app,
                        format!("{QUIET_BOUND_ROUNDS} rounds of a cluster running nothing"),
                    ));
                }
            }
            anyone = true;
            let w = waiting.entry(app).or_default();
            if idle.iter().any(|h| m.can_run_on(app, *h)) {
                *w += 1;
            }
            if *w > LIVENESS_BOUND_ROUNDS {
                return Err(starved(
                    m,
                    step,
                    app,
                    format!("{LIVENESS_BOUND_ROUNDS} rounds with an idle node that could serve it"),
                ));
            }
        }
        if !anyone {
            return Ok(());
        }
    }
    match waiting.keys().next() {
        Some(&app) => Err(starved(
            m,
            step,
            app,
            format!("the {limit} rounds the drain's work can take"),
        )),
        None => Ok(()),
    }
}

fn starved(m: &Model, step: usize, app: u32, how_long: String) -> Failure {
    let a = &m.apps[&app];
    Failure::new(
        "starvation",
        step,
        format!(
            "{} (queue {}) could run but got no container in {how_long} under {}; asks {:?}; nodes {:?}",
            app_id(app),
            a.queue,
            combos::describe(&m.props),
            a.asks.values().map(|r| (r.priority, r.allocation_request_id, &r.resource_name, r.count, r.capability, r.relax_locality)).collect::<Vec<_>>(),
            m.nodes.iter().map(|(h, n)| (*h, n.capability, n.unallocated)).collect::<Vec<_>>(),
        ),
    )
}
