package org.apache.hadoop.yarn.sls.scheduler;

import com.codahale.metrics.Snapshot;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;

/**
 * Reads SLS's own scheduler timers (the ones SLSSchedulerCommons starts around every handle() and
 * allocate()). SLS 3.4.3 keeps their getters package-private and only exports 60-sample histograms
 * of them, so this one class lives in SLS's package; nothing else of ours does.
 */
public final class SlsTimers {
  private SlsTimers() {
  }

  public static Snapshot nodeUpdate(SchedulerMetrics m) {
    return m.getSchedulerHandleTimer(SchedulerEventType.NODE_UPDATE).getSnapshot();
  }

  public static long nodeUpdateCount(SchedulerMetrics m) {
    return m.getSchedulerHandleTimer(SchedulerEventType.NODE_UPDATE).getCount();
  }

  public static Snapshot allocate(SchedulerMetrics m) {
    return m.getSchedulerAllocateTimer().getSnapshot();
  }

  public static long allocateCount(SchedulerMetrics m) {
    return m.getSchedulerAllocateTimer().getCount();
  }
}
