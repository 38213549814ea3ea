package org.locus.yarn.bench;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.locus.yarn.AsksFrame;
import org.locus.yarn.BenchAccess;
import org.locus.yarn.LocusCore;
import org.locus.yarn.LocusScheduler;

/**
 * The whole path through the shim, from the RM's own objects to executed decisions: a MockRM
 * running LocusScheduler, driven the way the RM drives it (the scheduler's {@code allocate}
 * with ResourceRequest lists, {@code NODE_UPDATE} events for a FiCaSchedulerNode). Timed:
 * <ul>
 *   <li>allocate() carrying a change of all 5,000 host rows of a MapReduce job (plus rack and
 *       {@code *}): normalisation, the RM's own ask bookkeeping, building the core's message,
 *       JNI, the core applying it;</li>
 *   <li>allocate() changing 3 rows of that 5,000-row table (what a MapReduce AM sends after
 *       each container);</li>
 *   <li>one NODE_UPDATE that places one container of that job: the heartbeat message, JNI, the
 *       core's decision, executing it in the RM (RMContainer, node and app bookkeeping) and
 *       telling the core.</li>
 * </ul>
 * Between timed calls the container is released and the asks restored, untimed. Two figures
 * split the 5,000-row change: the bridge alone (frame, JNI, core; no RM) and the RM's own ask
 * bookkeeping alone.
 */
final class RmPathBench {
  private static final int GB = 1024;
  private static final int HOSTS = 5_000;

  private RmPathBench() {
  }

