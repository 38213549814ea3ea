package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;

/**
 * {@code yarn.scheduler.capacity.resource-calculator=DominantResourceCalculator} with two
 * queues, under CapacityScheduler and under Locus's {@code capacity} policy in the same run: a
 * queue's maximum-capacity stops vcore-heavy and GPU asks where CapacityScheduler stops them,
 * every resource type compared.
 */
public class DominantCalculatorAgainstCapacitySchedulerTest {
  private static final int GB = 1024;
  private static final String GPU = "yarn.io/gpu";
  private static final String CS = "yarn.scheduler.capacity.";

  @Rule
  public final LocusRmFixture cluster = new LocusRmFixture();

  /** ResourceUtils keeps the types JVM-wide: every later test must see memory and vcores only. */
  @After
  public void resetResourceTypes() {
    ResourceUtils.resetResourceTypes(new Configuration());
  }

  private static YarnConfiguration conf(Class<? extends ResourceScheduler> scheduler,
      boolean gpus) {
    YarnConfiguration conf = LocusRmFixture.locusConf();
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.set(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS,
        DominantResourceCalculator.class.getName());
    // a may grow to half the cluster, b to all of it.
    conf.set(CS + "root.queues", "a,b");
    conf.set(CS + "root.a.capacity", "50");
    conf.set(CS + "root.a.maximum-capacity", "50");
    conf.set(CS + "root.b.capacity", "50");
    if (gpus) {
      conf.set(YarnConfiguration.RESOURCE_TYPES, GPU);
      // The RM caps asks at the largest node's figures once this wait is over (10 s by
      // default); until then at the configured maximum, which for a GPU is unbounded.
      conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
      ResourceUtils.resetResourceTypes(conf);
    }
    return conf;
  }

  /** {@code {memory MB, vcores, GPUs}}; GPUs only once the JVM knows the type. */
  private static Resource resource(long[] r) {
    Resource out = Resource.newInstance(r[0], (int) r[1]);
    if (r.length > 2) {
      out.setResourceValue(GPU, r[2]);
    }
    return out;
  }

  /**
   * Two nodes of {@code nodeSize}; an application in queue a (its 1 GB AM on the first) asks
   * for 20 containers of {@code eachSize}: how many it gets once every node has heartbeated
   * enough.
   */
  private int containersInA(Class<? extends ResourceScheduler> scheduler, long[] nodeSize,
      long[] eachSize) throws Exception {
    return containersInA(conf(scheduler, nodeSize.length > 2), nodeSize, eachSize);
  }

