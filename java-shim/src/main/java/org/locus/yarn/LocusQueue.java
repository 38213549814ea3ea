package org.locus.yarn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.locus.yarn.queue.AbsoluteCapacities;
import org.locus.yarn.queue.QueueAcls;

/**
 * A leaf queue under {@link LocusRootQueue}: {@code default} alone outside
 * {@code locus.policy=capacity}, one per {@code locus.capacity.queues} entry under it. Which
 * application gets freed capacity is the core's business; this class keeps what the RM reads
 * from a queue: metrics (parented to root's, so root's add up), ACLs (its own and its
 * parent's, see {@link QueueAcls}), the resource its containers hold, and each application's headroom.
 */
final class LocusQueue extends OpenQueue {
  /**
   * What the core enforces for this queue, in percent of the cluster's memory. One immutable
   * object so a reader on an IPC thread never sees a new capacity with an old maximum.
   */
  static final class Limits {
    static final Limits WHOLE_CLUSTER = new Limits(100.0, 100.0, false);
    /** A queue dropped from the configuration while it still holds applications. */
    static final Limits DRAINING = new Limits(0.0, 100.0, true);

    final double capacity;
    final double maximumCapacity;
    final boolean draining;
    /** The full path ({@code root.eng.etl}); null: directly under root. */
    final String path;
    /** STOPPED in capacity-scheduler.xml: no new applications, running ones finish. */
    final boolean stopped;

    Limits(double capacity, double maximumCapacity, boolean draining) {
      this(capacity, maximumCapacity, draining, null, false);
    }

    Limits(double capacity, double maximumCapacity, boolean draining, String path,
        boolean stopped) {
      this.capacity = capacity;
      this.maximumCapacity = maximumCapacity;
      this.draining = draining;
      this.path = path;
      this.stopped = stopped;
    }

    @Override
    public String toString() {
      return draining ? "draining" : capacity + "% (max " + maximumCapacity + "%)"
          + (stopped ? " STOPPED" : "");
    }
  }

  private final String name;
  private final LocusRootQueue parent;
  private final QueueMetrics metrics;
  private final ActiveUsersManager users;
  private final Resource used = Resources.createResource(0, 0);
  /**
   * Memory each user's containers hold here (guarded by {@code used}): what the commit
   * re-checks the core's user limit against. Users holding nothing have no entry.
   */
  private final Map<String, Long> userUsedMb = new HashMap<>();
  private final AtomicInteger applications = new AtomicInteger();
  private volatile Limits limits;
  /** The parent queue below root it hangs under (null: root); replaced with the tree. */
  private volatile LocusParentQueue above;
  /** Fixed at creation: metrics are named by it, and a leaf that moves is a new leaf. */
  private final String path;

  LocusQueue(String name, LocusRootQueue parent, LocusParentQueue above, Limits limits,
      Configuration conf) {
    this.name = name;
    this.parent = parent;
    this.above = above;
    this.limits = limits;
    this.path = limits.path != null ? limits.path : LocusRootQueue.NAME + "." + name;
    // Named by path and parented like CapacityScheduler's, so JMX shows q0=root,q1=<name> and
    // the parent queues' figures add up their children's.
    this.metrics = QueueMetrics.forQueue(path(), above != null ? above : parent, false, conf);
    this.users = new ActiveUsersManager(metrics);
  }

  String path() {
    return path;
  }

  Limits limits() {
    return limits;
  }

  void setLimits(Limits limits) {
    this.limits = limits;
  }

  void setAbove(LocusParentQueue above) {
    this.above = above;
  }

  /** The parent queue below root this leaf hangs under; null: root. */
  LocusParentQueue above() {
    return above;
  }

  void applicationAdded() {
    applications.incrementAndGet();
  }

  /** @return how many applications the queue still holds */
  int applicationRemoved() {
    return applications.decrementAndGet();
  }

  int numApplications() {
    return applications.get();
  }

  void addUsed(String user, Resource r) {
    synchronized (used) {
      Resources.addTo(used, r);
      userUsedMb.merge(user, r.getMemorySize(), Long::sum);
    }
    parent.addUsed(r);
  }

  void subtractUsed(String user, Resource r) {
    synchronized (used) {
      Resources.subtractFrom(used, r);
      Long left = userUsedMb.merge(user, -r.getMemorySize(), Long::sum);
      if (left != null && left <= 0) {
        userUsedMb.remove(user);
      }
    }
    parent.subtractUsed(r);
  }

  /**
   * Counts a container killed with a preempted status in this queue's metrics (and, through
   * their parents, its ancestors'), as CapacityScheduler's leaf queue does: the RM's queue
   * metrics and the operator's dashboards read these counters. The container must be finished,
   * so that its finish time is known.
   */
  void preempted(RMContainer container) {
    long usedMillis = container.getFinishTime() - container.getCreationTime();
    Resource r = container.getAllocatedResource();
    metrics.preemptContainer();
    metrics.updatePreemptedMemoryMBSeconds(r.getMemorySize() * usedMillis / 1000L);
    metrics.updatePreemptedVcoreSeconds(r.getVirtualCores() * usedMillis / 1000L);
    metrics.updatePreemptedResources(r);
    metrics.updatePreemptedSecondsForCustomResources(r, usedMillis / 1000L);
    metrics.updatePreemptedForCustomResources(r);
  }

