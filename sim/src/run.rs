//! The command line: builds the workload once, runs it under each policy, writes the outputs.

use std::collections::BTreeMap;

use clap::Parser;
use locus_core::config::MROSA_PUBLIC_FILE;
use locus_core::Resource;

use crate::cluster::Cluster;
use crate::engine::{Bandwidths, Engine, QueueAssignment, Raw, SimConfig, Uplink};
use crate::hdfs::Placement;
use crate::report::{self, Summary};
use crate::rng::Rng;
use crate::workload::{
    demo, facebook, fresh, joss, mrosa, sls, swim, synthetic, td, Shape, Workload,
};

pub const WORKLOADS: &[&str] = &[
    "demo",
    "facebook",
    "swim",
    "sls",
    "synthetic",
    "joss-small",
    "joss-mixed",
    "mrosa-exp1",
    "mrosa-exp2",
    "mrosa-exp3",
    "td-small",
    "td-mix",
    "td-large",
    "fresh-a",
    "fresh-b",
    "fresh-c",
    "fresh-d",
    "fresh-e",
];

#[derive(Parser, Debug, Clone)]
#[command(
    name = "locus-sim",
    about = "Simulate YARN + HDFS + the MapReduce AM driving the Locus core; compare policies side by side.",
    after_help = "Exit status: 0 every job finished and every output was written; 1 a run failed or left jobs unfinished, or an output could not be written after the run; 2 bad input (a flag, a trace line, an output path that cannot be written), refused before anything runs. Limits: docs/design/simulator.md, \"Input limits\"."
)]
pub struct Args {
    /// facebook (Matchmaking Table 4 bins, 100 jobs), swim (FB-2009 trace), sls (Hadoop SLS JSON), synthetic;
    /// the papers' own (their cluster and shape replace --nodes, --block-mb ...): joss-small,
    /// joss-mixed, mrosa-exp1, mrosa-exp2, mrosa-exp3 (needs --public-pool), td-small, td-mix, td-large, fresh-a .. fresh-e
    /// (fresh-*: on --nodes nodes, the paper's 10 or 20); demo = the batch of `./locus demo`
    /// (sim/workloads/demo.json: its cluster, block size, containers, and its node and AM
    /// heartbeats and slow-start replace --heartbeat-ms, --am-heartbeat-ms and --slowstart)
    #[arg(long, default_value = "facebook")]
    pub workload: String,
    /// Trace file for swim or sls.
    #[arg(
        long,
        default_value = "../shared/traces/FB-2009_samples_24_times_1hr_0.tsv"
    )]
    pub trace: String,
    /// Replay only the first N jobs of a SWIM trace.
    #[arg(long)]
    pub limit_jobs: Option<usize>,
    /// Jobs of the synthetic workload.
    #[arg(long, default_value_t = 1000)]
    pub jobs: usize,
    /// Largest map count of a synthetic job.
    #[arg(long, default_value_t = 4800)]
    pub max_maps: usize,
    /// Mean gap between submissions (facebook: 14000; synthetic: 14000 x 30 / nodes).
    #[arg(long)]
    pub mean_gap_ms: Option<f64>,
    /// synthetic: jobs read datasets drawn from a pool of N (Zipf popularity, --dataset-zipf);
    /// 0 = every job reads its own file.
    #[arg(long, default_value_t = 0)]
    pub dataset_pool: usize,
    /// synthetic with --dataset-pool: the Zipf exponent s (dataset k read with weight 1/k^s;
    /// 0 = uniform).
    #[arg(long, default_value_t = 1.0)]
    pub dataset_zipf: f64,
    /// facebook: use bins 1..=N of Table 4 (Matchmaking used 6).
    #[arg(long, default_value_t = 9)]
    pub fb_bins: usize,
    /// facebook: blocks in the shared data set maps read from.
    #[arg(long, default_value_t = 100)]
    pub dataset_blocks: usize,
    /// td-*: the job queue's input, GB (the paper's default 200).
    #[arg(long, default_value_t = 200)]
    pub input_gb: u64,
    /// td-*: each job's locus.demand= tag is its split count capped at this; 0 = no tag (the
    /// core then takes the split count).
    #[arg(long, default_value_t = 35)]
    pub td_max_demand: u64,
    /// mrosa-*: every job's deadline, seconds after its submission (default: 60 for mrosa-exp3,
    /// the paper's; 150 otherwise).
    #[arg(long)]
    pub deadline_s: Option<u64>,
    /// mrosa-exp3: maps of each job (the paper's 48, 96 and 180); reduces are a quarter.
    #[arg(long, default_value_t = 96)]
    pub mrosa_maps: usize,
    #[arg(long, default_value_t = 30)]
    pub nodes: usize,
    #[arg(long, default_value_t = 1)]
    pub racks: usize,
    #[arg(long, default_value_t = 1)]
    pub datacenters: usize,
    #[arg(long, default_value_t = 8192)]
    pub node_memory_mb: u64,
    #[arg(long, default_value_t = 8)]
    pub node_vcores: u32,
    #[arg(long, default_value_t = 128)]
    pub block_mb: u64,
    #[arg(long, default_value_t = 3)]
    pub replication: usize,
    /// rack-aware (HDFS default) or uniform (the papers').
    #[arg(long, default_value = "rack-aware")]
    pub placement: String,
    /// One reduce per this much shuffle (swim, facebook, synthetic).
    #[arg(long, default_value_t = 1024)]
    pub bytes_per_reduce_mb: u64,
    /// Shuffle bytes as a share of input (facebook, synthetic).
    #[arg(long, default_value_t = 0.1)]
    pub filter: f64,
    #[arg(long, default_value_t = 1536)]
    pub am_memory_mb: u64,
    #[arg(long, default_value_t = 1024)]
    pub map_memory_mb: u64,
    #[arg(long, default_value_t = 1024)]
    pub reduce_memory_mb: u64,
    #[arg(long, default_value_t = 1000)]
    pub heartbeat_ms: u64,
    #[arg(long, default_value_t = 1000)]
    pub am_heartbeat_ms: u64,
    /// From AM container grant to the AM's registration.
    #[arg(long, default_value_t = 1000)]
    pub am_launch_ms: u64,
    /// JVM start and task set-up, added to every modelled task.
    #[arg(long, default_value_t = 1000)]
    pub task_overhead_ms: u64,
    /// Share of maps done before reduces are requested (mapreduce.job.reduce.slowstart.completedmaps).
    #[arg(long, default_value_t = 0.05)]
    pub slowstart: f64,
    #[arg(long, default_value_t = 20.0)]
    pub map_mb_per_s: f64,
    #[arg(long, default_value_t = 20.0)]
    pub reduce_mb_per_s: f64,
    /// One local read stream from disk, MB/s (docs/design/simulator.md, "Reads and the network").
    #[arg(long, default_value_t = 120.0)]
    pub disk_mb_per_s: f64,
    /// One node's NIC each way, MB/s, shared by the remote reads it serves and, separately, by
    /// those it makes (default: 1 GbE's TCP payload).
    #[arg(long, default_value_t = 112.0)]
    pub nic_mb_per_s: f64,
    /// A rack's uplink each way, MB/s, shared by the reads leaving or entering the rack
    /// (default 448 = 4 Gbit/s, Facebook's 2009 warehouse cluster). Or give --oversubscription.
    #[arg(long)]
    pub uplink_mb_per_s: Option<f64>,
    /// Rack uplink = the rack's nodes x --nic-mb-per-s / this ratio (instead of --uplink-mb-per-s).
    #[arg(long)]
    pub oversubscription: Option<f64>,
    /// One read stream across datacenters, MB/s (the inter-datacenter link).
    #[arg(long, default_value_t = 10.0)]
    pub remote_mb_per_s: f64,
    /// What one node's disk serves to all its readers together, local and remote (shared equally).
    #[arg(long, default_value_t = 120.0)]
    pub serve_mb_per_s: f64,
    /// TD's θ: a node with more concurrent remote readers is an actual hotspot.
    #[arg(long, default_value_t = 3)]
    pub hotspot_readers: u32,
    /// NODE@SECONDS: the node (1-based index or host name) fails then. Repeatable.
    #[arg(long)]
    pub fail_node_at: Vec<String>,
    #[arg(long, default_value_t = 5000)]
    pub sample_ms: u64,
    /// Stop a run when nothing started or finished for this many simulated seconds.
    #[arg(long, default_value_t = 3600)]
    pub stall_s: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Comma-separated locus.policy values, each run on the same workload. An item may add
    /// settings after semicolons: "fifo;locus.locality=delay". A comma followed by something
    /// that is not a policy name (it has ':' or '=') stays in the setting's value:
    /// "capacity;locus.capacity.queues=a:50:90,b:50:90,fifo" is two runs. `cs-default` is
    /// Hadoop 3.5 CapacityScheduler's defaults built from the core's pieces (one queue, FIFO,
    /// AM share 0.1, node-locality-delay 40, asynchronous scheduling; docs/results/sim-validation.md).
    /// Without it, one run of the ResourceManager's default configuration (no locus.policy, no
    /// locus.locality: what an RM without locus.* keys runs).
    #[arg(long)]
    pub policy: Option<String>,
    /// KEY=VALUE locus.* setting for every run. Repeatable.
    #[arg(long)]
    pub set: Vec<String>,
    /// Under locus.policy=capacity, which queue each job is submitted to: round-robin = the
    /// queues of locus.capacity.queues in turn, by submission order (FRESH's "we separate jobs
    /// equally to these queues"); workload = the job's own queue (an SLS trace's
    /// job.queue.name), which must be configured. Other policies always get the job's own.
    #[arg(long, default_value = "round-robin")]
    pub queue_assignment: String,
    #[arg(long)]
    pub json: Option<String>,
    /// Self-contained HTML report with charts.
    #[arg(long)]
    pub report: Option<String>,
    /// Leave wall-clock figures out, so the same seed gives byte-identical output.
    #[arg(long)]
    pub no_timing: bool,
    #[arg(long)]
    pub no_progress: bool,
    /// Run the reproduction suite instead: joss, td, matchmaking, fresh, mrosa or all.
    #[arg(long)]
    pub suite: Option<String>,
    /// With --suite: fewer points per sweep and smaller TD queues (for tests).
    #[arg(long)]
    pub suite_quick: bool,
    /// Write MROSA's TABLE IV public pool file (for locus.mrosa.public.file) and exit; with
    /// --workload mrosa-exp3 it also lists that hybrid cluster's running public instances.
    #[arg(long)]
    pub write_pool: Option<String>,
    /// Public pool file (locus.mrosa.public.file format): its running hosts are public nodes
    /// priced at its $/s in every run (public tasks, public cost), and `mrosa` runs get it as
    /// locus.mrosa.public.file. Without it a run is priced by its own locus.mrosa.public.file.
    #[arg(long)]
    pub public_pool: Option<String>,
}

