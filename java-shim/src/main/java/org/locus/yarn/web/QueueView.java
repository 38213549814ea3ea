package org.locus.yarn.web;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.QueueConfigurations;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.locus.yarn.LocusScheduler;

/**
 * One queue as the web UI and REST show it, with its children: read only through the public
 * scheduler API ({@code getQueueInfo} recursive, {@code getAppsInQueue}, the RM's QueueMetrics),
 * so it shows whatever tree the scheduler builds, flat or from capacity-scheduler.xml.
 *
 * <p>Percentages are CapacityScheduler's: {@code capacity} and {@code maxCapacity} relative to
 * the parent, {@code absolute*} relative to the cluster, {@code usedCapacity} the queue's use
 * over its own guarantee (above 100 while it borrows idle room).
 */
public final class QueueView {
  /** Applications listed per queue on the page; the rest are counted, not listed. */
  public static final int MAX_LISTED_APPS = 200;

  public final String name;
  public final String path;
  public final QueueState state;
  public final float capacity;
  public final float maxCapacity;
  public final float absoluteCapacity;
  public final float absoluteMaxCapacity;
  public final float absoluteUsedCapacity;
  public final float usedCapacity;
  /** The configured weight ({@code 2w}), -1 when the capacity is a percentage (CS's). */
  public final float weight;
  /** The weight over the siblings' weights; 0 outside weight mode, as CS reports it. */
  public final float normalizedWeight;
  /** True when the capacity is an absolute resource ({@code [memory=...]}) or a vector. */
  public final boolean absoluteMode;
  /**
   * CapacityScheduler's mode with the legacy queue mode off (its figures all derived from the
   * effective resources), else null.
   */
  public final String vectorMode;
  /** The cluster's resource times the absolute capacity, as CS's effective minimum. */
  public final Resource effectiveMinResource;
  /** The cluster's resource times the absolute maximum capacity. */
  public final Resource effectiveMaxResource;
  public final long usedMemoryMb;
  public final long usedVcores;
  public final long pendingMemoryMb;
  public final long pendingVcores;
  public final int allocatedContainers;
  public final int pendingContainers;
  public final int reservedContainers;
  /** Containers killed with a preempted status, and their memory, since the RM started. */
  public final long preemptedContainers;
  public final long preemptedMemoryMb;
  /** CapacityScheduler's {@code preemptionDisabled}: may this queue's containers be taken? */
  public final boolean preemptionDisabled;
  /** CapacityScheduler's {@code intraQueuePreemptionDisabled}, for a leaf. */
  public final boolean intraQueuePreemptionDisabled;
  /** CapacityScheduler's {@code maximumAllocation}: the queue's configured largest container. */
  public final Resource maximumAllocation;
  /** CapacityScheduler's {@code creationMethod}: static, or dynamicFlexible when created. */
  public final String creationMethod;
  /** CapacityScheduler's {@code autoCreationEligibility}: flexible or off. */
  public final String autoCreationEligibility;
  public final int appsSubmitted;
  public final int appsPending;
  public final int appsRunning;
  /** {@code max-parallel-apps} in force ({@code Integer.MAX_VALUE}: none), as CS reports it. */
  public final int maxParallelApps;
  public final int appsCompleted;
  public final int appsKilled;
  public final int appsFailed;
  /** Applications the scheduler holds in this leaf now (every state before finished). */
  public final int numApplications;
  public final List<AppView> apps;
  public final List<QueueView> children;
  /** The queue's figures in each node partition the file divides among its queues. */
  public final List<PartitionView> partitions;

  /**
   * One node partition's figures of a queue, as CapacityScheduler reports them: percentages
   * of the parent's share of the partition and of the partition; used, over the queue's
   * guarantee there (at least one minimum allocation) and over the partition's memory.
   */
  public static final class PartitionView {
    public final String name;
    public final float capacity;
    public final float maxCapacity;
    public final float absoluteCapacity;
    public final float absoluteMaxCapacity;
    public final float usedCapacity;
    public final float absoluteUsedCapacity;

