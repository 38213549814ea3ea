//! Failures: a NodeManager lost mid-run (its containers and map outputs), a failed AM attempt,
//! and killing a task.

use super::*;

impl<'w> Engine<'w> {
    pub(super) fn kill_task(&mut self, t: TaskRef) {
        let now = self.now;
        let task = self.task(t);
        if !task.running {
            return;
        }
        let (reading, start, node) = (task.reading, task.start, task.node);
        if reading {
            self.detach_read(t);
        }
        self.charge(t.job, node, start);
        let task = self.task(t);
        task.running = false;
        task.waiting_shuffle = false;
        let job = &mut self.jobs[t.job as usize];
        job.running -= 1;
        job.running_start_sum -= start as f64;
        job.task_ms_done += (now - start) as f64;
        if t.reduce {
            job.run_reduces -= 1;
            self.running_reduces -= 1;
        } else {
            job.run_maps -= 1;
            self.running_maps -= 1;
        }
    }

    /// One round of the RM's preemption monitor: the core picks, the RM kills what the core
    /// says to kill. A kill frees the container at once (the RM completes it as preempted, as
    /// CapacityScheduler's kill does); the AM learns of it on its next allocate and asks again
    /// for the task, which starts over: the work it had done is lost. A mark alone changes
    /// nothing here: MapReduce's default AM preemption policy ignores the PreemptionMessage.
    pub(super) fn preemption_round(&mut self) -> Result<(), String> {
        let round = self.core.preemption_round(self.now, &self.cfg.preemption);
        for id in round.kill {
            let Some(cid) = id
                .strip_prefix("container_")
                .and_then(|n| n.parse::<u64>().ok())
            else {
                return Err(format!("preemption round named unknown container {id}"));
            };
            self.preempt(cid)?;
        }
        if self.unfinished > 0 {
            let at = self.now + self.cfg.preemption.monitoring_interval_ms;
            self.push(at, Ev::Preempt);
        }
        Ok(())
    }

    fn preempt(&mut self, cid: u64) -> Result<(), String> {
        let Some(c) = self.containers.get(cid as usize) else {
            return Err(format!("preemption round named unknown container {cid}"));
        };
        if !c.live {
            return Ok(());
        }
        let (j, node) = (c.job, c.node);
        if self.jobs[j as usize].finished.is_some()
            || self.jobs[j as usize].am_container == Some(cid)
        {
            return Ok(());
        }
        // A container granted and not yet running a task (or given back) is left: it is about
        // to run one or to be released.
        let Some(t) = self.task_in(j, cid) else {
            return Ok(());
        };
        let start = self.task(t).start;
        self.kill_task(t);
        self.raw.preempted_containers += 1;
        self.raw.preempted_work_ms += self.now.saturating_sub(start);
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        if t.reduce {
            job.pending_reduces.push_front(t.idx);
        } else {
            job.am.request_failed_map(t.idx, now);
        }
        self.release(cid)?;
        self.arm(node);
        self.request_pass();
        Ok(())
    }

    pub(super) fn node_fail(&mut self, n: u32) -> Result<(), String> {
        if !self.nodes[n as usize].alive {
            return Ok(());
        }
        self.nodes[n as usize].alive = false;
        let id = self.nodes[n as usize].id.clone();
        self.send(Event::NodeRemoved { node: id })?;
        // The core dropped the node's containers with it; the sim forgets them the same way.
        let now = self.now;
        let lost: Vec<u64> = self.nodes[n as usize].containers.iter().copied().collect();
        let mut failed_ams: Vec<u32> = Vec::new();
        for cid in lost {
            let c = &mut self.containers[cid as usize];
            c.live = false;
            let (j, res) = (c.job, c.resource);
            self.used_mem -= res.memory_mb as f64;
            self.jobs[j as usize].containers.remove(&cid);
            if self.jobs[j as usize].finished.is_some() {
                continue;
            }
            if self.jobs[j as usize].am_container == Some(cid) {
                failed_ams.push(j);
                continue;
            }
            if let Some(t) = self.task_in(j, cid) {
                self.kill_task(t);
                self.raw.lost_tasks += 1;
                let job = &mut self.jobs[j as usize];
                // A failed reduce goes to the front of the pending reduces (fail fast); a
                // failed map asks again at the fast-fail priority.
                if t.reduce {
                    job.pending_reduces.push_front(t.idx);
                } else {
                    job.am.request_failed_map(t.idx, now);
                }
            }
        }
        let node = &mut self.nodes[n as usize];
        node.containers.clear();
        node.completed.clear();
        node.used = Resource::ZERO;
        // Finished maps whose output lived there run again while reduces still need it.
        for j in 0..self.jobs.len() as u32 {
            let job = &mut self.jobs[j as usize];
            if !job.submitted
                || job.finished.is_some()
                || job.reduces.is_empty()
                || job.reduces_done == job.reduces.len()
            {
                continue;
            }
            let rerun: Vec<u32> = (0..job.maps.len() as u32)
                .filter(|&m| job.maps[m as usize].done && job.maps[m as usize].node == n)
                .collect();
            if rerun.is_empty() {
                continue;
            }
            job.map_out.remove(&n);
            self.raw.lost_tasks += rerun.len() as u64;
            for m in rerun {
                job.maps[m as usize].done = false;
                job.maps_done -= 1;
                if job.registered_at.is_some() {
                    job.am.request_failed_map(m, now);
                }
            }
        }
        // Reads it served move to another replica.
        self.move_reads_off(n);
        for j in failed_ams {
            self.am_failed(j)?;
        }
        Ok(())
    }

    pub(super) fn task_in(&mut self, j: u32, cid: u64) -> Option<TaskRef> {
        let job = &self.jobs[j as usize];
        let m = job
            .maps
            .iter()
            .position(|t| t.running && t.container == cid);
        if let Some(m) = m {
            return Some(TaskRef {
                job: j,
                reduce: false,
                idx: m as u32,
            });
        }
        job.reduces
            .iter()
            .position(|t| t.running && t.container == cid)
            .map(|r| TaskRef {
                job: j,
                reduce: true,
                idx: r as u32,
            })
    }

    /// The AM's node died: the attempt ends with its containers; a new attempt recovers the
    /// finished tasks (MapReduce job recovery) and asks again for the rest.
    pub(super) fn am_failed(&mut self, j: u32) -> Result<(), String> {
        let running: Vec<u64> = self.jobs[j as usize].containers.iter().copied().collect();
        for cid in running {
            if let Some(t) = self.task_in(j, cid) {
                self.kill_task(t);
            }
            self.release(cid)?;
        }
        let job = &mut self.jobs[j as usize];
        let attempt = format!("{}_{:06}", job.app, job.attempt);
        let app = job.app.clone();
        let locations = self.split_locations(j);
        let job = &mut self.jobs[j as usize];
        job.am = AmRequests::new(locations);
        job.registered_at = None;
        job.allocate_at = None;
        job.am_container = None;
        job.new.clear();
        job.to_release.clear();
        job.reduce_started = false;
        job.pending_reduces = (0..job.reduces.len() as u32)
            .filter(|&r| !job.reduces[r as usize].done)
            .collect();
        self.send(Event::AttemptRemoved { app, attempt })?;
        self.new_attempt(j)
    }
}
