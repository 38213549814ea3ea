//! An application's outstanding asks, kept as YARN's `AppSchedulingInfo` keeps them: one table
//! per scheduler key (priority, allocation request id), each with rows for hosts, racks and
//! `*`. The `*` row's count is the key's total outstanding; a host or rack row says how many of
//! those the application would like there. Rows are indexed by resource name so a heartbeat
//! looks up exactly three rows per key (the node's host, its rack, `*`).

use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::error::CoreError;
use crate::fast_hash::{FastMap, FastSet, IdHasher};
use crate::protocol::{Ask, AskRef, Locality, Resource};
use crate::state::names::{IdMap, NameId, Names, ANY_ID};
use crate::state::waiting::{WaitingNames, WAITING_ID};

/// YARN's `ResourceRequest.ANY`.
pub const ANY: &str = "*";

/// `locus.app.max-ask-rows`: rows (scheduler key × resource name) one application's asks may
/// hold. A MapReduce job with maps over 5,000 hosts holds about 5,100 rows per priority, twice
/// that while failed maps are re-asked at their own priority. The defaults of both limits are
/// what keeps the worst snapshot an AM can send (every row naming a host no node has, about
/// 0.5-1 µs a row) under 10 ms under the core lock (docs/operator/limits.md).
pub const MAX_ASK_ROWS_KEY: &str = "locus.app.max-ask-rows";
pub const DEFAULT_MAX_ASK_ROWS: usize = 12_288;
/// `locus.app.max-resource-names`: distinct resource names (hosts, racks, `*`) one
/// application's asks may name, known to the cluster or not. A 5,000-host job names about
/// 5,100.
pub const MAX_RESOURCE_NAMES_KEY: &str = "locus.app.max-resource-names";
pub const DEFAULT_MAX_RESOURCE_NAMES: usize = 8_192;
/// Longest resource name accepted: DNS names are at most 253 bytes and rack paths are short,
/// so anything longer is not a location.
pub const MAX_NAME_BYTES: usize = 1024;

/// Per-application bounds on what its asks may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskLimits {
    pub max_rows: usize,
    pub max_names: usize,
}

impl Default for AskLimits {
    fn default() -> Self {
        AskLimits {
            max_rows: DEFAULT_MAX_ASK_ROWS,
            max_names: DEFAULT_MAX_RESOURCE_NAMES,
        }
    }
}

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
    /// Rows other than `*` with something outstanding; zero (with no `waiting` rows) means the
    /// key is locality-free.
    placed_rows: u32,
    /// Rows of this key parked in [`AppAsks`]'s unknown names (hosts and racks no node has
    /// carried yet): they are not schedulable, but they say the key cares where it runs.
    waiting: u32,
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
        self.placed_rows == 0 && self.waiting == 0
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
    /// Sets (count 0: removes) the row of `name`; returns whether a row was there before. One
    /// map operation: a 5,000-host change runs this per row.
    fn set(&mut self, name: NameId, row: Row) -> bool {
        let now_placed = name != ANY_ID && row.count > 0;
        let old = if row.count > 0 {
            self.floor = Some(lower(self.floor, row.capability));
            self.rows.insert(name, row)
        } else {
            self.rows.remove(&name)
        };
        let was_placed = name != ANY_ID && old.as_ref().is_some_and(|r| r.count > 0);
        match (was_placed, now_placed) {
            (false, true) => self.placed_rows += 1,
            (true, false) => self.placed_rows = self.placed_rows.saturating_sub(1),
            _ => {}
        }
        old.is_some()
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
        Some(f) => {
            let mut low = Resource::new(f.memory_mb.min(c.memory_mb), f.vcores.min(c.vcores));
            for (l, (a, b)) in low.extra.iter_mut().zip(f.extra.iter().zip(&c.extra)) {
                *l = (*a).min(*b);
            }
            low
        }
    }
}

/// The rows an `asks_changed` message set, as (key, resource name).
pub type ChangedRows = HashSet<(SchedulerKey, NameId), BuildHasherDefault<IdHasher>>;

/// Where a row points: a name some node carries (interned), or one no node has carried.
#[derive(Clone, Copy)]
enum Place<'a> {
    Known(NameId),
    /// A name no node carries that the application already names: its slot among the
    /// application's waiting names, and whether the row named it by its id (else by name, and
    /// the shim is told the id).
    Waiting {
        slot: u32,
        by_id: bool,
    },
    /// A name no node carries that is new to the application (the message's own bytes, copied
    /// only when the row is kept).
    New(&'a str),
}

