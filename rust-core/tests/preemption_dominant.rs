//! Inter-queue preemption under `DominantResourceCalculator` (`"resource_calculator":"dominant"`
//! in the tree the shim hands over): a round weighs every resource type as CapacityScheduler's
//! `ProportionalCapacityPreemptionPolicy` does with that calculator, so a queue over its
//! guarantee in vcores alone gives containers back, and no queue is taken below its guarantee
//! by dominant share. With the default calculator the same trees are weighed by memory only.

mod common;

use common::GB;
use locus_core::preemption::PreemptionSettings;
use locus_core::{Ask, Core, Resource};

/// Two nodes of 16 GB and 20 vcores: 32 GB, 40 vcores.
const NODES: usize = 2;

fn node() -> Resource {
    Resource::new(16 * GB, 20)
}

fn host(i: usize) -> String {
    format!("h{i}")
}

/// Two leaves guaranteed half the cluster each, either may grow to all of it.
fn core(calculator: &str) -> Core {
    let entry = |path: &str, cap: u32| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":100,"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":1.0,"maximum_applications":-1}}"#
        )
    };
    let tree = format!(
        r#"{{"maximum_applications":10000,"resource_calculator":"{calculator}","queues":[{},{},{}]}}"#,
        entry("root", 100),
        entry("root.a", 50),
        entry("root.b", 50)
    );
    let mut c = common::core_with(&[("locus.policy", "capacity"), ("locus.capacity.tree", &tree)]);
    for i in 0..NODES {
        common::add_node_as(&mut c, &common::node_id(&host(i)), &host(i), "/r1", node());
    }
    c
}

fn ask(c: &mut Core, app: &str, count: u32, capability: Resource) {
    common::set_asks_vec(
        c,
        app,
        vec![Ask {
            priority: 1,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability,
            count,
            relax_locality: true,
        }],
    );
}

/// Every node heartbeats `rounds` times with what it has free; decisions are executed.
fn run(c: &mut Core, rounds: u64, next_id: &mut u32) {
    for r in 0..rounds {
        for i in 0..NODES {
            let free = c
                .state()
                .node(&common::node_id(&host(i)))
                .map_or(node(), |n| node().saturating_sub(&n.allocated));
            let ds =
                common::try_heartbeat(c, &common::node_id(&host(i)), free, (r + 1) * 1000).unwrap();
            common::execute(c, &ds, next_id);
        }
    }
}

/// Queue a's application holds `n` containers of `each`; then b's asks for `b_asks` of 1 GB /
/// 1 vcore. Returns the core.
fn scenario(calculator: &str, n: u32, each: Resource, b_asks: u32) -> Core {
    let mut c = core(calculator);
    let mut next_id = 0;
    common::add_app_in(&mut c, "a1", "a", "u", "a1", 1, "SPARK", &[]);
    ask(&mut c, "a1", n, each);
    run(&mut c, 12, &mut next_id);
    let held = c.state().app_by_id("a1").map_or(Resource::ZERO, |a| a.used);
    if calculator == "dominant" {
        assert_eq!(held, each.times(n as u64), "a holds all it asked for");
    } else {
        assert!(held.memory_mb <= each.memory_mb * n as u64);
    }
    common::add_app_in(&mut c, "b1", "b", "v", "b1", 2, "SPARK", &[]);
    ask(&mut c, "b1", b_asks, Resource::new(GB, 1));
    c
}

fn taken(c: &mut Core, s: &PreemptionSettings) -> usize {
    c.preemption_round(10_000, s).selected.len()
}

fn all_in() -> PreemptionSettings {
    PreemptionSettings {
        total_preemption_per_round: 1.0,
        natural_termination_factor: 1.0,
        ..PreemptionSettings::default()
    }
}

#[test]
fn a_queue_over_its_guarantee_in_vcores_only_gives_back() {
    // a holds 10 GB (under its 16 GB) and all 40 vcores (over its 20): b waits for one vcore.
    // CapacityScheduler's defaults (a tenth of the cluster per round, a fifth of the excess):
    // its ideal share leaves a 39 vcores, so one container of 4 vcores is asked back.
    let each = Resource::new(GB, 4);
    let s = PreemptionSettings::default();
    let mut c = scenario("dominant", 10, each, 1);
    let r = c.preemption_round(10_000, &s);
    assert_eq!(r.selected.len(), 1, "{r:?}");
    let id = &r.selected[0];
    let owner = c
        .state()
        .containers()
        .iter()
        .find(|k| &k.id == id)
        .map(|k| k.app.clone());
    assert_eq!(owner.as_deref(), Some("a1"));
    // By memory alone a is within its guarantee: nothing is taken.
    let mut c = scenario("default", 10, each, 1);
    assert_eq!(taken(&mut c, &s), 0);
}

#[test]
fn a_queue_under_its_guarantee_by_dominant_share_keeps_everything() {
    // a holds 12 GB and 16 vcores of its 16 GB and 20: under in every type.
    let mut c = scenario("dominant", 8, Resource::new(3 * GB / 2, 2), 40);
    assert_eq!(taken(&mut c, &all_in()), 0);
}

#[test]
fn no_queue_is_taken_below_its_guarantee_by_dominant_share() {
    // a holds 20 GB and 20 vcores: over its 16 GB, at its 20 vcores; b asks for its half.
    // Memory alone asks 4 GB back, two containers. By dominant share, a at 16 GB and 16
    // vcores ((50 %, 40 %) sorted) is below its guarantee ((50 %, 50 %)): one only.
    let each = Resource::new(2 * GB, 2);
    let mut c = scenario("default", 10, each, 40);
    assert_eq!(taken(&mut c, &all_in()), 2);
    let mut c = scenario("dominant", 10, each, 40);
    assert_eq!(taken(&mut c, &all_in()), 1);
}

#[test]
fn a_round_takes_no_container_past_its_budget_in_any_type() {
    // A tenth of 40 vcores is 4: containers of 5 vcores never fit a round's budget, as in
    // CapacityScheduler, however far a is over its guarantee.
    let mut c = scenario("dominant", 8, Resource::new(GB, 5), 1);
    let s = PreemptionSettings {
        natural_termination_factor: 1.0,
        ..PreemptionSettings::default()
    };
    assert_eq!(taken(&mut c, &s), 0);
    let s = PreemptionSettings {
        total_preemption_per_round: 0.125,
        ..s
    };
    assert!(taken(&mut c, &s) >= 1);
}
