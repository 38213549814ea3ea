//! The core: state, settings and policy layers behind the API the shim, the simulator and the
//! tests use.
//!
//! Event handling rules (the shim applies a batch in order and stops at the first error, so
//! benign repeats must not be errors):
//! - `node_added` for a known node and `app_added` for a known app update it in place
//!   (NodeManager re-registration, RM recovery replay); containers, asks and FIFO position stay.
//!   An app re-added under another queue takes its usage with it, as CapacityScheduler's
//!   moveApplication does (the target may then sit above its maximum-capacity until the app's
//!   containers finish; it gets nothing more meanwhile).
//! - Removing an unknown node/app/attempt or releasing an unknown container is logged and
//!   ignored: it happens when a node or app was removed before its containers' releases.
//! - `asks_updated`, `asks_changed`, `asks_digest`, `attempt_added` and `container_allocated` for an unknown app are
//!   `UnknownApp`; a heartbeat, `node_resource_updated` or container on an unknown node is
//!   `UnknownNode`: those mean the shim and core disagree about what exists.
//! - Applications are scheduled whenever they have asks; `attempt_removed` drops the asks.
//! - `app_priority_changed` and `app_moved` for an unknown app are `UnknownApp`; `app_moved` to
//!   a queue `capacity` does not configure is `UnknownQueue`, and to one that is STOPPED or at
//!   its maximum-applications (overall or for the app's user) `QueueRefused` with
//!   CapacityScheduler's message; either changes nothing then.
//! - Under every policy a new app is `QueueRefused` at the system-wide maximum-applications
//!   (`Config::submission`), and outside `capacity` at the one queue's limits.
//! - Under `locus.policy=capacity`, `app_added` naming a queue that `locus.capacity.queues` does
//!   not configure is `UnknownQueue` and changes nothing (a re-added app included); `root.<name>`
//!   is taken as `<name>`. Under the other policies every queue name is accepted and tracked.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::SideFiles;
use crate::config::{Config, JobPolicyKind, CAPACITY_QUEUES};
use crate::error::CoreError;
use crate::layers::Layers;
use crate::papers::joss::ProfileStore;
use crate::policy::{
    CapacityQueue, FlaggedJob, Observed, PolicyReport, QueueState, ScaleOutAdvice,
};
use crate::profile::writer::ProfileWriter;
use crate::profile::{Profiles, PROFILE_STORE_KEY};
use crate::protocol::{
    Ask, AskRef, Decision, Event, Heartbeat, HeartbeatResponse, Locality, OffersResponse,
    RefusedOffer,
};
use crate::schedule;
use crate::state::ask::SchedulerKey;
use crate::state::inflight::InFlight;
use crate::state::rejections::{Rejections, WarnLimit};
use crate::state::{AppSpec, ClusterState};

/// Counters a user or a test can read (over JNI: `LocusNative.stats`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub heartbeats: u64,
    /// Decisions emitted (one decision may cover several containers).
    pub decisions: u64,
    /// Containers the shim created from decisions (`container_allocated`, recovered=false).
    pub allocations: u64,
    pub node_local: u64,
    pub rack_local: u64,
    pub off_switch: u64,
    /// `decision_rejected` events.
    pub rejected: u64,
    pub nodes: u64,
    pub apps: u64,
    /// Containers the RM recovered after a restart.
    pub recovered: u64,
    /// Containers covered by the emitted decisions.
    pub decided_containers: u64,
    /// Containers given back to the asks after a rejection.
    pub rejected_containers: u64,
    pub running_containers: u64,
    /// Outstanding containers over all apps (sum of the `*` rows).
    pub pending_containers: u64,
    /// Apps with outstanding asks that wait for AM room and are not activated yet: no policy
    /// orders them until their AM fits (docs/operator/scheduling.md, "Activation").
    pub apps_awaiting_activation: u64,
    /// Apps the job policy ordered on the last node offer: the per-offer work, which follows
    /// the activated apps, not the waiting ones.
    pub ordered_apps: u64,
    pub queues: u64,
    /// Decisions neither confirmed nor rejected yet.
    pub in_flight: u64,
    /// Decisions a node's next heartbeat found neither confirmed nor rejected.
    pub lost_decisions: u64,
    /// (app, node) pairs backed off after rejections (see `rejections`).
    pub backed_off: u64,
    /// `asks_digest` events whose digest differed from the core's (each answered by a
    /// snapshot from the shim).
    pub asks_drifts: u64,
    /// Events about things already gone (removing an unknown node, releasing an unknown
    /// container...), ignored.
    pub ignored_events: u64,
    pub policy: String,
    pub locality: String,
    pub hotspot: String,
    pub slots: String,
    /// The `locus.scheduling.mode` in force, `async` or `heartbeat` (`auto` resolved for the
    /// policy and locality layer: [`crate::config::Config::scheduling_mode`]); the shim runs its scheduling thread
    /// in this mode, so the rule lives in one place.
    pub scheduling_mode: String,
    /// `locus.scheduling.eager` in force: whether the shim makes eager offers under
    /// `heartbeat` mode ([`crate::Heartbeat::eager`]).
    pub scheduling_eager: bool,
    /// The `locus.app.max-ask-rows` in force: the shim refuses a snapshot over it without
    /// encoding it, reading the limit here so the default and the parsing live in one place.
    pub max_ask_rows: u64,
    /// Jobs the policy flagged since start (MROSA: no public instance type meets the deadline).
    pub deadline_flagged_jobs: u64,
    /// Jobs flagged now, with the reason.
    pub flagged_jobs: Vec<FlaggedJob>,
    /// MROSA's scale-out advice for the jobs that need it now (instance type, count, cost).
    pub scale_out_advice: Vec<ScaleOutAdvice>,
    /// Job signatures in the profile store.
    pub profiles: u64,
    /// Times `locus.profile.store` was written by the background writer.
    pub profile_store_writes: u64,
    /// Writes that failed (each logged; the next finished job retries).
    pub profile_store_write_failures: u64,
}

