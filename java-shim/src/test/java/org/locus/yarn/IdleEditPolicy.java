package org.locus.yarn;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;

/**
 * A scheduling monitor policy that starts under any scheduler and never edits anything: lets a
 * test see which monitors the RM runs after a refresh (CapacityFileTest).
 */
public class IdleEditPolicy implements SchedulingEditPolicy {
  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler scheduler) {
  }

  @Override
  public void editSchedule() {
  }

  @Override
  public long getMonitoringInterval() {
    return 60_000L;
  }

  @Override
  public String getPolicyName() {
    return "idle";
  }
}
