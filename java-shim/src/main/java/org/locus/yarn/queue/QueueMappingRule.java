package org.locus.yarn.queue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.Groups;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.PlacementRule;
import org.apache.hadoop.yarn.server.resourcemanager.placement.QueueMapping;
import org.apache.hadoop.yarn.server.resourcemanager.placement.QueueMapping.MappingType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

/**
 * {@code yarn.scheduler.capacity.queue-mappings}, then the application-name mappings of
 * {@code yarn.scheduler.queue-placement-rules.app-name}, parsed by CapacityScheduler's own
 * {@link CapacitySchedulerConfiguration#getQueueMappings()} and
 * {@link CapacitySchedulerConfiguration#getQueueMappingEntity(String)} and applied in that
 * order (as CapacityScheduler's legacy rules) where the RM places every submission
 * ({@code PlacementManager}, before the scheduler sees it, so the application's queue in the RM
 * and the UI is the mapped one): the first rule that matches wins, {@code u:} rules by user
 * ({@code %user} matches anyone), {@code g:} rules by the user's groups, application rules by
 * the submitted name ({@code %application} matches any); the target may be {@code %user},
 * {@code %primary_group}, {@code %secondary_group} or {@code %application}, applied only when
 * such a leaf exists. As in CapacityScheduler, a mapping replaces a queue the submitter named
 * only when {@code queue-mappings-override.enable} is true; otherwise it applies to submissions
 * to {@code default}.
 */
public final class QueueMappingRule extends PlacementRule {
  private static final String APP_NAME_RULE = "app-name";
  /** Where a matching rule whose queue does not exist places the application. */
  static final String DEFAULT_PATH = "root." + YarnConfiguration.DEFAULT_QUEUE_NAME;

  private final List<QueueMapping> mappings;
  private final boolean override;
  private final Groups groups;
  /** Whether a queue name (short or full path) is a leaf Locus runs. */
  private final Predicate<String> isLeaf;
  /** Whether a queue name (short or full path) is any queue, parent or leaf. */
  private final Predicate<String> isQueue;
  /** The queue a mapping names, as the application's queue (a parent's short name resolved). */
  private final UnaryOperator<String> fullPath;

  private QueueMappingRule(List<QueueMapping> mappings, boolean override, Groups groups,
      Predicate<String> isLeaf, Predicate<String> isQueue, UnaryOperator<String> fullPath) {
    this.mappings = mappings;
    this.override = override;
    this.groups = groups;
    this.isLeaf = isLeaf;
    this.isQueue = isQueue;
    this.fullPath = fullPath;
  }

  /**
   * The rules of {@code cs}, or null when it has none.
   *
   * @param isLeaf tells the leaf queues apart (a {@code %primary_group} target applies only
   *     when such a queue exists, as in CapacityScheduler)
   */
  public static QueueMappingRule of(CapacitySchedulerConfiguration cs, Configuration conf,
      Predicate<String> isLeaf) throws IOException {
    return of(cs, conf, isLeaf, isLeaf, UnaryOperator.identity());
  }

  /**
   * As {@link #of(CapacitySchedulerConfiguration, Configuration, Predicate)}; the application
   * is placed in {@code fullPath} of the queue a rule names, as CapacityScheduler's rules
   * normalise a parent named by its short name.
   *
   * @param isQueue tells any queue, parent or leaf, apart: a {@code %secondary_group} stands
   *     for the first of the user's secondary groups naming a queue where it stands
   * @throws IOException naming the mapping whose fixed queue is not a leaf (nor one that may
   *     be created), which CapacityScheduler refuses at start too
   */
  public static QueueMappingRule of(CapacitySchedulerConfiguration cs, Configuration conf,
      Predicate<String> isLeaf, Predicate<String> isQueue, UnaryOperator<String> fullPath)
      throws IOException {
    List<QueueMapping> all = new ArrayList<>(cs.getQueueMappings());
    // The rule's name: getQueueMappingEntity prefixes yarn.scheduler.queue-placement-rules.
    // (CapacitySchedulerConfiguration.QUEUE_MAPPING_NAME is the full key it builds).
    all.addAll(cs.getQueueMappingEntity(APP_NAME_RULE));
    if (all.isEmpty()) {
      return null;
    }
    for (QueueMapping m : all) {
      String target = m.getFullPath();
      if (!target.contains("%") && !isLeaf.test(target)) {
        throw new IOException((m.getType() == MappingType.APPLICATION
            ? CapacitySchedulerConfiguration.QUEUE_MAPPING_NAME
            : CapacitySchedulerConfiguration.QUEUE_MAPPING) + ": the mapping " + m
            + " places applications in " + target + ", which is not a leaf queue"
            + " (CapacityScheduler refuses it at start too)");
      }
    }
    return new QueueMappingRule(Collections.unmodifiableList(all),
        cs.getOverrideWithQueueMappings(), Groups.getUserToGroupsMappingService(conf), isLeaf,
        isQueue, fullPath);
  }

