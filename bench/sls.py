#!/usr/bin/env python3
"""`./locus bench sls`: Hadoop's Scheduler Load Simulator (hadoop-sls 3.4.3's SLSRunner, on the
3.5.0 ResourceManager) running one synthetic MapReduce trace under CapacityScheduler with Hadoop
3.5's defaults (asynchronous scheduling on), CapacityScheduler with asynchronous scheduling off,
and Locus's default configuration, one after another, one JVM each (so heap and native memory
are each run's own). Prints a table and, last, the line scripts read:

    sls: nodes=N locus/capacity-default: node_update=R1 allocate=R2 throughput=R3 latency=R4

after `sls: shim=C`, C being the commit the shim jar was built from (+dirty if its sources had
uncommitted changes); a jar whose sources are not the working tree's is refused unless
--allow-stale-jar.

With `--trace swim:FILE` it replays a SWIM trace instead (bench/swim_to_sls.py converts it; the
synthetic trace comes from org.locus.sls.SlsTrace, deterministic for a seed), adds job completion
by percentile and by job size, and its last line is

    sls: trace=NAME nodes=N locus/capacity-default: jct_mean=R1 jct_p95=R2 throughput=R3 node_local=R4

Python 3 standard library only; ./locus builds sls-bench first and passes its classpath file.
docs/results/sls.md says what is measured where; docs/results/sls-swim.md the SWIM traces.
"""

import argparse
import csv
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swim_to_sls  # noqa: E402
CONFIGS = ["capacity-default", "capacity-sync", "locus-default", "locus-async", "locus-size-based"]
SCHEDULER = {
    "capacity-default": "org.locus.sls.CapacitySlsScheduler",
    "capacity-sync": "org.locus.sls.CapacitySlsScheduler",
    "locus-default": "org.locus.sls.LocusSlsScheduler",
    # Locus's default with locus.scheduling.mode=async: also passes over every live node with
    # room, like CapacityScheduler's default. The default (auto) runs fsp + delay on heartbeats,
    # so the other mode is the one worth a column.
    "locus-async": "org.locus.sls.LocusSlsScheduler",
    # Locus's default plus size-based preemption (off by default): the scheduling monitor on with
    # Hadoop's preemption policy named, which Locus runs its own rounds for. Not in the default
    # list: it answers whether the preemption pays, not how Locus compares with CapacityScheduler.
    "locus-size-based": "org.locus.sls.LocusSlsScheduler",
}
DEFAULT_CONFIGS = ["capacity-default", "capacity-sync", "locus-default", "locus-async"]
SIZE_BASED = {
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.scheduler.monitor.policies":
        "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity."
        "ProportionalCapacityPreemptionPolicy",
    "locus.preemption.size-based": "true",
}
# (nodes, apps, arrival window in s), chosen from the trace's offered load (SlsTrace prints it;
# docs/results/sls.md, "The trace"), not from any run's result. Default: 300 jobs' 848,013 task
# container-seconds arrive over 60 s, 14,134 slots' worth against 1,000 nodes x 8 = 8,000 slots
# (offered load 1.77): a backlog builds and the cluster stays full until it drains (>= 106 s at
# full occupancy). --full: 5,000 nodes could be filled only at >= 3,000 containers/s, beyond this
# harness on 2 cores; 500 jobs over 60 s offer ~1,470 containers/s, more than it allocates, so
# asks wait for most of the run.
SCALES = {"default": (1000, 300, 60), "full": (5000, 500, 60)}

JDK17_OPENS = ["java.lang", "java.lang.reflect", "java.io", "java.net", "java.nio", "java.util",
               "java.util.concurrent", "java.util.concurrent.atomic", "sun.nio.ch",
               "sun.security.util"]


def jar_sources(root):
    """The paths the shim jar is built from (java-shim/jar-sources.txt, which its build reads)."""
    with open(os.path.join(root, "java-shim", "jar-sources.txt")) as f:
        return [p for p in (l.split("#", 1)[0].strip() for l in f) if p]


def source_fingerprint(root):
    """(HEAD, whether the jar's sources differ from HEAD's, their fingerprint) for the working tree
    at `root`, computed as java-shim/build.gradle's shimSourceId computes the jar's: sha-256 of
    `git ls-tree` over the jar's source paths as they are on disk (staged or not, untracked files
    included), through a throw-away index so the tree's own index is untouched. None if git
    cannot say (no git, not a clone)."""
    paths = jar_sources(root)
    with tempfile.TemporaryDirectory(prefix="sls-jar-sources-") as d:
        # Without an inherited GIT_DIR or GIT_WORK_TREE (a hook's), git reads the tree at `root`.
        env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
        env["GIT_INDEX_FILE"] = os.path.join(d, "index")

        def git(*args):
            try:
                r = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True)
            except OSError:
                return None
            return r.stdout if r.returncode == 0 else None

        head = git("rev-parse", "HEAD")
        if head is None or git("read-tree", "HEAD") is None \
                or git("add", "-A", "--", *paths) is None:
            return None
        tree = git("write-tree")
        listing = tree and git("ls-tree", tree.decode().strip(), "--", *paths)
        head_listing = git("ls-tree", "HEAD", "--", *paths)
        if listing is None or head_listing is None:
            return None
        return (head.decode().strip(), listing != head_listing,
                hashlib.sha256(listing).hexdigest())


