//! CapacityScheduler's running-application limits (`max-parallel-apps` of a queue, of its
//! parents, and of a user): an application that would take a queue on its path, or its user,
//! past its limit is held when it is submitted. A held application is accepted but not
//! runnable: it is neither waiting for activation nor ordered by any policy, so its AM gets no
//! container. Once a runnable application ends (or a refresh raises a limit), held ones become
//! runnable, earliest submitted first, while every limit on their way has room.
//!
//! A runnable application stays runnable whatever happens to the limits later: a lowered limit
//! stops no running work, it only holds new submissions until the count falls below it.
//!
//! The work of a release is one look at the earliest held application of each (queue, user)
//! pair with held applications, plus one per application released: within a pair every
//! application faces the same limits, so the pair's later ones cannot run while its first
//! cannot.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use super::app::Arrival;
use crate::fast_hash::FastMap;

/// One queue's limit: its full path (`root.eng.etl`) and how many applications may run under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueLimit {
    pub path: String,
    pub limit: u32,
}

/// The limits in force, from capacity-scheduler.xml (`locus.capacity.tree`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParallelLimits {
    /// The queues with a limit (their own key, else the file's global default).
    pub queues: Vec<QueueLimit>,
    /// Each leaf's short name (what applications are filed under) with its path; empty when
    /// every application runs in one queue.
    pub leaf_paths: BTreeMap<String, String>,
    /// Every application runs in one queue (a policy other than `capacity`, or the file's queues
    /// replaced): every limit of `queues` counts all of them.
    pub one_queue: bool,
    /// `yarn.scheduler.capacity.user.max-parallel-apps`: any user without a limit of its own.
    pub user_default: Option<u32>,
    /// `yarn.scheduler.capacity.user.<name>.max-parallel-apps`.
    pub users: BTreeMap<String, u32>,
}

impl ParallelLimits {
    /// No limit at all: every application runs.
    pub fn is_empty(&self) -> bool {
        self.queues.is_empty() && self.user_default.is_none() && self.users.is_empty()
    }

    /// The limited queues an application filed under `queue` counts against: its leaf and the
    /// leaf's ancestors.
    fn chain(&self, queue: &str) -> Vec<usize> {
        if self.one_queue {
            return (0..self.queues.len()).collect();
        }
        let path = match self.leaf_paths.get(queue) {
            Some(p) => p.as_str(),
            // Filed by its path, or a queue the file does not list: its path is all we know.
            None => queue,
        };
        self.queues
            .iter()
            .enumerate()
            .filter(|(_, q)| {
                path == q.path
                    || (path.starts_with(q.path.as_str())
                        && path.as_bytes().get(q.path.len()) == Some(&b'.'))
            })
            .map(|(i, _)| i)
            .collect()
    }

    fn user_limit(&self, user: &str) -> Option<u32> {
        self.users.get(user).copied().or(self.user_default)
    }
}

/// Which applications are runnable and which are held (see the module's doc).
#[derive(Debug, Default)]
pub struct Parallel {
    limits: ParallelLimits,
    /// Runnable applications with the queue and user they count against.
    runnable: FastMap<Arrival, (String, String)>,
    /// Runnable applications per limited queue (indices of `limits.queues`).
    queue_running: Vec<u32>,
    /// Runnable applications per user, every user (a limit set later counts them).
    user_running: BTreeMap<String, u32>,
    /// Held applications per (queue, user), in submission order.
    held: BTreeMap<(String, String), BTreeSet<Arrival>>,
    held_at: FastMap<Arrival, (String, String)>,
}

impl Parallel {
    pub fn limits(&self) -> &ParallelLimits {
        &self.limits
    }

    /// Whether `app` is held by a limit.
    pub fn is_held(&self, app: Arrival) -> bool {
        self.held_at.contains_key(&app)
    }

    /// How many applications are held.
    pub fn held_count(&self) -> usize {
        self.held_at.len()
    }

    /// Runnable applications counted against the queue of `path` (`None`: it has no limit).
    pub fn running_in(&self, path: &str) -> Option<u32> {
        let i = self.limits.queues.iter().position(|q| q.path == path)?;
        Some(self.queue_running[i])
    }

    /// A new application: runnable when every limit on its way has room, else held. True when
    /// runnable.
    pub fn admit(&mut self, app: Arrival, queue: &str, user: &str) -> bool {
        if self.runnable.contains_key(&app) || self.held_at.contains_key(&app) {
            return !self.is_held(app);
        }
        if self.room(queue, user) {
            self.count(app, queue.to_string(), user.to_string());
            true
        } else {
            self.hold(app, (queue.to_string(), user.to_string()));
            false
        }
    }

    /// An application that holds a container runs whatever the limits (one recovered after a
    /// restart): it counts from now on, above its limits if need be. True when it was held.
    pub fn force_run(&mut self, app: Arrival) -> bool {
        let Some(group) = self.unhold(app) else {
            return false;
        };
        self.count(app, group.0, group.1);
        true
    }

    /// The application ended: what it counted against has room again. Returns the applications
    /// that became runnable.
    pub fn remove(&mut self, app: Arrival) -> Vec<Arrival> {
        if self.unhold(app).is_some() {
            return Vec::new();
        }
        if self.uncount(app).is_none() {
            return Vec::new();
        }
        self.release()
    }

    /// The application was filed under `queue`: a runnable one counts there from now on (above
    /// the limit if need be: moving stops no running work), a held one waits there. Returns the
    /// applications that became runnable.
    pub fn moved(&mut self, app: Arrival, queue: &str) -> Vec<Arrival> {
        if let Some(group) = self.unhold(app) {
            self.hold(app, (queue.to_string(), group.1));
        } else if let Some((_, user)) = self.uncount(app) {
            self.count(app, queue.to_string(), user);
        } else {
            return Vec::new();
        }
        self.release()
    }

