//! CapacityScheduler's two resource calculators, as the `capacity` policy compares queue
//! figures with them (`yarn.scheduler.capacity.resource-calculator`):
//! - `DefaultResourceCalculator` compares memory only;
//! - `DominantResourceCalculator` (DRC) compares every type: a resource's shares of the
//!   cluster, one per type, sorted, compared largest first (`compare`); a ratio of two
//!   resources is the ratio of their largest shares (`divide`); `fitsIn` holds when every type
//!   fits.
//!
//! A type the cluster has none of gives DRC an infinite share on both sides, which it skips:
//! here it is left out of the shares. With no type at all (no nodes) DRC compares type by type,
//! greater only when greater in one type and smaller in none.

use std::cmp::Ordering;

use serde::Deserialize;

use crate::protocol::{Resource, MAX_EXTRA_TYPES};

/// `yarn.scheduler.capacity.resource-calculator` as the shim read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Calculator {
    /// `DefaultResourceCalculator`: memory only.
    #[default]
    Default,
    /// `DominantResourceCalculator`: every type.
    Dominant,
}

/// Memory, vcores and the extra types, in that order.
pub const TYPES: usize = 2 + MAX_EXTRA_TYPES;

/// `r`'s figures in the order of [`TYPES`].
pub fn amounts(r: &Resource) -> [u64; TYPES] {
    let mut a = [0u64; TYPES];
    a[0] = r.memory_mb;
    a[1] = r.vcores as u64;
    a[2..].copy_from_slice(&r.extra);
    a
}

fn from_amounts(a: &[u64; TYPES]) -> Resource {
    let mut extra = [0u64; MAX_EXTRA_TYPES];
    extra.copy_from_slice(&a[2..]);
    Resource {
        memory_mb: a[0],
        vcores: a[1].min(u32::MAX as u64) as u32,
        extra,
    }
}

/// A figure of one resource type: an amount here, a signed difference in a preemption round.
pub trait Figure: Copy + PartialOrd {
    const ZERO: Self;
    fn to_f64(self) -> f64;
}

