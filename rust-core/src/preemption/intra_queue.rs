//! Intra-queue preemption: CapacityScheduler's `IntraQueueCandidatesSelector` with its FIFO
//! compute plugin, run after the round between queues and within the same budget.
//!
//! Within each leaf (memory only, as CapacityScheduler's default calculator):
//! 1. **Ideal shares.** The applications, the highest application priority first and the
//!    oldest first among equals, are each given what they hold (AM aside) and ask for, as long
//!    as their user stays within its user limit and the leaf's reassignable memory (what it
//!    holds, less what the round between queues takes from it and its AMs) lasts. An
//!    application whose ideal share is above what it holds needs the difference from others.
//! 2. **What each may give.** From the lowest priority and youngest application up, what it
//!    holds above its ideal share (AM aside; under `userlimit_first` less one minimum
//!    allocation), until `max-allowable-limit` of the leaf's guarantee (less what the round
//!    between queues takes from it) or the round's budget is given out.
//! 3. **Matching.** Each needy application, the highest priority first, takes from the givers,
//!    the lowest priority first: never from an application of its own user at the same or a
//!    higher priority; under `userlimit_first`, never from another user still within their
//!    user limit, and from a user over it at the same priority no more than that user's excess.
//! 4. **Containers.** From the givers in that order, each one's lowest-priority, most recently
//!    started containers first, never an AM container nor one the round already took; under
//!    `userlimit_first` an application stops giving once its user would fall to its user limit.
//!    A container is taken while the leaf's need is not met and it fits in the round's budget.
//!
//! A leaf is left alone when fewer than two applications run in it, when it uses less than
//! `minimum-threshold` of its guarantee, when intra-queue preemption is disabled for it
//! (`disable_preemption` or `intra-queue-preemption.disable_preemption`, each inherited), and
//! when CapacityScheduler's round between queues would not list it as wanting more: it holds
//! no more than its guarantee and no activated application in it asks for memory its user's
//! limit (counting only the users who ask) leaves room for.
//!
//! User limits are CapacityScheduler's for all the leaf's users: of the leaf's guarantee (or
//! what it uses plus one minimum allocation, when more), the larger of an equal part per user
//! and `minimum-user-limit-percent`, at most `user-limit-factor` times the guarantee (or the
//! leaf's maximum when -1), rounded up to the minimum allocation.
//!
//! Bound: O(A log A + H · G + N log N) per round for A applications (each holds a container or
//! was admitted by the queue's application limits), H of them needing room from others, G of
//! them with room to give, and N running containers; nothing an AM sends sizes it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Candidate, Plan, TreeQueue, PREFIX};
use crate::error::CoreError;
use crate::policy::capacity::UserLimit;

/// The keys' common part, after [`PREFIX`].
pub const KEY_PREFIX: &str = "intra-queue-preemption.";
/// The RM's minimum allocation, which user limits are rounded to.
pub const MINIMUM_ALLOCATION_KEY: &str = "yarn.scheduler.minimum-allocation-mb";

/// `intra-queue-preemption.preemption-order-policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntraQueueOrder {
    /// A user within its user limit is never preempted for another user's application.
    UserlimitFirst,
    /// A higher-priority application takes from a lower-priority one whatever their users.
    PriorityFirst,
}

/// The `intra-queue-preemption.*` keys, CapacityScheduler's defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntraQueueSettings {
    pub enabled: bool,
    /// A leaf is considered once it uses this fraction of its guarantee.
    pub minimum_threshold: f64,
    /// At most this fraction of a leaf's guarantee is taken within it per round.
    pub max_allowable_limit: f64,
    pub order: IntraQueueOrder,
    pub minimum_allocation_mb: u64,
}

impl Default for IntraQueueSettings {
    fn default() -> Self {
        IntraQueueSettings {
            enabled: false,
            minimum_threshold: 0.5,
            max_allowable_limit: 0.2,
            order: IntraQueueOrder::UserlimitFirst,
            minimum_allocation_mb: 1024,
        }
    }
}

