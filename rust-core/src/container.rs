//! Containers the RM holds, so releases, node loss and app removal can give their resource back
//! to the right node, app, queue and slot pool.

use crate::app::TaskKind;
use crate::fast_hash::{FastMap, FastSet};
use crate::protocol::Resource;

#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    pub id: String,
    pub app: String,
    pub node: String,
    pub priority: i32,
    pub resource: Resource,
    pub kind: TaskKind,
    pub recovered: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Containers {
    by_id: FastMap<String, Container>,
    /// Container ids per application, so removing an app costs its own containers, not a
    /// scan of the whole cluster's.
    by_app: FastMap<String, FastSet<String>>,
}

impl Containers {
    pub fn get(&self, id: &str) -> Option<&Container> {
        self.by_id.get(id)
    }

    pub fn insert(&mut self, c: Container) {
        self.by_app
            .entry(c.app.clone())
            .or_default()
            .insert(c.id.clone());
        if let Some(old) = self.by_id.insert(c.id.clone(), c) {
            // Same id, another app (a shim bug): the old app must not keep claiming it.
            self.unindex(&old);
        }
    }

    pub fn remove(&mut self, id: &str) -> Option<Container> {
        let c = self.by_id.remove(id)?;
        self.unindex(&c);
        Some(c)
    }

    fn unindex(&mut self, c: &Container) {
        if let Some(ids) = self.by_app.get_mut(&c.app) {
            if self.by_id.get(&c.id).is_none_or(|now| now.app != c.app) {
                ids.remove(&c.id);
            }
            if ids.is_empty() {
                self.by_app.remove(&c.app);
            }
        }
    }

    /// Removes and returns every container of `app`.
    pub fn drain_app(&mut self, app: &str) -> Vec<Container> {
        let Some(ids) = self.by_app.remove(app) else {
            return Vec::new();
        };
        let mut gone = Vec::with_capacity(ids.len());
        for id in ids {
            if self.by_id.get(&id).is_some_and(|c| c.app == app) {
                gone.extend(self.by_id.remove(&id));
            }
        }
        gone
    }

    /// Removes and returns every container matching `pred` (node loss).
    pub fn drain_where(&mut self, pred: impl Fn(&Container) -> bool) -> Vec<Container> {
        let ids: Vec<String> = self
            .by_id
            .values()
            .filter(|c| pred(c))
            .map(|c| c.id.clone())
            .collect();
        ids.iter().filter_map(|id| self.remove(id)).collect()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Container> {
        self.by_id.values()
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
