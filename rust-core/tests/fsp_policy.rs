//! `locus.policy=fsp`: jobs served in the order they would finish under fair sharing.

mod common;

use common::*;
use locus_core::{Core, Decision};

/// One 8 GB node; apps are generic (not MapReduce) so no AM bookkeeping is involved.
fn cluster() -> Core {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", "hadoop")]);
    add_node(&mut c, "h1", "/r1", 8, 8);
    c
}

fn add_job(c: &mut Core, app: &str, submit_ms: u64, containers: u32) {
    add_app_named(c, app, app, submit_ms, "YARN", &[]);
    set_small_asks(c, app, &[(1, "*", containers)]);
}

/// Offers the node with `free_gb` free, executes what the core decides, returns the apps served.
fn offer(c: &mut Core, free_gb: u64, now_ms: u64, next_id: &mut u32) -> Vec<String> {
    let d: Vec<Decision> = heartbeat_free(c, "h1", free_gb, free_gb as u32, now_ms);
    execute(c, &d, next_id);
    d.iter()
        .flat_map(|d| std::iter::repeat_n(d.app.clone(), d.count as usize))
        .collect()
}

#[test]
fn a_batch_of_equal_jobs_is_served_one_after_another_not_shared() {
    let mut c = cluster();
    for (i, app) in ["a", "b", "c"].iter().enumerate() {
        add_job(&mut c, app, i as u64, 8);
    }
    let mut id = 0;
    // Under fair sharing each 1 GB container would go to a different job in turn; fsp gives the
    // whole node to the job that finishes first virtually (all equal: the first submitted).
    assert_eq!(offer(&mut c, 8, 1_000, &mut id), vec!["a"; 8]);
    // a got its 8 containers; b is next, still whole.
    assert_eq!(offer(&mut c, 4, 2_000, &mut id), vec!["b"; 4]);
}

#[test]
fn a_small_job_overtakes_a_big_one_submitted_earlier() {
    let mut c = cluster();
    add_job(&mut c, "big", 0, 1000);
    let mut id = 0;
    assert_eq!(offer(&mut c, 2, 1_000, &mut id), vec!["big"; 2]);
    add_job(&mut c, "small", 5, 3);
    assert_eq!(
        offer(&mut c, 4, 2_000, &mut id),
        vec!["small", "small", "small", "big"]
    );
}

#[test]
fn a_big_job_gets_its_turn_while_smaller_jobs_keep_arriving() {
    let mut c = cluster();
    add_job(&mut c, "big", 0, 40);
    let mut id = 0;
    let mut big = Vec::new();
    // Each round a 2-container job arrives and 3 containers' room frees up (the cluster keeps
    // up). Each small job would beat the big one on size alone; the virtual clock moves the big
    // job's turn forward until it finishes first virtually.
    for round in 0..200u64 {
        add_job(&mut c, &format!("s{round}"), 10 + round, 2);
        let got = offer(&mut c, 3, 1_000 * (round + 1), &mut id);
        big.push(got.iter().filter(|a| *a == "big").count());
    }
    let total: usize = big.iter().sum();
    assert_eq!(
        total, 40,
        "the big job got {total} of its 40 containers in 200 rounds"
    );
    // It held one container from the first round (it was the only job) and then yielded to
    // the smaller arrivals before its virtual finish came up.
    assert!(big[1..10].iter().all(|&n| n < 3), "{big:?}");
    assert!(
        big[1..10].contains(&0),
        "the small arrivals never overtook it: {big:?}"
    );
}

#[test]
fn a_job_holding_nothing_goes_before_jobs_that_hold_containers() {
    let mut c = cluster();
    add_job(&mut c, "small", 0, 2);
    let mut id = 0;
    assert_eq!(offer(&mut c, 1, 1_000, &mut id), vec!["small"]);
    // A much bigger job arrives: on size it finishes last, but it has nothing running yet.
    add_job(&mut c, "big", 5, 100);
    assert_eq!(offer(&mut c, 1, 2_000, &mut id), vec!["big"]);
    assert_eq!(offer(&mut c, 1, 3_000, &mut id), vec!["small"]);
}

