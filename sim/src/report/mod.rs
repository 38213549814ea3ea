//! Turns a run's raw measurements into the summary (table, JSON) and the HTML report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::engine::Raw;
use crate::metrics::{mean, percentile, stddev};

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

fn turnarounds(raw: &Raw) -> Vec<f64> {
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

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn jtt_cdf(raws: &[Raw]) -> String {
    let (w, h, pad) = (640.0, 320.0, 45.0);
    let all: Vec<Vec<f64>> = raws.iter().map(turnarounds).collect();
    let max = all.iter().flatten().copied().fold(1.0f64, f64::max);
    let mut s =
        format!("<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' font-size='11'>");
    let _ = write!(
        s,
        "<line x1='{pad}' y1='{}' x2='{}' y2='{}' stroke='black'/>",
        h - pad,
        w - 10.0,
        h - pad
    );
    let _ = write!(
        s,
        "<line x1='{pad}' y1='10' x2='{pad}' y2='{}' stroke='black'/>",
        h - pad
    );
    let _ = write!(
        s,
        "<text x='{}' y='{}'>job turnaround (s), max {max:.0}</text>",
        w / 2.0 - 60.0,
        h - 10.0
    );
    let _ = write!(s, "<text x='5' y='15'>CDF</text>");
    for (i, v) in all.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        let mut pts = String::new();
        for (k, x) in v.iter().enumerate() {
            let px = pad + x / max * (w - pad - 10.0);
            let py = h - pad - (k + 1) as f64 / v.len() as f64 * (h - pad - 10.0);
            let _ = write!(pts, "{px:.1},{py:.1} ");
        }
        let c = COLOURS[i % COLOURS.len()];
        let _ = write!(
            s,
            "<polyline fill='none' stroke='{c}' stroke-width='1.5' points='{pts}'/>"
        );
        let _ = write!(
            s,
            "<text x='{}' y='{}' fill='{c}'>{}</text>",
            w - 200.0,
            h - pad - 20.0 - 14.0 * i as f64,
            esc(&raws[i].label)
        );
    }
    s.push_str("</svg>");
    s
}

fn locality_bars(sums: &[Summary]) -> String {
    let (w, row) = (640.0, 26.0);
    let h = 30.0 + row * sums.len() as f64;
    let mut s =
        format!("<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' font-size='11'>");
    let _ = write!(s, "<text x='160' y='12' fill='#2ca02c'>node</text><text x='210' y='12' fill='#ff7f0e'>rack/dc</text><text x='270' y='12' fill='#d62728'>off</text>");
    for (i, m) in sums.iter().enumerate() {
        let y = 20.0 + row * i as f64;
        let _ = write!(s, "<text x='5' y='{}'>{}</text>", y + 15.0, esc(&m.label));
        let mut x = 160.0;
        for (share, c) in [
            (m.map_locality.node_share, "#2ca02c"),
            (m.map_locality.rack_or_dc_share, "#ff7f0e"),
            (m.map_locality.off_share, "#d62728"),
        ] {
            let bw = share * (w - 170.0);
            let _ = write!(s, "<rect x='{x:.1}' y='{y}' width='{bw:.1}' height='{}' fill='{c}'><title>{:.1}%</title></rect>", row - 6.0, share * 100.0);
            x += bw;
        }
    }
    s.push_str("</svg>");
    s
}

fn share_over_time(raw: &Raw) -> String {
    let (w, h, pad) = (640.0, 180.0, 35.0);
    let tmax = raw.timeline.last().map_or(1, |t| t.0).max(1) as f64;
    let ymax = raw
        .timeline
        .iter()
        .map(|t| (t.1 + t.2) as f64)
        .fold(1.0f64, f64::max);
    let mut s =
        format!("<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' font-size='11'>");
    let _ = write!(
        s,
        "<line x1='{pad}' y1='{}' x2='{}' y2='{}' stroke='black'/>",
        h - pad,
        w - 10.0,
        h - pad
    );
    let _ = write!(
        s,
        "<text x='{}' y='{}'>time (s), max {:.0}; running containers, max {ymax:.0}</text>",
        pad,
        h - 10.0,
        tmax / 1000.0
    );
    for (k, c, name) in [(1usize, "#1f77b4", "maps"), (2, "#d62728", "reduces")] {
        let mut pts = String::new();
        for t in &raw.timeline {
            let v = if k == 1 { t.1 } else { t.2 } as f64;
            let px = pad + t.0 as f64 / tmax * (w - pad - 10.0);
            let py = h - pad - v / ymax * (h - pad - 10.0);
            let _ = write!(pts, "{px:.1},{py:.1} ");
        }
        let _ = write!(s, "<polyline fill='none' stroke='{c}' points='{pts}'/>");
        let _ = write!(
            s,
            "<text x='{}' y='{}' fill='{c}'>{name}</text>",
            w - 80.0,
            if k == 1 { 20 } else { 34 }
        );
    }
    s.push_str("</svg>");
    s
}

/// A self-contained HTML page: the table, the JTT CDF, locality bars, and map/reduce running
/// containers over time for each policy.
pub fn html(workload: &str, table_text: &str, sums: &[Summary], raws: &[Raw]) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>locus-sim report</title>",
    );
    s.push_str("<style>body{font-family:sans-serif;margin:20px}pre{background:#f6f6f6;padding:8px}</style></head><body>");
    let _ = write!(
        s,
        "<h1>locus-sim: {}</h1><pre>{}</pre>",
        esc(workload),
        esc(table_text)
    );
    let _ = write!(s, "<h2>Job turnaround CDF</h2>{}", jtt_cdf(raws));
    let _ = write!(s, "<h2>Map locality</h2>{}", locality_bars(sums));
    s.push_str("<h2>Running map and reduce containers over time</h2>");
    for r in raws {
        let _ = write!(s, "<h3>{}</h3>{}", esc(&r.label), share_over_time(r));
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Distance;

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
