//! JoSS's evaluation workloads (Lee et al. 2016, Section 6): five benchmarks with Table 5's
//! filtering percentages, the small workload of Table 6 (300 jobs of 1 GB) and the mixed one of
//! Table 7 (100 jobs of 1, 5 and 12 GB), on 2 datacenters × 15 VPS with one map and one reduce
//! slot each, 128 MB blocks, one replica, one reduce per job.
//!
//! Choices where the paper is silent (docs/results/reproduction.md):
//! - small workload gaps: the paper used SWIM-generated gaps with mean 27.70 s and standard
//!   deviation 36.52 s; we draw log-normal gaps with that mean and deviation;
//! - mixed workload gaps: Poisson arrivals, i.e. exponential gaps with mean 42.26 s;
//! - a VPS (2 GB RAM, 2 cores) is a node of 2 GB + 512 MB: one 1 GB map container, one 1 GB
//!   reduce container and room for a 512 MB AM (MRv1 had no AM);
//! - block placement is uniform over the 30 VPS (one replica: no rack-aware second copy).

use locus_core::Resource;

use crate::cluster::Cluster;
use crate::hdfs::Placement;
use crate::rng::Rng;
use crate::workload::{Bytes, Shape, Workload, MB};

/// Table 5: benchmark, average filtering percentage, input type (PUMA's four on web documents,
/// Permu on TXT files).
pub const BENCHMARKS: [(&str, f64, &str); 5] = [
    ("WC", 1.039, "web"),
    ("SC", 0.569, "web"),
    ("II", 1.166, "web"),
    ("Grep", 0.10, "web"),
    ("Permu", 3.0, "txt"),
];

/// Table 6: jobs per benchmark in the small workload (all 1 GB).
pub const SMALL: [(&str, usize); 5] = [
    ("WC", 60),
    ("SC", 59),
    ("II", 59),
    ("Grep", 61),
    ("Permu", 61),
];
/// Table 6: mean and standard deviation of the small workload's inter-arrival gaps, seconds.
pub const SMALL_GAP_S: (f64, f64) = (27.70, 36.52);
/// Table 7: (input GB, benchmark, jobs) of the mixed workload.
pub const MIXED: [(u64, &str, usize); 8] = [
    (1, "WC", 26),
    (1, "II", 20),
    (1, "SC", 10),
    (1, "Grep", 5),
    (1, "Permu", 3),
    (5, "Permu", 19),
    (12, "WC", 6),
    (12, "II", 11),
];
/// Table 7: mean inter-arrival gap of the mixed workload, seconds (Poisson arrivals).
pub const MIXED_GAP_S: f64 = 42.26;

pub const DATACENTERS: usize = 2;
pub const VPS_PER_DC: usize = 15;

pub fn cluster() -> Result<Cluster, String> {
    Cluster::uniform(
        DATACENTERS * VPS_PER_DC,
        DATACENTERS,
        DATACENTERS,
        Resource::new(2048 + 512, 3),
    )
}

pub fn shape() -> Shape {
    Shape {
        block_bytes: 128 * MB as u64,
        replication: 1,
        placement: Placement::Uniform,
        bytes_per_reduce: u64::MAX,
        filter: 0.0,
        am: Resource::new(512, 1),
        map: Resource::new(1024, 1),
        reduce: Resource::new(1024, 1),
    }
}

fn benchmark(name: &str) -> Result<(f64, &'static str), String> {
    BENCHMARKS
        .iter()
        .find(|b| b.0 == name)
        .map(|b| (b.1, b.2))
        .ok_or_else(|| format!("JoSS: no benchmark {name:?} in Table 5"))
}

/// A log-normal draw with the given mean and standard deviation.
fn lognormal(rng: &mut Rng, mean: f64, sd: f64) -> f64 {
    let s2 = (1.0 + (sd / mean).powi(2)).ln();
    let mu = mean.ln() - s2 / 2.0;
    // Box-Muller; 1 - unit() keeps the logarithm finite.
    let z =
        (-2.0 * (1.0 - rng.unit()).ln()).sqrt() * (2.0 * std::f64::consts::PI * rng.unit()).cos();
    (mu + s2.sqrt() * z).exp()
}

/// `small` (Table 6) or `mixed` (Table 7).
pub fn generate(which: &str, rng: &mut Rng) -> Result<Workload, String> {
    let cluster = cluster()?;
    let shape = shape();
    let mut list: Vec<(u64, &str)> = match which {
        "small" => SMALL
            .iter()
            .flat_map(|&(b, n)| std::iter::repeat_n((1, b), n))
            .collect(),
        "mixed" => MIXED
            .iter()
            .flat_map(|&(gb, b, n)| std::iter::repeat_n((gb, b), n))
            .collect(),
        other => return Err(format!("JoSS workload {other:?}: small or mixed")),
    };
    // "The submission orders of all jobs in two workloads were randomly determined."
    rng.shuffle(&mut list);
    let mut place = rng.fork();
    let mut gaps = rng.fork();
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(list.len());
    for (i, (gb, b)) in list.into_iter().enumerate() {
        if i > 0 {
            t += 1000.0
                * if which == "small" {
                    lognormal(&mut gaps, SMALL_GAP_S.0, SMALL_GAP_S.1)
                } else {
                    gaps.exp(MIXED_GAP_S)
                };
        }
        let (fp, input_type) = benchmark(b)?;
        let input = gb * 1024 * MB as u64;
        let shuffle = (input as f64 * fp) as u64;
        let mut job = shape.job_with_own_input(
            &cluster,
            &mut place,
            // The application name is the benchmark's, as every run of one program names it:
            // with the input type it is JoSS's job signature, so the second WC job is known.
            b.to_string(),
            t as u64,
            Bytes {
                input,
                shuffle,
                output: shuffle,
            },
        );
        // "In both workloads, each job has only one reduce task."
        job.reduces.truncate(1);
        job.tags = vec![
            format!("locus.fp={fp}"),
            format!("locus.input-type={input_type}"),
        ];
        jobs.push(job);
    }
    Ok(Workload {
        name: format!("joss-{which}"),
        cluster,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_mixed_match_tables_6_and_7() {
        let mut rng = Rng::new(7);
        let w = generate("small", &mut rng).unwrap();
        assert_eq!(w.jobs.len(), 300);
        assert_eq!(w.cluster.nodes.len(), 30);
        assert_eq!(w.cluster.dc_count, 2);
        let wc = w.jobs.iter().filter(|j| j.name == "WC").count();
        assert_eq!(wc, 60);
        assert!(w
            .jobs
            .iter()
            .all(|j| j.maps.len() == 8 && j.reduces.len() == 1));
        assert!(w
            .jobs
            .iter()
            .all(|j| j.maps.iter().all(|m| m.replicas.len() == 1)));
        let permu = w.jobs.iter().find(|j| j.name == "Permu").unwrap();
        assert!(permu.tags.contains(&"locus.fp=3".to_string()));
        assert_eq!(permu.shuffle_bytes, 3 * 1024 * MB as u64);
        let mean_gap = w.jobs.last().unwrap().submit_ms as f64 / 299.0 / 1000.0;
        assert!((15.0..45.0).contains(&mean_gap), "mean gap {mean_gap}");

        let m = generate("mixed", &mut rng).unwrap();
        assert_eq!(m.jobs.len(), 100);
        let maps = |n: usize| m.jobs.iter().filter(|j| j.maps.len() == n).count();
        assert_eq!((maps(8), maps(40), maps(96)), (64, 19, 17));
        assert!(generate("huge", &mut rng)
            .unwrap_err()
            .contains("small or mixed"));
    }
}