#[test]
fn jobs_holding_nothing_are_served_in_submission_order_whatever_their_size() {
    let mut c = cluster();
    add_job(&mut c, "big-first", 0, 50);
    add_job(&mut c, "small-second", 5, 1);
    let mut id = 0;
    // Neither holds a container: submission order, not size, decides (a retried AM of a big job
    // must not wait behind every newer small job).
    assert_eq!(offer(&mut c, 1, 1_000, &mut id), vec!["big-first"]);
    assert_eq!(offer(&mut c, 1, 2_000, &mut id), vec!["small-second"]);
}

#[test]
fn an_app_idle_past_its_virtual_finish_cannot_spend_banked_credit() {
    let mut c = cluster();
    add_job(&mut c, "session", 0, 1);
    let mut id = 0;
    assert_eq!(offer(&mut c, 1, 1_000, &mut id), vec!["session"]);
    // The session holds its container and asks for nothing while others are served.
    for round in 0..20u64 {
        add_job(&mut c, &format!("w{round}"), 10 + round, 1);
        offer(&mut c, 1, 2_000 + 1_000 * round, &mut id);
    }
    // A newer job starts (it holds one container and asks for two more), then the session asks
    // for ten. On credit banked while idle (virtual finish 1 + 10 containers, against the newer
    // job's clock + 3, the clock near 21) the session would go first; re-entering at the clock
    // it finishes after the newer job, as it would under sharing.
    add_job(&mut c, "newer", 100, 3);
    assert_eq!(offer(&mut c, 1, 30_000, &mut id), vec!["newer"]);
    set_small_asks(&mut c, "session", &[(1, "*", 10)]);
    let got = offer(&mut c, 3, 31_000, &mut id);
    assert_eq!(&got[..2], ["newer", "newer"], "{got:?}");
}

/// Offers `host` with `free_gb` free, executes, returns (app, priority) per container.
fn offer_on(
    c: &mut Core,
    host: &str,
    free_gb: u64,
    now_ms: u64,
    id: &mut u32,
) -> Vec<(String, i32)> {
    let d: Vec<Decision> = heartbeat_free(c, host, free_gb, free_gb as u32, now_ms);
    execute(c, &d, id);
    d.iter()
        .flat_map(|d| std::iter::repeat_n((d.app.clone(), d.priority), d.count as usize))
        .collect()
}

#[test]
fn waiting_mapreduce_ams_go_before_running_jobs_tasks_only_within_capacity_schedulers_am_share() {
    // 4 x 8 GB: CapacityScheduler's default maximum-am-resource-percent (10 %) is 3.2 GB.
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", "hadoop")]);
    for h in ["h1", "h2", "h3", "h4"] {
        add_node(&mut c, h, "/r1", 8, 8);
    }
    let mut id = 0;
    add_app_named(&mut c, "run", "run", 0, "MAPREDUCE", &[]);
    set_small_asks(&mut c, "run", &[(0, "*", 1)]);
    assert_eq!(
        offer_on(&mut c, "h2", 8, 1_000, &mut id),
        vec![("run".into(), 0)]
    );
    // run's AM (1 GB) runs and asks for 8 maps; three new jobs wait for their AMs.
    set_small_asks(&mut c, "run", &[(20, "*", 8)]);
    for (i, app) in ["n1", "n2", "n3"].iter().enumerate() {
        add_app_named(&mut c, app, app, 10 + i as u64, "MAPREDUCE", &[]);
        set_small_asks(&mut c, app, &[(0, "*", 1)]);
    }
    let got = offer_on(&mut c, "h1", 8, 2_000, &mut id);
    let count = |app: &str| got.iter().filter(|(a, _)| a == app).count();
    // Two more AMs fit in 3.2 GB beside run's; the third waits behind run's maps.
    assert_eq!(
        (count("n1"), count("n2"), count("run"), count("n3")),
        (1, 1, 6, 0),
        "{got:?}"
    );
}

