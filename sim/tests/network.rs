//! Shared input and the network, as a user of the simulator sees them: jobs reading one hot
//! block finish later than jobs reading distinct blocks; a cross-rack read over an
//! oversubscribed uplink is slower than the same read inside a rack; a SWIM trace's dataset
//! column makes its jobs read the same blocks; bad network and dataset flags are refused.

use std::process::Command;

use clap::Parser;
use locus_core::Resource;
use locus_sim::cluster::Cluster;
use locus_sim::engine::{Engine, Raw};
use locus_sim::run::{self, Args};
use locus_sim::workload::{JobSpec, MapSpec, Workload};

const NODE: Resource = Resource {
    memory_mb: 8192,
    vcores: 8,
    extra: [0; locus_core::protocol::MAX_EXTRA_TYPES],
};

fn args(extra: &[&str]) -> Args {
    let mut argv = vec!["locus-sim", "--no-progress", "--no-timing"];
    argv.extend_from_slice(extra);
    Args::try_parse_from(argv).unwrap_or_else(|e| panic!("{e}"))
}

fn run_workload(w: &Workload, extra: &[&str]) -> Raw {
    let a = args(extra);
    let cfg = run::config(&a, &w.cluster).unwrap_or_else(|e| panic!("{e}"));
    let (label, props) = run::policies(&a)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0);
    let raw = Engine::new(w, &cfg, &label, props)
        .and_then(|e| e.run())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(raw.finished, w.jobs.len(), "{:?}", raw.stalled);
    raw
}

fn mean_turnaround_s(raw: &Raw) -> f64 {
    let n = raw.submit_ms.len() as f64;
    raw.submit_ms
        .iter()
        .zip(&raw.finish_ms)
        .map(|(s, f)| (f.unwrap_or(u64::MAX) - s) as f64 / 1000.0)
        .sum::<f64>()
        / n
}

/// A job of one 1 GB-container map per entry of `blocks`, each reading 128 MB from the given
/// replica nodes; submitted at 0.
fn job(name: &str, blocks: &[Vec<usize>]) -> JobSpec {
    job_of(name, blocks, 128 << 20)
}

fn job_of(name: &str, blocks: &[Vec<usize>], bytes: u64) -> JobSpec {
    JobSpec {
        name: name.into(),
        queue: "default".into(),
        user: "u".into(),
        submit_ms: 0,
        maps: blocks
            .iter()
            .map(|r| MapSpec {
                input_bytes: bytes,
                replicas: r.clone(),
                fixed_ms: None,
            })
            .collect(),
        reduces: vec![],
        shuffle_bytes: 0,
        output_bytes: 0,
        am: Resource::new(1024, 1),
        map: Resource::new(1024, 1),
        reduce: Resource::new(1024, 1),
        tags: vec![],
    }
}

fn cluster(nodes: usize, racks: usize) -> Cluster {
    Cluster::uniform(nodes, racks, 1, NODE).unwrap_or_else(|e| panic!("{e}"))
}

/// Two jobs of three maps each, every map reading 1 GB. Hot: every map reads the one block
/// whose only replica is on node 1, so the six reads share that node's disk (and its NIC for
/// the remote ones). Spread: each map reads its own block on its own node.
#[test]
fn jobs_reading_one_hot_block_finish_later_than_jobs_reading_distinct_blocks() {
    let hot = Workload {
        name: "hot".into(),
        cluster: cluster(8, 1),
        jobs: vec![
            job_of("a", &[vec![0], vec![0], vec![0]], GB),
            job_of("b", &[vec![0], vec![0], vec![0]], GB),
        ],
    };
    let spread = Workload {
        name: "spread".into(),
        cluster: cluster(8, 1),
        jobs: vec![
            job_of("a", &[vec![0], vec![1], vec![2]], GB),
            job_of("b", &[vec![3], vec![4], vec![5]], GB),
        ],
    };
    let (h, s) = (run_workload(&hot, &[]), run_workload(&spread, &[]));
    let (th, ts) = (mean_turnaround_s(&h), mean_turnaround_s(&s));
    // six reads of 128 MB through one 120 MB/s disk take 6.4 s; alone each takes about 1.1 s
    assert!(
        th > ts + 3.0,
        "hot block {th:.2} s, distinct blocks {ts:.2} s"
    );
}

