package org.locus.sls;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.sls.scheduler.SLSCapacityScheduler;

/**
 * SLS's own CapacityScheduler wrapper plus the figures SLS does not keep ({@link RunFigures}),
 * gathered exactly as for Locus. Named in yarn.resourcemanager.scheduler.class directly, SLS's
 * RMRunner leaves it as configured: it does not switch on the preemption monitor it adds when
 * the plain CapacityScheduler is named, so CapacityScheduler runs with Hadoop's defaults.
 */
public class CapacitySlsScheduler extends SLSCapacityScheduler {
  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    RunFigures.get().start("capacity", getSchedulerMetrics(), this::getRootQueueMetrics,
        () -> getNodeTracker().getAllNodes());
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    RunFigures.get().asked(attemptId, ask);
    Allocation a = super.allocate(attemptId, ask, schedulingRequests, release,
        blacklistAdditions, blacklistRemovals, updateRequests);
    RunFigures.get().allocated(attemptId, a, c -> getRMContainer(c.getId()));
    return a;
  }

  @Override
  public void handle(SchedulerEvent event) {
    super.handle(event);
    if (event.getType() == SchedulerEventType.APP_ATTEMPT_REMOVED) {
      RunFigures.get().attemptRemoved(
          ((AppAttemptRemovedSchedulerEvent) event).getApplicationAttemptID());
    }
  }
}
