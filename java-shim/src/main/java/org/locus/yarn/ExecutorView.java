package org.locus.yarn;

import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/** What {@link DecisionExecutor} reads of the RM through the scheduler, and where it sends. */
final class ExecutorView implements DecisionExecutor.Cluster {
  private final LocusScheduler scheduler;
  private final CoreLink link;

  ExecutorView(LocusScheduler scheduler, CoreLink link) {
    this.scheduler = scheduler;
    this.link = link;
  }

  @Override
  public LocusAppAttempt currentAttempt(ApplicationId app) {
    SchedulerApplication<FiCaSchedulerApp> a = scheduler.getSchedulerApplications().get(app);
    FiCaSchedulerApp attempt = a == null ? null : a.getCurrentAppAttempt();
    return attempt instanceof LocusAppAttempt ? (LocusAppAttempt) attempt : null;
  }

  @Override
  public FiCaSchedulerNode node(NodeId node) {
    return scheduler.getSchedulerNode(node);
  }

  @Override
  public void containerCreated(RMContainer container) {
    SchedulerApplication<FiCaSchedulerApp> app = scheduler.getSchedulerApplications()
        .get(container.getApplicationAttemptId().getApplicationId());
    if (app != null) {
      ((LocusQueue) app.getQueue()).addUsed(app.getUser(), container.getAllocatedResource());
    }
  }

  @Override
  public void send(EventsFrame events, Set<LocusAppAttempt> heldApps) {
    link.send(events, heldApps);
  }

  @Override
  public void sendSnapshot(LocusAppAttempt attempt) {
    link.sendSnapshot(attempt);
  }
}
