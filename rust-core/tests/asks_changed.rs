//! `asks_changed`: the rows an AM's allocate call changed, set absolutely on top of the asks
//! the core holds. Checked against full snapshots, decisions, in-flight accounting and errors.

mod common;

use std::collections::BTreeMap;

use common::{core_with, GB};
use locus_core::{Ask, Core, CoreError, Decision, Event, Resource};

fn core() -> Core {
    core_with(&[])
}

fn add_node(c: &mut Core, host: &str, rack: &str, mem_gb: u64) {
    common::add_node(c, host, rack, mem_gb, 16);
}

fn add_app(c: &mut Core, app: &str) {
    common::add_app_named(c, app, app, 1, "MAPREDUCE", &[]);
}

/// (priority, resource_name, count, memory GB)
type Row<'a> = (i32, &'a str, u32, u64);

fn rows(rows: &[Row]) -> Vec<Ask> {
    let full: Vec<common::Row> = rows
        .iter()
        .map(|&(priority, name, count, mem)| (priority, name, count, mem, 1, true))
        .collect();
    common::asks(&full)
}

fn snapshot(c: &mut Core, app: &str, r: &[Row]) {
    c.handle(Event::AsksUpdated {
        app: app.into(),
        asks: rows(r),
    })
    .unwrap();
}

fn change(c: &mut Core, app: &str, r: &[Row]) -> Result<(), CoreError> {
    c.handle(Event::AsksChanged {
        app: app.into(),
        asks: rows(r),
    })
}

fn heartbeat(c: &mut Core, host: &str, free_gb: u64) -> Vec<Decision> {
    common::heartbeat_free(c, host, free_gb, 16, 1_000)
}

fn execute(c: &mut Core, decisions: &[Decision], next_id: &mut u32) {
    common::execute(c, decisions, next_id);
}

/// The app's asks as the core holds them: (priority, resource name) → (count, memory MB).
fn held(c: &Core, app: &str) -> BTreeMap<(i32, String), (u32, u64)> {
    let s = c.state();
    let a = s.app_by_id(app).expect("app known");
    let mut out = BTreeMap::new();
    for (key, table) in a.asks.tables() {
        for (name, row) in table.rows() {
            if row.count > 0 {
                out.insert(
                    (key.priority, s.names().name(name).to_string()),
                    (row.count, row.capability.memory_mb),
                );
            }
        }
    }
    // Rows for hosts no node has carried are kept aside until such a node registers.
    for (key, name, row) in a.asks.waiting_rows() {
        out.insert(
            (key.priority, name.to_string()),
            (row.count, row.capability.memory_mb),
        );
    }
    out
}

fn pending(c: &Core, app: &str) -> u64 {
    c.state().app_by_id(app).unwrap().asks.pending_containers()
}

#[test]
fn changed_rows_are_set_and_the_others_keep_their_counts() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 64);
    add_app(&mut c, "job");
    snapshot(
        &mut c,
        "job",
        &[
            (20, "h1", 2, 1),
            (20, "h2", 1, 1),
            (20, "/r1", 3, 1),
            (20, "*", 3, 1),
        ],
    );
    // One map ran elsewhere: the AM lowers h2's and `*`'s rows and drops h1's.
    change(&mut c, "job", &[(20, "h1", 0, 1), (20, "*", 2, 1)]).unwrap();
    let want: BTreeMap<_, _> = [
        ((20, "h2".to_string()), (1, GB)),
        ((20, "/r1".to_string()), (3, GB)),
        ((20, "*".to_string()), (2, GB)),
    ]
    .into_iter()
    .collect();
    assert_eq!(held(&c, "job"), want);
    assert_eq!(pending(&c, "job"), 2);
    // Absolute values: the same message again (a retried allocate call) changes nothing.
    change(&mut c, "job", &[(20, "h1", 0, 1), (20, "*", 2, 1)]).unwrap();
    assert_eq!(held(&c, "job"), want);
    // h1's row is gone, so its heartbeat gets rack-local containers, capped by `*`.
    let ds = heartbeat(&mut c, "h1", 64);
    let placed: Vec<_> = ds
        .iter()
        .map(|d| (d.resource_name.as_str(), d.count))
        .collect();
    assert_eq!(placed, vec![("/r1", 2)]);
}

#[test]
fn a_new_key_can_be_added_and_a_key_whose_rows_all_go_disappears() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 64);
    add_app(&mut c, "job");
    // The AM container (priority 0, 2 GB) arrives as a change on an app with no asks yet.
    change(&mut c, "job", &[(0, "*", 1, 2)]).unwrap();
    assert!(
        heartbeat(&mut c, "h1", 1).is_empty(),
        "1 GB fits no 2 GB container"
    );
    change(&mut c, "job", &[(0, "*", 0, 2), (10, "*", 2, 1)]).unwrap();
    let keys: Vec<i32> = c
        .state()
        .app_by_id("job")
        .unwrap()
        .asks
        .tables()
        .map(|(k, _)| k.priority)
        .collect();
    assert_eq!(keys, vec![10], "priority 0 has no rows left");
    // The smaller reduce asks must be seen on a nearly full node.
    let ds = heartbeat(&mut c, "h1", 1);
    assert_eq!(ds.len(), 1);
    assert_eq!((ds[0].priority, ds[0].count), (10, 1));
}

