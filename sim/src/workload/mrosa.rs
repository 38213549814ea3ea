//! MROSA's evaluation (Mao et al., Section V): a private cloud of 10 datanodes (TABLE III: i5
//! 3.3 GHz, 4 GB RAM), jobs of 16–180 maps of 128 MB with reduces = 25 % of the maps, and
//! TABLE IV's public instance types as a public pool file.
//!
//! Choices where the paper is silent (docs/reproduction.md):
//! - "a series of jobs": Experiment 2 (Fig. 4) submits 6 jobs of 96 maps and 19 reduces, one
//!   every 60 s on average (exponential gaps); Experiment 1's mix is one job of each of 16, 48,
//!   80, 96 and 180 maps;
//! - a datanode (4 GB, 4 cores) is a node of 4096 MB and 4 vcores with 1 GB containers and a
//!   512 MB AM;
//! - a job's filtering percentage (MROSA's f) is 0.3: the paper does not name its benchmark;
//! - HDFS's rack-aware placement with replication 3 on one rack.

use locus_core::Resource;

use crate::cluster::Cluster;
use crate::hdfs::Placement;
use crate::rng::Rng;
use crate::workload::{Bytes, Shape, Workload, MB};

pub const PRIVATE_NODES: usize = 10;
/// Experiment 2: maps and reduces of each job.
pub const EXP2_JOB: (usize, usize) = (96, 19);
/// Experiment 2's deadlines, 90 s to 190 s in steps of 10 s.
pub const EXP2_DEADLINES_S: [u64; 11] = [90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190];
/// Experiment 1's job sizes (maps); reduces are 25 % of maps.
pub const EXP1_MAPS: [usize; 5] = [16, 48, 80, 96, 180];
pub const EXP2_JOBS: usize = 6;
pub const EXP2_GAP_S: f64 = 60.0;
pub const FP: f64 = 0.3;

pub fn cluster() -> Result<Cluster, String> {
    Cluster::uniform(PRIVATE_NODES, 1, 1, Resource::new(4096, 4))
}

pub fn shape() -> Shape {
    Shape {
        block_bytes: 128 * MB as u64,
        replication: 3,
        placement: Placement::RackAware,
        bytes_per_reduce: u64::MAX,
        filter: FP,
        am: Resource::new(512, 1),
        map: Resource::new(1024, 1),
        reduce: Resource::new(1024, 1),
    }
}

/// The public pool file of TABLE IV: every instance type startable (`*` lines), none running.
pub fn pool_file_text() -> String {
    let mut s = String::from(
        "# MROSA TABLE IV: * type price-per-sec mips mb-per-sec provider (MIPS = cores x GHz x 1000)\n",
    );
    for it in locus_core::papers::mrosa::table_iv() {
        s.push_str(&format!(
            "* {} {} {} {} {}\n",
            it.name, it.price_per_sec, it.mips, it.band_mb_s, it.provider
        ));
    }
    s
}

/// `exp2` (Fig. 4: jobs of 96 maps, every job's deadline `deadline_s`) or `exp1` (one job of each
/// Experiment 1 size; deadline `deadline_s` too, so QoS can be read off it).
pub fn generate(which: &str, deadline_s: u64, rng: &mut Rng) -> Result<Workload, String> {
    if deadline_s == 0 {
        return Err("MROSA: --deadline-s must be at least 1".into());
    }
    let cluster = cluster()?;
    let shape = shape();
    let mut sizes: Vec<(usize, usize)> = match which {
        "exp2" => vec![EXP2_JOB; EXP2_JOBS],
        "exp1" => EXP1_MAPS.iter().map(|&m| (m, m / 4)).collect(),
        other => return Err(format!("MROSA workload {other:?}: exp1 or exp2")),
    };
    rng.shuffle(&mut sizes);
    let mut place = rng.fork();
    let mut gaps = rng.fork();
    let mut t = 0.0;
    let mut jobs = Vec::new();
    for (i, (maps, reduces)) in sizes.into_iter().enumerate() {
        if i > 0 {
            t += 1000.0 * gaps.exp(EXP2_GAP_S);
        }
        let input = maps as u64 * shape.block_bytes;
        let shuffle = (input as f64 * FP) as u64;
        let mut job = shape.job_with_own_input(
            &cluster,
            &mut place,
            format!("mrosa-{maps}maps-{i}"),
            t as u64,
            Bytes {
                input,
                shuffle,
                output: shuffle,
            },
        );
        job.reduces = vec![crate::workload::ReduceSpec { fixed_ms: None }; reduces];
        job.tags = vec![
            format!("locus.deadline={deadline_s}"),
            format!("locus.fp={FP}"),
            format!("locus.demand={maps}"),
        ];
        jobs.push(job);
    }
    Ok(Workload {
        name: format!("mrosa-{which} (deadline {deadline_s} s)"),
        cluster,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn experiment_2_jobs_and_table_iv_pool() {
        let w = generate("exp2", 120, &mut Rng::new(1)).unwrap();
        assert_eq!(w.cluster.nodes.len(), 10);
        assert_eq!(w.jobs.len(), EXP2_JOBS);
        assert!(w
            .jobs
            .iter()
            .all(|j| j.maps.len() == 96 && j.reduces.len() == 19));
        assert!(w.jobs.iter().all(|j| j.deadline_secs() == Some(120.0)));
        let e1 = generate("exp1", 60, &mut Rng::new(1)).unwrap();
        let mut m: Vec<(usize, usize)> = e1
            .jobs
            .iter()
            .map(|j| (j.maps.len(), j.reduces.len()))
            .collect();
        m.sort();
        assert_eq!(m, vec![(16, 4), (48, 12), (80, 20), (96, 24), (180, 45)]);
        let pool = pool_file_text();
        let lines: Vec<&str> = pool.lines().filter(|l| l.starts_with('*')).collect();
        assert_eq!(lines.len(), 9);
        // ec2-2c: 27 x 10^-6 $/s, 2 x 2.4 GHz, 10 Mbps.
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("* ec2-2c 0.000027 4800 1.25")),
            "{pool}"
        );
        assert!(generate("exp2", 0, &mut Rng::new(1)).is_err());
    }
}