/// The queue every application runs in outside `capacity`, as CapacityScheduler names it.
const ONE_QUEUE_PATH: &str = "root.default";

/// A queue at `path` holding `held` applications takes one more of `user` only below its
/// maximum and its per-user maximum (`of_user` counts the user's, only when that is needed).
fn check_counts(
    path: &str,
    app: &str,
    user: &str,
    held: u64,
    maximum: Option<u32>,
    per_user: Option<u32>,
    of_user: impl FnOnce() -> u64,
) -> Result<(), CoreError> {
    if let Some(max) = maximum {
        if held >= max as u64 {
            return Err(CoreError::QueueRefused(format!(
                "Queue {path} already has {held} applications, cannot accept submission of application: {app}"
            )));
        }
    }
    // The user's count is looked for only when the queue holds enough for it to matter.
    if let Some(max) = per_user.filter(|max| held >= *max as u64) {
        let held = of_user();
        if held >= max as u64 {
            return Err(CoreError::QueueRefused(format!(
                "Queue {path} already has {held} applications from user {user} cannot accept submission of application: {app}"
            )));
        }
    }
    Ok(())
}

fn start_writer(store: ProfileStore) -> Result<ProfileWriter, CoreError> {
    ProfileWriter::start(store).map_err(|message| CoreError::Config {
        key: PROFILE_STORE_KEY.to_string(),
        message,
    })
}

fn log_queues(cfg: &Config) {
    if let Some(why) = &cfg.capacity_file_ignored {
        log::warn!("capacity-scheduler.xml's queues are not in force: {why}");
    }
    if cfg.policy != JobPolicyKind::Capacity {
        return;
    }
    let list: Vec<String> = cfg
        .capacity
        .queues()
        .iter()
        .map(|q| {
            let state = if q.state == QueueState::Stopped {
                " STOPPED"
            } else {
                ""
            };
            format!(
                "{} {}% (max {}%){state}",
                q.path, q.capacity, q.maximum_capacity
            )
        })
        .collect();
    let parents: Vec<String> = cfg
        .capacity
        .parents()
        .iter()
        .map(|p| format!("{} {}% (max {}%)", p.path, p.capacity, p.maximum_capacity))
        .collect();
    let source = if cfg.capacity.from_file() {
        "capacity-scheduler.xml"
    } else {
        CAPACITY_QUEUES
    };
    log::info!(
        "capacity queues from {source}: leaves {}{}",
        list.join(", "),
        if parents.is_empty() {
            String::new()
        } else {
            format!("; parents {}", parents.join(", "))
        }
    );
}

pub struct Core {
    config: Config,
    pub(crate) layers: Layers,
    state: ClusterState,
    in_flight: InFlight,
    rejections: Rejections,
    /// Which `decision_rejected` events are logged at WARN.
    rejection_warns: WarnLimit,
    stats: Stats,
    /// Writes `locus.profile.store` off this thread; `None` while no store is configured (the
    /// simulator and most tests run without files).
    profile_writer: Option<ProfileWriter>,
    /// Applications whose `asks_digest` differed since the last [`Core::take_drifted`], each
    /// once, in the order found: the shim answers with a snapshot of each.
    drifted: Vec<String>,
    /// What the last asks frame taught (see [`Core::learned_ids`]).
    learned: Vec<(u32, u32)>,
    /// Containers marked for preemption and not killed yet ([`crate::preemption`]).
    pub(crate) preemption_marks: crate::preemption::Marks,
}

impl Core {
    /// `props`: every `locus.*` property, as strings, exactly as the operator wrote them.
    pub fn new(props: &BTreeMap<String, String>) -> Result<Core, CoreError> {
        Self::rebuilt(props, SideFiles::default())
    }

    /// A core taking the place of one that failed: as [`Core::new`], but each side file that
    /// `carried` (the failed core's [`Core::into_side_files`]) holds for the path the settings
    /// name is taken from it, not read again, so a file that became unreadable (or a mount that
    /// hangs) since the start cannot keep the cluster unscheduled. A path the settings changed
    /// is read as at a start.
    pub fn rebuilt(
        props: &BTreeMap<String, String>,
        mut carried: SideFiles,
    ) -> Result<Core, CoreError> {
        let config = Config::from_properties_reusing(props, &carried)?;
        let layers = Layers::from_config(&config)?;
        let mut state = ClusterState::new(config.datacenter_mapping.clone());
        let store = match &config.profile_store {
            Some(path) => match carried.take_profiles_of(path) {
                Some(store) => store,
                None => Profiles::load(path)?,
            },
            None => Default::default(),
        };
        let profile_writer = match config.profile_store {
            Some(_) => Some(start_writer(store.clone())?),
            None => None,
        };
        *state.profiles_mut() = Profiles::with_store(store);
        state.profiles_mut().set_persisted(profile_writer.is_some());
        state
            .profiles_mut()
            .set_trusted(config.hints_trusted.clone());
        state.set_ask_limits(config.app_limits);
        state.set_parallel_limits(config.parallel.clone());
        log::info!(
            "Locus core started: policy={} locality={} hotspot={} slots={} off-switch-per-heartbeat={} assign-multiple={}",
            layers.job.name(),
            layers.locality.name(),
            layers.hotspot.name(),
            layers.slots.name(),
            config.off_switch_per_heartbeat,
            config.assign_multiple
        );
        log_queues(&config);
        Ok(Core {
            config,
            layers,
            state,
            in_flight: InFlight::default(),
            rejections: Rejections::default(),
            rejection_warns: WarnLimit::default(),
            stats: Stats::default(),
            profile_writer,
            drifted: Vec::new(),
            learned: Vec::new(),
            preemption_marks: Default::default(),
        })
    }

