//! The simulated MapReduce ApplicationMaster side of the engine: submission, attempts, the ask
//! rows it keeps in the RM (snapshots and changes sent to the core), reduce slow-start and
//! preemption, what it does with granted containers, and job completion.

use super::*;

impl<'w> Engine<'w> {
    pub(super) fn submit(&mut self, j: u32) -> Result<(), String> {
        let spec = &self.w.jobs[j as usize];
        self.submitted += 1;
        self.active.insert(j);
        self.last_progress = self.now;
        let app = format!("application_1700000000000_{:04}", self.submitted);
        self.app_index.insert(app.clone(), j);
        let splits = self.split_locations(j);
        let job = &mut self.jobs[j as usize];
        job.app = app.clone();
        job.submitted = true;
        job.am = AmRequests::new(splits);
        let idle = TaskRt {
            source: NONE,
            ..Default::default()
        };
        job.maps = vec![idle.clone(); spec.maps.len()];
        job.reduces = vec![idle; spec.reduces.len()];
        self.send(Event::AppAdded {
            app: app.clone(),
            queue: self.raw.job_queues[j as usize].clone(),
            user: spec.user.clone(),
            name: spec.name.clone(),
            app_type: "MAPREDUCE".into(),
            tags: spec.tags.clone(),
            submit_ms: self.now,
            priority: 0,
            recovered: false,
        })?;
        self.new_attempt(j)
    }

    /// Where each map's split lives, as the AM learns it from the job's split file.
    pub(super) fn split_locations(&self, j: u32) -> Vec<SplitLocations> {
        let c = &self.w.cluster;
        self.w.jobs[j as usize]
            .maps
            .iter()
            .map(|m| {
                let hosts: Vec<u32> = m.replicas.iter().map(|&n| n as u32).collect();
                let mut racks: Vec<u32> = m.replicas.iter().map(|&n| c.rack_of(n) as u32).collect();
                racks.sort_unstable();
                racks.dedup();
                SplitLocations { hosts, racks }
            })
            .collect()
    }

    /// A new attempt asks the RM for its AM container (priority 0, `*`).
    pub(super) fn new_attempt(&mut self, j: u32) -> Result<(), String> {
        let job = &mut self.jobs[j as usize];
        job.attempt += 1;
        let ev = Event::AttemptAdded {
            app: job.app.clone(),
            attempt: format!("{}_{:06}", job.app, job.attempt),
        };
        self.send(ev)?;
        for (k, _) in self.jobs[j as usize].rm.rows() {
            self.set_rm_row(j, k, 0);
        }
        self.set_rm_row(j, (PRIORITY_AM, Loc::Any), 1);
        self.send_snapshot(j)?;
        self.request_pass();
        Ok(())
    }

    pub(super) fn set_rm_row(&mut self, j: u32, key: RowKey, value: u32) {
        let old = self.jobs[j as usize].rm.set(key, value);
        if key.1 == Loc::Any {
            let was = self.pending_any;
            self.pending_any += value as i64 - old as i64;
            if was <= 0 && self.pending_any > 0 {
                for n in 0..self.nodes.len() as u32 {
                    self.arm(n);
                }
            }
        }
    }

    pub(super) fn capability_of(&self, j: u32, priority: i32) -> Resource {
        let spec = &self.w.jobs[j as usize];
        match priority {
            PRIORITY_AM => spec.am,
            PRIORITY_REDUCE => spec.reduce,
            _ => spec.map,
        }
    }

    pub(super) fn ask_row(&self, j: u32, (priority, loc): RowKey, count: u32) -> Ask {
        let c = &self.w.cluster;
        Ask {
            priority,
            allocation_request_id: 0,
            resource_name: match loc {
                Loc::Host(h) => c.nodes[h as usize].host.clone(),
                Loc::Rack(r) => c.racks[r as usize].name.clone(),
                Loc::Any => "*".to_string(),
            },
            capability: self.capability_of(j, priority),
            count,
            relax_locality: true,
        }
    }

    /// The whole table (`asks_updated`), used when an attempt starts: the core dropped the
    /// previous attempt's asks, so there is nothing to change rows of.
    pub(super) fn send_snapshot(&mut self, j: u32) -> Result<(), String> {
        let job = &self.jobs[j as usize];
        let asks: Vec<Ask> = job
            .rm
            .rows()
            .into_iter()
            .map(|(key, count)| self.ask_row(j, key, count))
            .collect();
        let app = job.app.clone();
        self.jobs[j as usize].rm.take_changed();
        self.send(Event::AsksUpdated { app, asks })
    }

