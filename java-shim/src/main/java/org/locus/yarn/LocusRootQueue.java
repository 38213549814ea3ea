package org.locus.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.QueueConfigurations;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.locus.yarn.queue.AbsoluteCapacities;
import org.locus.yarn.queue.QueueAcls;
import org.locus.yarn.queue.QueueFile;

/**
 * The queue tree: {@code root} and its leaves. Under {@code locus.policy=capacity} the leaves
 * are the queues the core reports (capacity-scheduler.xml's leaves, at any depth, or the
 * {@code locus.capacity.queues} shortcut's); under every other policy there is one leaf,
 * {@code default}, which every application joins whatever queue it asked for. Leaves are
 * named by their short name (unique: the core refuses a file where it is not) or full path.
 *
 * <p>The set is rebuilt by {@link #configure} after the core accepted new settings. A leaf
 * keeps its object (and so its metrics, used resource and applications) while it stays
 * configured; a leaf that is dropped while it still holds applications stays as
 * {@code DRAINING} until its last one leaves (the core refuses that under {@code capacity},
 * so it only happens when the policy changes away from it).
 *
 * <p>Threads: {@code configure} and {@link #dropIfDrained} run under the scheduler's lock;
 * lookups come from IPC threads and read one immutable snapshot of the leaves.
 */
final class LocusRootQueue extends OpenQueue {
  static final String NAME = "root";
  private volatile LabelPolicy labels = LabelPolicy.NONE;
  static final String DEFAULT = "default";
  private static final String PREFIX = NAME + ".";

  private final Configuration conf;
  private final Supplier<Resource> clusterResource;
  private final QueueMetrics metrics;
  private final ActiveUsersManager users;
  private final Resource used = Resources.createResource(0, 0);

  /** Configured leaves first, in configured order, then draining ones. Never modified. */
  private volatile Map<String, LocusQueue> leaves = Collections.emptyMap();
  /** Parent queues below root by path, outer ones first. Never modified. */
  private volatile Map<String, LocusParentQueue> parents = Collections.emptyMap();
  /** Root's children as the file nests them: leaves and parents in configured order. */
  private volatile List<OpenQueue> children = Collections.emptyList();
  private volatile boolean capacityMode;
  private volatile QueueAcls acls = QueueAcls.open();
  /** capacity-scheduler.xml's weights ({@code 2w}) by path, while its queues are in force. */
  private volatile Map<String, Float> weights = Collections.emptyMap();
  /** capacity-scheduler.xml's absolute resources, while its queues are in force; else null. */
  private volatile AbsoluteCapacities absolute;
  /** Each queue's {@code max-parallel-apps} by path, as CapacityScheduler reports it. */
  private volatile java.util.function.ToIntFunction<String> parallel = p -> Integer.MAX_VALUE;

  LocusRootQueue(Configuration conf, Supplier<Resource> clusterResource) {
    this.conf = conf;
    this.clusterResource = clusterResource;
    this.metrics = QueueMetrics.forQueue(NAME, null, false, conf);
    this.users = new ActiveUsersManager(metrics);
    configure(null, null);
  }

  /**
   * Makes the leaves match what the core now enforces.
   *
   * @param configured the core's capacity queues by name (in configured order), or null when
   *     the policy is not {@code capacity}
   * @param file the capacity-scheduler.xml the core's queues came from (the parents' maxima and
   *     states), or null
   * @return one line for the log: the leaves and what changed
   */
  synchronized String configure(Map<String, LocusQueue.Limits> configured, QueueFile file) {
    Map<String, LocusQueue.Limits> wanted = configured != null ? configured
        : Collections.singletonMap(DEFAULT, LocusQueue.Limits.WHOLE_CLUSTER);
    Map<String, LocusParentQueue> nextParents = parentsOf(wanted, file, configured != null);
    Map<String, LocusQueue> old = leaves;
    Map<String, LocusQueue> next = new LinkedHashMap<>();
    List<String> added = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    for (Map.Entry<String, LocusQueue.Limits> e : wanted.entrySet()) {
      LocusQueue leaf = old.get(e.getKey());
      if (leaf != null && e.getValue().path != null
          && !e.getValue().path.equals(leaf.path())) {
        // Same name under another parent: a new queue (its metrics are named by its path). The
        // core refused the refresh if the old one still held applications.
        leaf = null;
      }
      LocusParentQueue above = e.getValue().path == null ? null
          : nextParents.get(parentPath(e.getValue().path));
      if (leaf == null) {
        leaf = new LocusQueue(e.getKey(), this, above, e.getValue(), conf);
        added.add(e.getKey());
      } else {
        leaf.setLimits(e.getValue());
        leaf.setAbove(above);
      }
      next.put(e.getKey(), leaf);
    }
    for (LocusQueue leaf : old.values()) {
      if (next.containsKey(leaf.getQueueName())) {
        continue;
      }
      if (leaf.numApplications() > 0) {
        leaf.setLimits(LocusQueue.Limits.DRAINING);
        leaf.setAbove(null);
        next.put(leaf.getQueueName(), leaf);
      } else {
        removed.add(leaf.getQueueName());
      }
    }
    capacityMode = configured != null;
    parents = Collections.unmodifiableMap(nextParents);
    children = nest(next.values(), nextParents);
    leaves = Collections.unmodifiableMap(next);
    updateAvailableMetrics();
    return "queues " + next.values() + (added.isEmpty() ? "" : ", added " + added)
        + (removed.isEmpty() ? "" : ", removed " + removed);
  }

