//! An application's outstanding asks, kept as YARN's `AppSchedulingInfo` keeps them: one table
//! per scheduler key (priority, allocation request id), each with rows for hosts, racks and
//! `*`. The `*` row's count is the key's total outstanding; a host or rack row says how many of
//! those the application would like there. Rows are indexed by resource name so a heartbeat
//! looks up exactly three rows per key (the node's host, its rack, `*`).

use std::collections::{BTreeMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::error::CoreError;
use crate::fast_hash::IdHasher;
use crate::names::{IdMap, NameId, Names, ANY_ID};
use crate::protocol::{Ask, Locality, Resource};

/// YARN's `ResourceRequest.ANY`.
pub const ANY: &str = "*";

/// YARN's `SchedulerRequestKey` minus the container to update: ordered by priority first
/// (lower number = more important), then allocation request id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SchedulerKey {
    pub priority: i32,
    pub allocation_request_id: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub capability: Resource,
    pub count: u32,
    pub relax_locality: bool,
}

/// The rows of one scheduler key, by interned resource name.
#[derive(Debug, Clone, Default)]
pub struct AskTable {
    rows: IdMap<Row>,
    /// Rows other than `*` with something outstanding; zero means the key is locality-free.
    placed_rows: u32,
    /// The smallest memory and vcores any row set since the table was created asks for: rows
    /// may have shrunk or gone since, so it is a lower bound, never an exact minimum.
    floor: Option<Resource>,
}

impl AskTable {
    pub fn row(&self, name: NameId) -> Option<&Row> {
        self.rows.get(&name)
    }

    /// Outstanding containers at `name` (0 when there is no row).
    pub fn count(&self, name: NameId) -> u32 {
        self.rows.get(&name).map_or(0, |r| r.count)
    }

    /// Total outstanding for the key: the `*` row.
    pub fn outstanding(&self) -> u32 {
        self.count(ANY_ID)
    }

    /// YARN's `canDelayTo`: allocation may fall back to `name` unless its row says
    /// relax_locality=false. A row with nothing outstanding cannot forbid anything, because
    /// the scheduler only consults this flag for levels with outstanding containers.
    pub fn may_relax_to(&self, name: NameId) -> bool {
        self.rows
            .get(&name)
            .is_none_or(|r| r.count == 0 || r.relax_locality)
    }

    /// True when nothing is outstanding anywhere but `*`: the app does not care where its
    /// containers run (AMs, Spark executors, DistributedShell), so placing them gives up no
    /// locality.
    pub fn locality_free(&self) -> bool {
        self.placed_rows == 0
    }

    /// Hosts and racks with outstanding containers, for policies that look for local data.
    pub fn wanted_locations(&self) -> impl Iterator<Item = (NameId, &Row)> {
        self.rows
            .iter()
            .filter(|(id, row)| **id != ANY_ID && row.count > 0)
            .map(|(id, row)| (*id, row))
    }

    pub fn rows(&self) -> impl Iterator<Item = (NameId, &Row)> {
        self.rows.iter().map(|(id, r)| (*id, r))
    }

    /// Sets `name`'s row to `row`; a row with count 0 is removed.
    fn set(&mut self, name: NameId, row: Row) {
        let was_placed = name != ANY_ID && self.rows.get(&name).is_some_and(|r| r.count > 0);
        let now_placed = name != ANY_ID && row.count > 0;
        if row.count > 0 {
            self.floor = Some(lower(self.floor, row.capability));
            self.rows.insert(name, row);
        } else {
            self.rows.remove(&name);
        }
        match (was_placed, now_placed) {
            (false, true) => self.placed_rows += 1,
            (true, false) => self.placed_rows = self.placed_rows.saturating_sub(1),
            _ => {}
        }
    }

    fn take(&mut self, name: NameId, n: u32) {
        if let Some(row) = self.rows.get_mut(&name) {
            let before = row.count;
            row.count = row.count.saturating_sub(n);
            if name != ANY_ID && before > 0 && row.count == 0 {
                self.placed_rows = self.placed_rows.saturating_sub(1);
            }
        }
    }

    fn give_back(&mut self, name: NameId, n: u32) {
        if let Some(row) = self.rows.get_mut(&name) {
            let before = row.count;
            row.count = row.count.saturating_add(n);
            if name != ANY_ID && before == 0 && row.count > 0 {
                self.placed_rows += 1;
            }
        }
    }
}

