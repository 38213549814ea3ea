package org.locus.sls;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.SplittableRandom;

/**
 * Writes the synthetic trace `./locus bench sls` runs: a node file (racks of 40 hosts) and a
 * job trace of MapReduce jobs in Rumen's format (LoggedJob objects, one per line), both fixed
 * by the seed. Rumen, not SLS's own JSON format: hadoop-sls 3.4.3's AMRunner reads SLS-format
 * jobs as a Map of String to String, so any job with a `job.tasks` array fails to load
 * ("Cannot deserialize value of type `java.lang.String` from Array value", docs/results/sls.md). The shape is a MapReduce
 * cluster's, chosen before any scheduler ran on it: job sizes from a heavy-tailed mix (most jobs
 * small, a few with thousands of maps), each map asking for the host its input split lives on
 * (uniform over the cluster, so a large job's ask table has a row for most hosts, a row per rack
 * and the `*` row, as MRAppMaster sends), reduces after the maps, arrivals spread over a window
 * with exponential gaps. 1 GB / 1 vcore containers on 8 GB / 8 vcore NodeManagers.
 *
 * <p>Usage: SlsTrace NODES APPS ARRIVAL_WINDOW_S SEED OUT_DIR
 */
public final class SlsTrace {
  static final int HOSTS_PER_RACK = 40;
  /** 8 GB / 8 vcore NodeManagers (bench/sls.py) running 1 GB / 1 vcore containers. */
  static final int SLOTS_PER_NODE = 8;
  /** Submit times are offsets from this (SLS replays them relative to the first job). */
  static final long EPOCH_MS = 1_700_000_000_000L;

