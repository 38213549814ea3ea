//! Inter-queue preemption under `DominantResourceCalculator`: the round of the parent module
//! with every figure a resource of every type, compared as CapacityScheduler's
//! `ProportionalCapacityPreemptionPolicy` compares them under that calculator (shares of each
//! type sorted, largest first: [`crate::policy::dominant`]).
//!
//! 1. Ideal shares, top-down: a child over its guarantee (by dominant share) starts from the
//!    smaller of its guarantee and its use in each type (plus what it may not lose), any
//!    other from its use. What is left goes to the children wanting more, the one with the
//!    least ideal share of its guarantee (dominant share over dominant share) first, each
//!    offered its guarantee's part of what is left in each type; a child accepts the smaller
//!    (by dominant share) of the offer and what it wants, no type past its maximum, and a
//!    leaf no more than the larger of its guarantee and its use. Children guaranteed nothing
//!    share what is left after the others, evenly.
//! 2. Each child is asked to give back what it holds over the larger of its ideal share and
//!    the smaller of its demand and its guarantee (when it holds more by dominant share),
//!    scaled down when the children together would give back more than
//!    `total_preemption_per_round` of the cluster (the ratio of the dominant shares). A leaf
//!    gives back only once over its guarantee times 1 + `max_ignored_over_capacity`, and then
//!    `natural_termination_factor` of it, rounded up in each type.
//! 3. Containers in the parent module's order. A type a leaf is asked nothing of counts as
//!    asked less than nothing; a container is taken while the leaf is still asked for more
//!    than nothing in some type, the container fits in what the round may still take in every
//!    type, taking it lessens what is asked in some type asked for, and neither the leaf nor
//!    an ancestor below root would hold less than its guarantee by dominant share. A leaf is
//!    done once what it is asked is no more than nothing.
//!
//! Figures are signed: what a queue holds less its guarantee is negative in the types it holds
//! less of. Bound: the split of one parent makes at most 64 · T passes per child for T types,
//! so a round costs O(Q · 64 · T · C · T + N log N) for Q queues, C children of one parent and
//! N containers.

use std::cmp::Ordering;

use super::{Candidate, PreemptionSettings};
use crate::policy::dominant::{self, TYPES};
use crate::protocol::Resource;

/// A figure of every type, signed.
pub type Amounts = [i64; TYPES];

const ZERO: Amounts = [0; TYPES];

/// One queue of the tree a round works on, every type; `parent` is listed before it, root is
/// entry 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedQueue {
    pub parent: Option<usize>,
    /// Its capacity as a fraction of the cluster (CapacityScheduler's absolute capacity).
    pub absolute_capacity: f64,
    pub guaranteed: Resource,
    pub maximum: Resource,
    /// Leaves: what their containers hold. Parents: filled in from their children.
    pub used: Resource,
    /// Leaves: what their applications ask for and do not hold yet.
    pub pending: Resource,
    /// `disable_preemption` as in force for this queue (inherited already).
    pub disable_preemption: bool,
}

/// Per queue (tree index): the ideal share and what the round asks back (`None`: nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct TypedPlan {
    pub ideal: Vec<Amounts>,
    pub to_obtain: Vec<Option<Amounts>>,
}

pub fn amounts(r: &Resource) -> Amounts {
    let mut out = ZERO;
    for (o, v) in out.iter_mut().zip(dominant::amounts(r)) {
        *o = v.min(i64::MAX as u64 / 4) as i64;
    }
    out
}

fn zip(a: &Amounts, b: &Amounts, f: impl Fn(i64, i64) -> i64) -> Amounts {
    let mut out = ZERO;
    for t in 0..TYPES {
        out[t] = f(a[t], b[t]);
    }
    out
}

fn add(a: &Amounts, b: &Amounts) -> Amounts {
    zip(a, b, i64::saturating_add)
}

fn sub(a: &Amounts, b: &Amounts) -> Amounts {
    zip(a, b, i64::saturating_sub)
}

fn cmin(a: &Amounts, b: &Amounts) -> Amounts {
    zip(a, b, i64::min)
}

