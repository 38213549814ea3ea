//! What TD and JoSS read off a MapReduce app's asks: its outstanding maps, how many want each
//! host, and its smallest map container.

use std::collections::BTreeMap;

use crate::app::App;
use crate::names::ANY_ID;
use crate::protocol::Resource;
use crate::state::ClusterState;

/// Outstanding maps, per-host counts (collected in host-name order into whatever the caller's
/// paper module takes) and the smallest map container of `app`.
pub fn map_asks<C: FromIterator<(String, u32)>>(
    state: &ClusterState,
    app: &App,
) -> (u32, C, Option<Resource>) {
    let mut hosts: BTreeMap<String, u32> = BTreeMap::new();
    for (key, table) in app.asks.tables() {
        if !app.kind_of(key.priority).is_map() {
            continue;
        }
        for (name, row) in table.wanted_locations() {
            let name = state.names().name(name);
            // Racks are network locations (`/rack1`); only hosts count here.
            if !name.starts_with('/') {
                *hosts.entry(name.to_string()).or_insert(0) += row.count;
            }
        }
    }
    let (remain, size) = map_demand(app);
    (remain, hosts.into_iter().collect(), size)
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
        remain += table.outstanding();
        if let Some(row) = table.row(ANY_ID) {
            if size.is_none_or(|s| row.capability.memory_mb < s.memory_mb) {
                size = Some(row.capability);
            }
        }
    }
    (remain, size)
}
