//! The per-application asks digest the shim and the core compare instead of exchanging whole
//! ask tables.
//!
//! The bridge carries changes, not states: the shim forwards the rows the AM sent
//! (`asks_changed`) and never re-sends a table after executing decisions (the core took those
//! containers off its asks when it decided). Any path that changes the RM's asks without the
//! shim forwarding it (an ask the RM puts back for a container lost before its AM acquired it,
//! a row the RM applies differently) would leave the two views apart for good; so after every
//! change and every executed decision the shim sends `asks_digest`, the digest of the RM's
//! asks, and the core compares it with its own. Only a mismatch costs a full `asks_updated`
//! snapshot of that application.
//!
//! What it covers: per scheduler key (priority, allocation request id), the total outstanding
//! (the `*` row), which the RM reads in O(keys) (`getSchedulerKeys`, `getPendingAsk(key, *)`)
//! without walking the host rows. It is the figure that decides whether an application gets
//! containers at all; a drift in host or rack rows alone (same totals) is not detected and
//! costs locality only, until the AM's next change of those rows.
//!
//! Why host and rack rows stay out (a measured choice): the digest travels with
//! every executed decision and every ask change, so covering location rows would make each of
//! those O(rows) on both sides. The RM keeps no per-key aggregate of its host rows (its
//! placement allocator holds a map per key), so the shim would walk every row of a
//! 5,000-host MapReduce job per container handed out, and the core every row of its tables
//! plus the locations of its unexecuted decisions: the per-change cost of a whole table that
//! the delta bridge removed, paid again to protect locality, not service. Keeping it
//! incrementally on the shim's side would not help: drift is by definition a change the shim
//! did not see. And the core does not hold every location row the RM does (rows naming hosts
//! the cluster does not have wait uninterned, by the `locus.app.*` limits), so such a digest would
//! have to reproduce those rules exactly or report false drift, a full snapshot per
//! decision. Location rows are put right by every snapshot: the AM's next change of them, a
//! drift in any total, a refused update, a core rebuild.
//!
//! The exact function (the shim's `AsksDigest.java` computes the same bits): for each key with
//! a total `t > 0`, `h = mix(mix(mix(priority as i64 as u64) ^ allocation_request_id as u64) ^
//! t)`, where `mix` is SplitMix64's finaliser; the digest is the wrapping sum of the `h`, so
//! the order of keys does not matter, shown as an `i64` (Java's `long`).

use std::collections::BTreeMap;

use crate::state::ask::{AppAsks, SchedulerKey};
use crate::state::inflight::AskChange;

/// SplitMix64's finaliser: every input bit moves every output bit.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One key's share of the digest; 0 for a key with nothing outstanding.
pub fn key_term(key: SchedulerKey, total: u64) -> u64 {
    if total == 0 {
        return 0;
    }
    mix(mix(mix(key.priority as i64 as u64) ^ key.allocation_request_id as u64) ^ total)
}

/// Digest of `totals` (total outstanding per key).
pub fn of_totals(totals: impl IntoIterator<Item = (SchedulerKey, u64)>) -> i64 {
    totals
        .into_iter()
        .fold(0u64, |acc, (k, t)| acc.wrapping_add(key_term(k, t))) as i64
}

/// The digest the RM's asks have when the core holds `asks` and the decisions `unconfirmed`
/// are not executed yet: the core took those containers off its asks when it decided, the RM
/// takes them off only when the shim executes them, so they are added back here.
pub fn expected(asks: &AppAsks, unconfirmed: &[AskChange]) -> i64 {
    let mut totals: BTreeMap<SchedulerKey, u64> = asks
        .tables()
        .map(|(k, t)| (*k, t.outstanding() as u64))
        .collect();
    for (key, _, _, _, n) in unconfirmed {
        if let Some(t) = totals.get_mut(key) {
            *t = t.saturating_add(*n as u64);
        }
    }
    of_totals(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(priority: i32, allocation_request_id: i64) -> SchedulerKey {
        SchedulerKey {
            priority,
            allocation_request_id,
        }
    }

    /// The shim's AsksDigestTest checks the same figures, so both sides agree bit for bit.
    #[test]
    fn fixed_values_shared_with_the_shim() {
        assert_eq!(of_totals([]), 0);
        assert_eq!(of_totals([(key(20, 0), 5000)]), 4_090_199_143_336_461_063);
        assert_eq!(
            of_totals([(key(20, 0), 5000), (key(10, 7), 1), (key(-1, -1), 3)]),
            of_totals([(key(-1, -1), 3), (key(10, 7), 1), (key(20, 0), 5000)])
        );
        assert_eq!(
            of_totals([(key(20, 0), 0)]),
            0,
            "nothing outstanding adds nothing"
        );
    }

    #[test]
    fn totals_and_keys_both_count() {
        let base = of_totals([(key(20, 0), 5)]);
        assert_ne!(base, of_totals([(key(20, 0), 6)]));
        assert_ne!(base, of_totals([(key(21, 0), 5)]));
        assert_ne!(base, of_totals([(key(20, 1), 5)]));
    }
}
