#!/usr/bin/env python3
"""A SWIM trace (Statistical Workload Injector for MapReduce, SWIMProjectUCB/SWIM) as a trace
Hadoop's Scheduler Load Simulator replays: a node file and MapReduce jobs in Rumen's format
(LoggedJob objects, one a line), the format bench/sls.py already feeds SLS (hadoop-sls 3.4.3
cannot read its own format's task lists; docs/results/sls.md, "Does SLS 3.4.3 run").

SWIM gives per job only its submit time and three byte counts (input, shuffle, reduce output),
so tasks, their durations and where their input lives are modelled, with the constants of the
simulator's SWIM reader (sim/src/workload/swim.rs, sim/src/run.rs defaults; docs/design/
simulator.md, "Task durations" and "Reads and the network") so that the simulator and SLS replay
the same jobs:

- maps: one per block of input (at least one), 128 MiB blocks (HDFS's dfs.blocksize default);
- reduces: one per GiB of shuffle (the simulator's --bytes-per-reduce-mb), none without shuffle;
- a map: 1 s start-up + its split read from a local disk at 120 MiB/s + processed at 20 MiB/s;
- a reduce: 1 s start-up + its share of the shuffle copied at one NIC's 112 MiB/s + its share of
  shuffle and output processed at 20 MiB/s;
- input blocks: 3 replicas (dfs.replication's default) placed as HDFS's default policy places
  them (first on a random node, second on another rack, third on the second's rack), seeded;
  jobs naming the same input path (SWIM's optional seventh column) read the same blocks. SLS
  3.4.3's MapReduce AM asks for one host per task (the attempt's hostName), so each map names
  its block's first replica; all three are in the task's preferredLocations.

SLS runs in wall-clock time, so every time (arrivals and task durations) is divided by one
factor, the time scale. By default it is the smallest whole number that brings the trace's
arrivals, and its work at full occupancy of the cluster, within ARRIVAL_BUDGET_S: a 2,000-job
slice then takes about ten minutes per scheduler at 1,000 nodes.

Python 3 standard library only. Standalone: swim_to_sls.py TRACE --nodes N --out DIR.
"""

import argparse
import json
import math
import os
import random
import sys

MIB = 1 << 20
# HDFS's dfs.blocksize default (hdfs-default.xml, 134217728) and the simulator's --block-mb.
BLOCK_BYTES = 128 * MIB
# The simulator's --bytes-per-reduce-mb default (sim/src/run.rs).
BYTES_PER_REDUCE = 1024 * MIB
# dfs.replication's default (hdfs-default.xml).
REPLICATION = 3
# The simulator's task model (sim/src/run.rs defaults; sources in docs/design/simulator.md).
TASK_OVERHEAD_MS = 1000   # --task-overhead-ms: JVM start and task set-up
DISK_MIB_S = 120.0        # --disk-mb-per-s: one local read stream
NIC_MIB_S = 112.0         # --nic-mb-per-s: 1 GbE's TCP payload
MAP_MIB_S = 20.0          # --map-mb-per-s: per-task processing rate
REDUCE_MIB_S = 20.0       # --reduce-mb-per-s
# SlsTrace's layout (sls-bench/.../SlsTrace.java): racks of 40 hosts, 8 one-GB slots a node.
HOSTS_PER_RACK = 40
SLOTS_PER_NODE = 8
EPOCH_MS = 1_700_000_000_000
# bench/sls.py's yarn.sls.nm.heartbeat.interval.ms: SLS sees a container's end only at its NM's
# next heartbeat, so scaled durations below it all look alike.
NM_HEARTBEAT_MS = 1000
# Ten minutes per scheduler, less a minute for the last arrivals' jobs to drain.
TARGET_S = 600
ARRIVAL_BUDGET_S = 540
# Bounds: the simulator's (sim/src/limits.rs), so a trace either tool refuses, both refuse.
MAX_JOB_BYTES = 1 << 50
MAX_SUBMIT_S = 31 * 24 * 3600
MAX_TASKS_PER_JOB = 1_000_000
MAX_TOTAL_TASKS = 5_000_000
MAX_NODES = 50_000
# Job-size bins by map count (= input blocks): one block; up to 100 blocks (12.5 GiB); more.
BINS = (("small", 1, 1), ("medium", 2, 100), ("large", 101, None))


class TraceError(ValueError):
    """A trace line or an argument the converter refuses; the message names the culprit."""


