//! JoSS Section 4.3: the set H of job signatures JoSS has already run, each with what was learned
//! about the job — above all its average filtering percentage FP_J, which decides RH versus MH.
//! The store is serde data so the adapter can persist it across ResourceManager restarts.
//!
//! A signature is a 64-bit hash of strings the submitter chooses, so two jobs can be made to
//! share one. A profile recorded through [`ProfileStore::record_keyed_run`] therefore keeps the
//! whole key it was filed under ([`ProfileKey`]: the user and the job's name, type and input
//! type): a run whose key differs is not folded into it, and [`ProfileStore::get_keyed`] does not
//! show it to such a job. The same method bounds each user's share of the store (see there).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::hints::INPUT_TYPE_TAG;

/// "A hash value for J's executable code and J's input-data type" (Fig. 4 line 1). YARN does not
/// show the RM a job's code, so the application name and type stand in for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobSignature(pub u64);

impl JobSignature {
    /// FNV-1a 64 over the three fields with a separator byte: std's hasher is not guaranteed to
    /// give the same value across Rust releases, and a persisted store must survive upgrades.
    pub fn new(app_name: &str, app_type: &str, input_type: &str) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for (i, part) in [app_name, app_type, input_type].iter().enumerate() {
            if i > 0 {
                h = fnv_step(h, 0x1f);
            }
            for b in part.bytes() {
                h = fnv_step(h, b);
            }
        }
        JobSignature(h)
    }

    /// Signature of a YARN application: its name, its type and the `locus.input-type=` tag
    /// (empty when the submitter gave none).
    pub fn from_app(app_name: &str, app_type: &str, tags: &[String]) -> Self {
        let input = tags
            .iter()
            .find_map(|t| t.strip_prefix(INPUT_TYPE_TAG))
            .unwrap_or("");
        JobSignature::new(app_name, app_type, input)
    }
}

/// Saturating: the totals grow with every run of a signature for as long as the store lives,
/// and the sizes in them come from jobs' own counters.
fn add_run(p: &mut JobProfile, run: &JobObservation) {
    p.runs = p.runs.saturating_add(1);
    let t = &mut p.totals;
    t.maps = t.maps.saturating_add(run.maps);
    t.map_ms_total = t.map_ms_total.saturating_add(run.map_ms_total);
    t.reduces = t.reduces.saturating_add(run.reduces);
    t.reduce_ms_total = t.reduce_ms_total.saturating_add(run.reduce_ms_total);
    t.map_input_bytes = t.map_input_bytes.saturating_add(run.map_input_bytes);
    t.map_output_bytes = t.map_output_bytes.saturating_add(run.map_output_bytes);
    t.fp_hint_total += run.fp_hint_total;
    t.fp_hints = t.fp_hints.saturating_add(run.fp_hints);
}

fn fnv_step(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
}

/// What one finished run of a job showed; the adapter fills it from container start/finish times
/// and the map tasks' input and output byte counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobObservation {
    pub maps: u64,
    pub map_ms_total: u64,
    pub reduces: u64,
    pub reduce_ms_total: u64,
    pub map_input_bytes: u64,
    pub map_output_bytes: u64,
    /// Sum of the `locus.fp=` hints of the runs that gave one: YARN does not show the RM the
    /// map tasks' byte counters, so on a real cluster FP comes from the submitter.
    #[serde(default)]
    pub fp_hint_total: f64,
    #[serde(default)]
    pub fp_hints: u64,
}

impl JobObservation {
    /// The run's submitter stated its filtering percentage.
    pub fn fp_hinted(&mut self, fp: f64) {
        self.fp_hint_total += fp;
        self.fp_hints += 1;
    }

    pub fn map_finished(&mut self, run_ms: u64, input_bytes: u64, output_bytes: u64) {
        self.maps += 1;
        self.map_ms_total += run_ms;
        self.map_input_bytes += input_bytes;
        self.map_output_bytes += output_bytes;
    }

