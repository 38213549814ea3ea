//! Writing the profile store (`locus.profile.store`) off the scheduler's thread.
//!
//! The core runs under the shim's lock on the RM's dispatcher thread, where a slow or stuck disk
//! would hold up every heartbeat. So the core only hands a snapshot of the store to a writer
//! thread it owns: at most one write is in flight, and a snapshot handed over while one is
//! queued replaces it (only the latest state matters), so a burst of finished jobs costs one or
//! two writes. Dropping the writer (the core going away at RM shutdown) writes what is queued
//! before returning, waiting at most [`CLOSE_WAIT`] for a stuck disk.
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
use crate::profile::{store_to_json, PROFILE_STORE_KEY};

/// How long dropping the writer waits for the queued snapshot to reach the disk.
pub const CLOSE_WAIT: Duration = Duration::from_secs(10);

/// Temporary names tried before a write gives up (each is new and random, so a clash means
/// someone is creating files at our names).
const TEMP_ATTEMPTS: u32 = 16;

/// What the writer did, for `Stats`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WriterStats {
    /// Snapshots written to the store file.
    pub writes: u64,
    /// Snapshots that could not be written (each logged); the next finished job retries.
    pub failures: u64,
    /// Snapshots replaced by a newer one before they were written.
    pub coalesced: u64,
}

struct Snapshot {
    path: PathBuf,
    store: ProfileStore,
}

#[derive(Default)]
struct Slot {
    queued: Option<Snapshot>,
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
    /// Starts the writer thread; `Err` (with the reason) when the OS refuses a thread.
    pub fn start() -> Result<ProfileWriter, String> {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            changed: Condvar::new(),
        });
        let mine = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("locus-profile-writer".into())
            .spawn(move || run(&mine))
            .map_err(|e| format!("cannot start the profile store writer thread: {e}"))?;
        Ok(ProfileWriter {
            shared,
            thread: Some(thread),
        })
    }

    /// Queues `store` to be written to `path`, replacing a snapshot not yet taken. Never waits
    /// for the disk.
    pub fn submit(&self, path: PathBuf, store: ProfileStore) {
        let mut slot = self.shared.lock();
        if slot.queued.replace(Snapshot { path, store }).is_some() {
            slot.stats.coalesced += 1;
        }
        self.shared.changed.notify_all();
    }

    /// Waits up to `limit` until everything submitted so far was written (or failed); true
    /// when it was.
    pub fn flush(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        let mut slot = self.shared.lock();
        while slot.queued.is_some() || slot.writing {
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

fn run(shared: &Shared) {
    loop {
        let snap = {
            let mut slot = shared.lock();
            loop {
                if let Some(s) = slot.queued.take() {
                    slot.writing = true;
                    break s;
                }
                if slot.closing {
                    return;
                }
                slot = shared.changed.wait(slot).unwrap_or_else(|e| e.into_inner());
            }
        };
        // A panic here must not leave `writing` set (flush would wait for ever) or kill the
        // thread: it is counted as a failed write.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let text = store_to_json(&snap.store)
                .map_err(|e| format!("cannot serialise the profiles: {e}"))?;
            write_atomically(&snap.path, text.as_bytes())
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
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&tmp) {
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
    use crate::papers::joss::{JobObservation, JobSignature};
    use crate::profile::store_from_json;

    fn store(runs: u64) -> ProfileStore {
        let mut s = ProfileStore::new();
        for i in 0..runs {
            s.record_run(JobSignature(i), &JobObservation::default());
        }
        s
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("locus-writer-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&d).ok();
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_latest_snapshot_wins_and_nothing_is_left_behind() {
        let d = dir("latest");
        let path = d.join("p.json");
        let w = ProfileWriter::start().unwrap();
        for n in 1..=200 {
            w.submit(path.clone(), store(n));
        }
        assert!(w.flush(Duration::from_secs(20)));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(store_from_json(&text).unwrap().len(), 200);
        let s = w.stats();
        assert_eq!(s.writes + s.coalesced, 200, "{s:?}");
        assert_eq!(s.failures, 0);
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("p.json")],
            "no temporary file stays"
        );
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_failed_write_is_counted_and_names_the_file() {
        let d = dir("fail");
        let path = d.join("missing-dir").join("p.json");
        let err = write_atomically(&path, b"{}").unwrap_err();
        assert!(err.contains("missing-dir"), "{err}");
        let w = ProfileWriter::start().unwrap();
        w.submit(path, store(1));
        assert!(w.flush(Duration::from_secs(20)));
        assert_eq!(w.stats().failures, 1);
        std::fs::remove_dir_all(&d).ok();
    }
}