    PartitionView(String name, float[] shares, long usedMb, long partitionMb, long minimumMb) {
      this.name = name;
      this.capacity = shares[0] * 100f;
      this.maxCapacity = shares[1] * 100f;
      this.absoluteCapacity = shares[2] * 100f;
      this.absoluteMaxCapacity = shares[3] * 100f;
      long guaranteed = Math.max((long) (partitionMb * shares[2]), minimumMb);
      this.usedCapacity = partitionMb <= 0 ? 0f : (float) usedMb / guaranteed * 100f;
      this.absoluteUsedCapacity = partitionMb <= 0 ? 0f : (float) usedMb / partitionMb * 100f;
    }
  }

  /** One application in a leaf, from the RM's own record of it. */
  public static final class AppView {
    public final String id;
    public final String user;
    public final String name;
    public final String state;
    public final int priority;
    public final float progress;

    AppView(RMApp app) {
      this.id = app.getApplicationId().toString();
      this.user = app.getUser();
      this.name = app.getName();
      this.state = app.createApplicationState().toString();
      this.priority = app.getApplicationPriority() == null
          ? 0 : app.getApplicationPriority().getPriority();
      this.progress = app.getProgress();
    }
  }

  /** The whole tree, from the scheduler's root. */
  public static QueueView root(ResourceScheduler scheduler, RMContext rmContext)
      throws IOException {
    QueueInfo root = scheduler.getQueueInfo("root", true, true);
    boolean locus = scheduler instanceof LocusScheduler;
    // The default partition's figures are of its own nodes, as CapacityScheduler's.
    Resource cluster = locus ? ((LocusScheduler) scheduler).defaultPartitionResource()
        : scheduler.getClusterResource();
    Map<String, Long> labelledUsed = locus ? ((LocusScheduler) scheduler).labelledUsedMb()
        : Collections.<String, Long>emptyMap();
    Map<String, Map<String, Long>> partitionUsed = locus
        ? ((LocusScheduler) scheduler).partitionUsedMb()
        : Collections.<String, Map<String, Long>>emptyMap();
    Map<String, Long> partitionSizes = locus ? ((LocusScheduler) scheduler).partitionMemoryMb()
        : Collections.<String, Long>emptyMap();
    return new QueueView(root, null, 1f, 1f, 0f, cluster, labelledUsed, scheduler, rmContext,
        partitionUsed, partitionSizes);
  }