    /// What this core parsed from its side files, for the core rebuilt in its place
    /// ([`Core::rebuilt`]). Drops the core: its profile writer first writes what it has queued.
    pub fn into_side_files(mut self) -> SideFiles {
        let mapping = self
            .config
            .datacenter_mapping_file
            .take()
            .map(|p| (p, std::mem::take(&mut self.config.datacenter_mapping)));
        let public_pool = self
            .config
            .mrosa
            .public_file
            .take()
            .map(|p| (p, std::mem::take(&mut self.config.mrosa.pool)));
        let profiles = self
            .config
            .profile_store
            .take()
            .map(|p| (p, self.state.profiles_mut().take_store()));
        SideFiles {
            mapping,
            public_pool,
            profiles,
        }
    }

    /// Re-reads the settings; on error nothing changes.
    pub fn reconfigure(&mut self, props: &BTreeMap<String, String>) -> Result<(), CoreError> {
        let new = Config::from_properties(props)?;
        self.check_queues_kept(&new)?;
        // The store is read only when its path changed, and before anything changes, so an
        // unreadable new file refuses the whole refresh.
        let store_moved = new.profile_store != self.config.profile_store;
        let new_store = match (&new.profile_store, store_moved) {
            (Some(path), true) => Some(Profiles::load(path)?),
            _ => None,
        };
        let new_writer = match (&new.profile_store, &self.profile_writer) {
            (Some(_), None) => Some(start_writer(ProfileStore::new())?),
            _ => None,
        };
        self.layers.reconfigure(&self.config, &new)?;
        if let Some(w) = new_writer {
            self.profile_writer = Some(w);
        }
        if store_moved {
            self.move_profile_store(&new, new_store);
        }
        self.state
            .profiles_mut()
            .set_trusted(new.hints_trusted.clone());
        if new.datacenter_mapping != self.config.datacenter_mapping {
            self.state.set_mapping(new.datacenter_mapping.clone());
        }
        self.state.set_ask_limits(new.app_limits);
        self.state.set_parallel_limits(new.parallel.clone());
        log::info!(
            "Locus settings reloaded: policy={} locality={} hotspot={} slots={} map-share={:?} off-switch-per-heartbeat={} assign-multiple={} datacenter mapping {:?} ({} hosts)",
            new.policy.as_str(),
            new.locality.as_str(),
            new.hotspot.as_str(),
            new.slots.as_str(),
            new.map_share,
            new.off_switch_per_heartbeat,
            new.assign_multiple,
            new.datacenter_mapping_file,
            new.datacenter_mapping.len()
        );
        log_queues(&new);
        self.config = new;
        self.cluster_changed();
        Ok(())
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Queues configured in absolute resources take a new share of a default partition that
    /// grew or shrank, as CapacityScheduler recomputes them when a node joins, leaves or
    /// changes label (of the default partition's nodes, the label manager's resource of no
    /// label).
    fn cluster_changed(&mut self) {
        let cluster = self.state.partition_capacity("");
        self.config.capacity.set_cluster(cluster);
    }

    /// The queues applications may name, with their capacity and maximum-capacity in percent:
    /// `Some` under `locus.policy=capacity` (any other name is refused), `None` under the other
    /// policies (any name is accepted). For the shim's queue lookups and the simulator.
    pub fn capacity_queues(&self) -> Option<&[CapacityQueue]> {
        (self.config.policy == JobPolicyKind::Capacity).then(|| self.config.capacity.queues())
    }

    /// Under `capacity`: memory `queue` may still take in the default partition before it or
    /// one of its parents reaches its maximum-capacity there (what CapacityScheduler's
    /// headroom is capped by besides the cluster's free memory). `None` under other policies
    /// or for a queue that is not configured.
    pub fn queue_headroom_mb(&self, queue: &str) -> Option<u64> {
        self.capacity_queues()?;
        let queues = &self.config.capacity;
        let i = queues.index_of(queue)?;
        let used = queues.default_used_mb(&self.state);
        let size = self.state.partition_capacity("").memory_mb;
        Some(queues.room_mb(i, size, &used))
    }

    /// The queue an app is filed in. Under `capacity`: the configured name it names, or
    /// `UnknownQueue`; other policies keep the name as given (the shim files every app in its
    /// one queue). A new app (not `recovered`, not already known) is refused with
    /// CapacityScheduler's messages at the system-wide maximum-applications, by a STOPPED queue,
    /// and by a queue at its maximum-applications, overall or for the app's user (outside
    /// `capacity`, the one queue's: [`crate::policy::capacity_tree::SubmissionLimits`]).
    fn admit_queue(
        &self,
        app: &str,
        queue: String,
        user: &str,
        recovered: bool,
    ) -> Result<String, CoreError> {
        let new = !recovered && self.state.app_by_id(app).is_none();
        if new && self.state.app_count() >= self.config.submission.system as usize {
            return Err(CoreError::QueueRefused(format!(
                "Maximum system application limit reached,cannot accept submission of application: {app}"
            )));
        }
        if self.config.policy != JobPolicyKind::Capacity {
            if new {
                self.check_one_queue(app, user)?;
            }
            return Ok(queue);
        }
        let i = self.configured_queue(app, &queue)?;
        if new {
            self.check_room(i, app, user)?;
        }
        Ok(self.config.capacity.queues()[i].name.clone())
    }

    /// `app_moved`: the target takes the app only as it would take a submission from its user
    /// (CapacityScheduler's `preValidateMoveApplication`); a move to the app's own queue changes
    /// nothing. Outside `capacity` every app is in the one queue, so nothing is counted again.
    fn admit_move(&self, app: &str, queue: String) -> Result<String, CoreError> {
        let Some(a) = self.state.app_by_id(app) else {
            return Err(CoreError::UnknownApp(app.to_string()));
        };
        if self.config.policy != JobPolicyKind::Capacity {
            return Ok(queue);
        }
        let i = self.configured_queue(app, &queue)?;
        if self.config.capacity.index_of(&a.queue) != Some(i) {
            self.check_room(i, app, &a.user)?;
        }
        Ok(self.config.capacity.queues()[i].name.clone())
    }

    /// Under `capacity`, the index of the leaf `queue` names (`root.<name>` and the empty name,
    /// `default`, included), or `UnknownQueue`.
    fn configured_queue(&self, app: &str, queue: &str) -> Result<usize, CoreError> {
        let named = if queue.trim().is_empty() {
            "default"
        } else {
            queue
        };
        let queues = &self.config.capacity;
        queues
            .index_of(named)
            .ok_or_else(|| CoreError::UnknownQueue {
                app: app.to_string(),
                queue: named.to_string(),
                configured: queues.names(),
            })
    }

    /// Whether leaf `i` takes one more application of `user` (CapacityScheduler's
    /// `validateSubmitApplication`, in its order and with its messages).
    fn check_room(&self, i: usize, app: &str, user: &str) -> Result<(), CoreError> {
        let queues = &self.config.capacity;
        let q = &queues.queues()[i];
        if q.state == QueueState::Stopped {
            return Err(CoreError::QueueRefused(format!(
                "Queue {} is STOPPED. Cannot accept submission of application: {app}",
                q.path
            )));
        }
        let held = self.state.queues().get(&q.name).map_or(0, |s| s.apps);
        // One pass over the apps at a submission or move, bounded by the system-wide maximum.
        let of_user = || {
            self.state
                .apps()
                .filter(|a| a.user == user && queues.index_of(&a.queue) == Some(i))
                .count() as u64
        };
        check_counts(
            &q.path,
            app,
            user,
            held as u64,
            q.maximum_applications,
            q.maximum_applications_per_user,
            of_user,
        )
    }

    /// Outside `capacity`: the one queue every app runs in holds at most its maximum, overall
    /// and per user.
    fn check_one_queue(&self, app: &str, user: &str) -> Result<(), CoreError> {
        let limits = &self.config.submission;
        let of_user = || self.state.apps().filter(|a| a.user == user).count() as u64;
        check_counts(
            ONE_QUEUE_PATH,
            app,
            user,
            self.state.app_count() as u64,
            Some(limits.one_queue),
            Some(limits.one_queue_per_user),
            of_user,
        )
    }

    /// A reconfiguration to `capacity` must keep a queue for every running application: an app
    /// stranded in a removed queue would never be scheduled again. Between two trees read from
    /// capacity-scheduler.xml CapacityScheduler's rule applies: a leaf may leave the file only
    /// once it is STOPPED (configured so, and drained of its applications), except a leaf
    /// created on a submission, which leaves once it holds no application.
    fn check_queues_kept(&self, new: &Config) -> Result<(), CoreError> {
        if new.policy != JobPolicyKind::Capacity {
            return Ok(());
        }
        let old = &self.config.capacity;
        if self.config.policy == JobPolicyKind::Capacity
            && old.from_file()
            && new.capacity.from_file()
        {
            for q in old.queues() {
                if new.capacity.index_of(&q.path).is_some() {
                    continue;
                }
                let apps = self.state.queues().get(&q.name).map_or(0, |s| s.apps);
                if q.created && apps == 0 {
                    continue;
                }
                let current = match (q.state, apps) {
                    (QueueState::Stopped, 0) => continue,
                    (QueueState::Stopped, _) => "DRAINING",
                    (QueueState::Running, _) => "RUNNING",
                };
                return Err(CoreError::Config {
                    key: format!("yarn.scheduler.capacity.{}", q.path),
                    message: format!(
                        "{} cannot be deleted from the capacity scheduler configuration, as the queue is not yet in stopped state. Current State : {current}",
                        q.path
                    ),
                });
            }
        }
        let stranded: Vec<String> = self
            .state
            .queues()
            .iter()
            .filter(|(name, q)| q.apps > 0 && new.capacity.index_of(name).is_none())
            .map(|(name, q)| format!("{name} ({} applications)", q.apps))
            .collect();
        if stranded.is_empty() {
            return Ok(());
        }
        Err(CoreError::Config {
            key: CAPACITY_QUEUES.to_string(),
            message: format!(
                "queues still holding applications would not be configured: {}; keep them in the list until their applications finish (new list: {})",
                stranded.join(", "),
                new.capacity.names().join(", ")
            ),
        })
    }

    /// Read access for the simulator, policies' tests and diagnostics.
    pub fn state(&self) -> &ClusterState {
        &self.state
    }

    /// A binary asks frame, decoded without copying its names: its rows, then its digest,
    /// each applied as the same event in JSON would be. Returns each event's outcome (the rows,
    /// then the digest when the frame has one), so the caller can report a refusal per event.
    pub fn handle_asks_frame(
        &mut self,
        frame: &crate::frame::AsksFrame<'_>,
    ) -> Vec<Result<(), CoreError>> {
        let mut out = Vec::with_capacity(2);
        self.learned.clear();
        let epoch = self.state.names().epoch();
        // Only a row carrying an id can be misread; a frame whose table numbered none of its
        // rows (the shim's before any node was added) is taken whatever its epoch.
        let stale = frame.names_epoch.filter(|e| *e != epoch).filter(|_| {
            frame
                .rows
                .iter()
                .any(|r| r.name_id != crate::protocol::AskRef::BY_NAME)
        });
        if let Some(theirs) = stale {
            // Numbered by another core (the one a rebuild replaced): its ids mean other names
            // here. Refused whole; the shim re-sends the rows by name.
            out.push(Err(CoreError::Protocol(format!(
                "application {}: asks frame numbers its resource names for core epoch {theirs}, this core's is {epoch} (ids of a replaced core); nothing applied",
                frame.app
            ))));
        } else {
            out.push(if frame.snapshot {
                self.asks_updated(frame.app, &frame.rows)
            } else {
                self.asks_changed(frame.app, &frame.rows)
            });
            // Taught only under this core's epoch, which the shim's table is then tagged with
            // (a frame by name, whose writer knew no epoch, teaches nothing).
            if out[0].is_ok() && frame.names_epoch == Some(epoch) {
                if let Some(a) = self.state.app_mut_by_id(frame.app) {
                    self.learned = a.asks.take_learned();
                }
            }
        }
        if let Some(digest) = frame.digest {
            out.push(self.asks_digest(frame.app, digest));
        }
        out
    }

    /// The ids the shim may send instead of `names` in an asks frame (`None` for a name no
    /// live node carries as host or rack), with the epoch such a frame must carry.
    pub fn name_ids<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
    ) -> (i64, Vec<Option<u32>>) {
        let table = self.state.names();
        let ids = names
            .into_iter()
            .map(|n| table.published_id(n).map(|id| id.0))
            .collect();
        (table.epoch(), ids)
    }

