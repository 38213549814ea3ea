package org.locus.yarn.bench;

import java.util.Arrays;
import java.util.Locale;

import org.locus.yarn.LocusCore;
import org.locus.yarn.LocusNative;

/**
 * Round-trip cost of the shim's calls into the core: {@code stats()} as the JNI baseline, then
 * {@link org.locus.yarn.FramesBench} (one node offered in an offers frame with 0 and with 10
 * decisions in the answer, the 10 reported back in an events frame). Plain loop: warm-up
 * rounds, then timed rounds; prints the figures per round and the spread. Run with
 * {@code gradle jniBench}.
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
      // The offers, decisions and events frames of one decided batch.
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

  private static void roundTrips(int iterations, int rounds, int warmup, int logLevel)
      throws Exception {
    System.out.printf(Locale.ROOT, "JNI round trips: %d warm-up + %d timed rounds x %d ops,"
        + " Rust log level %d, %s %s%n", warmup, rounds, iterations, logLevel,
        System.getProperty("java.vm.name"), System.getProperty("java.version"));
    try (LocusCore idle = LocusCore.open("{}")) {
      LocusNative.initLogging(logLevel);
      report("stats() (JNI baseline)", measure(idle::stats, null, iterations, warmup, rounds));
    }
    org.locus.yarn.FramesBench.run(iterations, warmup, rounds);
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
}
