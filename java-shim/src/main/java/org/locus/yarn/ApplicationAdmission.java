package org.locus.yarn;

import java.util.Collections;
import java.util.Map;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.ipc.RPCUtil;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A submission: the submit ACL when the client submits ({@link #checkSubmitAcl}), then
 * APP_ADDED: an application is accepted into a queue the core also accepts it in, or the RM
 * fails it with a message naming the reason. Never left in ACCEPTED with no scheduler that
 * will serve it.
 */
final class ApplicationAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final LocusRootQueue root;
  private final Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications;
  private final CoreLink link;
  private final RMContext rmContext;

  ApplicationAdmission(LocusRootQueue root,
      Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications, CoreLink link,
      RMContext rmContext) {
    this.root = root;
    this.applications = applications;
    this.link = link;
    this.rmContext = rmContext;
  }

  /** Caller holds the scheduler lock, as for every change of the queue tree. */
  void admit(ApplicationId appId, String requestedQueue, String user, boolean isAppRecovering,
      boolean unmanagedAM) {
    LocusQueue leaf = root.leafForSubmission(requestedQueue);
    if (leaf == null) {
      refuseUnknownQueue(appId, requestedQueue, user, isAppRecovering);
      return;
    }
    // The core hears of it first: an application it refuses (a limit, a queue it does not
    // run) must fail with the core's reason rather than sit in ACCEPTED with no scheduler
    // that will ever serve it. A core out of service refuses nothing: its rebuild replays it.
    // A recovering application was admitted before the restart: a queue STOPPED or full since
    // does not refuse it (the core's rule, told by "recovered").
    LocusException refused = link.send(Collections.singletonList(
        CoreRebuild.appAdded(rmContext, appId, leaf.getQueueName(), user)
            .put("recovered", isAppRecovering)),
        Collections.emptySet(), false);
    if (refused != null && !(refused instanceof LocusCorePoisonedException)) {
      rejectApplication(appId, isAppRecovering,
          "Locus refused application " + appId + " of user " + user + " in queue "
              + leaf.getQueueName() + ": " + refused.getMessage());
      return;
    }
    SchedulerApplication<FiCaSchedulerApp> app =
        new SchedulerApplication<>(leaf, user, unmanagedAM);
    SchedulerApplication<FiCaSchedulerApp> replaced = applications.put(appId, app);
    if (replaced != null) {
      // A repeated APP_ADDED must not count the application twice in its queue.
      ((LocusQueue) replaced.getQueue()).applicationRemoved();
    }
    leaf.applicationAdded();
    leaf.getMetrics().submitApp(user, unmanagedAM);
    if (requestedQueue != null && root.leaf(requestedQueue) != leaf) {
      LOG.info("Application {} asked for queue {}; Locus runs it in queue {} (only "
          + "locus.policy=capacity has several queues)", appId, requestedQueue,
          leaf.getQueueName());
    }
    LOG.info("Accepted application {} from user {} in queue {}; {} applications", appId, user,
        leaf.getQueueName(), applications.size());
    if (!isAppRecovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(appId, RMAppEventType.APP_ACCEPTED));
    }
  }

  /**
   * The submit ACL, as the RM checks it for CapacityScheduler when a client submits (it does
   * so only for CapacityScheduler and FairScheduler): submit or administer rights on the
   * queue the application was placed in admit it, and a refusal fails the client's call
   * with CapacityScheduler's message, before the application exists. A queue that does not
   * exist is left to {@link #admit}, which refuses it naming the queues, as CS does.
   */
  void checkSubmitAcl(UserGroupInformation user, String queue, ApplicationId appId)
      throws YarnException {
    if (!root.acls().enabled()) {
      return;
    }
    // Outside capacity the application runs in default whatever it named: default's lists.
    Queue q = root.isCapacity() ? root.lookup(queue) : root.leafForSubmission(queue);
    if (q == null) {
      return;
    }
    if (!q.hasAccess(QueueACL.SUBMIT_APPLICATIONS, user)
        && !q.hasAccess(QueueACL.ADMINISTER_QUEUE, user)) {
      String message = "User " + (user == null ? null : user.getShortUserName())
          + " does not have permission to submit " + appId + " to queue " + queue;
      LOG.warn(message);
      throw RPCUtil.getRemoteException(new AccessControlException(message));
    }
  }

  /**
   * An application naming a queue the core does not run never reaches the core: the RM fails
   * it with a message naming the queue and the configured ones (a recovered one is killed, as
   * CapacityScheduler does when a queue disappeared across a restart).
   */
  private void refuseUnknownQueue(ApplicationId appId, String requestedQueue, String user,
      boolean isAppRecovering) {
    String queues = "the leaf queues are " + String.join(", ", root.configuredNames());
    if (isAppRecovering) {
      rejectApplication(appId, true, "Application " + appId + " killed on recovery as it was "
          + "submitted to queue " + requestedQueue + " which no longer exists after restart; "
          + queues);
      return;
    }
    rejectApplication(appId, false, "Application " + appId + " submitted by user " + user
        + " to unknown queue: " + requestedQueue + "; " + queues);
  }

  /**
   * Fails a submission with {@code message} as its diagnostics; a recovered application is
   * killed instead, as CapacityScheduler does (a recovering app cannot be rejected).
   */
  private void rejectApplication(ApplicationId appId, boolean isAppRecovering,
      String message) {
    LOG.warn(message);
    rmContext.getDispatcher().getEventHandler().handle(new RMAppEvent(appId,
        isAppRecovering ? RMAppEventType.KILL : RMAppEventType.APP_REJECTED, message));
  }
}
