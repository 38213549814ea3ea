//! Containers the RM holds, so releases, node loss and app removal can give their resource back
//! to the right node, app, queue and slot pool.

use std::collections::HashMap;

use crate::app::TaskKind;
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
    by_id: HashMap<String, Container>,
}

impl Containers {
    pub fn get(&self, id: &str) -> Option<&Container> {
        self.by_id.get(id)
    }

    pub fn insert(&mut self, c: Container) {
        self.by_id.insert(c.id.clone(), c);
    }

    pub fn remove(&mut self, id: &str) -> Option<Container> {
        self.by_id.remove(id)
    }

    /// Removes and returns every container matching `pred` (node loss, app removal).
    pub fn drain_where(&mut self, pred: impl Fn(&Container) -> bool) -> Vec<Container> {
        let ids: Vec<String> = self
            .by_id
            .values()
            .filter(|c| pred(c))
            .map(|c| c.id.clone())
            .collect();
        ids.iter().filter_map(|id| self.by_id.remove(id)).collect()
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
