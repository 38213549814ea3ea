//! Synthetic scale workload: job sizes drawn from the Facebook 2009 bin shares (Matchmaking
//! Table 4, "%Jobs at Facebook"), a map count uniform within the bin, arrivals exponential. The
//! default mean gap keeps the offered load per node of the 100-job schedule on 30 nodes
//! (14 s x 30 / nodes), so a larger cluster gets proportionally more jobs per second. Each job
//! reads its own file, or with `--dataset-pool N` a dataset drawn from N with Zipf popularity.

use crate::cluster::Cluster;
use crate::rng::Rng;
use crate::workload::datasets::{Datasets, Zipf};
use crate::workload::{Bytes, Shape, Workload};

/// (share of jobs in %, smallest maps, largest maps).
const SHARES: [(u32, usize, usize); 9] = [
    (39, 1, 1),
    (16, 2, 2),
    (14, 3, 20),
    (9, 21, 60),
    (6, 61, 150),
    (6, 151, 300),
    (4, 301, 500),
    (4, 501, 1500),
    (3, 1501, 4800),
];

pub struct Params {
    pub jobs: usize,
    pub mean_gap_ms: Option<f64>,
    pub max_maps: usize,
    /// Jobs read datasets drawn from a pool of this many with Zipf popularity (`--dataset-pool`,
    /// `--dataset-zipf`); `None`: every job reads its own file.
    pub pool: Option<(usize, f64)>,
}

pub fn generate(
    cluster: Cluster,
    shape: &Shape,
    p: &Params,
    rng: &mut Rng,
) -> Result<Workload, String> {
    crate::limits::within("--jobs", p.jobs, 1, crate::limits::MAX_JOBS)?;
    let mut budget = crate::limits::TaskBudget::default();
    let gap = p
        .mean_gap_ms
        .unwrap_or(14_000.0 * 30.0 / cluster.nodes.len() as f64);
    // Only a run with a pool draws from its own stream, so runs without one are unchanged.
    let mut pool = match p.pool {
        Some((n, s)) => Some((Zipf::new(n, s)?, rng.fork(), Datasets::default())),
        None => None,
    };
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(p.jobs);
    for i in 0..p.jobs {
        if i > 0 {
            t += rng.exp(gap);
        }
        let mut roll = rng.below(100) as u32;
        let mut bin = SHARES[SHARES.len() - 1];
        for s in SHARES {
            if roll < s.0 {
                bin = s;
                break;
            }
            roll -= s.0;
        }
        let maps = (bin.1 + rng.below(bin.2 - bin.1 + 1)).min(p.max_maps.max(1));
        let input = maps as u64 * shape.block_bytes;
        let shuffle = (input as f64 * shape.filter) as u64;
        let reduces = shuffle.div_ceil(shape.bytes_per_reduce);
        if reduces > crate::limits::MAX_TASKS_PER_JOB {
            return Err(format!(
                "--filter {} makes {reduces} reduces for a {maps}-map job; a job may have at most {}",
                shape.filter,
                crate::limits::MAX_TASKS_PER_JOB
            ));
        }
        budget.take(maps as u64 + reduces, || {
            format!(
                "--jobs {} (at job {i}, with --max-maps {})",
                p.jobs, p.max_maps
            )
        })?;
        let (name, bytes) = (
            format!("synthetic-{i}"),
            Bytes {
                input,
                shuffle,
                output: shuffle,
            },
        );
        jobs.push(match &mut pool {
            Some((zipf, draws, datasets)) => {
                let d = zipf.draw(draws);
                datasets.job(
                    &format!("dataset{d}"),
                    shape,
                    &cluster,
                    rng,
                    name,
                    t as u64,
                    bytes,
                )
            }
            None => shape.job_with_own_input(&cluster, rng, name, t as u64, bytes),
        });
    }
    Ok(Workload {
        name: format!("synthetic {} jobs", p.jobs),
        cluster,
        jobs,
    })
}