/// The smaller of two resources in each dimension.
fn lower(floor: Option<Resource>, c: Resource) -> Resource {
    match floor {
        None => c,
        Some(f) => Resource::new(f.memory_mb.min(c.memory_mb), f.vcores.min(c.vcores)),
    }
}

/// The rows an `asks_changed` message set, as (key, resource name).
pub type ChangedRows = HashSet<(SchedulerKey, NameId), BuildHasherDefault<IdHasher>>;

/// One validated row of an ask message, its name interned.
struct CheckedRow {
    key: SchedulerKey,
    name: NameId,
    row: Row,
}

/// Checks every row of a message (snapshot or change) and interns its names; the first bad row
/// refuses the whole message, named by application, priority, allocation request id and
/// resource name. Also returns the set of rows named.
fn check_rows(
    app: &str,
    asks: Vec<Ask>,
    names: &mut Names,
) -> Result<(Vec<CheckedRow>, ChangedRows), CoreError> {
    let mut seen = ChangedRows::with_capacity_and_hasher(asks.len(), Default::default());
    let mut out = Vec::with_capacity(asks.len());
    for ask in asks {
        let where_ = || {
            format!(
                "application {app}, priority {}, allocation_request_id {}, resource_name {:?}",
                ask.priority, ask.allocation_request_id, ask.resource_name
            )
        };
        if ask.priority < 0 {
            return Err(CoreError::Protocol(format!(
                "{}: negative priority (YARN priorities are 0 or more)",
                where_()
            )));
        }
        // A name starting with anything but whitespace is not blank: only the rare other case
        // pays for trimming (this runs for every row of every ask message).
        let blank = ask
            .resource_name
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
            && ask.resource_name.trim().is_empty();
        if blank {
            return Err(CoreError::Protocol(format!(
                "{}: empty resource_name",
                where_()
            )));
        }
        if ask.count > 0 && ask.capability == Resource::ZERO {
            return Err(CoreError::Protocol(format!(
                "{}: asks for {} containers of zero memory and zero vcores",
                where_(),
                ask.count
            )));
        }
        let key = SchedulerKey {
            priority: ask.priority,
            allocation_request_id: ask.allocation_request_id,
        };
        let name = names.intern(&ask.resource_name);
        // Two values for one row in one message: which one the AM meant is unknowable.
        if !seen.insert((key, name)) {
            return Err(CoreError::Protocol(format!(
                "{}: row appears twice in one message",
                where_()
            )));
        }
        out.push(CheckedRow {
            key,
            name,
            row: Row {
                capability: ask.capability,
                count: ask.count,
                relax_locality: ask.relax_locality,
            },
        });
    }
    Ok((out, seen))
}

/// All of an application's asks.
#[derive(Debug, Clone, Default)]
pub struct AppAsks {
    tables: BTreeMap<SchedulerKey, AskTable>,
    /// The smallest memory and the smallest vcores of the tables' floors. A room below it in
    /// either dimension fits none of the app's containers, which lets a heartbeat from a nearly
    /// full node skip the app without looking at its rows.
    floor: Resource,
    /// Sum of the `*` rows, kept current so FIFO's "who wants anything" is one comparison.
    pending: u64,
}

impl AppAsks {
    /// Validates a full snapshot and builds the tables; nothing is kept from before. Nothing
    /// is assigned until every row passed, so on error the caller keeps its previous asks.
    pub fn from_snapshot(
        app: &str,
        asks: Vec<Ask>,
        names: &mut Names,
    ) -> Result<AppAsks, CoreError> {
        let (rows, _) = check_rows(app, asks, names)?;
        let mut table = AppAsks::default();
        table.set_rows(rows);
        Ok(table)
    }

    /// Validates the rows an `asks_changed` message carries and, only if all pass, sets each
    /// one (count 0 removes it); rows not named keep their counts. Returns the rows set, as
    /// (key, name).
    pub fn apply_changes(
        &mut self,
        app: &str,
        asks: Vec<Ask>,
        names: &mut Names,
    ) -> Result<ChangedRows, CoreError> {
        let (rows, set) = check_rows(app, asks, names)?;
        self.set_rows(rows);
        Ok(set)
    }

