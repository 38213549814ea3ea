//! The ResourceManager side of a node heartbeat: arming heartbeats, passing them to the core,
//! and executing the core's decisions with the checks the shim makes (a decision the RM would
//! refuse is counted and reported, not executed).

use super::*;

impl<'w> Engine<'w> {
    /// The RM frees a container and tells the core.
    pub(super) fn release(&mut self, cid: u64) -> Result<(), String> {
        let c = &mut self.containers[cid as usize];
        if !c.live {
            return Ok(());
        }
        c.live = false;
        let (j, n, resource) = (c.job, c.node, c.resource);
        let node = &mut self.nodes[n as usize];
        node.used = node.used.saturating_sub(&resource);
        node.containers.remove(&cid);
        self.used_mem -= resource.memory_mb as f64;
        self.jobs[j as usize].containers.remove(&cid);
        let ev = Event::ContainerReleased {
            app: self.jobs[j as usize].app.clone(),
            container: format!("container_{cid}"),
            node: self.nodes[n as usize].id.clone(),
            resource,
        };
        self.send_about(ev, |_| format!("container_released container_{cid}"))
    }

    /// Resumes a parked node's heartbeats at its next beat after now.
    pub(super) fn arm(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        if node.armed || !node.alive {
            return;
        }
        node.armed = true;
        let hb = self.cfg.heartbeat_ms;
        let next = if self.now < node.offset {
            node.offset
        } else {
            node.offset + ((self.now - node.offset) / hb + 1) * hb
        };
        self.push(next, Ev::Heartbeat(n));
    }

    pub(super) fn heartbeat(&mut self, n: u32) -> Result<(), String> {
        if !self.nodes[n as usize].alive {
            return Ok(());
        }
        self.raw.heartbeats += 1;
        let done = std::mem::take(&mut self.nodes[n as usize].completed);
        for cid in done {
            self.release(cid)?;
        }
        if self.pending_any <= 0 {
            // Nothing is outstanding anywhere, so the core could not decide anything: park.
            self.nodes[n as usize].armed = false;
            return Ok(());
        }
        self.push(self.now + self.cfg.heartbeat_ms, Ev::Heartbeat(n));
        self.offer(n)
    }

    /// One scheduling opportunity on node `n`: the core decides on its unallocated room and the
    /// decisions are executed. A node heartbeat does this for its own node; under asynchronous
    /// scheduling a pass ([`Self::pass`]) does it for every node.
    pub(super) fn offer(&mut self, n: u32) -> Result<(), String> {
        let node = &self.nodes[n as usize];
        let hb = Heartbeat {
            node: node.id.clone(),
            unallocated: node.cap.saturating_sub(&node.used),
            now_ms: self.now,
            // Passes model CapacityScheduler's asynchronous thread, whose delay counts every
            // offer as a missed opportunity (cs_default.rs): they stay opportunities here, unlike
            // the shim's async sweeps of Locus's own policies.
            sweep: false,
            eager: false,
        };
        let t0 = Instant::now();
        let resp = self.core.heartbeat(&hb).map_err(|e| {
            err(
                format!("the heartbeat of {} at {} ms", hb.node, self.now),
                e,
            )
        })?;
        let spent = t0.elapsed().as_secs_f64();
        self.raw.decision_us.record(spent * 1e6);
        self.raw.core_heartbeat_s += spent;
        self.raw.core_heartbeats += 1;
        let mut dirty: Vec<u32> = Vec::new();
        for d in resp.decisions {
            self.raw.decisions += 1;
            if let Some(j) = self.execute(n, d)? {
                if !dirty.contains(&j) {
                    dirty.push(j);
                }
            }
        }
        for j in dirty {
            self.send_changes(j)?;
        }
        self.note_queue_peaks();
        Ok(())
    }

    /// Under asynchronous scheduling, new asks are tried on every node soon after they reach
    /// the RM (CapacityScheduler's scheduling thread walks all nodes every
    /// `schedule-asynchronously.scheduling-interval-ms`), not only at each node's next
    /// heartbeat. At most one pass is pending at a time.
    pub(super) fn request_pass(&mut self) {
        if self.async_scheduling && !self.pass_pending {
            self.pass_pending = true;
            self.push(self.now + ASYNC_INTERVAL_MS, Ev::Pass);
        }
    }

    /// One walk of the asynchronous scheduling thread: every live node with room for the
    /// smallest container is offered once, starting one node further each pass (CS starts each
    /// walk at a random node; rotating keeps runs deterministic and spreads the first pick).
    pub(super) fn pass(&mut self) -> Result<(), String> {
        self.pass_pending = false;
        let count = self.nodes.len();
        if count == 0 || self.pending_any <= 0 {
            return Ok(());
        }
        let start = self.pass_start % count;
        self.pass_start = self.pass_start.wrapping_add(1);
        for k in 0..count {
            let n = ((start + k) % count) as u32;
            let node = &self.nodes[n as usize];
            if !node.alive || !node.cap.saturating_sub(&node.used).fits(&self.smallest) {
                continue;
            }
            self.offer(n)?;
            if self.pending_any <= 0 {
                break;
            }
        }
        Ok(())
    }