fn kv(s: &str, what: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("{what} {s:?}: expected KEY=VALUE"))?;
    let k = k.trim();
    if !k.starts_with("locus.") {
        return Err(format!(
            "{what} {s:?}: only locus.* settings reach the core"
        ));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

/// (label, properties) for each policy item.
/// A policy run: its label and the `locus.*` properties the core gets.
pub type PolicyRun = (String, BTreeMap<String, String>);

pub fn policies(args: &Args) -> Result<Vec<PolicyRun>, String> {
    let mut common = BTreeMap::new();
    for s in &args.set {
        let (k, v) = kv(s, "--set")?;
        common.insert(k, v);
    }
    let Some(list) = &args.policy else {
        // The RM's default, not a paper's baseline: neither the policy nor the locality
        // technique is set, so the core's own defaults decide, as in an RM.
        let d = locus_core::Config::default();
        let label = match common.get("locus.policy") {
            Some(p) => p.clone(),
            None => format!(
                "{};locus.locality={}",
                d.policy.as_str(),
                d.locality.as_str()
            ),
        };
        return Ok(vec![(label, common)]);
    };
    let mut out = Vec::new();
    for item in policy_items(list) {
        let item = item.as_str();
        let mut parts = item.split(';');
        let mut props = common.clone();
        match parts.next().map(str::trim).filter(|p| !p.is_empty()) {
            // A baseline of several settings; its own win over --set, the item's extras over it.
            Some(crate::cs_default::NAME) => props.extend(crate::cs_default::props()),
            Some(p) => {
                props.insert("locus.policy".into(), p.to_string());
            }
            None => {}
        }
        for extra in parts {
            let (k, v) = kv(extra, "--policy item")?;
            props.insert(k, v);
        }
        // The papers compare against Hadoop's own locality, so a run that names no technique
        // gets `hadoop`, not the product's default (`delay`): the reproduction suite's baselines
        // and every figure in docs/ stay what they were measured as.
        props
            .entry("locus.locality".into())
            .or_insert_with(|| "hadoop".into());
        if let Some(pool) = &args.public_pool {
            if props.get("locus.policy").map(String::as_str) == Some("mrosa") {
                match props.get(MROSA_PUBLIC_FILE) {
                    Some(own) if own != pool => {
                        return Err(format!(
                            "policy {item:?}: {MROSA_PUBLIC_FILE}={own} differs from --public-pool {pool}; the run would be priced from another pool than it schedules with"
                        ))
                    }
                    _ => {
                        props.insert(MROSA_PUBLIC_FILE.into(), pool.clone());
                    }
                }
            }
        }
        out.push((item.to_string(), props));
    }
    if out.is_empty() {
        return Err("--policy names no policy".into());
    }
    Ok(out)
}

/// The `--policy` items: split at commas, except where the next piece is not a policy name
/// (policy names have no ':' or '='), which continues the previous item's last setting.
fn policy_items(list: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for piece in list.split(',') {
        let head = piece.split(';').next().unwrap_or("");
        let continues = head.contains(':') || head.contains('=');
        match items.last_mut() {
            Some(last) if continues => {
                last.push(',');
                last.push_str(piece.trim());
            }
            _ => items.push(piece.trim().to_string()),
        }
    }
    items.retain(|s| !s.is_empty());
    items
}

/// A rack's uplink when no flag sets it: 4 Gbit/s of TCP payload (4 x 1 GbE's 112 MB/s), the
/// Facebook Hadoop/Hive warehouse's "4 Gbit/sec to top level rack switch" (2009; docs/design/simulator.md).
pub const DEFAULT_UPLINK_MB_PER_S: f64 = 448.0;

fn positive(name: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{name} must be a positive number, not {v}"))
    }
}

