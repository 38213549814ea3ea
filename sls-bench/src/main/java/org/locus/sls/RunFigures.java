package org.locus.sls;

import com.codahale.metrics.Snapshot;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SlsTimers;

/**
 * The figures SLS itself does not keep, gathered identically for every scheduler under test:
 * containers handed to AMs (throughput), ask-to-allocation latency, and the RM process's heap
 * and native memory. Written as one JSON object when SLS exits (it ends with System.exit once
 * the last application finishes), together with SLS's own NODE_UPDATE and allocate() timers.
 *
 * <p>Latency: SLS's MRAMSimulator sends each phase's asks once, as absolute counts per priority
 * (the YARN contract), so the {@code *} row's count per (attempt, priority) says how many
 * containers are outstanding since when. A rising count adds that many ask times, a falling one
 * (the AM withdrew asks) drops the newest; each container the scheduler allocated takes the
 * oldest ask time of its priority, and its latency ends at the RMContainer's creation (the
 * moment the scheduler decided), not when the AM next heartbeats to collect it. Asks whose first
 * call named no host or rack (reduces, executors without preferences) are also counted apart:
 * they have no locality to wait for.
 *
 * <p>Load: every 2 s, how much of the cluster's memory the scheduler's nodes hold allocated and
 * how many container asks the AMs have outstanding (the same {@code *} counts), into
 * {@code load.csv} beside the figures: whether the trace kept the cluster full, i.e. whether
 * containers per second measured the scheduler or only the trace's arrival rate.
 */
public final class RunFigures {
  private static final RunFigures INSTANCE = new RunFigures();
  /** -Dlocus.sls.figures=FILE: where the JSON goes; without it nothing is written. */
  static final String FIGURES_FILE = "locus.sls.figures";

  private final Map<String, ArrayDeque<Long>> outstanding = new ConcurrentHashMap<>();
  private final AtomicLong allocated = new AtomicLong();
  private final AtomicLong latencySumMs = new AtomicLong();
  private final AtomicLong latencyCount = new AtomicLong();
  /** Whether each (attempt, priority) named hosts or racks when its asks first came. */
  private final Map<String, Boolean> located = new ConcurrentHashMap<>();
  private final AtomicLong anywhereSumMs = new AtomicLong();
  private final AtomicLong anywhereCount = new AtomicLong();
  private volatile long firstAllocationMs = -1;
  private volatile long lastAllocationMs = -1;

  private volatile long peakHeapUsed;
  private volatile long peakRss;
  private volatile long peakNative;
  private volatile long firstNative = -1;
  private volatile long lastNative;
  private volatile String scheduler = "?";
  private volatile SchedulerMetrics slsMetrics;
  /** The scheduler's root queue metrics: containers by locality (the RM's own counters). */
  private volatile Supplier<QueueMetrics> rootMetrics;
  /** The scheduler's nodes (its node tracker): allocated and total memory, for the load. */
  private volatile Supplier<? extends Collection<? extends SchedulerNode>> nodes;
  /** One row per load sample; at most MAX_LOAD_ROWS (over 55 hours at one per 2 s). */
  private final List<String> loadRows = new ArrayList<>();
  private static final int MAX_LOAD_ROWS = 100_000;
  private long loadSamples;
  private long fullSamples;
  private long waitingSamples;
  private long peakWaiting;
  private long startedMs;
  private boolean started;

  private static final Pattern NMT_TOTAL =
      Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB");

  private RunFigures() {
  }

  public static RunFigures get() {
    return INSTANCE;
  }

