//! FRESH's mixed workloads (Yao et al., Section VI): Sets A–E of the six PUMA benchmarks on 4 GB
//! and 8 GB data sets, on 10 or 20 nodes of 4 slots; jobs ordered by Johnson's rule and
//! submitted one every 2 s, as a batch.
//!
//! TABLE I gives Set A (maps and reduces per job). The text: Set B is one 8 GB job of each
//! benchmark; Set C doubles Set A; Set D and Set E hold 12 jobs of which 8 are map-intensive
//! (Classification, Histogram Rating) resp. reduce-intensive (Inverted Index, Grep).
//!
//! Choices where the paper is silent (docs/results/reproduction.md):
//! - Set D/E: the 8 intensive jobs are each of the two benchmarks on 8 GB and 4 GB, twice; the
//!   other 4 are Wordcount and Histogram Movies on 8 GB and 4 GB;
//! - filtering percentages (map output / input): Classification 0.1, Histogram Rating and
//!   Histogram Movies 0.05, Wordcount 1.0, Inverted Index 1.2, Grep 1.0 (FRESH measured Grep
//!   [a-g][a-z]* as reduce-intensive: it matches most words);
//! - an m1.xlarge node is 4 task containers of 1 GB plus 1 GB for AMs; the static Fair-a:b
//!   baselines are `locus.slots.map-share` = a/4;
//! - Johnson's rule on (map bytes, shuffle bytes) as the two stages' work.

use locus_core::Resource;

use crate::cluster::Cluster;
use crate::hdfs::Placement;
use crate::rng::Rng;
use crate::workload::{Bytes, ReduceSpec, Shape, Workload, MB};

