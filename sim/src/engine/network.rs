//! What a map's input read shares on its way from the serving DataNode to the reader: the
//! serving node's disk, the serving node's NIC, the reader's NIC and, across racks, both racks'
//! uplinks. Each of these links is shared equally among the reads using it; a read runs at the
//! smallest share along its path (and never faster than one stream can: `Bandwidths::stream`).
//! docs/design/simulator.md ("Reads and the network") gives every default's source.

use crate::cluster::{Cluster, Distance};

use super::TaskRef;
use crate::prefetch::prefetch;

/// How many reads ahead `retime` starts loading a read's line: enough misses in flight to
/// cover a load from the shared cache, few enough that the lines are still there when used.
const AHEAD: usize = 8;

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

/// The links of a read's path, by index into [`Links`]. The hops past `len` repeat the first,
/// so the narrowest share can be taken over all `MAX_HOPS` without a branch on the length.
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
        if self.len == 0 {
            self.hops = [link as u32; MAX_HOPS];
        }
        self.hops[self.len as usize] = link as u32;
        self.len += 1;
    }
}

/// A read in progress, by its slot in [`Links`]: what re-timing it needs, in one cache line and
/// apart from the task table, since a busy uplink re-times most of its reads on every change.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(super) struct Live {
    pub(super) path: Path,
    /// One stream's cap at the read's distance, bytes per ms.
    pub(super) stream: f64,
    /// Bytes left as of `last`.
    pub(super) remaining: f64,
    pub(super) last: u64,
    /// When the read's live ReadDone event fires.
    pub(super) event_at: u64,
    /// The task's read version (the task's own copy is stale while the read is live).
    pub(super) version: u32,
}

/// Every shared link of the cluster with its capacity (bytes per ms) and the reads on it.
/// Indices: disks `0..n`, NICs out `n..2n`, NICs in `2n..3n`, rack uplinks out `3n..3n+r`,
/// rack uplinks in `3n+r..3n+2r`. Reads in progress live in slots, numbered from 0 and reused.
#[derive(Debug, Clone, Default)]
pub(super) struct Links {
    nodes: usize,
    racks: usize,
    cap: Vec<f64>,
    /// Per link: its capacity over its reads (at least one), kept up to date on every join and
    /// leave instead of being divided out for each read re-timed.
    share: Vec<f64>,
    /// Per link: the slots of the reads on it, in the order they joined (a leave moves the
    /// last into the gap).
    reads: Vec<Vec<u32>>,
    live: Vec<Live>,
    /// Per slot: the reading task (only needed when its event is queued).
    task: Vec<TaskRef>,
    /// Per slot: the read's current rate, bytes per ms (apart from `live`: a busy link's pass
    /// reads only this).
    rate: Vec<f64>,
    free: Vec<u32>,
    /// Scratch for `retime`: the slots one change re-times, and the events they need.
    batch: Vec<u32>,
    due: Vec<(u32, u64, u32)>,
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
            share: cap.clone(),
            cap,
            live: Vec::new(),
            task: Vec::new(),
            rate: Vec::new(),
            free: Vec::new(),
            batch: Vec::new(),
            due: Vec::new(),
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

    /// Gives `read` a slot, with `rate` as its rate so far, and puts it on the links of its path.
    pub(super) fn join(&mut self, task: TaskRef, read: Live, rate: f64) -> u32 {
        let slot = match self.free.pop() {
            Some(s) => {
                self.live[s as usize] = read;
                self.task[s as usize] = task;
                self.rate[s as usize] = rate;
                s
            }
            None => {
                self.live.push(read);
                self.task.push(task);
                self.rate.push(rate);
                (self.live.len() - 1) as u32
            }
        };
        for &l in read.path.links() {
            let list = &mut self.reads[l as usize];
            list.push(slot);
            self.share[l as usize] = self.cap[l as usize] / list.len() as f64;
        }
        slot
    }

