//! HDFS block placement: where the replicas of each block live.

use crate::cluster::Cluster;
use crate::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// HDFS's BlockPlacementPolicyDefault: first replica on the writer (a random node when the
    /// writer is not a DataNode), second on a different rack, third on the second's rack on
    /// another node, any further ones on random nodes not used yet.
    RackAware,
    /// The papers' placement: distinct nodes chosen uniformly at random.
    Uniform,
}

impl std::str::FromStr for Placement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rack-aware" | "hdfs" => Ok(Placement::RackAware),
            "uniform" | "random" => Ok(Placement::Uniform),
            other => Err(format!(
                "unknown placement {other:?}; allowed: rack-aware, uniform"
            )),
        }
    }
}

/// Picks a node uniformly among those `ok` accepts, or `None` when none does. Tries random
/// draws first because clusters are large and replica lists short; falls back to a scan so a
/// nearly-exhausted choice still terminates.
fn pick(
    cluster: &Cluster,
    candidates: Option<&[usize]>,
    rng: &mut Rng,
    ok: impl Fn(usize) -> bool,
) -> Option<usize> {
    let len = candidates.map_or(cluster.nodes.len(), |c| c.len());
    let at = |i: usize| candidates.map_or(i, |c| c[i]);
    for _ in 0..16 {
        let n = at(rng.below(len));
        if ok(n) {
            return Some(n);
        }
    }
    let all: Vec<usize> = (0..len).map(at).filter(|&n| ok(n)).collect();
    if all.is_empty() {
        None
    } else {
        Some(all[rng.below(all.len())])
    }
}

/// Replica nodes of one block (never the same node twice; fewer than `replication` only when
/// the cluster has fewer nodes).
pub fn place_block(
    cluster: &Cluster,
    placement: Placement,
    replication: usize,
    writer: Option<usize>,
    rng: &mut Rng,
) -> Vec<usize> {
    let want = replication.min(cluster.nodes.len());
    let mut out: Vec<usize> = Vec::with_capacity(want);
    if want == 0 {
        return out;
    }
    match placement {
        Placement::Uniform => {
            while out.len() < want {
                match pick(cluster, None, rng, |n| !out.contains(&n)) {
                    Some(n) => out.push(n),
                    None => break,
                }
            }
        }
        Placement::RackAware => {
            let first = writer.unwrap_or_else(|| rng.below(cluster.nodes.len()));
            out.push(first);
            if want >= 2 {
                let r1 = cluster.rack_of(first);
                let second = pick(cluster, None, rng, |n| cluster.rack_of(n) != r1)
                    .or_else(|| pick(cluster, None, rng, |n| !out.contains(&n)));
                if let Some(s) = second {
                    out.push(s);
                }
            }
            if want >= 3 && out.len() == 2 {
                let r2 = cluster.rack_of(out[1]);
                let third = pick(cluster, Some(&cluster.rack_nodes[r2]), rng, |n| {
                    !out.contains(&n)
                })
                .or_else(|| pick(cluster, None, rng, |n| !out.contains(&n)));
                if let Some(t) = third {
                    out.push(t);
                }
            }
            while out.len() < want {
                match pick(cluster, None, rng, |n| !out.contains(&n)) {
                    Some(n) => out.push(n),
                    None => break,
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_core::Resource;

    fn cluster(nodes: usize, racks: usize) -> Cluster {
        Cluster::uniform(nodes, racks, 1, Resource::new(8192, 8)).unwrap_or_default()
    }

    #[test]
    fn rack_aware_spans_two_racks_with_second_and_third_together() {
        let c = cluster(40, 4);
        let mut rng = Rng::new(3);
        for _ in 0..2000 {
            let writer = rng.below(40);
            let r = place_block(&c, Placement::RackAware, 3, Some(writer), &mut rng);
            assert_eq!(r.len(), 3);
            assert_eq!(r[0], writer, "first replica on the writer");
            let mut distinct = r.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), 3, "no node twice: {r:?}");
            assert_ne!(
                c.rack_of(r[0]),
                c.rack_of(r[1]),
                "second replica on another rack"
            );
            assert_eq!(
                c.rack_of(r[1]),
                c.rack_of(r[2]),
                "third replica on the second's rack"
            );
        }
    }

    #[test]
    fn rack_aware_on_one_rack_still_places_distinct_nodes() {
        let c = cluster(5, 1);
        let mut rng = Rng::new(1);
        let r = place_block(&c, Placement::RackAware, 3, None, &mut rng);
        let mut d = r.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 3);
        assert_eq!(
            place_block(&c, Placement::RackAware, 9, None, &mut rng).len(),
            5,
            "capped at the node count"
        );
    }

    #[test]
    fn uniform_is_distinct_and_spreads_evenly() {
        let c = cluster(10, 2);
        let mut rng = Rng::new(5);
        let mut per_node = [0u32; 10];
        for _ in 0..10_000 {
            let r = place_block(&c, Placement::Uniform, 2, Some(0), &mut rng);
            assert_eq!(r.len(), 2);
            assert_ne!(r[0], r[1]);
            for n in r {
                per_node[n] += 1;
            }
        }
        // 20,000 replicas over 10 nodes: 2,000 each expected; the writer gets no preference
        for (n, &k) in per_node.iter().enumerate() {
            assert!((1800..=2200).contains(&k), "node {n} holds {k} replicas");
        }
    }
}