impl IntraQueueSettings {
    /// One key, `name` without [`PREFIX`].
    pub(super) fn read(&mut self, name: &str, v: &str) -> Result<(), CoreError> {
        let bad = |allowed: &str| CoreError::Config {
            key: format!("{PREFIX}{name}"),
            message: format!("invalid value {v:?}; allowed: {allowed}"),
        };
        let fraction = || match v.parse::<f64>() {
            Ok(x) if x >= 0.0 && x.is_finite() => Ok(x),
            _ => Err(bad("a fraction, 0 or more")),
        };
        let boolean = || match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad("true or false")),
        };
        match &name[KEY_PREFIX.len()..] {
            "enabled" => self.enabled = boolean()?,
            "minimum-threshold" => self.minimum_threshold = fraction()?,
            "max-allowable-limit" => self.max_allowable_limit = fraction()?,
            "preemption-order-policy" => {
                self.order = match v.to_ascii_lowercase().as_str() {
                    "userlimit_first" => IntraQueueOrder::UserlimitFirst,
                    "priority_first" => IntraQueueOrder::PriorityFirst,
                    _ => return Err(bad("userlimit_first or priority_first")),
                }
            }
            // Only tells apart resource types other than memory, which a round does not weigh.
            "conservative-drf" => {
                boolean()?;
            }
            _ if v.eq_ignore_ascii_case("false") => {}
            _ => {
                return Err(CoreError::Config {
                    key: format!("{PREFIX}{name}"),
                    message: "Locus's intra-queue preemption does not honour this key".into(),
                })
            }
        }
        Ok(())
    }
}

/// A leaf as intra-queue preemption sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    /// Its index in the tree.
    pub queue: usize,
    /// Intra-queue preemption is off for it (either key, inherited).
    pub disabled: bool,
    /// `None`: no per-user bound.
    pub user_limit: Option<UserLimit>,
}

/// An application as intra-queue preemption sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Its leaf's index in the tree.
    pub queue: usize,
    /// Its submission order (larger: younger), as [`Candidate::app_order`].
    pub app_order: u64,
    /// Its user, numbered per round.
    pub user: usize,
    /// YARN's application priority (larger: served first).
    pub priority: i32,
    pub used_mb: u64,
    /// What its AM container holds (0 while it has none).
    pub am_mb: u64,
    pub pending_mb: u64,
    /// Activated (past the AM limits): only such applications' asks make their leaf want
    /// more, as CapacityScheduler counts a leaf's pending; every one with asks makes its user
    /// an active user of the leaf.
    pub activated: bool,
}

/// What a round sees.
pub struct View<'a> {
    pub tree: &'a [TreeQueue],
    /// The round between queues' plan for `tree`.
    pub plan: &'a Plan,
    pub containers: &'a [Candidate],
    pub leaves: &'a [Leaf],
    pub jobs: &'a [Job],
}

/// A user of one leaf during a round (memory as signed MB: CapacityScheduler's arithmetic
/// goes below zero in places, and its comparisons then read so).
#[derive(Debug, Clone, Default)]
struct User {
    used: i64,
    am: i64,
    /// Its user limit less its AMs.
    limit: i64,
    ideal: i64,
    selected: i64,
    excess_given: bool,
}

impl User {
    fn over_limit(&self) -> bool {
        self.used - self.am > self.limit
    }
}

/// One leaf's outcome of steps 1 to 3.
struct LeafDemand {
    queue: usize,
    /// Its applications, the lowest priority first.
    entries: Vec<Entry>,
    users: Vec<User>,
    /// Each job's slot in `users` (indexed by job; only this leaf's are set).
    user_of: Vec<usize>,
}

/// An application of one leaf during a round.
#[derive(Debug, Clone, Default)]
struct Entry {
    job: usize,
    ideal: i64,
    selected: i64,
    from_other: i64,
    to_be_preempted: i64,
    actual: i64,
}

fn signed(mb: u64) -> i64 {
    mb.min(i64::MAX as u64 / 4) as i64
}

fn round_up(mb: i64, step: i64) -> i64 {
    if step <= 0 {
        mb
    } else {
        (mb + step - 1).div_euclid(step) * step
    }
}

