package org.locus.yarn;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/**
 * Resource types beyond memory and vcores ({@code yarn.resource-types}, resource-types.xml):
 * every resource the shim sends the core carries them as a list of amounts ({@code extra} in
 * contract/wire.json), in the order {@link ResourceUtils} lists the types after memory and
 * vcores, so the core places a container only where every type fits.
 */
final class ResourceTypes {
  /**
   * The types beyond memory and vcores a resource may carry: the core's {@code
   * MAX_EXTRA_TYPES} (contract/wire.json {@code limits.extra_types}); more stop the RM at start.
   */
  static final int MAX_EXTRA = 4;
  /** The type names in index order: memory and vcores first. */
  private static final int FIRST_EXTRA = 2;

  private ResourceTypes() {}

  /** The types beyond memory and vcores the RM's resources carry, in their index order. */
  static List<String> extraTypes() {
    ResourceInformation[] types = ResourceUtils.getResourceTypesArray();
    List<String> out = new ArrayList<>();
    for (int i = FIRST_EXTRA; i < types.length; i++) {
      out.add(types[i].getName());
    }
    return out;
  }

  /**
   * Refuses a start Locus cannot honour, naming the key: more types than {@link #MAX_EXTRA};
   * types beyond memory and vcores under a resource calculator other than {@link
   * DominantResourceCalculator} (CapacityScheduler refuses that too: the default calculator
   * drops the types from every ask). Under {@code locus.policy=capacity} the dominant
   * calculator has the queues' limits compare every type.
   */
  static void check(ResourceCalculator calculator, String calculatorKey) {
    List<String> types = extraTypes();
    if (types.isEmpty()) {
      return;
    }
    String named = YarnConfiguration.RESOURCE_TYPES + " defines " + String.join(", ", types)
        + " beyond memory and vcores";
    if (types.size() > MAX_EXTRA) {
      throw new LocusConfigException(named + "; Locus schedules at most " + MAX_EXTRA
          + " types beyond memory and vcores. Remove some from " + YarnConfiguration.RESOURCE_TYPES
          + " (resource-types.xml)");
    }
    if (!(calculator instanceof DominantResourceCalculator)) {
      throw new LocusConfigException(named + ", but " + calculatorKey + " is "
          + calculator.getClass().getName() + ", which compares memory only and drops the other"
          + " types from every ask (CapacityScheduler refuses this too). Set " + calculatorKey
          + " to " + DominantResourceCalculator.class.getName() + " in capacity-scheduler.xml");
    }
  }

  /**
   * The {@code locus.capacity.queues} shortcut carries no calculator, so its queues would compare
   * memory only while {@code resource-calculator} asks for every type: under {@code capacity}
   * the two together stop the RM naming both keys.
   */
  static void checkCapacityShortcut(org.apache.hadoop.conf.Configuration conf,
      org.locus.yarn.queue.QueueFile file, boolean capacity, String calculatorKey) {
    if (capacity && conf.get(CAPACITY_QUEUES) != null
        && org.locus.yarn.queue.QueueFile.dominant(file.configuration())) {
      throw new LocusConfigException(CAPACITY_QUEUES + " is set while " + calculatorKey + " is "
          + DominantResourceCalculator.class.getName() + ": the shortcut's queues compare memory"
          + " only. Configure the queues in capacity-scheduler.xml, or remove " + CAPACITY_QUEUES);
    }
  }

  private static final String CAPACITY_QUEUES = "locus.capacity.queues";

  /**
   * Absolute capacities and capacity vectors name memory and vcores only; under {@code
   * DominantResourceCalculator} a further type's guarantee and maximum would be a derivation
   * of CapacityScheduler's Locus does not make, so with such types the start stops naming the
   * keys.
   */
  static void checkAbsoluteTypes(org.locus.yarn.queue.QueueFile file, boolean capacity,
      String calculatorKey) {
    List<String> types = extraTypes();
    if (capacity && file.absolute() != null && !types.isEmpty()
        && org.locus.yarn.queue.QueueFile.dominant(file.configuration())) {
      throw new LocusConfigException(calculatorKey + " is "
          + DominantResourceCalculator.class.getName() + " and the queues' capacities are"
          + " absolute resources or capacity vectors while " + YarnConfiguration.RESOURCE_TYPES
          + " adds " + types + ": Locus derives those queues' guarantees and maxima in memory and"
          + " vcores only. Use percentage or weight capacities with these resource types");
    }
  }

  /**
   * How many of {@code r}'s types beyond memory and vcores cross the wire: up to the last one
   * that is not zero (none for a resource of memory and vcores only), at most {@link #MAX_EXTRA}
   * (the start refuses more types).
   */
  static int extraCount(Resource r) {
    ResourceInformation[] all = r.getResources();
    int n = Math.min(all.length, FIRST_EXTRA + MAX_EXTRA);
    for (int i = n - 1; i >= FIRST_EXTRA; i--) {
      if (all[i].getValue() > 0) {
        return i - FIRST_EXTRA + 1;
      }
    }
    return 0;
  }

  /**
   * The amount of {@code r}'s {@code i}-th type beyond memory and vcores ({@code i} below
   * {@link #extraCount}); a negative figure only comes from broken bookkeeping and means
   * "nothing", as for memory.
   */
  static long extra(Resource r, int i) {
    return Math.max(0L, r.getResources()[FIRST_EXTRA + i].getValue());
  }

  /** Whether {@code r} carries exactly {@code amounts} beyond memory and vcores (trimmed). */
  static boolean sameExtras(Resource r, long[] amounts) {
    int n = extraCount(r);
    if (n != amounts.length) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (extra(r, i) != amounts[i]) {
        return false;
      }
    }
    return true;
  }

  /** {@code r}'s types beyond memory and vcores, trimmed as on the wire. */
  static long[] extras(Resource r) {
    long[] out = new long[extraCount(r)];
    for (int i = 0; i < out.length; i++) {
      out[i] = extra(r, i);
    }
    return out;
  }
}
