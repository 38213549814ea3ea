//! MROSA's evaluation (Mao et al., Section V): a private cloud of 10 datanodes (TABLE III: i5
//! 3.3 GHz, 4 GB RAM), jobs of 16–180 maps of 128 MB with reduces = 25 % of the maps, and
//! TABLE IV's public instance types as a public pool file.
//!
//! Choices where the paper is silent (docs/results/reproduction.md):
//! - "a series of jobs": Experiment 2 (Fig. 4) submits 6 jobs of 96 maps and 19 reduces, one
//!   every 60 s on average (exponential gaps); Experiment 1's mix is one job of each of 16, 48,
//!   80, 96 and 180 maps;
//! - a datanode (4 GB, 4 cores) is a node of 4096 MB and 4 vcores with 1 GB containers and a
//!   512 MB AM;
//! - a job's filtering percentage (MROSA's f) is 0.3: the paper does not name its benchmark;
//! - HDFS's rack-aware placement with replication 3 on one rack.
//!
//! Experiment 3 (Fig. 5: cost at a 60 s deadline for jobs of 48, 96 and 180 maps, "considering
//! public cloud resources"), `exp3`. The paper compares MROSA with COSHIC, which the core does not
//! implement; the suite runs MROSA against FIFO and Fair instead. Choices:
//! - one series per job size: 6 jobs of N maps and N/4 reduces (as Experiment 2's series), gaps
//!   exponential with mean 60 s, every job's deadline 60 s; Fig. 5's "average cost" is the
//!   series' public cost over its jobs;
//! - the hybrid cloud is the 10 private datanodes (datacenter `/private`) plus one running
//!   instance of each TABLE IV type (datacenter `/public`, host `<type>-1`), present from the
//!   start and listed as running in the public pool file ([`exp3_pool_file_text`]). The paper
//!   adds instances "dynamically"; the simulator does not act on the core's scale-out advice
//!   (docs/design/simulator.md), so the instances are static and every policy sees the same ones;
//! - an instance has room for one task container (1024 MB, 1 vcore), whatever its cores: the
//!   paper's cost model (eqs. 6-7, and the core's Algorithm II) gives every public task its own
//!   instance, so a task's seconds × the type's price is what the instance costs while busy;
//! - instances hold no HDFS data (the input's replicas are on private nodes only), so a map on a
//!   public instance reads its split across datacenters at the simulator's inter-datacenter
//!   bandwidth (`--remote-mb-per-s`, 10 MB/s; TABLE IV's links are 1.25-6.25 MB/s, but the
//!   simulator has one inter-datacenter rate, not one per node), and computes at the private
//!   nodes' rate (the simulator's task time does not depend on a node's MIPS).

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
/// Experiment 3's job sizes (maps) and deadline.
pub const EXP3_MAPS: [usize; 3] = [48, 96, 180];
pub const EXP3_DEADLINE_S: u64 = 60;

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

/// Experiment 3's public instances: (host, instance type), one of each TABLE IV type.
pub fn exp3_public_instances() -> Vec<(String, locus_core::papers::mrosa::InstanceType)> {
    locus_core::papers::mrosa::table_iv()
        .into_iter()
        .map(|it| (format!("{}-1", it.name), it))
        .collect()
}

/// Experiment 3's hybrid cluster: the private nodes first (so block replicas placed on the
/// private cluster keep their indices), then the public instances.
pub fn exp3_cluster() -> Result<Cluster, String> {
    let private = cluster()?;
    let mut hosts: Vec<(String, String)> = private
        .nodes
        .iter()
        .map(|n| ("/private/rack01".to_string(), n.host.clone()))
        .collect();
    hosts.extend(
        exp3_public_instances()
            .into_iter()
            .map(|(h, _)| ("/public/rack01".to_string(), h)),
    );
    let mut c = Cluster::from_locations(&hosts, Resource::new(4096, 4))?;
    for n in c.nodes.iter_mut().skip(PRIVATE_NODES) {
        n.capability = Resource::new(1024, 1);
    }
    Ok(c)
}

/// Experiment 3's public pool file: its running instances, then TABLE IV's startable types.
pub fn exp3_pool_file_text() -> String {
    let mut s = String::from(
        "# MROSA Experiment 3: running public instances (host type price-per-sec mips mb-per-sec)\n",
    );
    for (host, it) in exp3_public_instances() {
        s.push_str(&format!(
            "{host} {} {} {} {}\n",
            it.name, it.price_per_sec, it.mips, it.band_mb_s
        ));
    }
    s + &pool_file_text()
}

