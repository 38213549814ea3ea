//! Containers the RM holds, so releases, node loss and app removal can give their resource back
//! to the right node, app, queue and slot pool.

use crate::fast_hash::FastMap;
use crate::protocol::Resource;
use crate::state::app::TaskKind;

#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    pub id: String,
    pub app: String,
    pub node: String,
    pub priority: i32,
    pub resource: Resource,
    pub kind: TaskKind,
    pub recovered: bool,
    /// Order in which the core learnt of it (larger: started later); preemption takes the
    /// most recent first.
    pub started: u64,
}

impl Container {
    pub fn is_am(&self) -> bool {
        self.kind == crate::state::app::TaskKind::ApplicationMaster
    }
}

#[derive(Debug, Clone, Default)]
pub struct Containers {
    /// Container id → its slot in `slots`.
    slot_of: FastMap<String, u32>,
    /// The containers, each with its place in its app's list; `None` for a free slot.
    slots: Vec<Option<(Container, u32)>>,
    free: Vec<u32>,
    /// Slots per application, so removing an app costs its own containers, not a scan of the
    /// whole cluster's. A container knows its place in its app's list, so a release is a swap
    /// there rather than a lookup of its id in a set (each string lookup on a busy RM is a
    /// cache miss).
    by_app: FastMap<String, Vec<u32>>,
}

impl Containers {
    pub fn get(&self, id: &str) -> Option<&Container> {
        let slot = *self.slot_of.get(id)?;
        self.slots[slot as usize].as_ref().map(|(c, _)| c)
    }

    pub fn insert(&mut self, c: Container) {
        // Same id again (a shim bug, or another app): the old record goes, so the old app does
        // not keep claiming it.
        self.remove(&c.id);
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(None);
                (self.slots.len() - 1) as u32
            }
        };
        let list = match self.by_app.get_mut(&c.app) {
            Some(list) => list,
            None => self.by_app.entry(c.app.clone()).or_default(),
        };
        list.push(slot);
        let place = (list.len() - 1) as u32;
        self.slot_of.insert(c.id.clone(), slot);
        self.slots[slot as usize] = Some((c, place));
    }

    pub fn remove(&mut self, id: &str) -> Option<Container> {
        let slot = self.slot_of.remove(id)?;
        let (c, place) = self.slots[slot as usize].take()?;
        self.free.push(slot);
        if let Some(list) = self.by_app.get_mut(&c.app) {
            list.swap_remove(place as usize);
            if let Some(&moved) = list.get(place as usize) {
                if let Some((_, p)) = self.slots[moved as usize].as_mut() {
                    *p = place;
                }
            }
            if list.is_empty() {
                self.by_app.remove(&c.app);
            }
        }
        Some(c)
    }

    /// Removes and returns every container of `app`.
    pub fn drain_app(&mut self, app: &str) -> Vec<Container> {
        let Some(slots) = self.by_app.remove(app) else {
            return Vec::new();
        };
        let mut gone = Vec::with_capacity(slots.len());
        for slot in slots {
            if let Some((c, _)) = self.slots[slot as usize].take() {
                self.slot_of.remove(&c.id);
                self.free.push(slot);
                gone.push(c);
            }
        }
        gone
    }

    /// Removes and returns every container matching `pred` (node loss).
    pub fn drain_where(&mut self, pred: impl Fn(&Container) -> bool) -> Vec<Container> {
        let ids: Vec<String> = self
            .iter()
            .filter(|c| pred(c))
            .map(|c| c.id.clone())
            .collect();
        ids.iter().filter_map(|id| self.remove(id)).collect()
    }

    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Container> {
        self.slots.iter().flatten().map(|(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: &str, app: &str) -> Container {
        Container {
            id: id.into(),
            app: app.into(),
            node: "n1".into(),
            priority: 1,
            resource: Resource::new(1, 1),
            kind: TaskKind::Generic,
            recovered: false,
            started: 0,
        }
    }

    #[test]
    fn the_app_index_follows_inserts_removals_and_drains() {
        let mut cs = Containers::default();
        cs.insert(c("c1", "a"));
        cs.insert(c("c2", "a"));
        cs.insert(c("c3", "b"));
        assert!(cs.remove("c2").is_some());
        let mut a: Vec<String> = cs.drain_app("a").into_iter().map(|c| c.id).collect();
        a.sort();
        assert_eq!(a, vec!["c1"]);
        assert!(cs.drain_app("a").is_empty());
        // A node drain keeps the index right too.
        assert_eq!(cs.drain_where(|c| c.app == "b").len(), 1);
        assert!(cs.drain_app("b").is_empty());
        assert!(cs.is_empty());
        // An id re-used by another app moves to that app.
        cs.insert(c("c9", "a"));
        cs.insert(c("c9", "b"));
        assert!(cs.drain_app("a").is_empty());
        assert_eq!(cs.drain_app("b").len(), 1);
    }
}
