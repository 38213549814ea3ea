//! Input reads and the shuffle over the modelled cluster: choosing a replica, processor sharing
//! of the links a read uses (`network`), stream caps by distance, and hotspot counting.

use super::network::ceil_ms;
use super::*;

impl<'w> Engine<'w> {
    pub(super) fn bytes_per_ms(mb_per_s: f64) -> f64 {
        mb_per_s * MB / 1000.0
    }

    pub(super) fn start_task(&mut self, t: TaskRef, g: Granted) {
        self.last_progress = self.now;
        self.raw.attempts += 1;
        let now = self.now;
        let job = &mut self.jobs[t.job as usize];
        job.running += 1;
        job.running_start_sum += now as f64;
        if t.reduce {
            job.run_reduces += 1;
        } else {
            job.run_maps += 1;
        }
        self.nodes[g.node as usize].tasks_run += 1;
        if self.price[g.node as usize].is_some() {
            self.raw.public_tasks += 1;
        }
        let task = self.task(t);
        task.attempt += 1;
        task.running = true;
        task.container = g.container;
        task.node = g.node;
        task.start = now;
        if t.reduce {
            self.running_reduces += 1;
            let maps_left = {
                let job = &self.jobs[t.job as usize];
                job.maps_done < job.maps.len()
            };
            if maps_left {
                self.task(t).waiting_shuffle = true;
            } else {
                self.start_shuffle(t);
            }
            return;
        }
        self.running_maps += 1;
        let spec = &self.w.jobs[t.job as usize].maps[t.idx as usize];
        let attempt = self.task(t).attempt;
        if let Some(ms) = spec.fixed_ms {
            self.push(now + ms, Ev::TaskDone(t, attempt));
            return;
        }
        if spec.input_bytes == 0 {
            self.push(now + self.cfg.task_overhead_ms, Ev::TaskDone(t, attempt));
            return;
        }
        let (source, level) = self.choose_source(&spec.replicas, g.node, NONE);
        self.raw.traffic.map_read(level, spec.input_bytes as f64);
        self.raw.job_map_levels[t.job as usize][level.index()] += 1;
        let bytes = spec.input_bytes as f64;
        let task = self.task(t);
        task.level = Some(level);
        task.remaining = bytes;
        task.rate = 0.0;
        task.version += 1;
        task.read_event_at = u64::MAX;
        task.last = now;
        task.reading = true;
        self.attach_read(t, source);
    }

    /// The closest live replica to `reader` (HDFS sorts replicas by network distance and
    /// shuffles equals); `NONE` with Remote distance when every replica is gone.
    pub(super) fn choose_source(
        &mut self,
        replicas: &[usize],
        reader: u32,
        exclude: u32,
    ) -> (u32, Distance) {
        let c = &self.w.cluster;
        let mut best: Vec<u32> = Vec::new();
        let mut best_d = Distance::Remote;
        for &r in replicas {
            if r as u32 == exclude || !self.nodes[r].alive {
                continue;
            }
            let d = c.distance(r, reader as usize);
            if best.is_empty() || d < best_d {
                best.clear();
                best_d = d;
            }
            if d == best_d {
                best.push(r as u32);
            }
        }
        if best.is_empty() {
            return (NONE, Distance::Remote);
        }
        (best[self.rng.below(best.len())], best_d)
    }

    pub(super) fn attach_read(&mut self, t: TaskRef, source: u32) {
        let now = self.now;
        let task = self.task(t);
        task.source = source;
        let (reader_node, level) = (task.node, task.level.unwrap_or(Distance::Remote));
        let mut read = network::Live {
            version: task.version,
            path: network::Path::default(),
            stream: 0.0,
            remaining: task.remaining,
            last: task.last,
            event_at: task.read_event_at,
        };
        if source == NONE {
            // The data is gone from every live replica; model the read as a remote fetch
            // nobody else shares (it is on no link), so the job can still finish.
            let rate = Self::bytes_per_ms(self.cfg.bw.remote);
            let at = now + ceil_ms(read.remaining / rate);
            read.stream = rate;
            read.event_at = at;
            read.version += 1;
            let v = read.version;
            self.task(t).read = self.links.join(t, read, rate);
            self.push(at, Ev::ReadDone(t, v));
            return;
        }
        let rate = task.rate;
        let node = &mut self.nodes[source as usize];
        node.reads.push(t);
        if source != reader_node && node.remote_reads.start(self.cfg.hotspot_readers) {
            self.raw.hotspots.push(self.now);
        }
        read.path = self.links.path(&self.w.cluster, source, reader_node);
        read.stream = Self::bytes_per_ms(self.cfg.bw.stream(level));
        let slot = self.links.join(t, read, rate);
        self.task(t).read = slot;
        self.retime_links(&read.path, Some(slot));
    }

    /// The read stops using its source: it progresses to now at its old rate and leaves its
    /// links, whose other reads speed up. The task keeps where the read got to (a read moved
    /// to another replica continues from there).
    pub(super) fn detach_read(&mut self, t: TaskRef) {
        let now = self.now;
        let slot = self.task(t).read;
        let (read, rate) = self.links.leave(slot);
        let task = self.task(t);
        let (source, reader) = (task.source, task.node);
        task.remaining = (read.remaining - rate * (now - read.last) as f64).max(0.0);
        task.last = now;
        task.rate = rate;
        task.read_event_at = read.event_at;
        task.version = read.version;
        task.reading = false;
        task.source = NONE;
        if source == NONE {
            return;
        }
        let node = &mut self.nodes[source as usize];
        if let Some(pos) = node.reads.iter().position(|&r| r == t) {
            node.reads.swap_remove(pos);
            if source != reader {
                node.remote_reads.end();
            }
        }
        self.retime_links(&read.path, None);
    }

