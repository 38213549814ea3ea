//! Turns a run's raw measurements into the summary (table, JSON) and the HTML report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::engine::Raw;
use crate::metrics::{mean, percentile, stddev};

mod html;
pub use html::html;

#[derive(Debug, Clone, Serialize)]
pub struct MapLocality {
    pub node: u64,
    pub rack: u64,
    pub datacenter: u64,
    pub remote: u64,
    /// Shares of all map attempts that read input: on the node; on the rack (or, with several
    /// datacenters, anywhere in the same datacenter); elsewhere.
    pub node_share: f64,
    pub rack_or_dc_share: f64,
    pub off_share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Turnaround {
    pub mean_s: f64,
    pub p50_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
    /// Mean turnaround over the baseline run's (the first policy listed).
    pub normalised_mean: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    pub wall_s: f64,
    pub events_per_s: f64,
    pub decision_us_mean: f64,
    pub decision_us_p50: f64,
    pub decision_us_p99: f64,
    pub decision_us_max: f64,
    /// Share of wall time spent inside the core's heartbeat, asks_updated and other events.
    pub core_heartbeat_share: f64,
    pub core_snapshot_share: f64,
    pub core_event_share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub label: String,
    pub properties: BTreeMap<String, String>,
    pub jobs: usize,
    pub finished: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalled: Option<String>,
    pub map_locality: MapLocality,
    /// Containers by the locality the core decided (YARN's NodeType), all priorities.
    pub core_locality: BTreeMap<String, u64>,
    /// Shares of shuffle bytes by distance between map output and reduce.
    pub reduce_data: BTreeMap<String, f64>,
    pub inter_dc_gb: f64,
    pub turnaround: Turnaround,
    pub makespan_s: f64,
    /// Time-average of FRESH's overall fairness F(T) (eq. 1 + Jain) over samples with two or
    /// more active jobs; null when there never were two.
    pub fairness: Option<f64>,
    pub hotspots: u64,
    /// Hotspot occurrences in each fifth of the makespan (TD Table I's stages).
    pub hotspots_by_stage: [u64; 5],
    pub node_tasks_stddev: f64,
    pub map_task_mean_s: f64,
    pub events: u64,
    pub heartbeats: u64,
    pub core_heartbeats: u64,
    pub decisions: u64,
    pub rejected_decisions: u64,
    pub task_attempts: u64,
    pub unused_containers: u64,
    pub preempted_reduces: u64,
    pub lost_tasks: u64,
    /// Containers the RM's preemption rounds killed, and the task time lost with them.
    pub preempted_containers: u64,
    pub preempted_work_s: f64,
    pub asks_snapshots: u64,
    pub asks_snapshot_rows: u64,
    pub simulated_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// Share of deadline jobs that met their deadline (`None`: no job has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos_satisfaction: Option<f64>,
    /// Task attempts started on public-cloud nodes, the hosts a public pool file names as
    /// running (`None`: no public pool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_tasks: Option<u64>,
    /// Dollars: the sum over task attempts on public nodes of run time × the node's price
    /// (`metrics::attempt_cost`; `None`: no public pool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_cost: Option<f64>,
}

pub(crate) fn turnarounds(raw: &Raw) -> Vec<f64> {
    let mut v: Vec<f64> = raw
        .finish_ms
        .iter()
        .zip(&raw.submit_ms)
        .filter_map(|(f, &s)| f.map(|f| (f - s) as f64 / 1000.0))
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

pub fn summarise(
    raw: &Raw,
    baseline_mean: Option<f64>,
    several_dcs: bool,
    timing: bool,
) -> Summary {
    let jtt = turnarounds(raw);
    let m = raw.traffic.maps_by_distance;
    let reading = (m[0] + m[1] + m[2] + m[3]).max(1) as f64;
    let (near, off) = if several_dcs {
        (m[1] + m[2], m[3])
    } else {
        (m[1], m[2] + m[3])
    };
    let first = raw.submit_ms.iter().copied().min().unwrap_or(0);
    let last = raw
        .finish_ms
        .iter()
        .flatten()
        .copied()
        .max()
        .unwrap_or(first);
    let makespan_ms = last.saturating_sub(first);
    let mut stages = [0u64; 5];
    for &t in &raw.hotspots {
        let i = if makespan_ms == 0 {
            0
        } else {
            ((t.saturating_sub(first)) * 5 / makespan_ms.max(1)).min(4) as usize
        };
        stages[i] += 1;
    }
    let names = ["node", "rack", "datacenter", "remote"];
    let reduce_data = names
        .iter()
        .zip(raw.traffic.reduce_shares())
        .map(|(n, share)| (n.to_string(), share))
        .collect();
    let mean_jtt = mean(&jtt).unwrap_or(0.0);
    let tasks: Vec<f64> = raw.node_tasks.iter().map(|&t| t as f64).collect();
    Summary {
        label: raw.label.clone(),
        properties: raw.props.clone(),
        jobs: raw.jobs,
        finished: raw.finished,
        stalled: raw.stalled.clone(),
        map_locality: MapLocality {
            node: m[0],
            rack: m[1],
            datacenter: m[2],
            remote: m[3],
            node_share: m[0] as f64 / reading,
            rack_or_dc_share: near as f64 / reading,
            off_share: off as f64 / reading,
        },
        core_locality: [
            ("node_local".to_string(), raw.core_node_local),
            ("rack_local".to_string(), raw.core_rack_local),
            ("off_switch".to_string(), raw.core_off_switch),
        ]
        .into_iter()
        .collect(),
        reduce_data,
        inter_dc_gb: raw.traffic.inter_dc_bytes / 1e9,
        turnaround: Turnaround {
            mean_s: mean_jtt,
            p50_s: percentile(&jtt, 50.0).unwrap_or(0.0),
            p95_s: percentile(&jtt, 95.0).unwrap_or(0.0),
            p99_s: percentile(&jtt, 99.0).unwrap_or(0.0),
            normalised_mean: match baseline_mean {
                Some(b) if b > 0.0 => mean_jtt / b,
                _ => 1.0,
            },
        },
        makespan_s: makespan_ms as f64 / 1000.0,
        fairness: mean(&raw.fairness),
        hotspots: raw.hotspots.len() as u64,
        hotspots_by_stage: stages,
        node_tasks_stddev: stddev(&tasks).unwrap_or(0.0),
        map_task_mean_s: mean(&raw.map_response_ms).unwrap_or(0.0) / 1000.0,
        events: raw.events,
        heartbeats: raw.heartbeats,
        core_heartbeats: raw.core_heartbeats,
        decisions: raw.decisions,
        rejected_decisions: raw.rejected,
        task_attempts: raw.attempts,
        unused_containers: raw.unused_containers,
        preempted_reduces: raw.preempted_reduces,
        lost_tasks: raw.lost_tasks,
        preempted_containers: raw.preempted_containers,
        preempted_work_s: raw.preempted_work_ms as f64 / 1000.0,
        asks_snapshots: raw.snapshots,
        asks_snapshot_rows: raw.snapshot_rows,
        simulated_s: raw.end_ms as f64 / 1000.0,
        timing: timing.then(|| Timing {
            wall_s: raw.wall_s,
            events_per_s: raw.events as f64 / raw.wall_s.max(1e-9),
            decision_us_mean: raw.decision_us.mean(),
            decision_us_p50: raw.decision_us.percentile(50.0),
            decision_us_p99: raw.decision_us.percentile(99.0),
            decision_us_max: raw.decision_us.max(),
            core_heartbeat_share: raw.core_heartbeat_s / raw.wall_s.max(1e-9),
            core_snapshot_share: raw.core_snapshot_s / raw.wall_s.max(1e-9),
            core_event_share: raw.core_event_s / raw.wall_s.max(1e-9),
        }),
        qos_satisfaction: None,
        public_tasks: raw.public_priced.then_some(raw.public_tasks),
        public_cost: raw.public_priced.then(|| raw.job_public_cost.iter().sum()),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// What every row of [`table`] means, shown at the foot of the HTML report. A test checks that
/// every row has an entry, so a new row cannot appear unexplained.
pub(crate) const GLOSSARY: &[(&str, &str)] = &[
    ("jobs finished", "Jobs that completed before the run ended, over jobs submitted."),
    ("map locality: node", "Share of map attempts that read their input block from a replica on their own node."),
    ("map locality: rack/dc", "Share read from another node of the same rack (with several datacenters: anywhere in the same datacenter)."),
    ("map locality: off", "Share read from another rack (or datacenter): the reads that cross the core network."),
    ("reduce data on node", "Share of shuffle bytes a reduce fetched from map outputs on its own node."),
    ("inter-DC traffic (GB)", "Map input and shuffle bytes that crossed datacenters (0 with one datacenter)."),
    ("JTT mean (s)", "Job turnaround time: from submission to the job's last task finishing, mean over finished jobs."),
    ("JTT p50 (s)", "Median job turnaround."),
    ("JTT p95 (s)", "95th percentile of job turnaround: the slow tail most users notice."),
    ("JTT p99 (s)", "99th percentile of job turnaround."),
    ("JTT mean / baseline", "Mean turnaround over the first run's (the baseline column); below 1 is faster."),
    ("makespan (s)", "From the first submission to the last job finishing."),
    ("fairness (FRESH Jain)", "FRESH's overall fairness F(T): Jain's index (sum x)^2 / (n * sum x^2) of the running jobs' resource-usage shares, time-averaged over samples with two or more active jobs; 1 is perfectly even, 1/n is one job holding everything."),
    ("hotspots (TD)", "Times a node began serving more concurrent remote reads than --hotspot-readers allows: TD's hot spots, the overload the hot queue exists to avoid."),
    ("QoS: deadlines met", "Share of jobs with a deadline (MROSA) that finished by it."),
    ("tasks on public nodes", "Task attempts started on nodes the public pool file marks as rented (MROSA's hybrid cloud)."),
    ("public cost ($)", "Run time of attempts on public nodes times each node's price."),
    ("tasks/node stddev", "Population standard deviation of task attempts per node: how evenly work was spread."),
    ("map task mean (s)", "Mean time from a map attempt's start to its end, reading included."),
    ("events", "Simulation events processed (heartbeats, task ends, AM heartbeats, reads)."),
    ("core heartbeats", "Node heartbeats passed to the Locus core for a decision."),
    ("rejected decisions", "Core decisions the simulated ResourceManager refused (no matching ask, wrong size, node full); each is a core bug or a race the real RM would also refuse."),
    ("reduces preempted", "Running reduces the simulated MapReduce AM killed to make room for maps it still needed (as Hadoop's AM does when reduces started early hog the cluster)."),
    ("containers preempted", "Containers the scheduler's preemption rounds killed (locus.preemption.size-based); each one's task started over, its work so far lost (JSON preempted_work_s)."),
    ("containers unused", "Containers the core granted that the AM had no task for any more and released."),
    ("asks snapshot rows (M)", "Millions of ask-table rows sent to the core as full snapshots: the cost the delta bridge avoids."),
    ("decision µs mean", "Wall time per core call that made decisions, mean (measured on this machine)."),
    ("decision µs p99", "99th percentile of that time."),
    ("core: heartbeats", "Share of the run's wall time spent inside the core's heartbeat handling."),
    ("core: asks snapshots", "Share spent applying ask snapshots and deltas."),
    ("core: other events", "Share spent on other core events (apps, containers, nodes)."),
    ("wall time (s)", "Wall-clock time of the simulation on this machine."),
    ("events/s (M)", "Millions of simulation events per wall-clock second."),
];

/// The aligned side-by-side table printed on stdout.
pub fn table(workload: &str, sums: &[Summary]) -> String {
    let mut rows: Vec<(&str, Vec<String>)> = Vec::new();
    let col = |f: &dyn Fn(&Summary) -> String| sums.iter().map(f).collect::<Vec<_>>();
    rows.push((
        "jobs finished",
        col(&|s| format!("{}/{}", s.finished, s.jobs)),
    ));
    rows.push((
        "map locality: node",
        col(&|s| pct(s.map_locality.node_share)),
    ));
    rows.push((
        "map locality: rack/dc",
        col(&|s| pct(s.map_locality.rack_or_dc_share)),
    ));
    rows.push(("map locality: off", col(&|s| pct(s.map_locality.off_share))));
    rows.push((
        "reduce data on node",
        col(&|s| pct(s.reduce_data.get("node").copied().unwrap_or(0.0))),
    ));
    rows.push((
        "inter-DC traffic (GB)",
        col(&|s| format!("{:.2}", s.inter_dc_gb)),
    ));
    rows.push((
        "JTT mean (s)",
        col(&|s| format!("{:.1}", s.turnaround.mean_s)),
    ));
    rows.push((
        "JTT p50 (s)",
        col(&|s| format!("{:.1}", s.turnaround.p50_s)),
    ));
    rows.push((
        "JTT p95 (s)",
        col(&|s| format!("{:.1}", s.turnaround.p95_s)),
    ));
    rows.push((
        "JTT p99 (s)",
        col(&|s| format!("{:.1}", s.turnaround.p99_s)),
    ));
    rows.push((
        "JTT mean / baseline",
        col(&|s| format!("{:.3}", s.turnaround.normalised_mean)),
    ));
    rows.push(("makespan (s)", col(&|s| format!("{:.1}", s.makespan_s))));
    rows.push((
        "fairness (FRESH Jain)",
        col(&|s| s.fairness.map_or("-".into(), |f| format!("{f:.3}"))),
    ));
    rows.push(("hotspots (TD)", col(&|s| s.hotspots.to_string())));
    if sums.iter().any(|s| s.qos_satisfaction.is_some()) {
        rows.push((
            "QoS: deadlines met",
            col(&|s| s.qos_satisfaction.map_or("-".into(), pct)),
        ));
    }
    if sums.iter().any(|s| s.public_tasks.is_some()) {
        rows.push((
            "tasks on public nodes",
            col(&|s| s.public_tasks.map_or("-".into(), |n| n.to_string())),
        ));
        rows.push((
            "public cost ($)",
            col(&|s| s.public_cost.map_or("-".into(), |c| format!("{c:.6}"))),
        ));
    }
    rows.push((
        "tasks/node stddev",
        col(&|s| format!("{:.2}", s.node_tasks_stddev)),
    ));
    rows.push((
        "map task mean (s)",
        col(&|s| format!("{:.1}", s.map_task_mean_s)),
    ));
    rows.push(("events", col(&|s| s.events.to_string())));
    rows.push(("core heartbeats", col(&|s| s.core_heartbeats.to_string())));
    rows.push((
        "rejected decisions",
        col(&|s| s.rejected_decisions.to_string()),
    ));
    rows.push((
        "reduces preempted",
        col(&|s| s.preempted_reduces.to_string()),
    ));
    rows.push((
        "containers preempted",
        col(&|s| s.preempted_containers.to_string()),
    ));
    rows.push((
        "containers unused",
        col(&|s| s.unused_containers.to_string()),
    ));
    rows.push((
        "asks snapshot rows (M)",
        col(&|s| format!("{:.2}", s.asks_snapshot_rows as f64 / 1e6)),
    ));
    if sums.iter().all(|s| s.timing.is_some()) {
        let t = |s: &Summary| {
            s.timing.clone().unwrap_or(Timing {
                wall_s: 0.0,
                events_per_s: 0.0,
                decision_us_mean: 0.0,
                decision_us_p50: 0.0,
                decision_us_p99: 0.0,
                decision_us_max: 0.0,
                core_heartbeat_share: 0.0,
                core_snapshot_share: 0.0,
                core_event_share: 0.0,
            })
        };
        rows.push((
            "decision µs mean",
            col(&|s| format!("{:.1}", t(s).decision_us_mean)),
        ));
        rows.push((
            "decision µs p99",
            col(&|s| format!("{:.1}", t(s).decision_us_p99)),
        ));
        rows.push(("core: heartbeats", col(&|s| pct(t(s).core_heartbeat_share))));
        rows.push((
            "core: asks snapshots",
            col(&|s| pct(t(s).core_snapshot_share)),
        ));
        rows.push(("core: other events", col(&|s| pct(t(s).core_event_share))));
        rows.push(("wall time (s)", col(&|s| format!("{:.2}", t(s).wall_s))));
        rows.push((
            "events/s (M)",
            col(&|s| format!("{:.2}", t(s).events_per_s / 1e6)),
        ));
    }
    let head: Vec<String> = sums.iter().map(|s| s.label.clone()).collect();
    let w0 = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let widths: Vec<usize> = (0..sums.len())
        .map(|i| {
            rows.iter()
                .map(|r| r.1[i].chars().count())
                .chain([head[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "workload: {workload}");
    let _ = write!(out, "{:<w0$}", "metric");
    for (h, w) in head.iter().zip(&widths) {
        let _ = write!(out, "  {h:>w$}");
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        "-".repeat(w0 + widths.iter().map(|w| w + 2).sum::<usize>())
    );
    for (name, vals) in rows {
        let pad = w0 - name.chars().count();
        let _ = write!(out, "{name}{}", " ".repeat(pad));
        for (v, w) in vals.iter().zip(&widths) {
            let _ = write!(out, "  {v:>w$}");
        }
        out.push('\n');
    }
    for s in sums {
        if let Some(why) = &s.stalled {
            let _ = writeln!(out, "{}: stopped early: {why}", s.label);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Distance;

    #[test]
    fn every_table_row_is_explained_in_the_glossary() {
        let mut r = raw_with_jobs(&[Some(1)]);
        r.public_priced = true;
        r.job_public_cost = vec![0.5];
        let mut s = summarise(&r, None, false, true);
        s.qos_satisfaction = Some(1.0);
        let text = table("w", &[s]);
        let rows: Vec<&str> = text
            .lines()
            .skip(3)
            .filter_map(|l| l.split("  ").next())
            .map(str::trim_end)
            .collect();
        assert!(rows.len() > 25, "{text}");
        for row in rows {
            assert!(
                GLOSSARY.iter().any(|(name, _)| *name == row),
                "no glossary entry for {row:?}"
            );
        }
    }

    fn raw_with_jobs(finish_s: &[Option<u64>]) -> Raw {
        Raw {
            label: "p".into(),
            jobs: finish_s.len(),
            submit_ms: vec![0; finish_s.len()],
            finish_ms: finish_s.iter().map(|f| f.map(|s| s * 1000)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn reduce_data_shares_inter_dc_gb_and_map_locality_with_and_without_datacenters() {
        let mut r = raw_with_jobs(&[Some(1)]);
        r.traffic.shuffle(Distance::Node, 1e9);
        r.traffic.shuffle(Distance::Rack, 3e9);
        r.traffic.shuffle(Distance::Remote, 6e9);
        r.traffic.map_read(Distance::Node, 5e9);
        r.traffic.map_read(Distance::Rack, 1e9);
        r.traffic.map_read(Distance::Datacenter, 1e9);
        r.traffic.map_read(Distance::Remote, 2e9);
        let s = summarise(&r, None, true, false);
        let share = |k: &str| s.reduce_data.get(k).copied().unwrap_or(f64::NAN);
        assert_eq!(
            [
                share("node"),
                share("rack"),
                share("datacenter"),
                share("remote")
            ],
            [0.1, 0.3, 0.0, 0.6]
        );
        // 2 GB of map input and 6 GB of shuffle crossed datacenters.
        assert_eq!(s.inter_dc_gb, 8.0);
        // Four reading maps: with datacenters, "rack/dc" is rack + same datacenter ...
        let m = &s.map_locality;
        assert_eq!(
            (m.node_share, m.rack_or_dc_share, m.off_share),
            (0.25, 0.5, 0.25)
        );
        // ... and with one datacenter only the rack counts as near.
        let m = summarise(&r, None, false, false).map_locality;
        assert_eq!(
            (m.node_share, m.rack_or_dc_share, m.off_share),
            (0.25, 0.25, 0.5)
        );
    }

    #[test]
    fn per_node_task_stddev_is_the_population_stddev() {
        let mut r = raw_with_jobs(&[Some(1)]);
        r.node_tasks = vec![2, 4, 4, 4, 5, 5, 7, 9];
        assert_eq!(summarise(&r, None, false, false).node_tasks_stddev, 2.0);
        r.node_tasks = vec![3, 3, 3];
        assert_eq!(summarise(&r, None, false, false).node_tasks_stddev, 0.0);
    }

    #[test]
    fn turnaround_is_normalised_by_the_baselines_mean_over_finished_jobs() {
        // Turnarounds 10 s and 30 s; the unfinished job is not in the mean.
        let r = raw_with_jobs(&[Some(10), Some(30), None]);
        let s = summarise(&r, Some(40.0), false, false);
        assert_eq!(s.turnaround.mean_s, 20.0);
        assert_eq!(s.turnaround.normalised_mean, 0.5);
        assert_eq!(
            summarise(&r, Some(20.0), false, false)
                .turnaround
                .normalised_mean,
            1.0
        );
        // The baseline run itself, or a baseline with no finished job, is 1.
        assert_eq!(
            summarise(&r, None, false, false).turnaround.normalised_mean,
            1.0
        );
        assert_eq!(
            summarise(&r, Some(0.0), false, false)
                .turnaround
                .normalised_mean,
            1.0
        );
    }

    #[test]
    fn hotspots_are_counted_and_binned_into_fifths_of_the_makespan() {
        // Makespan 0..100 s: stages are [0, 20), [20, 40), ... [80, 100].
        let mut r = raw_with_jobs(&[Some(100)]);
        r.hotspots = vec![0, 19_999, 20_000, 55_000, 99_000, 100_000];
        let s = summarise(&r, None, false, false);
        assert_eq!(s.hotspots, 6);
        assert_eq!(s.hotspots_by_stage, [2, 1, 1, 0, 2]);
    }

    #[test]
    fn public_figures_appear_only_for_priced_runs() {
        let mut r = raw_with_jobs(&[Some(1), Some(2)]);
        r.public_tasks = 3;
        r.job_public_cost = vec![0.25, 0.5];
        assert_eq!(summarise(&r, None, false, false).public_cost, None);
        r.public_priced = true;
        let s = summarise(&r, None, false, false);
        assert_eq!((s.public_tasks, s.public_cost), (Some(3), Some(0.75)));
        assert!(table("w", &[s]).contains("public cost ($)"));
    }
}