    fn set_rows(&mut self, rows: Vec<CheckedRow>) {
        for r in rows {
            if r.row.count == 0 && !self.tables.contains_key(&r.key) {
                continue;
            }
            self.tables.entry(r.key).or_default().set(r.name, r.row);
        }
        // A key whose rows are all gone would otherwise linger as an empty table.
        self.tables.retain(|_, t| !t.rows.is_empty());
        let mut floor: Option<Resource> = None;
        for t in self.tables.values() {
            if let Some(f) = t.floor {
                floor = Some(lower(floor, f));
            }
        }
        self.floor = floor.unwrap_or(Resource::ZERO);
        self.pending = self.tables.values().map(|t| t.outstanding() as u64).sum();
    }

    /// A lower bound of every outstanding container's size, in each dimension.
    pub fn floor(&self) -> Resource {
        self.floor
    }

    /// False when `room` cannot fit any container the app asks for (see `floor`).
    pub fn might_fit(&self, room: &Resource) -> bool {
        room.fits(&self.floor)
    }

    pub fn table(&self, key: &SchedulerKey) -> Option<&AskTable> {
        self.tables.get(key)
    }

    /// Keys in YARN's order (priority, then allocation request id).
    pub fn tables(&self) -> impl Iterator<Item = (&SchedulerKey, &AskTable)> {
        self.tables.iter()
    }

