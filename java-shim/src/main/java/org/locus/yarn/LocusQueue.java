package org.locus.yarn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * The single queue {@code default} every application runs in. Which application gets freed
 * capacity is the core's business; this class only keeps what the RM reads from a queue:
 * metrics, ACLs (open to everyone, as in the FIFO scheduler), the used resource and headroom.
 */
final class LocusQueue implements Queue {
  static final String NAME = "default";

  private final QueueMetrics metrics;
  private final ActiveUsersManager users;
  private final Supplier<Resource> clusterResource;
  private final AccessControlList everyone = new AccessControlList("*");
  private final Resource used = Resources.createResource(0, 0);

  LocusQueue(QueueMetrics metrics, Supplier<Resource> clusterResource) {
    this.metrics = metrics;
    this.users = new ActiveUsersManager(metrics);
    this.clusterResource = clusterResource;
  }

  /** True for the names an operator may use for this queue. */
  static boolean isKnown(String queueName) {
    return queueName == null || NAME.equals(queueName) || ("root." + NAME).equals(queueName)
        || "root".equals(queueName);
  }

  synchronized void addUsed(Resource r) {
    Resources.addTo(used, r);
  }

  synchronized void subtractUsed(Resource r) {
    Resources.subtractFrom(used, r);
  }

  synchronized Resource getUsed() {
    return Resources.clone(used);
  }

  /** What the whole cluster still has free: an app's headroom in a single-queue scheduler. */
  Resource available() {
    return Resources.componentwiseMax(
        Resources.subtract(clusterResource.get(), getUsed()), Resources.none());
  }

  void updateHeadroom(SchedulerApplicationAttempt attempt) {
    attempt.setHeadroom(available());
  }

  void updateAvailableMetrics() {
    metrics.setAvailableResourcesToQueue(available());
  }

  @Override
  public String getQueueName() {
    return NAME;
  }

  @Override
  public QueueMetrics getMetrics() {
    return metrics;
  }

  @Override
  public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
    QueueInfo info = Records.newRecord(QueueInfo.class);
    info.setQueueName(NAME);
    info.setCapacity(1.0f);
    info.setMaximumCapacity(1.0f);
    info.setCurrentCapacity(currentCapacity());
    info.setChildQueues(new ArrayList<>());
    info.setApplications(new ArrayList<>());
    info.setQueueState(QueueState.RUNNING);
    return info;
  }

  private float currentCapacity() {
    long total = clusterResource.get().getMemorySize();
    return total <= 0 ? 0f : (float) getUsed().getMemorySize() / total;
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
    return Collections.singletonList(
        QueueUserACLInfo.newInstance(NAME, Arrays.asList(QueueACL.values())));
  }

  @Override
  public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
    return everyone.isUserAllowed(user);
  }

  @Override
  public ActiveUsersManager getAbstractUsersManager() {
    return users;
  }

  @Override
  public void recoverContainer(Resource clusterResource, SchedulerApplicationAttempt attempt,
      RMContainer rmContainer) {
    if (rmContainer.getState() == RMContainerState.COMPLETED) {
      return;
    }
    addUsed(rmContainer.getAllocatedResource());
    updateHeadroom(attempt);
    updateAvailableMetrics();
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
