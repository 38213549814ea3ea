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

use crate::state::app::Arrival;

/// Most heartbeats of one node an app sits out after repeated rejections there.
pub const MAX_SKIP: u32 = 32;
/// Rejections logged at WARN per [`WARN_WINDOW_MS`] of the core's clock (the heartbeats'
/// `now_ms`); the others go to DEBUG and the next WARN line counts them, so a stream of
/// rejections cannot flood the RM's log.
pub const WARN_BURST: u32 = 10;
pub const WARN_WINDOW_MS: u64 = 60_000;

/// Which rejections are logged at WARN ([`WARN_BURST`] per window).
#[derive(Debug, Default)]
pub struct WarnLimit {
    now_ms: u64,
    window_start_ms: Option<u64>,
    in_window: u32,
    quiet: u64,
}

impl WarnLimit {
    /// The core's clock moved (a heartbeat's `now_ms`; it never goes back here).
    pub fn tick(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
    }

    /// `Some(n)`: log this rejection at WARN, `n` having been logged at DEBUG since the last
    /// WARN; `None`: at DEBUG.
    pub fn admit(&mut self) -> Option<u64> {
        let fresh = self
            .window_start_ms
            .is_none_or(|start| self.now_ms.saturating_sub(start) >= WARN_WINDOW_MS);
        if fresh {
            self.window_start_ms = Some(self.now_ms);
            self.in_window = 0;
        }
        if self.in_window < WARN_BURST {
            self.in_window += 1;
            Some(std::mem::take(&mut self.quiet))
        } else {
            self.quiet += 1;
            None
        }
    }
}

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
    fn rejections_are_warned_in_bursts_per_window_and_the_quiet_ones_counted() {
        let mut w = WarnLimit::default();
        w.tick(1_000);
        let first: Vec<_> = (0..WARN_BURST + 5).map(|_| w.admit()).collect();
        assert!(first[..WARN_BURST as usize].iter().all(|a| *a == Some(0)));
        assert!(first[WARN_BURST as usize..].iter().all(|a| a.is_none()));
        // A thousand more in the same window: not one more WARN line.
        assert!((0..1000).all(|_| w.admit().is_none()));
        w.tick(1_000 + WARN_WINDOW_MS - 1);
        assert_eq!(w.admit(), None);
        w.tick(1_000 + WARN_WINDOW_MS);
        assert_eq!(
            w.admit(),
            Some(1006),
            "the next window's first line counts the quiet ones"
        );
        assert_eq!(w.admit(), Some(0));
    }

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
