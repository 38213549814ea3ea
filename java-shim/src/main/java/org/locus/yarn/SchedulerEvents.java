package org.locus.yarn;

import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;

/** What a scheduler event is about, for the one log line a failed event gets. */
final class SchedulerEvents {
  private SchedulerEvents() {
  }

  /** "node h1:1234", "application application_1_0001", ...; never throws. */
  static String subject(SchedulerEvent e) {
    try {
      if (e instanceof NodeAddedSchedulerEvent) {
        return node(((NodeAddedSchedulerEvent) e).getAddedRMNode());
      }
      if (e instanceof NodeRemovedSchedulerEvent) {
        return node(((NodeRemovedSchedulerEvent) e).getRemovedRMNode());
      }
      if (e instanceof NodeUpdateSchedulerEvent) {
        return node(((NodeUpdateSchedulerEvent) e).getRMNode());
      }
      if (e instanceof NodeResourceUpdateSchedulerEvent) {
        return node(((NodeResourceUpdateSchedulerEvent) e).getRMNode());
      }
      if (e instanceof AppAddedSchedulerEvent) {
        return "application " + ((AppAddedSchedulerEvent) e).getApplicationId();
      }
      if (e instanceof AppRemovedSchedulerEvent) {
        return "application " + ((AppRemovedSchedulerEvent) e).getApplicationID();
      }
      if (e instanceof AppAttemptAddedSchedulerEvent) {
        return "attempt " + ((AppAttemptAddedSchedulerEvent) e).getApplicationAttemptId();
      }
      if (e instanceof AppAttemptRemovedSchedulerEvent) {
        return "attempt " + ((AppAttemptRemovedSchedulerEvent) e).getApplicationAttemptID();
      }
      if (e instanceof ContainerExpiredSchedulerEvent) {
        return "container " + ((ContainerExpiredSchedulerEvent) e).getContainerId();
      }
      if (e instanceof ReleaseContainerEvent) {
        return container(((ReleaseContainerEvent) e).getContainer());
      }
      if (e instanceof ContainerPreemptEvent) {
        return container(((ContainerPreemptEvent) e).getContainer());
      }
    } catch (RuntimeException ignored) {
      // A broken event names nothing better than its type.
    }
    return "the cluster";
  }

  private static String node(RMNode n) {
    return n == null ? "an unknown node" : "node " + n.getNodeID();
  }

  private static String container(RMContainer c) {
    return c == null ? "a container the RM no longer has" : "container " + c.getContainerId();
  }
}
