package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.RejectedSchedulingRequest;
import org.apache.hadoop.yarn.api.records.RejectionReason;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore.RMState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.locus.yarn.metrics.LocusMetrics;
import org.locus.yarn.queue.QueueFile;
import org.locus.yarn.web.WebDefaults;

/**
 * The scheduler the ResourceManager loads ({@code yarn.resourcemanager.scheduler.class}).
 *
 * <p>It keeps the RM's own bookkeeping (attempts, nodes, RMContainers, tokens, QueueMetrics) so
 * the rest of the RM sees a normal scheduler, and leaves every scheduling decision to the Locus
 * core: node and job events are forwarded as JSON messages, and the core's decisions are made
 * and executed on Locus's scheduling thread ({@link SchedulingLoop}, see docs/architecture.md).
 *
 * <p>Threads: scheduler events arrive on the RM's scheduler dispatcher thread, {@code allocate}
 * on many IPC threads; neither waits on a decision. Lock order: scheduler monitor, then
 * application (attempt monitor), then the core's own mutex; the core never calls back into the
 * RM.
 */
public class LocusScheduler
    extends AbstractYarnScheduler<FiCaSchedulerApp, FiCaSchedulerNode>
    implements Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final ResourceCalculator resourceCalculator = new DefaultResourceCalculator();
  private final DecisionExecutor executor = new DecisionExecutor(new ExecutorView());
  private final CoreLink link = new CoreLink();
  private final LocusMetrics metrics = new LocusMetrics(this::getCoreStatsJson);

  private Configuration conf;
  private volatile LocusRootQueue root;
  /** capacity-scheduler.xml as last accepted by the core (a rebuild replays these settings). */
  private volatile QueueFile queueFile;
  private volatile QueueQueries queues;
  private volatile ApplicationAdmission admission;
  private volatile ApplicationPriorities priorities;
  private volatile ApplicationMoves moves;
  private volatile LabelPolicy labels;
  private boolean usePortForNodeName;
  /** Locus's scheduling thread: where the core decides and decisions are committed. */
  private volatile SchedulingLoop loop;

  public LocusScheduler() {
    super(LocusScheduler.class.getName());
  }

  // ---------------------------------------------------------------- lifecycle, configuration

  @Override
  public synchronized void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public synchronized Configuration getConf() {
    return conf;
  }

  @Override
  public synchronized void setRMContext(RMContext rmContext) {
    this.rmContext = rmContext;
  }

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    validateAllocationLimits(conf);
    // Ordered by ApplicationId, i.e. by submission: the order operators see in the UI.
    this.applications = new ConcurrentSkipListMap<>();
    this.minimumAllocation = super.getMinimumAllocation();
    initMaximumResourceCapability(super.getMaximumAllocation());
    this.usePortForNodeName = conf.getBoolean(
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME);
    this.root = new LocusRootQueue(conf, this::getClusterResource);
    this.queues = new QueueQueries(root, applications);
    this.admission = new ApplicationAdmission(root, applications, link, rmContext);
    this.priorities = new ApplicationPriorities(applications, link, rmContext, this::queuePath);
    this.moves = new ApplicationMoves(root, applications, link);
    this.labels = new LabelPolicy(rmContext);
    priorities.readQueueSettings(conf);
    // Opened here so a bad locus.* key stops the RM before it serves anyone; the exception's
    // message is the core's and names the key.
    this.queueFile = QueueFile.read(conf, rmContext.getConfigurationProvider());
    link.open(LocusSettings.toJson(conf, queueFile), this, this::coreSettings,
        () -> CoreRebuild.replay(nodeTracker.getAllNodes(), applications, rmContext));
    this.loop = new SchedulingLoop(SchedulingMode.of(link.current()), link, executor, this,
        new LoopView());
    link.setResend(loop::asksChanged);
    if (LocusSettings.policyFromQueueFile(conf, queueFile)) {
      LOG.info("locus.policy is not set and capacity-scheduler.xml defines {} leaf queues: "
          + "Locus runs locus.policy=capacity over them", queueFile.leaves());
    }
    LOG.info("Locus core started with settings {}; {}; scheduling mode {}",
        LocusSettings.collect(conf), configureQueues(link.current(), conf), loop.mode());
    super.serviceInit(conf);
    schedulingMonitorManager.initialize(rmContext, conf);
    WebDefaults.install(conf);
  }

  private static void validateAllocationLimits(Configuration conf) {
    int minMem = conf.getInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB);
    int maxMem = conf.getInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB);
    if (minMem <= 0 || minMem > maxMem) {
      throw new YarnRuntimeException("Invalid scheduler allocation limits: "
          + YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB + "=" + minMem + ", "
          + YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB + "=" + maxMem
          + "; both must be positive and the minimum no larger than the maximum");
    }
  }

  @Override
  public void serviceStart() throws Exception {
    super.serviceStart();
    loop.start();
    metrics.register();
  }

  @Override
  public void serviceStop() throws Exception {
    try {
      if (loop != null) {
        loop.stop();
      }
      metrics.unregister();
      super.serviceStop();
    } finally {
      link.close();
    }
  }

  /**
   * {@code yarn rmadmin -refreshQueues}: the core re-reads the {@code locus.*} settings, then
   * the queue tree follows what the core now enforces (queues appear, capacities change).
   */
  @Override
  public synchronized void reinitialize(Configuration newConf, RMContext rmContext)
      throws IOException {
    // The core validates first: a refused refresh must leave the scheduler's Configuration as
    // well as the core on the settings that are still running.
    QueueFile file = QueueFile.read(newConf, rmContext.getConfigurationProvider());
    LocusCore c = link.reconfigure(LocusSettings.toJson(newConf, file));
    queueFile = file;
    String queues = configureQueues(c, newConf);
    priorities.readQueueSettings(newConf);
    loop.setMode(SchedulingMode.of(c));
    setConf(newConf);
    super.reinitialize(newConf, rmContext);
    LOG.info("Locus core reconfigured with {}; {}", LocusSettings.collect(newConf), queues);
  }

  /**
   * Rebuilds the queue tree from the core's queues. Runs under the scheduler's lock, as does
   * every submission, so an application is always placed against the queues the core has.
   */
  private String configureQueues(LocusCore c, Configuration conf) throws IOException {
    String queues = root.configure(CoreMessages.capacityQueues(c.capacityQueues()), queueFile);
    return queues + QueueFileSetup.apply(queueFile, root, conf, rmContext);
  }

  /** The settings a rebuilt core opens with: those in force now. */
  private synchronized String coreSettings() {
    QueueFile file = queueFile;
    return LocusSettings.toJson(conf != null ? conf : getConfig(), file);
  }

  /** Work-preserving restart recovers through APP_ADDED events and NM reports instead. */
  @Override
  public void recover(RMState state) {
  }

  /** The core's counters as JSON (allocations by locality, heartbeats, decisions, ...). */
  public String getCoreStatsJson() {
    return link.statsJson();
  }

  /** Timings the page and REST show (counters come from {@link #getCoreStatsJson}). */
  public LocusMetrics getLocusMetrics() {
    return metrics;
  }

  /** How many times a failed core was replaced by one rebuilt from the RM's bookkeeping. */
  public long getCoreRebuilds() {
    return link.rebuilds();
  }

  /** The core in service now (tests inject faults into it). */
  LocusCore currentCore() {
    return link.current();
  }

  /** Tests: runs on a rebuild after the replay, before the new core goes into service. */
  void setRebuildReplayedHook(Runnable hook) {
    link.setReplayedHook(hook);
  }

  /** The core rebuild started last, or null (tests wait on it). */
  java.util.concurrent.CompletableFuture<Void> lastCoreRebuild() {
    return link.lastRebuild();
  }

  // ---------------------------------------------------------------- talking to the core

  private LocusException send(ObjectNode event) {
    return link.send(Collections.singletonList(event), Collections.emptySet());
  }

  private LocusException send(List<ObjectNode> events,
      Collection<LocusAppAttempt> snapshotsFrom) {
    return link.send(events, snapshotsFrom);
  }

  /** The attempt's asks may have changed: the scheduling thread sends them before its pass. */
  private void pushAsks(LocusAppAttempt attempt) {
    loop.asksChanged(attempt);
  }

  private final class LoopView implements SchedulingLoop.Cluster {
    private final long heartbeatIntervalMs = getConfig().getLong(
        YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS,
        YarnConfiguration.DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS);

    @Override
    public List<FiCaSchedulerNode> nodes() {
      return nodeTracker.getAllNodes();
    }

    @Override
    public FiCaSchedulerNode node(NodeId id) {
      return nodeTracker.getNode(id);
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
      return getClock().getTime();
    }

    @Override
    public org.apache.hadoop.yarn.api.records.Resource minimumAllocation() {
      return getMinimumResourceCapability();
    }

    @Override
    public long nodeHeartbeatIntervalMs() {
      return heartbeatIntervalMs;
    }

    @Override
    public void afterPass() {
      for (SchedulerApplication<FiCaSchedulerApp> app : applications.values()) {
        FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
        if (attempt != null) {
          ((LocusQueue) app.getQueue()).updateHeadroom(attempt);
        }
      }
      root.updateAvailableMetrics();
    }
  }

  private final class ExecutorView implements DecisionExecutor.Cluster {
    @Override
    public LocusAppAttempt currentAttempt(ApplicationId app) {
      SchedulerApplication<FiCaSchedulerApp> a = applications.get(app);
      FiCaSchedulerApp attempt = a == null ? null : a.getCurrentAppAttempt();
      return attempt instanceof LocusAppAttempt ? (LocusAppAttempt) attempt : null;
    }

    @Override
    public FiCaSchedulerNode node(NodeId node) {
      return nodeTracker.getNode(node);
    }

    @Override
    public void containerCreated(RMContainer container) {
      LocusQueue leaf = queueOf(container.getApplicationAttemptId().getApplicationId());
      if (leaf != null) {
        leaf.addUsed(container.getAllocatedResource());
      }
    }

    @Override
    public void send(List<ObjectNode> events, Set<LocusAppAttempt> heldApps) {
      LocusScheduler.this.send(events, heldApps);
    }
  }

  // ---------------------------------------------------------------- scheduler events

  /**
   * The RM's SchedulerEventDispatcher calls {@code System.exit} on anything that escapes this
   * method, so nothing Locus can throw does: a failure is confined to the event that caused it
   * and logged once (rate-limited). Only a {@link VirtualMachineError} (out of memory, stack
   * overflow, internal error) is let through: then the JVM itself cannot be trusted, and the
   * RM's own policy of exiting is right. Everything else -- RuntimeExceptions from the core or
   * the RM's bookkeeping, LinkageErrors from a broken native library, AssertionErrors -- leaves
   * the RM serving. After each event a core that panicked is rebuilt (see {@link CoreLink}),
   * and a core the failed event may have left short of the RM's bookkeeping is resynchronised.
   */
  @Override
  public void handle(SchedulerEvent event) {
    long coreCalls = link.coreCallsOfThisThread();
    try {
      dispatch(event);
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Scheduler event " + event.getType(), SchedulerEvents.subject(event),
          t, event);
      link.eventFailed(t, coreCalls);
    }
    link.rebuildIfNeeded();
  }

  /**
   * AbstractYarnScheduler's updateNodeResource also tells the node label manager the node's
   * resource, which only CapacityScheduler keeps (Locus has no node labels); the manager is
   * left as empty as Locus found it. Usage reports no longer depend on it (see
   * {@link LocusAppAttempt#getResourceUsageReport}), so a failure here is logged, not the
   * event's: the core already has the update.
   */
  private void forgetNodeInLabelManager(NodeId id) {
    try {
      rmContext.getNodeLabelManager().deactivateNode(id);
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Removing a node from the node label manager", "node " + id, t, null);
    }
  }

  private void dispatch(SchedulerEvent event) {
    switch (event.getType()) {
      case NODE_ADDED: {
        NodeAddedSchedulerEvent e = (NodeAddedSchedulerEvent) event;
        addNode(e.getAddedRMNode());
        recoverContainersOnNode(e.getContainerReports(), e.getAddedRMNode());
        break;
      }
      case NODE_REMOVED:
        removeNode(((NodeRemovedSchedulerEvent) event).getRemovedRMNode());
        break;
      case NODE_RESOURCE_UPDATE: {
        NodeResourceUpdateSchedulerEvent e = (NodeResourceUpdateSchedulerEvent) event;
        NodeId id = e.getRMNode().getNodeID();
        try {
          updateNodeResource(e.getRMNode(), e.getResourceOption());
        } finally {
          // Whatever the RM now holds as the node's total reaches the core, even if the RM's
          // update failed part-way (handle() then has the core resynchronised).
          FiCaSchedulerNode node = nodeTracker.getNode(id);
          if (node != null) {
            send(CoreMessages.nodeResourceUpdated(node.getNodeID(), node.getTotalResource()));
          }
        }
        forgetNodeInLabelManager(id);
        break;
      }
      case NODE_UPDATE: {
        long start = System.nanoTime();
        nodeUpdate(((NodeUpdateSchedulerEvent) event).getRMNode());
        metrics.heartbeatHandled(System.nanoTime() - start);
        break;
      }
      case APP_ADDED: {
        AppAddedSchedulerEvent e = (AppAddedSchedulerEvent) event;
        addApplication(e.getApplicationId(), e.getQueue(), e.getUser(),
            e.getIsAppRecovering(), e.isUnmanagedAM());
        break;
      }
      case APP_REMOVED: {
        AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
        doneApplication(e.getApplicationID(), e.getFinalState());
        break;
      }
      case APP_ATTEMPT_ADDED: {
        AppAttemptAddedSchedulerEvent e = (AppAttemptAddedSchedulerEvent) event;
        addApplicationAttempt(e.getApplicationAttemptId(),
            e.getTransferStateFromPreviousAttempt(), e.getIsAttemptRecovering());
        break;
      }
      case APP_ATTEMPT_REMOVED: {
        AppAttemptRemovedSchedulerEvent e = (AppAttemptRemovedSchedulerEvent) event;
        doneApplicationAttempt(e.getApplicationAttemptID(), e.getFinalAttemptState(),
            e.getKeepContainersAcrossAppAttempts());
        break;
      }
      case CONTAINER_EXPIRED: {
        ContainerId id = ((ContainerExpiredSchedulerEvent) event).getContainerId();
        completedContainer(getRMContainer(id),
            SchedulerUtils.createAbnormalContainerStatus(id, SchedulerUtils.EXPIRED_CONTAINER),
            RMContainerEventType.EXPIRE);
        break;
      }
      case RELEASE_CONTAINER: {
        RMContainer c = ((ReleaseContainerEvent) event).getContainer();
        completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(c.getContainerId(),
            SchedulerUtils.RELEASED_CONTAINER), RMContainerEventType.RELEASED);
        break;
      }
      case MARK_CONTAINER_FOR_KILLABLE: {
        // The RM's own verdict (a node shrunk below what runs on it and its overcommit
        // timeout passed): the container must go, whatever the core thinks.
        RMContainer c = ((ContainerPreemptEvent) event).getContainer();
        completedContainer(c, SchedulerUtils.createPreemptedContainerStatus(c.getContainerId(),
            SchedulerUtils.PREEMPTED_CONTAINER), RMContainerEventType.KILL);
        break;
      }
      default:
        // Node labels/attributes, reservations, preemption marks and dynamic queue
        // management are not supported (queues come from the locus.* settings only); new
        // event types of a later Hadoop land here too rather than failing the dispatcher.
        LOG.warn("LocusScheduler ignores scheduler event {}", event.getType());
    }
  }

  private synchronized void addNode(RMNode rmNode) {
    FiCaSchedulerNode node = new FiCaSchedulerNode(rmNode, usePortForNodeName);
    nodeTracker.addNode(node);
    // "host" is the name this node's asks use (host, or host:port when the RM is configured
    // to include the port), so the core can match resource_name against it.
    send(CoreMessages.nodeAdded(rmNode.getNodeID(), node.getNodeName(), rmNode.getRackName(),
        rmNode.getTotalCapability()));
    link.learnHost(node.getNodeName());
    root.updateAvailableMetrics();
    LOG.info("Added node {} (rack {}) capability {}", rmNode.getNodeID(),
        rmNode.getRackName(), rmNode.getTotalCapability());
  }

  private synchronized void removeNode(RMNode rmNode) {
    FiCaSchedulerNode node = nodeTracker.getNode(rmNode.getNodeID());
    if (node == null) {
      return;
    }
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(c.getContainerId(),
          SchedulerUtils.LOST_CONTAINER), RMContainerEventType.KILL);
    }
    nodeTracker.removeNode(rmNode.getNodeID());
    link.forgetHost(node.getNodeName());
    send(CoreMessages.nodeRemoved(rmNode.getNodeID()));
    root.updateAvailableMetrics();
    LOG.info("Removed node {}", rmNode.getNodeID());
  }

  /** Places the application in its queue, or fails it naming why (see ApplicationAdmission). */
  synchronized void addApplication(ApplicationId appId, String requestedQueue, String user,
      boolean isAppRecovering, boolean unmanagedAM) {
    if (labels.refusedAtSubmission(appId, isAppRecovering)) {
      return;
    }
    admission.admit(appId, requestedQueue, user, isAppRecovering, unmanagedAM);
    priorities.admitted(appId);
  }

  /** The path of the leaf a queue name the RM passes stands for (the name if none). */
  private String queuePath(String queue) {
    LocusQueue leaf = root.leafForSubmission(queue);
    return leaf == null ? queue : leaf.path();
  }

  /** The leaf an application runs in; null once it is gone. */
  private LocusQueue queueOf(ApplicationId appId) {
    SchedulerApplication<FiCaSchedulerApp> app = applications.get(appId);
    return app == null ? null : (LocusQueue) app.getQueue();
  }

  synchronized void addApplicationAttempt(ApplicationAttemptId attemptId,
      boolean transferStateFromPreviousAttempt, boolean isAttemptRecovering) {
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

  private synchronized void doneApplication(ApplicationId appId, RMAppState finalState) {
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

  private synchronized void doneApplicationAttempt(ApplicationAttemptId attemptId,
      RMAppAttemptState finalState, boolean keepContainers) {
    FiCaSchedulerApp attempt = getApplicationAttempt(attemptId);
    if (attempt == null) {
      LOG.warn("Removal of unknown attempt {} ignored", attemptId);
      return;
    }
    for (RMContainer c : attempt.getLiveContainers()) {
      if (keepContainers && c.getState() == RMContainerState.RUNNING) {
        // Work-preserving AM restart: the next attempt inherits the running containers.
        continue;
      }
      completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(c.getContainerId(),
          SchedulerUtils.COMPLETED_APPLICATION), RMContainerEventType.KILL);
    }
    // Under the attempt's lock (scheduler -> application, the usual order): the scheduling
    // thread checks isStopped() and sends the attempt's asks under it, so no frame of the old
    // attempt can reach the core after attempt_removed and bring its asks back.
    synchronized (attempt) {
      attempt.stop(finalState);
      send(CoreMessages.attemptRemoved(attemptId));
    }
  }

  // ---------------------------------------------------------------- heartbeats and decisions

  /**
   * The RM's bookkeeping of a heartbeat (completed and launched containers) stays here, on the
   * dispatcher; the core decides for the node on Locus's scheduling thread ({@link
   * SchedulingLoop}), so a heartbeat never waits on a decision.
   */
  @Override
  protected synchronized void nodeUpdate(RMNode rmNode) {
    super.nodeUpdate(rmNode);
    // No lookup of the node here: the scheduling thread skips a node the RM no longer tracks.
    loop.nodeHeartbeat(rmNode.getNodeID());
  }

  /** Tests hold or fail a scheduling pass after the core decided for a batch of nodes. */
  void setPassHook(java.util.function.BiConsumer<List<NodeId>, JsonNode> hook) {
    loop.setDecidedHook(hook);
  }

  /** Tests: waits (up to a minute) until the scheduling thread has nothing left to do. */
  void awaitSchedulingIdle() throws InterruptedException {
    if (!loop.awaitIdle(60_000)) {
      throw new IllegalStateException("Locus's scheduling thread did not settle in a minute");
    }
  }

  /**
   * Executes a heartbeat response as if the core had sent it. Lets tests feed decisions the
   * core would not make (stale, oversized, at the wrong place) to the shim's validation.
   */
  synchronized void executeDecisions(String responseJson) throws IOException {
    executor.run(CoreMessages.JSON.readTree(responseJson));
  }

  /**
   * Runs on the RM's IPC threads for every AM heartbeat. Whatever fails here (the same policy
   * as {@link #handle}) fails this call for this AM only, logged once, and never reaches the
   * other applications.
   */
  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    // Outside the guard: the AM must hear the refusal, not an empty allocation.
    LabelPolicy.refuseLabelledAsks(attemptId, ask);
    long start = System.nanoTime();
    try {
      return allocateGuarded(attemptId, ask, schedulingRequests, release, blacklistAdditions,
          blacklistRemovals, updateRequests);
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("allocate", "attempt " + attemptId, t, ask);
      return EMPTY_ALLOCATION;
    } finally {
      metrics.allocateHandled(System.nanoTime() - start);
    }
  }

  private Allocation allocateGuarded(ApplicationAttemptId attemptId,
      List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    FiCaSchedulerApp found = getApplicationAttempt(attemptId);
    if (!(found instanceof LocusAppAttempt)
        || !found.getApplicationAttemptId().equals(attemptId)) {
      // A late call from a finished or superseded attempt must not touch the current one.
      LOG.error("allocate called by {}, which is not a running attempt", attemptId);
      return EMPTY_ALLOCATION;
    }
    LocusAppAttempt attempt = (LocusAppAttempt) found;
    // Placement constraints (SchedulingRequests) are not part of the core's model: the AM
    // gets them back as rejected rather than waiting for containers that never come.
    List<RejectedSchedulingRequest> rejected = null;
    if (schedulingRequests != null && !schedulingRequests.isEmpty()) {
      LOG.warn("Application {} sent {} SchedulingRequests (placement constraints); Locus "
          + "schedules ResourceRequests only and rejects them", attemptId.getApplicationId(),
          schedulingRequests.size());
      rejected = new ArrayList<>();
      for (SchedulingRequest r : schedulingRequests) {
        rejected.add(RejectedSchedulingRequest.newInstance(
            RejectionReason.COULD_NOT_SCHEDULE_ON_NODE, r));
      }
    }
    normalizeResourceRequests(ask);
    releaseContainers(release, attempt);
    Allocation allocation;
    synchronized (attempt) {
      if (attempt.isStopped()) {
        LOG.info("allocate called by stopped attempt {}", attemptId);
        return EMPTY_ALLOCATION;
      }
      if (!ask.isEmpty()) {
        attempt.updateResourceRequests(ask);
      }
      attempt.updateBlacklist(blacklistAdditions, blacklistRemovals);
      int refused = attempt.refuseContainerUpdates(updateRequests);
      if (refused > 0) {
        LOG.warn("Refused {} container update requests of {}", refused, attemptId);
      }
      if (!ask.isEmpty()) {
        // Recorded for the scheduling thread, which sends them to the core before its next
        // pass: an AM never waits on a decision or on the core. Only the rows it changed
        // cross (LocusAppAttempt#takeAsksFrame).
        attempt.noteAsksChanged(ask);
        loop.asksChanged(attempt);
      }
      org.apache.hadoop.yarn.api.records.Resource headroom = attempt.getHeadroom();
      attempt.setApplicationHeadroomForMetrics(headroom);
      allocation = new Allocation(attempt.pullNewlyAllocatedContainers(), headroom, null, null,
          null, attempt.pullUpdatedNMTokens(), null, null, null, null, null, rejected);
    }
    try {
      attempt.showAsksVerdict();
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      // Diagnostics only: the containers just pulled from the attempt must reach the AM.
      link.failures().warn("Showing Locus's verdict on the asks", "attempt " + attemptId, t, null);
    }
    return allocation;
  }

  // ---------------------------------------------------------------- containers

  @Override
  protected synchronized void completedContainerInternal(RMContainer rmContainer,
      ContainerStatus status, RMContainerEventType event) {
    Container container = rmContainer.getContainer();
    FiCaSchedulerApp attempt = getCurrentAttemptForContainer(container.getId());
    if (attempt == null) {
      LOG.info("Container {} of an unknown application completed ({})", container.getId(),
          event);
      return;
    }
    String partition = rmContainer.getNodeLabelExpression();
    if (!attempt.containerCompleted(rmContainer, status, event, partition)) {
      // Already completed through another path (e.g. released, then reported by the NM).
      return;
    }
    FiCaSchedulerNode node = nodeTracker.getNode(container.getNodeId());
    if (node != null) {
      node.releaseContainer(container.getId(), false);
    }
    ((LocusQueue) attempt.getQueue()).subtractUsed(container.getResource());
    // Never waits for a scheduling pass holding the core (issue 9 item 3): see CoreLink.
    link.sendDeferrable(Collections.singletonList(CoreMessages.containerReleased(
        container.getId(), container.getNodeId(), container.getResource())));
    loop.resourcesFreed();
    LOG.info("Attempt {} released container {} on {} ({})", attempt.getApplicationAttemptId(),
        container.getId(), container.getNodeId(), event);
  }

  /** The RM may put an ask back after a completion (a container lost before the AM got it). */
  @Override
  public void completedContainer(RMContainer rmContainer, ContainerStatus status,
      RMContainerEventType event) {
    super.completedContainer(rmContainer, status, event);
    if (rmContainer != null) {
      FiCaSchedulerApp attempt = getCurrentAttemptForContainer(rmContainer.getContainerId());
      if (attempt instanceof LocusAppAttempt) {
        pushAsks((LocusAppAttempt) attempt);
      }
    }
  }

  @Override
  public void killContainer(RMContainer container) {
    LOG.info("Killing container {}", container.getContainerId());
    completedContainer(container, SchedulerUtils.createKilledContainerStatus(
        container.getContainerId(), "Container killed by the ResourceManager"),
        RMContainerEventType.KILL);
  }

  /**
   * Work-preserving RM restart: the RM rebuilds the containers an NM reports, and the core,
   * which starts empty, learns each one as a recovered allocation.
   */
  @Override
  public synchronized void recoverContainersOnNode(List<NMContainerStatus> reports,
      RMNode rmNode) {
    Set<ContainerId> liveBefore = new HashSet<>();
    if (reports != null) {
      for (NMContainerStatus r : reports) {
        if (isLive(r.getContainerId())) {
          liveBefore.add(r.getContainerId());
        }
      }
    }
    super.recoverContainersOnNode(reports, rmNode);
    if (reports == null || reports.isEmpty()) {
      return;
    }
    List<ObjectNode> events = new ArrayList<>();
    Set<LocusAppAttempt> apps = new HashSet<>();
    for (NMContainerStatus r : reports) {
      ContainerId id = r.getContainerId();
      if (liveBefore.contains(id) || !isLive(id)) {
        continue;
      }
      FiCaSchedulerApp attempt = getCurrentAttemptForContainer(id);
      RMContainer c = attempt.getRMContainer(id);
      // The original locality is not in the NM's report; recovered=true tells the core not
      // to count it as a placement outcome.
      events.add(CoreMessages.containerAllocated(id, rmNode.getNodeID(),
          c.getContainer().getPriority().getPriority(),
          c.getContainer().getAllocationRequestId(), c.getAllocatedResource(),
          NodeType.OFF_SWITCH, true));
      if (attempt instanceof LocusAppAttempt) {
        apps.add((LocusAppAttempt) attempt);
      }
    }
    send(events, Collections.emptySet());
    for (LocusAppAttempt a : apps) {
      pushAsks(a);
    }
  }

  private boolean isLive(ContainerId id) {
    FiCaSchedulerApp attempt = getCurrentAttemptForContainer(id);
    return attempt != null && attempt.getLiveContainersMap().containsKey(id);
  }

  // ---------------------------------------------------------------- queue and cluster queries

  @Override
  public QueueInfo getQueueInfo(String queueName, boolean includeChildQueues,
      boolean recursive) throws IOException {
    return queues.queueInfo(queueName, includeChildQueues, recursive);
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo() {
    return queues.userAclInfo();
  }

  @Override
  public boolean checkAccess(UserGroupInformation callerUGI, QueueACL acl, String queueName) {
    // The RM asks with the application's queue: a path under capacity, the name it was
    // submitted with otherwise (it runs in default). An unknown queue is refused, as in CS.
    Queue q = root.describing(queueName);
    return q != null && q.hasAccess(acl, callerUGI);
  }

  @Override
  public List<ApplicationAttemptId> getAppsInQueue(String queueName) {
    return queues.appsInQueue(queueName);
  }

  @Override
  public synchronized String moveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    return moves.move(appId, newQueue);
  }

  @Override
  public synchronized void preValidateMoveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    moves.check(appId, newQueue);
  }

  @Override
  public Priority checkAndGetApplicationPriority(Priority requested, UserGroupInformation user,
      String queue, ApplicationId appId) throws YarnException {
    return priorities.checkAndGet(requested, user, queue, appId, getMaxClusterLevelAppPriority());
  }

  @Override
  public synchronized Priority updateApplicationPriority(Priority priority, ApplicationId appId,
      SettableFuture<Object> future, UserGroupInformation user) throws YarnException {
    return priorities.update(priority, appId, future, user, getMaxClusterLevelAppPriority());
  }

  @Override
  public QueueMetrics getRootQueueMetrics() {
    return root.getMetrics();
  }

  @Override
  public int getNumClusterNodes() {
    return nodeTracker.nodeCount();
  }

  @Override
  public ResourceCalculator getResourceCalculator() {
    return resourceCalculator;
  }

  /** Memory and vcores used by all containers (for tests and the demo). */
  public org.apache.hadoop.yarn.api.records.Resource getUsedResource() {
    return root.getUsed();
  }
}
