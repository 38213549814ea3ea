//! Backing off an application on a node after the shim rejected a decision for it there.
//!
//! The shim rejects what the core cannot see: a node blacklisted for the app, a node
//! partition the ask does not want, an attempt that just stopped. Re-offering at once would
//! plan the node for the same app on every heartbeat, be rejected every time, and keep apps
//! behind it in the policy's order off the node. So the pair sits out the node's next
//! heartbeat, then 2, 4, ... up to [`MAX_SKIP`] after repeated rejections; a container the
//! shim creates for the pair clears it. Partly executed decisions are not rejections of the
//! pair (the node just filled up) and do not count.

use crate::fast_hash::FastMap;

use crate::app::Arrival;

/// Most heartbeats of one node an app sits out after repeated rejections there.
pub const MAX_SKIP: u32 = 32;

#[derive(Debug, Clone, Copy)]
struct Pause {
    app: Arrival,
    /// Heartbeats of the node still to sit out.
    left: u32,
    /// Length of the last pause, doubled on the next rejection.
    last: u32,
}

#[derive(Debug, Default)]
pub struct Rejections {
    by_node: FastMap<String, Vec<Pause>>,
}

impl Rejections {
    pub fn rejected(&mut self, app: Arrival, node: &str) {
        let pauses = self.by_node.entry(node.to_string()).or_default();
        match pauses.iter_mut().find(|p| p.app == app) {
            Some(p) => {
                p.last = (p.last * 2).min(MAX_SKIP);
                p.left = p.last;
            }
            None => pauses.push(Pause {
                app,
                left: 1,
                last: 1,
            }),
        }
    }

    /// A container was created for the pair: the node takes the app again.
    pub fn succeeded(&mut self, app: Arrival, node: &str) {
        if let Some(pauses) = self.by_node.get_mut(node) {
            pauses.retain(|p| p.app != app);
            if pauses.is_empty() {
                self.by_node.remove(node);
            }
        }
    }

    /// Called once per heartbeat of `node`: the apps that sit this one out.
    pub fn sitting_out(&mut self, node: &str) -> Vec<Arrival> {
        let Some(pauses) = self.by_node.get_mut(node) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for p in pauses.iter_mut().filter(|p| p.left > 0) {
            p.left -= 1;
            out.push(p.app);
        }
        out
    }

    /// The apps sitting out `node` now, for an async sweep's offer of it: a sweep is not one of
    /// the node's heartbeats, so it passes no pause (every few milliseconds it would end one
    /// after another and plan the rejected app there again at once).
    pub fn paused(&self, node: &str) -> Vec<Arrival> {
        self.by_node.get(node).map_or_else(Vec::new, |pauses| {
            pauses
                .iter()
                .filter(|p| p.left > 0)
                .map(|p| p.app)
                .collect()
        })
    }

    pub fn forget_app(&mut self, app: Arrival) {
        self.by_node.retain(|_, pauses| {
            pauses.retain(|p| p.app != app);
            !pauses.is_empty()
        });
    }

    pub fn forget_node(&mut self, node: &str) {
        self.by_node.remove(node);
    }

    /// Pairs currently remembered (paused or with a pause length to double).
    pub fn len(&self) -> usize {
        self.by_node.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.by_node.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_and_success_clears() {
        let mut r = Rejections::default();
        let a = Arrival(7);
        r.rejected(a, "n1");
        assert_eq!(r.sitting_out("n1"), vec![a]);
        assert!(r.sitting_out("n1").is_empty());
        assert!(r.sitting_out("n2").is_empty());
        r.rejected(a, "n1");
        assert_eq!(
            (r.sitting_out("n1").len(), r.sitting_out("n1").len()),
            (1, 1)
        );
        assert!(r.sitting_out("n1").is_empty());
        for _ in 0..10 {
            r.rejected(a, "n1");
        }
        let skipped = (0..100)
            .take_while(|_| !r.sitting_out("n1").is_empty())
            .count();
        assert_eq!(skipped, MAX_SKIP as usize);
        r.succeeded(a, "n1");
        assert!(r.is_empty());
        r.rejected(a, "n1");
        r.forget_app(a);
        assert!(r.is_empty());
    }
}
