//! An application's rows naming hosts or racks no node has carried yet ("unknown names"): not
//! schedulable, kept so nothing is lost when such a node registers.
//!
//! Each name gets a slot number the first time the application names it. An ask message looks
//! the name up once (a keyed hash, as the names are the AM's choice) and every later step of
//! the message (rows named twice, the limits, setting the row) works on the slot: a MapReduce
//! job whose 5,000 split hosts are not NodeManagers changes those rows on every allocate(),
//! and hashing each name five times was most of that change's cost.

use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap};

use crate::fast_hash::FastMap;
use crate::state::ask::{Row, SchedulerKey};

/// The rows waiting for one unknown name. Nearly always one scheduler key (a map's host row),
/// held in place: a map per name was an allocation of hundreds of bytes per row, and most of
/// the cost of a snapshot naming many unknown hosts (and of dropping it).
#[derive(Debug, Clone)]
pub(crate) enum Waiting {
    One(SchedulerKey, Row),
    /// Several keys, or none (left so while a message is being applied; see
    /// [`WaitingNames::drop_if_empty`]).
    Many(BTreeMap<SchedulerKey, Row>),
}

impl Waiting {
    pub(crate) fn contains(&self, key: &SchedulerKey) -> bool {
        match self {
            Waiting::One(k, _) => k == key,
            Waiting::Many(m) => m.contains_key(key),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Waiting::One(..) => 1,
            Waiting::Many(m) => m.len(),
        }
    }

    /// Sets `key`'s row; true when it is new.
    pub(crate) fn insert(&mut self, key: SchedulerKey, row: Row) -> bool {
        match self {
            Waiting::One(k, r) if *k == key => {
                *r = row;
                false
            }
            Waiting::One(k, r) => {
                let mut m = BTreeMap::new();
                m.insert(*k, r.clone());
                m.insert(key, row);
                *self = Waiting::Many(m);
                true
            }
            Waiting::Many(m) if m.is_empty() => {
                *self = Waiting::One(key, row);
                true
            }
            Waiting::Many(m) => m.insert(key, row).is_none(),
        }
    }

    /// Removes `key`'s row; true when there was one. May leave no row.
    pub(crate) fn remove(&mut self, key: &SchedulerKey) -> bool {
        match self {
            Waiting::One(k, _) if k == key => {
                *self = Waiting::Many(BTreeMap::new());
                true
            }
            Waiting::One(..) => false,
            Waiting::Many(m) => m.remove(key).is_some(),
        }
    }

    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = (&SchedulerKey, &Row)> + '_> {
        match self {
            Waiting::One(k, r) => Box::new(std::iter::once((k, r))),
            Waiting::Many(m) => Box::new(m.iter()),
        }
    }

    pub(crate) fn into_rows(self) -> Vec<(SchedulerKey, Row)> {
        match self {
            Waiting::One(k, r) => vec![(k, r)],
            Waiting::Many(m) => m.into_iter().collect(),
        }
    }
}

/// Marks a resource name id as one of an application's waiting names (an id of
/// [`WaitingNames`]), not a name the core published for a live node ([`crate::state::names::Names`],
/// whose ids stay below it).
pub const WAITING_ID: u32 = 1 << 31;

/// The last id [`WaitingNames`] gives; past it names simply go by name. (`u32::MAX`, a frame's
/// "no id", is never one.)
const LAST_ID: u32 = u32::MAX - 1;

/// The unknown names of one application, each with its rows, by name and by slot.
#[derive(Debug, Clone, Default)]
pub(crate) struct WaitingNames {
    /// Keyed by AM-chosen strings, so hashed with a random key.
    slots_by_name: HashMap<String, u32, RandomState>,
    /// By slot; `None` for a free slot. Never longer than the most names held at once plus
    /// those one message adds (both bounded by the app's limits), as freed slots are reused.
    rows: Vec<Option<Slot>>,
    free: Vec<u32>,
    /// Slot by id (see [`WaitingNames::id`]): only ids of names held now, so bounded like
    /// `rows`. Keyed by ids the core chose, never by what an AM sends.
    slots_by_id: FastMap<u32, u32>,
    /// The id the next name to get a slot is given. Only grows, and a snapshot's table starts
    /// where the one it replaces stopped ([`WaitingNames::continue_ids`]), so an id never
    /// names two names of one application.
    next_id: u32,
}

/// One held name: its rows, the name (to free its entry by slot) and its id.
#[derive(Debug, Clone)]
struct Slot {
    waiting: Waiting,
    name: Box<str>,
    id: u32,
}

impl WaitingNames {
    /// Distinct names held.
    pub(crate) fn len(&self) -> usize {
        self.slots_by_name.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.slots_by_name.is_empty()
    }

    pub(crate) fn reserve(&mut self, names: usize) {
        self.slots_by_name.reserve(names);
        self.rows.reserve(names);
    }

    /// The slot of `name`, if the application names it: the one hash of the name an ask
    /// message pays here.
    pub(crate) fn slot(&self, name: &str) -> Option<u32> {
        self.slots_by_name.get(name).copied()
    }

    pub(crate) fn rows(&self, slot: u32) -> Option<&Waiting> {
        self.rows
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map(|s| &s.waiting)
    }

    pub(crate) fn rows_mut(&mut self, slot: u32) -> Option<&mut Waiting> {
        self.rows
            .get_mut(slot as usize)
            .and_then(Option::as_mut)
            .map(|s| &mut s.waiting)
    }

