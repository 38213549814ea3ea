package org.locus.yarn;

import java.util.Set;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;

/**
 * What Locus's root and leaf queues answer alike: ACLs open to everyone (as in the FIFO
 * scheduler), no node labels, no reservations, no default priority.
 */
abstract class OpenQueue implements Queue {
  private final AccessControlList everyone = new AccessControlList("*");

  @Override
  public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
    return everyone.isUserAllowed(user);
  }

  @Override
  public Set<String> getAccessibleNodeLabels() {
    // Node labels are not supported: null means "no restriction" to the RM.
    return null;
  }

  @Override
  public String getDefaultNodeLabelExpression() {
    return null;
  }

  @Override
  public void incPendingResource(String nodeLabel, Resource resourceToInc) {
    // Pending resource is tracked by QueueMetrics through AppSchedulingInfo already.
  }

  @Override
  public void decPendingResource(String nodeLabel, Resource resourceToDec) {
  }

  @Override
  public Priority getDefaultApplicationPriority() {
    return null;
  }

  @Override
  public void incReservedResource(String partition, Resource reservedRes) {
    // Locus never reserves: the core re-decides on every heartbeat instead.
  }

  @Override
  public void decReservedResource(String partition, Resource reservedRes) {
  }
}
