//! `--workload demo`: the batch `./locus demo` runs on the embedded cluster, read from
//! sim/workloads/demo.json (compiled in, so the binary needs no path). The same hosts, racks,
//! node size, HDFS block size and replication; each input file's one block on the host
//! Corpus/TeraInput favour (file i on host (i + first_host) mod hosts); the jobs in their
//! submission order with their map and reduce counts and container sizes. The file's YARN
//! settings (node and AM heartbeats, reduce slow-start) replace the matching flags (`yarn`).
//! it-tests' DemoWorkloadFileTest checks the file against the demo's Java definition.

use locus_core::Resource;
use serde::Deserialize;

use crate::cluster::Cluster;
use crate::workload::{JobSpec, MapSpec, ReduceSpec, Workload};

pub const FILE: &str = include_str!("../../workloads/demo.json");

#[derive(Debug, Clone, Deserialize)]
pub struct Demo {
    pub cluster: DemoCluster,
    pub yarn: DemoYarn,
    pub inputs: Vec<Input>,
    pub jobs: Vec<Job>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Host {
    pub host: String,
    pub rack: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DemoCluster {
    pub hosts: Vec<Host>,
    pub node_memory_mb: u64,
    pub node_vcores: u32,
    pub block_bytes: u64,
    pub replication: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DemoYarn {
    pub node_heartbeat_ms: u64,
    pub am_heartbeat_ms: u64,
    pub reduce_slowstart: f64,
    pub am_memory_mb: u64,
    pub task_memory_mb: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Input {
    pub name: String,
    pub files: usize,
    pub bytes_per_file: u64,
    pub first_host: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Job {
    pub name: String,
    /// The input it reads, or none (TeraGen) with `maps` maps.
    #[serde(default)]
    pub input: Option<String>,
    #[serde(default)]
    pub maps: Option<usize>,
    pub reduces: usize,
    pub shuffle_bytes: u64,
    /// When the RM received it, after the first job (the demo's clients take about a second
    /// each to submit; measured, see the file's `about_submit`).
    #[serde(default)]
    pub submit_ms: u64,
}

/// The compiled-in definition.
pub fn definition() -> Result<Demo, String> {
    serde_json::from_str(FILE).map_err(|e| format!("sim/workloads/demo.json: {e}"))
}

pub fn build(d: &Demo) -> Result<Workload, String> {
    let c = &d.cluster;
    if c.replication != 1 {
        // Every file is written with one favoured DataNode; more replicas would need the
        // NameNode's placement, which the demo does not pin.
        return Err(format!(
            "demo.json: replication {} (the demo writes one replica per block)",
            c.replication
        ));
    }
    let locations: Vec<(String, String)> = c
        .hosts
        .iter()
        .map(|h| (h.rack.clone(), h.host.clone()))
        .collect();
    let cluster =
        Cluster::from_locations(&locations, Resource::new(c.node_memory_mb, c.node_vcores))?;
    let hosts = cluster.nodes.len();
    let task = Resource::new(d.yarn.task_memory_mb, 1);
    let mut jobs = Vec::with_capacity(d.jobs.len());
    for j in &d.jobs {
        let mut maps = Vec::new();
        match (&j.input, j.maps) {
            (Some(name), None) => {
                let input = d.inputs.iter().find(|i| &i.name == name).ok_or_else(|| {
                    format!("demo.json: job {} reads unknown input {name}", j.name)
                })?;
                for f in 0..input.files {
                    let host = (f + input.first_host) % hosts;
                    let mut left = input.bytes_per_file;
                    // Every block of a file is on its favoured host.
                    while left > 0 {
                        let bytes = left.min(c.block_bytes.max(1));
                        left -= bytes;
                        maps.push(MapSpec {
                            input_bytes: bytes,
                            replicas: vec![host],
                            fixed_ms: None,
                        });
                    }
                }
            }
            (None, Some(n)) => {
                for _ in 0..n {
                    maps.push(MapSpec {
                        input_bytes: 0,
                        replicas: vec![],
                        fixed_ms: None,
                    });
                }
            }
            _ => {
                return Err(format!(
                    "demo.json: job {} needs either an input or a map count",
                    j.name
                ))
            }
        }
        jobs.push(JobSpec {
            name: j.name.clone(),
            queue: "default".into(),
            user: "demo".into(),
            submit_ms: j.submit_ms,
            maps,
            reduces: vec![ReduceSpec { fixed_ms: None }; j.reduces],
            shuffle_bytes: j.shuffle_bytes,
            output_bytes: j.shuffle_bytes,
            am: Resource::new(d.yarn.am_memory_mb, 1),
            map: task,
            reduce: task,
            tags: Vec::new(),
        });
    }
    Ok(Workload {
        name: "demo (./locus demo's batch)".into(),
        cluster,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo's output (docs/results/2026-11-24-demo-real-jobs.md): 4 nodes on 2 racks, 14 input blocks on the hosts 4, 4, 3, 3,
    /// 20 maps of which 18 read input.
    #[test]
    fn the_file_builds_the_demo_batch_as_the_demo_prints_it() {
        let w = match definition().and_then(|d| build(&d)) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(w.cluster.nodes.len(), 4);
        assert_eq!(w.cluster.racks.len(), 2);
        let names: Vec<&str> = w.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "wc-small",
                "wc-medium",
                "wc-wide",
                "ex-wordcount",
                "ex-terasort",
                "ex-teragen"
            ]
        );
        let maps: usize = w.jobs.iter().map(|j| j.maps.len()).sum();
        assert_eq!(maps, 20);
        let mut per_host = [0; 4];
        for (i, j) in w.jobs.iter().enumerate() {
            if j.name == "ex-wordcount" {
                continue; // reads wc-medium's blocks again
            }
            for m in &j.maps {
                for &r in &m.replicas {
                    per_host[r] += 1;
                }
            }
            assert!(i < 6);
        }
        assert_eq!(per_host, [4, 4, 3, 3]);
    }
}
