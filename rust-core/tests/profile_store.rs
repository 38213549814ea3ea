//! `locus.profile.store` as an operator sees it: written after finished jobs without holding up
//! the scheduler, atomically and privately, never through a file someone planted; a refresh keeps
//! the running profiles and a new path gets them (plus what the new file already held).

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{core_with, props};
use locus_core::{Core, Event};

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("locus-store-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn store_core(path: &Path) -> Core {
    let mut c = core_with(&[("locus.profile.store", path.to_str().unwrap())]);
    common::add_node(&mut c, "h1", "/r1", 8, 8);
    c
}

/// One MapReduce job of `user` named `name` runs one map and finishes.
fn run_job(c: &mut Core, app: &str, user: &str, name: &str, next_id: &mut u32) {
    common::add_app_in(c, app, "default", user, name, 0, "MAPREDUCE", &[]);
    common::set_small_asks(c, app, &[(20, "*", 1)]);
    let ds = common::heartbeat_free(c, "h1", 8, 8, 1_000);
    let ids = common::execute(c, &ds, next_id);
    assert_eq!(ids.len(), 1, "{ds:?}");
    common::release(c, app, &ids[0], "h1", 1, 1);
    common::heartbeat_free(c, "h1", 8, 8, 5_000);
    c.handle(Event::AppRemoved { app: app.into() }).unwrap();
}

/// Profiles in the store file at `path`, as a restarted RM would load them.
fn profiles_in(path: &Path) -> Option<u64> {
    let c = Core::new(&props(&[("locus.profile.store", path.to_str().unwrap())])).ok()?;
    Some(c.stats().profiles)
}

/// Waits (up to 20 s) for the store's background writer; returns the last value seen.
fn eventually(what: impl Fn() -> Option<u64>, want: u64) -> Option<u64> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let got = what();
        if got == Some(want) || Instant::now() > until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_changed_store_path_keeps_the_running_profiles_and_adds_the_new_files() {
    let dir = tmp_dir("moved");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let mut next = 0;
    // Another RM's store at b already knows alice's grep.
    {
        let mut other = store_core(&b);
        run_job(&mut other, "app_9", "alice", "grep", &mut next);
    }
    assert_eq!(eventually(|| profiles_in(&b), 1), Some(1));

    let mut c = store_core(&a);
    run_job(&mut c, "app_1", "alice", "wordcount", &mut next);
    c.reconfigure(&props(&[("locus.profile.store", b.to_str().unwrap())]))
        .unwrap();
    assert_eq!(
        c.stats().profiles,
        2,
        "the running store keeps wordcount and takes grep from the new file"
    );
    run_job(&mut c, "app_2", "alice", "sort", &mut next);
    assert_eq!(
        eventually(|| profiles_in(&b), 3),
        Some(3),
        "b holds wordcount, sort and the grep it had"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn the_store_is_private_and_never_written_through_a_planted_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp_dir("symlink");
    let store = dir.join("profiles.json");
    let victim = dir.join("victim.txt");
    let mut c = store_core(&store);
    // A dangling link planted at the store's own path once the core runs: writing the store in
    // place would follow it and create the victim. The temporary file's name is random and
    // opened exclusively (profile_writer's own test).
    std::os::unix::fs::symlink(&victim, &store).unwrap();
    run_job(&mut c, "app_1", "alice", "wordcount", &mut 0);
    assert_eq!(eventually(|| profiles_in(&store), 1), Some(1));
    assert!(!victim.exists(), "the store was written through the link");
    let meta = std::fs::symlink_metadata(&store).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the store is a regular file, not a link"
    );
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "only the RM's user reads it"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn a_fifo_planted_at_a_temporary_path_cannot_stall_the_scheduler() {
    let dir = tmp_dir("fifo");
    let store = dir.join("profiles.json");
    let fifo = dir.join("profiles.json.tmp");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (tx, rx) = std::sync::mpsc::channel();
    let s = store.clone();
    std::thread::spawn(move || {
        let mut c = store_core(&s);
        run_job(&mut c, "app_1", "alice", "wordcount", &mut 0);
        tx.send(()).ok();
        // Keep the core (and its writer) until the test is done with the file.
        std::thread::sleep(Duration::from_secs(1));
    });
    assert!(
        rx.recv_timeout(Duration::from_secs(20)).is_ok(),
        "finishing an application blocked on the profile store"
    );
    assert_eq!(eventually(|| profiles_in(&store), 1), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dropping_the_core_writes_the_last_finished_runs() {
    let dir = tmp_dir("drop");
    let store = dir.join("profiles.json");
    let mut c = store_core(&store);
    let mut next = 0;
    for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
        run_job(&mut c, &format!("app_{i}"), "alice", name, &mut next);
    }
    drop(c);
    assert_eq!(profiles_in(&store), Some(4), "nothing is lost at shutdown");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_refresh_with_the_same_path_keeps_the_running_profiles_and_reads_nothing() {
    let dir = tmp_dir("same");
    let store = dir.join("profiles.json");
    let mut c = store_core(&store);
    let mut next = 0;
    run_job(&mut c, "app_1", "alice", "wordcount", &mut next);
    assert!(c.flush_profiles(Duration::from_secs(20)));
    assert_eq!(c.stats().profile_store_writes, 1);
    // Whatever happened to the file since, the core's own profiles are the truth.
    std::fs::write(&store, "clobbered").unwrap();
    let settings = [
        ("locus.profile.store", store.to_str().unwrap()),
        ("locus.policy", "fair"),
    ];
    c.reconfigure(&props(&settings)).unwrap();
    assert_eq!(c.stats().profiles, 1);
    run_job(&mut c, "app_2", "alice", "sort", &mut next);
    assert!(c.flush_profiles(Duration::from_secs(20)));
    assert_eq!(profiles_in(&store), Some(2));
    assert_eq!(c.stats().profile_store_write_failures, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn a_store_that_is_a_link_a_fifo_or_too_large_is_refused_at_start_naming_it() {
    use locus_core::profile::{Profiles, MAX_STORE_BYTES};
    let dir = tmp_dir("refused");
    let real = dir.join("real.json");
    std::fs::write(&real, r#"{"version":2,"profiles":{}}"#).unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let fifo = dir.join("fifo.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let big = dir.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(MAX_STORE_BYTES + 1)
        .unwrap();
    for (path, why) in [
        (&link, "symbolic link"),
        (&fifo, "not a regular file (a FIFO)"),
        (&big, "more than the"),
    ] {
        let err = Profiles::load(path).unwrap_err().to_string();
        assert!(
            err.contains("locus.profile.store")
                && err.contains(&format!("the profile store {}", path.display()))
                && err.contains(why),
            "{err}"
        );
    }
    assert!(Profiles::load(&real).unwrap().is_empty());
    std::fs::remove_dir_all(&dir).ok();
}
