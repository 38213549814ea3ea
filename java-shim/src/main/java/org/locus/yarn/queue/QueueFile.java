package org.locus.yarn.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.conf.ConfigurationProvider;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's {@code capacity-scheduler.xml}, read with CapacityScheduler's own parser
 * ({@link CapacitySchedulerConfiguration}, through the RM's configuration provider as
 * CapacityScheduler reads it, so {@code -refreshQueues} sees the edited file): the queue tree
 * the core is handed (as {@code locus.capacity.tree}), every queue's path for the ACLs, and the
 * queue mappings.
 *
 * <p>The core checks and enforces the figures, and refuses (naming the key) what Locus cannot
 * honour at all: absolute-resource and weight capacities, auto-created queues, which this class
 * only finds and passes on, since the core alone knows whether the file is in force (only under
 * {@code locus.policy=capacity}, without the {@code locus.capacity.queues} shortcut). Every
 * other {@code yarn.scheduler.capacity.*} key Locus does not honour is listed for the log.
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
      "default-application-priority", "acl_application_max_priority"));
  /** Global keys Locus honours. */
  private static final Set<String> GLOBAL_KEYS = new HashSet<>(Arrays.asList(
      "maximum-applications", "maximum-am-resource-percent", "queue-mappings",
      "queue-mappings-override.enable"));

  private final String treeJson;
  private final List<String> paths;
  private final CapacitySchedulerConfiguration cs;
  private final List<String> unhonoured;

  private QueueFile(String treeJson, List<String> paths, CapacitySchedulerConfiguration cs,
      List<String> unhonoured) {
    this.treeJson = treeJson;
    this.paths = paths;
    this.cs = cs;
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
    List<String> paths = new ArrayList<>();
    ArrayNode queues = JSON.createArrayNode();
    ObjectNode tree = JSON.createObjectNode();
    try {
      walk(cs, ROOT, paths, queues);
    } catch (Unsupported e) {
      ObjectNode refused = tree.putObject("refused");
      refused.put("key", e.key);
      refused.put("message", e.getMessage());
    }
    tree.put("maximum_applications", cs.getMaximumSystemApplications());
    tree.set("queues", queues);
    // A file without queues under root (or no file) leaves the core's default queue.
    boolean none = paths.size() < 2 && !tree.has("refused");
    return new QueueFile(none ? null : JSON.writeValueAsString(tree),
        Collections.unmodifiableList(paths), cs, unhonoured(cs, new HashSet<>(paths)));
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

  private static void walk(CapacitySchedulerConfiguration cs, String path, List<String> paths,
      ArrayNode out) throws Unsupported {
    if (paths.size() >= 4096) {
      throw new Unsupported(PREFIX + "root.queues", "more than 4096 queues; Locus schedules "
          + "at most 4096");
    }
    QueuePath qp = new QueuePath(path);
    refuseUnsupported(cs, path);
    paths.add(path);
    ObjectNode q = out.addObject();
    q.put("path", path);
    q.put("capacity", ROOT.equals(path) ? 100f : cs.getNonLabeledQueueCapacity(qp));
    q.put("maximum_capacity",
        ROOT.equals(path) ? 100f : cs.getNonLabeledQueueMaximumCapacity(qp));
    QueueState state = cs.getConfiguredState(qp);
    if (state != null) {
      q.put("state", state.name());
    }
    q.put("user_limit_factor", cs.getUserLimitFactor(qp));
    q.put("minimum_user_limit_percent", cs.getUserLimit(qp));
    q.put("maximum_am_resource_percent",
        cs.getMaximumApplicationMasterResourcePerQueuePercent(qp));
    q.put("maximum_applications", cs.getMaximumApplicationsPerQueue(qp));
    List<String> children = cs.getQueues(qp);
    if (children == null) {
      return;
    }
    for (String child : children) {
      String name = child.trim();
      if (!name.isEmpty()) {
        walk(cs, path + "." + name, paths, out);
      }
    }
  }

  /** Absolute resources ({@code [memory=...]}), weights ({@code 2w}) and auto-created queues. */
  private static void refuseUnsupported(CapacitySchedulerConfiguration cs, String path)
      throws Unsupported {
    for (String key : new String[] {"capacity", "maximum-capacity"}) {
      String raw = cs.get(PREFIX + path + "." + key);
      if (raw == null) {
        continue;
      }
      String v = raw.trim();
      if (v.startsWith("[")) {
        throw new Unsupported(PREFIX + path + "." + key, "is " + v + ": absolute resource "
            + "capacities are not supported by Locus; give a percentage of the parent");
      }
      if (v.endsWith("w")) {
        throw new Unsupported(PREFIX + path + "." + key, "is " + v + ": weight capacities are "
            + "not supported by Locus; give a percentage of the parent");
      }
    }
    for (String key : new String[] {"auto-create-child-queue.enabled",
        "auto-queue-creation-v2.enabled"}) {
      if (cs.getBoolean(PREFIX + path + "." + key, false)) {
        throw new Unsupported(PREFIX + path + "." + key, "is true: Locus does not create "
            + "queues on the fly; configure the queues in the file");
      }
    }
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
      if (GLOBAL_KEYS.contains(rest) || honouredQueueKey(rest, paths)) {
        continue;
      }
      // Locus compares memory only, as CapacityScheduler's default calculator does.
      if (rest.equals("resource-calculator")
          && e.getValue().trim().equals(DefaultResourceCalculator.class.getName())) {
        continue;
      }
      out.add(key + "=" + e.getValue());
    }
    return new ArrayList<>(out);
  }

  private static boolean honouredQueueKey(String rest, Set<String> paths) {
    int dot = rest.lastIndexOf('.');
    while (dot > 0) {
      String path = rest.substring(0, dot);
      if (paths.contains(path)) {
        return QUEUE_KEYS.contains(rest.substring(dot + 1))
            || rest.substring(dot + 1).equals("queues");
      }
      dot = rest.lastIndexOf('.', dot - 1);
    }
    return false;
  }

  /** The tree as the core reads it ({@code locus.capacity.tree}); null when root has no queues. */
  public String treeJson() {
    return treeJson;
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
      if (!parent) {
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

  /** Logs each key Locus does not honour, once per reading of the file. */
  public void logUnhonoured() {
    for (String kv : unhonoured) {
      LOG.warn("capacity-scheduler.xml: Locus does not honour {} (ignored)", kv);
    }
  }
}
