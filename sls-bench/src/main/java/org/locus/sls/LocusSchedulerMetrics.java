package org.locus.sls;

import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;

/**
 * SLS's per-scheduler metrics class for Locus. SLS picks one per scheduler class (Capacity, Fair,
 * Fifo) or, for any other scheduler, the class named by the configuration key equal to the
 * scheduler's class name; the base class's cluster, queue and timer metrics are all Locus needs.
 */
public class LocusSchedulerMetrics extends SchedulerMetrics {
  public LocusSchedulerMetrics() {
    super();
  }
}