def read_manifest(jar):
    """A jar's main manifest attributes (continuation lines joined, as the jar spec wraps them at
    72 bytes); {} if it has none."""
    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read("META-INF/MANIFEST.MF").decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile):
        return {}
    attrs, last = {}, None
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line:
            if attrs:
                break  # the main section ends at the first blank line
            continue
        if line.startswith(" ") and last:
            attrs[last] += line[1:]
        elif ":" in line:
            last, _, value = line.partition(":")
            attrs[last] = value.strip()
    return attrs


def shim_jar(classpath):
    """The shim jar the classpath names (sls-bench copies it to build/shim/), or None."""
    for entry in classpath.split(os.pathsep):
        name = os.path.basename(entry)
        if name.startswith("locus-shim-") and name.endswith(".jar"):
            return entry
    return None


def shim_provenance(classpath, root):
    """Which code the run measures: the shim jar, the commit it was built from ('label', e.g.
    'c3235cb' or 'c3235cb+dirty'), and 'stale', why the jar is not the working tree's code (None
    if it is). Figures were once published under a commit whose jar was not the one that ran:
    `--classpath-file` runs whatever jar it names, and only `./locus bench sls` rebuilds it."""
    jar = shim_jar(classpath)
    if jar is None:
        return {"jar": None, "label": "none", "stale": "no locus-shim-*.jar on the classpath"}
    attrs = read_manifest(jar)
    commit = attrs.get("Locus-Commit", "unknown")
    dirty = attrs.get("Locus-Source-Dirty") == "true"
    jar_id = attrs.get("Locus-Source-Id", "unknown")
    info = {"jar": jar, "commit": commit, "source_dirty": dirty, "source_id": jar_id,
            "label": "unknown" if commit == "unknown" else commit[:7] + ("+dirty" if dirty else "")}
    tree = source_fingerprint(root)
    if tree is not None:
        info["tree_head"], info["tree_dirty"], info["tree_source_id"] = tree
    info["unknown"] = None
    if tree is None and jar_id == "unknown":
        # Neither side could fingerprint (a tarball, no git): the jar was built here without git,
        # and ./locus bench sls has just built it from this tree. Said, not refused.
        info["unknown"] = (f"git cannot fingerprint the sources at {root}, so sls.py cannot tell "
                           f"whether the jar holds them")
        info["stale"] = None
    elif tree is None:
        # The jar names its sources, so git worked where it was built: not this tree's build.
        info["stale"] = (f"git cannot fingerprint the sources at {root}, and the jar was built "
                         f"from a tree it could fingerprint ({commit[:7]})")
    elif jar_id == "unknown":
        info["stale"] = ("the jar records no source fingerprint (built without git, or before "
                         "its build recorded one): which code it holds is unknown")
    elif tree[2] != jar_id:
        info["stale"] = (f"the jar's sources are not the working tree's: the jar was built at "
                         f"{commit[:7]}{' with uncommitted source changes' if dirty else ''}, "
                         f"the tree is at {tree[0][:7]}"
                         f"{' with uncommitted source changes' if tree[1] else ''} "
                         f"(./locus bench sls or gradle :sls-bench:slsClasspath rebuilds it)")
    else:
        info["stale"] = None
    return info


def check_shim(info, measures_locus, allow_stale):
    """Says which shim the run measures; refuses a stale one for a Locus run unless allowed."""
    head = info.get("tree_head")
    same = (f"; the working tree is at {head[:7]} with the same jar sources"
            if head and not info["stale"] and head != info.get("commit") else "")
    print(f"[sls] shim jar {info['jar']}: built at {info['label']}{same}", file=sys.stderr,
          flush=True)
    if info.get("unknown"):
        print(f"[sls] WARNING: {info['unknown']}; the figures are labelled {info['label']}",
              file=sys.stderr, flush=True)
    if not info["stale"]:
        return
    if not measures_locus:
        print(f"[sls] note: {info['stale']} (no Locus run here)", file=sys.stderr, flush=True)
        return
    if not allow_stale:
        sys.exit(f"[sls] refusing to measure a stale shim jar: {info['stale']}. "
                 f"--allow-stale-jar runs it anyway, labelled with the jar's own commit.")
    print("[sls] " + "!" * 72 + f"\n[sls] WARNING: STALE SHIM JAR: {info['stale']}\n[sls] "
          f"the figures below measure {info['label']}, not the working tree\n[sls] " + "!" * 72,
          file=sys.stderr, flush=True)


