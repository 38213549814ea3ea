package org.locus.yarn.bench;

import com.codahale.metrics.SlidingWindowReservoir;
import com.codahale.metrics.Timer;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.locus.yarn.BenchAccess;
import org.locus.yarn.LocusScheduler;
import org.locus.yarn.metrics.LocusMetrics;

/**
 * The dispatcher's share of a NODE_UPDATE that carries no container change (the median
 * heartbeat of an SLS run), CapacityScheduler with Hadoop 3.5's defaults against Locus, in a
 * MockRM of {@link #NODES} nodes filled by one application that still has asks pending (so
 * each scheduler's own thread keeps trying, as on a busy cluster). The bench thread plays the RM's
 * dispatcher: it calls {@code handle(NODE_UPDATE)} for the nodes in turn. Timed by this
 * thread's CPU time (ThreadMXBean), so other threads on a shared machine matter less; wall time
 * beside it. Locus's figure is broken down: its nodeUpdate (the RM's AbstractYarnScheduler
 * bookkeeping plus the hand-over), the hand-over alone, the timing metrics and the per-event
 * guard of handle().
 */
final class NodeUpdateBench {
  private static final int GB = 1024;
  /** {@code locus.bench.nodes}: more nodes than the caches hold, as in an SLS run, if set. */
  private static final int NODES = Integer.getInteger("locus.bench.nodes", 200);
  /** The sample window docs/results/sls.md's runs used ({@code --timer-window}). */
  private static final int SLS_TIMER_WINDOW = 200_000;
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private NodeUpdateBench() {
  }

  static void run(int batch, int warmup, int rounds) throws Exception {
    System.out.printf(Locale.ROOT, "Dispatcher CPU per empty NODE_UPDATE, %d nodes, %d warm-up +"
        + " %d timed rounds x %d events (ns/op: median of rounds, min-max)%n", NODES, warmup,
        rounds, batch);
    capacity(batch, warmup, rounds);
    locus(batch, warmup, rounds);
  }

  private static void capacity(int batch, int warmup, int rounds) throws Exception {
    MockRM rm = start(CapacityScheduler.class);
    try {
      CapacityScheduler cs = (CapacityScheduler) rm.getResourceScheduler();
      List<RMNode> nodes = cluster(rm);
      System.out.printf(Locale.ROOT, "CapacityScheduler, async scheduling %s (default %s)%n",
          rm.getConfig().getBoolean(
              CapacitySchedulerConfiguration.SCHEDULE_ASYNCHRONOUSLY_ENABLE,
              CapacitySchedulerConfiguration.DEFAULT_SCHEDULE_ASYNCHRONOUSLY_ENABLE),
          CapacitySchedulerConfiguration.DEFAULT_SCHEDULE_ASYNCHRONOUSLY_ENABLE);
      report("CS handle(NODE_UPDATE)", time(nodes,
          n -> cs.handle(new NodeUpdateSchedulerEvent(n)), batch, warmup, rounds));
      reportSls("CS, SLS's NODE_UPDATE timer", slsTimer(nodes,
          n -> cs.handle(new NodeUpdateSchedulerEvent(n)), batch, warmup, rounds));
      reportSls("no-op handle, SLS's timer", slsTimer(nodes, n -> n.getNodeID(), batch, warmup,
          rounds));
    } finally {
      rm.stop();
    }
  }