fn cmax(a: &Amounts, b: &Amounts) -> Amounts {
    zip(a, b, i64::max)
}

/// Each type times `f`, rounded towards zero (`Resources.multiply`).
fn times(a: &Amounts, f: f64) -> Amounts {
    a.map(|v| (v as f64 * f) as i64)
}

/// Each type times its own factor, rounded up (`multiplyAndNormalizeUp` with steps of one).
fn times_up(a: &Amounts, f: &[f64; TYPES]) -> Amounts {
    let mut out = ZERO;
    for t in 0..TYPES {
        out[t] = (a[t] as f64 * f[t]).ceil() as i64;
    }
    out
}

/// DRC's `compare(base, a, b)` on signed figures ([`dominant::compare`]).
pub fn compare(base: &Amounts, a: &Amounts, b: &Amounts) -> Ordering {
    dominant::compare_figures(base, a, b)
}

fn gt(base: &Amounts, a: &Amounts, b: &Amounts) -> bool {
    compare(base, a, b) == Ordering::Greater
}

fn lt(base: &Amounts, a: &Amounts, b: &Amounts) -> bool {
    compare(base, a, b) == Ordering::Less
}

fn dmin(base: &Amounts, a: Amounts, b: Amounts) -> Amounts {
    if gt(base, &a, &b) {
        b
    } else {
        a
    }
}

fn dmax(base: &Amounts, a: Amounts, b: Amounts) -> Amounts {
    if lt(base, &a, &b) {
        b
    } else {
        a
    }
}

/// The largest share of `a` of `base` (0 when `base` has no type).
fn dominant_share(base: &Amounts, a: &Amounts) -> f64 {
    dominant::largest_share(base, a)
}

/// DRC's `divide`: the ratio of the dominant shares.
fn divide(base: &Amounts, a: &Amounts, b: &Amounts) -> f64 {
    dominant_share(base, a) / dominant_share(base, b)
}

fn any_above_zero(a: &Amounts) -> bool {
    a.iter().any(|&v| v > 0)
}

fn fits_in(a: &Amounts, b: &Amounts) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

/// The working figures of one round.
struct Figures<'a> {
    queues: &'a [TypedQueue],
    kids: Vec<Vec<usize>>,
    used: Vec<Amounts>,
    pending: Vec<Amounts>,
    guaranteed: Vec<Amounts>,
    maximum: Vec<Amounts>,
    untouchable: Vec<Amounts>,
    ideal: Vec<Amounts>,
}

impl<'a> Figures<'a> {
    fn new(queues: &'a [TypedQueue], cluster: &Amounts) -> Figures<'a> {
        let n = queues.len();
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, q) in queues.iter().enumerate() {
            if let Some(p) = q.parent {
                kids[p].push(i);
            }
        }
        let mut used = vec![ZERO; n];
        let mut pending = vec![ZERO; n];
        for i in (0..n).rev() {
            if kids[i].is_empty() {
                used[i] = amounts(&queues[i].used);
                pending[i] = amounts(&queues[i].pending);
            }
            if let Some(p) = queues[i].parent {
                used[p] = add(&used[p], &used[i]);
                pending[p] = add(&pending[p], &pending[i]);
            }
        }
        let guaranteed: Vec<Amounts> = queues.iter().map(|q| amounts(&q.guaranteed)).collect();
        let maximum = queues.iter().map(|q| amounts(&q.maximum)).collect();
        let mut untouchable = vec![ZERO; n];
        let mut preemptable = vec![ZERO; n];
        for i in (0..n).rev() {
            let mut extra = sub(&used[i], &guaranteed[i]);
            if lt(cluster, &extra, &ZERO) {
                extra = ZERO;
            }
            if kids[i].is_empty() {
                if queues[i].disable_preemption {
                    untouchable[i] = extra;
                } else {
                    preemptable[i] = extra;
                }
            } else {
                let from_kids = kids[i]
                    .iter()
                    .fold(ZERO, |sum, &k| add(&sum, &preemptable[k]));
                if lt(cluster, &from_kids, &extra) {
                    untouchable[i] = sub(&extra, &from_kids);
                }
                preemptable[i] = dmin(cluster, from_kids, extra);
            }
        }
        Figures {
            queues,
            kids,
            used,
            pending,
            guaranteed,
            maximum,
            untouchable,
            ideal: vec![ZERO; n],
        }
    }