  @Override
  public boolean initialize(ResourceScheduler scheduler) {
    return true;
  }

  @Override
  public String getName() {
    return "LocusQueueMappings";
  }

  /** The mapped queue for {@code user}'s submission, or null to keep the queue it named. */
  @Override
  public ApplicationPlacementContext getPlacementForApp(ApplicationSubmissionContext asc,
      String user) {
    String named = asc.getQueue();
    if (!override && named != null && !named.isEmpty()
        && !YarnConfiguration.DEFAULT_QUEUE_NAME.equals(named)) {
      return null;
    }
    String queue = map(user, asc.getApplicationName());
    return queue == null ? null : new ApplicationPlacementContext(fullPath.apply(queue));
  }

  /** The queue the first matching rule names for {@code user}, or null. */
  public String map(String user) {
    return map(user, null);
  }

  /**
   * The queue the first matching rule names for {@code user}'s application {@code appName}
   * (null: no application rule matches), or null.
   */
  public String map(String user, String appName) {
    List<String> userGroups = null;
    for (QueueMapping m : mappings) {
      boolean matches;
      if (m.getType() == MappingType.USER) {
        matches = "%user".equals(m.getSource()) || m.getSource().equals(user);
      } else if (m.getType() == MappingType.APPLICATION) {
        matches = appName != null
            && ("%application".equals(m.getSource()) || m.getSource().equals(appName));
      } else {
        if (userGroups == null) {
          userGroups = groupsOf(user);
        }
        matches = userGroups.contains(m.getSource());
      }
      if (!matches) {
        continue;
      }
      String target = m.getFullPath();
      if (target.contains("%application")) {
        if (appName == null) {
          continue;
        }
        target = target.replace("%application", appName);
      }
      target = target.replace("%user", user);
      if (target.contains("%primary_group") || target.contains("%secondary_group")) {
        if (userGroups == null) {
          userGroups = groupsOf(user);
        }
        if (userGroups.isEmpty()) {
          return DEFAULT_PATH;
        }
        target = target.replace("%primary_group", userGroups.get(0));
      }
      if (target.contains("%secondary_group")) {
        // As CapacityScheduler's SecondaryGroupVariable: the first group after the primary for
        // which a queue of that name stands where the variable does (under the path before it).
        String prefix = target.substring(0, target.indexOf("%secondary_group"));
        String found = null;
        for (String group : userGroups.subList(1, userGroups.size())) {
          if (isQueue.test(prefix + group)) {
            found = group;
            break;
          }
        }
        if (found == null) {
          return DEFAULT_PATH;
        }
        target = target.replace("%secondary_group", found);
      }
      // CapacityScheduler turns each of these rules into one whose fallback, when the queue it
      // names is neither a leaf nor one it may create, places the application in the default
      // queue (LegacyMappingRuleToJson: placeDefault); later rules are not tried.
      return isLeaf.test(target) ? target : DEFAULT_PATH;
    }
    return null;
  }

  private List<String> groupsOf(String user) {
    try {
      return new ArrayList<>(groups.getGroupsSet(user));
    } catch (IOException e) {
      // A user without groups matches no g: rule, as in CapacityScheduler.
      return Collections.emptyList();
    }
  }
}