  private static void locus(int batch, int warmup, int rounds) throws Exception {
    MockRM rm = start(ProbedLocusScheduler.class);
    try {
      ProbedLocusScheduler s = (ProbedLocusScheduler) rm.getResourceScheduler();
      List<RMNode> nodes = cluster(rm);
      System.out.println("LocusScheduler (default settings)");
      report("Locus handle(NODE_UPDATE)", time(nodes,
          n -> s.handle(new NodeUpdateSchedulerEvent(n)), batch, warmup, rounds));
      reportSls("Locus, SLS's NODE_UPDATE timer", slsTimer(nodes,
          n -> s.handle(new NodeUpdateSchedulerEvent(n)), batch, warmup, rounds));
      // A model of moving the RM's heartbeat bookkeeping to the scheduling thread (not what
      // the shim does; see docs/results/benchmark-history.md): the dispatcher would keep handle()'s guard, the timing and
      // the hand-over, plus parking the RMNode for the thread; the thread would then run
      // "nodeUpdate (RM + hand-over)" below. Nothing takes the parked node here, so the map
      // only ever holds the bench's nodes.
      Runnable modelGuard = BenchAccess.eventGuard(s);
      Consumer<RMNode> modelHandOver = BenchAccess.handOver(s);
      LocusMetrics modelMetrics = s.getLocusMetrics();
      Map<NodeId, RMNode> parked = new ConcurrentHashMap<>();
      Consumer<RMNode> handOffOnly = n -> {
        RMNode event = new NodeUpdateSchedulerEvent(n).getRMNode();
        modelGuard.run();
        long start = System.nanoTime();
        parked.put(event.getNodeID(), event);
        modelHandOver.accept(event);
        modelMetrics.heartbeatHandled(System.nanoTime() - start);
      };
      report("model: dispatcher if moved", time(nodes, handOffOnly, batch, warmup, rounds));
      reportSls("model, SLS's NODE_UPDATE timer", slsTimer(nodes, handOffOnly, batch, warmup,
          rounds));
      report("  nodeUpdate (RM + hand-over)", time(nodes,
          n -> BenchAccess.nodeUpdate(s, n), batch, warmup, rounds));
      // The steps of the RM's AbstractYarnScheduler.nodeUpdate that can be called alone (the
      // rest, completed-container processing of an empty list and the overcommit check, are
      // private to it): what CapacityScheduler runs as well.
      report("    RM: RMNode.pullContainerUpdates", time(nodes, RMNode::pullContainerUpdates,
          batch, warmup, rounds));
      report("    RM: getNode+notifyNodeUpdate", time(nodes,
          n -> s.getNode(n.getNodeID()).notifyNodeUpdate(), batch, warmup, rounds));
      report("    RM: getClusterResource (debug)", time(nodes, n -> s.getClusterResource(),
          batch, warmup, rounds));
      report("    RM: updateSchedulerHealthInfo", time(nodes, n -> s.probeSchedulerHealth(),
          batch, warmup, rounds));
      report("    RM: updateNodeResourceUtil", time(nodes, s::probeNodeUtilization, batch,
          warmup, rounds));
      report("    scheduler monitor enter+exit", time(nodes, n -> {
        synchronized (s) {
          s.hashCode();
        }
      }, batch, warmup, rounds));
      Consumer<RMNode> handOver = BenchAccess.handOver(s);
      report("  hand-over alone", time(nodes, handOver, batch,
          warmup, rounds));
      report("  node lookup (getSchedulerNode)", time(nodes,
          n -> s.getSchedulerNode(n.getNodeID()), batch, warmup, rounds));
      LocusMetrics metrics = s.getLocusMetrics();
      report("  heartbeat timing metrics", time(nodes, n -> metrics.heartbeatHandled(3_000),
          batch, warmup, rounds));
      Runnable guard = BenchAccess.eventGuard(s);
      report("  handle()'s event guard", time(nodes, n -> guard.run(), batch, warmup,
          rounds));
      report("  new NodeUpdateSchedulerEvent", time(nodes,
          n -> new NodeUpdateSchedulerEvent(n).getRMNode(), batch, warmup, rounds));
    } finally {
      rm.stop();
    }
  }

