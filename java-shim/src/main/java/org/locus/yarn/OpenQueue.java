package org.locus.yarn;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.locus.yarn.queue.QueueAcls;

/**
 * What Locus's root and leaf queues answer alike: ACLs from the queue tree's {@link QueueAcls}
 * (the RM's authorizer, as CapacityScheduler asks it), node labels from the tree's
 * {@link LabelPolicy}, no reservations, no default priority.
 */
abstract class OpenQueue implements Queue {
  /** The full path ACLs are keyed by: {@code root}, {@code root.a}. */
  abstract String aclPath();

  /** The ACLs in force for the whole tree. */
  abstract QueueAcls acls();

  /** The node label settings in force for the whole tree. */
  abstract LabelPolicy labels();

  @Override
  public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
    return acls().isAllowed(user, acl, aclPath());
  }

  /**
   * This queue's entry for {@code mapred queue -showacls}: what {@code user} (the caller when
   * null, as CapacityScheduler answers) may do here.
   */
  QueueUserACLInfo userAclInfo(UserGroupInformation user) {
    UserGroupInformation who = user;
    if (who == null) {
      try {
        who = UserGroupInformation.getCurrentUser();
      } catch (IOException e) {
        return QueueUserACLInfo.newInstance(getQueueName(), Collections.<QueueACL>emptyList());
      }
    }
    List<QueueACL> allowed = acls().allowed(who, aclPath());
    // Named by path, as CapacityScheduler lists its queues.
    return QueueUserACLInfo.newInstance(aclPath(), allowed);
  }

  @Override
  public Set<String> getAccessibleNodeLabels() {
    return labels().accessible(aclPath());
  }

  @Override
  public String getDefaultNodeLabelExpression() {
    return labels().defaultExpression(aclPath());
  }

  /**
   * Puts the queue's labels in {@code info}: the RM checks a submission's and an ask's label
   * against them and fills in the default ({@code SchedulerUtils.normalizeAndValidateRequest}).
   */
  void describeLabels(QueueInfo info) {
    info.setAccessibleNodeLabels(getAccessibleNodeLabels());
    info.setDefaultNodeLabelExpression(getDefaultNodeLabelExpression());
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
