package org.locus.yarn.queue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;
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
 * {@code yarn.scheduler.capacity.queue-mappings}, parsed by CapacityScheduler's own
 * {@link CapacitySchedulerConfiguration#getQueueMappings()} and applied where the RM places
 * every submission ({@code PlacementManager}, before the scheduler sees it, so the application's
 * queue in the RM and the UI is the mapped one): the first rule that matches wins, {@code u:}
 * rules by user ({@code %user} matches anyone), {@code g:} rules by the user's groups; the
 * target may be {@code %user} or {@code %primary_group}. As in CapacityScheduler, a mapping
 * replaces a queue the submitter named only when {@code queue-mappings-override.enable} is
 * true; otherwise it applies to submissions to {@code default}.
 *
 * <p>{@code a:} (application name) rules and {@code %secondary_group} are not applied (logged
 * at start).
 */
public final class QueueMappingRule extends PlacementRule {
  private static final Logger LOG = LoggerFactory.getLogger(QueueMappingRule.class);

  private final List<QueueMapping> mappings;
  private final boolean override;
  private final Groups groups;
  /** Whether a queue name (short or full path) is a leaf Locus runs. */
  private final Predicate<String> isLeaf;

  private QueueMappingRule(List<QueueMapping> mappings, boolean override, Groups groups,
      Predicate<String> isLeaf) {
    this.mappings = mappings;
    this.override = override;
    this.groups = groups;
    this.isLeaf = isLeaf;
  }

  /**
   * The rules of {@code cs}, or null when it has none.
   *
   * @param isLeaf tells the leaf queues apart (a {@code %primary_group} target applies only
   *     when such a queue exists, as in CapacityScheduler)
   */
  public static QueueMappingRule of(CapacitySchedulerConfiguration cs, Configuration conf,
      Predicate<String> isLeaf) {
    List<QueueMapping> usable = new ArrayList<>();
    for (QueueMapping m : cs.getQueueMappings()) {
      if (m.getType() == MappingType.APPLICATION || m.getQueue().contains("%secondary_group")) {
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
        cs.getOverrideWithQueueMappings(), Groups.getUserToGroupsMappingService(conf), isLeaf);
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
    String queue = map(user);
    return queue == null ? null : new ApplicationPlacementContext(queue);
  }

  /** The queue the first matching rule names for {@code user}, or null. */
  public String map(String user) {
    List<String> userGroups = null;
    for (QueueMapping m : mappings) {
      boolean matches;
      if (m.getType() == MappingType.USER) {
        matches = "%user".equals(m.getSource()) || m.getSource().equals(user);
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