    pub fn reduce_finished(&mut self, run_ms: u64) {
        self.reduces += 1;
        self.reduce_ms_total += run_ms;
    }
}

/// Everything learned so far about one signature, summed over all its finished runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobProfile {
    pub runs: u64,
    pub totals: JobObservation,
    /// Whose job this is, in full (`None` in a store written before keys were kept: the first
    /// keyed run of the signature claims it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<ProfileKey>,
    /// The store's count of recorded runs when this profile last recorded one: the least
    /// recently recorded profile is the one evicted.
    #[serde(default)]
    pub last_run: u64,
}

/// The whole key of a profile: the submitting user and the job (name, type and input type, as
/// the adapter joins them). Each part is cut where its JSON text would pass
/// [`ProfileKey::MAX_PART_BYTES`], so a profile costs a bounded amount of memory and file
/// whatever the submitter names its job (two names alike up to the cut keep their own
/// signatures, so they still get profiles of their own).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProfileKey {
    pub user: String,
    pub job: String,
}

impl ProfileKey {
    pub const MAX_PART_BYTES: usize = 128;

    pub fn new(user: &str, job: &str) -> Self {
        ProfileKey {
            user: cut(user, Self::MAX_PART_BYTES).to_string(),
            job: cut(job, Self::MAX_PART_BYTES).to_string(),
        }
    }
}

/// The longest prefix of `s` whose JSON string text (escapes counted at their longest, six
/// bytes for a control character) takes at most `max` bytes.
fn cut(s: &str, max: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        used += match c {
            '"' | '\\' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if used > max {
            return &s[..i];
        }
    }
    s
}

/// What [`ProfileStore::record_keyed_run`] did with a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// Folded into the profile (a new one, or the one of the same key).
    Learned,
    /// Folded in after this profile was evicted to make room.
    Replaced(JobSignature, Option<ProfileKey>),
    /// Not learned: the signature holds another key's profile.
    Collision,
}

impl JobProfile {
    pub fn avg_map_ms(&self) -> Option<f64> {
        (self.totals.maps > 0).then(|| self.totals.map_ms_total as f64 / self.totals.maps as f64)
    }

    pub fn avg_reduce_ms(&self) -> Option<f64> {
        (self.totals.reduces > 0)
            .then(|| self.totals.reduce_ms_total as f64 / self.totals.reduces as f64)
    }

    /// FP_J, Eq. (2): S_reduce / S_map = map-output bytes over map-input bytes. Summing bytes
    /// before dividing weights every block by its size, as Eq. (1) does.
    /// Without byte counters, the mean of the runs' `locus.fp=` hints.
    pub fn filtering_percentage(&self) -> Option<f64> {
        if self.totals.map_input_bytes > 0 {
            return Some(self.totals.map_output_bytes as f64 / self.totals.map_input_bytes as f64);
        }
        (self.totals.fp_hints > 0).then(|| self.totals.fp_hint_total / self.totals.fp_hints as f64)
    }

    /// Maps per run: the learned j.demand (TD) when the submitter gave none.
    pub fn avg_maps_per_run(&self) -> Option<f64> {
        (self.runs > 0 && self.totals.maps > 0).then(|| self.totals.maps as f64 / self.runs as f64)
    }
}

/// H of Fig. 4, with the profile behind each hash. Serialised as `{"profiles":{...}}`; the
/// indexes are rebuilt when it is read.
#[derive(Debug, Clone, Default)]
pub struct ProfileStore {
    profiles: BTreeMap<JobSignature, JobProfile>,
    /// (`last_run`, signature) of every profile, least recently recorded first.
    by_age: BTreeSet<(u64, JobSignature)>,
    /// The same, per user of a keyed profile.
    by_user: HashMap<String, BTreeSet<(u64, JobSignature)>>,
    /// Runs recorded so far (the newest `last_run`).
    clock: u64,
}