/// One job of a set: benchmark, data set GB, maps, reduces.
pub type SetJob = (&'static str, u64, usize, usize);

/// TABLE I (Set A).
pub const SET_A: [SetJob; 12] = [
    ("classification", 8, 270, 250),
    ("classification", 4, 129, 120),
    ("invertedindex", 8, 256, 250),
    ("invertedindex", 4, 128, 120),
    ("wordcount", 8, 256, 200),
    ("wordcount", 4, 128, 100),
    ("grep", 8, 270, 250),
    ("grep", 4, 128, 100),
    ("histogram_ratings", 8, 270, 250),
    ("histogram_ratings", 4, 129, 120),
    ("histogram_movies", 8, 270, 200),
    ("histogram_movies", 4, 129, 100),
];

pub fn filtering(benchmark: &str) -> f64 {
    match benchmark {
        "classification" => 0.1,
        "histogram_ratings" | "histogram_movies" => 0.05,
        "invertedindex" => 1.2,
        _ => 1.0,
    }
}

pub const SLOTS_PER_NODE: u64 = 4;

pub fn cluster(nodes: usize) -> Result<Cluster, String> {
    Cluster::uniform(nodes, 1, 1, Resource::new(SLOTS_PER_NODE * 1024 + 1024, 5))
}

pub fn shape() -> Shape {
    Shape {
        block_bytes: 32 * MB as u64,
        replication: 3,
        placement: Placement::RackAware,
        bytes_per_reduce: u64::MAX,
        filter: 0.0,
        am: Resource::new(512, 1),
        map: Resource::new(1024, 1),
        reduce: Resource::new(1024, 1),
    }
}

fn pick(bench: &str, gb: u64) -> SetJob {
    *SET_A
        .iter()
        .find(|r| r.0 == bench && r.1 == gb)
        .unwrap_or(&SET_A[0])
}

/// The jobs (benchmark, GB, maps, reduces) of set `a`..`e`.
pub fn set(name: &str) -> Result<Vec<SetJob>, String> {
    Ok(match name {
        "a" => SET_A.to_vec(),
        "b" => SET_A.iter().copied().filter(|r| r.1 == 8).collect(),
        "c" => SET_A.iter().chain(SET_A.iter()).copied().collect(),
        "d" | "e" => {
            let heavy = if name == "d" {
                ["classification", "histogram_ratings"]
            } else {
                ["invertedindex", "grep"]
            };
            let mut v = Vec::new();
            for _ in 0..2 {
                for b in heavy {
                    v.push(pick(b, 8));
                    v.push(pick(b, 4));
                }
            }
            for b in ["wordcount", "histogram_movies"] {
                v.push(pick(b, 8));
                v.push(pick(b, 4));
            }
            v
        }
        other => return Err(format!("FRESH set {other:?}: a, b, c, d or e")),
    })
}

/// Johnson's rule for two stages: jobs whose first stage is shorter come first, by rising first
/// stage; the rest last, by falling second stage.
pub fn johnson<T>(jobs: &mut Vec<(f64, f64, T)>) {
    let (mut first, mut second): (Vec<_>, Vec<_>) = jobs.drain(..).partition(|j| j.0 < j.1);
    first.sort_by(|a, b| a.0.total_cmp(&b.0));
    second.sort_by(|a, b| b.1.total_cmp(&a.1));
    jobs.extend(first);
    jobs.extend(second);
}

pub fn generate(set_name: &str, nodes: usize, rng: &mut Rng) -> Result<Workload, String> {
    let cluster = cluster(nodes)?;
    let shape = shape();
    let mut order: Vec<(f64, f64, SetJob)> = set(set_name)?
        .into_iter()
        .map(|r| {
            let input = (r.1 * 1024) as f64;
            (input, input * filtering(r.0), r)
        })
        .collect();
    johnson(&mut order);
    let mut jobs = Vec::new();
    for (i, (_, _, (bench, gb, maps, reduces))) in order.into_iter().enumerate() {
        let input = gb * 1024 * MB as u64;
        let fp = filtering(bench);
        let shuffle = (input as f64 * fp) as u64;
        // TABLE I's map count fixes the split size of the job's data set.
        let per_map = input.div_ceil(maps as u64);
        let js = Shape {
            block_bytes: per_map,
            ..shape.clone()
        };
        let mut job = js.job_with_own_input(
            &cluster,
            rng,
            bench.to_string(),
            i as u64 * 2000,
            Bytes {
                input,
                shuffle,
                output: shuffle,
            },
        );
        job.reduces = vec![ReduceSpec { fixed_ms: None }; reduces];
        job.tags = vec![format!("locus.fp={fp}")];
        jobs.push(job);
    }
    Ok(Workload {
        name: format!("fresh-set-{set_name}"),
        cluster,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_follow_table_i_and_the_text() {
        let a = generate("a", 10, &mut Rng::new(1)).unwrap();
        assert_eq!(a.jobs.len(), 12);
        let mut counts: Vec<(usize, usize)> = a
            .jobs
            .iter()
            .map(|j| (j.maps.len(), j.reduces.len()))
            .collect();
        counts.sort();
        let mut want: Vec<(usize, usize)> = SET_A.iter().map(|r| (r.2, r.3)).collect();
        want.sort();
        assert_eq!(counts, want);
        assert_eq!(a.cluster.nodes.len(), 10);
        assert_eq!(set("b").unwrap().len(), 6);
        assert_eq!(set("c").unwrap().len(), 24);
        let d = set("d").unwrap();
        let map_heavy = d
            .iter()
            .filter(|r| r.0 == "classification" || r.0 == "histogram_ratings")
            .count();
        assert_eq!((d.len(), map_heavy), (12, 8));
        let e = set("e").unwrap();
        assert_eq!(
            e.iter()
                .filter(|r| r.0 == "grep" || r.0 == "invertedindex")
                .count(),
            8
        );
        assert_eq!(
            generate("b", 20, &mut Rng::new(1))
                .unwrap()
                .cluster
                .nodes
                .len(),
            20
        );
        assert!(set("f").is_err());
    }

    #[test]
    fn johnson_puts_short_first_stages_first_and_short_second_stages_last() {
        let mut v = vec![
            (5.0, 1.0, 'a'),
            (1.0, 3.0, 'b'),
            (2.0, 6.0, 'c'),
            (4.0, 2.0, 'd'),
        ];
        johnson(&mut v);
        let order: String = v.iter().map(|j| j.2).collect();
        assert_eq!(order, "bcda");
    }
}
