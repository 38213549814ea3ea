//! Job profiles learned online: how long a job's map and reduce containers run, its filtering
//! percentage and demand, keyed by the submitting user and JoSS's job signature (application
//! name + type + the `locus.input-type=` hint) so a job that ran before is known when it comes
//! back, also after an RM restart (`locus.profile.store`). The user is part of the key because
//! names and tags are the submitter's to choose: another user's same-named job (or its
//! `locus.fp=` tag) must not train the profile that classifies yours.
//!
//! Times come from the containers themselves: a container starts at its `container_allocated`
//! and ends at its `container_released` (each event's `now_ms`, else the latest heartbeat clock).
//! A finished run (`app_removed`) is folded into the persisted [`ProfileStore`]; while a job runs,
//! its own finished tasks are the best estimate of its remaining ones.
//!
//! The store file is JSON `{"version":2,"profiles":{...}}`, written off the scheduler's thread by
//! [`crate::profile::writer`]. Stores of format 1 (no `version`, written before profiles were keyed
//! by user) are refused with a message naming the file: their keys cannot be attributed to a user.
//!
//! The signature is an unkeyed 64-bit hash of strings the submitter chooses, so each profile also
//! keeps its whole key ([`profile_key`]: user, name, type, input type, each part bounded)
//! and a job whose key differs neither trains nor reads it; and when it last learned, so a user
//! past their share ([`USER_SHARE`]) or a full store replaces the least recently learned profile.
//! Both are optional fields of a format-2 profile: a store written before them loads, and the
//! first run of each of its signatures claims that profile for its key.

pub mod store;
pub mod writer;

use std::path::Path;

use crate::error::CoreError;
use crate::fast_hash::{FastMap, FastSet};
use crate::hints::{JobHints, TrustedSubmitters, HINTS_TRUSTED};
use crate::papers::joss::{JobObservation, JobSignature, ProfileKey, ProfileStore, Recorded};
use crate::state::app::{App, Arrival, TaskKind};

pub const PROFILE_STORE_KEY: &str = "locus.profile.store";
pub const PROFILE_DEFAULT_MAP_SECS: &str = "locus.profile.default-map-secs";
pub const PROFILE_DEFAULT_REDUCE_SECS: &str = "locus.profile.default-reduce-secs";

/// Task times assumed for a job nothing is known about yet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileDefaults {
    pub map_secs: f64,
    pub reduce_secs: f64,
}

impl Default for ProfileDefaults {
    fn default() -> Self {
        ProfileDefaults {
            map_secs: 30.0,
            reduce_secs: 60.0,
        }
    }
}

impl ProfileDefaults {
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), CoreError> {
        let v = parse_number(key, value, 0.001, 86_400.0)?;
        if key == PROFILE_DEFAULT_MAP_SECS {
            self.map_secs = v;
        } else {
            self.reduce_secs = v;
        }
        Ok(())
    }
}

/// A number in `min..=max`, or an error naming the key, the value and the range.
pub(crate) fn parse_number(key: &str, value: &str, min: f64, max: f64) -> Result<f64, CoreError> {
    match value.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= min && x <= max => Ok(x),
        _ => Err(CoreError::Config {
            key: key.to_string(),
            message: format!("invalid value {value:?}; allowed: a number from {min} to {max}"),
        }),
    }
}

/// Job signatures the store keeps at most. Names are the submitters' to choose, so without a
/// bound a flood of new names would grow the store, its file and the writer's copy for ever; at
/// about 200 bytes of JSON each this caps the file near 20 MB.
pub const MAX_PROFILES: usize = 100_000;

/// Profiles one user's jobs may hold: a tenth of the store. A user's new job beyond it replaces
/// that user's least recently recorded profile, so one user naming jobs at will cannot fill the
/// store and keep everyone else's new jobs from being learned; it takes ten users doing so to
/// fill it, and then the least recently recorded profiles of anyone make room
/// ([`ProfileStore::record_keyed_run`]).
pub const USER_SHARE: usize = MAX_PROFILES / 10;