/// CapacityScheduler's user limit for all of a leaf's `users` (module docs).
pub fn user_limit_mb(
    guaranteed_mb: u64,
    maximum_mb: u64,
    used_mb: u64,
    users: usize,
    limit: Option<UserLimit>,
    minimum_allocation_mb: u64,
) -> u64 {
    let Some(limit) = limit else {
        return u64::MAX / 4;
    };
    let step = signed(minimum_allocation_mb).max(1);
    let capacity = signed(guaranteed_mb).max(step);
    let consumed = round_up(signed(used_mb), step);
    let current = if consumed < capacity {
        capacity
    } else {
        consumed + step
    };
    let users = users.max(1) as i64;
    let equal = (current + users - 1) / users;
    let floor = ((current as f64 * limit.minimum_user_limit_percent).floor() as i64 + 99) / 100;
    let share = equal.max(floor);
    let most = if limit.user_limit_factor < 0.0 || guaranteed_mb == 0 {
        signed(maximum_mb) / step * step
    } else {
        (capacity as f64 * limit.user_limit_factor).floor() as i64
    };
    round_up(share.min(most).max(0), step) as u64
}

/// Caps each leaf's pending in `tree` as CapacityScheduler counts it for the round between
/// queues (`getTotalPendingResourcesConsideringUserLimit`): a user's asks count only up to its
/// headroom under the user limit of the users asking, so a queue whose asking users are at
/// their limits wants nothing another queue could give it, and only activated applications'
/// asks count (one its AM limits hold back could not run on what preemption frees). Linear in
/// `jobs` (one map entry per user of a leaf).
pub fn cap_pending_by_user_limits(
    tree: &mut [TreeQueue],
    leaves: &[Leaf],
    jobs: &[Job],
    minimum_allocation_mb: u64,
) {
    // (leaf, user) -> (used, pending of activated applications, asks at all)
    let mut per_user: BTreeMap<(usize, usize), (u64, u64, bool)> = BTreeMap::new();
    for j in jobs {
        let e = per_user.entry((j.queue, j.user)).or_default();
        e.0 = e.0.saturating_add(j.used_mb);
        if j.activated {
            e.1 = e.1.saturating_add(j.pending_mb);
        }
        e.2 |= j.pending_mb > 0;
    }
    for leaf in leaves {
        if leaf.user_limit.is_none() {
            continue;
        }
        let users: Vec<(u64, u64, bool)> = per_user
            .range((leaf.queue, 0)..=(leaf.queue, usize::MAX))
            .map(|(_, &v)| v)
            .collect();
        // The user limit divides among the users asking (CapacityScheduler's active users,
        // whose applications need not be activated); only activated asks are pending.
        let active = users.iter().filter(|u| u.2).count();
        let Some(q) = tree.get_mut(leaf.queue) else {
            continue;
        };
        if active == 0 {
            q.pending_mb = 0;
            continue;
        }
        let limit = user_limit_mb(
            q.guaranteed_mb,
            q.maximum_mb,
            q.used_mb,
            active,
            leaf.user_limit,
            minimum_allocation_mb,
        );
        q.pending_mb = users
            .iter()
            .map(|&(used, pending, _)| pending.min(limit.saturating_sub(used)))
            .fold(0u64, u64::saturating_add);
    }
}

