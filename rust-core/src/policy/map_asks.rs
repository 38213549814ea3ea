//! What TD and JoSS read off a MapReduce app's asks: its outstanding maps, how many want each
//! host, and its smallest map container.

use std::collections::BTreeMap;

use crate::protocol::Resource;
use crate::state::app::App;
use crate::state::names::{NameId, ANY_ID};
use crate::state::ClusterState;

/// Outstanding maps, per-host counts (collected in host-name order into whatever the caller's
/// paper module takes) and the smallest map container of `app`. A host counts for a map key
/// only where a node there may run it (`ClusterState::may_run_at`): a map labelled with a
/// partition its data's nodes are not in is local nowhere, and a policy that picks by data
/// must not hand its slot to the data's node, where the map may not run.
pub fn map_asks<C: FromIterator<(String, u32)>>(
    state: &ClusterState,
    app: &App,
) -> (u32, C, Option<Resource>) {
    let mut hosts: BTreeMap<String, u32> = BTreeMap::new();
    for (key, table) in app.asks.tables() {
        if !app.kind_of(key.priority).is_map() {
            continue;
        }
        let partition = app.partitions.of(key);
        for (name, row) in table.wanted_locations() {
            if !state.may_run_at(name, partition) {
                continue;
            }
            let name = state.names().name(name);
            // Racks are network locations (`/rack1`); only hosts count here.
            if !name.starts_with('/') {
                let n = hosts.entry(name.to_string()).or_insert(0);
                *n = n.saturating_add(row.count);
            }
        }
    }
    let (remain, size) = map_demand(app);
    (remain, hosts.into_iter().collect(), size)
}

/// The per-host rows of `app`'s map asks as [`map_asks`] reads them, borrowed, one item per
/// row (a host named at several map priorities comes once per priority): for a caller that
/// keeps its own counts and must not copy every host name on every heartbeat.
pub fn map_host_rows<'s>(
    state: &'s ClusterState,
    app: &'s App,
) -> impl Iterator<Item = (&'s str, u32)> + 's {
    map_host_rows_by_id(state, app).map(|(_, name, count)| (name, count))
}

/// [`map_host_rows`] with each host's [`NameId`] in the core's name table, for a caller that
/// numbers hosts itself and need not hash the name again.
pub fn map_host_rows_by_id<'s>(
    state: &'s ClusterState,
    app: &'s App,
) -> impl Iterator<Item = (NameId, &'s str, u32)> + 's {
    app.asks
        .tables()
        .filter(move |(key, _)| app.kind_of(key.priority).is_map())
        .flat_map(move |(key, table)| {
            let partition = app.partitions.of(key);
            table
                .wanted_locations()
                .filter(move |(id, _)| state.may_run_at(*id, partition))
        })
        .map(move |(id, row)| (id, state.names().name(id), row.count))
        // Racks are network locations (`/rack1`); only hosts count here.
        .filter(|(_, name, _)| !name.starts_with('/'))
}

/// [`map_asks`] without the per-host counts: outstanding maps and the smallest map container.
/// Policies that need only these call it on every heartbeat for every app, where copying
/// each app's host names cost as much as the rest of the heartbeat.
pub fn map_demand(app: &App) -> (u32, Option<Resource>) {
    let mut remain = 0;
    let mut size: Option<Resource> = None;
    for (key, table) in app.asks.tables() {
        if !app.kind_of(key.priority).is_map() {
            continue;
        }
        // Counts are the AM's: several map priorities of u32::MAX each must not wrap.
        remain = u32::saturating_add(remain, table.outstanding());
        if let Some(row) = table.row(ANY_ID) {
            if size.is_none_or(|s| row.capability.memory_mb < s.memory_mb) {
                size = Some(row.capability);
            }
        }
    }
    (remain, size)
}

/// The smallest map container of `app` (by memory) among its map keys some node can serve
/// (`ClusterState::app_can_ever_place`): what TD and JoSS count a node's idle map slots in. A
/// key no node can serve is a blocker and must not size the slots (docs/design/liveness.md): a
/// 1 GB map asking 4 vcores, pinned to hosts that never join, counted no slot on a 2-vcore
/// node, so no job got a pick there.
pub fn servable_map_size(state: &ClusterState, app: &App) -> Option<Resource> {
    app.asks
        .tables()
        .filter(|(key, table)| {
            app.kind_of(key.priority).is_map()
                && table.outstanding() > 0
                && state.app_can_ever_place(app, key, table)
        })
        .filter_map(|(_, table)| table.row(ANY_ID).map(|r| r.capability))
        .min_by_key(|r| r.memory_mb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Ask;
    use crate::state::app::Arrival;
    use crate::state::ask::AppAsks;
    use crate::state::names::Names;

    fn any(priority: i32, count: u32, memory_mb: u64) -> Ask {
        Ask {
            priority,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability: Resource::new(memory_mb, 1),
            count,
            relax_locality: true,
        }
    }

    /// Two map priorities (maps and fast-fail maps) of u32::MAX each: their sum is the largest
    /// count there is, not a panic or a wrap to u32::MAX - 1.
    #[test]
    fn outstanding_maps_saturate() {
        let asks = vec![any(20, u32::MAX, u64::MAX), any(5, u32::MAX, u64::MAX - 1)];
        let mut app = App {
            id: "application_1_0001".into(),
            arrival: Arrival(0),
            queue: "default".into(),
            user: "u".into(),
            name: "n".into(),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: 0,
            priority: 0,
            is_mapreduce: true,
            attempt: None,
            asks: AppAsks::default(),
            asks_version: 0,
            used: Resource::ZERO,
            am_used: Resource::ZERO,
            used_by_partition: Default::default(),
            running: 0,
            blacklist: Default::default(),
            partitions: Default::default(),
            lend_misses: Default::default(),
        };
        app.asks =
            AppAsks::from_snapshot(&app.id, asks, &Names::default(), Default::default()).unwrap();
        let (remain, size) = map_demand(&app);
        assert_eq!(remain, u32::MAX);
        assert_eq!(size, Some(Resource::new(u64::MAX - 1, 1)));
    }
}
