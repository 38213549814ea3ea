//! What a map's input read shares on its way from the serving DataNode to the reader: the
//! serving node's disk, the serving node's NIC, the reader's NIC and, across racks, both racks'
//! uplinks. Each of these links is shared equally among the reads using it; a read runs at the
//! smallest share along its path (and never faster than one stream can: `Bandwidths::stream`).
//! docs/simulator.md ("Reads and the network") gives every default's source.

use crate::cluster::{Cluster, Distance};

use super::TaskRef;

/// Bandwidths in MB/s (MiB/s, as the rest of the simulator counts).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Bandwidths {
    /// One local read stream from disk.
    pub disk: f64,
    /// What one node's disk serves to all its readers together, local and remote.
    pub serve: f64,
    /// One node's NIC, each direction (full duplex): what all the remote reads it serves share,
    /// and what all the remote reads into it share.
    pub nic: f64,
    /// A rack's uplink to the core, each direction.
    pub uplink: Uplink,
    /// One read stream across datacenters (the inter-datacenter link).
    pub remote: f64,
}

/// How a rack's uplink capacity is given.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub enum Uplink {
    /// MB/s per rack, whatever its size.
    PerRack(f64),
    /// An oversubscription ratio: the rack's nodes' NIC bandwidth divided by this.
    Oversubscription(f64),
}

impl Bandwidths {
    /// The most one stream at this distance can move, before any sharing: a local disk read,
    /// one NIC within the datacenter, the inter-datacenter link across them.
    pub(super) fn stream(&self, d: Distance) -> f64 {
        match d {
            Distance::Node => self.disk,
            Distance::Rack | Distance::Datacenter => self.nic,
            Distance::Remote => self.remote,
        }
    }

    fn uplink_of(&self, rack_nodes: usize) -> f64 {
        match self.uplink {
            Uplink::PerRack(mb) => mb,
            Uplink::Oversubscription(r) => rack_nodes as f64 * self.nic / r,
        }
    }
}

/// The longest path: disk, serving NIC, reader NIC, serving rack's uplink, reader rack's uplink.
pub(super) const MAX_HOPS: usize = 5;

/// The links of a read's path, by index into [`Links`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Path {
    hops: [u32; MAX_HOPS],
    len: u8,
}

impl Path {
    pub(super) fn links(&self) -> &[u32] {
        &self.hops[..self.len as usize]
    }

    fn push(&mut self, link: usize) {
        self.hops[self.len as usize] = link as u32;
        self.len += 1;
    }
}

/// Every shared link of the cluster with its capacity (bytes per ms) and the reads on it.
/// Indices: disks `0..n`, NICs out `n..2n`, NICs in `2n..3n`, rack uplinks out `3n..3n+r`,
/// rack uplinks in `3n+r..3n+2r`.
#[derive(Debug, Clone, Default)]
pub(super) struct Links {
    nodes: usize,
    racks: usize,
    cap: Vec<f64>,
    reads: Vec<Vec<TaskRef>>,
}

impl Links {
    pub(super) fn new(c: &Cluster, bw: &Bandwidths) -> Links {
        let (n, r) = (c.nodes.len(), c.racks.len());
        let per_ms = |mb: f64| mb * crate::workload::MB / 1000.0;
        let mut cap = Vec::with_capacity(3 * n + 2 * r);
        cap.extend(std::iter::repeat_n(per_ms(bw.serve), n));
        cap.extend(std::iter::repeat_n(per_ms(bw.nic), 2 * n));
        for _ in 0..2 {
            cap.extend(
                c.rack_nodes
                    .iter()
                    .map(|nodes| per_ms(bw.uplink_of(nodes.len()))),
            );
        }
        Links {
            nodes: n,
            racks: r,
            reads: vec![Vec::new(); cap.len()],
            cap,
        }
    }

    /// The links a read of `source`'s replica by a task on `reader` uses.
    pub(super) fn path(&self, c: &Cluster, source: u32, reader: u32) -> Path {
        let (s, d) = (source as usize, reader as usize);
        let mut p = Path::default();
        p.push(s);
        if s != d {
            p.push(self.nodes + s);
            p.push(2 * self.nodes + d);
            let (rs, rd) = (c.rack_of(s), c.rack_of(d));
            if rs != rd {
                p.push(3 * self.nodes + rs);
                p.push(3 * self.nodes + self.racks + rd);
            }
        }
        p
    }