    fn demand(&self, q: usize) -> Amounts {
        add(&self.used[q], &self.pending[q])
    }

    /// Ideal share over guarantee; a queue guaranteed nothing is served last.
    fn served(&self, base: &Amounts, q: usize) -> f64 {
        if gt(base, &self.guaranteed[q], &ZERO) {
            divide(base, &self.ideal[q], &self.guaranteed[q])
        } else {
            i32::MAX as f64
        }
    }

    /// Each wanting queue's part of what is left, per type.
    fn parts(&self, wanting: &[usize], evenly: bool) -> Vec<[f64; TYPES]> {
        let even = [1.0 / wanting.len().max(1) as f64; TYPES];
        if evenly {
            return vec![even; wanting.len()];
        }
        let total = wanting
            .iter()
            .fold(ZERO, |sum, &q| add(&sum, &self.guaranteed[q]));
        let total_abs: f64 = wanting
            .iter()
            .map(|&q| self.queues[q].absolute_capacity)
            .sum();
        let mut out = vec![[0.0; TYPES]; wanting.len()];
        for t in 0..TYPES {
            // A type rounded to nothing in a guarantee whose capacity is not nothing is split
            // by capacity; one nobody is guaranteed any of, evenly.
            let by_capacity = wanting.iter().any(|&q| {
                self.guaranteed[q][t] == 0
                    && self.queues[q].absolute_capacity != 0.0
                    && total[t] != 0
            });
            let evenly = total_abs == 0.0 || total[t] == 0;
            for (k, &q) in wanting.iter().enumerate() {
                out[k][t] = if by_capacity {
                    if total_abs == 0.0 {
                        0.0
                    } else {
                        self.queues[q].absolute_capacity / total_abs
                    }
                } else if evenly {
                    even[t]
                } else {
                    self.guaranteed[q][t] as f64 / total[t] as f64
                };
            }
        }
        out
    }

    /// What queue `q` accepts of `avail`, added to its ideal share.
    fn offer(&mut self, base: &Amounts, q: usize, avail: &Amounts) -> Amounts {
        let below_max = cmax(&sub(&self.maximum[q], &self.ideal[q]), &ZERO);
        let wants = sub(&self.demand(q), &self.ideal[q]);
        let mut accepted = cmin(&below_max, &dmin(base, *avail, wants));
        if self.kids[q].is_empty() {
            let larger = dmax(base, self.used[q], self.guaranteed[q]);
            let room = dmax(base, sub(&larger, &self.ideal[q]), ZERO);
            accepted = dmin(base, accepted, room);
        }
        accepted = cmin(&cmax(&accepted, &ZERO), avail);
        self.ideal[q] = add(&self.ideal[q], &accepted);
        accepted
    }

    /// CapacityScheduler's fixpoint: `queues` share `unassigned` of `base`.
    fn fixpoint(
        &mut self,
        base: &Amounts,
        queues: &[usize],
        unassigned: &mut Amounts,
        evenly: bool,
    ) {
        let mut wanting = Vec::with_capacity(queues.len());
        for &q in queues {
            let init = if gt(base, &self.used[q], &self.guaranteed[q]) {
                add(
                    &cmin(&self.guaranteed[q], &self.used[q]),
                    &self.untouchable[q],
                )
            } else {
                self.used[q]
            };
            self.ideal[q] = init;
            *unassigned = sub(unassigned, &init);
            if lt(base, &init, &self.demand(q)) {
                wanting.push(q);
            }
        }
        let max_passes = queues.len().max(1).saturating_mul(64 * TYPES);
        for _ in 0..max_passes {
            if wanting.is_empty() || !gt(base, unassigned, &ZERO) {
                break;
            }
            let parts = self.parts(&wanting, evenly);
            let least = wanting
                .iter()
                .map(|&q| self.served(base, q))
                .fold(f64::INFINITY, f64::min);
            let snapshot = *unassigned;
            let mut still = Vec::with_capacity(wanting.len());
            let mut stopped = false;
            for (k, &q) in wanting.iter().enumerate() {
                if self.served(base, q) > least {
                    still.push(q);
                    continue;
                }
                // With nothing left in any type the rest of this pass is not offered anything
                // and drops out, as in CapacityScheduler.
                if stopped || !any_above_zero(unassigned) {
                    stopped = true;
                    continue;
                }
                let avail = cmin(&times_up(&snapshot, &parts[k]), unassigned);
                let accepted = self.offer(base, q, &avail);
                if gt(base, &accepted, &ZERO) {
                    still.push(q);
                }
                *unassigned = cmax(&sub(unassigned, &accepted), &ZERO);
            }
            wanting = still;
        }
    }
}

