//! What one application's asks may cost the core: names it invents are not kept, its rows and
//! names are capped per application, and a refused update leaves everyone else scheduling.

mod common;

use common::*;
use locus_core::protocol::{Ask, Event, Locality, Resource};

fn host_rows(app_names: impl Iterator<Item = String>) -> Vec<Ask> {
    let mut rows: Vec<Ask> = app_names
        .map(|h| Ask {
            priority: 20,
            allocation_request_id: 0,
            resource_name: h,
            capability: Resource::new(1024, 1),
            count: 1,
            relax_locality: true,
        })
        .collect();
    let n = rows.len() as u32;
    rows.push(Ask {
        priority: 20,
        allocation_request_id: 0,
        resource_name: "*".into(),
        capability: Resource::new(1024, 1),
        count: n,
        relax_locality: true,
    });
    rows
}

/// Ten snapshots of new host names must not leave every name interned for the core's
/// lifetime (1,000,012 names after ten snapshots of 100,000): names no node carries are not
/// interned at all.
#[test]
fn names_only_asks_mention_are_not_kept() {
    let mut c = core_with(&[]);
    for i in 0..5 {
        add_node(&mut c, &format!("h{i}"), "/r1", 8, 8);
    }
    add_app_named(&mut c, "app1", "job", 1, "MAPREDUCE", &[]);
    let before = c.state().names().len();
    for round in 0..10 {
        let asks = host_rows((0..2_000).map(|i| format!("ghost-{round}-{i}")));
        set_asks_vec(&mut c, "app1", asks);
    }
    assert_eq!(
        c.state().names().len(),
        before,
        "interned names grew with names no node has"
    );
}

/// A host row for a host the cluster does not have yet is kept, outside the interned table,
/// and counts as soon as that node registers: the node's first heartbeat gets it node-local.
#[test]
fn rows_for_hosts_that_register_later_are_not_lost() {
    let mut c = core_with(&[]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app_named(&mut c, "app1", "job", 1, "MAPREDUCE", &[]);
    set_small_asks(
        &mut c,
        "app1",
        &[(20, "late", 1), (20, "/r2", 1), (20, "*", 1)],
    );
    add_node(&mut c, "late", "/r2", 8, 8);
    let ds = heartbeat_free(&mut c, "late", 8, 8, 1_000);
    assert_eq!(
        summary(&ds),
        vec![("app1".to_string(), Locality::NodeLocal, 1)]
    );
}

/// Over `locus.app.max-ask-rows` or `locus.app.max-resource-names`, an update is refused with
/// the app, the key and the limit; the app keeps its previous asks and another app is served.
#[test]
fn asks_over_the_limits_are_refused_for_that_app_only() {
    let mut c = core_with(&[
        ("locus.app.max-ask-rows", "50"),
        ("locus.app.max-resource-names", "20"),
    ]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    add_app_named(&mut c, "app1", "job", 1, "MAPREDUCE", &[]);
    add_app_named(&mut c, "app2", "job", 2, "MAPREDUCE", &[]);
    set_small_asks(&mut c, "app1", &[(20, "*", 1)]);
    set_small_asks(&mut c, "app2", &[(20, "*", 1)]);

    let too_many_names = host_rows((0..30).map(|i| format!("x{i}")));
    let err = c
        .handle(Event::AsksUpdated {
            app: "app1".into(),
            asks: too_many_names,
        })
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("app1") && err.contains("locus.app.max-resource-names") && err.contains("20"),
        "{err}"
    );
    // Rows: 3 priorities × 20 names = 60 rows over 19 distinct names (+ `*`).
    let mut rows = Vec::new();
    for p in [5, 10, 20] {
        for mut a in host_rows((0..19).map(|i| format!("x{i}"))) {
            a.priority = p;
            rows.push(a);
        }
    }
    let err = c
        .handle(Event::AsksUpdated {
            app: "app1".into(),
            asks: rows.clone(),
        })
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("app1") && err.contains("locus.app.max-ask-rows") && err.contains("50"),
        "{err}"
    );
    // Both apps still have their one container outstanding and get it.
    let ds = heartbeat_free(&mut c, "h1", 8, 8, 1_000);
    let mut apps: Vec<String> = summary(&ds).into_iter().map(|(a, _, _)| a).collect();
    apps.sort();
    assert_eq!(apps, vec!["app1", "app2"]);

    // Changes are held to the same limits, counted over the rows the app would end up with:
    // 40 rows pass, 20 more would make 60 (the `*` row of priority 20 is replaced, not added).
    c.handle(Event::AsksChanged {
        app: "app1".into(),
        asks: rows[..40].to_vec(),
    })
    .unwrap();
    let pending = c
        .state()
        .app_by_id("app1")
        .unwrap()
        .asks
        .pending_containers();
    let err = c
        .handle(Event::AsksChanged {
            app: "app1".into(),
            asks: rows[40..].to_vec(),
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("locus.app.max-ask-rows"), "{err}");
    assert_eq!(
        c.state()
            .app_by_id("app1")
            .unwrap()
            .asks
            .pending_containers(),
        pending
    );
}

#[test]
fn limits_are_validated() {
    for (key, value) in [
        ("locus.app.max-ask-rows", "0"),
        ("locus.app.max-resource-names", "-3"),
        ("locus.app.max-resource-names", "many"),
    ] {
        let err = locus_core::core::Core::new(&props(&[(key, value)]))
            .err()
            .expect(key)
            .to_string();
        assert!(err.contains(key), "{err}");
    }
}