/// What setting one row did to a waiting name.
enum SetWaiting {
    No,
    /// The row's removal may have left the name (at this slot) without rows.
    Emptied(u32),
    /// A row by name set in the name's slot: the shim may send its id from now on.
    Named(u32),
}

/// One validated row of an ask message.
struct CheckedRow<'a> {
    key: SchedulerKey,
    place: Place<'a>,
    row: Row,
}

/// Checks every row of a message (snapshot or change) and looks its name up among the names
/// nodes carry; an ask never adds a name to `names`, so what an AM invents cannot grow the
/// core's tables beyond its own bounded asks. The first bad row refuses the whole message,
/// named by application, priority, allocation request id and resource name. Also returns the
/// set of known rows named. Rows naming unknown hosts twice are found by the caller
/// ([`unknown_twice`] or the fresh table a snapshot builds), which hashes their names once.
fn check_rows<'a>(
    app: &str,
    asks: &[AskRef<'a>],
    names: &Names,
    waiting: Option<&WaitingNames>,
    limits: AskLimits,
) -> Result<(Vec<CheckedRow<'a>>, ChangedRows), CoreError> {
    // Before any per-row work: no message may carry more rows than the app may hold.
    if asks.len() > limits.max_rows {
        return Err(CoreError::OverLimit {
            app: app.to_string(),
            key: MAX_ASK_ROWS_KEY,
            limit: limits.max_rows,
            found: format!("{} rows in one message", asks.len()),
        });
    }
    let mut seen = ChangedRows::with_capacity_and_hasher(asks.len(), Default::default());
    let mut out = Vec::with_capacity(asks.len());
    let has_waiting = waiting.is_some_and(|w| !w.is_empty());
    let mut waiting_first = has_waiting;
    for (index, ask) in asks.iter().copied().enumerate() {
        if let Some(raw) = ask.numbered() {
            if raw & WAITING_ID != 0 {
                out.push(waiting_row(app, index, &ask, raw, waiting)?);
                waiting_first = has_waiting;
            } else {
                out.push(numbered_row(app, index, &ask, raw, names, &mut seen)?);
                waiting_first = false;
            }
            continue;
        }
        let where_ = || {
            format!(
                "application {app}, priority {}, allocation_request_id {}, resource_name {:?}",
                ask.priority, ask.allocation_request_id, ask.resource_name
            )
        };
        check_numbers(app, &ask, ask.resource_name)?;
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
        if ask.resource_name.len() > MAX_NAME_BYTES {
            return Err(CoreError::Protocol(format!(
                "application {app}, priority {}: resource_name of {} bytes (at most {MAX_NAME_BYTES})",
                ask.priority,
                ask.resource_name.len()
            )));
        }
        let key = SchedulerKey {
            priority: ask.priority,
            allocation_request_id: ask.allocation_request_id,
        };
        // A name is either one a node carries or one of the app's waiting names, never both
        // (a node bringing a waiting name adopts its rows: `ClusterState::adopt_name`), so
        // whichever table holds it answers alone. The one that held the last row's name is asked
        // first: an AM's hosts are nearly all NodeManagers or nearly all not, so a row costs
        // one keyed hash of its name, not two.
        let slot = if waiting_first {
            waiting.and_then(|w| w.slot(ask.resource_name))
        } else {
            None
        };
        let place = match slot {
            Some(slot) => {
                // Answered by the waiting table alone: sound only while no node carries a
                // waiting name (adoption moves it; see above).
                debug_assert!(
                    names.id(ask.resource_name).is_none(),
                    "application {app}: waiting name {:?} is also a node's",
                    ask.resource_name
                );
                Place::Waiting { slot, by_id: false }
            }
            None => match names.id(ask.resource_name) {
                Some(id) => {
                    // Two values for one row in one message: which one the AM meant is
                    // unknowable.
                    if !seen.insert((key, id)) {
                        return Err(twice(app, key, ask.resource_name));
                    }
                    Place::Known(id)
                }
                None if waiting_first => Place::New(ask.resource_name),
                None => match waiting.and_then(|w| w.slot(ask.resource_name)) {
                    Some(slot) => Place::Waiting { slot, by_id: false },
                    None => Place::New(ask.resource_name),
                },
            },
        };
        waiting_first = !matches!(place, Place::Known(_)) && has_waiting;
        out.push(CheckedRow {
            key,
            place,
            row: Row {
                capability: ask.capability,
                count: ask.count,
                relax_locality: ask.relax_locality,
            },
        });
    }
    Ok((out, seen))
}

