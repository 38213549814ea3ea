package org.locus.yarn;

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

  /** The hand-over alone: the node into the scheduling thread's inbox. */
  public static java.util.function.Consumer<org.apache.hadoop.yarn.api.records.NodeId> handOver(
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
