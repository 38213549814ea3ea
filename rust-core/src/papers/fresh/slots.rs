//! FRESH's slot configurators. YARN has no slots: a slot is room for one container of the jobs'
//! map or reduce size, `S` is how many of those the cluster holds, and FRESH's `s_m` becomes
//! the share `s_m / S` of the cluster's memory and vcores that map containers may hold (reduce
//! containers: the rest).
//!
//! - `fresh-static` (Algorithm 1): the makespan-optimal fixed split for the MapReduce jobs present,
//!   from their remaining tasks (outstanding asks some node can serve + running) and profiles,
//!   so asks no node can serve shape neither the split nor `S`; recomputed only when the set
//!   of jobs or `S` changes, as a static configuration would be re-made for a new batch.
//! - `fresh-dynamic` (Algorithms 2-3): map containers may hold `expSm` slots (CalExpSm), reduces
//!   `S − expSm`; the model is the one `locus.policy=fresh` keeps (required with it).
//!
//! Both keep at least one slot of each kind so a map re-run cannot wait forever behind reduces
//! that wait for it (the paper's slots never fail).

use super::speed::PlanMemo;
use super::yarn::{lock, placeable, FreshSettings, SharedFresh};
use crate::papers::fresh::{static_slot_configuration, JobProfile};
use crate::policy::static_slots::share_of;
use crate::policy::SlotConfigurator;
use crate::profile::ProfileDefaults;
use crate::protocol::Resource;
use crate::state::app::SlotKind;
use crate::state::ClusterState;

/// Algorithm 1 tries every `s_m` in 1..=S; beyond this many slots the split is computed on a
/// scaled-down cluster (same shares), keeping a recomputation in the milliseconds.
const MAX_STATIC_SLOTS: u32 = 512;

fn map_share_cap(state: &ClusterState, slot: SlotKind, map_slots: f64, total: u32) -> Resource {
    let total = total.max(1) as f64;
    let m = map_slots.clamp(1.0_f64.min(total), (total - 1.0).max(1.0));
    let share = match slot {
        SlotKind::Map => m / total,
        SlotKind::Reduce => 1.0 - m / total,
    };
    share_of(state.capacity(), share)
}

pub struct FreshStaticSlots {
    k: u32,
    default_map_secs: f64,
    default_reduce_secs: f64,
    /// The current plan's `s_m`, with the jobs and `S` it was made for.
    plan: PlanMemo,
}

impl FreshStaticSlots {
    pub fn new(s: &FreshSettings, defaults: &ProfileDefaults) -> Self {
        FreshStaticSlots {
            k: s.k.max(1),
            default_map_secs: defaults.map_secs,
            default_reduce_secs: defaults.reduce_secs,
            plan: PlanMemo::default(),
        }
    }

    /// Algorithm 1 over the jobs present: `(s_m, S)`, `None` when there is no MapReduce work.
    pub fn plan(&mut self, state: &ClusterState) -> Option<(u32, u32)> {
        let mut jobs = Vec::new();
        let mut ids = Vec::new();
        let mut size: Option<Resource> = None;
        for app in state.apps_by_submission().filter(|a| a.is_mapreduce) {
            let o = placeable(state, app);
            let est = state.profiles().estimate(app.arrival);
            let maps = o.maps + est.maps_running;
            let reduces = o.reduces + est.reduces_running;
            if maps + reduces == 0 {
                continue;
            }
            for s in [o.map_size, o.reduce_size].into_iter().flatten() {
                size = Some(size.map_or(s, |z| {
                    Resource::new(z.memory_mb.max(s.memory_mb), z.vcores.max(s.vcores))
                }));
            }
            let secs = |ms: Option<f64>, d: f64| ms.map_or(d, |ms| (ms / 1000.0).max(0.001));
            jobs.push(JobProfile::new(
                app.id.clone(),
                maps,
                reduces,
                secs(est.avg_map_ms, self.default_map_secs),
                secs(est.avg_reduce_ms, self.default_reduce_secs),
            ));
            ids.push(app.arrival);
        }
        if jobs.is_empty() {
            self.plan.forget();
            return None;
        }
        let size = size.unwrap_or(Resource::new(1024, 1));
        let total = state.capacity().count_fitting(&size).max(2);
        if let Some(sm) = self.plan.get(&ids, total) {
            return Some((sm, total));
        }
        let scaled = total.min(MAX_STATIC_SLOTS);
        let plan = match static_slot_configuration(&jobs, scaled, self.k) {
            Ok(p) => p,
            Err(e) => {
                log::warn!("fresh-static: Algorithm 1 found no split ({e}); map and reduce containers are not capped");
                return None;
            }
        };
        let s_m = ((plan.map_slots as f64 / scaled as f64) * total as f64).round() as u32;
        log::info!(
            "fresh-static: {} jobs, S = {total}: s_m = {s_m}, s_r = {}, estimated makespan {:.0} s",
            jobs.len(),
            total - s_m.min(total),
            plan.makespan
        );
        self.plan.set(ids, total, s_m);
        Some((s_m, total))
    }
}

impl SlotConfigurator for FreshStaticSlots {
    fn name(&self) -> &'static str {
        "fresh-static"
    }

    fn cap(&mut self, state: &ClusterState, slot: SlotKind, _now_ms: u64) -> Option<Resource> {
        let (s_m, total) = self.plan(state)?;
        Some(map_share_cap(state, slot, s_m as f64, total))
    }
}

pub struct FreshDynamicSlots {
    model: SharedFresh,
}

impl FreshDynamicSlots {
    pub fn new(model: SharedFresh) -> Self {
        FreshDynamicSlots { model }
    }
}

impl SlotConfigurator for FreshDynamicSlots {
    fn name(&self) -> &'static str {
        "fresh-dynamic"
    }

    fn cap(&mut self, state: &ClusterState, slot: SlotKind, _now_ms: u64) -> Option<Resource> {
        let mut m = lock(&self.model);
        if m.model().map_set().is_empty()
            && m.model().reduce_set().is_empty()
            && m.model().reduce_waiting().is_empty()
        {
            return None;
        }
        let total = m.sync_total_slots(state.capacity());
        let exp_sm = m.model().expected_map_slots();
        Some(map_share_cap(state, slot, exp_sm, total))
    }
}