def xml(props):
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n"
                   for k, v in props.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_conf(conf_dir, config, timer_window, rumen_trace, extra=(), logs=(), swim=None):
    os.makedirs(conf_dir, exist_ok=True)
    local = "127.0.0.1:0"
    yarn = {
        "yarn.resourcemanager.scheduler.class": SCHEDULER[config],
        # Ephemeral ports: the SLS RM starts real IPC and web servers, and other RMs may share
        # the machine. SLS's NMs and AMs call the RM's services in-process.
        "yarn.resourcemanager.address": local,
        "yarn.resourcemanager.scheduler.address": local,
        "yarn.resourcemanager.resource-tracker.address": local,
        "yarn.resourcemanager.admin.address": local,
        "yarn.resourcemanager.webapp.address": local,
        "yarn.resourcemanager.webapp.https.address": local,
        "yarn.scheduler.maximum-allocation-mb": "8192",
        "yarn.scheduler.maximum-allocation-vcores": "8",
    }
    if config == "locus-async":
        yarn["locus.scheduling.mode"] = "async"
    if config == "locus-size-based":
        yarn.update(SIZE_BASED)
    for kv in extra:
        k, _, v = kv.partition("=")
        yarn[k] = v
    with open(os.path.join(conf_dir, "yarn-site.xml"), "w") as f:
        f.write(xml(yarn))
    # The queue layout of Hadoop's shipped capacity-scheduler.xml (one queue, `default`, 100%);
    # every other CapacityScheduler key at its 3.5.0 default.
    cs = {
        "yarn.scheduler.capacity.root.queues": "default",
        "yarn.scheduler.capacity.root.default.capacity": "100",
        "yarn.scheduler.capacity.root.default.maximum-capacity": "100",
    }
    if config == "capacity-sync":
        cs["yarn.scheduler.capacity.schedule-asynchronously.enable"] = "false"
    with open(os.path.join(conf_dir, "capacity-scheduler.xml"), "w") as f:
        f.write(xml(cs))
    # SLSRunner builds the RM's configuration from its own (sls-runner.xml, without Hadoop's
    # defaults files), so the RM keys go there too.
    sls = dict(yarn)
    sls.update({
        "yarn.sls.runner.pool.size": "100",
        "yarn.sls.nm.memory.mb": "8192",
        "yarn.sls.nm.vcores": "8",
        "yarn.sls.nm.heartbeat.interval.ms": "1000",
        "yarn.sls.am.heartbeat.interval.ms": "1000",
        # SLS's MRAMSimulator, started at its job's submit time in the trace: SLS 3.4.3 starts
        # every Rumen job at 0 (docs/results/sls.md, "Arrivals"). Not a locus.* key: Locus rejects
        # unknown keys of its own namespace.
        "yarn.sls.am.type.mapreduce": "org.locus.sls.ArrivingMRAMSimulator",
        "sls-bench.rumen.trace": rumen_trace,
        "yarn.sls.container.memory.mb": "1024",
        "yarn.sls.container.vcores": "1",
        "yarn.sls.metrics.switch": "true",
        "yarn.sls.metrics.web.address.port": str(free_port()),
        "yarn.sls.metrics.timer.window.size": str(timer_window),
    })
    if swim is not None:
        # A SWIM job's reduces read no input: they ask anywhere, as MapReduce's AM asks for them.
        # Each application is recorded with its trace job (jobruntime.csv names only the former).
        sls["sls-bench.reduces.anywhere"] = "true"
        sls["sls-bench.job-map"] = swim["job_map"]
    with open(os.path.join(conf_dir, "sls-runner.xml"), "w") as f:
        f.write(xml(sls))
    # Container tokens name their NodeManager; SLS's hosts do not resolve, so name them by host.
    with open(os.path.join(conf_dir, "core-site.xml"), "w") as f:
        f.write(xml({"hadoop.security.token.service.use_ip": "false"}))
    with open(os.path.join(conf_dir, "log4j.properties"), "w") as f:
        f.write("log4j.rootLogger=WARN, stdout\n"
                "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
                "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
                "log4j.appender.stdout.layout.ConversionPattern=%d{ISO8601} %p %c{1}: %m%n\n"
                "log4j.logger.org.apache.hadoop.yarn.sls.SLSRunner=INFO\n")
        for kv in logs:
            logger, _, level = kv.partition("=")
            f.write(f"log4j.logger.{logger}={level}\n")


def write_hosts(hosts_file):
    """This machine's names only, for -Djdk.net.hosts.file: a simulated host then fails to resolve
    at once, without asking the machine's DNS server. It must not resolve: the RM's rack
    resolver (CachedDNSToSwitchMapping over SLS's TableMapping) looks a node up by its address
    when it has one, and SLS's table lists names, so hosts at 127.0.0.1 all landed in
    /default-rack and no ask's host or rack row ever matched a node (docs/results/sls.md, "Locality")."""
    names = ["localhost", socket.gethostname()]
    with open(hosts_file, "w") as f:
        for n in names:
            f.write(f"127.0.0.1 {n}\n")


