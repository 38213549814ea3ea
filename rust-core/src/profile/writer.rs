//! Writing the profile store (`locus.profile.store`) off the scheduler's thread.
//!
//! The core runs under the shim's lock on the RM's dispatcher thread, where a slow or stuck disk
//! would hold up every heartbeat, and where even copying a large store after every finished job
//! would cost milliseconds. So the writer thread keeps its own copy of the store: the core hands
//! it only the runs that finished (one small record per job) and the thread folds them in,
//! serialises and writes. At most one write is in flight; runs handed over meanwhile are folded
//! into the next write, so a burst of finished jobs costs one or two writes. Only when the core
//! replaces the store (a new path at a refresh) or the disk is stuck long enough for
//! [`MAX_QUEUED_RUNS`] runs to wait does the core send a whole copy. Dropping the writer (the
//! core going away at RM shutdown) writes what is queued before returning, waiting at most
//! [`CLOSE_WAIT`] for a stuck disk.
//!
//! Each write is atomic and private: the JSON goes to a new temporary file in the store's
//! directory, created exclusively (`O_CREAT|O_EXCL`, which also refuses a symlink planted at its
//! name) under an unpredictable name with mode 0600, is fsynced, renamed over the store, and the
//! directory is fsynced so the rename survives a crash. The store is never written in place.

use std::collections::hash_map::RandomState;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::papers::joss::ProfileStore;
use crate::profile::{store_to_json, RecordedRun, MAX_PROFILES, PROFILE_STORE_KEY, USER_SHARE};

/// How long dropping the writer waits for the queued snapshot to reach the disk.
pub const CLOSE_WAIT: Duration = Duration::from_secs(10);

/// Finished runs that may wait for the writer; beyond this the core sends the whole store
/// instead, so a stuck disk cannot make the queue grow without bound.
pub const MAX_QUEUED_RUNS: usize = 10_000;

/// Temporary names tried before a write gives up (each is new and random, so a clash means
/// someone is creating files at our names).
const TEMP_ATTEMPTS: u32 = 16;

/// What the writer did, for `Stats`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WriterStats {
    /// Store files written.
    pub writes: u64,
    /// Writes that failed (each logged); the next finished job retries.
    pub failures: u64,
}

/// What waits for the writer thread.
#[derive(Default)]
struct Slot {
    /// Where the next write goes.
    path: Option<PathBuf>,
    /// A whole store replacing the thread's copy before `runs` are folded in.
    replace: Option<ProfileStore>,
    runs: Vec<RecordedRun>,
    /// Something changed since the thread last took the slot.
    dirty: bool,
    writing: bool,
    closing: bool,
    stats: WriterStats,
}

struct Shared {
    slot: Mutex<Slot>,
    changed: Condvar,
}

impl Shared {
    /// The slot is only ever left consistent (nothing panics while holding it), so a poisoned
    /// lock is taken over rather than propagated.
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub struct ProfileWriter {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl ProfileWriter {
    /// Starts the writer thread with its copy of the store as the file holds it; `Err` (with
    /// the reason) when the OS refuses a thread.
    pub fn start(store: ProfileStore) -> Result<ProfileWriter, String> {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            changed: Condvar::new(),
        });
        let mine = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("locus-profile-writer".into())
            .spawn(move || run(&mine, store))
            .map_err(|e| format!("cannot start the profile store writer thread: {e}"))?;
        Ok(ProfileWriter {
            shared,
            thread: Some(thread),
        })
    }

    /// Queues finished runs to be folded into the store at `path`. Never waits for the disk.
    /// False (nothing queued) when [`MAX_QUEUED_RUNS`] would be exceeded: the caller then sends
    /// the whole store with [`ProfileWriter::replace`].
    pub fn add_runs(&self, path: PathBuf, runs: Vec<RecordedRun>) -> bool {
        let mut slot = self.shared.lock();
        if slot.runs.len() + runs.len() > MAX_QUEUED_RUNS {
            return false;
        }
        slot.runs.extend(runs);
        slot.path = Some(path);
        slot.dirty = true;
        self.shared.changed.notify_all();
        true
    }