def parse_swim(text, source):
    """SWIM's tab-separated lines: job id, submit s, gap s, input, shuffle, output bytes and an
    optional input path. Returns dicts in trace order."""
    jobs = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        f = line.split("\t")
        where = f"{source}:{i}"
        if len(f) < 6:
            raise TraceError(f"{where}: {len(f)} fields, expected 6 (id, submit s, gap s, input, "
                             f"shuffle, output bytes): {line!r}")

        def num(k, what, limit):
            v = f[k].strip()
            if not v.isdigit():
                raise TraceError(f"{where}: column {k + 1} ({what}) {f[k]!r} is not a whole "
                                 f"number")
            if int(v) > limit:
                raise TraceError(f"{where}: column {k + 1} ({what}) {v} is more than the limit "
                                 f"of {limit}")
            return int(v)

        path = f[6].strip() if len(f) > 6 else ""
        jobs.append({"id": f[0].strip(), "line": i,
                     "submit_s": num(1, "submit time s", MAX_SUBMIT_S),
                     "input": num(3, "input bytes", MAX_JOB_BYTES),
                     "shuffle": num(4, "shuffle bytes", MAX_JOB_BYTES),
                     "output": num(5, "output bytes", MAX_JOB_BYTES),
                     "path": path or None})
    if not jobs:
        raise TraceError(f"{source}: no jobs")
    return jobs