  /**
   * {@code cluster} is the default partition's resource, {@code labelledUsed} the memory each
   * queue holds outside it (by path).
   */
  private QueueView(QueueInfo info, String parentPath, float parentAbsolute,
      float parentAbsoluteMax, float siblingWeights, Resource cluster,
      Map<String, Long> labelledUsed, ResourceScheduler scheduler, RMContext rmContext,
      Map<String, Map<String, Long>> partitionUsed, Map<String, Long> partitionSizes) {
    long clusterMb = Math.max(0, cluster.getMemorySize());
    this.name = info.getQueueName();
    this.path = pathOf(info, parentPath);
    this.state = info.getQueueState() == null ? QueueState.RUNNING : info.getQueueState();
    this.weight = parentPath == null ? -1f : info.getWeight();
    this.vectorMode = parentPath == null || !(scheduler instanceof LocusScheduler) ? null
        : ((LocusScheduler) scheduler).vectorMode(path);
    // A weight's share in floats as CapacityScheduler computes it (its normalized weight), so
    // the effective resources below truncate as CS's do.
    float cap = parentPath == null ? 1f
        : vectorMode != null ? clamp(info.getCapacity())
        : weight >= 0f && siblingWeights > 1e-6f ? clamp(weight / siblingWeights)
        : clamp(info.getCapacity());
    float max = parentPath == null ? 1f : clamp(info.getMaximumCapacity());
    // An absolute-mode queue carries the figures CS derives from its resources (its maximum
    // may exceed its parent's, so the products above do not give them).
    QueueConfigurations derived = parentPath == null || info.getQueueConfigurations() == null
        ? null : info.getQueueConfigurations().get("");
    this.absoluteMode = derived != null && derived.getEffectiveMinCapacity() != null;
    float absolute = absoluteMode ? derived.getAbsoluteCapacity() : parentAbsolute * cap;
    float absoluteMax = absoluteMode ? derived.getAbsoluteMaxCapacity()
        : parentAbsoluteMax * max;
    QueueMetrics m = parentPath == null ? scheduler.getRootQueueMetrics() : metricsOf(path);
    this.capacity = cap * 100f;
    this.maxCapacity = max * 100f;
    this.absoluteCapacity = clamp(absolute) * 100f;
    this.absoluteMaxCapacity = clamp(absoluteMax) * 100f;
    // CapacityScheduler normalizes no weight with the legacy queue mode off.
    this.normalizedWeight = weight < 0f || siblingWeights <= 1e-6f || vectorMode != null
        ? (parentPath == null ? 1f : 0f) : weight / siblingWeights;
    this.effectiveMinResource = absoluteMode ? derived.getEffectiveMinCapacity()
        : Resources.multiply(cluster, absolute);
    this.effectiveMaxResource = absoluteMode ? derived.getEffectiveMaxCapacity()
        : Resources.multiply(cluster, absoluteMax);
    this.usedMemoryMb = m == null ? 0 : m.getAllocatedMB();
    this.usedVcores = m == null ? 0 : m.getAllocatedVirtualCores();
    this.pendingMemoryMb = m == null ? 0 : m.getPendingMB();
    this.pendingVcores = m == null ? 0 : m.getPendingVirtualCores();
    this.allocatedContainers = m == null ? 0 : m.getAllocatedContainers();
    this.pendingContainers = m == null ? 0 : m.getPendingContainers();
    this.reservedContainers = m == null ? 0 : m.getReservedContainers();
    this.preemptedContainers = m == null ? 0 : m.getAggregatePreemptedContainers();
    this.preemptedMemoryMb = m == null ? 0 : m.getAggregateMemoryMBPreempted();
    this.preemptionDisabled = !(scheduler instanceof LocusScheduler)
        || ((LocusScheduler) scheduler).isPreemptionDisabled(path);
    this.intraQueuePreemptionDisabled = !(scheduler instanceof LocusScheduler)
        || ((LocusScheduler) scheduler).isIntraQueuePreemptionDisabled(path);
    this.maximumAllocation = scheduler instanceof LocusScheduler
        ? ((LocusScheduler) scheduler).queueMaximumAllocation(path)
        : scheduler.getMaximumResourceCapability();
    this.creationMethod = scheduler instanceof LocusScheduler
        ? ((LocusScheduler) scheduler).creationMethod(path) : "static";
    this.autoCreationEligibility = scheduler instanceof LocusScheduler
        ? ((LocusScheduler) scheduler).autoCreationEligibility(path) : "off";
    this.appsSubmitted = m == null ? 0 : m.getAppsSubmitted();
    this.appsPending = m == null ? 0 : m.getAppsPending();
    this.appsRunning = m == null ? 0 : m.getAppsRunning();
    this.maxParallelApps = info.getMaxParallelApps();
    this.appsCompleted = m == null ? 0 : m.getAppsCompleted();
    this.appsKilled = m == null ? 0 : m.getAppsKilled();
    this.appsFailed = m == null ? 0 : m.getAppsFailed();
    long usedHereMb = Math.max(0L,
        usedMemoryMb - labelledUsed.getOrDefault(path, 0L));
    float absUsed = clusterMb <= 0 ? 0f : (float) (usedHereMb * 100.0 / clusterMb);
    this.absoluteUsedCapacity = absUsed;
    this.usedCapacity = absolute <= 0f ? 0f : absUsed / absolute;

    List<QueueView> kids = new ArrayList<>();
    List<QueueInfo> childInfos = info.getChildQueues();
    if (childInfos != null) {
      float weights = 0f;
      for (QueueInfo child : childInfos) {
        weights += Math.max(0f, child.getWeight());
      }
      for (QueueInfo child : childInfos) {
        kids.add(new QueueView(child, path, absolute, absoluteMax, weights, cluster,
            labelledUsed, scheduler, rmContext, partitionUsed, partitionSizes));
      }
    }
    this.children = Collections.unmodifiableList(kids);
    List<PartitionView> parts = new ArrayList<>();
    if (scheduler instanceof LocusScheduler) {
      Map<String, Long> used = partitionUsed.getOrDefault(path,
          Collections.<String, Long>emptyMap());
      long minimumMb = scheduler.getMinimumResourceCapability().getMemorySize();
      for (Map.Entry<String, float[]> p
          : ((LocusScheduler) scheduler).partitionShares(path).entrySet()) {
        long partitionMb = partitionSizes.getOrDefault(p.getKey(), 0L);
        parts.add(new PartitionView(p.getKey(), p.getValue(), used.getOrDefault(p.getKey(), 0L),
            partitionMb, minimumMb));
      }
    }
    this.partitions = Collections.unmodifiableList(parts);
    List<ApplicationAttemptId> attempts = kids.isEmpty() ? appsIn(scheduler, path, name)
        : Collections.<ApplicationAttemptId>emptyList();
    this.numApplications = attempts.size();
    List<AppView> listed = new ArrayList<>();
    Map<org.apache.hadoop.yarn.api.records.ApplicationId, RMApp> rmApps = rmContext.getRMApps();
    for (ApplicationAttemptId a : attempts) {
      if (listed.size() >= MAX_LISTED_APPS) {
        break;
      }
      RMApp app = rmApps.get(a.getApplicationId());
      if (app != null) {
        listed.add(new AppView(app));
      }
    }
    this.apps = Collections.unmodifiableList(listed);
  }