/// `exp2` (Fig. 4: jobs of 96 maps, every job's deadline `deadline_s`), `exp1` (one job of each
/// Experiment 1 size; deadline `deadline_s` too, so QoS can be read off it) or `exp3` (Fig. 5:
/// jobs of `exp3_maps` maps on the hybrid cluster).
pub fn generate(
    which: &str,
    deadline_s: u64,
    exp3_maps: usize,
    rng: &mut Rng,
) -> Result<Workload, String> {
    if deadline_s == 0 {
        return Err("MROSA: --deadline-s must be at least 1".into());
    }
    let shape = shape();
    let mut sizes: Vec<(usize, usize)> = match which {
        "exp2" => vec![EXP2_JOB; EXP2_JOBS],
        "exp1" => EXP1_MAPS.iter().map(|&m| (m, m / 4)).collect(),
        "exp3" if exp3_maps == 0 => return Err("MROSA: --mrosa-maps must be at least 1".into()),
        "exp3" => vec![(exp3_maps, exp3_maps / 4); EXP2_JOBS],
        other => return Err(format!("MROSA workload {other:?}: exp1, exp2 or exp3")),
    };
    // Input blocks go on the private nodes only; exp3's public instances are added after them.
    let cluster = cluster()?;
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
    let (cluster, name) = if which == "exp3" {
        (
            exp3_cluster()?,
            format!("mrosa-exp3 ({exp3_maps} maps, deadline {deadline_s} s)"),
        )
    } else {
        (cluster, format!("mrosa-{which} (deadline {deadline_s} s)"))
    };
    Ok(Workload {
        name,
        cluster,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn experiment_2_jobs_and_table_iv_pool() {
        let w = generate("exp2", 120, 0, &mut Rng::new(1)).unwrap();
        assert_eq!(w.cluster.nodes.len(), 10);
        assert_eq!(w.jobs.len(), EXP2_JOBS);
        assert!(w
            .jobs
            .iter()
            .all(|j| j.maps.len() == 96 && j.reduces.len() == 19));
        assert!(w.jobs.iter().all(|j| j.deadline_secs() == Some(120.0)));
        let e1 = generate("exp1", 60, 0, &mut Rng::new(1)).unwrap();
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
        assert!(generate("exp2", 0, 0, &mut Rng::new(1)).is_err());
    }

    #[test]
    fn experiment_3_hybrid_cluster_keeps_data_private_and_lists_its_instances() {
        let w = generate("exp3", 60, 180, &mut Rng::new(2)).unwrap();
        assert_eq!(w.jobs.len(), EXP2_JOBS);
        assert!(w
            .jobs
            .iter()
            .all(|j| j.maps.len() == 180 && j.reduces.len() == 45));
        assert!(w.jobs.iter().all(|j| j.deadline_secs() == Some(60.0)));
        let c = &w.cluster;
        assert_eq!(c.nodes.len(), PRIVATE_NODES + 9);
        assert_eq!(c.dc_count, 2);
        assert!(w
            .jobs
            .iter()
            .flat_map(|j| &j.maps)
            .all(|m| m.replicas.len() == 3 && m.replicas.iter().all(|&r| r < PRIVATE_NODES)));
        for (i, n) in c.nodes.iter().enumerate() {
            let public = i >= PRIVATE_NODES;
            assert_eq!(
                c.racks[n.rack].name.starts_with("/public/"),
                public,
                "{}",
                n.host
            );
            let cap = if public { (1024, 1) } else { (4096, 4) };
            assert_eq!((n.capability.memory_mb, n.capability.vcores), cap);
        }
        // The pool the core gets names exactly the public instances as running, at TABLE IV's
        // prices, and still offers every type to start.
        let pool =
            locus_core::papers::mrosa::yarn::PublicPool::parse(&exp3_pool_file_text(), "exp3")
                .unwrap();
        let public: Vec<&str> = c.nodes[PRIVATE_NODES..]
            .iter()
            .map(|n| n.host.as_str())
            .collect();
        assert_eq!(
            pool.nodes
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .len(),
            9
        );
        assert!(public.iter().all(|h| pool.nodes.contains_key(*h)));
        assert_eq!(pool.nodes["ec2-2c-1"].price_per_sec, 27e-6);
        assert_eq!(pool.startable.len(), 9);
        assert!(generate("exp3", 60, 0, &mut Rng::new(1)).is_err());
    }
}
