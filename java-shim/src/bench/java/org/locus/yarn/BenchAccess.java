package org.locus.yarn;

import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;

/**
 * What the benchmarks in {@code org.locus.yarn.bench} need of the scheduler's package-private
 * test seams; in the bench source set only, so nothing in the shipped jar grows for it.
 */
public final class BenchAccess {
  private BenchAccess() {
  }

  /** LocusScheduler's nodeUpdate (the RM's bookkeeping of the heartbeat, then the hand-over). */
  public static void nodeUpdate(LocusScheduler scheduler,
      org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode node) {
    scheduler.nodeUpdate(node);
  }

  /** The hand-over alone: the node into the scheduling thread's queue of heartbeats. */
  public static java.util.function.Consumer<
      org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode> handOver(
      LocusScheduler scheduler) {
    SchedulingLoop loop = loop(scheduler);
    return loop::nodeHeartbeat;
  }

  /** What handle() does around every event: the failed-event bookkeeping and rebuild check. */
  public static Runnable eventGuard(LocusScheduler scheduler) {
    CoreLink link = field(scheduler, "link", CoreLink.class);
    return () -> {
      link.coreCallsOfThisThread();
      link.rebuildIfNeeded();
    };
  }

  private static SchedulingLoop loop(LocusScheduler scheduler) {
    return field(scheduler, "loop", SchedulingLoop.class);
  }

  private static <T> T field(LocusScheduler scheduler, String name, Class<T> type) {
    try {
      java.lang.reflect.Field f = LocusScheduler.class.getDeclaredField(name);
      f.setAccessible(true);
      return type.cast(f.get(scheduler));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** allocate()'s noting of the rows the AM set (the RM's asks already hold them). */
  public static void noteAsks(FiCaSchedulerApp app,
      java.util.List<org.apache.hadoop.yarn.api.records.ResourceRequest> rows) {
    LocusAppAttempt attempt = (LocusAppAttempt) app;
    synchronized (attempt) {
      attempt.noteAsksChanged(rows);
    }
  }

  /** What the scheduling thread does with an attempt's noted rows: frame, JNI, core. */
  public static void sendNotedAsks(LocusScheduler scheduler, FiCaSchedulerApp app) {
    sendNotedAsks(scheduler, app, true);
  }

  /** As above; {@code numbered} false: every name as text, for comparison. */
  public static void sendNotedAsks(LocusScheduler scheduler, FiCaSchedulerApp app,
      boolean numbered) {
    LocusAppAttempt attempt = (LocusAppAttempt) app;
    CoreLink link = field(scheduler, "link", CoreLink.class);
    synchronized (attempt) {
      long c0 = CPU.getCurrentThreadCpuTime();
      java.nio.ByteBuffer frame = attempt.takeAsksFrame(numbered ? link.nameIds() : null);
      long c1 = CPU.getCurrentThreadCpuTime();
      if (frame != null && link.sendAsks(frame, attempt) != null) {
        throw new IllegalStateException("the core refused the asks");
      }
      SEND_SPLIT[0] += c1 - c0;
      SEND_SPLIT[1] += CPU.getCurrentThreadCpuTime() - c1;
      SEND_SPLIT[2]++;
    }
  }

  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();
  /** CPU ns of {@link #sendNotedAsks}: taking the frame, sending it; and the calls. */
  public static final long[] SEND_SPLIT = new long[3];

  public static void noteAndSendAsks(LocusScheduler scheduler, FiCaSchedulerApp attempt,
      java.util.List<org.apache.hadoop.yarn.api.records.ResourceRequest> rows) {
    noteAndSendAsks(scheduler, attempt, rows, true);
  }

  public static void noteAndSendAsks(LocusScheduler scheduler, FiCaSchedulerApp attempt,
      java.util.List<org.apache.hadoop.yarn.api.records.ResourceRequest> rows,
      boolean numbered) {
    noteAsks(attempt, rows);
    sendNotedAsks(scheduler, attempt, numbered);
  }

  /** Hosts the link has ids for (the nodes the core published). */
  public static int numberedHosts(LocusScheduler scheduler) {
    return field(scheduler, "link", CoreLink.class).nameIds().size();
  }

  /**
   * An encoder of changed frames for {@code app} numbering the hosts {@code core} published
   * of {@code hosts}, as the link does with its table.
   */
  public static java.util.function.Function<java.util.List<
      org.apache.hadoop.yarn.api.records.ResourceRequest>, java.nio.ByteBuffer> numberedEncoder(
      LocusCore core, org.apache.hadoop.yarn.api.records.ApplicationId app,
      java.util.List<String> hosts) {
    try {
      NameIds.Answer answer = NameIds.Answer.parse(
          core.nameIds(CoreMessages.JSON.writeValueAsString(hosts)), hosts.size());
      NameIds ids = new NameIds(answer.epoch);
      ids.learn(hosts, answer);
      return rows -> AsksFrame.encode(AsksFrame.KIND_CHANGED, app, rows, null, ids);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Until Locus's scheduling thread has sent every noted ask change and offered every node. */
  public static void awaitSchedulingIdle(LocusScheduler scheduler) {
    try {
      scheduler.awaitSchedulingIdle();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