def sample_memory(pid, started, out):
    """One row of the RM JVM's memory, read from outside: RSS and Native Memory Tracking's
    committed total (MB), and what lies outside what the JVM accounts for (under Locus essentially
    the Rust core)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            rss_kb = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
        nmt = subprocess.run(["jcmd", str(pid), "VM.native_memory", "summary"],
                             capture_output=True, text=True, timeout=60).stdout
        line = next(l for l in nmt.splitlines() if l.startswith("Total:"))
        committed_kb = int(line.split("committed=")[1].split("KB")[0])
    except (OSError, StopIteration, ValueError, IndexError, subprocess.TimeoutExpired):
        return
    out.write(f"{time.strftime('%H:%M:%S', time.gmtime())},{time.time() - started:.0f},"
              f"{rss_kb / 1024:.1f},{committed_kb / 1024:.1f},"
              f"{(rss_kb - committed_kb) / 1024:.1f}\n")
    out.flush()


def run_one(config, classpath, trace_dir, work, heap, timeout_s, timer_window, sample_s=0,
            extra=(), logs=(), swim=False):
    run_dir = os.path.join(work, config)
    shutil.rmtree(run_dir, ignore_errors=True)
    conf_dir = os.path.join(run_dir, "conf")
    out_dir = os.path.join(run_dir, "sls-output")
    os.makedirs(out_dir)
    job_map = os.path.join(run_dir, "job-map.csv")
    write_conf(conf_dir, config, timer_window, os.path.join(trace_dir, "rumen.json"), extra, logs,
               {"job_map": job_map} if swim else None)
    figures = os.path.join(run_dir, "figures.json")
    cmd = (["java", f"-Xms{heap}", f"-Xmx{heap}", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch",
            "-XX:NativeMemoryTracking=summary"]
           + [f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in JDK17_OPENS]
           + [f"-Dlocus.sls.figures={figures}", f"-Dlocus.sls.label={config}",
              # The RM resolves every NodeManager's name on every heartbeat
              # (NodesListManager.isValidNode); against the machine's DNS server that stalled all
              # 100 SLS threads in InetAddress.getByName. Java resolves from this file instead.
              f"-Djdk.net.hosts.file={os.path.join(trace_dir, 'hosts')}",
              "-cp", conf_dir + os.pathsep + classpath,
              # SLS's SLSRunner without its AM-launch race (LocusSlsRunner says where it is).
              "org.locus.sls.LocusSlsRunner",
              "-tracetype", "RUMEN", "-tracelocation", os.path.join(trace_dir, "rumen.json"),
              "-nodes", os.path.join(trace_dir, "nodes.json"), "-output", out_dir])
    log_path = os.path.join(run_dir, "sls.log")
    print(f"[sls] {config}: running (log {log_path})", file=sys.stderr, flush=True)
    started = time.time()
    mem = open(os.path.join(run_dir, "memory.csv"), "w") if sample_s else None
    if mem:
        mem.write("utc,elapsed_s,rss_mb,nmt_committed_mb,outside_jvm_mb\n")
    next_sample = started + sample_s
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=run_dir)
        rc = None
        while rc is None:
            try:
                rc = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                if mem and time.time() >= next_sample:
                    sample_memory(proc.pid, started, mem)
                    next_sample += sample_s
                # SLS's main thread can die (a bad trace, a missing class) while the RM's
                # threads keep the JVM up: stop at once rather than at the time-out.
                if time.time() - started > timeout_s or main_died(log_path):
                    rc = "timeout" if time.time() - started > timeout_s else "main thread died"
                    # SIGTERM runs the JVM's shutdown hooks: a timed-out run still writes the
                    # figures it has (the table then shows how many jobs finished).
                    proc.terminate()
                    try:
                        proc.wait(timeout=60)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
    wall = time.time() - started
    if mem:
        mem.close()
    with open(log_path, errors="replace") as f:
        log_text = f.read()
    fig = {"scheduler": config}
    if os.path.exists(figures):
        with open(figures) as f:
            fig = json.load(f)
    fig["exit"] = rc
    fig["wall_s"] = wall
    fig["jobs"] = job_times(os.path.join(out_dir, "jobruntime.csv"))
    if swim:
        fig["job_times"] = job_times_by_trace_job(os.path.join(out_dir, "jobruntime.csv"),
                                                  job_map)
    fig["launcher_race"] = sls_launcher_race(log_text)
    fig["run_dir"] = run_dir
    # A job without a completion time is not a failed run (the table's jobs row shows it).
    fig["failure"] = failure_reason(log_text, rc) if os.path.exists(figures) \
        else (failure_reason(log_text, rc) or "no figures written")
    print(f"[sls] {config}: {'FAILED: ' + fig['failure'] if fig['failure'] else 'done'} in "
          f"{wall:.0f} s (exit {rc}); log {log_path}", file=sys.stderr, flush=True)
    return fig


def run_with_retry(run, config):
    """Runs `run()` (one SLS JVM); once more in a fresh JVM only if SLS's own AM-launcher race
    stopped it. The figures then say so (`retried`), with the first attempt's reason."""
    fig = run()
    if not fig.get("launcher_race"):
        return fig
    first = fig["failure"]
    if fig.get("run_dir") and os.path.isdir(fig["run_dir"]):
        # Kept for reading: the retry starts from an empty run directory.
        kept = fig["run_dir"] + ".first-attempt"
        shutil.rmtree(kept, ignore_errors=True)
        os.rename(fig["run_dir"], kept)
        first += f" (log kept in {kept})"
    print(f"[sls] {config}: retrying once in a fresh JVM ({first})", file=sys.stderr, flush=True)
    fig = run()
    fig["retried"] = first
    return fig