    /// Replaces the writer's copy with `store` and writes it to `path`; runs still queued are
    /// dropped (`store` holds them).
    pub fn replace(&self, path: PathBuf, store: ProfileStore) {
        let mut slot = self.shared.lock();
        slot.runs.clear();
        slot.replace = Some(store);
        slot.path = Some(path);
        slot.dirty = true;
        self.shared.changed.notify_all();
    }

    /// Waits up to `limit` until everything submitted so far was written (or failed); true
    /// when it was.
    pub fn flush(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        let mut slot = self.shared.lock();
        while slot.dirty || slot.writing {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            slot = match self.shared.changed.wait_timeout(slot, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        true
    }

    pub fn stats(&self) -> WriterStats {
        self.shared.lock().stats.clone()
    }
}

impl Drop for ProfileWriter {
    /// Writes what is queued, then stops the thread. A disk stuck for longer than
    /// [`CLOSE_WAIT`] is given up on (logged), so the RM's shutdown is not held forever.
    fn drop(&mut self) {
        let done = self.flush(CLOSE_WAIT);
        self.shared.lock().closing = true;
        self.shared.changed.notify_all();
        match self.thread.take() {
            Some(t) if done => {
                let _ = t.join();
            }
            _ => log::warn!(
                "{PROFILE_STORE_KEY}: the last profiles were not written within {} s; the writer is left to finish on its own",
                CLOSE_WAIT.as_secs()
            ),
        }
    }
}

fn run(shared: &Shared, mut mine: ProfileStore) {
    loop {
        let (path, replace, runs) = {
            let mut slot = shared.lock();
            loop {
                if slot.dirty {
                    slot.dirty = false;
                    slot.writing = true;
                    break (
                        slot.path.clone(),
                        slot.replace.take(),
                        std::mem::take(&mut slot.runs),
                    );
                }
                if slot.closing {
                    return;
                }
                slot = shared.changed.wait(slot).unwrap_or_else(|e| e.into_inner());
            }
        };
        // A panic here (folding the runs in or writing) must not leave `writing` set (flush
        // would wait for ever) or kill the thread: it is counted as a failed write.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(store) = replace {
                mine = store;
            }
            // The bounds the core's own store keeps, so both copies evict alike.
            for (sig, key, run) in &runs {
                mine.record_keyed_run(*sig, key, run, MAX_PROFILES, USER_SHARE);
            }
            let Some(path) = path else { return Ok(()) };
            let text =
                store_to_json(&mine).map_err(|e| format!("cannot serialise the profiles: {e}"))?;
            write_atomically(&path, text.as_bytes())
        }))
        .unwrap_or_else(|_| Err("the writer panicked".into()));
        let mut slot = shared.lock();
        slot.writing = false;
        match result {
            Ok(()) => slot.stats.writes += 1,
            Err(e) => {
                slot.stats.failures += 1;
                log::warn!("{PROFILE_STORE_KEY}: {e}; retried after the next finished job");
            }
        }
        shared.changed.notify_all();
    }
}

/// Replaces `path` with `bytes` atomically: exclusive private temporary file in the same
/// directory, fsync, rename, fsync of the directory. Errors name the file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("{} names no file", path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (tmp, mut file) = create_temp(&dir, &name.to_string_lossy())?;
    let written = file.write_all(bytes).and_then(|_| file.sync_all());
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", tmp.display()));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "cannot rename {} to {}: {e}",
            tmp.display(),
            path.display()
        ));
    }
    File::open(&dir).and_then(|d| d.sync_all()).map_err(|e| {
        format!(
            "{} was replaced but its directory could not be synced, so the change may not survive a crash: {e}",
            path.display()
        )
    })
}

