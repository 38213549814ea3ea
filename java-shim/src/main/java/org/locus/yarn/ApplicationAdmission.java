package org.locus.yarn;

import java.util.Collections;
import java.util.Map;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.security.AccessType;
import org.locus.yarn.queue.QueueFile;
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
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
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
  private final QueueCreator creator;

  /** Creates leaves on the fly where capacity-scheduler.xml allows it. */
  interface QueueCreator {
    /** Whether a submission to {@code path} would create it. */
    boolean mayCreate(String path);

    /** {@code queue} with a parent named by its short name resolved to its full path. */
    String fullPath(String queue);

    /**
     * Creates the leaf at {@code path} in the core's tree and the RM's; caller holds the
     * scheduler lock.
     *
     * @throws QueueFile.CreationRefused naming why not
     */
    void create(String path) throws QueueFile.CreationRefused;

    /** Whether the leaf at {@code path} was created under a managed parent. */
    boolean isLegacyCreated(String path);

    /** An application was accepted into the leaf at {@code path}. */
    void submittedTo(String path);

    /**
     * The lists of the queues a submission to {@code path} would create (the leaf and the
     * parents missing above it); any of them may admit it.
     */
    java.util.List<Map<AccessType, AccessControlList>> aclsOf(String path);
  }

  ApplicationAdmission(LocusRootQueue root,
      Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications, CoreLink link,
      RMContext rmContext, QueueCreator creator) {
    this.root = root;
    this.applications = applications;
    this.link = link;
    this.rmContext = rmContext;
    this.creator = creator;
  }

  /**
   * Caller holds the scheduler lock, as for every change of the queue tree.
   *
   * @param placed whether the RM's placement rules chose the queue (CapacityScheduler's
   *     placement context), which words a refused creation as CapacityScheduler does
   */
  void admit(ApplicationId appId, String requestedQueue, String user, boolean isAppRecovering,
      boolean unmanagedAM, boolean placed) {
    if (root.isCapacity()) {
      requestedQueue = creator.fullPath(requestedQueue);
    }
    LocusQueue leaf = root.leafForSubmission(requestedQueue);
    String notCreated = null;
    if (leaf == null && root.isCapacity() && creator.mayCreate(requestedQueue)) {
      try {
        creator.create(requestedQueue);
      } catch (QueueFile.CreationRefused e) {
        notCreated = e.getMessage();
        LOG.warn("Could not auto-create leaf queue {}: {}", requestedQueue, e.getMessage());
        if (placed || isAppRecovering) {
          rejectApplication(appId, isAppRecovering, isAppRecovering
              ? "Application killed on recovery as it was submitted to queue "
                  + requestedQueue + " which did not exist and could not be auto-created"
              : "Application " + appId + " submission by user : " + user + " to  queue : "
                  + requestedQueue + " failed : " + e.getMessage());
          return;
        }
        // CapacityScheduler answers a queue named by the client that it could not create as
        // an unknown one; the reason follows.
      }
      leaf = root.leafForSubmission(requestedQueue);
    }
    if (leaf == null) {
      refuseUnknownQueue(appId, requestedQueue, user, isAppRecovering, notCreated);
      return;
    }
    if (!placed && !isAppRecovering && leaf.path() != null
        && creator.isLegacyCreated(leaf.path())) {
      // CapacityScheduler admits to a managed parent's leaf only what a queue mapping placed
      // there, even once it exists (created by this very submission, too).
      rejectApplication(appId, false, "Application " + appId + " submission by user : " + user
          + " to specified queue : " + requestedQueue + "  is prohibited. Verify automatic "
          + "queue mapping for user exists in " + CapacitySchedulerConfiguration.QUEUE_MAPPING);
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
    if (leaf.path() != null) {
      creator.submittedTo(leaf.path());
    }
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
    if (root.isCapacity()) {
      queue = creator.fullPath(queue);
    }
    // Outside capacity the application runs in default whatever it named: default's lists.
    Queue q = root.isCapacity() ? root.lookup(queue) : root.leafForSubmission(queue);
    if (q == null && root.isCapacity() && creator.mayCreate(queue)) {
      // A queue yet to be created, as CapacityScheduler checks it: what the queues above
      // grant (the authorizer walks up the path), or the lists the templates give the leaf.
      if (!root.acls().grantsAbove(user, queue) && !templatesGrant(user, queue)) {
        String message = "User " + (user == null ? null : user.getShortUserName())
            + " does not have permission to submit " + appId + " to queue " + queue;
        LOG.warn(message);
        throw RPCUtil.getRemoteException(new AccessControlException(message));
      }
      return;
    }
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

  private boolean templatesGrant(UserGroupInformation user, String queue) {
    if (user == null) {
      return false;
    }
    for (Map<AccessType, AccessControlList> acls : creator.aclsOf(queue)) {
      for (AccessType t : new AccessType[] {AccessType.SUBMIT_APP,
          AccessType.ADMINISTER_QUEUE}) {
        AccessControlList list = acls.get(t);
        if (list != null && list.isUserAllowed(user)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * An application naming a queue the core does not run never reaches the core: the RM fails
   * it with a message naming the queue and the configured ones (a recovered one is killed, as
   * CapacityScheduler does when a queue disappeared across a restart).
   */
  private void refuseUnknownQueue(ApplicationId appId, String requestedQueue, String user,
      boolean isAppRecovering, String notCreated) {
    String queues = (notCreated == null ? "" : "it could not be created: " + notCreated + "; ")
        + "the leaf queues are " + String.join(", ", root.configuredNames());
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