impl PartialEq for ProfileStore {
    fn eq(&self, other: &Self) -> bool {
        self.profiles == other.profiles
    }
}

impl Serialize for ProfileStore {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("ProfileStore", 1)?;
        st.serialize_field("profiles", &self.profiles)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for ProfileStore {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            profiles: BTreeMap<JobSignature, JobProfile>,
        }
        let stored = Stored::deserialize(d)?;
        let mut store = ProfileStore::new();
        for (sig, p) in stored.profiles {
            store.insert(sig, p);
        }
        Ok(store)
    }
}

impl ProfileStore {
    pub fn new() -> Self {
        ProfileStore::default()
    }

    /// Files `p` under `sig` with the indexes (no profile there yet).
    fn insert(&mut self, sig: JobSignature, p: JobProfile) {
        self.clock = self.clock.max(p.last_run);
        self.by_age.insert((p.last_run, sig));
        if let Some(k) = &p.key {
            self.by_user
                .entry(k.user.clone())
                .or_default()
                .insert((p.last_run, sig));
        }
        self.profiles.insert(sig, p);
    }

    fn remove(&mut self, sig: JobSignature) -> Option<JobProfile> {
        let p = self.profiles.remove(&sig)?;
        self.by_age.remove(&(p.last_run, sig));
        if let Some(k) = &p.key {
            if let Some(set) = self.by_user.get_mut(&k.user) {
                set.remove(&(p.last_run, sig));
                if set.is_empty() {
                    self.by_user.remove(&k.user);
                }
            }
        }
        Some(p)
    }

    /// Profiles of `user`'s keyed runs.
    pub fn user_len(&self, user: &str) -> usize {
        self.by_user.get(user).map_or(0, BTreeSet::len)
    }

    /// The profile of `sig` if it is `key`'s, or one written before keys were kept.
    pub fn get_keyed(&self, sig: JobSignature, key: &ProfileKey) -> Option<&JobProfile> {
        self.profiles
            .get(&sig)
            .filter(|p| p.key.as_ref().is_none_or(|k| k == key))
    }

    /// Folds `run` into the profile of `key` filed under `sig`, within bounds: the store holds at
    /// most `limit` profiles and one user at most `user_share` of them. A new profile of a user
    /// at their share replaces that user's least recently recorded one; otherwise, in a full
    /// store, the least recently recorded profile of anyone goes. So no user can keep another's
    /// new jobs from being learned, and one user's flood of names only churns their own share.
    /// A signature holding another key's profile (two keys that hash alike) learns nothing.
    pub fn record_keyed_run(
        &mut self,
        sig: JobSignature,
        key: &ProfileKey,
        run: &JobObservation,
        limit: usize,
        user_share: usize,
    ) -> Recorded {
        let mut outcome = Recorded::Learned;
        let mut profile = match self.remove(sig) {
            Some(p) if p.key.as_ref().is_some_and(|k| k != key) => {
                self.insert(sig, p);
                return Recorded::Collision;
            }
            Some(p) if p.key.is_some() => p,
            found => {
                // New, or claimed from a store written before keys were kept: it joins the
                // user's share.
                let victim = if self.user_len(&key.user) >= user_share.max(1) {
                    self.by_user
                        .get(&key.user)
                        .and_then(|set| set.first())
                        .map(|&(_, s)| s)
                } else if found.is_none() && self.profiles.len() >= limit.max(1) {
                    self.by_age.first().map(|&(_, s)| s)
                } else {
                    None
                };
                if let Some(v) = victim {
                    let gone = self.remove(v).and_then(|p| p.key);
                    outcome = Recorded::Replaced(v, gone);
                }
                let mut p = found.unwrap_or_default();
                p.key = Some(key.clone());
                p
            }
        };
        add_run(&mut profile, run);
        self.clock += 1;
        profile.last_run = self.clock;
        self.insert(sig, profile);
        outcome
    }

