#!/usr/bin/env python3
"""Spark on YARN allocation latency: CapacityScheduler (3.5.0 defaults, asynchronous) against Locus's default.

One embedded cluster (it-tests' SparkBenchCluster: MiniDFSCluster + 4 NodeManagers on 2 racks) runs YARN under
each scheduler in turn; for each, this script submits N small pyspark applications one after another
(client mode, 1 executor, no dynamic allocation, spark.range(...).count()) and then reads the RM's own log:

- AM registration: the RM audit record "OPERATION=Register App Master" of the app's attempt;
- first executor: the first "container_..._NNNNNN Container Transitioned from NEW to ALLOCATED" of that attempt
  other than the AM container (number 1);
- AM allocation (also an ask naming no host): from "State change from SUBMITTED to ACCEPTED" of the app to the
  ALLOCATED record of its AM container.

Both times come from the RM's log4j timestamps (millisecond resolution) in one JVM, so no clock skew enters.
Figures go in a dated page under docs/results/; method in docs/results/spark-latency.md.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

RUNS = ("capacity-default", "locus-default")
LABELS = {
    "capacity-default": "CapacityScheduler (3.5.0 defaults, async)",
    "locus-default": "Locus default (fsp + delay)",
}

_TS = re.compile(r"^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}[,.]\d{3})")
_CONTAINER = re.compile(
    r"\bcontainer_(?:e\d+_)?(\d+)_(\d+)_(\d+)_(\d+) Container Transitioned from NEW to ALLOCATED\b")
_REGISTER = re.compile(
    r"OPERATION=Register App Master\s.*?RESULT=SUCCESS.*?\bAPPATTEMPTID=appattempt_(\d+)_(\d+)_(\d+)\b")
_ACCEPTED = re.compile(r"\bapplication_(\d+)_(\d+) State change from SUBMITTED to ACCEPTED\b")
_APP_ID = re.compile(r"\b(application_\d+_\d+)\b")


def parse_timestamp(text):
    """log4j's ISO8601 layout, '2026-11-29 17:05:01,123', as seconds since the epoch (UTC is not assumed:
    only differences are used)."""
    return datetime.datetime.strptime(text.replace("T", " ").replace(".", ","),
                                      "%Y-%m-%d %H:%M:%S,%f").timestamp()


def app_key(cluster_ts, seq):
    return "application_%s_%s" % (cluster_ts, seq)


def parse_rm_log(lines):
    """The RM's records per application: {app_id: {"accepted": t, "registered": {attempt: t},
    "allocated": {(attempt, container_number): t}}}; the first record of each kind wins."""
    apps = {}

    def entry(app):
        return apps.setdefault(app, {"accepted": None, "registered": {}, "allocated": {}})

    for line in lines:
        m = _TS.match(line)
        if not m:
            continue
        ts = None
        c = _CONTAINER.search(line)
        if c:
            ts = parse_timestamp(m.group(1))
            e = entry(app_key(c.group(1), c.group(2)))
            e["allocated"].setdefault((int(c.group(3)), int(c.group(4))), ts)
            continue
        r = _REGISTER.search(line)
        if r:
            ts = parse_timestamp(m.group(1))
            entry(app_key(r.group(1), r.group(2)))["registered"].setdefault(int(r.group(3)), ts)
            continue
        a = _ACCEPTED.search(line)
        if a:
            ts = parse_timestamp(m.group(1))
            e = entry(app_key(a.group(1), a.group(2)))
            if e["accepted"] is None:
                e["accepted"] = ts
    return apps


def latencies(record):
    """(am_allocation_s, first_executor_s) of one app's records; None where a record is missing.

    The first executor is measured within the first attempt that registered: its earliest non-AM container."""
    am = None
    if record["accepted"] is not None and (1, 1) in record["allocated"]:
        am = record["allocated"][(1, 1)] - record["accepted"]
    first = None
    if record["registered"]:
        attempt = min(record["registered"])
        reg = record["registered"][attempt]
        execs = [t for (att, num), t in record["allocated"].items() if att == attempt and num > 1]
        if execs:
            first = min(execs) - reg
    return am, first


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    rank = max(1, -(-len(s) * q // 100))
    return s[int(rank) - 1]


def summary(values):
    """{"n", "median", "p90", "mean"} in seconds; figures are None for an empty list."""
    if not values:
        return {"n": 0, "median": None, "p90": None, "mean": None}
    return {"n": len(values), "median": statistics.median(values), "p90": percentile(values, 90),
            "mean": statistics.mean(values)}


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def fmt(x, unit=" s"):
    return "-" if x is None else "%.2f%s" % (x, unit)


def table(results):
    """The printed table: one row per scheduler. results: {run: {"apps", "failures", "first", "am"}}."""
    head = "| scheduler | apps | failures | first executor median | p90 | mean | AM allocation median | p90 |"
    rows = [head, "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for run, r in results.items():
        f, a = summary(r["first"]), summary(r["am"])
        rows.append("| %s | %d | %d | %s | %s | %s | %s | %s |" % (
            LABELS.get(run, run), r["apps"], r["failures"], fmt(f["median"]), fmt(f["p90"]), fmt(f["mean"]),
            fmt(a["median"]), fmt(a["p90"])))
    return "\n".join(rows)


def last_line(results, apps):
    """The line for scripts: locus-default over capacity-default, first executor median."""
    loc = summary(results.get("locus-default", {}).get("first", []))["median"]
    cs = summary(results.get("capacity-default", {}).get("first", []))["median"]
    r = ratio(loc, cs)
    return "spark: apps=%d locus/capacity-default: first_executor_median=%s" % (
        apps, "nan" if r is None else "%.2f" % r)


JOB = """\
from pyspark.sql import SparkSession
spark = SparkSession.builder.appName("locus-spark-latency").getOrCreate()
n = spark.range(0, 100000, 1, 2).count()
assert n == 100000, n
spark.stop()
"""


def spark_conf(pyspark_dir, java_home, executors):
    """spark-submit --conf pairs: a small, fixed ask per app, nothing uploaded (every node is this machine)."""
    jars = os.path.join(pyspark_dir, "pyspark", "jars", "*")
    return {
        "spark.master": "yarn",
        "spark.submit.deployMode": "client",
        "spark.dynamicAllocation.enabled": "false",
        "spark.executor.instances": str(executors),
        "spark.executor.cores": "1",
        "spark.executor.memory": "512m",
        "spark.yarn.am.memory": "512m",
        "spark.driver.memory": "512m",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.yarn.jars": "local:" + jars,
        "spark.yarn.populateHadoopClasspath": "false",
        "spark.yarn.appMasterEnv.JAVA_HOME": java_home,
        "spark.executorEnv.JAVA_HOME": java_home,
        "spark.ui.enabled": "false",
        "spark.yarn.maxAppAttempts": "1",
    }


def java_home():
    if os.environ.get("JAVA_HOME"):
        return os.environ["JAVA_HOME"]
    java = shutil.which("java")
    if not java:
        sys.exit("spark_latency: no java on PATH and JAVA_HOME unset")
    return os.path.dirname(os.path.dirname(os.path.realpath(java)))


def wait_for(path, proc, timeout_s, what):
    deadline = time.time() + timeout_s
    while not os.path.exists(path):
        if proc.poll() is not None:
            raise RuntimeError("the cluster exited (code %s) before %s" % (proc.returncode, what))
        if time.time() > deadline:
            raise RuntimeError("no %s within %d s" % (what, timeout_s))
        time.sleep(0.2)


def rm_apps(rm_web):
    with urllib.request.urlopen("http://%s/ws/v1/cluster/apps" % rm_web, timeout=30) as r:
        body = json.load(r)
    return {a["id"]: a for a in ((body.get("apps") or {}).get("app") or [])}


def submit(pyspark_dir, conf_dir, job, conf, env_base, log_path, timeout_s):
    spark_home = os.path.join(pyspark_dir, "pyspark")
    cmd = [os.path.join(spark_home, "bin", "spark-submit")]
    for k, v in conf.items():
        cmd += ["--conf", "%s=%s" % (k, v)]
    cmd.append(job)
    env = dict(env_base)
    env.update({
        "SPARK_HOME": spark_home,
        "HADOOP_CONF_DIR": conf_dir,
        "YARN_CONF_DIR": conf_dir,
        "PYTHONPATH": pyspark_dir,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        # Executors find pyspark where this machine has it; "local:" keeps Spark from uploading it.
        "PYSPARK_ARCHIVES_PATH": "local:" + pyspark_dir,
    })
    with open(log_path, "w") as log:
        try:
            rc = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    with open(log_path, errors="replace") as log:
        ids = _APP_ID.findall(log.read())
    return rc, (ids[0] if ids else None)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--apps", type=int, default=10, help="applications per scheduler (default 10)")
    p.add_argument("--pyspark", required=True, help="directory holding the pyspark package (pip --target)")
    p.add_argument("--work", default="build/spark-bench/run", help="control and log directory")
    p.add_argument("--order", default=",".join(RUNS), help="runs in order (default %(default)s)")
    p.add_argument("--executors", type=int, default=1, help="executors per app (default 1)")
    p.add_argument("--app-timeout", type=int, default=300, help="hang guard per app, s (default 300)")
    p.add_argument("--gradle", default="gradle", help="gradle command")
    a = p.parse_args(argv)
    if not 1 <= a.apps <= 200:
        p.error("--apps must be in 1..200")
    if not 1 <= a.executors <= 4:
        p.error("--executors must be in 1..4 (the cluster has 4 nodes of 4 GB)")
    order = [r.strip() for r in a.order.split(",") if r.strip()]
    for r in order:
        if r not in RUNS:
            p.error("--order: unknown run %r (known: %s)" % (r, ", ".join(RUNS)))

    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log_dir = os.path.join(work, "logs")
    os.makedirs(log_dir)
    job = os.path.join(work, "job.py")
    with open(job, "w") as f:
        f.write(JOB)
    pyspark_dir = os.path.abspath(a.pyspark)
    conf = spark_conf(pyspark_dir, java_home(), a.executors)
    env_base = dict(os.environ)
    env_base["JAVA_HOME"] = conf["spark.executorEnv.JAVA_HOME"]

    cmd = [a.gradle, "--no-daemon", "--console=plain", "-q", ":it-tests:sparkBenchCluster",
           "-Plocus.spark.control=" + work, "-Plocus.spark.runs=" + ",".join(order),
           "-Plocus.spark.log.dir=" + log_dir]
    print("starting the embedded cluster (HDFS once, then YARN per scheduler: %s); %d apps each"
          % (", ".join(order), a.apps), flush=True)
    started = time.time()
    cluster = subprocess.Popen(cmd, start_new_session=True)
    results = {}
    submitted = {}
    try:
        for run in order:
            rdir = os.path.join(work, run)
            wait_for(os.path.join(rdir, "ready"), cluster, 900, run + "'s YARN")
            ready = dict(l.split("=", 1) for l in open(os.path.join(rdir, "ready")).read().split())
            rm_web = ready["rm_web"]
            ids, failures = [], 0
            known = set(rm_apps(rm_web))
            for i in range(a.apps):
                t0 = time.time()
                rc, app = submit(pyspark_dir, os.path.join(rdir, "conf"), job, conf, env_base,
                                 os.path.join(rdir, "app-%02d.log" % i), a.app_timeout)
                # The RM's list is the record of what was submitted; the client's log only a fallback.
                now = set(rm_apps(rm_web))
                new = sorted(now - known)
                known = now
                if len(new) == 1:
                    app = new[0]
                print("%s app %d/%d: %s exit %s in %.0f s" % (run, i + 1, a.apps, app or "(no app id)", rc,
                                                            time.time() - t0), flush=True)
                if rc != 0 or app is None:
                    failures += 1
                if app is not None:
                    ids.append((app, rc))
            states = rm_apps(rm_web)
            ok = []
            for app, rc in ids:
                s = states.get(app, {})
                if rc == 0 and s.get("finalStatus") == "SUCCEEDED":
                    ok.append(app)
                elif rc == 0:
                    failures += 1
            submitted[run] = ok
            results[run] = {"apps": a.apps, "failures": failures, "first": [], "am": []}
            open(os.path.join(rdir, "done"), "w").close()
            wait_for(os.path.join(rdir, "stopped"), cluster, 300, run + "'s YARN to stop")
        rc = cluster.wait(timeout=300)
        if rc != 0:
            raise RuntimeError("the cluster exited with code %d" % rc)
    except BaseException:
        if cluster.poll() is None:
            os.killpg(cluster.pid, signal.SIGTERM)
            try:
                cluster.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(cluster.pid, signal.SIGKILL)
        raise

    with open(os.path.join(log_dir, "hadoop.log"), errors="replace") as f:
        records = parse_rm_log(f)
    for run, apps in submitted.items():
        for app in apps:
            am, first = latencies(records.get(app, {"accepted": None, "registered": {}, "allocated": {}}))
            if first is None:
                results[run]["failures"] += 1
                continue
            results[run]["first"].append(first)
            if am is not None:
                results[run]["am"].append(am)
    print()
    print("Spark on YARN, %d pyspark apps per scheduler one after another (client mode, %d executor(s) of "
          "512 MB, no dynamic allocation); 4 NodeManagers on 2 racks; %.0f s in all."
          % (a.apps, a.executors, time.time() - started))
    print("first executor: RM audit 'Register App Master' to the first non-AM container ALLOCATED; "
          "AM allocation: app ACCEPTED to AM container ALLOCATED (RM log, ms).")
    print(table(results))
    print(last_line(results, a.apps))
    return 0 if all(r["failures"] == 0 for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
