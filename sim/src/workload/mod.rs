//! Workloads: the jobs a run submits, each with its maps' input blocks already placed on the
//! cluster. One module per source; paper-specific sets are added as new modules.

pub mod datasets;
pub mod demo;
pub mod facebook;
pub mod fresh;
pub mod joss;
pub mod mrosa;
pub mod sls;
pub mod swim;
pub mod synthetic;
pub mod td;

use locus_core::Resource;

use crate::cluster::Cluster;
use crate::hdfs::{place_block, Placement};
use crate::rng::Rng;

pub const MB: f64 = 1024.0 * 1024.0;

/// One map: its input split and where the split's replicas are.
#[derive(Debug, Clone)]
pub struct MapSpec {
    pub input_bytes: u64,
    pub replicas: Vec<usize>,
    /// A trace-given run time (SLS) replacing the read + compute model.
    pub fixed_ms: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct ReduceSpec {
    pub fixed_ms: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct JobSpec {
    pub name: String,
    pub queue: String,
    pub user: String,
    pub submit_ms: u64,
    pub maps: Vec<MapSpec>,
    pub reduces: Vec<ReduceSpec>,
    /// Map output sent to reducers, over all maps.
    pub shuffle_bytes: u64,
    pub output_bytes: u64,
    pub am: Resource,
    pub map: Resource,
    pub reduce: Resource,
    /// Application tags sent in `app_added`: the core's hints (`locus.deadline=`,
    /// `locus.budget=`, `locus.demand=`, `locus.fp=`, `locus.input-type=`), as a submitter
    /// would set them through `mapreduce.job.tags`.
    pub tags: Vec<String>,
}

impl JobSpec {
    /// The job's deadline in seconds after submission, from its `locus.deadline=` tag (plain
    /// seconds, as the paper workloads write it).
    pub fn deadline_secs(&self) -> Option<f64> {
        self.tags.iter().find_map(|t| {
            t.strip_prefix("locus.deadline=")
                .and_then(|v| v.trim_end_matches('s').parse::<f64>().ok())
        })
    }
}

#[derive(Debug, Clone)]
pub struct Workload {
    pub name: String,
    pub cluster: Cluster,
    pub jobs: Vec<JobSpec>,
}

/// A job's data volumes.
#[derive(Debug, Clone, Copy)]
pub struct Bytes {
    pub input: u64,
    pub shuffle: u64,
    pub output: u64,
}

/// Settings shared by the generators and readers.
#[derive(Debug, Clone)]
pub struct Shape {
    pub block_bytes: u64,
    pub replication: usize,
    pub placement: Placement,
    /// Shuffle bytes per reduce task when a source gives only total shuffle bytes.
    pub bytes_per_reduce: u64,
    /// Shuffle bytes as a share of input bytes, when a source gives none (JoSS's filtering
    /// percentage).
    pub filter: f64,
    pub am: Resource,
    pub map: Resource,
    pub reduce: Resource,
}

impl Shape {
    pub fn reduces_for(&self, shuffle_bytes: u64) -> usize {
        if shuffle_bytes == 0 {
            0
        } else {
            shuffle_bytes.div_ceil(self.bytes_per_reduce.max(1)) as usize
        }
    }

    /// A job reading a fresh file of `input_bytes`: one map per block (at least one). Each
    /// block's first replica goes to a random node, as when the file was produced by many tasks
    /// (one writer per file would put every first replica on one node).
    pub fn job_with_own_input(
        &self,
        cluster: &Cluster,
        rng: &mut Rng,
        name: String,
        submit_ms: u64,
        bytes: Bytes,
    ) -> JobSpec {
        let Bytes {
            input: input_bytes,
            shuffle: shuffle_bytes,
            output: output_bytes,
        } = bytes;
        let maps_n = input_bytes.div_ceil(self.block_bytes.max(1)).max(1) as usize;
        let mut maps = Vec::with_capacity(maps_n);
        let mut left = input_bytes;
        for _ in 0..maps_n {
            let bytes = left.min(self.block_bytes);
            left -= bytes;
            let replicas = place_block(cluster, self.placement, self.replication, None, rng);
            maps.push(MapSpec {
                input_bytes: bytes,
                replicas,
                fixed_ms: None,
            });
        }
        self.job(name, submit_ms, maps, shuffle_bytes, output_bytes)
    }

    pub fn job(
        &self,
        name: String,
        submit_ms: u64,
        maps: Vec<MapSpec>,
        shuffle_bytes: u64,
        output_bytes: u64,
    ) -> JobSpec {
        let reduces = vec![ReduceSpec { fixed_ms: None }; self.reduces_for(shuffle_bytes)];
        JobSpec {
            name,
            queue: "default".into(),
            user: "sim".into(),
            submit_ms,
            maps,
            reduces,
            shuffle_bytes,
            output_bytes,
            am: self.am,
            map: self.map,
            reduce: self.reduce,
            tags: Vec::new(),
        }
    }
}
