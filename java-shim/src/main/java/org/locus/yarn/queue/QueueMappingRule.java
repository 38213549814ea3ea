package org.locus.yarn.queue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.Groups;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.PlacementRule;
import org.apache.hadoop.yarn.server.resourcemanager.placement.VariableContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.csmappingrule.MappingRule;
import org.apache.hadoop.yarn.server.resourcemanager.placement.csmappingrule.MappingRuleConditionalVariable;
import org.apache.hadoop.yarn.server.resourcemanager.placement.csmappingrule.MappingRuleResult;
import org.apache.hadoop.yarn.server.resourcemanager.placement.csmappingrule.MappingRuleResultType;
import org.apache.hadoop.yarn.server.resourcemanager.placement.csmappingrule.MappingRuleValidationContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CapacityScheduler's queue mapping rules where the RM places every submission
 * ({@code PlacementManager}, before the scheduler sees it, so the application's queue in the RM
 * and the UI is the mapped one): the legacy {@code queue-mappings} and application-name
 * mappings, or the JSON rules of {@code mapping-rule-format=json}, read into rules and evaluated
 * by CapacityScheduler's own classes ({@link CapacitySchedulerConfiguration#getMappingRules},
 * {@link MappingRule#evaluate}). What CapacityScheduler's placement rule does around them, which
 * needs its queue manager, is done here against the file's queues with the same rules: the
 * variables of a submission ({@code %user}, {@code %primary_group}, {@code %secondary_group},
 * {@code %application}, {@code %specified}, {@code %default}), the check of the queue a rule
 * names (a leaf, or one its parent may create) with the rule's fallback when it fails, and the
 * check of every rule at start. As in CapacityScheduler, the rules replace a queue the submitter
 * named only when {@code queue-mappings-override.enable} is true; otherwise they apply to
 * submissions to {@code default}.
 */
public final class QueueMappingRule extends PlacementRule {
  private static final Logger LOG = LoggerFactory.getLogger(QueueMappingRule.class);
  /** Where a rule's default placement, and a legacy rule's fallback, put an application. */
  static final String DEFAULT_PATH = "root." + YarnConfiguration.DEFAULT_QUEUE_NAME;
  private static final String SECONDARY_GROUP = "%secondary_group";
  /** The variables a rule may read but not set, as CapacityScheduler registers them. */
  private static final List<String> IMMUTABLE = Collections.unmodifiableList(Arrays.asList(
      "%user", "%primary_group", SECONDARY_GROUP, "%application", "%specified"));

  private final List<MappingRule> rules;
  private final boolean override;
  private final Groups groups;
  private final QueueFile queues;

  private QueueMappingRule(List<MappingRule> rules, boolean override, Groups groups,
      QueueFile queues) {
    this.rules = rules;
    this.override = override;
    this.groups = groups;
    this.queues = queues;
  }

  /**
   * The rules of {@code file}, or null when it has none.
   *
   * @throws IOException naming the key, for rules CapacityScheduler refuses at start: a
   *     mapping it cannot parse, or a rule whose queue can never be placed in
   */
  public static QueueMappingRule of(QueueFile file, Configuration conf) throws IOException {
    CapacitySchedulerConfiguration cs = file.configuration();
    List<MappingRule> rules;
    String key = cs.get(CapacitySchedulerConfiguration.MAPPING_RULE_FORMAT,
        CapacitySchedulerConfiguration.MAPPING_RULE_FORMAT_DEFAULT)
        .equals(CapacitySchedulerConfiguration.MAPPING_RULE_FORMAT_JSON)
            ? CapacitySchedulerConfiguration.MAPPING_RULE_JSON
            : CapacitySchedulerConfiguration.QUEUE_MAPPING;
    try {
      rules = cs.getMappingRules();
    } catch (IOException | RuntimeException e) {
      throw new IOException(key + ": " + e.getMessage(), e);
    }
    if (rules == null || rules.isEmpty()) {
      return null;
    }
    Validation validation = new Validation(file);
    for (MappingRule rule : rules) {
      try {
        rule.validate(validation);
      } catch (YarnException e) {
        throw new IOException(key + ": the rule " + rule + " is invalid: " + e.getMessage()
            + " (CapacityScheduler refuses it at start too)", e);
      }
    }
    return new QueueMappingRule(Collections.unmodifiableList(new ArrayList<>(rules)),
        cs.getOverrideWithQueueMappings(), Groups.getUserToGroupsMappingService(conf), file);
  }

  @Override
  public boolean initialize(ResourceScheduler scheduler) {
    return true;
  }

  @Override
  public String getName() {
    return "LocusQueueMappings";
  }

  /**
   * The mapped queue for {@code user}'s submission, or null when no rule applies (the queue it
   * named stands).
   *
   * @throws YarnException when a rule rejects the submission
   */
  @Override
  public ApplicationPlacementContext getPlacementForApp(ApplicationSubmissionContext asc,
      String user) throws YarnException {
    String named = asc.getQueue();
    if (!override && named != null && !named.isEmpty()
        && !YarnConfiguration.DEFAULT_QUEUE_NAME.equals(named)) {
      return null;
    }
    String queue = place(asc, user);
    if (queue == null) {
      return null;
    }
    return new ApplicationPlacementContext(queue);
  }

  /** The full path the first rule that decides places the submission in, or null for none. */
  private String place(ApplicationSubmissionContext asc, String user) throws YarnException {
    VariableContext variables = variables(asc, user);
    for (MappingRule rule : rules) {
      MappingRuleResult result = rule.evaluate(variables);
      if (result.getResult() == MappingRuleResultType.PLACE) {
        try {
          return placeable(result.getQueue(), result.isCreateAllowed());
        } catch (YarnException e) {
          LOG.info("Cannot place {}'s application in {} by the rule {}: {}; the rule's fallback"
              + " applies", user, result.getQueue(), rule, e.getMessage());
          result = rule.getFallback();
        }
      }
      switch (result.getResult()) {
        case PLACE:
          return placeable(result.getQueue(), result.isCreateAllowed());
        case PLACE_TO_DEFAULT:
          try {
            return placeable(variables.replacePathVariables("%default"), false);
          } catch (YarnException e) {
            LOG.info("Rejecting {}'s application: the default queue of the rule {}: {}", user,
                rule, e.getMessage());
            throw rejected();
          }
        case REJECT:
          LOG.info("Rejecting {}'s application by the rule {}", user, rule);
          throw rejected();
        default:
          // SKIP: the next rule.
      }
    }
    return null;
  }

  /** CapacityScheduler's words; the rule stays in the RM's log, not the client's. */
  private static YarnException rejected() {
    return new YarnException(
        "Application submission have been rejected by a mapping rule. Please see the logs for"
            + " details");
  }

  private VariableContext variables(ApplicationSubmissionContext asc, String user) {
    VariableContext v = new VariableContext();
    String cleaned = clean(user);
    if (!user.equals(cleaned)) {
      v.putOriginal("%user", user);
    }
    v.put("%user", cleaned);
    // The RM names default for a submission that names no queue; a rule placing in
    // %specified then finds an empty path and takes its fallback.
    String named = asc.getQueue();
    v.put("%specified", named == null || named.equals(YarnConfiguration.DEFAULT_QUEUE_NAME)
        ? "" : named);
    v.put("%application", asc.getApplicationName());
    v.put("%default", DEFAULT_PATH);
    Set<String> all;
    try {
      all = groups.getGroupsSet(user);
    } catch (IOException e) {
      all = Collections.emptySet();
    }
    if (all.isEmpty()) {
      // As CapacityScheduler: no primary group set, so a rule naming it finds no queue.
      v.put(SECONDARY_GROUP, "");
    } else {
      Iterator<String> it = all.iterator();
      v.put("%primary_group", clean(it.next()));
      List<String> secondary = new ArrayList<>();
      while (it.hasNext()) {
        secondary.add(clean(it.next()));
      }
      if (secondary.isEmpty()) {
        v.put(SECONDARY_GROUP, "");
      } else {
        v.putConditional(SECONDARY_GROUP, new SecondaryGroup(queues, secondary));
      }
    }
    v.putExtraDataset("groups", all);
    v.setImmutables(new HashSet<>(IMMUTABLE));
    return v;
  }

  /** A dot in a user or group name would split the queue path: CapacityScheduler's escape. */
  private static String clean(String name) {
    return name.replace(".", "_dot_");
  }

  /**
   * The full path of the leaf {@code queue} names, checked as CapacityScheduler checks a rule's
   * placement: a path without empty parts whose first part is a queue; the queue a leaf, or one
   * its parent (or, for a parent yet to be created, its grandparent) may create when the rule
   * allows creation; a bare name only as an existing leaf.
   *
   * @throws YarnException saying why not
   */
  private String placeable(String queue, boolean createAllowed) throws YarnException {
    if (queue == null || queue.isEmpty() || Arrays.asList(queue.split("\\.", -1))
        .contains("")) {
      throw new YarnException("Invalid path returned by rule: '" + queue + "'");
    }
    int dot = queue.lastIndexOf('.');
    String path;
    if (dot < 0) {
      path = queues.find(queue);
      if (path == null) {
        throw new YarnException("Queue '" + queue + "' specified in mapping rule "
            + (queues.ambiguous(queue) ? "is ambiguous" : "does not exist."));
      }
    } else {
      path = rootNormalised(queues, queue);
      switch (creation(queues, path)) {
        case EXISTS:
          break;
        case CREATABLE:
          if (!createAllowed) {
            throw new YarnException("Mapping rule doesn't allow auto-creation of the queue '"
                + path + "'.");
          }
          break;
        default:
          throw new YarnException("Mapping rule specified a parent queue '"
              + queue.substring(0, dot) + "', but it is not a dynamic parent queue, and no"
              + " queue exists with name '" + queue.substring(dot + 1) + "' under it.");
      }
    }
    if (queues.paths().contains(path) && !queues.isLeaf(path)) {
      throw new YarnException("Mapping rule returned a non-leaf queue '" + path
          + "', cannot place application in it.");
    }
    return path;
  }

  /** {@code path} with its first part replaced by that queue's full path. */
  private static String rootNormalised(QueueFile queues, String path) throws YarnException {
    int dot = path.indexOf('.');
    String first = dot < 0 ? path : path.substring(0, dot);
    String full = queues.find(first);
    if (full == null) {
      throw new YarnException("Path root '" + first + "' "
          + (queues.ambiguous(first) ? "is ambiguous" : "does not exist") + ". Path '" + path
          + "' is invalid");
    }
    return dot < 0 ? full : full + path.substring(dot);
  }

  private enum Creation { EXISTS, CREATABLE, NOT }

  /** Whether the queue at the full {@code path} exists, may be created, or neither. */
  private static Creation creation(QueueFile queues, String path) {
    if (queues.paths().contains(path)) {
      return Creation.EXISTS;
    }
    int dot = path.lastIndexOf('.');
    if (dot < 0) {
      return Creation.NOT;
    }
    String parent = path.substring(0, dot);
    if (queues.paths().contains(parent)) {
      return queues.createsChildren(parent) ? Creation.CREATABLE : Creation.NOT;
    }
    int up = parent.lastIndexOf('.');
    String grandParent = up < 0 ? null : parent.substring(0, up);
    // Only a flexible parent creates a parent on the way.
    return grandParent != null && queues.paths().contains(grandParent)
        && queues.createsChildren(grandParent) && !queues.isManaged(grandParent)
        ? Creation.CREATABLE : Creation.NOT;
  }

  /**
   * {@code %secondary_group}: the first of the user's groups after the primary for which a
   * queue of that name stands where the variable does, under the path before it
   * (CapacityScheduler's SecondaryGroupVariable); empty for none.
   */
  private static final class SecondaryGroup implements MappingRuleConditionalVariable {
    private final QueueFile queues;
    private final List<String> candidates;

    SecondaryGroup(QueueFile queues, List<String> candidates) {
      this.queues = queues;
      this.candidates = candidates;
    }

    @Override
    public String evaluateInPath(String[] parts, int currentIndex) {
      StringBuilder prefix = new StringBuilder();
      for (int i = 0; i < currentIndex; i++) {
        prefix.append(parts[i]).append('.');
      }
      for (String group : candidates) {
        String name = prefix + group;
        if (queues.find(name) != null) {
          return group;
        }
      }
      return "";
    }

    @Override
    public String toString() {
      return "SecondaryGroup" + candidates;
    }
  }

  /**
   * The check of every rule at start, with CapacityScheduler's rules
   * (MappingRuleValidationContextImpl) against the file's queues: a queue path without
   * variables must be a leaf or one its parent may create; one with variables must start with
   * a parent that exists (not a leaf) or one a dynamic parent may create.
   */
  private static final class Validation implements MappingRuleValidationContext {
    private final QueueFile queues;
    private final Set<String> known = new HashSet<>();
    private final Set<String> immutable = new HashSet<>();

    Validation(QueueFile queues) {
      this.queues = queues;
      known.addAll(IMMUTABLE);
      immutable.addAll(IMMUTABLE);
      known.add("%default");
    }

    @Override
    public boolean validateQueuePath(String queuePath) throws YarnException {
      if (queuePath == null || queuePath.isEmpty()) {
        throw new YarnException("Queue path is empty.");
      }
      return isPathStatic(queuePath) ? validateStatic(queuePath) : validateDynamic(queuePath);
    }

    private boolean validateStatic(String queuePath) throws YarnException {
      String path = rootNormalised(queues, queuePath);
      switch (creation(queues, path)) {
        case EXISTS:
          if (!queues.isLeaf(path)) {
            throw new YarnException("Target queue '" + queuePath
                + "' but it's not a leaf queue.");
          }
          return true;
        case CREATABLE:
          return true;
        default:
          int dot = queuePath.lastIndexOf('.');
          throw new YarnException(dot < 0
              ? "Target queue does not exist and has no parent defined '" + queuePath + "'."
              : "Mapping rule specified a parent queue '" + queuePath.substring(0, dot)
                  + "', but it is not a dynamic parent queue, and no queue exists with name '"
                  + queuePath.substring(dot + 1) + "' under it.");
      }
    }

    private boolean validateDynamic(String queuePath) throws YarnException {
      String[] parts = queuePath.split("\\.");
      if (!isPathStatic(parts[0])) {
        return true;
      }
      StringBuilder fixed = new StringBuilder(parts[0]);
      String fixedParent = null;
      for (int i = 1; i < parts.length && isPathStatic(parts[i]); i++) {
        fixedParent = fixed.toString();
        fixed.append('.').append(parts[i]);
      }
      String path = rootNormalised(queues, fixed.toString());
      if (queues.paths().contains(path)) {
        if (queues.isLeaf(path)) {
          throw new YarnException("Queue path '" + queuePath + "' is invalid because '" + path
              + "' is a leaf queue, which can have no other queues under it.");
        }
        return true;
      }
      if (fixedParent != null) {
        String parent = rootNormalised(queues, fixedParent);
        if (queues.createsChildren(parent)) {
          return true;
        }
      }
      throw new YarnException("No eligible parent found on path '" + queuePath + "'.");
    }

    @Override
    public boolean isPathStatic(String queuePath) throws YarnException {
      for (String part : queuePath.split("\\.")) {
        if (part.isEmpty()) {
          throw new YarnException("Path segment cannot be empty '" + queuePath + "'.");
        }
        if (known.contains(part)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public void addVariable(String variable) throws YarnException {
      if (immutable.contains(variable)) {
        throw new YarnException("Variable '" + variable + "' is immutable cannot add to the"
            + " modified variable list.");
      }
      known.add(variable);
    }

    @Override
    public void addImmutableVariable(String variable) throws YarnException {
      if (known.contains(variable) && !immutable.contains(variable)) {
        throw new YarnException("Variable '" + variable + "' already added as a mutable"
            + " variable cannot set it to immutable.");
      }
      known.add(variable);
      immutable.add(variable);
    }

    @Override
    public Set<String> getVariables() {
      return Collections.unmodifiableSet(new HashSet<>(known));
    }
  }
}