/// An output path that cannot be written is refused before the run, not after it: an existing
/// file must open for writing (not truncated here), a new one is created and removed again.
fn writable(flag: &str, path: &str) -> Result<(), String> {
    let p = std::path::Path::new(path);
    let probe = if p.exists() {
        std::fs::OpenOptions::new().append(true).open(p).map(|_| ())
    } else {
        std::fs::File::create(p).and_then(|_| std::fs::remove_file(p))
    };
    probe.map_err(|e| format!("{flag} {path}: cannot write there: {e}"))
}

/// The flag bounds of `limits` and the output paths, checked before any workload is built.
pub fn check_args(args: &Args) -> Result<(), String> {
    use crate::limits::*;
    if args.suite.is_some() && (args.json.is_some() || args.report.is_some()) {
        return Err("--json and --report are not written by --suite (it prints its tables)".into());
    }
    if let Some(p) = &args.json {
        writable("--json", p)?;
    }
    if let Some(p) = &args.report {
        writable("--report", p)?;
    }
    if let Some(p) = &args.write_pool {
        writable("--write-pool", p)?;
    }
    within("--nodes", args.nodes, 1, MAX_NODES)?;
    within("--jobs", args.jobs, 1, MAX_JOBS)?;
    if let Some(n) = args.limit_jobs {
        within("--limit-jobs", n, 1, MAX_JOBS)?;
    }
    within("--max-maps", args.max_maps as u64, 1, MAX_TASKS_PER_JOB)?;
    within("--mrosa-maps", args.mrosa_maps as u64, 1, MAX_TASKS_PER_JOB)?;
    within(
        "--dataset-blocks",
        args.dataset_blocks as u64,
        1,
        MAX_TASKS_PER_JOB,
    )?;
    within("--dataset-pool", args.dataset_pool, 0, MAX_JOBS)?;
    if !(args.dataset_zipf.is_finite() && (0.0..=MAX_ZIPF_S).contains(&args.dataset_zipf)) {
        return Err(format!(
            "--dataset-zipf {} is out of range: must be 0 to {MAX_ZIPF_S}",
            args.dataset_zipf
        ));
    }
    if args.dataset_pool > 0 && args.workload != "synthetic" {
        return Err(format!(
            "--dataset-pool is for --workload synthetic, not {} (swim reads a trace's dataset column; facebook has --dataset-blocks)",
            args.workload
        ));
    }
    within("--block-mb", args.block_mb, 1, MAX_BLOCK_MB)?;
    within("--replication", args.replication, 1, MAX_REPLICATION)?;
    if matches!(args.workload.as_str(), "facebook" | "swim" | "synthetic")
        && args.replication > args.nodes
    {
        return Err(format!(
            "--replication {} is more than --nodes {}: HDFS could place only {} replicas",
            args.replication, args.nodes, args.nodes
        ));
    }
    within(
        "--bytes-per-reduce-mb",
        args.bytes_per_reduce_mb,
        1,
        MAX_JOB_BYTES >> 20,
    )?;
    // td splits its queue into 128 MB blocks: the whole queue must fit the task limit
    within("--input-gb", args.input_gb, 1, MAX_TOTAL_TASKS * 128 / 1024)?;
    within("--node-memory-mb", args.node_memory_mb, 1, MAX_MEMORY_MB)?;
    within("--node-vcores", args.node_vcores, 1, MAX_VCORES)?;
    for (flag, v) in [
        ("--am-memory-mb", args.am_memory_mb),
        ("--map-memory-mb", args.map_memory_mb),
        ("--reduce-memory-mb", args.reduce_memory_mb),
    ] {
        within(flag, v, 1, MAX_MEMORY_MB)?;
    }
    for (flag, v) in [
        ("--heartbeat-ms", args.heartbeat_ms),
        ("--am-heartbeat-ms", args.am_heartbeat_ms),
    ] {
        within(flag, v, 1, MAX_INTERVAL_MS)?;
    }
    within("--am-launch-ms", args.am_launch_ms, 0, MAX_INTERVAL_MS)?;
    within(
        "--task-overhead-ms",
        args.task_overhead_ms,
        0,
        MAX_INTERVAL_MS,
    )?;
    within(
        "--sample-ms",
        args.sample_ms,
        MIN_SAMPLE_MS,
        MAX_INTERVAL_MS,
    )?;
    within("--stall-s", args.stall_s, 1, HORIZON_MS / 1000)?;
    if let Some(g) = args.mean_gap_ms {
        if !(g.is_finite() && g >= 0.0 && g <= HORIZON_MS as f64) {
            return Err(format!(
                "--mean-gap-ms {g} is out of range: must be 0 to {HORIZON_MS}"
            ));
        }
    }
    if !(args.filter.is_finite() && (0.0..=1000.0).contains(&args.filter)) {
        return Err(format!(
            "--filter {} is out of range: must be 0 to 1000",
            args.filter
        ));
    }
    Ok(())
}