    /// A signature counts as known (line 4's "hash value is in H") only once a run finished with
    /// a measurable FP; before that JoSS cannot classify the job.
    pub fn known(&self, sig: JobSignature) -> Option<&JobProfile> {
        self.profiles
            .get(&sig)
            .filter(|p| p.filtering_percentage().is_some())
    }

    /// Whatever was learned about `sig`, FP or not (task times are useful without it).
    pub fn get(&self, sig: JobSignature) -> Option<&JobProfile> {
        self.profiles.get(&sig)
    }

    /// "Once J is completed, JoSS records the corresponding hash value and average
    /// filtering-percentage value."
    pub fn record_run(&mut self, sig: JobSignature, run: &JobObservation) {
        let mut p = self.remove(sig).unwrap_or_default();
        add_run(&mut p, run);
        self.clock += 1;
        p.last_run = self.clock;
        self.insert(sig, p);
    }

    /// Adds the signatures of `other` this store does not have (its own profiles win) while it
    /// holds fewer than `limit`, and each user fewer than `user_share`; returns how many were
    /// added. They count as recorded before any of this store's own.
    pub fn absorb_missing(
        &mut self,
        other: ProfileStore,
        limit: usize,
        user_share: usize,
    ) -> usize {
        let before = self.profiles.len();
        for (sig, mut p) in other.profiles {
            if self.profiles.len() >= limit {
                break;
            }
            let over_share = p
                .key
                .as_ref()
                .is_some_and(|k| self.user_len(&k.user) >= user_share);
            if self.profiles.contains_key(&sig) || over_share {
                continue;
            }
            p.last_run = 0;
            self.insert(sig, p);
        }
        self.profiles.len() - before
    }

    pub fn len(&self) -> usize {
        self.profiles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.profiles.is_empty()
    }

    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_depends_on_name_type_and_input_type() {
        let wc_web = JobSignature::new("word count", "MAPREDUCE", "web");
        assert_eq!(wc_web, JobSignature::new("word count", "MAPREDUCE", "web"));
        assert_ne!(wc_web, JobSignature::new("word count", "MAPREDUCE", "text"));
        assert_ne!(wc_web, JobSignature::new("word count", "SPARK", "web"));
        assert_ne!(wc_web, JobSignature::new("grep", "MAPREDUCE", "web"));
        // the separator keeps field boundaries: ("ab","c") is not ("a","bc")
        assert_ne!(
            JobSignature::new("ab", "c", ""),
            JobSignature::new("a", "bc", "")
        );
        let tags = vec![
            "locus.deadline=600".to_string(),
            "locus.input-type=web".to_string(),
        ];
        assert_eq!(
            JobSignature::from_app("word count", "MAPREDUCE", &tags),
            wc_web
        );
    }

    #[test]
    fn profile_is_unknown_until_a_run_is_recorded_then_averages_over_runs() {
        let sig = JobSignature::new("permu", "MAPREDUCE", "text");
        let mut store = ProfileStore::new();
        assert!(store.known(sig).is_none());

        let mut run = JobObservation::default();
        run.map_finished(10_000, 128, 384);
        run.map_finished(20_000, 128, 384);
        run.reduce_finished(60_000);
        store.record_run(sig, &run);
        let p = store.known(sig).unwrap();
        assert_eq!(p.filtering_percentage(), Some(3.0));
        assert_eq!(p.avg_map_ms(), Some(15_000.0));
        assert_eq!(p.avg_reduce_ms(), Some(60_000.0));

        let mut run2 = JobObservation::default();
        run2.map_finished(30_000, 256, 256);
        store.record_run(sig, &run2);
        let p = store.known(sig).unwrap();
        assert_eq!(p.runs, 2);
        assert_eq!(p.avg_map_ms(), Some(20_000.0));
        assert_eq!(p.filtering_percentage(), Some(1024.0 / 512.0));
    }