  private SlsTrace() {
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 5) {
      System.err.println("usage: SlsTrace NODES APPS ARRIVAL_WINDOW_S SEED OUT_DIR");
      System.exit(2);
    }
    int nodes = positive(args[0], "NODES");
    int apps = positive(args[1], "APPS");
    int windowS = positive(args[2], "ARRIVAL_WINDOW_S");
    long seed = Long.parseLong(args[3]);
    Path out = Paths.get(args[4]);
    Files.createDirectories(out);
    writeNodes(out.resolve("nodes.json"), nodes);
    long[] work = writeJobs(out.resolve("rumen.json"), nodes, apps, windowS, seed);
    System.out.println("sls trace: " + nodes + " nodes on " + racks(nodes) + " racks, " + apps
        + " jobs, " + work[0] + " task containers, arrivals over " + windowS + " s, seed "
        + seed + " -> " + out);
    System.out.println(offeredLoad(nodes, windowS, work[0], work[1]));
  }

  /**
   * The trace's demand against the cluster, before any scheduler ran: task container-seconds
   * (every task's runtime; AM containers excluded) and how many container slots they would keep
   * busy if spread evenly over the arrival window. Above 1, jobs arrive faster than the cluster
   * can run them, so a backlog builds and containers per second measures the scheduler, not
   * the arrival rate.
   */
  static String offeredLoad(int nodes, int windowS, long containers, long taskMs) {
    long slots = (long) nodes * SLOTS_PER_NODE;
    double containerS = taskMs / 1000.0;
    return String.format(java.util.Locale.ROOT,
        "sls trace load: %.0f task container-seconds (mean %.1f s per container) over a %d s "
            + "window = %.0f slots busy on average against %d slots (%d nodes x %d): offered "
            + "load %.2f; at full occupancy the tasks need at least %.0f s",
        containerS, containerS / Math.max(1, containers), windowS, containerS / windowS, slots,
        nodes, SLOTS_PER_NODE, containerS / windowS / slots, containerS / slots);
  }

  private static int positive(String v, String name) {
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a positive integer, got '" + v + "'");
    }
    if (n <= 0) {
      throw new IllegalArgumentException(name + " must be a positive integer, got " + n);
    }
    return n;
  }

  static int racks(int nodes) {
    return (nodes + HOSTS_PER_RACK - 1) / HOSTS_PER_RACK;
  }

  static String rack(int node) {
    return String.format("rack-%03d", node / HOSTS_PER_RACK);
  }

  static String host(int node) {
    return String.format("host-%05d", node);
  }

  private static void writeNodes(Path file, int nodes) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (int r = 0; r < racks(nodes); r++) {
        w.write("{\"rack\":\"" + rack(r * HOSTS_PER_RACK) + "\",\"nodes\":[");
        int end = Math.min(nodes, (r + 1) * HOSTS_PER_RACK);
        for (int n = r * HOSTS_PER_RACK; n < end; n++) {
          w.write((n > r * HOSTS_PER_RACK ? "," : "") + "{\"node\":\"" + host(n) + "\"}");
        }
        w.write("]}\n");
      }
    }
  }

  /** Writes the jobs; returns {task containers, the sum of their runtimes in ms}. */
  private static long[] writeJobs(Path file, int nodes, int apps, int windowS, long seed)
      throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    double meanGapMs = windowS * 1000.0 / apps;
    double t = 0;
    long containers = 0;
    long taskMs = 0;
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (int a = 0; a < apps; a++) {
        long start = EPOCH_MS + Math.round(t);
        t += -Math.log(1.0 - rnd.nextDouble()) * meanGapMs;
        double size = rnd.nextDouble();
        int maps = size < 0.6 ? between(rnd, 5, 40)
            : size < 0.9 ? between(rnd, 50, 300) : between(rnd, 500, 2000);
        int reduces = Math.max(1, Math.min(50, maps / 20));
        long mapMs = between(rnd, 5_000, 20_000);
        long reduceMs = between(rnd, 10_000, 30_000);
        long end = start + mapMs * 2 + reduceMs;
        String job = String.format("%d_%04d", EPOCH_MS, a + 1);
        w.write("{\"jobID\":\"job_" + job + "\",\"user\":\"user" + (a % 10)
            + "\",\"queue\":\"default\",\"outcome\":\"SUCCESS\",\"jobtype\":\"JAVA\""
            + ",\"submitTime\":" + start + ",\"launchTime\":" + start + ",\"finishTime\":" + end
            + ",\"totalMaps\":" + maps + ",\"totalReduces\":" + reduces + ",\"mapTasks\":[");
        for (int m = 0; m < maps; m++) {
          taskMs += task(w, m > 0, job, 'm', m, rnd.nextInt(nodes), start, jitter(rnd, mapMs));
        }
        w.write("],\"reduceTasks\":[");
        for (int r = 0; r < reduces; r++) {
          taskMs += task(w, r > 0, job, 'r', r, rnd.nextInt(nodes), start + mapMs,
              jitter(rnd, reduceMs));
        }
        w.write("],\"otherTasks\":[]}\n");
        containers += maps + reduces;
      }
    }
    return new long[] {containers, taskMs};
  }

  /**
   * One task with one successful attempt on `node`: SLS takes its host and its duration (the
   * return value, ms).
   */
  private static long task(BufferedWriter w, boolean comma, String job, char type, int index,
      int node, long startMs, long durationMs) throws IOException {
    String id = String.format("%s_%c_%06d", job, type, index);
    String kind = type == 'm' ? "MAP" : "REDUCE";
    w.write((comma ? "," : "") + "{\"taskID\":\"task_" + id + "\",\"taskType\":\"" + kind
        + "\",\"taskStatus\":\"SUCCESS\",\"startTime\":" + startMs + ",\"finishTime\":"
        + (startMs + durationMs) + ",\"attempts\":[{\"attemptID\":\"attempt_" + id
        + "_0\",\"result\":\"SUCCESS\",\"hostName\":\"/" + rack(node) + "/" + host(node)
        + "\",\"startTime\":" + startMs + ",\"finishTime\":" + (startMs + durationMs) + "}]}");
    return durationMs;
  }

  private static int between(SplittableRandom rnd, int lo, int hi) {
    return lo + rnd.nextInt(hi - lo + 1);
  }

  /** A task's runtime: the job's typical one, +-25%. */
  private static long jitter(SplittableRandom rnd, long typicalMs) {
    return Math.round(typicalMs * (0.75 + 0.5 * rnd.nextDouble()));
  }
}