    /// New limits (a refresh): counts follow the new tree; held applications the new limits
    /// admit become runnable, which it returns. Runnable ones stay so.
    pub fn set_limits(&mut self, limits: ParallelLimits) -> Vec<Arrival> {
        self.limits = limits;
        self.queue_running = vec![0; self.limits.queues.len()];
        let runnable: Vec<(String, String)> = self.runnable.values().cloned().collect();
        for (queue, _) in runnable {
            for i in self.limits.chain(&queue) {
                self.queue_running[i] += 1;
            }
        }
        self.release()
    }

    fn room(&self, queue: &str, user: &str) -> bool {
        let user_room = self
            .limits
            .user_limit(user)
            .is_none_or(|l| self.user_running.get(user).copied().unwrap_or(0) < l);
        user_room
            && self
                .limits
                .chain(queue)
                .into_iter()
                .all(|i| self.queue_running[i] < self.limits.queues[i].limit)
    }

    fn count(&mut self, app: Arrival, queue: String, user: String) {
        for i in self.limits.chain(&queue) {
            self.queue_running[i] += 1;
        }
        *self.user_running.entry(user.clone()).or_default() += 1;
        self.runnable.insert(app, (queue, user));
    }

    fn uncount(&mut self, app: Arrival) -> Option<(String, String)> {
        let (queue, user) = self.runnable.remove(&app)?;
        for i in self.limits.chain(&queue) {
            self.queue_running[i] = self.queue_running[i].saturating_sub(1);
        }
        if let Some(n) = self.user_running.get_mut(&user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.user_running.remove(&user);
            }
        }
        Some((queue, user))
    }

    fn hold(&mut self, app: Arrival, group: (String, String)) {
        self.held.entry(group.clone()).or_default().insert(app);
        self.held_at.insert(app, group);
    }

    fn unhold(&mut self, app: Arrival) -> Option<(String, String)> {
        let group = self.held_at.remove(&app)?;
        if let Some(set) = self.held.get_mut(&group) {
            set.remove(&app);
            if set.is_empty() {
                self.held.remove(&group);
            }
        }
        Some(group)
    }

    /// Makes held applications runnable, earliest submitted first, while their limits have
    /// room (CapacityScheduler's walk of the non-runnable applications by start time).
    fn release(&mut self) -> Vec<Arrival> {
        let mut released = Vec::new();
        if self.held.is_empty() {
            return released;
        }
        let mut heads: BinaryHeap<Reverse<(Arrival, (String, String))>> = self
            .held
            .iter()
            .filter_map(|(g, set)| set.first().map(|a| Reverse((*a, g.clone()))))
            .collect();
        while let Some(Reverse((app, group))) = heads.pop() {
            // A pair whose first cannot run stays held: releasing others only takes room.
            if !self.room(&group.0, &group.1) {
                continue;
            }
            let next = self
                .held
                .get(&group)
                .and_then(|set| set.range(app..).nth(1).copied());
            self.unhold(app);
            self.count(app, group.0.clone(), group.1.clone());
            released.push(app);
            if let Some(next) = next {
                heads.push(Reverse((next, group)));
            }
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(queues: &[(&str, u32)], user_default: Option<u32>) -> ParallelLimits {
        ParallelLimits {
            queues: queues
                .iter()
                .map(|(p, l)| QueueLimit {
                    path: p.to_string(),
                    limit: *l,
                })
                .collect(),
            leaf_paths: [("a", "root.p.a"), ("b", "root.p.b"), ("c", "root.c")]
                .iter()
                .map(|(n, p)| (n.to_string(), p.to_string()))
                .collect(),
            one_queue: false,
            user_default,
            users: BTreeMap::new(),
        }
    }

    #[test]
    fn a_parent_limit_counts_its_leaves_and_releases_the_earliest() {
        let mut p = Parallel::default();
        p.set_limits(limits(&[("root.p", 2)], None));
        assert!(p.admit(Arrival(1), "a", "u"));
        assert!(p.admit(Arrival(2), "b", "v"));
        assert!(!p.admit(Arrival(3), "b", "v"));
        assert!(!p.admit(Arrival(4), "a", "u"));
        assert!(p.admit(Arrival(5), "c", "u"), "outside the parent");
        assert_eq!(p.remove(Arrival(1)), vec![Arrival(3)]);
        assert_eq!(p.remove(Arrival(5)), vec![]);
        assert_eq!(p.remove(Arrival(2)), vec![Arrival(4)]);
    }

    #[test]
    fn a_lowered_limit_stops_nothing_and_a_raised_one_releases() {
        let mut p = Parallel::default();
        p.set_limits(limits(&[("root.c", 2)], None));
        assert!(p.admit(Arrival(1), "c", "u"));
        assert!(p.admit(Arrival(2), "c", "u"));
        assert!(p.set_limits(limits(&[("root.c", 1)], None)).is_empty());
        assert!(!p.admit(Arrival(3), "c", "u"));
        assert_eq!(p.remove(Arrival(1)), vec![], "still at the lowered limit");
        assert_eq!(
            p.set_limits(limits(&[("root.c", 3)], None)),
            vec![Arrival(3)]
        );
    }

    #[test]
    fn a_user_limit_holds_only_that_user() {
        let mut p = Parallel::default();
        p.set_limits(limits(&[], Some(1)));
        assert!(p.admit(Arrival(1), "a", "u"));
        assert!(
            !p.admit(Arrival(2), "c", "u"),
            "the user's limit spans queues"
        );
        assert!(p.admit(Arrival(3), "a", "v"));
        assert!(p.force_run(Arrival(2)));
        assert_eq!(p.remove(Arrival(1)), vec![], "the recovered one counts");
    }
}
