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
    return toJson(conf, null);
  }

  /**
   * With {@code capacity-scheduler.xml}'s queue tree ({@link org.locus.yarn.queue.QueueFile})
   * as {@code locus.capacity.tree}, which the core uses under {@code locus.policy=capacity}
   * unless the {@code locus.capacity.queues} shortcut is set.
   */
  static String toJson(Configuration conf, String capacityTree) {
    ObjectNode o = CoreMessages.JSON.createObjectNode();
    collect(conf).forEach(o::put);
    if (capacityTree != null) {
      o.put(CAPACITY_TREE, capacityTree);
    } else {
      o.remove(CAPACITY_TREE);
    }
    return CoreMessages.write(o);
  }

  static final String CAPACITY_TREE = "locus.capacity.tree";
}
