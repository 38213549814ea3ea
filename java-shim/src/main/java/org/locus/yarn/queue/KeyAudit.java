package org.locus.yarn.queue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;

/**
 * What becomes of the {@code capacity-scheduler.xml} keys Locus does not enforce itself
 * ({@link QueueFile#unhonoured}): the operator either gets what the key asks for or is told at
 * start, never a limit that quietly does not hold.
 *
 * <ul>
 *   <li><b>replaced</b>: CapacityScheduler's own scheduling technique (its locality delays,
 *       asynchronous scheduling, assignments per heartbeat, node reservations, multi-node
 *       placement); Locus's own mechanism does that work, so the key is logged naming it;
 *   <li><b>refused</b>: a limit or policy Locus does not implement, set to anything but a value
 *       whose effect is CapacityScheduler's default: the RM stops at start (a
 *       {@code -refreshQueues} is refused) naming the key;
 *   <li><b>no effect</b>: a key whose value changes nothing under CapacityScheduler either (a
 *       user weight of 1, a queue priority its parent's ordering does not read): dropped;
 *   <li>anything else (keys CapacityScheduler does not read either, such as a non-template key
 *       on a wildcard path): logged as not honoured.
 * </ul>
 */
final class KeyAudit {
  private static final String PREFIX = CapacitySchedulerConfiguration.PREFIX;
  private static final String LOCALITY = "Locus's locality layer (locus.locality, locus.delay.*)"
      + " decides how long an ask waits for its host or rack";
  private static final String[] TEMPLATES = {"auto-queue-creation-v2.template.",
      "auto-queue-creation-v2.leaf-template.", "auto-queue-creation-v2.parent-template.",
      CapacitySchedulerConfiguration.AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX + "."};

  /** Keys to log, as {@code key=value}, each with what does its work when replaced. */
  final List<String> logged = new ArrayList<>();
  /** Keys that stop the RM at start, each as {@code key=value: why}. */
  final List<String> refused = new ArrayList<>();

  private final CapacitySchedulerConfiguration cs;
  private final Set<String> paths;
  /** Parents already reported for their children's priorities. */
  private final Set<String> priorityReported = new HashSet<>();

  private KeyAudit(CapacitySchedulerConfiguration cs, Set<String> paths) {
    this.cs = cs;
    this.paths = paths;
  }

  /** Sorts {@code unhonoured} (full keys, sorted) of the file read as {@code cs}. */
  static KeyAudit of(CapacitySchedulerConfiguration cs, Set<String> paths,
      List<String> unhonoured) {
    KeyAudit audit = new KeyAudit(cs, paths);
    for (String key : unhonoured) {
      audit.sort(key, cs.get(key, "").trim());
    }
    return audit;
  }

  private void sort(String key, String value) {
    String rest = key.substring(PREFIX.length());
    String replacement = replacedBy(rest);
    if (replacement != null) {
      logged.add(key + "=" + value + " (CapacityScheduler's own technique; " + replacement + ")");
      return;
    }
    String why = globalRefusal(rest, value);
    if (why == null) {
      why = queueRefusal(rest, value);
    }
    if (why == null) {
      logged.add(key + "=" + value + " (ignored)");
    } else if (!why.isEmpty()) {
      refused.add(key + "=" + value + ": " + why);
    }
  }

  private static String replacedBy(String rest) {
    if (rest.equals("node-locality-delay") || rest.equals("rack-locality-additional-delay")
        || rest.equals("rack-locality-full-reset")) {
      return LOCALITY;
    }
    if (rest.startsWith("per-node-heartbeat.")) {
      return "locus.assign-multiple and locus.off-switch-per-heartbeat bound what one node"
          + " heartbeat places";
    }
    if (rest.startsWith("schedule-asynchronously.")) {
      return "locus.scheduling.mode decides when Locus places containers";
    }
    if (rest.equals("reservations-continue-look-all-nodes")
        || rest.equals("skip-allocate-on-nodes-with-reserved-containers")) {
      return "Locus holds no node room for one ask; its own order keeps large asks from"
          + " starving";
    }
    if (rest.equals("multi-node-placement-enabled") || rest.startsWith("multi-node-sorting.")) {
      return "Locus's policy chooses the node of every container";
    }
    return null;
  }

