package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;

/**
 * The shim's side of one scheduling call through the frames: one node offered in an offers frame
 * to a core with nothing to place ("0 decisions"), and to one that decides 10 containers on it,
 * whose answer the shim reads from the decisions frame and reports back in an events frame (10
 * {@code container_allocated} and the app's {@code asks_digest}: "10 decisions"). RM bookkeeping
 * is left out. Between timed calls the containers are released and the asks restored, untimed.
 */
public final class FramesBench {
  private static final String APP = "application_1700000000000_0001";
  private static final NodeId NODE = NodeId.fromString("bench-h1:8041");
  private static final ApplicationAttemptId ATTEMPT =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(1_700_000_000_000L, 1), 1);
  private static final int DECISIONS = 10;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private FramesBench() {
  }

  /** Runs both cases, alternating rounds (A B A B ...) so drift on a shared machine hits both. */
  public static void run(int iterations, int warmup, int rounds) throws Exception {
    System.out.printf(Locale.ROOT, "Offer one node, decide 0 or 10 containers and report them"
        + " (shim + JNI + core), %d warm-up + %d timed rounds x %d ops, alternating%n", warmup,
        rounds, iterations);
    try (LocusCore idle = open(false); LocusCore frames = open(true)) {
      Way[] ways = {new FramesWay(idle, 0), new FramesWay(frames, DECISIONS)};
      double[][][] perRound = new double[2][3][rounds];
      for (int r = -warmup; r < rounds; r++) {
        for (int w = 0; w < 2; w++) {
          double[] got = round(ways[w], iterations);
          if (r >= 0) {
            for (int k = 0; k < 3; k++) {
              perRound[w][k][r] = got[k];
            }
          }
        }
      }
      report("0 decisions", perRound[0]);
      report("10 decisions", perRound[1]);
      System.out.println("  core stats, 10 decisions: " + frames.stats());
    }
  }

  /** A core with the bench's node and its application, with the ten asks when {@code asks}. */
  private static LocusCore open(boolean asks) throws Exception {
    LocusCore core = LocusCore.open("{}");
    core.events("[{\"type\":\"node_added\",\"node\":\"" + NODE + "\",\"host\":\"bench-h1\","
        + "\"rack\":\"/rack1\",\"capability\":{\"memory_mb\":10240,\"vcores\":10}},"
        + "{\"type\":\"app_added\",\"app\":\"" + APP + "\",\"queue\":\"default\","
        + "\"user\":\"bench\",\"name\":\"bench\",\"app_type\":\"YARN\",\"submit_ms\":1},"
        + "{\"type\":\"attempt_added\",\"app\":\"" + APP + "\",\"attempt\":\"" + ATTEMPT
        + "\"}" + (asks ? "," + asks() : "") + "]");
    return core;
  }

  /** Ten asks at distinct priorities, one container each: ten decisions per heartbeat. */
  private static String asks() {
    StringBuilder rows = new StringBuilder();
    for (int p = 1; p <= DECISIONS; p++) {
      rows.append(p > 1 ? "," : "").append("{\"priority\":").append(p)
          .append(",\"resource_name\":\"*\",\"capability\":{\"memory_mb\":1024,\"vcores\":1},")
          .append("\"count\":1,\"relax_locality\":true}");
    }
    return "{\"type\":\"asks_updated\",\"app\":\"" + APP + "\",\"asks\":[" + rows + "]}";
  }

  /** One way of deciding and reporting; returns the containers it reported. */
  private abstract static class Way {
    final LocusCore core;
    /** Containers one call must report. */
    final int expected;
    final List<ContainerId> created = new ArrayList<>();
    int nextContainer = 1;
    long nowMs = 1_000;

    Way(LocusCore core, int expected) {
      this.core = core;
      this.expected = expected;
    }

    abstract int decideAndReport() throws Exception;

    ContainerId nextContainer() {
      ContainerId id = ContainerId.newContainerId(ATTEMPT, nextContainer++);
      created.add(id);
      return id;
    }

    /** Untimed: what the containers and asks were before the timed call. */
    void reset() throws Exception {
      if (expected == 0) {
        return;
      }
      List<ObjectNode> events = new ArrayList<>();
      for (ContainerId id : created) {
        events.add(CoreMessages.containerReleased(id, NODE, Resource.newInstance(1024, 1)));
      }
      created.clear();
      core.events(CoreMessages.array(events));
      core.events("[" + asks() + "]");
    }
  }

  /** The answer as a decisions frame, the report as an events frame. */
  private static final class FramesWay extends Way {
    private final List<NodeId> nodes = Collections.singletonList(NODE);
    private final List<Resource> free =
        Collections.singletonList(Resource.newInstance(10240, 10));
    private final List<Boolean> heartbeat = Collections.singletonList(false);

    FramesWay(LocusCore core, int expected) {
      super(core, expected);
    }

    @Override
    int decideAndReport() throws Exception {
      List<NodeId> offered = new ArrayList<>(1);
      ByteBuffer frame = OffersFrame.encode(nodes, free, heartbeat, nowMs += 1000, offered);
      byte[] decided = core.offers(frame);
      if (decided == null) {
        return 0;
      }
      DecisionsFrame.Answer answer = DecisionsFrame.decode(decided, offered);
      EventsFrame events = new EventsFrame();
      int n = 0;
      for (DecisionsFrame.Decision d : answer.decisions) {
        ApplicationId.fromString(d.app);
        for (int i = 0; i < d.count; i++) {
          events.containerAllocated(nextContainer(), d.node, d.priority, d.allocationRequestId,
              Resource.newInstance(1024, 1), d.locality, false);
          n++;
        }
      }
      events.asksDigest(ATTEMPT.getApplicationId(), 0L);
      String drifted = core.eventsFrame(events.direct());
      return drifted == null ? n : -1;
    }
  }

  /** Mean wall ns, CPU ns and allocated bytes per op over one round. */
  private static double[] round(Way way, int iterations) throws Exception {
    long wall = 0;
    long cpu = 0;
    long bytes = 0;
    for (int i = 0; i < iterations; i++) {
      long b0 = THREADS.getCurrentThreadAllocatedBytes();
      long c0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      int n = way.decideAndReport();
      wall += System.nanoTime() - t0;
      cpu += THREADS.getCurrentThreadCpuTime() - c0;
      bytes += THREADS.getCurrentThreadAllocatedBytes() - b0;
      if (n != way.expected) {
        throw new IllegalStateException("a call reported " + n + " containers, not "
            + way.expected + " (-1: the core found a drift)");
      }
      way.reset();
    }
    return new double[] {(double) wall / iterations, (double) cpu / iterations,
        (double) bytes / iterations};
  }

  private static void report(String name, double[][] figures) {
    double[] wall = figures[0].clone();
    double[] cpu = figures[1].clone();
    double[] bytes = figures[2].clone();
    Arrays.sort(wall);
    Arrays.sort(cpu);
    Arrays.sort(bytes);
    System.out.printf(Locale.ROOT, "%-22s wall median %7.2f us (%.2f-%.2f)   CPU median %7.2f us"
        + " (%.2f-%.2f)   alloc median %6.1f KB%n", name, wall[wall.length / 2] / 1000,
        wall[0] / 1000, wall[wall.length - 1] / 1000, cpu[cpu.length / 2] / 1000, cpu[0] / 1000,
        cpu[cpu.length - 1] / 1000, bytes[bytes.length / 2] / 1024);
  }
}