    /// The reads `n` served continue from another live replica (the node is gone).
    pub(super) fn move_reads_off(&mut self, n: u32) {
        let readers = std::mem::take(&mut self.nodes[n as usize].reads);
        self.nodes[n as usize].remote_reads.clear();
        for r in readers {
            self.detach_read(r);
            let task = self.task(r);
            task.reading = true;
            let reader = task.node;
            let spec = &self.w.jobs[r.job as usize].maps[r.idx as usize];
            let (src, level) = self.choose_source(&spec.replicas, reader, n);
            self.task(r).level = Some(level);
            self.attach_read(r, src);
        }
    }

    /// Every read on the links of `path` whose rate the change can move progresses at its old
    /// rate up to now, then continues at its new one (processor sharing on each link;
    /// `network`). `joined` is the slot of the read that just joined them; `None`: one just left.
    fn retime_links(&mut self, path: &network::Path, joined: Option<u32>) {
        for &l in path.links() {
            let due = self.links.retime(l, joined, self.now);
            for i in 0..due {
                // The events land in scattered buckets: fetch a bucket's header, then its
                // end, a few events before the push.
                if i + 8 < due {
                    self.queue.prefetch(self.links.due_at(i + 8), false);
                }
                if i + 4 < due {
                    self.queue.prefetch(self.links.due_at(i + 4), true);
                }
                let (t, at, v) = self.links.due(i);
                self.push(at, Ev::ReadDone(t, v));
            }
        }
    }

    /// Loads, ahead of time, what the `ReadDone` events queued next in this millisecond will
    /// check: most are stale (a read re-timed sooner leaves its earlier event behind), and
    /// each check is a few cache misses spread over the job, task and read tables. Loading
    /// job, task and read a few events apart lets the misses of consecutive events overlap.
    pub(super) fn fetch_ahead(&self) {
        use crate::prefetch::prefetch;
        if let Some(&Ev::ReadDone(t, _)) = self.queue.ahead(12) {
            let job = &self.jobs[t.job as usize];
            prefetch(&job.finished);
            prefetch(&job.maps);
        }
        if let Some(&Ev::ReadDone(t, _)) = self.queue.ahead(6) {
            if let Some(task) = self.task_ref(t) {
                prefetch(&task.running);
                prefetch(&task.read);
            }
        }
        if let Some(&Ev::ReadDone(t, _)) = self.queue.ahead(2) {
            if let Some(task) = self.task_ref(t) {
                self.links.touch(task.read);
            }
        }
    }

    fn task_ref(&self, t: TaskRef) -> Option<&super::TaskRt> {
        let job = &self.jobs[t.job as usize];
        if t.reduce {
            job.reduces.get(t.idx as usize)
        } else {
            job.maps.get(t.idx as usize)
        }
    }

    pub(super) fn read_done(&mut self, t: TaskRef, version: u32) {
        if self.jobs[t.job as usize].finished.is_some() {
            return;
        }
        let now = self.now;
        let task = self.task(t);
        if !task.running || !task.reading {
            return;
        }
        let slot = task.read;
        let rate = self.links.rate(slot);
        let read = self.links.live(slot);
        if read.version != version {
            return;
        }
        read.remaining = (read.remaining - rate * (now - read.last) as f64).max(0.0);
        read.last = now;
        if read.remaining > rate * 0.5 {
            // The rate dropped since this event was queued.
            let at = now + ceil_ms(read.remaining / rate);
            read.event_at = at;
            self.push(at, Ev::ReadDone(t, version));
            return;
        }
        self.detach_read(t);
        let spec = &self.w.jobs[t.job as usize].maps[t.idx as usize];
        let compute = spec.input_bytes as f64 / Self::bytes_per_ms(self.cfg.map_mb_per_s);
        let attempt = self.task(t).attempt;
        self.push(
            self.now + compute.ceil() as u64 + self.cfg.task_overhead_ms,
            Ev::TaskDone(t, attempt),
        );
    }

    pub(super) fn start_shuffle(&mut self, t: TaskRef) {
        let c = &self.w.cluster;
        let spec = &self.w.jobs[t.job as usize];
        let node = self.task(t).node;
        self.task(t).waiting_shuffle = false;
        let attempt = self.task(t).attempt;
        if let Some(ms) = spec.reduces[t.idx as usize].fixed_ms {
            self.push(self.now + ms, Ev::TaskDone(t, attempt));
            return;
        }
        let parts = spec.reduces.len().max(1) as f64;
        let mut copy_ms = 0.0;
        let mut input = 0.0;
        let outs: Vec<(u32, f64)> = self.jobs[t.job as usize]
            .map_out
            .iter()
            .map(|(&k, &v)| (k, v))
            .collect();
        for (src, bytes) in outs {
            let share = bytes / parts;
            let d = c.distance(src as usize, node as usize);
            copy_ms += share / Self::bytes_per_ms(self.cfg.bw.stream(d));
            self.raw.traffic.shuffle(d, share);
            input += share;
        }
        let compute = (input + spec.output_bytes as f64 / parts)
            / Self::bytes_per_ms(self.cfg.reduce_mb_per_s);
        let at = self.now + (copy_ms + compute).ceil() as u64 + self.cfg.task_overhead_ms;
        self.push(at, Ev::TaskDone(t, attempt));
    }
}
