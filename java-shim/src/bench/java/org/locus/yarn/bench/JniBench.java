package org.locus.yarn.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.locus.yarn.LocusCore;
import org.locus.yarn.LocusNative;

/**
 * Round-trip cost of one node heartbeat through JNI (Java string → Rust JSON parse → core →
 * JSON → Java string), with 0 and with 10 decisions in the answer. Plain loop: warm-up rounds,
 * then timed rounds; prints ns/op per round and the spread. Run with {@code gradle jniBench}.
 *
 * <p>System properties: {@code locus.bench.iterations} (per round, default 20000),
 * {@code locus.bench.rounds} (timed, default 10), {@code locus.bench.warmup} (default 5),
 * {@code locus.bench.logLevel} (0 off .. 5 trace, default 3 = the RM's usual INFO),
 * {@code locus.bench.only} ({@code jni}: only the round trips; {@code rm}: only the full path),
 * {@code locus.bench.rmIterations} (per round of the full path, default 200);
 * {@code locus.bench.only=node}: only {@link NodeUpdateBench} ({@code locus.bench.nodeBatch}
 * NODE_UPDATEs per round, default 20,000).
 *
 * <p>Then the full path through a MockRM ({@link RmPathBench}): from ResourceRequest lists and
 * NODE_UPDATE events to executed decisions, with a 5,000-host MapReduce job.
 */
public final class JniBench {
  private static final int DECISIONS = 10;
  private static final String NODE = "bench-h1:8041";
  private static final String APP = "application_1700000000000_0001";

  private JniBench() {
  }

  public static void main(String[] args) throws Exception {
    int iterations = Integer.getInteger("locus.bench.iterations", 20000);
    int rounds = Integer.getInteger("locus.bench.rounds", 10);
    int warmup = Integer.getInteger("locus.bench.warmup", 5);
    int logLevel = Integer.getInteger("locus.bench.logLevel", 3);
    String only = System.getProperty("locus.bench.only", "");
    if (only.equals("node")) {
      // The dispatcher's share of an empty NODE_UPDATE, CapacityScheduler against Locus.
      NodeUpdateBench.run(Integer.getInteger("locus.bench.nodeBatch", 20_000), warmup, rounds);
      return;
    }
    if (only.equals("frames")) {
      // The decisions and events frames against the JSON they replaced, alternating.
      org.locus.yarn.FramesBench.run(iterations, warmup, rounds);
      return;
    }
    if (!only.equals("rm")) {
      roundTrips(iterations, rounds, warmup, logLevel);
    }
    if (!only.equals("jni")) {
      int rmIterations = Integer.getInteger("locus.bench.rmIterations", 200);
      System.out.printf(Locale.ROOT, "%nFull path in a MockRM (RM objects in, decisions executed):"
          + " %d warm-up + %d timed rounds x %d ops%n", warmup, rounds, rmIterations);
      RmPathBench.run(rmIterations, warmup, rounds);
    }
  }

  private static void roundTrips(int iterations, int rounds, int warmup, int logLevel) {
    System.out.printf(Locale.ROOT, "JNI heartbeat round trip: %d warm-up + %d timed rounds x %d ops,"
        + " Rust log level %d, %s %s%n", warmup, rounds, iterations, logLevel,
        System.getProperty("java.vm.name"), System.getProperty("java.version"));

    try (LocusCore idle = LocusCore.open("{}")) {
      LocusNative.initLogging(logLevel);
      idle.events("[" + nodeAdded() + "]");
      String heartbeat = heartbeat();
      Case zero = () -> idle.heartbeat(heartbeat);
      checkContainers("0 decisions", zero.run(), 0, 0);
      report("heartbeat, 0 decisions", measure(zero, null, iterations, warmup, rounds));
      report("stats() (JNI baseline)", measure(idle::stats, null, iterations, warmup, rounds));
    }

    try (LocusCore busy = LocusCore.open("{}")) {
      LocusNative.initLogging(logLevel);
      busy.events("[" + nodeAdded() + "," + appAdded() + "," + attemptAdded() + "," + asksUpdated()
          + "]");
      String heartbeat = heartbeat();
      Case ten = () -> busy.heartbeat(heartbeat);
      String first = ten.run();
      if (!checkContainers(DECISIONS + " decisions", first, DECISIONS, DECISIONS)) {
        System.out.println("SKIPPED heartbeat, 10 decisions: the core did not produce them (see above)");
        return;
      }
      // Between timed heartbeats the shim's success path is replayed untimed: the decided
      // containers are created, released again, and the asks snapshot re-sent, so the next
      // heartbeat again yields 10 decisions and no decision is left in flight.
      String allocate = allocateAndRelease(first);
      String restore = "[" + asksUpdated() + "]";
      Runnable reset = () -> {
        busy.events(allocate);
        busy.events(restore);
      };
      reset.run();
      String second = ten.run();
      reset.run();
      if (!checkContainers("10 decisions after reset", second, DECISIONS, DECISIONS)) {
        System.out.println("SKIPPED heartbeat, 10 decisions: the reset did not restore the asks");
        return;
      }
      System.out.println("  response with 10 decisions: " + first.length() + " chars, e.g. "
          + first.substring(0, Math.min(first.length(), 200)) + "...");
      report("heartbeat, 10 decisions", measure(ten, reset, iterations, warmup, rounds));
      report("asks_updated event (10 asks)", measure(() -> {
        busy.events(restore);
        return "";
      }, null, iterations, warmup, rounds));
      String stats = busy.stats();
      System.out.println("  core stats after the run: " + stats);
    }
  }

