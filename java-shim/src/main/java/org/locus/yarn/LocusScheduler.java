package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore.RMState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.apache.hadoop.yarn.util.resource.Resources;
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
 * and executed on Locus's scheduling thread ({@link SchedulingLoop}, see docs/design/architecture.md).
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

  /**
   * How the RM normalises and compares resources for this scheduler: capacity-scheduler.xml's
   * {@code resource-calculator} (with {@code DominantResourceCalculator} every ask keeps its
   * GPUs and other types, the core places it only where each fits, and under {@code capacity}
   * the queues' limits compare every type). Set once at start, as CapacityScheduler reads it
   * once; a refresh naming the other calculator is refused.
   */
  private volatile ResourceCalculator resourceCalculator = new DefaultResourceCalculator();
  private final CoreLink link = new CoreLink();
  private final DecisionExecutor executor = new DecisionExecutor(new ExecutorView(this, link));
  private final LocusMetrics metrics = new LocusMetrics(this::getCoreStatsJson,
      this::queuedHeartbeats, this::oldestQueuedHeartbeatAgeMs);

  private Configuration conf;
  private volatile LocusRootQueue root;
  /** capacity-scheduler.xml as last accepted by the core (a rebuild replays these settings). */
  private volatile QueueFile queueFile;
  private volatile QueueQueries queues;
  private volatile ApplicationAdmission admission;
  private volatile ApplicationPriorities priorities;
  private volatile ApplicationMoves moves;
  private volatile SchedulerEventRouter router;
  private boolean usePortForNodeName;
  /** Locus's scheduling thread: where the core decides and decisions are committed. */
  private volatile SchedulingLoop loop;
  private volatile ContainerRecovery recovery;
  private volatile AllocateHandler allocations;
  /**
   * The RM's queue authorizer ({@code yarn.authorization-provider}): one per RM process, as
   * CapacityScheduler's, and kept for every refresh.
   */
  private volatile YarnAuthorizationProvider authorizer;

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
    // The monitors' list as Locus runs it; a class it cannot run stops the RM here.
    Configuration monitors = MonitorPolicies.forLocus(conf);
    MonitorPolicies.checkSizeBased(monitors);
    // Ordered by ApplicationId, i.e. by submission: the order operators see in the UI.
    this.applications = new ConcurrentSkipListMap<>();
    this.minimumAllocation = super.getMinimumAllocation();
    initMaximumResourceCapability(super.getMaximumAllocation());
    this.usePortForNodeName = conf.getBoolean(
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME);
    this.authorizer = YarnAuthorizationProvider.getInstance(conf);
    this.root = new LocusRootQueue(conf, this::getClusterResource);
    this.queues = new QueueQueries(root, applications);
    this.admission = new ApplicationAdmission(root, applications, link, rmContext,
        new ApplicationAdmission.QueueCreator() {
          @Override
          public boolean mayCreate(String path) {
            QueueFile file = queueFile;
            return file != null && file.mayCreate(path);
          }

          @Override
          public void create(String path) throws QueueFile.CreationRefused {
            createQueue(path);
          }

          @Override
          public String fullPath(String queue) {
            QueueFile file = queueFile;
            return file == null ? queue : file.fullPath(queue);
          }

          @Override
          public boolean isLegacyCreated(String path) {
            QueueFile file = queueFile;
            return file != null && file.isLegacyCreated(path);
          }

          @Override
          public void submittedTo(String path) {
            LocusScheduler.this.submittedTo(path);
          }

          @Override
          public java.util.List<java.util.Map<org.apache.hadoop.yarn.security.AccessType,
              org.apache.hadoop.security.authorize.AccessControlList>> aclsOf(String path) {
            return queueFile.createdQueueAcls(path);
          }
        });
    this.priorities = new ApplicationPriorities(applications, link, rmContext, this::queuePath);
    this.moves = new ApplicationMoves(root, applications, link);
    this.router = new SchedulerEventRouter(this, new ApplicationLifecycle(this, applications, root,
        link, rmContext, admission, priorities), link, rmContext, metrics);
    // Opened here so a bad locus.* key stops the RM before it serves anyone; the exception's
    // message is the core's and names the key.
    this.queueFile = QueueFile.read(conf, rmContext.getConfigurationProvider());
    boolean capacityPolicy = LocusSettings.policyFromQueueFile(conf, queueFile)
        || "capacity".equals(conf.getTrimmed(LocusSettings.POLICY));
    ResourceCalculator configured = queueFile.configuration().getResourceCalculator();
    ResourceTypes.check(configured, CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS);
    this.resourceCalculator = configured;
    MonitorPolicies.checkPartitions(monitors, queueFile, capacityPolicy);
    MonitorPolicies.checkFairOrdering(monitors, queueFile, capacityPolicy);
    MonitorPolicies.checkCalculator(monitors, queueFile, capacityPolicy);
    ResourceTypes.checkCapacityShortcut(conf, queueFile, capacityPolicy,
        CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS);
    ResourceTypes.checkAbsoluteTypes(queueFile, capacityPolicy,
        CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS);
    priorities.readQueueSettings(queueFile, conf);
    link.open(LocusSettings.toJson(conf, queueFile), this, this::coreSettings,
        () -> CoreRebuild.replay(nodeTracker.getAllNodes(), applications, rmContext));
    this.loop = new SchedulingLoop(link, executor, this, new LoopView(this, rmContext, root));
    link.setResend(loop::asksChanged);
    link.setModeChanged(loop::modeChanged);
    this.recovery = new ContainerRecovery(this, link, loop);
    this.allocations = new AllocateHandler(this::getApplicationAttempt,
        this::normalizeResourceRequests, this::releaseContainers, link, loop, EMPTY_ALLOCATION,
        this::getMinimumResourceCapability);
    if (LocusSettings.policyFromQueueFile(conf, queueFile)) {
      LOG.info("locus.policy is not set and capacity-scheduler.xml defines {} leaf queues: "
          + "Locus runs locus.policy=capacity over them", queueFile.leaves());
    }
    LOG.info("Locus core started with settings {}; {}; scheduling mode {}",
        LocusSettings.collect(conf), configureQueues(link.current().capacityQueues(), conf),
        loop.mode());
    super.serviceInit(conf);
    schedulingMonitorManager.initialize(rmContext, monitors);
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
    QueueFile inForce = queueFile;
    // Queues created on the fly stay, as in CapacityScheduler, while the file allows them.
    QueueFile file = QueueFile.read(newConf, rmContext.getConfigurationProvider())
        .keeping(inForce, applicationLeaves());
    try {
      file.checkMaximumAllocationsKept(inForce);
    } catch (IOException e) {
      throw new IOException("Locus refused the refreshed configuration: " + e.getMessage()
          + "; the settings in force are unchanged", e);
    }
    if (QueueFile.dominant(file.configuration())
        != (resourceCalculator instanceof DominantResourceCalculator)) {
      // The RM normalised every ask in force with the calculator of the start.
      throw new IOException("Locus refused the refreshed configuration: "
          + CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS + " is now "
          + file.configuration().getResourceCalculator().getClass().getName()
          + ", but it is read once at start (as CapacityScheduler reads it) and "
          + resourceCalculator.getClass().getName() + " is in force; restart the"
          + " ResourceManager to change it. The settings in force are unchanged");
    }
    // The scheduling thread follows the core's mode from here (CoreLink#reconfigure).
    String capacityQueues = link.reconfigure(LocusSettings.toJson(newConf, file));
    queueFile = file;
    String queues;
    try {
      queues = configureQueues(capacityQueues, newConf);
      priorities.readQueueSettings(file, newConf);
      // The scheduling monitors (yarn.resourcemanager.scheduler.monitor.*): Locus's policy in
      // place of ProportionalCapacityPreemptionPolicy, its keys checked first (MonitorPolicies);
      // Hadoop's part refuses a policy that fails its init after starting the ones before it:
      // inside the rollback, so such a file changes nothing either.
      Configuration monitors = MonitorPolicies.forLocus(newConf);
      MonitorPolicies.checkSizeBased(monitors);
      MonitorPolicies.checkPartitions(monitors, file, root.isCapacity());
      MonitorPolicies.checkFairOrdering(monitors, file, root.isCapacity());
      MonitorPolicies.checkCalculator(monitors, file, root.isCapacity());
      ResourceTypes.checkCapacityShortcut(newConf, file, root.isCapacity(),
          CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS);
      ResourceTypes.checkAbsoluteTypes(file, root.isCapacity(),
          CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS);
      if (MonitorPolicies.runsLocusPolicy(monitors)) {
        LocusPreemptionPolicy.check(this, file.configuration());
      }
      try {
        schedulingMonitorManager.reinitialize(rmContext, monitors);
      } catch (YarnException e) {
        throw new IOException(e);
      }
    } catch (IOException | RuntimeException e) {
      // What only the shim or Hadoop reads (parsers of mappings, ACLs, priorities; the
      // monitors) refused the file after the core took it: the core, the tree and the monitors
      // go back to the settings in force, so the refresh changes nothing, as one the core
      // refused.
      queueFile = inForce;
      restoreSettingsInForce(e, rmContext);
      throw new IOException("Locus refused the refreshed configuration: " + e.getMessage()
          + "; the settings in force are unchanged", e);
    }
    setConf(newConf);
    // The cluster's largest container as CapacityScheduler refreshes it: from the file read,
    // whose keys lie over the RM's.
    refreshMaximumAllocation(ResourceUtils.fetchMaximumAllocationFromConfig(file.configuration()));
    // Created leaves a refresh dropped are gone from the tree; so is their idle clock.
    lastSubmission.keySet().removeIf(path -> !file.isCreated(path));
    LOG.info("Locus core reconfigured with {}; {}", LocusSettings.collect(newConf), queues);
  }

  /** The leaf of every application, in submission order (the map's order). */
  private java.util.List<String> applicationLeaves() {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (SchedulerApplication<FiCaSchedulerApp> app : applications.values()) {
      String path = ((LocusQueue) app.getQueue()).path();
      if (path != null) {
        out.add(path);
      }
    }
    return out;
  }

  /**
   * A leaf created on a submission to it, as a refresh adds a queue: the core takes the tree
   * with the new leaf (the file's limits, weights recomputed), then the RM's queues, ACLs and
   * mappings follow. Bounded by the parent's {@code max-queues} and the core's queue limit.
   */
  synchronized void createQueue(String path) throws QueueFile.CreationRefused {
    QueueFile inForce = queueFile;
    QueueFile file;
    try {
      file = inForce.withCreated(path);
    } catch (IOException e) {
      throw new QueueFile.CreationRefused(e.getMessage());
    }
    Configuration conf = confInForce();
    String capacityQueues;
    try {
      capacityQueues = link.reconfigure(LocusSettings.toJson(conf, file));
    } catch (IOException | RuntimeException e) {
      throw new QueueFile.CreationRefused(e.getMessage());
    }
    queueFile = file;
    try {
      String queues = configureQueues(capacityQueues, conf);
      priorities.readQueueSettings(file, conf);
      // A created parent's idle time starts again with each child added to it, as
      // CapacityScheduler's ParentQueue#addDynamicChildQueue counts it.
      for (String p = path; p.lastIndexOf('.') > 0; p = p.substring(0, p.lastIndexOf('.'))) {
        if (!inForce.isCreated(p) && file.isCreated(p)) {
          submittedTo(p.substring(0, p.lastIndexOf('.')));
        }
      }
      LOG.info("Created queue {} on submission; {}", path, queues);
    } catch (IOException | RuntimeException e) {
      queueFile = inForce;
      restoreSettingsInForce(e, rmContext);
      throw new QueueFile.CreationRefused(e.getMessage());
    }
  }

  /** Monotonic time of the last submission to each created leaf, by path. */
  private final java.util.Map<String, Long> lastSubmission =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** A submission reached the leaf at {@code path} (its idle time starts again). */
  void submittedTo(String path) {
    QueueFile file = queueFile;
    if (file != null && file.isCreated(path)) {
      lastSubmission.put(path, org.apache.hadoop.util.Time.monotonicNow());
    }
  }

  /**
   * The created queues CapacityScheduler's deletion policy would mark: leaves with no
   * applications and parents with no children, with
   * {@code auto-queue-creation-v2.queue-auto-removal.enable} (default true) on.
   */
  synchronized java.util.Set<String> removableCreatedQueues() {
    java.util.Set<String> out = new java.util.HashSet<>();
    QueueFile file = queueFile;
    if (file == null || !root.isCapacity()) {
      return out;
    }
    for (LocusQueue leaf : root.leaves()) {
      String path = leaf.path();
      // CapacityScheduler's deletion policy leaves a managed parent's leaves alone.
      if (path != null && file.isCreated(path) && !file.isLegacyCreated(path)
          && leaf.numApplications() == 0
          && file.configuration().isAutoExpiredDeletionEnabled(
              new org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath(
                  path))) {
        out.add(path);
      }
    }
    for (String parent : file.emptyCreatedParents()) {
      if (file.configuration().isAutoExpiredDeletionEnabled(
          new org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath(
              parent))) {
        out.add(parent);
      }
    }
    return out;
  }

  /**
   * Removes the created queue at {@code path} if it is still removable and no submission
   * reached it (no child was added to a parent) for longer than
   * {@code auto-queue-creation-v2.queue-expiration-time}, as CapacityScheduler removes an
   * inactive dynamic queue.
   */
  synchronized void removeIdleCreatedQueue(String path) {
    QueueFile inForce = queueFile;
    if (!removableCreatedQueues().contains(path)) {
      return;
    }
    long expiry = inForce.configuration().getAutoExpiredDeletionTime();
    Long last = lastSubmission.get(path);
    long idleSeconds = last == null ? Long.MAX_VALUE
        : (org.apache.hadoop.util.Time.monotonicNow() - last) / 1000;
    if (idleSeconds <= expiry) {
      return;
    }
    try {
      take(inForce.withoutCreated(path), "Removed idle auto-created queue " + path);
      lastSubmission.remove(path);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not remove idle auto-created queue {}: {}", path, e.getMessage());
    }
  }

  /**
   * One round of CapacityScheduler's QueueManagementDynamicEditPolicy: the managed parents'
   * guarantees move from leaves without applications to leaves with some
   * ({@link QueueFile#withGuaranteesMoved}); the core takes the tree as at
   * {@code -refreshQueues}.
   */
  synchronized void moveManagedGuarantees() {
    QueueFile inForce = queueFile;
    try {
      QueueFile file = inForce.withGuaranteesMoved(applicationLeaves());
      if (file != inForce) {
        take(file, "Moved guarantees between auto-created leaves");
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not move guarantees between auto-created leaves: {}", e.getMessage());
    }
  }

  /**
   * The core, then the RM's queues and priorities, on {@code file} under the settings in
   * force; all of them back on the file in force if any refuses it.
   */
  private void take(QueueFile file, String what) throws IOException {
    QueueFile inForce = queueFile;
    Configuration conf = confInForce();
    String capacityQueues = link.reconfigure(LocusSettings.toJson(conf, file));
    queueFile = file;
    try {
      LOG.info("{}; {}", what, configureQueues(capacityQueues, conf));
      priorities.readQueueSettings(file, conf);
    } catch (IOException | RuntimeException e) {
      queueFile = inForce;
      restoreSettingsInForce(e, rmContext);
      throw e;
    }
  }

  /**
   * After a refused refresh: the core, the tree, the priorities and the scheduling monitors on
   * {@link #coreSettings}.
   */
  private void restoreSettingsInForce(Exception refused, RMContext rmContext) {
    Configuration inForce = confInForce();
    try {
      configureQueues(link.reconfigure(coreSettings()), inForce);
      priorities.readQueueSettings(queueFile, inForce);
    } catch (IOException | RuntimeException e) {
      // The settings in force were accepted before; if they no longer are, the core is rebuilt
      // from them (CoreLink) and this refresh's error is still the one the operator sees.
      refused.addSuppressed(e);
      LOG.error("Locus could not restore the settings in force after a refused refresh", e);
    }
    try {
      // Stops the monitors the refused file started; those in force are still running.
      schedulingMonitorManager.reinitialize(rmContext, MonitorPolicies.forLocus(inForce));
    } catch (YarnException | RuntimeException e) {
      refused.addSuppressed(e);
      LOG.error("Locus could not restore the scheduling monitors in force after a refused "
          + "refresh", e);
    }
  }

  /**
   * Rebuilds the queue tree from the core's queues. Runs under the scheduler's lock, as does
   * every submission, so an application is always placed against the queues the core has.
   */
  private String configureQueues(String capacityQueues, Configuration conf) throws IOException {
    String queues = root.configure(CoreMessages.capacityQueues(capacityQueues), queueFile);
    return queues + QueueFileSetup.apply(queueFile, root, conf, rmContext, authorizer);
  }

  /** The settings a rebuilt core opens with: those in force now. */
  private synchronized String coreSettings() {
    QueueFile file = queueFile;
    return LocusSettings.toJson(confInForce(), file);
  }

  /** The Configuration the running settings came from. */
  private synchronized Configuration confInForce() {
    return conf != null ? conf : getConfig();
  }

  /** Work-preserving restart recovers through APP_ADDED events and NM reports instead. */
  @Override
  public void recover(RMState state) {
  }

  /** One preemption round of the core in service ({@link LocusPreemptionPolicy}). */
  String preemptionRound(String requestJson) throws IOException {
    return link.preemptionRound(requestJson);
  }

  /**
   * Where the preemption keys are read from: capacity-scheduler.xml over the RM's
   * configuration, as CapacityScheduler reads them.
   */
  Configuration preemptionConfiguration() {
    QueueFile file = queueFile;
    return file != null ? file.configuration() : confInForce();
  }

  /**
   * CapacityScheduler's answer for the queue at {@code path}: preemption is off everywhere while
   * the RM's monitor is off; otherwise {@code disable_preemption} as set on the queue or, unset,
   * as its parent has it (root's default: enabled). The core applies the same rule to its rounds.
   */
  public boolean isPreemptionDisabled(String path) {
    Configuration conf = preemptionConfiguration();
    if (!conf.getBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_ENABLE_MONITORS)) {
      return true;
    }
    return inherited(conf, path, ".disable_preemption");
  }

  /**
   * CapacityScheduler's answer for the queue at {@code path}: intra-queue preemption is off
   * where preemption is, everywhere unless {@code intra-queue-preemption.enabled}, and where
   * {@code intra-queue-preemption.disable_preemption} is set on the queue or, unset, on the
   * nearest ancestor that sets it. The core applies the same rule to its rounds.
   */
  public boolean isIntraQueuePreemptionDisabled(String path) {
    Configuration conf = preemptionConfiguration();
    if (isPreemptionDisabled(path) || !conf.getBoolean(
        CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED,
        CapacitySchedulerConfiguration.DEFAULT_INTRAQUEUE_PREEMPTION_ENABLED)) {
      return true;
    }
    return inherited(conf, path, ".intra-queue-preemption.disable_preemption");
  }

  /** A per-queue flag as CapacityScheduler reads it: the queue's own, else its nearest
   * ancestor's, else false. */
  private static boolean inherited(Configuration conf, String path, String key) {
    boolean set = false;
    StringBuilder prefix = new StringBuilder();
    for (String part : path.split("\\.")) {
      prefix.append(prefix.length() == 0 ? "" : ".").append(part);
      set = conf.getBoolean(CapacitySchedulerConfiguration.PREFIX + prefix + key, set);
    }
    return set;
  }

  /**
   * CapacityScheduler's {@code creationMethod} of the queue at {@code path}: dynamicFlexible
   * for a leaf created on a submission, dynamicLegacy for one created under a managed parent,
   * static for the file's.
   */
  public String creationMethod(String path) {
    QueueFile file = queueFile;
    if (file == null || !root.isCapacity() || !file.isCreated(path)) {
      return "static";
    }
    return file.isLegacyCreated(path) ? "dynamicLegacy" : "dynamicFlexible";
  }

  /**
   * CapacityScheduler's {@code autoCreationEligibility}: legacy for a managed parent
   * ({@code auto-create-child-queue.enabled}), flexible for a parent whose children are created
   * on submission ({@code auto-queue-creation-v2.enabled}), else off.
   */
  public String autoCreationEligibility(String path) {
    QueueFile file = queueFile;
    if (file == null || !root.isCapacity() || !file.createsChildren(path)) {
      return "off";
    }
    return file.isManaged(path) ? "legacy" : "flexible";
  }

  /**
   * CapacityScheduler's {@code mode} of the queue at {@code path} when the file's legacy queue
   * mode is off (percentage, weight, absolute, mixed), else null: the legacy modes are told by
   * the queue's figures.
   */
  public String vectorMode(String path) {
    QueueFile file = queueFile;
    return file != null && root.isCapacity() ? file.vectorMode(path) : null;
  }

  /**
   * The queue's shares of each node partition the file divides among its queues
   * ({capacity, maximum-capacity, absolute capacity, absolute maximum-capacity}, fractions);
   * empty outside {@code capacity} or when the file divides none.
   */
  public Map<String, float[]> partitionShares(String path) {
    QueueFile file = queueFile;
    return file != null && root.isCapacity() ? file.partitionShares(path)
        : java.util.Collections.<String, float[]>emptyMap();
  }

  /**
   * The memory of each partition the file divides among its queues: its nodes' totals (the
   * RM's label manager holds no node resources under Locus).
   */
  public Map<String, Long> partitionMemoryMb() {
    Map<String, Long> out = new java.util.HashMap<>();
    QueueFile file = queueFile;
    if (file == null || !root.isCapacity()) {
      return out;
    }
    java.util.Set<String> divided = file.dividedPartitions();
    for (FiCaSchedulerNode node : nodeTracker.getAllNodes()) {
      if (divided.contains(node.getPartition())) {
        out.merge(node.getPartition(), node.getTotalResource().getMemorySize(), Long::sum);
      }
    }
    return out;
  }

  /**
   * Memory each queue (leaves and parents, by path) holds on the nodes of each partition the
   * file divides, as CapacityScheduler charges a container to its node's partition: one pass
   * over the running containers of those nodes, for the web UI and REST.
   */
  public Map<String, Map<String, Long>> partitionUsedMb() {
    Map<String, Map<String, Long>> out = new java.util.HashMap<>();
    QueueFile file = queueFile;
    if (file == null || !root.isCapacity() || file.dividedPartitions().isEmpty()) {
      return out;
    }
    java.util.Set<String> divided = file.dividedPartitions();
    for (FiCaSchedulerNode node : nodeTracker.getAllNodes()) {
      String partition = node.getPartition();
      if (!divided.contains(partition)) {
        continue;
      }
      for (RMContainer c : node.getCopiedListOfRunningContainers()) {
        FiCaSchedulerApp attempt = getApplicationAttempt(c.getApplicationAttemptId());
        if (attempt == null || !(attempt.getQueue() instanceof LocusQueue)) {
          continue;
        }
        long mb = c.getAllocatedResource().getMemorySize();
        for (String p = ((LocusQueue) attempt.getQueue()).path(); p != null; ) {
          out.computeIfAbsent(p, k -> new java.util.HashMap<>()).merge(partition, mb, Long::sum);
          int dot = p.lastIndexOf('.');
          p = dot < 0 ? null : p.substring(0, dot);
        }
      }
    }
    return out;
  }

  /**
   * The default partition's resource, what its queue figures are of as CapacityScheduler's
   * are (its label manager's resource of no label): the nodes with no label.
   */
  public org.apache.hadoop.yarn.api.records.Resource defaultPartitionResource() {
    org.apache.hadoop.yarn.api.records.Resource out =
        org.apache.hadoop.yarn.api.records.Resource.newInstance(0, 0);
    for (FiCaSchedulerNode node : nodeTracker.getAllNodes()) {
      String partition = node.getPartition();
      if (partition == null || partition.isEmpty()) {
        org.apache.hadoop.yarn.util.resource.Resources.addTo(out, node.getTotalResource());
      }
    }
    return out;
  }

  /**
   * Memory each queue (leaves and parents, by path) holds on labelled nodes, any partition:
   * what is not the default partition's, as CapacityScheduler charges a container to its
   * node's partition. One pass over the labelled nodes' running containers; empty outside
   * {@code capacity} or while no node is labelled.
   */
  public Map<String, Long> labelledUsedMb() {
    Map<String, Long> out = new java.util.HashMap<>();
    if (!root.isCapacity()) {
      return out;
    }
    for (FiCaSchedulerNode node : nodeTracker.getAllNodes()) {
      String partition = node.getPartition();
      if (partition == null || partition.isEmpty()) {
        continue;
      }
      for (RMContainer c : node.getCopiedListOfRunningContainers()) {
        FiCaSchedulerApp attempt = getApplicationAttempt(c.getApplicationAttemptId());
        if (attempt == null || !(attempt.getQueue() instanceof LocusQueue)) {
          continue;
        }
        long mb = c.getAllocatedResource().getMemorySize();
        for (String p = ((LocusQueue) attempt.getQueue()).path(); p != null; ) {
          out.merge(p, mb, Long::sum);
          int dot = p.lastIndexOf('.');
          p = dot < 0 ? null : p.substring(0, dot);
        }
      }
    }
    return out;
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

  /** Tests: runs on a refresh right after the core in service took the new settings. */
  void setReconfiguredHook(Runnable hook) {
    link.setReconfiguredHook(hook);
  }

  /** The mode Locus's scheduling thread runs in now. */
  SchedulingMode schedulingMode() {
    return loop.mode();
  }

  /** The core rebuild started last, or null (tests wait on it). */
  java.util.concurrent.CompletableFuture<Void> lastCoreRebuild() {
    return link.lastRebuild();
  }

  // ---------------------------------------------------------------- talking to the core

  private LocusException send(ObjectNode event) {
    return link.send(Collections.singletonList(event), Collections.emptySet());
  }

  /** The attempt's asks may have changed: the scheduling thread sends them before its pass. */
  private void pushAsks(LocusAppAttempt attempt) {
    loop.asksChanged(attempt);
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
      router.dispatch(event);
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Scheduler event " + event.getType(), SchedulerEvents.subject(event),
          t, event);
      link.eventFailed(t, coreCalls);
    }
    link.rebuildIfNeeded();
  }

  synchronized void addNode(RMNode rmNode) {
    FiCaSchedulerNode node = new FiCaSchedulerNode(rmNode, usePortForNodeName,
        rmNode.getNodeLabels());
    nodeTracker.addNode(node);
    // "host" is the name this node's asks use (host, or host:port when the RM is configured
    // to include the port), so the core can match resource_name against it.
    send(CoreMessages.nodeAdded(rmNode.getNodeID(), node.getNodeName(), rmNode.getRackName(),
        rmNode.getTotalCapability()));
    if (!node.getPartition().isEmpty()) {
      send(CoreMessages.nodePartition(rmNode.getNodeID(), node.getPartition(),
          LabelPolicy.isExclusive(rmContext, node.getPartition())));
    }
    // As CapacityScheduler: the label manager tells the scheduler of label changes only for
    // the nodes it holds as running (NODE_LABELS_UPDATE), and sums each partition's resource.
    try {
      rmContext.getNodeLabelManager().activateNode(rmNode.getNodeID(),
          rmNode.getTotalCapability());
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Adding a node to the node label manager", "node "
          + rmNode.getNodeID(), t, null);
    }
    link.learnHost(node.getNodeName());
    root.updateAvailableMetrics();
    LOG.info("Added node {} (rack {}) capability {}", rmNode.getNodeID(),
        rmNode.getRackName(), rmNode.getTotalCapability());
  }

  /**
   * NODE_LABELS_UPDATE ({@code rmadmin -replaceLabelsOnNode} and the like): each node's new
   * partition reaches the RM's node and the core; a container already running stays where it
   * is and keeps counting as before, as CapacityScheduler keeps it.
   */
  synchronized void updateNodeLabels(Map<NodeId, Set<String>> nodeToLabels) {
    for (Map.Entry<NodeId, Set<String>> e : nodeToLabels.entrySet()) {
      FiCaSchedulerNode node = nodeTracker.getNode(e.getKey());
      if (node == null) {
        continue;
      }
      Set<String> labels = e.getValue() == null ? Collections.<String>emptySet() : e.getValue();
      node.updateLabels(labels);
      String partition = node.getPartition();
      send(CoreMessages.nodePartition(node.getNodeID(), partition,
          LabelPolicy.isExclusive(rmContext, partition)));
      LOG.info("Node {} now in partition '{}'", node.getNodeID(), partition);
    }
  }

  synchronized void removeNode(RMNode rmNode) {
    FiCaSchedulerNode node = nodeTracker.getNode(rmNode.getNodeID());
    if (node == null) {
      return;
    }
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(c.getContainerId(),
          SchedulerUtils.LOST_CONTAINER), RMContainerEventType.KILL);
    }
    nodeTracker.removeNode(rmNode.getNodeID());
    try {
      rmContext.getNodeLabelManager().deactivateNode(rmNode.getNodeID());
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("Removing a node from the node label manager", "node "
          + rmNode.getNodeID(), t, null);
    }
    link.forgetHost(node.getNodeName());
    send(CoreMessages.nodeRemoved(rmNode.getNodeID()));
    root.updateAvailableMetrics();
    LOG.info("Removed node {}", rmNode.getNodeID());
  }

  /**
   * The lifetime the RM's lifetime monitor enforces for an application of {@code queueName}, as
   * CapacityScheduler decides it: the queue's default when the application asks for none, its
   * maximum when it asks for more.
   */
  @Override
  public long checkAndGetApplicationLifetime(String queueName, long lifetime,
      org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppImpl app) {
    LocusQueue leaf = root.leafForSubmission(queueName);
    QueueFile file = queueFile;
    if (leaf == null || file == null) {
      return lifetime;
    }
    long[] l = file.lifetimes(leaf.path());
    if (lifetime <= 0 || l[0] > 0 && lifetime > l[0]) {
      return lifetime <= 0 ? l[1] : l[0];
    }
    return lifetime;
  }

  /** The queue's maximum application lifetime in seconds; -1 for none or no such leaf. */
  @Override
  public long getMaximumApplicationLifetime(String queueName) {
    LocusQueue leaf = root.leafForSubmission(queueName);
    QueueFile file = queueFile;
    return leaf == null || file == null ? -1 : file.lifetimes(leaf.path())[0];
  }

  /**
   * The largest container an application of {@code queueName} may ask for, as
   * CapacityScheduler answers the RM, which refuses a larger AM at submission and a larger ask
   * at allocate and normalizes every ask under it: the leaf's configured maximum
   * ({@link #queueMaximumAllocation}) within what the registered nodes allow; the cluster's for
   * a parent or an unknown queue.
   */
  @Override
  public Resource getMaximumResourceCapability(String queueName) {
    Resource cluster = getMaximumResourceCapability();
    LocusRootQueue r = root;
    LocusQueue leaf = r == null || queueName == null ? null : r.leaf(queueName);
    Resource queue = leaf == null || leaf.path() == null ? null
        : queueMaximumAllocation(leaf.path());
    return queue == null ? cluster : Resources.componentwiseMin(queue, cluster);
  }

  /**
   * The configured largest container of the queue at {@code path} (CapacityScheduler's queue
   * {@code maximumAllocation}), the cluster's for a path the file does not have.
   */
  public Resource queueMaximumAllocation(String path) {
    QueueFile file = queueFile;
    Resource r = file == null ? null : file.maximumAllocation(path);
    return r != null ? r
        : ResourceUtils.fetchMaximumAllocationFromConfig(file != null ? file.configuration()
            : confInForce());
  }

  /** The path of the leaf a queue name the RM passes stands for (the name if none). */
  private String queuePath(String queue) {
    LocusQueue leaf = root.leafForSubmission(queue);
    return leaf == null ? queue : leaf.path();
  }

  // ---------------------------------------------------------------- heartbeats and decisions

  /**
   * On the RM's dispatcher: hands the heartbeat to Locus's scheduling thread ({@link
   * SchedulingLoop}), which does the RM's bookkeeping of it and then decides for the node, so
   * a heartbeat never waits on a decision or on the scheduler's lock. Not synchronized: a pass
   * commits holding that lock, and every other scheduler event queues behind this one.
   */
  @Override
  protected void nodeUpdate(RMNode rmNode) {
    nodeUpdate(rmNode, System.nanoTime());
  }

  /** As {@link #nodeUpdate(RMNode)}, the heartbeat arriving at {@code arrivedNanos}. */
  void nodeUpdate(RMNode rmNode, long arrivedNanos) {
    // No lookup of the node here: the bookkeeping skips a node the RM no longer tracks.
    if (!loop.nodeHeartbeat(rmNode, arrivedNanos)) {
      bookkeepQueuedHeartbeats();
    }
  }

  /** Heartbeats waiting for their bookkeeping on locus-scheduler (0 before the service starts). */
  public int queuedHeartbeats() {
    SchedulingLoop l = loop;
    return l == null ? 0 : l.queuedHeartbeats();
  }

  /** How long the oldest of them has waited, ms (0 if none waits). */
  public long oldestQueuedHeartbeatAgeMs() {
    SchedulingLoop l = loop;
    return l == null ? 0 : l.oldestQueuedHeartbeatAgeMs();
  }

  /** Before any other scheduler event: the heartbeats queued before it are booked first. */
  void bookkeepQueuedHeartbeats() {
    loop.bookkeepQueuedHeartbeats();
  }

  /** The RM's bookkeeping of a heartbeat (completed and launched containers), on the loop. */
  synchronized void heartbeatBookkeeping(RMNode rmNode) {
    super.nodeUpdate(rmNode);
  }

  /** Tests hold or fail a scheduling pass after the core decided for a batch of nodes. */
  void setPassHook(
      java.util.function.BiConsumer<List<NodeId>, DecisionsFrame.Answer> hook) {
    loop.setDecidedHook(hook);
  }

  /** Tests hold the scheduling thread just before it books the heartbeats queued. */
  void setBookkeepingHook(Runnable hook) {
    loop.setBookkeepingHook(hook);
  }

  /** Tests hold a booking between the RM's bookkeeping of a heartbeat and its node's offer. */
  void setBookedHook(Runnable hook) {
    loop.setBookedHook(hook);
  }

  /** Tests: Locus's scheduling thread (null before the service starts). */
  Thread schedulingThread() {
    return loop.thread();
  }

  /** Tests: whether it sleeps until a heartbeat or a booking wakes it. */
  boolean schedulingThreadAsleep() {
    return loop.asleep();
  }

  /** Tests: waits (up to a minute) until the scheduling thread has nothing left to do. */
  void awaitSchedulingIdle() throws InterruptedException {
    if (!loop.awaitIdle(60_000)) {
      throw new IllegalStateException("Locus's scheduling thread did not settle in a minute");
    }
  }

  /**
   * Executes decisions as if the core had sent them. Lets tests feed decisions the core would
   * not make (stale, oversized, at the wrong place) to the shim's validation.
   */
  synchronized void executeDecisions(List<DecisionsFrame.Decision> decisions) {
    // As if the nodes the decisions name had been offered as the RM holds them now.
    java.util.Map<NodeId, FiCaSchedulerNode> offered = new java.util.HashMap<>();
    for (DecisionsFrame.Decision d : decisions) {
      FiCaSchedulerNode n = getSchedulerNode(d.node);
      if (n != null) {
        offered.put(d.node, n);
      }
    }
    executor.run(new DecisionsFrame.Answer(decisions, Collections.emptyList()), offered);
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
    long start = System.nanoTime();
    try {
      return allocations.allocate(attemptId, ask, schedulingRequests, release,
          blacklistAdditions, blacklistRemovals, updateRequests);
    } catch (Throwable t) {
      FailureLog.rethrowIfJvmBroken(t);
      link.failures().warn("allocate", "attempt " + attemptId, t, ask);
      return EMPTY_ALLOCATION;
    } finally {
      metrics.allocateHandled(System.nanoTime() - start);
    }
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
    LocusQueue queue = (LocusQueue) attempt.getQueue();
    queue.subtractUsed(attempt.getUser(), container.getResource());
    if (status != null && status.getExitStatus() == ContainerExitStatus.PREEMPTED) {
      queue.preempted(rmContainer);
    }
    // Never waits for a scheduling pass holding the core: see CoreLink.
    EventsFrame released = new EventsFrame();
    released.containerReleased(container.getId(), container.getNodeId(), container.getResource());
    link.sendDeferrable(released);
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
    Set<ContainerId> liveBefore = recovery.liveAmong(reports);
    super.recoverContainersOnNode(reports, rmNode);
    recovery.recovered(reports, liveBefore, rmNode);
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
    // The RM's generic ACL manager asks here without looking at yarn.acl.enable, which
    // CapacityScheduler's own manager does first: with ACLs off every caller passes, even for
    // a queue that does not exist (a move then fails naming the queue).
    if (!root.acls().enabled()) {
      return true;
    }
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
    Priority p =
        priorities.checkAndGet(requested, user, queue, appId, getMaxClusterLevelAppPriority());
    // The RM asks this of the scheduler at every new submission, right where it checks
    // CapacityScheduler's submit ACL itself: the same check here refuses the submission the
    // same way, before the application exists.
    admission.checkSubmitAcl(user, queue, appId);
    return p;
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