/// A finished run as the store's writer folds it in.
pub type RecordedRun = (JobSignature, ProfileKey, JobObservation);

/// Largest store file read. Above what Locus can write, so a store it wrote always loads:
/// [`MAX_PROFILES`] profiles of at most about 700 bytes of JSON each (two key parts of
/// [`ProfileKey::MAX_PART_BYTES`] and the counters at their widest) take at most about 70 MB;
/// typical ones about 20 MB.
pub const MAX_STORE_BYTES: u64 = 128 << 20;

/// The format of the store file this Locus writes.
pub const STORE_FORMAT: u64 = 2;

/// A job's profile key: JoSS's signature (name, type, input type) within its user's own
/// profiles. The user's length prefixes it, so no user/name split of the same bytes collides.
pub fn job_signature(user: &str, app_name: &str, app_type: &str, input_type: &str) -> JobSignature {
    let name = format!("{}:{user}\u{1f}{app_name}", user.len());
    JobSignature::new(&name, &app_type.to_ascii_uppercase(), input_type)
}

/// The whole key [`job_signature`] hashes, kept with the profile so that a job whose signature
/// merely hashes alike (the strings are the submitter's, the hash is not keyed) neither trains
/// nor reads the profile.
pub fn profile_key(user: &str, app_name: &str, app_type: &str, input_type: &str) -> ProfileKey {
    let job = format!(
        "{app_name}\u{1f}{}\u{1f}{input_type}",
        app_type.to_ascii_uppercase()
    );
    ProfileKey::new(user, &job)
}

/// The store as the file holds it.
pub fn store_to_json(store: &ProfileStore) -> Result<String, serde_json::Error> {
    let mut v = serde_json::to_value(store)?;
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("version".into(), STORE_FORMAT.into());
    }
    serde_json::to_string(&v)
}

/// The store in `text`, or why it is not one (completing "the profile store <file> ...").
pub fn store_from_json(text: &str) -> Result<ProfileStore, String> {
    let not_ours = |e: serde_json::Error| {
        format!("is not a Locus profile store ({e}); move it away to start with no profiles")
    };
    let mut v: serde_json::Value = serde_json::from_str(text).map_err(not_ours)?;
    let version = match v.as_object_mut().map(|m| m.remove("version")) {
        Some(Some(n)) => n.as_u64(),
        Some(None) => Some(1),
        None => None,
    };
    match version {
        Some(STORE_FORMAT) => serde_json::from_value(v).map_err(not_ours),
        Some(1) => {
            let old: ProfileStore = serde_json::from_value(v).map_err(not_ours)?;
            Err(format!(
                "was written by an older Locus that keyed profiles without the submitting user ({} profiles); they cannot be attributed to users, so they are not loaded. Move the file away (or delete it) to start with no profiles; Locus relearns them as jobs finish",
                old.len()
            ))
        }
        Some(n) => Err(format!(
            "has format {n}, this Locus reads format {STORE_FORMAT}; it was written by a newer Locus"
        )),
        None => Err(not_ours(serde::de::Error::custom("not a JSON object with a version"))),
    }
}

/// One running application as the profiles see it.
#[derive(Debug, Clone)]
pub struct LiveJob {
    pub signature: JobSignature,
    /// What `signature` hashes, in full.
    pub key: ProfileKey,
    /// The hints that count: `declared` without the priority hints of an untrusted user.
    pub hints: JobHints,
    /// What the application's tags say, kept so a changed `locus.hints.trusted` applies to
    /// running jobs too.
    pub declared: JobHints,
    pub user: String,
    /// Tasks of this run that finished.
    pub run: JobObservation,
    pub submit_ms: u64,
    pub running_maps: u32,
    pub running_reduces: u32,
}

