//! Test support shared by the integration tests: the core driven as the shim drives it
//! (settings in, nodes/apps/asks as events, heartbeats stepped, decisions executed).
//! Each test binary uses a different subset, hence the module-wide allow.
#![allow(dead_code)]

use std::collections::BTreeMap;

use locus_core::{
    Ask, ContainerInfo, Core, CoreError, Decision, Event, Heartbeat, Locality, Resource,
};

pub const GB: u64 = 1024;

pub fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A core with these settings. These tests were written against fifo with hadoop locality (the
/// default until docs/results/default-policy.md moved it to fair + delay), so a test that names no
/// policy or locality gets those two; the default itself is asserted in config.rs.
pub fn core_with(pairs: &[(&str, &str)]) -> Core {
    let _ = env_logger::builder().is_test(true).try_init();
    let mut p = props(pairs);
    p.entry("locus.policy".into())
        .or_insert_with(|| "fifo".into());
    let policy = p["locus.policy"].clone();
    if !matches!(policy.as_str(), "td" | "joss-t" | "joss-j") {
        p.entry("locus.locality".into())
            .or_insert_with(|| "hadoop".into());
    }
    Core::new(&p).expect("valid settings")
}

pub fn node_id(host: &str) -> String {
    format!("{host}:8041")
}

pub fn add_node(c: &mut Core, host: &str, rack: &str, mem_gb: u64, vcores: u32) {
    add_node_as(
        c,
        &node_id(host),
        host,
        rack,
        Resource::new(mem_gb * GB, vcores),
    );
}

/// A node whose id is not `<host>:8041`.
pub fn add_node_as(c: &mut Core, node: &str, host: &str, rack: &str, capability: Resource) {
    c.handle(Event::NodeAdded {
        node: node.into(),
        host: host.into(),
        rack: rack.into(),
        capability,
    })
    .unwrap();
}

/// An app in queue "default" for user "alice"; `name` is what profile stores key on.
pub fn add_app_named(
    c: &mut Core,
    app: &str,
    name: &str,
    submit_ms: u64,
    app_type: &str,
    tags: &[&str],
) {
    add_app_in(c, app, "default", "alice", name, submit_ms, app_type, tags);
}

#[allow(clippy::too_many_arguments)]
pub fn add_app_in(
    c: &mut Core,
    app: &str,
    queue: &str,
    user: &str,
    name: &str,
    submit_ms: u64,
    app_type: &str,
    tags: &[&str],
) {
    c.handle(Event::AppAdded {
        app: app.into(),
        queue: queue.into(),
        user: user.into(),
        name: name.into(),
        app_type: app_type.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        submit_ms,
        priority: 0,
        recovered: false,
    })
    .unwrap();
}

/// (priority, resource_name, count, memory GB, vcores, relax_locality)
pub type Row<'a> = (i32, &'a str, u32, u64, u32, bool);

pub fn asks(rows: &[Row]) -> Vec<Ask> {
    rows.iter()
        .map(|&(priority, name, count, mem, vcores, relax)| Ask {
            priority,
            allocation_request_id: 0,
            resource_name: name.into(),
            capability: Resource::new(mem * GB, vcores),
            count,
            relax_locality: relax,
        })
        .collect()
}

pub fn set_asks_rows(c: &mut Core, app: &str, rows: &[Row]) {
    set_asks_vec(c, app, asks(rows));
}

/// A full ask snapshot (`asks_updated`) from ready-made asks.
pub fn set_asks_vec(c: &mut Core, app: &str, asks: Vec<Ask>) {
    c.handle(Event::AsksUpdated {
        app: app.into(),
        asks,
    })
    .unwrap();
}

/// (priority, resource_name, count) of relaxable 1 GB / 1 vcore containers.
pub fn set_small_asks(c: &mut Core, app: &str, rows: &[(i32, &str, u32)]) {
    let full: Vec<Row> = rows
        .iter()
        .map(|&(priority, name, count)| (priority, name, count, 1, 1, true))
        .collect();
    set_asks_rows(c, app, &full);
}

pub fn heartbeat_free(
    c: &mut Core,
    host: &str,
    free_gb: u64,
    free_vcores: u32,
    now_ms: u64,
) -> Vec<Decision> {
    try_heartbeat(
        c,
        &node_id(host),
        Resource::new(free_gb * GB, free_vcores),
        now_ms,
    )
    .unwrap()
}

