package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;

/**
 * The operator's {@code locus.*} properties, handed to the core as a JSON object of strings.
 * The shim does not interpret them: the core alone knows which keys and values are valid, so
 * a typo is reported once, by the core, naming the key.
 */
final class LocusSettings {
  static final String PREFIX = "locus.";

  private LocusSettings() {}

  static SortedMap<String, String> collect(Configuration conf) {
    SortedMap<String, String> out = new TreeMap<>();
    if (conf == null) {
      return out;
    }
    for (Map.Entry<String, String> e : conf) {
      String key = e.getKey();
      if (key != null && key.startsWith(PREFIX)) {
        // conf.get applies ${var} substitution like every other Hadoop setting; whitespace
        // around an XML value is layout, not meaning.
        String value = conf.getTrimmed(key);
        out.put(key, value == null ? "" : value);
      }
    }
    return out;
  }

  static String toJson(Configuration conf) {
    return toJson(conf, (String) null);
  }

  /**
   * With {@code capacity-scheduler.xml}'s queue tree ({@link org.locus.yarn.queue.QueueFile})
   * as {@code locus.capacity.tree}, which the core uses under {@code locus.policy=capacity}
   * unless the {@code locus.capacity.queues} shortcut is set.
   */
  static String toJson(Configuration conf, String capacityTree) {
    return CoreMessages.write(settings(conf, capacityTree));
  }

  private static ObjectNode settings(Configuration conf, String capacityTree) {
    ObjectNode o = CoreMessages.JSON.createObjectNode();
    collect(conf).forEach(o::put);
    if (capacityTree != null) {
      o.put(CAPACITY_TREE, capacityTree);
    } else {
      o.remove(CAPACITY_TREE);
    }
    return o;
  }

  /**
   * The settings for the core, with the operator's queue file: when {@code locus.policy} is not
   * set and {@code capacity-scheduler.xml} defines more than one leaf queue, the policy is
   * {@code capacity}, so an operator who switches from CapacityScheduler keeps their tenants'
   * queues by changing one property. The file Hadoop ships (one queue, {@code default}) leaves
   * Locus's default policy in force.
   */
  static String toJson(Configuration conf, org.locus.yarn.queue.QueueFile file) {
    ObjectNode o = settings(conf, file == null ? null : file.treeJson());
    if (policyFromQueueFile(conf, file)) {
      o.put(POLICY, "capacity");
    }
    return CoreMessages.write(o);
  }

  /** Whether {@link #toJson(Configuration, org.locus.yarn.queue.QueueFile)} chose the policy. */
  static boolean policyFromQueueFile(Configuration conf, org.locus.yarn.queue.QueueFile file) {
    return file != null && (file.leaves() >= 2 || file.createsQueues())
        && conf.getTrimmed(POLICY) == null;
  }

  static final String POLICY = "locus.policy";
  static final String CAPACITY_TREE = "locus.capacity.tree";
}