  static void run(int iterations, int warmup, int rounds) throws Exception {
    bridgeOnly(iterations, warmup, rounds);
    NetUtils.addStaticResolution("h1", "127.0.0.1");
    File state = Files.createTempDirectory("locus-bench-rm-").toFile();
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, LocusScheduler.class, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        new File(state, "node-attribute").toURI().toString());
    MockRM rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
    rm.start();
    try {
      // Room for the AM and exactly one map: each NODE_UPDATE places one container.
      MockNM nm = rm.registerNode("h1:1234", 2 * GB, 2);
      RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
      MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
      GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
      LocusScheduler scheduler = (LocusScheduler) rm.getResourceScheduler();
      ApplicationAttemptId attempt = am.getApplicationAttemptId();
      RMNode node = rm.getRMContext().getRMNodes().get(nm.getNodeId());

      List<ResourceRequest> one = maps(1);
      List<ResourceRequest> two = maps(2);
      allocate(scheduler, attempt, copy(one), Collections.emptyList());
      // The RM keeps (and later decrements) the AM's ResourceRequest objects, and over RPC
      // every call brings new ones: each call gets fresh copies, made outside the clock.
      int[] flip = {0};
      List<List<ResourceRequest>> next = new ArrayList<>(Collections.singletonList(null));
      report("allocate, 5,000-row change", measure(
          () -> next.set(0, copy((flip[0]++ & 1) == 0 ? two : one)),
          () -> allocate(scheduler, attempt, next.get(0), Collections.emptyList()),
          () -> BenchAccess.awaitSchedulingIdle(scheduler), iterations, warmup, rounds));
      // End to end: the AM's call plus the scheduling thread sending the changed rows (frame,
      // JNI, the core applying them), until the core holds the RM's view.
      report("  + until the core has it", measure(
          () -> next.set(0, copy((flip[0]++ & 1) == 0 ? two : one)),
          () -> {
            allocate(scheduler, attempt, next.get(0), Collections.emptyList());
            BenchAccess.awaitSchedulingIdle(scheduler);
          }, null, iterations, warmup, rounds));
      allocate(scheduler, attempt, copy(one), Collections.emptyList());
      rm.drainEvents();

      List<ResourceRequest> threeA = three(HOSTS - 1, 0);
      List<ResourceRequest> threeB = three(HOSTS, 1);
      report("allocate, 3 of 5,000 rows", measure(
          () -> next.set(0, copy((flip[0]++ & 1) == 0 ? threeA : threeB)),
          () -> allocate(scheduler, attempt, next.get(0), Collections.emptyList()),
          null, iterations, warmup, rounds));
      allocate(scheduler, attempt, copy(one), Collections.emptyList());
      rm.drainEvents();

      // The map on h1 is placed, then released with its asks restored (untimed).
      List<ResourceRequest> restore = three(HOSTS, 1);
      Runnable reset = () -> {
        Allocation got = allocate(scheduler, attempt, Collections.emptyList(),
            Collections.emptyList());
        List<ContainerId> ids = new ArrayList<>();
        for (Container c : got.getContainers()) {
          ids.add(c.getId());
        }
        if (ids.size() != 1) {
          throw new IllegalStateException("expected one container per NODE_UPDATE, got " + ids);
        }
        allocate(scheduler, attempt, copy(restore), ids);
        rm.drainEvents();
      };
      // The dispatcher's share (the RM's bookkeeping of the heartbeat, the hand-over), then the
      // whole way to the executed decision on Locus's scheduling thread.
      Runnable settledReset = () -> {
        BenchAccess.awaitSchedulingIdle(scheduler);
        reset.run();
      };
      try {
        report("NODE_UPDATE (dispatcher)", measure(null,
            () -> scheduler.handle(new NodeUpdateSchedulerEvent(node)), settledReset,
            iterations, warmup, rounds));
        // The scheduling thread's own CPU and garbage per placed container (offers frame, JNI,
        // the core's decision, reading it, executing it, telling the core): the part of the
        // path this thread's clocks above cannot see. The reset waits for the scheduling thread
        // after restoring the asks, so their sending stays out of the window.
        long schedulingThread = schedulingThreadId();
        Runnable settledBothWays = () -> {
          settledReset.run();
          BenchAccess.awaitSchedulingIdle(scheduler);
        };
        double[][] placed = measure(null, () -> {
          scheduler.handle(new NodeUpdateSchedulerEvent(node));
          BenchAccess.awaitSchedulingIdle(scheduler);
        }, settledBothWays, iterations, warmup, rounds, schedulingThread);
        report("NODE_UPDATE to 1 placed", placed);
        reportOther("  on locus-scheduler", placed);
      } catch (IllegalStateException e) {
        // Seen on main at a8e5945 (not caused by the ask path): said, and the ask figures
        // below are still taken.
        System.out.println("NODE_UPDATE figures not taken: " + e.getMessage());
        allocate(scheduler, attempt, copy(one), Collections.emptyList());
        rm.drainEvents();
      }
      System.out.println("  core stats after the run: " + scheduler.getCoreStatsJson());

      // Locus's own part of the 5,000-row change, on this thread: noting the rows the AM set,
      // then what the scheduling thread does with them (each row as the RM now holds it, the
      // frame, JNI, the core decoding and applying it). The RM's asks already hold the rows.
      FiCaSchedulerApp locusAttempt = scheduler.getApplicationAttempt(attempt);
      BenchAccess.awaitSchedulingIdle(scheduler);
      report("  Locus's part (note+send)", measure(
          () -> {
            next.set(0, copy((flip[0]++ & 1) == 0 ? two : one));
            rmAttemptUpdate(scheduler, attempt, next.get(0));
          },
          () -> BenchAccess.noteAndSendAsks(scheduler, locusAttempt, next.get(0)), null,
          iterations, warmup, rounds));
      System.out.printf(Locale.ROOT, "    CPU per send: taking the frame %.1f us, JNI+core %.1f us%n",
          BenchAccess.SEND_SPLIT[0] / 1000.0 / BenchAccess.SEND_SPLIT[2],
          BenchAccess.SEND_SPLIT[1] / 1000.0 / BenchAccess.SEND_SPLIT[2]);
      report("    of which noting the rows", measure(
          () -> {
            next.set(0, copy((flip[0]++ & 1) == 0 ? two : one));
            rmAttemptUpdate(scheduler, attempt, next.get(0));
          },
          () -> BenchAccess.noteAsks(locusAttempt, next.get(0)),
          () -> BenchAccess.sendNotedAsks(scheduler, locusAttempt), iterations, warmup,
          rounds));

      // Locus's part again with every host a node the core knows (a real cluster's MapReduce
      // splits), the host rows numbered (the ids the core published) or by name, in turn. The
      // nodes are too small for the 1 GB maps, so no pass places any.
      for (int i = 1; i < HOSTS; i++) {
        scheduler.handle(new NodeAddedSchedulerEvent(MockNodes.newNodeInfo(1,
            Resource.newInstance(GB / 2, 1), i, "node-" + i + ".example")));
      }
      BenchAccess.awaitSchedulingIdle(scheduler);
      System.out.println("  hosts numbered by the link: " + BenchAccess.numberedHosts(scheduler));
      for (int pass = 0; pass < 2; pass++) {
        for (boolean numberedHosts : new boolean[] {false, true}) {
          java.util.Arrays.fill(BenchAccess.SEND_SPLIT, 0L);
          report(numberedHosts ? "  every host a node, numbered" : "  every host a node, by name",
              measure(() -> {
                next.set(0, copy((flip[0]++ & 1) == 0 ? two : one));
                rmAttemptUpdate(scheduler, attempt, next.get(0));
              }, () -> BenchAccess.noteAndSendAsks(scheduler, locusAttempt, next.get(0),
                  numberedHosts), null, iterations, warmup, rounds));
          System.out.printf(Locale.ROOT,
              "    CPU per send: taking the frame %.1f us, JNI+core %.1f us%n",
              BenchAccess.SEND_SPLIT[0] / 1000.0 / BenchAccess.SEND_SPLIT[2],
              BenchAccess.SEND_SPLIT[1] / 1000.0 / BenchAccess.SEND_SPLIT[2]);
        }
      }

      // What of the 5,000-row allocate() is the RM's own ask bookkeeping (not Locus's): the
      // same rows applied to the attempt alone. Last, as the core is not told.
      FiCaSchedulerApp rmAttempt = scheduler.getApplicationAttempt(attempt);
      report("  of which RM bookkeeping", measure(
          () -> next.set(0, copy((flip[0]++ & 1) == 0 ? two : one)),
          () -> rmAttempt.updateResourceRequests(next.get(0)), null, iterations, warmup,
          rounds));
    } finally {
      rm.stop();
    }
    capacityPath(iterations, warmup, rounds);
  }

  /**
   * The same 5,000-row change through CapacityScheduler's allocate() (Hadoop's defaults): what
   * the scheduler Locus replaces pays on the same path, for a fair comparison.
   */
  private static void capacityPath(int iterations, int warmup, int rounds) throws Exception {
    File state = Files.createTempDirectory("locus-bench-cs-").toFile();
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
        ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        new File(state, "node-attribute").toURI().toString());
    MockRM rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
    rm.start();
    try {
      MockNM nm = rm.registerNode("h1:1234", 2 * GB, 2);
      RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
      MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
      GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
      CapacityScheduler cs = (CapacityScheduler) rm.getResourceScheduler();
      ApplicationAttemptId attempt = am.getApplicationAttemptId();
      List<ResourceRequest> one = maps(1);
      List<ResourceRequest> two = maps(2);
      // CapacityScheduler, unlike LocusScheduler, needs every list and the updates present.
      ContainerUpdates none = new ContainerUpdates();
      cs.allocate(attempt, copy(one), Collections.emptyList(), Collections.emptyList(),
          Collections.emptyList(), Collections.emptyList(), none);
      int[] flip = {0};
      List<List<ResourceRequest>> next = new ArrayList<>(Collections.singletonList(null));
      report("CS allocate, 5,000-row change", measure(
          () -> next.set(0, copy((flip[0]++ & 1) == 0 ? two : one)),
          () -> cs.allocate(attempt, next.get(0), Collections.emptyList(),
              Collections.emptyList(), Collections.emptyList(), Collections.emptyList(), none),
          null, iterations, warmup, rounds));
    } finally {
      rm.stop();
    }
  }

  /**
   * The bridge's own share of a 5,000-row change, without the RM: the binary frame written from
   * the ResourceRequests, the JNI call, the core decoding and applying it.
   */
  private static void bridgeOnly(int iterations, int warmup, int rounds) {
    ApplicationId app = ApplicationId.newInstance(1700000000000L, 1);
    try (LocusCore core = LocusCore.open("{}")) {
      core.events("[{\"type\":\"node_added\",\"node\":\"h1:1234\",\"host\":\"h1\","
          + "\"rack\":\"/default-rack\",\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
          + "{\"type\":\"app_added\",\"app\":\"" + app + "\",\"queue\":\"default\","
          + "\"user\":\"bench\"},{\"type\":\"attempt_added\",\"app\":\"" + app
          + "\",\"attempt\":\"a1\"}]");
      List<ResourceRequest> one = maps(1);
      List<ResourceRequest> two = maps(2);
      int[] flip = {0};
      report("asks frame, 5,000 rows", measure(null, () -> {
        List<ResourceRequest> rows = (flip[0]++ & 1) == 0 ? two : one;
        core.asks(AsksFrame.encode(AsksFrame.KIND_CHANGED, app, rows, null));
      }, null, iterations, warmup, rounds));
      report("  encoding the frame alone", measure(null, () -> {
        List<ResourceRequest> rows = (flip[0]++ & 1) == 0 ? two : one;
        AsksFrame.encode(AsksFrame.KIND_CHANGED, app, rows, null);
      }, null, iterations, warmup, rounds));
      // The same with every host a node the core knows (a real cluster's MapReduce splits).
      StringBuilder nodes = new StringBuilder("[");
      for (int i = 1; i < HOSTS; i++) {
        nodes.append(i > 1 ? "," : "").append("{\"type\":\"node_added\",\"node\":\"node-")
            .append(i).append(".example:1234\",\"host\":\"node-").append(i)
            .append(".example\",\"rack\":\"/default-rack\",\"capability\":{\"memory_mb\":8192,"
            + "\"vcores\":8}}");
      }
      core.events(nodes.append("]").toString());
      List<String> hosts = new ArrayList<>();
      for (int i = 1; i < HOSTS; i++) {
        hosts.add("node-" + i + ".example");
      }
      java.util.function.Function<List<ResourceRequest>, java.nio.ByteBuffer> numbered =
          BenchAccess.numberedEncoder(core, app, hosts);
      // By name and numbered in turn, twice, so neither gets the quieter minute.
      for (int pass = 0; pass < 2; pass++) {
        report("  same, every host a node", measure(null, () -> {
          List<ResourceRequest> rows = (flip[0]++ & 1) == 0 ? two : one;
          core.asks(AsksFrame.encode(AsksFrame.KIND_CHANGED, app, rows, null));
        }, null, iterations, warmup, rounds));
        report("  same, hosts numbered", measure(null, () -> {
          List<ResourceRequest> rows = (flip[0]++ & 1) == 0 ? two : one;
          core.asks(numbered.apply(rows));
        }, null, iterations, warmup, rounds));
        report("    encoding numbered alone", measure(null, () -> {
          List<ResourceRequest> rows = (flip[0]++ & 1) == 0 ? two : one;
          numbered.apply(rows);
        }, null, iterations, warmup, rounds));
      }
    }
  }

  private static void rmAttemptUpdate(LocusScheduler scheduler, ApplicationAttemptId attempt,
      List<ResourceRequest> rows) {
    FiCaSchedulerApp a = scheduler.getApplicationAttempt(attempt);
    synchronized (a) {
      a.updateResourceRequests(rows);
    }
  }

  private static Allocation allocate(LocusScheduler scheduler, ApplicationAttemptId attempt,
      List<ResourceRequest> asks, List<ContainerId> release) {
    return scheduler.allocate(attempt, asks, null, release, null, null, null);
  }

  private static List<ResourceRequest> copy(List<ResourceRequest> rows) {
    List<ResourceRequest> out = new ArrayList<>(rows.size());
    for (ResourceRequest r : rows) {
      out.add(ResourceRequest.clone(r));
    }
    return out;
  }

  /** One row per host (h1 among them) with {@code each} maps, plus the rack and {@code *}. */
  static List<ResourceRequest> maps(int each) {
    List<ResourceRequest> rows = new ArrayList<>();
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    rows.add(ResourceRequest.newInstance(p, "h1", size, each));
    for (int i = 1; i < HOSTS; i++) {
      rows.add(ResourceRequest.newInstance(p, "node-" + i + ".example", size, each));
    }
    rows.add(ResourceRequest.newInstance(p, "/default-rack", size, HOSTS * each));
    rows.add(ResourceRequest.newInstance(p, ResourceRequest.ANY, size, HOSTS * each));
    return rows;
  }

  /** h1, the rack and {@code *} rows. */
  static List<ResourceRequest> three(int total, int onH1) {
    Resource size = Resource.newInstance(GB, 1);
    Priority p = Priority.newInstance(20);
    return Arrays.asList(ResourceRequest.newInstance(p, "h1", size, onH1),
        ResourceRequest.newInstance(p, "/default-rack", size, total),
        ResourceRequest.newInstance(p, ResourceRequest.ANY, size, total));
  }

  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();
  /**
   * This thread's allocated bytes: garbage made inside the measured call is what brings the
   * collections that fall in later rounds (a deterministic figure, unlike the times).
   */
  private static final com.sun.management.ThreadMXBean ALLOC =
      (com.sun.management.ThreadMXBean) CPU;

  /**
   * Mean ns/op of each timed round, wall clock ([0]) and this thread's CPU time ([1]), and the
   * bytes this thread allocated per op ([2]); only the measured call is inside the clocks.
   */
  static double[][] measure(Runnable prepare, Runnable op, Runnable reset, int iterations,
      int warmup, int rounds) {
    return measure(prepare, op, reset, iterations, warmup, rounds, -1);
  }

  /** The thread named {@code locus-scheduler} (Locus's scheduling thread). */
  private static long schedulingThreadId() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("locus-scheduler")) {
        return t.getId();
      }
    }
    throw new IllegalStateException("no locus-scheduler thread");
  }

  /**
   * As {@link #measure(Runnable, Runnable, Runnable, int, int, int)}; with {@code other} a
   * thread id, also that thread's CPU time ([3]) and allocated bytes ([4]) per op, read around
   * the measured call.
   */
  static double[][] measure(Runnable prepare, Runnable op, Runnable reset, int iterations,
      int warmup, int rounds, long other) {
    double[][] perRound = new double[5][rounds];
    for (int r = -warmup; r < rounds; r++) {
      long total = 0;
      long cpu = 0;
      long bytes = 0;
      long otherCpu = 0;
      long otherBytes = 0;
      for (int i = 0; i < iterations; i++) {
        if (prepare != null) {
          prepare.run();
        }
        long ob0 = other < 0 ? 0 : ALLOC.getThreadAllocatedBytes(other);
        long oc0 = other < 0 ? 0 : CPU.getThreadCpuTime(other);
        long b0 = ALLOC.getCurrentThreadAllocatedBytes();
        long c0 = CPU.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        op.run();
        total += System.nanoTime() - t0;
        cpu += CPU.getCurrentThreadCpuTime() - c0;
        bytes += ALLOC.getCurrentThreadAllocatedBytes() - b0;
        if (other >= 0) {
          otherCpu += CPU.getThreadCpuTime(other) - oc0;
          otherBytes += ALLOC.getThreadAllocatedBytes(other) - ob0;
        }
        if (reset != null) {
          reset.run();
        }
      }
      if (r >= 0) {
        perRound[0][r] = (double) total / iterations;
        perRound[1][r] = (double) cpu / iterations;
        perRound[2][r] = (double) bytes / iterations;
        perRound[3][r] = (double) otherCpu / iterations;
        perRound[4][r] = (double) otherBytes / iterations;
      }
    }
    return perRound;
  }

  static void report(String name, double[][] wallCpu) {
    double[] sorted = wallCpu[0].clone();
    Arrays.sort(sorted);
    double[] cpu = wallCpu[1].clone();
    Arrays.sort(cpu);
    double[] bytes = wallCpu[2].clone();
    Arrays.sort(bytes);
    System.out.printf(Locale.ROOT,
        "%-32s wall median %9.1f us/op (%.1f-%.1f)   CPU median %9.1f us/op (%.1f-%.1f)"
            + "   alloc median %8.1f KB/op%n", name,
        sorted[sorted.length / 2] / 1000, sorted[0] / 1000, sorted[sorted.length - 1] / 1000,
        cpu[cpu.length / 2] / 1000, cpu[0] / 1000, cpu[cpu.length - 1] / 1000,
        bytes[bytes.length / 2] / 1024);
  }

  /** The other thread's figures of a {@link #measure} with a thread id. */
  static void reportOther(String name, double[][] measured) {
    double[] cpu = measured[3].clone();
    Arrays.sort(cpu);
    double[] bytes = measured[4].clone();
    Arrays.sort(bytes);
    System.out.printf(Locale.ROOT,
        "%-32s CPU median %9.1f us/op (%.1f-%.1f)   alloc median %8.1f KB/op%n", name,
        cpu[cpu.length / 2] / 1000, cpu[0] / 1000, cpu[cpu.length - 1] / 1000,
        bytes[bytes.length / 2] / 1024);
  }
}