/// A heartbeat whose error the caller reports itself.
pub fn try_heartbeat(
    c: &mut Core,
    node: &str,
    unallocated: Resource,
    now_ms: u64,
) -> Result<Vec<Decision>, CoreError> {
    Ok(c.heartbeat(&Heartbeat {
        node: node.into(),
        unallocated,
        now_ms,
        sweep: false,
        eager: false,
    })?
    .decisions)
}

/// Executes decisions as the shim would: one `container_allocated` per container, ids
/// `container_<n>` counted from `next_id`. Returns the ids handed out.
pub fn execute(c: &mut Core, decisions: &[Decision], next_id: &mut u32) -> Vec<String> {
    let mut ids = Vec::new();
    for d in decisions {
        for _ in 0..d.count {
            *next_id += 1;
            let id = format!("container_{next_id}");
            container_allocated(c, d, &id);
            ids.push(id);
        }
    }
    ids
}

/// The shim's `container_allocated` for one container of decision `d`.
pub fn container_allocated(c: &mut Core, d: &Decision, id: &str) {
    try_container_allocated(c, d, id).unwrap();
}

pub fn try_container_allocated(c: &mut Core, d: &Decision, id: &str) -> Result<(), CoreError> {
    c.handle(allocated_event(d, id))
}

/// The `container_allocated` event the shim sends for one container of decision `d`.
pub fn allocated_event(d: &Decision, id: &str) -> Event {
    Event::ContainerAllocated {
        container: ContainerInfo {
            container: id.into(),
            app: d.app.clone(),
            node: d.node.clone(),
            priority: d.priority,
            resource: d.capability,
        },
        locality: d.locality,
        allocation_request_id: d.allocation_request_id,
        recovered: false,
    }
}

/// The shim's `container_released` for a container of `mem_gb` GB / `vcores` on `host`.
pub fn release(c: &mut Core, app: &str, container: &str, host: &str, mem_gb: u64, vcores: u32) {
    let resource = Resource::new(mem_gb * GB, vcores);
    try_release(c, app, container, &node_id(host), resource).unwrap();
}

pub fn try_release(
    c: &mut Core,
    app: &str,
    container: &str,
    node: &str,
    resource: Resource,
) -> Result<(), CoreError> {
    c.handle(Event::ContainerReleased {
        app: app.into(),
        container: container.into(),
        node: node.into(),
        resource,
    })
}

/// (app, locality, count) of each decision, for compact assertions.
pub fn summary(ds: &[Decision]) -> Vec<(String, Locality, u32)> {
    ds.iter()
        .map(|d| (d.app.clone(), d.locality, d.count))
        .collect()
}

/// A core for every combination of layers the settings accept, under both of delay's
/// idle-room rules, each named by its layers; `capacity` is the queue setting the `capacity`
/// policy runs with (`locus.capacity.queues` or `locus.capacity.tree`).
pub fn layer_combinations(capacity: (&str, &str)) -> Vec<(String, Core)> {
    use locus_core::config::{HotspotKind, JobPolicyKind, LocalityKind, SlotsKind};
    let mut out = Vec::new();
    for idle_room in ["true", "false"] {
        for policy in JobPolicyKind::ALLOWED {
            for locality in LocalityKind::ALLOWED {
                for hotspot in HotspotKind::ALLOWED {
                    for slots in SlotsKind::ALLOWED {
                        let mut p = props(&[
                            ("locus.policy", policy),
                            ("locus.locality", locality),
                            ("locus.hotspot", hotspot),
                            ("locus.slots", slots),
                            ("locus.td.split-bytes", "1000"),
                            ("locus.td.bandwidth", "1000"),
                            ("locus.delay.node-locality-threshold", "0.5"),
                            ("locus.delay.rack-locality-threshold", "0.5"),
                            ("locus.delay.idle-room", idle_room),
                        ]);
                        if *policy == "capacity" {
                            p.insert(capacity.0.into(), capacity.1.into());
                        }
                        if let Ok(c) = Core::new(&p) {
                            out.push((
                                format!(
                                    "policy={policy} locality={locality} hotspot={hotspot} \
                                     slots={slots} idle-room={idle_room}"
                                ),
                                c,
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(out.len() > 100, "only {} combinations accepted", out.len());
    out
}