    pub(super) fn note_queue_peaks(&mut self) {
        if self.core.capacity_queues().is_none() || self.cluster_mem <= 0.0 {
            return;
        }
        for (name, q) in self.core.state().queues().iter() {
            let share = q.used.memory_mb as f64 / self.cluster_mem;
            let peak = self
                .raw
                .queue_peak_share
                .entry(name.to_string())
                .or_default();
            *peak = peak.max(share);
        }
    }

    /// Validates and executes one decision as the shim does; returns the app whose asks changed.
    pub(super) fn execute(&mut self, n: u32, d: Decision) -> Result<Option<u32>, String> {
        let c = &self.w.cluster;
        let j = self
            .app_index
            .get(&d.app)
            .copied()
            .filter(|&j| self.jobs[j as usize].finished.is_none());
        let node_id = &self.nodes[n as usize].id;
        let rack = c.rack_of(n as usize) as u32;
        let loc = if d.resource_name == "*" {
            Some(Loc::Any)
        } else if d.resource_name == c.nodes[n as usize].host {
            Some(Loc::Host(n))
        } else if d.resource_name == c.racks[rack as usize].name {
            Some(Loc::Rack(rack))
        } else {
            None
        };
        let problem = match (j, loc) {
            (None, _) => Some(format!("unknown or finished application {}", d.app)),
            _ if d.node != *node_id => Some(format!(
                "decision for node {} on the heartbeat of {node_id}",
                d.node
            )),
            (_, None) => Some(format!(
                "resource name {:?} is not node {node_id}'s host, rack or *",
                d.resource_name
            )),
            (Some(j), _) if d.capability != self.capability_of(j, d.priority) => Some(format!(
                "capability {:?} differs from the ask's",
                d.capability
            )),
            _ => None,
        };
        let (Some(j), Some(loc), None) = (j, loc, problem.clone()) else {
            self.raw.rejected += 1;
            let reason = problem.unwrap_or_default();
            self.send(Event::DecisionRejected {
                decision: d,
                executed: 0,
                reason,
            })?;
            return Ok(None);
        };
        let p = d.priority;
        let mut executed = 0;
        let mut reason = String::new();
        for _ in 0..d.count {
            let node = &self.nodes[n as usize];
            if !node.cap.saturating_sub(&node.used).fits(&d.capability) {
                reason = "node has no room left".into();
                break;
            }
            let rows = &self.jobs[j as usize].rm;
            let at = |k: Loc| rows.get((p, k));
            if at(loc) == 0 || at(Loc::Any) == 0 {
                reason = format!("no outstanding ask at priority {p}, {}", d.resource_name);
                break;
            }
            let dec: &[Loc] = match d.locality {
                Locality::NodeLocal => &[Loc::Host(n), Loc::Rack(rack), Loc::Any],
                Locality::RackLocal => &[Loc::Rack(rack), Loc::Any],
                Locality::OffSwitch => &[Loc::Any],
            };
            for &k in dec {
                let v = self.jobs[j as usize].rm.get((p, k));
                self.set_rm_row(j, (p, k), v.saturating_sub(1));
            }
            let cid = self.containers.len() as u64;
            self.containers.push(ContainerRt {
                job: j,
                node: n,
                resource: d.capability,
                live: true,
            });
            let node = &mut self.nodes[n as usize];
            node.used = node.used.add(&d.capability);
            node.containers.insert(cid);
            self.used_mem += d.capability.memory_mb as f64;
            self.jobs[j as usize].containers.insert(cid);
            let info = ContainerInfo {
                container: format!("container_{cid}"),
                app: d.app.clone(),
                node: d.node.clone(),
                priority: p,
                resource: d.capability,
            };
            self.send_about(
                Event::ContainerAllocated {
                    container: info,
                    locality: d.locality,
                    allocation_request_id: d.allocation_request_id,
                    recovered: false,
                },
                |_| format!("container_allocated container_{cid}"),
            )?;
            if p == PRIORITY_AM {
                let job = &mut self.jobs[j as usize];
                job.am_container = Some(cid);
                let attempt = job.attempt;
                self.raw.am_start_ms[j as usize] = Some(self.now);
                self.push(self.now + self.cfg.am_launch_ms, Ev::AmLaunched(j, attempt));
            } else {
                self.jobs[j as usize].new.push(Granted {
                    container: cid,
                    node: n,
                    rack,
                    priority: p,
                });
            }
            executed += 1;
        }
        if executed < d.count {
            self.raw.rejected += 1;
            self.send(Event::DecisionRejected {
                decision: d,
                executed,
                reason,
            })?;
        }
        Ok(Some(j))
    }

    // ---- tasks -----------------------------------------------------------------------------
}
