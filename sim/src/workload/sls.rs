//! Hadoop SLS job traces (the "SLS jobs" JSON format read by SLSRunner/AMDefinitionSLS): a
//! sequence of JSON objects, one per job, with `am.type`, `job.start.ms`, `job.queue.name`,
//! `job.user`, `job.id`, optional `job.count`, and `job.tasks` whose entries carry
//! `container.host` (`/rack/host`), `container.start.ms`, `container.end.ms` (or
//! `container.duration.ms` / `duration.ms`), `container.priority`, `container.type`
//! (`map`/`reduce`) and optional `count`.
//!
//! Task run times come from the trace (as SLS replays them); a map's `container.host` becomes
//! the one replica of its input, so the scheduler sees the locality the trace asked for. The
//! cluster is the set of hosts the trace names.

use locus_core::Resource;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::workload::{JobSpec, MapSpec, ReduceSpec, Shape, Workload};

fn num(v: &Value, key: &str, what: &str) -> Result<Option<i64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{what}: {key} {n} is not a whole number")),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| format!("{what}: {key} {s:?} is not a whole number")),
        Some(other) => Err(format!("{what}: {key} is {other}, expected a number")),
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(|x| x.as_str()).map(str::to_string)
}

struct Task {
    host: Option<(String, String)>,
    duration: u64,
    is_map: bool,
}

pub fn load(path: &str, shape: &Shape, node_capability: Resource) -> Result<Workload, String> {
    let raw =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read SLS trace {path}: {e}"))?;
    let mut parsed: Vec<(String, String, String, u64, Vec<Task>)> = Vec::new();
    let mut locations: Vec<(String, String)> = Vec::new();
    for (index, item) in serde_json::Deserializer::from_str(&raw)
        .into_iter::<Value>()
        .enumerate()
    {
        let job = item.map_err(|e| format!("{path}: job {}: malformed JSON: {e}", index + 1))?;
        let id = text(&job, "job.id").unwrap_or_else(|| format!("job_{}", index + 1));
        let what = format!("{path}: job {id}");
        let am_type = text(&job, "am.type").unwrap_or_else(|| "mapreduce".into());
        if !am_type.eq_ignore_ascii_case("mapreduce") {
            return Err(format!(
                "{what}: am.type {am_type:?} is not simulated; only mapreduce"
            ));
        }
        let start = num(&job, "job.start.ms", &what)?.unwrap_or(0);
        if start < 0 {
            return Err(format!("{what}: negative job.start.ms {start}"));
        }
        let count = num(&job, "job.count", &what)?.unwrap_or(1).max(1);
        let Some(Value::Array(list)) = job.get("job.tasks") else {
            return Err(format!(
                "{what}: job.tasks missing or not a list (SLS rejects a job with no task)"
            ));
        };
        if list.is_empty() {
            return Err(format!(
                "{what}: job.tasks is empty (SLS rejects a job with no task)"
            ));
        }
        let mut tasks = Vec::new();
        for (ti, t) in list.iter().enumerate() {
            let twhat = format!("{what} task {}", ti + 1);
            let duration = match num(t, "container.duration.ms", &twhat)?.or(num(
                t,
                "duration.ms",
                &twhat,
            )?) {
                Some(d) => d,
                None => {
                    let s = num(t, "container.start.ms", &twhat)?;
                    let e = num(t, "container.end.ms", &twhat)?;
                    match (s, e) {
                        (Some(s), Some(e)) => e - s,
                        _ => return Err(format!("{twhat}: needs container.duration.ms or container.start.ms and container.end.ms")),
                    }
                }
            };
            if duration < 0 {
                return Err(format!(
                    "{twhat}: ends before it starts (duration {duration} ms)"
                ));
            }
            let kind = text(t, "container.type").unwrap_or_else(|| "map".into());
            let is_map = match kind.as_str() {
                "map" => true,
                "reduce" => false,
                other => {
                    return Err(format!(
                        "{twhat}: container.type {other:?}; allowed: map, reduce"
                    ))
                }
            };
            let host = match text(t, "container.host") {
                Some(h) if !h.is_empty() => {
                    let h = h.trim_end_matches('/');
                    let cut = h.rfind('/').ok_or_else(|| {
                        format!("{twhat}: container.host {h:?} is not /rack/host")
                    })?;
                    let (loc, name) = (h[..cut].to_string(), h[cut + 1..].to_string());
                    if loc.is_empty() || name.is_empty() {
                        return Err(format!("{twhat}: container.host {h:?} is not /rack/host"));
                    }
                    locations.push((loc.clone(), name.clone()));
                    Some((loc, name))
                }
                _ => None,
            };
            let n = num(t, "count", &twhat)?.unwrap_or(1).max(1);
            for _ in 0..n {
                tasks.push(Task {
                    host: host.clone(),
                    duration: duration as u64,
                    is_map,
                });
            }
        }
        for c in 0..count {
            let name = if count > 1 {
                format!("{id}-{c}")
            } else {
                id.clone()
            };
            let queue = text(&job, "job.queue.name").unwrap_or_else(|| "default".into());
            let user = text(&job, "job.user").unwrap_or_else(|| "default".into());
            let copy: Vec<Task> = tasks
                .iter()
                .map(|t| Task {
                    host: t.host.clone(),
                    duration: t.duration,
                    is_map: t.is_map,
                })
                .collect();
            parsed.push((name, queue, user, start as u64, copy));
        }
    }
    if parsed.is_empty() {
        return Err(format!("{path}: no jobs"));
    }
    if locations.is_empty() {
        return Err(format!(
            "{path}: no task names a container.host, so there is no cluster to simulate"
        ));
    }
    let cluster = Cluster::from_locations(&locations, node_capability)?;
    let by_host: std::collections::BTreeMap<&str, usize> = cluster
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.host.as_str(), i))
        .collect();
    let mut jobs = Vec::new();
    for (name, queue, user, start, tasks) in parsed {
        let mut maps = Vec::new();
        let mut reduces = Vec::new();
        for t in tasks {
            if t.is_map {
                let replicas = t
                    .host
                    .as_ref()
                    .and_then(|(_, h)| by_host.get(h.as_str()).copied())
                    .into_iter()
                    .collect();
                maps.push(MapSpec {
                    input_bytes: 0,
                    replicas,
                    fixed_ms: Some(t.duration),
                });
            } else {
                reduces.push(ReduceSpec {
                    fixed_ms: Some(t.duration),
                });
            }
        }
        jobs.push(JobSpec {
            name,
            queue,
            user,
            submit_ms: start,
            maps,
            reduces,
            shuffle_bytes: 0,
            output_bytes: 0,
            am: shape.am,
            map: shape.map,
            reduce: shape.reduce,
            tags: Vec::new(),
        });
    }
    Ok(Workload {
        name: format!("sls {path}"),
        cluster,
        jobs,
    })
}