/// `jobs` submitted in that order, each a MapReduce job asking for its 512 MB AM.
fn submit_mapreduce_jobs(c: &mut Core, jobs: &[&str]) {
    for (i, app) in jobs.iter().enumerate() {
        add_app_named(c, app, app, i as u64, "MAPREDUCE", &[]);
        ask_am(c, app, 0, 1, 512);
    }
}

/// The demo's cluster: 4 x 4096 MB, 8 vcores; every AM asks 512 MB (MapReduce's default
/// `yarn.app.mapreduce.am.resource.mb` in the demo).
fn demo_cluster() -> Core {
    let mut c = core_with(&[("locus.policy", "fsp"), ("locus.locality", "delay")]);
    for h in ["h1", "h2", "h3", "h4"] {
        add_node(&mut c, h, "/r1", 4, 8);
    }
    c
}

fn ask_am(c: &mut Core, app: &str, priority: i32, count: u32, mem_mb: u64) {
    let mut a = asks(&[(priority, "*", count, 1, 1, true)]);
    a[0].capability.memory_mb = mem_mb;
    set_asks_vec(c, app, a);
}

/// Offers each of the demo's four nodes in turn, whole, and executes; returns the apps served.
fn offer_all(c: &mut Core, now_ms: u64, id: &mut u32) -> Vec<String> {
    let mut got = Vec::new();
    for h in ["h1", "h2", "h3", "h4"] {
        let d = heartbeat_free(c, h, 4, 8, now_ms);
        execute(c, &d, id);
        got.extend(
            d.iter()
                .flat_map(|d| std::iter::repeat_n(d.app.clone(), d.count as usize)),
        );
    }
    got
}

#[test]
fn a_burst_of_mapreduce_jobs_starts_only_the_ams_capacity_schedulers_am_share_admits() {
    // The demo's batch: six MapReduce jobs submitted together on an idle 16 GB cluster. Hadoop's
    // default maximum-am-resource-percent (10 %: 1638 MB) admits three 512 MB AMs; the rest wait
    // even though no task asks for the room yet (their AMs would share the CPU with the first
    // three's maps and slow every job).
    let mut c = demo_cluster();
    let jobs = ["j1", "j2", "j3", "j4", "j5", "j6"];
    submit_mapreduce_jobs(&mut c, &jobs);
    let mut id = 0;
    let got = offer_all(&mut c, 1_000, &mut id);
    assert_eq!(got, ["j1", "j2", "j3"], "AMs started: {got:?}");
    // The oldest waiting job is the next one in when an AM's memory frees.
    c.handle(locus_core::protocol::Event::AppRemoved { app: "j2".into() })
        .unwrap();
    let got = offer_all(&mut c, 2_000, &mut id);
    assert_eq!(got, ["j4"], "after j2 finished: {got:?}");
}

#[test]
fn a_flood_of_non_mapreduce_applications_starts_only_the_ams_the_am_share_admits() {
    // DistributedShell- or Spark-like applications (type YARN) submitted together on the demo's
    // idle 16 GB cluster. The RM asks for every application's AM at priority 0, whatever its
    // type, and nothing else can be asked before that AM runs; CapacityScheduler's
    // maximum-am-resource-percent (10 %: 1638 MB) holds them like MapReduce's: three 512 MB AMs.
    let mut c = demo_cluster();
    let apps = ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"];
    for (i, app) in apps.iter().enumerate() {
        add_app_named(&mut c, app, app, i as u64, "YARN", &[]);
        ask_am(&mut c, app, 0, 1, 512);
    }
    let mut id = 0;
    let got = offer_all(&mut c, 1_000, &mut id);
    assert_eq!(got, ["s1", "s2", "s3"], "AMs started: {got:?}");
    // Once its AM runs, an application's own priority-0 containers are its tasks, not AMs: s1
    // gets ten while the AM share is full.
    ask_am(&mut c, "s1", 0, 10, 512);
    let got = offer_all(&mut c, 2_000, &mut id);
    assert_eq!(got.iter().filter(|a| *a == "s1").count(), 10, "{got:?}");
    // The oldest waiting application is the next one in when an AM's memory frees.
    c.handle(locus_core::protocol::Event::AppRemoved { app: "s2".into() })
        .unwrap();
    let got = offer_all(&mut c, 3_000, &mut id);
    assert_eq!(got, ["s4"], "after s2 finished: {got:?}");
}

