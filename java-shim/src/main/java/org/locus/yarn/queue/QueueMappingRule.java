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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * {@code %primary_group} or {@code %application}, applied only when such a leaf exists. As in
 * CapacityScheduler, a mapping replaces a queue the submitter named only when
 * {@code queue-mappings-override.enable} is true; otherwise it applies to submissions to
 * {@code default}.
 *
 * <p>{@code %secondary_group} is not applied (logged at start).
 */
public final class QueueMappingRule extends PlacementRule {
  private static final Logger LOG = LoggerFactory.getLogger(QueueMappingRule.class);
  private static final String APP_NAME_RULE = "app-name";

  private final List<QueueMapping> mappings;
  private final boolean override;
  private final Groups groups;
  /** Whether a queue name (short or full path) is a leaf Locus runs. */
  private final Predicate<String> isLeaf;
  /** The queue a mapping names, as the application's queue (a parent's short name resolved). */
  private final UnaryOperator<String> fullPath;

  private QueueMappingRule(List<QueueMapping> mappings, boolean override, Groups groups,
      Predicate<String> isLeaf, UnaryOperator<String> fullPath) {
    this.mappings = mappings;
    this.override = override;
    this.groups = groups;
    this.isLeaf = isLeaf;
    this.fullPath = fullPath;
  }

  /**
   * The rules of {@code cs}, or null when it has none.
   *
   * @param isLeaf tells the leaf queues apart (a {@code %primary_group} target applies only
   *     when such a queue exists, as in CapacityScheduler)
   */
  public static QueueMappingRule of(CapacitySchedulerConfiguration cs, Configuration conf,
      Predicate<String> isLeaf) {
    return of(cs, conf, isLeaf, UnaryOperator.identity());
  }

  /**
   * As {@link #of(CapacitySchedulerConfiguration, Configuration, Predicate)}; the application
   * is placed in {@code fullPath} of the queue a rule names, as CapacityScheduler's rules
   * normalise a parent named by its short name.
   */
  public static QueueMappingRule of(CapacitySchedulerConfiguration cs, Configuration conf,
      Predicate<String> isLeaf, UnaryOperator<String> fullPath) {
    List<QueueMapping> usable = new ArrayList<>();
    List<QueueMapping> all = new ArrayList<>(cs.getQueueMappings());
    // The rule's name: getQueueMappingEntity prefixes yarn.scheduler.queue-placement-rules.
    // (CapacitySchedulerConfiguration.QUEUE_MAPPING_NAME is the full key it builds).
    all.addAll(cs.getQueueMappingEntity(APP_NAME_RULE));
    for (QueueMapping m : all) {
      if (m.getQueue().contains("%secondary_group")) {
        LOG.warn("capacity-scheduler.xml: Locus does not apply the queue mapping {} (ignored)",
            m);
        continue;
      }
      usable.add(m);
    }
    if (usable.isEmpty()) {
      return null;
    }
    return new QueueMappingRule(Collections.unmodifiableList(usable),
        cs.getOverrideWithQueueMappings(), Groups.getUserToGroupsMappingService(conf), isLeaf,
        fullPath);
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
        // Only applications named like a leaf (%application:%application).
        target = target.replace("%application", appName == null ? "" : appName);
        if (appName == null || !isLeaf.test(target)) {
          continue;
        }
      }
      if (target.contains("%user")) {
        // Only users who have such a queue (u:%user:%user sends each user to their own).
        target = target.replace("%user", user);
        if (!isLeaf.test(target)) {
          continue;
        }
      }
      if (target.contains("%primary_group")) {
        if (userGroups == null) {
          userGroups = groupsOf(user);
        }
        if (userGroups.isEmpty()) {
          continue;
        }
        target = target.replace("%primary_group", userGroups.get(0));
        if (!isLeaf.test(target)) {
          continue;
        }
      }
      return target;
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