/// What the policies may assume about a job: this run's finished tasks first, then the profile
/// of earlier runs with the same signature, then the hints. `None` where nothing is known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobEstimate {
    pub avg_map_ms: Option<f64>,
    pub avg_reduce_ms: Option<f64>,
    pub fp: Option<f64>,
    pub demand: Option<u32>,
    /// Earlier finished runs with this signature.
    pub past_runs: u64,
    pub maps_done: u64,
    pub reduces_done: u64,
    pub maps_running: u32,
    pub reduces_running: u32,
}

#[derive(Debug, Clone)]
struct Started {
    app: Arrival,
    kind: TaskKind,
    at_ms: u64,
}

#[derive(Debug, Default)]
pub struct Profiles {
    store: ProfileStore,
    live: FastMap<Arrival, LiveJob>,
    started: FastMap<String, Started>,
    /// Entries of `started` per application: a finished app scans `started` only when it left
    /// some there (the state finishes an app's containers before removing it).
    started_per_app: FastMap<Arrival, u32>,
    /// Containers released and waiting for their node's heartbeat to give their finish time:
    /// the RM reports a node's finished containers while processing its heartbeat, just before
    /// the core's heartbeat call with that heartbeat's clock.
    finishing: FastMap<String, Vec<Started>>,
    /// Nodes whose `finishing` list holds a container of the app, so a finished app does not
    /// walk every node's list.
    finishing_nodes: FastMap<Arrival, FastSet<String>>,
    /// Runs recorded since the store was last written.
    unsaved: u64,
    /// Those runs, for the store's writer thread; kept only while a store file is configured.
    recorded: Vec<RecordedRun>,
    persisted: bool,
    /// Signatures the store may hold; `None` = [`MAX_PROFILES`] (tests lower it).
    limit: Option<usize>,
    /// A profile was evicted and said so (once per core).
    full_logged: bool,
    /// A run was refused for a signature holding another key's profile, and said so (once).
    collision_logged: bool,
    /// `locus.hints.trusted`.
    trusted: TrustedSubmitters,
}

impl Profiles {
    pub fn with_store(store: ProfileStore) -> Self {
        Profiles {
            store,
            ..Default::default()
        }
    }

    /// Reads the store at `path`; a missing file is an empty store (first start), anything
    /// unreadable is a configuration error naming the key and the file. Only a regular file of
    /// at most [`MAX_STORE_BYTES`] reached without a symlink is read, within
    /// [`crate::side_files::READ_TIMEOUT`]: the store is a file Locus writes, and a link or FIFO
    /// planted at its path must neither redirect it nor block the start.
    pub fn load(path: &Path) -> Result<ProfileStore, CoreError> {
        use crate::side_files::{read_text, Links};
        let text = match read_text(PROFILE_STORE_KEY, path, MAX_STORE_BYTES, Links::Refuse) {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(ProfileStore::new()),
            Err(CoreError::Config { key, message }) => {
                return Err(CoreError::Config {
                    key,
                    message: message.replacen("cannot read ", "cannot read the profile store ", 1),
                })
            }
            Err(e) => return Err(e),
        };
        store_from_json(&text).map_err(|why| CoreError::Config {
            key: PROFILE_STORE_KEY.into(),
            message: format!("the profile store {} {why}", path.display()),
        })
    }

    /// Whether finished runs are kept for the store's writer ([`Profiles::take_recorded`]).
    pub fn set_persisted(&mut self, on: bool) {
        self.persisted = on;
        if !on {
            self.recorded.clear();
        }
    }

    /// The runs recorded since the last call, for the store's writer.
    pub fn take_recorded(&mut self) -> Vec<RecordedRun> {
        self.unsaved = 0;
        std::mem::take(&mut self.recorded)
    }

    /// Adds the profiles of `other` this store lacks (the running store's own win), up to the
    /// store's limit; returns how many were added.
    pub fn absorb(&mut self, other: ProfileStore) -> usize {
        let (limit, share) = self.limits();
        let added = self.store.absorb_missing(other, limit, share);
        if added > 0 {
            self.unsaved += 1;
        }
        added
    }