  /**
   * Why a global key is refused; "" when its value has no effect; null when it is not one of
   * these.
   */
  private static String globalRefusal(String rest, String value) {
    switch (rest) {
      case "lazy-preemption-enabled":
        return !Boolean.parseBoolean(value) ? ""
            : "Locus's preemption kills a marked container itself after max_wait_before_kill;"
                + " it does not leave it for the scheduler to take lazily";
      case "ordering-policy.priority-utilization.underutilized-preemption.enabled":
        return !Boolean.parseBoolean(value) ? ""
            : "Locus's preemption rounds do not preempt for a higher-priority queue below its"
                + " guarantee";
      case "workflow-priority-mappings":
        return value.isEmpty() ? "" : "Locus does not map workflows to priorities";
      default:
        return null;
    }
  }

  /**
   * Why a queue's key (its own, or a template's for the queues it creates) is refused; "" when
   * its value has no effect; null when it is not one of these.
   */
  private String queueRefusal(String rest, String value) {
    String owner = null;
    for (int dot = rest.lastIndexOf('.'); dot > 0; dot = rest.lastIndexOf('.', dot - 1)) {
      if (paths.contains(rest.substring(0, dot))) {
        owner = rest.substring(0, dot);
        break;
      }
    }
    if (owner == null) {
      return null;
    }
    String key = rest.substring(owner.length() + 1);
    boolean template = false;
    for (String t : TEMPLATES) {
      while (key.startsWith(t)) {
        key = key.substring(t.length());
        template = true;
      }
    }
    if (key.equals(CapacitySchedulerConfiguration.ORDERING_POLICY)) {
      if (!template && value.equals(
          CapacitySchedulerConfiguration.QUEUE_PRIORITY_UTILIZATION_ORDERING_POLICY)) {
        return priorityRefusal(owner);
      }
      return "Locus orders a leaf's applications by fifo or fair and a parent's children by"
          + " utilization";
    }
    if (key.equals("priority") && !template) {
      int dot = owner.lastIndexOf('.');
      String parent = dot < 0 ? null : owner.substring(0, dot);
      boolean ordered = parent != null && CapacitySchedulerConfiguration
          .QUEUE_PRIORITY_UTILIZATION_ORDERING_POLICY.equals(
              cs.get(PREFIX + parent + "." + CapacitySchedulerConfiguration.ORDERING_POLICY, "")
                  .trim());
      // Under a parent ordering by utilization alone CapacityScheduler reads no priority.
      return ordered ? priorityRefusal(parent) : "";
    }
    if (key.startsWith(CapacitySchedulerConfiguration.USER_SETTINGS + ".")
        && key.endsWith("." + CapacitySchedulerConfiguration.USER_WEIGHT)) {
      return floatIs(value, CapacitySchedulerConfiguration.DEFAULT_USER_WEIGHT) ? ""
          : "Locus gives every user of a queue the same weight in its user limit";
    }
    if (key.equals(CapacitySchedulerConfiguration.IS_RESERVABLE)) {
      return !Boolean.parseBoolean(value) ? ""
          : "Locus has no reservation system (advance reservations of queue capacity)";
    }
    if (key.startsWith(CapacitySchedulerConfiguration.ACCESSIBLE_NODE_LABELS + ".")
        && key.endsWith("." + CapacitySchedulerConfiguration.MAXIMUM_AM_RESOURCE_SUFFIX)) {
      // A created queue without its own key takes the global one, as CapacityScheduler's.
      float queue = template ? cs.getMaximumApplicationMasterResourcePercent()
          : cs.getMaximumApplicationMasterResourcePerQueuePercent(new QueuePath(owner));
      return floatIs(value, queue) ? ""
          : "Locus bounds a queue's AMs in every partition by the queue's own"
              + " maximum-am-resource-percent (" + queue + ")";
    }
    return null;
  }

  /**
   * Under {@code priority-utilization} CapacityScheduler serves (and preempts for) a parent's
   * children by priority first; with one priority among them that is utilization alone, which
   * Locus runs. Reported once per parent.
   */
  private String priorityRefusal(String parent) {
    List<String> children = new ArrayList<>();
    for (String p : paths) {
      if (p.startsWith(parent + ".") && p.indexOf('.', parent.length() + 1) < 0) {
        children.add(p);
      }
    }
    Set<Integer> priorities = new HashSet<>();
    for (String c : children) {
      priorities.add(cs.getQueuePriority(new QueuePath(c)).getPriority());
    }
    if (priorities.size() <= 1 || !priorityReported.add(parent)) {
      return "";
    }
    return "under " + PREFIX + parent + ".ordering-policy=priority-utilization the children of "
        + parent + " have different priorities, and Locus orders a parent's children by"
        + " utilization alone (give them one priority, or use utilization)";
  }

  private static boolean floatIs(String value, float expected) {
    try {
      return Math.abs(Float.parseFloat(value) - expected) < 1e-6f;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