impl Figure for u64 {
    const ZERO: u64 = 0;
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Figure for i64 {
    const ZERO: i64 = 0;
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// `v`'s shares of `base`, one per type `base` has, sorted ascending; `None` when it has none.
fn sorted_shares<T: Figure>(base: &[T; TYPES], v: &[T; TYPES]) -> Option<Vec<f64>> {
    let mut out: Vec<f64> = base
        .iter()
        .zip(v)
        .filter(|(b, _)| **b > T::ZERO)
        .map(|(b, v)| v.to_f64() / b.to_f64())
        .collect();
    if out.is_empty() {
        return None;
    }
    out.sort_by(f64::total_cmp);
    Some(out)
}

/// DRC's `compare(base, a, b)` over the figures of every type.
pub fn compare_figures<T: Figure>(base: &[T; TYPES], a: &[T; TYPES], b: &[T; TYPES]) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (sorted_shares(base, a), sorted_shares(base, b)) {
        (Some(sa), Some(sb)) => {
            for (x, y) in sa.iter().rev().zip(sb.iter().rev()) {
                match x.total_cmp(y) {
                    Ordering::Equal => continue,
                    o => return o,
                }
            }
            Ordering::Equal
        }
        _ => {
            let greater = a.iter().zip(b).any(|(p, q)| p > q);
            let smaller = a.iter().zip(b).any(|(p, q)| p < q);
            match (greater, smaller) {
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => Ordering::Equal,
            }
        }
    }
}

/// DRC's `compare(cluster, a, b)`.
pub fn compare(cluster: &Resource, a: &Resource, b: &Resource) -> Ordering {
    compare_figures(&amounts(cluster), &amounts(a), &amounts(b))
}

/// `Resources.greaterThan` under DRC.
pub fn greater(cluster: &Resource, a: &Resource, b: &Resource) -> bool {
    compare(cluster, a, b) == Ordering::Greater
}

/// `Resources.max` under DRC: `a` unless `b` compares greater.
pub fn max(cluster: &Resource, a: Resource, b: Resource) -> Resource {
    if compare(cluster, &a, &b) != Ordering::Less {
        a
    } else {
        b
    }
}

/// `Resources.min` under DRC: `a` unless it compares greater.
pub fn min(cluster: &Resource, a: Resource, b: Resource) -> Resource {
    if compare(cluster, &a, &b) != Ordering::Greater {
        a
    } else {
        b
    }
}

/// `r`'s largest share of `cluster` (0 for an empty cluster).
pub fn dominant_share(cluster: &Resource, r: &Resource) -> f64 {
    largest_share(&amounts(cluster), &amounts(r))
}

/// `v`'s largest share of `base` (0 when `base` has no type).
pub fn largest_share<T: Figure>(base: &[T; TYPES], v: &[T; TYPES]) -> f64 {
    sorted_shares(base, v)
        .and_then(|s| s.last().copied())
        .unwrap_or(0.0)
}

/// Every type of `r` through `f`.
pub fn map(r: &Resource, f: impl Fn(u64) -> u64) -> Resource {
    let mut a = amounts(r);
    for v in a.iter_mut() {
        *v = f(*v);
    }
    from_amounts(&a)
}

/// Type by type: `f(a_t, b_t)`.
pub fn zip(a: &Resource, b: &Resource, f: impl Fn(u64, u64) -> u64) -> Resource {
    let (x, y) = (amounts(a), amounts(b));
    let mut out = [0u64; TYPES];
    for t in 0..TYPES {
        out[t] = f(x[t], y[t]);
    }
    from_amounts(&out)
}

/// What a holder of `used` may still take under `max` in every type, as `fitsIn(used + ask,
/// max)` allows it: nothing at all once it holds more than `max` in any type (a cluster that
/// shrank, a maximum lowered), since no ask then fits.
pub fn left(max: &Resource, used: &Resource) -> Resource {
    if max.fits(used) {
        max.saturating_sub(used)
    } else {
        Resource::ZERO
    }
}

/// Type by type, the smaller amount.
pub fn per_type_min(a: &Resource, b: &Resource) -> Resource {
    zip(a, b, u64::min)
}

/// How many containers of `next` a holder of `used` may still start under `limit` when it
/// may start one while it holds no more than the limit (DRC's `greaterThan(used, limit)`
/// stops it): the count is monotone in what it holds, so a binary search finds it. At most
/// `u32::MAX`.
pub fn starts_under(cluster: &Resource, used: &Resource, limit: &Resource, next: &Resource) -> u64 {
    let over = |k: u64| greater(cluster, &used.add(&next.times(k)), limit);
    if over(0) {
        return 0;
    }
    let (mut lo, mut hi) = (0u64, u32::MAX as u64);
    if !over(hi) {
        return hi;
    }
    // over(lo) is false, over(hi) true: the first k past the limit is in (lo, hi].
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if over(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // Containers 0..=lo each start while the holder is at most the limit.
    lo + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(mb: u64, vcores: u32) -> Resource {
        Resource::new(mb, vcores)
    }

    #[test]
    fn compare_sorts_shares_and_compares_largest_first() {
        let cluster = r(100, 100);
        // (10 %, 50 %) against (50 %, 50 %): equal largest, then 10 < 50.
        assert_eq!(compare(&cluster, &r(10, 50), &r(50, 50)), Ordering::Less);
        // The types need not match: (50 %, 10 %) equals (10 %, 50 %).
        assert_eq!(compare(&cluster, &r(50, 10), &r(10, 50)), Ordering::Equal);
        assert_eq!(compare(&cluster, &r(10, 60), &r(50, 50)), Ordering::Greater);
        // A third type counts once the cluster has some.
        let gpus = Resource::with_extra(100, 100, &[4]);
        let a = Resource::with_extra(10, 10, &[3]);
        assert_eq!(compare(&gpus, &a, &r(50, 50)), Ordering::Greater);
        // Without GPUs in the cluster the type is left out.
        assert_eq!(compare(&cluster, &a, &r(50, 50)), Ordering::Less);
        // No cluster: type by type.
        assert_eq!(
            compare(&Resource::ZERO, &r(2, 2), &r(1, 1)),
            Ordering::Greater
        );
        assert_eq!(
            compare(&Resource::ZERO, &r(2, 0), &r(1, 1)),
            Ordering::Equal
        );
    }

    #[test]
    fn starts_under_counts_containers_while_at_most_the_limit() {
        let cluster = r(100, 100);
        // Limit (50, 50); 1 MB / 10 vcores each: holding 50 vcores is not past the limit, so
        // a sixth starts.
        assert_eq!(starts_under(&cluster, &r(0, 0), &r(50, 50), &r(1, 10)), 6);
        // One at 45 vcores is allowed past the limit.
        assert_eq!(starts_under(&cluster, &r(0, 45), &r(50, 50), &r(1, 10)), 1);
        assert_eq!(starts_under(&cluster, &r(0, 51), &r(50, 50), &r(1, 10)), 0);
        assert_eq!(
            starts_under(&cluster, &r(0, 0), &r(50, 50), &Resource::ZERO),
            u32::MAX as u64
        );
    }

    #[test]
    fn dominant_share_is_the_largest() {
        let cluster = Resource::with_extra(100, 10, &[4]);
        assert_eq!(
            dominant_share(&cluster, &Resource::with_extra(10, 2, &[2])),
            0.5
        );
        assert_eq!(dominant_share(&Resource::ZERO, &r(1, 1)), 0.0);
    }
}