#[test]
fn a_queue_whose_ams_hold_nothing_starts_one_am_beyond_the_share() {
    // CapacityScheduler lets a queue with no active application start one AM even when the AM
    // limit is exceeded. Under fsp the share is the cluster's, but an application still runs in
    // its queue (a capacity queue draining after a switch to fsp keeps its jobs): a 2 GB AM in
    // queue a, above the 1638 MB share, must not keep default's first AM out.
    let mut c = demo_cluster();
    add_app_in(&mut c, "big", "a", "alice", "big", 0, "MAPREDUCE", &[]);
    ask_am(&mut c, "big", 0, 1, 2048);
    let mut id = 0;
    let got = offer_all(&mut c, 1_000, &mut id);
    assert_eq!(
        got,
        ["big"],
        "the first AM starts whatever its size: {got:?}"
    );
    for (i, app) in ["d1", "d2"].iter().enumerate() {
        add_app_named(&mut c, app, app, 10 + i as u64, "MAPREDUCE", &[]);
        ask_am(&mut c, app, 0, 1, 512);
    }
    let got = offer_all(&mut c, 2_000, &mut id);
    assert_eq!(got, ["d1"], "default's first AM, and only it: {got:?}");
}

/// The AMs among `got` (the apps of `jobs` not in `running`).
fn new_ams<'a>(got: &[String], jobs: &[&'a str], running: &[&str]) -> Vec<&'a str> {
    jobs.iter()
        .copied()
        .filter(|j| !running.contains(j) && got.iter().any(|g| g == j))
        .collect()
}

#[test]
fn beyond_the_am_share_one_am_starts_once_no_admitted_am_is_still_starting() {
    // The demo's burst: the 10 % share admits three 512 MB AMs. Beyond it an AM starts only
    // while no admitted AM is still starting (holds its AM and has asked for nothing yet): an
    // idle cluster still launches AMs in waves, a loaded one is not idled by the share.
    let mut c = demo_cluster();
    let jobs = ["j1", "j2", "j3", "j4", "j5", "j6"];
    submit_mapreduce_jobs(&mut c, &jobs);
    let mut id = 0;
    let got = offer_all(&mut c, 1_000, &mut id);
    assert_eq!(got, ["j1", "j2", "j3"], "AMs started: {got:?}");
    // j1 and j2 ask for maps; j3 is still starting, so no AM goes beyond the share.
    set_small_asks(&mut c, "j1", &[(20, "*", 2)]);
    set_small_asks(&mut c, "j2", &[(20, "*", 2)]);
    let got = offer_all(&mut c, 2_000, &mut id);
    let started = new_ams(&got, &jobs, &["j1", "j2", "j3"]);
    assert!(
        started.is_empty(),
        "AMs beyond the share while j3 starts: {got:?}"
    );
    // j3 asks too: one AM starts beyond the share, the oldest waiting, and only one.
    set_small_asks(&mut c, "j3", &[(20, "*", 2)]);
    let got = offer_all(&mut c, 3_000, &mut id);
    let started = new_ams(&got, &jobs, &["j1", "j2", "j3"]);
    assert_eq!(started, ["j4"], "{got:?}");
    // j4 is starting: j5 waits until it asks.
    let got = offer_all(&mut c, 4_000, &mut id);
    let started = new_ams(&got, &jobs, &["j1", "j2", "j3", "j4"]);
    assert!(
        started.is_empty(),
        "AMs beyond the share while j4 starts: {got:?}"
    );
    set_small_asks(&mut c, "j4", &[(20, "*", 2)]);
    let got = offer_all(&mut c, 5_000, &mut id);
    let started = new_ams(&got, &jobs, &["j1", "j2", "j3", "j4"]);
    assert_eq!(started, ["j5"], "{got:?}");
}

