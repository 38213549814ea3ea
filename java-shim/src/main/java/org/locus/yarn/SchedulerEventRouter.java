package org.locus.yarn;

import java.util.Collections;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeLabelsUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.locus.yarn.metrics.LocusMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each scheduler event the RM's dispatcher hands {@link LocusScheduler#handle} to the
 * scheduler's handler for it (nodes, heartbeats, containers) or to {@link ApplicationLifecycle}
 * (applications and attempts). Runs on the dispatcher thread; failures go back to handle(),
 * which confines them to the event.
 */
final class SchedulerEventRouter {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final LocusScheduler scheduler;
  private final ApplicationLifecycle lifecycle;
  private final CoreLink link;
  private final RMContext rmContext;
  private final LocusMetrics metrics;

  SchedulerEventRouter(LocusScheduler scheduler, ApplicationLifecycle lifecycle, CoreLink link,
      RMContext rmContext, LocusMetrics metrics) {
    this.scheduler = scheduler;
    this.lifecycle = lifecycle;
    this.link = link;
    this.rmContext = rmContext;
    this.metrics = metrics;
  }

  void dispatch(SchedulerEvent event) {
    if (event.getType() != SchedulerEventType.NODE_UPDATE) {
      // Heartbeats are booked on locus-scheduler; those the RM sent before this event first.
      scheduler.bookkeepQueuedHeartbeats();
    }
    switch (event.getType()) {
      case NODE_ADDED: {
        NodeAddedSchedulerEvent e = (NodeAddedSchedulerEvent) event;
        scheduler.addNode(e.getAddedRMNode());
        scheduler.recoverContainersOnNode(e.getContainerReports(), e.getAddedRMNode());
        break;
      }
      case NODE_REMOVED:
        scheduler.removeNode(((NodeRemovedSchedulerEvent) event).getRemovedRMNode());
        break;
      case NODE_RESOURCE_UPDATE: {
        NodeResourceUpdateSchedulerEvent e = (NodeResourceUpdateSchedulerEvent) event;
        NodeId id = e.getRMNode().getNodeID();
        try {
          scheduler.updateNodeResource(e.getRMNode(), e.getResourceOption());
        } finally {
          // Whatever the RM now holds as the node's total reaches the core, even if the RM's
          // update failed part-way (handle() then has the core resynchronised).
          FiCaSchedulerNode node = scheduler.getSchedulerNode(id);
          if (node != null) {
            link.send(Collections.singletonList(CoreMessages.nodeResourceUpdated(
                node.getNodeID(), node.getTotalResource())), Collections.emptySet());
          }
        }
        break;
      }
      case NODE_UPDATE: {
        long start = System.nanoTime();
        scheduler.nodeUpdate(((NodeUpdateSchedulerEvent) event).getRMNode(), start);
        metrics.heartbeatHandled(System.nanoTime() - start);
        break;
      }
      case APP_ADDED: {
        AppAddedSchedulerEvent e = (AppAddedSchedulerEvent) event;
        lifecycle.addApplication(e.getApplicationId(), e.getQueue(), e.getUser(),
            e.getIsAppRecovering(), e.isUnmanagedAM(), e.getPlacementContext() != null);
        break;
      }
      case APP_REMOVED: {
        AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
        lifecycle.doneApplication(e.getApplicationID(), e.getFinalState());
        break;
      }
      case APP_ATTEMPT_ADDED: {
        AppAttemptAddedSchedulerEvent e = (AppAttemptAddedSchedulerEvent) event;
        lifecycle.addApplicationAttempt(e.getApplicationAttemptId(),
            e.getTransferStateFromPreviousAttempt(), e.getIsAttemptRecovering());
        break;
      }
      case APP_ATTEMPT_REMOVED: {
        AppAttemptRemovedSchedulerEvent e = (AppAttemptRemovedSchedulerEvent) event;
        lifecycle.doneApplicationAttempt(e.getApplicationAttemptID(), e.getFinalAttemptState(),
            e.getKeepContainersAcrossAppAttempts());
        break;
      }
      case CONTAINER_EXPIRED: {
        ContainerId id = ((ContainerExpiredSchedulerEvent) event).getContainerId();
        scheduler.completedContainer(scheduler.getRMContainer(id),
            SchedulerUtils.createAbnormalContainerStatus(id, SchedulerUtils.EXPIRED_CONTAINER),
            RMContainerEventType.EXPIRE);
        break;
      }
      case RELEASE_CONTAINER: {
        RMContainer c = ((ReleaseContainerEvent) event).getContainer();
        scheduler.completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
            c.getContainerId(), SchedulerUtils.RELEASED_CONTAINER), RMContainerEventType.RELEASED);
        break;
      }
      case MARK_CONTAINER_FOR_KILLABLE: {
        // The RM's own verdict (a node shrunk below what runs on it and its overcommit
        // timeout passed) or a preemption whose wait is over: the container must go.
        RMContainer c = ((ContainerPreemptEvent) event).getContainer();
        // A kill that lost the race with the container's own end takes nothing.
        boolean live = scheduler.getRMContainer(c.getContainerId()) != null;
        scheduler.completedContainer(c, SchedulerUtils.createPreemptedContainerStatus(
            c.getContainerId(), SchedulerUtils.PREEMPTED_CONTAINER), RMContainerEventType.KILL);
        if (live) {
          metrics.containerPreempted();
        }
        break;
      }
      case MARK_CONTAINER_FOR_PREEMPTION: {
        // Locus's preemption policy (or any monitor) chose the container: its AM hears of it
        // in its next allocate response, before any kill.
        ContainerPreemptEvent e = (ContainerPreemptEvent) event;
        FiCaSchedulerApp app = scheduler.getApplicationAttempt(e.getAppId());
        ContainerId id = e.getContainer().getContainerId();
        // The core marks a container once per selection (a mark not renewed is forgotten and
        // may come again); one that ended meanwhile takes nothing.
        if (app != null && scheduler.getRMContainer(id) != null) {
          app.markContainerForPreemption(id);
          metrics.containerMarkedForPreemption();
        }
        break;
      }
      case NODE_LABELS_UPDATE:
        scheduler.updateNodeLabels(
            ((NodeLabelsUpdateSchedulerEvent) event).getUpdatedNodeToLabels());
        break;
      default:
        // Node attributes, reservations and dynamic queue
        // management are not supported (queues come from the locus.* settings only); new
        // event types of a later Hadoop land here too rather than failing the dispatcher.
        LOG.warn("LocusScheduler ignores scheduler event {}", event.getType());
    }
  }
}