    /// The name held at `slot`.
    pub(crate) fn name(&self, slot: u32) -> Option<&str> {
        self.rows
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map(|s| &*s.name)
    }

    /// The id the shim may send instead of the name at `slot` (`None` once ids ran out). Good
    /// while the name holds a row: freed, adopted by a node or replaced by a snapshot, the id is
    /// never given again, so it cannot come to mean another name.
    pub(crate) fn id(&self, slot: u32) -> Option<u32> {
        self.rows
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map(|s| s.id)
            .filter(|id| *id != u32::MAX)
    }

    /// The slot of the name `id` stands for, if it is held now: an integer probe, no hashing of
    /// the name.
    pub(crate) fn slot_of_id(&self, id: u32) -> Option<u32> {
        self.slots_by_id.get(&id).copied()
    }

    /// Gives ids from where `before` (the table this one replaces) stopped.
    pub(crate) fn continue_ids(&mut self, before: &WaitingNames) {
        self.next_id = self.next_id.max(before.next_id);
    }

    /// The next unused id, or `u32::MAX` (no id) once they ran out.
    fn new_id(&mut self) -> u32 {
        if self.next_id > LAST_ID - WAITING_ID {
            return u32::MAX;
        }
        let id = WAITING_ID | self.next_id;
        self.next_id += 1;
        id
    }

    fn free_slot(&mut self, slot: u32) -> Option<Waiting> {
        let s = self.rows.get_mut(slot as usize).and_then(Option::take)?;
        self.slots_by_id.remove(&s.id);
        self.free.push(slot);
        Some(s.waiting)
    }

    /// Sets `key`'s row of `name`, a name that had no slot when the message was checked (an
    /// earlier row of the same message may have given it one). True when the row is new, and
    /// the name's slot.
    pub(crate) fn insert_named(&mut self, name: &str, key: SchedulerKey, row: Row) -> (bool, u32) {
        if let Some(&slot) = self.slots_by_name.get(name) {
            if let Some(w) = self.rows_mut(slot) {
                return (w.insert(key, row), slot);
            }
        }
        let id = self.new_id();
        let s = Some(Slot {
            waiting: Waiting::One(key, row),
            name: name.into(),
            id,
        });
        let slot = match self.free.pop() {
            Some(free) => {
                self.rows[free as usize] = s;
                free
            }
            None => {
                self.rows.push(s);
                (self.rows.len() - 1) as u32
            }
        };
        if id != u32::MAX {
            self.slots_by_id.insert(id, slot);
        }
        self.slots_by_name.insert(name.to_string(), slot);
        (true, slot)
    }

    /// Frees `slot` if no row is left in it. Run after a whole message was set, so a slot the
    /// message's rows point to is never reused for another name meanwhile.
    pub(crate) fn drop_if_empty(&mut self, slot: u32) {
        if self.rows(slot).is_some_and(|w| w.len() == 0) {
            if let Some(s) = self.rows.get_mut(slot as usize).and_then(Option::take) {
                self.slots_by_name.remove(&*s.name);
                self.slots_by_id.remove(&s.id);
                self.free.push(slot);
            }
        }
    }

    /// Takes all of `name`'s rows (a node now carries it).
    pub(crate) fn remove(&mut self, name: &str) -> Option<Waiting> {
        let slot = self.slots_by_name.remove(name)?;
        self.free_slot(slot)
    }

    /// (name, rows) of every name held.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Waiting)> {
        self.rows
            .iter()
            .filter_map(|s| s.as_ref().map(|s| (&*s.name, &s.waiting)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Resource;

    fn key(priority: i32) -> SchedulerKey {
        SchedulerKey {
            priority,
            allocation_request_id: 0,
        }
    }

    fn row(count: u32) -> Row {
        Row {
            capability: Resource::new(1024, 1),
            count,
            relax_locality: true,
        }
    }

    /// A freed slot is reused for the next new name, and the old name no longer finds it.
    #[test]
    fn slots_are_reused_only_once_free() {
        let mut w = WaitingNames::default();
        assert!(w.insert_named("ghost", key(1), row(1)).0);
        let ghost = w.slot("ghost").unwrap();
        let id = w.id(ghost).unwrap();
        assert_eq!(w.slot_of_id(id), Some(ghost));
        assert!(
            !w.insert_named("ghost", key(1), row(2)).0,
            "same row, not new"
        );
        assert!(w.insert_named("ghost", key(2), row(2)).0);
        w.drop_if_empty(ghost);
        assert_eq!(w.len(), 1, "rows left: kept");
        assert!(w.rows_mut(ghost).unwrap().remove(&key(1)));
        assert!(w.rows_mut(ghost).unwrap().remove(&key(2)));
        w.drop_if_empty(ghost);
        assert!(w.is_empty() && w.slot("ghost").is_none());
        assert_eq!(w.slot_of_id(id), None, "a freed name's id names nothing");
        assert_eq!(w.insert_named("spook", key(1), row(3)), (true, ghost));
        assert_eq!(w.slot("spook"), Some(ghost));
        assert_ne!(w.id(ghost), Some(id), "the slot's next name gets a new id");
        assert_eq!(w.slot_of_id(id), None);
        assert_eq!(w.iter().count(), 1);
        assert!(w.remove("spook").is_some() && w.is_empty());
    }
}
