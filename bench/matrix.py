#!/usr/bin/env python3
"""The default-policy matrix: every candidate configuration on every workload cell, by locus-sim.

Runs the release `locus-sim` once per (cell, configuration) with `--json --no-timing` (so the
figures are deterministic for a seed), normalises each cell's mean and p95 job turnaround to
the best configuration of that cell, and rewrites the block between the markers in
docs/results/default-policy.md. Python 3 standard library only; `./locus bench matrix` builds the
binary first. Stalls (a run that stopped with jobs unfinished) and time-outs are marked as such
and never count as a cell's best.
"""

import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACE_NAME = "FB-2009_samples_24_times_1hr_0.tsv"
BEGIN = "<!-- matrix:begin (written by bench/matrix.py; edit the script, not this block) -->"
END = "<!-- matrix:end -->"

# (cell, cluster, locus-sim arguments). Clusters of 100 and 600 nodes at the workloads' own load
# and a busier one (a shorter mean gap); the papers' workloads on their papers' clusters.
# "{trace}" is replaced by the trace's absolute path.
CELLS = [
    ("facebook", "100 nodes", ["--workload", "facebook", "--nodes", "100", "--racks", "5"]),
    ("facebook busy", "100 nodes, gap 5 s",
     ["--workload", "facebook", "--nodes", "100", "--racks", "5", "--mean-gap-ms", "5000"]),
    ("facebook", "600 nodes", ["--workload", "facebook", "--nodes", "600", "--racks", "20"]),
    ("facebook busy", "600 nodes, gap 1 s",
     ["--workload", "facebook", "--nodes", "600", "--racks", "20", "--mean-gap-ms", "1000"]),
    ("swim (FB-2009 day)", "600 nodes",
     ["--workload", "swim", "--trace", "{trace}", "--nodes", "600", "--racks", "20"]),
    ("swim (first 1500 jobs)", "100 nodes",
     ["--workload", "swim", "--trace", "{trace}", "--nodes", "100", "--racks", "5",
      "--limit-jobs", "1500"]),
    ("synthetic 300 jobs", "100 nodes",
     ["--workload", "synthetic", "--jobs", "300", "--nodes", "100", "--racks", "5"]),
    ("synthetic 300 jobs busy", "100 nodes, gap 2 s",
     ["--workload", "synthetic", "--jobs", "300", "--nodes", "100", "--racks", "5",
      "--mean-gap-ms", "2000"]),
    ("synthetic 600 jobs", "600 nodes",
     ["--workload", "synthetic", "--jobs", "600", "--nodes", "600", "--racks", "20",
      "--max-maps", "1500"]),
    ("joss-small", "JoSS 2 DC x 15", ["--workload", "joss-small"]),
    ("joss-mixed", "JoSS 2 DC x 15", ["--workload", "joss-mixed"]),
    ("td-small", "TD 50 nodes", ["--workload", "td-small"]),
    ("td-mix", "TD 50 nodes", ["--workload", "td-mix"]),
    ("fresh-a", "20 nodes", ["--workload", "fresh-a", "--nodes", "20"]),
    ("fresh-b", "20 nodes", ["--workload", "fresh-b", "--nodes", "20"]),
    ("fresh-b", "10 nodes", ["--workload", "fresh-b", "--nodes", "10"]),
    ("fresh-c", "10 nodes", ["--workload", "fresh-c", "--nodes", "10"]),
    ("fresh-d", "10 nodes", ["--workload", "fresh-d", "--nodes", "10"]),
    ("fresh-e", "10 nodes", ["--workload", "fresh-e", "--nodes", "10"]),
    ("mrosa-exp1", "MROSA 10 nodes", ["--workload", "mrosa-exp1"]),
    ("mrosa-exp2", "MROSA 10 nodes", ["--workload", "mrosa-exp2"]),
]