    /// Keys with something outstanding, in YARN's order.
    pub fn pending_keys(&self) -> impl Iterator<Item = SchedulerKey> + '_ {
        self.tables
            .iter()
            .filter(|(_, t)| t.outstanding() > 0)
            .map(|(k, _)| *k)
    }

    /// The first key with something outstanding after `after` (all keys when `None`), so a
    /// caller can walk the keys while changing the tables between steps.
    pub fn next_pending_key(&self, after: Option<SchedulerKey>) -> Option<SchedulerKey> {
        use std::ops::Bound::{Excluded, Unbounded};
        let lower = after.map_or(Unbounded, Excluded);
        self.tables
            .range((lower, Unbounded))
            .find(|(_, t)| t.outstanding() > 0)
            .map(|(k, _)| *k)
    }

    /// Containers outstanding over all keys (sum of the `*` rows).
    pub fn pending_containers(&self) -> u64 {
        self.pending
    }

    pub fn has_pending(&self) -> bool {
        self.pending > 0
    }

    /// Counts `n` containers of `key` placed at `locality` on a node at (`host`, `rack`).
    pub fn consume(
        &mut self,
        key: &SchedulerKey,
        locality: Locality,
        host: NameId,
        rack: NameId,
        n: u32,
    ) {
        self.apply(key, locality, host, rack, n, AskTable::take);
    }

    /// [`consume`](Self::consume) restricted to the rows `changed` names: after an
    /// `asks_changed`, only those rows hold the RM's view, which does not count decisions the
    /// shim has not executed yet; the other rows already had them taken off.
    pub fn consume_changed(
        &mut self,
        key: &SchedulerKey,
        locality: Locality,
        host: NameId,
        rack: NameId,
        n: u32,
        changed: &ChangedRows,
    ) {
        let Some(table) = self.tables.get_mut(key) else {
            return;
        };
        let before = table.outstanding() as u64;
        for (name, level) in [
            (host, Locality::NodeLocal),
            (rack, Locality::RackLocal),
            (ANY_ID, Locality::OffSwitch),
        ] {
            if level >= locality && changed.contains(&(*key, name)) {
                table.take(name, n);
            }
        }
        self.pending = self.pending.saturating_sub(before) + table.outstanding() as u64;
    }

    /// Undoes [`consume`](Self::consume) for containers the shim did not create.
    pub fn restore(
        &mut self,
        key: &SchedulerKey,
        locality: Locality,
        host: NameId,
        rack: NameId,
        n: u32,
    ) {
        self.apply(key, locality, host, rack, n, AskTable::give_back);
    }

    fn apply(
        &mut self,
        key: &SchedulerKey,
        locality: Locality,
        host: NameId,
        rack: NameId,
        n: u32,
        op: fn(&mut AskTable, NameId, u32),
    ) {
        let Some(table) = self.tables.get_mut(key) else {
            return;
        };
        // YARN's LocalityAppPlacementAllocator: node-local uses up one from host, rack and `*`;
        // rack-local from rack and `*`; off-switch from `*` only.
        if locality == Locality::NodeLocal {
            op(table, host, n);
        }
        if locality != Locality::OffSwitch {
            op(table, rack, n);
        }
        let before = table.outstanding() as u64;
        op(table, ANY_ID, n);
        self.pending = self.pending.saturating_sub(before) + table.outstanding() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::Names;

    fn ask(priority: i32, name: &str, count: u32) -> Ask {
        Ask {
            priority,
            allocation_request_id: 0,
            resource_name: name.into(),
            capability: Resource::new(1024, 1),
            count,
            relax_locality: true,
        }
    }

    #[test]
    fn consume_counts_like_yarn() {
        let mut names = Names::default();
        let mut a = AppAsks::from_snapshot(
            "app1",
            vec![ask(20, "h1", 2), ask(20, "/r1", 3), ask(20, ANY, 5)],
            &mut names,
        )
        .unwrap();
        let [h1, h2, r1, h9, r9] = ["h1", "h2", "/r1", "h9", "/r9"].map(|n| names.intern(n));
        let key = SchedulerKey {
            priority: 20,
            allocation_request_id: 0,
        };
        a.consume(&key, Locality::NodeLocal, h1, r1, 1);
        let t = a.table(&key).unwrap();
        assert_eq!((t.count(h1), t.count(r1), t.count(ANY_ID)), (1, 2, 4));
        a.consume(&key, Locality::RackLocal, h2, r1, 1);
        a.consume(&key, Locality::OffSwitch, h9, r9, 1);
        let t = a.table(&key).unwrap();
        assert_eq!((t.count(h1), t.count(r1), t.count(ANY_ID)), (1, 1, 2));
        a.restore(&key, Locality::NodeLocal, h1, r1, 1);
        let t = a.table(&key).unwrap();
        assert_eq!((t.count(h1), t.count(r1), t.count(ANY_ID)), (2, 2, 3));
        assert!(!t.locality_free());
        assert_eq!(a.pending_containers(), 3);
        // Spending every local row leaves a locality-free key; giving one back undoes that.
        a.consume(&key, Locality::NodeLocal, h1, r1, 2);
        assert!(a.table(&key).unwrap().locality_free());
        a.restore(&key, Locality::RackLocal, h2, r1, 1);
        assert!(!a.table(&key).unwrap().locality_free());
    }

    #[test]
    fn nonsense_rows_are_named() {
        let err = AppAsks::from_snapshot("app7", vec![ask(-1, ANY, 1)], &mut Names::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("app7") && err.contains("priority -1"), "{err}");
        let mut zero = ask(3, ANY, 1);
        zero.capability = Resource::ZERO;
        let err = AppAsks::from_snapshot("app7", vec![zero], &mut Names::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("app7") && err.contains("priority 3") && err.contains("zero"),
            "{err}"
        );
        let err = AppAsks::from_snapshot(
            "app7",
            vec![ask(1, ANY, 1), ask(1, ANY, 2)],
            &mut Names::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("twice"), "{err}");
        let err = AppAsks::from_snapshot("app7", vec![ask(1, " ", 1)], &mut Names::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("empty resource_name"), "{err}");
    }

    #[test]
    fn zero_rows_are_dropped_and_locality_free_detected() {
        let a = AppAsks::from_snapshot(
            "a",
            vec![ask(0, ANY, 1), ask(0, "h1", 0), ask(5, ANY, 0)],
            &mut Names::default(),
        )
        .unwrap();
        assert_eq!(a.tables().count(), 1);
        let t = a
            .table(&SchedulerKey {
                priority: 0,
                allocation_request_id: 0,
            })
            .unwrap();
        assert!(t.locality_free());
        assert_eq!(a.pending_containers(), 1);
    }

    #[test]
    fn floor_is_the_smallest_ask_in_each_dimension() {
        let mut big_mem = ask(1, ANY, 1);
        big_mem.capability = Resource::new(4096, 1);
        let mut big_cpu = ask(2, ANY, 1);
        big_cpu.capability = Resource::new(1024, 4);
        let a = AppAsks::from_snapshot("a", vec![big_mem, big_cpu], &mut Names::default()).unwrap();
        assert!(
            a.might_fit(&Resource::new(1024, 1)),
            "lower bound, not an exact test"
        );
        assert!(!a.might_fit(&Resource::new(1023, 8)));
        assert!(!a.might_fit(&Resource::new(8192, 0)));
    }
}
