//! SWIM trace replay (`FB-2009_samples_24_times_1hr_0.tsv`): tab-separated job id, submit
//! time (s), gap (s), map input bytes, shuffle bytes, reduce output bytes. Maps = one per
//! block of input (at least one); reduces = one per `bytes_per_reduce` of shuffle.

use crate::cluster::Cluster;
use crate::rng::Rng;
use crate::workload::{Bytes, Shape, Workload};

/// One trace line: job id, submit time (ms) and its data volumes.
pub struct SwimJob {
    pub id: String,
    pub submit_ms: u64,
    pub bytes: Bytes,
}

pub fn parse(text: &str, source: &str) -> Result<Vec<SwimJob>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let bad = |why: &str| format!("{source} line {}: {why}: {line:?}", i + 1);
        if f.len() < 6 {
            return Err(bad(&format!(
                "{} fields, expected 6 (id, submit s, gap s, input, shuffle, output bytes)",
                f.len()
            )));
        }
        let num = |k: usize, what: &str| {
            f[k].trim()
                .parse::<u64>()
                .map_err(|_| bad(&format!("{what} {:?} is not a whole number", f[k])))
        };
        rows.push(SwimJob {
            id: f[0].to_string(),
            submit_ms: num(1, "submit time")? * 1000,
            bytes: Bytes {
                input: num(3, "input bytes")?,
                shuffle: num(4, "shuffle bytes")?,
                output: num(5, "output bytes")?,
            },
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
    let jobs = rows
        .into_iter()
        .map(|j| shape.job_with_own_input(&cluster, rng, j.id, j.submit_ms, j.bytes))
        .collect();
    Ok(Workload {
        name: format!("swim {path}"),
        cluster,
        jobs,
    })
}
