package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.After;
import org.junit.Test;

/**
 * Resource types beyond memory and vcores ({@code yarn.resource-types}, here {@code
 * yarn.io/gpu}) under CapacityScheduler with {@code DominantResourceCalculator} and under
 * Locus, in the same run: a GPU container lands only on the node with GPUs, an ask for more
 * GPUs than any node has is refused naming the type, and the starts CapacityScheduler refuses
 * (types under the default calculator) Locus refuses too.
 */
public class ResourceTypesTest {
  private static final int GB = 1024;
  private static final String GPU = "yarn.io/gpu";

  private final List<MockRM> rms = new ArrayList<>();

  /** ResourceUtils keeps the types JVM-wide: every later test must see memory and vcores only. */
  @After
  public void resetResourceTypes() {
    for (MockRM rm : rms) {
      rm.stop();
    }
    YarnAuthorizationProvider.destroy();
    ResourceUtils.resetResourceTypes(new Configuration());
  }

  private static YarnConfiguration withGpus(Class<? extends ResourceScheduler> scheduler,
      String types, Class<?> calculator) {
    YarnConfiguration conf = scheduler == LocusScheduler.class ? LocusRmFixture.locusConf()
        : LocusRmFixture.privateState(new YarnConfiguration());
    conf.setClass(YarnConfiguration.RM_SCHEDULER, scheduler, ResourceScheduler.class);
    conf.set(YarnConfiguration.RESOURCE_TYPES, types);
    conf.set(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS, calculator.getName());
    // The RM caps asks at the largest node's figures once this wait after its start is over
    // (10 s by default); until then at the configured maximum, which for a GPU is unbounded.
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
    // What the RM does with resource-types.xml: the types every Resource of this JVM carries.
    ResourceUtils.resetResourceTypes(conf);
    return conf;
  }

  private static YarnConfiguration withGpus(Class<? extends ResourceScheduler> scheduler) {
    return withGpus(scheduler, GPU, DominantResourceCalculator.class);
  }

  private MockRM start(YarnConfiguration conf) {
    YarnAuthorizationProvider.destroy();
    MockRM rm = new MockRM(conf);
    LocusRmFixture.quietLogs();
    rms.add(rm);
    rm.start();
    return rm;
  }