/// One job of 14 maps whose block lives only on node 1, on two nodes: half its maps run on
/// node 2 and read across the network. In one rack they share node 1's disk and NIC; in two
/// racks they also cross both uplinks, which an oversubscription of 20 leaves 5.6 MB/s each way.
#[test]
fn a_cross_rack_read_over_an_oversubscribed_uplink_is_slower_than_inside_the_rack() {
    let blocks = vec![vec![0usize]; 14];
    let one_rack = Workload {
        name: "one rack".into(),
        cluster: cluster(2, 1),
        jobs: vec![job("j", &blocks)],
    };
    let two_racks = Workload {
        name: "two racks".into(),
        cluster: cluster(2, 2),
        jobs: vec![job("j", &blocks)],
    };
    let flags = ["--oversubscription", "20"];
    let inside = run_workload(&one_rack, &flags);
    let across = run_workload(&two_racks, &flags);
    let (ti, ta) = (mean_turnaround_s(&inside), mean_turnaround_s(&across));
    assert!(
        ta > 2.0 * ti,
        "rack-local {ti:.1} s, cross-rack over the uplink {ta:.1} s"
    );
    // without oversubscription (one node per rack, uplink = its NIC) the racks do not matter much
    let full = run_workload(&two_racks, &["--oversubscription", "1"]);
    let tf = mean_turnaround_s(&full);
    assert!(
        tf < ta / 2.0,
        "non-blocking {tf:.1} s, oversubscribed {ta:.1} s"
    );
}

/// A faster NIC speeds up remote reads and nothing else: same job, same placement.
#[test]
fn the_nic_bandwidth_bounds_remote_reads() {
    let w = Workload {
        name: "remote".into(),
        cluster: cluster(2, 1),
        jobs: vec![job("j", &vec![vec![0usize]; 14])],
    };
    let slow = mean_turnaround_s(&run_workload(&w, &["--nic-mb-per-s", "10"]));
    let fast = mean_turnaround_s(&run_workload(&w, &["--nic-mb-per-s", "1000"]));
    assert!(
        slow > fast + 5.0,
        "NIC 10 MB/s {slow:.1} s, 1000 MB/s {fast:.1} s"
    );
}