def maps_of(input_bytes):
    return max(1, -(-input_bytes // BLOCK_BYTES))


def reduces_of(shuffle_bytes):
    return -(-shuffle_bytes // BYTES_PER_REDUCE)


def map_ms(split_bytes):
    """Model run time of a map reading `split_bytes` (unscaled, ms)."""
    mib = split_bytes / MIB
    return TASK_OVERHEAD_MS + 1000.0 * (mib / DISK_MIB_S + mib / MAP_MIB_S)


def reduce_ms(shuffle_bytes, output_bytes, reduces):
    """Model run time of one of a job's `reduces` reduces (unscaled, ms)."""
    share = shuffle_bytes / reduces / MIB
    out = output_bytes / reduces / MIB
    return TASK_OVERHEAD_MS + 1000.0 * (share / NIC_MIB_S + (share + out) / REDUCE_MIB_S)


def size_bin(maps):
    for name, lo, hi in BINS:
        if maps >= lo and (hi is None or maps <= hi):
            return name
    raise AssertionError(maps)


def bins_text():
    return ", ".join(f"{n} {lo}" + ("+" if hi is None else "" if hi == lo else f"-{hi}")
                     + (" map" if hi == lo == 1 else " maps") for n, lo, hi in BINS)


def rack(node):
    return f"rack-{node // HOSTS_PER_RACK:03d}"


def host(node):
    return f"host-{node:05d}"


def place_block(nodes, rng):
    """Replica nodes of one block, as HDFS's BlockPlacementPolicyDefault places a block written
    from outside the cluster: a random node, a node on another rack, a third node on the
    second's rack (sim/src/hdfs.rs, RackAware). Distinct nodes; fewer only on a smaller cluster."""
    want = min(REPLICATION, nodes)
    racks = -(-nodes // HOSTS_PER_RACK)
    out = [rng.randrange(nodes)]
    if want >= 2:
        if racks > 1:
            r2 = rng.randrange(racks - 1)
            r2 += r2 >= out[0] // HOSTS_PER_RACK
            out.append(pick(nodes, rack_nodes(r2, nodes), out, rng))
        else:
            out.append(pick(nodes, range(nodes), out, rng))
    if want >= 3:
        out.append(pick(nodes, rack_nodes(out[1] // HOSTS_PER_RACK, nodes), out, rng))
    return out


def rack_nodes(r, nodes):
    return range(r * HOSTS_PER_RACK, min(nodes, (r + 1) * HOSTS_PER_RACK))


def pick(nodes, candidates, used, rng):
    """A node of `candidates` not in `used`, uniformly; any unused node when the candidates are
    all used. Random draws first (replica lists are short), then a scan, as sim/src/hdfs.rs."""
    for _ in range(16):
        n = candidates[rng.randrange(len(candidates))]
        if n not in used:
            return n
    free = [n for n in candidates if n not in used] or [n for n in range(nodes) if n not in used]
    return free[rng.randrange(len(free))]


def default_scale(span_s, container_ms, nodes):
    """The smallest whole factor that puts the arrivals, and the work at full occupancy, within
    ARRIVAL_BUDGET_S of wall-clock time."""
    work_s = container_ms / 1000.0 / (nodes * SLOTS_PER_NODE)
    return max(1, math.ceil(max(span_s, work_s) / ARRIVAL_BUDGET_S))


def convert(jobs, nodes, seed, scale=None):
    """The SLS trace of `jobs` on `nodes` NodeManagers: {'rumen': [job dict], 'nodes': [rack
    dict], 'jobs': {sls job id: {swim, maps, reduces, bin}}, 'stats': {...}}. Deterministic for
    a seed."""
    if not 1 <= nodes <= MAX_NODES:
        raise TraceError(f"--nodes {nodes}: between 1 and {MAX_NODES}")
    if scale is not None and not scale > 0:
        raise TraceError(f"--time-scale {scale}: must be above 0")
    total = 0
    shapes = []
    for j in jobs:
        m, r = maps_of(j["input"]), reduces_of(j["shuffle"])
        if m + r > MAX_TASKS_PER_JOB:
            raise TraceError(f"line {j['line']} ({j['id']}): {m} maps and {r} reduces; a job may "
                             f"have at most {MAX_TASKS_PER_JOB} tasks")
        total += m + r
        if total > MAX_TOTAL_TASKS:
            raise TraceError(f"line {j['line']} ({j['id']}): the trace reaches {total} tasks; at "
                             f"most {MAX_TOTAL_TASKS} in all (replay fewer jobs)")
        shapes.append((m, r))
    rng = random.Random(seed)
    datasets = {}
    first_s = min(j["submit_s"] for j in jobs)
    span_s = max(j["submit_s"] for j in jobs) - first_s
    # Unscaled model first: the default scale depends on the work.
    model = []
    container_ms = 0.0
    for j, (m, r) in zip(jobs, shapes):
        if j["path"] is not None:
            blocks = datasets.setdefault(j["path"], [])
        else:
            blocks = []
        while len(blocks) < m:
            blocks.append(place_block(nodes, rng))
        left = j["input"]
        maps = []
        for b in range(m):
            split = min(left, BLOCK_BYTES)
            left -= split
            maps.append((map_ms(split), blocks[b]))
        red = [reduce_ms(j["shuffle"], j["output"], r)] * r if r else []
        container_ms += sum(t for t, _ in maps) + sum(red)
        model.append((maps, red))
    factor = scale if scale is not None else default_scale(span_s, container_ms, nodes)
    rumen, index = [], {}
    short = 0
    for a, (j, (maps, red)) in enumerate(zip(jobs, model)):
        start = EPOCH_MS + round((j["submit_s"] - first_s) * 1000 / factor)
        sid = f"{EPOCH_MS}_{a + 1:04d}"
        map_tasks = []
        longest_map = 0
        for k, (ms, replicas) in enumerate(maps):
            d = max(1, round(ms / factor))
            longest_map = max(longest_map, d)
            short += d < NM_HEARTBEAT_MS
            map_tasks.append(task(sid, "m", k, replicas, start, d))
        red_start = start + longest_map
        reduce_tasks = [task(sid, "r", k, [rng.randrange(nodes)], red_start,
                             max(1, round(ms / factor)))
                        for k, ms in enumerate(red)]
        longest_red = max((t["attempts"][0]["finishTime"] - red_start for t in reduce_tasks),
                          default=0)
        short += sum(t["attempts"][0]["finishTime"] - red_start < NM_HEARTBEAT_MS
                     for t in reduce_tasks)
        rumen.append({"jobID": "job_" + sid, "user": "swim", "queue": "default",
                      "outcome": "SUCCESS", "jobtype": "JAVA", "submitTime": start,
                      "launchTime": start, "finishTime": red_start + longest_red,
                      "totalMaps": len(maps), "totalReduces": len(red),
                      "mapTasks": map_tasks, "reduceTasks": reduce_tasks, "otherTasks": []})
        index["job_" + sid] = {"swim": j["id"], "maps": len(maps), "reduces": len(red),
                               "bin": size_bin(len(maps))}
    racks = -(-nodes // HOSTS_PER_RACK)
    node_file = [{"rack": rack(r * HOSTS_PER_RACK),
                  "nodes": [{"node": host(n)}
                            for n in range(r * HOSTS_PER_RACK,
                                           min(nodes, (r + 1) * HOSTS_PER_RACK))]}
                 for r in range(racks)]
    slots = nodes * SLOTS_PER_NODE
    stats = {"jobs": len(jobs), "nodes": nodes, "racks": racks, "seed": seed,
             "time_scale": factor, "scale_chosen": scale is None,
             "trace_span_s": span_s, "scaled_span_s": span_s / factor,
             "tasks": total, "container_s": container_ms / 1000.0,
             "scaled_container_s": container_ms / 1000.0 / factor,
             "slots": slots,
             "offered_load": (container_ms / 1000.0 / span_s / slots) if span_s > 0 else None,
             "full_occupancy_s": container_ms / 1000.0 / factor / slots,
             "datasets": len(datasets),
             "tasks_under_heartbeat": short,
             "bins": {name: sum(1 for v in index.values() if v["bin"] == name)
                      for name, _, _ in BINS}}
    return {"rumen": rumen, "nodes": node_file, "jobs": index, "stats": stats}


def task(sid, kind, k, replicas, start, duration):
    """One task with one successful attempt on its first replica's host (the host SLS asks for),
    every replica in preferredLocations (Rumen's field for a split's locations)."""
    tid = f"{sid}_{kind}_{k:06d}"
    first = replicas[0]
    t = {"taskID": "task_" + tid, "taskType": "MAP" if kind == "m" else "REDUCE",
         "taskStatus": "SUCCESS", "startTime": start, "finishTime": start + duration,
         "attempts": [{"attemptID": f"attempt_{tid}_0", "result": "SUCCESS",
                       "hostName": f"/{rack(first)}/{host(first)}",
                       "startTime": start, "finishTime": start + duration}]}
    if kind == "m":
        t["preferredLocations"] = [{"layers": [rack(n), host(n)]} for n in replicas]
    return t


def describe(stats):
    """The lines printed before a run: the scale and the offered load it implies."""
    s = stats
    load = ("n/a (one arrival instant)" if s["offered_load"] is None
            else f"{s['offered_load']:.3f}")
    how = (f"chosen: arrivals and full-occupancy work within {ARRIVAL_BUDGET_S} s"
           if s["scale_chosen"] else "given")
    return [
        f"swim: {s['jobs']} jobs ({', '.join(f'{n} {c}' for n, c in s['bins'].items())}; bins: "
        f"{bins_text()}), {s['tasks']} tasks, {s['datasets']} named input paths, on "
        f"{s['nodes']} nodes ({s['racks']} rack{'s' if s['racks'] > 1 else ''}, "
        f"{s['slots']} slots), seed {s['seed']}",
        f"swim: time scale 1/{s['time_scale']:g} ({how}): arrivals over "
        f"{s['trace_span_s']:.0f} s of trace -> {s['scaled_span_s']:.0f} s; task work "
        f"{s['container_s']:.0f} container-s -> {s['scaled_container_s']:.0f} "
        f"({s['full_occupancy_s']:.1f} s at full occupancy); "
        f"{100.0 * s['tasks_under_heartbeat'] / max(1, s['tasks']):.0f} % of tasks now run "
        f"shorter than SLS's {NM_HEARTBEAT_MS} ms NodeManager heartbeat",
        f"swim: offered load {load} (task container-seconds over the arrival span, per slot; the "
        f"same at any time scale)",
    ]


def write(trace_dir, converted):
    os.makedirs(trace_dir, exist_ok=True)
    with open(os.path.join(trace_dir, "rumen.json"), "w") as f:
        for job in converted["rumen"]:
            f.write(json.dumps(job, separators=(",", ":")) + "\n")
    with open(os.path.join(trace_dir, "nodes.json"), "w") as f:
        for r in converted["nodes"]:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    with open(os.path.join(trace_dir, "jobs.json"), "w") as f:
        json.dump({"stats": converted["stats"], "jobs": converted["jobs"]}, f, indent=1)


def load(path, limit=None):
    """The first `limit` jobs of the SWIM file at `path` (all if None)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise TraceError(f"cannot read SWIM trace {path}: {e.strerror}") from e
    jobs = parse_swim(text, path)
    if limit is not None:
        if limit < 1:
            raise TraceError(f"--apps {limit}: at least 1")
        jobs = jobs[:limit]
    return jobs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--apps", type=int, help="the trace's first N jobs")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--time-scale", type=float, help="divide every time by this")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        converted = convert(load(a.trace, a.apps), a.nodes, a.seed, a.time_scale)
    except TraceError as e:
        sys.exit(f"swim: {e}")
    write(a.out, converted)
    for line in describe(converted["stats"]):
        print(line)


if __name__ == "__main__":
    main()