    pub(super) fn join(&mut self, t: TaskRef, p: &Path) {
        for &l in p.links() {
            self.reads[l as usize].push(t);
        }
    }

    pub(super) fn leave(&mut self, t: TaskRef, p: &Path) {
        for &l in p.links() {
            let list = &mut self.reads[l as usize];
            if let Some(i) = list.iter().position(|&r| r == t) {
                list.swap_remove(i);
            }
        }
    }

    /// Bytes per ms a read on `p` gets: the smallest equal share along its path.
    pub(super) fn share(&self, p: &Path) -> f64 {
        p.links()
            .iter()
            .map(|&l| self.cap[l as usize] / self.reads[l as usize].len().max(1) as f64)
            .fold(f64::INFINITY, f64::min)
    }

    /// Link `l`'s capacity in bytes per ms.
    pub(super) fn capacity(&self, l: u32) -> f64 {
        self.cap[l as usize]
    }

    /// Reads on link `l`, for re-timing them in place.
    pub(super) fn readers(&self, l: u32) -> usize {
        self.reads[l as usize].len()
    }

    pub(super) fn reader(&self, l: u32, i: usize) -> TaskRef {
        self.reads[l as usize][i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_core::Resource;

    fn t(idx: u32) -> TaskRef {
        TaskRef {
            job: 0,
            reduce: false,
            idx,
        }
    }

    fn bw(uplink: Uplink) -> Bandwidths {
        Bandwidths {
            disk: 120.0,
            serve: 120.0,
            nic: 100.0,
            uplink,
            remote: 10.0,
        }
    }

    const MS: f64 = crate::workload::MB / 1000.0;

    #[test]
    fn a_path_crosses_uplinks_only_between_racks() {
        let c = Cluster::uniform(4, 2, 1, Resource::new(8192, 8)).unwrap_or_default();
        let l = Links::new(&c, &bw(Uplink::PerRack(400.0)));
        assert_eq!(l.path(&c, 0, 0).links().len(), 1, "local: the disk only");
        assert_eq!(l.path(&c, 0, 1).links().len(), 3, "rack: disk and two NICs");
        assert_eq!(
            l.path(&c, 0, 3).links().len(),
            5,
            "off-rack: and two uplinks"
        );
    }

    #[test]
    fn every_link_is_shared_equally_and_the_narrowest_share_wins() {
        // 2 racks of 10 nodes; an oversubscription of 5 gives each uplink 10 x 100 / 5 = 200.
        let c = Cluster::uniform(20, 2, 1, Resource::new(8192, 8)).unwrap_or_default();
        let mut l = Links::new(&c, &bw(Uplink::Oversubscription(5.0)));
        let p = l.path(&c, 0, 10);
        l.join(t(0), &p);
        // alone: the NICs' 100 is the narrowest (disk 120, uplinks 200)
        assert!((l.share(&p) / MS - 100.0).abs() < 1e-9);
        // four reads from rack 1's nodes 1..=4 into rack 2: the uplink's 200 / 5 = 40 each
        for i in 1..=4 {
            let q = l.path(&c, i, 10 + i);
            l.join(t(i), &q);
        }
        assert!((l.share(&p) / MS - 40.0).abs() < 1e-9);
        // a second read of node 0's disk, inside the rack: disk 120 / 2, NIC out 100 / 2
        let q = l.path(&c, 0, 5);
        l.join(t(9), &q);
        assert!((l.share(&q) / MS - 50.0).abs() < 1e-9, "NIC out 100 / 2");
        assert!((l.share(&p) / MS - 40.0).abs() < 1e-9);
        l.leave(t(9), &q);
        for i in 1..=4 {
            let q = l.path(&c, i, 10 + i);
            l.leave(t(i), &q);
        }
        assert!((l.share(&p) / MS - 100.0).abs() < 1e-9);
    }
}