/// Steps 1 and 2 (module docs).
pub fn plan(queues: &[TypedQueue], cluster: &Resource, s: &PreemptionSettings) -> TypedPlan {
    let n = queues.len();
    let cluster = amounts(cluster);
    let mut f = Figures::new(queues, &cluster);
    let allowed = times(&cluster, s.total_preemption_per_round);
    let mut to_be_preempted = vec![ZERO; n];
    if n > 0 {
        f.ideal[0] = f.guaranteed[0];
    }
    for p in 0..n {
        if f.kids[p].is_empty() {
            continue;
        }
        let kids = f.kids[p].clone();
        let base = f.ideal[p];
        let mut unassigned = base;
        let (some, none): (Vec<usize>, Vec<usize>) = kids
            .iter()
            .partition(|&&k| gt(&base, &f.guaranteed[k], &ZERO));
        f.fixpoint(&base, &some, &mut unassigned, false);
        if !none.is_empty() && gt(&base, &unassigned, &ZERO) {
            f.fixpoint(&base, &none, &mut unassigned, true);
        }
        let needed = kids
            .iter()
            .filter(|&&k| gt(&base, &f.used[k], &f.ideal[k]))
            .fold(ZERO, |sum, &k| add(&sum, &sub(&f.used[k], &f.ideal[k])));
        let scale = if gt(&base, &needed, &allowed) {
            divide(&base, &allowed, &needed)
        } else {
            1.0
        };
        for &k in &kids {
            let keep = dmax(&base, dmin(&base, f.demand(k), f.guaranteed[k]), f.ideal[k]);
            if gt(&base, &f.used[k], &keep) {
                to_be_preempted[k] = times(&sub(&f.used[k], &keep), scale);
            }
        }
    }
    let mut to_obtain = vec![None; n];
    let damp = [s.natural_termination_factor; TYPES];
    for i in 0..n {
        if !f.kids[i].is_empty() || queues[i].disable_preemption {
            continue;
        }
        let threshold = times(&f.guaranteed[i], 1.0 + s.max_ignored_over_capacity);
        if !gt(&cluster, &f.used[i], &threshold) {
            continue;
        }
        let mut asked = to_be_preempted[i];
        if gt(&cluster, &asked, &ZERO) {
            asked = times_up(&asked, &damp);
        }
        if gt(&cluster, &asked, &ZERO) {
            to_obtain[i] = Some(asked);
        }
    }
    TypedPlan {
        ideal: f.ideal,
        to_obtain,
    }
}

/// The most of every type one round takes: `total_preemption_per_round` of the cluster.
pub fn round_budget(cluster: &Resource, s: &PreemptionSettings) -> Amounts {
    times(&amounts(cluster), s.total_preemption_per_round)
}