    /// The store's bounds: its size and one user's share of it.
    fn limits(&self) -> (usize, usize) {
        match self.limit {
            Some(limit) => (limit, (limit / (MAX_PROFILES / USER_SHARE)).max(1)),
            None => (MAX_PROFILES, USER_SHARE),
        }
    }

    /// The key the profile of a live application is filed under.
    pub fn signature(&self, app: Arrival) -> Option<JobSignature> {
        self.live.get(&app).map(|j| j.signature)
    }

    pub fn unsaved(&self) -> u64 {
        self.unsaved
    }

    pub fn store(&self) -> &ProfileStore {
        &self.store
    }

    /// The store, leaving an empty one (the core is being replaced: [`crate::Core::rebuilt`]).
    pub fn take_store(&mut self) -> ProfileStore {
        std::mem::take(&mut self.store)
    }

    /// Who may use the hints that raise a job's priority; applies to running jobs as well, so
    /// revoking a user's trust takes effect without waiting for their jobs to end.
    pub fn set_trusted(&mut self, trusted: TrustedSubmitters) {
        if trusted == self.trusted {
            return;
        }
        self.trusted = trusted;
        for job in self.live.values_mut() {
            job.hints = job.declared.honoured_for(&job.user, &self.trusted).0;
        }
    }

    pub fn app_added(&mut self, app: &App) {
        let (declared, _errors) = JobHints::from_tags(&app.id, &app.tags);
        let (hints, dropped) = declared.honoured_for(&app.user, &self.trusted);
        let signature = job_signature(&app.user, &app.name, &app.app_type, &declared.input_type);
        let key = profile_key(&app.user, &app.name, &app.app_type, &declared.input_type);
        let new = !self.live.contains_key(&app.arrival);
        if new && !dropped.is_empty() {
            log::warn!(
                "application {}: tags {} ignored: user {:?} is not listed in {HINTS_TRUSTED}",
                app.id,
                dropped.join(" "),
                app.user
            );
        }
        let e = self.live.entry(app.arrival).or_insert_with(|| LiveJob {
            signature,
            key: key.clone(),
            hints: hints.clone(),
            declared: declared.clone(),
            user: app.user.clone(),
            run: JobObservation::default(),
            submit_ms: app.submit_ms,
            running_maps: 0,
            running_reduces: 0,
        });
        // Re-added (RM recovery): new tags win, what was learned stays.
        e.signature = signature;
        e.key = key;
        e.hints = hints;
        e.declared = declared;
        e.user.clone_from(&app.user);
    }

    /// The run is over: fold what it showed into the store (if it ran any map or reduce).
    /// Finishes still waiting for a heartbeat are timed at `now_ms`.
    pub fn app_removed(&mut self, arrival: Arrival, now_ms: u64) {
        let mut waiting = Vec::new();
        for node in self.finishing_nodes.remove(&arrival).unwrap_or_default() {
            let Some(list) = self.finishing.get_mut(&node) else {
                continue;
            };
            let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(list)
                .into_iter()
                .partition(|s| s.app == arrival);
            if rest.is_empty() {
                self.finishing.remove(&node);
            } else {
                *list = rest;
            }
            waiting.extend(mine);
        }
        for s in waiting {
            self.finish(s, now_ms);
        }
        if self.started_per_app.remove(&arrival).is_some() {
            self.started.retain(|_, s| s.app != arrival);
        }
        let Some(mut job) = self.live.remove(&arrival) else {
            return;
        };
        if job.run.maps == 0 && job.run.reduces == 0 {
            return;
        }
        if let Some(fp) = job.hints.fp {
            job.run.fp_hinted(fp);
        }
        let (limit, share) = self.limits();
        match self
            .store
            .record_keyed_run(job.signature, &job.key, &job.run, limit, share)
        {
            Recorded::Collision => {
                if !self.collision_logged {
                    self.collision_logged = true;
                    log::warn!(
                        "{PROFILE_STORE_KEY}: a job of user {:?} hashes like another job's profile; its run is not learned (logged once)",
                        job.user
                    );
                }
                return;
            }
            Recorded::Replaced(_, gone) if !self.full_logged => {
                self.full_logged = true;
                log::info!(
                    "{PROFILE_STORE_KEY}: a job of user {:?} replaced the least recently learned profile{} (the store holds at most {limit}, one user at most {share}; logged once)",
                    job.user,
                    gone.map(|k| format!(" of user {:?}", k.user)).unwrap_or_default()
                );
            }
            _ => {}
        }
        self.unsaved += 1;
        if self.persisted {
            self.recorded.push((job.signature, job.key, job.run));
        }
    }