/// A row whose name is the id the core published: an array index, no hashing. Only a name
/// some live node carries has one, never an application's waiting name. Out of the loop of
/// [`check_rows`], which it made slower for rows by name when inlined there.
#[inline(never)]
fn numbered_row<'a>(
    app: &str,
    index: usize,
    ask: &AskRef<'a>,
    raw: u32,
    names: &Names,
    seen: &mut ChangedRows,
) -> Result<CheckedRow<'a>, CoreError> {
    let key = SchedulerKey {
        priority: ask.priority,
        allocation_request_id: ask.allocation_request_id,
    };
    let Some(id) = names.published(raw) else {
        return Err(CoreError::Protocol(format!(
            "application {app}, row {index} (priority {}, allocation_request_id {}): resource name id {raw} is not one this core gave a live node's host or rack (never given, or its node was removed)",
            ask.priority, ask.allocation_request_id
        )));
    };
    check_numbers(app, ask, names.name(id))?;
    if !seen.insert((key, id)) {
        return Err(twice(app, key, names.name(id)));
    }
    Ok(CheckedRow {
        key,
        place: Place::Known(id),
        row: Row {
            capability: ask.capability,
            count: ask.count,
            relax_locality: ask.relax_locality,
        },
    })
}

/// A row whose name is the id the application's waiting names gave it: an integer probe, no
/// hashing of the name. Refused unless the name holds a row now (an id is never given twice, so
/// a freed, adopted or replaced name's id names nothing). A snapshot has no table to read ids
/// against (`waiting` is `None`): refused too.
#[inline(never)]
fn waiting_row<'a>(
    app: &str,
    index: usize,
    ask: &AskRef<'a>,
    raw: u32,
    waiting: Option<&WaitingNames>,
) -> Result<CheckedRow<'a>, CoreError> {
    let found = waiting.and_then(|w| Some((w.slot_of_id(raw)?, w)));
    let Some((slot, w)) = found else {
        return Err(CoreError::Protocol(format!(
            "application {app}, row {index} (priority {}, allocation_request_id {}): resource name id {raw} is not one of the application's waiting names now (its rows were withdrawn, a node took the name, or a snapshot replaced the asks)",
            ask.priority, ask.allocation_request_id
        )));
    };
    check_numbers(app, ask, w.name(slot).unwrap_or("?"))?;
    Ok(CheckedRow {
        key: SchedulerKey {
            priority: ask.priority,
            allocation_request_id: ask.allocation_request_id,
        },
        place: Place::Waiting { slot, by_id: true },
        row: Row {
            capability: ask.capability,
            count: ask.count,
            relax_locality: ask.relax_locality,
        },
    })
}

/// The checks of a row's numbers (its name checked apart), for named and numbered rows alike.
#[inline(always)]
fn check_numbers(app: &str, ask: &AskRef<'_>, name: &str) -> Result<(), CoreError> {
    if ask.priority < 0 {
        return Err(CoreError::Protocol(format!(
            "application {app}, priority {}, allocation_request_id {}, resource_name {name:?}: negative priority (YARN priorities are 0 or more)",
            ask.priority, ask.allocation_request_id
        )));
    }
    if ask.count > 0 && ask.capability == Resource::ZERO {
        return Err(CoreError::Protocol(format!(
            "application {app}, priority {}, allocation_request_id {}, resource_name {name:?}: asks for {} containers of zero memory and zero vcores",
            ask.priority, ask.allocation_request_id, ask.count
        )));
    }
    Ok(())
}

fn twice(app: &str, key: SchedulerKey, name: &str) -> CoreError {
    CoreError::Protocol(format!(
        "application {app}, priority {}, allocation_request_id {}, resource_name {name:?}: row appears twice in one message",
        key.priority, key.allocation_request_id
    ))
}