#[test]
fn an_am_beyond_the_share_takes_only_room_no_running_job_asks_for() {
    // A loaded cluster: the three admitted jobs ask for more maps than the nodes hold. An AM
    // beyond the share would hold a container for its job's whole life while the jobs ahead of
    // it wait for that room; it only takes what their tasks leave.
    let mut c = demo_cluster();
    let jobs = ["j1", "j2", "j3", "j4"];
    submit_mapreduce_jobs(&mut c, &jobs);
    let mut id = 0;
    let got = offer_all(&mut c, 1_000, &mut id);
    assert_eq!(got, ["j1", "j2", "j3"], "AMs started: {got:?}");
    for app in ["j1", "j2", "j3"] {
        set_small_asks(&mut c, app, &[(20, "*", 100)]);
    }
    let got = offer_all(&mut c, 2_000, &mut id);
    assert!(
        !got.iter().any(|a| a == "j4"),
        "j4's AM took a task's room: {got:?}"
    );
    // Room the tasks leave (j1..j3 ask for no more): the AM beyond the share takes it.
    for app in ["j1", "j2", "j3"] {
        set_small_asks(&mut c, app, &[(20, "*", 0)]);
    }
    let got = offer_all(&mut c, 3_000, &mut id);
    assert_eq!(got, ["j4"], "{got:?}");
}

#[test]
fn a_batch_of_node_offers_starts_one_am_per_idle_queue_not_one_per_node() {
    // The shim offers up to 32 nodes per core call and executes the decisions afterwards: an
    // AM decided on h1 and not yet created still counts against its queue on h2, or every node
    // of the batch would start another AM beyond the share in the same idle queue.
    let mut c = demo_cluster();
    add_app_in(&mut c, "big", "a", "alice", "big", 0, "MAPREDUCE", &[]);
    ask_am(&mut c, "big", 0, 1, 2048);
    let mut id = 0;
    assert_eq!(offer_all(&mut c, 1_000, &mut id), ["big"]);
    for (i, app) in ["d1", "d2", "d3"].iter().enumerate() {
        add_app_named(&mut c, app, app, 10 + i as u64, "MAPREDUCE", &[]);
        ask_am(&mut c, app, 0, 1, 512);
    }
    let mut batch = Vec::new();
    for h in ["h1", "h2", "h3", "h4"] {
        batch.extend(heartbeat_free(&mut c, h, 4, 8, 2_000));
    }
    let got: Vec<&str> = batch.iter().map(|d| d.app.as_str()).collect();
    assert_eq!(got, ["d1"], "AMs decided in one batch: {got:?}");
}

#[test]
fn an_am_that_never_asks_stops_holding_ams_beyond_the_share_back() {
    // An uber job, an idle Spark session or an unmanaged AM holds its AM and asks for nothing.
    // It counts as starting only for a bounded time, or one such AM would pin every fsp
    // cluster at the strict 10 % share for its whole life.
    let mut c = demo_cluster();
    let jobs = ["j1", "j2", "j3", "j4"];
    submit_mapreduce_jobs(&mut c, &jobs);
    let mut id = 0;
    assert_eq!(offer_all(&mut c, 1_000, &mut id), ["j1", "j2", "j3"]);
    set_small_asks(&mut c, "j2", &[(20, "*", 2)]);
    set_small_asks(&mut c, "j3", &[(20, "*", 2)]);
    // j1 may still be launching: the AMs wait as before.
    let got = offer_all(&mut c, 2_000, &mut id);
    assert!(
        new_ams(&got, &jobs, &["j1", "j2", "j3"]).is_empty(),
        "an AM beyond the share while j1 may still start: {got:?}"
    );
    // j1 never asks: past the bound it no longer counts as starting.
    let got = offer_all(&mut c, 1_000 + locus_core::policy::AM_STARTING_MS, &mut id);
    let started = new_ams(&got, &jobs, &["j1", "j2", "j3"]);
    assert_eq!(started, ["j4"], "{got:?}");
}