  private static MockRM start(Class<? extends ResourceScheduler> scheduler) throws Exception {
    File state = Files.createTempDirectory("locus-bench-nu-").toFile();
    YarnConfiguration conf = new YarnConfiguration();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    // Hadoop 3.5's default (YARN-7327); the test resources' capacity-scheduler.xml turn it off.
    conf.setBoolean(CapacitySchedulerConfiguration.SCHEDULE_ASYNCHRONOUSLY_ENABLE, true);
    conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        new File(state, "node-attribute").toURI().toString());
    MockRM rm = new MockRM(conf);
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
    rm.start();
    return rm;
  }

  /** {@link #NODES} nodes of 4 GB, an AM on the first, 4 GB asks filling the rest, more pending. */
  private static List<RMNode> cluster(MockRM rm) throws Exception {
    List<MockNM> nms = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      NetUtils.addStaticResolution("n" + i + ".example", "127.0.0.1");
      nms.add(rm.registerNode("n" + i + ".example:1234", 4 * GB, 4));
    }
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = MockRM.launchAndRegisterAM(app, rm, nms.get(0));
    GenericTestUtils.setRootLogLevel(org.slf4j.event.Level.WARN);
    am.allocate(Arrays.asList(ResourceRequest.newInstance(Priority.newInstance(1),
        ResourceRequest.ANY, Resource.newInstance(4 * GB, 1), 5 * NODES)), null);
    rm.drainEvents();
    List<RMNode> nodes = new ArrayList<>();
    for (MockNM nm : nms) {
      nodes.add(rm.getRMContext().getRMNodes().get(nm.getNodeId()));
    }
    // Fill every node it can (one heartbeat each), then wait for the scheduler to settle.
    for (RMNode n : nodes) {
      rm.getResourceScheduler().handle(new NodeUpdateSchedulerEvent(n));
    }
    if (rm.getResourceScheduler() instanceof LocusScheduler) {
      BenchAccess.awaitSchedulingIdle((LocusScheduler) rm.getResourceScheduler());
    }
    Thread.sleep(2_000);
    System.out.printf(Locale.ROOT, "  containers allocated before timing: %d, pending %d%n",
        rm.getResourceScheduler().getRootQueueMetrics().getAllocatedContainers(),
        rm.getResourceScheduler().getRootQueueMetrics().getPendingContainers());
    return nodes;
  }

  /** Per round: {@code batch} calls over the nodes in turn; CPU and wall ns per call. */
  private static double[][] time(List<RMNode> nodes, Consumer<RMNode> op, int batch,
      int warmup, int rounds) {
    double[][] perRound = new double[2][rounds];
    int size = nodes.size();
    for (int r = -warmup; r < rounds; r++) {
      long cpu0 = CPU.getCurrentThreadCpuTime();
      long wall0 = System.nanoTime();
      for (int i = 0; i < batch; i++) {
        op.accept(nodes.get(i % size));
      }
      long wall = System.nanoTime() - wall0;
      long cpu = CPU.getCurrentThreadCpuTime() - cpu0;
      if (r >= 0) {
        perRound[0][r] = (double) cpu / batch;
        perRound[1][r] = (double) wall / batch;
      }
    }
    return perRound;
  }

  /**
   * What SLS records as a NODE_UPDATE's time: {@code SLSSchedulerCommons.handle} (hadoop-sls
   * 3.4.3) starts its all-events timer, then the per-type timer, calls the scheduler, stops the
   * all-events timer (a clock read, a meter mark, a synchronized reservoir update) and then the
   * per-type one, so the NODE_UPDATE sample holds the scheduler's call plus the other timer's
   * stop. Rebuilt here with the same metrics-core timers and reservoirs; per round, the median
   * of the per-type timer's samples (wall ns). The SLS run's wrapper of the event (it pulls the
   * node's container updates) happens before both timers and is left out, as in SLS.
   */
  private static double[] slsTimer(List<RMNode> nodes, Consumer<RMNode> handle, int batch,
      int warmup, int rounds) {
    double[] perRound = new double[rounds];
    int size = nodes.size();
    for (int r = -warmup; r < rounds; r++) {
      Timer all = new Timer(new SlidingWindowReservoir(SLS_TIMER_WINDOW));
      Timer nodeUpdate = new Timer(new SlidingWindowReservoir(SLS_TIMER_WINDOW));
      for (int i = 0; i < batch; i++) {
        Timer.Context a = all.time();
        Timer.Context u = nodeUpdate.time();
        handle.accept(nodes.get(i % size));
        a.stop();
        u.stop();
      }
      if (r >= 0) {
        perRound[r] = nodeUpdate.getSnapshot().getMedian();
      }
    }
    return perRound;
  }

  private static void reportSls(String name, double[] medians) {
    System.out.printf(Locale.ROOT, "%-32s median sample %7.0f ns (%.0f-%.0f)%n", name,
        median(medians), min(medians), max(medians));
  }

  private static void report(String name, double[][] cpuWall) {
    System.out.printf(Locale.ROOT, "%-32s CPU %7.0f ns (%.0f-%.0f)   wall %7.0f ns (%.0f-%.0f)%n",
        name, median(cpuWall[0]), min(cpuWall[0]), max(cpuWall[0]), median(cpuWall[1]),
        min(cpuWall[1]), max(cpuWall[1]));
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static double min(double[] v) {
    return Arrays.stream(v).min().orElse(0);
  }

  private static double max(double[] v) {
    return Arrays.stream(v).max().orElse(0);
  }
}
