package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerAppUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.server.utils.BuilderUtils;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the core's decisions into containers. The core decides from a copy of the RM's state
 * that can be a heartbeat old, so every decision is re-checked here against the RM's own
 * bookkeeping (node's unallocated resource, the app's outstanding asks at that resource name,
 * relax_locality, blacklists) and whatever cannot be done is reported back, never dropped.
 */
final class DecisionExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(DecisionExecutor.class);

  /** What the executor needs from the scheduler; kept narrow so the checks can be read alone. */
  interface Cluster {
    LocusAppAttempt currentAttempt(ApplicationId app);

    FiCaSchedulerNode node(NodeId node);

    /** Called after a container was created on {@code node} (usage, headroom). */
    void containerCreated(RMContainer container);

    /** Sends one {@code events} call; the caller holds every lock in {@code heldApps}. */
    void send(List<ObjectNode> events, Set<LocusAppAttempt> heldApps);
  }

  private final Cluster cluster;

  DecisionExecutor(Cluster cluster) {
    this.cluster = cluster;
  }

  /** A decision read from the core's response, with the attempt it names (if any). */
  static final class Planned {
    final JsonNode raw;
    final String app;
    final int priority;
    final long allocationRequestId;
    final String resourceName;
    final String node;
    final String locality;
    final int count;
    LocusAppAttempt attempt;

    Planned(JsonNode raw) {
      this.raw = raw;
      this.app = text(raw, "app");
      this.priority = raw.path("priority").asInt(Integer.MIN_VALUE);
      this.allocationRequestId = raw.path("allocation_request_id").asLong(0L);
      this.resourceName = text(raw, "resource_name");
      this.node = text(raw, "node");
      this.locality = text(raw, "locality");
      this.count = raw.path("count").asInt(0);
    }

    private static String text(JsonNode raw, String field) {
      JsonNode v = raw.get(field);
      return v == null || v.isNull() ? null : v.asText();
    }
  }

  /**
   * Executes every decision of one heartbeat response and reports the outcome in one
   * {@code events} call: a {@code container_allocated} per container, a
   * {@code decision_rejected} per decision not (fully) executed, and an {@code asks_digest}
   * per application. Caller holds the scheduler lock.
   *
   * @return the containers created
   */
  int run(JsonNode response) {
    JsonNode decisions = response == null ? null : response.get("decisions");
    if (decisions == null || !decisions.isArray()) {
      LOG.error("Locus core answered a heartbeat without a decisions array: {}", response);
      return 0;
    }
    if (decisions.size() == 0) {
      return 0;
    }
    List<Planned> planned = new ArrayList<>();
    Set<LocusAppAttempt> apps = new LinkedHashSet<>();
    for (JsonNode raw : decisions) {
      Planned p = new Planned(raw);
      p.attempt = resolveAttempt(p.app);
      if (p.attempt != null) {
        apps.add(p.attempt);
      }
      planned.add(p);
    }
    List<LocusAppAttempt> lockOrder = new ArrayList<>(apps);
    // One global order over application locks: no other thread holds two of them, but a
    // fixed order keeps it deadlock-free even if one ever does.
    lockOrder.sort(Comparator.comparing(LocusAppAttempt::getApplicationAttemptId));
    int[] created = new int[1];
    holdingLocks(lockOrder, 0, () -> created[0] = executeLocked(planned, apps));
    return created[0];
  }

  private static void holdingLocks(List<LocusAppAttempt> locks, int i, Runnable body) {
    if (i == locks.size()) {
      body.run();
      return;
    }
    synchronized (locks.get(i)) {
      holdingLocks(locks, i + 1, body);
    }
  }

  private int executeLocked(List<Planned> planned, Set<LocusAppAttempt> apps) {
    List<ObjectNode> events = new ArrayList<>();
    int created = 0;
    try {
      for (Planned p : planned) {
        created += execute(p, events);
      }
      return created;
    } finally {
      // Should the RM's bookkeeping throw half way, the containers already created must still
      // reach the core: it would otherwise never learn that their resource is taken. The
      // decisions not reached stay in flight in the core and expire there.
      // The core took the executed containers off its asks when it decided: only the digest
      // goes over, and a drift it finds costs one snapshot.
      for (LocusAppAttempt attempt : apps) {
        ObjectNode check = attempt.asksCheck();
        if (check != null) {
          events.add(check);
        }
      }
      if (!events.isEmpty()) {
        cluster.send(events, apps);
      }
    }
  }

  private LocusAppAttempt resolveAttempt(String app) {
    if (app == null) {
      return null;
    }
    try {
      return cluster.currentAttempt(ApplicationId.fromString(app));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Executes one decision; adds its events and returns the containers created. */
  private int execute(Planned p, List<ObjectNode> events) {
    String problem = precheck(p);
    if (problem != null) {
      events.add(CoreMessages.decisionRejected(p.raw, 0, problem));
      return 0;
    }
    LocusAppAttempt attempt = p.attempt;
    FiCaSchedulerNode node = cluster.node(NodeId.fromString(p.node));
    NodeType type = CoreMessages.nodeType(p.locality);
    SchedulerRequestKey key =
        new SchedulerRequestKey(Priority.newInstance(p.priority), p.allocationRequestId, null);

    int executed = 0;
    String stopped = null;
    while (executed < p.count) {
      stopped = whyNot(attempt, node, key, type, p);
      if (stopped != null) {
        break;
      }
      Resource capability = attempt.getPendingAsk(key, ResourceRequest.ANY)
          .getPerAllocationResource();
      if (!Resources.fitsIn(capability, node.getUnallocatedResource())) {
        stopped = "node " + p.node + " has " + node.getUnallocatedResource()
            + " unallocated, the ask at priority " + p.priority + " needs " + capability;
        break;
      }
      ContainerId id = BuilderUtils.newContainerId(attempt.getApplicationAttemptId(),
          attempt.getNewContainerId());
      Container container = BuilderUtils.newContainer(id, node.getNodeID(),
          node.getRMNode().getHttpAddress(), capability, key.getPriority(), null,
          key.getAllocationRequestId());
      RMContainer rmContainer = attempt.allocate(type, node, key, container);
      if (rmContainer == null) {
        stopped = "application " + p.app + " withdrew the ask at priority " + p.priority
            + " allocation_request_id " + p.allocationRequestId + " at " + p.resourceName;
        break;
      }
      node.allocateContainer(rmContainer);
      cluster.containerCreated(rmContainer);
      events.add(CoreMessages.containerAllocated(id, node.getNodeID(), p.priority,
          key.getAllocationRequestId(), capability, type, false));
      executed++;
    }
    if (executed < p.count) {
      LOG.info("Decision {} executed {} of {}: {}", p.raw, executed, p.count, stopped);
      events.add(CoreMessages.decisionRejected(p.raw, executed, stopped));
    }
    return executed;
  }

  /** Checks that do not change while the decision executes; null when all pass. */
  private String precheck(Planned p) {
    if (p.app == null || p.node == null || p.resourceName == null || p.locality == null
        || p.priority == Integer.MIN_VALUE) {
      return "decision lacks one of app, priority, resource_name, node, locality";
    }
    if (p.count < 1) {
      return "count " + p.count + " is not a positive number of containers";
    }
    NodeType type = CoreMessages.nodeType(p.locality);
    if (type == null) {
      return "locality '" + p.locality + "' is not node_local, rack_local or off_switch";
    }
    if (p.attempt == null) {
      return "application " + p.app + " has no running attempt in the ResourceManager";
    }
    if (p.attempt.isStopped()) {
      return "attempt " + p.attempt.getApplicationAttemptId() + " has stopped";
    }
    FiCaSchedulerNode node;
    try {
      node = cluster.node(NodeId.fromString(p.node));
    } catch (IllegalArgumentException e) {
      node = null;
    }
    if (node == null) {
      return "node " + p.node + " is not registered with the ResourceManager";
    }
    String expected = expectedResourceName(type, node);
    if (!Objects.equals(expected, p.resourceName)) {
      return "resource_name " + p.resourceName + " does not fit a " + p.locality
          + " container on node " + p.node + " (expected " + expected + ")";
    }
    if (SchedulerAppUtils.isPlaceBlacklisted(p.attempt, node, LOG)) {
      return "node " + p.node + " is blacklisted for application " + p.app;
    }
    return null;
  }

  static String expectedResourceName(NodeType type, FiCaSchedulerNode node) {
    switch (type) {
      case NODE_LOCAL:
        return node.getNodeName();
      case RACK_LOCAL:
        return node.getRackName();
      default:
        return ResourceRequest.ANY;
    }
  }

  /** Checks the ask before each container, as the previous one consumed part of it. */
  private static String whyNot(LocusAppAttempt attempt, FiCaSchedulerNode node,
      SchedulerRequestKey key, NodeType type, Planned p) {
    String at = "priority " + p.priority + " allocation_request_id " + p.allocationRequestId;
    PendingAsk any = attempt.getPendingAsk(key, ResourceRequest.ANY);
    if (any.getCount() <= 0) {
      return "application " + p.app + " has no outstanding ask at " + at;
    }
    // relax_locality=false on a rack (or on *) row means: not below that row's level.
    if (type == NodeType.RACK_LOCAL
        && !attempt.getAppSchedulingInfo().canDelayTo(key, node.getRackName())) {
      return "the ask at " + at + " forbids rack-local containers on " + node.getRackName()
          + " (relax_locality=false)";
    }
    if (type == NodeType.OFF_SWITCH
        && !attempt.getAppSchedulingInfo().canDelayTo(key, ResourceRequest.ANY)) {
      return "the ask at " + at + " forbids off-switch containers (relax_locality=false)";
    }
    if (!attempt.getAppSchedulingInfo().checkAllocation(type, node, key)) {
      return "application " + p.app + " has no outstanding " + p.locality + " ask at " + at
          + " for " + p.resourceName + " on node " + p.node;
    }
    String wanted = attempt.getAppPlacementAllocator(key) == null ? null
        : attempt.getAppPlacementAllocator(key).getPrimaryRequestedNodePartition();
    if (wanted != null && !wanted.equals(node.getPartition())) {
      return "node " + p.node + " is in partition '" + node.getPartition()
          + "' but the ask at " + at + " wants partition '" + wanted + "'";
    }
    return null;
  }
}