    /// Only the rows set since the last message (`asks_changed`), as the RM learns them from
    /// an allocate call or changes them when it creates containers.
    pub(super) fn send_changes(&mut self, j: u32) -> Result<(), String> {
        let changed = self.jobs[j as usize].rm.take_changed();
        if changed.is_empty() {
            return Ok(());
        }
        let job = &self.jobs[j as usize];
        let asks: Vec<Ask> = changed
            .into_iter()
            .map(|key| self.ask_row(j, key, job.rm.get(key)))
            .collect();
        let app = job.app.clone();
        self.send_about(Event::AsksChanged { app, asks }, |e: &Self| {
            format!("asks_changed {}", e.jobs[j as usize].app)
        })
    }

    pub(super) fn am_launched(&mut self, j: u32, attempt: u32) -> Result<(), String> {
        let now = self.now;
        let job = &mut self.jobs[j as usize];
        if job.attempt != attempt || job.finished.is_some() || job.registered_at.is_some() {
            return Ok(());
        }
        job.registered_at = Some(now);
        for m in 0..job.maps.len() {
            if !job.maps[m].done && !job.maps[m].running {
                job.am.request_map(m as u32, now);
            }
        }
        if job.maps.is_empty() && job.reduces.is_empty() {
            return self.finish_job(j);
        }
        self.allocate(j)
    }

    /// What the RM reports as job `j`'s headroom: the cluster's free memory (a single-queue
    /// scheduler's answer, as the shim gives it), under `capacity` also no more than its queue
    /// may still take before its maximum-capacity, as CapacityScheduler reports it. Without
    /// that cap an AM whose reduces fill its queue would never preempt them for its maps.
    pub(super) fn headroom_mb(&self, j: u32) -> i64 {
        let free = (self.cluster_mem - self.used_mem).max(0.0) as i64;
        match self
            .core
            .queue_headroom_mb(&self.raw.job_queues[j as usize])
        {
            Some(queue) => free.min(queue as i64),
            None => free,
        }
    }

    /// RMContainerAllocator.preemptReducesIfNeeded + scheduleReduces, in memory (the default
    /// resource calculator's dimension).
    pub(super) fn schedule_reduces(&mut self, j: u32) -> Result<(), String> {
        let now = self.now;
        let headroom = self.headroom_mb(j);
        let spec = &self.w.jobs[j as usize];
        let (map_mb, red_mb) = (
            spec.map.memory_mb.max(1) as i64,
            spec.reduce.memory_mb.max(1) as i64,
        );
        let job = &mut self.jobs[j as usize];
        if job.reduces.is_empty() {
            return Ok(());
        }
        let scheduled_maps = job.am.scheduled_maps() as i64;
        let (assigned_maps, assigned_reduces) = (job.run_maps as i64, job.run_reduces as i64);
        let limit = headroom + map_mb * assigned_maps + red_mb * assigned_reduces;
        if assigned_maps == 0 && scheduled_maps > 0 {
            let hanging_long = job
                .am
                .maps_requested_by(now.saturating_sub(UNCONDITIONAL_PREEMPT_MS))
                as i64;
            let room_for_map = (headroom - red_mb * job.am.scheduled_reduces() as i64) / map_mb > 0;
            let hanging = if now >= UNCONDITIONAL_PREEMPT_MS && hanging_long > 0 {
                hanging_long
            } else if !room_for_map {
                scheduled_maps
            } else {
                0
            };
            if hanging > 0 {
                while let Some(r) = job.am.remove_reduce() {
                    job.pending_reduces.push_back(r);
                }
                let one = (map_mb + red_mb - 1) / red_mb;
                let cap = ((limit as f64 * REDUCE_PREEMPTION_LIMIT) / red_mb as f64).ceil() as i64;
                let all = (map_mb * hanging + red_mb - 1) / red_mb;
                let to_preempt = one.max(cap).min(all);
                // Least progress first: reduces still waiting for maps, the latest started first.
                let mut running: Vec<(bool, Reverse<u64>, u32)> = (0..job.reduces.len() as u32)
                    .filter(|&r| job.reduces[r as usize].running)
                    .map(|r| {
                        let t = &job.reduces[r as usize];
                        (!t.waiting_shuffle, Reverse(t.start), r)
                    })
                    .collect();
                running.sort();
                for &(_, _, r) in running.iter().take(to_preempt.max(0) as usize) {
                    let t = TaskRef {
                        job: j,
                        reduce: true,
                        idx: r,
                    };
                    let cid = self.task(t).container;
                    self.kill_task(t);
                    self.raw.preempted_reduces += 1;
                    let job = &mut self.jobs[j as usize];
                    job.to_release.push(cid);
                    job.pending_reduces.push_back(r);
                }
                return Ok(());
            }
        }
        let job = &mut self.jobs[j as usize];
        if job.pending_reduces.is_empty() {
            return Ok(());
        }
        let total_maps = job.maps.len();
        if !job.reduce_started {
            if (job.maps_done as f64) < (self.cfg.slowstart * total_maps as f64).ceil() {
                return Ok(());
            }
            job.reduce_started = true;
        }
        if scheduled_maps == 0 {
            while let Some(r) = job.pending_reduces.pop_front() {
                job.am.request_reduce(r);
            }
            return Ok(());
        }
        let completed = if total_maps == 0 {
            1.0
        } else {
            job.maps_done as f64 / total_maps as f64
        };
        let scheduled_reduces = job.am.scheduled_reduces() as i64;
        let ideal_reduce = (limit as f64 * completed.min(REDUCE_RAMPUP_LIMIT)) as i64;
        let ideal_map = limit - ideal_reduce;
        let net_map = map_mb * (scheduled_maps + assigned_maps);
        let net_reduce = red_mb * (scheduled_reduces + assigned_reduces);
        let final_reduce = if ideal_map / map_mb >= scheduled_maps + assigned_maps {
            ideal_reduce + (ideal_map - net_map)
        } else {
            ideal_reduce
        };
        let ramp = (final_reduce - net_reduce) / red_mb;
        if ramp > 0 {
            for _ in 0..ramp.min(job.pending_reduces.len() as i64) {
                if let Some(r) = job.pending_reduces.pop_front() {
                    job.am.request_reduce(r);
                }
            }
        } else if ramp < 0 {
            for _ in 0..(-ramp).min(scheduled_reduces) {
                if let Some(r) = job.am.remove_reduce() {
                    job.pending_reduces.push_back(r);
                }
            }
        }
        Ok(())
    }

