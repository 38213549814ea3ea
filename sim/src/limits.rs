//! Every bound the simulator puts on its input, in one place, each with where its figure comes
//! from. A value past a bound is refused before anything runs, with a message naming the flag
//! or the trace line and column, so a typo cannot turn into an allocation abort or a run that
//! never ends. docs/design/simulator.md ("Input limits") lists the same table for users.

use crate::workload::Workload;

/// Milliseconds in one day.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// The latest a job may be submitted: 31 days after the run starts. The public traces are
/// shorter (SWIM's FB-2009/2010 samples span one day; Google's 2011 cluster trace 29 days), and
/// while the cluster waits for a far-off submission the simulator still samples every
/// `--sample-ms`, so a submit time of years (a ms/s mix-up) would run for hours.
pub const HORIZON_MS: u64 = 31 * DAY_MS;

/// Nodes in one simulated cluster. The documented largest run is 10,000 nodes; YARN's biggest
/// single clusters reported in public are a few tens of thousands (federation beyond that).
pub const MAX_NODES: usize = 50_000;

/// Jobs in one workload (`--jobs`, trace lines, SLS `job.count`). The FB-2009 day holds 5,894;
/// the documented 10,000-node run 10,000.
pub const MAX_JOBS: usize = 1_000_000;

/// Maps, or reduces, of one job. Hadoop caps a job's split meta-info file at 10 MB
/// (`mapreduce.job.split.metainfo.maxsize`), on the order of 10^5 splits with three hosts each;
/// the FB-2009 trace's largest job has 56,262 maps at 128 MB blocks. A million keeps headroom
/// and one job's specs under about 100 MB.
pub const MAX_TASKS_PER_JOB: u64 = 1_000_000;

/// Tasks (maps + reduces) of the whole workload. The largest documented run (synthetic, 10,000
/// jobs up to 4,800 maps) has about 1.75 M tasks and peaks at 664 MB RSS; 5 M is about three
/// times that, about 2 GB.
pub const MAX_TOTAL_TASKS: u64 = 5_000_000;

/// HDFS's own bounds on a file's replication: at least 1, at most `dfs.replication.max` (512).
pub const MAX_REPLICATION: usize = 512;

/// HDFS block size bounds: `dfs.namenode.fs-limits.min-block-size` is 1 MB; the upper bound is
/// `dfs.namenode.fs-limits.max-block-size`, 32 TB.
pub const MAX_BLOCK_MB: u64 = 32 * 1024 * 1024;

/// Bytes in one trace column (input, shuffle, output of one job): 1 PiB. The FB-2009 trace's
/// largest is 7.6 TB; a value near u64::MAX is a corrupt line, not a job.
pub const MAX_JOB_BYTES: u64 = 1 << 50;

/// Memory of one node or container, MB: 16 TiB, far above any server YARN runs on, and small
/// enough that the core's sums over `MAX_NODES` nodes cannot overflow.
pub const MAX_MEMORY_MB: u64 = 16 * 1024 * 1024;

/// Vcores of one node: far above any server; the core sums them in u32 over `MAX_NODES`.
pub const MAX_VCORES: u32 = 4096;

/// Heartbeat, launch and overhead intervals, and the sampling period: at most one hour (YARN's
/// defaults are 1 s heartbeats).
pub const MAX_INTERVAL_MS: u64 = 3600 * 1000;

/// The sampling period's lower bound: 100 ms. Samples are kept for the whole run, so a 1 ms
/// period over a day would hold 86 M of them.
pub const MIN_SAMPLE_MS: u64 = 100;

/// The largest Zipf exponent `--dataset-zipf` takes: at 10 the most popular dataset already
/// draws 99.9 % of the jobs, so anything larger is a typo, not a workload.
pub const MAX_ZIPF_S: f64 = 10.0;

/// A whole number flag in `lo..=hi`, or an error naming the flag and the bounds.
pub fn within<T>(flag: &str, v: T, lo: T, hi: T) -> Result<T, String>
where
    T: PartialOrd + std::fmt::Display + Copy,
{
    if v < lo || v > hi {
        Err(format!("{flag} {v} is out of range: must be {lo} to {hi}"))
    } else {
        Ok(v)
    }
}

/// A submit time in ms, or an error (prefixed by the caller with the flag or trace line).
pub fn submit_time(ms: u64) -> Result<u64, String> {
    if ms > HORIZON_MS {
        Err(format!(
            "submit time {} s is past the simulator's horizon of {} s (31 days)",
            ms / 1000,
            HORIZON_MS / 1000
        ))
    } else {
        Ok(ms)
    }
}

/// The whole-workload bounds every source must meet; the readers and generators check the
/// same bounds earlier, before allocating, and name the line; this is the shared last word.
pub fn check_workload(w: &Workload) -> Result<(), String> {
    if w.jobs.len() > MAX_JOBS {
        return Err(format!(
            "{}: {} jobs, more than the simulator's limit of {MAX_JOBS}",
            w.name,
            w.jobs.len()
        ));
    }
    if w.cluster.nodes.len() > MAX_NODES {
        return Err(format!(
            "{}: {} nodes, more than the simulator's limit of {MAX_NODES}",
            w.name,
            w.cluster.nodes.len()
        ));
    }
    let mut tasks: u64 = 0;
    for j in &w.jobs {
        submit_time(j.submit_ms).map_err(|e| format!("{}: job {}: {e}", w.name, j.name))?;
        tasks += (j.maps.len() + j.reduces.len()) as u64;
    }
    if tasks > MAX_TOTAL_TASKS {
        return Err(format!(
            "{}: {tasks} tasks, more than the simulator's limit of {MAX_TOTAL_TASKS}",
            w.name
        ));
    }
    Ok(())
}

/// Counts a workload's tasks while it is built, so a reader or generator stops at the job that
/// passes the limit instead of allocating the rest.
#[derive(Debug, Default)]
pub struct TaskBudget {
    used: u64,
}

impl TaskBudget {
    /// Takes `n` tasks; `culprit` names what is being added when the total passes the limit.
    pub fn take(&mut self, n: u64, culprit: impl FnOnce() -> String) -> Result<(), String> {
        self.used = self.used.saturating_add(n);
        if self.used > MAX_TOTAL_TASKS {
            Err(format!(
                "{}: the workload passes the simulator's limit of {MAX_TOTAL_TASKS} tasks (maps + reduces) there",
                culprit()
            ))
        } else {
            Ok(())
        }
    }
}
