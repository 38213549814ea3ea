//! The four policy layers built from the settings, and rebuilt when the settings change.
//!
//! Kept apart from [`crate::policy`] so the layer contracts depend on neither the settings nor the
//! papers: this module is the one place that knows which implementation each setting picks.

use crate::config::{Config, HotspotKind, JobPolicyKind, LocalityKind, SlotsKind};
use crate::error::CoreError;
use crate::papers::fresh::slots::{FreshDynamicSlots, FreshStaticSlots};
use crate::papers::fresh::yarn::{FreshModel, FreshPolicy};
use crate::papers::joss::yarn::JossPolicy;
use crate::papers::matchmaking::yarn::MatchmakingLocality;
use crate::papers::mrosa::yarn::MrosaPolicy;
use crate::papers::td::hot_queue::HotQueueGuard;
use crate::papers::td::yarn::TdPolicy;
use crate::policy::{
    CapacityPolicy, DelayScheduling, Fair, Fifo, Fsp, HadoopLocality, HotspotGuard, JobPolicy,
    LocalityTechnique, NoHotspotGuard, Observed, SlotConfigurator, StaticSlots,
};
use crate::state::app::Arrival;
use crate::state::node::Node;
use crate::state::ClusterState;

/// One implementation per layer, built from the settings.
pub struct Layers {
    pub job: Box<dyn JobPolicy>,
    pub locality: Box<dyn LocalityTechnique>,
    pub hotspot: Box<dyn HotspotGuard>,
    pub slots: Box<dyn SlotConfigurator>,
    /// The job policy and the slot configurator are FRESH's and read one model.
    fresh_pair: bool,
}

/// Whether `cfg` picks FRESH for both the job policy and the slots, which then share one model
/// (Algorithms 2-4 together).
fn fresh_pair(cfg: &Config) -> bool {
    cfg.policy == JobPolicyKind::Fresh && cfg.slots == SlotsKind::FreshDynamic
}

impl Layers {
    pub fn from_config(cfg: &Config) -> Result<Layers, CoreError> {
        let fresh_model = FreshModel::shared(&cfg.fresh, &cfg.profile_defaults);
        Ok(Layers {
            fresh_pair: fresh_pair(cfg),
            job: match cfg.policy {
                JobPolicyKind::Fresh => Box::new(FreshPolicy::new(fresh_model.clone())),
                JobPolicyKind::Mrosa => {
                    Box::new(MrosaPolicy::new(&cfg.mrosa, &cfg.profile_defaults))
                }
                JobPolicyKind::Fifo => Box::new(Fifo),
                JobPolicyKind::Fair => Box::new(Fair),
                JobPolicyKind::Fsp => Box::new(Fsp::new()),
                JobPolicyKind::Capacity => Box::new(CapacityPolicy::new(&cfg.capacity)),
                JobPolicyKind::JossT => Box::new(JossPolicy::new(
                    crate::papers::joss::Assigner::Tta,
                    cfg.joss_threshold,
                )),
                JobPolicyKind::JossJ => Box::new(JossPolicy::new(
                    crate::papers::joss::Assigner::Jta,
                    cfg.joss_threshold,
                )),
                JobPolicyKind::Td => {
                    Box::new(TdPolicy::new(&cfg.td, cfg.profile_defaults.map_secs)?)
                }
            },
            locality: match cfg.locality {
                LocalityKind::Hadoop => Box::new(HadoopLocality),
                LocalityKind::Delay => Box::new(
                    DelayScheduling::new(cfg.delay_node_threshold, cfg.delay_rack_threshold)
                        .counting_idle_room(cfg.delay_idle_room),
                ),
                LocalityKind::DelayRoom => Box::new(
                    DelayScheduling::room_aware(cfg.delay_node_threshold, cfg.delay_rack_threshold)
                        .counting_idle_room(cfg.delay_idle_room),
                ),
                LocalityKind::Matchmaking => Box::new(MatchmakingLocality::new()),
            },
            hotspot: match cfg.hotspot {
                HotspotKind::Off => Box::new(NoHotspotGuard),
                HotspotKind::HotQueue => Box::new(HotQueueGuard::new(
                    cfg.td.hotspot_readers,
                    cfg.td.split_bytes,
                    cfg.td.bandwidth_bytes_per_sec,
                )),
            },
            slots: match cfg.slots {
                SlotsKind::Static => Box::new(StaticSlots::new(cfg.map_share)),
                SlotsKind::FreshStatic => {
                    Box::new(FreshStaticSlots::new(&cfg.fresh, &cfg.profile_defaults))
                }
                SlotsKind::FreshDynamic => Box::new(FreshDynamicSlots::new(fresh_model)),
            },
        })
    }

    /// Rebuilds only the layers whose choice changed, so a refresh keeps e.g. a locality
    /// technique's waiting counters when only an unrelated setting moved.
    pub fn reconfigure(&mut self, old: &Config, new: &Config) -> Result<(), CoreError> {
        let fresh = Layers::from_config(new)?;
        // FRESH's policy and dynamic slots share a model: rebuilding one alone would split it.
        let fresh_pair = fresh_pair(new);
        let paper_changed = old.fresh != new.fresh
            || old.profile_defaults != new.profile_defaults
            || (new.policy == JobPolicyKind::Mrosa && old.mrosa != new.mrosa);
        if old.policy != new.policy
            || (new.policy == JobPolicyKind::Td && old.td != new.td)
            || (new.policy == JobPolicyKind::Capacity && old.capacity != new.capacity)
            || (matches!(new.policy, JobPolicyKind::JossT | JobPolicyKind::JossJ)
                && old.joss_threshold != new.joss_threshold)
            || (fresh_pair && old.slots != new.slots)
            || paper_changed
        {
            self.job = fresh.job;
        }
        if old.locality != new.locality
            || old.delay_node_threshold != new.delay_node_threshold
            || old.delay_rack_threshold != new.delay_rack_threshold
            || old.delay_idle_room != new.delay_idle_room
        {
            self.locality = fresh.locality;
        }
        if old.hotspot != new.hotspot || old.td != new.td {
            self.hotspot = fresh.hotspot;
        }
        if old.slots != new.slots
            || old.map_share != new.map_share
            || (fresh_pair && old.policy != new.policy)
            || paper_changed
        {
            self.slots = fresh.slots;
        }
        self.fresh_pair = fresh_pair;
        Ok(())
    }

    pub fn app_removed(&mut self, app: Arrival) {
        self.job.app_removed(app);
        self.locality.app_removed(app);
    }

    pub fn node_removed(&mut self, node: &Node) {
        self.locality.node_removed(node);
    }

    /// Tells the layers that keep a model what changed.
    pub fn observe(&mut self, state: &ClusterState, what: &Observed<'_>) {
        self.job.observe(state, what);
        // A shared FRESH model must hear each change once: the policy feeds it.
        if !self.fresh_pair {
            self.slots.observe(state, what);
        }
    }
}