  /** {@code root.eng} of {@code root.eng.etl}; null directly under root. */
  private static String parentPath(String path) {
    int dot = path.lastIndexOf('.');
    String p = dot < 0 ? null : path.substring(0, dot);
    return p == null || NAME.equals(p) ? null : p;
  }

  /**
   * The parent queues below root that the leaves' paths name, outer ones first: a parent's
   * guarantee is the sum of its leaves' (the core checked that children fill their parent),
   * its maximum and state are the file's.
   */
  private Map<String, LocusParentQueue> parentsOf(Map<String, LocusQueue.Limits> wanted,
      QueueFile file, boolean configured) {
    Map<String, Double> capacity = new LinkedHashMap<>();
    for (LocusQueue.Limits l : wanted.values()) {
      if (l.path == null || l.draining) {
        continue;
      }
      List<String> chain = new ArrayList<>();
      for (String p = parentPath(l.path); p != null; p = parentPath(p)) {
        chain.add(0, p);
      }
      for (String p : chain) {
        capacity.merge(p, l.capacity, Double::sum);
      }
    }
    if (file != null && configured && fromFile(wanted, file)) {
      // Parents that create their children are parents before their first one, as in
      // CapacityScheduler; their guarantee is the file's (creatingGuarantee).
      for (String empty : file.emptyCreatingParents()) {
        List<String> chain = new ArrayList<>();
        for (String p = empty; p != null; p = parentPath(p)) {
          chain.add(0, p);
        }
        for (String p : chain) {
          capacity.putIfAbsent(p, 0.0);
        }
      }
    }
    Map<String, LocusParentQueue> out = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : capacity.entrySet()) {
      String path = e.getKey();
      double maximum = file != null ? file.absoluteMaximumCapacity(path) : 100.0;
      boolean stopped = file != null && file.stopped(path);
      // A managed parent's leaves may hold less than its guarantee, and a parent that creates
      // its children may have none yet: the file's figure.
      double managed = file != null ? file.creatingGuarantee(path) : Double.NaN;
      out.put(path, new LocusParentQueue(path, out.get(parentPath(path)), this,
          Double.isNaN(managed) ? e.getValue() : managed, maximum, stopped, conf));
    }
    return out;
  }

  /** Whether the leaves are the file's (not the {@code locus.capacity.queues} shortcut's). */
  private static boolean fromFile(Map<String, LocusQueue.Limits> wanted, QueueFile file) {
    for (LocusQueue.Limits l : wanted.values()) {
      if (!l.draining && (l.path == null || !file.paths().contains(l.path))) {
        return false;
      }
    }
    return true;
  }

  /** Hangs leaves and parents under their parents, in the leaves' order; returns root's. */
  private static List<OpenQueue> nest(Collection<LocusQueue> leaves,
      Map<String, LocusParentQueue> parents) {
    List<OpenQueue> top = new ArrayList<>();
    java.util.Set<String> hung = new java.util.HashSet<>();
    for (LocusQueue leaf : leaves) {
      if (leaf.limits().draining) {
        // Only left by a policy change away from capacity (the core refuses dropping a busy
        // queue otherwise), which leaves no parents; dropIfDrained takes it from root's list.
        top.add(leaf);
        continue;
      }
      List<LocusParentQueue> chain = new ArrayList<>();
      for (String p = parentPath(leaf.path()); p != null; p = parentPath(p)) {
        LocusParentQueue q = parents.get(p);
        if (q != null) {
          chain.add(0, q);
        }
      }
      LocusParentQueue above = null;
      for (LocusParentQueue q : chain) {
        if (hung.add(q.path())) {
          if (above == null) {
            top.add(q);
          } else {
            above.addChild(q);
          }
        }
        above = q;
      }
      if (above == null) {
        top.add(leaf);
      } else {
        above.addChild(leaf);
      }
    }
    // Parents with no leaf below them yet (they create their children).
    for (LocusParentQueue q : parents.values()) {
      if (hung.add(q.path())) {
        LocusParentQueue above = q.above();
        if (above == null) {
          top.add(q);
        } else {
          above.addChild(q);
        }
      }
    }
    return Collections.unmodifiableList(top);
  }

  /**
   * Hands {@code authorizer} the ACLs of root and of every queue now in the tree from
   * {@code capacity-scheduler.xml}; call after {@link #configure}.
   */
  void installAcls(Configuration conf, YarnAuthorizationProvider authorizer,
      CapacitySchedulerConfiguration file, java.util.function.Predicate<String> created)
      throws IOException {
    List<String> paths = new ArrayList<>();
    paths.add(NAME);
    paths.addAll(parents.keySet());
    for (LocusQueue leaf : leaves.values()) {
      paths.add(leaf.path());
    }
    acls = QueueAcls.install(conf, authorizer, file, paths, created);
  }

  /** Who may submit to and administer each queue. */
  QueueAcls acls() {
    return acls;
  }

  @Override
  String aclPath() {
    return NAME;
  }

  /** Removes {@code leaf} once it is draining and empty. */
  synchronized void dropIfDrained(LocusQueue leaf) {
    if (!leaf.limits().draining || leaf.numApplications() > 0
        || leaves.get(leaf.getQueueName()) != leaf) {
      return;
    }
    Map<String, LocusQueue> next = new LinkedHashMap<>(leaves);
    next.remove(leaf.getQueueName());
    List<OpenQueue> kids = new ArrayList<>(children);
    kids.remove(leaf);
    children = Collections.unmodifiableList(kids);
    leaves = Collections.unmodifiableMap(next);
  }

  /** True under {@code locus.policy=capacity}. */
  boolean isCapacity() {
    return capacityMode;
  }

  /**
   * The leaf a new application joins: under capacity, the configured queue it names (short
   * name or {@code root.<name>}), or null when it names none; otherwise {@code default}.
   */
  LocusQueue leafForSubmission(String requested) {
    if (!capacityMode) {
      return leaves.get(DEFAULT);
    }
    LocusQueue leaf = leaf(requested);
    return leaf == null || leaf.limits().draining ? null : leaf;
  }

  /** A leaf by short name or full path, draining ones included; null if there is none. */
  LocusQueue leaf(String name) {
    if (name == null) {
      return null;
    }
    Map<String, LocusQueue> now = leaves;
    LocusQueue byName = now.get(name);
    if (byName != null || !name.startsWith(PREFIX)) {
      return byName;
    }
    for (LocusQueue leaf : now.values()) {
      if (leaf.path().equals(name)) {
        return leaf;
      }
    }
    return null;
  }

  /**
   * Root for null or {@code root}, else the leaf, else the parent queue (by short name or full
   * path); null for a queue that does not exist.
   */
  Queue lookup(String name) {
    if (name == null || NAME.equals(name)) {
      return this;
    }
    LocusQueue leaf = leaf(name);
    return leaf != null ? leaf : parent(name);
  }

  /** A parent queue below root by short name or full path; null if there is none. */
  LocusParentQueue parent(String name) {
    Map<String, LocusParentQueue> now = parents;
    LocusParentQueue byPath = now.get(name);
    if (byPath != null) {
      return byPath;
    }
    for (LocusParentQueue p : now.values()) {
      if (p.getQueueName().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /**
   * The queue whose description answers for {@code name}: {@link #lookup}, except that outside
   * capacity any other name is {@code default}, as FifoScheduler answers. The RM asks for the
   * description of the queue an application was submitted to before it schedules the AM, and
   * fails the application if there is none; outside capacity every application runs in
   * {@code default} whatever it asked for.
   */
  Queue describing(String name) {
    Queue q = lookup(name);
    return q != null || capacityMode ? q : leaves.get(DEFAULT);
  }

  Collection<LocusQueue> leaves() {
    return leaves.values();
  }

  /** The configured leaves' names, for messages to the submitter and the admin. */
  List<String> configuredNames() {
    List<String> names = new ArrayList<>();
    for (LocusQueue leaf : leaves.values()) {
      if (!leaf.limits().draining) {
        names.add(leaf.getQueueName());
      }
    }
    return names;
  }

  Resource clusterResource() {
    return clusterResource.get();
  }

  void addUsed(Resource r) {
    synchronized (used) {
      Resources.addTo(used, r);
    }
  }

  void subtractUsed(Resource r) {
    synchronized (used) {
      Resources.subtractFrom(used, r);
    }
  }

  Resource getUsed() {
    synchronized (used) {
      return Resources.clone(used);
    }
  }

  /** What the whole cluster still has free. */
  Resource available() {
    return Resources.componentwiseMax(
        Resources.subtract(clusterResource.get(), getUsed()), Resources.none());
  }

  void updateAvailableMetrics() {
    metrics.setAvailableResourcesToQueue(available());
    for (LocusQueue leaf : leaves.values()) {
      leaf.updateAvailableMetrics();
    }
  }

  @Override
  public String getQueueName() {
    return NAME;
  }

  @Override
  public QueueMetrics getMetrics() {
    return metrics;
  }

  @Override
  public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
    QueueInfo info = Records.newRecord(QueueInfo.class);
    info.setQueueName(NAME);
    if (capacityMode) {
      info.setQueuePath(NAME);
    }
    info.setCapacity(1.0f);
    info.setMaximumCapacity(1.0f);
    info.setMaxParallelApps(maxParallelAppsOf(NAME));
    long clusterMb = clusterResource.get().getMemorySize();
    info.setCurrentCapacity(clusterMb <= 0 ? 0f : (float) getUsed().getMemorySize() / clusterMb);
    List<QueueInfo> kids = new ArrayList<>();
    if (includeChildQueues) {
      for (OpenQueue c : children) {
        kids.add(c.getQueueInfo(recursive, recursive));
      }
    }
    info.setChildQueues(kids);
    info.setApplications(new ArrayList<>());
    info.setQueueState(QueueState.RUNNING);
    describeLabels(info);
    return info;
  }

  /** Root's ACLs, then every queue's below it, as CapacityScheduler lists them. */
  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
    List<QueueUserACLInfo> out = new ArrayList<>();
    out.add(userAclInfo(user));
    for (OpenQueue c : children) {
      out.addAll(c.getQueueUserAclInfo(user));
    }
    return out;
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


  void setLabels(LabelPolicy labels) {
    this.labels = labels;
  }

  @Override
  LabelPolicy labels() {
    return labels;
  }

  void setWeights(Map<String, Float> byPath) {
    this.weights = byPath;
  }

  void setAbsolute(AbsoluteCapacities absolute) {
    this.absolute = absolute;
  }

  /**
   * The queue's figures on the cluster as it is now when the file is in absolute mode, else
   * null: CapacityScheduler derives them again whenever a node joins or leaves.
   */
  AbsoluteCapacities.Figures absoluteFigures(String path) {
    AbsoluteCapacities a = absolute;
    return a == null ? null : a.at(clusterResource()).get(path);
  }

  /**
   * Puts an absolute-mode queue's figures in {@code info} as CapacityScheduler reports them:
   * capacity and maximum-capacity relative to the parent, and the default partition's
   * configurations with the effective and configured resources.
   */
  static void describe(QueueInfo info, AbsoluteCapacities.Figures f) {
    info.setCapacity(f.capacity);
    info.setMaximumCapacity(f.maximumCapacity);
    QueueConfigurations c = QueueConfigurations.newInstance(f.capacity, f.absoluteCapacity,
        f.maximumCapacity, f.absoluteMaximumCapacity, 0f);
    c.setEffectiveMinCapacity(f.effectiveMinimum);
    c.setEffectiveMaxCapacity(f.effectiveMaximum);
    c.setConfiguredMinCapacity(f.configuredMinimum);
    c.setConfiguredMaxCapacity(f.configuredMaximum);
    info.setQueueConfigurations(Collections.singletonMap("", c));
  }

  void setParallelLimits(java.util.function.ToIntFunction<String> byPath) {
    this.parallel = byPath;
  }

  /** The queue's {@code max-parallel-apps}, {@code Integer.MAX_VALUE} when none holds it. */
  int maxParallelAppsOf(String path) {
    return parallel.applyAsInt(path);
  }

  /** The queue's configured weight, -1 when its capacity is not one (CapacityScheduler's). */
  float weightOf(String path) {
    Float w = weights.get(path);
    return w == null ? -1f : w;
  }
}
