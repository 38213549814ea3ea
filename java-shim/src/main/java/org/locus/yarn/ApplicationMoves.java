package org.locus.yarn;

import java.util.Collections;
import java.util.Map;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code yarn application -movetoqueue} (moveApplication, and through it the RM's moveAllApps):
 * an application moves between leaf queues with what it holds. The core is told first
 * ({@code app_moved}: its used, AM used and running containers leave the old queue's figures
 * and its outstanding asks are served as the new queue's); then the shim's queue usage, the
 * application counts and the RM's QueueMetrics (through the attempt's own {@code move}, which
 * carries allocated and pending resource and the active user) follow. Refused, naming the
 * reason, for an unknown application or queue, a queue that is not a leaf, and a queue that
 * does not take submissions (STOPPED, or draining). Whether the caller may move into the
 * target is the RM's question, asked of {@code checkAccess} before the scheduler's.
 */
final class ApplicationMoves {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final LocusRootQueue root;
  private final Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications;
  private final CoreLink link;

  ApplicationMoves(LocusRootQueue root,
      Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications, CoreLink link) {
    this.root = root;
    this.applications = applications;
    this.link = link;
  }

  /** {@code preValidateMoveApplication}: throws the reason the move would be refused. */
  void check(ApplicationId appId, String target) throws YarnException {
    target(appId, target);
  }

  /** {@code moveApplication}; caller holds the scheduler lock. Returns the new queue's name. */
  String move(ApplicationId appId, String target) throws YarnException {
    Target t = target(appId, target);
    SchedulerApplication<FiCaSchedulerApp> app = t.app;
    LocusQueue dest = t.dest;
    LocusQueue source = (LocusQueue) app.getQueue();
    if (source == dest) {
      return nameOf(dest);
    }
    LocusException refused = link.send(Collections.singletonList(
        CoreMessages.appMoved(appId, dest.getQueueName())), Collections.emptySet());
    if (refused != null && !(refused instanceof LocusCorePoisonedException)) {
      throw new YarnException("Locus refused to move " + appId + " to queue " + target + ": "
          + refused.getMessage(), refused);
    }
    FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
    if (attempt != null) {
      synchronized (attempt) {
        for (RMContainer c : attempt.getLiveContainers()) {
          source.subtractUsed(app.getUser(), c.getAllocatedResource());
          dest.addUsed(app.getUser(), c.getAllocatedResource());
        }
        // QueueMetrics (allocated, pending, apps, active users) and each container's queue.
        attempt.move(dest);
      }
    }
    app.setQueue(dest);
    dest.applicationAdded();
    source.applicationRemoved();
    root.dropIfDrained(source);
    root.updateAvailableMetrics();
    LOG.info("Application {} moved from queue {} to {}", appId, nameOf(source), nameOf(dest));
    return nameOf(dest);
  }

  /** The name the RM files the application under: the path where queues have paths. */
  private static String nameOf(Queue q) {
    QueueInfo info = q.getQueueInfo(false, false);
    return info.getQueuePath() != null ? info.getQueuePath() : info.getQueueName();
  }

  private static final class Target {
    final SchedulerApplication<FiCaSchedulerApp> app;
    final LocusQueue dest;

    Target(SchedulerApplication<FiCaSchedulerApp> app, LocusQueue dest) {
      this.app = app;
      this.dest = dest;
    }
  }

  private Target target(ApplicationId appId, String target) throws YarnException {
    SchedulerApplication<FiCaSchedulerApp> app = applications.get(appId);
    if (app == null) {
      throw new YarnException("App to be moved " + appId + " not found.");
    }
    Queue q = root.lookup(target);
    if (q == null) {
      throw new YarnException("Cannot move " + appId + " to queue " + target
          + ": no such queue");
    }
    if (!(q instanceof LocusQueue)) {
      throw new YarnException("Cannot move " + appId + " to queue " + target
          + ": it is not a leaf queue");
    }
    LocusQueue dest = (LocusQueue) q;
    // The target's ACL is the caller's, checked by the RM (through checkAccess) before it
    // asks here, as for CapacityScheduler, which asks nothing of the owner's rights there.
    if (dest != app.getQueue()) {
      QueueState state = dest.getQueueInfo(false, false).getQueueState();
      if (state != null && state != QueueState.RUNNING) {
        // CapacityScheduler's words for any queue not RUNNING.
        throw new YarnException(new AccessControlException("Queue " + nameOf(dest)
            + " is STOPPED. Cannot accept submission of application: " + appId));
      }
    }
    return new Target(app, dest);
  }
}
