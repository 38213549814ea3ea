package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;

/**
 * Work-preserving RM restart: the RM rebuilds the containers an NM reports
 * ({@link LocusScheduler#recoverContainersOnNode}), and the core, which starts empty, learns
 * each one it did not know as a recovered allocation. Caller holds the scheduler lock.
 */
final class ContainerRecovery {
  private final LocusScheduler scheduler;
  private final CoreLink link;
  private final SchedulingLoop loop;

  ContainerRecovery(LocusScheduler scheduler, CoreLink link, SchedulingLoop loop) {
    this.scheduler = scheduler;
    this.link = link;
    this.loop = loop;
  }

  /** The reported containers already live before the RM recovers them. */
  Set<ContainerId> liveAmong(List<NMContainerStatus> reports) {
    Set<ContainerId> liveBefore = new HashSet<>();
    if (reports != null) {
      for (NMContainerStatus r : reports) {
        if (isLive(r.getContainerId())) {
          liveBefore.add(r.getContainerId());
        }
      }
    }
    return liveBefore;
  }

  /** After the RM recovered {@code reports}: the core learns those now live and new. */
  void recovered(List<NMContainerStatus> reports, Set<ContainerId> liveBefore, RMNode rmNode) {
    if (reports == null || reports.isEmpty()) {
      return;
    }
    List<ObjectNode> events = new ArrayList<>();
    Set<LocusAppAttempt> apps = new HashSet<>();
    for (NMContainerStatus r : reports) {
      ContainerId id = r.getContainerId();
      if (liveBefore.contains(id) || !isLive(id)) {
        continue;
      }
      FiCaSchedulerApp attempt = scheduler.getCurrentAttemptForContainer(id);
      RMContainer c = attempt.getRMContainer(id);
      // The original locality is not in the NM's report; recovered=true tells the core not
      // to count it as a placement outcome.
      events.add(CoreMessages.containerAllocated(id, rmNode.getNodeID(),
          c.getContainer().getPriority().getPriority(),
          c.getContainer().getAllocationRequestId(), c.getAllocatedResource(),
          NodeType.OFF_SWITCH, true));
      if (attempt instanceof LocusAppAttempt) {
        apps.add((LocusAppAttempt) attempt);
      }
    }
    link.send(events, Collections.emptySet());
    for (LocusAppAttempt a : apps) {
      // Its asks may have changed: the scheduling thread sends them before its pass.
      loop.asksChanged(a);
    }
  }

  private boolean isLive(ContainerId id) {
    FiCaSchedulerApp attempt = scheduler.getCurrentAttemptForContainer(id);
    return attempt != null && attempt.getLiveContainersMap().containsKey(id);
  }
}