#[test]
fn a_bad_row_refuses_the_whole_message_and_names_it() {
    let mut c = core();
    add_app(&mut c, "application_7_0001");
    snapshot(
        &mut c,
        "application_7_0001",
        &[(20, "h1", 1, 1), (20, "*", 1, 1)],
    );
    let before = held(&c, "application_7_0001");
    // A good row first, then a negative priority: neither may be applied.
    let err = change(
        &mut c,
        "application_7_0001",
        &[(20, "*", 5, 1), (-3, "h1", 1, 1)],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("application_7_0001") && err.contains("priority -3") && err.contains("h1"),
        "{err}"
    );
    assert_eq!(held(&c, "application_7_0001"), before);

    let mut nothing = rows(&[(20, "*", 4, 0)]);
    nothing[0].capability = Resource::ZERO;
    let err = c
        .handle(Event::AsksChanged {
            app: "application_7_0001".into(),
            asks: nothing,
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("zero memory"), "{err}");
    let err = change(
        &mut c,
        "application_7_0001",
        &[(20, "h9", 1, 1), (20, "h9", 2, 1)],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("twice") && err.contains("h9"), "{err}");
    let err = change(&mut c, "application_7_0001", &[(20, " ", 1, 1)])
        .unwrap_err()
        .to_string();
    assert!(err.contains("empty resource_name"), "{err}");
    assert_eq!(held(&c, "application_7_0001"), before);

    assert_eq!(
        change(&mut c, "application_7_0002", &[(20, "*", 1, 1)]).unwrap_err(),
        CoreError::UnknownApp("application_7_0002".into())
    );
}

#[test]
fn rows_the_shim_has_not_executed_yet_stay_taken() {
    let mut c = core();
    add_node(&mut c, "h1", "/r1", 64);
    add_node(&mut c, "h2", "/r1", 64);
    add_app(&mut c, "job");
    snapshot(
        &mut c,
        "job",
        &[(20, "h1", 3, 1), (20, "/r1", 3, 1), (20, "*", 3, 1)],
    );
    // Two containers decided on h1, not executed yet.
    let ds = heartbeat(&mut c, "h1", 2);
    assert_eq!(ds.iter().map(|d| d.count).sum::<u32>(), 2);
    // The RM's view of `*` (taken before it executed them) says 3; h1 and /r1 are not named.
    change(&mut c, "job", &[(20, "*", 3, 1)]).unwrap();
    assert_eq!(
        pending(&c, "job"),
        1,
        "the two in flight are still taken off `*`"
    );
    let h = held(&c, "job");
    assert_eq!(h[&(20, "h1".to_string())].0, 1, "h1 keeps its own count");
    assert_eq!(h[&(20, "/r1".to_string())].0, 1, "/r1 is not taken twice");
    assert_eq!(
        heartbeat(&mut c, "h2", 64)
            .iter()
            .map(|d| d.count)
            .sum::<u32>(),
        1
    );
    // h1's two are executed, h2's one is not: the RM now says 1, which h2's decision takes.
    let mut ids = 0;
    execute(&mut c, &ds, &mut ids);
    change(&mut c, "job", &[(20, "*", 1, 1)]).unwrap();
    assert_eq!(pending(&c, "job"), 0);
    assert!(heartbeat(&mut c, "h1", 64).is_empty());
}

#[test]
fn asks_changed_arrives_as_json() {
    let json = r#"{"type":"asks_changed","app":"application_1_0001","asks":[
        {"priority":20,"resource_name":"h1","capability":{"memory_mb":1024,"vcores":1},"count":0}]}"#;
    let ev: Event = serde_json::from_str(json).unwrap();
    assert_eq!(ev.kind(), "asks_changed");
    let Event::AsksChanged { asks, .. } = ev else {
        panic!("decoded as another event")
    };
    assert_eq!((asks[0].count, asks[0].relax_locality), (0, true));
}

/// A long random run of changes must leave the core holding exactly what full snapshots of the
/// same table would, and decide the same containers.
#[test]
fn changes_and_snapshots_agree_over_a_random_run() {
    let hosts = ["h1", "h2", "h3", "h4", "/r1", "/r2", "*"];
    let mut by_change = core();
    let mut by_snapshot = core();
    for c in [&mut by_change, &mut by_snapshot] {
        add_node(c, "h1", "/r1", 64);
        add_node(c, "h3", "/r2", 64);
        add_app(c, "job");
    }
    let mut model: BTreeMap<(i32, &str), u32> = BTreeMap::new();
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for step in 0..400 {
        let mut msg: BTreeMap<(i32, &str), u32> = BTreeMap::new();
        for _ in 0..1 + next(4) {
            let priority = [0, 10, 20][next(3) as usize];
            let name = hosts[next(hosts.len() as u64) as usize];
            msg.insert((priority, name), next(4) as u32);
        }
        let delta: Vec<Row> = msg.iter().map(|(&(p, n), &v)| (p, n, v, 1)).collect();
        model.extend(msg);
        model.retain(|_, v| *v > 0);
        change(&mut by_change, "job", &delta).unwrap();
        let full: Vec<Row> = model.iter().map(|(&(p, n), &v)| (p, n, v, 1)).collect();
        snapshot(&mut by_snapshot, "job", &full);
        assert_eq!(
            held(&by_change, "job"),
            held(&by_snapshot, "job"),
            "step {step}"
        );
        assert_eq!(pending(&by_change, "job"), pending(&by_snapshot, "job"));
        if step % 50 == 49 {
            // Decisions from identical asks must be identical; drop them without executing
            // (a lost decision) and resynchronise both from the model.
            let host = if step % 100 == 49 { "h1" } else { "h3" };
            assert_eq!(
                heartbeat(&mut by_change, host, 4),
                heartbeat(&mut by_snapshot, host, 4)
            );
            for c in [&mut by_change, &mut by_snapshot] {
                snapshot(c, "job", &full);
                heartbeat(c, host, 0);
                heartbeat(c, host, 0);
                snapshot(c, "job", &full);
            }
        }
    }
}