  private int containersInA(YarnConfiguration conf, long[] nodeSize, long[] eachSize)
      throws Exception {
    MockRM rm = cluster.start(conf);
    Resource node = resource(nodeSize);
    Resource each = resource(eachSize);
    try {
      MockNM first = rm.registerNode("h1:1234", node);
      MockNM second = rm.registerNode("h2:1234", node);
      RMApp app = MockRMAppSubmitter.submit(rm,
          MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).withQueue("a").build());
      MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, first);
      am.allocate(ResourceRequest.ANY, each, 20, new ArrayList<>(), null);
      List<Container> got = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        first.nodeHeartbeat(true);
        LocusRmFixture.settle(rm);
        second.nodeHeartbeat(true);
        LocusRmFixture.settle(rm);
        got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
      }
      return got.size();
    } finally {
      rm.stop();
    }
  }

  @Test
  public void vcoreHeavyAsksStopAtTheQueuesMaximumAsUnderCapacityScheduler() throws Exception {
    // 32 GB and 32 vcores; a may hold 16 of each. Its AM holds 1 GB / 1 vcore, so three
    // containers of 1 GB / 4 vcores fit under 16 vcores (the fourth would need 17).
    long[] node = {16 * GB, 16};
    long[] each = {GB, 4};
    int cs = containersInA(CapacityScheduler.class, node, each);
    int locus = containersInA(LocusScheduler.class, node, each);
    assertEquals("CapacityScheduler", 3, cs);
    assertEquals("Locus against CapacityScheduler", cs, locus);
  }

  /** a: 16 GB and 4 vcores of the two nodes' 32 GB and 32 vcores, as minimum and maximum. */
  private static YarnConfiguration absolute(Class<? extends ResourceScheduler> scheduler) {
    YarnConfiguration conf = conf(scheduler, false);
    conf.set(CS + "root.a.capacity", "[memory=16384,vcores=4]");
    conf.set(CS + "root.a.maximum-capacity", "[memory=16384,vcores=4]");
    conf.set(CS + "root.b.capacity", "[memory=16384,vcores=28]");
    return conf;
  }

  @Test
  public void absoluteCapacitiesStopVcoreAsksWhereCapacitySchedulerDoes() throws Exception {
    // a's AM holds 1 GB / 1 vcore: three containers of 1 GB / 1 vcore reach its 4 vcores,
    // though its memory (16 GB, half the cluster) would hold fifteen.
    long[] node = {16 * GB, 16};
    long[] each = {GB, 1};
    int cs = containersInA(absolute(CapacityScheduler.class), node, each);
    int locus = containersInA(absolute(LocusScheduler.class), node, each);
    assertEquals("CapacityScheduler", 3, cs);
    assertEquals("Locus against CapacityScheduler", cs, locus);
  }

  /** Absolute capacities name memory and vcores: with GPUs too, Locus stops at start. */
  @Test
  public void absoluteCapacitiesWithGpusAreRefusedNamingTheKeys() throws Exception {
    YarnConfiguration conf = absolute(LocusScheduler.class);
    conf.set(YarnConfiguration.RESOURCE_TYPES, GPU);
    ResourceUtils.resetResourceTypes(conf);
    try {
      cluster.start(conf);
      fail("Locus started absolute capacities with GPUs under the dominant calculator");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS));
      assertTrue(m, m.contains(YarnConfiguration.RESOURCE_TYPES));
    }
  }

  @Test
  public void gpuAsksStopAtTheQueuesMaximumAsUnderCapacityScheduler() throws Exception {
    // 4 GPUs in all; a may hold 2.
    long[] node = {8 * GB, 8, 2};
    long[] each = {GB, 1, 1};
    int cs = containersInA(CapacityScheduler.class, node, each);
    resetResourceTypes();
    int locus = containersInA(LocusScheduler.class, node, each);
    assertEquals("CapacityScheduler", 2, cs);
    assertEquals("Locus against CapacityScheduler", cs, locus);
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  /** The RM normalised the asks in force with the start's calculator: a refresh keeps it. */
  @Test
  public void aRefreshToTheOtherCalculatorIsRefusedNamingTheKey() throws Exception {
    MockRM rm = cluster.start(conf(LocusScheduler.class, false));
    YarnConfiguration next = new YarnConfiguration(rm.getConfig());
    next.set(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS,
        DefaultResourceCalculator.class.getName());
    try {
      LocusRmFixture.scheduler(rm).reinitialize(next, rm.getRMContext());
      fail("the refresh changed the calculator");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS));
      assertTrue(m, m.contains("read once at start"));
    }
    assertTrue(LocusRmFixture.scheduler(rm).getResourceCalculator()
        instanceof DominantResourceCalculator);
  }

  /** The shortcut's queues carry no calculator: with the dominant one, the start is refused. */
  @Test
  public void theQueuesShortcutUnderTheDominantCalculatorIsRefusedNamingBothKeys()
      throws Exception {
    YarnConfiguration conf = conf(LocusScheduler.class, false);
    conf.set("locus.policy", "capacity");
    conf.set("locus.capacity.queues", "a:50:50,b:50");
    try {
      cluster.start(conf);
      fail("Locus started the shortcut's queues under the dominant calculator");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains("locus.capacity.queues"));
      assertTrue(m, m.contains(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS));
    }
  }
}