LOC = "locus.locality="
PREEMPT = "locus.preemption.size-based=true"
# (label, --policy item). Every valid policy x locality pair (td and joss-t place maps themselves
# and accept only hadoop), FRESH's own slot configurator, FRESH's static split under fair (the
# one slot split the settings allow outside fresh), and TD's hot queue as a layer.
CONFIGS = [
    ("fifo", "fifo;" + LOC + "hadoop"),
    ("fifo+delay", "fifo;" + LOC + "delay"),
    ("fifo+matchmaking", "fifo;" + LOC + "matchmaking"),
    ("fair", "fair;" + LOC + "hadoop"),
    ("fair+delay", "fair;" + LOC + "delay"),
    ("fair+matchmaking", "fair;" + LOC + "matchmaking"),
    ("fair+delay+hot-queue", "fair;" + LOC + "delay;locus.hotspot=hot-queue"),
    ("fair+fresh-static", "fair;" + LOC + "hadoop;locus.slots=fresh-static"),
    ("fsp", "fsp;" + LOC + "hadoop"),
    ("fsp+delay", "fsp;" + LOC + "delay"),
    ("fsp+delay-room", "fsp;" + LOC + "delay-room"),
    # Size-based preemption (docs/results/2026-11-29-size-based-preemption.md), with the
    # monitor's CapacityScheduler defaults (rounds every 3 s, kills 15 s after the mark).
    ("fsp+delay+preemption", "fsp;" + LOC + "delay;" + PREEMPT),
    ("fair+delay+preemption", "fair;" + LOC + "delay;" + PREEMPT),
    ("capacity", "capacity;" + LOC + "hadoop"),
    ("capacity+delay", "capacity;" + LOC + "delay"),
    ("capacity+matchmaking", "capacity;" + LOC + "matchmaking"),
    ("td", "td"),
    ("joss-t", "joss-t"),
    ("fresh", "fresh;" + LOC + "hadoop"),
    ("fresh+delay", "fresh;" + LOC + "delay"),
    ("fresh+matchmaking", "fresh;" + LOC + "matchmaking"),
    ("fresh+fresh-dynamic", "fresh;" + LOC + "hadoop;locus.slots=fresh-dynamic"),
    ("mrosa", "mrosa;" + LOC + "hadoop"),
    ("mrosa+delay", "mrosa;" + LOC + "delay"),
    ("mrosa+matchmaking", "mrosa;" + LOC + "matchmaking"),
    # Hadoop 3.5 CapacityScheduler as installed (sim/src/cs_default.rs): what an operator has today.
    ("cs-default", "cs-default"),
]

TARGET = 1.05  # within 5 % of the best mean turnaround in every cell
BASELINE = "fifo"  # locality must never be worse than the old default's


def find_trace(given):
    if given:
        return os.path.abspath(given)
    for rel in ("../shared/traces", "../../shared/traces", "/work/shared/traces"):
        path = os.path.normpath(os.path.join(ROOT, rel, TRACE_NAME))
        if os.path.isfile(path):
            return path
    return None


def run_one(binary, cell_args, policy, timeout, seed):
    """One locus-sim run; returns a dict with the run's figures, or its failure."""
    fd, out = tempfile.mkstemp(suffix=".json", prefix="locus-matrix-")
    os.close(fd)
    cmd = [binary, "--no-progress", "--no-timing", "--seed", str(seed), "--policy", policy,
           "--json", out] + cell_args
    try:
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=timeout, text=True)
        try:
            with open(out) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return {"error": "exit %d: %s" % (proc.returncode, proc.stderr.strip()[-300:])}
        r = doc["runs"][0]
        return {
            "jobs": r["jobs"],
            "finished": r["finished"],
            "stalled": r.get("stalled"),
            "mean": r["turnaround"]["mean_s"],
            "p95": r["turnaround"]["p95_s"],
            "node": r["map_locality"]["node_share"],
        }
    except subprocess.TimeoutExpired:
        return {"error": "timeout after %d s wall" % timeout, "timeout": True}
    finally:
        try:
            os.unlink(out)
        except OSError:
            pass


def ok(r):
    return r is not None and "error" not in r and r["finished"] == r["jobs"]


def status(r):
    if r is None:
        return "not run"
    if "error" in r:
        return "timeout" if r.get("timeout") else "error"
    if r["finished"] < r["jobs"]:
        return "stall %d/%d" % (r["finished"], r["jobs"])
    return "ok"