    /// Takes the read in `slot` off its links and frees the slot; returns the read and its rate.
    pub(super) fn leave(&mut self, slot: u32) -> (Live, f64) {
        let read = self.live[slot as usize];
        for &l in read.path.links() {
            let list = &mut self.reads[l as usize];
            if let Some(i) = list.iter().position(|&r| r == slot) {
                list.swap_remove(i);
            }
            self.share[l as usize] = self.cap[l as usize] / list.len().max(1) as f64;
        }
        self.free.push(slot);
        (read, self.rate[slot as usize])
    }

    /// Bytes per ms a read on `p` gets: the smallest equal share along its path.
    #[cfg(test)]
    fn share(&self, p: &Path) -> f64 {
        narrowest(&self.share, p)
    }

    /// Re-times, at `now`, the reads on link `l` that a change of its reader count can move:
    /// with `joined` (the slot that just joined) those at least as fast as its new share and
    /// the joiner, else (one just left) those at least as fast as its old share. Each
    /// progresses at its old rate up to now and continues at the narrowest share of its path
    /// (at most one stream's cap). Returns the events to queue, in the order of the link's
    /// reads: (slot, when, version) of each read that now finishes sooner than its queued
    /// event.
    ///
    /// The reads are picked first and then re-timed in a loop with no calls, so the cache
    /// misses of consecutive reads overlap (they are scattered over the slots).
    pub(super) fn retime(&mut self, l: u32, joined: Option<u32>, now: u64) -> usize {
        let list = &self.reads[l as usize];
        let n = list.len();
        // Only the reads this link holds back can speed up when one leaves (their rate is its
        // old share), and only those faster than its new share slow down when one joins; the
        // others keep their rate, and skipping them keeps a busy uplink from costing a
        // re-timing of all its reads per change.
        let bound = match joined {
            Some(_) => self.cap[l as usize] / n.max(1) as f64,
            None => self.cap[l as usize] / (n + 1) as f64,
        } * (1.0 - 1e-9);
        self.batch.clear();
        for &r in list {
            if Some(r) == joined || self.rate[r as usize] >= bound {
                self.batch.push(r);
            }
        }
        self.due.clear();
        for (i, &slot) in self.batch.iter().enumerate() {
            // Touch a read a few ahead so that its cache miss overlaps this one's work (the
            // slots are scattered, and the loads of later reads are otherwise issued only once
            // this one's branches resolve).
            if let Some(&ahead) = self.batch.get(i + AHEAD) {
                prefetch(&self.live[ahead as usize]);
            }
            let read = &mut self.live[slot as usize];
            let rate = read.stream.min(narrowest(&self.share, &read.path));
            let old = &mut self.rate[slot as usize];
            read.remaining = (read.remaining - *old * (now - read.last) as f64).max(0.0);
            read.last = now;
            *old = rate;
            let at = now + ceil_ms(read.remaining / rate);
            // A later finish keeps the queued event, which re-times itself when it fires; only
            // an earlier one needs a new event. This keeps one live event per read instead of
            // one per change at a busy node.
            if at < read.event_at || read.event_at < now {
                read.event_at = at;
                read.version += 1;
                self.due.push((slot, at, read.version));
            }
        }
        self.due.len()
    }

    /// The `i`th event the last `retime` asked for: the task, when, and the read's version.
    pub(super) fn due(&self, i: usize) -> (TaskRef, u64, u32) {
        let (slot, at, v) = self.due[i];
        (self.task[slot as usize], at, v)
    }

    /// When the `i`th event the last `retime` asked for fires.
    pub(super) fn due_at(&self, i: usize) -> u64 {
        self.due[i].1
    }

    pub(super) fn live(&mut self, slot: u32) -> &mut Live {
        &mut self.live[slot as usize]
    }

    /// Loads the read in `slot` (if any) so a check of it soon finds it in cache.
    pub(super) fn touch(&self, slot: u32) {
        if let Some(r) = self.live.get(slot as usize) {
            prefetch(r);
        }
    }

