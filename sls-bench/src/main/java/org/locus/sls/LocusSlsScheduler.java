package org.locus.sls;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SLSSchedulerCommons;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;
import org.locus.yarn.LocusScheduler;

/**
 * Locus as SLS runs a scheduler: SLS's {@link SchedulerWrapper}, the counterpart of its own
 * SLSCapacityScheduler. Every scheduler event and allocate() goes through SLS's
 * SLSSchedulerCommons, whose timers give the NODE_UPDATE and allocate() figures, and comes back
 * to the unchanged LocusScheduler through the propagated* methods.
 */
public class LocusSlsScheduler extends LocusScheduler implements SchedulerWrapper {
  private final SLSSchedulerCommons commons = new SLSSchedulerCommons(this);
  private volatile SLSRunner runner;

  @Override
  public synchronized void setConf(Configuration conf) {
    super.setConf(conf);
    Configuration metricsConf = new Configuration(conf);
    metricsConf.set(LocusScheduler.class.getName(), LocusSchedulerMetrics.class.getName());
    commons.initMetrics(LocusScheduler.class, metricsConf);
    RunFigures.get().start("locus", commons.getSchedulerMetrics(), this::getRootQueueMetrics,
        () -> getNodeTracker().getAllNodes());
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    RunFigures.get().asked(attemptId, ask);
    Allocation a = commons.allocate(attemptId, ask, schedulingRequests, release,
        blacklistAdditions, blacklistRemovals, updateRequests);
    RunFigures.get().allocated(attemptId, a, c -> getRMContainer(c.getId()));
    return a;
  }

  @Override
  public Allocation allocatePropagated(ApplicationAttemptId attemptId,
      List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    return super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
        blacklistRemovals, updateRequests);
  }

  @Override
  public void handle(SchedulerEvent event) {
    commons.handle(event);
    if (event.getType() == SchedulerEventType.APP_ATTEMPT_REMOVED) {
      RunFigures.get().attemptRemoved(
          ((AppAttemptRemovedSchedulerEvent) event).getApplicationAttemptID());
    }
  }

  @Override
  public void propagatedHandle(SchedulerEvent event) {
    super.handle(event);
  }

  @Override
  public String getRealQueueName(String queue) throws YarnException {
    // Locus's default policy has the one queue `default`; names are given short, as SLS's
    // CapacityScheduler wrapper reports them by path.
    return queue.startsWith("root.") ? queue.substring("root.".length()) : queue;
  }

  @Override
  public SchedulerMetrics getSchedulerMetrics() {
    return commons.getSchedulerMetrics();
  }

  @Override
  public Tracker getTracker() {
    return commons.getTracker();
  }

  @Override
  public void setSLSRunner(SLSRunner runner) {
    this.runner = runner;
  }

  @Override
  public SLSRunner getSLSRunner() {
    return runner;
  }
}
