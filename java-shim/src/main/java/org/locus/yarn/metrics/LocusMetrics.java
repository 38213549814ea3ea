package org.locus.yarn.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableRate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locus's figures as a Hadoop metrics2 source, so they reach JMX
 * ({@code Hadoop:service=ResourceManager,name=LocusScheduler}) and every configured sink beside
 * the RM's own QueueMetrics. The counters are the core's (read at snapshot time, so they cannot
 * drift from what the core decided); the timings are measured by the shim around the calls an
 * operator waits on: a node heartbeat and an AM's allocate().
 */
public final class LocusMetrics implements MetricsSource {
  public static final String SOURCE_NAME = "LocusScheduler";
  private static final Logger LOG = LoggerFactory.getLogger(LocusMetrics.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Percentile window: one minute, as the RM's own RPC quantiles are usually configured. */
  private static final int QUANTILE_INTERVAL_SECONDS = 60;

  /** Core counters exported as-is: JSON field in the core's stats, metric name, description. */
  private static final String[][] CORE_COUNTERS = {
      {"heartbeats", "Heartbeats", "Node heartbeats the core handled"},
      {"decisions", "Decisions", "Placement decisions the core emitted"},
      {"allocations", "Allocations", "Containers created from core decisions"},
      {"node_local", "NodeLocalAllocations", "Allocations on a node the ask named"},
      {"rack_local", "RackLocalAllocations", "Allocations on a rack the ask named"},
      {"off_switch", "OffSwitchAllocations", "Allocations anywhere else"},
      {"rejected", "Rejections", "Decisions the shim could not carry out"},
      {"core_rebuilds", "CoreRebuilds", "Times the shim rebuilt a failed core"},
      {"lost_decisions", "LostDecisions", "Decisions neither confirmed nor rejected in time"},
  };
  private static final String[][] CORE_GAUGES = {
      {"in_flight", "InFlightDecisions", "Decisions not yet confirmed or rejected"},
      {"pending_containers", "PendingContainers", "Containers asked for and not yet placed"},
      {"running_containers", "RunningContainers", "Containers the core counts as running"},
  };

  private final MetricsRegistry registry = new MetricsRegistry(SOURCE_NAME);
  // The hot paths only touch lock-free counters (Timing, LatencyHistogram): the rates and the
  // percentiles are filled in at the metrics system's snapshot, off the dispatcher and the IPC
  // threads (a MutableRate and a MutableQuantiles per call took a lock each and cost about
  // 300 ns of every NODE_UPDATE).
  private final MutableRate heartbeat =
      registry.newRate("HeartbeatTime",
          "Time the RM's dispatcher spent handing one node heartbeat to Locus (us)");
  private final MutableRate allocate =
      registry.newRate("AllocateTime", "Time one AM allocate() call spent in the scheduler (us)");
  // Counted where the shim carries preemption out, whichever monitor chose the containers.
  private final MutableCounterLong markedForPreemption = registry.newCounter(
      "ContainersMarkedForPreemption",
      "Containers whose application was told they will be taken back (PreemptionMessage)", 0L);
  private final MutableCounterLong preempted = registry.newCounter("ContainersPreempted",
      "Containers killed with a preempted exit status", 0L);
  private final Timing heartbeatTotals = new Timing();
  private final Timing allocateTotals = new Timing();
  private final Window heartbeatWindow = new Window("HeartbeatTimeUs", "Heartbeat time",
      heartbeatTotals);
  private final Window allocateWindow = new Window("AllocateTimeUs", "allocate() time",
      allocateTotals);
  private static final MetricsInfo QUEUED_HEARTBEATS = Interns.info("QueuedHeartbeats",
      "Node heartbeats queued for the RM's bookkeeping on locus-scheduler");
  private static final MetricsInfo OLDEST_QUEUED_HEARTBEAT = Interns.info(
      "OldestQueuedHeartbeatAgeMs", "How long the oldest queued node heartbeat has waited (ms)");
  private final Supplier<String> coreStats;
  private final IntSupplier queuedHeartbeats;
  private final LongSupplier oldestQueuedHeartbeatAgeMs;
  private volatile String registeredAs;

  /**
   * @param coreStats the core's counters as JSON ({@code LocusScheduler.getCoreStatsJson})
   * @param queuedHeartbeats heartbeats NODE_UPDATE queued and locus-scheduler has not booked
   * @param oldestQueuedHeartbeatAgeMs how long the oldest of them has waited, ms (0 if none)
   */
  public LocusMetrics(Supplier<String> coreStats, IntSupplier queuedHeartbeats,
      LongSupplier oldestQueuedHeartbeatAgeMs) {
    this.coreStats = coreStats;
    this.queuedHeartbeats = queuedHeartbeats;
    this.oldestQueuedHeartbeatAgeMs = oldestQueuedHeartbeatAgeMs;
  }

  /** Heartbeats waiting for their bookkeeping on locus-scheduler now. */
  public int queuedHeartbeats() {
    return queuedHeartbeats.getAsInt();
  }

  /** How long the oldest queued heartbeat has waited, ms; 0 if none waits. */
  public long oldestQueuedHeartbeatAgeMs() {
    return oldestQueuedHeartbeatAgeMs.getAsLong();
  }

  /** Registers under the RM's metrics system; replaces a source left by an earlier RM in this JVM. */
  public synchronized void register() {
    MetricsSystem ms = DefaultMetricsSystem.instance();
    ms.unregisterSource(SOURCE_NAME);
    ms.register(SOURCE_NAME, "Locus scheduler: core counters and timings", this);
    registeredAs = SOURCE_NAME;
  }

  public synchronized void unregister() {
    if (registeredAs != null) {
      DefaultMetricsSystem.instance().unregisterSource(registeredAs);
      registeredAs = null;
    }
  }

  /** A container newly marked for preemption; its application hears of it next allocate(). */
  public void containerMarkedForPreemption() {
    markedForPreemption.incr();
  }

  /** A container killed with a preempted status. */
  public void containerPreempted() {
    preempted.incr();
  }

  /** On the dispatcher, for every NODE_UPDATE: lock-free. */
  public void heartbeatHandled(long nanos) {
    long micros = nanos / 1000;
    heartbeatTotals.add(micros);
    heartbeatWindow.histogram.add(micros);
  }

  /** On an IPC thread, for every allocate(): lock-free. */
  public void allocateHandled(long nanos) {
    long micros = nanos / 1000;
    allocateTotals.add(micros);
    allocateWindow.histogram.add(micros);
  }

  /**
   * One timing's percentiles over a window of at least {@link #QUANTILE_INTERVAL_SECONDS},
   * closed at the first snapshot after it, exported under the names MutableQuantiles used
   * ({@code <name>NumOps}, {@code <name>50thPercentileLatencyMicros}, ...), and its rate's
   * samples since the last snapshot.
   */
  private static final class Window {
    final LatencyHistogram histogram = new LatencyHistogram();
    private final Timing totals;
    private final MetricsInfo ops;
    private final MetricsInfo[] percentiles = new MetricsInfo[LatencyHistogram.PERCENTILES.length];
    // Guarded by the heartbeat window's monitor (getMetrics).
    private long rolledAtMs = System.currentTimeMillis();
    private long countAtSnapshot;
    private long sumAtSnapshot;

    Window(String name, String what, Timing totals) {
      this.totals = totals;
      this.ops = Interns.info(name + "NumOps", "Number of ops for interval");
      for (int i = 0; i < percentiles.length; i++) {
        int p = (int) LatencyHistogram.PERCENTILES[i];
        percentiles[i] = Interns.info(name + p + "thPercentileLatencyMicros",
            "The " + p + "th percentile of " + what + " in microseconds");
      }
    }

    void snapshot(MutableRate rate, MetricsRecordBuilder rb, long nowMs) {
      long count = totals.count();
      long sum = totals.sumMicros.sum();
      if (count > countAtSnapshot) {
        rate.add(count - countAtSnapshot, sum - sumAtSnapshot);
      }
      countAtSnapshot = count;
      sumAtSnapshot = sum;
      if (nowMs - rolledAtMs >= QUANTILE_INTERVAL_SECONDS * 1000L) {
        histogram.roll();
        rolledAtMs = nowMs;
      }
      rb.addGauge(ops, histogram.windowOps());
      long[] values = histogram.windowPercentiles();
      for (int i = 0; i < percentiles.length; i++) {
        rb.addGauge(percentiles[i], values[i]);
      }
    }
  }

  /** Scheduler time per node heartbeat since start (the windowed percentiles are in JMX). */
  public Timing heartbeatTotals() {
    return heartbeatTotals;
  }

  /** Scheduler time per AM allocate() since start. */
  public Timing allocateTotals() {
    return allocateTotals;
  }

  /**
   * Count, mean and maximum of one timing since the scheduler started: what the scheduler page
   * and REST show. metrics2's MutableRate only keeps the last snapshot interval, which a page
   * cannot read without resetting it for the configured sinks.
   */
  public static final class Timing {
    private final LongAdder count = new LongAdder();
    private final LongAdder sumMicros = new LongAdder();
    private final LongAccumulator maxMicros = new LongAccumulator(Math::max, 0);

    void add(long micros) {
      count.increment();
      sumMicros.add(micros);
      maxMicros.accumulate(micros);
    }

    public long count() {
      return count.sum();
    }

    /** Mean in microseconds; 0 before the first sample. */
    public double meanMicros() {
      long n = count.sum();
      return n == 0 ? 0.0 : (double) sumMicros.sum() / n;
    }

    public long maxMicros() {
      return maxMicros.get();
    }
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder rb = collector.addRecord(registry.info()).setContext("yarn");
    JsonNode stats = readCoreStats();
    if (stats != null) {
      rb.tag(Interns.info("Policy", "Locus scheduling policy and layers"), describePolicy(stats));
      for (String[] c : CORE_COUNTERS) {
        rb.addCounter(info(c), stats.path(c[0]).asLong(0));
      }
      for (String[] g : CORE_GAUGES) {
        rb.addGauge(info(g), stats.path(g[0]).asLong(0));
      }
    }
    // The shim's own, so a core being rebuilt does not hide a backed-up queue.
    rb.addGauge(QUEUED_HEARTBEATS, queuedHeartbeats());
    rb.addGauge(OLDEST_QUEUED_HEARTBEAT, oldestQueuedHeartbeatAgeMs());
    // Not this object's monitor: register() holds it while calling into the metrics system,
    // which holds its own lock while it calls here.
    synchronized (heartbeatWindow) {
      long now = System.currentTimeMillis();
      heartbeatWindow.snapshot(heartbeat, rb, now);
      allocateWindow.snapshot(allocate, rb, now);
      registry.snapshot(rb, all);
    }
  }

  /** A snapshot must never fail the RM's metrics system: a core being rebuilt yields no counters. */
  private JsonNode readCoreStats() {
    try {
      return JSON.readTree(coreStats.get());
    } catch (Exception | LinkageError e) {
      LOG.debug("Locus core stats unavailable for metrics: {}", e.toString());
      return null;
    }
  }

  /** "policy (locality=..., hotspot=..., slots=...)", naming only the layers that are on. */
  public static String describePolicy(JsonNode stats) {
    StringBuilder sb = new StringBuilder(stats.path("policy").asText("unknown"));
    String sep = " (";
    for (String layer : new String[] {"locality", "hotspot", "slots"}) {
      String v = stats.path(layer).asText("");
      if (!v.isEmpty() && !"none".equals(v) && !"off".equals(v)) {
        sb.append(sep).append(layer).append('=').append(v);
        sep = ", ";
      }
    }
    return sep.equals(", ") ? sb.append(')').toString() : sb.toString();
  }

  private static MetricsInfo info(String[] row) {
    return Interns.info(row[1], row[2]);
  }
}
