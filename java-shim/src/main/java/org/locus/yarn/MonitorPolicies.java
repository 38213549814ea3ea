package org.locus.yarn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

/**
 * The scheduling monitor policies ({@code yarn.resourcemanager.scheduler.monitor.policies})
 * as Locus runs them. Hadoop's {@code SchedulingMonitorManager} instantiates each class named
 * there and starts it with the scheduler; {@code ProportionalCapacityPreemptionPolicy} refuses
 * any scheduler but CapacityScheduler, so the list Locus hands the manager names
 * {@link LocusPreemptionPolicy} in its place. Hadoop's other policies under its
 * {@code monitor.capacity} package are CapacityScheduler's alone and stop the RM at start,
 * named; a class that is missing or not a {@code SchedulingEditPolicy} is refused the same way.
 * Any other policy runs as Hadoop runs it.
 */
final class MonitorPolicies {
  static final String PROPORTIONAL = "org.apache.hadoop.yarn.server.resourcemanager.monitor."
      + "capacity.ProportionalCapacityPreemptionPolicy";
  static final String QUEUE_DELETION = "org.apache.hadoop.yarn.server.resourcemanager.scheduler."
      + "capacity.AutoCreatedQueueDeletionPolicy";
  static final String QUEUE_MANAGEMENT = "org.apache.hadoop.yarn.server.resourcemanager."
      + "scheduler.capacity.QueueManagementDynamicEditPolicy";
  private static final String CAPACITY_ONLY =
      "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.";
  /**
   * CapacityScheduler's own package, whose policies fail their init under any other scheduler
   * (QueueConfigurationAutoRefreshPolicy; AutoCreatedQueueDeletionPolicy and
   * QueueManagementDynamicEditPolicy have Locus's stand-ins).
   */
  private static final String SCHEDULER_ONLY =
      "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.";

  private MonitorPolicies() {}

