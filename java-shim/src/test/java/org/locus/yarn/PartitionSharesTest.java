package org.locus.yarn;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * What Locus refuses of per-partition capacities, naming the key: weights per partition, and
 * a partition divided between queues while the preemption monitor runs (Locus preempts for
 * shares of the default partition only). The EMR layout, one leaf holding all of the partition, starts
 * with the monitor on. PartitionCapacitiesTest compares the honoured ones with
 * CapacityScheduler.
 */
public class PartitionSharesTest {
  private static final String CS = "yarn.scheduler.capacity.";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  private static YarnConfiguration twoLeavesSharingCore() {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    conf.set(CS + "root.a.accessible-node-labels", "CORE");
    conf.set(CS + "root.b.accessible-node-labels", "CORE");
    conf.set(CS + "root.accessible-node-labels.CORE.capacity", "100");
    conf.set(CS + "root.a.accessible-node-labels.CORE.capacity", "70");
    conf.set(CS + "root.b.accessible-node-labels.CORE.capacity", "30");
    return conf;
  }

  private static YarnConfiguration withPreemption(YarnConfiguration conf) {
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, MonitorPolicies.PROPORTIONAL);
    return conf;
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  @Test
  public void aPartitionDividedBetweenQueuesStarts() {
    cluster.start(twoLeavesSharingCore());
  }

  @Test
  public void aDividedPartitionWithThePreemptionMonitorStopsTheRmNamingTheKeys() {
    YarnConfiguration cs = withPreemption(twoLeavesSharingCore());
    cs.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
        ResourceScheduler.class);
    cluster.start(cs);
    try {
      cluster.start(withPreemption(twoLeavesSharingCore()));
      fail("started preempting for whole-cluster shares with CORE divided 70/30");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES));
      assertTrue(m, m.contains(CS + "root.b.accessible-node-labels.CORE.capacity=30"));
    }
  }

  @Test
  public void oneLeafHoldingAWholePartitionStartsWithThePreemptionMonitor() {
    YarnConfiguration conf = withPreemption(LocusRmFixture.locusConf());
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "default");
    conf.set(CS + "root.default.accessible-node-labels", "CORE");
    conf.set(CS + "root.accessible-node-labels.CORE.capacity", "100");
    conf.set(CS + "root.default.accessible-node-labels.CORE.capacity", "100");
    cluster.start(conf);
  }

  @Test
  public void aWeightInAPartitionStopsTheRmNamingTheKey() {
    YarnConfiguration conf = twoLeavesSharingCore();
    conf.set(CS + "root.a.accessible-node-labels.CORE.capacity", "2w");
    conf.set(CS + "root.b.accessible-node-labels.CORE.capacity", "1w");
    try {
      cluster.start(conf);
      fail("started with weights inside CORE");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(CS + "root.a.accessible-node-labels.CORE.capacity"));
      assertTrue(m, m.contains("weights per partition"));
    }
  }
}