/// Step 3: the containers a round takes, as indices into `containers` (of sizes `sizes`), in
/// the order taken.
pub fn select(
    queues: &[TypedQueue],
    containers: &[Candidate],
    sizes: &[Resource],
    cluster: &Resource,
    s: &PreemptionSettings,
) -> Vec<usize> {
    let plan = plan(queues, cluster, s);
    let base = amounts(cluster);
    let n = queues.len();
    let mut is_parent = vec![false; n];
    for q in queues {
        if let Some(p) = q.parent {
            is_parent[p] = true;
        }
    }
    let mut used = vec![ZERO; n];
    for i in (0..n).rev() {
        if !is_parent[i] {
            used[i] = add(&used[i], &amounts(&queues[i].used));
        }
        if let Some(p) = queues[i].parent {
            used[p] = add(&used[p], &used[i]);
        }
    }
    let guaranteed: Vec<Amounts> = queues.iter().map(|q| amounts(&q.guaranteed)).collect();
    let mut budget = round_budget(cluster, s);
    // A type asked nothing of counts as asked less than nothing, so a container holding only
    // such types is not taken for it.
    let mut to_obtain: Vec<Option<Amounts>> = plan
        .to_obtain
        .into_iter()
        .map(|t| t.map(|a| a.map(|v| if v == 0 { -1 } else { v })))
        .collect();
    let mut order: Vec<usize> = (0..containers.len().min(sizes.len()))
        .filter(|&i| {
            to_obtain
                .get(containers[i].queue)
                .is_some_and(Option::is_some)
        })
        .collect();
    order.sort_by(|&x, &y| super::taking_order(&containers[x], &containers[y]));
    let mut taken = Vec::new();
    for i in order {
        let c = &containers[i];
        let Some(asked) = to_obtain[c.queue] else {
            continue;
        };
        let size = amounts(&sizes[i]);
        if !any_above_zero(&asked) || !fits_in(&size, &budget) {
            continue;
        }
        let after = sub(&asked, &size);
        if !lt(&base, &cmax(&after, &ZERO), &cmax(&asked, &ZERO)) {
            continue;
        }
        // Neither the leaf nor any ancestor below root may go under its guarantee.
        let mut q = Some(c.queue);
        let mut keeps = true;
        while let Some(x) = q {
            if x != 0 && lt(&base, &sub(&used[x], &size), &guaranteed[x]) {
                keeps = false;
                break;
            }
            q = queues[x].parent;
        }
        if !keeps {
            continue;
        }
        let mut q = Some(c.queue);
        while let Some(x) = q {
            used[x] = sub(&used[x], &size);
            q = queues[x].parent;
        }
        budget = sub(&budget, &size);
        taken.push(i);
        to_obtain[c.queue] = (compare(&base, &after, &ZERO) == Ordering::Greater).then_some(after);
    }
    taken
}

/// Every type an application asks for and does not hold yet (its `*` rows).
fn pending(app: &crate::state::app::App) -> Resource {
    app.asks
        .tables()
        .filter_map(|(_, t)| t.row(crate::state::names::ANY_ID))
        .fold(Resource::ZERO, |sum, r| {
            sum.add(&r.capability.times(r.count as u64))
        })
}