/// Creates `path` for writing, private (0600), failing with `AlreadyExists` when anything is
/// there already: a file, or a symlink or FIFO someone planted (O_CREAT|O_EXCL neither follows
/// a link nor opens a FIFO).
fn open_exclusive(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// A new file `.<name>.<random>.tmp` in `dir`, created exclusively with mode 0600.
fn create_temp(dir: &Path, name: &str) -> Result<(PathBuf, File), String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..TEMP_ATTEMPTS {
        // RandomState is seeded from the OS per process: the name cannot be guessed ahead.
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u32(std::process::id());
        let tmp = dir.join(format!(".{name}.{:016x}.tmp", h.finish()));
        match open_exclusive(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(tmp),
            Err(e) => return Err(format!("cannot create {}: {e}", tmp.display())),
        }
    }
    Err(format!(
        "cannot create a temporary file in {}: {TEMP_ATTEMPTS} new names were all taken (last {})",
        dir.display(),
        last.map_or_else(String::new, |p| p.display().to_string())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::joss::{JobObservation, JobSignature, ProfileKey};
    use crate::profile::store_from_json;

    #[cfg(unix)]
    #[test]
    fn a_temporary_file_is_never_opened_through_a_planted_symlink_or_fifo() {
        let d = dir("planted");
        let victim = d.join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let link = d.join("link.tmp");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let err = open_exclusive(&link).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // A FIFO there must not block the writer (opening one for writing waits for a reader).
        let fifo = d.join("fifo.tmp");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let err = open_exclusive(&fifo).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        std::fs::remove_dir_all(&d).ok();
    }

    fn run(maps: u64) -> JobObservation {
        let mut r = JobObservation::default();
        for _ in 0..maps {
            r.map_finished(1_000, 0, 0);
        }
        r
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("locus-writer-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&d).ok();
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// One run of job `n` of user `u`, filed under signature `n`.
    fn keyed(n: u64) -> RecordedRun {
        (
            JobSignature(n),
            ProfileKey::new("u", &format!("job{n}")),
            run(1),
        )
    }

    fn written(path: &Path) -> ProfileStore {
        store_from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn every_run_handed_over_reaches_the_file_and_no_temporary_file_stays() {
        let d = dir("runs");
        let path = d.join("p.json");
        let mut start = ProfileStore::new();
        start.record_run(JobSignature(7), &run(1));
        let w = ProfileWriter::start(start).unwrap();
        for i in 0..200 {
            assert!(w.add_runs(path.clone(), vec![keyed(i % 100)]));
        }
        assert!(w.flush(Duration::from_secs(20)));
        let store = written(&path);
        assert_eq!(
            store.len(),
            100,
            "signature 7 was in the writer's copy from the start"
        );
        assert_eq!(store.get(JobSignature(7)).unwrap().runs, 3);
        assert_eq!(store.get(JobSignature(8)).unwrap().runs, 2);
        let s = w.stats();
        assert!(s.writes >= 1 && s.writes <= 200 && s.failures == 0, "{s:?}");
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("p.json")]);

        // A replacement drops what is queued (the new store holds it) and goes to its path.
        let other = d.join("q.json");
        let mut whole = ProfileStore::new();
        whole.record_run(JobSignature(1), &run(4));
        w.replace(other.clone(), whole.clone());
        assert!(w.add_runs(other.clone(), vec![keyed(2)]));
        assert!(w.flush(Duration::from_secs(20)));
        assert_eq!(written(&other).len(), 2);
        assert_eq!(written(&path).len(), 100, "the old file is left as it was");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn the_queue_of_runs_is_bounded() {
        let w = ProfileWriter::start(ProfileStore::new()).unwrap();
        let d = dir("bounded");
        let many = vec![keyed(1); MAX_QUEUED_RUNS + 1];
        assert!(
            !w.add_runs(d.join("p.json"), many),
            "refused: the core sends the store instead"
        );
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_failed_write_is_counted_and_names_the_file() {
        let d = dir("fail");
        let path = d.join("missing-dir").join("p.json");
        let err = write_atomically(&path, b"{}").unwrap_err();
        assert!(err.contains("missing-dir"), "{err}");
        let w = ProfileWriter::start(ProfileStore::new()).unwrap();
        assert!(w.add_runs(path, vec![keyed(1)]));
        assert!(w.flush(Duration::from_secs(20)));
        assert_eq!(w.stats().failures, 1);
        std::fs::remove_dir_all(&d).ok();
    }
}