/// The containers intra-queue preemption takes this round, as indices into
/// `view.containers`, in the order taken; `already` are those the round between queues took,
/// and `budget_mb` what the round may still take.
pub fn select(
    view: &View,
    already: &[usize],
    budget_mb: u64,
    s: &IntraQueueSettings,
) -> Vec<usize> {
    if !s.enabled {
        return Vec::new();
    }
    let mut taken_before = vec![false; view.containers.len()];
    let mut selected_of_job = vec![0i64; view.jobs.len()];
    let job_of: BTreeMap<u64, usize> = view
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| (job.app_order, j))
        .collect();
    for &i in already {
        if let Some(c) = view.containers.get(i) {
            taken_before[i] = true;
            if let Some(&j) = job_of.get(&c.app_order) {
                selected_of_job[j] += signed(c.mb);
            }
        }
    }
    let budget_at_start = signed(budget_mb);
    // The most underserved leaves first, as CapacityScheduler visits them.
    let mut leaves: Vec<&Leaf> = view
        .leaves
        .iter()
        .filter(|l| !l.disabled && l.queue < view.tree.len())
        .collect();
    let served = |l: &Leaf| {
        let g = view.tree[l.queue].guaranteed_mb;
        let ideal = view.plan.ideal_mb.get(l.queue).copied().unwrap_or(0);
        if g == 0 {
            f64::INFINITY
        } else {
            ideal as f64 / g as f64
        }
    };
    leaves.sort_by(|a, b| {
        served(*a)
            .total_cmp(&served(*b))
            .then(a.queue.cmp(&b.queue))
    });
    let mut demands: Vec<LeafDemand> = leaves
        .into_iter()
        .filter_map(|leaf| demand(view, leaf, &selected_of_job, budget_at_start, s))
        .collect();
    // What the round between queues took counts against every application's share of its
    // leaf, as CapacityScheduler deducts it.
    for d in &mut demands {
        for &i in already {
            let c = &view.containers[i];
            if c.queue != d.queue {
                continue;
            }
            for e in d.entries.iter_mut() {
                if e.actual > signed(c.mb) {
                    e.actual -= signed(c.mb);
                }
            }
        }
    }
    // Each application's containers, the lowest priority then the most recently started first.
    let mut by_app: Vec<usize> = (0..view.containers.len()).collect();
    by_app.sort_by(|&x, &y| {
        let (a, b) = (&view.containers[x], &view.containers[y]);
        a.app_order
            .cmp(&b.app_order)
            .then(b.priority.cmp(&a.priority))
            .then(b.started.cmp(&a.started))
    });
    let mut budget = budget_at_start;
    let mut taken = Vec::new();
    for d in &demands {
        let (users, user_of) = (&d.users, &d.user_of);
        let mut need: i64 = d.entries.iter().map(|e| e.actual).sum();
        let mut rolling: Vec<i64> = users.iter().map(|u| u.used).collect();
        for e in d.entries.iter().filter(|e| e.actual > 0) {
            let job = &view.jobs[e.job];
            let from = by_app.partition_point(|&i| view.containers[i].app_order < job.app_order);
            let own = by_app[from..]
                .iter()
                .copied()
                .take_while(|&i| view.containers[i].app_order == job.app_order)
                .filter(|&i| view.containers[i].queue == d.queue);
            let u = user_of[e.job];
            for i in own {
                if need <= 0 {
                    break;
                }
                let c = &view.containers[i];
                if taken_before[i] || c.am || c.mb == 0 {
                    continue;
                }
                let mb = signed(c.mb);
                if s.order == IntraQueueOrder::UserlimitFirst
                    && rolling[u] - mb <= users[u].limit + users[u].am
                {
                    break;
                }
                if mb > budget {
                    continue;
                }
                need -= mb;
                budget -= mb;
                taken_before[i] = true;
                taken.push(i);
                if s.order == IntraQueueOrder::UserlimitFirst {
                    rolling[u] -= mb;
                }
            }
        }
    }
    taken
}

