package org.locus.yarn;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.ApplicationStateData;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AppPriorityACLGroup;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.locus.yarn.queue.QueueFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * YARN application priority as CapacityScheduler settles it: the RM asks at submission
 * ({@code checkAndGetApplicationPriority}) and at {@code yarn application -updatePriority}
 * ({@code updateApplicationPriority}); the priority goes to the core ({@code app_added},
 * {@code app_priority_changed}), which orders pending applications by it (higher first, then
 * submission) under every policy that keeps a FIFO order. The shim only decides the number.
 *
 * <p>The rules, CS's: an application submitted without a priority gets its user's
 * {@code default_priority} from the queue's {@code acl_application_max_priority}, else the
 * queue's {@code default-application-priority}, else 0; any priority is capped at
 * {@code yarn.cluster.max-application-priority}; with {@code yarn.acl.enable} and a queue that
 * has {@code acl_application_max_priority} entries, a priority above every entry the user
 * matches is refused naming user, application and priority.
 */
final class ApplicationPriorities {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications;
  private final CoreLink link;
  private final RMContext rmContext;
  /** A queue name as the RM passes it (short, path, or one Locus maps to default) to its path. */
  private final Function<String, String> queuePath;
  private volatile QueueSettings settings = QueueSettings.NONE;

  ApplicationPriorities(Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications,
      CoreLink link, RMContext rmContext, Function<String, String> queuePath) {
    this.applications = applications;
    this.link = link;
    this.rmContext = rmContext;
    this.queuePath = queuePath;
  }

  /**
   * The hook for the queue configuration: per-queue defaults and priority ACLs are read from
   * {@code cs} with CapacitySchedulerConfiguration's own getters whenever a priority is settled,
   * so a refreshed configuration counts from the next submission or update.
   */
  void useQueueSettings(CapacitySchedulerConfiguration cs, boolean aclsEnabled) {
    this.settings = new QueueSettings(cs, aclsEnabled);
  }

  /**
   * Takes the per-queue settings from {@code file}, the capacity-scheduler.xml the queues and
   * their ACLs come from (read through the RM's configuration provider, as CapacityScheduler
   * reads it), with {@code yarn.acl.enable} from {@code conf}; called at start and at every
   * {@code -refreshQueues}.
   */
  void readQueueSettings(QueueFile file, Configuration conf) {
    useQueueSettings(file.configuration(), YarnConfiguration.isAclEnabled(conf));
  }

  /** After APP_ADDED: the scheduler's copy of the priority the RM settled at submission. */
  void admitted(ApplicationId appId) {
    SchedulerApplication<FiCaSchedulerApp> app = applications.get(appId);
    if (app != null) {
      app.setPriority(Priority.newInstance(of(rmContext.getRMApps().get(appId))));
    }
  }

  /** {@code checkAndGetApplicationPriority}: the priority the application will run with. */
  Priority checkAndGet(Priority requested, UserGroupInformation user, String queue,
      ApplicationId appId, Priority clusterMax) throws YarnException {
    String path = queuePath.apply(queue);
    Priority p = requested;
    if (p == null) {
      p = settings.defaultFor(path, user);
      LOG.info("Application {} submitted without a priority: it gets {} of queue {}", appId,
          p.getPriority(), path);
    }
    if (p.getPriority() > clusterMax.getPriority()) {
      p = clusterMax;
    }
    if (!settings.allows(path, user, p)) {
      // CapacityScheduler's words, so a client sees the same refusal under either.
      throw new YarnException(new AccessControlException("User " + user
          + " does not have permission to submit/update " + appId + " for " + p));
    }
    return p;
  }

  /**
   * {@code updateApplicationPriority}: the core reorders first (a refusal changes nothing),
   * then the scheduler's and the submission context's priority change and the state store is
   * updated, completing {@code future} (the RM's client call waits on it).
   */
  Priority update(Priority requested, ApplicationId appId, SettableFuture<Object> future,
      UserGroupInformation user, Priority clusterMax) throws YarnException {
    SchedulerApplication<FiCaSchedulerApp> app = applications.get(appId);
    RMApp rmApp = rmContext.getRMApps().get(appId);
    if (app == null || rmApp == null) {
      throw new YarnException("Application '" + appId
          + "' is not present, hence could not change priority.");
    }
    Priority p = checkAndGet(requested, user, rmApp.getQueue(), appId, clusterMax);
    if (p.equals(app.getPriority())) {
      future.set(null);
      return p;
    }
    LocusException refused = link.send(
        Collections.singletonList(CoreMessages.appPriorityChanged(appId, p.getPriority())),
        Collections.emptySet());
    if (refused != null && !(refused instanceof LocusCorePoisonedException)) {
      throw new YarnException("Locus refused priority " + p.getPriority() + " for " + appId
          + ": " + refused.getMessage(), refused);
    }
    app.setPriority(p);
    rmApp.getApplicationSubmissionContext().setPriority(p);
    ApplicationStateData state = ApplicationStateData.newInstance(rmApp.getSubmitTime(),
        rmApp.getStartTime(), rmApp.getApplicationSubmissionContext(), rmApp.getUser(),
        rmApp.getRealUser(), rmApp.getCallerContext());
    state.setApplicationTimeouts(rmApp.getApplicationTimeouts());
    state.setLaunchTime(rmApp.getLaunchTime());
    rmContext.getStateStore().updateApplicationStateSynchronously(state, false, future);
    LOG.info("Priority of application {} in queue {} is now {}", appId, rmApp.getQueue(),
        p.getPriority());
    return p;
  }

  /** The priority an application was admitted with (what the RM settled at submission). */
  static int of(RMApp rmApp) {
    Priority p = rmApp == null ? null : rmApp.getApplicationPriority();
    return p == null ? 0 : p.getPriority();
  }

  /** Per-queue priority settings, read through CapacitySchedulerConfiguration. */
  private static final class QueueSettings {
    static final QueueSettings NONE = new QueueSettings(null, false);

    private final CapacitySchedulerConfiguration cs;
    private final boolean aclsEnabled;

    QueueSettings(CapacitySchedulerConfiguration cs, boolean aclsEnabled) {
      this.cs = cs;
      this.aclsEnabled = aclsEnabled;
    }

    private List<AppPriorityACLGroup> acls(String path) {
      if (cs == null || path == null || !aclsEnabled) {
        return Collections.emptyList();
      }
      // The groups' own maximum is capped by this argument; the cluster cap applies anyway.
      return cs.getPriorityAcls(new QueuePath(path), Priority.newInstance(Integer.MAX_VALUE));
    }

    Priority defaultFor(String path, UserGroupInformation user) {
      for (AppPriorityACLGroup g : acls(path)) {
        if (matches(g.getACLList(), user) && g.getDefaultPriority() != null) {
          return g.getDefaultPriority();
        }
      }
      if (cs == null || path == null) {
        return Priority.newInstance(0);
      }
      Integer d = cs.getDefaultApplicationPriorityConfPerQueue(new QueuePath(path));
      return Priority.newInstance(d == null ? 0 : d);
    }

    boolean allows(String path, UserGroupInformation user, Priority p) {
      List<AppPriorityACLGroup> groups = acls(path);
      if (groups.isEmpty()) {
        return true;
      }
      for (AppPriorityACLGroup g : groups) {
        if (matches(g.getACLList(), user) && g.getMaxPriority() != null
            && p.getPriority() <= g.getMaxPriority().getPriority()) {
          return true;
        }
      }
      return false;
    }

    private static boolean matches(AccessControlList acl, UserGroupInformation user) {
      return acl != null && user != null && acl.isUserAllowed(user);
    }
  }
}
