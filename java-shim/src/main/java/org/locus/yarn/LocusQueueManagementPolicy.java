package org.locus.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;

/**
 * Guarantees moved between a managed parent's auto-created leaves under Locus: what the RM runs
 * when its scheduling monitor names CapacityScheduler's {@code QueueManagementDynamicEditPolicy},
 * which refuses any other scheduler ({@link MonitorPolicies} puts this class in its place).
 * Every {@code yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval}
 * milliseconds (default 1500), as that policy's default {@code GuaranteedOrZeroCapacityOverTime}
 * rules: an idle leaf gives its guarantee back and leaves whose applications wait for one get it
 * in submission order ({@link org.locus.yarn.queue.QueueFile#withGuaranteesMoved}).
 */
public class LocusQueueManagementPolicy implements SchedulingEditPolicy {
  private LocusScheduler scheduler;
  private long monitoringInterval;

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler sched) {
    this.scheduler = MonitorPolicies.locus(sched);
    this.monitoringInterval = scheduler.preemptionConfiguration().getLong(
        CapacitySchedulerConfiguration.QUEUE_MANAGEMENT_MONITORING_INTERVAL,
        CapacitySchedulerConfiguration.DEFAULT_QUEUE_MANAGEMENT_MONITORING_INTERVAL);
  }

  @Override
  public void editSchedule() {
    scheduler.moveManagedGuarantees();
  }

  @Override
  public long getMonitoringInterval() {
    return monitoringInterval;
  }

  @Override
  public String getPolicyName() {
    return LocusQueueManagementPolicy.class.getCanonicalName();
  }
}