/// Steps 1 to 3 for one leaf; `None` when the leaf is left alone.
fn demand(
    view: &View,
    leaf: &Leaf,
    selected_of_job: &[i64],
    budget: i64,
    s: &IntraQueueSettings,
) -> Option<LeafDemand> {
    let q = &view.tree[leaf.queue];
    let used_q = q.used_mb;
    let g = q.guaranteed_mb;
    let used_capacity = if g == 0 {
        if used_q > 0 {
            f64::INFINITY
        } else {
            0.0
        }
    } else {
        used_q as f64 / g as f64
    };
    if used_capacity < s.minimum_threshold {
        return None;
    }
    let mine: Vec<usize> = (0..view.jobs.len())
        .filter(|&j| view.jobs[j].queue == leaf.queue)
        .collect();
    if mine.len() < 2 {
        return None;
    }
    let inter = signed(view.plan.to_obtain_mb.get(leaf.queue).copied().unwrap_or(0));
    // Users, numbered in order of first appearance.
    let mut user_of = vec![usize::MAX; view.jobs.len()];
    let mut slot: BTreeMap<usize, usize> = BTreeMap::new();
    let mut users: Vec<User> = Vec::new();
    for &j in &mine {
        let job = &view.jobs[j];
        let k = *slot.entry(job.user).or_insert_with(|| {
            users.push(User::default());
            users.len() - 1
        });
        user_of[j] = k;
        users[k].used += signed(job.used_mb);
        users[k].am += signed(job.am_mb);
    }
    let raw = signed(user_limit_mb(
        g,
        q.maximum_mb,
        used_q,
        users.len(),
        leaf.user_limit,
        s.minimum_allocation_mb,
    ));
    for u in &mut users {
        u.limit = raw - u.am;
    }
    if !underserved(view, leaf, &mine, &users, &user_of, s) {
        return None;
    }
    let am_q: i64 = mine.iter().map(|&j| signed(view.jobs[j].am_mb)).sum();
    let mut reassignable = signed(used_q) - inter - am_q;
    // Highest priority first, the oldest first among equals.
    let mut order = mine.clone();
    order.sort_by(|&a, &b| {
        let (x, y) = (&view.jobs[a], &view.jobs[b]);
        y.priority
            .cmp(&x.priority)
            .then(x.app_order.cmp(&y.app_order))
    });
    let mut entries: Vec<Entry> = Vec::with_capacity(order.len());
    for &j in &order {
        let job = &view.jobs[j];
        let mut e = Entry {
            job: j,
            ..Entry::default()
        };
        if reassignable > 0 {
            let u = &mut users[user_of[j]];
            e.selected = selected_of_job[j];
            u.selected += e.selected;
            let held = signed(job.used_mb) - signed(job.am_mb);
            let wants = held + signed(job.pending_mb) - e.selected;
            if u.ideal < u.limit {
                e.ideal = reassignable.min(wants.min(u.limit - u.ideal));
                u.ideal += e.ideal;
                let held_now = held - e.selected;
                if e.ideal > held_now {
                    e.from_other = e.ideal - held_now;
                }
                reassignable = (reassignable - e.ideal).max(0);
            }
        }
        entries.push(e);
    }
    // Lowest priority first, the youngest first among equals.
    entries.reverse();
    let allowable = (g as f64 * s.max_allowable_limit) as i64;
    let allowable = if allowable > inter {
        allowable - inter
    } else {
        0
    };
    let mut limit = allowable.min(budget);
    let min_alloc = signed(s.minimum_allocation_mb);
    for e in &mut entries {
        let job = &view.jobs[e.job];
        if limit <= 0 || job.used_mb == 0 {
            continue;
        }
        let mut give = signed(job.used_mb) - e.ideal - e.selected - signed(job.am_mb);
        if s.order == IntraQueueOrder::UserlimitFirst {
            give -= min_alloc;
        }
        e.to_be_preempted = give.max(0).min(limit);
        limit = (limit - e.to_be_preempted).max(0);
    }
    match_demand(view, &mut entries, &mut users, &user_of, s.order);
    Some(LeafDemand {
        queue: leaf.queue,
        entries,
        users,
        user_of,
    })
}

/// Whether CapacityScheduler's round between queues leaves `leaf` wanting, the only leaves its
/// intra-queue selector looks within: it holds more than its guarantee, or one of its
/// applications asks for memory its user's limit leaves room for. A user's limit here counts
/// only the users asking for anything, as CapacityScheduler bounds a leaf's pending memory by
/// each user's headroom; a leaf whose every asking user is at its limit has no pending memory,
/// so one user's higher-priority application does not take from that user's lower-priority
/// one once the user holds its whole limit.
fn underserved(
    view: &View,
    leaf: &Leaf,
    mine: &[usize],
    users: &[User],
    user_of: &[usize],
    s: &IntraQueueSettings,
) -> bool {
    let q = &view.tree[leaf.queue];
    if q.used_mb > q.guaranteed_mb {
        return true;
    }
    // Users asking at all share the user limit; only activated asks make the leaf want more
    // (as in `cap_pending_by_user_limits`).
    let mut asking = vec![false; users.len()];
    let mut pending = vec![false; users.len()];
    for &j in mine {
        let job = &view.jobs[j];
        if job.pending_mb > 0 {
            asking[user_of[j]] = true;
            pending[user_of[j]] |= job.activated;
        }
    }
    let active = asking.iter().filter(|&&a| a).count();
    if active == 0 {
        return false;
    }
    let limit = signed(user_limit_mb(
        q.guaranteed_mb,
        q.maximum_mb,
        q.used_mb,
        active,
        leaf.user_limit,
        s.minimum_allocation_mb,
    ));
    users
        .iter()
        .zip(&pending)
        .any(|(u, &asks)| asks && u.used < limit)
}