  /**
   * container_allocated for every container the response decided, then container_released for
   * each: the events the shim sends when it executes the decisions and the containers finish.
   */
  private static String allocateAndRelease(String response) {
    Matcher m = Pattern.compile("\\{\"app\":\"([^\"]+)\",\"priority\":(-?\\d+),"
        + "\"allocation_request_id\":-?\\d+,\"resource_name\":\"[^\"]*\",\"node\":\"([^\"]+)\","
        + "\"locality\":\"(\\w+)\",\"count\":(\\d+),"
        + "\"capability\":(\\{[^}]*\\})\\}").matcher(response);
    StringBuilder allocated = new StringBuilder();
    StringBuilder released = new StringBuilder();
    int id = 0;
    while (m.find()) {
      for (int i = 0; i < Integer.parseInt(m.group(5)); i++) {
        id++;
        String container = "container_1700000000000_0001_01_" + String.format(Locale.ROOT, "%06d", id);
        allocated.append(allocated.length() == 0 ? "" : ",")
            .append("{\"type\":\"container_allocated\",\"container\":\"").append(container)
            .append("\",\"app\":\"").append(m.group(1)).append("\",\"node\":\"").append(m.group(3))
            .append("\",\"priority\":").append(m.group(2)).append(",\"resource\":").append(m.group(6))
            .append(",\"locality\":\"").append(m.group(4)).append("\"}");
        released.append(",{\"type\":\"container_released\",\"app\":\"").append(m.group(1))
            .append("\",\"container\":\"").append(container).append("\",\"node\":\"")
            .append(m.group(3)).append("\",\"resource\":").append(m.group(6)).append('}');
      }
    }
    if (id == 0) {
      throw new IllegalStateException("no decision found in " + response);
    }
    return "[" + allocated + released + "]";
  }

  interface Case {
    String run();
  }

  /** Mean ns/op of each timed round; only the measured call is inside the clock. */
  private static double[] measure(Case op, Runnable reset, int iterations, int warmup,
      int rounds) {
    double[] perRound = new double[rounds];
    long sink = 0;
    for (int r = -warmup; r < rounds; r++) {
      long total = 0;
      if (reset == null) {
        long t0 = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
          sink += op.run().length();
        }
        total = System.nanoTime() - t0;
      } else {
        for (int i = 0; i < iterations; i++) {
          long t0 = System.nanoTime();
          sink += op.run().length();
          total += System.nanoTime() - t0;
          reset.run();
        }
      }
      if (r >= 0) {
        perRound[r] = (double) total / iterations;
      }
    }
    if (sink == 42) {
      System.out.print("");
    }
    return perRound;
  }

  private static void report(String name, double[] perRound) {
    double[] sorted = perRound.clone();
    Arrays.sort(sorted);
    double mean = Arrays.stream(perRound).average().orElse(Double.NaN);
    double var = Arrays.stream(perRound).map(x -> (x - mean) * (x - mean)).sum()
        / Math.max(1, perRound.length - 1);
    StringBuilder rounds = new StringBuilder();
    for (double d : perRound) {
      rounds.append(String.format(Locale.ROOT, " %.0f", d));
    }
    System.out.printf(Locale.ROOT,
        "%-28s median %8.0f ns/op  mean %8.0f  stddev %6.0f  min %8.0f  max %8.0f  rounds:%s%n",
        name, sorted[sorted.length / 2], mean, Math.sqrt(var), sorted[0],
        sorted[sorted.length - 1], rounds);
  }

  /** Prints and checks how many decisions / containers a heartbeat answer holds. */
  private static boolean checkContainers(String label, String response, int decisions,
      int containers) {
    int d = 0;
    int c = 0;
    Matcher m = Pattern.compile("\"count\":(\\d+)").matcher(response);
    while (m.find()) {
      d++;
      c += Integer.parseInt(m.group(1));
    }
    boolean ok = d == decisions && c == containers;
    if (!ok) {
      System.out.printf(Locale.ROOT, "  %s: expected %d decisions / %d containers, got %d / %d: %s%n",
          label, decisions, containers, d, c, response);
    }
    return ok;
  }

  private static String nodeAdded() {
    return "{\"type\":\"node_added\",\"node\":\"" + NODE + "\",\"host\":\"bench-h1\","
        + "\"rack\":\"/rack1\",\"capability\":{\"memory_mb\":10240,\"vcores\":10}}";
  }

  private static String appAdded() {
    return "{\"type\":\"app_added\",\"app\":\"" + APP + "\",\"queue\":\"default\","
        + "\"user\":\"bench\",\"name\":\"bench\",\"app_type\":\"YARN\",\"submit_ms\":1}";
  }

  private static String attemptAdded() {
    return "{\"type\":\"attempt_added\",\"app\":\"" + APP + "\",\"attempt\":\""
        + APP.replace("application_", "appattempt_") + "_000001\"}";
  }

  /** Ten asks at distinct priorities, one container each, so the answer holds 10 decisions. */
  private static String asksUpdated() {
    StringBuilder asks = new StringBuilder();
    for (int p = 1; p <= DECISIONS; p++) {
      if (p > 1) {
        asks.append(',');
      }
      asks.append("{\"priority\":").append(p).append(",\"allocation_request_id\":0,")
          .append("\"resource_name\":\"*\",\"capability\":{\"memory_mb\":1024,\"vcores\":1},")
          .append("\"count\":1,\"relax_locality\":true}");
    }
    return "{\"type\":\"asks_updated\",\"app\":\"" + APP + "\",\"asks\":[" + asks + "]}";
  }

  private static String heartbeat() {
    return "{\"node\":\"" + NODE + "\",\"unallocated\":{\"memory_mb\":10240,\"vcores\":10},"
        + "\"now_ms\":1000}";
  }
}
