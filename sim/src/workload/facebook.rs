//! The Facebook 2009 job-size bins (Matchmaking Table 4, after Zaharia et al.'s delay
//! scheduling benchmark): 100 jobs in nine bins, submitted with exponential inter-arrival
//! times (mean 14 s). Every map reads one block chosen uniformly from a shared data set, as in
//! Matchmaking's setup (100 blocks, popularity uniform).

use crate::cluster::Cluster;
use crate::hdfs::place_block;
use crate::rng::Rng;
use crate::workload::{JobSpec, MapSpec, Shape, Workload};

/// (maps per job in the benchmark, jobs in the 100-job schedule) for bins 1..=9.
pub const BINS: [(usize, usize); 9] = [
    (1, 38),
    (2, 16),
    (10, 14),
    (50, 8),
    (100, 6),
    (200, 6),
    (400, 4),
    (800, 4),
    (4800, 4),
];

pub struct Params {
    /// Use bins 1..=bins (Matchmaking used the first six: 88 jobs, none over 300 maps).
    pub bins: usize,
    pub mean_gap_ms: f64,
    pub dataset_blocks: usize,
}

pub fn generate(
    cluster: Cluster,
    shape: &Shape,
    p: &Params,
    rng: &mut Rng,
) -> Result<Workload, String> {
    if p.bins == 0 || p.bins > BINS.len() {
        return Err(format!("--fb-bins {} must be between 1 and 9", p.bins));
    }
    if p.dataset_blocks == 0 {
        return Err("--dataset-blocks must be at least 1".into());
    }
    let mut place_rng = rng.fork();
    let mut pick_rng = rng.fork();
    let mut arrival_rng = rng.fork();
    let blocks: Vec<Vec<usize>> = (0..p.dataset_blocks)
        .map(|_| {
            place_block(
                &cluster,
                shape.placement,
                shape.replication,
                None,
                &mut place_rng,
            )
        })
        .collect();
    let mut sizes: Vec<usize> = BINS[..p.bins]
        .iter()
        .flat_map(|&(maps, jobs)| std::iter::repeat_n(maps, jobs))
        .collect();
    rng.shuffle(&mut sizes);
    let mut t = 0.0;
    let mut jobs: Vec<JobSpec> = Vec::with_capacity(sizes.len());
    for (i, maps_n) in sizes.into_iter().enumerate() {
        if i > 0 {
            t += arrival_rng.exp(p.mean_gap_ms);
        }
        let maps: Vec<MapSpec> = (0..maps_n)
            .map(|_| MapSpec {
                input_bytes: shape.block_bytes,
                replicas: blocks[pick_rng.below(blocks.len())].clone(),
                fixed_ms: None,
            })
            .collect();
        let input = shape.block_bytes * maps_n as u64;
        let shuffle = (input as f64 * shape.filter) as u64;
        jobs.push(shape.job(
            format!("fb-{maps_n}maps-{i}"),
            t as u64,
            maps,
            shuffle,
            shuffle,
        ));
    }
    Ok(Workload {
        name: format!("facebook (bins 1-{})", p.bins),
        cluster,
        jobs,
    })
}
