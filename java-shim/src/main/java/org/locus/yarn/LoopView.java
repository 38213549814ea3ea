package org.locus.yarn;

import java.util.List;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/** What the scheduling thread ({@link SchedulingLoop}) reads of the RM through the scheduler. */
final class LoopView implements SchedulingLoop.Cluster {
  private final LocusScheduler scheduler;
  private final RMContext rmContext;
  private final LocusRootQueue root;
  private final long heartbeatIntervalMs;

  LoopView(LocusScheduler scheduler, RMContext rmContext, LocusRootQueue root) {
    this.scheduler = scheduler;
    this.rmContext = rmContext;
    this.root = root;
    this.heartbeatIntervalMs = scheduler.getConfig().getLong(
        YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS,
        YarnConfiguration.DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS);
  }

  @Override
  public List<FiCaSchedulerNode> nodes() {
    return scheduler.getNodeTracker().getAllNodes();
  }

  @Override
  public FiCaSchedulerNode node(NodeId id) {
    return scheduler.getNodeTracker().getNode(id);
  }

  @Override
  public boolean readyToAllocate() {
    // After a restart, wait until the NMs have reported what is already running.
    return !rmContext.isWorkPreservingRecoveryEnabled()
        || rmContext.isSchedulerReadyForAllocatingContainers();
  }

  @Override
  public boolean hasPendingAsks() {
    LocusRootQueue r = root;
    return r != null && r.getMetrics().getPendingContainers() > 0;
  }

  @Override
  public long nowMs() {
    return scheduler.getClock().getTime();
  }

  @Override
  public Resource minimumAllocation() {
    return scheduler.getMinimumResourceCapability();
  }

  @Override
  public long nodeHeartbeatIntervalMs() {
    return heartbeatIntervalMs;
  }

  @Override
  public void nodeUpdate(RMNode node) {
    scheduler.heartbeatBookkeeping(node);
  }

  @Override
  public void afterPass() {
    for (SchedulerApplication<FiCaSchedulerApp> app
        : scheduler.getSchedulerApplications().values()) {
      FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
      if (attempt != null) {
        ((LocusQueue) app.getQueue()).updateHeadroom(attempt);
      }
    }
    root.updateAvailableMetrics();
  }
}