def analyse(results, cells, configs):
    """Per cell: best mean and p95 among complete runs. Per config: the verdict figures."""
    best = {}
    for c in cells:
        done = [results[(c, k)] for k in configs if ok(results.get((c, k)))]
        best[c] = (min((r["mean"] for r in done), default=None),
                   min((r["p95"] for r in done), default=None))
    verdict = {}
    for k in configs:
        worst, worst_cell, logs, within, loc_worse, stalls = 0.0, None, [], 0, [], []
        for c in cells:
            r = results.get((c, k))
            if not ok(r):
                stalls.append(c)
                worst, worst_cell = math.inf, c
                continue
            ratio = r["mean"] / best[c][0] if best[c][0] else 1.0
            logs.append(math.log(ratio))
            within += ratio <= TARGET
            if ratio > worst:
                worst, worst_cell = ratio, c
            base = results.get((c, BASELINE))
            if ok(base) and r["node"] < base["node"] - 0.0005:
                loc_worse.append((c, r["node"] - base["node"]))
        geo = math.exp(sum(logs) / len(logs)) if logs else math.inf
        verdict[k] = {"worst": worst, "worst_cell": worst_cell, "geo": geo, "within": within,
                      "loc_worse": loc_worse, "stalls": stalls}
    return best, verdict


def cell_name(c):
    return "%s, %s" % (c[0], c[1])


def fmt_ratio(r, best, key):
    if not ok(r):
        return status(r)
    return "%.2f" % (r[key] / best) if best else "-"