pub fn config(args: &Args, cluster: &Cluster) -> Result<SimConfig, String> {
    check_args(args)?;
    if !(0.0..=1.0).contains(&args.slowstart) {
        return Err(format!(
            "--slowstart {} must be between 0 and 1",
            args.slowstart
        ));
    }
    let mut failures = Vec::new();
    for f in &args.fail_node_at {
        let (node, at) = f
            .split_once('@')
            .ok_or_else(|| format!("--fail-node-at {f:?}: expected NODE@SECONDS"))?;
        let secs: f64 = at
            .trim()
            .parse()
            .map_err(|_| format!("--fail-node-at {f:?}: {at:?} is not a number of seconds"))?;
        if !(secs.is_finite() && secs >= 0.0 && secs * 1000.0 <= crate::limits::HORIZON_MS as f64) {
            return Err(format!(
                "--fail-node-at {f:?}: {at} s must be 0 to {} s (the horizon)",
                crate::limits::HORIZON_MS / 1000
            ));
        }
        let idx = match node.trim().parse::<usize>() {
            Ok(i) if i >= 1 && i <= cluster.nodes.len() => i - 1,
            Ok(i) => {
                return Err(format!(
                    "--fail-node-at {f:?}: node {i} not in 1..={}",
                    cluster.nodes.len()
                ))
            }
            Err(_) => cluster
                .nodes
                .iter()
                .position(|n| n.host == node.trim())
                .ok_or_else(|| format!("--fail-node-at {f:?}: no node named {node:?}"))?,
        };
        failures.push((idx, (secs * 1000.0) as u64));
    }
    let (heartbeat_ms, am_heartbeat_ms, slowstart) = if args.workload == "demo" {
        // The embedded cluster's own settings (EmbeddedCluster.configureYarn).
        let y = demo::definition()?.yarn;
        (y.node_heartbeat_ms, y.am_heartbeat_ms, y.reduce_slowstart)
    } else {
        (args.heartbeat_ms, args.am_heartbeat_ms, args.slowstart)
    };
    Ok(SimConfig {
        heartbeat_ms,
        am_heartbeat_ms,
        am_launch_ms: args.am_launch_ms,
        task_overhead_ms: args.task_overhead_ms,
        slowstart,
        map_mb_per_s: positive("--map-mb-per-s", args.map_mb_per_s)?,
        reduce_mb_per_s: positive("--reduce-mb-per-s", args.reduce_mb_per_s)?,
        bw: Bandwidths {
            disk: positive("--disk-mb-per-s", args.disk_mb_per_s)?,
            serve: positive("--serve-mb-per-s", args.serve_mb_per_s)?,
            nic: positive("--nic-mb-per-s", args.nic_mb_per_s)?,
            uplink: match (args.uplink_mb_per_s, args.oversubscription) {
                (Some(_), Some(_)) => return Err(
                    "--uplink-mb-per-s and --oversubscription both set a rack's uplink; give one"
                        .into(),
                ),
                (Some(mb), None) => Uplink::PerRack(positive("--uplink-mb-per-s", mb)?),
                (None, Some(r)) => Uplink::Oversubscription(positive("--oversubscription", r)?),
                (None, None) => Uplink::PerRack(DEFAULT_UPLINK_MB_PER_S),
            },
            remote: positive("--remote-mb-per-s", args.remote_mb_per_s)?,
        },
        hotspot_readers: args.hotspot_readers,
        failures,
        sample_ms: args.sample_ms,
        stall_ms: args.stall_s * 1000,
        progress: !args.no_progress,
        seed: args.seed,
        queue_assignment: args.queue_assignment.parse::<QueueAssignment>()?,
        // CapacityScheduler's defaults for the monitor's keys.
        preemption: Default::default(),
    })
}