    #[test]
    fn fp_hints_stand_in_for_byte_counters() {
        let sig = JobSignature::new("grep", "MAPREDUCE", "web");
        let mut store = ProfileStore::new();
        let mut run = JobObservation::default();
        run.map_finished(1_000, 0, 0);
        run.fp_hinted(0.2);
        store.record_run(sig, &run);
        let mut run = JobObservation::default();
        run.fp_hinted(0.4);
        store.record_run(sig, &run);
        let p = store.known(sig).unwrap();
        assert!((p.filtering_percentage().unwrap() - 0.3).abs() < 1e-12);
        assert_eq!(p.avg_maps_per_run(), Some(0.5));
        // An older store without the hint fields still loads.
        let old = r#"{"profiles":{"5":{"runs":1,"totals":{"maps":2,"map_ms_total":4,"reduces":0,"reduce_ms_total":0,"map_input_bytes":0,"map_output_bytes":0}}}}"#;
        assert_eq!(ProfileStore::from_json(old).unwrap().len(), 1);
    }

    #[test]
    fn store_survives_a_json_round_trip() {
        let mut store = ProfileStore::new();
        let mut run = JobObservation::default();
        run.map_finished(5, 100, 10);
        store.record_run(JobSignature::new("grep", "MAPREDUCE", "web"), &run);
        store.record_run(JobSignature(u64::MAX), &run);
        let text = store.to_json().unwrap();
        let back = ProfileStore::from_json(&text).unwrap();
        assert_eq!(back, store);
        assert_eq!(back.len(), 2);
    }

    #[test]
    fn keys_and_ages_survive_a_round_trip_and_an_unkeyed_profile_is_claimed() {
        let run = {
            let mut r = JobObservation::default();
            r.map_finished(5, 0, 0);
            r
        };
        let (alice_a, alice_b) = (ProfileKey::new("alice", "a"), ProfileKey::new("alice", "b"));
        let mut store = ProfileStore::new();
        // Written before keys were kept.
        store.record_run(JobSignature(1), &run);
        assert_eq!(
            store.record_keyed_run(JobSignature(2), &alice_a, &run, 10, 2),
            Recorded::Learned
        );
        assert_eq!(
            store.record_keyed_run(JobSignature(1), &alice_b, &run, 10, 2),
            Recorded::Learned,
            "the unkeyed profile is claimed"
        );
        let mut back = ProfileStore::from_json(&store.to_json().unwrap()).unwrap();
        assert_eq!(back, store);
        assert_eq!(back.user_len("alice"), 2);
        assert_eq!(back.get(JobSignature(1)).unwrap().runs, 2);
        // alice is at her share of 2: her least recently learned profile (a) makes room.
        assert_eq!(
            back.record_keyed_run(JobSignature(3), &ProfileKey::new("alice", "c"), &run, 10, 2),
            Recorded::Replaced(JobSignature(2), Some(alice_a.clone()))
        );
        assert_eq!(
            back.record_keyed_run(JobSignature(1), &alice_a, &run, 10, 2),
            Recorded::Collision
        );
        assert!(back.get_keyed(JobSignature(1), &alice_a).is_none());
        assert!(back.get_keyed(JobSignature(1), &alice_b).is_some());
    }

    #[test]
    fn a_key_is_cut_where_its_json_would_pass_the_bound() {
        let long = "é".repeat(200);
        let k = ProfileKey::new(&long, &long);
        assert_eq!(k.user.len(), ProfileKey::MAX_PART_BYTES);
        assert_eq!(k.job, k.user);
        let controls = ProfileKey::new("u", &"\u{1}".repeat(100));
        let json = serde_json::to_string(&controls.job).unwrap();
        assert!(json.len() - 2 <= ProfileKey::MAX_PART_BYTES, "{json}");
        assert_eq!(controls.job.len(), ProfileKey::MAX_PART_BYTES / 6);
    }
}
