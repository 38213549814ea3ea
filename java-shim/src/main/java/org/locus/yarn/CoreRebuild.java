package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * What an empty core must be told to take over from one that failed, read from the RM's own
 * bookkeeping: every node with its total resource, every application (queue, user, name, type,
 * tags) with its current attempt (a stopped one too: it may keep containers for the next), every
 * live container as a recovered one (as after an RM restart: the core must not count it as a new
 * placement), and each running attempt's outstanding asks.
 */
final class CoreRebuild {
  private CoreRebuild() {
  }

  /**
   * The replay: the RM's bookkeeping as one batch of events, then the running attempts whose
   * tables follow it, each as the binary snapshot every other snapshot goes as
   * ({@link CoreLink#sendSnapshot}), so the row limit bounds it and a table over it is its
   * application's refusal, not a refused event of the rebuild.
   */
  static final class Replay {
    final List<ObjectNode> events;
    final List<LocusAppAttempt> asksOf;

    Replay(List<ObjectNode> events, List<LocusAppAttempt> asksOf) {
      this.events = events;
      this.asksOf = asksOf;
    }
  }

  /** {@code app_added} for an application, with what the RM knows of its submission. */
  static ObjectNode appAdded(RMContext rmContext, ApplicationId appId, String queue,
      String user) {
    RMApp rmApp = rmContext.getRMApps().get(appId);
    return CoreMessages.appAdded(appId, queue, user,
        rmApp == null ? "" : rmApp.getName(),
        rmApp == null ? "" : rmApp.getApplicationType(),
        rmApp == null ? Collections.emptySet() : rmApp.getApplicationTags(),
        rmApp == null ? 0L : rmApp.getSubmitTime(), ApplicationPriorities.of(rmApp));
  }

  /**
   * The replay, in the order the core needs it (nodes before the containers on them, an
   * application before its attempt, containers before the asks snapshots, which follow the
   * events). Caller holds the scheduler lock, which it keeps until the snapshots are sent.
   */
  static Replay replay(Collection<FiCaSchedulerNode> nodes,
      Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications,
      RMContext rmContext) {
    List<ObjectNode> events = new ArrayList<>();
    List<LocusAppAttempt> asksOf = new ArrayList<>();
    for (FiCaSchedulerNode n : nodes) {
      events.add(CoreMessages.nodeAdded(n.getNodeID(), n.getNodeName(), n.getRackName(),
          n.getTotalResource()));
      if (!n.getPartition().isEmpty()) {
        events.add(CoreMessages.nodePartition(n.getNodeID(), n.getPartition(),
            LabelPolicy.isExclusive(rmContext, n.getPartition())));
      }
    }
    for (Map.Entry<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> e
        : applications.entrySet()) {
      SchedulerApplication<FiCaSchedulerApp> app = e.getValue();
      ObjectNode added = appAdded(rmContext, e.getKey(), app.getQueue().getQueueName(),
          app.getUser()).put("recovered", true);
      if (app.getPriority() != null) {
        // The scheduler's priority is the newest (the RM's copy follows an update).
        added.put("priority", app.getPriority().getPriority());
      }
      events.add(added);
      FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
      if (attempt == null) {
        continue;
      }
      events.add(CoreMessages.attemptAdded(attempt.getApplicationAttemptId()));
      for (RMContainer rc : attempt.getLiveContainers()) {
        Container c = rc.getContainer();
        events.add(CoreMessages.containerAllocated(c.getId(), c.getNodeId(),
            c.getPriority().getPriority(), c.getAllocationRequestId(),
            rc.getAllocatedResource(), NodeType.OFF_SWITCH, true));
      }
      if (attempt.isStopped()) {
        // Between the attempts of a work-preserving AM restart: its running containers stay
        // live for the next attempt and hold their nodes' resources, so the new core gets them,
        // then the removal the old core got, in the order the RM sent them.
        events.add(CoreMessages.attemptRemoved(attempt.getApplicationAttemptId()));
        continue;
      }
      if (attempt instanceof LocusAppAttempt) {
        LocusAppAttempt a = (LocusAppAttempt) attempt;
        if (a.hasBlacklist()) {
          events.add(a.blacklistEvent());
        }
        com.fasterxml.jackson.databind.node.ObjectNode partitions = a.partitionsEvent();
        if (partitions != null) {
          events.add(partitions);
        }
        asksOf.add(a);
      }
    }
    return new Replay(events, asksOf);
  }
}