  /**
   * The capacity as CapacityScheduler's REST reports it: the configured percentage of the
   * parent, which is 0 for a weight (the share it gives is in {@code absoluteCapacity} and
   * {@code normalizedWeight}).
   */
  public float configuredCapacity() {
    return weight >= 0f && vectorMode == null ? 0f : capacity;
  }

  /** CapacityScheduler's {@code mode} of the queue's capacity. */
  public String mode() {
    if (vectorMode != null) {
      return vectorMode;
    }
    return absoluteMode ? "absolute" : weight >= 0f ? "weight" : "percentage";
  }

  /** A queue without children, but for a parent that creates them and has none yet. */
  public boolean isLeaf() {
    return children.isEmpty() && "off".equals(autoCreationEligibility);
  }

  /** The queue and every queue below it, parents before children. */
  public List<QueueView> flatten() {
    List<QueueView> out = new ArrayList<>();
    addTo(out);
    return out;
  }

  private void addTo(List<QueueView> out) {
    out.add(this);
    for (QueueView c : children) {
      c.addTo(out);
    }
  }

  /** A scheduler outside capacity mode names its leaves without a path; CS's rule fills it. */
  private static String pathOf(QueueInfo info, String parentPath) {
    String p = info.getQueuePath();
    if (p != null && !p.isEmpty()) {
      return p;
    }
    return parentPath == null ? info.getQueueName() : parentPath + "." + info.getQueueName();
  }

  /** The RM keys every queue's QueueMetrics by its path, as CapacityScheduler does. */
  private static QueueMetrics metricsOf(String path) {
    return QueueMetrics.getQueueMetrics().get(path);
  }

  private static List<ApplicationAttemptId> appsIn(ResourceScheduler scheduler, String path,
      String name) {
    List<ApplicationAttemptId> a = scheduler.getAppsInQueue(path);
    if (a == null) {
      a = scheduler.getAppsInQueue(name);
    }
    return a == null ? Collections.<ApplicationAttemptId>emptyList() : a;
  }

  private static float clamp(float fraction) {
    if (Float.isNaN(fraction) || fraction < 0f) {
      return 0f;
    }
    return Math.min(fraction, 1f);
  }
}