    pub(super) fn rate(&self, slot: u32) -> f64 {
        self.rate[slot as usize]
    }
}

/// The smallest of the links' `share`s along `p` (a path on no link: infinite). The repeated
/// first hop changes nothing (the minimum of equal values), and a fixed count of hops keeps the
/// loop free of a branch the processor would mispredict between reads of 1, 3 and 5 hops.
fn narrowest(share: &[f64], p: &Path) -> f64 {
    if p.len == 0 {
        return f64::INFINITY;
    }
    p.hops
        .iter()
        .map(|&l| share[l as usize])
        .fold(f64::INFINITY, f64::min)
}

/// `x.ceil() as u64` for the milliseconds a read has left, without a call into libm (`ceil` was
/// a few percent of a run with busy links); the same value for every input.
pub(super) fn ceil_ms(x: f64) -> u64 {
    if (0.0..9.0e15).contains(&x) {
        // Below 2^53 every integer is exact, so the truncation tells whether x had a fraction.
        let t = x as u64;
        if (t as f64) < x {
            t + 1
        } else {
            t
        }
    } else {
        x.ceil() as u64
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
    fn ceil_ms_is_ceil() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            2.0 - f64::EPSILON,
            1e9 + 0.25,
            (1u64 << 52) as f64 + 0.5,
            (1u64 << 53) as f64,
            9.0e15,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        // remaining / rate as the reads compute it, over bytes and rates a run sees
        for i in 1..2000u64 {
            xs.push((i * 1_048_573) as f64 / (117_440.512 / i as f64));
            xs.push(i as f64 * 0.1);
        }
        for x in xs {
            assert_eq!(ceil_ms(x), x.ceil() as u64, "ceil of {x}");
        }
    }

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

    fn read(path: Path) -> Live {
        Live {
            version: 0,
            path,
            stream: f64::INFINITY,
            remaining: 0.0,
            last: 0,
            event_at: u64::MAX,
        }
    }

    #[test]
    fn every_link_is_shared_equally_and_the_narrowest_share_wins() {
        // 2 racks of 10 nodes; an oversubscription of 5 gives each uplink 10 x 100 / 5 = 200.
        let c = Cluster::uniform(20, 2, 1, Resource::new(8192, 8)).unwrap_or_default();
        let mut l = Links::new(&c, &bw(Uplink::Oversubscription(5.0)));
        let p = l.path(&c, 0, 10);
        l.join(t(0), read(p), 0.0);
        // alone: the NICs' 100 is the narrowest (disk 120, uplinks 200)
        assert!((l.share(&p) / MS - 100.0).abs() < 1e-9);
        // four reads from rack 1's nodes 1..=4 into rack 2: the uplink's 200 / 5 = 40 each
        let mut slots = Vec::new();
        for i in 1..=4 {
            let q = l.path(&c, i, 10 + i);
            slots.push(l.join(t(i), read(q), 0.0));
        }
        assert!((l.share(&p) / MS - 40.0).abs() < 1e-9);
        // a second read of node 0's disk, inside the rack: disk 120 / 2, NIC out 100 / 2
        let q = l.path(&c, 0, 5);
        let s9 = l.join(t(9), read(q), 0.0);
        assert!((l.share(&q) / MS - 50.0).abs() < 1e-9, "NIC out 100 / 2");
        assert!((l.share(&p) / MS - 40.0).abs() < 1e-9);
        l.leave(s9);
        for s in slots {
            l.leave(s);
        }
        assert!((l.share(&p) / MS - 100.0).abs() < 1e-9);
        // a freed slot is reused, and the links count only the reads still on them
        let s = l.join(t(7), read(q), 0.0);
        assert!(s <= 5, "slot {s} reused");
        assert!(
            (l.share(&q) / MS - 50.0).abs() < 1e-9,
            "NIC out 100 / 2 again"
        );
    }
}
