//! SWIM trace replay (`FB-2009_samples_24_times_1hr_0.tsv`): tab-separated job id, submit
//! time (s), gap (s), map input bytes, shuffle bytes, reduce output bytes, and optionally the
//! anonymised input path (`FB-2010_samples_24_times_1hr_withInputPaths_0.tsv`). Maps = one per
//! block of input (at least one); reduces = one per `bytes_per_reduce` of shuffle. Jobs naming
//! the same input path read the same dataset (`datasets`); a job without one reads its own file.

use crate::cluster::Cluster;
use crate::rng::Rng;
use crate::workload::datasets::Datasets;
use crate::workload::{Bytes, Shape, Workload};

/// One trace line: job id, submit time (ms) and its data volumes.
pub struct SwimJob {
    pub id: String,
    /// The 1-based trace line, for messages.
    pub line: usize,
    pub submit_ms: u64,
    pub bytes: Bytes,
    /// Column 7, the input path: jobs naming the same one read the same blocks.
    pub dataset: Option<String>,
}

pub fn parse(text: &str, source: &str) -> Result<Vec<SwimJob>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let bad = |why: &str| format!("{source}:{} (line {}): {why}: {line:?}", i + 1, i + 1);
        if f.len() < 6 {
            return Err(bad(&format!(
                "{} fields, expected 6 (id, submit s, gap s, input, shuffle, output bytes)",
                f.len()
            )));
        }
        // the column is named as the header of the SWIM format has it, with its 1-based number
        let num = |k: usize, what: &str, max: u64| {
            let v = f[k].trim().parse::<u64>().map_err(|_| {
                bad(&format!(
                    "column {} ({what}) {:?} is not a whole number",
                    k + 1,
                    f[k]
                ))
            })?;
            if v > max {
                return Err(bad(&format!(
                    "column {} ({what}) {v} is more than the simulator's limit of {max} (sim/src/limits.rs)",
                    k + 1
                )));
            }
            Ok(v)
        };
        let submit_s = num(1, "submit time s", crate::limits::HORIZON_MS / 1000)
            .map_err(|e| format!("{e}; submit times past the horizon of 31 days are refused"))?;
        rows.push(SwimJob {
            id: f[0].to_string(),
            line: i + 1,
            submit_ms: submit_s * 1000,
            bytes: Bytes {
                input: num(3, "input bytes", crate::limits::MAX_JOB_BYTES)?,
                shuffle: num(4, "shuffle bytes", crate::limits::MAX_JOB_BYTES)?,
                output: num(5, "output bytes", crate::limits::MAX_JOB_BYTES)?,
            },
            dataset: f
                .get(6)
                .map(|p| p.trim())
                .filter(|p| !p.is_empty())
                .map(str::to_string),
        });
    }
    if rows.is_empty() {
        return Err(format!("{source}: no jobs"));
    }
    Ok(rows)
}

pub fn load(
    path: &str,
    cluster: Cluster,
    shape: &Shape,
    limit: Option<usize>,
    rng: &mut Rng,
) -> Result<Workload, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read SWIM trace {path}: {e}"))?;
    let mut rows = parse(&text, path)?;
    if let Some(n) = limit {
        rows.truncate(n);
    }
    // sizes are checked on every line before any job is built, so a bad line allocates nothing
    let mut budget = crate::limits::TaskBudget::default();
    for j in &rows {
        let at = |col: &str| format!("{path}:{} column {col}", j.line);
        let maps = j.bytes.input.div_ceil(shape.block_bytes).max(1);
        if maps > crate::limits::MAX_TASKS_PER_JOB {
            return Err(format!(
                "{}: {} bytes make {maps} maps at --block-mb {}; a job may have at most {}",
                at("4 (input bytes)"),
                j.bytes.input,
                shape.block_bytes >> 20,
                crate::limits::MAX_TASKS_PER_JOB
            ));
        }
        let reduces = j.bytes.shuffle.div_ceil(shape.bytes_per_reduce);
        if reduces > crate::limits::MAX_TASKS_PER_JOB {
            return Err(format!(
                "{}: {} bytes make {reduces} reduces at --bytes-per-reduce-mb {}; a job may have at most {}",
                at("5 (shuffle bytes)"),
                j.bytes.shuffle,
                shape.bytes_per_reduce >> 20,
                crate::limits::MAX_TASKS_PER_JOB
            ));
        }
        budget.take(maps + reduces, || format!("{path}:{}", j.line))?;
    }
    let mut datasets = Datasets::default();
    let jobs = rows
        .into_iter()
        .map(|j| match &j.dataset {
            Some(d) => datasets.job(d, shape, &cluster, rng, j.id, j.submit_ms, j.bytes),
            None => shape.job_with_own_input(&cluster, rng, j.id, j.submit_ms, j.bytes),
        })
        .collect();
    let shared = if datasets.is_empty() {
        String::new()
    } else {
        format!(", {} datasets", datasets.len())
    };
    Ok(Workload {
        name: format!("swim {path}{shared}"),
        cluster,
        jobs,
    })
}
