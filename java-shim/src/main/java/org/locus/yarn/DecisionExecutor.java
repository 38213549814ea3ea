package org.locus.yarn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
 * relax_locality, blacklists), committed only with the capability the core decided and only
 * while the queue limits it decided under still hold (as CapacityScheduler's
 * {@code AbstractCSQueue.accept} and {@code LeafQueue.accept} re-check a proposal), and
 * whatever cannot be done is reported back, never dropped.
 */
final class DecisionExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(DecisionExecutor.class);

  /** What the executor needs from the scheduler; kept narrow so the checks can be read alone. */
  interface Cluster {
    LocusAppAttempt currentAttempt(ApplicationId app);

    FiCaSchedulerNode node(NodeId node);

    /** Called after a container was created on {@code node} (usage, headroom). */
    void containerCreated(RMContainer container);

    /** Sends one events frame; the caller holds every lock in {@code heldApps}. */
    void send(EventsFrame events, Set<LocusAppAttempt> heldApps);

    /** Sends {@code attempt}'s whole table; the caller holds its lock. */
    void sendSnapshot(LocusAppAttempt attempt);
  }

  private final Cluster cluster;

  DecisionExecutor(Cluster cluster) {
    this.cluster = cluster;
  }

  /** A decision of the core's answer, with the attempt it names (if any). */
  static final class Planned {
    final DecisionsFrame.Decision d;
    /** The node object the core was offered for this decision (null: none was). */
    final FiCaSchedulerNode offered;
    LocusAppAttempt attempt;

    Planned(DecisionsFrame.Decision d, FiCaSchedulerNode offered) {
      this.d = d;
      this.offered = offered;
    }
  }

  /**
   * Executes every decision of one answer and reports the outcome in one events frame: a
   * {@code container_allocated} per container, a {@code decision_rejected} per decision not
   * (fully) executed, and an {@code asks_digest} per application. Caller holds the scheduler
   * lock. {@code offered}: the offer's node objects by id. A decision is executed only on the
   * very node object it was made for: a node that left and re-registered under the same id
   * since the core decided is a new object, and the core gave the decision's containers back
   * when the node left; creating them would count them twice.
   *
   * @return the containers created
   */
  int run(DecisionsFrame.Answer answer, Map<NodeId, FiCaSchedulerNode> offered) {
    if (answer == null || answer.decisions.isEmpty()) {
      return 0;
    }
    List<Planned> planned = new ArrayList<>(answer.decisions.size());
    Set<LocusAppAttempt> apps = new LinkedHashSet<>();
    for (DecisionsFrame.Decision d : answer.decisions) {
      Planned p = new Planned(d, offered.get(d.node));
      p.attempt = resolveAttempt(d.app);
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
    EventsFrame events = new EventsFrame();
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
      List<LocusAppAttempt> owed = new ArrayList<>();
      for (LocusAppAttempt attempt : apps) {
        if (attempt.asksCheck(events)) {
          owed.add(attempt);
        }
      }
      if (!events.isEmpty()) {
        cluster.send(events, apps);
      }
      // After the containers: the RM's tables already count them.
      for (LocusAppAttempt attempt : owed) {
        cluster.sendSnapshot(attempt);
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
  private int execute(Planned p, EventsFrame events) {
    DecisionsFrame.Decision d = p.d;
    String problem = precheck(p);
    if (problem != null) {
      events.decisionRejected(d, 0, problem);
      return 0;
    }
    LocusAppAttempt attempt = p.attempt;
    FiCaSchedulerNode node = cluster.node(d.node);
    NodeType type = d.locality;
    SchedulerRequestKey key =
        new SchedulerRequestKey(Priority.newInstance(d.priority), d.allocationRequestId, null);

    int executed = 0;
    String stopped = null;
    LocusQueue queue = attempt.getQueue() instanceof LocusQueue
        ? (LocusQueue) attempt.getQueue() : null;
    Resource[] ancestorsUsed = ancestorsUsed(queue, d);
    while (executed < d.count) {
      stopped = whyNot(attempt, node, key, type, d);
      if (stopped != null) {
        break;
      }
      // The row the core decided from: the capability of a container at this locality.
      Resource capability = attempt.getPendingAsk(key, d.resourceName)
          .getPerAllocationResource();
      if (capability.getMemorySize() != d.memoryMb || capability.getVirtualCores() != d.vcores
          || !ResourceTypes.sameExtras(capability, d.extra)) {
        // Re-asked while the decision was in flight: the core decides again from the new ask,
        // under its queue limits, rather than the commit sizing a container it never weighed.
        stopped = "the ask at priority " + d.priority + " allocation_request_id "
            + d.allocationRequestId + " for " + d.resourceName + " now asks for " + capability
            + "; the core decided <memory:" + d.memoryMb + ", vCores:" + d.vcores
            + (d.extra.length == 0 ? "" : ", extra:" + Arrays.toString(d.extra)) + ">";
        break;
      }
      if (!Resources.fitsIn(capability, node.getUnallocatedResource())) {
        stopped = "node " + d.nodeName() + " has " + node.getUnallocatedResource()
            + " unallocated, the ask at priority " + d.priority + " needs " + capability;
        break;
      }
      stopped = overLimit(queue, attempt.getUser(), d, ancestorsUsed, capability);
      if (stopped != null) {
        break;
      }
      ContainerId id = BuilderUtils.newContainerId(attempt.getApplicationAttemptId(),
          attempt.getNewContainerId());
      Container container = BuilderUtils.newContainer(id, node.getNodeID(),
          node.getRMNode().getHttpAddress(), capability, key.getPriority(), null,
          key.getAllocationRequestId());
      RMContainer rmContainer = attempt.allocate(type, node, key, container);
      if (rmContainer == null) {
        stopped = "application " + d.app + " withdrew the ask at priority " + d.priority
            + " allocation_request_id " + d.allocationRequestId + " at " + d.resourceName;
        break;
      }
      node.allocateContainer(rmContainer);
      cluster.containerCreated(rmContainer);
      events.containerAllocated(id, node.getNodeID(), d.priority, key.getAllocationRequestId(),
          capability, type, false);
      for (Resource used : ancestorsUsed) {
        Resources.addTo(used, capability);
      }
      executed++;
    }
    if (executed < d.count) {
      LOG.info("Decision {} executed {} of {}: {}", d, executed, d.count, stopped);
      events.decisionRejected(d, executed, stopped);
    }
    return executed;
  }

  private static boolean hasLimits(DecisionsFrame.Decision d) {
    return d.queueMaxMb >= 0 || d.userLimitMb >= 0 || d.ancestorMaxMb.length > 0
        || d.typeMaxima.length > 0;
  }

  /**
   * What the parent queues the decision names hold now, the leaf's parent first (the
   * decision's containers are added as they are created); empty when it names none.
   */
  private static Resource[] ancestorsUsed(LocusQueue queue, DecisionsFrame.Decision d) {
    Resource[] used = new Resource[d.ancestorMaxMb.length];
    LocusParentQueue p = queue == null ? null : queue.above();
    for (int i = 0; i < used.length; i++, p = p == null ? null : p.above()) {
      used[i] = p == null ? Resources.createResource(0, 0) : p.used();
    }
    return used;
  }

  /**
   * Null while one more container of {@code capability} keeps the leaf and every parent queue
   * at or under the maximum the core decided under (in memory, and under
   * DominantResourceCalculator in every type), and the user holds no more than the user limit
   * before it (the core's own rule for a user's room, and {@code LeafQueue.accept}'s); else
   * why not. The figures are the core's: the commit applies no formula of its own.
   */
  private static String overLimit(LocusQueue queue, String user, DecisionsFrame.Decision d,
      Resource[] ancestorsUsed, Resource capability) {
    if (queue == null || !hasLimits(d)) {
      return null;
    }
    long mb = capability.getMemorySize();
    if (d.queueMaxMb >= 0) {
      long used = queue.getUsed().getMemorySize();
      if (used + mb > d.queueMaxMb) {
        return "queue " + queue.path() + " holds " + used + " MB; a container of " + mb
            + " MB would take it past its maximum-capacity of " + d.queueMaxMb + " MB";
      }
    }
    String types = overTypeMaximum("queue " + queue.path(), queue.getUsed(), capability, d, 0);
    if (types != null) {
      return types;
    }
    LocusParentQueue p = queue.above();
    for (int i = 0; i < d.ancestorMaxMb.length; i++, p = p.above()) {
      if (p == null) {
        return "queue " + queue.path() + " no longer has the " + d.ancestorMaxMb.length
            + " parent queues the core decided under";
      }
      long usedMb = ancestorsUsed[i].getMemorySize();
      if (usedMb + mb > d.ancestorMaxMb[i]) {
        return "parent queue " + p.path() + " holds " + usedMb + " MB; a container"
            + " of " + mb + " MB would take it past its maximum-capacity of "
            + d.ancestorMaxMb[i] + " MB";
      }
      types = overTypeMaximum("parent queue " + p.path(), ancestorsUsed[i], capability, d,
          i + 1);
      if (types != null) {
        return types;
      }
    }
    if (p != null) {
      return "queue " + queue.path() + " has more parent queues than the "
          + d.ancestorMaxMb.length + " the core decided under";
    }
    if (d.userLimitMb >= 0) {
      long used = queue.userUsedMb(user);
      if (used > d.userLimitMb) {
        return "user " + user + " holds " + used + " MB in queue " + queue.path()
            + ", over the user limit of " + d.userLimitMb + " MB";
      }
    }
    return null;
  }

  /**
   * Null while {@code used} with one more container of {@code capability} stays within the
   * {@code q}-th queue's maxima of {@link DecisionsFrame.Decision#typeMaxima} (none sent for
   * it: nothing to check); else why not.
   */
  private static String overTypeMaximum(String what, Resource used, Resource capability,
      DecisionsFrame.Decision d, int q) {
    int at = q * DecisionsFrame.TYPE_STRIDE;
    if (at + DecisionsFrame.TYPE_STRIDE > d.typeMaxima.length) {
      return null;
    }
    for (int t = 0; t < DecisionsFrame.TYPE_STRIDE; t++) {
      long held = amount(used, t);
      long more = amount(capability, t);
      long max = d.typeMaxima[at + t];
      // As CapacityScheduler's commit: a queue already past a maximum in one type (the cluster
      // shrank) takes no container, whatever the container holds of that type.
      if (held + more > max) {
        String type = t == 0 ? "vcores" : typeName(t - 1);
        return what + " holds " + held + " " + type + "; a container of " + more + " would take"
            + " it past its maximum of " + max + " " + type;
      }
    }
    return null;
  }

  /** {@code r}'s vcores ({@code t} 0) or its {@code t - 1}-th type beyond them. */
  private static long amount(Resource r, int t) {
    if (t == 0) {
      return Math.max(0, r.getVirtualCores());
    }
    return t - 1 < ResourceTypes.extraCount(r) ? ResourceTypes.extra(r, t - 1) : 0L;
  }

  private static String typeName(int i) {
    List<String> names = ResourceTypes.extraTypes();
    return i < names.size() ? names.get(i) : "resource type " + (i + 2);
  }

  /** Checks that do not change while the decision executes; null when all pass. */
  private String precheck(Planned p) {
    DecisionsFrame.Decision d = p.d;
    if (d.count < 1) {
      return "count " + d.count + " is not a positive number of containers";
    }
    if (p.attempt == null) {
      return "application " + d.app + " has no running attempt in the ResourceManager";
    }
    if (p.attempt.isStopped()) {
      return "attempt " + p.attempt.getApplicationAttemptId() + " has stopped";
    }
    FiCaSchedulerNode node = cluster.node(d.node);
    if (node == null) {
      return "node " + d.nodeName() + " is not registered with the ResourceManager";
    }
    if (p.offered != node) {
      return "node " + d.nodeName() + " re-registered with the ResourceManager since the core"
          + " decided";
    }
    String expected = expectedResourceName(d.locality, node);
    if (!Objects.equals(expected, d.resourceName)) {
      return "resource_name " + d.resourceName + " does not fit a " + d.localityName()
          + " container on node " + d.nodeName() + " (expected " + expected + ")";
    }
    if (SchedulerAppUtils.isPlaceBlacklisted(p.attempt, node, LOG)) {
      return "node " + d.nodeName() + " is blacklisted for application " + d.app;
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
      SchedulerRequestKey key, NodeType type, DecisionsFrame.Decision p) {
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
      return "application " + p.app + " has no outstanding " + p.localityName() + " ask at "
          + at + " for " + p.resourceName + " on node " + p.nodeName();
    }
    String wanted = attempt.getAppPlacementAllocator(key) == null ? null
        : attempt.getAppPlacementAllocator(key).getPrimaryRequestedNodePartition();
    // A default-partition ask may borrow a non-exclusive partition's node, as
    // CapacityScheduler lends it; any other mismatch is refused.
    boolean lent = wanted != null && wanted.isEmpty() && !node.getPartition().isEmpty()
        && !LabelPolicy.isExclusive(attempt.rmContext(), node.getPartition());
    if (wanted != null && !wanted.equals(node.getPartition()) && !lent) {
      return "node " + p.nodeName() + " is in partition '" + node.getPartition()
          + "' but the ask at " + at + " wants partition '" + wanted + "'";
    }
    return null;
  }
}
