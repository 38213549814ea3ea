package org.locus.yarn;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.Rule;
import org.junit.Test;

/**
 * Per-partition capacities Locus cannot honour stop the RM at start naming the key (the core
 * gives every queue that may use a partition all of it); the EMR layout, one leaf holding 100
 * of the partition, starts (NodeLabelsTest runs jobs on it).
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

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  @Test
  public void aPartitionSharedBetweenQueuesStopsTheRmNamingTheKey() {
    YarnConfiguration cs = twoLeavesSharingCore();
    cs.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class,
        ResourceScheduler.class);
    cluster.start(cs);
    try {
      cluster.start(twoLeavesSharingCore());
      fail("started with CORE divided 70/30 between root.a and root.b");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(CS + "root.a.accessible-node-labels.CORE.capacity"));
      assertTrue(m, m.contains("root.a, root.b"));
    }
  }

  @Test
  public void aMaximumCapacityBelowTheWholePartitionStopsTheRm() {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(CS + "root.queues", "default");
    conf.set(CS + "root.default.accessible-node-labels", "CORE");
    conf.set(CS + "root.accessible-node-labels.CORE.capacity", "100");
    conf.set(CS + "root.default.accessible-node-labels.CORE.capacity", "100");
    conf.set(CS + "root.default.accessible-node-labels.CORE.maximum-capacity", "40");
    try {
      cluster.start(conf);
      fail("started with a 40% ceiling inside CORE");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(CS + "root.default.accessible-node-labels.CORE.maximum-capacity"));
    }
  }
}