fn swim_file(test: &str, text: &str) -> String {
    let d = std::env::temp_dir().join(format!("locus-sim-net-{}-{test}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    let p = d.join("trace.tsv");
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("{e}"));
    p.to_string_lossy().into_owned()
}

fn swim(path: &str, extra: &[&str]) -> Workload {
    let mut argv = vec![
        "--workload",
        "swim",
        "--trace",
        path,
        "--nodes",
        "40",
        "--racks",
        "4",
    ];
    argv.extend_from_slice(extra);
    run::workload(&args(&argv)).unwrap_or_else(|e| panic!("{e}"))
}

const GB: u64 = 1 << 30;

/// SWIM's FB-2010 sample names each job's input path in column 7; jobs naming the same path
/// read the same blocks (a smaller job the first ones), others their own.
#[test]
fn a_swim_dataset_column_makes_jobs_read_the_same_blocks() {
    let text = format!(
        "job0\t0\t0\t{}\t0\t0\tinputPath1\t\t\njob1\t5\t5\t{}\t0\t0\tinputPath1\t\t\njob2\t9\t4\t{}\t0\t0\tinputPath2\t\t\n",
        GB,
        GB / 2,
        GB
    );
    let w = swim(&swim_file("shared", &text), &[]);
    let (a, b, c) = (&w.jobs[0], &w.jobs[1], &w.jobs[2]);
    assert_eq!((a.maps.len(), b.maps.len(), c.maps.len()), (8, 4, 8));
    for i in 0..4 {
        assert_eq!(a.maps[i].replicas, b.maps[i].replicas, "block {i}");
    }
    assert!((0..8).all(|i| a.maps[i].replicas != c.maps[i].replicas));
    assert!(w.name.contains("2 datasets"), "{}", w.name);
    // the same trace without the column: every job has its own file
    let own: String = text
        .lines()
        .map(|l| l.split('\t').take(6).collect::<Vec<_>>().join("\t") + "\n")
        .collect();
    let w = swim(&swim_file("own", &own), &[]);
    assert!((0..4).all(|i| w.jobs[0].maps[i].replicas != w.jobs[1].maps[i].replicas));
}

/// The effect of sharing: eight one-block jobs at once on one dataset with a single replica
/// per block read one node's disk together; on eight datasets they read eight nodes.
#[test]
fn jobs_sharing_a_swim_dataset_contend_for_its_blocks() {
    let line = |i: usize, path: &str| format!("job{i}\t0\t0\t{}\t0\t0\t{path}\n", 128u64 << 20);
    let shared: String = (0..8).map(|i| line(i, "inputPath1")).collect();
    let own: String = (0..8).map(|i| line(i, &format!("inputPath{i}"))).collect();
    let flags = ["--replication", "1"];
    let ws = swim(&swim_file("contend-shared", &shared), &flags);
    let wo = swim(&swim_file("contend-own", &own), &flags);
    let ts = mean_turnaround_s(&run_workload(&ws, &flags));
    let to = mean_turnaround_s(&run_workload(&wo, &flags));
    assert!(
        ts > to + 1.0,
        "one dataset {ts:.2} s, eight datasets {to:.2} s"
    );
}

/// A synthetic pool with strong skew puts most jobs on the same few datasets; the same seed
/// gives the same workload.
#[test]
fn a_skewed_dataset_pool_shares_blocks_between_synthetic_jobs() {
    let flags = [
        "--workload",
        "synthetic",
        "--jobs",
        "200",
        "--nodes",
        "50",
        "--racks",
        "5",
        "--max-maps",
        "20",
        "--dataset-pool",
        "50",
        "--dataset-zipf",
        "2",
    ];
    let w = run::workload(&args(&flags)).unwrap_or_else(|e| panic!("{e}"));
    let first: Vec<&Vec<usize>> = w.jobs.iter().map(|j| &j.maps[0].replicas).collect();
    let mut distinct = first.clone();
    distinct.sort();
    distinct.dedup();
    // Zipf(2) over 50: the most popular dataset alone draws 61 % of the jobs
    assert!(
        distinct.len() < 40,
        "{} distinct first blocks of 200 jobs",
        distinct.len()
    );
    let again = run::workload(&args(&flags)).unwrap_or_else(|e| panic!("{e}"));
    assert!(w.jobs.iter().zip(&again.jobs).all(|(a, b)| a
        .maps
        .iter()
        .zip(&b.maps)
        .all(|(x, y)| x.replicas == y.replicas)));
    let own = run::workload(&args(&flags[..10])).unwrap_or_else(|e| panic!("{e}"));
    let mut firsts: Vec<&Vec<usize>> = own.jobs.iter().map(|j| &j.maps[0].replicas).collect();
    firsts.sort();
    firsts.dedup();
    assert!(firsts.len() > 190, "own files: {} distinct", firsts.len());
}

fn refused(argv: &[&str], names: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_locus-sim"))
        .arg("--no-progress")
        .args(argv)
        .output()
        .unwrap_or_else(|e| panic!("cannot start locus-sim: {e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
    assert!(err.contains(names), "{argv:?} should name {names}: {err}");
    assert!(out.stdout.is_empty(), "{argv:?} printed a table");
}

#[test]
fn bad_network_and_dataset_flags_are_refused_naming_the_flag() {
    refused(&["--nic-mb-per-s", "0"], "--nic-mb-per-s");
    refused(&["--uplink-mb-per-s=-3"], "--uplink-mb-per-s");
    refused(&["--oversubscription", "NaN"], "--oversubscription");
    refused(
        &["--uplink-mb-per-s", "400", "--oversubscription", "5"],
        "--oversubscription",
    );
    refused(&["--dataset-zipf=-1"], "--dataset-zipf");
    refused(&["--dataset-pool", "10"], "--dataset-pool");
    refused(
        &["--workload", "synthetic", "--dataset-pool", "2000000"],
        "--dataset-pool",
    );
    // the per-distance caps of the old model are gone, not silently ignored
    refused(&["--rack-mb-per-s", "110"], "--rack-mb-per-s");
}

/// The committed FB-2010 sample (SWIM's withInputPaths trace, first hour) replays with its
/// datasets: its most read path, inputPath21, is read by 30 jobs, all of the same blocks.
#[test]
fn the_committed_fb2010_sample_replays_its_shared_input_paths() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/workloads/swim/FB-2010_withInputPaths_first_hour.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let readers: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.split('\t').nth(6) == Some("inputPath21"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(readers.len(), 30);
    let w = swim(path, &[]);
    assert_eq!(w.jobs.len(), 1145);
    assert!(w.name.contains("905 datasets"), "{}", w.name);
    let first = &w.jobs[readers[0]].maps[0].replicas;
    assert!(readers
        .iter()
        .all(|&i| &w.jobs[i].maps[0].replicas == first));
}