  /**
   * {@code conf} itself when the monitor is off or names no policy Locus replaces; otherwise
   * a copy whose policy list names Locus's policies.
   *
   * @throws YarnRuntimeException naming the key and the class Locus cannot run
   */
  static Configuration forLocus(Configuration conf) {
    if (!conf.getBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_ENABLE_MONITORS)) {
      return conf;
    }
    String[] named = conf.getTrimmedStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES);
    List<String> out = new ArrayList<>();
    boolean replaced = false;
    for (String name : named) {
      if (name.equals(PROPORTIONAL)) {
        out.add(LocusPreemptionPolicy.class.getName());
        replaced = true;
        continue;
      }
      if (name.equals(QUEUE_DELETION)) {
        out.add(LocusQueueDeletionPolicy.class.getName());
        replaced = true;
        continue;
      }
      if (name.equals(QUEUE_MANAGEMENT)) {
        out.add(LocusQueueManagementPolicy.class.getName());
        replaced = true;
        continue;
      }
      if (name.startsWith(CAPACITY_ONLY) || name.startsWith(SCHEDULER_ONLY)) {
        throw refused(name, "is CapacityScheduler's own; Locus stands in only for "
            + PROPORTIONAL + ", " + QUEUE_DELETION + " and " + QUEUE_MANAGEMENT);
      }
      Class<?> c;
      try {
        c = conf.getClassByName(name);
      } catch (ClassNotFoundException e) {
        throw refused(name, "cannot be found");
      }
      if (!SchedulingEditPolicy.class.isAssignableFrom(c)) {
        throw refused(name, "is not a " + SchedulingEditPolicy.class.getName());
      }
      out.add(name);
    }
    if (!replaced) {
      return conf;
    }
    Configuration copy = new Configuration(conf);
    copy.setStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
        out.toArray(new String[0]));
    return copy;
  }

  /**
   * The scheduler a policy standing in for one of CapacityScheduler's runs under; any other
   * fails the policy's init as CapacityScheduler's own policies fail theirs.
   */
  static LocusScheduler locus(ResourceScheduler sched) {
    if (!(sched instanceof LocusScheduler)) {
      throw new YarnRuntimeException("Class " + sched.getClass().getCanonicalName()
          + " not instance of " + LocusScheduler.class.getCanonicalName());
    }
    return (LocusScheduler) sched;
  }

  /** Whether the monitor is on and {@code conf}'s list (after {@link #forLocus}) runs Locus's. */
  static boolean runsLocusPolicy(Configuration conf) {
    return conf.getBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_ENABLE_MONITORS)
        && Arrays.asList(conf.getTrimmedStrings(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES))
            .contains(LocusPreemptionPolicy.class.getName());
  }

  /**
   * CapacityScheduler's intra-queue preemption orders a fair leaf's applications by its fair
   * comparator under the default {@code userlimit_first} order; Locus's intra-queue rounds order
   * them by priority and submission. The combination stops the RM naming the keys and the leaf.
   */
  static void checkFairOrdering(Configuration monitors, org.locus.yarn.queue.QueueFile file,
      boolean capacity) {
    if (!capacity || !runsLocusPolicy(monitors)) {
      return;
    }
    Configuration cs = file.configuration();
    boolean intraQueue = cs.getBoolean(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED,
        CapacitySchedulerConfiguration.DEFAULT_INTRAQUEUE_PREEMPTION_ENABLED);
    String order = cs.getTrimmed(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ORDER_POLICY,
        CapacitySchedulerConfiguration.DEFAULT_INTRAQUEUE_PREEMPTION_ORDER_POLICY);
    List<String> fair = file.fairLeaves();
    if (intraQueue && "userlimit_first".equals(order) && !fair.isEmpty()) {
      throw new YarnRuntimeException(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED
          + " is true with " + CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ORDER_POLICY
          + "=userlimit_first while " + CapacitySchedulerConfiguration.PREFIX + fair.get(0)
          + ".ordering-policy is fair: CapacityScheduler then preempts inside that queue by its"
          + " fair order, Locus by priority and submission; set the order policy to"
          + " priority_first, turn intra-queue preemption off, or use fifo ordering");
    }
  }

  /**
   * Locus's preemption rounds weigh each queue's use of the default partition only;
   * CapacityScheduler's weigh it in every node partition. With a partition divided between queues (or a queue held below
   * all of it) the rounds would preempt for the wrong shares, so the combination stops the RM
   * naming both keys.
   */
  static void checkPartitions(Configuration monitors, org.locus.yarn.queue.QueueFile file,
      boolean capacity) {
    String key = capacity ? file.partitionDividingKey() : null;
    if (key != null && runsLocusPolicy(monitors)) {
      throw new YarnRuntimeException(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES
          + " names " + PROPORTIONAL + " while " + key + " divides a node partition between "
          + "queues: Locus preempts for each queue's share of the default partition only, not per "
          + "node partition; turn the monitor off or give each partition whole to one leaf queue");
    }
  }

  /**
   * Under {@code capacity} with {@code DominantResourceCalculator}, Locus's rounds between
   * queues weigh every resource type as CapacityScheduler's do; its rounds within a queue weigh
   * memory only, so intra-queue preemption with that calculator would preempt for the wrong
   * shares: the combination stops the RM naming both keys.
   */
  static void checkCalculator(Configuration monitors, org.locus.yarn.queue.QueueFile file,
      boolean capacity) {
    CapacitySchedulerConfiguration cs = file.configuration();
    if (capacity && org.locus.yarn.queue.QueueFile.dominant(cs) && runsLocusPolicy(monitors)
        && cs.getBoolean(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED,
            CapacitySchedulerConfiguration.DEFAULT_INTRAQUEUE_PREEMPTION_ENABLED)) {
      throw new YarnRuntimeException(CapacitySchedulerConfiguration.INTRAQUEUE_PREEMPTION_ENABLED
          + " is true while " + CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS + " is "
          + cs.getResourceCalculator().getClass().getName()
          + ": Locus preempts within a queue by memory only, not by every resource type as"
          + " that calculator asks; turn intra-queue preemption off or use "
          + "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator");
    }
    // Rounds over absolute resources or vectors have no one-run comparison with
    // CapacityScheduler (in the scenarios built for one, CapacityScheduler did not serve the
    // waiting queue), so the combination is refused rather than run unverified.
    if (capacity && org.locus.yarn.queue.QueueFile.dominant(cs) && runsLocusPolicy(monitors)
        && file.absolute() != null) {
      throw new YarnRuntimeException(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS
          + " runs the preemption policy while " + CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS
          + " is " + cs.getResourceCalculator().getClass().getName() + " and the queues'"
          + " capacities are absolute resources or capacity vectors: Locus preempts under that"
          + " calculator for percentage and weight capacities only; use those, or"
          + " org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator");
    }
  }

  /** Locus's key for preemption rounds under {@code fsp} and {@code fair}. */
  static final String SIZE_BASED = "locus.preemption.size-based";

  /**
   * Size-based preemption is carried out by the rounds of Locus's policy, so with the monitor
   * off, or running no such policy, the key would be in the file and have no effect.
   *
   * @param monitors {@code conf} after {@link #forLocus}
   * @throws YarnRuntimeException naming the key and the monitor's keys
   */
  static void checkSizeBased(Configuration monitors) {
    if ("true".equalsIgnoreCase(monitors.getTrimmed(SIZE_BASED)) && !runsLocusPolicy(monitors)) {
      throw new YarnRuntimeException(SIZE_BASED + "=true takes effect only through the "
          + "scheduling monitor's preemption rounds: set "
          + YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS + "=true and name " + PROPORTIONAL
          + " in " + YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES + ", or set "
          + SIZE_BASED + "=false");
    }
  }

  private static YarnRuntimeException refused(String name, String why) {
    return new YarnRuntimeException(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES
        + " names " + name + ", which " + why);
  }
}
