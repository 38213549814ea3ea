package org.locus.yarn.bench;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.locus.yarn.LocusScheduler;

/**
 * LocusScheduler unchanged, plus calls into the protected steps of the RM's own
 * {@code AbstractYarnScheduler.nodeUpdate}, so {@link NodeUpdateBench} can time them one by
 * one (the other steps are private to the RM's class).
 */
public class ProbedLocusScheduler extends LocusScheduler {
  private final Resource none = Resource.newInstance(0, 0);

  public void probeSchedulerHealth() {
    updateSchedulerHealthInformation(none, 0);
  }

  public void probeNodeUtilization(RMNode node) {
    updateNodeResourceUtilization(node, getNode(node.getNodeID()));
  }
}