def main_died(log_path):
    with open(log_path, errors="replace") as f:
        return 'Exception in thread "main"' in f.read()


# SLS 3.4.3's MockAMLauncher, when the RM launches an AM container before SLS has mapped the
# application to its simulated AM (AMSimulator.firstStep maps it only after submitting). Thrown on
# the RM's dispatcher, it stops the RM. LocusSlsRunner removes the race; should it still happen,
# the run is SLS's failure, not the scheduler's, and is retried once.
SLS_LAUNCHER_RACE = "Didn't find any AMSimulator for applicationId="


def sls_launcher_race(log_text):
    """True only for SLS's own AM-launcher failure: its message, thrown from MockAMLauncher. Any
    other error (a scheduler's exception, an RM shutdown for another reason) is not retried."""
    for i, line in enumerate(log_text.splitlines()):
        if SLS_LAUNCHER_RACE in line:
            following = log_text.splitlines()[i + 1:i + 3]
            if any("sls.resourcemanager.MockAMLauncher.handle" in l for l in following):
                return True
    return False


def failure_reason(log_text, rc):
    """One line saying why a run failed, from its exit and its log; None if it did not."""
    if sls_launcher_race(log_text):
        line = next(l for l in log_text.splitlines() if SLS_LAUNCHER_RACE in l)
        return "SLS MockAMLauncher race: " + line.split("YarnRuntimeException: ")[-1].strip()
    lines = log_text.splitlines()
    for marker in ('Exception in thread "main"', "Error in dispatcher thread",
                   "java.lang.OutOfMemoryError"):
        for i, line in enumerate(lines):
            if marker in line:
                detail = line if "Exception in thread" in line or "OutOfMemoryError" in line \
                    else (lines[i + 1] if i + 1 < len(lines) else line)
                return detail.strip()[:200]
    if rc == "timeout":
        return "timed out"
    if rc not in (0, None):
        return f"exit {rc}"
    return None


def job_times(path):
    """Job completion times (s) from SLS's jobruntime.csv. SLS 3.4.3 writes the wall-clock times
    under the simulate_* headers and the trace's under real_*, so the simulate_* columns are the
    measured ones."""
    times = []
    if not os.path.exists(path):
        return times
    with open(path) as f:
        for row in csv.DictReader(f):
            try:
                start, end = int(row["simulate_start_time"]), int(row["simulate_end_time"])
            except (KeyError, ValueError):
                continue
            if end >= start > 0:
                times.append((end - start) / 1000.0)
    return times


def job_times_by_trace_job(runtime_csv, job_map):
    """{trace job id: completion time (s)}: jobruntime.csv's rows (by application id) joined with
    the run's job map (application id, trace job id; ArrivingMRAMSimulator writes it)."""
    apps = {}
    if os.path.exists(job_map):
        with open(job_map) as f:
            for line in f:
                app, _, job = line.strip().partition(",")
                if app and job:
                    apps[app] = job
    times = {}
    if not os.path.exists(runtime_csv):
        return times
    with open(runtime_csv) as f:
        for row in csv.DictReader(f):
            try:
                app = row["JobID"].strip()
                start, end = int(row["simulate_start_time"]), int(row["simulate_end_time"])
            except (KeyError, ValueError, AttributeError):
                continue
            if end >= start > 0 and app in apps:
                times[apps[app]] = (end - start) / 1000.0
    return times


def swim_figures(fig, jobs):
    """Job completion of a SWIM run: over all jobs and per size bin (mean, p50, p95, p99, how
    many finished of how many), from the run's per-job times and the trace's job index."""
    times = fig.get("job_times") or {}
    out = {}
    for name in ["all"] + [b[0] for b in swim_to_sls.BINS]:
        ids = [j for j, v in jobs.items() if name == "all" or v["bin"] == name]
        xs = [times[j] for j in ids if j in times]
        out[name] = {"n": len(xs), "of": len(ids),
                     "mean": statistics.mean(xs) if xs else float("nan"),
                     "p50": pct(xs, 50), "p95": pct(xs, 95), "p99": pct(xs, 99)}
    return out