  private static Resource resource(int mb, int vcores, long gpus) {
    Resource r = Resource.newInstance(mb, vcores);
    r.setResourceValue(GPU, gpus);
    return r;
  }

  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  /** Where a container asking for one GPU lands, the node without GPUs heartbeating first. */
  private String gpuContainerHost(Class<? extends ResourceScheduler> scheduler)
      throws Exception {
    MockRM rm = start(withGpus(scheduler));
    MockNM plain = rm.registerNode("h1:1234", resource(8 * GB, 8, 0));
    MockNM gpus = rm.registerNode("h2:1234", resource(8 * GB, 8, 2));
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, plain);
    am.allocate(ResourceRequest.ANY, resource(GB, 1, 1), 1, new ArrayList<>(), null);
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < LocusRmFixture.ROUNDS && got.isEmpty(); i++) {
      plain.nodeHeartbeat(true);
      LocusRmFixture.settle(rm);
      gpus.nodeHeartbeat(true);
      LocusRmFixture.settle(rm);
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
    }
    assertEquals(scheduler.getSimpleName() + ": the GPU container", 1, got.size());
    assertEquals(1, got.get(0).getResource().getResourceValue(GPU));
    if (scheduler == LocusScheduler.class) {
      // The core never decided it for the node without GPUs (the commit would have refused it).
      assertEquals(0, LocusRmFixture.stats(rm).get("rejected").asInt());
    }
    return got.get(0).getNodeId().getHost();
  }

  @Test
  public void aGpuContainerLandsOnlyOnTheGpuNodeAsUnderCapacityScheduler() throws Exception {
    String cs = gpuContainerHost(CapacityScheduler.class);
    resetResourceTypes();
    rms.clear();
    String locus = gpuContainerHost(LocusScheduler.class);
    assertEquals("h2", cs);
    assertEquals(cs, locus);
  }

  /** The RM's own check of an ask against the largest node, naming the type, under both. */
  private String tooManyGpus(Class<? extends ResourceScheduler> scheduler) throws Exception {
    MockRM rm = start(withGpus(scheduler));
    MockNM plain = rm.registerNode("h1:1234", resource(8 * GB, 8, 0));
    rm.registerNode("h2:1234", resource(8 * GB, 8, 2));
    RMApp app = MockRMAppSubmitter.submitWithMemory(GB, rm);
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, plain);
    try {
      am.allocate(ResourceRequest.ANY, resource(GB, 1, 3), 1, new ArrayList<>(), null);
      fail(scheduler.getSimpleName() + " took an ask for 3 GPUs; the largest node has 2");
    } catch (Exception e) {
      return messages(e);
    }
    return null;
  }

  @Test
  public void anAskForMoreGpusThanAnyNodeIsRefusedNamingTheType() throws Exception {
    String cs = tooManyGpus(CapacityScheduler.class);
    resetResourceTypes();
    rms.clear();
    String locus = tooManyGpus(LocusScheduler.class);
    for (String m : new String[] {cs, locus}) {
      assertTrue(m, m.contains(GPU));
      assertTrue(m, m.contains("maximum allowed allocation"));
    }
  }

  /**
   * A running AM of queue a, whose resource-string maximum allows one GPU, asks for two, then
   * for one: the RM's answer to each (its refusal's message, or taken).
   */
  private String overTheQueuesGpus(Class<? extends ResourceScheduler> scheduler)
      throws Exception {
    YarnConfiguration conf = withGpus(scheduler);
    String cs = CapacitySchedulerConfiguration.PREFIX;
    conf.set(cs + "root.queues", "a,b");
    conf.set(cs + "root.a.capacity", "50");
    conf.set(cs + "root.b.capacity", "50");
    conf.set(cs + "root.a.maximum-allocation", "memory-mb=4096,vcores=2," + GPU + "=1");
    MockRM rm = start(conf);
    MockNM nm = rm.registerNode("h1:1234", resource(8 * GB, 8, 2));
    RMApp app = MockRMAppSubmitter.submit(rm, org.apache.hadoop.yarn.server.resourcemanager
        .MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).withQueue("a").build());
    MockAM am = LocusRmFixture.launchAndRegisterAM(app, rm, nm);
    StringBuilder out = new StringBuilder();
    for (long gpus : new long[] {2, 1}) {
      try {
        am.allocate(ResourceRequest.ANY, resource(GB, 1, gpus), 1, new ArrayList<>(), null);
        out.append(gpus).append(" GPUs: taken\n");
      } catch (Exception e) {
        out.append(gpus).append(" GPUs: ").append(messages(e));
      }
    }
    return out.toString();
  }

  @Test
  public void aQueuesGpuMaximumBoundsItsAsksAsUnderCapacityScheduler() throws Exception {
    String cs = overTheQueuesGpus(CapacityScheduler.class);
    resetResourceTypes();
    rms.clear();
    String locus = overTheQueuesGpus(LocusScheduler.class);
    assertTrue(cs, cs.startsWith("2 GPUs: ") && cs.contains("Requested resource type=[" + GPU));
    assertTrue(cs, cs.endsWith("1 GPUs: taken\n"));
    assertEquals(cs, locus);
  }

  /** CapacityScheduler refuses types beyond memory and vcores under its default calculator. */
  @Test
  public void theDefaultCalculatorWithGpusIsRefusedAsByCapacityScheduler() throws Exception {
    List<Class<? extends ResourceScheduler>> schedulers =
        Arrays.asList(CapacityScheduler.class, LocusScheduler.class);
    for (Class<? extends ResourceScheduler> s : schedulers) {
      try {
        start(withGpus(s, GPU, DefaultResourceCalculator.class));
        fail(s.getSimpleName() + " started with yarn.io/gpu under the default calculator");
      } catch (Exception e) {
        String m = messages(e);
        assertTrue(m, m.contains(DefaultResourceCalculator.class.getName())
            || m.contains("DefaultResourceCalculator"));
        if (s == LocusScheduler.class) {
          assertTrue(m, m.contains(GPU));
          assertTrue(m, m.contains(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS));
        }
      }
      resetResourceTypes();
      rms.clear();
    }
  }

  @Test
  public void moreTypesThanTheBoundAreRefusedNamingTheKey() throws Exception {
    try {
      start(withGpus(LocusScheduler.class, "yarn.io/gpu,yarn.io/fpga,a,b,c",
          DominantResourceCalculator.class));
      fail("Locus started with five types beyond memory and vcores");
    } catch (Exception e) {
      String m = messages(e);
      assertTrue(m, m.contains(YarnConfiguration.RESOURCE_TYPES));
      assertTrue(m, m.contains("at most " + ResourceTypes.MAX_EXTRA));
    }
  }
}