impl crate::core::Core {
    /// `tree` (as [`crate::core::Core::preemption_view`] built it) in every type, and the sizes
    /// of its candidates in their order; `None` outside `locus.policy=capacity`.
    pub fn typed_preemption_view(
        &self,
        tree: &[super::TreeQueue],
    ) -> Option<(Vec<TypedQueue>, Vec<Resource>)> {
        let cq = self.capacity_queues()?;
        let queues = &self.config().capacity;
        let state = self.state();
        // The default partition, as the memory round's view (`preemption_view`): its nodes,
        // what the queues hold there, and the containers on its nodes.
        let cluster = state.partition_capacity("");
        let parents = queues.parents();
        let first_leaf = tree.len().saturating_sub(cq.len());
        let mut typed: Vec<TypedQueue> = Vec::with_capacity(tree.len());
        // The tree's parents are the file's parents shallowest first, as preemption_view
        // placed them.
        let mut by_depth: Vec<usize> = (0..parents.len()).collect();
        by_depth.sort_by_key(|&p| (parents[p].path.matches('.').count(), p));
        for (slot, q) in tree.iter().enumerate() {
            // In absolute and vector modes each type's own effective resources.
            let (capacity, guaranteed, maximum) = if slot == 0 {
                (100.0, cluster, cluster)
            } else if slot < first_leaf {
                let p = by_depth[slot - 1];
                (
                    parents[p].capacity,
                    queues.parent_guarantee(p, &cluster),
                    queues.parent_maximum(p, &cluster),
                )
            } else {
                let i = slot - first_leaf;
                (
                    cq[i].capacity,
                    queues.guarantee(i, &cluster),
                    queues.maximum(i, &cluster),
                )
            };
            typed.push(TypedQueue {
                parent: q.parent,
                absolute_capacity: capacity / 100.0,
                guaranteed,
                maximum,
                used: Resource::ZERO,
                pending: Resource::ZERO,
                disable_preemption: q.disable_preemption,
            });
        }
        for (i, used) in queues.default_used(state).into_iter().enumerate() {
            if let Some(q) = typed.get_mut(first_leaf + i) {
                q.used = used;
            }
        }
        // As the memory round: only activated applications' asks count, each user's up to its
        // headroom under the user limit of the users asking (here in every type).
        // (leaf, user) -> (held, asked by activated applications, asks at all)
        let mut per_user: std::collections::BTreeMap<(usize, &str), (Resource, Resource, bool)> =
            std::collections::BTreeMap::new();
        for app in state.apps() {
            let Some(i) = queues.index_of(&app.queue) else {
                continue;
            };
            let asked = pending(app);
            let e = per_user.entry((i, app.user.as_str())).or_insert((
                Resource::ZERO,
                Resource::ZERO,
                false,
            ));
            e.0 = e.0.add(&app.used_by_partition.of(&app.used, ""));
            if state.is_activated(app.arrival) {
                e.1 = e.1.add(&asked);
            }
            e.2 |= asked != Resource::ZERO;
        }
        for (i, leaf) in cq.iter().enumerate() {
            let users: Vec<(Resource, Resource, bool)> = per_user
                .range((i, "")..)
                .take_while(|((l, _), _)| *l == i)
                .map(|(_, v)| *v)
                .collect();
            let Some(q) = typed.get_mut(first_leaf + i) else {
                continue;
            };
            let Some(limit) = leaf.user_limit else {
                q.pending = users.iter().fold(Resource::ZERO, |sum, u| sum.add(&u.1));
                continue;
            };
            let active = users.iter().filter(|u| u.2).count() as u32;
            if active == 0 {
                continue;
            }
            let limit = crate::policy::capacity::user_limit(
                &cluster,
                q.guaranteed,
                q.used,
                q.maximum,
                active,
                limit,
            );
            q.pending = users.iter().fold(Resource::ZERO, |sum, (used, asked, _)| {
                sum.add(&dominant::per_type_min(asked, &limit.saturating_sub(used)))
            });
        }
        let mut sizes = Vec::with_capacity(state.containers().len());
        for c in state.containers().iter() {
            let Some(app) = state.app_by_id(&c.app) else {
                continue;
            };
            if queues.index_of(&app.queue).is_none() {
                continue;
            }
            // The memory view's candidates, one size each, in its order.
            if state.node(&c.node).is_some_and(|n| !n.partition.is_empty()) {
                continue;
            }
            sizes.push(c.resource);
        }
        Some((typed, sizes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1024;

    fn q(parent: Option<usize>, cap: f64, cluster: Resource, used: Resource) -> TypedQueue {
        TypedQueue {
            parent,
            absolute_capacity: cap,
            guaranteed: dominant::map(&cluster, |v| (v as f64 * cap) as u64),
            maximum: cluster,
            used,
            pending: Resource::ZERO,
            disable_preemption: false,
        }
    }

    fn r(mb: u64, vcores: u32) -> Resource {
        Resource::new(mb, vcores)
    }

    fn amt(mb: i64, vcores: i64) -> Amounts {
        let mut a = ZERO;
        a[0] = mb;
        a[1] = vcores;
        a
    }

    #[test]
    fn a_queue_over_in_vcores_only_is_asked_one_vcore_as_capacity_scheduler_asks() {
        // CapacityScheduler's arithmetic by hand for 32 GB / 40 vcores: a holds 10 GB and
        // every vcore, b asks for 1 GB / 1 vcore. a's ideal share keeps its memory and 39
        // vcores; a fifth of one vcore, rounded up, is asked back.
        let cluster = r(32 * GB, 40);
        let mut b = q(Some(0), 0.5, cluster, Resource::ZERO);
        b.pending = r(GB, 1);
        let queues = vec![
            q(None, 1.0, cluster, Resource::ZERO),
            q(Some(0), 0.5, cluster, r(10 * GB, 40)),
            b,
        ];
        let p = plan(&queues, &cluster, &PreemptionSettings::default());
        assert_eq!(p.ideal[1], amt(10 * GB as i64, 39));
        assert_eq!(p.ideal[2], amt(GB as i64, 1));
        assert_eq!(p.to_obtain[1], Some(amt(0, 1)));
        assert_eq!(p.to_obtain[2], None);
    }

    #[test]
    fn the_queue_over_by_dominant_share_is_asked_not_the_one_over_in_memory() {
        // 32 GB / 40 vcores. a (25 %) holds 11 GB, 6 vcores: over in memory. c (25 %) holds
        // 7 GB, 28 vcores: over in vcores. b (50 %) holds 2 GB, 5 vcores, asks 2 GB, 8
        // vcores. By CapacityScheduler's arithmetic, worked by hand: a's ideal share is what it
        // holds; c's is past its memory, short of its vcores by 7, scaled to 4 by the round's
        // tenth of the cluster, a fifth of it rounded up: c is asked one vcore, a nothing.
        let cluster = r(32 * GB, 40);
        let mut b = q(Some(0), 0.5, cluster, r(2 * GB, 5));
        b.pending = r(2 * GB, 8);
        let queues = vec![
            q(None, 1.0, cluster, Resource::ZERO),
            q(Some(0), 0.25, cluster, r(11 * GB, 6)),
            b,
            q(Some(0), 0.25, cluster, r(7 * GB, 28)),
        ];
        let p = plan(&queues, &cluster, &PreemptionSettings::default());
        assert_eq!(p.ideal[1], amt(11 * GB as i64, 6));
        assert_eq!(p.ideal[2], amt(4 * GB as i64, 13));
        assert_eq!(p.ideal[3], amt(17 * GB as i64, 21));
        assert_eq!(p.to_obtain[1], None);
        assert_eq!(p.to_obtain[3], Some(amt(-1170, 1)));
    }

    #[test]
    fn a_parent_within_its_guarantee_keeps_its_leaves() {
        // root → p (50 %) → x (25 %), y (25 %); c (50 %). x holds all of p's share in vcores.
        let cluster = r(16 * GB, 16);
        let mut c = q(Some(0), 0.5, cluster, Resource::ZERO);
        c.pending = r(8 * GB, 8);
        let queues = vec![
            q(None, 1.0, cluster, Resource::ZERO),
            q(Some(0), 0.5, cluster, Resource::ZERO),
            q(Some(1), 0.25, cluster, r(2 * GB, 8)),
            q(Some(1), 0.25, cluster, Resource::ZERO),
            c,
        ];
        let each = Candidate {
            queue: 2,
            app_order: 1,
            priority: 20,
            started: 0,
            am: false,
            mb: GB,
        };
        let containers = vec![each.clone(), Candidate { started: 1, ..each }];
        let sizes = vec![r(GB, 4), r(GB, 4)];
        let s = PreemptionSettings {
            total_preemption_per_round: 1.0,
            natural_termination_factor: 1.0,
            ..PreemptionSettings::default()
        };
        assert!(select(&queues, &containers, &sizes, &cluster, &s).is_empty());
    }

    #[test]
    fn signed_comparison_sorts_shares_largest_first() {
        let base = amt(100, 100);
        assert_eq!(
            compare(&base, &amt(-10, 50), &amt(40, 40)),
            Ordering::Greater
        );
        assert_eq!(compare(&base, &amt(-1, -1), &ZERO), Ordering::Less);
        assert_eq!(compare(&base, &amt(0, 0), &ZERO), Ordering::Equal);
    }
}
