//! Input several jobs read: a dataset is one HDFS file whose blocks are placed once, so every
//! job reading it reads the same blocks on the same replicas, and reads of a popular block
//! contend at its replicas' nodes. A job reading `n` blocks of a dataset reads its first `n`
//! (a dataset grows to the largest input any job reads from it), as jobs over a table's recent
//! partitions read a prefix of what longer scans read.
//!
//! Which dataset a job reads comes from its source: a SWIM trace's seventh column
//! (`inputPathN` in SWIMProjectUCB/SWIM's FB-2010 sample), or a Zipf draw over a pool of
//! datasets for the generated workloads (`Zipf`).

use std::collections::BTreeMap;

use crate::cluster::Cluster;
use crate::hdfs::place_block;
use crate::rng::Rng;
use crate::workload::{Bytes, JobSpec, MapSpec, Shape};

/// The datasets of one workload, by name, each with its blocks' replica lists.
#[derive(Debug, Default)]
pub struct Datasets {
    by_name: BTreeMap<String, Vec<Vec<usize>>>,
}

impl Datasets {
    /// How many datasets have been read.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// A job reading `bytes.input` of dataset `name`: one map per block, over the dataset's
    /// first blocks, placed when a job first reads them (each block's first replica on a
    /// random node, as for a file many tasks wrote).
    #[allow(clippy::too_many_arguments)]
    pub fn job(
        &mut self,
        name: &str,
        shape: &Shape,
        cluster: &Cluster,
        rng: &mut Rng,
        job_name: String,
        submit_ms: u64,
        bytes: Bytes,
    ) -> JobSpec {
        let block = shape.block_bytes.max(1);
        let maps_n = bytes.input.div_ceil(block).max(1) as usize;
        let blocks = self.by_name.entry(name.to_string()).or_default();
        while blocks.len() < maps_n {
            blocks.push(place_block(
                cluster,
                shape.placement,
                shape.replication,
                None,
                rng,
            ));
        }
        let mut left = bytes.input;
        let maps = blocks[..maps_n]
            .iter()
            .map(|replicas| {
                let b = left.min(block);
                left -= b;
                MapSpec {
                    input_bytes: b,
                    replicas: replicas.clone(),
                    fixed_ms: None,
                }
            })
            .collect();
        shape.job(job_name, submit_ms, maps, bytes.shuffle, bytes.output)
    }
}

/// Zipf popularity over `n` datasets: dataset `k` (1-based) is read with probability
/// proportional to `1 / k^s`.
#[derive(Debug, Clone)]
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Result<Zipf, String> {
        if n == 0 {
            return Err("a Zipf pool needs at least one dataset".into());
        }
        if !(s.is_finite() && s >= 0.0) {
            return Err(format!("--dataset-zipf {s} must be 0 or more"));
        }
        let mut cdf = Vec::with_capacity(n);
        let mut sum = 0.0;
        for k in 1..=n {
            sum += (k as f64).powf(-s);
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Ok(Zipf { cdf })
    }

    /// A dataset index in `0..n`, rank order (0 the most popular).
    pub fn draw(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdfs::Placement;
    use locus_core::Resource;

    fn shape() -> Shape {
        Shape {
            block_bytes: 128 << 20,
            replication: 3,
            placement: Placement::RackAware,
            bytes_per_reduce: 1 << 30,
            filter: 0.1,
            am: Resource::new(1536, 1),
            map: Resource::new(1024, 1),
            reduce: Resource::new(1024, 1),
        }
    }

    fn bytes(input: u64) -> Bytes {
        Bytes {
            input,
            shuffle: 0,
            output: 0,
        }
    }

    #[test]
    fn jobs_on_one_dataset_read_the_same_blocks_and_a_smaller_job_reads_a_prefix() {
        let c = Cluster::uniform(50, 5, 1, Resource::new(8192, 8)).unwrap_or_default();
        let (s, mut rng) = (shape(), Rng::new(1));
        let mut d = Datasets::default();
        let big = d.job(
            "p",
            &s,
            &c,
            &mut rng,
            "a".into(),
            0,
            bytes(10 * (128 << 20)),
        );
        let small = d.job(
            "p",
            &s,
            &c,
            &mut rng,
            "b".into(),
            0,
            bytes(3 * (128 << 20) + 1),
        );
        let other = d.job(
            "q",
            &s,
            &c,
            &mut rng,
            "c".into(),
            0,
            bytes(10 * (128 << 20)),
        );
        assert_eq!(big.maps.len(), 10);
        assert_eq!(small.maps.len(), 4);
        for i in 0..4 {
            assert_eq!(small.maps[i].replicas, big.maps[i].replicas);
        }
        assert_eq!(small.maps[3].input_bytes, 1);
        let same = (0..10)
            .filter(|&i| other.maps[i].replicas == big.maps[i].replicas)
            .count();
        assert_eq!(same, 0, "another dataset has its own blocks");
        assert_eq!(d.len(), 2);
    }

    #[test]
    fn zipf_follows_its_exponent() {
        let z = Zipf::new(100, 1.0).unwrap_or_else(|e| panic!("{e}"));
        let mut rng = Rng::new(7);
        let mut hits = [0u32; 100];
        for _ in 0..100_000 {
            hits[z.draw(&mut rng)] += 1;
        }
        // P(rank 1) = 1 / H(100) = 0.193; rank 2 half of it
        assert!((18_500..=20_100).contains(&hits[0]), "{}", hits[0]);
        let ratio = hits[0] as f64 / hits[1] as f64;
        assert!((1.85..2.15).contains(&ratio), "{ratio}");
        let flat = Zipf::new(4, 0.0).unwrap_or_else(|e| panic!("{e}"));
        let mut h = [0u32; 4];
        for _ in 0..40_000 {
            h[flat.draw(&mut rng)] += 1;
        }
        assert!(h.iter().all(|&k| (9_500..=10_500).contains(&k)), "{h:?}");
    }
}