    pub fn container_started(
        &mut self,
        container: &str,
        app: Arrival,
        kind: TaskKind,
        now_ms: u64,
    ) {
        if let Some(job) = self.live.get_mut(&app) {
            if kind.is_map() {
                job.running_maps += 1;
            } else if kind == TaskKind::Reduce {
                job.running_reduces += 1;
            }
        }
        let old = self.started.insert(
            container.to_string(),
            Started {
                app,
                kind,
                at_ms: now_ms,
            },
        );
        if let Some(old) = old {
            self.unindex(old.app);
        }
        *self.started_per_app.entry(app).or_insert(0) += 1;
    }

    fn unindex(&mut self, app: Arrival) {
        if let Some(n) = self.started_per_app.get_mut(&app) {
            *n -= 1;
            if *n == 0 {
                self.started_per_app.remove(&app);
            }
        }
    }

    /// Counts a finished map or reduce in its job's run. A container lost with its node counts
    /// too: its time is what the job really spent on it.
    pub fn container_finished(&mut self, container: &str, now_ms: u64) {
        let Some(s) = self.started.remove(container) else {
            return;
        };
        self.unindex(s.app);
        self.finish(s, now_ms);
    }

    /// A container released on `node`: timed by that node's next heartbeat.
    pub fn container_released(&mut self, container: &str, node: &str) {
        let Some(s) = self.started.remove(container) else {
            return;
        };
        self.unindex(s.app);
        // Look before inserting: a node finishes many containers of an app, and an owned key
        // for each would allocate a string per container only to drop it.
        let nodes = self.finishing_nodes.entry(s.app).or_default();
        if !nodes.contains(node) {
            nodes.insert(node.to_string());
        }
        match self.finishing.get_mut(node) {
            Some(list) => list.push(s),
            None => {
                self.finishing.insert(node.to_string(), vec![s]);
            }
        }
    }

    /// `node`'s heartbeat at `now_ms`: the finish time of what it released.
    pub fn node_heartbeat(&mut self, node: &str, now_ms: u64) {
        if let Some(list) = self.finishing.remove(node) {
            for s in list {
                if let Some(nodes) = self.finishing_nodes.get_mut(&s.app) {
                    nodes.remove(node);
                    if nodes.is_empty() {
                        self.finishing_nodes.remove(&s.app);
                    }
                }
                self.finish(s, now_ms);
            }
        }
    }

    /// `node` is gone: what it released is timed at `now_ms`.
    pub fn node_removed(&mut self, node: &str, now_ms: u64) {
        self.node_heartbeat(node, now_ms);
    }

    fn finish(&mut self, s: Started, now_ms: u64) {
        let Some(job) = self.live.get_mut(&s.app) else {
            return;
        };
        let ms = now_ms.saturating_sub(s.at_ms);
        if s.kind.is_map() {
            job.run.map_finished(ms, 0, 0);
            job.running_maps = job.running_maps.saturating_sub(1);
        } else if s.kind == TaskKind::Reduce {
            job.run.reduce_finished(ms);
            job.running_reduces = job.running_reduces.saturating_sub(1);
        }
    }