    fn asks_updated(&mut self, app: &str, rows: &[AskRef<'_>]) -> Result<(), CoreError> {
        self.state.replace_ask_rows(app, rows)?;
        let unconfirmed = self.in_flight.unconfirmed_of(app);
        if let Some(a) = self.state.app_mut_by_id(app) {
            for (key, locality, host, rack, n) in unconfirmed {
                a.asks.consume(&key, locality, host, rack, n);
            }
        }
        if let Some(a) = self.state.app_by_id(app) {
            self.layers.observe(&self.state, &Observed::AsksUpdated(a));
            log::debug!(
                "application {app}: {} containers outstanding",
                a.asks.pending_containers()
            );
        }
        Ok(())
    }

    fn asks_changed(&mut self, app: &str, rows: &[AskRef<'_>]) -> Result<(), CoreError> {
        let changed = self.state.change_ask_rows(app, rows)?;
        let unconfirmed = self.in_flight.unconfirmed_of(app);
        if let Some(a) = self.state.app_mut_by_id(app) {
            for (key, locality, host, rack, n) in unconfirmed {
                a.asks
                    .consume_changed(&key, locality, host, rack, n, &changed);
            }
        }
        if let Some(a) = self.state.app_by_id(app) {
            self.layers.observe(&self.state, &Observed::AsksUpdated(a));
        }
        Ok(())
    }

    fn asks_digest(&mut self, app: &str, digest: i64) -> Result<(), CoreError> {
        let a = self
            .state
            .app_by_id(app)
            .ok_or_else(|| CoreError::UnknownApp(app.to_string()))?;
        let ours = crate::digest::expected(&a.asks, &self.in_flight.unconfirmed_of(app));
        if ours != digest && !self.drifted.iter().any(|d| d == app) {
            self.stats.asks_drifts += 1;
            log::info!(
                "application {app}: the ResourceManager's asks digest {digest} differs from the core's {ours}; asking for a snapshot"
            );
            self.drifted.push(app.to_string());
        }
        Ok(())
    }

    pub fn handle(&mut self, event: Event) -> Result<(), CoreError> {
        match event {
            Event::NodeAdded {
                node,
                host,
                rack,
                capability,
            } => {
                if node.trim().is_empty() || host.trim().is_empty() {
                    return Err(CoreError::Protocol(format!(
                        "node_added with empty node id {node:?} or host {host:?}"
                    )));
                }
                let new = self.state.add_node(&node, &host, &rack, capability);
                let dc = self
                    .state
                    .node(&node)
                    .map(|n| n.datacenter.clone())
                    .unwrap_or_default();
                if new {
                    log::info!("node {node} added: host {host}, rack {rack}, datacenter {dc}, {capability:?}");
                } else {
                    log::info!("node {node} re-added: host {host}, rack {rack}, datacenter {dc}, {capability:?}");
                }
                self.cluster_changed();
            }
            Event::NodeRemoved { node } => match self.state.remove_node(&node) {
                Some((gone, lost)) => {
                    self.layers.node_removed(&gone);
                    for c in &lost {
                        self.layers
                            .observe(&self.state, &Observed::ContainerFinished(c));
                    }
                    for (app, (key, locality, host, rack, n)) in self.in_flight.forget_node(&node) {
                        if let Some(a) = self.state.app_mut_by_id(&app) {
                            a.asks.restore(&key, locality, host, rack, n);
                            log::info!(
                                "{n} containers decided for {app} on {node} go back to its asks: the node left before the RM created them"
                            );
                        }
                    }
                    self.rejections.forget_node(&node);
                    log::info!("node {node} removed with {} containers", lost.len());
                    self.cluster_changed();
                }
                None => self.ignore(format_args!("node_removed for unknown node {node}")),
            },
            Event::NodeResourceUpdated { node, capability } => {
                self.state.update_node_resource(&node, capability)?;
                log::info!("node {node} resource now {capability:?}");
                self.cluster_changed();
            }
            Event::AppAdded {
                app,
                queue,
                user,
                name,
                app_type,
                tags,
                submit_ms,
                priority,
                recovered,
            } => {
                if app.trim().is_empty() {
                    return Err(CoreError::Protocol(
                        "app_added with an empty application id".into(),
                    ));
                }
                let queue = self.admit_queue(&app, queue, &user, recovered)?;
                let spec = AppSpec {
                    id: app.clone(),
                    queue,
                    user,
                    name,
                    app_type,
                    tags,
                    submit_ms,
                    priority,
                };
                let new = self.state.add_app(spec);
                if let Some(a) = self.state.app_by_id(&app) {
                    self.layers.observe(&self.state, &Observed::AppAdded(a));
                    let verb = if new { "added" } else { "re-added" };
                    log::info!(
                        "application {app} {verb}: queue {}, user {}, type {:?}, submitted {}, priority {}",
                        a.queue,
                        a.user,
                        a.app_type,
                        a.submit_ms,
                        a.priority
                    );
                }
            }
            Event::AppPriorityChanged { app, priority } => {
                let old = self.state.set_app_priority(&app, priority)?;
                log::info!("application {app} priority {old} -> {priority}");
            }
            Event::AppMoved { app, queue } => {
                let queue = self.admit_move(&app, queue)?;
                let old = self.state.move_app(&app, &queue)?;
                log::info!("application {app} moved from queue {old} to {queue}");
            }
            Event::AppBlacklist { app, places } => {
                let n = places.len();
                let list = crate::state::app::Blacklist::new(places)
                    .map_err(|e| CoreError::Protocol(format!("app_blacklist for {app}: {e}")))?;
                let a = self
                    .state
                    .app_mut_by_id(&app)
                    .ok_or_else(|| CoreError::UnknownApp(app.clone()))?;
                a.blacklist = list;
                log::info!("application {app} blacklists {n} nodes or racks");
                // Which of its asks some node can serve may have changed with the list.
                if let Some(a) = self.state.app_by_id(&app) {
                    self.layers.observe(&self.state, &Observed::AsksUpdated(a));
                }
            }
            Event::NodePartition {
                node,
                partition,
                exclusive,
            } => {
                if !self.state.set_node_partition(&node, &partition, exclusive) {
                    return Err(CoreError::UnknownNode(node));
                }
                self.cluster_changed();
                log::info!(
                    "node {node} in partition {partition:?} ({})",
                    if exclusive {
                        "exclusive"
                    } else {
                        "non-exclusive"
                    }
                );
            }
            Event::KeyPartitions { app, keys } => {
                let n = keys.len();
                let entries = keys
                    .into_iter()
                    .map(|k| {
                        (
                            crate::state::ask::SchedulerKey {
                                priority: k.priority,
                                allocation_request_id: k.allocation_request_id,
                            },
                            k.partition,
                        )
                    })
                    .collect();
                let list = crate::state::app::KeyPartitions::new(entries)
                    .map_err(|e| CoreError::Protocol(format!("key_partitions for {app}: {e}")))?;
                let a = self
                    .state
                    .app_mut_by_id(&app)
                    .ok_or_else(|| CoreError::UnknownApp(app.clone()))?;
                a.partitions = list;
                self.state.key_partitions_changed();
                log::debug!("application {app}: {n} scheduler keys ask for a node label");
                // Where its keys may run changed what can ever be placed for it: the layers
                // judge it again as for new asks (FRESH's admission, slot sizes).
                if let Some(a) = self.state.app_by_id(&app) {
                    self.layers.observe(&self.state, &Observed::AsksUpdated(a));
                }
            }
            Event::AppRemoved { app } => match self.state.remove_app(&app) {
                Some(a) => {
                    self.in_flight.forget_app(&app);
                    self.rejections.forget_app(a.arrival);
                    self.layers.app_removed(a.arrival);
                    self.layers
                        .observe(&self.state, &Observed::AppRemoved(a.arrival));
                    log::info!("application {app} removed");
                    self.save_profiles();
                }
                None => self.ignore(format_args!("app_removed for unknown application {app}")),
            },
            Event::AttemptAdded { app, attempt } => {
                let a = self
                    .state
                    .app_mut_by_id(&app)
                    .ok_or_else(|| CoreError::UnknownApp(app.clone()))?;
                a.attempt = Some(attempt.clone());
                log::info!("application {app} attempt {attempt} added");
            }
            Event::AttemptRemoved { app, attempt } => match self.state.app_mut_by_id(&app) {
                Some(a) => {
                    a.attempt = None;
                    a.asks = crate::state::ask::AppAsks::emptied_after(&a.asks);
                    // The next attempt's list is its own (the shim sends it if not empty).
                    a.blacklist = Default::default();
                    self.in_flight.forget_app(&app);
                    log::info!("application {app} attempt {attempt} removed; its asks are gone");
                }
                None => self.ignore(format_args!(
                    "attempt_removed for unknown application {app}"
                )),
            },
            Event::AsksUpdated { app, asks } => {
                let rows: Vec<AskRef<'_>> = asks.iter().map(Ask::view).collect();
                self.asks_updated(&app, &rows)?;
            }
            Event::AsksChanged { app, asks } => {
                let rows: Vec<AskRef<'_>> = asks.iter().map(Ask::view).collect();
                self.asks_changed(&app, &rows)?;
            }
            Event::AsksDigest { app, digest } => self.asks_digest(&app, digest)?,
            Event::ContainerAllocated {
                container,
                locality,
                allocation_request_id,
                recovered,
            } => {
                let new = self.state.container_allocated(&container, recovered)?;
                if !new {
                    self.ignore(format_args!(
                        "container {} reported twice",
                        container.container
                    ));
                } else if recovered {
                    self.stats.recovered += 1;
                    if let Some(c) = self.state.containers().get(&container.container) {
                        self.layers
                            .observe(&self.state, &Observed::ContainerRecovered(c));
                    }
                    log::info!(
                        "recovered container {} of {} on {}",
                        container.container,
                        container.app,
                        container.node
                    );
                } else {
                    if let Some(c) = self.state.containers().get(&container.container) {
                        self.layers
                            .observe(&self.state, &Observed::ContainerStarted(c));
                    }
                    self.stats.allocations += 1;
                    match locality {
                        Locality::NodeLocal => self.stats.node_local += 1,
                        Locality::RackLocal => self.stats.rack_local += 1,
                        Locality::OffSwitch => self.stats.off_switch += 1,
                    }
                    self.in_flight.confirm(
                        &container.app,
                        &container.node,
                        SchedulerKey {
                            priority: container.priority,
                            allocation_request_id,
                        },
                        locality,
                    );
                    if let Some(a) = self.state.app_by_id(&container.app) {
                        self.rejections.succeeded(a.arrival, &container.node);
                    }
                }
            }
            Event::ContainerReleased {
                app,
                container,
                node,
                ..
            } => match self.state.container_released(&container) {
                Some(c) => self
                    .layers
                    .observe(&self.state, &Observed::ContainerFinished(&c)),
                None => self.ignore(format_args!(
                    "release of unknown container {container} of {app} on {node}"
                )),
            },
            Event::DecisionRejected {
                decision,
                executed,
                reason,
            } => {
                self.reject(decision, executed, reason)?;
            }
        }
        Ok(())
    }

    fn reject(
        &mut self,
        decision: Decision,
        executed: u32,
        reason: String,
    ) -> Result<(), CoreError> {
        if executed > decision.count {
            return Err(CoreError::Protocol(format!(
                "decision_rejected for {} priority {} on {}: executed {} of only {} containers",
                decision.app, decision.priority, decision.node, executed, decision.count
            )));
        }
        self.stats.rejected += 1;
        let line = format!(
            "decision rejected by the ResourceManager ({reason}): {} x{} {:?} for {} priority {} at {} on {}, {} executed",
            decision.count,
            decision.capability.memory_mb,
            decision.locality,
            decision.app,
            decision.priority,
            decision.resource_name,
            decision.node,
            executed
        );
        match self.rejection_warns.admit() {
            Some(0) => log::warn!("{line}"),
            Some(quiet) => log::warn!(
                "{line} ({quiet} more rejections logged at DEBUG since the last of these lines)"
            ),
            None => log::debug!("{line}"),
        }
        let found = self.in_flight.reject(&decision, executed);
        // Only a decision still in flight makes its app sit out the node: one whose node left
        // (its containers went back to the asks when it did) would leave a pause behind for
        // whatever node registers under that id later.
        if executed == 0 && found.is_some() {
            if let Some(app) = self.state.app_by_id(&decision.app) {
                self.rejections.rejected(app.arrival, &decision.node);
            }
        }
        if let Some((key, locality, host, rack, back)) = found {
            if back > 0 {
                if let Some(a) = self.state.app_mut_by_id(&decision.app) {
                    a.asks.restore(&key, locality, host, rack, back);
                    self.stats.rejected_containers += back as u64;
                }
            }
        }
        Ok(())
    }

    /// Gives the state the decisions now in flight. The shim confirms and rejects decisions
    /// between offers, so whatever reads the state's in-flight use (every offer, a preemption
    /// round) refreshes it first rather than trusting the last offer's.
    /// Brings the pending index up to date and activates the applications the AM limits admit,
    /// as a heartbeat with room does first.
    pub(crate) fn sync_pending_and_activate(&mut self, now_ms: u64) {
        self.state.sync_pending();
        crate::schedule::activate(&mut self.state, self.layers.job.as_mut(), now_ms);
    }

    pub(crate) fn sync_in_flight(&mut self) {
        self.state.set_in_flight(self.in_flight.unconfirmed());
        self.state
            .set_slot_in_flight(self.in_flight.unconfirmed_slots());
    }

    pub fn heartbeat(&mut self, hb: &Heartbeat) -> Result<HeartbeatResponse, CoreError> {
        let node = self
            .state
            .node_heartbeat(&hb.node, hb.unallocated, hb.now_ms)?
            .clone();
        self.stats.heartbeats += 1;
        self.rejection_warns.tick(hb.now_ms);
        let lost = self.in_flight.expire_node(&hb.node);
        if lost > 0 {
            self.stats.lost_decisions += lost as u64;
            log::warn!(
                "{lost} decisions for node {} were neither executed nor rejected by the shim; dropped",
                hb.node
            );
        }
        self.sync_in_flight();
        // An eager offer is a sweep's whatever its `sweep` says: never the node's heartbeat.
        let sweep = hb.sweep || hb.eager;
        if !sweep {
            self.state.grant_opportunity(&hb.node);
        }
        let sitting_out = if sweep {
            self.rejections.paused(&hb.node)
        } else {
            self.rejections.sitting_out(&hb.node)
        };
        let mut decisions = schedule::assign(
            &mut self.state,
            &mut self.layers,
            &self.config,
            &node,
            hb.unallocated,
            hb.now_ms,
            sweep,
            hb.eager,
            &sitting_out,
        );
        for d in &mut decisions {
            if let Some(app) = self.state.app_by_id(&d.app) {
                let key = crate::state::ask::SchedulerKey {
                    priority: d.priority,
                    allocation_request_id: d.allocation_request_id,
                };
                d.limits = self.layers.job.commit_limits(app, app.partitions.of(&key));
            }
        }
        for d in &decisions {
            let kind = self
                .state
                .app_by_id(&d.app)
                .map_or(crate::state::app::TaskKind::Generic, |a| {
                    a.kind_of(d.priority)
                });
            self.in_flight.add(d, node.host_id, node.rack_id, kind);
            self.stats.decided_containers += d.count as u64;
        }
        self.stats.decisions += decisions.len() as u64;
        Ok(HeartbeatResponse { decisions })
    }

    /// Several node heartbeats in one call, in order, each exactly as [`Core::heartbeat`]
    /// (a node's decisions count the asks earlier nodes of the batch already took). A node the
    /// core cannot decide for is named in `refused` and does not cost the others theirs.
    pub fn offers(&mut self, offers: &[Heartbeat]) -> OffersResponse {
        let mut out = OffersResponse::default();
        for hb in offers {
            match self.heartbeat(hb) {
                Ok(r) => out.decisions.extend(r.decisions),
                Err(e) => out.refused.push(RefusedOffer {
                    node: hb.node.clone(),
                    reason: e.to_string(),
                }),
            }
        }
        out
    }

    /// The applications whose `asks_digest` differed from the core's since the last call (at
    /// most one entry per application): the shim owes each an `asks_updated` snapshot.
    pub fn take_drifted(&mut self) -> Vec<String> {
        std::mem::take(&mut self.drifted)
    }

    /// The ids the last asks frame gave its waiting names, as (row of the frame, id).
    pub fn learned_ids(&self) -> &[(u32, u32)] {
        &self.learned
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.nodes = self.state.node_count() as u64;
        s.apps = self.state.app_count() as u64;
        s.running_containers = self.state.containers().len() as u64;
        s.pending_containers = self.state.pending_containers();
        s.apps_awaiting_activation = self.state.awaiting_count() as u64;
        s.ordered_apps = self.state.last_ordered();
        s.queues = self.state.queues().len() as u64;
        s.in_flight = self.in_flight.len() as u64;
        s.backed_off = self.rejections.len() as u64;
        s.policy = self.layers.job.name().to_string();
        s.locality = self.layers.locality.name().to_string();
        s.hotspot = self.layers.hotspot.name().to_string();
        s.slots = self.layers.slots.name().to_string();
        s.scheduling_mode = self.config.scheduling_mode().as_str().to_string();
        s.scheduling_eager = self.config.scheduling_eager;
        s.max_ask_rows = self.config.app_limits.max_rows as u64;
        let report = self.layers.job.report();
        s.deadline_flagged_jobs = report.flagged_total;
        s.flagged_jobs = report.flagged_jobs;
        s.scale_out_advice = report.scale_out;
        s.profiles = self.state.profiles().store().len() as u64;
        if let Some(w) = &self.profile_writer {
            let ws = w.stats();
            s.profile_store_writes = ws.writes;
            s.profile_store_write_failures = ws.failures;
        }
        s
    }

    /// Jobs the job policy flagged and its advice for the operator (MROSA's scale-out); the
    /// same lists are in [`Stats`] (`flagged_jobs`, `scale_out_advice`).
    pub fn advice(&self) -> PolicyReport {
        self.layers.job.report()
    }

    /// Hands the runs that just finished to the store's writer thread, when
    /// `locus.profile.store` is set: the dispatcher thread never waits for the disk, and hands
    /// over one small record per job, not the store. A failed write is logged by the writer and
    /// retried with the next finished job.
    fn save_profiles(&mut self) {
        let (Some(path), Some(writer)) = (&self.config.profile_store, &self.profile_writer) else {
            return;
        };
        let runs = self.state.profiles_mut().take_recorded();
        if runs.is_empty() {
            return;
        }
        if !writer.add_runs(path.clone(), runs) {
            // The disk has been stuck for a long queue of runs: one copy instead of more.
            writer.replace(path.clone(), self.state.profiles().store().clone());
        }
    }

    /// `locus.profile.store` changed at a refresh: the running profiles stay, the new file's
    /// profiles they lack are added, and the result goes to the new path at once (the old file
    /// is left as it was). No path: the profiles stay in memory only.
    fn move_profile_store(&mut self, new: &Config, loaded: Option<ProfileStore>) {
        let old = self
            .config
            .profile_store
            .as_ref()
            .map(|p| p.display().to_string());
        let Some(path) = &new.profile_store else {
            self.state.profiles_mut().set_persisted(false);
            log::info!(
                "{PROFILE_STORE_KEY} emptied (was {old:?}): {} profiles are kept in memory only",
                self.state.profiles().store().len()
            );
            return;
        };
        let added = loaded.map_or(0, |s| self.state.profiles_mut().absorb(s));
        log::info!(
            "{PROFILE_STORE_KEY} moved from {old:?} to {}: {added} profiles read from it added to the {} running ones; the merged store is written there",
            path.display(),
            self.state.profiles().store().len() - added
        );
        self.state.profiles_mut().set_persisted(true);
        self.state.profiles_mut().take_recorded();
        if let Some(w) = &self.profile_writer {
            w.replace(path.clone(), self.state.profiles().store().clone());
        }
    }

    /// Waits up to `limit` until every run handed to the profile writer is on disk (or
    /// failed and logged); true when done, or when no store is configured. For shutdown paths
    /// that want to know, and tests.
    pub fn flush_profiles(&self, limit: std::time::Duration) -> bool {
        self.profile_writer.as_ref().is_none_or(|w| w.flush(limit))
    }

    fn ignore(&mut self, what: std::fmt::Arguments<'_>) {
        self.stats.ignored_events += 1;
        log::info!("ignored: {what}");
    }
}
