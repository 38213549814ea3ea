package org.locus.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;

/**
 * The RM's questions about queues (client and admin RPCs, the web UI), answered from the
 * queue tree and the applications the scheduler holds; nothing here changes either.
 */
final class QueueQueries {
  private final LocusRootQueue root;
  private final Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications;

  QueueQueries(LocusRootQueue root,
      Map<ApplicationId, SchedulerApplication<FiCaSchedulerApp>> applications) {
    this.root = root;
    this.applications = applications;
  }

  /**
   * {@code null} and {@code root} answer for root (with its leaves if asked), a leaf by name or
   * path; outside capacity any other name for {@code default}, where such an application runs.
   */
  QueueInfo queueInfo(String queueName, boolean includeChildQueues, boolean recursive)
      throws IOException {
    Queue q = root.describing(queueName);
    if (q == null) {
      throw new IOException("Unknown queue " + queueName + ": Locus has queues "
          + LocusRootQueue.NAME + " and " + leafNames());
    }
    return q.getQueueInfo(includeChildQueues, recursive);
  }

  private String leafNames() {
    List<String> names = new ArrayList<>();
    for (LocusQueue leaf : root.leaves()) {
      names.add(leaf.getQueueName());
    }
    return String.join(", ", names);
  }

  /**
   * Under capacity every queue, root first, as CapacityScheduler lists them; otherwise the
   * single {@code default}, as FifoScheduler does.
   */
  List<QueueUserACLInfo> userAclInfo() {
    if (root.isCapacity()) {
      return root.getQueueUserAclInfo(null);
    }
    List<QueueUserACLInfo> out = new ArrayList<>();
    for (LocusQueue leaf : root.leaves()) {
      out.addAll(leaf.getQueueUserAclInfo(null));
    }
    return out;
  }

  /** A parent queue's applications are those of the leaves below it, as under CS. */
  private static boolean below(Queue q, SchedulerApplication<FiCaSchedulerApp> app) {
    return q instanceof LocusParentQueue && app.getQueue() instanceof LocusQueue
        && ((LocusParentQueue) q).contains(((LocusQueue) app.getQueue()).path());
  }

  /** Root's are every application's; null for a queue that does not exist. */
  List<ApplicationAttemptId> appsInQueue(String queueName) {
    Queue q = root.lookup(queueName);
    if (q == null) {
      return null;
    }
    List<ApplicationAttemptId> attempts = new ArrayList<>(applications.size());
    for (SchedulerApplication<FiCaSchedulerApp> app : applications.values()) {
      FiCaSchedulerApp attempt = app.getCurrentAppAttempt();
      if (attempt != null && (q == root || app.getQueue() == q || below(q, app))) {
        attempts.add(attempt.getApplicationAttemptId());
      }
    }
    return attempts;
  }
}
