package org.locus.yarn;

import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.slf4j.Logger;

/**
 * Resource types beyond memory and vcores ({@code yarn.resource-types}, resource-types.xml).
 * The core places containers by memory and vcores only, so with such types an ask for a GPU
 * could land on a node with none free: the RM does not start unless the operator accepts that
 * with {@link #IGNORE}.
 */
final class ResourceTypes {
  static final String IGNORE = "locus.resource-types.ignore";

  private ResourceTypes() {}

  /**
   * The types the RM's resources carry (ResourceUtils, JVM-wide, read from resource-types.xml)
   * together with those the RM's configuration names, so neither source is overlooked.
   */
  static Set<String> unscheduled(Configuration conf) {
    Set<String> out = new TreeSet<>();
    for (ResourceInformation type : ResourceUtils.getResourceTypesArray()) {
      out.add(type.getName());
    }
    for (String name : conf.getTrimmedStrings(YarnConfiguration.RESOURCE_TYPES)) {
      if (!name.isEmpty()) {
        out.add(name);
      }
    }
    out.remove(ResourceInformation.MEMORY_URI);
    out.remove(ResourceInformation.VCORES_URI);
    return out;
  }

  /** Refuses the start, naming the key and the types, unless {@link #IGNORE} is {@code true}. */
  static void check(Configuration conf, Logger log) {
    Set<String> types = unscheduled(conf);
    if (types.isEmpty()) {
      return;
    }
    String what = YarnConfiguration.RESOURCE_TYPES + " defines " + String.join(", ", types)
        + " beyond memory and vcores; Locus places containers by memory and vcores only and does"
        + " not schedule these types, so an ask for them could land on a node without them free";
    if ("true".equalsIgnoreCase(conf.getTrimmed(IGNORE, ""))) {
      log.warn("{} ({}=true)", what, IGNORE);
      return;
    }
    throw new LocusConfigException(what + ". Remove them from " + YarnConfiguration.RESOURCE_TYPES
        + " (resource-types.xml), or set " + IGNORE + "=true to start with them not scheduled");
  }
}