def markdown(results, cells, configs, best, verdict, command):
    out = [BEGIN, "", "Command: `%s`. Seed 1; every run `--no-timing`, so the figures repeat exactly." % command, ""]
    out.append("### Summary per configuration")
    out.append("")
    out.append("Mean turnaround / the cell's best mean: worst cell, geometric mean over cells, cells "
               "within 5 %%; node-locality below fifo's (percentage points); stalls (jobs left "
               "unfinished). %d cells." % len(cells))
    out.append("")
    out.append("| configuration | worst mean / best (cell) | geo. mean | cells within 5 % | node-locality below fifo's | stalls |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    order = sorted(configs, key=lambda k: (verdict[k]["worst"], verdict[k]["geo"]))
    for k in order:
        v = verdict[k]
        worst = "stall/timeout" if v["worst"] == math.inf else "%.2f" % v["worst"]
        loc = ", ".join("%s %+.1f" % (cell_name(c), 100 * d) for c, d in v["loc_worse"]) or "never"
        stalls = ", ".join(cell_name(c) for c in v["stalls"]) or "none"
        out.append("| %s | %s (%s) | %.2f | %d/%d | %s | %s |" % (
            k, worst, cell_name(v["worst_cell"]) if v["worst_cell"] else "-", v["geo"],
            v["within"], len(cells), loc, stalls))
    out.append("")
    for title, key, idx in (("Mean job turnaround / the cell's best mean", "mean", 0),
                            ("p95 job turnaround / the cell's best p95", "p95", 1)):
        out.append("### " + title)
        out.append("")
        out.append("| configuration | " + " | ".join(cell_name(c) for c in cells) + " |")
        out.append("| --- |" + " --- |" * len(cells))
        out.append("| best (s) | " + " | ".join(
            "%.1f" % best[c][idx] if best[c][idx] is not None else "-" for c in cells) + " |")
        for k in configs:
            out.append("| %s | " % k + " | ".join(
                fmt_ratio(results.get((c, k)), best[c][idx], key) for c in cells) + " |")
        out.append("")
    out.append("### Node-local maps (% of maps that read input)")
    out.append("")
    out.append("| configuration | " + " | ".join(cell_name(c) for c in cells) + " |")
    out.append("| --- |" + " --- |" * len(cells))
    for k in configs:
        cells_txt = []
        for c in cells:
            r = results.get((c, k))
            if r is None or "error" in r:
                cells_txt.append(status(r))
            else:
                mark = "" if ok(r) else " (stall)"
                cells_txt.append("%.1f%s" % (100 * r["node"], mark))
        out.append("| %s | " % k + " | ".join(cells_txt) + " |")
    out.append("")
    problems = [(c, k, results[(c, k)]) for c in cells for k in configs
                if not ok(results.get((c, k)))]
    if problems:
        out.append("### Runs that did not finish every job")
        out.append("")
        for c, k, r in problems:
            why = r.get("stalled") or r.get("error") or ""
            out.append("- %s under %s: %s. %s" % (cell_name(c), k, status(r), why.replace("\n", " ")[:300]))
        out.append("")
    out.append(END)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "locus-sim"))
    ap.add_argument("--trace", help="FB-2009 SWIM trace (default: ../shared/traces/%s from the repository)" % TRACE_NAME)
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--timeout", type=int, default=240, help="wall seconds per run before it counts as a time-out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "results", "default-policy.md"),
                    help="markdown file whose matrix block is rewritten")
    ap.add_argument("--raw", default=os.path.join(ROOT, "target", "default-policy-matrix.json"),
                    help="every run's figures as JSON")
    ap.add_argument("--only", help="comma list of configuration labels to run (default: all)")
    args = ap.parse_args()

    if not os.access(args.binary, os.X_OK):
        sys.exit("matrix: no locus-sim binary at %s (cargo build --release -p locus-sim)" % args.binary)
    trace = find_trace(args.trace)
    if trace is None or not os.path.isfile(trace):
        sys.exit("matrix: SWIM trace %s not found (pass --trace)" % (args.trace or TRACE_NAME))
    configs = CONFIGS
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in dict(CONFIGS)]
        if unknown:
            sys.exit("matrix: unknown configuration %s; known: %s" % (
                ", ".join(unknown), ", ".join(k for k, _ in CONFIGS)))
        configs = [(k, p) for k, p in CONFIGS if k in wanted]
    if BASELINE not in dict(configs):
        configs = [(BASELINE, dict(CONFIGS)[BASELINE])] + configs

    cells = [(name, cluster) for name, cluster, _ in CELLS]
    cell_args = {(name, cluster): [a.replace("{trace}", trace) for a in argv]
                 for name, cluster, argv in CELLS}
    tasks = [(c, k, p) for c in cells for k, p in configs]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_one, args.binary, cell_args[c], p, args.timeout, args.seed): (c, k)
                   for c, k, p in tasks}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            c, k = futures[fut]
            results[(c, k)] = fut.result()
            print("[%d/%d] %s | %s: %s" % (n, len(tasks), cell_name(c), k, status(results[(c, k)])),
                  file=sys.stderr, flush=True)

    labels = [k for k, _ in configs]
    best, verdict = analyse(results, cells, labels)
    command = "./locus bench matrix" + (" --only " + args.only if args.only else "")
    block = markdown(results, cells, labels, best, verdict, command)

    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    with open(args.raw, "w") as f:
        json.dump([{"workload": c[0], "cluster": c[1], "config": k, "policy": dict(configs)[k],
                    "args": cell_args[c], **(results.get((c, k)) or {})}
                   for c in cells for k in labels], f, indent=1)
        f.write("\n")
    if os.path.exists(args.doc):
        with open(args.doc) as f:
            text = f.read()
        if BEGIN in text and END in text:
            text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    else:
        text = "# Default policy\n\n" + block + "\n"
    with open(args.doc, "w") as f:
        f.write(text)

    print("%-24s %8s  %6s  %7s  %s" % ("configuration", "worst", "geo", "within", "locality below fifo"))
    for k in sorted(labels, key=lambda k: (verdict[k]["worst"], verdict[k]["geo"])):
        v = verdict[k]
        print("%-24s %8s  %6.2f  %3d/%-3d  %s" % (
            k, "stall" if v["worst"] == math.inf else "%.2f" % v["worst"], v["geo"], v["within"],
            len(cells), len(v["loc_worse"])))
    print("matrix written to %s (raw figures: %s)" % (os.path.relpath(args.doc, ROOT),
                                                       os.path.relpath(args.raw, ROOT)))
    errors = [r for r in results.values() if r and "error" in r and not r.get("timeout")]
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