/// Step 3: each needy application, the highest priority first, against the givers, the
/// lowest priority first.
fn match_demand(
    view: &View,
    entries: &mut [Entry],
    users: &mut [User],
    user_of: &[usize],
    order: IntraQueueOrder,
) {
    // Only applications with something to give can match: listing them keeps the matching to
    // needy × givers rather than every pair of the leaf.
    let givers: Vec<usize> = (0..entries.len())
        .filter(|&l| entries[l].to_be_preempted > 0)
        .collect();
    for h in (0..entries.len()).rev() {
        if entries[h].from_other <= 0 {
            continue;
        }
        for &l in &givers {
            let (jh, jl) = (&view.jobs[entries[h].job], &view.jobs[entries[l].job]);
            let same_user = jh.user == jl.user;
            if same_user && jl.priority >= jh.priority {
                continue;
            }
            if entries[l].to_be_preempted <= entries[l].actual || entries[h].from_other <= 0 {
                continue;
            }
            let ul = user_of[entries[l].job];
            if !same_user && !users[ul].over_limit() && order == IntraQueueOrder::UserlimitFirst {
                continue;
            }
            let mut can_give = entries[l].to_be_preempted - entries[l].actual;
            if !same_user && jl.priority == jh.priority && users[ul].over_limit() {
                // Another user's application of the same priority: only that user's excess
                // over its limit, once.
                let u = &mut users[ul];
                let mut excess = u.used - u.am - u.selected - u.limit;
                if u.excess_given {
                    excess = 0;
                }
                if excess < can_give {
                    u.excess_given = true;
                    can_give = excess;
                }
            }
            if can_give > 0 {
                let give = entries[h].from_other.min(can_give);
                entries[h].from_other -= give;
                entries[l].actual += give;
            }
        }
    }
}

impl crate::core::Core {
    /// The leaves and applications of `tree` (as [`crate::core::Core::preemption_view`] built
    /// it) as intra-queue preemption sees them.
    pub fn intra_queue_view(&self, tree: &[TreeQueue]) -> (Vec<Leaf>, Vec<Job>) {
        let Some(cq) = self.capacity_queues() else {
            return (Vec::new(), Vec::new());
        };
        let queues = &self.config().capacity;
        let first_leaf = tree.len().saturating_sub(cq.len());
        let leaves = cq
            .iter()
            .enumerate()
            .map(|(i, q)| Leaf {
                queue: first_leaf + i,
                disabled: q.disable_preemption || q.intra_queue_disable_preemption,
                user_limit: q.user_limit,
            })
            .collect();
        let mut user_no: BTreeMap<&str, usize> = BTreeMap::new();
        let mut jobs = Vec::new();
        for app in self.state().apps() {
            let Some(i) = queues.index_of(&app.queue) else {
                continue;
            };
            let next = user_no.len();
            let user = *user_no.entry(app.user.as_str()).or_insert(next);
            // In the default partition, as the tree: what the app holds on the nodes with no
            // label (its AM counted there while that holds it).
            let used_mb = app.used_by_partition.of(&app.used, "").memory_mb;
            jobs.push(Job {
                queue: first_leaf + i,
                app_order: app.arrival.0,
                user,
                priority: app.priority,
                used_mb,
                am_mb: app.am_used.memory_mb.min(used_mb),
                pending_mb: super::pending_mb(app),
                activated: self.state().is_activated(app.arrival),
            });
        }
        (leaves, jobs)
    }
}