pub fn workload(args: &Args) -> Result<Workload, String> {
    check_args(args)?;
    let w = build_workload(args)?;
    crate::limits::check_workload(&w)?;
    Ok(w)
}

fn build_workload(args: &Args) -> Result<Workload, String> {
    let mb = 1024 * 1024;
    let shape = Shape {
        block_bytes: args.block_mb * mb,
        replication: args.replication,
        placement: args.placement.parse::<Placement>()?,
        bytes_per_reduce: args.bytes_per_reduce_mb * mb,
        filter: if args.filter.is_finite() && args.filter >= 0.0 {
            args.filter
        } else {
            return Err(format!("--filter {} must be 0 or more", args.filter));
        },
        am: Resource::new(args.am_memory_mb, 1),
        map: Resource::new(args.map_memory_mb, 1),
        reduce: Resource::new(args.reduce_memory_mb, 1),
    };
    let cap = Resource::new(args.node_memory_mb, args.node_vcores);
    let mut rng = Rng::new(args.seed);
    let cluster = || Cluster::uniform(args.nodes, args.racks, args.datacenters, cap);
    match args.workload.as_str() {
        "demo" => demo::definition().and_then(|d| demo::build(&d)),
        "facebook" => facebook::generate(
            cluster()?,
            &shape,
            &facebook::Params {
                bins: args.fb_bins,
                mean_gap_ms: args.mean_gap_ms.unwrap_or(14_000.0),
                dataset_blocks: args.dataset_blocks,
            },
            &mut rng,
        ),
        "swim" => swim::load(&args.trace, cluster()?, &shape, args.limit_jobs, &mut rng),
        "sls" => sls::load(&args.trace, &shape, cap),
        "synthetic" => synthetic::generate(
            cluster()?,
            &shape,
            &synthetic::Params {
                jobs: args.jobs,
                mean_gap_ms: args.mean_gap_ms,
                max_maps: args.max_maps,
                pool: (args.dataset_pool > 0).then_some((args.dataset_pool, args.dataset_zipf)),
            },
            &mut rng,
        ),
        "joss-small" => joss::generate("small", &mut rng),
        "joss-mixed" => joss::generate("mixed", &mut rng),
        "mrosa-exp1" => mrosa::generate("exp1", args.deadline_s.unwrap_or(150), 0, &mut rng),
        "mrosa-exp2" => mrosa::generate("exp2", args.deadline_s.unwrap_or(150), 0, &mut rng),
        "mrosa-exp3" => mrosa::generate(
            "exp3",
            args.deadline_s.unwrap_or(mrosa::EXP3_DEADLINE_S),
            args.mrosa_maps,
            &mut rng,
        ),
        "td-small" => td::generate("small", args.input_gb, args.td_max_demand, &mut rng),
        "td-mix" => td::generate("mix", args.input_gb, args.td_max_demand, &mut rng),
        "td-large" => td::generate("large", args.input_gb, args.td_max_demand, &mut rng),
        w if w.starts_with("fresh-") => fresh::generate(&w["fresh-".len()..], args.nodes, &mut rng),
        other => Err(format!(
            "unknown --workload {other:?}; allowed: {}",
            WORKLOADS.join(", ")
        )),
    }
}