  /** Called once from the wrapper's setConf: starts the memory sampler and the exit hook. */
  public synchronized void start(String schedulerName, SchedulerMetrics metrics,
      Supplier<QueueMetrics> root, Supplier<? extends Collection<? extends SchedulerNode>> nodes) {
    this.rootMetrics = root;
    this.nodes = nodes;
    // -Dlocus.sls.label names the configuration (capacity-default, capacity-sync, locus-default).
    this.scheduler = System.getProperty("locus.sls.label", schedulerName);
    this.slsMetrics = metrics;
    if (started) {
      return;
    }
    started = true;
    startedMs = System.currentTimeMillis();
    Thread sampler = new Thread(() -> {
      while (true) {
        sampleMemory();
        sampleLoad();
        try {
          Thread.sleep(2000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "locus-sls-memory-sampler");
    sampler.setDaemon(true);
    sampler.start();
    String out = System.getProperty(FIGURES_FILE);
    if (out != null) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> write(Paths.get(out)),
          "locus-sls-figures"));
    }
  }

  /** Before the scheduler sees the call: the asks' arrival times. */
  public void asked(ApplicationAttemptId attempt, List<ResourceRequest> asks) {
    if (asks == null || asks.isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    java.util.Set<Integer> named = new java.util.HashSet<>();
    for (ResourceRequest r : asks) {
      if (!ResourceRequest.ANY.equals(r.getResourceName()) && r.getNumContainers() > 0) {
        named.add(r.getPriority().getPriority());
      }
    }
    for (ResourceRequest r : asks) {
      if (!ResourceRequest.ANY.equals(r.getResourceName())) {
        continue;
      }
      String key = key(attempt, r.getPriority().getPriority());
      if (r.getNumContainers() > 0) {
        // Classified once, from the call that first asked: later calls carry only changed rows.
        located.putIfAbsent(key, named.contains(r.getPriority().getPriority()));
      }
      ArrayDeque<Long> times = outstanding.computeIfAbsent(key, k -> new ArrayDeque<>());
      synchronized (times) {
        int want = Math.max(0, r.getNumContainers());
        while (times.size() < want) {
          times.addLast(now);
        }
        while (times.size() > want) {
          times.removeLast();
        }
      }
    }
  }

  /** After the scheduler answered: the containers the AM now holds. */
  public void allocated(ApplicationAttemptId attempt, Allocation allocation,
      Function<Container, RMContainer> lookup) {
    if (allocation == null || allocation.getContainers() == null
        || allocation.getContainers().isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    for (Container c : allocation.getContainers()) {
      RMContainer rmc = lookup.apply(c);
      long decided = rmc != null && rmc.getCreationTime() > 0 ? rmc.getCreationTime() : now;
      String key = key(attempt, c.getPriority().getPriority());
      ArrayDeque<Long> times = outstanding.get(key);
      Long askedAt = null;
      if (times != null) {
        synchronized (times) {
          askedAt = times.pollFirst();
        }
      }
      if (askedAt != null) {
        latencySumMs.addAndGet(Math.max(0, decided - askedAt));
        latencyCount.incrementAndGet();
        if (Boolean.FALSE.equals(located.get(key))) {
          anywhereSumMs.addAndGet(Math.max(0, decided - askedAt));
          anywhereCount.incrementAndGet();
        }
      }
      allocated.incrementAndGet();
      synchronized (this) {
        if (firstAllocationMs < 0 || decided < firstAllocationMs) {
          firstAllocationMs = decided;
        }
        if (decided > lastAllocationMs) {
          lastAllocationMs = decided;
        }
      }
    }
  }

  public void attemptRemoved(ApplicationAttemptId attempt) {
    String prefix = attempt.toString() + "/";
    outstanding.keySet().removeIf(k -> k.startsWith(prefix));
  }

  private static String key(ApplicationAttemptId attempt, int priority) {
    return attempt.toString() + "/" + priority;
  }

  private void sampleMemory() {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    long rss = rssBytes();
    long jvm = nmtCommittedBytes();
    peakHeapUsed = Math.max(peakHeapUsed, heap.getUsed());
    if (rss > 0 && jvm > 0) {
      // What the process holds beyond everything the JVM accounts for (Native Memory Tracking:
      // heap, metaspace, threads, code cache, GC, ...): malloc outside the JVM, i.e. under
      // Locus the Rust core. Run with -Xms = -Xmx and AlwaysPreTouch, so the heap NMT counts as
      // committed is resident too.
      long nativeBytes = Math.max(0, rss - jvm);
      peakRss = Math.max(peakRss, rss);
      peakNative = Math.max(peakNative, nativeBytes);
      if (firstNative < 0 && allocated.get() > 0) {
        firstNative = nativeBytes;
      }
      lastNative = nativeBytes;
    }
  }

  /**
   * Allocated against total memory over the scheduler's nodes, and the container asks the AMs
   * have outstanding; counted from the first allocation on (before it the cluster is empty by
   * construction and the RM is still starting).
   */
  private void sampleLoad() {
    Supplier<? extends Collection<? extends SchedulerNode>> source = nodes;
    if (source == null || allocated.get() == 0) {
      return;
    }
    long usedMb = 0;
    long totalMb = 0;
    try {
      for (SchedulerNode n : source.get()) {
        usedMb += n.getAllocatedResource().getMemorySize();
        totalMb += n.getTotalResource().getMemorySize();
      }
    } catch (RuntimeException e) {
      return;
    }
    long waiting = 0;
    for (ArrayDeque<Long> times : outstanding.values()) {
      synchronized (times) {
        waiting += times.size();
      }
    }
    synchronized (this) {
      loadSamples++;
      if (totalMb > 0 && usedMb * 10 >= totalMb * 9) {
        fullSamples++;
      }
      if (waiting > 0) {
        waitingSamples++;
      }
      peakWaiting = Math.max(peakWaiting, waiting);
      if (loadRows.size() < MAX_LOAD_ROWS) {
        loadRows.add(String.format(Locale.ROOT, "%.1f,%d,%d,%d",
            (System.currentTimeMillis() - startedMs) / 1000.0, usedMb, totalMb, waiting));
      }
    }
  }

  /** NMT's "Total: ... committed=NKB", read in-process through the DiagnosticCommand MBean. */
  private static long nmtCommittedBytes() {
    try {
      Object out = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
          new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
      Matcher m = NMT_TOTAL.matcher(String.valueOf(out));
      return m.find() ? Long.parseLong(m.group(1)) * 1024L : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  private static long rssBytes() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] f = line.trim().split("\\s+");
          return Long.parseLong(f[1]) * 1024L;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private synchronized void write(Path out) {
    sampleMemory();
    StringBuilder j = new StringBuilder("{");
    field(j, "scheduler", "\"" + scheduler + "\"");
    field(j, "containers_allocated", Long.toString(allocated.get()));
    field(j, "first_allocation_ms", Long.toString(firstAllocationMs));
    field(j, "last_allocation_ms", Long.toString(lastAllocationMs));
    field(j, "latency_count", Long.toString(latencyCount.get()));
    field(j, "latency_mean_ms", num(latencyCount.get() == 0 ? 0
        : (double) latencySumMs.get() / latencyCount.get()));
    field(j, "latency_anywhere_count", Long.toString(anywhereCount.get()));
    field(j, "latency_anywhere_mean_ms", num(anywhereCount.get() == 0 ? 0
        : (double) anywhereSumMs.get() / anywhereCount.get()));
    field(j, "peak_heap_used_bytes", Long.toString(peakHeapUsed));
    field(j, "peak_rss_bytes", Long.toString(peakRss));
    field(j, "peak_native_bytes", Long.toString(peakNative));
    field(j, "first_native_bytes", Long.toString(firstNative));
    field(j, "last_native_bytes", Long.toString(lastNative));
    QueueMetrics q = rootMetrics == null ? null : rootMetrics.get();
    if (q != null) {
      // AppSchedulingInfo counts every container it allocates by locality, under either
      // scheduler: how much locality a scheduling mode gives up is read here.
      field(j, "node_local", Long.toString(q.getAggregateNodeLocalContainersAllocated()));
      field(j, "rack_local", Long.toString(q.getAggregateRackLocalContainersAllocated()));
      field(j, "off_switch", Long.toString(q.getAggregateOffSwitchContainersAllocated()));
      field(j, "preempted_containers", Long.toString(q.getAggregatePreemptedContainers()));
    }
    // Load samples are 2 s apart (the sampler's period).
    field(j, "load_samples", Long.toString(loadSamples));
    field(j, "full_s", Long.toString(2 * fullSamples));
    field(j, "waiting_s", Long.toString(2 * waitingSamples));
    field(j, "peak_waiting", Long.toString(peakWaiting));
    SchedulerMetrics m = slsMetrics;
    if (m != null) {
      timer(j, "node_update", SlsTimers.nodeUpdate(m), SlsTimers.nodeUpdateCount(m));
      timer(j, "allocate", SlsTimers.allocate(m), SlsTimers.allocateCount(m));
    }
    j.setLength(j.length() - 1);
    j.append("}\n");
    try {
      Files.write(out, j.toString().getBytes(StandardCharsets.UTF_8));
      Path load = out.resolveSibling("load.csv");
      StringBuilder csv = new StringBuilder(
          "elapsed_s,allocated_mb,cluster_mb,outstanding_container_asks\n");
      for (String row : loadRows) {
        csv.append(row).append('\n');
      }
      Files.write(load, csv.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      System.err.println("locus-sls: cannot write " + out + ": " + e);
    }
  }

  private static void timer(StringBuilder j, String name, Snapshot s, long count) {
    // SLS's timers keep nanoseconds in a sliding window (yarn.sls.metrics.timer.window.size).
    field(j, name + "_count", Long.toString(count));
    field(j, name + "_window", Integer.toString(s.size()));
    field(j, name + "_median_us", num(s.getMedian() / 1000.0));
    field(j, name + "_p99_us", num(s.get99thPercentile() / 1000.0));
    field(j, name + "_mean_us", num(s.getMean() / 1000.0));
  }

  private static void field(StringBuilder j, String k, String v) {
    j.append('"').append(k).append("\":").append(v).append(',');
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
