package org.locus.yarn.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.ConfigurationProvider;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.security.AccessType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueTemplate;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.OrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueCapacityVector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueCapacityVector.ResourceUnitCapacityType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.conf.QueueCapacityConfigParser;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's {@code capacity-scheduler.xml}, read with CapacityScheduler's own parser
 * ({@link CapacitySchedulerConfiguration}, through the RM's configuration provider as
 * CapacityScheduler reads it, so {@code -refreshQueues} sees the edited file): the queue tree
 * the core is handed (as {@code locus.capacity.tree}), every queue's path for the ACLs, and the
 * queue mappings.
 *
 * <p>Weights ({@code 2w}) are turned into the percentages of the parent CapacityScheduler
 * computes from them, so the core sees one kind of tree. Absolute resources
 * ({@code [memory=10240,vcores=12]}) are handed over as configured: the core derives each
 * queue's share from the cluster whenever it changes, as CapacityScheduler does
 * ({@link AbsoluteCapacities} derives the same figures for the RM's reports). With the legacy
 * queue mode off, every queue's capacity vectors ({@code [memory=50%,vcores=2w]}) are read
 * with CapacityScheduler's QueueCapacityConfigParser and handed over as read, to be resolved
 * against the cluster the same way. Files mixing the
 * modes in ways CapacityScheduler refuses are refused with its words. The core checks and
 * enforces the figures, and refuses at start (naming the key, under every policy) what Locus
 * cannot honour at all: the legacy auto-created queues and vector entries of resource types
 * other than memory and vcores, which this class only finds and passes on. Queues created on a submission under a parent with
 * {@code auto-queue-creation-v2.enabled} ({@link #withCreated}: the leaf, and the parents
 * missing above it) join the tree as the file's. Every other {@code yarn.scheduler.capacity.*} key Locus does
 * not honour is listed for the log.
 *
 * <p>Immutable: a refresh reads a new one.
 */
public final class QueueFile {
  private static final Logger LOG = LoggerFactory.getLogger(QueueFile.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String PREFIX = CapacitySchedulerConfiguration.PREFIX;
  static final String ROOT = "root";

  /** Per-queue keys whose meaning Locus enforces (with the ACL keys and {@code queues}). */
  private static final Set<String> QUEUE_KEYS = new HashSet<>(Arrays.asList(
      "queues", "capacity", "maximum-capacity", "user-limit-factor",
      "minimum-user-limit-percent", "maximum-am-resource-percent", "maximum-applications",
      "state", "acl_submit_applications", "acl_administer_queue",
      // Honoured by org.locus.yarn.ApplicationPriorities with CS's rules.
      "default-application-priority", "acl_application_max_priority",
      // Honoured by the core's running-application limits (a held application gets no AM).
      CapacitySchedulerConfiguration.MAX_PARALLEL_APPLICATIONS,
      // Honoured by Locus's preemption policy (org.locus.yarn.LocusPreemptionPolicy).
      "disable_preemption", "intra-queue-preemption.disable_preemption",
      // Honoured by org.locus.yarn.LabelPolicy, reported to the RM with each queue.
      "default-node-label-expression",
      // Honoured through the RM's lifetime monitor (LocusScheduler#checkAndGetApplicationLifetime).
      CapacitySchedulerConfiguration.MAXIMUM_LIFETIME_SUFFIX,
      CapacitySchedulerConfiguration.DEFAULT_LIFETIME_SUFFIX,
      // Honoured through the RM's validation of every ask
      // (LocusScheduler#getMaximumResourceCapability).
      CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION,
      CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION_MB,
      CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION_VCORES));
  /** Per-queue keys of the queues created on the fly that Locus honours. */
  private static final Set<String> CREATION_KEYS = new HashSet<>(Arrays.asList(
      "auto-queue-creation-v2.enabled", "auto-queue-creation-v2.max-queues",
      CapacitySchedulerConfiguration.MAXIMUM_QUEUE_DEPTH));
  private static final String TEMPLATE = "auto-queue-creation-v2.template.";
  private static final String LEAF_TEMPLATE = "auto-queue-creation-v2.leaf-template.";
  private static final String PARENT_TEMPLATE = "auto-queue-creation-v2.parent-template.";
  /** Per-queue keys of a managed parent (the legacy auto-created queues) that Locus honours. */
  private static final Set<String> LEGACY_KEYS = new HashSet<>(Arrays.asList(
      CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_ENABLED,
      CapacitySchedulerConfiguration.AUTO_CREATE_QUEUE_MAX_QUEUES,
      CapacitySchedulerConfiguration.FAIL_AUTO_CREATION_ON_EXCEEDING_CAPACITY,
      CapacitySchedulerConfiguration.AUTO_CREATED_QUEUE_MANAGEMENT_POLICY));
  private static final String LEGACY_TEMPLATE =
      CapacitySchedulerConfiguration.AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX + ".";
  /** CapacityScheduler's slack when it checks a managed parent's room for one more guarantee. */
  private static final float ROOM_EPSILON = 0.001f;
  /** Global keys Locus honours. */
  private static final Set<String> GLOBAL_KEYS = new HashSet<>(Arrays.asList(
      "maximum-applications", "maximum-am-resource-percent", "queue-mappings",
      "queue-mappings-override.enable", "legacy-queue-mode.enabled",
      // The default of every queue's and every user's running-application limit.
      CapacitySchedulerConfiguration.MAX_PARALLEL_APPLICATIONS,
      "user." + CapacitySchedulerConfiguration.MAX_PARALLEL_APPLICATIONS,
      CapacitySchedulerConfiguration.MAXIMUM_QUEUE_DEPTH,
      // Read and evaluated with CapacityScheduler's own classes (QueueMappingRule).
      "mapping-rule-format", "mapping-rule-json", "mapping-rule-json-file"));

  private final String treeJson;
  private final List<String> paths;
  /** Queues whose capacity is a weight, with it. */
  private final Map<String, Float> weights;
  /** Null unless the queues' capacities are absolute resources. */
  private final AbsoluteCapacities absolute;
  private final CapacitySchedulerConfiguration cs;
  /** The file as read, before any created queue's template was applied. */
  private final CapacitySchedulerConfiguration source;
  /** Queues created on the fly, in creation order (a parent before its children). */
  private final List<String> created;
  /** The queues of {@link #created} that were created as parents. */
  private final Set<String> createdParents;
  /**
   * Leaves created under a managed parent that were given no guarantee (its guaranteed
   * capacity was handed out when they came).
   */
  private final Set<String> zeroed;
  /** Every queue's guaranteed share of the cluster in percent, from the file's percentages. */
  private final Map<String, Float> ofCluster;
  private final List<String> unhonoured;
  /** What becomes of {@link #unhonoured}, worked out when first asked. */
  private volatile KeyAudit audit;
  /**
   * Per queue, per node partition the file divides: its capacity, maximum-capacity, absolute
   * capacity and absolute maximum-capacity there, fractions as CapacityScheduler's
   * QueueCapacities hold them.
   */
  private Map<String, Map<String, float[]>> partitionShares = Collections.emptyMap();
  /** Per queue, its maximum and default application lifetime ({@link #lifetimes(String)}). */
  private Map<String, long[]> lifetimes = Collections.emptyMap();
  /** Per queue, its largest container ({@link #maximumAllocation(String)}). */
  private Map<String, Resource> maximumAllocations = Collections.emptyMap();

  /** The resource types an absolute capacity may name, as CapacityScheduler's queues read it. */
  private static final Set<String> RESOURCE_TYPES =
      new HashSet<>(Arrays.asList("memory", "vcores"));

  private QueueFile(String treeJson, List<String> paths, Map<String, Float> weights,
      AbsoluteCapacities absolute, CapacitySchedulerConfiguration cs,
      CapacitySchedulerConfiguration source, List<String> created, Set<String> createdParents,
      Set<String> zeroed, Map<String, Float> ofCluster, List<String> unhonoured) {
    this.treeJson = treeJson;
    this.paths = paths;
    this.weights = weights;
    this.absolute = absolute;
    this.cs = cs;
    this.source = source;
    this.created = created;
    this.createdParents = createdParents;
    this.zeroed = zeroed;
    this.ofCluster = ofCluster;
    this.unhonoured = unhonoured;
  }

  /**
   * Reads {@code capacity-scheduler.xml} (and any {@code yarn.scheduler.capacity.*} key in
   * {@code conf}).
   *
   * @param provider the RM's configuration provider, or null to read the file from the classpath
   * @throws IOException when the provider cannot read the file
   */
  public static QueueFile read(Configuration conf, ConfigurationProvider provider)
      throws IOException {
    return parse(load(conf, provider));
  }

  private static CapacitySchedulerConfiguration load(Configuration conf,
      ConfigurationProvider provider) throws IOException {
    if (provider == null) {
      return new CapacitySchedulerConfiguration(conf);
    }
    CapacitySchedulerConfiguration cs = new CapacitySchedulerConfiguration(conf, false);
    try {
      InputStream in = provider.getConfigurationInputStream(conf,
          YarnConfiguration.CS_CONFIGURATION_FILE);
      if (in != null) {
        cs.addResource(in, YarnConfiguration.CS_CONFIGURATION_FILE);
      }
    } catch (Exception e) {
      throw new IOException("Cannot read " + YarnConfiguration.CS_CONFIGURATION_FILE + ": "
          + e.getMessage(), e);
    }
    return cs;
  }

  /** Builds the tree from an already loaded configuration (tests, and {@link #read}). */
  public static QueueFile parse(CapacitySchedulerConfiguration cs) throws IOException {
    return parse(cs, Collections.<String>emptyList(), Collections.<String>emptySet(),
        Collections.<String>emptySet());
  }

  /**
   * The tree of {@code source} with the queues created on the fly so far, each configured as
   * CapacityScheduler configures a new queue: its parent's templates
   * ({@code auto-queue-creation-v2.template.*}, with {@code leaf-template.*} for a leaf and
   * {@code parent-template.*} for a parent in {@code parents}) under what the file sets for
   * the queue itself, and a weight of 1 when neither sets a capacity; a leaf's AM share is
   * 100 % when neither sets {@code maximum-am-resource-percent}, a parent creates its own
   * children. A leaf under a managed parent
   * (the legacy {@code auto-create-child-queue.enabled}) is configured as CapacityScheduler's
   * AutoCreatedLeafQueue: the parent's {@code leaf-queue-template.*} keys as its own, over
   * what the file sets for it, and the template's capacity, or 0 when it is in
   * {@code zeroed}.
   */
  private static QueueFile parse(CapacitySchedulerConfiguration source, List<String> created,
      Set<String> parents, Set<String> zeroed) throws IOException {
    CapacitySchedulerConfiguration cs = source;
    if (!created.isEmpty()) {
      cs = new CapacitySchedulerConfiguration(source, false);
      // A created parent's templates as CapacityScheduler reads them: before its own parent's
      // templates are applied to it (AbstractParentQueue#setupQueueConfigs), so what
      // parent-template.* gives it reaches its keys but not its children.
      Map<String, AutoCreatedQueueTemplate> templates = new HashMap<>();
      for (String leaf : created) {
        QueuePath qp = new QueuePath(leaf);
        if (managed(source, qp.getParent())) {
          legacyLeaf(source, cs, leaf, zeroed.contains(leaf));
          continue;
        }
        boolean parent = parents.contains(leaf);
        if (parent) {
          templates.put(leaf, new AutoCreatedQueueTemplate(cs, qp));
        }
        AutoCreatedQueueTemplate above = templates.get(qp.getParent());
        (above != null ? above : new AutoCreatedQueueTemplate(cs, new QueuePath(qp.getParent())))
            .setTemplateEntriesForChild(cs, qp, !parent);
        if (cs.get(PREFIX + leaf + ".capacity") == null) {
          cs.set(PREFIX + leaf + ".capacity", "1w");
        }
        if (parent) {
          // CapacityScheduler's created parent creates its children whatever its keys say.
          cs.setBoolean(PREFIX + leaf + "."
              + CapacitySchedulerConfiguration.AUTO_QUEUE_CREATION_V2_ENABLED, true);
          continue;
        }
        if (cs.get(PREFIX + leaf + ".maximum-am-resource-percent") == null) {
          // CapacityScheduler's created leaf does not inherit the global percentage: its AMs
          // may take all it may use (its REST reports maxAMLimitPercentage 100) unless the
          // templates set one.
          cs.set(PREFIX + leaf + ".maximum-am-resource-percent", "1.0");
        }
      }
    }
    return parse(cs, source, created, parents, zeroed);
  }

  /**
   * The keys of the leaf at {@code leaf} under a managed parent, as ManagedParentQueue's
   * setLeafQueueConfigs writes them: every {@code <parent>.leaf-queue-template.<key>} becomes
   * {@code <leaf>.<key>}; the capacity is the template's while the parent had room for it
   * when the leaf came (GuaranteedOrZeroCapacityOverTimePolicy), else 0. Its application
   * limit is the system's.
   */
  private static void legacyLeaf(CapacitySchedulerConfiguration source,
      CapacitySchedulerConfiguration cs, String leaf, boolean zero) {
    String parent = leaf.substring(0, leaf.lastIndexOf('.'));
    String template = PREFIX + parent + "." + LEGACY_TEMPLATE;
    for (Map.Entry<String, String> e : source.getPropsWithPrefix(template).entrySet()) {
      cs.set(PREFIX + leaf + "." + e.getKey(), e.getValue());
    }
    String capacity = source.getTrimmed(template + "capacity", "0");
    cs.set(PREFIX + leaf + ".capacity", zero ? "0" : capacity);
    // CapacityScheduler does not hold an AutoCreatedLeafQueue to the queue's or the user's
    // application limit (AbstractLeafQueue#validateSubmitApplication), only to the system's.
    cs.setInt(PREFIX + leaf + ".maximum-applications", source.getMaximumSystemApplications());
  }

  /** Whether the queue at {@code path} is a managed parent (auto-create-child-queue.enabled). */
  private static boolean managed(CapacitySchedulerConfiguration cs, String path) {
    return path != null && !ROOT.equals(path)
        && cs.isAutoCreateChildQueueEnabled(new QueuePath(path));
  }

  /** The template's capacity of a managed parent's leaves, in percent of the parent. */
  private static float templateCapacity(CapacitySchedulerConfiguration cs, String parent) {
    return cs.getNonLabeledQueueCapacity(new QueuePath(parent + "."
        + CapacitySchedulerConfiguration.AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX));
  }

  private static QueueFile parse(CapacitySchedulerConfiguration cs,
      CapacitySchedulerConfiguration source, List<String> created, Set<String> parents,
      Set<String> zeroed) throws IOException {
    List<String> paths = new ArrayList<>();
    ArrayNode queues = JSON.createArrayNode();
    ObjectNode tree = JSON.createObjectNode();
    Map<String, Float> weights = new HashMap<>();
    Map<String, Resource> minimum = new HashMap<>();
    Map<String, Resource> maximum = new HashMap<>();
    AbsoluteCapacities.Vectors vectors =
        cs.isLegacyQueueMode() ? null : new AbsoluteCapacities.Vectors();
    Map<String, Float> ofCluster = new HashMap<>();
    Map<String, Map<String, float[]>> partitionShares = Collections.emptyMap();
    Map<String, long[]> lifetimes = Collections.emptyMap();
    Map<String, Resource> maximumAllocations = Collections.emptyMap();
    try {
      refuseUnsupported(cs, ROOT);
      walk(cs, ROOT, 100f, created, paths, weights, minimum, maximum, vectors, ofCluster,
          queues);
      partitionShares = partitionShares(cs, paths, weights, minimum);
      putPartitionShares(partitionShares, paths, queues, tree);
      lifetimes = lifetimes(cs, paths);
      maximumAllocations = maximumAllocations(cs, paths);
    } catch (Unsupported e) {
      // The walk may have stopped inside an entry.
      queues.removeAll();
      ObjectNode refused = tree.putObject("refused");
      refused.put("key", e.key);
      refused.put("message", e.getMessage());
    }
    tree.put("maximum_applications", cs.getMaximumSystemApplications());
    try {
      userParallelLimits(cs, tree);
    } catch (Unsupported e) {
      queues.removeAll();
      ObjectNode refused = tree.putObject("refused");
      refused.put("key", e.key);
      refused.put("message", e.getMessage());
    }
    if (dominant(cs)) {
      // Queue maxima, order and user and AM limits then compare every resource type.
      tree.put("resource_calculator", "dominant");
    }
    if (vectors != null && !tree.has("refused")) {
      tree.put("vector", true);
    }
    tree.set("queues", queues);
    // A file without queues under root (or no file) leaves the core's default queue.
    boolean none = paths.size() < 2 && !tree.has("refused");
    AbsoluteCapacities absolute = tree.has("refused") ? null
        : vectors != null ? new AbsoluteCapacities(paths, vectors)
        : minimum.isEmpty() ? null : new AbsoluteCapacities(paths, minimum, maximum);
    QueueFile file = new QueueFile(none ? null : JSON.writeValueAsString(tree),
        Collections.unmodifiableList(paths), Collections.unmodifiableMap(weights), absolute, cs,
        source, Collections.unmodifiableList(new ArrayList<>(created)),
        Collections.unmodifiableSet(new HashSet<>(parents)),
        Collections.unmodifiableSet(new HashSet<>(zeroed)), ofCluster,
        unhonoured(cs, new HashSet<>(paths)));
    file.partitionShares = tree.has("refused") ? Collections.emptyMap() : partitionShares;
    file.lifetimes = lifetimes;
    file.maximumAllocations = tree.has("refused") ? Collections.emptyMap() : maximumAllocations;
    return file;
  }

  /** What a queue or user key ends with for its running-application limit. */
  private static final String PARALLEL = CapacitySchedulerConfiguration.MAX_PARALLEL_APPLICATIONS;
  private static final String USER_PREFIX = PREFIX + "user.";

  /** A running-application limit read by CapacityScheduler's getter, which fails on a non-number. */
  private static int parallelLimit(String key, java.util.function.IntSupplier getter)
      throws Unsupported {
    try {
      return getter.getAsInt();
    } catch (NumberFormatException e) {
      throw new Unsupported(key, "is not a whole number of applications: " + e.getMessage());
    }
  }

  /**
   * The users' running-application limits: the default of {@code user.max-parallel-apps} when
   * set, and each {@code user.<name>.max-parallel-apps}.
   */
  private static void userParallelLimits(CapacitySchedulerConfiguration cs, ObjectNode tree)
      throws Unsupported {
    if (cs.get(USER_PREFIX + PARALLEL) != null) {
      tree.put("user_max_parallel_apps", parallelLimit(USER_PREFIX + PARALLEL,
          () -> cs.getDefaultMaxParallelAppsPerUser()));
    }
    ObjectNode users = null;
    for (String user : parallelLimitedUsers(cs)) {
      if (users == null) {
        users = tree.putObject("users_max_parallel_apps");
      }
      users.put(user, parallelLimit(USER_PREFIX + user + "." + PARALLEL,
          () -> cs.getMaxParallelAppsForUser(user)));
    }
  }

  /** The users with a running-application limit of their own, sorted. */
  private static Set<String> parallelLimitedUsers(CapacitySchedulerConfiguration cs) {
    Set<String> out = new TreeSet<>();
    for (Map.Entry<String, String> e : cs) {
      String name = userOfParallelKey(e.getKey());
      if (name != null) {
        out.add(name);
      }
    }
    return out;
  }

  /** The user a {@code user.<name>.max-parallel-apps} key names, else null. */
  private static String userOfParallelKey(String key) {
    String suffix = "." + PARALLEL;
    if (!key.startsWith(USER_PREFIX) || !key.endsWith(suffix)
        || key.length() <= USER_PREFIX.length() + suffix.length()) {
      return null;
    }
    return key.substring(USER_PREFIX.length(), key.length() - suffix.length());
  }

  /**
   * Each queue's largest container as CapacityScheduler's queues derive it: its parent's (the
   * cluster's {@code yarn.scheduler.maximum-allocation-*} for root) with the queue's own setting
   * over it, which is every type {@code maximum-allocation} names or, without that key,
   * {@code maximum-allocation-mb} and {@code maximum-allocation-vcores}. Only the cluster's
   * figures bound a queue's: a child may set more than its parent.
   *
   * @throws Unsupported with CapacityScheduler's message for a value above the cluster's, or
   *     the parser's for one it cannot read
   */
  private static Map<String, Resource> maximumAllocations(CapacitySchedulerConfiguration cs,
      List<String> paths) throws Unsupported {
    Resource cluster = ResourceUtils.fetchMaximumAllocationFromConfig(cs);
    Map<String, Resource> out = new HashMap<>();
    // Parents come before their children in paths.
    for (String path : paths) {
      QueuePath qp = new QueuePath(path);
      String prefix = PREFIX + path + ".";
      Resource max = Resources.clone(qp.isRoot() ? cluster : out.get(qp.getParent()));
      Resource set;
      long mb;
      int vcores;
      String key = prefix + CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION;
      try {
        set = cs.getQueueMaximumAllocation(qp);
        key = prefix + CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION_MB;
        mb = cs.getQueueMaximumAllocationMb(qp);
        key = prefix + CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION_VCORES;
        vcores = cs.getQueueMaximumAllocationVcores(qp);
      } catch (RuntimeException e) {
        throw new Unsupported(key, "= " + cs.get(key) + ": " + e.getMessage());
      }
      Resource shown = set;
      String above = null;
      // Hadoop's getter answers its own none() when the resource string is unset.
      if (set == Resources.none()) {
        if (mb != CapacitySchedulerConfiguration.UNDEFINED) {
          max.setMemorySize(mb);
        }
        if (vcores != CapacitySchedulerConfiguration.UNDEFINED) {
          max.setVirtualCores(vcores);
        }
        shown = max;
        if (mb > cluster.getMemorySize()) {
          above = CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION_MB;
        } else if (vcores > cluster.getVirtualCores()) {
          above = CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION_VCORES;
        }
      } else {
        for (ResourceInformation ri : set.getResources()) {
          if (ri.compareTo(cluster.getResourceInformation(ri.getName())) > 0) {
            above = CapacitySchedulerConfiguration.MAXIMUM_ALLOCATION;
          }
          max.setResourceInformation(ri.getName(), ri);
        }
      }
      if (above != null) {
        throw new Unsupported(prefix + above, "Queue maximum allocation cannot be larger than"
            + " the cluster setting for queue " + path + " max allocation per queue: " + shown
            + " cluster setting: " + cluster);
      }
      out.put(path, max);
    }
    return out;
  }

  /**
   * The largest container of the queue at {@code path} as configured (CapacityScheduler's
   * queue {@code getMaximumAllocation}); null for a path the file does not have.
   */
  public Resource maximumAllocation(String path) {
    Resource r = maximumAllocations.get(path);
    return r == null ? null : Resources.clone(r);
  }

  /**
   * Refuses, with CapacityScheduler's words, a refresh to this file from {@code inForce} that
   * lowers any type of a leaf's largest container: its AMs were told the larger one at
   * registration. The leaves created on the fly are not re-read, so not held to it.
   *
   * @throws IOException naming the leaf, its maximum in force and the one refused
   */
  public void checkMaximumAllocationsKept(QueueFile inForce) throws IOException {
    for (String path : paths) {
      Resource before = inForce.maximumAllocations.get(path);
      Resource after = maximumAllocations.get(path);
      // The cheap comparison first: the leaf checks walk the tree.
      if (before == null || after == null || Resources.fitsIn(before, after)) {
        continue;
      }
      if (inForce.isLeaf(path) && isLeaf(path) && !isCreated(path)) {
        throw new IOException("Trying to reinitialize " + path + " the maximum allocation size"
            + " can not be decreased! Current setting: " + before + ", trying to set it to: "
            + after);
      }
    }
  }

  /**
   * Each queue's maximum and default application lifetime in seconds (not positive: none), as
   * CapacityScheduler's queues inherit them (QueueAppLifetimeAndLimitSettings): an unset
   * maximum is the parent's (0 means none, overriding it); an unset default is the parent's
   * when one was set above, capped by the queue's maximum, else the maximum.
   *
   * @throws Unsupported with CapacityScheduler's message for a default above the maximum
   */
  private static Map<String, long[]> lifetimes(CapacitySchedulerConfiguration cs,
      List<String> paths) throws Unsupported {
    Map<String, long[]> out = new HashMap<>();
    Set<String> defaultSet = new HashSet<>();
    // Parents come before their children in paths.
    for (String path : paths) {
      QueuePath qp = new QueuePath(path);
      long[] parent = qp.isRoot() ? null : out.get(qp.getParent());
      long max = cs.getMaximumLifetimePerQueue(qp);
      if (parent != null && max < 0) {
        max = parent[0];
      }
      long dflt = cs.getDefaultLifetimePerQueue(qp);
      boolean setAbove = parent != null && defaultSet.contains(qp.getParent());
      if (dflt >= 0 || setAbove) {
        defaultSet.add(path);
      }
      if (parent == null) {
        // Root's figures are kept as set: its children read them, no application runs in it.
        out.put(path, new long[] {max, dflt});
        continue;
      }
      if (dflt < 0) {
        dflt = setAbove ? Math.min(parent[1], max) : max;
      }
      if (max > 0 && dflt > max) {
        throw new Unsupported(PREFIX + path + "." + CapacitySchedulerConfiguration
            .DEFAULT_LIFETIME_SUFFIX, "Default lifetime " + dflt
            + " can't exceed maximum lifetime " + max);
      }
      out.put(path, new long[] {max, dflt <= 0 ? max : dflt});
    }
    return out;
  }

  /**
   * The queue's maximum and default application lifetime in seconds, as CapacityScheduler
   * reads them; not positive: none. {-1, -1} for a path the file does not have.
   */
  public long[] lifetimes(String path) {
    long[] l = lifetimes.get(path);
    return l == null ? new long[] {-1, -1} : l.clone();
  }

  /** Whether the file's {@code resource-calculator} compares every resource type. */
  public static boolean dominant(CapacitySchedulerConfiguration cs) {
    return cs.getResourceCalculator() instanceof DominantResourceCalculator;
  }

  /** What the file asks for that Locus cannot do, with the key that asks. */
  private static final class Unsupported extends Exception {
    private static final long serialVersionUID = 1L;
    final String key;

    Unsupported(String key, String message) {
      super(message);
      this.key = key;
    }
  }

  /**
   * A leaf's {@code ordering-policy}, read by CapacityScheduler's own getter: {@code fair}
   * (FairOrderingPolicy, with its size-based weight) goes to the core; {@code fifo} is the
   * core's default; any other policy is listed as not honoured ({@link #unhonoured}).
   */
  private static void fairOrdering(CapacitySchedulerConfiguration cs, QueuePath qp,
      ObjectNode q) throws Unsupported {
    OrderingPolicy<FiCaSchedulerApp> policy;
    try {
      policy = cs.getAppOrderingPolicy(qp);
    } catch (RuntimeException e) {
      throw new Unsupported(PREFIX + qp.getFullPath() + ".ordering-policy", e.getMessage());
    }
    if (policy.getClass() == FairOrderingPolicy.class) {
      q.put("ordering", "fair");
      q.put("size_based_weight", ((FairOrderingPolicy<?>) policy).getSizeBasedWeight());
    }
  }

  private static void walk(CapacitySchedulerConfiguration cs, String path, float capacity,
      List<String> created, List<String> paths, Map<String, Float> weights,
      Map<String, Resource> minimum, Map<String, Resource> maximum,
      AbsoluteCapacities.Vectors vectors, Map<String, Float> ofCluster, ArrayNode out)
      throws Unsupported {
    if (paths.size() >= 4096) {
      throw new Unsupported(PREFIX + "root.queues", "more than 4096 queues; Locus schedules "
          + "at most 4096");
    }
    QueuePath qp = new QueuePath(path);
    paths.add(path);
    int dot = path.lastIndexOf('.');
    ofCluster.put(path, dot < 0 ? 100f : ofCluster.get(path.substring(0, dot)) * capacity / 100f);
    ObjectNode q = out.addObject();
    q.put("path", path);
    q.put("capacity", capacity);
    q.put("maximum_capacity",
        ROOT.equals(path) ? 100f : cs.getNonLabeledQueueMaximumCapacity(qp));
    QueueState state = cs.getConfiguredState(qp);
    if (state != null) {
      q.put("state", state.name());
    }
    resources(cs, path, minimum, maximum, q);
    if (vectors != null) {
      vectors(cs, path, vectors, weights, q);
    }
    q.put("user_limit_factor", cs.getUserLimitFactor(qp));
    q.put("minimum_user_limit_percent", cs.getUserLimit(qp));
    q.put("maximum_am_resource_percent",
        cs.getMaximumApplicationMasterResourcePerQueuePercent(qp));
    q.put("maximum_applications", cs.getMaximumApplicationsPerQueue(qp));
    int parallel = parallelLimit(PREFIX + path + "." + PARALLEL,
        () -> cs.getMaxParallelAppsForQueue(qp));
    if (parallel != Integer.MAX_VALUE) {
      // The queue's own, else the file's default for every queue, as CapacityScheduler reads it.
      q.put("max_parallel_apps", parallel);
    }
    String noPreemption = cs.getTrimmed(PREFIX + path + ".disable_preemption");
    if (noPreemption != null) {
      // Unset: the parent's, as CapacityScheduler inherits it (the core applies that).
      q.put("disable_preemption", Boolean.parseBoolean(noPreemption));
    }
    String noIntraQueue = cs.getTrimmed(PREFIX + path
        + ".intra-queue-preemption.disable_preemption");
    if (noIntraQueue != null) {
      q.put("intra_queue_disable_preemption", Boolean.parseBoolean(noIntraQueue));
    }
    List<String> children = new ArrayList<>();
    List<String> names = cs.getQueues(qp);
    if (names != null) {
      for (String child : names) {
        String name = child.trim();
        if (!name.isEmpty()) {
          children.add(path + "." + name);
        }
      }
    }
    for (String leaf : created) {
      if (path.equals(leaf.substring(0, leaf.lastIndexOf('.'))) && !children.contains(leaf)) {
        children.add(leaf);
      }
    }
    if (created.contains(path)) {
      q.put("created", true);
    }
    if (children.isEmpty() && createsChildren(cs, path)) {
      // CapacityScheduler's parent even before its first child: no application runs in it.
      q.put("parent", true);
    } else if (children.isEmpty() && cs.get(PREFIX + path + ".ordering-policy") != null) {
      fairOrdering(cs, qp, q);
    }
    if (managed(cs, path)) {
      // GuaranteedOrZeroCapacityOverTimePolicy hands out at most the parent's guarantee; the
      // children need not fill it.
      q.put("managed", true);
    }
    float[] shares = shares(cs, path, children, weights);
    for (int i = 0; i < children.size(); i++) {
      walk(cs, children.get(i), shares[i], created, paths, weights, minimum, maximum, vectors,
          ofCluster, out);
    }
    childrenFitTheirParent(path, children, minimum);
  }

  private static Resource configured(CapacitySchedulerConfiguration cs, String path,
      boolean max) {
    QueuePath qp = new QueuePath(path);
    return max ? cs.getMaximumResourceRequirement("", qp, RESOURCE_TYPES)
        : cs.getMinimumResourceRequirement("", qp, RESOURCE_TYPES);
  }

  private static void put(ObjectNode q, String field, Resource r) {
    ObjectNode n = q.putObject(field);
    n.put("memory_mb", r.getMemorySize());
    n.put("vcores", r.getVirtualCores());
  }

  /**
   * The queue's configured minimum and maximum resources (absolute mode) with
   * CapacityScheduler's checks and its inheritance of the parent's maximum
   * (AbstractCSQueue#updateConfigurableResourceLimits), into the core's entry.
   */
  private static void resources(CapacitySchedulerConfiguration cs, String path,
      Map<String, Resource> minimum, Map<String, Resource> maximum, ObjectNode q)
      throws Unsupported {
    if (ROOT.equals(path)) {
      return;
    }
    Resource min = configured(cs, path, false);
    Resource max = configured(cs, path, true);
    String parent = path.substring(0, path.lastIndexOf('.'));
    Resource parentMax = maximum.getOrDefault(parent, Resources.none());
    if (!parentMax.equals(Resources.none())
        && max.getMemorySize() > parentMax.getMemorySize()) {
      throw new Unsupported(PREFIX + path + ".maximum-capacity", "Max resource configuration "
          + max + " is greater than parents max value:" + parentMax + " in queue:" + path);
    }
    if (max.equals(Resources.none()) && !min.equals(Resources.none())
        && !parentMax.equals(Resources.none())) {
      max = Resources.clone(parentMax);
    }
    if (!max.equals(Resources.none()) && min.getMemorySize() > max.getMemorySize()) {
      throw new Unsupported(PREFIX + path + ".maximum-capacity", "Min resource configuration "
          + min + " is greater than its max value:" + max + " in queue:" + path);
    }
    if (!max.equals(Resources.none())) {
      maximum.put(path, max);
    }
    if (cs.isLegacyQueueMode()
        && cs.checkConfigTypeIsAbsoluteResource("", new QueuePath(path), RESOURCE_TYPES)) {
      minimum.put(path, min);
      put(q, "minimum_resource", min);
      if (!max.equals(Resources.none())) {
        put(q, "maximum_resource", max);
      }
    }
  }

  /**
   * CapacityScheduler's AbstractParentQueue#setChildQueues for absolute children: their
   * minimums together within the parent's.
   */
  private static void childrenFitTheirParent(String parent, List<String> children,
      Map<String, Resource> minimum) throws Unsupported {
    Resource parentMin = minimum.get(parent);
    if (parentMin == null || children.isEmpty()) {
      return;
    }
    Resource sum = Resource.newInstance(0L, 0);
    for (String c : children) {
      Resources.addTo(sum, minimum.getOrDefault(c, Resources.none()));
    }
    if (parentMin.getMemorySize() < sum.getMemorySize()) {
      throw new Unsupported(PREFIX + parent + ".capacity", "Parent Queues capacity: "
          + parentMin + " is less than to its children:" + sum + " for queue:"
          + parent.substring(parent.lastIndexOf('.') + 1));
    }
  }

  /**
   * The children's capacities in percent of the parent, as CapacityScheduler computes them in
   * its legacy queue mode: a percentage as written; a weight ({@code 2w}) as its share of the
   * siblings' weights (CapacityScheduler's normalized weight). Siblings mixing weights with
   * positive percentages are refused with CapacityScheduler's own message
   * (AbstractParentQueue#getCapacityConfigurationTypeForQueues); a percentage of 0 next to
   * weights is allowed there, and here.
   */
  private static float[] shares(CapacitySchedulerConfiguration cs, String parent,
      List<String> children, Map<String, Float> weights) throws Unsupported {
    float[] weight = new float[children.size()];
    float[] percent = new float[children.size()];
    if (!cs.isLegacyQueueMode()) {
      // Every mix is CapacityScheduler's to resolve against the cluster (the vectors); the
      // percentages are checked as it loads them.
      for (int i = 0; i < children.size(); i++) {
        refuseUnsupported(cs, children.get(i));
        QueuePath qp = new QueuePath(children.get(i));
        readWeight(cs, qp);
        percent[i] = readPercent(cs, qp);
      }
      return percent;
    }
    boolean percentageSet = false;
    boolean weightSet = false;
    boolean absoluteSet = false;
    String firstWeight = null;
    String firstPercent = null;
    String firstAbsolute = null;
    String firstOther = null;
    StringBuilder diag = new StringBuilder();
    for (int i = 0; i < children.size(); i++) {
      String path = children.get(i);
      refuseUnsupported(cs, path);
      QueuePath qp = new QueuePath(path);
      weight[i] = readWeight(cs, qp);
      percent[i] = readPercent(cs, qp);
      boolean absolute = cs.checkConfigTypeIsAbsoluteResource("", qp, RESOURCE_TYPES);
      if (percent[i] > 0) {
        percentageSet = true;
        firstPercent = firstPercent == null ? path : firstPercent;
      }
      if (weight[i] >= 0) {
        weightSet = true;
        firstWeight = firstWeight == null ? path : firstWeight;
        diag.append("{Queue=").append(path).append(", label= uses weight mode}. ");
      }
      if (absolute) {
        absoluteSet = true;
        firstAbsolute = firstAbsolute == null ? path : firstAbsolute;
        // As CapacityScheduler: an absolute sibling clears what percentages before it set.
        percentageSet = false;
        diag.append("{Queue=").append(path).append(", label= uses absolute mode}. ");
      } else {
        firstOther = firstOther == null ? path : firstOther;
      }
      if (percentageSet) {
        // CapacityScheduler's wording, which repeats this once a sibling before used a
        // percentage.
        diag.append("{Queue=").append(path).append(", label= uses percentage mode}. ");
      }
    }
    if ((percentageSet ? 1 : 0) + (weightSet ? 1 : 0) + (absoluteSet ? 1 : 0) > 1) {
      // The mode that appeared last is the one at odds with its siblings.
      String culprit = null;
      for (String first : new String[] {firstWeight, firstPercent, firstAbsolute}) {
        if (first != null && (culprit == null
            || children.indexOf(first) > children.indexOf(culprit))) {
          culprit = first;
        }
      }
      throw new Unsupported(PREFIX + culprit + ".capacity", "Parent queue '" + parent
          + "' have children queue used mixed of  weight mode, percentage and absolute mode, "
          + "it is not allowed, please double check, details:" + diag);
    }
    boolean parentAbsolute = !ROOT.equals(parent)
        && cs.checkConfigTypeIsAbsoluteResource("", new QueuePath(parent), RESOURCE_TYPES);
    if (!ROOT.equals(parent) && !children.isEmpty() && absoluteSet != parentAbsolute) {
      throw new Unsupported(PREFIX + (parentAbsolute ? firstOther : firstAbsolute) + ".capacity",
          "Parent=" + parent + ": When absolute minResource is used, we must make sure both "
          + "parent and child all use absolute minResource");
    }
    if (!weightSet) {
      return percent;
    }
    double sum = 0;
    for (int i = 0; i < children.size(); i++) {
      weights.put(children.get(i), weight[i]);
      sum += Math.max(0f, weight[i]);
    }
    float[] out = new float[children.size()];
    for (int i = 0; i < children.size(); i++) {
      out[i] = sum <= 0 ? 0f : (float) (Math.max(0f, weight[i]) * 100.0 / sum);
    }
    return out;
  }

  /** The resource types the core schedules, as CapacityScheduler's vectors name them. */
  private static final String[] VECTOR_TYPES =
      {ResourceInformation.MEMORY_URI, ResourceInformation.VCORES_URI};

  /**
   * The queue's capacity and maximum-capacity vectors (legacy queue mode off), read as
   * CapacityScheduler reads them (parseConfiguredResourceVector,
   * parseConfiguredMaximumCapacityVector with its default of the parent's maximum), into
   * {@code vectors} and the core's entry. Refused: a weight as the maximum of a resource type
   * the capacity names (CapacityScheduler's WeightQueueCapacityCalculator fails on it), and an
   * entry of a resource type the core does not schedule.
   */
  private static void vectors(CapacitySchedulerConfiguration cs, String path,
      AbsoluteCapacities.Vectors vectors, Map<String, Float> weights, ObjectNode q)
      throws Unsupported {
    QueuePath qp = new QueuePath(path);
    Set<String> labels = Collections.singleton(RMNodeLabelsManager.NO_LABEL);
    QueueCapacityVector capacity =
        cs.parseConfiguredResourceVector(qp, labels).get(RMNodeLabelsManager.NO_LABEL);
    QueueCapacityVector max = cs.parseConfiguredMaximumCapacityVector(qp, labels,
        QueueCapacityVector.newInstance()).get(RMNodeLabelsManager.NO_LABEL);
    otherTypes(cs, path, "capacity", capacity);
    otherTypes(cs, path, "maximum-capacity", max);
    ResourceUnitCapacityType[] kind = new ResourceUnitCapacityType[2];
    double[] value = new double[2];
    ResourceUnitCapacityType[] maxKind = new ResourceUnitCapacityType[2];
    double[] maxValue = new double[2];
    ObjectNode cv = q.putObject("capacity_vector");
    ObjectNode mv = q.putObject("maximum_vector");
    for (int r = 0; r < 2; r++) {
      String type = VECTOR_TYPES[r];
      String field = r == 0 ? "memory" : "vcores";
      if (capacity.getResourceNames().contains(type)) {
        kind[r] = capacity.getResource(type).getVectorResourceType();
        value[r] = capacity.getResource(type).getResourceValue();
        ObjectNode e = cv.putObject(field);
        e.put("kind", kind[r].name().toLowerCase(java.util.Locale.ROOT));
        e.put("value", value[r]);
      }
      maxKind[r] = max.getResource(type).getVectorResourceType();
      maxValue[r] = max.getResource(type).getResourceValue();
      if (kind[r] != null && maxKind[r] == ResourceUnitCapacityType.WEIGHT) {
        throw new Unsupported(PREFIX + path + ".maximum-capacity", "Resource " + type
            + " has WEIGHT maximum capacity type, which is not supported");
      }
      ObjectNode e = mv.putObject(field);
      e.put("kind", maxKind[r].name().toLowerCase(java.util.Locale.ROOT));
      e.put("value", maxValue[r]);
    }
    vectors.kind.put(path, kind);
    vectors.value.put(path, value);
    vectors.maxKind.put(path, maxKind);
    vectors.maxValue.put(path, maxValue);
    float absoluteMax = 1f;
    String[] parts = path.split("\\.");
    StringBuilder p = new StringBuilder(ROOT);
    for (int i = 1; i < parts.length; i++) {
      p.append('.').append(parts[i]);
      absoluteMax *= cs.getNonLabeledQueueMaximumCapacity(new QueuePath(p.toString())) / 100f;
    }
    vectors.configuredAbsoluteMaximum.put(path, absoluteMax);
    // CapacityScheduler's weight of a queue whose vector is one weight for every type.
    if (!ROOT.equals(path) && capacity.getDefinedCapacityTypes().size() == 1
        && capacity.getDefinedCapacityTypes().contains(ResourceUnitCapacityType.WEIGHT)) {
      Set<Double> distinct = new HashSet<>();
      for (String type : capacity.getResourceNames()) {
        distinct.add(capacity.getResource(type).getResourceValue());
      }
      if (distinct.size() == 1) {
        weights.put(path, distinct.iterator().next().floatValue());
      }
    }
  }

  /** Refuses a vector entry of a resource type other than memory and vcores. */
  private static void otherTypes(CapacitySchedulerConfiguration cs, String path, String key,
      QueueCapacityVector vector) throws Unsupported {
    String raw = cs.get(PREFIX + path + "." + key);
    if (raw == null || !new QueueCapacityConfigParser().isCapacityVectorFormat(raw)) {
      return;
    }
    for (String type : vector.getResourceNames()) {
      if (Arrays.asList(VECTOR_TYPES).contains(type)) {
        continue;
      }
      QueueCapacityVector.QueueCapacityVectorEntry e = vector.getResource(type);
      // The parser lists every type the RM knows, absolute 0 unless named.
      if (e.getResourceValue() != 0
          || e.getVectorResourceType() != ResourceUnitCapacityType.ABSOLUTE) {
        throw new Unsupported(PREFIX + path + "." + key, "is " + raw.trim() + ": it names "
            + "resource type " + type + ", and Locus schedules memory and vcores only");
      }
    }
  }

  /**
   * CapacityScheduler's {@code mode} of the queue at {@code path} with the legacy queue mode
   * off (CapacitySchedulerInfoHelper#getMode: percentage, absolute, weight, mixed, unknown),
   * or null in the legacy queue mode.
   */
  public String vectorMode(String path) {
    if (cs.isLegacyQueueMode() || !paths.contains(path)) {
      return null;
    }
    Set<ResourceUnitCapacityType> types = cs.parseConfiguredResourceVector(new QueuePath(path),
        Collections.singleton(RMNodeLabelsManager.NO_LABEL)).get(RMNodeLabelsManager.NO_LABEL)
        .getDefinedCapacityTypes();
    if (types.size() > 1) {
      return "mixed";
    }
    if (types.isEmpty()) {
      return "unknown";
    }
    return types.iterator().next().name().toLowerCase(java.util.Locale.ROOT);
  }

  /** CapacityScheduler's weight of the queue, -1 when its capacity is not a weight. */
  private static float readWeight(CapacitySchedulerConfiguration cs, QueuePath qp)
      throws Unsupported {
    try {
      return cs.getNonLabeledQueueWeight(qp);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new Unsupported(PREFIX + qp.getFullPath() + ".capacity", e.getMessage());
    }
  }

  private static float readPercent(CapacitySchedulerConfiguration cs, QueuePath qp)
      throws Unsupported {
    try {
      return cs.getNonLabeledQueueCapacity(qp);
    } catch (IllegalArgumentException e) {
      throw new Unsupported(PREFIX + qp.getFullPath() + ".capacity", e.getMessage());
    }
  }

  /**
   * What Locus does not do yet, refused whatever the policy: a file whose queues would be
   * silently dropped must not start. The universal capacity vector and the legacy auto-created
   * queues.
   */
  private static void refuseUnsupported(CapacitySchedulerConfiguration cs, String path)
      throws Unsupported {
    for (String key : new String[] {"capacity", "maximum-capacity"}) {
      String raw = cs.get(PREFIX + path + "." + key);
      if (raw == null) {
        continue;
      }
      String v = raw.trim();
      if (key.equals("maximum-capacity") && v.endsWith("w")) {
        // CapacityScheduler's parser reads no weight here either; fail naming the key.
        throw new Unsupported(PREFIX + path + "." + key, "is " + v + ": a maximum-capacity "
            + "is a percentage of the parent");
      }
    }
    if (managed(cs, path)) {
      refuseUnsupportedManaged(cs, path);
    }
  }

  /**
   * What Locus does not do under a managed parent: other queues of the file beside the created
   * ones (CapacityScheduler's ManagedParentQueue expects only its own), a management policy
   * but CapacityScheduler's default, and templates whose capacities are not percentages.
   */
  private static void refuseUnsupportedManaged(CapacitySchedulerConfiguration cs, String path)
      throws Unsupported {
    QueuePath qp = new QueuePath(path);
    List<String> names = cs.getQueues(qp);
    if (names != null && !names.isEmpty()) {
      throw new Unsupported(PREFIX + path + ".queues", "is set on a parent with "
          + CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_ENABLED + "=true: Locus "
          + "runs only auto-created leaves under a managed parent");
    }
    String policy = cs.getAutoCreatedQueueManagementPolicy(qp);
    if (!CapacitySchedulerConfiguration.DEFAULT_AUTO_CREATED_QUEUE_MANAGEMENT_POLICY
        .equals(policy.trim())) {
      throw new Unsupported(PREFIX + path + "."
          + CapacitySchedulerConfiguration.AUTO_CREATED_QUEUE_MANAGEMENT_POLICY, "is " + policy
          + ": Locus applies only "
          + CapacitySchedulerConfiguration.DEFAULT_AUTO_CREATED_QUEUE_MANAGEMENT_POLICY);
    }
    if (cs.checkConfigTypeIsAbsoluteResource("", qp, RESOURCE_TYPES)) {
      throw new Unsupported(PREFIX + path + ".capacity", "is an absolute resource on a parent "
          + "with " + CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_ENABLED + "=true: "
          + "Locus creates legacy auto-created leaves only under a percentage");
    }
    for (String key : new String[] {"capacity", "maximum-capacity"}) {
      String k = PREFIX + path + "." + LEGACY_TEMPLATE + key;
      String v = cs.getTrimmed(k);
      if (v == null) {
        continue;
      }
      try {
        float f = Float.parseFloat(v);
        if (f >= 0f && f <= 100f) {
          continue;
        }
      } catch (NumberFormatException notAPercentage) {
        // Refused below.
      }
      throw new Unsupported(k, "is " + v + ": Locus reads a leaf-queue-template's " + key
          + " only as a percentage of the parent");
    }
  }

  /**
   * Whether the queue at {@code path} creates its children on the fly: flexible
   * ({@code auto-queue-creation-v2.enabled}) or a managed parent
   * ({@code auto-create-child-queue.enabled}).
   */
  private static boolean createsChildren(CapacitySchedulerConfiguration cs, String path) {
    return !ROOT.equals(path) && (cs.isAutoQueueCreationV2Enabled(new QueuePath(path))
        || managed(cs, path));
  }

  /** Why a leaf cannot be created, in CapacityScheduler's words where it has them. */
  public static final class CreationRefused extends Exception {
    private static final long serialVersionUID = 1L;

    public CreationRefused(String message) {
      super(message);
    }
  }

  /**
   * Whether a submission to {@code path} may create it: a path that is not a queue yet, one
   * level below a queue that creates its children ({@code auto-queue-creation-v2.enabled} or
   * {@code auto-create-child-queue.enabled}), or further below one with
   * {@code auto-queue-creation-v2.enabled}, its parents created on the way, within
   * {@code auto-queue-creation-v2.maximum-queue-depth} ({@link #toCreate}).
   */
  public boolean mayCreate(String path) {
    path = fullPath(path);
    if (path == null || paths.contains(path)) {
      return false;
    }
    int dot = path.lastIndexOf('.');
    if (dot <= 0 || dot == path.length() - 1) {
      return false;
    }
    String parent = path.substring(0, dot);
    if (paths.contains(parent) && createsChildren(cs, parent)) {
      return true;
    }
    try {
      toCreate(path);
      return true;
    } catch (CreationRefused e) {
      return false;
    }
  }

  private static String parentOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot <= 0 ? null : path.substring(0, dot);
  }

  /** A queue of the file itself, not one created on the fly. */
  private boolean isStatic(String path) {
    return paths.contains(path) && !created.contains(path);
  }

  /**
   * The queues a submission to {@code path} creates, outer ones first, the leaf last, as
   * CapacitySchedulerQueueManager#determineMissingParents finds them: the parents missing
   * between the leaf and the nearest queue above it; the leaf at most the first static
   * ancestor's {@code auto-queue-creation-v2.maximum-queue-depth} levels below it (counting
   * the created parents on the way); the nearest queue a parent that creates its children
   * (a created parent always does).
   *
   * @throws CreationRefused with CapacityScheduler's message
   */
  private List<String> toCreate(String path) throws CreationRefused {
    String parent = parentOf(path);
    if (parent == null || path.endsWith(".")) {
      throw new CreationRefused("Can not auto create queue " + path
          + " due to missing ParentQueue path.");
    }
    java.util.LinkedList<String> out = new java.util.LinkedList<>();
    out.add(path);
    int distance = 1;
    String existing = paths.contains(parent) ? parent : null;
    String candidate = parent;
    while (candidate != null && !isStatic(candidate)) {
      distance++;
      if (existing == null) {
        out.addFirst(candidate);
      }
      candidate = parentOf(candidate);
      if (existing == null && candidate != null && paths.contains(candidate)) {
        existing = candidate;
      }
    }
    if (existing == null || candidate == null) {
      throw new CreationRefused("Could not auto-create queue " + path
          + " parent queue does not exist.");
    }
    int depth = cs.getMaximumAutoCreatedQueueDepth(new QueuePath(candidate));
    if (distance > depth) {
      throw new CreationRefused("Could not auto create queue " + path + ". The distance of "
          + "the LeafQueue from the first static ParentQueue is " + distance + ", which is "
          + "above the limit.");
    }
    if (!ROOT.equals(existing) && children(existing).isEmpty()
        && !createsChildren(cs, existing)) {
      throw new CreationRefused("Could not auto create hierarchy of " + path + ". Queue "
          + parent + " is not a ParentQueue.");
    }
    if (!createsChildren(cs, existing)) {
      throw new CreationRefused("Auto creation of queue " + path
          + " is not enabled under parent " + existing);
    }
    return out;
  }

  /**
   * The file with the leaf at {@code path} added, as CapacityScheduler adds a queue on the
   * fly (CapacitySchedulerQueueManager#createQueue, ParentQueue#addDynamicLeafQueue): under a
   * parent that allows it, within its {@code auto-queue-creation-v2.max-queues} (its static
   * and created children together), and, in the legacy queue mode, only among siblings that
   * all use weights; the parents missing on the way ({@link #toCreate}) are created first,
   * each the same way (ParentQueue#addDynamicParentQueue). Under a managed parent, as
   * ManagedParentQueue#addChildQueue: within its
   * {@code auto-create-child-queue.max-queues}, and with the template's guarantee while the
   * guarantees handed out leave room for it, else none (GuaranteedOrZeroCapacityOverTimePolicy)
   * or, with {@code fail-on-exceeding-parent-capacity}, no queue. The core checks the new tree
   * as any other.
   *
   * @throws CreationRefused with CapacityScheduler's message
   */
  public QueueFile withCreated(String path) throws CreationRefused, IOException {
    String parent = parentOf(path);
    if (parent != null && paths.contains(parent) && managed(cs, parent)) {
      return withLegacyCreated(path, parent, children(parent));
    }
    QueueFile file = this;
    for (String queue : toCreate(path)) {
      file = file.withOneCreated(queue, !queue.equals(path));
    }
    return file;
  }

  /** The file with one queue added under its parent, which exists and creates children. */
  private QueueFile withOneCreated(String path, boolean asParent)
      throws CreationRefused, IOException {
    String parent = parentOf(path);
    List<String> siblings = children(parent);
    int max = cs.getAutoCreatedQueuesV2MaxChildQueuesLimit(new QueuePath(parent));
    if (siblings.size() >= max) {
      throw new CreationRefused("Cannot auto create queue " + path + ". Max Child "
          + "Queue limit exceeded which is configured as: " + max
          + " and number of child queues is: " + siblings.size());
    }
    for (String sibling : siblings) {
      if (cs.isLegacyQueueMode() && !weights.containsKey(sibling)) {
        throw new CreationRefused("Trying to create new queue=" + path
            + " but not all the queues under parent=" + parent
            + " are using weight-based capacity. Failed to created queue");
      }
    }
    List<String> next = new ArrayList<>(created);
    next.add(path);
    Set<String> parents = new HashSet<>(createdParents);
    if (asParent) {
      parents.add(path);
    }
    return parse(source, next, parents, zeroed);
  }

  private QueueFile withLegacyCreated(String path, String parent, List<String> siblings)
      throws CreationRefused, IOException {
    QueuePath pp = new QueuePath(parent);
    int max = cs.getAutoCreatedQueuesMaxChildQueuesLimit(pp);
    if (siblings.size() >= max) {
      throw new CreationRefused("Cannot auto create leaf queue " + path + ".Max Child "
          + "Queue limit exceeded which is configured as : " + max
          + " and number of child queues is : " + siblings.size());
    }
    // In shares of the cluster, as the policy compares absolute capacities.
    float parentShare = ofCluster.get(parent) / 100f;
    float template = parentShare * templateCapacity(cs, parent) / 100f;
    float handedOut = 0f;
    for (String sibling : siblings) {
      if (!zeroed.contains(sibling)) {
        handedOut += template;
      }
    }
    if (cs.getShouldFailAutoQueueCreationWhenGuaranteedCapacityExceeded(pp)
        && template + handedOut > parentShare) {
      throw new CreationRefused("Cannot auto create leaf queue " + path + ". Child "
          + "queues capacities have reached parent queue : " + parent
          + "'s guaranteed capacity");
    }
    List<String> next = new ArrayList<>(created);
    next.add(path);
    Set<String> nextZeroed = new HashSet<>(zeroed);
    if (parentShare - handedOut + ROOM_EPSILON < template) {
      nextZeroed.add(path);
    }
    return parse(source, next, createdParents, nextZeroed);
  }

  /**
   * The same file re-read ({@code -refreshQueues}) with the leaves {@code before} created that
   * it still allows, as CapacityScheduler keeps its created queues across a refresh: one the
   * file now configures is the file's, one whose parent no longer creates children is gone. A
   * managed parent's guarantees are handed out again as ManagedParentQueue#reinitialize does:
   * every leaf loses its guarantee, then the leaves of {@code applications} get the template's,
   * in that order, as many as the parent's guarantee holds.
   *
   * @param applications the leaf of every application, in submission order
   */
  public QueueFile keeping(QueueFile before, List<String> applications) throws IOException {
    if (before == null || before.created.isEmpty()) {
      return this;
    }
    List<String> kept = new ArrayList<>();
    Set<String> keptParents = new HashSet<>();
    Set<String> zero = new HashSet<>();
    for (String leaf : before.created) {
      String parent = leaf.substring(0, leaf.lastIndexOf('.'));
      // Created in order, so a created parent kept is already in keptParents.
      boolean under = keptParents.contains(parent)
          || paths.contains(parent) && createsChildren(cs, parent);
      if (!paths.contains(leaf) && under) {
        kept.add(leaf);
        if (before.createdParents.contains(leaf)) {
          keptParents.add(leaf);
        } else if (managed(cs, parent)) {
          zero.add(leaf);
        }
      }
    }
    if (kept.isEmpty()) {
      return this;
    }
    if (!zero.isEmpty()) {
      // The parents' shares come from the refreshed file without the created leaves.
      Map<String, Integer> room = new HashMap<>();
      for (String leaf : applications) {
        if (!zero.contains(leaf)) {
          continue;
        }
        String parent = leaf.substring(0, leaf.lastIndexOf('.'));
        int left = room.computeIfAbsent(parent, p -> {
          float share = ofCluster.get(p) / 100f;
          float template = share * templateCapacity(cs, p) / 100f;
          return template <= 0f ? Integer.MAX_VALUE
              : (int) Math.floor((share + ROOM_EPSILON) / template);
        });
        if (left > 0) {
          zero.remove(leaf);
          room.put(parent, left - 1);
        }
      }
    }
    return parse(source, kept, keptParents, zero);
  }

  /**
   * The file with each managed parent's guarantees moved as CapacityScheduler's
   * QueueManagementDynamicEditPolicy moves them each round (GuaranteedOrZeroCapacityOverTimePolicy
   * #computeQueueManagementChanges): a leaf holding the template's guarantee with no
   * application loses it; then, while the parent's guarantee holds one more template's, the
   * leaves without one that have applications get it, in the order of their applications'
   * submission, at most one leaf per application of the parent, never one that lost its
   * guarantee in the same round. This file itself when nothing moves.
   *
   * @param applications the leaf of every application not yet removed, in submission order
   */
  public QueueFile withGuaranteesMoved(List<String> applications) throws IOException {
    Set<String> next = new HashSet<>(zeroed);
    Set<String> withApplications = new HashSet<>(applications);
    for (String parent : paths) {
      if (!managed(cs, parent)) {
        continue;
      }
      List<String> leaves = children(parent);
      Set<String> lost = new HashSet<>();
      for (String leaf : leaves) {
        if (!zeroed.contains(leaf) && !withApplications.contains(leaf)) {
          lost.add(leaf);
        }
      }
      next.addAll(lost);
      int holding = 0;
      for (String leaf : leaves) {
        if (!next.contains(leaf)) {
          holding++;
        }
      }
      float share = ofCluster.get(parent) / 100f;
      float template = share * templateCapacity(cs, parent) / 100f;
      float available = share - holding * template + ROOM_EPSILON;
      if (template <= 0f || available < template) {
        continue;
      }
      List<String> ofParent = new ArrayList<>();
      for (String leaf : applications) {
        if (leaves.contains(leaf)) {
          ofParent.add(leaf);
        }
      }
      int wanted = Math.min((int) Math.floor(available / template), ofParent.size());
      int given = 0;
      for (String leaf : ofParent) {
        if (given >= wanted) {
          break;
        }
        if (next.contains(leaf) && !lost.contains(leaf)) {
          next.remove(leaf);
          given++;
        }
      }
    }
    return next.equals(zeroed) ? this : parse(source, created, createdParents, next);
  }

  /**
   * The file without the created queue at {@code path} (removed when idle), and whatever was
   * created below it.
   */
  public QueueFile withoutCreated(String path) throws IOException {
    List<String> next = new ArrayList<>(created);
    next.removeIf(q -> q.equals(path) || q.startsWith(path + "."));
    Set<String> parents = new HashSet<>(createdParents);
    parents.retainAll(next);
    return parse(source, next, parents, zeroed);
  }

  /**
   * The parents created on the fly that have no children (left so when their last one was
   * removed), which CapacityScheduler's deletion policy removes as it removes idle leaves.
   */
  public List<String> emptyCreatedParents() {
    List<String> out = new ArrayList<>();
    for (String p : created) {
      if (createdParents.contains(p) && children(p).isEmpty()) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * The full path of the queue {@code name} names, as CapacityScheduler's queue manager finds
   * one: by its full path, or by a short name no other queue has; null for none.
   */
  public String find(String name) {
    if (name == null || name.isEmpty()) {
      return null;
    }
    if (paths.contains(name)) {
      return name;
    }
    if (name.indexOf('.') >= 0) {
      return null;
    }
    String found = null;
    for (String p : paths) {
      if (p.endsWith("." + name)) {
        if (found != null) {
          return null;
        }
        found = p;
      }
    }
    return found;
  }

  /** Whether {@code name} is a short name more than one queue has. */
  public boolean ambiguous(String name) {
    if (name == null || name.indexOf('.') >= 0 || paths.contains(name)) {
      return false;
    }
    int found = 0;
    for (String p : paths) {
      if (p.endsWith("." + name)) {
        found++;
      }
    }
    return found > 1;
  }

  /**
   * Whether the queue at {@code path} is a leaf: one with no children that is not a parent
   * waiting for its first (a parent that creates children, or one created as a parent).
   */
  public boolean isLeaf(String path) {
    return paths.contains(path) && !ROOT.equals(path) && children(path).isEmpty()
        && !createsChildren(cs, path) && !createdParents.contains(path);
  }

  /**
   * {@code queue} with its parent named by full path: a queue mapping may name the parent by
   * its short name or a path ending ({@code users.alice}), which CapacityScheduler resolves
   * when that name is one queue's. Any other name is returned as it is.
   */
  public String fullPath(String queue) {
    if (queue == null || paths.contains(queue)) {
      return queue;
    }
    int dot = queue.lastIndexOf('.');
    if (dot <= 0 || dot == queue.length() - 1) {
      return queue;
    }
    String parent = queue.substring(0, dot);
    if (paths.contains(parent)) {
      return queue;
    }
    String found = null;
    for (String p : paths) {
      if (p.endsWith("." + parent)) {
        if (found != null) {
          return queue;
        }
        found = p;
      }
    }
    return found == null ? queue : found + queue.substring(dot);
  }

  /** The queues directly under {@code parent}. */
  private List<String> children(String parent) {
    List<String> out = new ArrayList<>();
    for (String p : paths) {
      if (p.startsWith(parent + ".") && p.indexOf('.', parent.length() + 1) < 0) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * Whether a queue of the file creates its children on the fly: the operator's queues, which
   * only {@code locus.policy=capacity} runs, even with one leaf so far.
   */
  public boolean createsQueues() {
    for (String p : paths) {
      if (createsChildren(cs, p)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the queue at {@code path} was created on the fly. */
  public boolean isCreated(String path) {
    return created.contains(path);
  }

  /** Whether the queue at {@code path} was created under a managed parent (legacy). */
  public boolean isLegacyCreated(String path) {
    return created.contains(path) && managed(cs, path.substring(0, path.lastIndexOf('.')));
  }

  /**
   * The guaranteed share of the cluster, in percent, of a parent that creates its children or
   * of a queue above one, whose leaves need not fill it (a managed parent's, or none yet); NaN
   * for any other queue (its leaves' guarantees add up to its own) and in absolute mode.
   */
  public double creatingGuarantee(String path) {
    if (absolute != null || !paths.contains(path)) {
      return Double.NaN;
    }
    for (String p : paths) {
      if ((p.equals(path) || p.startsWith(path + ".")) && createsChildren(cs, p)) {
        return ofCluster.get(path);
      }
    }
    return Double.NaN;
  }

  /** The parents that create their children and have none yet, outer ones first. */
  public List<String> emptyCreatingParents() {
    List<String> out = new ArrayList<>();
    for (String p : paths) {
      if (createsChildren(cs, p) && children(p).isEmpty()) {
        out.add(p);
      }
    }
    return out;
  }

  /** Whether the queue at {@code path} is a managed parent of the file. */
  public boolean isManaged(String path) {
    return paths.contains(path) && managed(cs, path);
  }

  /** Whether the queue at {@code path} creates its children on the fly. */
  public boolean createsChildren(String path) {
    return paths.contains(path) && createsChildren(cs, path);
  }

  /**
   * The lists a leaf about to be created at {@code path} would have, as CapacityScheduler
   * checks a submission to a queue it has yet to create: its parent's templates
   * ({@code leaf-template.} over {@code template.}), nobody where they set none.
   */
  public Map<AccessType, AccessControlList> createdLeafAcls(String path) {
    String parent = path.substring(0, path.lastIndexOf('.'));
    if (managed(cs, parent)) {
      return cs.getACLsForLegacyAutoCreatedLeafQueue(new QueuePath(parent));
    }
    return CapacitySchedulerConfiguration.getACLsForFlexibleAutoCreatedLeafQueue(
        new AutoCreatedQueueTemplate(cs, new QueuePath(parent)));
  }

  /**
   * The lists of the queues a submission to {@code path} would create, as CapacityScheduler
   * hands them to the RM's check of a submission to a queue it has yet to create
   * (CapacitySchedulerQueueManager#getPermissionsForDynamicQueue): the leaf's
   * ({@link #createdLeafAcls}) and each missing parent's, from its parent's templates
   * ({@code parent-template.} over {@code template.}). Any of them may admit the submission.
   */
  public List<Map<AccessType, AccessControlList>> createdQueueAcls(String path) {
    List<Map<AccessType, AccessControlList>> out = new ArrayList<>();
    out.add(createdLeafAcls(path));
    String parent = parentOf(path);
    if (parent == null || paths.contains(parent)) {
      return out;
    }
    try {
      for (String missing : toCreate(path)) {
        if (!missing.equals(path)) {
          out.add(CapacitySchedulerConfiguration.getACLsForFlexibleAutoCreatedParentQueue(
              new AutoCreatedQueueTemplate(cs, new QueuePath(parentOf(missing)))));
        }
      }
    } catch (CreationRefused notCreatable) {
      // Nothing would be created: the leaf's lists only.
    }
    return out;
  }

  /** {@code <path>.accessible-node-labels.<label>.capacity} and {@code .maximum-capacity}. */
  private static final Pattern PARTITION_SHARE = Pattern.compile(Pattern.quote(PREFIX)
      + "(.+)\\.accessible-node-labels\\.([^.]+)\\.(capacity|maximum-capacity)");

  /**
   * Each queue's shares of the node partitions the file gives capacities in, as
   * CapacityScheduler loads them (CSQueueUtils#loadCapacitiesByLabelsFromConf and
   * #updateAbsoluteCapacitiesByNodeLabels): a queue's labels are those its own
   * {@code accessible-node-labels.<label>.*} keys name (root: every such label); for one of its
   * labels the capacity is the key's (0 unset) and the maximum the key's (100 unset), for
   * another 0 and 0; the absolute figures are the products down the path (a zero share stays
   * zero). The children's capacities in each label of their parent are checked as
   * AbstractParentQueue#setChildQueues checks them, with its messages. Weights, absolute
   * resources and vectors per partition are refused naming the key.
   */
  private static Map<String, Map<String, float[]>> partitionShares(
      CapacitySchedulerConfiguration cs, List<String> paths, Map<String, Float> weights,
      Map<String, Resource> minimum) throws Unsupported {
    Map<String, Set<String>> byQueue = cs.getConfiguredNodeLabelsByQueue();
    Set<String> all = new TreeSet<>();
    for (Set<String> labels : byQueue.values()) {
      all.addAll(labels);
    }
    all.remove(RMNodeLabelsManager.NO_LABEL);
    if (all.isEmpty()) {
      return Collections.emptyMap();
    }
    for (Map.Entry<String, String> e : cs) {
      Matcher m = PARTITION_SHARE.matcher(e.getKey());
      if (!m.matches()) {
        continue;
      }
      String value = e.getValue().trim();
      String why = !cs.isLegacyQueueMode()
          ? "per-partition capacities with legacy-queue-mode.enabled=false"
          : value.contains("[") ? "absolute resources per partition"
          : value.endsWith("w") ? "weights per partition"
          : minimum.containsKey(m.group(1)) ? "per-partition percentages in absolute mode"
          : weights.containsKey(m.group(1)) ? "per-partition percentages beside weights"
          : null;
      if (why != null) {
        throw new Unsupported(e.getKey(), "is " + value + ": Locus divides a node partition "
            + "among queues by percentages of the default queue mode only; " + why
            + " are not supported");
      }
    }
    Map<String, Map<String, float[]>> out = new HashMap<>();
    for (String path : paths) {
      QueuePath qp = new QueuePath(path);
      boolean root = ROOT.equals(path);
      Set<String> own = root ? all : byQueue.getOrDefault(path, Collections.emptySet());
      Map<String, float[]> parent = root ? null : out.get(path.substring(0, path.lastIndexOf('.')));
      Map<String, float[]> shares = new TreeMap<>();
      for (String label : all) {
        boolean configured = own.contains(label);
        float cap = root ? 1f : configured ? cs.getLabeledQueueCapacity(qp, label) / 100 : 0f;
        float max = configured ? cs.getLabeledQueueMaximumCapacity(qp, label) / 100 : 0f;
        float parentCap = root ? 1f : parent.get(label)[2];
        float parentMax = root ? 1f : parent.get(label)[3];
        shares.put(label, new float[] {cap, max, cap > 0f ? cap * parentCap : 0f,
            max > 0f ? max * parentMax : 0f});
      }
      out.put(path, shares);
    }
    for (String path : paths) {
      List<String> children = new ArrayList<>();
      for (String p : paths) {
        if (p.startsWith(path + ".") && p.indexOf('.', path.length() + 1) < 0) {
          children.add(p);
        }
      }
      if (children.isEmpty() || children.stream().anyMatch(weights::containsKey)) {
        continue;
      }
      QueuePath qp = new QueuePath(path);
      boolean allowZero = cs.getAllowZeroCapacitySum(qp);
      String name = qp.getLeafName();
      Set<String> own = ROOT.equals(path) ? all : byQueue.getOrDefault(path,
          Collections.emptySet());
      for (String label : own) {
        if (label.isEmpty()) {
          continue;
        }
        float sum = 0;
        for (String c : children) {
          sum += out.get(c).get(label)[0];
        }
        float capacity = out.get(path).get(label)[0];
        boolean percentParent = !weights.containsKey(path);
        String key = PREFIX + path + ".accessible-node-labels." + label + ".capacity";
        String head = "Illegal capacity sum of " + sum + " for children of queue " + name
            + " for label=" + label;
        if (Math.abs(1 - sum) > PARTITION_PRECISION) {
          if (Math.abs(sum) > PARTITION_PRECISION) {
            throw new Unsupported(key, head + ". It should be either 0 or 1.0");
          }
          if (percentParent && Math.abs(capacity) > PARTITION_PRECISION && !allowZero) {
            throw new Unsupported(key, head + ". It is set to 0, but parent percent != 0, and "
                + "doesn't allow children capacity to set to 0");
          }
        } else if (percentParent && Math.abs(capacity) <= 0f && !allowZero) {
          throw new Unsupported(key, head + ". queue=" + name + " has zero capacity, but child"
              + "queues have positive capacities");
        }
      }
    }
    return out;
  }

  /** CapacityScheduler's tolerance on a sum of children's capacities (AbstractCSQueue). */
  private static final float PARTITION_PRECISION = 0.0005f;

  /** The core's figures: the divided partitions, and each queue's absolute shares of them. */
  private static void putPartitionShares(Map<String, Map<String, float[]>> shares,
      List<String> paths, ArrayNode queues, ObjectNode tree) {
    if (shares.isEmpty()) {
      return;
    }
    ArrayNode labels = tree.putArray("partitions");
    for (String label : shares.get(ROOT).keySet()) {
      labels.add(label);
    }
    for (int i = 0; i < paths.size(); i++) {
      ObjectNode of = ((ObjectNode) queues.get(i)).putObject("partitions");
      for (Map.Entry<String, float[]> e : shares.get(paths.get(i)).entrySet()) {
        float[] f = e.getValue();
        if (f[2] > 0f || f[3] > 0f) {
          of.putArray(e.getKey()).add(f[2] * 100.0).add(f[3] * 100.0);
        }
      }
    }
  }

  /**
   * The node partitions the file divides among its queues, with each queue's shares there
   * ({capacity, maximum-capacity, absolute capacity, absolute maximum-capacity}, fractions);
   * empty for a queue the file does not have.
   */
  public Map<String, float[]> partitionShares(String path) {
    Map<String, float[]> m = partitionShares.get(path);
    return m == null ? Collections.emptyMap() : Collections.unmodifiableMap(m);
  }

  /**
   * A key that divides a node partition between leaf queues or holds one below all of it
   * (more than one leaf with a share of it, or a leaf's absolute maximum there below 100), as
   * {@code key=value}; null when every partition goes whole to at most one leaf (the Amazon
   * EMR layout).
   */
  public String partitionDividingKey() {
    Set<String> parents = new HashSet<>();
    for (String p : paths) {
      int dot = p.lastIndexOf('.');
      if (dot > 0) {
        parents.add(p.substring(0, dot));
      }
    }
    for (String label : dividedPartitions()) {
      String holder = null;
      for (String p : paths) {
        float[] f = partitionShares(p).get(label);
        if (parents.contains(p) || f == null || f[3] <= 0f) {
          continue;
        }
        String key = PREFIX + p + ".accessible-node-labels." + label + ".capacity";
        if (holder != null || f[3] < 1f - PARTITION_PRECISION) {
          return key + "=" + cs.get(key, "0");
        }
        holder = p;
      }
    }
    return null;
  }

  /** The node partitions the file divides among its queues. */
  public Set<String> dividedPartitions() {
    Map<String, float[]> root = partitionShares.get(ROOT);
    return root == null ? Collections.emptySet() : Collections.unmodifiableSet(root.keySet());
  }

  /**
   * Every {@code yarn.scheduler.capacity.*} key set in the file (or the RM's configuration)
   * whose meaning Locus does not enforce, as {@code key=value}, sorted.
   */
  private static List<String> unhonoured(CapacitySchedulerConfiguration cs, Set<String> paths) {
    Set<String> out = new TreeSet<>();
    for (Map.Entry<String, String> e : cs) {
      String key = e.getKey();
      if (!key.startsWith(PREFIX)) {
        continue;
      }
      String rest = key.substring(PREFIX.length());
      if (GLOBAL_KEYS.contains(rest) || honouredQueueKey(rest, paths)
          || userOfParallelKey(key) != null) {
        continue;
      }
      if (honouredOrdering(rest, e.getValue().trim(), paths)) {
        continue;
      }
      // Both of Hadoop's calculators are honoured: the core compares memory only, or every
      // resource type (QueueFile#dominant).
      if (rest.equals("resource-calculator")
          && (e.getValue().trim().equals(DefaultResourceCalculator.class.getName())
              || e.getValue().trim().equals(DominantResourceCalculator.class.getName()))) {
        continue;
      }
      out.add(key + "=" + e.getValue());
    }
    return new ArrayList<>(out);
  }

  /**
   * A queue's {@code ordering-policy} Locus runs: {@code fifo} or {@code fair} (with its
   * {@code fair.enable-size-based-weight}) on a leaf, {@code utilization} on a parent (Locus's
   * order of a parent's children, CapacityScheduler's default).
   */
  private static boolean honouredOrdering(String rest, String value, Set<String> paths) {
    String sizeBased = ".ordering-policy." + FairOrderingPolicy.ENABLE_SIZE_BASED_WEIGHT;
    if (rest.endsWith(sizeBased)) {
      return paths.contains(rest.substring(0, rest.length() - sizeBased.length()));
    }
    String key = ".ordering-policy";
    if (!rest.endsWith(key)) {
      return false;
    }
    String owner = rest.substring(0, rest.length() - key.length());
    // A template's, for the leaves it creates, reaches them as their own key.
    for (String template : new String[] {"." + TEMPLATE, "." + LEAF_TEMPLATE,
        "." + LEGACY_TEMPLATE}) {
      String bare = template.substring(0, template.length() - 1);
      if (owner.endsWith(bare)) {
        owner = owner.substring(0, owner.length() - bare.length());
        break;
      }
    }
    if (!paths.contains(owner)) {
      return false;
    }
    return value.equals("fifo") || value.equals("fair") || value.equals("utilization")
        || value.equals(FifoOrderingPolicy.class.getName())
        || value.equals(FairOrderingPolicy.class.getName());
  }

  private static boolean honouredQueueKey(String rest, Set<String> paths) {
    int dot = rest.lastIndexOf('.');
    while (dot > 0) {
      String path = rest.substring(0, dot);
      if (paths.contains(path)) {
        String key = rest.substring(dot + 1);
        // Per-partition shares reaching here passed partitionShares.
        return QUEUE_KEYS.contains(key) || key.equals("queues")
            || key.matches("accessible-node-labels(\\.[^.]+\\.(capacity|maximum-capacity))?")
            || CREATION_KEYS.contains(key) || LEGACY_KEYS.contains(key)
            || key.startsWith(LEGACY_TEMPLATE)
                && QUEUE_KEYS.contains(key.substring(LEGACY_TEMPLATE.length()))
            || honouredTemplateKey(key);
      }
      // CapacityScheduler's template reader (AutoCreatedQueueTemplate, which QueueFile uses)
      // applies a wildcarded parent's templates, and only those, to the queues it matches.
      if (isWildcardPath(path) && honouredTemplateKey(rest.substring(dot + 1))) {
        return true;
      }
      dot = rest.lastIndexOf('.', dot - 1);
    }
    return false;
  }

  /** A parent path with wildcarded levels below root ({@code root.*}, {@code root.a.*}). */
  private static boolean isWildcardPath(String path) {
    String[] parts = path.split("\\.", -1);
    boolean wild = false;
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].isEmpty() || i == 0 && !parts[i].equals(ROOT)) {
        return false;
      }
      wild |= parts[i].equals(AutoCreatedQueueTemplate.WILDCARD_QUEUE);
    }
    return wild;
  }

  /**
   * A flexible parent's template key Locus honours: a queue key under {@code template.} or
   * {@code leaf-template.}, and under {@code parent-template.} also what a created parent
   * honours itself (its creation keys and its own templates).
   */
  private static boolean honouredTemplateKey(String key) {
    if (key.startsWith(TEMPLATE)) {
      return QUEUE_KEYS.contains(key.substring(TEMPLATE.length()));
    }
    if (key.startsWith(LEAF_TEMPLATE)) {
      return QUEUE_KEYS.contains(key.substring(LEAF_TEMPLATE.length()));
    }
    if (key.startsWith(PARENT_TEMPLATE)) {
      String k = key.substring(PARENT_TEMPLATE.length());
      return QUEUE_KEYS.contains(k) || CREATION_KEYS.contains(k) || honouredTemplateKey(k);
    }
    return false;
  }

  /** The leaves whose {@code ordering-policy} is fair, in the file's order. */
  public List<String> fairLeaves() {
    List<String> out = new ArrayList<>();
    for (String path : paths) {
      if (isLeaf(path) && cs.get(PREFIX + path + ".ordering-policy") != null
          && cs.getAppOrderingPolicy(new QueuePath(path)).getClass()
              == FairOrderingPolicy.class) {
        out.add(path);
      }
    }
    return out;
  }

  /** The tree as the core reads it ({@code locus.capacity.tree}); null when root has no queues. */
  public String treeJson() {
    return treeJson;
  }

  /**
   * The queue's weight when its capacity is one ({@code 2w}), else -1, as CapacityScheduler
   * reports a queue's weight.
   */
  public float weight(String path) {
    Float w = weights.get(path);
    return w == null ? -1f : w;
  }

  /**
   * The queue's {@code max-parallel-apps} as CapacityScheduler reads it (its own, else the
   * file's default), {@code Integer.MAX_VALUE} when neither is set.
   */
  public int maxParallelApps(String path) {
    try {
      return cs.getMaxParallelAppsForQueue(new QueuePath(path));
    } catch (NumberFormatException e) {
      // Refused when the file was read (parallelLimit); nothing holds the queue meanwhile.
      return Integer.MAX_VALUE;
    }
  }

  /** Queues whose capacity is a weight, with it. */
  public Map<String, Float> weights() {
    return weights;
  }

  /** The queues' absolute resources, or null when the file is not in absolute mode. */
  public AbsoluteCapacities absolute() {
    return absolute;
  }

  /** Leaf queues in the file (a queue no other path extends). */
  public int leaves() {
    int n = 0;
    for (String p : paths) {
      boolean parent = false;
      for (String q : paths) {
        if (q.startsWith(p + ".")) {
          parent = true;
          break;
        }
      }
      if (!parent && !createsChildren(cs, p)) {
        n++;
      }
    }
    return n;
  }

  /** Every queue's full path, root first, parents before their children. */
  public List<String> paths() {
    return paths;
  }

  /**
   * A queue's maximum-capacity in percent of the cluster: the product of the file's
   * percentages down from root, as the core computes every queue's absolute maximum.
   */
  public double absoluteMaximumCapacity(String path) {
    double abs = 100.0;
    String[] parts = path.split("\\.");
    StringBuilder p = new StringBuilder(ROOT);
    for (int i = 1; i < parts.length; i++) {
      p.append('.').append(parts[i]);
      abs = abs * cs.getNonLabeledQueueMaximumCapacity(new QueuePath(p.toString())) / 100.0;
    }
    return abs;
  }

  /** True when the queue or one of its ancestors is STOPPED in the file (CS stops the subtree). */
  public boolean stopped(String path) {
    String[] parts = path.split("\\.");
    StringBuilder p = new StringBuilder(ROOT);
    for (int i = 1; i < parts.length; i++) {
      p.append('.').append(parts[i]);
      if (cs.getConfiguredState(new QueuePath(p.toString())) == QueueState.STOPPED) {
        return true;
      }
    }
    return false;
  }

  /** The loaded configuration, for the ACLs and mappings read with the same parser. */
  public CapacitySchedulerConfiguration configuration() {
    return cs;
  }

  /** {@code key=value} of every key Locus does not honour. */
  public List<String> unhonoured() {
    return unhonoured;
  }

  /**
   * The keys of {@link #unhonoured} that ask for a limit or policy Locus does not implement
   * ({@link KeyAudit}), each as {@code key=value: why}: a file with any is not taken.
   */
  public List<String> refused() {
    return audit().refused;
  }

  /**
   * Logs each key of {@link #unhonoured} that is not refused, once per reading of the file:
   * what Locus's own mechanisms replace, and what it ignores.
   */
  public void logUnhonoured() {
    for (String line : audit().logged) {
      LOG.warn("capacity-scheduler.xml: Locus does not honour {}", line);
    }
  }

  private KeyAudit audit() {
    KeyAudit a = audit;
    if (a == null) {
      List<String> keys = new ArrayList<>();
      for (String kv : unhonoured) {
        keys.add(kv.substring(0, kv.indexOf('=')));
      }
      a = KeyAudit.of(cs, new HashSet<>(paths), keys);
      audit = a;
    }
    return a;
  }
}
