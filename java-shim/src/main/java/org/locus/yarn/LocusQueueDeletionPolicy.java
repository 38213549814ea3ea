package org.locus.yarn;

import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

/**
 * Removal of idle auto-created queues under Locus: what the RM runs when its scheduling monitor
 * names CapacityScheduler's {@code AutoCreatedQueueDeletionPolicy}, which refuses any other
 * scheduler ({@link MonitorPolicies} puts this class in its place). Its rules are that
 * policy's: every {@code auto-queue-creation-v2.queue-expiration-time} seconds (default 300) a
 * created leaf with no applications and {@code queue-auto-removal.enable} on (the default) is
 * marked; one still so at the next round is removed if no submission reached it for longer
 * than the expiration time. The core takes the tree without it as at {@code -refreshQueues}.
 */
public class LocusQueueDeletionPolicy implements SchedulingEditPolicy {
  private LocusScheduler scheduler;
  private long monitoringInterval;
  private final Set<String> marked = new HashSet<>();

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    this.scheduler = MonitorPolicies.locus(sched);
    this.monitoringInterval = scheduler.preemptionConfiguration().getLong(
        CapacitySchedulerConfiguration.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME,
        CapacitySchedulerConfiguration.DEFAULT_AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME) * 1000;
  }

  @Override
  public void editSchedule() {
    Set<String> eligible = scheduler.removableCreatedQueues();
    Set<String> due = new HashSet<>(eligible);
    due.retainAll(marked);
    marked.clear();
    marked.addAll(eligible);
    marked.removeAll(due);
    for (String path : due) {
      scheduler.removeIdleCreatedQueue(path);
    }
  }

  @Override
  public long getMonitoringInterval() {
    return monitoringInterval;
  }

  @Override
  public String getPolicyName() {
    return LocusQueueDeletionPolicy.class.getCanonicalName();
  }
}
