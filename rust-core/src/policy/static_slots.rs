//! `static`: Hadoop 1's fixed split of map and reduce slots, as shares of the cluster's
//! resource. With `locus.slots.map-share` = s, map containers may hold at most s of the
//! cluster's memory and vcores and reduce containers at most 1 − s; unset means no cap.

use super::SlotConfigurator;
use crate::protocol::Resource;
use crate::state::app::SlotKind;
use crate::state::ClusterState;

pub struct StaticSlots {
    map_share: Option<f64>,
}

impl StaticSlots {
    pub fn new(map_share: Option<f64>) -> Self {
        StaticSlots { map_share }
    }
}

/// `share` of `total`, rounded down so a cap never exceeds the share.
pub fn share_of(total: Resource, share: f64) -> Resource {
    Resource {
        memory_mb: (total.memory_mb as f64 * share).floor() as u64,
        vcores: (total.vcores as f64 * share).floor() as u32,
        // Slot pools split memory and vcores; the extra types (GPUs) are not pooled.
        extra: [u64::MAX; crate::protocol::MAX_EXTRA_TYPES],
    }
}

impl SlotConfigurator for StaticSlots {
    fn name(&self) -> &'static str {
        "static"
    }

    fn cap(&mut self, state: &ClusterState, slot: SlotKind, _now_ms: u64) -> Option<Resource> {
        let share = self.map_share?;
        let share = match slot {
            SlotKind::Map => share,
            SlotKind::Reduce => 1.0 - share,
        };
        Some(share_of(state.capacity(), share))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_round_down() {
        let total = Resource::with_extra(10_000, 10, &[4]);
        let quarter = share_of(total, 0.25);
        assert_eq!((quarter.memory_mb, quarter.vcores), (2_500, 2));
        let rest = share_of(total, 0.75);
        assert_eq!((rest.memory_mb, rest.vcores), (7_500, 7));
        // GPUs are not pooled: a pool's cap never holds a GPU container back.
        assert!(quarter.fits(&Resource::with_extra(1, 1, &[4])));
    }
}