/// QoS satisfaction needs the workload beside the run (each job's deadline tag).
pub fn annotate(s: &mut Summary, w: &Workload, raw: &Raw) {
    let jobs: Vec<(u64, Option<u64>, Option<f64>)> = w
        .jobs
        .iter()
        .zip(raw.submit_ms.iter().zip(&raw.finish_ms))
        .map(|(j, (&sub, &fin))| (sub, fin, j.deadline_secs()))
        .collect();
    s.qos_satisfaction = crate::metrics::qos_satisfaction(&jobs);
}

/// Each node's price in $/s when `pool` lists it as a running public node, read with the core's
/// own parser so the simulator prices exactly the hosts the core treats as public. A host the
/// pool names but the cluster lacks is refused: MROSA would plan with a node that never comes.
pub fn node_prices(cluster: &Cluster, path: &str) -> Result<Vec<Option<f64>>, String> {
    let pool = locus_core::config::load_public_pool(std::path::Path::new(path))
        .map_err(|e| e.to_string())?;
    if let Some(h) = pool
        .nodes
        .keys()
        .find(|h| !cluster.nodes.iter().any(|n| &n.host == *h))
    {
        return Err(format!(
            "public pool {path} names host {h}, which is not a node of this cluster"
        ));
    }
    Ok(cluster
        .nodes
        .iter()
        .map(|n| pool.nodes.get(&n.host).map(|t| t.price_per_sec))
        .collect())
}

