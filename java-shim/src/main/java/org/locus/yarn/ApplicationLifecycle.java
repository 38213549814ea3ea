package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * APP_ADDED, APP_ATTEMPT_ADDED, APP_ATTEMPT_REMOVED, APP_REMOVED: the scheduler's record of each
 * application and its current attempt, and the core told of each change. Each runs holding the
 * scheduler's lock (the {@link LocusScheduler} itself), as every change of the queues does.
 */
final class ApplicationLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final LocusScheduler scheduler;
  private final Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications;
  private final LocusRootQueue root;
  private final CoreLink link;
  private final RMContext rmContext;
  private final ApplicationAdmission admission;
  private final ApplicationPriorities priorities;

  ApplicationLifecycle(LocusScheduler scheduler,
      Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications,
      LocusRootQueue root, CoreLink link, RMContext rmContext,
      ApplicationAdmission admission, ApplicationPriorities priorities) {
    this.scheduler = scheduler;
    this.applications = applications;
    this.root = root;
    this.link = link;
    this.rmContext = rmContext;
    this.admission = admission;
    this.priorities = priorities;
  }

  private void send(ObjectNode event) {
    link.send(Collections.singletonList(event), Collections.emptySet());
  }

  /** Places the application in its queue, or fails it naming why (see ApplicationAdmission). */
  void addApplication(ApplicationId appId, String requestedQueue, String user,
      boolean isAppRecovering, boolean unmanagedAM, boolean placed) {
    synchronized (scheduler) {
      admission.admit(appId, requestedQueue, user, isAppRecovering, unmanagedAM, placed);
      priorities.admitted(appId);
    }
  }

  void addApplicationAttempt(ApplicationAttemptId attemptId,
      boolean transferStateFromPreviousAttempt, boolean isAttemptRecovering) {
    synchronized (scheduler) {
      SchedulerApplication<FiCaSchedulerApp> app =
          applications.get(attemptId.getApplicationId());
      if (app == null) {
        LOG.warn("Attempt {} added for an application the scheduler does not know", attemptId);
        return;
      }
      LocusQueue leaf = (LocusQueue) app.getQueue();
      LocusAppAttempt attempt = new LocusAppAttempt(attemptId, app.getUser(), leaf,
          leaf.getAbstractUsersManager(), rmContext);
      if (transferStateFromPreviousAttempt && app.getCurrentAppAttempt() != null) {
        attempt.transferStateFromPreviousAttempt(app.getCurrentAppAttempt());
      }
      app.setCurrentAppAttempt(attempt);
      leaf.getMetrics().submitAppAttempt(app.getUser(), app.isUnmanagedAM());
      send(CoreMessages.attemptAdded(attemptId));
      LOG.info("Added attempt {} of user {}", attemptId, app.getUser());
      if (!isAttemptRecovering) {
        rmContext.getDispatcher().getEventHandler()
            .handle(new RMAppAttemptEvent(attemptId, RMAppAttemptEventType.ATTEMPT_ADDED));
      }
    }
  }

  void doneApplication(ApplicationId appId, RMAppState finalState) {
    synchronized (scheduler) {
      SchedulerApplication<FiCaSchedulerApp> app = applications.get(appId);
      if (app == null) {
        LOG.warn("Removal of unknown application {} ignored", appId);
        return;
      }
      LocusQueue leaf = (LocusQueue) app.getQueue();
      leaf.getAbstractUsersManager().deactivateApplication(app.getUser(), appId);
      app.stop(finalState);
      applications.remove(appId);
      leaf.applicationRemoved();
      root.dropIfDrained(leaf);
      send(CoreMessages.appRemoved(appId));
    }
  }

  void doneApplicationAttempt(ApplicationAttemptId attemptId, RMAppAttemptState finalState,
      boolean keepContainers) {
    synchronized (scheduler) {
      FiCaSchedulerApp attempt = scheduler.getApplicationAttempt(attemptId);
      if (attempt == null) {
        LOG.warn("Removal of unknown attempt {} ignored", attemptId);
        return;
      }
      for (RMContainer c : attempt.getLiveContainers()) {
        if (keepContainers && c.getState() == RMContainerState.RUNNING) {
          // Work-preserving AM restart: the next attempt inherits the running containers.
          continue;
        }
        scheduler.completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
            c.getContainerId(), SchedulerUtils.COMPLETED_APPLICATION),
            RMContainerEventType.KILL);
      }
      // Under the attempt's lock (scheduler -> application, the usual order): the scheduling
      // thread checks isStopped() and sends the attempt's asks under it, so no frame of the old
      // attempt can reach the core after attempt_removed and bring its asks back.
      synchronized (attempt) {
        attempt.stop(finalState);
        send(CoreMessages.attemptRemoved(attemptId));
      }
    }
  }
}