/// The first unknown-name row `rows` names twice, as the error that refuses the message. Names
/// the application already has are compared by slot; only names new to it are hashed again.
fn unknown_twice(
    app: &str,
    rows: &[CheckedRow<'_>],
    waiting: Option<&WaitingNames>,
) -> Result<(), CoreError> {
    // Sized once, at the first waiting row, for the waiting rows alone: grown from empty, a
    // 5,000-row message rehashed it a dozen times; a message naming only hosts nodes carry
    // needs none.
    let mut held: FastSet<(SchedulerKey, u32)> = FastSet::default();
    let mut new: HashSet<(SchedulerKey, &str), RandomState> = HashSet::default();
    for (i, r) in rows.iter().enumerate() {
        let fresh = match r.place {
            Place::Known(_) => continue,
            Place::Waiting { slot, .. } => {
                if held.capacity() == 0 {
                    let waiting = rows[i..]
                        .iter()
                        .filter(|r| matches!(r.place, Place::Waiting { .. }))
                        .count();
                    held.reserve(waiting);
                }
                held.insert((r.key, slot))
            }
            Place::New(name) => new.insert((r.key, name)),
        };
        if !fresh {
            let name = match r.place {
                Place::Waiting { slot, .. } => waiting.and_then(|w| w.name(slot)).unwrap_or("?"),
                Place::New(name) => name,
                Place::Known(_) => "",
            };
            return Err(twice(app, r.key, name));
        }
    }
    Ok(())
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
    /// Rows naming hosts or racks no node has carried: not schedulable (no heartbeat can come
    /// from there) and not interned, kept so nothing is lost when such a node registers later
    /// ([`adopt`](Self::adopt)). Keyed by AM-chosen strings, so hashed with a random key.
    unknown: WaitingNames,
    /// Rows per interned name, for the distinct-names bound.
    held: IdMap<u32>,
    /// Rows in `tables` and `unknown`, for the rows bound.
    row_count: usize,
    /// The waiting names' ids the last message set by name, as (row of the message, id):
    /// what the shim may send instead of those names from now on. At most one per row.
    learned: Vec<(u32, u32)>,
}

impl AppAsks {
    /// Validates a full snapshot and builds the tables; nothing is kept from before. Nothing
    /// is assigned until every row passed, so on error the caller keeps its previous asks.
    pub fn from_snapshot(
        app: &str,
        asks: Vec<Ask>,
        names: &Names,
        limits: AskLimits,
    ) -> Result<AppAsks, CoreError> {
        let rows: Vec<AskRef<'_>> = asks.iter().map(Ask::view).collect();
        Self::from_snapshot_rows(app, &rows, names, limits)
    }

    /// [`from_snapshot`](Self::from_snapshot) of borrowed rows (a decoded asks frame's).
    pub fn from_snapshot_rows(
        app: &str,
        asks: &[AskRef<'_>],
        names: &Names,
        limits: AskLimits,
    ) -> Result<AppAsks, CoreError> {
        Self::from_snapshot_rows_after(app, asks, names, limits, None)
    }

    /// No asks, with waiting-name ids going on from `before`'s (an application's next attempt:
    /// an id of the earlier attempt's never names a row of the later one).
    pub fn emptied_after(before: &AppAsks) -> AppAsks {
        let mut table = AppAsks::default();
        table.unknown.continue_ids(&before.unknown);
        table
    }

    /// [`from_snapshot_rows`](Self::from_snapshot_rows) replacing `before`: the new table's
    /// waiting names get ids `before` never gave, so none of its ids comes to mean another name.
    pub fn from_snapshot_rows_after(
        app: &str,
        asks: &[AskRef<'_>],
        names: &Names,
        limits: AskLimits,
        before: Option<&AppAsks>,
    ) -> Result<AppAsks, CoreError> {
        let (rows, _) = check_rows(app, asks, names, None, limits)?;
        unknown_twice(app, &rows, None)?;
        // A fresh table, so building it first and checking its counts after is as atomic as
        // `check_limits` and spares a second map over every name.
        let mut table = AppAsks::default();
        if let Some(b) = before {
            table.unknown.continue_ids(&b.unknown);
        }
        let unknown = rows
            .iter()
            .filter(|r| matches!(r.place, Place::New(_)))
            .count();
        table.unknown.reserve(unknown);
        table.set_rows(rows);
        table.check_counts(
            app,
            table.row_count as i64,
            table.distinct_names() as i64,
            limits,
        )?;
        Ok(table)
    }

    /// Validates the rows an `asks_changed` message carries and, only if all pass, sets each
    /// one (count 0 removes it); rows not named keep their counts. Returns the rows set, as
    /// (key, name).
    pub fn apply_changes(
        &mut self,
        app: &str,
        asks: Vec<Ask>,
        names: &Names,
        limits: AskLimits,
    ) -> Result<ChangedRows, CoreError> {
        let rows: Vec<AskRef<'_>> = asks.iter().map(Ask::view).collect();
        self.apply_change_rows(app, &rows, names, limits)
    }

    /// [`apply_changes`](Self::apply_changes) of borrowed rows (a decoded asks frame's).
    pub fn apply_change_rows(
        &mut self,
        app: &str,
        asks: &[AskRef<'_>],
        names: &Names,
        limits: AskLimits,
    ) -> Result<ChangedRows, CoreError> {
        let (rows, set) = check_rows(app, asks, names, Some(&self.unknown), limits)?;
        unknown_twice(app, &rows, Some(&self.unknown))?;
        self.check_limits(app, &rows, limits)?;
        self.set_rows(rows);
        Ok(set)
    }

    /// Refuses `rows` if setting them would leave more rows or distinct names than `limits`
    /// allow, counted exactly (a change that removes rows may add others), without changing
    /// anything.
    fn check_limits(
        &self,
        app: &str,
        rows: &[CheckedRow<'_>],
        limits: AskLimits,
    ) -> Result<(), CoreError> {
        let mut row_count = self.row_count as i64;
        let mut known: IdMap<i64> = IdMap::default();
        let mut held: FastMap<u32, i64> = FastMap::default();
        let mut new: HashMap<&str, i64, RandomState> = HashMap::default();
        for r in rows {
            let exists = match r.place {
                Place::Known(id) => self
                    .tables
                    .get(&r.key)
                    .is_some_and(|t| t.rows.contains_key(&id)),
                Place::Waiting { slot, .. } => {
                    self.unknown.rows(slot).is_some_and(|w| w.contains(&r.key))
                }
                Place::New(_) => false,
            };
            let d = match (exists, r.row.count > 0) {
                (true, false) => -1,
                (false, true) => 1,
                _ => continue,
            };
            row_count += d;
            match r.place {
                Place::Known(id) => *known.entry(id).or_default() += d,
                Place::Waiting { slot, .. } => *held.entry(slot).or_default() += d,
                Place::New(s) => *new.entry(s).or_default() += d,
            }
        }
        let mut names = (self.held.len() + self.unknown.len()) as i64;
        let crossing = |before: i64, d: i64| match (before > 0, before + d > 0) {
            (false, true) => 1,
            (true, false) => -1,
            _ => 0,
        };
        for (id, d) in known {
            names += crossing(self.held.get(&id).copied().unwrap_or(0) as i64, d);
        }
        for (slot, d) in held {
            names += crossing(self.unknown.rows(slot).map_or(0, |w| w.len()) as i64, d);
        }
        for (_, d) in new {
            names += crossing(0, d);
        }
        self.check_counts(app, row_count, names, limits)
    }

    fn distinct_names(&self) -> usize {
        self.held.len() + self.unknown.len()
    }

    fn check_counts(
        &self,
        app: &str,
        row_count: i64,
        names: i64,
        limits: AskLimits,
    ) -> Result<(), CoreError> {
        if row_count > limits.max_rows as i64 {
            return Err(CoreError::OverLimit {
                app: app.to_string(),
                key: MAX_ASK_ROWS_KEY,
                limit: limits.max_rows,
                found: format!("its asks would hold {row_count} rows"),
            });
        }
        if names > limits.max_names as i64 {
            return Err(CoreError::OverLimit {
                app: app.to_string(),
                key: MAX_RESOURCE_NAMES_KEY,
                limit: limits.max_names,
                found: format!("its asks would name {names} distinct resource names"),
            });
        }
        Ok(())
    }

    /// Rows naming hosts or racks no node has carried yet, as (key, name, row): kept, not
    /// schedulable until such a node registers.
    pub fn waiting_rows(&self) -> impl Iterator<Item = (SchedulerKey, &str, &Row)> {
        self.unknown
            .iter()
            .flat_map(|(name, rows)| rows.iter().map(move |(k, r)| (*k, name, r)))
    }

    /// The ids the last message's rows by name gave their waiting names, as (row, id); emptied.
    pub fn take_learned(&mut self) -> Vec<(u32, u32)> {
        std::mem::take(&mut self.learned)
    }

    /// Rows held, known and waiting (what `locus.app.max-ask-rows` bounds).
    pub fn row_count(&self) -> usize {
        self.row_count
    }

    /// True while some row names a host or rack no node has carried.
    pub fn has_unknown(&self) -> bool {
        !self.unknown.is_empty()
    }

    /// A node now carries `name` (interned as `id`): the rows waiting for it become ordinary
    /// rows. Returns true when there were any.
    pub fn adopt(&mut self, name: &str, id: NameId) -> bool {
        let Some(waiting) = self.unknown.remove(name) else {
            return false;
        };
        self.row_count -= waiting.len();
        for (key, _) in waiting.iter() {
            self.unpark(key, 1);
        }
        let rows = waiting
            .into_rows()
            .into_iter()
            .map(|(key, row)| CheckedRow {
                key,
                place: Place::Known(id),
                row,
            })
            .collect();
        self.set_rows(rows);
        true
    }

    /// Sets one checked row. Returns what became of a waiting name: emptied (the caller frees
    /// it once the whole message is set if no row is left in it) or given a row by name (the
    /// shim is told its id).
    fn set_one(&mut self, r: CheckedRow<'_>) -> SetWaiting {
        match r.place {
            Place::Known(name) => {
                if r.row.count == 0 && !self.tables.contains_key(&r.key) {
                    return SetWaiting::No;
                }
                let has = r.row.count > 0;
                let had = self.tables.entry(r.key).or_default().set(name, r.row);
                match (had, has) {
                    (false, true) => {
                        self.row_count += 1;
                        *self.held.entry(name).or_default() += 1;
                    }
                    (true, false) => {
                        self.row_count -= 1;
                        if let Some(n) = self.held.get_mut(&name) {
                            *n -= 1;
                            if *n == 0 {
                                self.held.remove(&name);
                            }
                        }
                    }
                    _ => {}
                }
            }
            Place::Waiting { slot, by_id } => {
                if r.row.count == 0 {
                    let removed = self
                        .unknown
                        .rows_mut(slot)
                        .is_some_and(|w| w.remove(&r.key));
                    if removed {
                        self.row_count -= 1;
                        self.unpark(&r.key, 1);
                        return SetWaiting::Emptied(slot);
                    }
                } else {
                    // The slot holds the name until the whole message is set (see set_rows).
                    let new = self
                        .unknown
                        .rows_mut(slot)
                        .is_some_and(|w| w.insert(r.key, r.row));
                    if new {
                        self.row_count += 1;
                        self.tables.entry(r.key).or_default().waiting += 1;
                    }
                    if !by_id {
                        return SetWaiting::Named(slot);
                    }
                }
            }
            // No row of this key existed when the message was checked (nor can an earlier row
            // of the message have set it: that would be the same row twice).
            Place::New(_) if r.row.count == 0 => {}
            Place::New(name) => {
                let (new, slot) = self.unknown.insert_named(name, r.key, r.row);
                if new {
                    self.row_count += 1;
                    self.tables.entry(r.key).or_default().waiting += 1;
                }
                return SetWaiting::Named(slot);
            }
        }
        SetWaiting::No
    }

    /// `n` rows of `key` left the unknown names.
    fn unpark(&mut self, key: &SchedulerKey, n: u32) {
        if let Some(t) = self.tables.get_mut(key) {
            t.waiting = t.waiting.saturating_sub(n);
        }
    }

    fn set_rows(&mut self, rows: Vec<CheckedRow<'_>>) {
        let mut emptied = Vec::new();
        self.learned.clear();
        for (index, r) in rows.into_iter().enumerate() {
            match self.set_one(r) {
                SetWaiting::No => {}
                SetWaiting::Emptied(slot) => emptied.push(slot),
                SetWaiting::Named(slot) => self.learned.push((index as u32, slot)),
            }
        }
        // Only now: a slot freed mid-message could be handed to another name while later rows
        // of the message still point to it.
        for slot in emptied {
            self.unknown.drop_if_empty(slot);
        }
        // Slots to ids, once the message is set: a name emptied by a later row of the message
        // has no id left to teach.
        let unknown = &self.unknown;
        self.learned
            .retain_mut(|(_, slot)| match unknown.id(*slot) {
                Some(id) => {
                    *slot = id;
                    true
                }
                None => false,
            });
        self.finish_rows();
    }

    /// What depends on all rows, after a batch of [`set_one`](Self::set_one).
    fn finish_rows(&mut self) {
        // A key whose rows are all gone would otherwise linger as an empty table.
        self.tables
            .retain(|_, t| !t.rows.is_empty() || t.waiting > 0);
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
    use crate::state::names::Names;

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

    /// A waiting name answers a row alone only because no node carries it (adoption moves it):
    /// a name left in both tables is a core bug, caught in debug builds where it happens.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "is also a node's")]
    fn a_waiting_name_a_node_carries_is_caught() {
        let mut names = Names::default();
        let mut a = AppAsks::from_snapshot(
            "app1",
            vec![ask(20, "h9", 1), ask(20, ANY, 1)],
            &names,
            AskLimits::default(),
        )
        .unwrap();
        assert!(a.has_unknown());
        // A node brings h9 without its rows being adopted: the invariant is broken.
        names.intern("h9");
        let _ = a.apply_changes("app1", vec![ask(20, "h9", 2)], &names, AskLimits::default());
    }

    #[test]
    fn consume_counts_like_yarn() {
        let mut names = Names::default();
        let [h1, h2, r1, h9, r9] = ["h1", "h2", "/r1", "h9", "/r9"].map(|n| names.intern(n));
        let mut a = AppAsks::from_snapshot(
            "app1",
            vec![ask(20, "h1", 2), ask(20, "/r1", 3), ask(20, ANY, 5)],
            &names,
            AskLimits::default(),
        )
        .unwrap();
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
    fn rows_waiting_for_an_unknown_host_keep_the_key_local() {
        // A map whose data is on hosts no node has carried yet still cares where it runs: the
        // off-switch limit and the locality techniques apply to it, not the exemption of asks
        // naming only `*` (found by the fuzzer: 3 off-switch containers in one heartbeat).
        let mut names = Names::default();
        let h1 = names.intern("h1");
        let key = SchedulerKey {
            priority: 20,
            allocation_request_id: 0,
        };
        let mut a = AppAsks::from_snapshot(
            "app1",
            vec![ask(20, "h5", 2), ask(20, "/r2", 2), ask(20, ANY, 2)],
            &names,
            AskLimits::default(),
        )
        .unwrap();
        assert!(!a.table(&key).unwrap().locality_free());
        // Once its rows are gone it is locality-free; a host registering adopts them as ordinary
        // rows, which keep the key local too.
        let mut b = a.clone();
        b.apply_changes(
            "app1",
            vec![ask(20, "h5", 0), ask(20, "/r2", 0)],
            &names,
            AskLimits::default(),
        )
        .unwrap();
        assert!(b.table(&key).unwrap().locality_free());
        let h5 = names.intern("h5");
        assert!(a.adopt("h5", h5));
        assert!(!a.table(&key).unwrap().locality_free());
        assert_eq!(a.table(&key).unwrap().count(h5), 2);
        assert_eq!(a.table(&key).unwrap().count(h1), 0);
    }

    #[test]
    fn nonsense_rows_are_named() {
        let err = AppAsks::from_snapshot(
            "app7",
            vec![ask(-1, ANY, 1)],
            &Names::default(),
            AskLimits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("app7") && err.contains("priority -1"), "{err}");
        let mut zero = ask(3, ANY, 1);
        zero.capability = Resource::ZERO;
        let err =
            AppAsks::from_snapshot("app7", vec![zero], &Names::default(), AskLimits::default())
                .unwrap_err()
                .to_string();
        assert!(
            err.contains("app7") && err.contains("priority 3") && err.contains("zero"),
            "{err}"
        );
        let err = AppAsks::from_snapshot(
            "app7",
            vec![ask(1, ANY, 1), ask(1, ANY, 2)],
            &Names::default(),
            AskLimits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("twice"), "{err}");
        let err = AppAsks::from_snapshot(
            "app7",
            vec![ask(1, " ", 1)],
            &Names::default(),
            AskLimits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("empty resource_name"), "{err}");
    }

    /// Unknown-name rows are kept in place per name (no map per name) and found twice by a set
    /// of their own: a row named twice is refused in snapshots and changes, whatever the order
    /// of its counts, and a name's several keys survive removal of one.
    #[test]
    fn unknown_rows_named_twice_are_refused_and_several_keys_kept() {
        let names = Names::default();
        let limits = AskLimits::default();
        for pair in [[3, 0], [0, 3], [2, 2]] {
            let rows = vec![
                ask(1, "ghost", pair[0]),
                ask(1, "ghost", pair[1]),
                ask(1, ANY, 3),
            ];
            let err = AppAsks::from_snapshot("app3", rows.clone(), &names, limits)
                .unwrap_err()
                .to_string();
            assert!(err.contains("twice") && err.contains("ghost"), "{err}");
            let mut a =
                AppAsks::from_snapshot("app3", vec![ask(1, ANY, 3)], &names, limits).unwrap();
            let err = a
                .apply_changes("app3", rows, &names, limits)
                .unwrap_err()
                .to_string();
            assert!(err.contains("twice") && err.contains("ghost"), "{err}");
        }
        let mut a = AppAsks::from_snapshot(
            "app3",
            vec![
                ask(1, "ghost", 1),
                ask(2, "ghost", 2),
                ask(1, ANY, 1),
                ask(2, ANY, 2),
            ],
            &names,
            limits,
        )
        .unwrap();
        assert_eq!((a.row_count(), a.distinct_names()), (4, 2));
        a.apply_changes("app3", vec![ask(1, "ghost", 0)], &names, limits)
            .unwrap();
        let waiting: Vec<_> = a
            .waiting_rows()
            .map(|(k, n, r)| (k.priority, n.to_string(), r.count))
            .collect();
        assert_eq!(waiting, vec![(2, "ghost".to_string(), 2)]);
        a.apply_changes("app3", vec![ask(2, "ghost", 0)], &names, limits)
            .unwrap();
        assert!(!a.has_unknown(), "a name no row holds is freed");
        assert_eq!(a.row_count(), 2);
    }

    /// A message alternating names nodes carry, the app's waiting names and new ones: each
    /// row lands where its name belongs whichever table the name lookup asks first (it asks
    /// the one that held the last row's name), and a row named twice is refused either way.
    #[test]
    fn known_and_waiting_names_interleaved_each_land_where_they_belong() {
        let mut names = Names::default();
        let [h1, h2, r1] = ["h1", "h2", "/r1"].map(|n| names.intern(n));
        let limits = AskLimits::default();
        let mut a = AppAsks::from_snapshot(
            "app4",
            vec![ask(1, "w1", 1), ask(1, "w2", 1), ask(1, ANY, 2)],
            &names,
            limits,
        )
        .unwrap();
        let rows = vec![
            ask(1, "w1", 3),
            ask(1, "h1", 4),
            ask(1, "w2", 5),
            ask(1, "w3", 6),
            ask(1, "h2", 7),
            ask(1, "/r1", 8),
            ask(1, "w4", 9),
            ask(1, ANY, 10),
        ];
        a.apply_changes("app4", rows.clone(), &names, limits)
            .unwrap();
        let key = SchedulerKey {
            priority: 1,
            allocation_request_id: 0,
        };
        let t = a.table(&key).unwrap();
        assert_eq!(
            (t.count(h1), t.count(h2), t.count(r1), t.count(ANY_ID)),
            (4, 7, 8, 10)
        );
        let mut waiting: Vec<_> = a
            .waiting_rows()
            .map(|(_, n, r)| (n.to_string(), r.count))
            .collect();
        waiting.sort();
        let expected: Vec<(String, u32)> = [("w1", 3), ("w2", 5), ("w3", 6), ("w4", 9)]
            .map(|(n, c)| (n.to_string(), c))
            .to_vec();
        assert_eq!(waiting, expected);
        assert_eq!((a.row_count(), a.distinct_names()), (8, 8));
        // A known name right after a waiting one, and a waiting name right after a known one,
        // each named twice.
        for (twice_name, rows) in [
            (
                "h1",
                vec![ask(1, "h1", 1), ask(1, "w1", 1), ask(1, "h1", 2)],
            ),
            (
                "w1",
                vec![ask(1, "w1", 1), ask(1, "h1", 1), ask(1, "w1", 2)],
            ),
        ] {
            let err = a
                .clone()
                .apply_changes("app4", rows, &names, limits)
                .unwrap_err()
                .to_string();
            assert!(err.contains("twice") && err.contains(twice_name), "{err}");
        }
    }

    /// One message that empties a waiting name, names a new one and sets the first again:
    /// each row lands on its own name (a slot freed mid-message and handed to the new name
    /// would put the last row under the wrong host), and the distinct-names bound counts both.
    #[test]
    fn a_waiting_name_emptied_and_refilled_in_one_message_keeps_its_rows() {
        let names = Names::default();
        let limits = AskLimits::default();
        let mut a = AppAsks::from_snapshot(
            "app4",
            vec![ask(1, "ghost", 1), ask(1, ANY, 1)],
            &names,
            limits,
        )
        .unwrap();
        a.apply_changes(
            "app4",
            vec![ask(1, "ghost", 0), ask(1, "spook", 2), ask(2, "ghost", 3)],
            &names,
            limits,
        )
        .unwrap();
        let mut waiting: Vec<_> = a
            .waiting_rows()
            .map(|(k, n, r)| (k.priority, n.to_string(), r.count))
            .collect();
        waiting.sort();
        assert_eq!(
            waiting,
            vec![(1, "spook".to_string(), 2), (2, "ghost".to_string(), 3)]
        );
        assert_eq!((a.row_count(), a.distinct_names()), (3, 3));
        let two_names = AskLimits {
            max_rows: 100,
            max_names: 3,
        };
        let err = a
            .apply_changes("app4", vec![ask(1, "third", 1)], &names, two_names)
            .unwrap_err()
            .to_string();
        assert!(err.contains("4 distinct resource names"), "{err}");
        a.apply_changes(
            "app4",
            vec![ask(1, "spook", 0), ask(1, "third", 1)],
            &names,
            two_names,
        )
        .unwrap();
        assert_eq!((a.row_count(), a.distinct_names()), (3, 3));
    }

    #[test]
    fn zero_rows_are_dropped_and_locality_free_detected() {
        let a = AppAsks::from_snapshot(
            "a",
            vec![ask(0, ANY, 1), ask(0, "h1", 0), ask(5, ANY, 0)],
            &Names::default(),
            AskLimits::default(),
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
        let a = AppAsks::from_snapshot(
            "a",
            vec![big_mem, big_cpu],
            &Names::default(),
            AskLimits::default(),
        )
        .unwrap();
        assert!(
            a.might_fit(&Resource::new(1024, 1)),
            "lower bound, not an exact test"
        );
        assert!(!a.might_fit(&Resource::new(1023, 8)));
        assert!(!a.might_fit(&Resource::new(8192, 0)));
    }
}