    /// One AM heartbeat (RMContainerAllocator.heartbeat): the allocate call carries the rows
    /// changed and the containers released since the previous call and returns the containers
    /// granted since; then the AM assigns them and recomputes its reduce schedule, whose changes
    /// go out on the next call.
    pub(super) fn allocate(&mut self, j: u32) -> Result<(), String> {
        self.jobs[j as usize].allocate_at = None;
        if self.jobs[j as usize].finished.is_some() || self.jobs[j as usize].registered_at.is_none()
        {
            return Ok(());
        }
        let released = std::mem::take(&mut self.jobs[j as usize].to_release);
        let freed = !released.is_empty();
        for cid in released {
            self.release(cid)?;
        }
        let changes = self.jobs[j as usize].am.take_changes();
        let asked = !changes.is_empty();
        if asked {
            for (k, v) in changes {
                self.set_rm_row(j, k, v);
            }
            self.send_changes(j)?;
        }
        if freed || asked {
            self.request_pass();
        }
        let granted = std::mem::take(&mut self.jobs[j as usize].new);
        let assigned = self.jobs[j as usize].am.assign(&granted);
        for (g, a) in assigned {
            match a {
                Assigned::Map(m) => self.start_task(
                    TaskRef {
                        job: j,
                        reduce: false,
                        idx: m,
                    },
                    g,
                ),
                Assigned::Reduce(r) => self.start_task(
                    TaskRef {
                        job: j,
                        reduce: true,
                        idx: r,
                    },
                    g,
                ),
                Assigned::Release => {
                    self.raw.unused_containers += 1;
                    self.jobs[j as usize].to_release.push(g.container)
                }
            }
        }
        self.schedule_reduces(j)?;
        let at = self.now + self.cfg.am_heartbeat_ms;
        self.jobs[j as usize].allocate_at = Some(at);
        self.push(at, Ev::Allocate(j));
        Ok(())
    }

    pub(super) fn finish_job(&mut self, j: u32) -> Result<(), String> {
        self.jobs[j as usize].finished = Some(self.now);
        self.raw.finish_ms[j as usize] = Some(self.now);
        self.unfinished -= 1;
        self.active.remove(&j);
        let live: Vec<u64> = self.jobs[j as usize].containers.iter().copied().collect();
        for cid in live {
            self.release(cid)?;
        }
        for (k, _) in self.jobs[j as usize].rm.rows() {
            self.set_rm_row(j, k, 0);
        }
        let job = &self.jobs[j as usize];
        let (app, attempt) = (job.app.clone(), format!("{}_{:06}", job.app, job.attempt));
        self.send(Event::AttemptRemoved {
            app: app.clone(),
            attempt,
        })?;
        self.send(Event::AppRemoved { app })?;
        // Nothing reads a finished job's tables and tasks again (its late events stop at
        // `finished`): free them now rather than hold every job's until the run ends.
        let job = &mut self.jobs[j as usize];
        job.am = AmRequests::default();
        job.rm = RowCounts::default();
        job.maps = Vec::new();
        job.reduces = Vec::new();
        job.map_out = BTreeMap::new();
        Ok(())
    }

    // ---- containers ------------------------------------------------------------------------
}
