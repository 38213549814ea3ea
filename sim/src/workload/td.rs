//! TD's evaluation (Wang et al. 2013, Section V): job queues of word count, inverted index,
//! grep and distributed sort over 64 MB splits, 200 GB per queue by default, on 50 nodes with
//! 2 map and 2 reduce slots each; `small` jobs have ≤ 100 splits, `large` ≥ 250, `mix` 50–300.
//! The policy settings (L = 0.7, H = 1.3, θ, δ = 64 MB) are the core's `locus.td.*` defaults.
//!
//! Choices where the paper is silent (docs/results/reproduction.md):
//! - job sizes uniform in 10–100 (small), 250–400 (large), 50–300 (mix) splits, jobs drawn until
//!   the queue holds the input size; the whole queue is submitted at once, one job a second;
//! - filtering percentages of JoSS's Table 5 for the same PUMA programs (word count 1.039,
//!   inverted index 1.166, grep 0.10), sort 1.0; one reduce per GB of map output;
//! - a node (8 GB) holds four 2 GB task containers plus a 1 GB AM; two of the four are map slots
//!   through `locus.slots.map-share=0.5` (set by the suite);
//! - HDFS rack-aware placement, 3 replicas, one rack;
//! - each job's `locus.demand=` is its split count capped at [`MAX_DEMAND`] (`--td-max-demand`;
//!   0 sends none and the core takes the split count).

use locus_core::Resource;

use crate::cluster::Cluster;
use crate::hdfs::Placement;
use crate::rng::Rng;
use crate::workload::{Bytes, Shape, Workload, MB};

pub const NODES: usize = 50;
pub const SPLIT_MB: u64 = 64;
pub const DEFAULT_INPUT_GB: u64 = 200;
/// j.demand, the map slots a job expects (`locus.demand=`): by default its split count, at most
/// 35, the only bound the paper states (Section V-B: "∀j, j.demand ≤ 35" for its 200 GB queue).
pub const MAX_DEMAND: u64 = 35;
/// (application, filtering percentage).
pub const APPS: [(&str, f64); 4] = [
    ("wordcount", 1.039),
    ("invertedindex", 1.166),
    ("grep", 0.10),
    ("sort", 1.0),
];

/// Splits per job for each queue type.
pub fn sizes(kind: &str) -> Result<(u64, u64), String> {
    match kind {
        "small" => Ok((10, 100)),
        "large" => Ok((250, 400)),
        "mix" => Ok((50, 300)),
        other => Err(format!("TD job queue {other:?}: small, mix or large")),
    }
}

pub fn cluster() -> Result<Cluster, String> {
    Cluster::uniform(NODES, 1, 1, Resource::new(4 * 2048 + 1024, 5))
}

pub fn shape() -> Shape {
    Shape {
        block_bytes: SPLIT_MB * MB as u64,
        replication: 3,
        placement: Placement::RackAware,
        bytes_per_reduce: 1024 * MB as u64,
        filter: 0.0,
        am: Resource::new(1024, 1),
        map: Resource::new(2048, 1),
        reduce: Resource::new(2048, 1),
    }
}

/// `max_demand`: the cap on each job's `locus.demand=` tag; 0 sends no demand tag.
pub fn generate(
    kind: &str,
    input_gb: u64,
    max_demand: u64,
    rng: &mut Rng,
) -> Result<Workload, String> {
    let (lo, hi) = sizes(kind)?;
    if input_gb == 0 {
        return Err("TD: the queue's input must be at least 1 GB".into());
    }
    let cluster = cluster()?;
    let shape = shape();
    let total = input_gb * 1024 / SPLIT_MB;
    let mut place = rng.fork();
    let mut left = total;
    let mut jobs = Vec::new();
    while left > 0 {
        // The last job takes what is left (it may be smaller than the queue's sizes).
        let n = if left <= hi {
            left
        } else {
            lo + rng.below((hi - lo + 1) as usize) as u64
        };
        left -= n;
        let (app, fp) = APPS[rng.below(APPS.len())];
        let input = n * shape.block_bytes;
        let shuffle = (input as f64 * fp) as u64;
        let mut job = shape.job_with_own_input(
            &cluster,
            &mut place,
            app.to_string(),
            jobs.len() as u64 * 1000,
            Bytes {
                input,
                shuffle,
                output: shuffle,
            },
        );
        job.tags = vec![format!("locus.fp={fp}"), "locus.input-type=wiki".into()];
        if max_demand > 0 {
            job.tags.push(format!("locus.demand={}", n.min(max_demand)));
        }
        jobs.push(job);
    }
    Ok(Workload {
        name: format!("td-{kind} ({input_gb} GB)"),
        cluster,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_hold_the_input_in_jobs_of_their_size() {
        for kind in ["small", "mix", "large"] {
            let w = generate(kind, 200, MAX_DEMAND, &mut Rng::new(3)).unwrap();
            let splits: usize = w.jobs.iter().map(|j| j.maps.len()).sum();
            assert_eq!(splits, 3200, "{kind}");
            let (lo, hi) = sizes(kind).unwrap();
            let n = w.jobs.len();
            // Every job but possibly the last one is within the queue's size range.
            assert!(
                w.jobs[..n - 1]
                    .iter()
                    .all(|j| (lo..=hi).contains(&(j.maps.len() as u64))),
                "{kind}"
            );
            assert!(w
                .jobs
                .iter()
                .all(|j| j.maps.iter().all(|m| m.input_bytes == 64 * MB as u64)));
        }
        assert_eq!(
            generate("small", 200, MAX_DEMAND, &mut Rng::new(3))
                .unwrap()
                .cluster
                .nodes
                .len(),
            50
        );
        assert!(generate("tiny", 200, MAX_DEMAND, &mut Rng::new(3)).is_err());
    }
}