  /** Memory {@code user}'s containers hold in this queue. */
  long userUsedMb(String user) {
    synchronized (used) {
      return userUsedMb.getOrDefault(user, 0L);
    }
  }

  Resource getUsed() {
    synchronized (used) {
      return Resources.clone(used);
    }
  }

  /** Memory this queue may hold at most: maximum-capacity of the cluster, as the core computes it. */
  private long maximumMb(long clusterMb) {
    return (long) Math.floor(clusterMb * limits.maximumCapacity / 100.0);
  }

  /**
   * An application's headroom, as CapacityScheduler gives it (memory only, its default
   * resource calculator): what the cluster has free, capped by the queue's room below its
   * maximum-capacity.
   */
  Resource headroom() {
    Resource free = parent.available();
    long clusterMb = parent.clusterResource().getMemorySize();
    long room = Math.max(0L, maximumMb(clusterMb) - getUsed().getMemorySize());
    return Resource.newInstance(Math.min(free.getMemorySize(), room), free.getVirtualCores());
  }

  void updateHeadroom(SchedulerApplicationAttempt attempt) {
    attempt.setHeadroom(headroom());
  }

  void updateAvailableMetrics() {
    metrics.setAvailableResourcesToQueue(headroom());
  }

  @Override
  public String getQueueName() {
    return name;
  }

  @Override
  public QueueMetrics getMetrics() {
    return metrics;
  }

  @Override
  public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
    Limits l = limits;
    QueueInfo info = Records.newRecord(QueueInfo.class);
    info.setQueueName(name);
    if (parent.isCapacity()) {
      // The RM files a submission under this path (RMAppManager#getQueuePath), as with
      // CapacityScheduler; outside capacity the app keeps the name it was submitted with.
      info.setQueuePath(path());
    }
    // Relative to the parent, as CapacityScheduler reports a queue; the core's are absolute.
    LocusParentQueue p = above;
    info.setCapacity(LocusParentQueue.ratio(l.capacity,
        p != null ? p.absoluteCapacity() : 100.0));
    info.setMaximumCapacity(LocusParentQueue.ratio(l.maximumCapacity,
        p != null ? p.absoluteMaximum() : 100.0));
    info.setCurrentCapacity(currentCapacity(l));
    info.setWeight(parent.weightOf(path()));
    info.setMaxParallelApps(parent.maxParallelAppsOf(path()));
    AbsoluteCapacities.Figures f = parent.absoluteFigures(path());
    if (f != null) {
      LocusRootQueue.describe(info, f);
    }
    info.setChildQueues(new ArrayList<>());
    info.setApplications(new ArrayList<>());
    info.setQueueState(queueState(l));
    describeLabels(info);
    return info;
  }

  /**
   * As CapacityScheduler reports it: a stopped (or dropped) queue that still has applications
   * is DRAINING, one without is STOPPED.
   */
  private QueueState queueState(Limits l) {
    if (l.draining || l.stopped) {
      return numApplications() > 0 ? QueueState.DRAINING : QueueState.STOPPED;
    }
    return QueueState.RUNNING;
  }

  /**
   * Used memory over the guaranteed memory, as CapacityScheduler reports a leaf's "current
   * capacity": above 1 while the queue grows into idle room. A draining queue has no
   * guarantee; its share of the cluster is reported instead.
   */
  private float currentCapacity(Limits l) {
    long clusterMb = parent.clusterResource().getMemorySize();
    AbsoluteCapacities.Figures f = l.draining ? null : parent.absoluteFigures(path());
    double guaranteed = f != null ? f.effectiveMinimum.getMemorySize()
        : clusterMb * guaranteedPercent(l) / 100.0;
    return guaranteed <= 0 ? 0f : (float) (getUsed().getMemorySize() / guaranteed);
  }

  /**
   * The percent of the cluster this queue is guaranteed, what its usage is reported against; a
   * draining queue has none, and its share of the cluster is reported instead.
   */
  double guaranteedPercent() {
    Limits l = limits;
    // In absolute mode the share follows the cluster; the core's figure is from the last
    // configuration.
    AbsoluteCapacities.Figures f = l.draining ? null : parent.absoluteFigures(path());
    if (f != null && f.absoluteCapacity > 0f) {
      return f.absoluteCapacity * 100.0;
    }
    return guaranteedPercent(l);
  }

  private static double guaranteedPercent(Limits l) {
    return l.capacity > 0 ? l.capacity : 100.0;
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
    return Collections.singletonList(userAclInfo(user));
  }

  @Override
  String aclPath() {
    return path();
  }

  @Override
  LabelPolicy labels() {
    return parent.labels();
  }

  @Override
  QueueAcls acls() {
    return parent.acls();
  }

  @Override
  public ActiveUsersManager getAbstractUsersManager() {
    return users;
  }

  @Override
  public void recoverContainer(Resource clusterResource, SchedulerApplicationAttempt attempt,
      RMContainer rmContainer) {
    if (rmContainer.getState() == RMContainerState.COMPLETED) {
      return;
    }
    addUsed(attempt.getUser(), rmContainer.getAllocatedResource());
    updateHeadroom(attempt);
    parent.updateAvailableMetrics();
  }

  @Override
  public String toString() {
    return path() + " " + limits;
  }
}