def node_local_share(fig):
    """Node-local containers as a share of all the RM counted (AMs included), or None."""
    counts = [fig.get(k) for k in ("node_local", "rack_local", "off_switch")]
    if None in counts or sum(counts) == 0:
        return None
    return counts[0] / sum(counts)


def swim_table(figs, jobs):
    """Job completion rows of a SWIM run (seconds of the scaled run, wall clock)."""
    names = [f["scheduler"] for f in figs]
    rows = []
    for name in ["all"] + [b[0] for b in swim_to_sls.BINS]:
        label = ("job completion, all jobs" if name == "all" else f"job completion, {name}") \
            + " mean / p50 / p95 / p99 (s) [finished]"
        cells = []
        for f in figs:
            s = f.get("swim", {}).get(name)
            cells.append("-" if not s or not s["n"] else
                         f"{s['mean']:.1f} / {s['p50']:.1f} / {s['p95']:.1f} / {s['p99']:.1f} "
                         f"[{s['n']}/{s['of']}]")
        rows.append((label, cells))
    width = max(len(r[0]) for r in rows)
    cols = [max([len(n)] + [len(r[1][i]) for r in rows]) for i, n in enumerate(names)]
    print("| " + "job completion".ljust(width) + " | "
          + " | ".join(n.ljust(c) for n, c in zip(names, cols)) + " |")
    print("|" + "-" * (width + 2) + "|" + "|".join("-" * (c + 2) for c in cols) + "|")
    for label, cells in rows:
        print("| " + label.ljust(width) + " | "
              + " | ".join(v.ljust(c) for v, c in zip(cells, cols)) + " |")


def swim_summary(by, trace_name, nodes, run_name="locus-default", base_name="capacity-default"):
    """The last line of a SWIM run: Locus's default over CapacityScheduler's (or any two runs)."""
    run, base = by.get(run_name), by.get(base_name)

    def get(f, fn):
        if f is None or f.get("failure"):
            return None
        try:
            v = fn(f)
        except (KeyError, TypeError, ZeroDivisionError):
            return None
        return None if v is None or v != v else v

    def r(fn):
        return ratio(get(run, fn), get(base, fn))
    label = "locus" if run_name == "locus-default" else run_name
    return (f"sls: trace={trace_name} nodes={nodes} {label}/{base_name}: "
            f"jct_mean={r(lambda f: f['swim']['all']['mean'])} "
            f"jct_p95={r(lambda f: f['swim']['all']['p95'])} "
            f"throughput={r(throughput)} node_local={r(node_local_share)}")


def pct(xs, p):
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def throughput(fig):
    span = (fig["last_allocation_ms"] - fig["first_allocation_ms"]) / 1000.0
    return fig["containers_allocated"] / span if span > 0 else float("nan")


def locality(fig):
    """The RM's own per-locality container counters (root queue metrics), AMs included."""
    counts = [fig.get(k) for k in ("node_local", "rack_local", "off_switch")]
    total = sum(c for c in counts if c is not None)
    if None in counts or total == 0:
        return "-"
    return " / ".join(f"{100.0 * c / total:.1f}" for c in counts)


def mb(b):
    return b / (1024.0 * 1024.0)