pub struct Outcome {
    pub workload: Workload,
    pub raws: Vec<Raw>,
    pub summaries: Vec<Summary>,
    pub table: String,
}

pub fn run(args: &Args) -> Result<Outcome, String> {
    let w = workload(args)?;
    run_on(args, w)
}

/// Runs an already built (and so already checked) workload under every policy.
pub fn run_on(args: &Args, w: Workload) -> Result<Outcome, String> {
    let pols = policies(args)?;
    let cfg = config(args, &w.cluster)?;
    let mut raws = Vec::new();
    if args.workload == "mrosa-exp3" && args.public_pool.is_none() {
        return Err(format!(
            "{} is a hybrid cluster: pass --public-pool FILE (write it with --write-pool FILE --workload mrosa-exp3)",
            args.workload
        ));
    }
    for (label, mut props) in pols {
        crate::cs_default::fit_to_cluster(&mut props, w.cluster.nodes.len());
        let pool = args
            .public_pool
            .as_deref()
            .or(props.get(MROSA_PUBLIC_FILE).map(String::as_str))
            .filter(|p| !p.is_empty())
            .map(str::to_string);
        let mut engine = Engine::new(&w, &cfg, &label, props)?;
        if let Some(path) = pool {
            engine = engine.price_public_nodes(node_prices(&w.cluster, &path)?)?;
        }
        raws.push(engine.run().map_err(|e| format!("policy {label}: {e}"))?);
    }
    let several_dcs = w.cluster.dc_count > 1;
    let baseline = report::summarise(&raws[0], None, several_dcs, false)
        .turnaround
        .mean_s;
    let summaries: Vec<Summary> = raws
        .iter()
        .map(|r| {
            let mut s = report::summarise(r, Some(baseline), several_dcs, !args.no_timing);
            annotate(&mut s, &w, r);
            s
        })
        .collect();
    let title = format!(
        "{} on {} nodes ({} racks, {} datacenters), {} jobs, seed {}",
        w.name,
        w.cluster.nodes.len(),
        w.cluster.racks.len(),
        w.cluster.dc_count,
        w.jobs.len(),
        args.seed
    );
    let table = report::table(&title, &summaries);
    Ok(Outcome {
        workload: w,
        raws,
        summaries,
        table,
    })
}

pub fn json(outcome: &Outcome) -> Result<String, String> {
    let doc = serde_json::json!({
        "workload": outcome.workload.name,
        "nodes": outcome.workload.cluster.nodes.len(),
        "jobs": outcome.workload.jobs.len(),
        "runs": outcome.summaries,
    });
    serde_json::to_string_pretty(&doc).map_err(|e| format!("cannot encode JSON: {e}"))
}
