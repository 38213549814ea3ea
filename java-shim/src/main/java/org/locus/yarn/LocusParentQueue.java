package org.locus.yarn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.locus.yarn.queue.AbsoluteCapacities;
import org.locus.yarn.queue.QueueAcls;

/**
 * A parent queue of capacity-scheduler.xml below root ({@code root.eng}): what the RM and the
 * operator read of it ({@code yarn queue -status eng}, {@code mapred queue -list}, the web UI),
 * never a queue applications run in. The core enforces its maximum over the leaves below it;
 * this object only describes it. Its QueueMetrics sit between its children's and its parent's,
 * so the RM's per-queue figures add up the tree as under CapacityScheduler.
 *
 * <p>Rebuilt on every reconfiguration by {@link LocusRootQueue#configure}; immutable but for
 * its child list, which is filled before the tree is published.
 */
final class LocusParentQueue extends OpenQueue {
  private final String name;
  private final String path;
  /** Root ({@code null}) or the parent above. */
  private final LocusParentQueue above;
  private final LocusRootQueue root;
  /** Percent of the cluster: the sum of its children's guarantees, its maximum. */
  private final double absoluteCapacity;
  private final double absoluteMaximum;
  private final boolean stopped;
  private final QueueMetrics metrics;
  private final ActiveUsersManager users;
  private final List<OpenQueue> children = new ArrayList<>();

  LocusParentQueue(String path, LocusParentQueue above, LocusRootQueue root,
      double absoluteCapacity, double absoluteMaximum, boolean stopped, Configuration conf) {
    this.path = path;
    this.name = path.substring(path.lastIndexOf('.') + 1);
    this.above = above;
    this.root = root;
    this.absoluteCapacity = absoluteCapacity;
    this.absoluteMaximum = absoluteMaximum;
    this.stopped = stopped;
    // Named by path and parented as CapacityScheduler's, so JMX shows q0=root,q1=eng and an
    // allocation in root.eng.etl counts in root.eng and root.
    this.metrics = QueueMetrics.forQueue(path, above != null ? above : root, false, conf);
    this.users = new ActiveUsersManager(metrics);
  }

  String path() {
    return path;
  }

  LocusParentQueue above() {
    return above;
  }

  double absoluteCapacity() {
    return absoluteCapacity;
  }

  double absoluteMaximum() {
    return absoluteMaximum;
  }

  void addChild(OpenQueue child) {
    children.add(child);
  }

  /** True when {@code leafPath} lies below this queue. */
  boolean contains(String leafPath) {
    return leafPath.startsWith(path + ".");
  }

  /** What the leaves below hold now, in every type. */
  Resource used() {
    Resource used = Resources.createResource(0, 0);
    for (LocusQueue leaf : root.leaves()) {
      if (contains(leaf.path())) {
        Resources.addTo(used, leaf.getUsed());
      }
    }
    return used;
  }

  /** Memory the leaves below hold now. */
  long usedMb() {
    long mb = 0;
    for (LocusQueue leaf : root.leaves()) {
      if (contains(leaf.path())) {
        mb += leaf.getUsed().getMemorySize();
      }
    }
    return mb;
  }

  private int applications() {
    int n = 0;
    for (LocusQueue leaf : root.leaves()) {
      if (contains(leaf.path())) {
        n += leaf.numApplications();
      }
    }
    return n;
  }

  @Override
  public String getQueueName() {
    return name;
  }

  @Override
  public QueueMetrics getMetrics() {
    return metrics;
  }

  /** As CapacityScheduler describes a parent: figures relative to its own parent. */
  @Override
  public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
    QueueInfo info = Records.newRecord(QueueInfo.class);
    info.setQueueName(name);
    info.setQueuePath(path);
    double parentCapacity = above != null ? above.absoluteCapacity : 100.0;
    double parentMaximum = above != null ? above.absoluteMaximum : 100.0;
    info.setCapacity(ratio(absoluteCapacity, parentCapacity));
    info.setMaximumCapacity(ratio(absoluteMaximum, parentMaximum));
    info.setWeight(root.weightOf(path));
    info.setMaxParallelApps(root.maxParallelAppsOf(path));
    AbsoluteCapacities.Figures f = root.absoluteFigures(path);
    if (f != null) {
      LocusRootQueue.describe(info, f);
    }
    long clusterMb = root.clusterResource().getMemorySize();
    double guaranteed = f != null ? f.effectiveMinimum.getMemorySize()
        : clusterMb * absoluteCapacity / 100.0;
    info.setCurrentCapacity(guaranteed <= 0 ? 0f : (float) (usedMb() / guaranteed));
    List<QueueInfo> kids = new ArrayList<>();
    if (includeChildQueues) {
      for (OpenQueue c : children) {
        kids.add(c.getQueueInfo(recursive, recursive));
      }
    }
    info.setChildQueues(kids);
    info.setApplications(new ArrayList<>());
    info.setQueueState(stopped
        ? (applications() > 0 ? QueueState.DRAINING : QueueState.STOPPED) : QueueState.RUNNING);
    describeLabels(info);
    return info;
  }

  static float ratio(double part, double whole) {
    return whole <= 0 ? 0f : (float) Math.min(1.0, part / whole);
  }

  /** Its own entry, then its children's, as CapacityScheduler lists them. */
  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
    List<QueueUserACLInfo> out = new ArrayList<>();
    out.add(userAclInfo(user));
    for (OpenQueue c : children) {
      out.addAll(c.getQueueUserAclInfo(user));
    }
    return out;
  }

  List<OpenQueue> children() {
    return Collections.unmodifiableList(children);
  }

  @Override
  String aclPath() {
    return path;
  }

  @Override
  LabelPolicy labels() {
    return root.labels();
  }

  @Override
  QueueAcls acls() {
    return root.acls();
  }

  @Override
  public ActiveUsersManager getAbstractUsersManager() {
    return users;
  }

  @Override
  public void recoverContainer(Resource clusterResource, SchedulerApplicationAttempt attempt,
      RMContainer rmContainer) {
    // Applications live in leaves; the RM recovers containers through the attempt's queue.
  }

  @Override
  public String toString() {
    return path + " " + absoluteCapacity + "% (max " + absoluteMaximum + "%)"
        + (stopped ? " STOPPED" : "");
  }
}