def table(figs, nodes, apps, expected_jobs, shim):
    rows = [
        ("containers allocated", lambda f: f"{f['containers_allocated']}"),
        ("containers / s (first to last allocation)", lambda f: f"{throughput(f):.1f}"),
        ("NODE_UPDATE median / p99 / mean (us)",
         lambda f: (f"{f['node_update_median_us']:.0f} / {f['node_update_p99_us']:.0f} / "
                    f"{f['node_update_mean_us']:.0f}")),
        ("NODE_UPDATE events (timer window)",
         lambda f: f"{f['node_update_count']} ({f['node_update_window']})"),
        ("allocate() median / p99 / mean (us)",
         lambda f: (f"{f['allocate_median_us']:.0f} / {f['allocate_p99_us']:.0f} / "
                    f"{f['allocate_mean_us']:.0f}")),
        ("allocate() calls (timer window)",
         lambda f: f"{f['allocate_count']} ({f['allocate_window']})"),
        ("mean ask-to-allocation latency (ms)", lambda f: f"{f['latency_mean_ms']:.0f}"),
        ("the same, asks naming no host or rack (ms; count)",
         lambda f: f"{f['latency_anywhere_mean_ms']:.0f}; {f['latency_anywhere_count']:,}"),
        ("node-local / rack-local / off-switch (% of containers)", locality),
        ("containers preempted", lambda f: f"{f['preempted_containers']:,}"),
        ("jobs finished", lambda f: f"{len(f['jobs'])}/{expected_jobs}"),
        ("job completion mean / p95 (s)",
         lambda f: (f"{statistics.mean(f['jobs']):.1f} / {pct(f['jobs'], 95):.1f}"
                    if f["jobs"] else "-")),
        ("peak heap used (MB)", lambda f: f"{mb(f['peak_heap_used_bytes']):.0f}"),
        ("native outside the JVM (RSS - NMT), first / last / peak (MB)",
         lambda f: (f"{mb(max(0, f['first_native_bytes'])):.0f} / "
                    f"{mb(f['last_native_bytes']):.0f} / {mb(f['peak_native_bytes']):.0f}")),
        ("cluster >= 90% allocated / asks outstanding (s, 2 s samples)",
         lambda f: f"{f['full_s']} / {f['waiting_s']} of {2 * f['load_samples']}"),
        ("peak outstanding container asks", lambda f: f"{f['peak_waiting']}"),
        ("run wall time (s), exit", lambda f: f"{f['wall_s']:.0f}, {f['exit']}"),
        ("failed: why", lambda f: f["failure"] or "-"),
        ("retried: why (first attempt)", lambda f: f.get("retried") or "-"),
    ]
    names = [f["scheduler"] for f in figs]
    cells = [[cell(fn, f) for f in figs] for _, fn in rows]
    width = max(len(r[0]) for r in rows)
    cols = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]
    print(f"SLS (hadoop-sls 3.4.3 on the 3.5.0 RM): {nodes} NodeManagers, {apps} MapReduce jobs; "
          f"shim jar built at {shim['label']}"
          + (f" -- STALE: {shim['stale']}" if shim["stale"] else ""))
    print("| " + "figure".ljust(width) + " | " + " | ".join(n.ljust(c) for n, c in zip(names, cols))
          + " |")
    print("|" + "-" * (width + 2) + "|" + "|".join("-" * (c + 2) for c in cols) + "|")
    for (label, _), values in zip(rows, cells):
        print("| " + label.ljust(width) + " | "
              + " | ".join(v.ljust(c) for v, c in zip(values, cols)) + " |")


def cell(fn, fig):
    """A figure a failed run did not write shows as '-' (its failure row says why)."""
    try:
        return fn(fig)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, statistics.StatisticsError):
        return "-"


def ratios(run, base):
    """Run over base for the last line's four figures; nan for a failed or missing run."""
    def get(f, key):
        if f is None or f.get("failure") or key not in f:
            return None
        return f[key]
    tp = (lambda f: throughput(f) if get(f, "containers_allocated") is not None else None)
    return (f"node_update={ratio(get(run, 'node_update_median_us'), get(base, 'node_update_median_us'))} "
            f"allocate={ratio(get(run, 'allocate_median_us'), get(base, 'allocate_median_us'))} "
            f"throughput={ratio(tp(run), tp(base))} "
            f"latency={ratio(get(run, 'latency_mean_ms'), get(base, 'latency_mean_ms'))}")


def summary_lines(by, nodes, shim):
    """The lines scripts read: which shim jar ran, then Locus over capacity-default. The last line
    keeps its established form (`sls: nodes=N locus/capacity-default: ...`)."""
    lines = [f"sls: shim={shim['label']}"]
    for run, name in (("locus-async", "locus-async"), ("locus-size-based", "locus-size-based"),
                      ("locus-default", "locus")):
        if run in by and "capacity-default" in by:
            lines.append(f"sls: nodes={nodes} {name}/capacity-default: "
                         + ratios(by[run], by["capacity-default"]))
    return lines