    /// When a running container started (`None` for finished or recovered ones).
    pub fn started_ms(&self, container: &str) -> Option<u64> {
        self.started.get(container).map(|s| s.at_ms)
    }

    pub fn live(&self, app: Arrival) -> Option<&LiveJob> {
        self.live.get(&app)
    }

    pub fn hints(&self, app: Arrival) -> Option<&JobHints> {
        self.live.get(&app).map(|j| &j.hints)
    }

    pub fn estimate(&self, app: Arrival) -> JobEstimate {
        let Some(job) = self.live.get(&app) else {
            return JobEstimate::default();
        };
        let past = self.store.get_keyed(job.signature, &job.key);
        let avg = |n: u64, total: u64| (n > 0).then(|| total as f64 / n as f64);
        JobEstimate {
            avg_map_ms: avg(job.run.maps, job.run.map_ms_total)
                .or_else(|| past.and_then(|p| p.avg_map_ms())),
            avg_reduce_ms: avg(job.run.reduces, job.run.reduce_ms_total)
                .or_else(|| past.and_then(|p| p.avg_reduce_ms())),
            fp: job
                .hints
                .fp
                .or_else(|| past.and_then(|p| p.filtering_percentage())),
            demand: job.hints.demand.or_else(|| {
                past.and_then(|p| p.avg_maps_per_run())
                    .map(|m| m.round().max(1.0) as u32)
            }),
            past_runs: past.map_or(0, |p| p.runs),
            maps_done: job.run.maps,
            reduces_done: job.run.reduces,
            maps_running: job.running_maps,
            reduces_running: job.running_reduces,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Resource;
    use crate::state::ask::AppAsks;

    fn app(n: u64, name: &str, tags: &[&str]) -> App {
        App {
            id: format!("application_1_{n:04}"),
            arrival: Arrival(n),
            queue: "default".into(),
            user: "u".into(),
            name: name.into(),
            app_type: "MAPREDUCE".into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            submit_ms: 0,
            priority: 0,
            is_mapreduce: true,
            attempt: None,
            asks: AppAsks::default(),
            asks_version: 0,
            used: Resource::ZERO,
            am_used: Resource::ZERO,
            used_by_partition: Default::default(),
            running: 0,
            blacklist: Default::default(),
            partitions: Default::default(),
            lend_misses: Default::default(),
        }
    }

    #[test]
    fn a_run_teaches_the_next_run_of_the_same_signature() {
        let mut p = Profiles::default();
        p.app_added(&app(
            1,
            "wordcount",
            &["locus.input-type=web", "locus.fp=0.5"],
        ));
        assert_eq!(p.estimate(Arrival(1)).avg_map_ms, None);
        p.container_started("c1", Arrival(1), TaskKind::Map, 1_000);
        p.container_started("c2", Arrival(1), TaskKind::Map, 1_000);
        p.container_started("c3", Arrival(1), TaskKind::Reduce, 2_000);
        p.container_started("am", Arrival(1), TaskKind::ApplicationMaster, 0);
        p.container_finished("c1", 11_000);
        assert_eq!(p.estimate(Arrival(1)).avg_map_ms, Some(10_000.0));
        p.container_finished("c2", 21_000);
        assert_eq!(p.estimate(Arrival(1)).reduces_running, 1);
        p.container_finished("c3", 32_000);
        p.container_finished("am", 40_000);
        let e = p.estimate(Arrival(1));
        assert_eq!(
            (e.avg_map_ms, e.avg_reduce_ms, e.maps_done),
            (Some(15_000.0), Some(30_000.0), 2)
        );
        assert_eq!((e.maps_running, e.reduces_running), (0, 0));
        // A container still running when its app goes is forgotten with it.
        p.container_started("c9", Arrival(1), TaskKind::Map, 45_000);
        assert_eq!(p.started_ms("c9"), Some(45_000));
        p.app_removed(Arrival(1), 50_000);
        assert_eq!(p.started_ms("c9"), None);
        assert_eq!(p.unsaved(), 1);

        // Same name and input type: known; another input type: a different job.
        p.app_added(&app(2, "wordcount", &["locus.input-type=web"]));
        p.app_added(&app(3, "wordcount", &["locus.input-type=text"]));
        let e = p.estimate(Arrival(2));
        assert_eq!(
            (e.avg_map_ms, e.avg_reduce_ms, e.fp, e.demand, e.past_runs),
            (Some(15_000.0), Some(30_000.0), Some(0.5), Some(2), 1)
        );
        assert_eq!(p.estimate(Arrival(3)), JobEstimate::default());
    }

    #[test]
    fn another_users_runs_of_a_same_named_job_teach_nothing_about_yours() {
        let mut p = Profiles::default();
        let mut mallory = app(1, "wordcount", &["locus.input-type=web", "locus.fp=9"]);
        mallory.user = "mallory".into();
        p.app_added(&mallory);
        p.container_started("c1", Arrival(1), TaskKind::Map, 0);
        p.container_finished("c1", 1_000);
        p.app_removed(Arrival(1), 2_000);

        let mut alice = app(2, "wordcount", &["locus.input-type=web"]);
        alice.user = "alice".into();
        p.app_added(&alice);
        assert_eq!(
            p.estimate(Arrival(2)),
            JobEstimate::default(),
            "mallory's run (and her locus.fp tag) must not classify alice's job"
        );
        // Her own next run is known.
        let mut again = app(3, "wordcount", &["locus.input-type=web"]);
        again.user = "mallory".into();
        p.app_added(&again);
        assert_eq!(p.estimate(Arrival(3)).fp, Some(9.0));
    }

    /// Job `n` of `user` named `name` runs one map and finishes.
    fn run_one(p: &mut Profiles, n: u64, user: &str, name: &str) {
        let mut a = app(n, name, &[]);
        a.user = user.into();
        p.app_added(&a);
        p.container_started(&format!("c{n}"), Arrival(n), TaskKind::Map, 0);
        p.container_finished(&format!("c{n}"), 1_000);
        p.app_removed(Arrival(n), 2_000);
    }

    fn past_runs(p: &mut Profiles, n: u64, user: &str, name: &str) -> u64 {
        let mut a = app(n, name, &[]);
        a.user = user.into();
        p.app_added(&a);
        let runs = p.estimate(Arrival(n)).past_runs;
        p.app_removed(Arrival(n), 0);
        runs
    }

    #[test]
    fn one_users_flood_of_names_churns_only_their_own_share() {
        // Names are the submitters' to choose: a flood of new names must neither grow the store
        // (and the file, and the writer's copy) without bound nor fill it for everyone else.
        let mut p = Profiles {
            limit: Some(20),
            ..Default::default()
        };
        run_one(&mut p, 1, "alice", "etl");
        for n in 2..=40u64 {
            run_one(&mut p, n, "mallory", &format!("job{n}"));
        }
        assert_eq!(p.store().user_len("mallory"), 2, "a tenth of the store");
        assert_eq!(p.store().len(), 3);
        // Her newest names are known, her oldest were replaced by them.
        assert_eq!(past_runs(&mut p, 100, "mallory", "job40"), 1);
        assert_eq!(past_runs(&mut p, 101, "mallory", "job2"), 0);
        // Everyone else's jobs are still learned, new ones included.
        assert_eq!(past_runs(&mut p, 102, "alice", "etl"), 1);
        run_one(&mut p, 103, "bob", "report");
        assert_eq!(past_runs(&mut p, 104, "bob", "report"), 1);
    }

    #[test]
    fn a_full_store_makes_room_from_the_least_recently_learned_profile() {
        let mut p = Profiles {
            limit: Some(20),
            ..Default::default()
        };
        let mut n = 0;
        for user in 0..10 {
            for job in 0..2 {
                n += 1;
                run_one(&mut p, n, &format!("u{user}"), &format!("job{job}"));
            }
        }
        assert_eq!(p.store().len(), 20);
        // u0's job0 runs again, so u0's job1 is now the least recently learned.
        run_one(&mut p, 50, "u0", "job0");
        run_one(&mut p, 51, "newcomer", "first");
        assert_eq!(p.store().len(), 20);
        assert_eq!(past_runs(&mut p, 52, "newcomer", "first"), 1);
        assert_eq!(past_runs(&mut p, 53, "u0", "job0"), 2);
        assert_eq!(past_runs(&mut p, 54, "u0", "job1"), 0);
    }

    #[test]
    fn a_job_that_hashes_like_another_users_profile_neither_trains_nor_reads_it() {
        let mut p = Profiles::default();
        // Alice's profile filed under the signature bob's "wordcount" hashes to, as a job name
        // searched for that collision would put it there.
        let sig = job_signature("bob", "wordcount", "MAPREDUCE", "");
        let mut alices = JobObservation::default();
        alices.map_finished(7_000, 0, 0);
        let alice = profile_key("alice", "crafted", "MAPREDUCE", "");
        p.store
            .record_keyed_run(sig, &alice, &alices, MAX_PROFILES, USER_SHARE);
        let mut bob = app(1, "wordcount", &[]);
        bob.user = "bob".into();
        p.app_added(&bob);
        assert_eq!(p.signature(Arrival(1)), Some(sig));
        assert_eq!(
            p.estimate(Arrival(1)),
            JobEstimate::default(),
            "alice's profile does not describe bob's job"
        );
        p.container_started("c1", Arrival(1), TaskKind::Map, 0);
        p.container_finished("c1", 1_000);
        p.app_removed(Arrival(1), 2_000);
        let kept = p.store().get(sig).unwrap();
        assert_eq!(
            (kept.runs, kept.totals.map_ms_total, kept.key.as_ref()),
            (1, 7_000, Some(&alice)),
            "bob's run did not train alice's profile"
        );
    }

    #[test]
    fn store_file_round_trip_and_errors_name_key_and_file() {
        let mut p = Profiles::default();
        p.app_added(&app(1, "grep", &[]));
        p.container_started("c", Arrival(1), TaskKind::Map, 0);
        p.container_finished("c", 5_000);
        p.app_removed(Arrival(1), 50_000);
        let text = store_to_json(p.store()).unwrap();
        assert!(text.contains("\"version\":2"), "{text}");
        let mut again = Profiles::with_store(store_from_json(&text).unwrap());
        again.app_added(&app(9, "grep", &[]));
        assert_eq!(again.estimate(Arrival(9)).avg_map_ms, Some(5_000.0));

        let dir = std::env::temp_dir().join(format!("locus-profile-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("profiles.json");
        assert!(
            Profiles::load(&path).unwrap().is_empty(),
            "a missing file is no profiles"
        );
        let refused = |text: &str| {
            std::fs::write(&path, text).unwrap();
            match Profiles::load(&path) {
                Err(CoreError::Config { key, message }) => {
                    assert_eq!(key, PROFILE_STORE_KEY);
                    assert!(message.contains("profiles.json"), "{message}");
                    message
                }
                other => panic!("{other:?}"),
            }
        };
        assert!(refused("not json").contains("not a Locus profile store"));
        // Format 1: keyed without the user.
        let old = r#"{"profiles":{"5":{"runs":1,"totals":{"maps":2,"map_ms_total":4,"reduces":0,"reduce_ms_total":0,"map_input_bytes":0,"map_output_bytes":0}}}}"#;
        let m = refused(old);
        assert!(
            m.contains("without the submitting user (1 profiles)"),
            "{m}"
        );
        assert!(refused(r#"{"version":3,"profiles":{}}"#).contains("newer Locus"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