def ratio(a, b):
    if b is None or a is None or b == 0 or a != a or b != b:
        return "nan"
    return f"{a / b:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--classpath-file", required=True)
    ap.add_argument("--full", action="store_true",
                    help="the full scale: %d nodes, %d jobs over %d s" % SCALES["full"])
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--apps", type=int)
    ap.add_argument("--window", type=int, help="arrival window, s")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--trace", default="synthetic", metavar="synthetic|swim:FILE",
                    help="the synthetic trace (default) or a SWIM trace file, converted by "
                         "bench/swim_to_sls.py; with swim:, --apps replays the file's first N jobs "
                         "(default all)")
    ap.add_argument("--time-scale", type=float, metavar="F",
                    help="swim: divide arrivals and task durations by F (default: chosen so the "
                         "arrivals and the work fit in %d s)" % swim_to_sls.ARRIVAL_BUDGET_S)
    ap.add_argument("--only", help="comma list of " + ",".join(CONFIGS))
    ap.add_argument("--heap", default="3g")
    ap.add_argument("--timeout", type=int, default=1800, help="per scheduler, s")
    ap.add_argument("--timer-window", type=int, default=200000,
                    help="SLS timer sliding window (samples kept per timer)")
    ap.add_argument("--sample-memory", type=int, default=0, metavar="S",
                    help="every S seconds, record the RM JVM's RSS and NMT committed total in "
                         "<run>/memory.csv (for the long memory run)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra yarn-site key for every run (e.g. a locus.* setting)")
    ap.add_argument("--log", action="append", default=[], metavar="LOGGER=LEVEL",
                    help="a log4j level for one logger in every run's sls.log (e.g. "
                         "org.locus.yarn=INFO); the rest stays at WARN")
    ap.add_argument("--work", default=os.path.join(ROOT, "sls-bench", "build", "sls-runs"))
    ap.add_argument("--allow-stale-jar", action="store_true",
                    help="run a shim jar whose sources are not this working tree's (an A/B against "
                         "another tree's jar); the figures are labelled with the jar's commit")
    a = ap.parse_args()
    # Each JVM runs in its own run directory: relative paths would not reach the configuration.
    a.work = os.path.abspath(a.work)
    nodes, apps, window = SCALES["full" if a.full else "default"]
    nodes, apps, window = a.nodes or nodes, a.apps or apps, a.window or window
    swim_file = None
    if a.trace != "synthetic":
        if not a.trace.startswith("swim:") or not a.trace[len("swim:"):]:
            sys.exit(f"[sls] --trace wants synthetic or swim:FILE, got '{a.trace}'")
        swim_file = a.trace[len("swim:"):]
        if a.window or a.full:
            sys.exit("[sls] --window and --full are the synthetic trace's; a SWIM trace's arrivals "
                     "are its own (--time-scale scales them)")
    elif a.time_scale is not None:
        sys.exit("[sls] --time-scale is for --trace swim:FILE")
    configs = a.only.split(",") if a.only else DEFAULT_CONFIGS
    for kv in a.set:
        if "=" not in kv or not kv.partition("=")[0]:
            sys.exit(f"[sls] --set wants KEY=VALUE, got '{kv}'")
    levels = {"ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"}
    for kv in a.log:
        logger, _, level = kv.partition("=")
        if not logger or level.upper() not in levels or any(c.isspace() for c in kv):
            sys.exit(f"[sls] --log wants LOGGER=LEVEL (LEVEL one of {', '.join(sorted(levels))}), "
                     f"got '{kv}'")
    for c in configs:
        if c not in SCHEDULER:
            sys.exit(f"[sls] unknown configuration '{c}' (known: {', '.join(CONFIGS)})")
    with open(a.classpath_file) as f:
        classpath = f.read().strip()
    shim = shim_provenance(classpath, ROOT)
    check_shim(shim, any(c.startswith("locus") for c in configs), a.allow_stale_jar)
    os.makedirs(a.work, exist_ok=True)
    trace_dir = os.path.join(a.work, "trace")
    swim = None
    if swim_file:
        try:
            swim = swim_to_sls.convert(swim_to_sls.load(swim_file, a.apps), nodes, a.seed,
                                       a.time_scale)
        except swim_to_sls.TraceError as e:
            sys.exit(f"[sls] {e}")
        shutil.rmtree(trace_dir, ignore_errors=True)
        swim_to_sls.write(trace_dir, swim)
        apps = swim["stats"]["jobs"]
        for line in swim_to_sls.describe(swim["stats"]):
            print(line, flush=True)
    else:
        subprocess.run(["java", "-cp", classpath, "org.locus.sls.SlsTrace", str(nodes), str(apps),
                        str(window), str(a.seed), trace_dir], check=True, stdout=sys.stderr)
    write_hosts(os.path.join(trace_dir, "hosts"))
    figs = [run_with_retry(lambda c=c: run_one(c, classpath, trace_dir, a.work, a.heap,
                                               a.timeout, a.timer_window, a.sample_memory,
                                               a.set, a.log, swim is not None), c)
            for c in configs]
    if swim:
        for f in figs:
            f["swim"] = swim_figures(f, swim["jobs"])
    with open(os.path.join(a.work, "results.json"), "w") as f:
        json.dump({"nodes": nodes, "apps": apps, "window_s": None if swim else window,
                   "seed": a.seed, "trace": a.trace,
                   "swim": swim["stats"] if swim else None, "shim": shim, "runs": figs},
                  f, indent=1)
    table(figs, nodes, apps, apps, shim)
    if swim:
        swim_table(figs, swim["jobs"])
    by = {f["scheduler"]: f for f in figs}
    for f in figs:
        if f["failure"]:
            print(f"sls: {f['scheduler']} FAILED: {f['failure']}")
    for line in summary_lines(by, nodes, shim):
        print(line)
    if swim:
        if "locus-size-based" in by:
            print(swim_summary(by, os.path.basename(swim_file), nodes, "locus-size-based",
                               "locus-default"))
        print(swim_summary(by, os.path.basename(swim_file), nodes))
    if any(f["failure"] for f in figs):
        sys.exit(1)


if __name__ == "__main__":
    main()
